//! `[timeseries]`: a run's time series, off unless the section is
//! present, and an estimate of its size. The files it writes are
//! [`crate::output::timeseries`]'s.
//!
//! ```toml
//! [timeseries]
//! interval = "10us"            # one sample every 10 us
//! ports = "all-switch"         # or "all", or [{node = 20, port = 1}, ...]
//! classes = [3]                # default: the classes the workload uses
//! qp_rates = true              # also every active QP's rate
//! # start = "0s", stop = "5ms" # sampling window
//! ```
//!
//! Sampling is done by the network's monitor (`net::monitor`), which only
//! reads state, so the flows of a run are the same with or without it.

use super::ctx::{Ctx, R};
use crate::error::ExperimentError;
use crate::fmt::{fmt_count, fmt_time};
use crate::scenario::Scenario;
use crate::suggest;
use engine::{Delta, Time};
use net::monitor::{MonitorConfig, MonitorPorts};
use serde::Deserialize;

/// Default sampling interval.
pub const DEFAULT_INTERVAL: &str = "10us";

/// Default port selection.
pub const DEFAULT_PORTS: &str = "all-switch";

/// Runs whose time series is estimated above this many bytes get a note on
/// stderr before they start.
pub const LARGE_BYTES: u64 = 100_000_000;

/// Default `max_mb`: sampling stops once the files would reach about this
/// many MB (a run that stalls until its stop time would otherwise sample
/// for a long time).
pub const DEFAULT_MAX_MB: f64 = 500.0;

/// Bytes of an average row, for estimates and `max_mb`.
pub const ROW_BYTES: u64 = 32;

/// `[timeseries]`: present means on.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeseriesSection {
    /// Time between samples; default [`DEFAULT_INTERVAL`].
    pub interval: Option<String>,
    /// First sample; default 0.
    pub start: Option<String>,
    /// Last possible sample; default: the end of the run.
    pub stop: Option<String>,
    /// `"all-switch"` (default), `"all"`, or a list of `{node, port}`.
    pub ports: Option<toml::Value>,
    /// Classes whose queues and pause state are recorded; default: the
    /// classes of the workload's flows.
    pub classes: Option<Vec<u8>>,
    /// Record every active QP's rate; default false.
    pub qp_rates: Option<bool>,
    /// Stop sampling once the files reach about this many MB; default
    /// [`DEFAULT_MAX_MB`].
    pub max_mb: Option<f64>,
}

/// The time series `rdmasim hpcc --timeseries INTERVAL` records: one
/// sample every `interval` of every switch port, in the classes of the
/// workload's flows, from the first flow's start (the peer's flows start
/// at 2 s: samples of the idle fabric before would only fill the file).
pub fn for_peer_config(interval: &str, s: &Scenario) -> Result<MonitorConfig, ExperimentError> {
    let start = s.flows.first().map_or(Time::ZERO, |f| f.start);
    let t = TimeseriesSection {
        interval: Some(interval.to_string()),
        start: Some(crate::fmt::fmt_delta(Delta(start.ps()))),
        ..TimeseriesSection::default()
    };
    let cx = Ctx {
        file: "--timeseries",
        text: "",
        base: std::path::Path::new(""),
    };
    monitor(&cx, &t, s)
}

