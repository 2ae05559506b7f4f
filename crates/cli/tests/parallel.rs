//! One run on 1, 2 and 3 threads (`--threads`, `docs/parallel.md`): every
//! output file is the same, byte for byte, but the engine's timing in
//! summary.json. And the errors of `--threads` and `[engine]`: one line
//! naming the key, exit code 2.

use std::fs;
use std::path::Path;

mod common;
use common::{rdmasim, text, workdir};

/// A k = 4 fat tree, DCQCN and PFC, an incast that makes switches pause.
const FAT_TREE_DCQCN_PFC: &str = r#"
[run]
name = "ft"
seed = 7
[topology]
kind = "fat_tree"
k = 4
delay = "1us"
[workload]
kind = "poisson"
load = 0.3
cdf = "websearch"
duration = "150us"
[[workload.extra]]
kind = "incast"
senders = [1, 2, 3, 4, 5, 6, 7, 8]
receiver = 0
size = "300KB"
start = "20us"
[cc]
kind = "dcqcn"
[pfc]
enabled = true
mode = "until_resume"
[buffer]
size = "1MB"
[output]
record_pfc = true
"#;

/// Bifrost on the long link between two datacenters.
const CROSS_DC_BIFROST: &str = r#"
[run]
name = "bifrost"
seed = 5
[topology]
kind = "cross_dc"
[workload]
kind = "poisson"
hosts = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
dsts = [16, 17, 18, 19, 20, 21, 22, 23]
load = 0.4
duration = "200us"
cdf = "websearch"
[cc]
kind = "dcqcn"
[pfc]
mode = "until_resume"
[ports.long_haul]
fc = "bifrost"
bifrost_trace = true
ecn = false
"#;

/// FlowSail's per-flow flow control on its scaled fat tree.
const FLOWSAIL: &str = r#"
[run]
name = "flowsail"
seed = 2
[topology]
kind = "flowsail_fat_tree"
pods = 2
[workload]
kind = "poisson"
cdf = "fb_webserver"
load = 0.6
load_on = "core"
duration = "60us"
[cc]
kind = "none"
[buffer]
size = "12MB"
[nic]
rto = "off"
[ports.fabric]
fc = "flowsail"
[ports.hosts]
fc = "flowsail"
"#;

/// Swing's relays on a cross-DC fabric.
const SWING: &str = r#"
[run]
name = "swing"
seed = 3
[topology]
kind = "cross_dc"
relays = true
long_delay = "100us"
[workload]
kind = "poisson"
hosts = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
dsts = [16, 17, 18, 19]
load = 0.3
duration = "150us"
cdf = "websearch"
[cc]
kind = "none"
[pfc]
mode = "until_resume"
[buffer]
size = "10MB"
headroom = "30KB"
[ecn]
enabled = false
[nic]
rto = "off"
[output]
record_pfc = true
[ports.long_haul]
xoff = "11MB"
headroom = "0B"
ecn = false
"#;

/// A link failure under HPCC-PINT and PFC, and lossy links under IRN.
const FAILURE: &str = r#"
[run]
name = "failure"
seed = 3
[topology]
kind = "fat_tree"
k = 4
delay = "1us"
[workload]
kind = "poisson"
load = 0.5
cdf = "websearch"
duration = "120us"
[[workload.extra]]
kind = "incast"
senders = [4, 5, 6, 7, 8, 9]
receiver = 1
size = "200KB"
start = "10us"
[cc]
kind = "hpcc_pint"
[pfc]
enabled = true
mode = "quanta"
[buffer]
size = "1MB"
[[link_down]]
at = "40us"
a = 16
b = 24
"#;

const IRN_LOSS: &str = r#"
[run]
name = "irn"
seed = 11
[topology]
kind = "fat_tree"
k = 4
delay = "1us"
error_rate_per_link = 0.001
[workload]
kind = "poisson"
load = 0.4
cdf = "websearch"
duration = "120us"
[cc]
kind = "dcqcn"
[transport]
kind = "irn"
"#;

/// Every file under `dir`, by path relative to it, with summary.json's
/// engine section left out.
fn outputs(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let name = p.strip_prefix(dir).unwrap().display().to_string();
            let mut bytes = fs::read(&p).unwrap();
            if name.ends_with("summary.json") {
                let mut v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
                let engine = v.as_object_mut().unwrap().remove("engine").unwrap();
                assert!(engine.get("threads").is_some());
                bytes = serde_json::to_vec_pretty(&v).unwrap();
            }
            files.push((name, bytes));
        }
    }
    files.sort();
    files
}

