//! Running a shipped experiment file with some of its settings changed,
//! for the tests that check an experiment as `experiments/` ships it.

// Each test file is its own crate and uses only some of these.
#![allow(dead_code)]

use rdmasim_experiment::config::{build_scenario, parse_config};
use rdmasim_experiment::Scenario;
use std::path::Path;

/// `experiments/<folder>/<file>` with each `(shipped, replacement)` line
/// substituted (every shipped line must be in the file, so a test notices
/// when the file it checks changes), built into its scenario.
pub fn scenario(folder: &str, file: &str, edits: &[(&str, String)]) -> Scenario {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../experiments")
        .join(folder);
    let mut text = std::fs::read_to_string(dir.join(file)).unwrap();
    for (shipped, replacement) in edits {
        assert!(text.contains(shipped), "{file} has no line {shipped}");
        text = text.replace(shipped, replacement);
    }
    let c = parse_config(&text, file).unwrap();
    build_scenario(&c, &dir).unwrap()
}

/// [`scenario`], run to its end.
pub fn run(folder: &str, file: &str, edits: &[(&str, String)]) -> net::RunResults {
    let s = scenario(folder, file, edits);
    let mut sim = net::Simulation::new(&s.topo, s.flows, s.net).unwrap();
    sim.run();
    sim.results()
}
