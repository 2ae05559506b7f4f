//! rdmasim's figures, as SVG or PNG (by the output file's extension), drawn
//! with `plotters` from run directories:
//!
//! - [`slowdown`]: p50 and p99 slowdown against flow size, the peer
//!   script's equal-count buckets, one colour per run;
//! - [`cdf`]: the CDF of flow completion times (or slowdowns);
//! - [`queue`], [`throughput`]: one port's egress queue or sending rate over
//!   time, from `timeseries.csv`;
//! - [`pause`]: when each port was PFC-paused, one row per (port, class);
//! - [`series`]: a metric against a sweep's axis, one line per variant.
//!
//! Text is drawn with DejaVu Sans, shipped in `assets/` and compiled in, so
//! PNGs render the same on a machine without fonts.
#![warn(missing_docs, missing_debug_implementations, unreachable_pub)]

use engine::InputError;
use experiment::analyze::{self, AnalyzeOptions};
use experiment::output::timeseries::{read_ports_csv, PortRow};
use experiment::ExperimentError;
use image::codecs::png::PngEncoder;
use image::ImageEncoder;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

static FONT: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");

/// Throughput plots average consecutive samples down to about this many
/// points per line.
const MAX_THROUGHPUT_POINTS: usize = 400;
/// Lines with more points than this are drawn 1 px wide: plotters' wide
/// lines get spikes at the sharp corners of dense, jagged series.
const THIN_ABOVE: usize = 500;

/// Tableau 10: distinct colours, in order.
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// Options every figure takes.
#[derive(Clone, Debug)]
pub struct Common {
    /// The file to write; `.svg` or `.png`.
    pub out: PathBuf,
    /// Legend names, one per run; default: from the run directories' names.
    pub labels: Option<Vec<String>>,
    /// Title; default: one per kind of figure.
    pub title: Option<String>,
    /// Width and height, pixels.
    pub size: (u32, u32),
}

/// How values on an axis are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fmt {
    Bytes,
    Plain,
}

#[derive(Clone, Debug)]
struct Axis {
    label: String,
    lo: f64,
    hi: f64,
    log: bool,
    fmt: Fmt,
}

#[derive(Clone, Debug)]
struct Line {
    label: Option<String>,
    color: usize,
    dashed: bool,
    points: Vec<(f64, f64)>,
}

#[derive(Clone, Debug)]
struct Bar {
    x0: f64,
    x1: f64,
    y0: f64,
    y1: f64,
    color: usize,
}

/// What to draw, independent of the backend.
#[derive(Clone, Debug)]
struct Figure {
    title: String,
    x: Axis,
    y: Axis,
    lines: Vec<Line>,
    bars: Vec<Bar>,
    /// Names of rows for a categorical y axis (row i spans [i, i+1)).
    rows: Vec<String>,
    legend: Corner,
}

/// Where the legend goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Corner {
    UpperRight,
    LowerRight,
}

fn input(what: &str, msg: impl Into<String>) -> ExperimentError {
    ExperimentError::Input(InputError::at("<command line>", None, what, msg))
}

fn labels(runs: &[PathBuf], c: &Common) -> Result<Vec<String>, ExperimentError> {
    match &c.labels {
        Some(l) if l.len() == runs.len() => Ok(l.clone()),
        Some(l) => Err(input(
            "--labels",
            format!(
                "{} labels for {} runs; give one per run",
                l.len(),
                runs.len()
            ),
        )),
        None => Ok(analyze::labels(runs)),
    }
}

/// Smallest and largest of `v` (finite values only), padded for a
/// linear or log axis.
fn bounds(v: impl Iterator<Item = f64>, log: bool) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for x in v.filter(|x| x.is_finite() && (!log || *x > 0.0)) {
        lo = lo.min(x);
        hi = hi.max(x);
    }
    if lo > hi {
        return if log { (1.0, 10.0) } else { (0.0, 1.0) };
    }
    if log {
        (lo / 1.25, hi * 1.25)
    } else if hi == lo {
        (lo - 1.0, hi + 1.0)
    } else {
        (lo, hi + (hi - lo) * 0.05)
    }
}

