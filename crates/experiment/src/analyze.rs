//! `rdmasim analyze`: slowdown statistics of one or more runs, read back
//! from their `flows.csv`, two ways:
//!
//! - the peer analysis script's (HPCC sim's `analysis/fct_analysis.py`):
//!   finished flows sorted by size, cut into
//!   groups of `step` % of the flows (`l = int(i*n/100)`,
//!   `r = int((i+step)*n/100)`), each reporting its largest size and the
//!   median, p95 and p99 slowdown, slowdown clamped at 1 and percentile =
//!   `sorted[int(n*p)]` ([`stats::peer_buckets`]);
//! - fixed size buckets, avg/p50/p95/p99 ([`stats::size_buckets`]).
//!
//! Flows are filtered first, as the script does: by class (destination
//! port 100 is "normal" background traffic, 200 incast; the script's `-t`)
//! and by completion time, `START <= start + fct < END` (the script's `-T`
//! is END). With several runs, tables are side by side, each run after the
//! first with its relative change against the first.
//!
//! One difference from the script: flows of equal size are ordered by id
//! here; the script's `sort -n -k 2` orders them by the text of the line.
//! This only matters for equal-size flows on either side of a group edge.
//!
//! A run may also be the peer's `fct.txt` itself, the script's own input
//! ([`read_peer_fct`]): the same tables, from finished flows only (the file
//! lists no others), classes by its `dport` as above, and flows of equal
//! size in the file's (completion) order.

use crate::config::{DEFAULT_DPORT, DEFAULT_INCAST_DPORT};
use crate::error::ExperimentError;
use crate::fmt::{csv_field, fmt_decimal, fmt_ns, fmt_size, num, parse_whole, pct, Whole};
use crate::locate::{self, FileKind};
use engine::units::parse_time;
use engine::InputError;
use stats::{peer_buckets, size_buckets, BucketStats, FlowRecord, PeerBucket, DEFAULT_SIZE_EDGES};
use std::fmt::Write as _;
use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};

/// Smallest `--step` a user may give (percent of the flows per group).
pub use stats::MIN_PEER_STEP;

/// Which flows a class filter keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Destination port 100 (the peer's "normal" traffic).
    Normal,
    /// Destination port 200 (the peer's incast).
    Incast,
    /// Every flow.
    All,
}

impl Class {
    /// Parse `normal`, `incast` or `all`.
    pub fn parse(s: &str) -> Option<Class> {
        match s {
            "normal" => Some(Class::Normal),
            "incast" => Some(Class::Incast),
            "all" => Some(Class::All),
            _ => None,
        }
    }
    /// The name, as parsed.
    pub fn name(self) -> &'static str {
        match self {
            Class::Normal => "normal",
            Class::Incast => "incast",
            Class::All => "all",
        }
    }
    /// Whether a flow with destination port `dport` is of this class.
    pub fn keeps(self, dport: u16) -> bool {
        match self {
            Class::Normal => dport == DEFAULT_DPORT,
            Class::Incast => dport == DEFAULT_INCAST_DPORT,
            Class::All => true,
        }
    }
}

/// What to keep and how to group.
#[derive(Clone, Debug, PartialEq)]
pub struct AnalyzeOptions {
    /// Group size of the peer's buckets, percent of the flows.
    pub step: f64,
    /// Flow class.
    pub class: Class,
    /// Keep flows completed at or after this time, ns.
    pub from_ns: Option<u64>,
    /// Keep flows completed before this time, ns (the script's `-T`).
    pub until_ns: Option<u64>,
    /// Edges of the fixed size buckets, bytes.
    pub edges: Vec<u64>,
}

impl Default for AnalyzeOptions {
    fn default() -> Self {
        AnalyzeOptions {
            step: 5.0,
            class: Class::All,
            from_ns: None,
            until_ns: None,
            edges: DEFAULT_SIZE_EDGES.to_vec(),
        }
    }
}

/// Parse `START,END` (either side may be empty): times with units
/// (`"5ms"`) or plain nanoseconds.
pub fn parse_window(s: &str) -> Result<(Option<u64>, Option<u64>), String> {
    let (a, b) = s
        .split_once(',')
        .ok_or_else(|| format!("'{s}' is not START,END (e.g. 0,5ms or ,5ms)"))?;
    let one = |x: &str| -> Result<Option<u64>, String> {
        let x = x.trim();
        if x.is_empty() {
            return Ok(None);
        }
        if let Ok(ns) = x.parse::<u64>() {
            return Ok(Some(ns));
        }
        parse_time(x).map(|d| Some(d.ps() / 1000))
    };
    let (from, until) = (one(a)?, one(b)?);
    if let (Some(f), Some(u)) = (from, until) {
        if u <= f {
            return Err(format!("the window '{s}' ends before it starts"));
        }
    }
    Ok((from, until))
}

/// One run's statistics.
#[derive(Clone, Debug)]
pub struct RunAnalysis {
    /// Short name for tables and legends.
    pub label: String,
    /// The `flows.csv` or `fct.txt` read.
    pub path: PathBuf,
    /// Flows in the file (an `fct.txt` holds finished flows only).
    pub total: usize,
    /// Finished flows the filters kept.
    pub kept: usize,
    /// The peer's buckets.
    pub peer: Vec<PeerBucket>,
    /// Smallest size of each peer bucket.
    pub peer_min_size: Vec<u64>,
    /// Fixed size buckets, then `all`.
    pub size: Vec<BucketStats>,
}

/// `flows.csv` of a run directory, or the file itself.
pub fn flows_path(p: &Path) -> PathBuf {
    if p.is_dir() {
        p.join("flows.csv")
    } else {
        p.to_path_buf()
    }
}

/// Read a `flows.csv` (by its header, so columns may move or be added)
/// or the peer's `fct.txt` ([`read_peer_fct`]), told apart by the first
/// line: a `flows.csv` header has commas, an `fct.txt` line has none.
/// An empty file is an `fct.txt` of a run in which no flow finished (0
/// flows) if its name ends in `fct.txt`, and an error otherwise.
/// A `flows.csv` needs `id`, `size`, `start_ns`, `fct_ns`, `ideal_fct_ns`
/// and `dport`; slowdown is recomputed as `fct_ns / ideal_fct_ns`. A
/// number that does not fit its field (`dport` past 65535, `id` past
/// `u32::MAX`, ...) is an error at its line and column, never truncated.
///
/// A file that is not flows but looks like a config or a sweep file: the
/// error ends with the command that reads it.
pub fn read_flows(path: &Path) -> Result<Vec<FlowRecord>, ExperimentError> {
    read_flows_file(path).map_err(|e| {
        // The start of the file is enough to tell a config by.
        let mut head = Vec::new();
        if let Ok(f) = std::fs::File::open(path) {
            let _ = io::Read::read_to_end(&mut io::Read::take(f, 1 << 16), &mut head);
        }
        locate::hint_wrong_kind(
            e,
            &String::from_utf8_lossy(&head),
            &path.display().to_string(),
            &[FileKind::Config, FileKind::Sweep, FileKind::Peer],
        )
    })
}

