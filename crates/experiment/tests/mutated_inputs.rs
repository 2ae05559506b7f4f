//! Bad input gets one clear error naming the file (and its line), never a
//! panic or a hang, and input that builds also runs without a panic or a
//! hang: a deterministic mutation test over every kind of input rdmasim
//! reads.
//!
//! Each valid input below (a TOML config, a sweep file, a size CDF, the
//! peer's topology, flow and config files) is mutated mechanically with a
//! fixed-seed [`engine::Rng`]: a line deleted, duplicated or swapped with
//! another, one token (a whole word or only its digits or letters) replaced
//! by an edge value (`1e400`, `nan`, `18446744073709551616`, a unit with no
//! number, ...) or an ordinary one (`1`, `0.5`, `100000`, ...), the file
//! cut mid-line, garbage appended. Every mutant goes through the library's
//! parse, load and build functions inside `catch_unwind` on a worker
//! thread that must answer within a time limit, twice:
//! - [`mutated_inputs_give_errors_not_panics`] goes up to
//!   `Simulation::new` (building the network, not running it);
//! - [`mutated_inputs_that_build_run`] goes on to run every mutant whose
//!   network is built (a topology of at most [`MAX_BUILT_NODES`] nodes)
//!   through `run_scenario`, with its time series and the peer's output
//!   files, for a short window ([`RUN_WINDOW`]); a sweep's mutant runs
//!   every run the sweep plans. Every mutant is run, not a subset: the
//!   whole file takes about 20 s in a release build on two cores.
//!
//! Each mutant must either build (and run) or give an `Err` whose message
//! is one line that names an input file (with a line number within the
//! file, if any). `RDMASIM_SHOW_MUTANTS=1` prints every mutant's outcome.

use engine::{Delta, Rng, Time};
use rdmasim_experiment::config::{build_scenario, parse_config};
use rdmasim_experiment::sweep::{parse_sweep, plan};
use rdmasim_experiment::{load_peer_config, run_scenario, RunOptions, Scenario};
use std::fs;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Mutants of each input drawn at random, besides every token replaced by
/// every edge value.
const MUTANTS: usize = 400;

/// A mutant that takes longer than this to parse and build has hung (or is
/// on its way to exhausting memory); valid ones take milliseconds.
const LIMIT: Duration = Duration::from_secs(10);

/// The peer's topology format: 4 hosts, 2 switches.
const PEER_TOPOLOGY: &str = "\
6 2 5
4 5
0 4 100Gbps 1000ns 0
1 4 100Gbps 1000ns 0
2 5 100Gbps 1us 0
3 5 100Gbps 0.001ms 0
4 5 400Gbps 1000ns 0
";

/// The peer's flow format.
const PEER_FLOWS: &str = "\
4
0 2 3 100 20000 2.0
1 3 3 100 1000 2.000001
2 0 3 100 5000 2.000002
3 1 3 100 100000 2.000003
";

/// A size CDF: `size cumulative`.
const CDF: &str = "\
# size cumulative
1000 0
10000 0.3
100000 0.7
1000000 1.0
";

/// A TOML config that touches most sections: a k = 4 fat tree, Poisson
/// traffic over the CDF file plus an incast, DCQCN, PFC quanta, per-port
/// rules, a link failure and a time series.
const CONFIG_FAT_TREE: &str = r#"
[run]
name = "mutated"
seed = 7
stop = "50us"

[topology]
kind = "fat_tree"
k = 4
host_rate = "100Gbps"
fabric_rate = "100Gbps"
delay = "1us"
error_rate_per_link = 0.0

[workload]
kind = "poisson"
load = 0.3
cdf = "cdf.txt"
duration = "20us"
start = "1us"
pg = 3
dport = 100

[[workload.extra]]
kind = "incast"
receiver = 0
senders = [1, 2, 3]
size = "10KB"
start = "5us"

[cc]
kind = "dcqcn"

[cc.dcqcn]
alpha_interval = "1us"
rate_ai = "5Mbps"
g = 0.00390625
fast_recovery_times = 1

