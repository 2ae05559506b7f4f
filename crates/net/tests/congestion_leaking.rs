//! Congestion leaking (Azure §8.3, R8): a Gen2 NIC with the interop
//! features had a head-of-line block in its firmware's rate limiting, and
//! every QP it sent ran at about the rate of its most congested one. Host
//! 0 sends one flow into a receiver shared with three other senders (its
//! max-min share a quarter of the line) and two flows to idle receivers
//! (which share the rest of host 0's line). With the bug off the innocent
//! flows get their water-filling share; with it on they fall to the
//! congested flow's rate.

use engine::{Delta, Rate, Time};
use rdmasim_net::cc::{CcConfig, DcqcnConfig, DcqcnFleet, DcqcnGen};
use rdmasim_net::{NetConfig, Simulation};
use workload::FlowSpec;

/// Goodput (Gb/s, bytes over the flow's completion time) of host 0's
/// congested flow and of its two innocent flows, with the bug on host 0's
/// Gen2 NIC or not.
fn goodputs(bug: bool) -> (f64, [f64; 2]) {
    // Hosts 0-3 send, 4 is the congested receiver, 5 and 6 idle ones.
    let topo = topo::star(7, Rate::gbps(100), Delta::from_us(1)).unwrap();
    let cfg = NetConfig {
        cc: CcConfig::Dcqcn(DcqcnConfig::default()),
        dcqcn_fleet: Some(DcqcnFleet {
            hosts: (0..7).map(|h| (h, DcqcnGen::Gen2)).collect(),
            gen1_cnp_interval: Delta::from_us(50),
            interop_fix: true,
            burst_packets: [1; 3],
            gen1_loss_recovery: Delta::ZERO,
            congestion_leaking: [false, bug, false],
        }),
        ..NetConfig::default()
    };
    let flow = |id: u32, src: u32, dst: u32, size: u64| FlowSpec {
        id,
        src,
        dst,
        size,
        start: Time::ZERO,
        pg: 3,
        dport: 100,
    };
    let flows = vec![
        flow(0, 0, 4, 4_000_000),
        flow(1, 0, 5, 2_000_000),
        flow(2, 0, 6, 2_000_000),
        flow(3, 1, 4, 4_000_000),
        flow(4, 2, 4, 4_000_000),
        flow(5, 3, 4, 4_000_000),
    ];
    let mut sim = Simulation::new(&topo, flows, cfg).unwrap();
    sim.run();
    let r = sim.results();
    assert_eq!(r.unfinished(), 0);
    assert!(r.ecn_marks() > 0, "host 4's link was congested");
    let gbps = |i: usize| {
        let f = &r.flows[i];
        (f.size * 8) as f64 / f.end.unwrap().since(f.start).ns() as f64
    };
    (gbps(0), [gbps(1), gbps(2)])
}

#[test]
fn a_leaking_nic_holds_its_innocent_flows_to_the_congested_flows_rate() {
    let (cong, ok) = goodputs(false);
    let (cong_bug, leak) = goodputs(true);
    eprintln!(
        "bug off: congested {cong:.1} Gb/s, innocent {:.1} {:.1}; \
         bug on: congested {cong_bug:.1}, innocent {:.1} {:.1}",
        ok[0], ok[1], leak[0], leak[1]
    );
    // Water-filling: 4 flows into host 4 get 25 Gb/s each, and host 0's
    // other two split the remaining 75 Gb/s of its line.
    for g in ok {
        assert!(g >= 0.9 * 37.5, "correct NIC: innocent {g} Gb/s vs 37.5");
    }
    assert!(
        cong <= 25.0,
        "congested flow {cong} Gb/s vs its 25 Gb/s share"
    );
    for g in leak {
        assert!(
            (g - cong_bug).abs() <= 0.2 * cong_bug,
            "leaking NIC: innocent {g} Gb/s vs the congested flow's {cong_bug}"
        );
        assert!(g < 0.6 * ok[0], "leaking NIC: innocent {g} vs {}", ok[0]);
    }
    assert!(
        (cong_bug - cong).abs() <= 0.1 * cong,
        "the congested flow itself is held by its bottleneck either way: {cong_bug} vs {cong}"
    );
}
