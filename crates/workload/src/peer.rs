//! The peer simulator's flow file (HPCC's `flow.txt`):
//!
//! ```text
//! <flow_count>
//! <src> <dst> <pg> <dport> <size_bytes> <start_time_s>
//! ...
//! ```
//!
//! e.g. `13 10 3 100 2247900 2.000000962`. Only the first `flow_count` flow
//! lines are read; anything after them is ignored, as the peer does
//! (`rdmasim hpcc` warns that it is, `experiment::peer_config`). Blank
//! lines and lines starting with `#` are skipped (the peer itself does not
//! accept `#`; [`write_peer_flows`] never writes one).

use crate::FlowSpec;
use engine::{InputError, Time};
use std::fmt::Write as _;
use std::path::Path;

/// How a flow file's start times (seconds, e.g. `2.000000149`) become
/// times.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StartTimes {
    /// From the decimal digits as written, exact to the picosecond
    /// (`2.000000149` is 2,000,000,149 ns): rdmasim's TOML configs.
    #[default]
    Exact,
    /// As the peer reads them: through a C++ `double`, then ns-3's
    /// `Seconds()`, whose fixed-point product with 10^9 is truncated to
    /// whole nanoseconds (`2.000000149`, held as 2.00000014899999…, is
    /// 2,000,000,148 ns), so that flows join flow by flow with the peer's
    /// `fct.txt`: `rdmasim hpcc`.
    AsPeer,
}

/// Parse a peer flow file. Flows get ids 0, 1, ... in file order.
pub fn parse_peer_flows(text: &str, file: &str) -> Result<Vec<FlowSpec>, InputError> {
    parse_peer_flows_with_lines(text, file).map(|(flows, _)| flows)
}

/// As [`parse_peer_flows`], also returning each flow's 1-based line number
/// (a parallel `Vec`), so later checks can point at the line; see
/// [`validate_endpoints`].
pub fn parse_peer_flows_with_lines(
    text: &str,
    file: &str,
) -> Result<(Vec<FlowSpec>, Vec<usize>), InputError> {
    parse_peer_flows_reading(text, file, StartTimes::Exact)
}