/// p50 and p99 slowdown against flow size, the peer's buckets of
/// `o.step` % of the flows, one colour per run (p50 solid, p99 dashed).
pub fn slowdown(runs: &[PathBuf], o: &AnalyzeOptions, c: &Common) -> Result<(), ExperimentError> {
    let names = labels(runs, c)?;
    let mut a = analyze::analyze_runs(runs, o)?;
    let mut lines = Vec::new();
    for (k, (r, name)) in a.iter_mut().zip(&names).enumerate() {
        if r.peer.is_empty() {
            return Err(input(
                "RUN_DIR",
                format!("{}: no finished flow passes the filters", r.path.display()),
            ));
        }
        let pts = |f: fn(&stats::PeerBucket) -> f64| {
            r.peer
                .iter()
                .map(|b| (b.max_size as f64, f(b)))
                .collect::<Vec<_>>()
        };
        lines.push(Line {
            label: Some(format!("{name} p50")),
            color: k,
            dashed: false,
            points: pts(|b| b.p50),
        });
        lines.push(Line {
            label: Some(format!("{name} p99")),
            color: k,
            dashed: true,
            points: pts(|b| b.p99),
        });
    }
    let xs = lines.iter().flat_map(|l| l.points.iter().map(|p| p.0));
    let (xlo, xhi) = bounds(xs, true);
    let ys: Vec<f64> = lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.1))
        .collect();
    let ymax = ys.iter().copied().fold(1.0f64, f64::max);
    let ylog = ymax > 20.0;
    let (ylo, yhi) = if ylog {
        (1.0, ymax * 1.3)
    } else {
        (1.0, 1.0 + (ymax - 1.0) * 1.1 + 0.05)
    };
    let fig = Figure {
        title: c.title.clone().unwrap_or_else(|| {
            format!(
                "Slowdown by flow size ({}% of flows per point, class {})",
                o.step,
                o.class.name()
            )
        }),
        x: Axis {
            label: "Flow size (bytes, largest in bucket)".into(),
            lo: xlo,
            hi: xhi,
            log: true,
            fmt: Fmt::Bytes,
        },
        y: Axis {
            label: "FCT slowdown (FCT / ideal FCT)".into(),
            lo: ylo,
            hi: yhi,
            log: ylog,
            fmt: Fmt::Plain,
        },
        lines,
        bars: Vec::new(),
        rows: Vec::new(),
        legend: Corner::UpperRight,
    };
    render(&fig, c)
}

/// Which value a CDF is of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CdfOf {
    /// Flow completion time.
    Fct,
    /// Slowdown.
    Slowdown,
}

/// The CDF of FCT (µs) or slowdown of the finished flows the filters keep,
/// one line per run.
pub fn cdf(
    runs: &[PathBuf],
    of: CdfOf,
    o: &AnalyzeOptions,
    c: &Common,
) -> Result<(), ExperimentError> {
    let names = labels(runs, c)?;
    let mut lines = Vec::new();
    for (k, (run, name)) in runs.iter().zip(&names).enumerate() {
        let path = analyze::flows_path(run);
        let kept = analyze::filter(&analyze::read_flows(&path)?, o);
        let mut v: Vec<f64> = kept
            .iter()
            .filter_map(|r| match of {
                CdfOf::Fct => r.fct_ns.map(|f| f as f64 / 1e3),
                CdfOf::Slowdown => r.slowdown,
            })
            .collect();
        if v.is_empty() {
            return Err(input(
                "RUN_DIR",
                format!("{}: no finished flow passes the filters", path.display()),
            ));
        }
        v.sort_by(f64::total_cmp);
        let n = v.len();
        // At most ~2000 points: every flow for small runs, quantiles else.
        let stride = n.div_ceil(2000).max(1);
        let mut pts: Vec<(f64, f64)> = (0..n)
            .step_by(stride)
            .map(|i| (v[i], (i + 1) as f64 / n as f64))
            .collect();
        pts.push((v[n - 1], 1.0));
        pts.insert(0, (v[0], 0.0));
        lines.push(Line {
            label: Some(name.clone()),
            color: k,
            dashed: false,
            points: pts,
        });
    }
    let (xlo, xhi) = bounds(
        lines.iter().flat_map(|l| l.points.iter().map(|p| p.0)),
        true,
    );
    let (title, xlabel) = match of {
        CdfOf::Fct => ("CDF of flow completion time", "Flow completion time (us)"),
        CdfOf::Slowdown => ("CDF of FCT slowdown", "FCT slowdown (FCT / ideal FCT)"),
    };
    let fig = Figure {
        title: c
            .title
            .clone()
            .unwrap_or_else(|| format!("{title} (class {})", o.class.name())),
        x: Axis {
            label: xlabel.into(),
            lo: xlo,
            hi: xhi,
            log: true,
            fmt: Fmt::Plain,
        },
        y: Axis {
            label: "Fraction of flows".into(),
            lo: 0.0,
            hi: 1.02,
            log: false,
            fmt: Fmt::Plain,
        },
        lines,
        bars: Vec::new(),
        rows: Vec::new(),
        legend: Corner::LowerRight,
    };
    render(&fig, c)
}

