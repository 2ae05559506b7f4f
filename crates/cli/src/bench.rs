//! `rdmasim bench`: argument parsing and printing; the scenarios and the
//! measurement are in `experiment::bench`.
//!
//! Each scenario runs in a child process (this binary with the hidden
//! `--child` flag, which prints the scenario's CSV row), so that its peak
//! memory and CPU time are its own and not what earlier scenarios left in
//! the allocator; where the binary cannot start itself, the scenarios run
//! in this process.

use crate::Failure;
use clap::Args;
use engine::InputError;
use experiment::bench::{self, BenchOptions, BenchRow};
use experiment::ExperimentError;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// `rdmasim bench`.
#[derive(Debug, Args)]
pub(crate) struct BenchArgs {
    /// Tiny versions of the scenarios (a second or two in all; what the tests run).
    #[arg(long)]
    smoke: bool,
    /// Run only this scenario (repeatable): fat-dcqcn, fat-hpcc, incast, longhaul; or
    /// fat-k34 (10k hosts, minutes), which runs only when named.
    #[arg(long, value_name = "NAME")]
    scenario: Vec<String>,
    /// Replace each scenario's arrival window, e.g. 1ms (for profiling).
    #[arg(long, value_name = "DURATION", allow_hyphen_values = true)]
    window: Option<String>,
    /// Also write the table as CSV to this file (simulated time in ns, wall and CPU time in s, peak RSS in MiB).
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Run each scenario on each of these thread counts, e.g. 1,2 (rows of
    /// runs on more than one thread are named <scenario>/t<N>) [default: 1].
    #[arg(long, value_name = "N,...", value_delimiter = ',')]
    threads: Vec<u32>,
    /// Run the scenarios in this process and print their rows as CSV only.
    #[arg(long, hide = true)]
    child: bool,
}

fn bad(what: &str, msg: impl Into<String>) -> ExperimentError {
    ExperimentError::Input(InputError::at("<command line>", None, what, msg))
}

pub(crate) fn bench(a: BenchArgs) -> Result<u8, Failure> {
    let names: Vec<String> = if a.scenario.is_empty() {
        bench::SCENARIOS.iter().map(|s| s.to_string()).collect()
    } else {
        a.scenario.clone()
    };
    for n in &names {
        if !bench::SCENARIOS.contains(&n.as_str()) && !bench::ON_REQUEST.contains(&n.as_str()) {
            return Err(bad(
                "--scenario",
                format!(
                    "'{n}' is not one of {}, {}",
                    bench::SCENARIOS.join(", "),
                    bench::ON_REQUEST.join(", ")
                ),
            )
            .into());
        }
    }
    let window = match &a.window {
        Some(w) => {
            let d = engine::units::parse_time(w).map_err(|m| bad("--window", m))?;
            if d == engine::Delta::ZERO {
                return Err(bad(
                    "--window",
                    format!("the window '{w}' must be greater than zero"),
                )
                .into());
            }
            Some(d)
        }
        None => None,
    };
    let threads = if a.threads.is_empty() {
        vec![1]
    } else {
        a.threads.clone()
    };
    let opts = |threads: u32| BenchOptions {
        smoke: a.smoke,
        window,
        threads,
    };
    for &t in &threads {
        if t == 0 {
            return Err(bad("--threads", "must be at least 1 (got 0)").into());
        }
        for n in &names {
            bench::check_threads(n, &opts(t)).map_err(|m| bad("--threads", m))?;
        }
    }
    if a.child {
        let rows: Vec<BenchRow> = names
            .iter()
            .flat_map(|n| threads.iter().map(move |&t| (n, t)))
            .map(|(n, t)| bench::run(n, &opts(t)).expect("a known scenario"))
            .collect();
        let mut o = std::io::stdout().lock();
        o.write_all(bench::csv(&rows).as_bytes())?;
        o.flush()?;
        return Ok(0);
    }
    // The CSV file is created before the scenarios run, so a path that
    // cannot be written fails at once, not after minutes of running.
    let csv_file = match &a.csv {
        Some(path) => Some((
            path,
            std::fs::File::create(path).map_err(|e| ExperimentError::io(path, e))?,
        )),
        None => None,
    };
    let mut rows: Vec<BenchRow> = Vec::new();
    for n in &names {
        for &t in &threads {
            eprintln!("rdmasim: bench: running {n} on {t} thread(s)");
            let row = match in_child(n, t, &a) {
                Some(r) => r,
                None => bench::run(n, &opts(t)).expect("a known scenario"),
            };
            rows.push(row);
        }
    }
    let mut o = std::io::stdout().lock();
    write!(o, "{}", bench::table(&rows))?;
    let per = if rows.iter().all(BenchRow::rates_per_cpu_second) {
        "rates per CPU second"
    } else {
        "rates per CPU second (per wall second where a scenario took under 0.05 CPU-s, \
         too short for the 10 ms CPU clock)"
    };
    writeln!(
        o,
        "{per}; packets = data frames delivered to hosts; \
         each scenario in its own process (peak RSS = its VmHWM)"
    )?;
    o.flush()?;
    if let Some((path, mut file)) = csv_file {
        file.write_all(bench::csv(&rows).as_bytes())
            .and_then(|()| file.flush())
            .map_err(|e| ExperimentError::io(path, e))?;
    }
    let mut code = 0;
    for r in &rows {
        if r.finished < r.flows {
            eprintln!(
                "rdmasim: warning: {}: {} of {} flows did not finish",
                r.name,
                r.flows - r.finished,
                r.flows
            );
            code = 1;
        }
        if r.drops > 0 {
            eprintln!("rdmasim: warning: {}: {} frames dropped", r.name, r.drops);
            code = 1;
        }
    }
    Ok(code)
}

/// Run scenario `name` in a child process; `None` where that fails (the
/// caller then runs it in this process).
fn in_child(name: &str, threads: u32, a: &BenchArgs) -> Option<BenchRow> {
    let exe = std::env::current_exe().ok()?;
    let mut cmd = Command::new(exe);
    let threads = threads.to_string();
    cmd.args([
        "bench",
        "--child",
        "--scenario",
        name,
        "--threads",
        &threads,
    ]);
    if a.smoke {
        cmd.arg("--smoke");
    }
    if let Some(w) = &a.window {
        cmd.args(["--window", w]);
    }
    let out = cmd.stderr(Stdio::inherit()).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let rows = bench::parse_csv(&String::from_utf8_lossy(&out.stdout)).ok()?;
    rows.into_iter().next()
}
