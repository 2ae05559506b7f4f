//! A fuzzer of rdmasim's input parsers that runs on the stable toolchain
//! (`docs/fuzzing.md`).
//!
//! Each [`Target`] is one kind of input file rdmasim reads: its TOML run
//! config, a sweep file, the peer simulator's config, topology and flow
//! files, and a flow-size CDF. Each has a seed corpus of small valid (and
//! some invalid) files in `crates/fuzz/corpus/<target>/`. [`fuzz`] draws
//! mutants of the corpus ([`mutate`]: bit flips, bytes set, inserted,
//! deleted or copied, cuts, numbers replaced by edge values, splices and
//! lines from other inputs), writes each to a file and reads it through
//! the same function `rdmasim` uses, inside `catch_unwind` on a worker
//! thread. A mutant passes if it is read, or if it gives one error of
//! one line that names an input file first, and a line of it where it
//! names one ([`judge`]). A panic, an error that names no file or a line
//! past the end, a multi-line error, or an input not read within
//! [`HANG`] fails.

pub mod mutate;

use engine::Rng;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// An input not read within this time has hung (valid ones take
/// milliseconds; a mutant that asks for the largest topology or workload
/// the limits allow takes seconds).
pub const HANG: Duration = Duration::from_secs(60);

/// One kind of input file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// rdmasim's TOML run config, built into a scenario (topology and
    /// flows generated), with its time series and capture settings.
    Config,
    /// A sweep file over `inputs/base.toml`, every run planned.
    Sweep,
    /// The peer simulator's config, with the topology and flow files it
    /// names (`@/` in the corpus stands for `inputs/`).
    PeerConfig,
    /// The peer's topology file.
    Topology,
    /// The peer's flow file.
    Flows,
    /// A flow-size CDF file.
    Cdf,
}

impl Target {
    /// Every target.
    pub const ALL: [Target; 6] = [
        Target::Config,
        Target::Sweep,
        Target::PeerConfig,
        Target::Topology,
        Target::Flows,
        Target::Cdf,
    ];

    /// Its name: the corpus directory and the `--target` value.
    pub fn name(self) -> &'static str {
        match self {
            Target::Config => "config",
            Target::Sweep => "sweep",
            Target::PeerConfig => "peer_config",
            Target::Topology => "topology",
            Target::Flows => "flows",
            Target::Cdf => "cdf",
        }
    }

    /// The target named `name`.
    pub fn from_name(name: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name() == name)
    }

    fn file_name(self) -> &'static str {
        match self {
            Target::Config => "mutant.toml",
            Target::Sweep => "mutant-sweep.toml",
            Target::PeerConfig => "mutant-config.txt",
            Target::Topology => "mutant-topology.txt",
            Target::Flows => "mutant-flows.txt",
            Target::Cdf => "mutant-cdf.txt",
        }
    }

    /// Read the file at `path` as rdmasim does (the files a config refers
    /// to are in `inputs`, its directory).
    fn read(self, path: &Path, inputs: &Path) -> Result<(), String> {
        let e = |e: &dyn fmt::Display| e.to_string();
        match self {
            Target::Config => {
                let cfg = experiment::load_config(path).map_err(|x| e(&x))?;
                let s = experiment::build_scenario(&cfg, inputs).map_err(|x| e(&x))?;
                experiment::config::build_timeseries(&cfg, &s).map_err(|x| e(&x))?;
                experiment::config::build_capture(&cfg, &s).map_err(|x| e(&x))?;
            }
            Target::Sweep => {
                let s = experiment::sweep::load_sweep(path).map_err(|x| e(&x))?;
                experiment::sweep::plan(&s).map_err(|x| e(&x))?;
            }
            Target::PeerConfig => {
                experiment::load_peer_config(path).map_err(|x| e(&x))?;
            }
            Target::Topology => {
                topo::load_peer_topology(path).map_err(|x| e(&x))?;
            }
            Target::Flows => {
                workload::load_peer_flows(path).map_err(|x| e(&x))?;
            }
            Target::Cdf => {
                workload::load_cdf(path).map_err(|x| e(&x))?;
            }
        }
        Ok(())
    }
}