/// One line of [`series`]: a name and its (x, y) points.
pub type Series = (String, Vec<(f64, f64)>);

/// A metric against a sweep's axis, one line per series (a variant), as
/// a paper draws a figure of, say, p99 slowdown by load. An axis is drawn
/// on a log scale when its finite positive values span 16× or more.
pub fn series(
    lines: &[Series],
    xlabel: &str,
    ylabel: &str,
    c: &Common,
) -> Result<(), ExperimentError> {
    let finite = |v: f64| v.is_finite();
    let wide = |v: &mut dyn Iterator<Item = f64>| {
        let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
        for x in v.filter(|x| finite(*x)) {
            if x <= 0.0 {
                return false;
            }
            lo = lo.min(x);
            hi = hi.max(x);
        }
        lo.is_finite() && hi / lo >= 16.0
    };
    let xlog = wide(&mut lines.iter().flat_map(|l| l.1.iter().map(|p| p.0)));
    let ylog = wide(&mut lines.iter().flat_map(|l| l.1.iter().map(|p| p.1)));
    let drawn: Vec<Line> = lines
        .iter()
        .enumerate()
        .map(|(k, (name, pts))| Line {
            label: Some(name.clone()),
            color: k,
            dashed: false,
            points: pts
                .iter()
                .copied()
                .filter(|p| finite(p.0) && finite(p.1))
                .collect(),
        })
        .collect();
    let (xlo, xhi) = bounds(
        drawn.iter().flat_map(|l| l.points.iter().map(|p| p.0)),
        xlog,
    );
    let (ylo, yhi) = bounds(
        drawn.iter().flat_map(|l| l.points.iter().map(|p| p.1)),
        ylog,
    );
    let fig = Figure {
        title: c
            .title
            .clone()
            .unwrap_or_else(|| format!("{ylabel} by {xlabel}")),
        x: Axis {
            label: xlabel.into(),
            lo: xlo,
            hi: xhi,
            log: xlog,
            fmt: Fmt::Plain,
        },
        y: Axis {
            label: ylabel.into(),
            lo: if ylog { ylo } else { ylo.min(0.0) },
            hi: yhi,
            log: ylog,
            fmt: Fmt::Plain,
        },
        lines: drawn,
        bars: Vec::new(),
        rows: Vec::new(),
        legend: Corner::UpperRight,
    };
    render(&fig, c)
}

/// A port of a run's time series.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortSel {
    /// Node.
    pub node: u32,
    /// Local port (link order, from 0).
    pub port: u16,
    /// Class, for queues (default: every recorded class).
    pub class: Option<u8>,
}

fn timeseries_path(run: &Path) -> Result<PathBuf, ExperimentError> {
    let p = if run.is_dir() {
        run.join("timeseries.csv")
    } else {
        run.to_path_buf()
    };
    if !p.is_file() {
        return Err(input(
            "RUN_DIR",
            format!(
                "{} does not exist; record one with a [timeseries] section in the config",
                p.display()
            ),
        ));
    }
    Ok(p)
}

