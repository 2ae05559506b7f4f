//! Sweep files from text to planned runs, and the sweep directory's
//! bookkeeping.

use super::parse::{name_part, parse_sweep, plan, run_name, MAX_NAME};
use super::plan::{PlannedRun, Sweep};
use super::run::{alive, clean_stale, describe, summary_value, summary_warnings, Lock, LOCK};
use super::run::{RunStatus, SweepReport};
use crate::config::CcKind;
use crate::error::ExperimentError;
use crate::fmt::csv_field;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// index.csv copies summary.json's numbers digit for digit: a slowdown
/// read back from the summary is the same double, not its neighbour.
#[test]
fn index_numbers_are_the_summarys_digits() {
    let summary: serde_json::Value = serde_json::from_str(
        r#"{"slowdown": [{"label": "all", "avg": 1.9930244399603774,
            "p99": 6.457281080898757}], "engine": {"wall_s": 0.515752234}}"#,
    )
    .unwrap();
    let at = |p: &[&str]| summary_value(&summary, p);
    assert_eq!(at(&["slowdown", "all", "avg"]), "1.9930244399603774");
    assert_eq!(at(&["slowdown", "all", "p99"]), "6.457281080898757");
    assert_eq!(at(&["engine", "wall_s"]), "0.515752234");
}

const BASE: &str = r#"# base
[run]
name = "base"
seed = 1

[topology]
kind = "star"
hosts = 4   # four hosts

[workload]
kind = "incast"
senders = [0, 1, 2]
receiver = 3
size = "10KB"

[[ecn.thresholds]]
rate = "100Gbps"
kmin = "100KB"
kmax = "400KB"
"#;

fn sweep_of(axes: &str) -> Result<Sweep, ExperimentError> {
    static N: AtomicUsize = AtomicUsize::new(0);
    let k = N.fetch_add(1, Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("rdmasim-sweep-unit-{}-{k}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("base.toml"), BASE).unwrap();
    let text = format!("base = \"base.toml\"\nname = \"t\"\n\n[axes]\n{axes}");
    let s = parse_sweep(&text, "s.toml", &dir);
    fs::remove_dir_all(&dir).unwrap();
    s
}

fn plan_of(axes: &str) -> Result<Vec<PlannedRun>, ExperimentError> {
    plan(&sweep_of(axes)?)
}

/// A stray carriage return, or a file that ends inside a value: the
/// TOML parser's own message is empty, rdmasim's names the problem.
#[test]
fn invalid_toml_is_named_even_where_the_parser_says_nothing() {
    let e = sweep_of("\"run.seed\" = [1]\n\r").unwrap_err().to_string();
    assert_eq!(e, "s.toml:6: invalid TOML: unexpected character '\\r'");
    let e = sweep_of("\"run.seed\" = { a = ").unwrap_err().to_string();
    assert_eq!(e, "s.toml:5: invalid TOML: unexpected end of file");
}

#[test]
fn the_grid_names_and_configs() {
    let runs = plan_of(
        "\"run.seed\" = [1, 2]\n\"cc.kind\" = [\"dcqcn\", \"none\"]\n\"topology.hosts\" = [4]\n",
    )
    .unwrap();
    let names: Vec<&str> = runs.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        names,
        vec![
            "cc.kind=dcqcn,run.seed=1,topology.hosts=4",
            "cc.kind=dcqcn,run.seed=2,topology.hosts=4",
            "cc.kind=none,run.seed=1,topology.hosts=4",
            "cc.kind=none,run.seed=2,topology.hosts=4",
        ]
    );
    let r = &runs[1];
    assert_eq!(r.config.doc.run.seed, Some(2));
    assert_eq!(r.config.doc.cc.kind, Some(CcKind::Dcqcn));
    // Comments and the lines of untouched keys are kept.
    let text = &r.config.text;
    assert!(text.contains("hosts = 4   # four hosts"), "{text}");
    assert_eq!(
        text.lines().position(|l| l.starts_with("kind = \"star\"")),
        Some(6)
    );
    assert!(r
        .config_toml
        .starts_with("# rdmasim sweep \"t\" (s.toml): base.toml with\n"));
    assert!(r.config_toml.contains("cc.kind = \"dcqcn\", run.seed = 2"));
}

#[test]
fn any_key_array_elements_too() {
    let runs = plan_of("\"ecn.thresholds[0].kmin\" = [\"50KB\", \"200KB\"]\n").unwrap();
    assert_eq!(runs[0].name, "ecn.thresholds_0_.kmin=50KB");
    let t = runs[1].config.doc.ecn.thresholds.as_ref().unwrap();
    assert_eq!(t[0].kmin.as_deref(), Some("200KB"));
    let runs = plan_of("\"workload.senders\" = [[0, 1], [1, 2]]\n").unwrap();
    assert_eq!(runs[0].name, "workload.senders=_0__1_");
    assert_eq!(
        runs[1].config.doc.workload.as_ref().unwrap().senders,
        Some(vec![1, 2])
    );
    let runs = plan_of("\"cc.dcqcn.g\" = [0.5]\n\"cc.kind\" = [\"dcqcn\"]\n").unwrap();
    assert_eq!(runs[0].config.doc.cc.dcqcn.as_ref().unwrap().g, Some(0.5));
    // [set]: in every run, not in the names.
    let s = sweep_of("\"run.seed\" = [1, 2]\n[set]\n\"timeseries.interval\" = \"5us\"\n").unwrap();
    let runs = plan(&s).unwrap();
    assert_eq!(runs[1].name, "run.seed=2");
    let ts = runs[1].config.doc.timeseries.as_ref().unwrap();
    assert_eq!(ts.interval.as_deref(), Some("5us"));
    assert!(runs[1]
        .config_toml
        .contains("run.seed = 2, timeseries.interval = \"5us\""));
    let e = plan_of("\"run.seed\" = [1]\n[set]\n\"timeseries.intervall\" = \"5us\"\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("s.toml:7: set.\"timeseries.intervall\": unknown key"),
        "{e}"
    );
}

