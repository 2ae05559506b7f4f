//! The experiment-pipeline subcommands: `sweep`, `analyze` and `plot`.
//! Argument parsing and printing only; the work is in
//! `experiment::{sweep, analyze}` and the `plot` crate.

use crate::Failure;
use clap::{Args, Subcommand};
use experiment::analyze::{self, AnalyzeOptions, Class};
use experiment::sweep::{self, RunStatus, SweepOptions};
use experiment::ExperimentError;
use std::io::Write;
use std::path::PathBuf;

/// `rdmasim sweep`.
#[derive(Debug, Args)]
pub(crate) struct SweepArgs {
    /// The sweep file: base = "CONFIG.toml", name = "...", [axes] "key" = [values].
    file: PathBuf,
    /// Runs at once [default: the machine's cores].
    #[arg(long, short, value_name = "N")]
    jobs: Option<usize>,
    /// The sweep's directory [default: runs/<name>].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Show no progress.
    #[arg(long, short)]
    quiet: bool,
    /// Run only run N (0-based, in the order of index.csv), if not done:
    /// one task of a cluster's job array. Writes no index.csv; a start
    /// without --only does, once every run is done.
    #[arg(long, value_name = "N")]
    only: Option<usize>,
    /// Run nothing; write a job script into the sweep's directory whose
    /// task i runs run i (`slurm`: a Slurm job array).
    #[arg(long, value_name = "KIND", conflicts_with = "only")]
    emit: Option<Emit>,
}

/// `rdmasim sweep --emit`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum Emit {
    /// A Slurm job array (`sbatch`).
    Slurm,
}

pub(crate) fn sweep(a: SweepArgs) -> Result<u8, Failure> {
    if a.jobs == Some(0) {
        return Err(bad("--jobs", "must be at least 1").into());
    }
    if let Some(Emit::Slurm) = a.emit {
        let exe = std::env::current_exe()
            .map_err(|e| bad("--emit", format!("cannot find the rdmasim binary: {e}")))?;
        let s = sweep::slurm::write_slurm_script(&a.file, a.out.as_deref(), &exe)?;
        let mut o = std::io::stdout().lock();
        writeln!(
            o,
            "written: {} (a job array of {} tasks, 0 to {})",
            s.path.display(),
            s.runs,
            s.runs - 1
        )?;
        writeln!(o, "submit:  job=$(sbatch --parsable {})", s.path.display())?;
        writeln!(
            o,
            "then:    sbatch --dependency=afterany:$job --wrap \"{}\"",
            s.collect.replace('"', "\\\"")
        )?;
        return Ok(0);
    }
    let opts = SweepOptions {
        jobs: a.jobs,
        out: a.out,
        quiet: a.quiet,
        only: a.only,
    };
    let report = sweep::run_sweep(&a.file, &opts)?;
    let mut o = std::io::stdout().lock();
    writeln!(o, "{}", sweep::describe(&report))?;
    if let Some(spec) = &report.report {
        report_plots(&report, spec)?;
        writeln!(
            o,
            "report: {} ({} published numbers compared; {} with the same sign)",
            report.dir.join("report.md").display(),
            report.comparisons.len(),
            report
                .comparisons
                .iter()
                .filter(|c| c.sign_matches())
                .count()
        )?;
    }
    for (name, st) in &report.runs {
        match st {
            RunStatus::Invariants(w) => {
                for w in w {
                    eprintln!("rdmasim: warning: {name}: {w}");
                }
            }
            // Said again on every start: the exit code counts them.
            RunStatus::Skipped(w) => {
                for w in w {
                    eprintln!("rdmasim: warning: {name} (already done): {w}");
                }
            }
            RunStatus::Failed(e) => eprintln!("rdmasim: {name}: {e}"),
            RunStatus::Clean => {}
        }
    }
    Ok(report.exit_code())
}