[pfc]
enabled = true
mode = "quanta"
quanta = 65535
refresh_fraction = 0.5

[buffer]
size = "32MiB"
reserve = "4KiB"
headroom = "auto"
headroom_factor = 3.0
alpha_shift = 3
resume_offset = "3KiB"

[ecn]
enabled = true

[[ecn.thresholds]]
rate = "100Gbps"
kmin = "400KB"
kmax = "1600KB"
pmax = 0.2

[nic]
mtu = "1000B"
ack_interval = "1B"
rto = "1ms"

[ports.fabric]
xoff = "200KB"
headroom = "100KB"
ecn = true

[[ports.at]]
node = 20
port = 1
alpha_shift = 2

[[link_down]]
at = "10us"
a = 0
b = 16

[timeseries]
interval = "5us"
ports = [{ node = 16, port = 0 }]
qp_rates = true

[output]
record_pfc = true
"#;

/// Two datacenters joined by a long link with Bifrost, IRN on the hosts,
/// bandwidth flows and latency probes.
const CONFIG_CROSS_DC: &str = r#"
[run]
name = "mutated-cross"
stop = "20us"

[topology]
kind = "cross_dc"
dcs = 2
k = 4
hosts_per_tor = 1
long_links = 1
long_rate = "400Gbps"
long_length = "1km"
relays = false

[workload]
kind = "bulk"
hosts = [0, 1]
dsts = [8, 9]
flows = 2
size = "1MB"
start = "0s"

[[workload.extra]]
kind = "probes"
hosts = [2]
dsts = [10]
size = "1KB"
interval = "5us"
duration = "10us"

[cc]
kind = "hpcc"

[cc.hpcc]
eta = 0.95
max_stage = 5
rate_ai = "50Mbps"

[pfc]
enabled = false

[transport]
kind = "irn"
bitmap = 106
rto_low = "13us"
rto_high = "140us"
rto_low_threshold = 3

[ports.long_haul]
fc = "bifrost"
bifrost_t = "1us"
bifrost_k = 4
"#;

/// The peer's topology and flow files, read from a TOML config, with
/// TIMELY.
const CONFIG_FILES: &str = r#"
[run]
name = "mutated-files"

[topology]
kind = "file"
path = "topo.txt"

[workload]
kind = "file"
path = "flows.txt"

[cc]
kind = "timely"

[cc.timely]
alpha = 0.875
beta = 0.8
t_low = "50us"
t_high = "500us"
min_rtt = "20us"

[nic]
window = "150KB"
"#;

/// The base config of the sweep: a star of 4 hosts.
const SWEEP_BASE: &str = r#"
[run]
name = "base"

[topology]
kind = "star"
hosts = 4
rate = "100Gbps"
delay = "1us"

[workload]
kind = "poisson"
load = 0.3
cdf = "cdf.txt"
duration = "100us"
"#;

const SWEEP: &str = r#"
base = "base.toml"
name = "mutated-sweep"

[set]
"timeseries.interval" = "5us"

[axes]
"cc.kind" = ["dcqcn", "none"]
"workload.load" = [0.3, 0.5]

[variants.a]
"pfc.enabled" = true

[variants.b]
"pfc.enabled" = false
"buffer.size" = "16MiB"

[report]
baseline = "a"
groups = { small = [100] }

[[report.paper]]
target = "T1"
variant = "b"
group = "small"
metric = "fct_avg"
reduction = 0.5
at = "workload.load=0.3"
"#;

