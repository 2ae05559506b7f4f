//! Running a sweep: take its directory's lock, skip the runs already
//! done, run the rest in parallel with a progress bar, then write
//! `index.csv` (and the report, if the sweep has one).

use super::parse::{input_err, load_sweep, plan};
use super::plan::{PlannedRun, Sweep};
use super::report::{write_report, Comparison, RunNumbers};
use super::report_spec::ReportSpec;
use crate::config::timeseries::{estimate, LARGE_BYTES};
use crate::config::{self};
use crate::error::ExperimentError;
use crate::fmt::csv_field;
use crate::run::run_scenario;
use crate::scenario::RunOptions;
use std::fmt::Write as _;
use std::fs;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub use crate::locate::SWEEP_FILES;

pub(super) const LOCK: &str = ".sweep.lock";

/// How to run a sweep.
#[derive(Clone, Debug, Default)]
pub struct SweepOptions {
    /// Runs at once; default: the machine's cores.
    pub jobs: Option<usize>,
    /// The sweep directory; default `runs/<name>`.
    pub out: Option<PathBuf>,
    /// Print nothing while running.
    pub quiet: bool,
    /// Run only the run of this index (0-based, in grid order, as
    /// `index.csv` lists them), if it is not done: one task of a cluster's
    /// job array ([`super::slurm`]). Such a start takes no lock, so that
    /// the tasks run side by side in one directory, removes nothing, and
    /// writes neither `index.csv` nor the report: a plain start once every
    /// task has ended does that, rerunning whatever failed.
    pub only: Option<usize>,
}

/// What became of one run of a sweep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunStatus {
    /// Complete before this start, so not run again; the invariants its
    /// `summary.json` records as failed (empty if it was clean).
    Skipped(Vec<String>),
    /// Ran and is clean.
    Clean,
    /// Ran; these invariants failed (the run directory is written).
    Invariants(Vec<String>),
    /// Could not run or could not be written.
    Failed(String),
}

/// The outcome of a sweep.
#[derive(Clone, Debug)]
pub struct SweepReport {
    /// The sweep's name.
    pub name: String,
    /// The sweep directory.
    pub dir: PathBuf,
    /// Every run, in grid order, with what became of it; with
    /// [`SweepOptions::only`], that run alone.
    pub runs: Vec<(String, RunStatus)>,
    /// [`SweepOptions::only`]: the index of the one run this start was
    /// for; it wrote no `index.csv`.
    pub only: Option<usize>,
    /// Temporary directories of earlier, interrupted sweeps that were removed.
    pub cleaned: Vec<String>,
    /// Wall-clock time of this start, s.
    pub wall_s: f64,
    /// With `[report]`: the published reductions beside ours.
    pub comparisons: Vec<Comparison>,
    /// With `[report]`: every run's numbers (pooled rows included).
    pub numbers: Vec<RunNumbers>,
    /// Every run's directory name and variant ("" without variants).
    pub variant_runs: Vec<(String, String)>,
    /// The sweep's `[report]`.
    pub report: Option<ReportSpec>,
}

impl SweepReport {
    /// Runs with this status kind.
    pub fn count(&self, f: impl Fn(&RunStatus) -> bool) -> usize {
        self.runs.iter().filter(|(_, s)| f(s)).count()
    }
    /// The exit code: 2 if a run failed, 1 if an invariant failed, else 0.
    /// Runs done by an earlier start count with the invariants their
    /// summaries record, so that starting a sweep again cannot turn its
    /// exit code into success.
    pub fn exit_code(&self) -> u8 {
        if self.count(|s| matches!(s, RunStatus::Failed(_))) > 0 {
            2
        } else if self.count(RunStatus::has_warnings) > 0 {
            1
        } else {
            0
        }
    }
}

impl RunStatus {
    /// Whether an invariant failed, in this start or in the earlier one
    /// that ran it.
    pub fn has_warnings(&self) -> bool {
        match self {
            RunStatus::Invariants(w) | RunStatus::Skipped(w) => !w.is_empty(),
            RunStatus::Clean | RunStatus::Failed(_) => false,
        }
    }
}