/// The threads a run's summary.json says it used.
fn threads_of(dir: &Path) -> u64 {
    let v: serde_json::Value =
        serde_json::from_slice(&fs::read(dir.join("summary.json")).unwrap()).unwrap();
    v["engine"]["threads"].as_u64().unwrap()
}

/// Run `args` (with `--out out-N` and `--threads N` added) for N = 1, 2,
/// 3 in `dir`, and check every output file is the same.
fn same_on_1_2_3_threads(dir: &Path, args: &[&str], expect: &[&str]) {
    same_on_1_2_3_threads_ending(dir, args, expect, 0);
}

/// [`same_on_1_2_3_threads`] of a run that exits with `code`, with the
/// same messages on stderr.
fn same_on_1_2_3_threads_ending(dir: &Path, args: &[&str], expect: &[&str], code: i32) {
    let mut first = None;
    let mut stderr = None;
    for t in ["1", "2", "3"] {
        let out = format!("out-{t}");
        let mut a = args.to_vec();
        a.extend(["--out", &out, "--threads", t, "-q"]);
        let r = rdmasim(dir, &a);
        let err = text(&r.stderr).replace(&out, "out");
        assert_eq!(r.status.code(), Some(code), "{args:?} {t}: {err}");
        assert_eq!(
            stderr.get_or_insert_with(|| err.clone()),
            &err,
            "{args:?} {t}"
        );
        assert_eq!(threads_of(&dir.join(&out)), t.parse::<u64>().unwrap());
        let files = outputs(&dir.join(&out));
        for e in expect {
            assert!(files.iter().any(|(n, _)| n == e), "{args:?}: no {e}");
        }
        match &first {
            None => first = Some(files),
            Some(one) => {
                let names =
                    |f: &[(String, Vec<u8>)]| f.iter().map(|x| x.0.clone()).collect::<Vec<_>>();
                assert_eq!(names(one), names(&files), "{args:?} on {t} threads");
                for ((name, a), (_, b)) in one.iter().zip(&files) {
                    assert!(a == b, "{args:?}: {name} differs on {t} threads");
                }
            }
        }
    }
}

fn config_run(test: &str, toml: &str, expect: &[&str]) {
    let dir = workdir("parallel", test);
    fs::write(dir.join("c.toml"), toml).unwrap();
    same_on_1_2_3_threads(&dir, &["run", "c.toml"], expect);
}

#[test]
fn a_fat_tree_with_dcqcn_and_pfc_pauses_is_the_same_on_1_2_and_3_threads() {
    config_run(
        "ft",
        FAT_TREE_DCQCN_PFC,
        &[
            "flows.csv",
            "fct.txt",
            "pfc.txt",
            "ports.csv",
            "summary.json",
        ],
    );
    // The incast did pause.
    let dir = std::env::temp_dir().join(format!("rdmasim-parallel-ft-{}", std::process::id()));
    let pfc = fs::read_to_string(dir.join("out-2/pfc.txt")).unwrap();
    assert!(pfc.lines().count() > 10, "{pfc}");
}

#[test]
fn cross_dc_bifrost_is_the_same_on_1_2_and_3_threads() {
    config_run("bifrost", CROSS_DC_BIFROST, &["flows.csv", "ports.csv"]);
}

#[test]
fn flowsail_is_the_same_on_1_2_and_3_threads() {
    config_run("flowsail", FLOWSAIL, &["flows.csv", "ports.csv"]);
}

#[test]
fn swing_is_the_same_on_1_2_and_3_threads() {
    config_run("swing", SWING, &["flows.csv", "pfc.txt"]);
}

#[test]
fn a_link_failure_is_the_same_on_1_2_and_3_threads() {
    config_run("failure", FAILURE, &["flows.csv", "ports.csv"]);
}

#[test]
fn lossy_links_under_irn_are_the_same_on_1_2_and_3_threads() {
    config_run("irn", IRN_LOSS, &["flows.csv", "ports.csv"]);
}