/// The peer's config.txt with every key it has. `@/` stands for the
/// directory of the files it names ([`in_dir`]), so that the mutants do
/// not depend on where that is.
const PEER_CONFIG: &str = "ENABLE_QCN 1\nUSE_DYNAMIC_PFC_THRESHOLD 1\nPACKET_PAYLOAD_SIZE 1000\n\
         TOPOLOGY_FILE @/topo.txt\nFLOW_FILE @/flows.txt\nTRACE_FILE trace.txt\nTRACE_OUTPUT_FILE mix.tr\n\
         FCT_OUTPUT_FILE fct.txt\nPFC_OUTPUT_FILE pfc.txt\nQLEN_MON_FILE qlen.txt\n\
         SIMULATOR_STOP_TIME 2.01\nCC_MODE 1\nALPHA_RESUME_INTERVAL 1\n\
         RATE_DECREASE_INTERVAL 4\nRP_TIMER 300\nCLAMP_TARGET_RATE 0\n\
         FAST_RECOVERY_TIMES 1\nEWMA_GAIN 0.00390625\nRATE_AI 5Mb/s\nRATE_HAI 50Mb/s\n\
         MIN_RATE 100Mb/s\nDCTCP_RATE_AI 1000Mb/s\nERROR_RATE_PER_LINK 0\n\
         L2_CHUNK_SIZE 4000\nL2_ACK_INTERVAL 1\nL2_BACK_TO_ZERO 0\nHAS_WIN 0\n\
         GLOBAL_T 1\nVAR_WIN 0\nFAST_REACT 1\nU_TARGET 0.95\nMI_THRESH 5\n\
         INT_MULTI 1\nMULTI_RATE 0\nSAMPLE_FEEDBACK 0\nPINT_LOG_BASE 1.01\n\
         PINT_PROB 1.0\nRATE_BOUND 1\nACK_HIGH_PRIO 0\nLINK_DOWN 1 4 5\nENABLE_TRACE 0\n\
         KMAX_MAP 2 100000000000 1600 400000000000 6400\n\
         KMIN_MAP 2 100000000000 400 400000000000 1600\n\
         PMAX_MAP 2 100000000000 0.2 400000000000 0.2\nBUFFER_SIZE 32\n\
         QLEN_MON_START 2000000000\nQLEN_MON_END 2000010000\nPAUSE_TIME 5\n\
         DATA_RATE 100Gb/s\nLINK_DELAY 1us\n";

/// A peer config's text with `@/` replaced by `dir`.
fn in_dir(text: &str, dir: &Path) -> String {
    text.replace("@/", &format!("{}/", dir.display()))
}

/// The values a token is replaced with.
fn replacements() -> Vec<String> {
    let mut v: Vec<String> = [
        "",
        "-1",
        "0",
        "1e400",
        "nan",
        "inf",
        "18446744073709551616",
        "4294967296",
        "65536",
        "ÿñ€漢",
        "Gbps",
        "100",
        "true",
        "1",
        "2",
        "3",
        "0.5",
        "1000",
        "100000",
        "1e-9",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.push("9".repeat(400));
    v
}

/// Byte spans of the tokens of `text`: whole words (letters, digits and
/// `_.+-`), and within them each run of digits and each run of letters.
fn tokens(text: &str) -> Vec<(usize, usize)> {
    fn spans(text: &str, is: impl Fn(char) -> bool) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut start = None;
        for (i, c) in text.char_indices().chain([(text.len(), ' ')]) {
            match (is(c), start) {
                (true, None) => start = Some(i),
                (false, Some(s)) => {
                    out.push((s, i));
                    start = None;
                }
                _ => {}
            }
        }
        out
    }
    let mut t = spans(text, |c| c.is_alphanumeric() || "_.+-".contains(c));
    t.extend(spans(text, |c| c.is_ascii_digit() || c == '.'));
    t.extend(spans(text, |c| c.is_alphabetic() || c == '_'));
    t.sort_unstable();
    t.dedup();
    t
}

const GARBAGE: &[&str] = &[
    "\0\0\0",
    "[[",
    "]]\n",
    "= \"",
    "x = 1\n",
    "\u{feff}",
    "\r\n\t\r",
    "999999999999999999999999 1 1\n",
    "key = [1, 2",
    "\"a\" = { b = ",
];