/// Refuse `run`, given where a run directory is due, if it is a sweep's
/// directory: the error says what it is and what to give instead.
pub fn refuse_sweep_dir(run: &Path) -> Result<(), ExperimentError> {
    if !locate::is_sweep_dir(run) {
        return Ok(());
    }
    let dir = run.display().to_string();
    let runs = run.join("*").display().to_string();
    Err(ExperimentError::Input(InputError::at(
        dir.as_str(),
        None,
        "",
        format!(
            "a sweep's directory, not a run directory: give the run directories in it \
             instead, e.g. {runs}/ (its index.csv has each run's key numbers)"
        ),
    )))
}

/// `paths`, each sweep's directory among them replaced by its complete
/// runs (those with a `flows.csv`), in the order of its `index.csv` (the
/// sweep's grid order) or, without one, of their names. [`labels`] then
/// names each by its axis values: its directory's name, less the values
/// every run shares. A sweep's directory with no complete run is an
/// error.
pub fn expand_sweep_dirs(paths: &[PathBuf]) -> Result<Vec<PathBuf>, ExperimentError> {
    let mut out = Vec::new();
    for p in paths {
        if !locate::is_sweep_dir(p) {
            out.push(p.clone());
            continue;
        }
        let complete = |name: &str| {
            let run = p.join(name);
            run.join("flows.csv").is_file().then_some(run)
        };
        let index = std::fs::read_to_string(p.join("index.csv")).ok();
        let mut runs: Vec<PathBuf> = match &index {
            // The run's name is the first field, quoted where it holds a
            // comma (see `fmt::csv_field`).
            Some(text) => text
                .lines()
                .skip(1)
                .filter_map(|l| complete(&first_csv_field(l)))
                .collect(),
            None => Vec::new(),
        };
        if runs.is_empty() {
            let mut names: Vec<String> = std::fs::read_dir(p)
                .map_err(|e| ExperimentError::io(p, e))?
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| !n.contains(".tmp-"))
                .collect();
            names.sort();
            runs = names.iter().filter_map(|n| complete(n)).collect();
        }
        if runs.is_empty() {
            let dir = p.display().to_string();
            return Err(ExperimentError::Input(InputError::at(
                dir.as_str(),
                None,
                "",
                "a sweep's directory with no complete run yet (no run directory in it has a \
                 flows.csv)",
            )));
        }
        out.extend(runs);
    }
    Ok(out)
}

/// The first field of a CSV line, unquoted.
fn first_csv_field(line: &str) -> String {
    match line.strip_prefix('"') {
        Some(rest) => {
            let mut field = String::new();
            let mut chars = rest.chars().peekable();
            while let Some(c) = chars.next() {
                match (c, chars.peek()) {
                    ('"', Some('"')) => {
                        field.push('"');
                        chars.next();
                    }
                    ('"', _) => break,
                    _ => field.push(c),
                }
            }
            field
        }
        None => line.split(',').next().unwrap_or_default().to_string(),
    }
}

fn read_flows_file(path: &Path) -> Result<Vec<FlowRecord>, ExperimentError> {
    let file = std::fs::File::open(path).map_err(|e| ExperimentError::io(path, e))?;
    let name = path.display().to_string();
    let bad = |line: usize, field: &str, msg: String| {
        ExperimentError::Input(InputError::at(name.as_str(), Some(line), field, msg))
    };
    let mut lines = io::BufReader::new(file).lines();
    // An empty file (or one of blank lines) has no header to tell the
    // format by. The peer writes a line to fct.txt per finished flow, so
    // its fct.txt of a run in which none finished is empty: by its name
    // (`fct.txt`, `ws30_5ms_dcqcn_fct.txt`), a run of 0 flows.
    let empty = || {
        let fct = path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().ends_with("fct.txt"));
        if fct {
            Ok(Vec::new())
        } else {
            Err(bad(
                1,
                "",
                "empty file; expected a flows.csv header or the peer's fct.txt lines".into(),
            ))
        }
    };
    let header = match lines.next() {
        Some(h) => h.map_err(|e| ExperimentError::io(path, e))?,
        None => return empty(),
    };
    if !header.contains(',') {
        // Every line that is not blank is a flow or an error.
        let out = read_peer_fct(path, std::iter::once(Ok(header)).chain(lines))?;
        return if out.is_empty() { empty() } else { Ok(out) };
    }
    let cols: Vec<&str> = header.trim().split(',').collect();
    let col = |n: &str| cols.iter().position(|c| *c == n);
    let need = |n: &str| {
        col(n).ok_or_else(|| {
            bad(
                1,
                n,
                format!("missing column (the header is '{}')", header.trim()),
            )
        })
    };
    let (c_id, c_size, c_start, c_fct, c_ideal, c_dport) = (
        need("id")?,
        need("size")?,
        need("start_ns")?,
        need("fct_ns")?,
        need("ideal_fct_ns")?,
        need("dport")?,
    );
    let (c_src, c_dst, c_pg, c_sport) = (col("src"), col("dst"), col("pg"), col("sport"));
    let (c_retx, c_paused) = (col("retransmitted_bytes"), col("paused_ns"));
    let mut out = Vec::new();
    for (i, line) in lines.enumerate() {
        let line = line.map_err(|e| ExperimentError::io(path, e))?;
        let ln = i + 2;
        if line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split(',').collect();
        if f.len() != cols.len() {
            return Err(bad(
                ln,
                "",
                format!("{} fields, but the header has {}", f.len(), cols.len()),
            ));
        }
        let get = |c: usize, what: &str| -> Result<u64, ExperimentError> {
            parse_whole(f[c]).map_err(|m| bad(ln, what, m))
        };
        // An optional column that is missing or empty reads as 0 (unknown);
        // a value in it must fit its field, as in the required ones.
        fn opt<T: Whole>(
            f: &[&str],
            c: Option<usize>,
            what: &str,
            bad: impl Fn(&str, String) -> ExperimentError,
        ) -> Result<T, ExperimentError> {
            match c {
                Some(c) if !f[c].trim().is_empty() => parse_whole(f[c]).map_err(|m| bad(what, m)),
                _ => Ok(T::ZERO),
            }
        }
        let opt_bad = |what: &str, m: String| bad(ln, what, m);
        let fct_ns = if f[c_fct].trim().is_empty() {
            None
        } else {
            Some(get(c_fct, "fct_ns")?)
        };
        let start_ns = get(c_start, "start_ns")?;
        let end_ns = match fct_ns {
            Some(x) => Some(flow_end(start_ns, x).map_err(|m| bad(ln, "fct_ns", m))?),
            None => None,
        };
        let ideal = get(c_ideal, "ideal_fct_ns")?;
        out.push(FlowRecord {
            id: parse_whole(f[c_id]).map_err(|m| bad(ln, "id", m))?,
            src: opt(&f, c_src, "src", opt_bad)?,
            dst: opt(&f, c_dst, "dst", opt_bad)?,
            size: get(c_size, "size")?,
            start_ns,
            end_ns,
            fct_ns,
            ideal_fct_ns: ideal,
            slowdown: fct_ns.map(|x| x as f64 / ideal.max(1) as f64),
            pg: opt(&f, c_pg, "pg", opt_bad)?,
            dport: parse_port(f[c_dport]).map_err(|m| bad(ln, "dport", m))?,
            sport: match c_sport {
                Some(c) if !f[c].trim().is_empty() => {
                    parse_port(f[c]).map_err(|m| bad(ln, "sport", m))?
                }
                _ => 0,
            },
            retransmitted_bytes: opt(&f, c_retx, "retransmitted_bytes", opt_bad)?,
            paused_ns: opt(&f, c_paused, "paused_ns", opt_bad)?,
        });
    }
    Ok(out)
}