/// As [`parse_peer_flows_with_lines`], reading the start times as
/// `starts` says.
pub fn parse_peer_flows_reading(
    text: &str,
    file: &str,
    starts: StartTimes,
) -> Result<(Vec<FlowSpec>, Vec<usize>), InputError> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));

    let Some((header_line, header)) = lines.next() else {
        return Err(InputError::at(
            file,
            None,
            "flow_count",
            "the file is empty; the first line must be the number of flows",
        ));
    };
    let mut htoks = header.split_whitespace();
    let count_tok = htoks.next().expect("non-empty line");
    let count: usize = count_tok.parse().map_err(|_| {
        InputError::at(
            file,
            Some(header_line),
            "flow_count",
            format!("'{count_tok}' is not a flow count (a non-negative integer)"),
        )
    })?;
    if let Some(extra) = htoks.next() {
        return Err(InputError::at(
            file,
            Some(header_line),
            "flow_count",
            format!(
                "unexpected '{extra}' after the flow count; the first line holds only the count"
            ),
        ));
    }

    let mut flows = Vec::with_capacity(count.min(1 << 20));
    let mut flow_lines = Vec::with_capacity(count.min(1 << 20));
    // (start, token as written, line) of the previous flow.
    let mut prev: Option<(Time, &str, usize)> = None;
    for (line, content) in lines.take(count) {
        let err = |field: &str, msg: String| InputError::at(file, Some(line), field, msg);
        let mut toks = content.split_whitespace();
        let mut next = |field: &'static str| {
            toks.next().ok_or_else(|| {
                err(
                    field,
                    format!("missing {field} (expected `src dst pg dport size start_time_s`)"),
                )
            })
        };
        let src_t = next("src")?;
        let dst_t = next("dst")?;
        let pg_t = next("pg")?;
        let dport_t = next("dport")?;
        let size_t = next("size")?;
        let start_t = next("start")?;
        if let Some(extra) = toks.next() {
            return Err(err(
                "start",
                format!("unexpected extra value '{extra}' after the start time (expected `src dst pg dport size start_time_s`)"),
            ));
        }
        let src: u32 = parse_int(src_t, "a node id").map_err(|m| err("src", m))?;
        let dst: u32 = parse_int(dst_t, "a node id").map_err(|m| err("dst", m))?;
        let pg: u8 = parse_int(pg_t, "a priority class (0-255)").map_err(|m| err("pg", m))?;
        let dport: u16 = parse_int(dport_t, "a port (0-65535)").map_err(|m| err("dport", m))?;
        let size: u64 = parse_int(size_t, "a size in bytes").map_err(|m| err("size", m))?;
        let start = match starts {
            StartTimes::Exact => parse_start_seconds(start_t),
            StartTimes::AsPeer => parse_start_as_peer(start_t),
        }
        .map_err(|m| err("start", m))?;
        if size == 0 {
            return Err(err("size", "a flow must carry at least 1 byte".to_string()));
        }
        if src == dst {
            return Err(err("dst", format!("flow from node {src} to itself")));
        }
        if let Some((pt, ptok, pline)) = prev {
            if start < pt {
                return Err(err(
                    "start",
                    format!(
                        "start time {start_t} s at line {line} is before {ptok} s at line {pline}; \
                         the peer requires flows sorted by start time"
                    ),
                ));
            }
        }
        prev = Some((start, start_t, line));
        flows.push(FlowSpec {
            id: flows.len() as u32,
            src,
            dst,
            size,
            start,
            pg,
            dport,
        });
        flow_lines.push(line);
    }
    if flows.len() < count {
        return Err(InputError::at(
            file,
            Some(header_line),
            "flow_count",
            format!("file has {} flows, header says {count}", flows.len()),
        ));
    }
    Ok((flows, flow_lines))
}

fn parse_int<T: std::str::FromStr>(tok: &str, what: &str) -> Result<T, String> {
    tok.parse().map_err(|_| format!("'{tok}' is not {what}"))
}

/// A start time in seconds, e.g. `2.000000962`, parsed from its decimal
/// digits (no floating point): exact to the picosecond for up to 12
/// decimals; further decimals must be zeros. Scientific notation (`2e-9`),
/// which the peer's `>> double` also reads, goes through `f64` and is
/// rounded to the nanosecond.
fn parse_start_seconds(tok: &str) -> Result<Time, String> {
    let bad = || format!("'{tok}' is not a start time in seconds (e.g. 2.000000962)");
    let too_big = || {
        format!(
            "start time '{tok}' is too large: at most {}",
            engine::units::MAX_INPUT_TIME
        )
    };
    if tok.starts_with('-') {
        return Err(format!("start time '{tok}' must not be negative"));
    }
    if tok.contains(['e', 'E']) {
        let v: f64 = tok.parse().map_err(|_| bad())?;
        if !v.is_finite() || v < 0.0 {
            return Err(bad());
        }
        // Whole nanoseconds, as the peer reads it.
        let ns = (v * 1e9).round();
        if ns * 1e3 > engine::units::MAX_INPUT_PS as f64 {
            return Err(too_big());
        }
        return Ok(Time::from_ns(ns as u64));
    }
    let (int, frac) = tok.split_once('.').unwrap_or((tok, ""));
    if (int.is_empty() && frac.is_empty())
        || !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return Err(bad());
    }
    let (kept, rest) = frac.split_at(frac.len().min(12));
    if rest.bytes().any(|b| b != b'0') {
        return Err(format!(
            "start time '{tok}' has more than 12 decimals (picosecond resolution)"
        ));
    }
    let secs: u64 = if int.is_empty() {
        0
    } else {
        int.parse().map_err(|_| too_big())?
    };
    let mut frac_ps: u64 = if kept.is_empty() {
        0
    } else {
        kept.parse().map_err(|_| bad())?
    };
    frac_ps *= 10u64.pow(12 - kept.len() as u32);
    secs.checked_mul(1_000_000_000_000)
        .and_then(|p| p.checked_add(frac_ps))
        .filter(|&p| p <= engine::units::MAX_INPUT_PS)
        .map(Time)
        .ok_or_else(too_big)
}

