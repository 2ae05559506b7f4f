//! DCQCN across NIC generations (Azure §7.2, R7): a Gen1 sender to a
//! Gen2/3 receiver cuts its rate on each of the receiver's per-packet CNPs
//! and loses throughput against Gen1 to Gen1; the interop fix (a CNP
//! limiter at the Gen2/3 receiver with Gen1's interval, and no RP window)
//! brings it back.

use engine::{Delta, Rate, Time};
use rdmasim_net::cc::{CcConfig, DcqcnConfig, DcqcnFleet, DcqcnGen};
use rdmasim_net::{NetConfig, Simulation};
use workload::FlowSpec;

/// Two Gen1 senders (hosts 0 and 1) each send 10 MB to host 2, of
/// generation `receiver`, through one 100 Gb/s switch: the receiver's
/// link is the congested path. Returns the goodput, Gb/s (all bytes over
/// the last completion).
fn goodput(receiver: DcqcnGen, fix: bool) -> f64 {
    let topo = topo::star(3, Rate::gbps(100), Delta::from_us(1)).unwrap();
    let cfg = NetConfig {
        cc: CcConfig::Dcqcn(DcqcnConfig::default()),
        dcqcn_fleet: Some(DcqcnFleet {
            hosts: vec![(0, DcqcnGen::Gen1), (1, DcqcnGen::Gen1), (2, receiver)],
            gen1_cnp_interval: Delta::from_us(50),
            interop_fix: fix,
        }),
        ..NetConfig::default()
    };
    let size = 10_000_000u64;
    let flows = (0..2)
        .map(|i| FlowSpec {
            id: i,
            src: i,
            dst: 2,
            size,
            start: Time::ZERO,
            pg: 3,
            dport: 100,
        })
        .collect();
    let mut sim = Simulation::new(&topo, flows, cfg).unwrap();
    sim.run();
    let r = sim.results();
    assert_eq!(r.unfinished(), 0);
    assert!(r.ecn_marks() > 0, "the path was congested");
    let last = r.flows.iter().filter_map(|f| f.end).max().unwrap();
    (2 * size * 8) as f64 / last.ns() as f64
}

#[test]
fn gen1_to_gen2_loses_throughput_and_the_fix_brings_it_back() {
    let base = goodput(DcqcnGen::Gen1, false);
    for g in [DcqcnGen::Gen2, DcqcnGen::Gen3] {
        let mixed = goodput(g, false);
        let fixed = goodput(g, true);
        eprintln!("{g:?}: gen1->gen1 {base:.1} Gb/s, mixed {mixed:.1}, fixed {fixed:.1}");
        assert!(mixed < 0.9 * base, "{g:?}: mixed {mixed} vs {base}");
        assert!(
            (fixed - base).abs() <= 0.05 * base,
            "{g:?}: fixed {fixed} vs {base}"
        );
    }
}