/// A port number read from a file.
fn parse_port(s: &str) -> Result<u16, String> {
    s.trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a port number (0 to 65535)"))
}

/// When a flow ended. Numbers read from a file may not add up within u64
/// (a damaged or hand-made file): an error, not an overflow.
fn flow_end(start_ns: u64, fct_ns: u64) -> Result<u64, String> {
    start_ns.checked_add(fct_ns).ok_or_else(|| {
        format!(
            "start_ns {start_ns} + fct_ns {fct_ns}: the flow would end past the last nanosecond"
        )
    })
}

/// The fields of a line of the peer's `fct.txt`, in order.
const PEER_FCT_FIELDS: [&str; 8] = [
    "sip",
    "dip",
    "sport",
    "dport",
    "size",
    "start_ns",
    "fct_ns",
    "ideal_fct_ns",
];

/// Read the peer's `fct.txt` (HPCC sim `third.cc` `qp_finish`; what `rdmasim
/// hpcc` and every run directory hold): no header, one line per finished
/// flow in completion order, `sip dip sport dport size start_ns fct_ns
/// ideal_fct_ns` separated by spaces, IPs in hex. Unfinished flows are not
/// in it, so every record is finished. A flow's id is its line's place in
/// the file (the file has no ids); its priority group is 0 (nor those).
pub fn read_peer_fct(
    path: &Path,
    lines: impl Iterator<Item = io::Result<String>>,
) -> Result<Vec<FlowRecord>, ExperimentError> {
    let name = path.display().to_string();
    let bad = |line: usize, field: &str, msg: String| {
        ExperimentError::Input(InputError::at(name.as_str(), Some(line), field, msg))
    };
    let mut out = Vec::new();
    for (i, line) in lines.enumerate() {
        let line = line.map_err(|e| ExperimentError::io(path, e))?;
        let ln = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() != PEER_FCT_FIELDS.len() {
            let what = format!(
                "{} fields; a line of the peer's fct.txt has 8: {}",
                f.len(),
                PEER_FCT_FIELDS.join(" ")
            );
            // The first line decided the format: say both it could have been.
            let msg = if out.is_empty() {
                format!(
                    "neither a flows.csv header (it has no commas) nor an fct.txt line ({what})"
                )
            } else {
                what
            };
            return Err(bad(ln, "", msg));
        }
        let field = |k: usize| (PEER_FCT_FIELDS[k], f[k]);
        let node = |k: usize| -> Result<u32, ExperimentError> {
            let (what, s) = field(k);
            let ip = u32::from_str_radix(s, 16).map_err(|_| {
                bad(
                    ln,
                    what,
                    format!("'{s}' is not an IP address in hex (e.g. 0b000101)"),
                )
            })?;
            host_node(ip).ok_or_else(|| {
                bad(
                    ln,
                    what,
                    format!(
                        "'{s}' is not the peer's address of a host (those end in 01, e.g. 0b000101)"
                    ),
                )
            })
        };
        let port = |k: usize| -> Result<u16, ExperimentError> {
            let (what, s) = field(k);
            parse_port(s).map_err(|m| bad(ln, what, m))
        };
        let whole = |k: usize| -> Result<u64, ExperimentError> {
            let (what, s) = field(k);
            parse_whole(s).map_err(|m| bad(ln, what, m))
        };
        let (start_ns, fct_ns, ideal) = (whole(5)?, whole(6)?, whole(7)?);
        let end_ns = flow_end(start_ns, fct_ns).map_err(|m| bad(ln, "fct_ns", m))?;
        out.push(FlowRecord {
            id: u32::try_from(out.len()).map_err(|_| {
                bad(
                    ln,
                    "",
                    format!("more than {} flows (ids are u32)", u32::MAX as u64 + 1),
                )
            })?,
            src: node(0)?,
            dst: node(1)?,
            size: whole(4)?,
            start_ns,
            end_ns: Some(end_ns),
            fct_ns: Some(fct_ns),
            ideal_fct_ns: ideal,
            // As for flows.csv, and as the peer's script divides.
            slowdown: Some(fct_ns as f64 / ideal.max(1) as f64),
            pg: 0,
            dport: port(3)?,
            sport: port(2)?,
            retransmitted_bytes: 0,
            paused_ns: 0,
        });
    }
    Ok(out)
}

