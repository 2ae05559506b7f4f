//! `rdmasim run` with `[buffer] model = "sonic"`: a malformed config_db
//! file is one error naming the file and the key, exit code 2; a run
//! reports its egress drops in ports.csv and summary.json.

use std::fs;
use std::path::{Path, PathBuf};

mod common;
use common::{rdmasim, text};

fn workdir(test: &str) -> PathBuf {
    common::workdir("sonic-run", test)
}

const CONFIG: &str = r#"
[topology]
kind = "star"
hosts = 3

[workload]
kind = "incast"
senders = [0, 1]
receiver = 2
size = "10KB"

[buffer]
model = "sonic"
sonic = "sw.json"
sonic_pg = { 3 = "pg" }
sonic_queue = { 3 = "q" }
"#;

#[test]
fn a_malformed_sonic_file_is_one_error_naming_file_and_key_and_exit_2() {
    let dir = workdir("malformed");
    fs::write(dir.join("run.toml"), CONFIG).unwrap();
    let pool =
        r#""BUFFER_POOL": {"ingress_pool": {"size": "100", "type": "ingress", "mode": "dynamic"}}"#;
    for (body, want) in [
        (
            format!(
                r#"{{{pool}, "BUFFER_PROFILE": {{"pg": {{"pool": "[BUFFER_POOL|ingress_lossless_pool]", "size": "0", "dynamic_th": "-3"}}}}}}"#
            ),
            r#"BUFFER_PROFILE.pg.pool: no pool "ingress_lossless_pool""#,
        ),
        (
            format!(
                r#"{{{pool}, "BUFFER_PROFILE": {{}}, "BUFFER_QUEUE": {{"Ethernet0|3": {{"profile": "[BUFFER_PROFILE|q]"}}}}}}"#
            ),
            r#"BUFFER_QUEUE.Ethernet0|3.profile: no profile "q""#,
        ),
        (
            format!(
                r#"{{{pool}, "BUFFER_PROFILE": {{"pg": {{"pool": "ingress_pool", "size": "-1248", "dynamic_th": "-3"}}}}}}"#
            ),
            "BUFFER_PROFILE.pg.size: must not be negative: -1248",
        ),
    ] {
        fs::write(dir.join("sw.json"), body).unwrap();
        let out = rdmasim(&dir, &["run", "run.toml", "--out", "o", "-q"]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert_eq!(err.lines().count(), 1, "one line: {err}");
        assert!(err.contains("sw.json") && err.contains(want), "{err}");
        assert!(!dir.join("o").exists(), "no output on bad input");
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn r5_lossy_run_counts_its_egress_drops() {
    let dir = workdir("r5");
    let cfg =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments/azure/r5-lossy-drop.toml");
    let out = rdmasim(&dir, &["run", cfg.to_str().unwrap(), "--out", "o", "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let ports = fs::read_to_string(dir.join("o/ports.csv")).unwrap();
    let mut lines = ports.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = header.iter().position(|h| *h == "egress_drops").unwrap();
    let drops = header.iter().position(|h| *h == "drops").unwrap();
    // Switch 2's port 1, the 25 Gb/s link: every drop is there, at egress.
    let row: Vec<u64> = lines
        .map(|l| {
            l.split(',')
                .map(|v| v.parse().unwrap())
                .collect::<Vec<u64>>()
        })
        .find(|r| r[0] == 2 && r[1] == 1)
        .unwrap();
    assert!(row[col] > 0);
    let summary = fs::read_to_string(dir.join("o/summary.json")).unwrap();
    let want = format!("\"egress_drops\": {}", row[col]);
    assert!(summary.contains(&want), "{summary}");
    // The drops are counted at the port they came in by (switch 2's port 0).
    let all: u64 = ports
        .lines()
        .skip(1)
        .map(|l| {
            l.split(',')
                .map(|v| v.parse().unwrap())
                .collect::<Vec<u64>>()
        })
        .map(|r| r[drops])
        .sum();
    assert_eq!(all, row[col]);
    // A lossy class's drops break no lossless promise.
    assert!(summary.contains("\"lossless_drops\": 0"), "{summary}");
    fs::remove_dir_all(&dir).unwrap();
}