/// FCT CDFs of a report's variants: all flows, and the group of dport 100
/// (`normal`) if it has one; one figure per point of the other axes (the
/// first point only, to keep the directory small). With one numeric axis
/// besides the variants and seeds, each group's p99 and average slowdown
/// against it, one line per variant.
fn report_plots(
    r: &sweep::SweepReport,
    spec: &experiment::sweep::ReportSpec,
) -> Result<(), Failure> {
    let done: Vec<&(String, String)> = r
        .variant_runs
        .iter()
        .filter(|(name, _)| r.dir.join(name).join("flows.csv").exists())
        .collect();
    // Runs of the first point: one per variant, in variant order.
    let mut runs = Vec::new();
    let mut labels = Vec::new();
    for (name, variant) in &done {
        if !labels.contains(variant) {
            runs.push(r.dir.join(name));
            labels.push(variant.clone());
        }
    }
    if runs.is_empty() {
        return Ok(());
    }
    goodput_plot(r, spec)?;
    port_plots(r, spec, &runs, &labels)?;
    let mut classes = vec![(Class::All, "fct_cdf.png".to_string())];
    let normal = experiment::sweep::GroupOf::Dports(vec![experiment::config::DEFAULT_DPORT]);
    if let Some((g, _)) = spec.groups.iter().find(|(_, d)| *d == normal) {
        classes.push((Class::Normal, format!("fct_cdf_{g}.png")));
    }
    for (class, file) in classes {
        let o = AnalyzeOptions {
            class,
            ..AnalyzeOptions::default()
        };
        // A variant in which no flow of the class finished (a deadlock, a
        // stop time before any finished) has no CDF: it is left out of the
        // figure, with a warning, rather than failing the whole report.
        let (mut kept, mut kept_labels) = (Vec::new(), Vec::new());
        for (run, label) in runs.iter().zip(&labels) {
            let flows = analyze::read_flows(&analyze::flows_path(run))?;
            if analyze::filter(&flows, &o)
                .iter()
                .any(|f| f.fct_ns.is_some())
            {
                kept.push(run.clone());
                kept_labels.push(label.clone());
            } else {
                let which = match class {
                    Class::All => String::new(),
                    c => format!("{} ", c.name()),
                };
                eprintln!(
                    "rdmasim: warning: {file}: variant {label} left out: no {which}flow \
                     finished in {}",
                    run.display()
                );
            }
        }
        if kept.is_empty() {
            continue;
        }
        let c = plot::Common {
            out: r.dir.join(&file),
            labels: Some(kept_labels),
            title: Some(format!("{}: FCT, {} flows", r.name, class.name())),
            size: (900, 600),
        };
        plot::cdf(&kept, plot::CdfOf::Fct, &o, &c)?;
    }
    // Each group's metrics against the sweep's one axis (a paper's figure
    // form): `<group>_<metric>.png`.
    for f in experiment::sweep::axis_figures(spec, &r.numbers) {
        let what = match f.metric {
            experiment::sweep::Metric::SlowdownP99 => "p99 slowdown",
            experiment::sweep::Metric::SlowdownAvg => "average slowdown",
            experiment::sweep::Metric::FctAvg => "average FCT (us)",
            experiment::sweep::Metric::FctP99 => "p99 FCT (us)",
            m => m.name(),
        };
        let c = plot::Common {
            out: r.dir.join(format!("{}_{}.png", f.group, f.metric.name())),
            labels: None,
            title: Some(format!("{}: {what}, {} flows", r.name, f.group)),
            size: (900, 600),
        };
        plot::series(&f.lines, &f.axis, what, &c)?;
    }
    Ok(())
}

/// With a published goodput (`metric = "goodput"`): each variant's
/// goodput against the sweep's axis (`goodput.png`), when there is one
/// axis and its values are sizes or numbers.
fn goodput_plot(
    r: &sweep::SweepReport,
    spec: &experiment::sweep::ReportSpec,
) -> Result<(), Failure> {
    if !spec
        .paper
        .iter()
        .any(|p| p.metric == experiment::sweep::Metric::Goodput)
    {
        return Ok(());
    }
    let by = sweep::report::goodput_by_variant(&r.dir, &r.variant_runs);
    let mut axis = None;
    let mut series = Vec::new();
    for (variant, points) in by {
        let mut pts = Vec::new();
        for (point, g) in points {
            // One axis: "key=value".
            let Some((k, v)) = point.split_once('=').filter(|_| !point.contains(',')) else {
                return Ok(());
            };
            axis.get_or_insert_with(|| k.to_string());
            let x = match engine::units::parse_bytes(v) {
                Ok(b) => b as f64,
                Err(_) => match v.parse::<f64>() {
                    Ok(x) => x,
                    Err(_) => return Ok(()),
                },
            };
            pts.push((x, g));
        }
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        series.push((variant, pts));
    }
    let Some(axis) = axis else { return Ok(()) };
    let c = plot::Common {
        out: r.dir.join("goodput.png"),
        labels: None,
        title: Some(format!("{}: goodput", r.name)),
        size: (900, 600),
    };
    // An axis of sizes (1 KB to 1 MB) spans enough to be drawn on a log scale.
    plot::series(&series, &axis, "Goodput (Gb/s)", &c)?;
    Ok(())
}