/// The node whose address the peer made `ip` ([`stats::host_ip`]:
/// `0x0b000001 + ((n / 256) << 16) + ((n % 256) << 8)`, wrapping), for
/// every node rdmasim has (ids below 2^24); `None` if no node has it.
fn host_node(ip: u32) -> Option<u32> {
    let d = ip.wrapping_sub(0x0b00_0001);
    let n = (d >> 16) * 256 + ((d >> 8) & 0xff);
    (stats::host_ip(n) == ip).then_some(n)
}

/// The finished flows `o` keeps.
pub fn filter(records: &[FlowRecord], o: &AnalyzeOptions) -> Vec<FlowRecord> {
    records
        .iter()
        .filter(|r| {
            let Some(end) = r.fct_ns.map(|f| r.start_ns + f) else {
                return false;
            };
            o.class.keeps(r.dport)
                && o.from_ns.is_none_or(|t| end >= t)
                && o.until_ns.is_none_or(|t| end < t)
        })
        .cloned()
        .collect()
}

/// Statistics of one run's records.
pub fn analyze_records(
    label: &str,
    path: &Path,
    records: &[FlowRecord],
    o: &AnalyzeOptions,
) -> RunAnalysis {
    let kept = filter(records, o);
    let peer = peer_buckets(&kept, o.step);
    let mut sizes: Vec<(u64, u32)> = kept.iter().map(|r| (r.size, r.id)).collect();
    sizes.sort_unstable();
    let peer_min_size = peer.iter().map(|b| sizes[b.lo_index].0).collect();
    RunAnalysis {
        label: label.to_string(),
        path: path.to_path_buf(),
        total: records.len(),
        kept: kept.len(),
        peer,
        peer_min_size,
        size: size_buckets(&kept, &o.edges),
    }
}

/// Labels for runs named by paths: the last path component, less the
/// `key=value` parts every run shares (sweep run directories).
pub fn labels(paths: &[PathBuf]) -> Vec<String> {
    let names: Vec<String> = paths
        .iter()
        .map(|p| {
            // A run directory's own files are named by the directory, when
            // the path names one (`fct.txt` or `./fct.txt` alone keeps its
            // own name, not an empty or "." label).
            let own = p
                .file_name()
                .is_some_and(|n| n == "flows.csv" || n == "fct.txt");
            let p = match p.parent() {
                Some(dir) if own && dir.file_name().is_some() => dir,
                _ => p.as_path(),
            };
            p.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| p.display().to_string())
        })
        .collect();
    if names.len() < 2 {
        return names;
    }
    let parts: Vec<Vec<&str>> = names.iter().map(|n| n.split(',').collect()).collect();
    let shared: Vec<&str> = parts[0]
        .iter()
        .copied()
        .filter(|p| p.contains('=') && parts.iter().all(|q| q.contains(p)))
        .collect();
    let out: Vec<String> = parts
        .iter()
        .zip(&names)
        .map(|(ps, n)| {
            let kept: Vec<&str> = ps.iter().copied().filter(|p| !shared.contains(p)).collect();
            if kept.is_empty() {
                n.clone()
            } else {
                kept.join(",")
            }
        })
        .collect();
    // Fall back to the full names if trimming made two alike.
    let mut sorted = out.clone();
    sorted.sort();
    sorted.dedup();
    if sorted.len() == out.len() {
        out
    } else {
        names
    }
}

/// Read and analyse each run (a run directory or a `flows.csv`).
pub fn analyze_runs(
    paths: &[PathBuf],
    o: &AnalyzeOptions,
) -> Result<Vec<RunAnalysis>, ExperimentError> {
    let labels = labels(paths);
    paths
        .iter()
        .zip(labels)
        .map(|(p, label)| {
            let f = flows_path(p);
            let records = read_flows(&f)?;
            Ok(analyze_records(&label, &f, &records, o))
        })
        .collect()
}

fn rel(v: f64, base: f64) -> f64 {
    if base.is_finite() && v.is_finite() && base != 0.0 {
        (v - base) / base
    } else {
        f64::NAN
    }
}

/// The peer bucket `i` of `step`: `7.5-15`.
fn peer_bucket_name(i: usize, step: f64) -> String {
    let (lo, hi) = (i as f64 * step, ((i + 1) as f64 * step).min(100.0));
    format!("{}-{}", fmt_decimal(lo), fmt_decimal(hi))
}

/// A value with its change against the first run: `1.23 (+4.5%)`.
fn cell(v: f64, base: Option<f64>) -> String {
    match base {
        Some(b) if rel(v, b).is_finite() => {
            format!("{} ({})", num(v, 2, "-"), pct(rel(v, b), 1, ""))
        }
        _ => num(v, 2, "-"),
    }
}

