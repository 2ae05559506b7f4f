//! The `rdmasim` binary end to end: runs, determinism, and what bad input
//! prints. Each test works in its own directory under the system temp dir.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::{rdmasim, text};

/// A fresh directory for one test.
fn workdir(test: &str) -> PathBuf {
    common::workdir("cli", test)
}

fn quickstart() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments/quickstart.toml")
}

/// Data rows of a CSV file with a header.
fn csv_rows(path: &Path) -> Vec<String> {
    let t = fs::read_to_string(path).unwrap();
    let mut lines = t.lines();
    assert!(lines.next().unwrap().starts_with("id,src,dst,size,"));
    lines.map(str::to_string).collect()
}

#[test]
fn quickstart_runs_and_writes_its_outputs() {
    let dir = workdir("quickstart");
    let out = rdmasim(
        &dir,
        &[
            "run",
            quickstart().to_str().unwrap(),
            "--out",
            "qs",
            "--quiet",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("output: qs"), "{stdout}");

    let run = dir.join("qs");
    let rows = csv_rows(&run.join("flows.csv"));
    assert!(rows.len() > 10, "{} flows", rows.len());
    let summary = fs::read_to_string(run.join("summary.json")).unwrap();
    assert!(
        summary.contains(&format!("\"total\": {}", rows.len())),
        "{summary}"
    );
    assert!(
        summary.contains(&format!("\"finished\": {}", rows.len())),
        "{summary}"
    );
    assert!(summary.contains("\"cc\": \"dcqcn\""), "{summary}");
    // Every flow finished, so fct.txt has one line per flow, 8 fields each.
    let fct = fs::read_to_string(run.join("fct.txt")).unwrap();
    assert_eq!(fct.lines().count(), rows.len());
    assert!(fct.lines().all(|l| l.split(' ').count() == 8), "{fct}");
    assert!(run.join("pfc.txt").exists());
    assert_eq!(
        fs::read_to_string(run.join("config.toml")).unwrap(),
        fs::read_to_string(quickstart()).unwrap()
    );
    // No temporary directory is left beside it.
    let left: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from("qs")]);
    fs::remove_dir_all(&dir).unwrap();
}

const SMALL: &str = r#"
[run]
name = "small"

[topology]
kind = "star"
hosts = 4
rate = "100Gbps"
delay = "1us"

[workload]
kind = "poisson"
load = 0.5
cdf = "fb_hadoop"
duration = "200us"

[cc]
kind = "dcqcn"
"#;