/// The peer's format: a two-tier tree of 8 hosts, 2 leaves and 2 spines,
/// HPCC with INT, an incast, the queue-length monitor and PFC file.
#[test]
fn an_hpcc_peer_config_is_the_same_on_1_2_and_3_threads() {
    let dir = workdir("parallel", "hpcc");
    // Hosts 0-7; leaves 8, 9; spines 10, 11.
    let mut links = Vec::new();
    for h in 0..8 {
        links.push(format!("{h} {} 100Gbps 1000ns 0", 8 + h / 4));
    }
    for leaf in [8, 9] {
        for spine in [10, 11] {
            links.push(format!("{leaf} {spine} 100Gbps 1000ns 0"));
        }
    }
    fs::write(
        dir.join("topo.txt"),
        format!("12 4 {}\n8 9 10 11\n{}\n", links.len(), links.join("\n")),
    )
    .unwrap();
    fs::write(
        dir.join("flows.txt"),
        "8\n0 7 3 100 300000 2.000000000\n1 7 3 100 300000 2.000000000\n\
         2 7 3 100 300000 2.000000100\n3 7 3 100 300000 2.000000200\n\
         4 0 3 100 50000 2.000001000\n5 1 3 100 120000 2.000002000\n\
         6 2 3 100 9000 2.000003000\n7 3 3 100 700000 2.000004000\n",
    )
    .unwrap();
    fs::write(
        dir.join("peer.cfg"),
        "ENABLE_QCN 1\nUSE_DYNAMIC_PFC_THRESHOLD 1\nPACKET_PAYLOAD_SIZE 1000\n\
         TOPOLOGY_FILE topo.txt\nFLOW_FILE flows.txt\nTRACE_FILE trace_none.txt\n\
         TRACE_OUTPUT_FILE out/mix.tr\nFCT_OUTPUT_FILE out/fct.txt\n\
         PFC_OUTPUT_FILE out/pfc.txt\nSIMULATOR_STOP_TIME 2.01\nCC_MODE 3\n\
         ALPHA_RESUME_INTERVAL 1\nRATE_DECREASE_INTERVAL 4\nCLAMP_TARGET_RATE 0\n\
         RP_TIMER 900\nEWMA_GAIN 0.00390625\nFAST_RECOVERY_TIMES 1\nRATE_AI 50Mb/s\n\
         RATE_HAI 100Mb/s\nMIN_RATE 100Mb/s\nDCTCP_RATE_AI 1000Mb/s\n\
         ERROR_RATE_PER_LINK 0.0000\nL2_CHUNK_SIZE 4000\nL2_ACK_INTERVAL 1\n\
         L2_BACK_TO_ZERO 0\nHAS_WIN 1\nGLOBAL_T 1\nVAR_WIN 1\nFAST_REACT 1\n\
         U_TARGET 0.95\nMI_THRESH 0\nINT_MULTI 1\nMULTI_RATE 0\nSAMPLE_FEEDBACK 0\n\
         PINT_LOG_BASE 1.05\nPINT_PROB 1.0\nRATE_BOUND 1\nACK_HIGH_PRIO 0\n\
         LINK_DOWN 0 0 0\nENABLE_TRACE 0\n\
         KMAX_MAP 2 100000000000 1600 400000000000 6400\n\
         KMIN_MAP 2 100000000000 400 400000000000 1600\n\
         PMAX_MAP 2 100000000000 0.20 400000000000 0.20\nBUFFER_SIZE 1\n\
         QLEN_MON_FILE out/qlen.txt\nQLEN_MON_START 2000000000\nQLEN_MON_END 2000050000\n",
    )
    .unwrap();
    fs::write(dir.join("trace_none.txt"), "0\n").unwrap();
    let mut peer_files = None;
    for t in ["1", "2", "3"] {
        fs::create_dir_all(dir.join("out")).unwrap();
        let r = rdmasim(&dir, &["hpcc", "peer.cfg", "-q", "--threads", t]);
        assert_eq!(r.status.code(), Some(0), "{t}: {}", text(&r.stderr));
        let files = outputs(&dir.join("out"));
        assert!(files.iter().any(|(n, _)| n == "qlen.txt"));
        match &peer_files {
            None => peer_files = Some(files),
            Some(one) => assert!(one == &files, "the peer's files differ on {t} threads"),
        }
        fs::remove_dir_all(dir.join("out")).unwrap();
    }
    fs::create_dir_all(dir.join("out")).unwrap();
    same_on_1_2_3_threads(&dir, &["hpcc", "peer.cfg"], &["flows.csv", "fct.txt"]);
}

