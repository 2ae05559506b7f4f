//! Azure R1 (App. B, §7.3, Fig. 12), as `experiments/azure/r1-*.toml`
//! ship it: a 2 µs and a 1.77 ms RTT sender, Gen1 DCQCN, sharing one
//! 40 Gb/s bottleneck. With App. B's sparse marking their goodputs are
//! within 20% of each other; dense marking loses aggregate throughput and
//! splits it unevenly.

use rdmasim_experiment::config::{build_scenario, load_config};
use std::path::Path;

/// Goodput of senders A (host 0) and B (host 1), Gb/s: bytes each sent
/// over the run.
fn goodputs(file: &str) -> (f64, f64) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../experiments/azure")
        .join(file);
    let c = load_config(&path).unwrap();
    let s = build_scenario(&c, path.parent().unwrap()).unwrap();
    let stop = s.net.stop_time.unwrap();
    let mut sim = net::Simulation::new(&s.topo, s.flows, s.net).unwrap();
    sim.run();
    let r = sim.results();
    assert_eq!(r.drops(), 0);
    assert!(r.ecn_marks() > 0);
    let gbps = |node: u32| {
        let p = r.ports.iter().find(|p| p.node == node).unwrap();
        p.counters.tx_bytes as f64 * 8.0 / stop.ns() as f64
    };
    (gbps(0), gbps(1))
}

#[test]
fn sparse_marking_is_rtt_fair_and_dense_marking_is_not() {
    let (a, b) = goodputs("r1-rtt-fairness.toml");
    eprintln!("sparse: A (2 us) {a:.2} Gb/s, B (1.77 ms) {b:.2} Gb/s");
    assert!((a - b).abs() <= 0.2 * a.max(b), "sparse: {a} vs {b}");
    assert!(a + b > 0.9 * 40.0, "the bottleneck is used: {}", a + b);
    let (da, db) = goodputs("r1-rtt-fairness-dense.toml");
    eprintln!("dense: A {da:.2} Gb/s, B {db:.2} Gb/s");
    assert!(da + db < a + b, "dense marking loses aggregate throughput");
    assert!(
        (da - db).abs() > 0.2 * da.max(db),
        "and is no longer fair: {da} vs {db}"
    );
}