/// Holds the sweep directory's lock file while alive.
pub(super) struct Lock(PathBuf);

impl Lock {
    pub(super) fn take(dir: &Path) -> Result<Lock, ExperimentError> {
        let path = dir.join(LOCK);
        let me = std::process::id();
        if let Ok(text) = fs::read_to_string(&path) {
            if let Ok(pid) = text.trim().parse::<u32>() {
                if pid != me && alive(pid) {
                    return Err(input_err(
                        &dir.display().to_string(),
                        None,
                        "",
                        format!(
                            "another sweep (process {pid}) is running in this directory; wait \
                             for it, or delete {} if that process is not rdmasim",
                            path.display()
                        ),
                    ));
                }
            }
        }
        fs::write(&path, format!("{me}\n")).map_err(|e| ExperimentError::io(&path, e))?;
        Ok(Lock(path))
    }
}

/// Whether process `pid` runs (Linux: `/proc/<pid>` exists); `false` where
/// that cannot be told.
pub(super) fn alive(pid: u32) -> bool {
    let proc_dir = Path::new("/proc");
    proc_dir.is_dir() && proc_dir.join(pid.to_string()).exists()
}

impl Lock {
    #[cfg(test)]
    pub(super) fn holder(dir: &Path) -> Option<u32> {
        fs::read_to_string(dir.join(LOCK)).ok()?.trim().parse().ok()
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.0);
    }
}

/// Remove `<run>.tmp-<pid>` and `<run>.old-<pid>` directories (and an
/// `index.csv.tmp-<pid>`): what a killed sweep left. Returns their names.
pub(super) fn clean_stale(dir: &Path) -> Result<Vec<String>, ExperimentError> {
    let mut removed = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| ExperimentError::io(dir, e))? {
        let entry = entry.map_err(|e| ExperimentError::io(dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let stale = [".tmp-", ".old-"].iter().any(|m| {
            name.rfind(m).is_some_and(|i| {
                let pid = &name[i + m.len()..];
                !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit())
            })
        });
        if stale {
            let p = entry.path();
            let gone = if entry.file_type().is_ok_and(|t| t.is_dir()) {
                fs::remove_dir_all(&p)
            } else {
                fs::remove_file(&p)
            };
            gone.map_err(|e| ExperimentError::io(&p, e))?;
            removed.push(name);
        }
    }
    removed.sort();
    Ok(removed)
}

/// If `dir` holds the complete run of `r`: the invariants its summary
/// records as failed (empty if none). A summary that cannot be read or
/// lacks those numbers is not a complete run: it is run again, so that
/// every run a sweep skips has a known outcome.
fn done_status(dir: &Path, r: &PlannedRun) -> Option<Vec<String>> {
    if !fs::read_to_string(dir.join("config.toml")).is_ok_and(|t| t == r.config_toml) {
        return None;
    }
    let text = fs::read_to_string(dir.join("summary.json")).ok()?;
    summary_warnings(&serde_json::from_str(&text).ok()?)
}

/// The invariants a summary records as failed, checked as a run checks
/// them (`run::invariants`: no flows, lossless drops, unfinished
/// flows); `None`
/// if the summary lacks the numbers.
pub(super) fn summary_warnings(v: &serde_json::Value) -> Option<Vec<String>> {
    let n = |a: &str, b: &str| v.get(a).and_then(|x| x.get(b)).and_then(|x| x.as_u64());
    let unfinished = n("flows", "unfinished")?;
    let lossless = n("counters", "lossless_drops")?;
    let s = |k: u64| if k == 1 { "" } else { "s" };
    let mut out = Vec::new();
    if n("flows", "total") == Some(0) {
        out.push("the workload has no flows, so nothing was simulated".to_string());
    }
    if lossless > 0 {
        out.push(format!(
            "{lossless} packet{} dropped at ports under hop-by-hop flow control (a lossless \
             fabric)",
            s(lossless)
        ));
    }
    if unfinished > 0 {
        // Endless bandwidth flows are neither finished nor unfinished.
        let of = n("flows", "total")
            .map(|t| t.saturating_sub(n("flows", "endless").unwrap_or(0)))
            .map_or(String::new(), |t| format!(" of {t} flow{}", s(t)));
        out.push(match n("flows", "not_started").unwrap_or(0) {
            0 => format!("{unfinished}{of} did not finish"),
            never if never == unfinished => format!("{never}{of} never started"),
            never => format!(
                "{}{of} started but did not finish, and {never} more never started",
                unfinished - never
            ),
        });
    }
    Some(out)
}