#[test]
fn unknown_keys_and_bad_values_name_the_sweep_line() {
    let e = plan_of("\"run.seed\" = [1]\n\"workload.lod\" = [0.3]\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("s.toml:6: axes.\"workload.lod\": unknown key"),
        "{e}"
    );
    let e = plan_of("\"bogus.x\" = [1]\n").unwrap_err().to_string();
    assert!(
        e.starts_with("s.toml:5: axes.\"bogus.x\": unknown section"),
        "{e}"
    );
    let e = plan_of("\"topology.hosts\" = [4, 0]\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("s.toml:5: axes.\"topology.hosts\": value 0: "),
        "{e}"
    );
    let e = plan_of("\"cc.kind\" = [\"dcqcn\", \"fast\"]\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("axes.\"cc.kind\": value \"fast\" is not one this key takes"),
        "{e}"
    );
    let e = plan_of("\"run.seed.x\" = [1]\n").unwrap_err().to_string();
    assert!(
        e.starts_with("s.toml:5: axes.\"run.seed.x\": seed is not a table"),
        "{e}"
    );
    let e = plan_of("\"ecn.thresholds[3].kmin\" = [\"1KB\"]\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("thresholds[3] does not exist (the base config has 1)"),
        "{e}"
    );
    let e = plan_of("\"run.seed\" = [1, 1]\n").unwrap_err().to_string();
    assert!(e.contains("1 is listed twice"), "{e}");
    let e = plan_of("\"run.seed\" = 1\n").unwrap_err().to_string();
    assert!(e.contains("expected a list of values"), "{e}");
    let e = plan_of("\"a..b\" = [1]\n").unwrap_err().to_string();
    assert!(e.contains("not a dotted key path"), "{e}");
    let e = parse_sweep(
        "base = \"x.toml\"\nbogus = 1\n[axes]\n",
        "s.toml",
        Path::new("/nonexistent"),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with("s.toml:2: bogus: unknown key; a sweep file has base, name, [set], "),
        "{e}"
    );
    let e = parse_sweep(
        "base = \"x.toml\"\naxis = 1\n",
        "s.toml",
        Path::new("/nonexistent"),
    )
    .unwrap_err()
    .to_string();
    assert_eq!(e, "s.toml:2: axis: unknown key; did you mean axes?");

    // A sweep file as the base: named as such at the base line.
    let dir = std::env::temp_dir().join(format!("rdmasim-sweep-base-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("inner.toml"), "base = \"base.toml\"\n[axes]\n").unwrap();
    let e = parse_sweep(
        "name = \"t\"\nbase = \"inner.toml\"\n[axes]\n\"run.seed\" = [1]\n",
        "s.toml",
        &dir,
    )
    .unwrap_err()
    .to_string();
    fs::remove_dir_all(&dir).unwrap();
    assert!(
        e.starts_with("s.toml:2: base: ") && e.contains("is a sweep file"),
        "{e}"
    );
}

