//! DCQCN across NIC generations (Azure §7.2, R7): a Gen1 sender to a
//! Gen2/3 receiver cuts its rate on each of the receiver's per-packet CNPs
//! and loses throughput against Gen1 to Gen1; the interop fix (a CNP
//! limiter at the Gen2/3 receiver with Gen1's interval, and no RP window)
//! brings it back. A Gen1 NIC's rate limiter can pace per burst, and its
//! go-back-N waits its firmware's recovery time after a loss.

use engine::{Delta, Rate, Time};
use rdmasim_net::capture::pcapng::read;
use rdmasim_net::capture::{CaptureConfig, Direction};
use rdmasim_net::cc::{CcConfig, DcqcnConfig, DcqcnFleet, DcqcnGen};
use rdmasim_net::monitor::MonitorPorts;
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
            burst_packets: [1; 3],
            gen1_loss_recovery: Delta::ZERO,
            congestion_leaking: [false; 3],
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

/// Every host Gen1, with `burst` packets per rate-limiter burst and a
/// go-back-N recovery of `recovery`.
fn gen1_fleet(hosts: u32, burst: u32, recovery: Delta) -> NetConfig {
    NetConfig {
        cc: CcConfig::Dcqcn(DcqcnConfig::default()),
        dcqcn_fleet: Some(DcqcnFleet {
            hosts: (0..hosts).map(|h| (h, DcqcnGen::Gen1)).collect(),
            gen1_cnp_interval: Delta::from_us(50),
            interop_fix: false,
            burst_packets: [burst, 1, 1],
            gen1_loss_recovery: recovery,
            congestion_leaking: [false; 3],
        }),
        ..NetConfig::default()
    }
}

/// Two Gen1 senders, 2 MB each, into host 2 through one 100 Gb/s switch
/// (DCQCN holds each near half the line). Returns how many of host 0's
/// data frames left after a paced gap (over 1.2 times a frame's time at
/// line rate) rather than back to back, of how many, and the last
/// completion (ns).
fn paced_gaps(burst: u32) -> (usize, usize, u64) {
    let topo = topo::star(3, Rate::gbps(100), Delta::from_us(1)).unwrap();
    let flows = (0..2)
        .map(|i| FlowSpec {
            id: i,
            src: i,
            dst: 2,
            size: 2_000_000,
            start: Time::ZERO,
            pg: 3,
            dport: 100,
        })
        .collect();
    let mut sim = Simulation::new(&topo, flows, gen1_fleet(3, burst, Delta::ZERO)).unwrap();
    sim.capture(CaptureConfig {
        ports: MonitorPorts::List(vec![(0, 0)]),
        direction: Direction::Tx,
        start: Time::ZERO,
        stop: None,
        snaplen: 64,
        flows: None,
        classes: None,
        max_frames: u64::MAX,
    })
    .unwrap();
    sim.run();
    let r = sim.results();
    assert_eq!(r.unfinished(), 0);
    let last = r.flows.iter().filter_map(|f| f.end).max().unwrap().ns();
    let mut bytes = Vec::new();
    sim.take_capture()
        .unwrap()
        .write_pcapng(&mut bytes)
        .unwrap();
    let data: Vec<(u64, u32)> = read(&bytes)
        .unwrap()
        .1
        .iter()
        .filter(|p| p.orig_len > 500)
        .map(|p| (p.ns, p.orig_len))
        .collect();
    let line = |len: u32| Rate::gbps(100).tx_time(u64::from(len)).ns();
    let paced = data
        .windows(2)
        .filter(|w| 5 * (w[1].0 - w[0].0) > 6 * line(w[0].1))
        .count();
    (paced, data.len(), last)
}

#[test]
fn per_burst_limiting_sends_bursts_at_line_rate_at_the_same_average() {
    let (per_packet, n1, t1) = paced_gaps(1);
    let (per_burst, n8, t8) = paced_gaps(8);
    eprintln!(
        "paced gaps: per packet {per_packet} of {n1} frames (done at {t1} ns), \
         bursts of 8 {per_burst} of {n8} ({t8} ns)"
    );
    assert!(per_packet > n1 / 4, "DCQCN paces below the line");
    // About one paced gap per burst of eight instead of one per frame.
    assert!(per_burst * 4 < per_packet, "{per_burst} vs {per_packet}");
    // The average rate is kept: the transfer takes about as long.
    let (a, b) = (t1 as f64, t8 as f64);
    assert!((a - b).abs() <= 0.1 * a, "{t1} vs {t8} ns");
}

/// The FCT (ns) of 1 MB from Gen1 host 0 to Gen1 host 1 of a star whose
/// frame at byte 100,000 is lost once, with a go-back-N recovery of
/// `recovery`.
fn fct_with_one_loss(recovery: Delta) -> u64 {
    let topo = topo::star(2, Rate::gbps(100), Delta::from_us(1)).unwrap();
    let flows = vec![FlowSpec {
        id: 0,
        src: 0,
        dst: 1,
        size: 1_000_000,
        start: Time::ZERO,
        pg: 3,
        dport: 100,
    }];
    let mut sim = Simulation::new(&topo, flows, gen1_fleet(2, 1, recovery)).unwrap();
    sim.drop_once(0, 100_000);
    sim.run();
    let r = sim.results();
    assert_eq!(r.unfinished(), 0);
    assert!(r.flows[0].retransmitted > 0, "the loss was recovered");
    r.flows[0].end.unwrap().ns()
}

#[test]
fn a_gen1_sender_waits_its_recovery_time_before_going_back() {
    let at_once = fct_with_one_loss(Delta::ZERO);
    let slow = fct_with_one_loss(Delta::from_us(300));
    eprintln!("one loss: FCT {at_once} ns at once, {slow} ns with 300 us of recovery");
    let cost = slow - at_once;
    assert!(
        (299_000..=320_000).contains(&cost),
        "recovery cost {cost} ns"
    );
}