/// Appends lines to `sweep.log`.
struct Log(Mutex<fs::File>);

impl Log {
    fn open(path: &Path) -> Result<Log, ExperimentError> {
        let f = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| ExperimentError::io(path, e))?;
        Ok(Log(Mutex::new(f)))
    }
    fn line(&self, what: &str, run: &str, extra: &str) {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs_f64())
            .unwrap_or(0.0);
        let line = format!("{t:.3} {what} {run} pid={}{extra}\n", std::process::id());
        if let Ok(mut f) = self.0.lock() {
            // One write per line: appends of whole lines, even from threads.
            let _ = f.write_all(line.as_bytes());
        }
    }
}

/// Run a sweep file: check it, skip what is done, run the rest on `jobs`
/// threads with a progress bar, write `index.csv`.
pub fn run_sweep(path: &Path, opts: &SweepOptions) -> Result<SweepReport, ExperimentError> {
    let t0 = Instant::now();
    let sweep = load_sweep(path)?;
    let runs = plan(&sweep)?;
    let dir = opts
        .out
        .clone()
        .unwrap_or_else(|| Path::new("runs").join(&sweep.name));
    if let Some(i) = opts.only {
        if i >= runs.len() {
            return Err(ExperimentError::Input(engine::InputError::at(
                "<command line>",
                None,
                "--only",
                format!(
                    "{i} is not a run of the sweep: it has {} runs, 0 to {}",
                    runs.len(),
                    runs.len().saturating_sub(1)
                ),
            )));
        }
    }
    fs::create_dir_all(&dir).map_err(|e| ExperimentError::io(&dir, e))?;
    let (_lock, cleaned) = match opts.only {
        Some(_) => (None, Vec::new()),
        None => (Some(Lock::take(&dir)?), clean_stale(&dir)?),
    };
    let log = Log::open(&dir.join("sweep.log"))?;

    let mut done: Vec<Option<Vec<String>>> = runs
        .iter()
        .enumerate()
        .map(|(i, r)| match opts.only {
            Some(only) if only != i => Some(Vec::new()),
            _ => done_status(&dir.join(&r.name), r),
        })
        .collect();
    let todo: Vec<usize> = (0..runs.len()).filter(|&i| done[i].is_none()).collect();
    let show = !opts.quiet;
    if let (true, Some(i)) = (show, opts.only) {
        let what = if todo.is_empty() {
            "already done"
        } else {
            "to run"
        };
        eprintln!(
            "rdmasim: {}: run {i} (of 0 to {}: {}), {what}; output in {}",
            sweep.name,
            runs.len() - 1,
            runs[i].name,
            dir.display()
        );
    } else if show {
        let done = runs.len() - todo.len();
        let mut msg = format!("{}: {} runs", sweep.name, runs.len());
        if done > 0 {
            let _ = write!(msg, ", {done} already done");
        }
        if !cleaned.is_empty() {
            let _ = write!(msg, ", removed {} unfinished", cleaned.len());
        }
        eprintln!("rdmasim: {msg}; output in {}", dir.display());
    }
    let jobs = opts
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, todo.len().max(1));
    let base_dir = config::base_dir(&sweep.base);

    // Time series of every run to do, for one size note.
    let mut ts_bytes = 0u64;
    for &i in &todo {
        let cfg = &runs[i].config;
        if cfg.doc.timeseries.is_some() {
            let s = config::build_scenario(cfg, &base_dir)?;
            if let Some(m) = config::build_timeseries(cfg, &s)? {
                ts_bytes += estimate(&m, &s).bytes;
            }
        }
    }
    if show {
        for note in build_notes(&runs, &todo) {
            eprintln!("rdmasim: note: {note}");
        }
    }
    if show && ts_bytes > LARGE_BYTES {
        eprintln!(
            "rdmasim: note: the runs' time series will take about {:.0} MB",
            ts_bytes as f64 / 1e6
        );
    }

    let bar = if show && std::io::stderr().is_terminal() {
        let b = indicatif::ProgressBar::new(todo.len() as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} runs done, {msg}, ETA {eta}",
            )
            .expect("a valid template")
            .progress_chars("=> "),
        );
        b.set_message("0 running");
        b.enable_steady_tick(Duration::from_millis(200));
        Some(b)
    } else {
        None
    };
    let running = AtomicUsize::new(0);
    let finished = AtomicUsize::new(0);
    let next = AtomicUsize::new(0);
    let status: Vec<Mutex<Option<RunStatus>>> = (0..runs.len()).map(|_| Mutex::new(None)).collect();
    let set_running = |n: usize| {
        if let Some(b) = &bar {
            b.set_message(format!("{n} running"));
        }
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| ExperimentError::Unsupported(format!("cannot start threads: {e}")))?;
    pool.scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|_| loop {
                let k = next.fetch_add(1, Ordering::SeqCst);
                let Some(&i) = todo.get(k) else { break };
                let r = &runs[i];
                set_running(running.fetch_add(1, Ordering::SeqCst) + 1);
                log.line("start", &r.name, "");
                let started = Instant::now();
                let (st, mut notes) = run_one(r, &dir, &base_dir);
                // Printed before the runs (still in the run's summary).
                notes.retain(|n| !r.notes.contains(n));
                let secs = started.elapsed().as_secs_f64();
                let what = match &st {
                    RunStatus::Clean => "done",
                    RunStatus::Invariants(_) => "done-with-warnings",
                    _ => "failed",
                };
                log.line(what, &r.name, &format!(" wall_s={secs:.3}"));
                set_running(running.fetch_sub(1, Ordering::SeqCst) - 1);
                let n = finished.fetch_add(1, Ordering::SeqCst) + 1;
                let line = match &st {
                    RunStatus::Clean => format!("{} ({secs:.1} s)", r.name),
                    RunStatus::Invariants(w) => {
                        format!("{} ({secs:.1} s): warning: {}", r.name, w.join("; "))
                    }
                    RunStatus::Failed(e) => format!("{}: failed: {e}", r.name),
                    RunStatus::Skipped(_) => unreachable!("only runs to do are run"),
                };
                match &bar {
                    Some(b) => {
                        if !matches!(st, RunStatus::Clean) {
                            b.println(format!("rdmasim: {line}"));
                        }
                        for note in &notes {
                            b.println(format!("rdmasim: note: {}: {note}", r.name));
                        }
                        b.inc(1);
                    }
                    None if show => {
                        eprintln!("rdmasim: [{n}/{}] {line}", todo.len());
                        for note in &notes {
                            eprintln!("rdmasim: note: {}: {note}", r.name);
                        }
                    }
                    None => {}
                }
                if let Ok(mut s) = status[i].lock() {
                    *s = Some(st);
                }
            });
        }
    });
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let runs_status: Vec<(String, RunStatus)> = runs
        .iter()
        .zip(status)
        .zip(&mut done)
        .map(|((r, s), d)| {
            let s = s
                .into_inner()
                .ok()
                .flatten()
                .unwrap_or_else(|| match d.take() {
                    Some(w) => RunStatus::Skipped(w),
                    // A run to do that left no outcome must not pass for clean.
                    None => RunStatus::Failed("it ran but recorded no outcome".into()),
                });
            (r.name.clone(), s)
        })
        .collect();
    let (runs_status, (comparisons, numbers)) = match opts.only {
        // The one run asked for; the others are other tasks'.
        Some(i) => (vec![runs_status[i].clone()], Default::default()),
        None => {
            write_index(&dir, &sweep, &runs, &runs_status)?;
            let report = match &sweep.report {
                Some(spec) => write_report(&dir, &sweep, spec, &runs)?,
                None => Default::default(),
            };
            (runs_status, report)
        }
    };
    Ok(SweepReport {
        comparisons,
        numbers,
        variant_runs: runs
            .iter()
            .map(|r| {
                let v = r.values.iter().find(|(k, _)| k == "variant");
                (
                    r.name.clone(),
                    v.map(|(_, v)| v.clone()).unwrap_or_default(),
                )
            })
            .collect(),
        report: sweep.report.clone().filter(|_| opts.only.is_none()),
        name: sweep.name,
        dir,
        runs: runs_status,
        only: opts.only,
        cleaned,
        wall_s: t0.elapsed().as_secs_f64(),
    })
}