/// The fuzzer's crate directory (corpus and inputs).
pub fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The files the corpus's inputs refer to.
pub fn inputs_dir() -> PathBuf {
    crate_dir().join("inputs")
}

/// The seed corpus of `t`: (file name, bytes), in name order.
pub fn corpus(t: Target) -> Vec<(String, Vec<u8>)> {
    let dir = crate_dir().join("corpus").join(t.name());
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|f| {
            let f = f.unwrap().path();
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&f).unwrap())
        })
        .collect();
    files.sort();
    files
}

/// What is wrong with the outcome of reading `input` from `path`, if
/// anything: a panic, or an error that is not one line naming an input
/// file (`path` or one in the directory `inputs`) first, then a line of
/// that file (or the one after its last, for its end) if it names one.
pub fn judge(
    outcome: &std::thread::Result<Result<(), String>>,
    path: &Path,
    input: &[u8],
    inputs: &Path,
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
            let at = PANIC_AT.lock().map(|s| s.clone()).unwrap_or_default();
            return Some(format!("panicked at {at}: {what}"));
        }
    };
    if msg.contains('\n') {
        return Some(format!("an error of more than one line: {msg}"));
    }
    let mutant = path.display().to_string();
    let (name, rest) = if let Some(rest) = msg.strip_prefix(mutant.as_str()) {
        (None, rest)
    } else {
        let inputs = inputs.display().to_string();
        match msg.strip_prefix(inputs.as_str()) {
            Some(rest) => {
                let file: String = rest.chars().take_while(|&c| c != ':').collect();
                (Some(file), &rest[rest.find(':').unwrap_or(rest.len())..])
            }
            None => return Some(format!("the error names no input file first: {msg}")),
        }
    };
    let Some(rest) = rest.strip_prefix(':') else {
        return Some(format!("no ':' after the file's name: {msg}"));
    };
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    if digits.is_empty() {
        return None;
    }
    let text = match name {
        None => input.to_vec(),
        Some(f) => std::fs::read(format!("{}{f}", inputs.display())).unwrap_or_default(),
    };
    // Lines as `str::lines` counts them; an error at the end of the file
    // may name the line after the last.
    let lines = text.iter().filter(|&&b| b == b'\n').count()
        + usize::from(text.last().is_some_and(|&b| b != b'\n'));
    match digits.parse::<usize>() {
        Ok(l) if (1..=lines + 1).contains(&l) => None,
        _ => Some(format!("line {digits} is not a line of the file: {msg}")),
    }
}

/// Where the last panic happened (the hook records it; the panic's
/// payload has only its message).
static PANIC_AT: Mutex<String> = Mutex::new(String::new());

/// Record panics' places instead of printing them: a fuzzer's panics are
/// reported with their inputs.
pub fn quiet_panics() {
    std::panic::set_hook(Box::new(|info| {
        if let Ok(mut s) = PANIC_AT.lock() {
            *s = info
                .location()
                .map(|l| format!("{}:{}", l.file(), l.line()))
                .unwrap_or_default();
        }
    }));
}

/// A mutant that failed.
#[derive(Clone, Debug)]
pub struct Failure {
    /// Its target.
    pub target: Target,
    /// What was done to which corpus file.
    pub what: String,
    /// What went wrong.
    pub verdict: String,
    /// The mutant.
    pub input: Vec<u8>,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} mutant ({}): {}\n--- input:\n{}\n---",
            self.target.name(),
            self.what,
            self.verdict,
            String::from_utf8_lossy(&self.input)
        )
    }
}

/// Copy the files the corpus refers to ([`inputs_dir`]) into `work`,
/// where the mutants are written: a sweep names its base config, and a
/// config its CDF, topology and flow files, relative to its own directory.
pub fn prepare(work: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(work)?;
    for f in std::fs::read_dir(inputs_dir())? {
        let f = f?.path();
        std::fs::copy(&f, work.join(f.file_name().unwrap_or_default()))?;
    }
    Ok(())
}