/// The mutants of `text`, each with what was done to it: every token
/// replaced by every value of [`replacements`], then `n` drawn at random
/// (a line deleted, duplicated or swapped, the file cut, garbage appended,
/// two tokens replaced).
fn mutants(text: &str, n: usize, seed: u64) -> Vec<(String, String)> {
    let reps = replacements();
    let toks = tokens(text);
    let replace = |(s, e): (usize, usize), r: &str| {
        let shown: String = r.chars().take(24).collect();
        (
            format!("{:?} at byte {s} replaced by {shown:?}", &text[s..e]),
            format!("{}{r}{}", &text[..s], &text[e..]),
        )
    };
    let mut out: Vec<(String, String)> = toks
        .iter()
        .flat_map(|&t| reps.iter().map(move |r| (t, r)))
        .map(|(t, r)| replace(t, r))
        .collect();
    let mut rng = Rng::stream(seed, 0, 0);
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let pick = |rng: &mut Rng, n: usize| rng.below(n as u64) as usize;
    let mut drawn = 0;
    while drawn < n {
        let (what, m) = match pick(&mut rng, 6) {
            0 => {
                let i = pick(&mut rng, lines.len());
                let mut l = lines.clone();
                l.remove(i);
                (format!("line {} deleted", i + 1), l.concat())
            }
            1 => {
                let i = pick(&mut rng, lines.len());
                let mut l = lines.clone();
                l.insert(i, lines[i]);
                (format!("line {} duplicated", i + 1), l.concat())
            }
            2 => {
                let (i, j) = (pick(&mut rng, lines.len()), pick(&mut rng, lines.len()));
                let mut l = lines.clone();
                l.swap(i, j);
                (format!("lines {} and {} swapped", i + 1, j + 1), l.concat())
            }
            3 => {
                // Cut inside a line, at a character boundary.
                let i = pick(&mut rng, lines.len());
                let start: usize = lines[..i].iter().map(|l| l.len()).sum();
                let mut cut = start + pick(&mut rng, lines[i].len().max(1));
                while !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                (format!("cut at byte {cut}"), text[..cut].to_string())
            }
            4 => {
                let g = if rng.below(2) == 0 {
                    GARBAGE[pick(&mut rng, GARBAGE.len())].to_string()
                } else {
                    (0..1 + pick(&mut rng, 40))
                        .map(|_| (b' ' + rng.below(95) as u8) as char)
                        .collect()
                };
                (format!("{g:?} appended"), format!("{text}{g}"))
            }
            _ => {
                // Two tokens, the later one first so that the earlier
                // one's span still holds.
                let mut two = [
                    toks[pick(&mut rng, toks.len())],
                    toks[pick(&mut rng, toks.len())],
                ];
                two.sort_unstable();
                if two[0].1 > two[1].0 {
                    continue;
                }
                let (r0, r1) = (
                    &reps[pick(&mut rng, reps.len())],
                    &reps[pick(&mut rng, reps.len())],
                );
                let (w1, m1) = replace(two[1], r1);
                let m = format!("{}{r0}{}", &m1[..two[0].0], &m1[two[0].1..]);
                (
                    format!(
                        "{w1}, and {:?} at byte {} by {r0:?}",
                        &text[two[0].0..two[0].1],
                        two[0].0
                    ),
                    m,
                )
            }
        };
        if m != text {
            out.push((what, m));
            drawn += 1;
        }
    }
    out
}

/// Most nodes of a mutant's topology whose network is built. A mutant
/// that makes a fat tree's k 100 asks for 262,500 nodes, within the
/// input limits, whose routes take minutes and gigabytes to build; its
/// scenario is still built and checked.
const MAX_BUILT_NODES: usize = 2000;

/// Builds what a scenario's run would build first (the network, its
/// routes and flows), without running it.
fn build_network(s: Scenario) -> Result<(), String> {
    if s.topo.kinds.len() > MAX_BUILT_NODES {
        return Ok(());
    }
    net::Simulation::new(&s.topo, s.flows, s.net)
        .map(drop)
        .map_err(|e| format!("network build: {e}"))
}