/// The monitor settings of a `[timeseries]` section, checked against the
/// scenario built from its config.
pub(super) fn monitor(cx: &Ctx<'_>, t: &TimeseriesSection, s: &Scenario) -> R<MonitorConfig> {
    let interval = cx.time(
        "timeseries.interval",
        t.interval.as_deref().unwrap_or(DEFAULT_INTERVAL),
    )?;
    if interval < Delta::from_ns(1) {
        // timeseries.csv counts time in whole ns: finer samples would share
        // their time stamps.
        return Err(cx.err(
            "timeseries.interval",
            "must be at least 1ns (timeseries.csv's time_ns counts whole nanoseconds)",
        ));
    }
    let start = match &t.start {
        Some(v) => Time(cx.time("timeseries.start", v)?.ps()),
        None => Time::ZERO,
    };
    let stop = match &t.stop {
        Some(v) => {
            let stop = Time(cx.time("timeseries.stop", v)?.ps());
            if stop < start {
                return Err(cx.err("timeseries.stop", "is before timeseries.start"));
            }
            Some(stop)
        }
        None => None,
    };
    let ports = match &t.ports {
        None => MonitorPorts::AllSwitch,
        Some(toml::Value::String(v)) => match v.as_str() {
            "all-switch" => MonitorPorts::AllSwitch,
            "all" => MonitorPorts::All,
            _ => {
                return Err(cx.err(
                    "timeseries.ports",
                    format!(
                        "unknown value \"{v}\"; expected \"all-switch\", \"all\" or a list \
                         like [{{node = 20, port = 1}}]"
                    ),
                ))
            }
        },
        Some(toml::Value::Array(list)) => {
            MonitorPorts::List(port_list(cx, "timeseries.ports", list, &s.topo)?)
        }
        Some(_) => {
            return Err(cx.err(
                "timeseries.ports",
                "expected \"all-switch\", \"all\" or a list like [{node = 20, port = 1}]",
            ))
        }
    };
    let classes = match &t.classes {
        Some(c) => {
            if let Some(&bad) = c.iter().find(|&&c| usize::from(c) >= net::wire::N_CLASSES) {
                return Err(cx.err(
                    "timeseries.classes",
                    format!(
                        "class {bad} does not exist (classes are 0 to {})",
                        net::wire::N_CLASSES - 1
                    ),
                ));
            }
            let mut c = c.clone();
            c.sort_unstable();
            c.dedup();
            c
        }
        None => {
            let mut c: Vec<u8> = s.flows.iter().map(|f| f.pg).collect();
            c.sort_unstable();
            c.dedup();
            c
        }
    };
    Ok(MonitorConfig {
        interval,
        start,
        stop,
        ports,
        classes,
        qp_rates: t.qp_rates.unwrap_or(false),
        max_rows: Some(max_rows(cx, t.max_mb)?),
    })
}

fn max_rows(cx: &Ctx<'_>, mb: Option<f64>) -> R<u64> {
    let mb = mb.unwrap_or(DEFAULT_MAX_MB);
    if !(mb.is_finite() && mb > 0.0) {
        return Err(cx.err(
            "timeseries.max_mb",
            format!("{mb} must be a positive number"),
        ));
    }
    Ok(((mb * 1e6) as u64 / ROW_BYTES).max(1))
}

/// The `(node, port)` pairs of a list like `[{node = 20, port = 1}]` at
/// key `path`, each checked against `topo`.
pub(super) fn port_list(
    cx: &Ctx<'_>,
    path: &str,
    list: &[toml::Value],
    topo: &topo::Topology,
) -> R<Vec<(u32, u16)>> {
    let mut out = Vec::with_capacity(list.len());
    for (i, v) in list.iter().enumerate() {
        // The field is `path` already: say which entry, not the path again.
        let at = format!("the entry at index {i}");
        let Some(t) = v.as_table() else {
            return Err(cx.err(path, format!("{at}: expected {{node = N, port = P}}")));
        };
        const KEYS: [&str; 2] = ["node", "port"];
        if let Some(k) = t.keys().find(|k| !KEYS.contains(&k.as_str())) {
            let hint = match suggest::closest(k, KEYS) {
                Some(meant) => format!("did you mean {meant}?"),
                None => "expected node, port".to_string(),
            };
            return Err(cx.err(path, format!("{at}: unknown key \"{k}\"; {hint}")));
        }
        let int = |k: &str| -> R<i64> {
            match t.get(k) {
                Some(toml::Value::Integer(n)) => Ok(*n),
                Some(_) => Err(cx.err(path, format!("{at}: {k}: expected an integer"))),
                None => Err(cx.err(path, format!("{at}: {k}: missing"))),
            }
        };
        let (node, port) = (int("node")?, int("port")?);
        let n = topo.n_nodes() as i64;
        if node < 0 || node >= n {
            return Err(cx.err(
                path,
                format!(
                    "{at}: node {node} does not exist (the topology has nodes 0-{})",
                    n - 1
                ),
            ));
        }
        let degree = topo.ports(node as u32).len() as i64;
        if port < 0 || port >= degree {
            return Err(cx.err(
                path,
                format!(
                    "{at}: node {node} has no port {port} (its ports are 0 to {}, in link order)",
                    degree - 1
                ),
            ));
        }
        out.push((node as u32, port as u16));
    }
    Ok(out)
}