/// One line on stderr naming the key, exit code 2.
fn refused(dir: &Path, args: &[&str], key: &str, says: &str) {
    let r = rdmasim(dir, args);
    let err = text(&r.stderr);
    assert_eq!(r.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(key) && err.contains(says), "{args:?}: {err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

#[test]
fn bad_thread_counts_and_partitions_name_their_key_and_exit_2() {
    let dir = workdir("parallel", "errors");
    fs::write(dir.join("c.toml"), FAT_TREE_DCQCN_PFC).unwrap();
    refused(
        &dir,
        &["run", "c.toml", "--threads", "0"],
        "--threads",
        "at least 1",
    );
    // A k = 4 fat tree cuts into its 4 pods and 4 cores at most.
    refused(
        &dir,
        &["run", "c.toml", "--threads", "9"],
        "--threads",
        "at most 8",
    );
    // Overrides: a node in two partitions, a node in none (hosts 0-15,
    // switches 16-35).
    let all: Vec<u32> = (0..36).collect();
    let list = |v: &[u32]| {
        format!(
            "[{}]",
            v.iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let twice = format!(
        "{FAT_TREE_DCQCN_PFC}\n[engine]\npartitions = [{}, {}]\n",
        list(&all[..20]),
        list(&all[19..])
    );
    fs::write(dir.join("twice.toml"), &twice).unwrap();
    let line = twice
        .lines()
        .position(|l| l.starts_with("partitions"))
        .unwrap()
        + 1;
    refused(
        &dir,
        &["run", "twice.toml"],
        &format!("twice.toml:{line}: engine.partitions"),
        "split",
    );
    let missing = format!(
        "{FAT_TREE_DCQCN_PFC}\n[engine]\npartitions = [{}, {}]\n",
        list(&all[..18]),
        list(&all[19..])
    );
    fs::write(dir.join("missing.toml"), &missing).unwrap();
    refused(&dir, &["run", "missing.toml"], "engine.partitions", "18");
    let zero = format!("{FAT_TREE_DCQCN_PFC}\n[engine]\nthreads = 0\n");
    fs::write(dir.join("zero.toml"), &zero).unwrap();
    refused(&dir, &["run", "zero.toml"], "engine.threads", "at least 1");
}

/// `rdmasim bench --threads 1,2`: a row per count, the same run in each.
#[test]
fn bench_runs_each_scenario_on_each_thread_count() {
    let dir = workdir("parallel", "bench");
    let r = rdmasim(
        &dir,
        &[
            "bench",
            "--smoke",
            "--scenario",
            "fat-dcqcn",
            "--threads",
            "1,2",
            "--csv",
            "b.csv",
        ],
    );
    assert_eq!(r.status.code(), Some(0), "{}", text(&r.stderr));
    let csv = fs::read_to_string(dir.join("b.csv")).unwrap();
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(rows.len(), 2, "{csv}");
    assert_eq!((rows[0][0], rows[1][0]), ("fat-dcqcn", "fat-dcqcn/t2"));
    // Simulated time, flows, finished, drops, packets, hops, events.
    assert_eq!(rows[0][1..8], rows[1][1..8], "{csv}");
    refused(
        &dir,
        &["bench", "--smoke", "--threads", "0"],
        "--threads",
        "at least 1",
    );
}

/// A k = 4 fat tree with many short flows (FB Hadoop sizes) for
/// `duration`, then `more` (sections; `[cc]` among them).
fn small_tree(seed: u32, duration: &str, more: &str) -> String {
    format!(
        "[run]\nseed = {seed}\n[topology]\nkind = \"fat_tree\"\nk = 4\ndelay = \"1us\"\n\
         [workload]\nkind = \"poisson\"\nload = 0.5\ncdf = \"fb_hadoop\"\n\
         duration = \"{duration}\"\n{more}"
    )
}

/// DCQCN and PFC.
const DCQCN_PFC: &str = "[cc]\nkind = \"dcqcn\"\n[pfc]\nenabled = true\nmode = \"until_resume\"\n";

/// The lines of `file` in run `out` of test `test` (of `config_run`).
fn lines_of(test: &str, out: &str, file: &str) -> usize {
    let dir = std::env::temp_dir().join(format!("rdmasim-parallel-{test}-{}", std::process::id()));
    fs::read_to_string(dir.join(out).join(file))
        .unwrap()
        .lines()
        .count()
}

/// A time series of every port and QP rate; one cut short by its size
/// limit; and one of a run that stalls (losses, no retransmission
/// timeout), whose sampling ends when nothing else is left.
#[test]
fn time_series_are_the_same_on_1_2_and_3_threads() {
    let ts = "[timeseries]\ninterval = \"3us\"\nports = \"all\"\nqp_rates = true\n";
    let files = ["flows.csv", "timeseries.csv", "qp_rates.csv"];
    config_run(
        "ts",
        &small_tree(7, "30us", &format!("{DCQCN_PFC}{ts}")),
        &files,
    );
    let cut = format!("{DCQCN_PFC}{ts}max_mb = 0.02\n");
    config_run("ts-cut", &small_tree(7, "30us", &cut), &files);
    let (full, cut) = (
        lines_of("ts", "out-3", "timeseries.csv"),
        lines_of("ts-cut", "out-3", "timeseries.csv"),
    );
    assert!(
        cut < full,
        "the limit cut the series: {cut} lines of {full}"
    );
    let stalls = small_tree(
        4,
        "30us",
        "[cc]\nkind = \"dcqcn\"\n[nic]\nrto = \"off\"\n\
         [timeseries]\ninterval = \"7us\"\nports = \"all-switch\"\nqp_rates = true\n",
    )
    .replace(
        "delay = \"1us\"\n",
        "delay = \"1us\"\nerror_rate_per_link = 0.02\n",
    );
    let dir = workdir("parallel", "ts-stall");
    fs::write(dir.join("c.toml"), stalls).unwrap();
    // Some flows stall: exit code 1, with the same warning on every count.
    same_on_1_2_3_threads_ending(&dir, &["run", "c.toml"], &files, 1);
    let err = text(&rdmasim(&dir, &["run", "c.toml", "--out", "again", "--threads", "2"]).stderr);
    assert!(err.contains("nothing was left to happen"), "{err}");
}

/// A capture of frames both ways on ports of every tier, and one cut
/// short by `max_frames`.
#[test]
fn packet_captures_are_the_same_on_1_2_and_3_threads() {
    let cap = "[capture]\nports = [{node = 16, port = 0}, {node = 24, port = 2}, \
               {node = 32, port = 1}, {node = 3, port = 0}]\ndirection = \"both\"\nsnaplen = 128\n";
    let files = ["capture.pcapng", "flows.csv"];
    config_run(
        "cap",
        &small_tree(7, "30us", &format!("{DCQCN_PFC}{cap}")),
        &files,
    );
    let cut = format!("{DCQCN_PFC}{cap}max_frames = 300\n");
    config_run("cap-cut", &small_tree(7, "30us", &cut), &files);
}

#[test]
fn the_pfc_free_transport_with_loss_is_the_same_on_1_2_and_3_threads() {
    let pff = small_tree(
        9,
        "30us",
        "[nic]\nmtu = \"1024B\"\n[cc]\nkind = \"none\"\n\
         [transport]\nkind = \"pfc_free\"\nmessage = \"64KiB\"\nio_depth = 8\n",
    )
    .replace(
        "delay = \"1us\"\n",
        "delay = \"1us\"\nerror_rate_per_link = 0.002\n",
    );
    config_run("pfc-free", &pff, &["flows.csv", "ports.csv"]);
}

/// RC mode's PSNs, NAKs and go-backs cross the partitions by value too.
#[test]
fn the_pfc_free_transport_in_rc_mode_with_loss_is_the_same_on_1_2_and_3_threads() {
    let rc = small_tree(
        9,
        "30us",
        "[nic]\nmtu = \"1024B\"\n[cc]\nkind = \"none\"\n\
         [transport]\nkind = \"pfc_free\"\nqp_type = \"rc\"\nmessage = \"64KiB\"\nio_depth = 8\n",
    )
    .replace(
        "delay = \"1us\"\n",
        "delay = \"1us\"\nerror_rate_per_link = 0.002\n",
    );
    config_run("pfc-free-rc", &rc, &["fct.txt", "flows.csv", "ports.csv"]);
    let summary = fs::read_to_string(
        std::env::temp_dir()
            .join(format!(
                "rdmasim-parallel-pfc-free-rc-{}",
                std::process::id()
            ))
            .join("out-2/summary.json"),
    )
    .unwrap();
    assert!(
        summary.contains("\"naks\": ") && !summary.contains("\"naks\": 0,"),
        "the losses made the receiving QPs NAK: {summary}"
    );
}

#[test]
fn the_sonic_buffer_model_is_the_same_on_1_2_and_3_threads() {
    let dir = workdir("parallel", "sonic");
    fs::write(
        dir.join("pools.json"),
        r#"{"BUFFER_POOL": {
  "ingress_pool": {"size": "2000000", "type": "ingress", "mode": "dynamic", "xoff": "600000"},
  "egress_lossy_pool": {"size": "1400000", "type": "egress", "mode": "dynamic"},
  "egress_lossless_pool": {"size": "2400000", "type": "egress", "mode": "static"}},
 "BUFFER_PROFILE": {
  "ingress_lossless_profile": {"pool": "[BUFFER_POOL|ingress_pool]", "size": "1248",
    "dynamic_th": "-3", "xoff": "96928", "xon": "1248", "xon_offset": "2496"},
  "egress_lossless_profile": {"pool": "[BUFFER_POOL|egress_lossless_pool]", "size": "0",
    "static_th": "2400000"}}}"#,
    )
    .unwrap();
    let incast = "[[workload.extra]]\nkind = \"incast\"\nsenders = [4, 5, 6, 7, 8, 9, 10, 11]\n\
                  receiver = 0\nsize = \"100KB\"\nstart = \"5us\"\n";
    let sonic = "[buffer]\nmodel = \"sonic\"\nsonic = \"pools.json\"\n\
                 sonic_pg = { 3 = \"ingress_lossless_profile\" }\n\
                 sonic_queue = { 3 = \"egress_lossless_profile\" }\n";
    let toml = small_tree(1, "30us", &format!("{incast}{DCQCN_PFC}{sonic}"));
    fs::write(dir.join("c.toml"), toml).unwrap();
    same_on_1_2_3_threads(&dir, &["run", "c.toml"], &["flows.csv", "ports.csv"]);
}

/// Host 0 storms its ToR with pauses; the ToR's watchdog drops.
#[test]
fn the_pfc_watchdog_under_a_storm_is_the_same_on_1_2_and_3_threads() {
    let wd = "[cc]\nkind = \"none\"\n[ecn]\nenabled = false\n[pfc]\nmode = \"until_resume\"\n\
              [pfc.watchdog]\ndetect = \"20us\"\nrestore = \"20us\"\naction = \"drop\"\n\
              [nic]\nrto = \"50us\"\n[buffer]\nsize = \"1MB\"\n[[pfc_storm]]\nnode = 0\npeer = 16\nclass = 3\n\
              start = \"5us\"\nstop = \"150us\"\ninterval = \"5us\"\n";
    let toml = small_tree(1, "60us", wd).replace("[run]\n", "[run]\nstop = \"400us\"\n");
    config_run("watchdog", &toml, &["flows.csv", "ports.csv"]);
    let ports = fs::read_to_string(
        std::env::temp_dir()
            .join(format!("rdmasim-parallel-watchdog-{}", std::process::id()))
            .join("out-2/ports.csv"),
    )
    .unwrap();
    let head: Vec<&str> = ports.lines().next().unwrap().split(',').collect();
    let col = head.iter().position(|&h| h == "pfc_storms").unwrap();
    let storms: u64 = ports
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(col).unwrap().parse::<u64>().unwrap())
        .sum();
    assert!(storms > 0, "the watchdog saw the storm");
}

#[test]
fn the_storage_workload_is_the_same_on_1_2_and_3_threads() {
    let toml = "[run]\nseed = 1\nstop = \"3ms\"\n[topology]\nkind = \"fat_tree\"\nk = 4\n\
                delay = \"1us\"\n[workload]\nkind = \"storage\"\nload = 0.2\n\
                reconstruction_load = 0.3\ndegree = 6\nduration = \"100us\"\n\
                [nic]\none_chunk_in_flight = \"64KB\"\n[cc]\nkind = \"dcqcn\"\n";
    config_run("storage", toml, &["flows.csv", "messages.csv"]);
}

#[test]
fn the_host_cpu_model_is_the_same_on_1_2_and_3_threads() {
    let cpu = small_tree(
        3,
        "20us",
        "[nic]\nmtu = \"1024B\"\n[cc]\nkind = \"none\"\n\
         [transport]\nkind = \"pfc_free\"\nmessage = \"4KiB\"\nio_depth = 8\n[host]\ncores = 1\n",
    );
    config_run("cpu", &cpu, &["flows.csv", "hosts.csv"]);
}

#[test]
fn a_two_pod_clos_is_the_same_on_1_2_and_3_threads() {
    let clos = small_tree(5, "15us", DCQCN_PFC).replace(
        "kind = \"fat_tree\"\nk = 4\n",
        "kind = \"clos\"\npods = 2\n",
    );
    config_run("clos", &clos, &["flows.csv", "ports.csv"]);
}