/// What went wrong with one mutant, if anything.
fn judge(
    outcome: std::thread::Result<Result<(), String>>,
    files: &[(&str, &str)],
) -> Option<String> {
    let msg = match outcome {
        Ok(Ok(())) => return None,
        Ok(Err(msg)) => msg,
        Err(p) => {
            let what = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            return Some(format!("panicked: {what}"));
        }
    };
    if msg.contains('\n') {
        return Some(format!("error of more than one line: {msg}"));
    }
    // `name:line:` or `name:` at the start, `name` one of the inputs.
    for (name, text) in files {
        let Some(rest) = msg.strip_prefix(name).and_then(|r| r.strip_prefix(':')) else {
            continue;
        };
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        if digits.is_empty() {
            return None;
        }
        let n_lines = text.lines().count().max(1);
        return match digits.parse::<usize>() {
            Ok(l) if (1..=n_lines + 1).contains(&l) => None,
            _ => Some(format!("line {digits} is not a line of {name}: {msg}")),
        };
    }
    Some(format!("the error names no input file: {msg}"))
}

type Check = Box<dyn FnOnce() -> Result<(), String> + Send>;

/// What was done, the mutated text, the input files (name, text) an error
/// may name, and the check.
type Mutant = (String, String, Vec<(String, String)>, Check);

/// Runs every check of `kind` on a worker thread, each in `catch_unwind`
/// and each within [`LIMIT`]; returns one line per failed mutant.
fn run_checks(kind: &str, checks: Vec<Mutant>) -> Vec<String> {
    let (tx, rx) = mpsc::channel();
    let n = checks.len();
    let show = std::env::var_os("RDMASIM_SHOW_MUTANTS").is_some();
    let label = kind.to_string();
    let worker = std::thread::spawn(move || {
        for (what, text, files, check) in checks {
            let outcome = catch_unwind(AssertUnwindSafe(check));
            if show {
                match &outcome {
                    Ok(Ok(())) => eprintln!("{label}: {what}: builds"),
                    Ok(Err(e)) => eprintln!("{label}: {what}: {e}"),
                    Err(_) => eprintln!("{label}: {what}: panicked"),
                }
            }
            let files: Vec<(&str, &str)> = files
                .iter()
                .map(|(n, t)| (n.as_str(), t.as_str()))
                .collect();
            let verdict = judge(outcome, &files);
            if tx.send((what, text, verdict)).is_err() {
                return;
            }
        }
    });
    let mut failures = Vec::new();
    for i in 0..n {
        let t0 = Instant::now();
        match rx.recv_timeout(LIMIT) {
            Ok((what, text, verdict)) => {
                if let Some(v) = verdict {
                    failures.push(format!(
                        "{kind} mutant {i} ({what}): {v}\n--- input:\n{text}---"
                    ));
                }
            }
            Err(_) => {
                // The worker is stuck; it is left behind (the test fails).
                failures.push(format!(
                    "{kind} mutant {i}: no answer within {:?} (a hang?)",
                    t0.elapsed()
                ));
                return failures;
            }
        }
    }
    worker.join().expect("the worker catches every panic");
    failures
}

/// The test's directory, removed when dropped.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// A directory holding the valid inputs, for the checks that read files.
fn input_dir(root: &Path, name: &str) -> PathBuf {
    let d = root.join(name);
    fs::create_dir_all(&d).unwrap();
    fs::write(d.join("topo.txt"), PEER_TOPOLOGY).unwrap();
    fs::write(d.join("flows.txt"), PEER_FLOWS).unwrap();
    fs::write(d.join("cdf.txt"), CDF).unwrap();
    fs::write(d.join("base.toml"), SWEEP_BASE).unwrap();
    fs::write(d.join("config.txt"), in_dir(PEER_CONFIG, &d)).unwrap();
    d
}

/// How far each mutant goes once its inputs are read.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    /// Build the network ([`build_network`]).
    Build,
    /// Build it and run it for a short window ([`run_network`]).
    Run,
}

