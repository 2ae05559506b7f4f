//! The peer's configs as first-class inputs: `rdmasim hpcc --out` writes a
//! complete run directory, start times are read as the peer reads them,
//! and `rdmasim convert` turns a peer config into rdmasim's TOML. Each
//! test works in its own directory under the system temp dir, on a small
//! peer-format config of its own.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

mod common;
use common::{rdmasim, text};

/// A fresh directory for one test.
fn workdir(test: &str) -> PathBuf {
    common::workdir("peer", test)
}

fn ok(out: &Output) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout: {}\nstderr: {}",
        text(&out.stdout),
        text(&out.stderr)
    );
}

/// A peer config in the shape of the peer's shipped DCQCN config
/// (`ws30_5ms_dcqcn.cfg`: the same keys, the same values but the stop
/// time and buffer), on a two-switch fabric of six hosts, with flows
/// whose start times are not exact doubles (`2.000000149`), an incast
/// that makes PFC act, and outputs under `out/`.
fn peer_fixture(dir: &Path) {
    // Hosts 0-5, switches 6 and 7; hosts 0-2 on 6, 3-5 on 7.
    fs::write(
        dir.join("topo.txt"),
        "8 2 7\n6 7\n0 6 100Gbps 1000ns 0\n1 6 100Gbps 1000ns 0\n2 6 100Gbps 1000ns 0\n\
         3 7 100Gbps 1000ns 0\n4 7 100Gbps 1000ns 0\n5 7 100Gbps 1000ns 0\n\
         6 7 100Gbps 1000ns 0\n",
    )
    .unwrap();
    fs::write(
        dir.join("flows.txt"),
        "7\n0 3 3 100 400000 2.000000149\n1 3 3 100 400000 2.000000149\n\
         2 3 3 100 400000 2.000000150\n4 3 3 100 400000 2.000000962\n\
         5 0 3 100 1434 2.000002612\n3 1 3 100 71521 2.000003886\n\
         0 5 3 100 2247900 2.000004819\n",
    )
    .unwrap();
    fs::write(
        dir.join("peer.cfg"),
        "ENABLE_QCN 1\nUSE_DYNAMIC_PFC_THRESHOLD 1\n\nPACKET_PAYLOAD_SIZE 1000\n\n\
         TOPOLOGY_FILE topo.txt\nFLOW_FILE flows.txt\nTRACE_FILE trace_none.txt\n\
         TRACE_OUTPUT_FILE out/mix.tr\nFCT_OUTPUT_FILE out/fct.txt\n\
         PFC_OUTPUT_FILE out/pfc.txt\n\nSIMULATOR_STOP_TIME 2.01\n\nCC_MODE 1\n\
         ALPHA_RESUME_INTERVAL 1\nRATE_DECREASE_INTERVAL 4\nCLAMP_TARGET_RATE 0\n\
         RP_TIMER 300\nEWMA_GAIN 0.00390625\nFAST_RECOVERY_TIMES 1\nRATE_AI 20Mb/s\n\
         RATE_HAI 200Mb/s\nMIN_RATE 1000Mb/s\nDCTCP_RATE_AI 1000Mb/s\n\n\
         ERROR_RATE_PER_LINK 0.0000\nL2_CHUNK_SIZE 4000\nL2_ACK_INTERVAL 1\n\
         L2_BACK_TO_ZERO 0\n\nHAS_WIN 0\nGLOBAL_T 1\nVAR_WIN 0\nFAST_REACT 0\n\
         U_TARGET 0.95\nMI_THRESH 0\nINT_MULTI 1\nMULTI_RATE 0\nSAMPLE_FEEDBACK 0\n\
         PINT_LOG_BASE 1.01\nPINT_PROB 1.0\n\nRATE_BOUND 1\n\nACK_HIGH_PRIO 1\n\n\
         LINK_DOWN 0 0 0\n\nENABLE_TRACE 0\n\n\
         KMAX_MAP 2 100000000000 1600 400000000000 6400\n\
         KMIN_MAP 2 100000000000 400 400000000000 1600\n\
         PMAX_MAP 2 100000000000 0.20 400000000000 0.20\nBUFFER_SIZE 1\n\
         QLEN_MON_FILE out/qlen.txt\nQLEN_MON_START 2000000000\nQLEN_MON_END 2000100000\n",
    )
    .unwrap();
    fs::write(dir.join("trace_none.txt"), "0\n").unwrap();
    fs::create_dir_all(dir.join("out")).unwrap();
}

/// The start column (the sixth) of each line of a `fct.txt`.
fn starts(fct: &str) -> Vec<u64> {
    fct.lines()
        .map(|l| l.split(' ').nth(5).unwrap().parse().unwrap())
        .collect()
}

