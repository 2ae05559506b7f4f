//! The parallel engine gives, on any number of threads, exactly what one
//! thread gives: every flow's outcome, the completion order, every port's
//! counters, the PFC and transmit logs, the event and hop counts.

use engine::{Delta, Rate, Time};
use rdmasim_net::cc::{CcConfig, DcqcnConfig};
use rdmasim_net::partition::{PartitionMap, PartitionSpec};
use rdmasim_net::qlen::QlenMonitorConfig;
use rdmasim_net::{NetConfig, RunResults, Simulation};
use topo::Topology;
use workload::FlowSpec;

fn flow(id: u32, src: u32, dst: u32, size: u64, start_ns: u64) -> FlowSpec {
    FlowSpec {
        id,
        src,
        dst,
        size,
        start: Time::from_ns(start_ns),
        pg: 3,
        dport: 100,
    }
}

/// `sim` as built by `make`, run on `threads` threads; its results and
/// transmit log.
fn run(
    topo: &Topology,
    threads: u32,
    make: &dyn Fn() -> Simulation,
) -> (RunResults, Vec<rdmasim_net::TxLogEntry>) {
    let map = PartitionMap::new(topo, &PartitionSpec::auto(threads)).expect("a partitioning");
    assert_eq!(map.parts(), threads);
    let replicas = (0..threads).map(|_| make()).collect();
    let (sim, stats) = Simulation::run_parallel(replicas, &map, u64::MAX, |_| {});
    assert_eq!(stats.threads, threads);
    if threads > 1 {
        // It did run in windows, and frames did cross between partitions.
        assert!(stats.windows > 0);
        assert!(stats.cut_frames.iter().sum::<u64>() > 0);
        eprintln!("{threads} threads: {stats:?}");
    }
    (sim.results(), sim.tx_log().to_vec())
}

fn assert_same(a: &RunResults, b: &RunResults, what: &str) {
    assert_eq!(a.flows, b.flows, "{what}: flows");
    assert_eq!(a.completion_order, b.completion_order, "{what}: order");
    assert_eq!(a.ports, b.ports, "{what}: ports");
    assert_eq!(a.pfc_log, b.pfc_log, "{what}: PFC log");
    assert_eq!(a.events, b.events, "{what}: events");
    assert_eq!(a.packet_hops, b.packet_hops, "{what}: hops");
    assert_eq!(a.end_time, b.end_time, "{what}: end");
    assert_eq!(a.events_pending, b.events_pending, "{what}: pending");
    assert_eq!(a.switch_peak_bytes, b.switch_peak_bytes, "{what}: peaks");
    assert_eq!(a.qlen_text, b.qlen_text, "{what}: qlen");
}

/// A k = 4 fat tree (16 hosts) under DCQCN with PFC: an incast into host 0
/// that pauses, and all-to-all traffic across pods.
#[test]
fn fat_tree_dcqcn_pfc_is_the_same_on_1_2_and_3_threads() {
    let topo = topo::fat_tree(4, Rate::gbps(100), Rate::gbps(100), Delta::from_us(1)).unwrap();
    let mut flows = Vec::new();
    for s in 1..16u32 {
        flows.push((s, 0, 1_000_000, 0));
    }
    for i in 0..40u32 {
        let s = (i * 7 + 3) % 16;
        let d = (i * 5 + 9) % 16;
        if s != d {
            flows.push((s, d, 20_000 + u64::from(i) * 3_000, u64::from(i) * 700));
        }
    }
    flows.sort_by_key(|f| f.3);
    let specs: Vec<FlowSpec> = flows
        .iter()
        .enumerate()
        .map(|(i, &(s, d, size, t))| flow(i as u32, s, d, size, t))
        .collect();
    let make = || {
        // Queue-length dumps every 20 µs, during the run and after its
        // last event, up to the stop time.
        let cfg = NetConfig {
            cc: CcConfig::Dcqcn(DcqcnConfig::default()),
            stop_time: Some(Time::from_ns(3_000_000)),
            qlen_monitor: Some(QlenMonitorConfig {
                start: Time::ZERO,
                end: Time::from_ns(2_000_000),
                interval: Delta::from_ns(100),
                dump_every: Delta::from_us(20),
            }),
            ..NetConfig::default()
        };
        let mut sim = Simulation::new(&topo, specs.clone(), cfg).unwrap();
        sim.record_pfc(true);
        sim.trace_tx(17);
        sim
    };
    let (one, log1) = run(&topo, 1, &make);
    assert!(one.pause_frames() > 0, "the incast pauses");
    assert_eq!(one.unfinished(), 0);
    // Dumps after the last event too.
    let qlen = one.qlen_text.as_deref().unwrap();
    let last = one.end_time.ns();
    assert!(
        qlen.lines().any(|l| l
            .strip_prefix("time: ")
            .is_some_and(|t| t.parse::<u64>().unwrap() > last)),
        "no dump after {last} ns"
    );
    for threads in [2, 3] {
        let (r, log) = run(&topo, threads, &make);
        assert_same(&one, &r, &format!("{threads} threads"));
        assert_eq!(log1, log, "{threads} threads: transmit log");
    }
}

/// Two sites over a 100 µs, 10 Gb/s link, every flow from the left to
/// the right, all started at 0: a long-haul run. On 2 threads the
/// partitions are the two sites. While a flow has bytes never sent, the
/// run cannot end in the next window (its last byte crosses the long
/// link, a whole lookahead), so those windows run in one phase, both
/// sites at once; only the windows after every byte has left may end the
/// run. (Each flow's 500 kB take its 100 Gb/s port 40 µs, less than a
/// window, so the port's rate alone would make every window one that may
/// end the run; a 50 kB window per flow keeps most of them unsent for
/// ten round trips of 200 µs.) The outputs are one thread's.
#[test]
fn a_long_haul_run_does_not_wait_for_its_end_while_bytes_are_unsent() {
    let mut topo = topo::dumbbell(4, 4, Rate::gbps(100), Rate::gbps(10), Delta::from_us(1))
        .expect("a dumbbell");
    topo.links.last_mut().expect("the long link").delay = Delta::from_us(100);
    let specs: Vec<FlowSpec> = (0..4u32).map(|h| flow(h, h, 4 + h, 500_000, 0)).collect();
    let make = || {
        let mut cfg = NetConfig {
            cc: CcConfig::Dcqcn(DcqcnConfig::default()),
            ..NetConfig::default()
        };
        cfg.nic.window = Some(50_000);
        Simulation::new(&topo, specs.clone(), cfg).unwrap()
    };
    let (one, log1) = run(&topo, 1, &make);
    assert_eq!(one.unfinished(), 0);
    let map = PartitionMap::new(&topo, &PartitionSpec::auto(2)).expect("a partitioning");
    let replicas = (0..2).map(|_| make()).collect();
    let (sim, stats) = Simulation::run_parallel(replicas, &map, u64::MAX, |_| {});
    assert_eq!(
        stats.lookahead,
        Delta::from_us(100),
        "the cut is the long link"
    );
    // Ten round trips of two windows each with bytes still to send,
    // against a few at the end.
    eprintln!("{stats:?}");
    assert!(stats.windows >= 12, "{} windows", stats.windows);
    assert!(
        stats.end_windows * 2 < stats.windows,
        "{} of {} windows in two phases",
        stats.end_windows,
        stats.windows
    );
    assert_same(&one, &sim.results(), "2 threads");
    let (_, log2) = run(&topo, 2, &make);
    assert_eq!(log1, log2);
}
