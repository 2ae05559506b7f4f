//! Azure R3 (§7.3), as `experiments/azure/r3-*.toml` ship it: a 4-way
//! incast through a switch with Listing 1 loaded and DCQCN. With Kmin
//! below the queue at which the ingress PGs pause (4 × 1.5 MB), ECN marks
//! and no PG pauses; raising Kmin above it alone makes PFC fire and ECN
//! never mark; raising the ingress threshold first (α = 1) makes ECN act
//! first again.

use rdmasim_experiment::config::{build_scenario, load_config};
use std::path::Path;

/// (pause frames, ECN marks, the first paused PG's shared bytes).
fn run(file: &str) -> (u64, u64, Option<u64>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../experiments/azure")
        .join(file);
    let c = load_config(&path).unwrap();
    let s = build_scenario(&c, path.parent().unwrap()).unwrap();
    let mut sim = net::Simulation::new(&s.topo, s.flows, s.net).unwrap();
    sim.run();
    let r = sim.results();
    assert_eq!(r.drops(), 0, "{file}: lossless");
    assert_eq!(r.unfinished(), 0, "{file}: every flow finishes");
    let first = r.sonic[0].first_pause.map(|e| e.shared);
    (r.pause_frames(), r.ecn_marks(), first)
}

#[test]
fn pfc_fires_before_ecn_when_kmin_is_raised_before_the_ingress_threshold() {
    let (pauses, marks, _) = run("r3-ecn-first.toml");
    eprintln!("Kmin 1 MB: {pauses} pauses, {marks} marks");
    assert!(marks > 0 && pauses == 0, "ECN alone controls the incast");

    let (pauses, marks, first) = run("r3-pfc-first.toml");
    eprintln!("Kmin 8 MB: {pauses} pauses, {marks} marks, first pause at {first:?}");
    assert!(pauses > 0 && marks == 0, "PFC fires and ECN never marks");
    // Each PG paused at Listing 1's 4-way point, 18 MB / (8 + 4) = 1.5 MB,
    // within a frame per PG.
    let first = first.unwrap();
    assert!(first.abs_diff(1_500_000) <= 4 * 1_048, "{first}");

    let (pauses, marks, _) = run("r3-thresholds-then-kmin.toml");
    eprintln!("alpha 1, then Kmin 8 MB: {pauses} pauses, {marks} marks");
    assert!(marks > 0 && pauses == 0, "ECN acts first again");
}
