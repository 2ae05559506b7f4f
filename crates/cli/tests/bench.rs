//! `rdmasim bench --smoke`: every scenario runs, finishes all its flows and
//! reports every column, on stdout and in the CSV.

use std::fs;
use std::process::Command;

const COLUMNS: [&str; 13] = [
    "scenario",
    "sim_time",
    "flows",
    "finished",
    "drops",
    "packets",
    "packet_hops",
    "events",
    "events_per_s",
    "packet_hops_per_s",
    "wall_s",
    "cpu_s",
    "peak_rss_mb",
];

const SCENARIOS: [&str; 5] = [
    "fat-dcqcn",
    "fat-hpcc",
    "incast",
    "longhaul",
    "pfc-free-incast",
];

#[test]
fn smoke_bench_runs_every_scenario_to_completion() {
    let dir = std::env::temp_dir().join(format!("rdmasim-cli-bench-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("bench.csv");
    let out = Command::new(env!("CARGO_BIN_EXE_rdmasim"))
        .args(["bench", "--smoke", "--csv", csv.to_str().unwrap()])
        .current_dir(&dir)
        .output()
        .expect("the rdmasim binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout: {stdout}\nstderr: {stderr}"
    );

    // The table: a header with every column, then one row per scenario.
    let lines: Vec<&str> = stdout.lines().collect();
    let header: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(header, COLUMNS, "{stdout}");
    for (i, name) in SCENARIOS.iter().enumerate() {
        let cells: Vec<&str> = lines[1 + i].split_whitespace().collect();
        assert_eq!(cells.len(), COLUMNS.len(), "{}", lines[1 + i]);
        assert_eq!(cells[0], *name);
        let flows: u64 = cells[2].parse().unwrap();
        let finished: u64 = cells[3].parse().unwrap();
        assert!(flows > 0, "{name}: no flows");
        assert_eq!(finished, flows, "{name}: unfinished flows");
        assert_eq!(cells[4], "0", "{name}: drops");
        let packets: u64 = cells[5].parse().unwrap();
        let hops: u64 = cells[6].parse().unwrap();
        let events: u64 = cells[7].parse().unwrap();
        assert!(
            packets > 0 && hops > packets && events > hops,
            "{}",
            lines[1 + i]
        );
    }

    // The smoke scenarios take a few ms of CPU, below what the CPU clock
    // resolves: the footer says their rates are per wall second.
    assert!(
        stdout.contains("(per wall second where a scenario took under 0.05 CPU-s"),
        "{stdout}"
    );

    // The CSV: the same columns and scenarios, plain numbers; the
    // simulated time in ns, and its header says so.
    let text = fs::read_to_string(&csv).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split(',').collect()).collect();
    let mut csv_columns = COLUMNS;
    csv_columns[1] = "sim_time_ns";
    assert_eq!(rows[0], csv_columns);
    assert_eq!(rows.len(), 1 + SCENARIOS.len());
    for (row, name) in rows[1..].iter().zip(SCENARIOS) {
        assert_eq!(row[0], name);
        assert_eq!(row[2], row[3], "{name}: unfinished flows");
        assert_eq!(row[4], "0", "{name}: drops");
        for cell in &row[1..12] {
            cell.parse::<f64>()
                .unwrap_or_else(|_| panic!("{name}: '{cell}'"));
        }
    }
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn unknown_scenario_is_bad_input() {
    let out = Command::new(env!("CARGO_BIN_EXE_rdmasim"))
        .args(["bench", "--smoke", "--scenario", "nope"])
        .output()
        .expect("the rdmasim binary runs");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--scenario") && stderr.contains("fat-dcqcn") && stderr.contains("fat-k34"),
        "{stderr}"
    );
}

/// Bad options are refused before any scenario runs: a zero or negative
/// window by name, and a CSV path that cannot be written (not after the
/// whole bench has run).
#[test]
fn bad_options_fail_before_anything_runs() {
    for (args, want) in [
        (
            &["--window", "0s"][..],
            "rdmasim: <command line>: --window: the window '0s' must be greater than zero",
        ),
        (
            &["--window", "-1ms"][..],
            "rdmasim: <command line>: --window: duration '-1ms' must not be negative",
        ),
        (
            &["--csv", "/nonexistent-rdmasim-dir/bench.csv"][..],
            "rdmasim: /nonexistent-rdmasim-dir/bench.csv: ",
        ),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_rdmasim"))
            .args(["bench", "--smoke", "--scenario", "incast"])
            .args(args)
            .output()
            .expect("the rdmasim binary runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}: a scenario ran");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with(want), "{args:?}: {stderr}");
    }
}

/// The fabric of ten thousand hosts runs only when named (the default
/// bench above has no row for it), and then to completion: here its smoke
/// version, a k = 8 fat tree, in a process of its own.
#[test]
fn the_large_fabric_runs_when_named() {
    let out = Command::new(env!("CARGO_BIN_EXE_rdmasim"))
        .args(["bench", "--smoke", "--scenario", "fat-k34"])
        .output()
        .expect("the rdmasim binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    let cells: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(cells[0], "fat-k34", "{stdout}");
    let flows: u64 = cells[2].parse().unwrap();
    assert!(flows > 0, "{stdout}");
    assert_eq!(cells[3], cells[2], "unfinished flows: {stdout}");
    assert_eq!(cells[4], "0", "drops: {stdout}");
    assert!(!stdout.contains("fat-dcqcn"), "{stdout}");
}

/// The FlowSail scenario runs only when named; its smoke version finishes
/// every flow without a drop.
#[test]
fn smoke_flowsail_scenario_runs_when_named() {
    let out = Command::new(env!("CARGO_BIN_EXE_rdmasim"))
        .args(["bench", "--smoke", "--scenario", "flowsail"])
        .output()
        .expect("the rdmasim binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    let cells: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(cells[0], "flowsail", "{stdout}");
    let flows: u64 = cells[2].parse().unwrap();
    assert!(flows > 0, "{stdout}");
    assert_eq!(cells[3], cells[2], "unfinished flows: {stdout}");
    assert_eq!(cells[4], "0", "drops: {stdout}");
    assert!(
        !lines.iter().skip(2).any(|l| l.starts_with("fat-")),
        "{stdout}"
    );
}