/// `rdmasim hpcc` reads a start time through a double, as the peer does:
/// `2.000000149` is 2,000,000,148 ns in its `fct.txt` (and `2.000000150`,
/// whose double is just below it, 2,000,000,149); the TOML path
/// keeps the decimals as written unless told to read them as the peer.
#[test]
fn start_times_are_read_as_the_peer_reads_them() {
    let dir = workdir("starts");
    peer_fixture(&dir);
    ok(&rdmasim(&dir, &["hpcc", "peer.cfg", "-q"]));
    let mut s = starts(&fs::read_to_string(dir.join("out/fct.txt")).unwrap());
    s.sort_unstable();
    assert_eq!(
        s,
        [
            2_000_000_148,
            2_000_000_148,
            2_000_000_149,
            2_000_000_962,
            2_000_002_611,
            2_000_003_886,
            2_000_004_818
        ]
    );
    // A TOML config of the same flow file keeps the decimals...
    let toml = "[topology]\nkind = \"file\"\npath = \"topo.txt\"\n\
                [workload]\nkind = \"file\"\npath = \"flows.txt\"\n";
    fs::write(dir.join("exact.toml"), toml).unwrap();
    ok(&rdmasim(
        &dir,
        &["run", "exact.toml", "--out", "exact", "-q"],
    ));
    let s = starts(&fs::read_to_string(dir.join("exact/fct.txt")).unwrap());
    assert!(
        s.contains(&2_000_000_150) && !s.contains(&2_000_000_148),
        "{s:?}"
    );
    // ...unless it asks for the peer's reading.
    fs::write(
        dir.join("as_peer.toml"),
        format!("{toml}start_times = \"as_peer\"\n"),
    )
    .unwrap();
    ok(&rdmasim(
        &dir,
        &["run", "as_peer.toml", "--out", "as_peer", "-q"],
    ));
    let s = starts(&fs::read_to_string(dir.join("as_peer/fct.txt")).unwrap());
    assert!(
        s.contains(&2_000_000_148) && !s.contains(&2_000_000_150),
        "{s:?}"
    );
    fs::write(
        dir.join("bad.toml"),
        format!("{toml}start_times = \"double\"\n"),
    )
    .unwrap();
    let out = rdmasim(&dir, &["run", "bad.toml", "-q"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr).trim(),
        "rdmasim: bad.toml:7: workload.start_times: unknown value \"double\"; expected \
         \"exact\" or \"as_peer\""
    );
    fs::remove_dir_all(&dir).unwrap();
}