/// Lines of `metric` at port `sel` of each run, one per (run, class).
fn port_lines(
    runs: &[PathBuf],
    names: &[String],
    sel: PortSel,
    metric: &str,
    scale: f64,
) -> Result<Vec<Line>, ExperimentError> {
    let mut lines = Vec::new();
    for (k, (run, name)) in runs.iter().zip(names).enumerate() {
        let path = timeseries_path(run)?;
        let rows = read_ports_csv(&path, |r: &PortRow| {
            r.node == sel.node
                && r.port == sel.port
                && r.metric == metric
                && (sel.class.is_none() || r.class == sel.class)
        })?;
        if rows.is_empty() {
            return Err(input(
                "--node/--port",
                format!(
                    "{} has no {metric} samples for node {} port {}{}",
                    path.display(),
                    sel.node,
                    sel.port,
                    sel.class.map(|c| format!(" class {c}")).unwrap_or_default()
                ),
            ));
        }
        let mut by_class: BTreeMap<Option<u8>, Vec<(f64, f64)>> = BTreeMap::new();
        for r in rows {
            by_class
                .entry(r.class)
                .or_default()
                .push((r.time_ns as f64 / 1e3, r.value * scale));
        }
        let several = by_class.len() > 1;
        for (class, points) in by_class {
            let label = match class {
                Some(c) if several => format!("{name} class {c}"),
                _ => name.clone(),
            };
            lines.push(Line {
                label: Some(label),
                color: lines.len().max(k),
                dashed: false,
                points,
            });
        }
    }
    Ok(lines)
}

fn time_figure(title: String, ylabel: &str, lines: Vec<Line>) -> Figure {
    let (xlo, xhi) = bounds(
        lines.iter().flat_map(|l| l.points.iter().map(|p| p.0)),
        false,
    );
    let ymax = lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.1))
        .fold(0.0f64, f64::max);
    Figure {
        title,
        x: Axis {
            label: "Time (us)".into(),
            lo: xlo,
            hi: xhi,
            log: false,
            fmt: Fmt::Plain,
        },
        y: Axis {
            label: ylabel.into(),
            lo: 0.0,
            hi: if ymax > 0.0 { ymax * 1.08 } else { 1.0 },
            log: false,
            fmt: Fmt::Plain,
        },
        lines,
        bars: Vec::new(),
        rows: Vec::new(),
        legend: Corner::UpperRight,
    }
}

/// A Bifrost port's slots over time (`bifrost_trace.csv` of a run): L, F,
/// L + F and the two bounds of Theorem 1 (Bifrost §IV-C1), in MB. H is read
/// from the trace (`L_plus_F_minus_H`); the lower bound Δ + R_s·T needs
/// `delta_rst` (bytes), drawn when given.
pub fn bifrost(
    run: &Path,
    node: u32,
    port: u16,
    delta_rst: Option<u64>,
    c: &Common,
) -> Result<(), ExperimentError> {
    let path = if run.is_dir() {
        run.join("bifrost_trace.csv")
    } else {
        run.to_path_buf()
    };
    let text = engine::input::read_text(&path).map_err(|e| {
        input(
            "RUN_DIR",
            format!(
                "cannot read {}: {e}; run with bifrost_trace = true on a Bifrost port",
                path.display()
            ),
        )
    })?;
    let mut lines_it = text.lines();
    let header: Vec<&str> = lines_it.next().unwrap_or("").split(',').collect();
    let col = |n: &str| {
        header
            .iter()
            .position(|c| *c == n)
            .ok_or_else(|| input("RUN_DIR", format!("{}: no column {n}", path.display())))
    };
    let (cn, cp, ct, cl, cf, ch) = (
        col("node")?,
        col("port")?,
        col("time_ns")?,
        col("L")?,
        col("F")?,
        col("L_plus_F_minus_H")?,
    );
    let (mut l, mut f, mut lf, mut h) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for row in lines_it {
        let v: Vec<&str> = row.split(',').collect();
        // A row with a value that is not a finite number is left out.
        let num = |i: usize| {
            v.get(i)
                .and_then(|x| x.parse::<f64>().ok())
                .filter(|x| x.is_finite())
        };
        if num(cn) != Some(f64::from(node)) || num(cp) != Some(f64::from(port)) {
            continue;
        }
        let (Some(t), Some(lv), Some(fv), Some(d)) = (num(ct), num(cl), num(cf), num(ch)) else {
            continue;
        };
        let x = t / 1e3;
        l.push((x, lv / 1e6));
        f.push((x, fv / 1e6));
        lf.push((x, (lv + fv) / 1e6));
        h.push((x, (lv + fv - d) / 1e6));
    }
    if l.is_empty() {
        return Err(input(
            "--node/--port",
            format!("{} has no slots of node {node} port {port}", path.display()),
        ));
    }
    let mut lines = vec![
        Line {
            label: Some("L (queue)".into()),
            color: 0,
            dashed: false,
            points: l,
        },
        Line {
            label: Some("F (virtual incoming)".into()),
            color: 1,
            dashed: false,
            points: f,
        },
        Line {
            label: Some("L + F".into()),
            color: 2,
            dashed: false,
            points: lf,
        },
        Line {
            label: Some("H".into()),
            color: 3,
            dashed: true,
            points: h.clone(),
        },
    ];
    if let Some(b) = delta_rst {
        let pts = h.iter().map(|p| (p.0, b as f64 / 1e6)).collect();
        lines.push(Line {
            label: Some("Δ + R_s·T".into()),
            color: 4,
            dashed: true,
            points: pts,
        });
    }
    let title = c
        .title
        .clone()
        .unwrap_or_else(|| format!("Bifrost slots of node {node} port {port}"));
    render(&time_figure(title, "Bytes (MB)", lines), c)
}