#[test]
fn a_bad_value_of_a_valid_key_is_blamed_on_the_value() {
    let e = plan_of("\"cc.kind\" = [\"dcqcn\", \"dcqn\"]\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with(
            "s.toml:5: axes.\"cc.kind\": value \"dcqn\" is not one this key takes; \
             expected one of none, dcqcn,"
        ),
        "{e}"
    );
    assert!(!e.contains("not a config key"), "{e}");
    let e = plan_of("\"topology.rate\" = [\"10Gbps\", \"10Gbs\"]\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("s.toml:5: axes.\"topology.rate\": value \"10Gbs\": unknown rate unit"),
        "{e}"
    );
    assert!(!e.contains("not a config key"), "{e}");
    // [set] the same way.
    let e = plan(&sweep_of("\"run.seed\" = [1]\n[set]\n\"cc.kind\" = \"dcqn\"\n").unwrap())
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("s.toml:7: set.\"cc.kind\": value \"dcqn\" is not one this key takes"),
        "{e}"
    );
    // A key of another topology kind: the key is wrong here, not the
    // value it was given.
    let e = plan_of("\"topology.host_rate\" = [\"10Gbps\"]\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("s.toml:5: axes.\"topology.host_rate\": not a key of kind = \"star\""),
        "{e}"
    );
    // A key that is no config key is still called one.
    let e = plan_of("\"workload.lod\" = [0.3]\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("s.toml:5: axes.\"workload.lod\": unknown key")
            && e.ends_with("(not a config key: `rdmasim config --defaults` lists them)"),
        "{e}"
    );
}

/// A bad `[timeseries]` key set by the sweep is its error at the
/// setting's line when the sweep is planned, not a failed run whose
/// message names a line of the generated config past the base's end.
#[test]
fn a_bad_timeseries_value_is_blamed_when_planned() {
    let e =
        plan(&sweep_of("\"run.seed\" = [1]\n[set]\n\"timeseries.interval\" = \"0us\"\n").unwrap())
            .unwrap_err()
            .to_string();
    assert!(
        e.starts_with("s.toml:7: set.\"timeseries.interval\": value \"0us\": must be at least 1ns"),
        "{e}"
    );
    let e = plan_of("\"timeseries.ports\" = [[{ node = 99, port = 0 }]]\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("s.toml:5: axes.\"timeseries.ports\": "),
        "{e}"
    );
}

#[test]
fn variants_are_the_first_axis_and_set_their_keys() {
    // `sweep_of` puts these lines under [axes]; [variants.*] starts
    // its own tables.
    let runs = plan_of(
        "\"run.seed\" = [1, 2]\n\n[variants.lossy]\n\"pfc.enabled\" = false\n\
         \"cc.kind\" = \"none\"\n\n[variants.dcqcn]\n\"cc.kind\" = \"dcqcn\"\n",
    );
    let runs = runs.unwrap();
    let names: Vec<&str> = runs.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        names,
        vec![
            "variant=lossy,run.seed=1",
            "variant=lossy,run.seed=2",
            "variant=dcqcn,run.seed=1",
            "variant=dcqcn,run.seed=2",
        ]
    );
    assert_eq!(runs[0].config.doc.pfc.enabled, Some(false));
    assert_eq!(runs[0].config.doc.cc.kind, Some(CcKind::None));
    assert_eq!(runs[3].config.doc.pfc.enabled, None);
    assert_eq!(runs[3].config.doc.cc.kind, Some(CcKind::Dcqcn));
    let e = sweep_of("\"variant\" = [1]\n").unwrap_err().to_string();
    assert!(e.contains("axes.variant"), "{e}");
}

/// A key of a `[variants.<name>]` table that no config has, or a value
/// it does not take, is the sweep file's error at the key's line in that
/// table, naming the variant, as one of `[axes]` is: not the base
/// config's, where the key may not even be written.
#[test]
fn a_bad_key_or_value_of_a_variant_is_blamed_on_its_table() {
    let e = plan_of("\"run.seed\" = [1]\n\n[variants.bad]\n\"cc.kond\" = 1\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("s.toml:8: variants.bad.\"cc.kond\": unknown key")
            && e.ends_with("(not a config key: `rdmasim config --defaults` lists them)"),
        "{e}"
    );
    // The second variant's value, at its line in that variant's table.
    let e = plan_of(
        "\"run.seed\" = [1]\n\n[variants.ok]\n\"cc.kind\" = \"none\"\n\n\
         [variants.typo]\n\"pfc.enabled\" = false\n\"cc.kind\" = \"dcqn\"\n",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with(
            "s.toml:12: variants.typo.\"cc.kind\": value \"dcqn\" is not one this key takes"
        ),
        "{e}"
    );
    let e = plan_of("\"run.seed\" = [1]\n\n[variants.v]\n\"topology.hosts\" = 0\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("s.toml:8: variants.v.\"topology.hosts\": value 0: "),
        "{e}"
    );
    // An axis on the same key sets it after the variant: the axis is blamed.
    let e = plan_of("\"cc.kind\" = [\"dcqn\"]\n\n[variants.v]\n\"cc.kind\" = \"none\"\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("s.toml:5: axes.\"cc.kind\": value \"dcqn\""),
        "{e}"
    );
}