/// The distinct notes of building the runs `todo`, in the order first met.
fn build_notes<'a>(runs: &'a [PlannedRun], todo: &[usize]) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for n in todo.iter().flat_map(|&i| &runs[i].notes) {
        if !out.contains(&n.as_str()) {
            out.push(n);
        }
    }
    out
}

fn run_one(r: &PlannedRun, dir: &Path, base_dir: &Path) -> (RunStatus, Vec<String>) {
    let go = || -> Result<(Vec<String>, Vec<String>), ExperimentError> {
        let mut s = config::build_scenario(&r.config, base_dir)?;
        s.name = r.name.clone();
        let timeseries = config::build_timeseries(&r.config, &s)?;
        let capture = config::build_capture(&r.config, &s)?;
        let opts = RunOptions {
            progress: false,
            quiet: true,
            print_notes: false,
            config_notes: Vec::new(),
            config_toml: Some(r.config_toml.clone()),
            timeseries,
            capture,
            // A sweep runs its runs in parallel, each on one thread.
            engine: None,
        };
        let report = run_scenario(s, Some(&dir.join(&r.name)), &opts)?;
        Ok((report.invariant_failures, report.notes))
    };
    match go() {
        Ok((w, notes)) if w.is_empty() => (RunStatus::Clean, notes),
        Ok((w, notes)) => (RunStatus::Invariants(w), notes),
        Err(e) => (RunStatus::Failed(e.to_string()), Vec::new()),
    }
}

