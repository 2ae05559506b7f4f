//! `rdmasim compare`: one peer config run through the HPCC ns-3 simulator
//! (the peer) and through `rdmasim hpcc`, side by side.
//!
//! This module reads what the two runs left behind and writes the report;
//! running them (and measuring their CPU time and peak memory) is the
//! command's (`crates/cli`). What it compares:
//!
//! - slowdown by size bucket, mean, p50 and p99, each side from its own
//!   `FCT_OUTPUT_FILE` ([`stats::size_buckets`] with
//!   [`stats::DEFAULT_SIZE_EDGES`], the buckets of `summary.json`);
//! - flow by flow, the FCT error `(fct_rdmasim − fct_peer) / fct_peer` of
//!   every flow both finished (matched by source, destination, source port
//!   and destination port, which name a flow in both), by the same
//!   buckets: median of the signed error, p50/p90/p99 and mean of its
//!   absolute value, and the share within 5% ([`stats::percentile_sorted`]);
//! - PFC frames received (pause, resume) from each side's
//!   `PFC_OUTPUT_FILE`; drops (the peer prints one `Drop:` line per
//!   dropped frame; rdmasim's `summary.json` counts them); unfinished
//!   flows (those of the flow file missing from the FCT file); CPU time
//!   and peak resident memory of each process.

use crate::analyze::read_flows;
use crate::error::ExperimentError;
use crate::fmt::{csv_field, num};
use crate::summary::Summary;
use engine::InputError;
use stats::{percentile_sorted, size_buckets, BucketStats, FlowRecord, DEFAULT_SIZE_EDGES};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

/// The header of `compare.csv`: one row per (metric, bucket); `peer` and
/// `rdmasim` hold each side's value (empty where a side has none: the
/// flow-by-flow error rows are rdmasim's against the peer), the last
/// column `rdmasim / peer`.
pub const COMPARE_CSV_HEADER: &str = "metric,bucket,peer,rdmasim,rdmasim_over_peer";

/// Keys of the peer's config naming files it reads, relative to the
/// directory it runs in.
pub const INPUT_KEYS: [&str; 3] = ["TOPOLOGY_FILE", "FLOW_FILE", "TRACE_FILE"];

/// Keys of the peer's config naming files it writes.
pub const OUTPUT_KEYS: [&str; 4] = [
    "FCT_OUTPUT_FILE",
    "PFC_OUTPUT_FILE",
    "QLEN_MON_FILE",
    "TRACE_OUTPUT_FILE",
];

/// The value of each file key ([`INPUT_KEYS`], [`OUTPUT_KEYS`]) a peer
/// config sets, with its line, in file order (the last one of a key
/// wins, as in the peer).
pub fn file_keys(text: &str) -> Vec<(&'static str, String, usize)> {
    let mut out: Vec<(&'static str, String, usize)> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let mut t = line.split_whitespace();
        let (Some(k), Some(v)) = (t.next(), t.next()) else {
            continue;
        };
        if let Some(&key) = INPUT_KEYS.iter().chain(&OUTPUT_KEYS).find(|&&x| x == k) {
            out.retain(|(x, _, _)| *x != key);
            out.push((key, v.to_string(), i + 1));
        }
    }
    out
}

/// One simulator's run, as the comparison reads it.
#[derive(Clone, Debug, Default)]
pub struct Side {
    /// Flows of its FCT file (finished flows only).
    pub finished: Vec<FlowRecord>,
    /// Flows in the flow file (`None`: not known, only the FCT file was read).
    pub flows: Option<u64>,
    /// PFC pause frames received (`None`: not known).
    pub pauses: Option<u64>,
    /// PFC resume frames received (`None`: not known).
    pub resumes: Option<u64>,
    /// Frames dropped (`None` where the run does not tell).
    pub drops: Option<u64>,
    /// CPU time (user + system) of the process, s.
    pub cpu_s: Option<f64>,
    /// Peak resident memory of the process, MiB.
    pub peak_rss_mb: Option<f64>,
    /// Exit status of the process (`None`: killed by a signal).
    pub exit_code: Option<i32>,
}

impl Side {
    /// Flows of the flow file missing from the FCT file.
    pub fn unfinished(&self) -> Option<u64> {
        self.flows
            .map(|f| f.saturating_sub(self.finished.len() as u64))
    }
}

