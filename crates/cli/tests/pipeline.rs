//! The experiment pipeline end to end: a sweep killed part way and started
//! again, then `analyze` and `plot` on its runs, and a run with a time
//! series. Each test works in its own directory under the system temp dir.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{rdmasim, text};

fn workdir(test: &str) -> PathBuf {
    common::workdir("pipe", test)
}

/// A star of 8 hosts under 6 ms of Poisson traffic: a run takes a few
/// hundred milliseconds at most.
const BASE: &str = r#"[topology]
kind = "star"
hosts = 8

[workload]
kind = "poisson"
load = 0.3
duration = "6ms"

[cc]
kind = "dcqcn"
"#;

const SWEEP: &str = r#"base = "base.toml"
name = "grid"

[axes]
"run.seed" = [1, 2]
"workload.load" = [0.3, 0.5]
"cc.kind" = ["dcqcn", "none"]
"#;

fn sweep_dir(dir: &Path) -> PathBuf {
    dir.join("runs/grid")
}

/// Complete run directories (a summary inside, not a temporary name).
fn complete_runs(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(sweep_dir(dir))
        .map(|rd| {
            rd.filter_map(Result::ok)
                .filter(|e| e.path().join("summary.json").is_file())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| !n.contains(".tmp-") && !n.contains(".old-"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// (starts, dones) per run in sweep.log.
fn log_counts(dir: &Path) -> BTreeMap<String, (usize, usize)> {
    let log = fs::read_to_string(sweep_dir(dir).join("sweep.log")).unwrap();
    let mut m: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for line in log.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        let e = m.entry(f[2].to_string()).or_default();
        match f[1] {
            "start" => e.0 += 1,
            "done" => e.1 += 1,
            other => panic!("unexpected log line kind {other}: {log}"),
        }
    }
    m
}

#[test]
fn a_killed_sweep_resumes_without_running_anything_twice() {
    let dir = workdir("resume");
    fs::write(dir.join("base.toml"), BASE).unwrap();
    fs::write(dir.join("grid.toml"), SWEEP).unwrap();

    // Run one at a time; kill -9 as soon as the first run is complete.
    let mut child = Command::new(env!("CARGO_BIN_EXE_rdmasim"))
        .args(["sweep", "grid.toml", "--jobs", "1", "--quiet"])
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while complete_runs(&dir).is_empty() {
        assert!(child.try_wait().unwrap().is_none(), "the sweep ended early");
        assert!(t0.elapsed() < Duration::from_secs(60), "no run finished");
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = complete_runs(&dir);
    assert!(
        !before.is_empty() && before.len() < 8,
        "killed after {} runs",
        before.len()
    );
    let summaries: Vec<(String, Vec<u8>, std::time::SystemTime)> = before
        .iter()
        .map(|r| {
            let p = sweep_dir(&dir).join(r).join("summary.json");
            (
                r.clone(),
                fs::read(&p).unwrap(),
                fs::metadata(&p).unwrap().modified().unwrap(),
            )
        })
        .collect();
    // What a run killed while writing leaves: a half-written temporary
    // directory (and the killed sweep's lock file is still there).
    let stale = sweep_dir(&dir).join("cc.kind=none,run.seed=2,workload.load=0.5.tmp-99999999");
    fs::create_dir_all(&stale).unwrap();
    fs::write(stale.join("flows.csv"), "id,src\n0,").unwrap();
    assert!(sweep_dir(&dir).join(".sweep.lock").exists());

    let out = rdmasim(&dir, &["sweep", "grid.toml", "--jobs", "2"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains(&format!(
            "grid: 8 runs ({} ran, {} already done)",
            8 - before.len(),
            before.len()
        )),
        "{stdout}"
    );
    assert!(
        text(&out.stderr).contains("removed 1 unfinished"),
        "{}",
        text(&out.stderr)
    );

    // Every run is complete; nothing temporary is left.
    let after = complete_runs(&dir);
    assert_eq!(after.len(), 8, "{after:?}");
    for r in &after {
        let d = sweep_dir(&dir).join(r);
        for f in ["flows.csv", "summary.json", "fct.txt", "config.toml"] {
            assert!(d.join(f).is_file(), "{r}/{f}");
        }
    }
    let names: Vec<String> = fs::read_dir(sweep_dir(&dir))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names
            .iter()
            .all(|n| !n.contains(".tmp-") && n != ".sweep.lock"),
        "{names:?}"
    );
    assert!(names.contains(&"cc.kind=dcqcn,run.seed=1,workload.load=0.3".to_string()));

    // None ran twice: one "done" per run; runs finished before the kill
    // were never started again and their files are untouched.
    let counts = log_counts(&dir);
    assert_eq!(counts.len(), 8, "{counts:?}");
    for (r, (starts, dones)) in &counts {
        assert_eq!(*dones, 1, "{r}: {counts:?}");
        assert!(*starts >= 1, "{r}");
    }
    for (r, bytes, mtime) in &summaries {
        assert_eq!(counts[r].0, 1, "{r} started again: {counts:?}");
        let p = sweep_dir(&dir).join(r).join("summary.json");
        assert_eq!(&fs::read(&p).unwrap(), bytes);
        assert_eq!(&fs::metadata(&p).unwrap().modified().unwrap(), mtime);
    }

    // index.csv: one row per run, axis values and key numbers.
    let index = fs::read_to_string(sweep_dir(&dir).join("index.csv")).unwrap();
    let lines: Vec<&str> = index.lines().collect();
    assert_eq!(lines.len(), 9, "{index}");
    assert!(
        lines[0].starts_with("run,cc.kind,run.seed,workload.load,status,flows,finished,"),
        "{index}"
    );
    assert!(
        lines[1].starts_with("\"cc.kind=dcqcn,run.seed=1,workload.load=0.3\",dcqcn,1,0.3,ok,"),
        "{index}"
    );
    assert!(lines[1..].iter().all(|l| l.contains(",ok,")), "{index}");
    assert!(
        lines[0]
            .ends_with(",ecn_marks,retransmitted_bytes,timeouts,events,sim_time_ns,wall_s,notes"),
        "{index}"
    );
    // Lossless runs with the default timeout: nothing resent, no note.
    assert!(
        lines[1..].iter().all(|l| {
            let from_end: Vec<&str> = l.rsplit(',').take(6).collect();
            from_end[0] == "0" && from_end[4] == "0" && from_end[5] == "0"
        }),
        "{index}"
    );

    // A third start has nothing to do.
    let out = rdmasim(&dir, &["sweep", "grid.toml", "--quiet"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("(0 ran, 8 already done)"),
        "{}",
        text(&out.stdout)
    );
    assert_eq!(log_counts(&dir), counts);

    // analyze and plot on two of the runs.
    let a = "runs/grid/cc.kind=dcqcn,run.seed=1,workload.load=0.5";
    let b = "runs/grid/cc.kind=none,run.seed=1,workload.load=0.5";
    let out = rdmasim(&dir, &["analyze", a, b, "--step", "10", "--out", "an.csv"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("A = cc.kind=dcqcn ("), "{stdout}");
    assert!(stdout.contains("B = cc.kind=none ("), "{stdout}");
    assert!(
        stdout.contains("peer's buckets (10% of the flows each"),
        "{stdout}"
    );
    assert!(stdout.contains("%)"), "{stdout}");
    let csv = fs::read_to_string(dir.join("an.csv")).unwrap();
    assert!(csv.starts_with("run,path,table,bucket,"), "{csv}");
    assert_eq!(
        csv.lines().filter(|l| l.contains(",peer,")).count(),
        20,
        "{csv}"
    );

    for (kind, file) in [("slowdown", "s.png"), ("cdf", "c.svg")] {
        let out = rdmasim(&dir, &["plot", kind, a, b, "-o", file]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert!(fs::metadata(dir.join(file)).unwrap().len() > 1000);
    }
    let png = fs::read(dir.join("s.png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    let svg = fs::read_to_string(dir.join("c.svg")).unwrap();
    assert!(svg.contains("cc.kind=none") && svg.contains("Flow completion time (us)"));
    fs::remove_dir_all(&dir).unwrap();
}

/// A sweep started again that has nothing left to run still exits 1 if a
/// run of an earlier start had unfinished flows: scripts see the outcome
/// of every run, not only of those this start ran.
#[test]
fn a_sweep_started_again_exits_with_the_warnings_of_its_done_runs() {
    let dir = workdir("rerun-warnings");
    fs::write(dir.join("base.toml"), BASE).unwrap();
    // Flows start until 6 ms: stopped at 6.5 ms some are cut off, at
    // 50 ms all finish.
    fs::write(
        dir.join("grid.toml"),
        "base = \"base.toml\"\nname = \"grid\"\n[axes]\n\"run.stop\" = [\"6.5ms\", \"50ms\"]\n",
    )
    .unwrap();
    let out = rdmasim(&dir, &["sweep", "grid.toml", "--quiet"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let index = fs::read_to_string(sweep_dir(&dir).join("index.csv")).unwrap();
    assert!(index.contains("\nrun.stop=6.5ms,6.5ms,warning,"), "{index}");
    assert!(index.contains("\nrun.stop=50ms,50ms,ok,"), "{index}");
    let log = fs::read_to_string(sweep_dir(&dir).join("sweep.log")).unwrap();

    let out = rdmasim(&dir, &["sweep", "grid.toml", "--quiet"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains(
            "grid: 2 runs (0 ran, 2 already done, 1 with warnings, 1 of them already done)"
        ),
        "{}",
        text(&out.stdout)
    );
    let e = text(&out.stderr);
    assert!(
        e.starts_with("rdmasim: warning: run.stop=6.5ms (already done): ")
            && e.trim_end().ends_with("flows did not finish")
            && e.lines().count() == 1,
        "{e}"
    );
    // Nothing ran again, and index.csv is as before.
    assert_eq!(
        fs::read_to_string(sweep_dir(&dir).join("sweep.log")).unwrap(),
        log
    );
    assert_eq!(
        fs::read_to_string(sweep_dir(&dir).join("index.csv")).unwrap(),
        index
    );
    fs::remove_dir_all(&dir).unwrap();
}

/// `analyze` reads the peer's `fct.txt` (here the one a run writes, under
/// the name the peer's scripts give it) and prints the tables it prints
/// for the run directory; a broken line is bad input, named.
#[test]
fn analyze_reads_the_peers_fct_txt() {
    let dir = workdir("fct-txt");
    fs::write(dir.join("base.toml"), BASE).unwrap();
    let out = rdmasim(&dir, &["run", "base.toml", "--out", "r", "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    fs::copy(dir.join("r/fct.txt"), dir.join("x_fct.txt")).unwrap();
    for class in ["all", "normal"] {
        let run = rdmasim(&dir, &["analyze", "r", "--step", "7.5", "--class", class]);
        let fct = rdmasim(
            &dir,
            &["analyze", "x_fct.txt", "--step", "7.5", "--class", class],
        );
        assert_eq!(fct.status.code(), Some(0), "{}", text(&fct.stderr));
        let (run, fct) = (text(&run.stdout), text(&fct.stdout));
        // Every flow finished: only the name of the file read differs.
        // (Websearch sizes have no ties to order differently.)
        let first = |t: &str| t.lines().next().unwrap().to_string();
        assert!(first(&run).starts_with("A = r (r/flows.csv): "), "{run}");
        assert_eq!(
            first(&fct),
            first(&run).replace("A = r (r/flows.csv)", "A = x_fct.txt (x_fct.txt)")
        );
        assert_eq!(
            run.lines().skip(1).collect::<Vec<_>>(),
            fct.lines().skip(1).collect::<Vec<_>>()
        );
        assert!(fct.contains("\n7.5-15 "), "{fct}");
    }
    let out = rdmasim(&dir, &["plot", "cdf", "r", "x_fct.txt", "-o", "c.svg"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));

    let mut broken = fs::read_to_string(dir.join("x_fct.txt")).unwrap();
    broken = broken.replacen(" 100 ", " x ", 2);
    fs::write(dir.join("x_fct.txt"), broken).unwrap();
    let out = rdmasim(&dir, &["analyze", "x_fct.txt"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).starts_with("rdmasim: x_fct.txt:1: dport: 'x' is not a port number"),
        "{}",
        text(&out.stderr)
    );
    fs::remove_dir_all(&dir).unwrap();
}

/// The peer writes nothing to `fct.txt` when no flow finished: `analyze`
/// reads that as a run of 0 flows, as a flows.csv with no rows; the flow
/// plots refuse it with one error, as they do that flows.csv.
#[test]
fn an_empty_fct_txt_is_a_run_of_no_flows() {
    let dir = workdir("empty-fct");
    fs::create_dir_all(dir.join("r")).unwrap();
    fs::write(
        dir.join("r/flows.csv"),
        "id,src,dst,size,start_ns,end_ns,fct_ns,ideal_fct_ns,slowdown,pg,sport,dport,\
         retransmitted_bytes,paused_ns\n",
    )
    .unwrap();
    fs::write(dir.join("ws30_5ms_dcqcn_fct.txt"), "").unwrap();
    let csv = rdmasim(&dir, &["analyze", "r", "-o", "a.csv"]);
    let fct = rdmasim(&dir, &["analyze", "ws30_5ms_dcqcn_fct.txt", "-o", "b.csv"]);
    assert_eq!(fct.status.code(), Some(0), "{}", text(&fct.stderr));
    let (csv, fct) = (text(&csv.stdout), text(&fct.stdout));
    assert!(fct.starts_with("A = ws30_5ms_dcqcn_fct.txt (ws30_5ms_dcqcn_fct.txt): 0 of 0 flows"));
    let rest = |t: &str| {
        t.lines()
            .skip(1)
            .filter(|l| !l.starts_with("written: "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(rest(&fct), rest(&csv));
    let table = fs::read_to_string(dir.join("b.csv")).unwrap();
    for t in [&fct, &table] {
        assert!(
            !t.to_lowercase().contains("nan") && !t.contains("inf"),
            "{t}"
        );
    }
    // Any other name: the error it was.
    fs::write(dir.join("empty.txt"), "").unwrap();
    let out = rdmasim(&dir, &["analyze", "empty.txt"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "rdmasim: empty.txt:1: empty file; expected a flows.csv header or the peer's fct.txt lines\n"
    );
    for kind in ["slowdown", "cdf"] {
        let out = rdmasim(
            &dir,
            &["plot", kind, "ws30_5ms_dcqcn_fct.txt", "-o", "p.svg"],
        );
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
        assert_eq!(
            text(&out.stderr),
            "rdmasim: <command line>: RUN_DIR: ws30_5ms_dcqcn_fct.txt: no finished flow passes \
             the filters\n"
        );
        assert!(!dir.join("p.svg").exists());
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sweep_errors_name_the_sweep_file_line() {
    let dir = workdir("sweep-errors");
    fs::write(dir.join("base.toml"), BASE).unwrap();
    fs::write(
        dir.join("bad.toml"),
        SWEEP.replace("\"workload.load\"", "\"workload.lod\""),
    )
    .unwrap();
    let out = rdmasim(&dir, &["sweep", "bad.toml"]);
    assert_eq!(out.status.code(), Some(2));
    let e = text(&out.stderr);
    assert!(
        e.starts_with("rdmasim: bad.toml:6: axes.\"workload.lod\": unknown key"),
        "{e}"
    );
    assert!(!dir.join("runs").exists(), "nothing ran");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_time_series_run_and_its_plots() {
    let dir = workdir("timeseries");
    fs::write(
        dir.join("incast.toml"),
        r#"[topology]
kind = "star"
hosts = 5

[workload]
kind = "incast"
senders_count = 4
receiver = 4
size = "200KB"

[timeseries]
interval = "1us"
qp_rates = true
"#,
    )
    .unwrap();
    let out = rdmasim(&dir, &["run", "incast.toml", "--out", "r", "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let ts = fs::read_to_string(dir.join("r/timeseries.csv")).unwrap();
    assert!(ts.starts_with("time_ns,node,port,class,metric,value\n"));
    // The switch (node 5) port towards the receiver (port 4) queues.
    let peak = ts
        .lines()
        .filter(|l| l.contains(",5,4,3,queue_bytes,"))
        .map(|l| l.rsplit(',').next().unwrap().parse::<u64>().unwrap())
        .max()
        .unwrap();
    assert!(peak > 100_000, "{peak}");
    let qp = fs::read_to_string(dir.join("r/qp_rates.csv")).unwrap();
    assert!(
        qp.starts_with("time_ns,flow,src,dst,rate_gbps\n0,0,0,4,100.000\n"),
        "{qp}"
    );

    for args in [
        &[
            "plot", "queue", "r", "--node", "5", "--port", "4", "-o", "q.png",
        ][..],
        &[
            "plot",
            "throughput",
            "r",
            "--node",
            "5",
            "--port",
            "4",
            "-o",
            "t.svg",
        ],
        &["plot", "pause", "r", "-o", "p.png"],
    ] {
        let out = rdmasim(&dir, args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
    let svg = fs::read_to_string(dir.join("t.svg")).unwrap();
    assert!(svg.contains("Throughput (Gb/s)"), "{svg}");
    let out = rdmasim(&dir, &["plot", "queue", "r", "--node", "5", "--port", "9"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no queue_bytes samples for node 5 port 9"));
    fs::remove_dir_all(&dir).unwrap();
}

/// A report over one numeric axis draws each group's p99 and average
/// slowdown against it, one line per variant; the CDFs are drawn as well.
#[test]
fn a_report_over_one_numeric_axis_draws_each_group_by_it() {
    let dir = workdir("report-axis");
    fs::write(
        dir.join("base.toml"),
        r#"[topology]
kind = "star"
hosts = 4

[workload]
kind = "incast"
receiver = 0
senders = [1, 2]
size = "20KB"
dport = 100
"#,
    )
    .unwrap();
    fs::write(
        dir.join("s.toml"),
        r#"base = "base.toml"
name = "r"

[axes]
"topology.hosts" = [4, 6]

[variants.pfc]
"cc.kind" = "none"

[variants.dcqcn]
"cc.kind" = "dcqcn"

[report]
baseline = "pfc"
groups = { burst = [100] }
"#,
    )
    .unwrap();
    let out = rdmasim(&dir, &["sweep", "s.toml", "-q", "--jobs", "1"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    for f in [
        "burst_slowdown_p99.png",
        "burst_slowdown_avg.png",
        "fct_cdf.png",
    ] {
        let p = dir.join("runs/r").join(f);
        assert!(
            fs::metadata(&p).is_ok_and(|m| m.len() > 0),
            "{}",
            p.display()
        );
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// A report whose variant finished no flow (its stop time comes first)
/// still writes its report and its FCT CDF: the variant is left out of the
/// figure, with a warning naming it, instead of failing the whole sweep.
#[test]
fn a_report_variant_with_no_finished_flow_is_left_out_of_its_cdf() {
    let dir = workdir("report-empty");
    fs::write(
        dir.join("base.toml"),
        r#"[topology]
kind = "star"
hosts = 4

[workload]
kind = "incast"
receiver = 0
senders = [1, 2]
size = "100KB"
dport = 100
"#,
    )
    .unwrap();
    fs::write(
        dir.join("s.toml"),
        r#"base = "base.toml"
name = "r"

[variants.full]
"run.stop" = "10ms"

[variants.cut]
"run.stop" = "1us"

[report]
baseline = "full"
"#,
    )
    .unwrap();
    let out = rdmasim(&dir, &["sweep", "s.toml", "-q", "--jobs", "1"]);
    let err = text(&out.stderr);
    // The cut variant's unfinished flows are a warning (exit 1), not an error.
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("fct_cdf.png: variant cut left out: no flow finished in "),
        "{err}"
    );
    assert!(
        text(&out.stdout).contains("report: "),
        "{}",
        text(&out.stdout)
    );
    assert!(dir.join("runs/r/report.md").exists());
    assert!(dir.join("runs/r/fct_cdf.png").exists());
    fs::remove_dir_all(&dir).unwrap();
}

/// A sweep with variants and a `[report]` on a small cross-DC network:
/// native PFC against Bifrost with its per-slot trace. The report compares
/// them, every run is lossless, the trace has one row per slot with
/// L + F − H ≤ 0, and `plot bifrost` draws it.
#[test]
fn variants_report_and_bifrost_trace_end_to_end() {
    let dir = workdir("bifrost");
    fs::write(
        dir.join("base.toml"),
        r#"[topology]
kind = "cross_dc"
k = 2
hosts_per_tor = 2
long_rate = "100Gbps"
long_length = "20km"

[workload]
kind = "poisson"
hosts = [0, 1, 2, 3]
dsts = [4, 5]
load = 0.5
duration = "1ms"
cdf = "websearch"

[cc]
kind = "none"

[nic]
rto = "off"
"#,
    )
    .unwrap();
    fs::write(
        dir.join("s.toml"),
        r#"base = "base.toml"
name = "lh"

[axes]
"run.seed" = [1, 2]

[variants.pfc]
"ports.long_haul.xoff" = "200KB"
"ports.long_haul.headroom" = "2600KB"

[variants.bifrost]
"ports.long_haul.fc" = "bifrost"
"ports.long_haul.bifrost_trace" = true

[report]
baseline = "pfc"
groups = { inter = "cross:4" }
ports = { host0 = "0:0" }

[[report.paper]]
target = "x"
variant = "bifrost"
group = "inter"
metric = "fct_avg"
reduction = 0.1
"#,
    )
    .unwrap();
    let out = rdmasim(&dir, &["sweep", "s.toml", "-q", "--jobs", "2"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // One comparison per seed and one over both seeds' flows pooled.
    assert!(
        text(&out.stdout).contains("3 published numbers compared"),
        "{}",
        text(&out.stdout)
    );
    let report = fs::read_to_string(dir.join("runs/lh/report.md")).unwrap();
    assert!(
        report.contains("| x | fct_avg | inter | bifrost vs pfc | run.seed=1 |"),
        "{report}"
    );
    assert!(
        report.contains("| x | fct_avg | inter | bifrost vs pfc | seeds=pooled |"),
        "{report}"
    );
    // Host 0's NIC sent something, at most its 100 Gb/s line rate.
    let rate_row = report
        .lines()
        .find(|l| l.starts_with("| variant=pfc,run.seed=1 |") && l.matches('|').count() == 3)
        .expect("a port-rate row");
    let gbps: f64 = rate_row.split('|').nth(2).unwrap().trim().parse().unwrap();
    assert!(gbps > 0.0 && gbps <= 100.0, "{rate_row}");
    assert!(report.contains("| run | host0 (0:0) |"), "{report}");
    let csv = fs::read_to_string(dir.join("runs/lh/report.csv")).unwrap();
    let flows = |run: &str| -> u64 {
        // Run and point are quoted (they hold commas): count from the end.
        let line = csv
            .lines()
            .find(|l| l.starts_with(&format!("\"{run}\"")))
            .expect(run);
        line.rsplit(',').nth(8).unwrap().parse().unwrap()
    };
    assert_eq!(
        flows("variant=pfc,seeds=pooled"),
        flows("variant=pfc,run.seed=1") + flows("variant=pfc,run.seed=2"),
        "the pooled row holds both seeds' flows"
    );
    let csv = fs::read_to_string(dir.join("runs/lh/report.csv")).unwrap();
    for line in csv.lines().skip(1) {
        assert!(line.ends_with(",0"), "a drop: {line}");
    }
    let trace =
        fs::read_to_string(dir.join("runs/lh/variant=bifrost,run.seed=1/bifrost_trace.csv"))
            .unwrap();
    let mut lines = trace.lines();
    assert_eq!(
        lines.next(),
        Some("node,port,n,time_ns,L,F,r,c,c_hat,p_quanta,L_plus_F_minus_H")
    );
    let rows: Vec<Vec<i64>> = lines
        .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
        .collect();
    assert!(rows.len() > 100, "{} slots", rows.len());
    // Both DCI long-haul ports run Bifrost; every slot within H.
    let ports: std::collections::BTreeSet<(i64, i64)> = rows.iter().map(|r| (r[0], r[1])).collect();
    assert_eq!(ports.len(), 2);
    assert!(rows.iter().all(|r| r[10] <= 0), "L + F above H");
    let (node, port) = *ports.iter().next().unwrap();
    let out = rdmasim(
        &dir,
        &[
            "plot",
            "bifrost",
            "runs/lh/variant=bifrost,run.seed=1",
            "--node",
            &node.to_string(),
            "--port",
            &port.to_string(),
            "-o",
            "b.svg",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(fs::read_to_string(dir.join("b.svg"))
        .unwrap()
        .contains("<svg"));
    // A port that is not "node:port" is bad input, named.
    let bad = fs::read_to_string(dir.join("s.toml"))
        .unwrap()
        .replace("host0 = \"0:0\"", "host0 = \"0\"");
    fs::write(dir.join("bad.toml"), bad).unwrap();
    let out = rdmasim(&dir, &["sweep", "bad.toml", "-q"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("report.ports.host0"),
        "{}",
        text(&out.stderr)
    );
    fs::remove_dir_all(&dir).unwrap();
}

/// Drops at ports given `fc = "lossy"` are not lossless drops: the run
/// exits 0 and the summary counts them apart, while the same drops under
/// PFC would fail it.
#[test]
fn drops_at_lossy_ports_do_not_break_the_lossless_promise() {
    let dir = workdir("lossy-port");
    let cfg = |fc: &str| {
        format!(
            r#"[topology]
kind = "star"
hosts = 4

[workload]
kind = "incast"
senders = [0, 1, 2]
receiver = 3
size = "300KB"

[cc]
kind = "none"

[[ports.at]]
node = 4
port = 0
xoff = "10KB"
headroom = "0B"
fc = "{fc}"
"#
        )
    };
    fs::write(dir.join("lossy.toml"), cfg("lossy")).unwrap();
    let out = rdmasim(&dir, &["run", "lossy.toml", "--out", "lossy"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let summary: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.join("lossy/summary.json")).unwrap()).unwrap();
    let counters = &summary["counters"];
    assert!(counters["drops"].as_u64().unwrap() > 0, "{counters}");
    assert_eq!(counters["lossless_drops"].as_u64(), Some(0), "{counters}");
    assert_eq!(summary["flows"]["unfinished"].as_u64(), Some(0));
    // The same port under PFC with no headroom drops too, and fails the run.
    fs::write(dir.join("pfc.toml"), cfg("pfc")).unwrap();
    let out = rdmasim(&dir, &["run", "pfc.toml", "--out", "pfc"]);
    let summary: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.join("pfc/summary.json")).unwrap()).unwrap();
    let lossless = summary["counters"]["lossless_drops"].as_u64().unwrap();
    assert_eq!(lossless, summary["counters"]["drops"].as_u64().unwrap());
    if lossless > 0 {
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// Endless bandwidth flows (`kind = "bulk"` without a size) run until the
/// stop time and do not fail the run, while a sized flow cut off by the
/// stop time still does.
#[test]
fn endless_bandwidth_flows_are_not_unfinished_flows() {
    let dir = workdir("endless");
    let cfg = |size: &str| {
        format!(
            r#"[run]
stop = "2ms"

[topology]
kind = "links"
hosts = 2
switches = 1
links = [{{ a = 0, b = 2 }}, {{ a = 1, b = 2 }}]

[workload]
kind = "bulk"
hosts = [0]
dsts = [1]
{size}

[[workload.extra]]
kind = "probes"
hosts = [1]
dsts = [0]
size = "8KB"
interval = "100us"
duration = "1ms"
dport = 300
"#
        )
    };
    fs::write(dir.join("endless.toml"), cfg("")).unwrap();
    let out = rdmasim(&dir, &["run", "endless.toml", "--out", "endless"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let summary: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.join("endless/summary.json")).unwrap())
            .unwrap();
    let flows = &summary["flows"];
    assert_eq!(flows["endless"].as_u64(), Some(1), "{flows}");
    assert_eq!(flows["unfinished"].as_u64(), Some(0), "{flows}");
    assert!(flows["finished"].as_u64().unwrap() > 0, "{flows}");
    // 1 GB at 100 Gb/s needs 80 ms: cut off at 2 ms, the run fails.
    fs::write(dir.join("sized.toml"), cfg("size = \"1GB\"")).unwrap();
    let out = rdmasim(&dir, &["run", "sized.toml", "--out", "sized"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("did not finish"));
    fs::remove_dir_all(&dir).unwrap();
}

/// A step finer than `MIN_PEER_STEP` would walk 100 / step groups (1e-30:
/// forever): `analyze` and `plot slowdown` refuse it before reading runs.
#[test]
fn a_step_below_the_minimum_is_bad_input() {
    let dir = workdir("tiny-step");
    for args in [
        &["analyze", "r", "--step", "1e-30"][..],
        &["plot", "slowdown", "r", "--step", "0.0001", "-o", "s.svg"][..],
    ] {
        let out = rdmasim(&dir, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let e = text(&out.stderr);
        assert!(
            e.starts_with("rdmasim: <command line>: --step: ") && e.contains("[0.001, 100]"),
            "{e}"
        );
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// A figure's file that cannot be written (a directory of that name, a
/// plain file where its directory should be) gets one line naming the
/// figure's path and the system's reason, exit code 2, in both formats.
#[test]
fn a_figure_that_cannot_be_written_is_named_in_one_line() {
    let dir = workdir("plot-unwritable");
    fs::write(dir.join("base.toml"), BASE).unwrap();
    let out = rdmasim(&dir, &["run", "base.toml", "--out", "r", "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    fs::create_dir(dir.join("d.png")).unwrap();
    fs::create_dir(dir.join("d.svg")).unwrap();
    fs::write(dir.join("afile"), "").unwrap();
    for (file, reason) in [
        ("d.png", "Is a directory"),
        ("d.svg", "Is a directory"),
        ("afile/a.png", "cannot create afile: "),
    ] {
        let out = rdmasim(&dir, &["plot", "cdf", "r", "-o", file]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{file}: {err}");
        assert_eq!(err.lines().count(), 1, "{file}: {err}");
        let want = format!("rdmasim: {file}: cannot write the figure: {reason}");
        assert!(err.starts_with(&want), "{file}: {err}");
        assert!(
            !err.contains("Os {") && !err.contains("Error("),
            "{file}: {err}"
        );
        assert!(out.stdout.is_empty(), "{file}: {}", text(&out.stdout));
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// A size written right but too small or too large is out of range, and
/// the message says the range; only a size that does not parse is said to
/// be malformed.
#[test]
fn a_figure_size_out_of_range_states_the_range() {
    let dir = workdir("plot-size");
    for size in ["0x0", "99x620", "1000x10001", "5000000000x620"] {
        let out = rdmasim(&dir, &["plot", "cdf", "r", "--size", size]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{size}: {err}");
        assert_eq!(
            err,
            format!(
                "rdmasim: <command line>: --size: {size} is out of range: width and height \
                 must each be from 100 to 10000 pixels\n"
            )
        );
    }
    let out = rdmasim(&dir, &["plot", "cdf", "r", "--size", "wide"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(
        err,
        "rdmasim: <command line>: --size: 'wide' is not WxH, e.g. 1000x620\n"
    );
    fs::remove_dir_all(&dir).unwrap();
}

/// A sweep's directory given to `analyze` or `plot`, a run config given to
/// `sweep` or `analyze`: the error says what was given and what to do
/// instead, in one line, exit code 2.
#[test]
fn another_commands_input_is_named_with_what_to_give() {
    let dir = workdir("wrong-input");
    fs::write(dir.join("base.toml"), BASE).unwrap();
    fs::write(
        dir.join("one.toml"),
        "base = \"base.toml\"\nname = \"one\"\n[axes]\n\"run.seed\" = [1]\n",
    )
    .unwrap();
    let out = rdmasim(&dir, &["sweep", "one.toml", "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let sweep_dir = "runs/one";
    let said = format!(
        "rdmasim: {sweep_dir}: a sweep's directory, not a run directory: give the run \
         directories in it instead, e.g. {sweep_dir}/*/ (its index.csv has each run's key \
         numbers)\n"
    );
    // A figure of one run (analyze and the figures of several runs take
    // each run of a sweep's directory: `a_sweep_runs_as_a_slurm_job_array`).
    let out = rdmasim(&dir, &["plot", "pause", sweep_dir, "-o", "p.svg"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stderr), said);
    assert!(out.stdout.is_empty());
    // The runs inside are what to give.
    let out = rdmasim(&dir, &["analyze", "runs/one/run.seed=1"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));

    let out = rdmasim(&dir, &["sweep", "base.toml"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("rdmasim: base.toml:1: topology: unknown key; ")
            && err.ends_with(
                "; this looks like an rdmasim TOML config: run it with `rdmasim run base.toml`\n"
            ),
        "{err}"
    );
    for (file, right) in [
        (
            "base.toml",
            "an rdmasim TOML config: run it with `rdmasim run base.toml`",
        ),
        (
            "one.toml",
            "a sweep file: run it with `rdmasim sweep one.toml`",
        ),
    ] {
        let out = rdmasim(&dir, &["analyze", file]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with(&format!("rdmasim: {file}:1: "))
                && err.ends_with(&format!("; this looks like {right}\n")),
            "{err}"
        );
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// Each task of the Slurm job array `rdmasim sweep --emit slurm` writes
/// runs one run of the sweep into the shared directory, and skips it when
/// it is done; once all have run, a plain start runs nothing and writes
/// the same index.csv as a plain sweep. `analyze` and `plot` then take the
/// sweep's directory, each run labelled by its axis values.
#[test]
fn a_sweep_runs_as_a_slurm_job_array() {
    let dir = workdir("slurm");
    fs::write(dir.join("base.toml"), BASE).unwrap();
    let grid = SWEEP.replace("\"workload.load\" = [0.3, 0.5]\n", "");
    fs::write(dir.join("grid.toml"), &grid).unwrap();
    let out = rdmasim(&dir, &["sweep", "grid.toml", "--out", "plain", "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));

    let out = rdmasim(
        &dir,
        &["sweep", "grid.toml", "--out", "array", "--emit", "slurm"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let script = dir.join("array/sweep.slurm");
    assert!(
        text(&out.stdout).starts_with(&format!(
            "written: {} (a job array of 4 tasks, 0 to 3)\n",
            script.display()
        )),
        "{}",
        text(&out.stdout)
    );
    let body = fs::read_to_string(&script).unwrap();
    assert!(body.contains("\n#SBATCH --array=0-3\n"), "{body}");
    // Nothing ran.
    assert!(!dir.join("array/index.csv").exists());
    let task = |i: usize| {
        let o = Command::new("bash")
            .arg(&script)
            .env("SLURM_ARRAY_TASK_ID", i.to_string())
            .current_dir(&dir)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "task {i}: {}", text(&o.stderr));
        text(&o.stdout)
    };
    // The tasks in any order; each runs its run alone and writes no index.
    for i in [2, 0, 3, 1] {
        assert!(task(i).contains(&format!(": run {i} (")), "task {i}");
    }
    assert!(!dir.join("array/index.csv").exists());
    // A task run again (requeued) finds its run done.
    assert!(task(1).contains(") was already done in "));
    let starts = fs::read_to_string(dir.join("array/sweep.log"))
        .unwrap()
        .lines()
        .filter(|l| l.split(' ').nth(1) == Some("start"))
        .count();
    assert_eq!(starts, 4);
    // Without a task id the script refuses to run.
    let o = Command::new("bash")
        .arg(&script)
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_ne!(o.status.code(), Some(0));
    // The start after the array runs nothing and writes the index.
    let out = rdmasim(&dir, &["sweep", "grid.toml", "--out", "array"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).starts_with("grid: 4 runs (0 ran, 4 already done)"),
        "{}",
        text(&out.stdout)
    );
    // index.csv alike, but for the wall-clock column (the next to last).
    let index = |d: &str| -> Vec<String> {
        fs::read_to_string(dir.join(d).join("index.csv"))
            .unwrap()
            .lines()
            .map(|l| {
                let mut f: Vec<&str> = l.split(',').collect();
                let n = f.len();
                f.remove(n - 2);
                f.join(",")
            })
            .collect()
    };
    assert_eq!(index("array"), index("plain"));
    assert_eq!(index("plain").len(), 5);

    // An index beyond the sweep is a command-line error.
    let out = rdmasim(
        &dir,
        &["sweep", "grid.toml", "--out", "array", "--only", "4"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "rdmasim: <command line>: --only: 4 is not a run of the sweep: it has 4 runs, 0 to 3\n"
    );

    // analyze and plot take the sweep's directory: its runs in index
    // order, each named by the axis values that tell it apart.
    let out = rdmasim(&dir, &["analyze", "array"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let heads: Vec<String> = text(&out.stdout)
        .lines()
        .filter(|l| l.contains(" = "))
        .take(4)
        .map(|l| l.split(" (").next().unwrap().to_string())
        .collect();
    assert_eq!(
        heads,
        [
            "A = cc.kind=dcqcn,run.seed=1",
            "B = cc.kind=dcqcn,run.seed=2",
            "C = cc.kind=none,run.seed=1",
            "D = cc.kind=none,run.seed=2"
        ]
    );
    let out = rdmasim(&dir, &["plot", "cdf", "array", "-o", "cdf.svg"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let svg = fs::read_to_string(dir.join("cdf.svg")).unwrap();
    for label in ["cc.kind=dcqcn,run.seed=1", "cc.kind=none,run.seed=2"] {
        assert!(svg.contains(label), "{label} is not in the figure");
    }
    // A sweep's directory with no complete run yet.
    fs::create_dir_all(dir.join("empty")).unwrap();
    fs::write(dir.join("empty/sweep.log"), "").unwrap();
    let out = rdmasim(&dir, &["analyze", "empty"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("a sweep's directory with no complete run yet"),
        "{}",
        text(&out.stderr)
    );
    fs::remove_dir_all(&dir).unwrap();
}