/// With `[report] ports` and time series in the runs: each port's
/// throughput over time, one line per variant at the first point
/// (`throughput_<name>.png`).
fn port_plots(
    r: &sweep::SweepReport,
    spec: &experiment::sweep::ReportSpec,
    runs: &[PathBuf],
    labels: &[String],
) -> Result<(), Failure> {
    let with: Vec<usize> = (0..runs.len())
        .filter(|&i| runs[i].join("timeseries.csv").exists())
        .collect();
    if with.is_empty() {
        return Ok(());
    }
    let kept: Vec<PathBuf> = with.iter().map(|&i| runs[i].clone()).collect();
    let names: Vec<String> = with.iter().map(|&i| labels[i].clone()).collect();
    for (name, node, port) in &spec.ports {
        let c = plot::Common {
            out: r.dir.join(format!("throughput_{name}.png")),
            labels: Some(names.clone()),
            title: Some(format!("{}: {name} (node {node} port {port})", r.name)),
            size: (900, 600),
        };
        let sel = plot::PortSel {
            node: *node,
            port: *port,
            class: None,
        };
        plot::throughput(&kept, sel, &c)?;
    }
    Ok(())
}

/// Which flows to keep, shared by `analyze` and the flow plots.
#[derive(Debug, Args)]
pub(crate) struct FlowFilter {
    /// Flow class: normal (dport 100), incast (dport 200) or all; in a
    /// flows.csv or a peer fct.txt alike.
    #[arg(long, default_value = "all", value_name = "CLASS")]
    class: String,
    /// Keep flows completed in [START, END): e.g. 0,5ms or ,2000000 (ns);
    /// END is the peer script's -T.
    #[arg(long, value_name = "START,END", allow_hyphen_values = true)]
    window: Option<String>,
    /// Peer buckets: this percent of the flows each.
    #[arg(long, default_value_t = AnalyzeOptions::default().step, value_name = "PCT")]
    step: f64,
}

fn bad(what: &str, msg: impl Into<String>) -> ExperimentError {
    ExperimentError::Input(engine::InputError::at("<command line>", None, what, msg))
}

impl FlowFilter {
    fn options(&self) -> Result<AnalyzeOptions, ExperimentError> {
        let class = Class::parse(&self.class).ok_or_else(|| {
            bad(
                "--class",
                format!("'{}' is not normal, incast or all", self.class),
            )
        })?;
        let min = analyze::MIN_PEER_STEP;
        if !(self.step.is_finite() && self.step >= min && self.step <= 100.0) {
            return Err(bad(
                "--step",
                format!(
                    "{} must be in [{min}, 100] (percent of the flows)",
                    self.step
                ),
            ));
        }
        let (from_ns, until_ns) = match &self.window {
            Some(w) => analyze::parse_window(w).map_err(|m| bad("--window", m))?,
            None => (None, None),
        };
        Ok(AnalyzeOptions {
            step: self.step,
            class,
            from_ns,
            until_ns,
            ..AnalyzeOptions::default()
        })
    }
}

/// `rdmasim analyze`.
#[derive(Debug, Args)]
pub(crate) struct AnalyzeArgs {
    /// Run directories, flows.csv files, or the peer's fct.txt files (no
    /// header; `sip dip sport dport size start_ns fct_ns ideal_fct_ns` per
    /// finished flow, as the peer and `rdmasim hpcc` write them), or a
    /// sweep's directory (each of its runs, in grid order, labelled by its
    /// axis values); the first is the baseline.
    #[arg(required = true, value_name = "RUN_DIR")]
    runs: Vec<PathBuf>,
    #[command(flatten)]
    filter: FlowFilter,
    /// Also write every table as one CSV.
    #[arg(long, short, value_name = "FILE")]
    out: Option<PathBuf>,
}

