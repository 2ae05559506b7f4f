//! Time series of a run: the `[timeseries]` config section, its size
//! estimate, and the two CSV files it writes into the run directory.
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
//! Files (both load with `pandas.read_csv` as they are):
//! - `timeseries.csv`, long format, one row per sample and value:
//!   `time_ns,node,port,class,metric,value` with metric `queue_bytes`
//!   (egress queue of that class, switch ports only), `paused` (1 if the
//!   port may not send that class: PFC-paused by its downstream) and
//!   `tx_gbps` (everything the port sent since the previous sample, every
//!   class and control frames, averaged over that time; `class` is empty).
//! - `qp_rates.csv` (with `qp_rates = true`): `time_ns,flow,src,dst,rate_gbps`
//!   for every QP that has started and not finished at the sample time.
//!
//! Sampling is done by the network's monitor (`net::monitor`), which only
//! reads state, so the flows of a run are the same with or without it.

use crate::config::Config;
use crate::fmt::{fmt_count, fmt_time, parse_whole, Whole};
use crate::locate;
use crate::{ExperimentError, Scenario};
use engine::units::parse_time;
use engine::{Delta, InputError, Time};
use net::monitor::{MonitorConfig, MonitorPorts, TimeSeries};
use serde::Deserialize;
use std::io::{self, BufRead, Write};
use std::path::Path;

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
const ROW_BYTES: u64 = 32;
/// Header of `timeseries.csv`.
pub const PORTS_HEADER: &str = "time_ns,node,port,class,metric,value";
/// Header of `qp_rates.csv`.
pub const QP_HEADER: &str = "time_ns,flow,src,dst,rate_gbps";

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

fn err(cfg: &Config, path: &str, msg: impl Into<String>) -> ExperimentError {
    ExperimentError::Input(InputError::at(
        cfg.file.as_str(),
        locate::key_line(&cfg.text, path),
        path,
        msg,
    ))
}

fn time_key(cfg: &Config, path: &str, v: &str) -> Result<Delta, ExperimentError> {
    parse_time(v).map_err(|m| err(cfg, path, m))
}