/// Columns of `index.csv` after the axis values, and where each is found
/// in `summary.json`.
const INDEX_COLUMNS: [(&str, &[&str]); 16] = [
    ("flows", &["flows", "total"]),
    ("finished", &["flows", "finished"]),
    ("unfinished", &["flows", "unfinished"]),
    ("slowdown_avg", &["slowdown", "all", "avg"]),
    ("slowdown_p50", &["slowdown", "all", "p50"]),
    ("slowdown_p95", &["slowdown", "all", "p95"]),
    ("slowdown_p99", &["slowdown", "all", "p99"]),
    ("drops", &["counters", "drops"]),
    ("pause_frames", &["counters", "pause_frames"]),
    ("paused_ns", &["counters", "paused_ns"]),
    ("ecn_marks", &["counters", "ecn_marks"]),
    ("retransmitted_bytes", &["counters", "retransmitted_bytes"]),
    ("timeouts", &["counters", "timeouts"]),
    ("events", &["engine", "events"]),
    ("sim_time_ns", &["engine", "sim_time_ns"]),
    ("wall_s", &["engine", "wall_s"]),
];

/// One number of a summary: `slowdown.all` is the row labelled `all`.
pub(super) fn summary_value(v: &serde_json::Value, path: &[&str]) -> String {
    let mut cur = v;
    for p in path {
        cur = match cur {
            serde_json::Value::Array(rows) => match rows
                .iter()
                .find(|r| r.get("label").and_then(|l| l.as_str()) == Some(p))
            {
                Some(r) => r,
                None => return String::new(),
            },
            other => match other.get(p) {
                Some(x) => x,
                None => return String::new(),
            },
        };
    }
    match cur {
        serde_json::Value::Number(n) => n.to_string(),
        serde_json::Value::String(s) => s.clone(),
        _ => String::new(),
    }
}

