//! `rdmasim compare` with a stand-in for the peer: a shell script that
//! writes a known `fct.txt` and `pfc.txt` and prints known drop lines, so
//! that every number of the report can be checked against what the two
//! "simulators" wrote. Without `--peer` the command skips.
#![cfg(unix)]

use std::collections::HashMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

mod common;
use common::rdmasim;

fn workdir(test: &str) -> PathBuf {
    common::workdir("compare", test)
}

/// Two hosts on one switch; three flows, 5 KB, 200 KB and 3 KB (sports
/// 10000, 10000 and 10001: the peer numbers them per host pair).
fn write_inputs(dir: &Path) {
    fs::write(
        dir.join("topo.txt"),
        "3 1 2\n2\n0 2 100Gbps 1000ns 0\n1 2 100Gbps 1000ns 0\n",
    )
    .unwrap();
    fs::write(
        dir.join("flows.txt"),
        "3\n0 1 3 100 5000 2.0\n1 0 3 100 200000 2.0\n0 1 3 100 3000 2.00001\n",
    )
    .unwrap();
    fs::write(dir.join("trace.txt"), "0\n").unwrap();
    fs::write(
        dir.join("cfg.txt"),
        "TOPOLOGY_FILE topo.txt\nFLOW_FILE flows.txt\nTRACE_FILE trace.txt\n\
         FCT_OUTPUT_FILE out/fct.txt\nPFC_OUTPUT_FILE out/pfc.txt\n\
         CC_MODE 1\nSIMULATOR_STOP_TIME 2.01\n",
    )
    .unwrap();
}

/// The stand-in peer: the first two flows finish (50 µs and 400 µs, ideal
/// FCTs 10 and 20 µs), the third does not; 3 pauses and 2 resumes
/// received; 4 frames dropped. It checks that it runs where its inputs are.
const STAND_IN: &str = "#!/bin/sh
test -f \"$1\" && test -f topo.txt && test -f flows.txt || exit 3
mkdir -p out
printf '0b000001 0b000101 10000 100 5000 2000000000 50000 10000\\n' > out/fct.txt
printf '0b000101 0b000001 10000 100 200000 2000000000 400000 20000\\n' >> out/fct.txt
printf '2000001000 2 1 1 1\\n2000002000 2 1 1 0\\n2000003000 2 1 2 1\\n2000004000 2 1 1 1\\n2000005000 2 1 2 0\\n' > out/pfc.txt
for i in 1 2 3 4; do
  echo \"200000$i 2 Drop: queue:1,3: Headroom full\"
  echo '(0,0)(37000,40000)'
done
";

/// compare.csv as (metric, bucket) -> (peer, rdmasim) cells.
fn read_csv(path: &Path) -> HashMap<(String, String), (String, String)> {
    let t = fs::read_to_string(path).unwrap();
    let mut lines = t.lines();
    assert_eq!(
        lines.next().unwrap(),
        "metric,bucket,peer,rdmasim,rdmasim_over_peer"
    );
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            assert_eq!(f.len(), 5, "{l}");
            (
                (f[0].to_string(), f[1].to_string()),
                (f[2].to_string(), f[3].to_string()),
            )
        })
        .collect()
}

/// rdmasim's FCT of the flow with this size, from its own fct.txt.
fn our_fct(dir: &Path, size: u64) -> f64 {
    let t = fs::read_to_string(dir.join("cmp/rdmasim/out/fct.txt")).unwrap();
    t.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|f| f[4] == size.to_string())
        .map(|f| f[6].parse().unwrap())
        .unwrap()
}

