//! Azure R2 (App. B), as `experiments/azure/r2-window-sufficiency.toml`
//! ships it: the 1.77 ms RTT sender alone on a 40 Gb/s path. 160
//! outstanding 64 KB writes fill the 8.85 MB BDP; 100 leave the flow
//! window-limited, at about window / RTT.

mod shipped;

/// Sender B's (host 1's) rate on the wire, Gb/s, with `window` bytes in
/// flight.
fn gbps(window: u64) -> f64 {
    let s = shipped::scenario(
        "azure",
        "r2-window-sufficiency.toml",
        &[("window = \"10485760B\"", format!("window = \"{window}B\""))],
    );
    let stop = s.net.stop_time.unwrap();
    let mut sim = net::Simulation::new(&s.topo, s.flows, s.net).unwrap();
    sim.run();
    let r = sim.results();
    assert_eq!(r.drops(), 0);
    let p = r.ports.iter().find(|p| p.node == 1).unwrap();
    p.counters.tx_bytes as f64 * 8.0 / stop.ns() as f64
}

#[test]
fn one_hundred_sixty_writes_fill_the_long_path_and_one_hundred_do_not() {
    let full = gbps(160 * 65_536);
    let limited = gbps(100 * 65_536);
    eprintln!("160 x 64 KB: {full:.2} Gb/s; 100 x 64 KB: {limited:.2} Gb/s");
    assert!(full >= 0.98 * 40.0, "160 writes fill the line: {full}");
    // 100 x 64 KB is 74% of the 8.85 MB BDP (a little more on the wire,
    // with headers): the flow runs at about that share of the line.
    let share = limited / full;
    assert!(
        (0.7..0.82).contains(&share),
        "100 writes: {share} of the line"
    );
}