/// `runs`, each sweep's directory among them replaced by its complete
/// runs, labelled by their axis values ([`analyze::expand_sweep_dirs`]).
fn expand(runs: &[PathBuf]) -> Result<Vec<PathBuf>, ExperimentError> {
    analyze::expand_sweep_dirs(runs)
}

pub(crate) fn analyze(a: AnalyzeArgs) -> Result<u8, Failure> {
    let o = a.filter.options()?;
    let runs = analyze::analyze_runs(&expand(&a.runs)?, &o)?;
    let mut out = std::io::stdout().lock();
    out.write_all(analyze::render(&runs, &o).as_bytes())?;
    if let Some(path) = &a.out {
        let mut buf = Vec::new();
        analyze::write_csv(&runs, &o, &mut buf).map_err(|e| ExperimentError::io(path, e))?;
        std::fs::write(path, buf).map_err(|e| ExperimentError::io(path, e))?;
        writeln!(out, "\nwritten: {}", path.display())?;
    }
    Ok(0)
}

/// `rdmasim plot`.
#[derive(Debug, Args)]
pub(crate) struct PlotArgs {
    #[command(subcommand)]
    kind: PlotKind,
}

/// Options of every figure.
#[derive(Debug, Args)]
struct FigureArgs {
    /// The figure file: .svg or .png [default: <kind>.svg].
    #[arg(long, short, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Legend names, comma-separated, one per run [default: from the directory names].
    #[arg(long, value_name = "A,B,...")]
    labels: Option<String>,
    /// Title.
    #[arg(long)]
    title: Option<String>,
    /// Width x height in pixels, each from 100 to 10000.
    #[arg(long, default_value = "1000x620", value_name = "WxH")]
    size: String,
}

/// A port of the time series.
#[derive(Debug, Args)]
struct PortArgs {
    /// Node id.
    #[arg(long)]
    node: u32,
    /// Local port (link order, from 0).
    #[arg(long)]
    port: u16,
}

#[derive(Debug, Subcommand)]
enum PlotKind {
    /// p50 and p99 slowdown against flow size (the peer's buckets), one colour per run.
    Slowdown {
        /// Run directories (or flows.csv or the peer's fct.txt files), or a
        /// sweep's directory: each of its runs, labelled by its axis values.
        #[arg(required = true, value_name = "RUN_DIR")]
        runs: Vec<PathBuf>,
        #[command(flatten)]
        filter: FlowFilter,
        #[command(flatten)]
        fig: FigureArgs,
    },
    /// CDF of flow completion time (or slowdown), one line per run.
    Cdf {
        /// Run directories (or flows.csv or the peer's fct.txt files), or a
        /// sweep's directory: each of its runs, labelled by its axis values.
        #[arg(required = true, value_name = "RUN_DIR")]
        runs: Vec<PathBuf>,
        /// Plot the CDF of slowdown instead of FCT.
        #[arg(long)]
        slowdown: bool,
        #[command(flatten)]
        filter: FlowFilter,
        #[command(flatten)]
        fig: FigureArgs,
    },
    /// One port's egress queue over time (needs a [timeseries] run).
    Queue {
        /// Run directories, or a sweep's directory: each of its runs,
        /// labelled by its axis values.
        #[arg(required = true, value_name = "RUN_DIR")]
        runs: Vec<PathBuf>,
        #[command(flatten)]
        port: PortArgs,
        /// Only this class [default: every recorded class].
        #[arg(long)]
        class: Option<u8>,
        #[command(flatten)]
        fig: FigureArgs,
    },
    /// One port's sending rate over time (needs a [timeseries] run).
    Throughput {
        /// Run directories, or a sweep's directory: each of its runs,
        /// labelled by its axis values.
        #[arg(required = true, value_name = "RUN_DIR")]
        runs: Vec<PathBuf>,
        #[command(flatten)]
        port: PortArgs,
        #[command(flatten)]
        fig: FigureArgs,
    },
    /// A Bifrost port's slots over time: L, F, L + F and H (needs a run
    /// with bifrost_trace = true).
    Bifrost {
        /// The run directory (or its bifrost_trace.csv).
        run: PathBuf,
        #[command(flatten)]
        port: PortArgs,
        /// Also draw Theorem 1's lower bound Δ + R_s·T, in bytes.
        #[arg(long, value_name = "BYTES")]
        lower: Option<u64>,
        #[command(flatten)]
        fig: FigureArgs,
    },
    /// When ports were PFC-paused (needs a [timeseries] run).
    Pause {
        /// The run directory.
        run: PathBuf,
        /// Only this node's ports.
        #[arg(long)]
        node: Option<u32>,
        /// Show at most this many (port, class) rows, the most paused.
        #[arg(long, default_value_t = 24)]
        rows: usize,
        #[command(flatten)]
        fig: FigureArgs,
    },
}