#[test]
fn the_report_shows_both_sides_as_they_wrote_them() {
    let dir = workdir("stand-in");
    write_inputs(&dir);
    let peer = dir.join("peer.sh");
    fs::write(&peer, STAND_IN).unwrap();
    fs::set_permissions(&peer, fs::Permissions::from_mode(0o755)).unwrap();
    let out = rdmasim(
        &dir,
        &[
            "compare",
            "cfg.txt",
            "--peer",
            peer.to_str().unwrap(),
            "--out",
            "cmp",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stderr: {stderr}");
    let csv = read_csv(&dir.join("cmp/compare.csv"));
    let get = |m: &str, b: &str| csv[&(m.to_string(), b.to_string())].clone();
    let s = |a: &str, b: &str| (a.to_string(), b.to_string());
    assert_eq!(get("flows", ""), s("3", "3"));
    assert_eq!(get("unfinished", ""), s("1", "0"));
    assert_eq!(get("drops", ""), s("4", "0"));
    assert_eq!(get("pfc_pauses", "").0, "3");
    assert_eq!(get("pfc_resumes", "").0, "2");
    assert_eq!(get("exit_code", ""), s("0", "0"));
    // The peer's slowdowns are its FCT over its ideal FCT.
    assert_eq!(get("slowdown_mean", "<10KB").0, "5");
    assert_eq!(get("slowdown_p99", "100KB-1MB").0, "20");
    assert_eq!(get("flows", "all"), s("2", "3"));
    // Flow by flow: rdmasim's FCT against the peer's.
    let err = |m: &str, b: &str| get(m, b).1.parse::<f64>().unwrap();
    let e1 = (our_fct(&dir, 5000) - 50_000.0) / 50_000.0;
    let e2 = (our_fct(&dir, 200_000) - 400_000.0) / 400_000.0;
    assert!((err("fct_error_signed_p50", "<10KB") - e1).abs() < 1e-12);
    assert!((err("fct_error_abs_p50", "100KB-1MB") - e2.abs()).abs() < 1e-12);
    assert!((err("fct_error_abs_mean", "all") - (e1.abs() + e2.abs()) / 2.0).abs() < 1e-12);
    assert_eq!(get("fct_error_matched", "all").1, "2");
    assert_eq!(get("finished_only_by", ""), s("0", "1"));
    // Each process's cost is its own.
    for m in ["cpu_s", "peak_rss_mib"] {
        let (p, r) = get(m, "");
        assert!(p.parse::<f64>().unwrap() >= 0.0, "{m}: {p}");
        assert!(r.parse::<f64>().unwrap() > 0.0, "{m}: {r}");
    }
    let md = fs::read_to_string(dir.join("cmp/compare.md")).unwrap();
    assert!(md.contains("| drops | 4 | 0 |"), "{md}");
    assert!(md.contains("| unfinished | 1 | 0 |"), "{md}");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn without_a_peer_binary_it_says_it_skipped() {
    let dir = workdir("skip");
    write_inputs(&dir);
    let out = rdmasim(&dir, &["compare", "cfg.txt", "--out", "cmp"]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("no peer binary given"), "{stdout}");
    assert!(stdout.contains("skipped"), "{stdout}");
    assert!(!dir.join("cmp").exists());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_missing_peer_binary_is_an_input_error() {
    let dir = workdir("missing");
    write_inputs(&dir);
    let out = rdmasim(&dir, &["compare", "cfg.txt", "--peer", "no-such-third"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--peer") && stderr.contains("no-such-third"),
        "{stderr}"
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn two_fct_files_compare_flow_by_flow() {
    let dir = workdir("fct");
    let a = "0b000001 0b000101 10000 100 5000 2000000000 50000 10000\n\
             0b000101 0b000001 10000 100 200000 2000000000 400000 20000\n";
    // The first flow 10% slower, the second as fast.
    let b = "0b000101 0b000001 10000 100 200000 2000000000 400000 20000\n\
             0b000001 0b000101 10000 100 5000 2000000000 55000 10000\n";
    fs::write(dir.join("a_fct.txt"), a).unwrap();
    fs::write(dir.join("b_fct.txt"), b).unwrap();
    let out = rdmasim(
        &dir,
        &["compare", "--fct", "a_fct.txt", "b_fct.txt", "--out", "ab"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stderr: {stderr}");
    let csv = read_csv(&dir.join("ab/compare.csv"));
    let get = |m: &str, b: &str| csv[&(m.to_string(), b.to_string())].clone();
    assert_eq!(get("slowdown_mean", "<10KB"), ("5".into(), "5.5".into()));
    let e: f64 = get("fct_error_signed_p50", "<10KB").1.parse().unwrap();
    assert!((e - 0.1).abs() < 1e-12, "{e}");
    assert_eq!(get("fct_error_abs_p50", "100KB-1MB").1, "0");
    // What two FCT files cannot tell is left empty, not 0.
    assert_eq!(get("unfinished", ""), (String::new(), String::new()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("a_fct.txt and b_fct.txt side by side"),
        "{stdout}"
    );
    assert!(!stdout.contains("| unfinished |"), "{stdout}");
    fs::remove_dir_all(&dir).unwrap();
}