/// Read a side's FCT file (the peer's format, which rdmasim also writes):
/// its finished flows. An empty or missing file is a run in which no flow
/// finished.
pub fn read_fct(path: &Path) -> Result<Vec<FlowRecord>, ExperimentError> {
    match std::fs::metadata(path) {
        Ok(m) if m.len() > 0 => read_flows(path),
        Ok(_) => Ok(Vec::new()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(ExperimentError::io(path, e)),
    }
}

/// (pause, resume) frames in a PFC file (`time node node_type if type`,
/// type 1 a pause, 0 a resume); a missing file has none.
pub fn count_pfc(path: &Path) -> Result<(u64, u64), ExperimentError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((0, 0)),
        Err(e) => return Err(ExperimentError::io(path, e)),
    };
    let (mut pause, mut resume) = (0, 0);
    for (i, line) in text.lines().enumerate() {
        let f: Vec<&str> = line.split_whitespace().collect();
        match f.as_slice() {
            [] => {}
            [_, _, _, _, "1"] => pause += 1,
            [_, _, _, _, "0"] => resume += 1,
            _ => {
                return Err(ExperimentError::Input(InputError::at(
                    path.display().to_string().as_str(),
                    Some(i + 1),
                    "type",
                    format!(
                        "'{line}' is not a PFC line (time node node_type if type, type 1 or 0)"
                    ),
                )))
            }
        }
    }
    Ok((pause, resume))
}

/// Frames the peer dropped: it prints `<ns> <node> Drop: queue:<port>,<q>:
/// Headroom full` on stdout for each.
pub fn count_peer_drops(stdout: &str) -> u64 {
    stdout
        .lines()
        .filter(|l| l.contains(" Drop: queue:"))
        .count() as u64
}

/// What `rdmasim hpcc --summary FILE` writes: the run's `summary.json`.
pub fn summary_json(summary: &Summary) -> String {
    let mut s = serde_json::to_string_pretty(summary).expect("a summary serializes");
    s.push('\n');
    s
}

/// Frames dropped, from a [`summary_json`] text.
pub fn drops_of_summary(text: &str) -> Option<u64> {
    let v: serde_json::Value = serde_json::from_str(text).ok()?;
    v.get("counters")?.get("drops")?.as_u64()
}

/// The FCT error of the flows both sides finished, in one size bucket.
#[derive(Clone, Debug, PartialEq)]
pub struct FctError {
    /// The size bucket's label ([`BucketStats::label`]).
    pub bucket: String,
    /// Flows both finished in the bucket.
    pub matched: u64,
    /// Median of `(rdmasim − peer) / peer`.
    pub signed_p50: f64,
    /// Mean of `|rdmasim − peer| / peer`.
    pub abs_mean: f64,
    /// p50 of the absolute error.
    pub abs_p50: f64,
    /// p90 of the absolute error.
    pub abs_p90: f64,
    /// p99 of the absolute error.
    pub abs_p99: f64,
    /// Share of the flows within 5% of the peer's FCT.
    pub within_5pct: f64,
}

/// A flow's name in both FCT files.
fn key(r: &FlowRecord) -> (u32, u32, u16, u16) {
    (r.src, r.dst, r.sport, r.dport)
}

