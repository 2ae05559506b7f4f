//! `rdmasim`: a packet-level simulator of RDMA networks.
//!
//! This binary only orchestrates (as ripgrep's does): it parses arguments,
//! calls the `experiment` crate and turns the outcome into an exit code:
//!
//! * 0: the run was clean;
//! * 1: the run finished, but a checked invariant failed (a drop in a
//!   lossless fabric, unfinished flows); each is printed as
//!   `rdmasim: warning: ...`;
//! * 2: bad input or an I/O error, printed as `rdmasim: <message>`.

use clap::{CommandFactory, Parser, Subcommand};
use experiment::fmt::{fmt_count, fmt_ns, fmt_time, num};
use experiment::threads::EngineSpec;
use experiment::{config, ExperimentError, RunOptions, RunReport, Scenario};
use net::capture::CaptureConfig;
use net::monitor::MonitorConfig;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod bench;
mod buffer_cmd;
mod compare_cmd;
mod pipeline;

/// `rdmasim --version`: the package version and the commit built
/// (`build.rs`), so that a result can be traced to its source.
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("RDMASIM_GIT_COMMIT"),
    ")"
);

#[derive(Debug, Parser)]
#[command(name = "rdmasim", version = VERSION, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run an experiment described by an rdmasim TOML config.
    Run {
        /// The config file (see `rdmasim config --defaults`).
        config: PathBuf,
        /// Directory for the outputs [default: runs/<run.name>].
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Seed of every random stream, replacing the config's run.seed.
        #[arg(long, value_name = "N")]
        seed: Option<u64>,
        /// Show no progress line.
        #[arg(long, short)]
        quiet: bool,
        /// Threads for this one run, replacing the config's engine.threads
        /// [default: the machine's cores, capped by the partitions the
        /// network can be cut into]. Outputs are the same for any count.
        #[arg(long, value_name = "N")]
        threads: Option<u32>,
    },
    /// Check a config without running it: build its network and flows, and
    /// print what it would run.
    Check {
        /// The config file.
        config: PathBuf,
    },
    /// Run the HPCC peer simulator's config.txt (with its topology and flow files).
    Hpcc {
        /// The peer's config file.
        config: PathBuf,
        /// Also write a complete run directory here (flows.csv,
        /// summary.json, ports.csv, ...), which `rdmasim analyze` and
        /// `rdmasim plot` read.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// With --out: record every switch port's queues, pauses and
        /// throughput every INTERVAL (e.g. 10us) from the first flow's start,
        /// into timeseries.csv.
        #[arg(long, value_name = "INTERVAL", requires = "out")]
        timeseries: Option<String>,
        /// Show no progress line.
        #[arg(long, short)]
        quiet: bool,
        /// Also write the run's summary.json to this file (what `rdmasim compare` reads).
        #[arg(long, value_name = "FILE")]
        summary: Option<PathBuf>,
        /// Seed of every random stream (default 1); another seed is another run of the config.
        #[arg(long, value_name = "N")]
        seed: Option<u64>,
        /// Threads for this one run [default: the machine's cores, capped
        /// by the partitions the network can be cut into]. Outputs are the
        /// same for any count.
        #[arg(long, value_name = "N")]
        threads: Option<u32>,
    },
    /// Write the HPCC peer simulator's config.txt (with its topology and flow
    /// files) as rdmasim's TOML config, which `rdmasim run` runs as `rdmasim
    /// hpcc` runs the peer's config.
    Convert {
        /// The peer's config file.
        config: PathBuf,
        /// The TOML file to write [default: standard output]; the paths in
        /// it are relative to its directory.
        #[arg(long, short, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Run a peer config through the HPCC ns-3 simulator and rdmasim, and write both side by side.
    Compare(compare_cmd::CompareArgs),
    /// Run every combination of a sweep file's axes, in parallel; resumes where it stopped.
    Sweep(pipeline::SweepArgs),
    /// Slowdown statistics of runs (the peer script's buckets and fixed size buckets).
    Analyze(pipeline::AnalyzeArgs),
    /// Draw a figure (SVG or PNG) from run directories.
    Plot(pipeline::PlotArgs),
    /// Run the reference scenarios and print what each cost (events/s, CPU, memory).
    Bench(bench::BenchArgs),
    /// Print the buffer a long link needs under PFC, Swing, Bifrost and CBFC, with formulas.
    Buffer(buffer_cmd::BufferArgs),
    /// Print a shell's completion script (e.g. `rdmasim completions bash >
    /// ~/.local/share/bash-completion/completions/rdmasim`).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Show configuration.
    Config {
        /// Print every config key with its default and the default's source.
        #[arg(long)]
        defaults: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(Failure::Experiment(e)) => {
            eprintln!("rdmasim: {e}");
            ExitCode::from(e.exit_code().clamp(0, 255) as u8)
        }
        // Output closed early (e.g. piped into `head`): not an error.
        Err(Failure::Stdout(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(Failure::Stdout(e)) => {
            eprintln!("rdmasim: cannot write to standard output: {e}");
            ExitCode::from(2)
        }
    }
}

enum Failure {
    Experiment(ExperimentError),
    Stdout(std::io::Error),
}

impl From<ExperimentError> for Failure {
    fn from(e: ExperimentError) -> Self {
        Failure::Experiment(e)
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Self {
        Failure::Stdout(e)
    }
}

fn run(cli: Cli) -> Result<u8, Failure> {
    match cli.command {
        Command::Run {
            config,
            out,
            seed,
            quiet,
            threads,
        } => run_toml(&config, out, seed, quiet, threads),
        Command::Check { config } => check_toml(&config),
        Command::Hpcc {
            config,
            out,
            timeseries,
            quiet,
            summary,
            seed,
            threads,
        } => {
            let opts = RunOptions {
                progress: true,
                quiet,
                print_notes: true,
                config_notes: Vec::new(),
                config_toml: None,
                timeseries: None,
                capture: None,
                engine: Some(EngineSpec::default().with_cli_threads(threads)),
            };
            let report = experiment::run_peer_config(
                &config,
                out.as_deref(),
                timeseries.as_deref(),
                seed,
                &opts,
            )?;
            if let Some(path) = summary {
                std::fs::write(&path, experiment::compare::summary_json(&report.summary))
                    .map_err(|e| ExperimentError::io(&path, e))?;
            }
            finish(&report)
        }
        Command::Convert { config, out } => {
            let dir = out.as_deref().map(config::base_dir).unwrap_or_default();
            let toml = experiment::convert::convert_peer_config(&config, &dir)?;
            match out {
                Some(path) => {
                    std::fs::write(&path, toml).map_err(|e| ExperimentError::io(&path, e))?;
                    writeln!(std::io::stdout().lock(), "written: {}", path.display())?;
                }
                None => std::io::stdout().lock().write_all(toml.as_bytes())?,
            }
            Ok(0)
        }
        Command::Compare(a) => compare_cmd::compare(a),
        Command::Sweep(a) => pipeline::sweep(a),
        Command::Analyze(a) => pipeline::analyze(a),
        Command::Plot(a) => pipeline::plot(a),
        Command::Bench(a) => bench::bench(a),
        Command::Buffer(a) => buffer_cmd::buffer(a),
        Command::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "rdmasim", &mut out);
            std::io::stdout().lock().write_all(&out)?;
            Ok(0)
        }
        Command::Config { defaults } => {
            let mut out = std::io::stdout().lock();
            if defaults {
                out.write_all(experiment::defaults_toml().as_bytes())?;
            } else {
                writeln!(
                    out,
                    "rdmasim config --defaults prints every config key with its default"
                )?;
            }
            Ok(0)
        }
    }
}

/// A TOML config's text as written, its scenario, its time series and
/// the notes on the defaults it relies on ([`config::default_notes`]) and
/// its packet capture, `seed` replacing its `run.seed`; the note on the
/// time series' size, if any, is printed.
fn build_toml(path: &Path, seed: Option<u64>) -> Result<BuiltToml, ExperimentError> {
    let mut cfg = config::load_config(path)?;
    if let Some(seed) = seed {
        cfg.set_seed(seed);
    }
    let scenario = config::build_scenario(&cfg, &config::base_dir(path))?;
    let timeseries = config::build_timeseries(&cfg, &scenario)?;
    if let Some(note) = timeseries
        .as_ref()
        .and_then(|m| experiment::config::timeseries::size_note(m, &scenario))
    {
        eprintln!("rdmasim: note: {note}");
    }
    let notes = config::default_notes(&cfg);
    let capture = config::build_capture(&cfg, &scenario)?;
    Ok((cfg.text, scenario, timeseries, notes, capture))
}

/// What [`build_toml`] gives.
type BuiltToml = (
    String,
    Scenario,
    Option<MonitorConfig>,
    Vec<String>,
    Option<CaptureConfig>,
);

fn run_toml(
    path: &Path,
    out: Option<PathBuf>,
    seed: Option<u64>,
    quiet: bool,
    threads: Option<u32>,
) -> Result<u8, Failure> {
    let (mut text, scenario, timeseries, config_notes, capture) = build_toml(path, seed)?;
    let engine = config::build_engine(&config::load_config(path)?)?.with_cli_threads(threads);
    if let Some(seed) = seed {
        text = format!("# run with --seed {seed}, which replaces run.seed below\n{text}");
    }
    let out_dir = out.unwrap_or_else(|| Path::new("runs").join(&scenario.name));
    let opts = RunOptions {
        progress: true,
        quiet,
        print_notes: true,
        config_notes,
        config_toml: Some(text),
        timeseries,
        capture,
        engine: Some(engine),
    };
    let report = experiment::run_scenario(scenario, Some(&out_dir), &opts)?;
    finish(&report)
}

/// `rdmasim check`: build the config's network and flows as a run would,
/// print its notes and what it would run, and run nothing.
fn check_toml(path: &Path) -> Result<u8, Failure> {
    let (_, scenario, timeseries, config_notes, _) = build_toml(path, None)?;
    let c = experiment::check_scenario(scenario, timeseries.as_ref())?;
    for n in config_notes.iter().chain(&c.notes) {
        eprintln!("rdmasim: note: {n}");
    }
    let mut o = std::io::stdout().lock();
    let s = |n: usize| if n == 1 { "" } else { "s" };
    writeln!(
        o,
        "{}: {}, ready to run (nothing was run)",
        path.display(),
        c.name
    )?;
    writeln!(
        o,
        "topology: {} host{}, {} switch{}, {} link{}",
        c.hosts,
        s(c.hosts),
        c.switches,
        if c.switches == 1 { "" } else { "es" },
        c.links,
        s(c.links)
    )?;
    let starts = match c.starts {
        Some((a, b)) => format!(", starting from {} to {}", fmt_time(a), fmt_time(b)),
        None => String::new(),
    };
    let after_stop = match c.after_stop {
        0 => String::new(),
        n => format!(" ({n} start after the stop time: a run would never start them)"),
    };
    writeln!(o, "flows: {}{starts}{after_stop}", c.flows)?;
    writeln!(
        o,
        "schemes: cc {}, pfc {}, transport {}, ecn {}{}",
        c.cc,
        c.pfc,
        c.transport,
        if c.ecn { "on" } else { "off" },
        match c.ports_with_own_settings {
            0 => String::new(),
            n => format!(", {n} port{} with settings of their own", s(n)),
        }
    )?;
    let stop = c
        .stop
        .map_or("none (until every flow finishes)".into(), fmt_time);
    writeln!(o, "seed {}, stop {stop}", c.seed)?;
    Ok(0)
}

/// Print the summary and the warnings (the run printed its notes as it
/// found them); the exit code.
fn finish(report: &RunReport) -> Result<u8, Failure> {
    print_summary(report)?;
    for w in &report.invariant_failures {
        eprintln!("rdmasim: warning: {w}");
    }
    Ok(if report.invariant_failures.is_empty() {
        0
    } else {
        1
    })
}

fn print_summary(report: &RunReport) -> std::io::Result<()> {
    let s = &report.summary;
    let mut o = std::io::stdout().lock();
    writeln!(
        o,
        "{}: seed {}, cc {}, pfc {}, transport {}",
        s.name, s.seed, s.cc, s.pfc, s.transport
    )?;
    writeln!(
        o,
        "flows: {}/{} finished{}{}",
        s.flows.finished,
        s.flows.total,
        match (s.flows.unfinished, s.flows.not_started) {
            (0, _) => String::new(),
            (u, 0) => format!(" ({u} unfinished)"),
            (u, n) => format!(" ({u} unfinished, {n} of them never started)"),
        },
        if s.flows.endless > 0 {
            format!(
                ", {} endless bandwidth flows running at the stop",
                s.flows.endless
            )
        } else {
            String::new()
        }
    )?;
    writeln!(
        o,
        "{:<14} {:>7} {:>8} {:>8} {:>8} {:>8}",
        "slowdown", "flows", "avg", "p50", "p95", "p99"
    )?;
    for b in &s.slowdown {
        writeln!(
            o,
            "{:<14} {:>7} {:>8} {:>8} {:>8} {:>8}",
            b.label,
            b.count,
            num(b.avg, 2, "-"),
            num(b.p50, 2, "-"),
            num(b.p95, 2, "-"),
            num(b.p99, 2, "-")
        )?;
    }
    let c = &s.counters;
    writeln!(
        o,
        "drops {} (lossless {}), pauses {} / resumes {}, paused {} ns, ECN marks {}, corrupted {}, \
         retransmitted {} B, timeouts {}",
        c.drops,
        c.lossless_drops,
        c.pause_frames,
        c.resume_frames,
        c.paused_ns,
        c.ecn_marks,
        c.corrupted,
        c.retransmitted_bytes,
        c.timeouts
    )?;
    let e = &s.engine;
    let rss = e
        .peak_rss_mb
        .map(|m| format!(", peak RSS {m:.0} MiB"))
        .unwrap_or_default();
    writeln!(
        o,
        "simulated {}: {} events ({} ev/s), {} packet-hops ({}/s), wall {:.2} s, cpu {:.2} s{rss}",
        fmt_ns(e.sim_time_ns),
        e.events,
        fmt_count(e.events_per_s),
        e.packet_hops,
        fmt_count(e.packet_hops_per_s),
        e.wall_s,
        e.cpu_s,
    )?;
    if let Some(dir) = &report.out_dir {
        writeln!(o, "output: {}", dir.display())?;
    }
    o.flush()
}