/// A start time in seconds as the peer reads it ([`StartTimes::AsPeer`]):
/// the nearest `double`, times 10^9 in 64.64 fixed point, truncated to
/// whole nanoseconds (ns-3's `Time::FromDouble` and `Time(int64x64_t)`).
fn parse_start_as_peer(tok: &str) -> Result<Time, String> {
    let bad = || format!("'{tok}' is not a start time in seconds (e.g. 2.000000962)");
    if tok.starts_with('-') {
        return Err(format!("start time '{tok}' must not be negative"));
    }
    let v: f64 = tok.parse().map_err(|_| bad())?;
    if !v.is_finite() || v < 0.0 {
        return Err(bad());
    }
    let max_s = engine::units::MAX_INPUT_PS / 1_000_000_000_000;
    if v > max_s as f64 {
        return Err(format!(
            "start time '{tok}' is too large: at most {}",
            engine::units::MAX_INPUT_TIME
        ));
    }
    // `v` in 64.64 fixed point (exact: scaling by 2^64 only moves the
    // exponent; bits below 2^-64 are dropped, as the peer's conversion
    // drops them), times 10^9 (below 2^114 for v up to 10^6 s), then its
    // integer part.
    let fixed = (v * 18_446_744_073_709_551_616.0) as u128;
    let ns = ((fixed * 1_000_000_000) >> 64) as u64;
    Ok(Time::from_ns(ns))
}

/// Read and parse a peer flow file (see [`parse_peer_flows`]).
pub fn load_peer_flows(path: impl AsRef<Path>) -> Result<Vec<FlowSpec>, InputError> {
    load_peer_flows_with_lines(path).map(|(f, _)| f)
}

/// Read and parse a peer flow file, with each flow's line number (see
/// [`parse_peer_flows_with_lines`]).
pub fn load_peer_flows_with_lines(
    path: impl AsRef<Path>,
) -> Result<(Vec<FlowSpec>, Vec<usize>), InputError> {
    let path = path.as_ref();
    let name = path.display().to_string();
    let text = engine::input::read_text(path)
        .map_err(|e| InputError::at(&name, None, "", format!("cannot read flow file: {e}")))?;
    parse_peer_flows_with_lines(&text, &name)
}

/// Check that every flow's endpoints exist (`< n_nodes`) and are hosts.
/// `lines[i]` is flow `i`'s line in `file` (as returned by
/// [`parse_peer_flows_with_lines`]); pass `&[]` when there is no file line.
/// Errors read like `flows.txt:17: dst: node 330 is a switch, not a host`.
pub fn validate_endpoints(
    flows: &[FlowSpec],
    lines: &[usize],
    file: &str,
    n_nodes: u32,
    is_host: &dyn Fn(u32) -> bool,
) -> Result<(), InputError> {
    for (i, f) in flows.iter().enumerate() {
        for (field, node) in [("src", f.src), ("dst", f.dst)] {
            let msg = if node >= n_nodes {
                format!(
                    "node {node} does not exist (the topology has {n_nodes} nodes, 0-{})",
                    n_nodes.saturating_sub(1)
                )
            } else if !is_host(node) {
                format!("node {node} is a switch, not a host")
            } else {
                continue;
            };
            return Err(InputError::at(file, lines.get(i).copied(), field, msg));
        }
    }
    Ok(())
}