/// The egress queue of one port over time (KB), one line per run (and per
/// class when several are recorded).
pub fn queue(runs: &[PathBuf], sel: PortSel, c: &Common) -> Result<(), ExperimentError> {
    let names = labels(runs, c)?;
    let lines = port_lines(runs, &names, sel, "queue_bytes", 1e-3)?;
    let title = c
        .title
        .clone()
        .unwrap_or_else(|| format!("Egress queue of node {} port {}", sel.node, sel.port));
    render(&time_figure(title, "Queue length (KB)", lines), c)
}

/// What one port sent over time (Gb/s, averaged over each sampling
/// interval), one line per run.
pub fn throughput(runs: &[PathBuf], sel: PortSel, c: &Common) -> Result<(), ExperimentError> {
    let names = labels(runs, c)?;
    let sel = PortSel { class: None, ..sel };
    let mut lines = port_lines(runs, &names, sel, "tx_gbps", 1.0)?;
    // Many samples: average runs of k of them (the rate over k intervals),
    // so the line stays readable.
    let longest = lines.iter().map(|l| l.points.len()).max().unwrap_or(0);
    let k = longest.div_ceil(MAX_THROUGHPUT_POINTS).max(1);
    let mut ylabel = "Throughput (Gb/s)".to_string();
    if k > 1 {
        let step = lines
            .iter()
            .find_map(|l| {
                l.points
                    .get(1)
                    .zip(l.points.first())
                    .map(|(b, a)| b.0 - a.0)
            })
            .unwrap_or(0.0);
        ylabel = format!(
            "Throughput (Gb/s, mean over {} us)",
            fmt_value(step * k as f64, Fmt::Plain)
        );
        for l in &mut lines {
            l.points = l
                .points
                .chunks(k)
                .map(|ch| {
                    let y = ch.iter().map(|p| p.1).sum::<f64>() / ch.len() as f64;
                    (ch[0].0, y)
                })
                .collect();
        }
    }
    let title = c
        .title
        .clone()
        .unwrap_or_else(|| format!("Throughput of node {} port {}", sel.node, sel.port));
    render(&time_figure(title, &ylabel, lines), c)
}