#[test]
fn runs_already_done_count_with_the_warnings_their_summaries_record() {
    let w = |j: &str| summary_warnings(&serde_json::from_str(j).unwrap());
    assert_eq!(
        w(r#"{"flows": {"total": 10, "unfinished": 0}, "counters": {"lossless_drops": 0}}"#),
        Some(vec![])
    );
    assert_eq!(
        w(r#"{"flows": {"total": 0, "unfinished": 0}, "counters": {"lossless_drops": 0}}"#),
        Some(vec![
            "the workload has no flows, so nothing was simulated".to_string()
        ])
    );
    assert_eq!(
        w(r#"{"flows": {"total": 10, "unfinished": 3, "endless": 1},
              "counters": {"lossless_drops": 1}}"#),
        Some(vec![
            "1 packet dropped at ports under hop-by-hop flow control (a lossless fabric)"
                .to_string(),
            "3 of 9 flows did not finish".to_string()
        ])
    );
    // Flows that never started (their start after the stop) are told
    // apart from flows that did and were cut off.
    let drops = r#""counters": {"lossless_drops": 0}"#;
    assert_eq!(
        w(&format!(
            r#"{{"flows": {{"total": 191, "unfinished": 190, "not_started": 189}}, {drops}}}"#
        )),
        Some(vec![
            "1 of 191 flows started but did not finish, and 189 more never started".to_string()
        ])
    );
    assert_eq!(
        w(&format!(
            r#"{{"flows": {{"total": 191, "unfinished": 190, "not_started": 190}}, {drops}}}"#
        )),
        Some(vec!["190 of 191 flows never started".to_string()])
    );
    // Without the numbers the outcome is unknown: the run is redone.
    assert_eq!(w(r#"{"flows": {"total": 10}}"#), None);

    let mut r = SweepReport {
        name: "t".into(),
        dir: PathBuf::from("runs/t"),
        runs: vec![
            (
                "a".into(),
                RunStatus::Skipped(vec!["3 of 9 flows did not finish".into()]),
            ),
            ("b".into(), RunStatus::Skipped(vec![])),
            ("c".into(), RunStatus::Clean),
        ],
        only: None,
        cleaned: vec![],
        wall_s: 0.0,
        comparisons: vec![],
        numbers: vec![],
        variant_runs: vec![],
        report: None,
    };
    assert_eq!(r.exit_code(), 1);
    assert!(
        describe(&r).starts_with(
            "t: 3 runs (1 ran, 2 already done, 1 with warnings, 1 of them already done) in "
        ),
        "{}",
        describe(&r)
    );
    r.runs[0].1 = RunStatus::Skipped(vec![]);
    assert_eq!(r.exit_code(), 0);
    assert!(describe(&r).starts_with("t: 3 runs (1 ran, 2 already done) in "));
    r.runs[2].1 = RunStatus::Invariants(vec!["x".into()]);
    assert_eq!(r.exit_code(), 1);
    assert!(describe(&r).starts_with("t: 3 runs (1 ran, 2 already done, 1 with warnings) in "));
}

#[test]
fn names_are_sanitized_and_bounded() {
    assert_eq!(name_part("\"a b/c\""), "a_b_c");
    assert_eq!(name_part("0.3"), "0.3");
    let long: Vec<(String, String)> = vec![("k".into(), "x".repeat(300)), ("j".into(), "1".into())];
    let n = run_name(&long);
    assert_eq!(n.len(), MAX_NAME);
    assert_ne!(n, run_name(&[("k".into(), "x".repeat(301))]));
    assert_eq!(csv_field("a,b"), "\"a,b\"");
}

#[test]
fn stale_temporary_directories_are_removed() {
    let dir = std::env::temp_dir().join(format!("rdmasim-sweep-stale-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    for d in ["a=1.tmp-123", "b=2.old-9", "c=3", "d.tmp-x"] {
        fs::create_dir_all(dir.join(d)).unwrap();
    }
    assert_eq!(clean_stale(&dir).unwrap(), vec!["a=1.tmp-123", "b=2.old-9"]);
    assert!(dir.join("c=3").exists() && dir.join("d.tmp-x").exists());
    fs::write(dir.join("index.csv.tmp-77"), "run\n").unwrap();
    assert_eq!(clean_stale(&dir).unwrap(), vec!["index.csv.tmp-77"]);
    // A lock left by a dead process is taken over and released; one
    // held by a live process (init) is refused.
    fs::write(dir.join(LOCK), "999999999\n").unwrap();
    let lock = Lock::take(&dir).unwrap();
    assert_eq!(Lock::holder(&dir), Some(std::process::id()));
    drop(lock);
    assert!(!dir.join(LOCK).exists());
    if alive(1) {
        fs::write(dir.join(LOCK), "1\n").unwrap();
        let e = Lock::take(&dir).err().unwrap().to_string();
        assert!(e.contains("another sweep (process 1) is running"), "{e}");
    }
    fs::remove_dir_all(&dir).unwrap();
}