/// The monitor settings of `cfg`'s `[timeseries]` section, checked against
/// the scenario built from it; `None` when the section is absent.
pub fn build_timeseries(
    cfg: &Config,
    s: &Scenario,
) -> Result<Option<MonitorConfig>, ExperimentError> {
    let Some(t) = &cfg.doc.timeseries else {
        return Ok(None);
    };
    let interval = time_key(
        cfg,
        "timeseries.interval",
        t.interval.as_deref().unwrap_or(DEFAULT_INTERVAL),
    )?;
    if interval < Delta::from_ns(1) {
        // timeseries.csv counts time in whole ns: finer samples would share
        // their time stamps.
        return Err(err(
            cfg,
            "timeseries.interval",
            "must be at least 1ns (timeseries.csv's time_ns counts whole nanoseconds)",
        ));
    }
    let start = match &t.start {
        Some(v) => Time(time_key(cfg, "timeseries.start", v)?.ps()),
        None => Time::ZERO,
    };
    let stop = match &t.stop {
        Some(v) => {
            let stop = Time(time_key(cfg, "timeseries.stop", v)?.ps());
            if stop < start {
                return Err(err(cfg, "timeseries.stop", "is before timeseries.start"));
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
                return Err(err(
                    cfg,
                    "timeseries.ports",
                    format!(
                        "unknown value \"{v}\"; expected \"all-switch\", \"all\" or a list \
                         like [{{node = 20, port = 1}}]"
                    ),
                ))
            }
        },
        Some(toml::Value::Array(list)) => MonitorPorts::List(port_list(cfg, list, &s.topo)?),
        Some(_) => {
            return Err(err(
                cfg,
                "timeseries.ports",
                "expected \"all-switch\", \"all\" or a list like [{node = 20, port = 1}]",
            ))
        }
    };
    let classes = match &t.classes {
        Some(c) => {
            if let Some(&bad) = c.iter().find(|&&c| usize::from(c) >= net::wire::N_CLASSES) {
                return Err(err(
                    cfg,
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
    Ok(Some(MonitorConfig {
        interval,
        start,
        stop,
        ports,
        classes,
        qp_rates: t.qp_rates.unwrap_or(false),
        max_rows: Some(max_rows(cfg, t.max_mb)?),
    }))
}

fn max_rows(cfg: &Config, mb: Option<f64>) -> Result<u64, ExperimentError> {
    let mb = mb.unwrap_or(DEFAULT_MAX_MB);
    if !(mb.is_finite() && mb > 0.0) {
        return Err(err(
            cfg,
            "timeseries.max_mb",
            format!("{mb} must be a positive number"),
        ));
    }
    Ok(((mb * 1e6) as u64 / ROW_BYTES).max(1))
}

fn port_list(
    cfg: &Config,
    list: &[toml::Value],
    topo: &topo::Topology,
) -> Result<Vec<(u32, u16)>, ExperimentError> {
    let path = "timeseries.ports";
    let mut out = Vec::with_capacity(list.len());
    for (i, v) in list.iter().enumerate() {
        // The field is `path` already: say which entry, not the path again.
        let at = format!("the entry at index {i}");
        let Some(t) = v.as_table() else {
            return Err(err(
                cfg,
                path,
                format!("{at}: expected {{node = N, port = P}}"),
            ));
        };
        if let Some(k) = t.keys().find(|k| *k != "node" && *k != "port") {
            return Err(err(
                cfg,
                path,
                format!("{at}: unknown key \"{k}\"; expected node, port"),
            ));
        }
        let int = |k: &str| -> Result<i64, ExperimentError> {
            match t.get(k) {
                Some(toml::Value::Integer(n)) => Ok(*n),
                Some(_) => Err(err(cfg, path, format!("{at}: {k}: expected an integer"))),
                None => Err(err(cfg, path, format!("{at}: {k}: missing"))),
            }
        };
        let (node, port) = (int("node")?, int("port")?);
        let n = topo.n_nodes() as i64;
        if node < 0 || node >= n {
            return Err(err(
                cfg,
                path,
                format!(
                    "{at}: node {node} does not exist (the topology has nodes 0-{})",
                    n - 1
                ),
            ));
        }
        let degree = topo.ports(node as u32).len() as i64;
        if port < 0 || port >= degree {
            return Err(err(
                cfg,
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

/// Write `timeseries.csv` ([`PORTS_HEADER`]).
pub fn write_ports_csv<W: Write>(ts: &TimeSeries, mut w: W) -> io::Result<()> {
    writeln!(w, "{PORTS_HEADER}")?;
    for (i, t) in ts.times.iter().enumerate() {
        let t = t.ns();
        let dt = ts.elapsed[i].ps();
        for (p, port) in ts.ports.iter().enumerate() {
            let (node, local) = (port.node, port.port);
            for (c, class) in ts.classes.iter().enumerate() {
                let k = ts.class_index(i, p, c);
                if port.is_switch {
                    writeln!(w, "{t},{node},{local},{class},queue_bytes,{}", ts.queue[k])?;
                }
                writeln!(
                    w,
                    "{t},{node},{local},{class},paused,{}",
                    u8::from(ts.paused[k])
                )?;
            }
            let bytes = ts.tx_bytes[ts.port_index(i, p)];
            // bytes * 8 bits / (dt ps) = Gb/s * 1000.
            let gbps = if dt == 0 {
                0.0
            } else {
                bytes as f64 * 8_000.0 / dt as f64
            };
            writeln!(w, "{t},{node},{local},,tx_gbps,{gbps:.3}")?;
        }
    }
    Ok(())
}

/// Write `qp_rates.csv` ([`QP_HEADER`]).
pub fn write_qp_csv<W: Write>(ts: &TimeSeries, mut w: W) -> io::Result<()> {
    writeln!(w, "{QP_HEADER}")?;
    for q in &ts.qp {
        writeln!(
            w,
            "{},{},{},{},{:.3}",
            q.time.ns(),
            q.flow,
            q.src,
            q.dst,
            q.rate.bps() as f64 / 1e9
        )?;
    }
    Ok(())
}

/// One row of `timeseries.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct PortRow {
    /// Sample time, ns.
    pub time_ns: u64,
    /// Node.
    pub node: u32,
    /// Local port.
    pub port: u16,
    /// Class; `None` for port-wide metrics.
    pub class: Option<u8>,
    /// `queue_bytes`, `paused` or `tx_gbps`.
    pub metric: String,
    /// The value.
    pub value: f64,
}

/// Read the rows of a `timeseries.csv` that `keep` accepts.
pub fn read_ports_csv(
    path: &Path,
    mut keep: impl FnMut(&PortRow) -> bool,
) -> Result<Vec<PortRow>, ExperimentError> {
    let file = std::fs::File::open(path).map_err(|e| ExperimentError::io(path, e))?;
    let name = path.display().to_string();
    let bad_field = |line: usize, field: &str, msg: String| {
        ExperimentError::Input(InputError::at(name.as_str(), Some(line), field, msg))
    };
    let bad = |line: usize, msg: String| bad_field(line, "", msg);
    let mut out = Vec::new();
    for (i, line) in io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| ExperimentError::io(path, e))?;
        if i == 0 {
            if line.trim() != PORTS_HEADER {
                return Err(bad(1, format!("expected the header '{PORTS_HEADER}'")));
            }
            continue;
        }
        if line.is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split(',').collect();
        if f.len() != 6 {
            return Err(bad(i + 1, format!("expected 6 fields, found {}", f.len())));
        }
        // Finite numbers only: an `inf` reached the plotting library,
        // which never returned.
        let num = |s: &str, what: &str| {
            s.parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| bad_field(i + 1, what, format!("'{s}' is not a finite number")))
        };
        // Whole numbers that fit their fields, never truncated.
        fn whole<T: Whole>(
            s: &str,
            what: &str,
            bad: impl Fn(&str, String) -> ExperimentError,
        ) -> Result<T, ExperimentError> {
            parse_whole(s).map_err(|m| bad(what, m))
        }
        let at = |what: &str, m: String| bad_field(i + 1, what, m);
        let row = PortRow {
            time_ns: whole(f[0], "time_ns", at)?,
            node: whole(f[1], "node", at)?,
            port: whole(f[2], "port", at)?,
            class: if f[3].is_empty() {
                None
            } else {
                Some(whole(f[3], "class", at)?)
            },
            metric: f[4].to_string(),
            value: num(f[5], "value")?,
        };
        if keep(&row) {
            out.push(row);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{build_scenario, parse_config};
    use net::monitor::MonitoredPort;

    const BASE: &str = r#"
[topology]
kind = "star"
hosts = 4

[workload]
kind = "incast"
senders = [0, 1, 2]
receiver = 3
size = "100KB"
"#;

    fn build(extra: &str) -> Result<Option<MonitorConfig>, ExperimentError> {
        let cfg = parse_config(&format!("{BASE}\n{extra}"), "t.toml")?;
        let s = build_scenario(&cfg, Path::new(""))?;
        build_timeseries(&cfg, &s)
    }

    #[test]
    fn the_section_is_optional_and_has_defaults() {
        assert_eq!(build("").unwrap(), None);
        let m = build("[timeseries]\n").unwrap().unwrap();
        assert_eq!(m.interval, Delta::from_us(10));
        assert_eq!(m.ports, MonitorPorts::AllSwitch);
        assert_eq!(m.classes, vec![3]);
        assert!(!m.qp_rates);
        let m = build(
            "[timeseries]\ninterval = \"1us\"\nports = [{node = 4, port = 3}]\nqp_rates = true\n\
             classes = [3, 1, 3]\nstart = \"2us\"\nstop = \"5ms\"\n",
        )
        .unwrap()
        .unwrap();
        assert_eq!(m.ports, MonitorPorts::List(vec![(4, 3)]));
        assert_eq!(m.classes, vec![1, 3]);
        assert_eq!(m.start, Time::from_ns(2_000));
        assert_eq!(m.stop, Some(Time::from_ns(5_000_000)));
    }

    #[test]
    fn the_printed_defaults_section_is_valid() {
        // `rdmasim config --defaults` shows the section commented out;
        // uncommented, it is a config giving the defaults.
        let text = crate::defaults_toml();
        let i = text.find("# [timeseries]").unwrap();
        let section: String = text[i..]
            .lines()
            .take_while(|l| l.starts_with('#'))
            .map(|l| format!("{}\n", l.trim_start_matches("# ")))
            .collect();
        let m = build(&section).unwrap().unwrap();
        assert_eq!(m.interval, parse_time(DEFAULT_INTERVAL).unwrap());
        assert_eq!(m.ports, MonitorPorts::AllSwitch);
        assert_eq!(m.classes, vec![3]);
        assert!(!m.qp_rates);
        assert_eq!(m.max_rows, Some((DEFAULT_MAX_MB * 1e6) as u64 / ROW_BYTES));
    }

    #[test]
    fn bad_values_name_the_key_and_line() {
        let extra = "[timeseries]\nports = [{node = 4, port = 7}]\n";
        let line = format!("{BASE}\n{extra}")
            .lines()
            .position(|l| l.starts_with("ports"))
            .unwrap()
            + 1;
        let e = build(extra).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!(
                "t.toml:{line}: timeseries.ports: the entry at index 0: node 4 has no port 7"
            )),
            "{e}"
        );
        // The field is named once; the entry by its index.
        let e = build("[timeseries]\nports = [{node = 0, port = 0}, {node = 1, prot = 0}]\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.ends_with(
                "timeseries.ports: the entry at index 1: unknown key \"prot\"; expected node, port"
            ),
            "{e}"
        );
        let e = build("[timeseries]\nports = [{node = \"a\", port = 0}]\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.ends_with("timeseries.ports: the entry at index 0: node: expected an integer"),
            "{e}"
        );
        let e = build("[timeseries]\nports = \"every\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("timeseries.ports: unknown value \"every\""),
            "{e}"
        );
        let e = build("[timeseries]\ninterval = \"0us\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("timeseries.interval: must be at least 1ns"),
            "{e}"
        );
        let e = build("[timeseries]\ninterval = \"999ps\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("timeseries.interval: must be at least 1ns"),
            "{e}"
        );
        assert!(build("[timeseries]\ninterval = \"1ns\"\n").is_ok());
        let e = build("[timeseries]\nintervall = \"1us\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("timeseries.intervall: unknown key"), "{e}");
        let e = build("[timeseries]\nclasses = [9]\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("class 9 does not exist"), "{e}");
    }

    #[test]
    fn csv_round_trip() {
        let ts = TimeSeries {
            interval: Delta::from_us(1),
            ports: vec![
                MonitoredPort {
                    node: 4,
                    port: 3,
                    is_switch: true,
                },
                MonitoredPort {
                    node: 0,
                    port: 0,
                    is_switch: false,
                },
            ],
            classes: vec![3],
            times: vec![Time::ZERO, Time::from_ns(1_000)],
            elapsed: vec![Delta::ZERO, Delta::from_us(1)],
            queue: vec![0, 0, 5000, 0],
            paused: vec![false, false, false, true],
            tx_bytes: vec![0, 0, 12_500, 6_250],
            qp_rates: true,
            rows: 11,
            truncated_at: None,
            qp: vec![net::monitor::QpSample {
                time: Time::from_ns(1_000),
                flow: 7,
                src: 0,
                dst: 3,
                rate: engine::Rate::gbps(25),
            }],
        };
        let mut out = Vec::new();
        write_ports_csv(&ts, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], PORTS_HEADER);
        assert_eq!(lines.len(), 1 + 2 * (3 + 2));
        assert!(lines.contains(&"1000,4,3,3,queue_bytes,5000"), "{text}");
        assert!(lines.contains(&"1000,4,3,,tx_gbps,100.000"), "{text}");
        assert!(lines.contains(&"1000,0,0,3,paused,1"), "{text}");
        assert!(lines.contains(&"1000,0,0,,tx_gbps,50.000"), "{text}");
        assert!(!text.contains("0,0,0,3,queue_bytes"), "{text}");

        let dir = std::env::temp_dir().join(format!("rdmasim-ts-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("timeseries.csv");
        std::fs::write(&path, &text).unwrap();
        let rows = read_ports_csv(&path, |r| r.metric == "tx_gbps" && r.node == 4).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!((rows[1].value, rows[1].class), (100.0, None));
        // A value that is not a finite number is an error at its line.
        std::fs::write(&path, format!("{text}1000,4,3,3,queue_bytes,inf\n")).unwrap();
        let e = read_ports_csv(&path, |_| true).unwrap_err().to_string();
        let line = text.lines().count() + 1;
        assert!(
            e.ends_with(&format!(
                "timeseries.csv:{line}: value: 'inf' is not a finite number"
            )),
            "{e}"
        );
        // So is a number that does not fit its field, or is not whole.
        for (bad_row, msg) in [
            (
                "1000,4,65539,3,queue_bytes,1",
                "port: '65539' is out of range (0 to 65535)",
            ),
            (
                "1000,4294967300,3,3,queue_bytes,1",
                "node: '4294967300' is out of range (0 to 4294967295)",
            ),
            (
                "1000,4,3,259,queue_bytes,1",
                "class: '259' is out of range (0 to 255)",
            ),
            (
                "1e30,4,3,3,queue_bytes,1",
                "time_ns: '1e30' is not a whole number",
            ),
            (
                "1000,4.5,3,3,queue_bytes,1",
                "node: '4.5' is not a whole number",
            ),
        ] {
            std::fs::write(&path, format!("{text}{bad_row}\n")).unwrap();
            let e = read_ports_csv(&path, |_| true).unwrap_err().to_string();
            assert!(e.ends_with(&format!("timeseries.csv:{line}: {msg}")), "{e}");
        }
        std::fs::remove_dir_all(&dir).unwrap();

        let mut out = Vec::new();
        write_qp_csv(&ts, &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!("{QP_HEADER}\n1000,7,0,3,25.000\n")
        );
    }
}