/// When ports were PFC-paused: one row per (node, port, class) paused at
/// some sample (at most `max_rows`, the most paused first), a bar for each
/// stretch of paused samples. `node` keeps one node's ports only.
pub fn pause(
    run: &Path,
    node: Option<u32>,
    max_rows: usize,
    c: &Common,
) -> Result<(), ExperimentError> {
    let path = timeseries_path(run)?;
    let mut times: Vec<u64> = Vec::new();
    let rows = read_ports_csv(&path, |r: &PortRow| {
        if times.last() != Some(&r.time_ns) {
            times.push(r.time_ns);
        }
        r.metric == "paused" && r.value > 0.0 && node.is_none_or(|n| r.node == n)
    })?;
    let step = times
        .windows(2)
        .map(|w| w[1] - w[0])
        .min()
        .unwrap_or(1000)
        .max(1);
    // Paused sample times per (node, port, class).
    let mut by: BTreeMap<(u32, u16, u8), Vec<u64>> = BTreeMap::new();
    for r in rows {
        by.entry((r.node, r.port, r.class.unwrap_or(0)))
            .or_default()
            .push(r.time_ns);
    }
    let mut keys: Vec<_> = by.iter().map(|(k, v)| (*k, v.len())).collect();
    keys.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    keys.truncate(max_rows.max(1));
    keys.sort();
    let mut bars = Vec::new();
    let mut names = Vec::new();
    for (row, ((n, p, cl), _)) in keys.iter().enumerate() {
        names.push(format!("node {n} port {p} class {cl}"));
        let ts = &by[&(*n, *p, *cl)];
        let mut i = 0;
        while i < ts.len() {
            let mut j = i;
            while j + 1 < ts.len() && ts[j + 1] - ts[j] <= step {
                j += 1;
            }
            bars.push(Bar {
                x0: ts[i] as f64 / 1e3,
                x1: (ts[j] + step) as f64 / 1e3,
                y0: row as f64 + 0.15,
                y1: row as f64 + 0.85,
                color: 3,
            });
            i = j + 1;
        }
    }
    let (t0, t1) = match (times.first(), times.last()) {
        (Some(&a), Some(&b)) => (a as f64 / 1e3, (b + step) as f64 / 1e3),
        _ => (0.0, 1.0),
    };
    let title = c.title.clone().unwrap_or_else(|| {
        if names.is_empty() {
            "PFC pauses: no port was paused at any sample".to_string()
        } else {
            "PFC pause timeline (egress paused by its downstream)".to_string()
        }
    });
    let fig = Figure {
        title,
        x: Axis {
            label: "Time (us)".into(),
            lo: t0,
            hi: t1,
            log: false,
            fmt: Fmt::Plain,
        },
        y: Axis {
            label: String::new(),
            lo: 0.0,
            hi: names.len().max(1) as f64,
            log: false,
            fmt: Fmt::Plain,
        },
        lines: Vec::new(),
        bars,
        rows: names,
        legend: Corner::UpperRight,
    };
    render(&fig, c)
}

/// Write `fig` to `c.out`, SVG or PNG by its extension.
fn render(fig: &Figure, c: &Common) -> Result<(), ExperimentError> {
    static FONT_ONCE: std::sync::Once = std::sync::Once::new();
    FONT_ONCE.call_once(|| {
        // The font is compiled in and known to be valid.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT);
    });
    let ext = c
        .out
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    // The figure is drawn in memory and written here, so that a path that
    // cannot be written gets the operating system's one-line reason rather
    // than the drawing library's nested error.
    let fail = |e: String| {
        ExperimentError::io(
            &c.out,
            std::io::Error::other(format!("cannot draw the figure: {e}")),
        )
    };
    let bytes = match ext.as_str() {
        "svg" => {
            let mut svg = String::new();
            {
                let root = SVGBackend::with_string(&mut svg, c.size).into_drawing_area();
                draw(&root, fig).map_err(fail)?;
                root.present().map_err(|e| fail(e.to_string()))?;
            }
            svg.into_bytes()
        }
        "png" => {
            let (w, h) = c.size;
            let mut rgb = vec![0u8; w as usize * h as usize * 3];
            {
                let root = BitMapBackend::with_buffer(&mut rgb, c.size).into_drawing_area();
                draw(&root, fig).map_err(fail)?;
                root.present().map_err(|e| fail(e.to_string()))?;
            }
            let mut png = Vec::new();
            PngEncoder::new(&mut png)
                .write_image(&rgb, w, h, image::ColorType::Rgb8)
                .map_err(|e| fail(e.to_string()))?;
            png
        }
        _ => {
            return Err(input(
                "-o",
                format!(
                    "'{}': the figure's file must end in .svg or .png",
                    c.out.display()
                ),
            ))
        }
    };
    let cannot_write = |what: String, e: std::io::Error| {
        ExperimentError::io(
            &c.out,
            std::io::Error::new(e.kind(), format!("cannot write the figure: {what}{e}")),
        )
    };
    if let Some(parent) = c.out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|e| cannot_write(format!("cannot create {}: ", parent.display()), e))?;
    }
    std::fs::write(&c.out, bytes).map_err(|e| cannot_write(String::new(), e))
}

fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, fig: &Figure) -> Result<(), String> {
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let (x, y) = (&fig.x, &fig.y);
    match (x.log, y.log) {
        (false, false) => draw_in(root, fig, x.lo..x.hi, y.lo..y.hi),
        (true, false) => draw_in(root, fig, (x.lo..x.hi).log_scale(), y.lo..y.hi),
        (false, true) => draw_in(root, fig, x.lo..x.hi, (y.lo..y.hi).log_scale()),
        (true, true) => draw_in(
            root,
            fig,
            (x.lo..x.hi).log_scale(),
            (y.lo..y.hi).log_scale(),
        ),
    }
}

fn fmt_value(v: f64, f: Fmt) -> String {
    match f {
        Fmt::Bytes => {
            let b = v.round().max(0.0) as u64;
            let (d, unit) = if v >= 1e9 {
                (1e9, "GB")
            } else if v >= 1e6 {
                (1e6, "MB")
            } else if v >= 1e3 {
                (1e3, "KB")
            } else {
                return format!("{b}B");
            };
            let x = v / d;
            if (x - x.round()).abs() < 1e-6 {
                format!("{}{unit}", x.round())
            } else {
                format!("{x:.1}{unit}")
            }
        }
        Fmt::Plain => {
            let a = v.abs();
            if a == 0.0 {
                "0".into()
            } else if !(1e-3..1e5).contains(&a) {
                format!("{v:.0e}")
            } else if (v - v.round()).abs() < 1e-9 {
                format!("{}", v.round())
            } else if a >= 10.0 {
                format!("{v:.1}")
            } else {
                let s = format!("{v:.3}");
                s.trim_end_matches('0').trim_end_matches('.').to_string()
            }
        }
    }
}