/// A rough size of a run's time series, to warn before a large one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// Rows of both files together.
    pub rows: u64,
    /// Bytes of both files together.
    pub bytes: u64,
    /// The end of sampling the estimate assumes.
    pub until: Time,
}

/// Estimate the rows and bytes `m` records for `s`. The run's end is taken
/// as the last flow's start plus the time to send the workload's bytes
/// through the hosts' links (at least the largest flow at line rate), or the
/// stop time if earlier; a congested run lasts longer.
pub fn estimate(m: &MonitorConfig, s: &Scenario) -> Estimate {
    let rate = s
        .topo
        .links
        .iter()
        .find(|l| s.topo.is_host(l.a) || s.topo.is_host(l.b))
        .map(|l| l.rate)
        .unwrap_or(engine::Rate::gbps(100));
    let hosts = s.topo.hosts().len().max(1) as u64;
    let total: u64 = s.flows.iter().map(|f| f.size).sum();
    let largest = s.flows.iter().map(|f| f.size).max().unwrap_or(0);
    let drain = rate
        .tx_time(total / hosts)
        .ps()
        .max(rate.tx_time(largest).ps());
    let last = s.flows.last().map_or(Time::ZERO, |f| f.start);
    let mut until = Time(last.ps().saturating_add(drain));
    for stop in [m.stop, s.net.stop_time].into_iter().flatten() {
        until = until.min(stop);
    }
    let samples = if until < m.start {
        0
    } else {
        until.since(m.start).ps() / m.interval.ps().max(1) + 1
    };
    let (mut sw, mut all) = (0u64, 0u64);
    for (node, kind) in s.topo.kinds.iter().enumerate() {
        let d = s.topo.ports(node as u32).len() as u64;
        all += d;
        if *kind == topo::NodeKind::Switch {
            sw += d;
        }
    }
    let k = m.classes.len() as u64;
    let per_sample = match &m.ports {
        MonitorPorts::AllSwitch => sw * (2 * k + 1),
        MonitorPorts::All => sw * (2 * k + 1) + (all - sw) * (k + 1),
        MonitorPorts::List(l) => l
            .iter()
            .map(|&(n, _)| if s.topo.is_host(n) { k + 1 } else { 2 * k + 1 })
            .sum(),
    };
    let port_rows = samples * per_sample;
    let qp_rows = if m.qp_rates {
        s.flows
            .iter()
            .map(|f| rate.tx_time(f.size).ps() / m.interval.ps().max(1) + 1)
            .sum()
    } else {
        0
    };
    Estimate {
        rows: port_rows + qp_rows,
        bytes: (port_rows + qp_rows) * ROW_BYTES,
        until,
    }
}

/// A note for stderr when `m` is estimated to write more than
/// [`LARGE_BYTES`] for `s`; `None` otherwise.
pub fn size_note(m: &MonitorConfig, s: &Scenario) -> Option<String> {
    let e = estimate(m, s);
    (e.bytes > LARGE_BYTES).then(|| {
        format!(
            "{}: the time series will have about {} rows ({:.0} MB) if the run ends near {}; \
             a longer [timeseries] interval or fewer ports makes it smaller",
            s.name,
            fmt_count(e.rows as f64),
            e.bytes as f64 / 1e6,
            fmt_time(e.until),
        )
    })
}