/// The width and height a figure may have, in pixels.
const FIGURE_PIXELS: std::ops::RangeInclusive<u32> = 100..=10_000;

impl FigureArgs {
    fn common(&self, kind: &str) -> Result<plot::Common, ExperimentError> {
        // Parsed wider than a pixel count, so that a number past the range
        // is told as out of range, not as a malformed size.
        let (w, h): (u64, u64) = self
            .size
            .split_once(['x', 'X'])
            .and_then(|(w, h)| Some((w.trim().parse().ok()?, h.trim().parse().ok()?)))
            .ok_or_else(|| {
                bad(
                    "--size",
                    format!("'{}' is not WxH, e.g. 1000x620", self.size),
                )
            })?;
        let pixels = |n: u64| u32::try_from(n).ok().filter(|n| FIGURE_PIXELS.contains(n));
        let (Some(w), Some(h)) = (pixels(w), pixels(h)) else {
            return Err(bad(
                "--size",
                format!(
                    "{w}x{h} is out of range: width and height must each be from {} to {} \
                     pixels",
                    FIGURE_PIXELS.start(),
                    FIGURE_PIXELS.end()
                ),
            ));
        };
        Ok(plot::Common {
            out: self
                .out
                .clone()
                .unwrap_or_else(|| PathBuf::from(format!("{kind}.svg"))),
            labels: self
                .labels
                .as_ref()
                .map(|l| l.split(',').map(|s| s.trim().to_string()).collect()),
            title: self.title.clone(),
            size: (w, h),
        })
    }
}

pub(crate) fn plot(a: PlotArgs) -> Result<u8, Failure> {
    let c = match a.kind {
        PlotKind::Slowdown { runs, filter, fig } => {
            let c = fig.common("slowdown")?;
            let runs = expand(&runs)?;
            plot::slowdown(&runs, &filter.options()?, &c)?;
            c
        }
        PlotKind::Cdf {
            runs,
            slowdown,
            filter,
            fig,
        } => {
            let c = fig.common("cdf")?;
            let runs = expand(&runs)?;
            let of = if slowdown {
                plot::CdfOf::Slowdown
            } else {
                plot::CdfOf::Fct
            };
            plot::cdf(&runs, of, &filter.options()?, &c)?;
            c
        }
        PlotKind::Queue {
            runs,
            port,
            class,
            fig,
        } => {
            let c = fig.common("queue")?;
            let runs = expand(&runs)?;
            let sel = plot::PortSel {
                node: port.node,
                port: port.port,
                class,
            };
            plot::queue(&runs, sel, &c)?;
            c
        }
        PlotKind::Throughput { runs, port, fig } => {
            let c = fig.common("throughput")?;
            let runs = expand(&runs)?;
            let sel = plot::PortSel {
                node: port.node,
                port: port.port,
                class: None,
            };
            plot::throughput(&runs, sel, &c)?;
            c
        }
        PlotKind::Bifrost {
            run,
            port,
            lower,
            fig,
        } => {
            let c = fig.common("bifrost")?;
            analyze::refuse_sweep_dir(&run)?;
            plot::bifrost(&run, port.node, port.port, lower, &c)?;
            c
        }
        PlotKind::Pause {
            run,
            node,
            rows,
            fig,
        } => {
            let c = fig.common("pause")?;
            analyze::refuse_sweep_dir(&run)?;
            plot::pause(&run, node, rows, &c)?;
            c
        }
    };
    writeln!(std::io::stdout().lock(), "written: {}", c.out.display())?;
    Ok(0)
}