fn draw_in<DB, X, Y>(
    root: &DrawingArea<DB, Shift>,
    fig: &Figure,
    xr: X,
    yr: Y,
) -> Result<(), String>
where
    DB: DrawingBackend,
    X: plotters::coord::ranged1d::AsRangedCoord<Value = f64>,
    Y: plotters::coord::ranged1d::AsRangedCoord<Value = f64>,
    X::CoordDescType: plotters::coord::ranged1d::ValueFormatter<f64>,
    Y::CoordDescType: plotters::coord::ranged1d::ValueFormatter<f64>,
{
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let categorical = !fig.rows.is_empty();
    let longest = fig.rows.iter().map(|r| r.len()).max().unwrap_or(0) as u32;
    let mut chart = ChartBuilder::on(root)
        .caption(&fig.title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(52)
        .y_label_area_size(if categorical { 20 + 8 * longest } else { 72 })
        .build_cartesian_2d(xr, yr)
        .map_err(e)?;
    let (xf, yf) = (fig.x.fmt, fig.y.fmt);
    let rows = fig.rows.clone();
    let ylab = move |v: &f64| {
        if rows.is_empty() {
            fmt_value(*v, yf)
        } else {
            // Row i spans [i, i + 1); label its middle.
            let i = (*v - 0.5).round();
            if (*v - 0.5 - i).abs() < 1e-6 && i >= 0.0 {
                rows.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        }
    };
    let xlab = move |v: &f64| fmt_value(*v, xf);
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(fig.x.label.as_str())
        .x_label_formatter(&xlab)
        .y_label_formatter(&ylab)
        .axis_desc_style(("sans-serif", 17))
        .label_style(("sans-serif", 14))
        .light_line_style(RGBColor(235, 235, 235));
    if !fig.y.label.is_empty() {
        mesh.y_desc(fig.y.label.as_str());
    }
    if categorical {
        // Tick at the middle of each row: 2n + 1 labels over [0, n].
        mesh.y_labels(2 * fig.rows.len() + 1).disable_y_mesh();
    }
    mesh.draw().map_err(e)?;

    for b in &fig.bars {
        let color = PALETTE[b.color % PALETTE.len()];
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(b.x0, b.y0), (b.x1, b.y1)],
                color.mix(0.85).filled(),
            )))
            .map_err(e)?;
    }
    let mut legend = false;
    for l in &fig.lines {
        let color = PALETTE[l.color % PALETTE.len()];
        let style = color.stroke_width(if l.points.len() > THIN_ABOVE { 1 } else { 2 });
        let anno = if l.dashed {
            chart
                .draw_series(DashedLineSeries::new(l.points.iter().copied(), 7, 5, style))
                .map_err(e)?
        } else {
            chart
                .draw_series(LineSeries::new(l.points.iter().copied(), style))
                .map_err(e)?
        };
        if let Some(label) = &l.label {
            legend = true;
            let dashed = l.dashed;
            anno.label(label.as_str()).legend(move |(x, y)| {
                let st = color.stroke_width(2);
                if dashed {
                    EmptyElement::at((x, y))
                        + PathElement::new(vec![(0, 0), (8, 0)], st)
                        + PathElement::new(vec![(13, 0), (21, 0)], st)
                } else {
                    EmptyElement::at((x, y))
                        + PathElement::new(vec![(0, 0), (21, 0)], st)
                        + PathElement::new(vec![(0, 0), (0, 0)], st)
                }
            });
        }
    }
    if legend {
        chart
            .configure_series_labels()
            .position(match fig.legend {
                Corner::UpperRight => SeriesLabelPosition::UpperRight,
                Corner::LowerRight => SeriesLabelPosition::LowerRight,
            })
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(180, 180, 180))
            .label_font(("sans-serif", 14))
            .draw()
            .map_err(e)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_values() {
        assert_eq!(fmt_value(1000.0, Fmt::Bytes), "1KB");
        assert_eq!(fmt_value(1500.0, Fmt::Bytes), "1.5KB");
        assert_eq!(fmt_value(20_000_000.0, Fmt::Bytes), "20MB");
        assert_eq!(fmt_value(500.0, Fmt::Bytes), "500B");
        assert_eq!(fmt_value(2.0, Fmt::Plain), "2");
        assert_eq!(fmt_value(0.25, Fmt::Plain), "0.25");
        assert_eq!(fmt_value(12.5, Fmt::Plain), "12.5");
        assert_eq!(fmt_value(1e6, Fmt::Plain), "1e6");
    }

    fn fig(log: bool) -> Figure {
        Figure {
            title: "t".into(),
            x: Axis {
                label: "x (bytes)".into(),
                lo: 100.0,
                hi: 1e6,
                log,
                fmt: Fmt::Bytes,
            },
            y: Axis {
                label: "y".into(),
                lo: 1.0,
                hi: 10.0,
                log: false,
                fmt: Fmt::Plain,
            },
            lines: vec![Line {
                label: Some("run".into()),
                color: 0,
                dashed: true,
                points: vec![(1000.0, 2.0), (1e5, 5.0)],
            }],
            bars: vec![Bar {
                x0: 200.0,
                x1: 300.0,
                y0: 1.0,
                y1: 2.0,
                color: 1,
            }],
            rows: Vec::new(),
            legend: Corner::UpperRight,
        }
    }

    #[test]
    fn svg_and_png_with_text() {
        let dir = std::env::temp_dir().join(format!("rdmasim-plot-{}", std::process::id()));
        let svg = dir.join("f.svg");
        let c = Common {
            out: svg.clone(),
            labels: None,
            title: None,
            size: (400, 300),
        };
        render(&fig(true), &c).unwrap();
        let text = std::fs::read_to_string(&svg).unwrap();
        assert!(text.starts_with("<svg"), "{text}");
        assert!(
            text.contains("\nx (bytes)\n") && text.contains("\nrun\n"),
            "{text}"
        );
        let png = dir.join("f.png");
        render(
            &fig(false),
            &Common {
                out: png.clone(),
                ..c.clone()
            },
        )
        .unwrap();
        let bytes = std::fs::read(&png).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        let e = render(
            &fig(false),
            &Common {
                out: dir.join("f.jpg"),
                ..c
            },
        )
        .unwrap_err();
        assert!(e.to_string().contains("must end in .svg or .png"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