/// The flow-by-flow FCT error by size bucket (`edges` as
/// [`stats::size_buckets`]'s, a last row `all`), and the flows only the
/// peer, and only rdmasim, finished.
pub fn fct_errors(
    peer: &[FlowRecord],
    rdmasim: &[FlowRecord],
    edges: &[u64],
) -> (Vec<FctError>, u64, u64) {
    let theirs: HashMap<_, _> = peer.iter().map(|r| (key(r), r)).collect();
    let mut matched: Vec<(u64, f64)> = Vec::new();
    for r in rdmasim {
        if let (Some(p), Some(fct)) = (theirs.get(&key(r)), r.fct_ns) {
            if let Some(pf) = p.fct_ns.filter(|&f| f > 0) {
                matched.push((r.size, (fct as f64 - pf as f64) / pf as f64));
            }
        }
    }
    let only_rdmasim = rdmasim.len() as u64 - matched.len() as u64;
    let only_peer = peer.len() as u64 - matched.len() as u64;
    let mut e: Vec<u64> = edges.iter().copied().filter(|&x| x > 0).collect();
    e.sort_unstable();
    e.dedup();
    let mut bounds = vec![0u64];
    bounds.extend(&e);
    bounds.push(u64::MAX);
    // The labels of the slowdown buckets, so the two tables line up.
    let labels: Vec<String> = size_buckets(&[], edges)
        .into_iter()
        .map(|b| b.label)
        .collect();
    let mut rows = Vec::new();
    let ranges = bounds
        .windows(2)
        .map(|w| (w[0], w[1]))
        .chain([(0, u64::MAX)]);
    for ((lo, hi), label) in ranges.zip(labels) {
        let mut signed: Vec<f64> = matched
            .iter()
            .filter(|(s, _)| *s >= lo && *s < hi)
            .map(|&(_, x)| x)
            .collect();
        signed.sort_by(f64::total_cmp);
        let mut abs: Vec<f64> = signed.iter().map(|x| x.abs()).collect();
        abs.sort_by(f64::total_cmp);
        let n = abs.len();
        let mean = if n == 0 {
            f64::NAN
        } else {
            abs.iter().sum::<f64>() / n as f64
        };
        let within = if n == 0 {
            f64::NAN
        } else {
            abs.iter().filter(|&&x| x <= 0.05).count() as f64 / n as f64
        };
        rows.push(FctError {
            bucket: label,
            matched: n as u64,
            signed_p50: percentile_sorted(&signed, 0.5),
            abs_mean: mean,
            abs_p50: percentile_sorted(&abs, 0.5),
            abs_p90: percentile_sorted(&abs, 0.9),
            abs_p99: percentile_sorted(&abs, 0.99),
            within_5pct: within,
        });
    }
    (rows, only_peer, only_rdmasim)
}

/// Both sides of one config, and what the report shows of them.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// The config compared, as given.
    pub config: String,
    /// What the two sides are called in `compare.md` ("peer", "rdmasim").
    pub names: [String; 2],
    /// The peer's side.
    pub peer: Side,
    /// rdmasim's side.
    pub rdmasim: Side,
    /// The peer's slowdown by size bucket.
    pub peer_slowdown: Vec<BucketStats>,
    /// rdmasim's slowdown by size bucket.
    pub rdmasim_slowdown: Vec<BucketStats>,
    /// The flow-by-flow FCT error by size bucket.
    pub errors: Vec<FctError>,
    /// Flows only the peer finished.
    pub only_peer: u64,
    /// Flows only rdmasim finished.
    pub only_rdmasim: u64,
}

impl Comparison {
    /// Compare two sides.
    pub fn new(config: &str, peer: Side, rdmasim: Side) -> Comparison {
        Comparison::named(config, ["peer", "rdmasim"], peer, rdmasim)
    }

    /// Compare two sides with other names in `compare.md` (e.g. two runs
    /// of one simulator); `compare.csv` keeps its columns, the first side
    /// in `peer`.
    pub fn named(config: &str, names: [&str; 2], peer: Side, rdmasim: Side) -> Comparison {
        let edges = DEFAULT_SIZE_EDGES;
        let peer_slowdown = size_buckets(&peer.finished, &edges);
        let rdmasim_slowdown = size_buckets(&rdmasim.finished, &edges);
        let (errors, only_peer, only_rdmasim) =
            fct_errors(&peer.finished, &rdmasim.finished, &edges);
        Comparison {
            config: config.to_string(),
            names: names.map(str::to_string),
            peer,
            rdmasim,
            peer_slowdown,
            rdmasim_slowdown,
            errors,
            only_peer,
            only_rdmasim,
        }
    }

    /// Whole-run rows: (metric, peer, rdmasim).
    fn totals(&self) -> Vec<(&'static str, Option<f64>, Option<f64>)> {
        let (p, r) = (&self.peer, &self.rdmasim);
        let n = |x: Option<u64>| x.map(|x| x as f64);
        let f = |s: &Side| Some(s.finished.len() as f64);
        vec![
            ("flows", n(p.flows), n(r.flows)),
            ("finished", f(p), f(r)),
            ("unfinished", n(p.unfinished()), n(r.unfinished())),
            ("drops", n(p.drops), n(r.drops)),
            ("pfc_pauses", n(p.pauses), n(r.pauses)),
            ("pfc_resumes", n(p.resumes), n(r.resumes)),
            ("cpu_s", p.cpu_s, r.cpu_s),
            ("peak_rss_mib", p.peak_rss_mb, r.peak_rss_mb),
            (
                "exit_code",
                p.exit_code.map(f64::from),
                r.exit_code.map(f64::from),
            ),
        ]
    }