/// The window a mutant runs for: from time zero to the first of its own
/// stop time and this long after its first flow starts (the peer's flows
/// start at 2 s). A valid input's run, cut there, takes milliseconds; a
/// longer window lets a mutant that makes the load heavy (a host rate of
/// 65536Gbps) run for seconds.
const RUN_WINDOW: Duration = Duration::from_micros(50);

/// Builds a scenario's network, like [`build_network`], and runs it
/// through [`run_scenario`] up to [`RUN_WINDOW`] after its first flow;
/// with `timeseries`, recording that time series. The peer's output files,
/// if the scenario has them, are written under `out` (each run replaces
/// them); the run directory is not written (its files' `sync_all` would
/// double the test's time, and writing it for every mutant found nothing
/// that the summary and records computed without it do not).
fn run_network(
    mut s: Scenario,
    timeseries: Option<net::monitor::MonitorConfig>,
    out: &Path,
) -> Result<(), String> {
    if s.topo.kinds.len() > MAX_BUILT_NODES {
        return Ok(());
    }
    let first = s.flows.first().map_or(0, |f| f.start.ps());
    let window =
        Time::ZERO + Delta::from_ps(first.saturating_add(RUN_WINDOW.as_nanos() as u64 * 1000));
    s.net.stop_time = Some(s.net.stop_time.map_or(window, |t| t.min(window)));
    if let Some(p) = &mut s.peer_outputs {
        // Where the peer's config put them, but under `out`.
        let under = |path: &Path, or: &str| out.join(path.file_name().unwrap_or(or.as_ref()));
        p.fct = under(&p.fct, "fct.txt");
        p.pfc = p.pfc.as_deref().map(|f| under(f, "pfc.txt"));
        p.qlen = p.qlen.as_deref().map(|f| under(f, "qlen.txt"));
    }
    fs::create_dir_all(out).unwrap();
    let opts = RunOptions {
        quiet: true,
        timeseries,
        ..RunOptions::default()
    };
    run_scenario(s, None, &opts)
        .map(drop)
        .map_err(|e| e.to_string())
}

/// Builds `s`'s network, or with `Mode::Run` runs it as [`run_network`]
/// does, writing the peer's output files under `out`.
fn finish(
    mode: Mode,
    s: Scenario,
    timeseries: Option<net::monitor::MonitorConfig>,
    out: &Path,
) -> Result<(), String> {
    match mode {
        Mode::Build => build_network(s),
        Mode::Run => run_network(s, timeseries, out),
    }
}