/// Right-align columns of `rows` (the first is the header) to a table.
fn table(rows: &[Vec<String>], out: &mut String) {
    let n = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..n)
        .map(|c| {
            rows.iter()
                .map(|r| r.get(c).map_or(0, |s| s.chars().count()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    for r in rows {
        let mut line = String::new();
        for (c, w) in widths.iter().enumerate() {
            let s = r.get(c).map_or("", String::as_str);
            if c == 0 {
                let _ = write!(line, "{s:<w$}");
            } else {
                let _ = write!(line, "  {s:>w$}");
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
}

/// The tables `rdmasim analyze` prints.
pub fn render(runs: &[RunAnalysis], o: &AnalyzeOptions) -> String {
    let mut s = String::new();
    let window = match (o.from_ns, o.until_ns) {
        (None, None) => String::new(),
        (f, u) => format!(
            ", completed in [{}, {})",
            f.map_or("0".into(), fmt_ns),
            u.map_or("end".into(), fmt_ns)
        ),
    };
    let tags: Vec<String> = (0..runs.len()).map(tag).collect();
    for (r, t) in runs.iter().zip(&tags) {
        let _ = writeln!(
            s,
            "{t} = {} ({}): {} of {} flows (finished, class {}{window})",
            r.label,
            r.path.display(),
            r.kept,
            r.total,
            o.class.name()
        );
    }
    let first = &runs[0];

    let _ = writeln!(
        s,
        "\nSlowdown by flow size, the peer's buckets ({}% of the flows each, by size; clamped at 1):",
        o.step
    );
    let mut rows = vec![{
        let mut h = vec!["flows %".to_string(), "size".into()];
        for t in &tags {
            for q in ["p50", "p95", "p99"] {
                h.push(format!("{t} {q}"));
            }
        }
        h
    }];
    let nb = runs.iter().map(|r| r.peer.len()).max().unwrap_or(0);
    for i in 0..nb {
        let size = match (first.peer_min_size.get(i), first.peer.get(i)) {
            (Some(a), Some(b)) => format!("{}-{}", fmt_size(*a), fmt_size(b.max_size)),
            _ => String::new(),
        };
        let mut row = vec![peer_bucket_name(i, o.step), size];
        for (k, r) in runs.iter().enumerate() {
            let base = (k > 0).then(|| first.peer.get(i)).flatten();
            match r.peer.get(i) {
                Some(b) => {
                    row.push(cell(b.p50, base.map(|x| x.p50)));
                    row.push(cell(b.p95, base.map(|x| x.p95)));
                    row.push(cell(b.p99, base.map(|x| x.p99)));
                }
                None => row.extend(["-".to_string(), "-".into(), "-".into()]),
            }
        }
        rows.push(row);
    }
    table(&rows, &mut s);

    let _ = writeln!(s, "\nSlowdown by fixed size bucket:");
    let mut rows = vec![{
        let mut h = vec!["size".to_string()];
        for t in &tags {
            for q in ["flows", "avg", "p50", "p95", "p99"] {
                h.push(format!("{t} {q}"));
            }
        }
        h
    }];
    for (i, b0) in first.size.iter().enumerate() {
        let mut row = vec![b0.label.clone()];
        for (k, r) in runs.iter().enumerate() {
            let base = (k > 0).then_some(b0);
            let b = &r.size[i.min(r.size.len() - 1)];
            row.push(b.count.to_string());
            row.push(cell(b.avg, base.map(|x| x.avg)));
            row.push(cell(b.p50, base.map(|x| x.p50)));
            row.push(cell(b.p95, base.map(|x| x.p95)));
            row.push(cell(b.p99, base.map(|x| x.p99)));
        }
        rows.push(row);
    }
    table(&rows, &mut s);
    s
}

/// `A`, `B`, ..., `Z`, `AA`, ...
fn tag(i: usize) -> String {
    let mut s = String::new();
    let mut n = i + 1;
    while n > 0 {
        n -= 1;
        s.insert(0, (b'A' + (n % 26) as u8) as char);
        n /= 26;
    }
    s
}

/// Header of the CSV `rdmasim analyze --out` writes.
pub const ANALYSIS_HEADER: &str =
    "run,path,table,bucket,flows,size_min,size_max,avg,p50,p95,p99,avg_rel,p50_rel,p95_rel,p99_rel";

/// Write every table as one tidy CSV ([`ANALYSIS_HEADER`]): `table` is
/// `peer` or `size`; `*_rel` is the relative change against the first run
/// (empty for the first).
pub fn write_csv<W: Write>(runs: &[RunAnalysis], o: &AnalyzeOptions, mut w: W) -> io::Result<()> {
    writeln!(w, "{ANALYSIS_HEADER}")?;
    let f = |v: f64| num(v, 6, "");
    let first = &runs[0];
    for (k, r) in runs.iter().enumerate() {
        let (label, path) = (
            csv_field(&r.label),
            csv_field(&r.path.display().to_string()),
        );
        for (i, b) in r.peer.iter().enumerate() {
            let base = (k > 0).then(|| first.peer.get(i)).flatten();
            let rl = |v: f64, g: fn(&PeerBucket) -> f64| {
                base.map(|x| f(rel(v, g(x)))).unwrap_or_default()
            };
            let bucket = peer_bucket_name(i, o.step);
            writeln!(
                w,
                "{label},{path},peer,{bucket},{},{},{},{},{},{},{},{},{},{},{}",
                b.hi_index - b.lo_index,
                r.peer_min_size[i],
                b.max_size,
                f(b.avg),
                f(b.p50),
                f(b.p95),
                f(b.p99),
                rl(b.avg, |x| x.avg),
                rl(b.p50, |x| x.p50),
                rl(b.p95, |x| x.p95),
                rl(b.p99, |x| x.p99),
            )?;
        }
        for (i, b) in r.size.iter().enumerate() {
            let base = (k > 0).then(|| first.size.get(i)).flatten();
            let rl = |v: f64, g: fn(&BucketStats) -> f64| {
                base.map(|x| f(rel(v, g(x)))).unwrap_or_default()
            };
            let hi = if b.hi == u64::MAX {
                String::new()
            } else {
                b.hi.to_string()
            };
            writeln!(
                w,
                "{label},{path},size,{},{},{},{hi},{},{},{},{},{},{},{},{}",
                csv_field(&b.label),
                b.count,
                b.lo,
                f(b.avg),
                f(b.p50),
                f(b.p95),
                f(b.p99),
                rl(b.avg, |x| x.avg),
                rl(b.p50, |x| x.p50),
                rl(b.p95, |x| x.p95),
                rl(b.p99, |x| x.p99),
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-made flows.csv: 23 flows. Normal flows (dport 100) of sizes
    /// 1000, 2000, ..., 20000 given out of order, flow k (size 1000*(k+1))
    /// with fct = (k + 1) * 1000 ns over an ideal of 1000 ns, except the
    /// smallest, at 0.5 (clamped to 1); one unfinished normal flow, two
    /// incast flows (dport 200), one flow completing at 1 ms.
    fn flows_csv() -> String {
        let mut s = String::from(stats::FLOWS_CSV_HEADER);
        s.push('\n');
        let mut rows = Vec::new();
        for k in 0..20u64 {
            let size = 1000 * (k + 1);
            let fct = if k == 0 { 500 } else { (k + 1) * 1000 };
            rows.push((k, size, 0u64, Some(fct), 100u16));
        }
        rows.push((20, 500, 0, None, 100));
        rows.push((21, 7000, 0, Some(9000), 200));
        rows.push((22, 8000, 0, Some(30000), 200));
        rows.push((23, 1500, 999_000, Some(1000), 100)); // ends at 1 ms
                                                         // Out of size order: reverse the rows.
        rows.reverse();
        for (id, size, start, fct, dport) in rows {
            let (end, fct_s, sd) = match fct {
                Some(f) => (
                    (start + f).to_string(),
                    f.to_string(),
                    format!("{:.6}", f as f64 / 1000.0),
                ),
                None => (String::new(), String::new(), String::new()),
            };
            let _ = writeln!(
                s,
                "{id},0,1,{size},{start},{end},{fct_s},1000,{sd},3,{},{dport},0,0",
                10000 + id
            );
        }
        s
    }

    fn analyze_text(o: &AnalyzeOptions) -> RunAnalysis {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let k = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!("rdmasim-analyze-{}-{k}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("flows.csv");
        std::fs::write(&path, flows_csv()).unwrap();
        let recs = read_flows(&path).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(recs.len(), 24);
        analyze_records("t", &path, &recs, o)
    }

    #[test]
    fn the_peer_scripts_buckets_and_percentiles() {
        // As `fct_analysis.py -t 0 -s 5 -T 900000`: normal flows that
        // completed before 0.9 ms: the 20 sized 1000..20000 (flow 23 ends
        // at 1 ms, flow 20 never). n = 20, step 5: 20 groups of 1 flow.
        let o = AnalyzeOptions {
            class: Class::Normal,
            until_ns: Some(900_000),
            ..AnalyzeOptions::default()
        };
        let a = analyze_text(&o);
        assert_eq!((a.total, a.kept), (24, 20));
        assert_eq!(a.peer.len(), 20);
        assert_eq!(a.peer[0].max_size, 1000);
        assert_eq!(a.peer[0].p50, 1.0); // 0.5 clamped at 1
        assert_eq!(a.peer[19].max_size, 20000);
        assert_eq!(a.peer[19].p99, 20.0);

        // Step 15 on n = 20: l = int(i*n/100), r = int((i+15)*n/100) for
        // i = 0, 15, ..., 90: (0,3) (3,6) (6,9) (9,12) (12,15) (15,18) (18,20).
        let o15 = AnalyzeOptions {
            step: 15.0,
            ..o.clone()
        };
        let a = analyze_text(&o15);
        let b: Vec<(usize, usize, u64)> = a
            .peer
            .iter()
            .map(|b| (b.lo_index, b.hi_index, b.max_size))
            .collect();
        assert_eq!(
            b,
            vec![
                (0, 3, 3000),
                (3, 6, 6000),
                (6, 9, 9000),
                (9, 12, 12000),
                (12, 15, 15000),
                (15, 18, 18000),
                (18, 20, 20000)
            ]
        );
        assert_eq!(a.peer_min_size[1], 4000);
        // Group (0,3): slowdowns [1 (clamped), 2, 3]; get_pctl(a, p) =
        // a[int(3*p)]: p50 -> a[1] = 2, p95 -> a[2] = 3, p99 -> a[2] = 3.
        assert_eq!(
            (a.peer[0].p50, a.peer[0].p95, a.peer[0].p99),
            (2.0, 3.0, 3.0)
        );
        assert_eq!(a.peer[0].avg, 2.0);
        // Group (18,20): [19, 20]: p50 = a[int(1.0)] = 20, p95 = a[int(1.9)] = 20.
        assert_eq!((a.peer[6].p50, a.peer[6].p95), (20.0, 20.0));

        // Step 50 with every class (23 finished, flow 23 included): l, r =
        // 0, int(50*23/100) = 11 and 11, 23.
        let all = AnalyzeOptions {
            step: 50.0,
            ..AnalyzeOptions::default()
        };
        let a = analyze_text(&all);
        assert_eq!(a.kept, 23);
        let b: Vec<(usize, usize)> = a.peer.iter().map(|b| (b.lo_index, b.hi_index)).collect();
        assert_eq!(b, vec![(0, 11), (11, 23)]);
        // Sizes in order: 1000, 1500 (flow 23), 2000, ..., 6000, 7000,
        // 7000 (flow 21), 8000, 8000 (flow 22), 9000, ...: group 0 is the
        // first 11, up to 8000.
        assert_eq!(a.peer[0].max_size, 8000);

        // Incast only, and a window's start.
        let inc = AnalyzeOptions {
            class: Class::Incast,
            ..AnalyzeOptions::default()
        };
        assert_eq!(analyze_text(&inc).kept, 2);
        let late = AnalyzeOptions {
            from_ns: Some(900_000),
            ..AnalyzeOptions::default()
        };
        assert_eq!(analyze_text(&late).kept, 1);
    }

    #[test]
    fn fixed_buckets_tables_and_csv() {
        let o = AnalyzeOptions {
            class: Class::Normal,
            edges: vec![5000, 10000],
            ..AnalyzeOptions::default()
        };
        let a = analyze_text(&o);
        let labels: Vec<&str> = a.size.iter().map(|b| b.label.as_str()).collect();
        assert_eq!(labels, vec!["<5KB", "5KB-10KB", ">=10KB", "all"]);
        let counts: Vec<u64> = a.size.iter().map(|b| b.count).collect();
        // <5KB: 1000..4000 and flow 23's 1500.
        assert_eq!(counts, vec![5, 5, 11, 21]);
        // Fixed buckets are not clamped: 0.5 stays.
        assert_eq!(a.size[0].p50, 2.0);

        let mut b = a.clone();
        b.label = "u".into();
        for x in &mut b.peer {
            x.p50 *= 2.0;
        }
        let runs = vec![a, b];
        let text = render(&runs, &o);
        assert!(text.contains("A = t ("), "{text}");
        assert!(text.contains("(+100.0%)"), "{text}");
        assert!(text.contains("(+0.0%)"), "{text}");
        let mut out = Vec::new();
        write_csv(&runs, &o, &mut out).unwrap();
        let csv = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], ANALYSIS_HEADER);
        assert_eq!(lines.len(), 1 + 2 * (20 + 4));
        let cols = lines[0].split(',').count();
        assert!(lines.iter().all(|l| l.split(',').count() == cols), "{csv}");
        assert!(
            csv.contains(",peer,0-5,1,1000,1000,1.000000,1.000000,"),
            "{csv}"
        );
        assert!(
            lines.iter().any(|l| l.starts_with("u,")
                && l.contains(",peer,")
                && l.ends_with(",0.000000,1.000000,0.000000,0.000000")),
            "{csv}"
        );
    }

    #[test]
    fn the_peers_fct_txt_gives_the_tables_flows_csv_gives() {
        let dir = std::env::temp_dir().join(format!("rdmasim-analyze-fct-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let csv = dir.join("flows.csv");
        std::fs::write(&csv, flows_csv()).unwrap();
        let recs = read_flows(&csv).unwrap();
        // As rdmasim writes it: finished flows only, IPs in hex.
        let mut text = Vec::new();
        stats::write_peer_fct(&recs, &mut text).unwrap();
        let fct = dir.join("x_fct.txt");
        std::fs::write(&fct, &text).unwrap();
        let peer = read_flows(&fct).unwrap();
        assert_eq!(peer.len(), 23, "the unfinished flow is not in fct.txt");
        assert!(peer
            .iter()
            .all(|r| r.src == 0 && r.dst == 1 && r.is_finished()));
        // The script's own filter (-t 0: dport 100), and every class: the
        // same statistics as from flows.csv. Normal flows have distinct
        // sizes, so no tie at a group edge can order them differently.
        for o in [
            AnalyzeOptions {
                class: Class::Normal,
                until_ns: Some(900_000),
                step: 15.0,
                ..AnalyzeOptions::default()
            },
            AnalyzeOptions {
                class: Class::Incast,
                ..AnalyzeOptions::default()
            },
            AnalyzeOptions::default(),
        ] {
            let a = analyze_records("a", &csv, &recs, &o);
            let b = analyze_records("b", &fct, &peer, &o);
            assert_eq!(a.kept, b.kept);
            assert_eq!(format!("{:?}", a.size), format!("{:?}", b.size));
            if o.class != Class::All {
                assert_eq!(format!("{:?}", a.peer), format!("{:?}", b.peer));
                assert_eq!(a.peer_min_size, b.peer_min_size);
            }
        }
        // Nodes past 255 and ports, back from the peer's addresses.
        let mut r = recs[0].clone();
        (r.src, r.dst, r.sport, r.dport) = (300, 238, 10007, 200);
        let mut text = Vec::new();
        stats::write_peer_fct(&[r.clone()], &mut text).unwrap();
        std::fs::write(&fct, &text).unwrap();
        let back = read_flows(&fct).unwrap();
        assert_eq!(
            (back[0].src, back[0].dst, back[0].sport, back[0].dport),
            (300, 238, 10007, 200)
        );
        // Nodes past 65535, and an address no node has.
        (r.src, r.dst) = (65536, (1 << 24) - 1);
        let mut text = Vec::new();
        stats::write_peer_fct(&[r], &mut text).unwrap();
        std::fs::write(&fct, &text).unwrap();
        let back = read_flows(&fct).unwrap();
        assert_eq!((back[0].src, back[0].dst), (65536, (1 << 24) - 1));
        let text = String::from_utf8(text)
            .unwrap()
            .replacen("0c000001", "0c000002", 1);
        std::fs::write(&fct, &text).unwrap();
        assert_eq!(
            read_flows(&fct).unwrap_err().to_string(),
            format!(
                "{}:1: sip: '0c000002' is not the peer's address of a host (those end in 01, \
                 e.g. 0b000101)",
                fct.display()
            )
        );
        // A run directory's fct.txt is named by its directory.
        assert_eq!(
            labels(&[
                PathBuf::from("runs/a/fct.txt"),
                PathBuf::from("out/x_fct.txt")
            ]),
            ["a", "x_fct.txt"]
        );
        // ... unless the path names no directory.
        assert_eq!(
            labels(&[PathBuf::from("fct.txt"), PathBuf::from("./flows.csv")]),
            ["fct.txt", "flows.csv"]
        );

        // Bad lines: the file, the line and the field.
        let err = |body: &str| {
            std::fs::write(&fct, body).unwrap();
            read_flows(&fct).unwrap_err().to_string()
        };
        let name = fct.display().to_string();
        let line = "0b000001 0b000101 10000 100 1000 0 2000 1000";
        assert_eq!(
            err(&format!(
                "{line}\n\n0b000001 0b000101 10000 100 1000 0 2000\n"
            )),
            format!(
                "{name}:3: 7 fields; a line of the peer's fct.txt has 8: sip dip sport dport \
                 size start_ns fct_ns ideal_fct_ns"
            )
        );
        assert!(
            err(&line.replace("0b000101", "0g000101")).starts_with(&format!(
                "{name}:1: dip: '0g000101' is not an IP address in hex"
            )),
        );
        assert!(err(&line.replace(" 100 ", " 70000 "))
            .starts_with(&format!("{name}:1: dport: '70000' is not a port number")));
        assert!(err(&line.replace(" 2000 ", " 2e3 "))
            .starts_with(&format!("{name}:1: fct_ns: '2e3' is not a whole number")));
        assert!(err("id size\n").starts_with(&format!(
            "{name}:1: neither a flows.csv header (it has no commas) nor an fct.txt line"
        )));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_empty_fct_txt_is_a_run_of_no_flows() {
        let dir =
            std::env::temp_dir().join(format!("rdmasim-analyze-empty-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // A flows.csv with a header and no rows: what analyze shows for 0 flows.
        let csv = dir.join("flows.csv");
        std::fs::write(&csv, format!("{}\n", stats::FLOWS_CSV_HEADER)).unwrap();
        let o = AnalyzeOptions::default();
        let show = |path: &Path| -> (String, String) {
            let recs = read_flows(path).unwrap();
            assert!(recs.is_empty());
            let runs = [analyze_records("t", path, &recs, &o)];
            let mut out = Vec::new();
            write_csv(&runs, &o, &mut out).unwrap();
            let text = render(&runs, &o).replace(&path.display().to_string(), "PATH");
            let csv = String::from_utf8(out)
                .unwrap()
                .replace(&path.display().to_string(), "PATH");
            (text, csv)
        };
        let want = show(&csv);
        assert!(want.0.contains("0 of 0 flows"), "{}", want.0);
        for t in [&want.0, &want.1] {
            assert!(
                !t.to_lowercase().contains("nan") && !t.contains("inf"),
                "{t}"
            );
        }
        // The peer's names, empty or with blank lines only.
        for (name, body) in [
            ("fct.txt", ""),
            ("ws30_5ms_dcqcn_fct.txt", ""),
            ("fct.txt", "\n\n"),
        ] {
            let p = dir.join(name);
            std::fs::write(&p, body).unwrap();
            assert_eq!(show(&p), want, "{name}");
        }
        // Any other name: nothing tells what the file was meant to be.
        for name in ["empty.csv", "fct.txt.bak", "flows.csv.txt"] {
            let p = dir.join(name);
            std::fs::write(&p, "").unwrap();
            assert_eq!(
                read_flows(&p).unwrap_err().to_string(),
                format!(
                    "{}:1: empty file; expected a flows.csv header or the peer's fct.txt lines",
                    p.display()
                )
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_flow_ending_past_the_last_nanosecond_is_bad_input() {
        let dir = std::env::temp_dir().join(format!("rdmasim-analyze-end-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("flows.csv");
        std::fs::write(
            &path,
            format!(
                "{}\n0,0,1,1000,{},,2,1000,,3,10000,100,0,0\n",
                stats::FLOWS_CSV_HEADER,
                u64::MAX
            ),
        )
        .unwrap();
        let e = read_flows(&path).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!(
                "{}:2: fct_ns: start_ns {} + fct_ns 2: ",
                path.display(),
                u64::MAX
            )),
            "{e}"
        );
        let path = dir.join("fct.txt");
        std::fs::write(
            &path,
            format!("0b000001 0b000101 10000 100 1000 {} 2 1000\n", u64::MAX),
        )
        .unwrap();
        let e = read_flows(&path).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!("{}:1: fct_ns: ", path.display())),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_number_too_large_for_its_field_is_bad_input() {
        let dir = std::env::temp_dir().join(format!("rdmasim-analyze-big-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("flows.csv");
        let name = path.display().to_string();
        // id,src,dst,size,start_ns,end_ns,fct_ns,ideal_fct_ns,slowdown,pg,sport,dport,retx,paused
        let row = [
            "7", "0", "1", "1000", "0", "2000", "2000", "1000", "2.0", "3", "10000", "100", "0",
            "0",
        ];
        let err = |col: usize, v: &str| {
            let mut r = row;
            r[col] = v;
            std::fs::write(
                &path,
                format!("{}\n{}\n", stats::FLOWS_CSV_HEADER, r.join(",")),
            )
            .unwrap();
            read_flows(&path).unwrap_err().to_string()
        };
        let u64_max = u64::MAX.to_string();
        for (col, field, v, msg) in [
            (0, "id", "4294967296", "is out of range (0 to 4294967295)"),
            (1, "src", "4294967296", "is out of range (0 to 4294967295)"),
            (2, "dst", "4294967297", "is out of range (0 to 4294967295)"),
            (
                3,
                "size",
                "18446744073709551616",
                "is out of range (0 to 18446744073709551615)",
            ),
            (
                4,
                "start_ns",
                "18446744073709551616",
                "is out of range (0 to 18446744073709551615)",
            ),
            (
                6,
                "fct_ns",
                "18446744073709551616",
                "is out of range (0 to 18446744073709551615)",
            ),
            (
                7,
                "ideal_fct_ns",
                "18446744073709551616",
                "is out of range (0 to 18446744073709551615)",
            ),
            (9, "pg", "256", "is out of range (0 to 255)"),
            (10, "sport", "65536", "is not a port number (0 to 65535)"),
            (11, "dport", "65636", "is not a port number (0 to 65535)"),
            (
                12,
                "retransmitted_bytes",
                "18446744073709551616",
                "is out of range (0 to 18446744073709551615)",
            ),
            (13, "paused_ns", "x", "is not a whole number"),
            (1, "src", "-1", "is not a whole number"),
        ] {
            assert_eq!(err(col, v), format!("{name}:2: {field}: '{v}' {msg}"));
        }
        // The largest values fit.
        let mut r = row;
        (r[0], r[1], r[9], r[10], r[11]) = ("4294967295", "4294967295", "255", "65535", "65535");
        r[3] = &u64_max;
        std::fs::write(
            &path,
            format!("{}\n{}\n", stats::FLOWS_CSV_HEADER, r.join(",")),
        )
        .unwrap();
        let f = &read_flows(&path).unwrap()[0];
        assert_eq!(
            (f.id, f.src, f.size, f.pg, f.sport, f.dport),
            (u32::MAX, u32::MAX, u64::MAX, 255, 65535, 65535)
        );

        // The peer's fct.txt alike.
        let path = dir.join("fct.txt");
        let name = path.display().to_string();
        let line = [
            "0b000001", "0b000101", "10000", "100", "1000", "0", "2000", "1000",
        ];
        for (col, field, v, msg) in [
            (2, "sport", "65536", "is not a port number (0 to 65535)"),
            (3, "dport", "65636", "is not a port number (0 to 65535)"),
            (
                4,
                "size",
                "18446744073709551616",
                "is out of range (0 to 18446744073709551615)",
            ),
            (
                7,
                "ideal_fct_ns",
                "99999999999999999999",
                "is out of range (0 to 18446744073709551615)",
            ),
        ] {
            let mut l = line;
            l[col] = v;
            std::fs::write(&path, l.join(" ")).unwrap();
            assert_eq!(
                read_flows(&path).unwrap_err().to_string(),
                format!("{name}:1: {field}: '{v}' {msg}")
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bucket_bounds_have_no_trailing_zeros() {
        let o = AnalyzeOptions {
            step: 7.5,
            ..AnalyzeOptions::default()
        };
        let text = render(&[analyze_text(&o)], &o);
        let rows: Vec<&str> = text
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .filter(|w| {
                w.split_once('-')
                    .is_some_and(|(a, b)| a.parse::<f64>().is_ok() && b.parse::<f64>().is_ok())
            })
            .collect();
        assert_eq!(rows[..3], ["0-7.5", "7.5-15", "15-22.5"], "{text}");
        assert_eq!(rows.last(), Some(&"97.5-100"), "{text}");
        assert!(!text.contains(".50"), "{text}");
        // Float steps print as written, in the table and the CSV alike.
        assert_eq!(peer_bucket_name(3, 0.1), "0.3-0.4");
        assert_eq!(peer_bucket_name(0, 0.001), "0-0.001");
        assert_eq!(peer_bucket_name(19, 5.0), "95-100");
    }

    #[test]
    fn windows_classes_and_labels() {
        assert_eq!(parse_window("0,5ms"), Ok((Some(0), Some(5_000_000))));
        assert_eq!(parse_window(",2000"), Ok((None, Some(2000))));
        assert_eq!(parse_window("1us,"), Ok((Some(1000), None)));
        assert!(parse_window("5ms").is_err());
        assert!(parse_window("5ms,1ms").is_err());
        assert_eq!(Class::parse("incast"), Some(Class::Incast));
        assert!(Class::Normal.keeps(100) && !Class::Normal.keeps(200));
        let l = labels(&[
            PathBuf::from("runs/s/cc.kind=dcqcn,run.seed=1"),
            PathBuf::from("runs/s/cc.kind=none,run.seed=1/flows.csv"),
        ]);
        assert_eq!(l, vec!["cc.kind=dcqcn", "cc.kind=none"]);
        assert_eq!(
            labels(&[PathBuf::from("runs/quickstart")]),
            vec!["quickstart"]
        );
        assert_eq!(tag(0), "A");
        assert_eq!(tag(26), "AA");
    }
}