    /// `compare.csv` ([`COMPARE_CSV_HEADER`]): plain numbers, empty cells
    /// for values a side does not have; loads with `pandas.read_csv`.
    pub fn csv(&self) -> String {
        let mut s = format!("{COMPARE_CSV_HEADER}\n");
        let cell = |x: Option<f64>| match x {
            Some(v) if v.is_finite() => format!("{v}"),
            _ => String::new(),
        };
        let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) if a != 0.0 && a.is_finite() && b.is_finite() => {
                format!("{}", b / a)
            }
            _ => String::new(),
        };
        let mut row = |metric: &str, bucket: &str, p: Option<f64>, r: Option<f64>| {
            let _ = writeln!(
                s,
                "{metric},{},{},{},{}",
                csv_field(bucket),
                cell(p),
                cell(r),
                ratio(p, r)
            );
        };
        for (m, p, r) in self.totals() {
            row(m, "", p, r);
        }
        for (p, r) in self.peer_slowdown.iter().zip(&self.rdmasim_slowdown) {
            let b = &p.label;
            row("flows", b, Some(p.count as f64), Some(r.count as f64));
            row("slowdown_mean", b, Some(p.avg), Some(r.avg));
            row("slowdown_p50", b, Some(p.p50), Some(r.p50));
            row("slowdown_p99", b, Some(p.p99), Some(r.p99));
        }
        for e in &self.errors {
            let b = &e.bucket;
            row("fct_error_matched", b, None, Some(e.matched as f64));
            row("fct_error_signed_p50", b, None, Some(e.signed_p50));
            row("fct_error_abs_mean", b, None, Some(e.abs_mean));
            row("fct_error_abs_p50", b, None, Some(e.abs_p50));
            row("fct_error_abs_p90", b, None, Some(e.abs_p90));
            row("fct_error_abs_p99", b, None, Some(e.abs_p99));
            row("fct_error_within_5pct", b, None, Some(e.within_5pct));
        }
        row(
            "finished_only_by",
            "",
            Some(self.only_peer as f64),
            Some(self.only_rdmasim as f64),
        );
        s
    }

    /// `compare.md`: the same numbers as tables.
    pub fn markdown(&self) -> String {
        let mut s = String::new();
        let [a, b] = &self.names;
        let _ = writeln!(s, "# {}: {a} and {b} side by side\n", self.config);
        let _ = writeln!(s, "| | {a} | {b} | {b} / {a} |\n|---|---:|---:|---:|");
        let v = |x: Option<f64>, d: usize| x.map_or("-".to_string(), |x| num(x, d, "-"));
        let rel = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) if a != 0.0 => format!("{:.2}×", b / a),
            _ => "-".to_string(),
        };
        for (m, p, r) in self.totals() {
            if p.is_none() && r.is_none() {
                continue;
            }
            let d = if matches!(m, "cpu_s" | "peak_rss_mib") {
                1
            } else {
                0
            };
            let _ = writeln!(s, "| {m} | {} | {} | {} |", v(p, d), v(r, d), rel(p, r));
        }
        let _ = writeln!(
            s,
            "\nSlowdown of finished flows by size (mean / p50 / p99; Δ: {b} against {a}):\n"
        );
        let _ = writeln!(
            s,
            "| bucket | flows ({a} / {b}) | {a} mean | {b} mean | Δ | {a} p50 | {b} p50 | Δ | {a} p99 | {b} p99 | Δ |"
        );
        let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        let d = |a: f64, b: f64| {
            if a.is_finite() && b.is_finite() && a != 0.0 {
                format!("{:+.1}%", (b / a - 1.0) * 100.0)
            } else {
                "-".to_string()
            }
        };
        for (p, r) in self.peer_slowdown.iter().zip(&self.rdmasim_slowdown) {
            let _ = writeln!(
                s,
                "| {} | {} / {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                p.label,
                p.count,
                r.count,
                num(p.avg, 2, "-"),
                num(r.avg, 2, "-"),
                d(p.avg, r.avg),
                num(p.p50, 2, "-"),
                num(r.p50, 2, "-"),
                d(p.p50, r.p50),
                num(p.p99, 2, "-"),
                num(r.p99, 2, "-"),
                d(p.p99, r.p99),
            );
        }
        let _ = writeln!(
            s,
            "\nFlow-by-flow FCT error, ({b} − {a}) / {a}, of the flows both finished \
             ({} only {a} finished, {} only {b}):\n",
            self.only_peer, self.only_rdmasim
        );
        let _ = writeln!(
            s,
            "| bucket | flows | signed p50 | abs. mean | abs. p50 | abs. p90 | abs. p99 | within 5% |"
        );
        let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|---:|");
        let p = |x: f64| {
            if x.is_finite() {
                format!("{:.1}%", x * 100.0)
            } else {
                "-".to_string()
            }
        };
        for e in &self.errors {
            let _ = writeln!(
                s,
                "| {} | {} | {}{} | {} | {} | {} | {} | {} |",
                e.bucket,
                e.matched,
                if e.signed_p50 > 0.0 { "+" } else { "" },
                p(e.signed_p50),
                p(e.abs_mean),
                p(e.abs_p50),
                p(e.abs_p90),
                p(e.abs_p99),
                p(e.within_5pct),
            );
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(src: u32, sport: u16, size: u64, fct: u64) -> FlowRecord {
        FlowRecord {
            id: 0,
            src,
            dst: 9,
            size,
            start_ns: 0,
            end_ns: Some(fct),
            fct_ns: Some(fct),
            ideal_fct_ns: 1000,
            slowdown: Some(fct as f64 / 1000.0),
            pg: 3,
            dport: 100,
            sport,
            retransmitted_bytes: 0,
            paused_ns: 0,
        }
    }

    #[test]
    fn errors_match_flows_by_their_ports_and_bucket_them_by_size() {
        let peer = vec![
            rec(1, 10000, 500, 1000),
            rec(2, 10000, 50_000, 2000),
            rec(3, 10000, 500, 10),
        ];
        // Flow 2's FCT 10% over the peer's, flow 1's 20% under; flow 3
        // only the peer finished, flow 4 only rdmasim.
        let ours = vec![
            rec(2, 10000, 50_000, 2200),
            rec(1, 10000, 500, 800),
            rec(4, 10000, 500, 5),
        ];
        let (rows, only_peer, only_ours) = fct_errors(&peer, &ours, &DEFAULT_SIZE_EDGES);
        assert_eq!((only_peer, only_ours), (1, 1));
        let by = |b: &str| rows.iter().find(|r| r.bucket == b).unwrap();
        assert_eq!(by("<10KB").matched, 1);
        assert!((by("<10KB").signed_p50 + 0.2).abs() < 1e-12);
        assert!((by("10KB-100KB").abs_p50 - 0.1).abs() < 1e-12);
        let all = by("all");
        assert_eq!(all.matched, 2);
        assert!((all.abs_mean - 0.15).abs() < 1e-12);
        assert_eq!(all.within_5pct, 0.0);
        assert!(by(">=10MB").abs_p50.is_nan());
    }

    #[test]
    fn peer_drop_lines_and_pfc_lines_are_counted() {
        let out = "maxRtt=1 maxBdp=2\n2000 320 Drop: queue:3,3: Headroom full\n(0,1)(2,3)\n\
                   2001 321 Drop: queue:1,3: Headroom full\n";
        assert_eq!(count_peer_drops(out), 2);
        let dir = std::env::temp_dir().join(format!("rdmasim-compare-pfc-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("pfc.txt");
        std::fs::write(&f, "10 320 1 3 1\n20 320 1 3 0\n30 5 0 1 1\n").unwrap();
        assert_eq!(count_pfc(&f).unwrap(), (2, 1));
        std::fs::write(&f, "10 320 1 3 1\n20 320 1 3\n").unwrap();
        let e = count_pfc(&f).unwrap_err().to_string();
        assert!(e.contains("pfc.txt:2"), "{e}");
        assert_eq!(count_pfc(&dir.join("none.txt")).unwrap(), (0, 0));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn file_keys_are_read_in_order_and_the_last_wins() {
        let k = file_keys("CC_MODE 1\nFLOW_FILE a.txt\nTOPOLOGY_FILE t.txt\nFLOW_FILE b.txt\n");
        assert_eq!(
            k,
            vec![
                ("TOPOLOGY_FILE", "t.txt".to_string(), 3),
                ("FLOW_FILE", "b.txt".to_string(), 4)
            ]
        );
    }
}