/// Every mutant of every input, by kind, each checked as `mode` says.
/// The files they read are written under `root`.
fn every_input(root: &Path, mode: Mode) -> Vec<(&'static str, Vec<Mutant>)> {
    let mut out = Vec::new();

    // TOML configs: parse, build the scenario and its time series, build
    // the network. Files they name are read from `dir`.
    let dir = input_dir(root, "toml");
    for (seed, (kind, text)) in [
        ("config (fat tree)", CONFIG_FAT_TREE),
        ("config (cross_dc)", CONFIG_CROSS_DC),
        ("config (files)", CONFIG_FILES),
    ]
    .into_iter()
    .enumerate()
    {
        let checks: Vec<Mutant> = mutants(text, MUTANTS, 1 + seed as u64)
            .into_iter()
            .map(|(what, m)| {
                let (dir, m2) = (dir.clone(), m.clone());
                let check: Check = Box::new(move || {
                    let cfg = parse_config(&m2, "mut.toml").map_err(|e| e.to_string())?;
                    let s = build_scenario(&cfg, &dir).map_err(|e| e.to_string())?;
                    let ts = rdmasim_experiment::config::build_timeseries(&cfg, &s)
                        .map_err(|e| e.to_string())?;
                    finish(mode, s, ts, &dir.join("out"))
                });
                (what, m.clone(), vec![("mut.toml".into(), m)], check)
            })
            .collect();
        out.push((kind, checks));
    }

    // A sweep file: parse and plan (every combination's scenario built).
    let base_name = dir.join("base.toml").display().to_string();
    let checks: Vec<Mutant> = mutants(SWEEP, MUTANTS, 11)
        .into_iter()
        .map(|(what, m)| {
            let (dir, m2) = (dir.clone(), m.clone());
            let check: Check = Box::new(move || {
                let s = parse_sweep(&m2, "mut-sweep.toml", &dir).map_err(|e| e.to_string())?;
                let runs = plan(&s).map_err(|e| e.to_string())?;
                if mode == Mode::Run {
                    for r in runs {
                        let s = build_scenario(&r.config, &dir).map_err(|e| e.to_string())?;
                        let ts = rdmasim_experiment::config::build_timeseries(&r.config, &s)
                            .map_err(|e| e.to_string())?;
                        run_network(s, ts, &dir.join("out"))?;
                    }
                }
                Ok(())
            });
            let files = vec![
                ("mut-sweep.toml".into(), m.clone()),
                (base_name.clone(), SWEEP_BASE.into()),
            ];
            (what, m, files, check)
        })
        .collect();
    out.push(("sweep", checks));

    // A CDF file: parse it, then generate traffic from it (the fat-tree
    // config reads it as cdf.txt).
    let cdf_dir = input_dir(root, "cdf");
    fs::write(cdf_dir.join("config.toml"), CONFIG_FAT_TREE).unwrap();
    let cdf_name = cdf_dir.join("cdf.txt").display().to_string();
    let checks: Vec<Mutant> = mutants(CDF, MUTANTS, 12)
        .into_iter()
        .map(|(what, m)| {
            let (dir, m2, name) = (cdf_dir.clone(), m.clone(), cdf_name.clone());
            let check: Check = Box::new(move || {
                workload::parse_cdf(&m2, "mut-cdf.txt").map_err(|e| e.to_string())?;
                fs::write(&name, &m2).unwrap();
                let cfg = parse_config(CONFIG_FAT_TREE, "config.toml").unwrap();
                let s = build_scenario(&cfg, &dir).map_err(|e| e.to_string())?;
                finish(mode, s, None, &dir.join("out"))
            });
            let files = vec![
                ("mut-cdf.txt".into(), m.clone()),
                (cdf_name.clone(), m.clone()),
                ("config.toml".into(), CONFIG_FAT_TREE.into()),
            ];
            (what, m, files, check)
        })
        .collect();
    out.push(("size CDF", checks));

    // The peer's topology and flow files: parse each, then load the peer
    // config that names them and build its network.
    for (kind, file, valid, seed) in [
        ("peer topology", "topo.txt", PEER_TOPOLOGY, 13),
        ("peer flows", "flows.txt", PEER_FLOWS, 14),
    ] {
        let pdir = input_dir(root, file.trim_end_matches(".txt"));
        let path = pdir.join(file);
        let name = path.display().to_string();
        let config_name = pdir.join("config.txt").display().to_string();
        let config_text = in_dir(PEER_CONFIG, &pdir);
        let checks: Vec<Mutant> = mutants(valid, MUTANTS, seed)
            .into_iter()
            .map(|(what, m)| {
                let (config, path, m2) = (pdir.join("config.txt"), path.clone(), m.clone());
                let run_dir = pdir.join("out");
                let check: Check = Box::new(move || {
                    if file == "topo.txt" {
                        topo::parse_peer_topology(&m2, "mut.txt").map_err(|e| e.to_string())?;
                    } else {
                        workload::parse_peer_flows(&m2, "mut.txt").map_err(|e| e.to_string())?;
                    }
                    fs::write(&path, &m2).unwrap();
                    let c = load_peer_config(&config).map_err(|e| e.to_string())?;
                    finish(mode, c.scenario, None, &run_dir)
                });
                let mut files = vec![
                    ("mut.txt".into(), m.clone()),
                    (name.clone(), m.clone()),
                    (config_name.clone(), config_text.clone()),
                ];
                for (other, text) in [("topo.txt", PEER_TOPOLOGY), ("flows.txt", PEER_FLOWS)] {
                    if other != file {
                        files.push((pdir.join(other).display().to_string(), text.into()));
                    }
                }
                (what, m, files, check)
            })
            .collect();
        out.push((kind, checks));
    }

    // The peer's config.txt.
    let pdir = input_dir(root, "peer");
    let path = pdir.join("config.txt");
    let name = path.display().to_string();
    let checks: Vec<Mutant> = mutants(PEER_CONFIG, MUTANTS, 15)
        .into_iter()
        .map(|(what, m)| {
            let (path, m2, run_dir) = (path.clone(), in_dir(&m, &pdir), pdir.join("out"));
            let check: Check = Box::new(move || {
                fs::write(&path, &m2).unwrap();
                let c = load_peer_config(&path).map_err(|e| e.to_string())?;
                finish(mode, c.scenario, None, &run_dir)
            });
            let files = vec![
                (name.clone(), in_dir(&m, &pdir)),
                (
                    pdir.join("topo.txt").display().to_string(),
                    PEER_TOPOLOGY.into(),
                ),
                (
                    pdir.join("flows.txt").display().to_string(),
                    PEER_FLOWS.into(),
                ),
            ];
            (what, m, files, check)
        })
        .collect();
    out.push(("peer config", checks));
    out
}