/// Write `index.csv`: `run`, one column per axis, `status`, then
/// [`INDEX_COLUMNS`] from each run's `summary.json`, then `notes`, how many
/// notes the run's summary has (its `notes` say what they are).
fn write_index(
    dir: &Path,
    sweep: &Sweep,
    runs: &[PlannedRun],
    status: &[(String, RunStatus)],
) -> Result<(), ExperimentError> {
    let mut s = String::from("run");
    for a in &sweep.axes {
        s.push(',');
        s.push_str(&csv_field(&a.key));
    }
    s.push_str(",status");
    for (c, _) in INDEX_COLUMNS {
        s.push(',');
        s.push_str(c);
    }
    s.push_str(",notes\n");
    for (r, (_, st)) in runs.iter().zip(status) {
        s.push_str(&csv_field(&r.name));
        for (_, v) in &r.values {
            let v = v
                .strip_prefix('"')
                .and_then(|x| x.strip_suffix('"'))
                .unwrap_or(v);
            s.push(',');
            s.push_str(&csv_field(v));
        }
        let summary = fs::read_to_string(dir.join(&r.name).join("summary.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok());
        let st = match (st, &summary) {
            (RunStatus::Failed(_), _) => "failed",
            (_, None) => "missing",
            (st, _) if st.has_warnings() => "warning",
            (_, Some(v)) if summary_warnings(v).is_none_or(|w| !w.is_empty()) => "warning",
            _ => "ok",
        };
        s.push(',');
        s.push_str(st);
        for (_, path) in INDEX_COLUMNS {
            s.push(',');
            if let Some(v) = &summary {
                s.push_str(&summary_value(v, path));
            }
        }
        s.push(',');
        if let Some(v) = &summary {
            let n = v
                .get("notes")
                .and_then(|n| n.as_array())
                .map_or(0, Vec::len);
            s.push_str(&n.to_string());
        }
        s.push('\n');
    }
    let path = dir.join("index.csv");
    let tmp = dir.join(format!("index.csv.tmp-{}", std::process::id()));
    fs::write(&tmp, s)
        .and_then(|()| fs::rename(&tmp, &path))
        .map_err(|e| ExperimentError::io(&path, e))
}

/// A one-line account of a finished sweep, for people. Warnings count
/// every run, those already done included, as the exit code does; how
/// many of them were already done says why a start that ran nothing
/// still warns.
pub fn describe(r: &SweepReport) -> String {
    if let (Some(i), [(name, st)]) = (r.only, r.runs.as_slice()) {
        let what = match st {
            RunStatus::Skipped(_) => "was already done",
            RunStatus::Clean => "ran",
            RunStatus::Invariants(_) => "ran, with warnings",
            RunStatus::Failed(_) => "failed",
        };
        return format!(
            "{}: run {i} ({name}) {what} in {:.1} s; a start without --only writes {} once \
             every run is done",
            r.name,
            r.wall_s,
            r.dir.join("index.csv").display()
        );
    }
    let skipped = r.count(|s| matches!(s, RunStatus::Skipped(_)));
    let ran = r.runs.len() - skipped;
    let warn = r.count(RunStatus::has_warnings);
    let warn_done = r.count(|s| matches!(s, RunStatus::Skipped(_)) && s.has_warnings());
    let failed = r.count(|s| matches!(s, RunStatus::Failed(_)));
    let mut s = format!(
        "{}: {} runs ({ran} ran, {skipped} already done",
        r.name,
        r.runs.len()
    );
    if warn > 0 {
        let _ = write!(s, ", {warn} with warnings");
        if warn_done > 0 {
            let _ = write!(s, ", {warn_done} of them already done");
        }
    }
    if failed > 0 {
        let _ = write!(s, ", {failed} failed");
    }
    let _ = write!(
        s,
        ") in {:.1} s; index: {}",
        r.wall_s,
        r.dir.join("index.csv").display()
    );
    s
}
