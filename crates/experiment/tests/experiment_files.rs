//! Every config and sweep file shipped in `experiments/` is valid: each
//! sweep plans (every combination's config builds into a scenario) and
//! every plain config builds, so a reproduction cannot rot unnoticed.

use rdmasim_experiment::config::{build_scenario, load_config};
use rdmasim_experiment::sweep::{load_sweep, plan};
use std::path::{Path, PathBuf};

fn toml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            toml_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "toml") {
            out.push(p);
        }
    }
}

#[test]
fn every_shipped_experiment_file_is_valid() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments");
    let mut files = Vec::new();
    toml_files(&root, &mut files);
    files.sort();
    let mut sweeps = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        if text.lines().any(|l| l.trim_start().starts_with("base =")) {
            let s = load_sweep(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            let runs = plan(&s).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            assert!(!runs.is_empty(), "{}", f.display());
            sweeps += 1;
        } else {
            let c = load_config(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            build_scenario(&c, f.parent().unwrap())
                .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        }
    }
    // experiments/swing and experiments/bifrost ship their sweeps.
    assert!(sweeps >= 12, "{sweeps} sweep files");
}