/// Check that every flow's priority class `pg` is one of the network's
/// `n_classes` classes (0 to `n_classes - 1`); `lines[i]` is flow `i`'s
/// line in `file`, as for [`validate_endpoints`].
pub fn validate_classes(
    flows: &[FlowSpec],
    lines: &[usize],
    file: &str,
    n_classes: usize,
) -> Result<(), InputError> {
    match flows.iter().position(|f| usize::from(f.pg) >= n_classes) {
        None => Ok(()),
        Some(i) => Err(InputError::at(
            file,
            lines.get(i).copied(),
            "pg",
            format!(
                "priority class {} does not exist (classes are 0 to {})",
                flows[i].pg,
                n_classes - 1
            ),
        )),
    }
}

/// Write flows in the peer's format. Start times are seconds with 9
/// decimals (whole nanoseconds, the peer's resolution), or 12 decimals for
/// a time that is not a whole nanosecond, so parsing the text gives the
/// flows back exactly (ids aside, which become file order).
pub fn write_peer_flows(flows: &[FlowSpec]) -> String {
    let mut out = String::with_capacity(16 + flows.len() * 40);
    let _ = writeln!(out, "{}", flows.len());
    for f in flows {
        let ps = f.start.ps();
        let secs = ps / 1_000_000_000_000;
        let sub = ps % 1_000_000_000_000;
        let _ = write!(out, "{} {} {} {} {} ", f.src, f.dst, f.pg, f.dport, f.size);
        if sub.is_multiple_of(1_000) {
            let _ = writeln!(out, "{secs}.{:09}", sub / 1_000);
        } else {
            let _ = writeln!(out, "{secs}.{sub:012}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "3\n13 10 3 100 2247900 2.000000962\n\
                          2 5 3 100 1000 2.000001\n\
                          7 1 3 200 64 3\n\
                          this line is ignored\n";

    #[test]
    fn parses_the_sample() {
        let (flows, lines) = parse_peer_flows_with_lines(SAMPLE, "flow.txt").unwrap();
        assert_eq!(lines, vec![2, 3, 4]);
        assert_eq!(
            flows[0],
            FlowSpec {
                id: 0,
                src: 13,
                dst: 10,
                size: 2_247_900,
                start: Time::from_ns(2_000_000_962),
                pg: 3,
                dport: 100,
            }
        );
        assert_eq!(flows[1].start, Time::from_ns(2_000_001_000));
        assert_eq!(flows[2].start, Time::from_ns(3_000_000_000));
        assert_eq!((flows[2].id, flows[2].dport, flows[2].size), (2, 200, 64));
    }

    /// The peer's reading goes through a double and truncates: a decimal
    /// just above a whole nanosecond whose double is just below it loses
    /// that nanosecond; one whose double is above keeps it.
    #[test]
    fn start_times_as_the_peer_reads_them() {
        let t = |s: &str| parse_start_as_peer(s).unwrap();
        assert_eq!(t("2.000000149"), Time::from_ns(2_000_000_148));
        assert_eq!(t("2.000000962"), Time::from_ns(2_000_000_962));
        assert_eq!(t("2"), Time::from_ns(2_000_000_000));
        // 2e-9's double is 1.99999999999999996e-9.
        assert_eq!(t("2e-9"), Time::from_ns(1));
        // Below a nanosecond is dropped, not rounded.
        assert_eq!(t("0.0000000019"), Time::from_ns(1));
        assert_eq!(
            parse_start_seconds("2.000000149").unwrap(),
            Time::from_ns(2_000_000_149)
        );
        for bad in ["-1", "x", "inf", "NaN", ""] {
            assert!(parse_start_as_peer(bad).is_err(), "{bad}");
        }
        assert!(parse_start_as_peer("1e7")
            .unwrap_err()
            .contains("too large"));
        let text = "1\n0 1 3 100 10 2.000000149\n";
        let (f, _) = parse_peer_flows_reading(text, "f.txt", StartTimes::AsPeer).unwrap();
        assert_eq!(f[0].start, Time::from_ns(2_000_000_148));
    }

    #[test]
    fn start_times_are_exact() {
        let t = |s: &str| parse_start_seconds(s).unwrap();
        assert_eq!(t("2.000000962"), Time::from_ns(2_000_000_962));
        assert_eq!(t("0.1"), Time::from_ns(100_000_000));
        assert_eq!(t(".5"), Time::from_ns(500_000_000));
        assert_eq!(t("2."), Time::from_ns(2_000_000_000));
        assert_eq!(t("1.000000000001"), Time(1_000_000_000_001));
        assert_eq!(t("1.0000000000010000"), Time(1_000_000_000_001));
        assert_eq!(t("2e-9"), Time::from_ns(2));
        // f64 would give 2.000000961999... for some values; the digits don't.
        assert_eq!(t("1234.567890123"), Time(1_234_567_890_123_000));
        for bad in ["", ".", "-1", "1.2.3", "abc", "1.0000000000001", "1,5"] {
            assert!(parse_start_seconds(bad).is_err(), "{bad}");
        }
        // Up to 10^6 s, so that a start plus the run's delays and timers
        // stays on the clock (engine::units::MAX_INPUT_PS).
        assert_eq!(t("1000000"), Time(engine::units::MAX_INPUT_PS));
        assert_eq!(t("1e6"), Time(engine::units::MAX_INPUT_PS));
        for big in ["1000000.000000000001", "1e7", "18446744"] {
            let e = parse_start_seconds(big).unwrap_err();
            assert!(e.contains("too large"), "{big}: {e}");
        }
    }

    #[test]
    fn round_trip() {
        let flows = vec![
            FlowSpec {
                id: 0,
                src: 1,
                dst: 2,
                size: 5,
                start: Time::from_ns(2_000_000_962),
                pg: 3,
                dport: 100,
            },
            FlowSpec {
                id: 1,
                src: 2,
                dst: 1,
                size: 30_000_000,
                start: Time(2_000_000_962_500),
                pg: 0,
                dport: 200,
            },
            FlowSpec {
                id: 2,
                src: 300,
                dst: 0,
                size: 1,
                start: Time::from_ns(12_000_000_000),
                pg: 7,
                dport: 65535,
            },
        ];
        let text = write_peer_flows(&flows);
        assert_eq!(
            text,
            "3\n1 2 3 100 5 2.000000962\n2 1 0 200 30000000 2.000000962500\n\
             300 0 7 65535 1 12.000000000\n"
        );
        assert_eq!(parse_peer_flows(&text, "x").unwrap(), flows);
        assert_eq!(parse_peer_flows(SAMPLE, "x").unwrap().len(), 3);
        let again = write_peer_flows(&parse_peer_flows(SAMPLE, "x").unwrap());
        assert_eq!(
            parse_peer_flows(&again, "x").unwrap(),
            parse_peer_flows(SAMPLE, "x").unwrap()
        );
    }

    #[test]
    fn generated_poisson_round_trips() {
        let p = crate::PoissonSpec {
            hosts: vec![0, 1, 2, 3],
            host_rate: engine::Rate::gbps(100),
            load: 0.6,
            cdf: crate::SizeCdf::fb_hadoop(),
            start: Time::from_ns(2_000_000_000),
            duration: engine::Delta::from_ms(2),
            seed: 3,
            pg: 3,
            dport: 100,
        };
        let flows = crate::poisson(&p).unwrap();
        assert!(flows.len() > 100);
        let text = write_peer_flows(&flows);
        assert!(!text
            .lines()
            .skip(1)
            .any(|l| l.rsplit('.').next().unwrap().len() != 9));
        assert_eq!(parse_peer_flows(&text, "gen").unwrap(), flows);
    }

    fn err(text: &str) -> InputError {
        parse_peer_flows(text, "flows.txt").unwrap_err()
    }

    #[test]
    fn errors_name_line_and_field() {
        let e = err("x\n");
        assert_eq!((e.line, e.field.as_str()), (Some(1), "flow_count"));
        let e = err("");
        assert_eq!((e.line, e.field.as_str()), (None, "flow_count"));

        let e = err("5\n1 2 3 100 10 1.0\n2 1 3 100 10 1.0\n\n3 1 3 100 10 1.5\n");
        assert_eq!(
            e.to_string(),
            "flows.txt:1: flow_count: file has 3 flows, header says 5"
        );

        let cases = [
            ("a 2 3 100 10 1.0", "src"),
            ("1 -2 3 100 10 1.0", "dst"),
            ("1 2 300 100 10 1.0", "pg"),
            ("1 2 3 70000 10 1.0", "dport"),
            ("1 2 3 100 1e3 1.0", "size"),
            ("1 2 3 100 0 1.0", "size"),
            ("1 2 3 100 10 soon", "start"),
            ("1 2 3 100 10", "start"),
            ("1 2 3", "dport"),
            ("4 4 3 100 10 1.0", "dst"),
            ("1 2 3 100 10 1.0 7", "start"),
        ];
        for (line, field) in cases {
            let e = err(&format!("2\n1 2 3 100 10 0.5\n{line}\n"));
            assert_eq!((e.line, e.field.as_str()), (Some(3), field), "{line}: {e}");
            assert!(
                e.to_string()
                    .starts_with(&format!("flows.txt:3: {field}: ")),
                "{e}"
            );
        }
        let e = err("2\n1 2 3 100 10 0.5\n4 4 3 100 10 1.0\n");
        assert!(e.msg.contains("itself"), "{e}");

        let e = err("3\n1 2 3 100 10 2.0\n2 1 3 100 10 2.5\n3 1 3 100 10 1.5\n");
        assert_eq!(
            e.to_string(),
            "flows.txt:4: start: start time 1.5 s at line 4 is before 2.5 s at line 3; \
             the peer requires flows sorted by start time"
        );
        // Extra lines after the counted flows are not read, even if broken.
        assert_eq!(
            parse_peer_flows("1\n1 2 3 100 10 1\ngarbage\n", "f")
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn endpoints_are_checked() {
        let text = "# flows\n2\n0 1 3 100 10 1.0\n\n1 330 3 100 10 1.0\n";
        let (flows, lines) = parse_peer_flows_with_lines(text, "flows.txt").unwrap();
        assert_eq!(lines, vec![3, 5]);
        let is_host = |n: u32| n < 400;
        assert!(validate_endpoints(&flows, &lines, "flows.txt", 400, &is_host).is_ok());
        let is_host = |n: u32| n < 300;
        let e = validate_endpoints(&flows, &lines, "flows.txt", 400, &is_host).unwrap_err();
        assert_eq!(
            e.to_string(),
            "flows.txt:5: dst: node 330 is a switch, not a host"
        );
        let e = validate_endpoints(&flows, &lines, "flows.txt", 320, &is_host).unwrap_err();
        assert_eq!(
            e.to_string(),
            "flows.txt:5: dst: node 330 does not exist (the topology has 320 nodes, 0-319)"
        );
        let e = validate_endpoints(&flows, &[], "gen", 1, &|_| true).unwrap_err();
        assert_eq!(
            e.to_string(),
            "gen: dst: node 1 does not exist (the topology has 1 nodes, 0-0)"
        );
    }

    #[test]
    fn classes_are_checked() {
        let text = "2\n0 1 7 100 10 1.0\n0 1 9 100 10 1.0\n";
        let (flows, lines) = parse_peer_flows_with_lines(text, "flows.txt").unwrap();
        assert!(validate_classes(&flows[..1], &lines, "flows.txt", 8).is_ok());
        let e = validate_classes(&flows, &lines, "flows.txt", 8).unwrap_err();
        assert_eq!(
            e.to_string(),
            "flows.txt:3: pg: priority class 9 does not exist (classes are 0 to 7)"
        );
    }
}