/// Read `input` as target `t` from a file in `work` ([`prepare`]d), on a
/// worker thread within [`HANG`]: whether it was read (`Ok(false)`:
/// refused with a clean error), or what is wrong.
pub fn check(t: Target, input: &[u8], work: &Path) -> Result<bool, String> {
    let path = work.join(t.file_name());
    // `@/` in a peer config stands for the directory of the inputs.
    let bytes = if t == Target::PeerConfig {
        replace(input, b"@/", format!("{}/", work.display()).as_bytes())
    } else {
        input.to_vec()
    };
    if let Err(e) = std::fs::write(&path, &bytes) {
        return Err(format!("cannot write {}: {e}", path.display()));
    }
    let (tx, rx) = mpsc::channel();
    let (p, w) = (path.clone(), work.to_path_buf());
    std::thread::spawn(move || {
        let outcome = catch_unwind(AssertUnwindSafe(|| t.read(&p, &w)));
        let _ = tx.send(outcome);
    });
    match rx.recv_timeout(HANG) {
        Ok(outcome) => match judge(&outcome, &path, &bytes, work) {
            Some(v) => Err(v),
            None => Ok(matches!(outcome, Ok(Ok(())))),
        },
        Err(_) => Err(format!("not read within {HANG:?} (a hang?)")),
    }
}

fn replace(b: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(from) {
            out.extend_from_slice(to);
            i += from.len();
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

/// How long to fuzz.
#[derive(Clone, Debug)]
pub struct Budget {
    /// Seed of the mutations.
    pub seed: u64,
    /// Mutants per target at most.
    pub iterations: u64,
    /// Time per target at most.
    pub time: Duration,
}

/// What a fuzzing run of one target did.
#[derive(Clone, Debug)]
pub struct TargetReport {
    /// The target.
    pub target: Target,
    /// Mutants read.
    pub mutants: u64,
    /// Of which read without error.
    pub accepted: u64,
    /// The failures.
    pub failures: Vec<Failure>,
}

/// Fuzz `t` within `budget`, in directory `work` ([`prepare`]d): first the corpus
/// itself, then mutants of it (the mutations of one corpus file at a
/// time, each one to four steps from it or from an earlier mutant that
/// was read). Stops at the first failure.
pub fn fuzz(t: Target, budget: &Budget, work: &Path) -> TargetReport {
    let seeds = corpus(t);
    let others: Vec<Vec<u8>> = Target::ALL
        .iter()
        .flat_map(|&o| corpus(o).into_iter().map(|(_, b)| b))
        .collect();
    let others: Vec<&[u8]> = others.iter().map(Vec::as_slice).collect();
    let mut r = TargetReport {
        target: t,
        mutants: 0,
        accepted: 0,
        failures: Vec::new(),
    };
    for (name, bytes) in &seeds {
        if let Err(v) = check(t, bytes, work) {
            r.failures.push(Failure {
                target: t,
                what: format!("corpus file {name}, unmutated"),
                verdict: v,
                input: bytes.clone(),
            });
            return r;
        }
    }
    let mut rng = Rng::stream(budget.seed, 0, t as u64);
    // Mutants that were read, to mutate further (a few, most recent).
    let mut pool: Vec<(String, Vec<u8>)> = Vec::new();
    let t0 = Instant::now();
    while r.mutants < budget.iterations && t0.elapsed() < budget.time {
        let (from, base) = if !pool.is_empty() && rng.below(3) == 0 {
            let (n, b) = &pool[rng.below(pool.len() as u64) as usize];
            (n.clone(), b.clone())
        } else {
            let (n, b) = &seeds[rng.below(seeds.len() as u64) as usize];
            (n.clone(), b.clone())
        };
        let (what, m) = mutate::mutate(&mut rng, &base, &others);
        r.mutants += 1;
        let what = format!("{from}: {what}");
        match check(t, &m, work) {
            Ok(read) => {
                // Read, or refused cleanly: worth mutating further.
                r.accepted += u64::from(read);
                let name = format!("a mutant of {}", from.trim_start_matches("a mutant of "));
                if pool.len() < 64 {
                    pool.push((name, m));
                } else {
                    let i = rng.below(64) as usize;
                    pool[i] = (name, m);
                }
            }
            Err(v) => {
                r.failures.push(Failure {
                    target: t,
                    what,
                    verdict: v,
                    input: m,
                });
                return r;
            }
        }
    }
    r
}
