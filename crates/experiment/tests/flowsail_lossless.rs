//! FlowSail, BFC and ideal per-flow flow control are lossless on FlowSail's
//! fabric under its workload: the shipped `experiments/flowsail/
//! lossless-scaled.toml` (128 hosts, Web Server at 60% of the core links
//! plus the 50-to-1 incast background) drops no packet in any of its runs,
//! every flow finishes, and every per-flow PAUSE has its RESUME.

use rdmasim_experiment::sweep::{load_sweep, plan};
use rdmasim_experiment::{build_scenario, run_scenario, RunOptions};
use std::path::Path;

#[test]
fn flowsail_bfc_and_ideal_runs_drop_nothing() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments/flowsail");
    let sweep = load_sweep(&dir.join("lossless-scaled.toml")).unwrap();
    let runs = plan(&sweep).unwrap();
    let mut variants = Vec::new();
    for r in runs {
        let s = build_scenario(&r.config, &dir).unwrap();
        let flows = s.flows.len();
        assert!(flows > 1000, "{}: {flows} flows", r.name);
        assert!(
            s.flows.iter().any(|f| f.dport == 200),
            "{}: no incast",
            r.name
        );
        let opts = RunOptions {
            quiet: true,
            ..RunOptions::default()
        };
        let rep = run_scenario(s, None, &opts).unwrap();
        let c = &rep.summary.counters;
        assert_eq!((c.drops, c.lossless_drops), (0, 0), "{}", r.name);
        assert!(
            rep.invariant_failures.is_empty(),
            "{}: {:?}",
            r.name,
            rep.invariant_failures
        );
        assert_eq!(rep.summary.flows.unfinished, 0, "{}", r.name);
        assert!(c.pause_frames > 0, "{}: the schemes acted", r.name);
        assert_eq!(c.pause_frames, c.resume_frames, "{}", r.name);
        variants.push(r.name);
    }
    assert_eq!(variants.len(), 4, "{variants:?}");
}