/// Runs every check of every input; panics naming each failed one.
fn check_every_input(name: &str, mode: Mode) {
    let root = TempDir(
        std::env::temp_dir().join(format!("rdmasim-mutated-{name}-{}", std::process::id())),
    );
    let _ = fs::remove_dir_all(&root.0);
    let t0 = Instant::now();
    let mut failures = Vec::new();
    let mut counts = Vec::new();
    for (kind, checks) in every_input(&root.0, mode) {
        counts.push((kind, checks.len()));
        failures.extend(run_checks(kind, checks));
    }

    let counts: Vec<String> = counts.iter().map(|(k, n)| format!("{k}: {n}")).collect();
    eprintln!(
        "mutated inputs ({mode:?}): {} in {:.1?}",
        counts.join(", "),
        t0.elapsed()
    );
    assert!(
        failures.is_empty(),
        "{} mutants failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn mutated_inputs_give_errors_not_panics() {
    check_every_input("inputs", Mode::Build);
}

/// The mutants that build also run: each one whose network is built is
/// run for [`RUN_WINDOW`] and must neither panic nor hang.
#[test]
fn mutated_inputs_that_build_run() {
    check_every_input("runs", Mode::Run);
}

/// The unmutated inputs are valid: every mutant starts from a working
/// input, so its error is the mutation's.
#[test]
fn the_unmutated_inputs_build() {
    let root =
        TempDir(std::env::temp_dir().join(format!("rdmasim-mutated-valid-{}", std::process::id())));
    let dir = input_dir(&root.0, "inputs");
    for text in [CONFIG_FAT_TREE, CONFIG_CROSS_DC, CONFIG_FILES, SWEEP_BASE] {
        let cfg = parse_config(text, "valid.toml").unwrap();
        let s = build_scenario(&cfg, &dir).unwrap_or_else(|e| panic!("{e}"));
        assert!(!s.flows.is_empty(), "{text}");
        rdmasim_experiment::config::build_timeseries(&cfg, &s).unwrap();
        build_network(s).unwrap();
    }
    let s = parse_sweep(SWEEP, "sweep.toml", &dir).unwrap();
    assert_eq!(plan(&s).unwrap().len(), 8);
    workload::parse_cdf(CDF, "cdf.txt").unwrap();
    topo::parse_peer_topology(PEER_TOPOLOGY, "topo.txt").unwrap();
    assert_eq!(
        workload::parse_peer_flows(PEER_FLOWS, "flows.txt")
            .unwrap()
            .len(),
        4
    );
    let c = load_peer_config(&dir.join("config.txt")).unwrap_or_else(|e| panic!("{e}"));
    assert!(c.unsupported.is_empty() && c.warnings.is_empty(), "{c:?}");
    build_network(c.scenario).unwrap();
}