#[test]
fn same_seed_same_outputs_other_seed_other_flows() {
    let dir = workdir("determinism");
    fs::write(dir.join("small.toml"), SMALL).unwrap();
    for (out, seed) in [("a", "7"), ("b", "7"), ("c", "8")] {
        let o = rdmasim(
            &dir,
            &["run", "small.toml", "--out", out, "--seed", seed, "-q"],
        );
        assert_eq!(o.status.code(), Some(0), "stderr: {}", text(&o.stderr));
    }
    let read = |run: &str, f: &str| fs::read(dir.join(run).join(f)).unwrap();
    assert!(csv_rows(&dir.join("a/flows.csv")).len() >= 4);
    assert_eq!(read("a", "flows.csv"), read("b", "flows.csv"));
    assert_eq!(read("a", "fct.txt"), read("b", "fct.txt"));
    assert_ne!(read("a", "flows.csv"), read("c", "flows.csv"));
    assert!(text(&read("c", "summary.json")).contains("\"seed\": 8"));
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn default_output_directory_and_rerun() {
    let dir = workdir("default-out");
    fs::write(dir.join("small.toml"), SMALL).unwrap();
    for _ in 0..2 {
        let o = rdmasim(&dir, &["run", "small.toml", "-q"]);
        assert_eq!(o.status.code(), Some(0), "stderr: {}", text(&o.stderr));
    }
    assert!(dir.join("runs/small/summary.json").exists());
    // A directory holding anything else is never replaced.
    fs::write(dir.join("runs/small/notes.md"), "mine").unwrap();
    let o = rdmasim(&dir, &["run", "small.toml", "-q"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("notes.md"), "{}", text(&o.stderr));
    assert!(dir.join("runs/small/notes.md").exists());
    fs::remove_dir_all(&dir).unwrap();
}

/// (flows started and unfinished, flows that never started) by a stop at
/// `stop_ns`, counted from flows.csv.
fn unfinished_by_stop(flows_csv: &Path, stop_ns: u64) -> (usize, usize) {
    let mut started = 0;
    let mut never = 0;
    for row in csv_rows(flows_csv) {
        let f: Vec<&str> = row.split(',').collect();
        let (start, fct) = (f[4].parse::<u64>().unwrap(), f[6]);
        if fct.is_empty() {
            if start > stop_ns {
                never += 1;
            } else {
                started += 1;
            }
        }
    }
    (started, never)
}

/// A stop time leaves flows unfinished: the run fails with exit code 1,
/// and the warning tells flows cut off apart from flows that never
/// started, as does the summary.
#[test]
fn unfinished_flows_fail_the_run_with_exit_code_1() {
    let dir = workdir("unfinished");
    // At 20 us the flows that started have all finished; at 60 us some are
    // cut off.
    for (stop, stop_ns, cut_off) in [("20us", 20_000, false), ("60us", 60_000, true)] {
        let cfg = SMALL.replace(
            "name = \"small\"",
            &format!("name = \"small\"\nstop = \"{stop}\""),
        ) + "[nic]\nrto = \"1ms\"\n";
        fs::write(dir.join("cfg.toml"), cfg).unwrap();
        let o = rdmasim(&dir, &["run", "cfg.toml", "--out", "out", "-q"]);
        assert_eq!(o.status.code(), Some(1), "stderr: {}", text(&o.stderr));
        let err = text(&o.stderr);
        let (started, never) = unfinished_by_stop(&dir.join("out/flows.csv"), stop_ns);
        let total = csv_rows(&dir.join("out/flows.csv")).len();
        assert!(never > 0, "{stop}: {err}");
        assert_eq!(started > 0, cut_off, "{stop}: {err}");
        let want = if started == 0 {
            format!(
                "rdmasim: warning: {never} of {total} flows never started: they start after \
                 the stop time {}.0us\n",
                &stop[..2]
            )
        } else {
            format!(
                "rdmasim: warning: {started} of {total} flows started but did not finish by the \
                 stop time {}.0us (the last event before it ran at ",
                &stop[..2]
            )
        };
        assert!(err.starts_with(&want), "{stop}: {want}\n{err}");
        if started > 0 {
            assert!(
                err.ends_with(&format!(
                    "), and {never} more never started: they start after it\n"
                )),
                "{stop}: {err}"
            );
        }
        let stdout = text(&o.stdout);
        assert!(
            stdout.contains(&format!(
                " finished ({} unfinished, {never} of them never started)\n",
                started + never
            )),
            "{stdout}"
        );
        let summary = fs::read_to_string(dir.join("out/summary.json")).unwrap();
        assert!(
            summary.contains(&format!("\"not_started\": {never}")),
            "{summary}"
        );
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// An output directory that cannot be created (here under a plain file)
/// is an input error before the run, naming the directory as typed, not
/// the temporary one beside it.
#[test]
fn an_output_directory_that_cannot_be_created_is_refused_before_the_run() {
    let dir = workdir("out-unwritable");
    fs::write(dir.join("cfg.toml"), SMALL).unwrap();
    fs::write(dir.join("afile"), "").unwrap();
    let o = rdmasim(&dir, &["run", "cfg.toml", "--out", "afile/run"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.starts_with(
            "rdmasim: <command line>: --out: cannot create the run directory afile/run: "
        ),
        "{err}"
    );
    assert!(!err.contains(".tmp-"), "{err}");
    assert!(o.stdout.is_empty(), "no run: {}", text(&o.stdout));
    fs::remove_dir_all(&dir).unwrap();
}

/// Flows that wait for something that never comes (losses with the
/// retransmission timeout off) are reported as stalled, not as cut off.
#[test]
fn stalled_flows_are_told_apart_from_a_stop_time() {
    let dir = workdir("stalled");
    let cfg = SMALL.to_string()
        + "\n[pfc]\nenabled = false\n[buffer]\nsize = \"100KB\"\n[nic]\nrto = \"off\"\n";
    fs::write(dir.join("cfg.toml"), cfg).unwrap();
    let o = rdmasim(&dir, &["run", "cfg.toml", "--out", "out", "-q"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "stderr: {err}");
    assert!(
        err.contains("did not finish and nothing was left to happen after")
            && err.contains("they stalled"),
        "{err}"
    );
    assert!(!err.contains("stop time"), "{err}");
    fs::remove_dir_all(&dir).unwrap();
}

/// A workload that produces no flow (here: 1 ns of Poisson arrivals)
/// fails the run instead of passing with nothing simulated.
#[test]
fn a_workload_without_flows_fails_the_run() {
    let dir = workdir("no-flows");
    let cfg = SMALL.replace("duration = \"200us\"", "duration = \"1ns\"");
    assert_ne!(cfg, SMALL);
    fs::write(dir.join("cfg.toml"), cfg).unwrap();
    let o = rdmasim(&dir, &["run", "cfg.toml", "--out", "out", "-q"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "stderr: {err}");
    assert!(err.contains("the workload has no flows"), "{err}");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_printed_defaults_are_a_config_that_runs() {
    let dir = workdir("defaults");
    let o = rdmasim(&dir, &["config", "--defaults"]);
    assert_eq!(o.status.code(), Some(0));
    fs::write(dir.join("d.toml"), &o.stdout).unwrap();
    let o = rdmasim(&dir, &["run", "d.toml", "--out", "out", "-q"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", text(&o.stderr));
    fs::remove_dir_all(&dir).unwrap();
}

// ---------------------------------------------------------------------------
// Bad input: exit code 2, one line naming file, line and field, no output.

const STAR_TOPO: &str =
    "4 1 3\n3\n0 3 100Gbps 1000ns 0\n1 3 100Gbps 1000ns 0\n2 3 100Gbps 1000ns 0\n";

/// Run `rdmasim run cfg.toml` on `config` with `files` beside it and check
/// the error: exit code 2, exactly one line on stderr containing
/// `file:line: field`, nothing on stdout, and no output directory.
fn expect_input_error(
    test: &str,
    config: &str,
    files: &[(&str, &str)],
    expect: (&str, usize, &str),
) {
    let dir = workdir(test);
    fs::write(dir.join("cfg.toml"), config).unwrap();
    for (name, body) in files {
        fs::write(dir.join(name), body).unwrap();
    }
    let o = rdmasim(&dir, &["run", "cfg.toml", "--out", "out", "-q"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "stderr: {err}");
    assert_eq!(err.lines().count(), 1, "one line expected: {err}");
    let (file, line, field) = expect;
    let want = format!("rdmasim: {file}:{line}: {field}: ");
    assert!(err.starts_with(&want), "expected '{want}...', got: {err}");
    assert!(o.stdout.is_empty(), "stdout: {}", text(&o.stdout));
    let left: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("out"))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    fs::remove_dir_all(&dir).unwrap();
}

/// 1-based line of the first line of `text` starting with `prefix`.
fn line_of(text: &str, prefix: &str) -> usize {
    text.lines()
        .position(|l| l.starts_with(prefix))
        .expect("line present")
        + 1
}

#[test]
fn unknown_nested_key() {
    let cfg = format!("{SMALL}\n[cc.dcqcn]\ng = 0.5\nrp_timr = \"300us\"\n");
    let line = line_of(&cfg, "rp_timr");
    expect_input_error(
        "unknown-key",
        &cfg,
        &[],
        ("cfg.toml", line, "cc.dcqcn.rp_timr"),
    );
}

#[test]
fn toml_syntax_error() {
    let cfg = SMALL.replace("load = 0.5", "load = 0.5.5");
    let line = line_of(&cfg, "load");
    expect_input_error("syntax", &cfg, &[], ("cfg.toml", line, "workload.load"));
}

#[test]
fn bad_irn_keys() {
    let cfg = format!("{SMALL}\n[transport]\nkind = \"irn\"\nrto_high = \"soon\"\n");
    let line = line_of(&cfg, "rto_high");
    expect_input_error(
        "irn-rto",
        &cfg,
        &[],
        ("cfg.toml", line, "transport.rto_high"),
    );
    let cfg = format!("{SMALL}\n[transport]\nkind = \"irn\"\nbitmap = 0\n");
    let line = line_of(&cfg, "bitmap");
    expect_input_error(
        "irn-bitmap",
        &cfg,
        &[],
        ("cfg.toml", line, "transport.bitmap"),
    );
    let cfg = format!("{SMALL}\n[transport]\nrto_low = \"10us\"\n");
    let line = line_of(&cfg, "rto_low");
    expect_input_error(
        "gbn-rto-low",
        &cfg,
        &[],
        ("cfg.toml", line, "transport.rto_low"),
    );
}

#[test]
fn a_delay_beyond_the_clock_is_an_input_error() {
    let cfg = SMALL.replace("delay = \"1us\"", "delay = \"1e9s\"");
    let line = line_of(&cfg, "delay");
    expect_input_error(
        "huge-delay",
        &cfg,
        &[],
        ("cfg.toml", line, "topology.delay"),
    );
}

/// IRN on a lossy star: every flow finishes, bytes are resent, the summary
/// says so, and the same seed gives the same flows.csv.
#[test]
fn irn_run_under_loss_finishes_and_is_deterministic() {
    let dir = workdir("irn-loss");
    let cfg = SMALL.replace(
        "delay = \"1us\"",
        "delay = \"1us\"\nerror_rate_per_link = 0.01",
    ) + "\n[transport]\nkind = \"irn\"\n";
    fs::write(dir.join("cfg.toml"), &cfg).unwrap();
    for out in ["a", "b"] {
        let o = rdmasim(&dir, &["run", "cfg.toml", "--out", out, "-q"]);
        assert_eq!(o.status.code(), Some(0), "stderr: {}", text(&o.stderr));
    }
    let rows = csv_rows(&dir.join("a/flows.csv"));
    assert_eq!(rows, csv_rows(&dir.join("b/flows.csv")));
    let summary = fs::read_to_string(dir.join("a/summary.json")).unwrap();
    let number = |key: &str| -> u64 {
        let at = summary.find(&format!("\"{key}\": ")).expect(key) + key.len() + 4;
        let digits: String = summary[at..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().unwrap()
    };
    assert!(summary.contains("\"transport\": \"irn\""), "{summary}");
    assert!(summary.contains("\"pfc\": \"off\""), "{summary}");
    assert_eq!(number("unfinished"), 0);
    assert!(number("corrupted") > 0);
    let retx = number("retransmitted_bytes");
    assert!(retx > 0);
    // The summary's total is the sum of flows.csv's column.
    let col: u64 = rows
        .iter()
        .map(|r| r.split(',').nth(12).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(col, retx);
    fs::remove_dir_all(&dir).unwrap();
}

/// A timeout shorter than the flows' base round trip (2 × 2 µs of
/// propagation on the star): the run goes on, says why it will time out
/// before it starts (ahead of the summary, in one stream of stdout and
/// stderr together), and keeps the note in summary.json.
#[test]
fn a_timeout_below_the_base_round_trip_is_noted() {
    let dir = workdir("short-rto");
    let cfg = SMALL.to_string() + "\n[nic]\nrto = \"3us\"\n";
    fs::write(dir.join("cfg.toml"), &cfg).unwrap();
    // Both streams into one file description, so the file keeps the order
    // of the writes.
    let both = fs::File::create(dir.join("both.txt")).unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_rdmasim"))
        .args(["run", "cfg.toml", "--out", "a"])
        .current_dir(&dir)
        .stdout(both.try_clone().unwrap())
        .stderr(both)
        .status()
        .unwrap();
    let out = fs::read_to_string(dir.join("both.txt")).unwrap();
    assert_eq!(status.code(), Some(0), "{out}");
    let note = "[nic] rto = 3us is not longer than the base round trip of";
    let at_note = out.find(&format!("rdmasim: note: {note}"));
    let at_summary = out.find("small: seed");
    assert!(
        at_note.is_some() && at_summary.is_some() && at_note < at_summary,
        "the note comes before the summary:\n{out}"
    );
    assert_eq!(out.matches(note).count(), 1, "printed once:\n{out}");
    let summary = fs::read_to_string(dir.join("a/summary.json")).unwrap();
    assert!(
        summary.contains("\"notes\": [") && summary.contains(note),
        "{summary}"
    );
    // The default 1 ms waits for every flow: no note of it but that it is
    // the default.
    fs::write(dir.join("ok.toml"), SMALL).unwrap();
    let o = rdmasim(&dir, &["run", "ok.toml", "--out", "b"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", text(&o.stderr));
    assert!(!text(&o.stderr).contains(note), "{}", text(&o.stderr));
    let summary = fs::read_to_string(dir.join("b/summary.json")).unwrap();
    assert!(!summary.contains(note), "{summary}");
    assert!(
        summary.contains("retransmission timeout is on at its default"),
        "{summary}"
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn zero_rate() {
    let cfg = SMALL.replace("rate = \"100Gbps\"", "rate = \"0Gbps\"");
    let line = line_of(&cfg, "rate =");
    expect_input_error("zero-rate", &cfg, &[], ("cfg.toml", line, "topology.rate"));
}

#[test]
fn negative_rate() {
    let cfg = SMALL.replace(
        "kind = \"star\"\nhosts = 4\nrate = \"100Gbps\"",
        "kind = \"dumbbell\"\nleft = 2\nright = 2\nhost_rate = \"-100Gbps\"",
    );
    let line = line_of(&cfg, "host_rate");
    expect_input_error(
        "negative-rate",
        &cfg,
        &[],
        ("cfg.toml", line, "topology.host_rate"),
    );
}

fn file_topology_config() -> String {
    SMALL.replace(
        "kind = \"star\"\nhosts = 4\nrate = \"100Gbps\"\ndelay = \"1us\"",
        "kind = \"file\"\npath = \"topo.txt\"",
    )
}

#[test]
fn peer_topology_with_a_bad_line() {
    let topo = STAR_TOPO.replace("1 3 100Gbps 1000ns 0", "1 3 fastGbps 1000ns 0");
    expect_input_error(
        "bad-topo-line",
        &file_topology_config(),
        &[("topo.txt", &topo)],
        ("topo.txt", 4, "rate"),
    );
}

#[test]
fn disconnected_peer_topology() {
    let topo = "6 2 4\n4 5\n0 4 100Gbps 1000ns 0\n1 4 100Gbps 1000ns 0\n\
                2 5 100Gbps 1000ns 0\n3 5 100Gbps 1000ns 0\n";
    expect_input_error(
        "disconnected",
        &file_topology_config(),
        &[("topo.txt", topo)],
        ("topo.txt", 5, "src"),
    );
}

#[test]
fn peer_flow_to_a_switch() {
    let cfg = file_topology_config().replace(
        "kind = \"poisson\"\nload = 0.5\ncdf = \"fb_hadoop\"\nduration = \"200us\"",
        "kind = \"file\"\npath = \"flows.txt\"",
    );
    let flows = "2\n0 1 3 100 1000 0.000001\n0 3 3 100 1000 0.000002\n";
    expect_input_error(
        "flow-to-switch",
        &cfg,
        &[("topo.txt", STAR_TOPO), ("flows.txt", flows)],
        ("flows.txt", 3, "dst"),
    );
}

#[test]
fn flow_to_a_node_that_does_not_exist() {
    let cfg = SMALL.replace(
        "kind = \"poisson\"\nload = 0.5\ncdf = \"fb_hadoop\"\nduration = \"200us\"",
        "kind = \"incast\"\nsenders = [0, 1]\nreceiver = 99\nsize = \"10KB\"",
    );
    let line = line_of(&cfg, "receiver");
    expect_input_error(
        "no-such-node",
        &cfg,
        &[],
        ("cfg.toml", line, "workload.receiver"),
    );
}

#[test]
fn cdf_that_is_not_monotone() {
    let cfg = SMALL.replace("cdf = \"fb_hadoop\"", "cdf = \"sizes.cdf\"");
    let cdf = "# size cumulative\n1000 0.2\n500 0.5\n2000 1.0\n";
    expect_input_error(
        "cdf-not-monotone",
        &cfg,
        &[("sizes.cdf", cdf)],
        ("sizes.cdf", 3, "size"),
    );
}

#[test]
fn cdf_of_empty_flows_names_the_cdf_key() {
    let cfg = SMALL.replace("cdf = \"fb_hadoop\"", "cdf = \"sizes.cdf\"");
    let line = line_of(&cfg, "cdf = ");
    expect_input_error(
        "cdf-mean-0",
        &cfg,
        &[("sizes.cdf", "0 0\n0 1\n")],
        ("cfg.toml", line, "workload.cdf"),
    );
}

// ---- The peer's config.txt (`rdmasim hpcc`) ----

/// A 4-host star in the peer's formats: a 3-to-1 incast without ECN, so
/// DCQCN never slows down and PFC has to act. Each line of `keys` takes
/// the place of the line of the same key, or is appended if there is none
/// (a key on two lines is refused).
fn peer_files(dir: &Path, keys: &str) {
    fs::write(
        dir.join("topo.txt"),
        "5 1 4\n4\n0 4 100Gbps 1000ns 0\n1 4 100Gbps 1000ns 0\n2 4 100Gbps 1000ns 0\n3 4 100Gbps 1000ns 0\n",
    )
    .unwrap();
    fs::write(
        dir.join("flows.txt"),
        "3\n1 0 3 100 3000000 2.000000000\n2 0 3 100 3000000 2.000000000\n3 0 3 100 20000 2.000001000\n",
    )
    .unwrap();
    let mut lines: Vec<String> = "ENABLE_QCN 0\nPACKET_PAYLOAD_SIZE 1000\nTOPOLOGY_FILE topo.txt\n\
         FLOW_FILE flows.txt\nFCT_OUTPUT_FILE out/fct.txt\nPFC_OUTPUT_FILE out/pfc.txt\n\
         SIMULATOR_STOP_TIME 2.5\nCC_MODE 1\nALPHA_RESUME_INTERVAL 1\nRATE_DECREASE_INTERVAL 4\n\
         RP_TIMER 300\nEWMA_GAIN 0.00390625\nRATE_AI 20Mb/s\nRATE_HAI 200Mb/s\nMIN_RATE 1000Mb/s\n\
         KMAX_MAP 1 100000000000 1600\nKMIN_MAP 1 100000000000 400\nPMAX_MAP 1 100000000000 0.2\n\
         BUFFER_SIZE 4\nACK_HIGH_PRIO 1"
        .lines()
        .map(str::to_string)
        .collect();
    let key = |l: &str| l.split_whitespace().next().unwrap_or("").to_string();
    for extra in keys.lines() {
        match lines.iter().position(|l| key(l) == key(extra)) {
            Some(i) => lines[i] = extra.to_string(),
            None => lines.push(extra.to_string()),
        }
    }
    fs::write(dir.join("config.txt"), lines.join("\n") + "\n").unwrap();
}

/// Run `rdmasim hpcc` on [`peer_files`] with `line` in it, expecting it
/// refused (exit 2): its stderr and the line number `line` has in
/// `config.txt`, so that a test can check that the error names it.
fn hpcc_refusal(dir: &Path, line: &str) -> (String, usize) {
    peer_files(dir, &format!("{line}\n"));
    let out = rdmasim(dir, &["hpcc", "config.txt", "--quiet"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{line}: {err}");
    let cfg = fs::read_to_string(dir.join("config.txt")).unwrap();
    let no = cfg.lines().position(|l| l == line).unwrap() + 1;
    (err, no)
}

/// A data frame larger than the whole switch buffer could never be
/// admitted: refused, at the MTU's line, in both config formats. An MTU
/// above a jumbo frame's runs, with a note on what it does to slowdowns,
/// and one below the headers' size with a note that headers dominate.
#[test]
fn mtus_beyond_the_buffer_are_refused_and_odd_ones_noted() {
    let cfg = SMALL.to_string() + "\n[nic]\nmtu = \"40MB\"\n";
    expect_input_error(
        "mtu-buffer",
        &cfg,
        &[],
        ("cfg.toml", line_of(&cfg, "mtu"), "nic.mtu"),
    );
    let dir = workdir("mtu-peer");
    // The peer files' buffer is 4 MB.
    let (err, line) = hpcc_refusal(&dir, "PACKET_PAYLOAD_SIZE 5000000");
    assert!(
        err.starts_with(&format!(
            "rdmasim: config.txt:{line}: PACKET_PAYLOAD_SIZE: "
        )),
        "{err}"
    );
    assert!(err.contains("larger than the whole switch buffer"), "{err}");
    fs::remove_dir_all(&dir).unwrap();

    let dir = workdir("mtu-jumbo");
    let note = "[nic] mtu = 16384 B is larger than an Ethernet jumbo frame";
    let small = "[nic] mtu = 40 B is less than the 48 B of headers";
    for (mtu, noted) in [("16KiB", true), ("9000B", false), ("40B", false)] {
        let cfg = SMALL.to_string() + &format!("\n[nic]\nmtu = \"{mtu}\"\n");
        fs::write(dir.join("cfg.toml"), &cfg).unwrap();
        let o = rdmasim(&dir, &["run", "cfg.toml", "--out", "a"]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{err}");
        assert_eq!(err.contains(note), noted, "mtu {mtu}: {err}");
        assert_eq!(err.contains("jumbo"), noted, "mtu {mtu}: {err}");
        assert_eq!(err.contains(small), mtu == "40B", "mtu {mtu}: {err}");
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// A buffer no larger than what its ports set aside (4 KiB reserve per
/// port and 3 × rate × delay of headroom: 166,384 B on the 4-host star)
/// leaves no shared pool: the run goes on, with a note.
#[test]
fn a_buffer_without_a_shared_pool_is_noted() {
    let dir = workdir("no-pool");
    for (size, noted) in [("100KB", true), ("166384B", true), ("166385B", false)] {
        let cfg = SMALL.to_string() + &format!("\n[buffer]\nsize = \"{size}\"\n");
        fs::write(dir.join("cfg.toml"), &cfg).unwrap();
        let o = rdmasim(&dir, &["run", "cfg.toml", "--out", "a", "-q"]);
        let err = text(&o.stderr);
        assert!(o.status.code() != Some(2), "{err}");
        assert_eq!(
            err.contains("that switch 4's ports set aside (reserves and headroom), so its shared pool is empty"),
            noted,
            "size {size}: {err}"
        );
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// A Poisson workload whose load of `host_rate` is more than a host's
/// link can send is refused at `host_rate` (here 0.5 × 400 Gb/s on
/// 100 Gb/s links); 0.5 × 150 Gb/s fits and runs.
#[test]
fn a_poisson_host_rate_beyond_the_links_is_refused() {
    let cfg = SMALL.replace("load = 0.5", "load = 0.5\nhost_rate = \"400Gbps\"");
    assert_ne!(cfg, SMALL);
    expect_input_error(
        "host-rate",
        &cfg,
        &[],
        ("cfg.toml", line_of(&cfg, "host_rate"), "workload.host_rate"),
    );
    let dir = workdir("host-rate-ok");
    let cfg = SMALL.replace("load = 0.5", "load = 0.5\nhost_rate = \"150Gbps\"");
    fs::write(dir.join("cfg.toml"), cfg).unwrap();
    let o = rdmasim(&dir, &["run", "cfg.toml", "--out", "a", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn peer_config_runs_and_writes_the_peer_files() {
    let dir = workdir("hpcc");
    peer_files(&dir, "");
    let out = rdmasim(&dir, &["hpcc", "config.txt", "--quiet"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert!(
        !text(&out.stderr).contains("warning"),
        "{}",
        text(&out.stderr)
    );
    let fct = fs::read_to_string(dir.join("out/fct.txt")).unwrap();
    let lines: Vec<Vec<&str>> = fct.lines().map(|l| l.split(' ').collect()).collect();
    assert_eq!(lines.len(), 3);
    // The short flow finishes first; its addresses are the peer's 11.x.y.1.
    assert_eq!(lines[0][0], "0b000301");
    assert_eq!(lines[0][1], "0b000001");
    assert_eq!(lines[0][2], "10000");
    assert_eq!(lines[0][4], "20000");
    assert_eq!(lines[0][5], "2000001000");
    // Ideal FCT (the peer's): 2 × 2 µs + 2 × 80 ns + 20960 B × 8 / 100 Gb/s.
    assert_eq!(lines[0][7], (4000 + 160 + 20_960 * 8 / 100).to_string());
    // With a 4 MB buffer and no ECN the incast pauses the senders.
    let pfc = fs::read_to_string(dir.join("out/pfc.txt")).unwrap();
    assert!(pfc.lines().count() >= 2, "{pfc}");
    for l in pfc.lines() {
        let f: Vec<&str> = l.split(' ').collect();
        assert_eq!(f.len(), 5, "{l}");
        assert_eq!(f[2], "0", "hosts receive the pauses: {l}");
        assert!(f[4] == "0" || f[4] == "1");
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// Keys of the peer's config that rdmasim does not model are listed in one
/// warning; a key the peer does not have either is not among them, but
/// gets a warning of its own (see `peer_config_typos_are_named_as_such`).
#[test]
fn peer_config_lists_unsupported_keys_in_one_warning() {
    let dir = workdir("hpcc-warn");
    peer_files(&dir, "ENABLE_TRACE 1\nNO_SUCH_KEY 3\n");
    let out = rdmasim(&dir, &["hpcc", "config.txt", "--quiet"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let err = text(&out.stderr);
    let warnings: Vec<&str> = err.lines().filter(|l| l.contains("warning")).collect();
    assert_eq!(warnings.len(), 2, "{err}");
    assert!(
        warnings[0].contains("does not model yet: ENABLE_TRACE 1")
            && !warnings[0].contains("NO_SUCH_KEY"),
        "{err}"
    );
    assert!(warnings[1].contains(": NO_SUCH_KEY: "), "{err}");
    fs::remove_dir_all(&dir).unwrap();
}

/// A flow file with lines past its count: `rdmasim run` (`[workload] kind
/// = "file"`) runs the counted flows and says so before the run in the
/// words `rdmasim hpcc` warns with; a sweep of two runs of it says so once.
#[test]
fn flow_lines_past_the_count_are_told_in_every_format() {
    let dir = workdir("flow-count");
    peer_files(&dir, "");
    fs::write(
        dir.join("flows.txt"),
        "1\n1 0 3 100 20000 2.000000000\n2 0 3 100 20000 2.000000000\n",
    )
    .unwrap();
    let out = rdmasim(&dir, &["hpcc", "config.txt", "--quiet"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stderr: {err}");
    let warning = err
        .lines()
        .find_map(|l| l.strip_prefix("rdmasim: warning: "))
        .unwrap_or_else(|| panic!("no warning: {err}"));
    assert!(
        warning.starts_with("flows.txt:1: flow_count: the header says 1 flow, but line 3"),
        "{warning}"
    );

    fs::write(
        dir.join("cfg.toml"),
        "[run]\nname = \"counted\"\n\n[topology]\nkind = \"file\"\npath = \"topo.txt\"\n\n\
         [workload]\nkind = \"file\"\npath = \"flows.txt\"\n",
    )
    .unwrap();
    // Both streams into one file description, so the file keeps the order
    // of the writes.
    let both = fs::File::create(dir.join("both.txt")).unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_rdmasim"))
        .args(["run", "cfg.toml", "--out", "a"])
        .current_dir(&dir)
        .stdout(both.try_clone().unwrap())
        .stderr(both)
        .status()
        .unwrap();
    let out = fs::read_to_string(dir.join("both.txt")).unwrap();
    assert_eq!(status.code(), Some(0), "{out}");
    let note = format!("rdmasim: note: {warning}");
    let at_note = out.find(&note);
    let at_summary = out.find("counted: seed");
    assert!(
        at_note.is_some() && at_summary.is_some() && at_note < at_summary,
        "the note comes before the summary:\n{out}"
    );
    assert_eq!(out.matches(warning).count(), 1, "printed once:\n{out}");
    assert!(out.contains("flows: 1/1 finished"), "{out}");
    let summary = fs::read_to_string(dir.join("a/summary.json")).unwrap();
    assert!(summary.contains(warning), "{summary}");

    fs::write(
        dir.join("sweep.toml"),
        "base = \"cfg.toml\"\nname = \"counted\"\n\n[axes]\n\"run.seed\" = [1, 2]\n",
    )
    .unwrap();
    let o = rdmasim(&dir, &["sweep", "sweep.toml", "--out", "s"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "stderr: {err}");
    assert_eq!(err.matches(warning).count(), 1, "printed once:\n{err}");
    assert!(err.contains(&note), "{err}");
    // Each run still records it.
    for seed in ["1", "2"] {
        let summary =
            fs::read_to_string(dir.join(format!("s/run.seed={seed}/summary.json"))).unwrap();
        assert!(summary.contains(warning), "{summary}");
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn peer_config_bad_value_names_file_line_and_key() {
    let dir = workdir("hpcc-bad");
    // A map count so large that `1 + 2 * n` would wrap.
    for (bad, key) in [
        ("RATE_AI fast", "RATE_AI"),
        ("KMAX_MAP 9223372036854775808", "KMAX_MAP"),
        ("PMAX_MAP 1 100000000000 nan", "PMAX_MAP"),
    ] {
        let (err, line) = hpcc_refusal(&dir, bad);
        assert!(err.contains(&format!("config.txt:{line}: {key}:")), "{err}");
        assert!(!dir.join("out/fct.txt").exists());
    }
    fs::remove_dir_all(&dir).unwrap();

    let dir = workdir("hpcc-badflow");
    peer_files(&dir, "");
    fs::write(dir.join("flows.txt"), "1\n1 4 3 100 1000 2.0\n").unwrap();
    let out = rdmasim(&dir, &["hpcc", "config.txt", "--quiet"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("flows.txt:2: dst:"),
        "{}",
        text(&out.stderr)
    );
    assert!(!dir.join("out/fct.txt").exists());
    fs::remove_dir_all(&dir).unwrap();

    // A file the config names that is not there: the config's line.
    let dir = workdir("hpcc-nofile");
    peer_files(&dir, "");
    fs::remove_file(dir.join("flows.txt")).unwrap();
    let out = rdmasim(&dir, &["hpcc", "config.txt", "--quiet"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).starts_with("rdmasim: config.txt:4: FLOW_FILE: cannot read flows.txt: "),
        "{}",
        text(&out.stderr)
    );
    fs::remove_dir_all(&dir).unwrap();

    // A class beyond the switches' eight queues.
    let dir = workdir("hpcc-badclass");
    peer_files(&dir, "");
    fs::write(dir.join("flows.txt"), "1\n0 3 9 100 1000 2.0\n").unwrap();
    let out = rdmasim(&dir, &["hpcc", "config.txt", "--quiet"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("flows.txt:2: pg: priority class 9 does not exist"),
        "{}",
        text(&out.stderr)
    );
    assert!(!dir.join("out/fct.txt").exists());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn peer_config_times_beyond_the_clock_are_input_errors() {
    // Each would overflow the picosecond clock (a run that hung or went
    // back in time); each is one line naming the key, and exit code 2.
    let dir = workdir("hpcc-big");
    for (line, key) in [
        ("RP_TIMER 18446744073709551615", "RP_TIMER"),
        ("SIMULATOR_STOP_TIME 1e10", "SIMULATOR_STOP_TIME"),
        ("QLEN_MON_START 1e30", "QLEN_MON_START"),
        ("LINK_DOWN 18446744073709 0 4", "LINK_DOWN"),
    ] {
        let (err, no) = hpcc_refusal(&dir, line);
        assert!(
            err.starts_with(&format!("rdmasim: config.txt:{no}: {key}: "))
                && err.contains("1000000s"),
            "{line}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    // A flow that starts beyond it, in the flow file.
    peer_files(&dir, "");
    fs::write(dir.join("flows.txt"), "1\n0 3 3 100 1000 1e7\n").unwrap();
    let out = rdmasim(&dir, &["hpcc", "config.txt", "--quiet"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("flows.txt:2: start: start time '1e7' is too large"),
        "{}",
        text(&out.stderr)
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn peer_config_writes_the_queue_length_monitor_file() {
    let dir = workdir("hpcc-qlen");
    peer_files(
        &dir,
        "QLEN_MON_FILE out/qlen.txt\nQLEN_MON_START 2000000000\nQLEN_MON_END 2100000000\n",
    );
    let out = rdmasim(&dir, &["hpcc", "config.txt", "--quiet"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let q = fs::read_to_string(dir.join("out/qlen.txt")).unwrap();
    let blocks: Vec<&str> = q.split("time: ").filter(|b| !b.is_empty()).collect();
    // Dumps at every 100 ms sample time in the window: 2.0 s and 2.1 s.
    assert_eq!(blocks.len(), 2, "{q}");
    assert!(blocks[1].starts_with("2100000000\n"), "{q}");
    let lines: Vec<&str> = blocks[1].lines().skip(1).collect();
    // One line per switch port (the star's switch is node 4, ports 1-4).
    assert_eq!(lines.len(), 4, "{q}");
    for l in &lines {
        let f: Vec<u64> = l.split(' ').map(|x| x.parse().unwrap()).collect();
        assert_eq!(f[0], 4);
        // Every 100 ns from 2.0 s to 2.1 s inclusive: 1,000,001 samples.
        assert_eq!(f[2..].iter().sum::<u64>(), 1_000_001, "{l}");
    }
    // The incast queued at the receiver's port (if_index 1) early on.
    let receiver: Vec<u64> = lines[0].split(' ').map(|x| x.parse().unwrap()).collect();
    assert!(receiver.len() > 3, "{}", lines[0]);
    fs::remove_dir_all(&dir).unwrap();
}

/// A stop time before the first flow runs nothing: refused at the stop
/// key's line in both config formats, not run into a report of every flow
/// unfinished. A stop that cuts off only later flows still runs.
#[test]
fn a_stop_before_the_first_flow_is_an_input_error() {
    let cfg = SMALL
        .replace("name = \"small\"", "name = \"small\"\nstop = \"3ms\"")
        .replace(
            "duration = \"200us\"",
            "duration = \"200us\"\nstart = \"5ms\"",
        );
    expect_input_error(
        "stop-first",
        &cfg,
        &[],
        ("cfg.toml", line_of(&cfg, "stop"), "run.stop"),
    );

    let dir = workdir("hpcc-stop-first");
    // The peer files' flows start at 2.0 s and 2.000001 s.
    let (err, line) = hpcc_refusal(&dir, "SIMULATOR_STOP_TIME 1.0");
    assert_eq!(
        err,
        format!(
            "rdmasim: config.txt:{line}: SIMULATOR_STOP_TIME: 1.0 s is before the first flow \
             starts (2.000s, flows.txt:2), so no flow would run; set a later stop time\n"
        )
    );
    assert!(!dir.join("out/fct.txt").exists());
    // Between the first flows and the last: the run goes ahead.
    peer_files(&dir, "SIMULATOR_STOP_TIME 2.0000005\n");
    let out = rdmasim(&dir, &["hpcc", "config.txt", "--quiet"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("did not finish"), "{err}");
    fs::remove_dir_all(&dir).unwrap();
}

/// A flow file whose header counts fewer flows than it holds: the flows
/// past the count are not run, as the peer does not run them, but a
/// warning at the header's line says so.
#[test]
fn peer_flows_past_the_header_count_are_warned_about() {
    let dir = workdir("hpcc-flow-count");
    peer_files(&dir, "");
    let flows = fs::read_to_string(dir.join("flows.txt")).unwrap();
    fs::write(dir.join("flows.txt"), flows.replacen('3', "2", 1)).unwrap();
    let out = rdmasim(&dir, &["hpcc", "config.txt", "--quiet"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(
        err,
        "rdmasim: warning: flows.txt:1: flow_count: the header says 2 flows, but line 4 \
         follows them and is not read, as the peer reads only the number of flows the \
         header gives\n"
    );
    let fct = fs::read_to_string(dir.join("out/fct.txt")).unwrap();
    assert_eq!(fct.lines().count(), 2, "{fct}");
    fs::remove_dir_all(&dir).unwrap();
}

/// A key the peer does not have is a likely typo, not a setting rdmasim
/// does not model: each gets its own warning at its line, with the key
/// meant when one is close; a required key that is missing names the line
/// whose key looks like it misspelt.
#[test]
fn peer_config_typos_are_named_as_such() {
    let dir = workdir("hpcc-typo");
    peer_files(&dir, "RATE_AII 1\nNO_SUCH_KEY 3\n");
    let cfg = fs::read_to_string(dir.join("config.txt")).unwrap();
    let n = cfg.lines().count();
    let out = rdmasim(&dir, &["hpcc", "config.txt", "--quiet"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(
        err,
        format!(
            "rdmasim: warning: config.txt:{}: RATE_AII: not a key of the peer's config, \
             ignored; did you mean RATE_AI?\n\
             rdmasim: warning: config.txt:{n}: NO_SUCH_KEY: not a key of the peer's config, \
             ignored\n",
            n - 1
        )
    );
    assert!(!err.contains("does not model"), "{err}");

    peer_files(&dir, "");
    fs::write(
        dir.join("config.txt"),
        cfg.replace("CC_MODE 1", "CC_MDOE 1"),
    )
    .unwrap();
    let out = rdmasim(&dir, &["hpcc", "config.txt", "--quiet"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let line = line_of(&cfg, "CC_MODE");
    assert_eq!(
        err,
        format!(
            "rdmasim: config.txt:{line}: CC_MODE: missing (the peer requires it); \
             line {line} has CC_MDOE — a typo?\n"
        )
    );
    fs::remove_dir_all(&dir).unwrap();
}

/// Another command's file gives the same one-line error as before, ending
/// with the command that reads it; a config of the right kind gets no
/// such hint.
#[test]
fn another_commands_file_names_the_command_that_reads_it() {
    let dir = workdir("wrong-kind");
    peer_files(&dir, "");
    fs::write(dir.join("cfg.toml"), SMALL).unwrap();
    fs::write(
        dir.join("sweep.toml"),
        "base = \"cfg.toml\"\n[axes]\n\"workload.load\" = [0.3, 0.5]\n",
    )
    .unwrap();
    for (cmd, file, expect) in [
        (
            "run",
            "sweep.toml",
            "rdmasim: sweep.toml:1: base: unknown section; ",
        ),
        ("run", "config.txt", "rdmasim: config.txt:1: invalid TOML: "),
        ("hpcc", "cfg.toml", "rdmasim: cfg.toml: CC_MODE: missing"),
        (
            "hpcc",
            "sweep.toml",
            "rdmasim: sweep.toml: CC_MODE: missing",
        ),
    ] {
        let out = rdmasim(&dir, &[cmd, file, "--quiet"]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{cmd} {file}: {err}");
        assert_eq!(err.lines().count(), 1, "{cmd} {file}: {err}");
        let right = match file {
            "sweep.toml" => "a sweep file: run it with `rdmasim sweep sweep.toml`",
            "config.txt" => {
                "a config of the HPCC peer simulator: run it with `rdmasim hpcc config.txt`"
            }
            _ => "an rdmasim TOML config: run it with `rdmasim run cfg.toml`",
        };
        assert!(
            err.starts_with(expect) && err.ends_with(&format!("; this looks like {right}\n")),
            "{cmd} {file}: {err}"
        );
    }
    // The right command with a bad file: no hint to use another.
    fs::write(
        dir.join("cfg.toml"),
        SMALL.replace("load = 0.5", "load = 5"),
    )
    .unwrap();
    let out = rdmasim(&dir, &["run", "cfg.toml", "--quiet"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(!err.contains("looks like"), "{err}");
    fs::write(dir.join("config.txt"), "CC_MODE 1\n").unwrap();
    let out = rdmasim(&dir, &["hpcc", "config.txt", "--quiet"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(!err.contains("looks like"), "{err}");
    fs::remove_dir_all(&dir).unwrap();
}

/// A byte that is not UTF-8 (a Latin-1 `µ` from an old editor) is named at
/// its line and column, with the key that line sets, in rdmasim's config,
/// a sweep file and the peer's config alike.
#[test]
fn a_byte_that_is_not_utf8_is_named_at_its_line() {
    let dir = workdir("not-utf8");
    // `s` with each `µ` written as Latin-1's one byte, 0xb5.
    let with_byte = |s: &str| -> Vec<u8> {
        s.replace('µ', "\u{0}")
            .bytes()
            .map(|b| if b == 0 { 0xb5 } else { b })
            .collect()
    };
    let cfg = SMALL.replace("delay = \"1us\"", "delay = \"1µs\"");
    fs::write(dir.join("cfg.toml"), with_byte(&cfg)).unwrap();
    fs::write(
        dir.join("sweep.toml"),
        with_byte("base = \"cfg.toml\"\n[axes]\n\"topology.delay\" = [\"1µs\"]\n"),
    )
    .unwrap();
    peer_files(&dir, "");
    let peer = fs::read_to_string(dir.join("config.txt")).unwrap();
    fs::write(
        dir.join("config.txt"),
        with_byte(&peer.replace("RP_TIMER 300", "RP_TIMER 300µ")),
    )
    .unwrap();
    for (cmd, file, line, field, column) in [
        (
            "run",
            "cfg.toml",
            line_of(&cfg, "delay"),
            "topology.delay",
            11,
        ),
        ("sweep", "sweep.toml", 3, "axes.topology.delay", 23),
        (
            "hpcc",
            "config.txt",
            line_of(&peer, "RP_TIMER"),
            "RP_TIMER",
            13,
        ),
    ] {
        let out = rdmasim(&dir, &[cmd, file, "--quiet"]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{cmd}: {err}");
        assert_eq!(
            err,
            format!(
                "rdmasim: {file}:{line}: {field}: not UTF-8 text: byte 0xb5 at column \
                 {column}; save the file as UTF-8\n"
            )
        );
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// A key of the peer's config on two lines is refused at the second,
/// naming the first, where the peer would silently take the last; a word
/// that is not a key (a `#` comment) sets nothing and is only warned about
/// at each line.
#[test]
fn a_peer_config_key_given_twice_is_refused() {
    let dir = workdir("hpcc-twice");
    for line in ["CC_MODE 3", "KMAX_MAP 1 100000000000 1700"] {
        peer_files(&dir, "");
        let cfg = fs::read_to_string(dir.join("config.txt")).unwrap();
        let key = line.split(' ').next().unwrap();
        let first = line_of(&cfg, &format!("{key} "));
        fs::write(dir.join("config.txt"), format!("{cfg}{line}\n")).unwrap();
        let out = rdmasim(&dir, &["hpcc", "config.txt", "--quiet"]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert_eq!(
            err,
            format!(
                "rdmasim: config.txt:{}: {key}: given twice, first at line {first}; keep one \
                 of the two lines\n",
                cfg.lines().count() + 1
            )
        );
    }
    peer_files(&dir, "");
    let cfg = fs::read_to_string(dir.join("config.txt")).unwrap();
    fs::write(
        dir.join("config.txt"),
        format!("# a note\n{cfg}# another\n"),
    )
    .unwrap();
    let out = rdmasim(&dir, &["hpcc", "config.txt", "--quiet"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(
        err.matches("#: not a key of the peer's config").count(),
        2,
        "{err}"
    );
    fs::remove_dir_all(&dir).unwrap();
}

/// `--version` names the commit built, so that a result can be traced to
/// its source: the repository's HEAD where git can tell it, `unknown`
/// where it cannot.
#[test]
fn the_version_names_the_commit() {
    let dir = workdir("version");
    let head = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| text(&o.stdout).trim().to_string());
    let commit = head.as_deref().unwrap_or("unknown");
    let want = format!("{} (commit {commit})\n", env!("CARGO_PKG_VERSION"));
    for args in [&["--version"][..], &["run", "--version"][..]] {
        let out = rdmasim(&dir, args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let said = text(&out.stdout);
        assert!(
            said.starts_with("rdmasim") && said.ends_with(&format!(" {want}")),
            "{args:?}: {said}"
        );
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// `rdmasim check` builds a config's network and flows and says what a
/// run would run, running nothing and writing nothing; bad input is the
/// same one-line error as `run` gives, exit code 2.
#[test]
fn check_prints_what_a_run_would_run_and_runs_nothing() {
    let dir = workdir("check");
    let cfg = SMALL.replace("name = \"small\"", "name = \"small\"\nstop = \"20us\"");
    fs::write(dir.join("cfg.toml"), &cfg).unwrap();
    let o = rdmasim(&dir, &["check", "cfg.toml"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    // Its one note: the default retransmission timeout it relies on.
    assert_eq!(text(&o.stderr).lines().count(), 1, "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).starts_with("rdmasim: note: go-back-N's retransmission timeout"),
        "{}",
        text(&o.stderr)
    );
    let said = text(&o.stdout);
    let lines: Vec<&str> = said.lines().collect();
    assert_eq!(lines[0], "cfg.toml: small, ready to run (nothing was run)");
    assert_eq!(lines[1], "topology: 4 hosts, 1 switch, 4 links");
    // The flows a run of the same config has, and those past the stop.
    let o = rdmasim(&dir, &["run", "cfg.toml", "--out", "out", "-q"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let rows = csv_rows(&dir.join("out/flows.csv"));
    let starts: Vec<u64> = rows
        .iter()
        .map(|r| r.split(',').nth(4).unwrap().parse().unwrap())
        .collect();
    let after = starts.iter().filter(|&&s| s > 20_000).count();
    assert!(
        lines[2].starts_with(&format!("flows: {}, starting from ", rows.len()))
            && lines[2].ends_with(&format!(
                " ({after} start after the stop time: a run would never start them)"
            )),
        "{said}"
    );
    assert_eq!(
        lines[3],
        "schemes: cc dcqcn, pfc until_resume, transport go_back_n, ecn on"
    );
    assert_eq!(lines[4], "seed 1, stop 20.0us");
    assert_eq!(lines.len(), 5, "{said}");
    fs::remove_dir_all(dir.join("out")).unwrap();
    // Nothing written: no run directory, no runs/.
    let o = rdmasim(&dir, &["check", "cfg.toml"]);
    assert_eq!(o.status.code(), Some(0));
    let left: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, vec!["cfg.toml".to_string()]);

    let bad = SMALL.replace("hosts = 4", "hosts = 0");
    fs::write(dir.join("bad.toml"), &bad).unwrap();
    let o = rdmasim(&dir, &["check", "bad.toml"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        text(&o.stderr),
        format!(
            "rdmasim: bad.toml:{}: topology.hosts: must be at least 1\n",
            line_of(&bad, "hosts")
        )
    );
    assert!(o.stdout.is_empty(), "{}", text(&o.stdout));
    fs::remove_dir_all(&dir).unwrap();
}

/// Malformed BFC and FlowSail settings: one error at the key, exit code 2.
#[test]
fn malformed_bfc_and_flowsail_settings() {
    for (i, (fc, key, value)) in [
        ("flowsail", "flowsail_queues", "1"),
        ("flowsail", "flowsail_queues", "129"),
        ("flowsail", "flowsail_ql", "0.01"),
        ("bfc", "bfc_queues", "1"),
        ("bfc", "bfc_threshold", "0.01"),
    ]
    .into_iter()
    .enumerate()
    {
        let cfg = format!(
            "{SMALL}\n[ports.fabric]\nfc = \"{fc}\"\n{key} = {value}\n\n[ports.hosts]\nfc = \"{fc}\"\n"
        );
        let line = line_of(&cfg, key);
        expect_input_error(
            &format!("per-flow-{i}"),
            &cfg,
            &[],
            ("cfg.toml", line, &format!("ports.fabric.{key}")),
        );
    }
}

/// A run that relies on the default of no congestion control, or on
/// go-back-N's default retransmission timeout (which the peer does not
/// have), says so before it starts, in `run` and in `check`; one that
/// sets them, or runs IRN (its own timeouts), does not.
#[test]
fn defaults_that_change_what_a_run_measures_are_noted() {
    let dir = workdir("default-notes");
    let base = SMALL
        .replace("[cc]\nkind = \"dcqcn\"\n", "")
        .replace("duration = \"200us\"", "duration = \"20us\"");
    let cc = "rdmasim: note: no congestion control: the config sets no [cc] kind, whose \
              default is \"none\" (every QP sends at line rate); set kind = \"none\" to say \
              so, or name a scheme\n";
    let rto = "rdmasim: note: go-back-N's retransmission timeout is on at its default of 1ms \
               ([nic] rto; the peer has none, and recovers a loss by NACK only); set rto = \
               \"off\" to run as the peer does, or set it to say so\n";
    for (extra, want) in [
        ("", format!("{cc}{rto}")),
        ("[cc]\nkind = \"none\"\n", rto.to_string()),
        ("[nic]\nrto = \"1ms\"\n", cc.to_string()),
        (
            "[cc]\nkind = \"none\"\n[nic]\nrto = \"off\"\n",
            String::new(),
        ),
        (
            "[cc]\nkind = \"none\"\n[transport]\nkind = \"irn\"\n",
            String::new(),
        ),
    ] {
        fs::write(dir.join("cfg.toml"), format!("{base}{extra}")).unwrap();
        let o = rdmasim(&dir, &["run", "cfg.toml", "--out", "out", "-q"]);
        assert_eq!(o.status.code(), Some(0), "{extra}: {}", text(&o.stderr));
        assert_eq!(text(&o.stderr), want, "{extra}");
        // The same notes, first, in summary.json's notes.
        let summary = fs::read_to_string(dir.join("out/summary.json")).unwrap();
        let noted = |s: &str| summary.contains(s);
        assert_eq!(
            noted("no congestion control"),
            want.contains("no congestion control"),
            "{extra}: {summary}"
        );
        assert_eq!(
            noted("retransmission timeout is on at its default"),
            want.contains("retransmission timeout is on at its default"),
            "{extra}: {summary}"
        );
        let o = rdmasim(&dir, &["check", "cfg.toml"]);
        assert_eq!(text(&o.stderr), want, "check, {extra}");
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// `rdmasim completions SHELL` prints a completion script that names the
/// subcommands and their options; bash's, sourced, completes them.
#[test]
fn completions_for_each_shell() {
    let dir = workdir("completions");
    for shell in ["bash", "zsh", "fish"] {
        let o = rdmasim(&dir, &["completions", shell]);
        assert_eq!(o.status.code(), Some(0), "{shell}: {}", text(&o.stderr));
        let script = text(&o.stdout);
        for word in ["hpcc", "sweep", "analyze", "completions", "timeseries"] {
            assert!(script.contains(word), "{shell}: no {word}");
        }
    }
    let o = rdmasim(&dir, &["completions", "tcsh"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("possible values: bash"),
        "{}",
        text(&o.stderr)
    );
    // Where bash is installed: what the script completes.
    let o = rdmasim(&dir, &["completions", "bash"]);
    fs::write(dir.join("rdmasim.bash"), &o.stdout).unwrap();
    let complete = |words: &str, cword: usize| {
        let script = format!(
            "source ./rdmasim.bash; COMP_WORDS=({words}); COMP_CWORD={cword}; \
             _rdmasim rdmasim \"${{COMP_WORDS[$COMP_CWORD]}}\" \"${{COMP_WORDS[$COMP_CWORD-1]}}\"; \
             echo \"${{COMPREPLY[@]}}\""
        );
        Command::new("bash")
            .args(["-c", &script])
            .current_dir(&dir)
            .output()
            .ok()
            .map(|o| text(&o.stdout).trim().to_string())
    };
    if let Some(said) = complete("rdmasim hp", 1) {
        assert_eq!(said, "hpcc");
        assert_eq!(
            complete("rdmasim hpcc --ti", 2).as_deref(),
            Some("--timeseries")
        );
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// Building a large fabric (here a k = 32 fat tree, 8,192 hosts and 1,280
/// switches) says so before it starts and how long it took, where a
/// k = 64 tree used to leave a run silent for most of a minute; `-q`
/// keeps a run quiet, and a small fabric says nothing.
#[test]
fn building_a_large_fabric_says_so() {
    let dir = workdir("large-fabric");
    let cfg =
        "[run]\nname = \"large\"\nstop = \"5us\"\n\n[topology]\nkind = \"fat_tree\"\nk = 32\n\n\
               [workload]\nkind = \"incast\"\nsenders = [0, 1]\nreceiver = 2\nsize = \"1KB\"\n\n\
               [cc]\nkind = \"none\"\n[nic]\nrto = \"off\"\n";
    fs::write(dir.join("large.toml"), cfg).unwrap();
    let o = rdmasim(&dir, &["check", "large.toml"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert!(
        err.contains("rdmasim: building the network: 8192 hosts, 1280 switches"),
        "{err}"
    );
    assert!(err.contains("rdmasim: network built in "), "{err}");
    let o = rdmasim(&dir, &["run", "large.toml", "--out", "out", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(!text(&o.stderr).contains("building"), "{}", text(&o.stderr));
    let small = cfg.replace("k = 32", "k = 4");
    fs::write(dir.join("small.toml"), small).unwrap();
    let o = rdmasim(&dir, &["check", "small.toml"]);
    assert!(!text(&o.stderr).contains("building"), "{}", text(&o.stderr));
    fs::remove_dir_all(&dir).unwrap();
}
