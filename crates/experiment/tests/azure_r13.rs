//! Azure R13 (§4.1), as `experiments/azure/r13-*.toml` ship it: storage
//! traffic with 12-to-1 reconstruction incasts on a k = 4 fat tree of
//! SONiC switches with Listing 1. One 64 KB chunk in flight per connection
//! stops the PFC pauses and shortens the reconstructions' p99 message
//! completion time.

use rdmasim_experiment::config::{build_scenario, load_config};
use rdmasim_experiment::messages::{message_records, message_summary};
use rdmasim_experiment::run::flow_records;
use std::path::Path;

/// (p99 completion time of reconstructions, of all messages, in µs; pause
/// frames).
fn run(file: &str) -> (f64, f64, u64) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../experiments/azure")
        .join(file);
    let c = load_config(&path).unwrap();
    let s = build_scenario(&c, path.parent().unwrap()).unwrap();
    let messages = s.messages.clone();
    let mut sim = net::Simulation::new(&s.topo, s.flows, s.net).unwrap();
    sim.run();
    let r = sim.results();
    assert_eq!(r.drops(), 0, "{file}: lossless");
    assert_eq!(r.unfinished(), 0, "{file}: every message completes");
    let stats = message_summary(&message_records(&messages, &flow_records(&r))).unwrap();
    let p99 = |kind: &str| {
        let row = stats.iter().find(|m| m.kind == kind).unwrap();
        assert_eq!(row.finished, row.count, "{file}: {kind}");
        row.mct_p99_us
    };
    (p99("reconstruction"), p99("all"), r.pause_frames())
}

#[test]
fn one_chunk_in_flight_stops_the_pauses_and_shortens_the_incasts_tail() {
    let (rec, all, pauses) = run("r13-no-chunking.toml");
    let (rec_c, all_c, pauses_c) = run("r13-one-chunk.toml");
    eprintln!(
        "p99 MCT reconstruction {rec:.0} -> {rec_c:.0} us, all {all:.0} -> {all_c:.0} us; \
         pauses {pauses} -> {pauses_c}"
    );
    assert!(pauses > 0, "the incasts pause without chunks");
    assert_eq!(
        pauses_c, 0,
        "one chunk in flight keeps the queues below the pause point"
    );
    assert!(rec_c < 0.8 * rec, "reconstruction p99 {rec_c} vs {rec}");
    assert!(all_c < all, "all messages' p99 {all_c} vs {all}");
}