/// `rdmasim hpcc --out DIR` writes the peer's files and a complete run
/// directory; with `--timeseries` its time series too, so that `rdmasim
/// plot queue` and `rdmasim analyze` read it.
#[test]
fn hpcc_writes_a_run_directory_that_plot_and_analyze_read() {
    let dir = workdir("out");
    peer_fixture(&dir);
    ok(&rdmasim(
        &dir,
        &[
            "hpcc",
            "peer.cfg",
            "--out",
            "run",
            "--timeseries",
            "1us",
            "-q",
        ],
    ));
    for f in [
        "flows.csv",
        "summary.json",
        "ports.csv",
        "fct.txt",
        "pfc.txt",
        "timeseries.csv",
    ] {
        assert!(dir.join("run").join(f).is_file(), "{f} is missing");
    }
    // The peer's own files are written as before, and the run directory's
    // fct.txt is the same file.
    let peer_fct = fs::read_to_string(dir.join("out/fct.txt")).unwrap();
    assert_eq!(
        peer_fct,
        fs::read_to_string(dir.join("run/fct.txt")).unwrap()
    );
    assert_eq!(peer_fct.lines().count(), 7);
    let flows = fs::read_to_string(dir.join("run/flows.csv")).unwrap();
    assert_eq!(flows.lines().count(), 8, "{flows}");
    // The time series starts at the first flow's start.
    let ts = fs::read_to_string(dir.join("run/timeseries.csv")).unwrap();
    let first: u64 = ts
        .lines()
        .nth(1)
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(first, 2_000_000_148);
    // Switch 7's port towards host 3 (its first link): the incast's queue.
    let out = rdmasim(
        &dir,
        &[
            "plot", "queue", "run", "--node", "7", "--port", "0", "-o", "q.svg",
        ],
    );
    ok(&out);
    let svg = fs::read_to_string(dir.join("q.svg")).unwrap();
    assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(200)]);
    let out = rdmasim(&dir, &["analyze", "run"]);
    ok(&out);
    assert!(
        text(&out.stdout).starts_with("A = run (run/flows.csv): 7 of 7 flows (finished"),
        "{}",
        text(&out.stdout)
    );
    // --timeseries needs --out.
    let out = rdmasim(&dir, &["hpcc", "peer.cfg", "--timeseries", "1us"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    fs::remove_dir_all(&dir).unwrap();
}

/// `rdmasim convert` writes a peer config as rdmasim's TOML, which
/// `rdmasim run` runs to the same `fct.txt` as `rdmasim hpcc`, under
/// DCQCN and HPCC; every line of the peer's config is accounted for, each
/// key with no TOML equivalent saying why, and a difference a run of the
/// TOML has (no stop time) is listed in it.
#[test]
fn convert_gives_a_toml_config_with_the_same_fct() {
    let dir = workdir("convert");
    peer_fixture(&dir);
    let cfg = fs::read_to_string(dir.join("peer.cfg")).unwrap();
    fs::write(
        dir.join("hpcc.cfg"),
        cfg.replace("CC_MODE 1", "CC_MODE 3")
            .replace("HAS_WIN 0", "HAS_WIN 1")
            .replace("VAR_WIN 0", "VAR_WIN 1")
            .replace("RATE_AI 20Mb/s", "RATE_AI 50Mb/s")
            .replace("out/", "out/hp_"),
    )
    .unwrap();
    fs::create_dir_all(dir.join("toml")).unwrap();
    for (peer, kind) in [("peer", "dcqcn"), ("hpcc", "hpcc")] {
        ok(&rdmasim(&dir, &["hpcc", &format!("{peer}.cfg"), "-q"]));
        let toml = format!("toml/{peer}.toml");
        let out = rdmasim(&dir, &["convert", &format!("{peer}.cfg"), "-o", &toml]);
        ok(&out);
        assert_eq!(text(&out.stdout), format!("written: {toml}\n"));
        let converted = fs::read_to_string(dir.join(&toml)).unwrap();
        assert!(
            converted.contains(&format!("[cc]\nkind = \"{kind}\"\n")),
            "{converted}"
        );
        // Paths are relative to the TOML's directory.
        assert!(converted.contains("path = \"../topo.txt\""), "{converted}");
        // A comment for every line of the peer's config, in order.
        let listed: Vec<&str> = converted
            .lines()
            .filter_map(|l| l.strip_prefix("#   line "))
            .collect();
        let keys: Vec<&str> = cfg.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(listed.len(), keys.len(), "{converted}");
        for key in [
            "FCT_OUTPUT_FILE",
            "QLEN_MON_FILE",
            "TRACE_FILE",
            "USE_DYNAMIC_PFC_THRESHOLD",
            "DCTCP_RATE_AI",
        ] {
            let l = listed
                .iter()
                .find(|l| l.contains(&format!(": {key} ")))
                .unwrap();
            assert!(l.contains("-> no TOML equivalent: "), "{l}");
        }
        assert!(
            converted.ends_with(
                "# A run of this config and rdmasim hpcc's run write the same fct.txt.\n"
            ),
            "{converted}"
        );
        let run = format!("run-{peer}");
        let out = rdmasim(&dir, &["run", &toml, "--out", &run, "-q"]);
        ok(&out);
        assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
        let fct = |p: &str| fs::read_to_string(dir.join(p)).unwrap();
        let peer_fct = fct(&format!(
            "out/{}fct.txt",
            if peer == "hpcc" { "hp_" } else { "" }
        ));
        assert_eq!(peer_fct.lines().count(), 7);
        assert_eq!(fct(&format!("{run}/fct.txt")), peer_fct, "{peer}");
    }
    // No stop time: the peer runs until every flow finishes, the TOML
    // stops 1 s after the last start: said in the file.
    fs::write(
        dir.join("nostop.cfg"),
        cfg.replace("SIMULATOR_STOP_TIME 2.01\n", ""),
    )
    .unwrap();
    let out = rdmasim(&dir, &["convert", "nostop.cfg"]);
    ok(&out);
    let converted = text(&out.stdout);
    assert!(!converted.contains("\nstop = "), "{converted}");
    assert!(
        converted.contains(
            "# How a run of this config differs from rdmasim hpcc's run:\n#   the peer's \
             config has no SIMULATOR_STOP_TIME"
        ),
        "{converted}"
    );
    // Bad input is the peer config's error, as rdmasim hpcc gives it.
    fs::write(dir.join("bad.cfg"), cfg.replace("CC_MODE 1", "CC_MODE 4")).unwrap();
    let out = rdmasim(&dir, &["convert", "bad.cfg"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).starts_with("rdmasim: bad.cfg:15: CC_MODE: unknown CC_MODE '4'"),
        "{}",
        text(&out.stderr)
    );
    fs::remove_dir_all(&dir).unwrap();
}
