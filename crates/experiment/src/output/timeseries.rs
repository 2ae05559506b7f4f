//! The files of a run's time series (`[timeseries]`,
//! [`crate::config::timeseries`]), written into its run directory and
//! read back for plots. Both load with `pandas.read_csv` as they are:
//!
//! - `timeseries.csv`, long format, one row per sample and value:
//!   `time_ns,node,port,class,metric,value` with metric `queue_bytes`
//!   (egress queue of that class, switch ports only), `paused` (1 if the
//!   port may not send that class: PFC-paused by its downstream) and
//!   `tx_gbps` (everything the port sent since the previous sample, every
//!   class and control frames, averaged over that time; `class` is empty).
//! - `qp_rates.csv` (with `qp_rates = true`): `time_ns,flow,src,dst,rate_gbps`
//!   for every QP that has started and not finished at the sample time.

use crate::error::ExperimentError;
use crate::fmt::{parse_whole, Whole};
use engine::InputError;
use net::monitor::TimeSeries;
use std::io::{self, BufRead, Write};
use std::path::Path;

/// Header of `timeseries.csv`.
pub const PORTS_HEADER: &str = "time_ns,node,port,class,metric,value";

/// Header of `qp_rates.csv`.
pub const QP_HEADER: &str = "time_ns,flow,src,dst,rate_gbps";

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
    use engine::{Delta, Time};
    use net::monitor::MonitoredPort;

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
