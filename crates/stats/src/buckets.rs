//! Slowdown summaries: percentiles, fixed size buckets, and the peer
//! analysis script's equal-count buckets.

use crate::FlowRecord;
use serde::Serialize;

/// The percentile of every table rdmasim writes (`summary.json`, `rdmasim
/// analyze`, a sweep's `report.csv` and `report.md`), so that one set of
/// flows has one p99: the rule of the peer's analysis script
/// (`fct_analysis.py`, `get_pctl`), `sorted[int(n * p)]`, the index
/// clamped to `n - 1`. `sorted` must be in ascending order. NaN for an
/// empty slice.
pub fn percentile_sorted(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let n = sorted.len();
    // `as usize` truncates like Python's int() for p >= 0 and saturates at 0.
    let i = ((n as f64) * p) as usize;
    sorted[i.min(n - 1)]
}

/// (avg, p50, p95, p99) of `v`, which is sorted here; NaN if empty.
fn summarize(v: &mut [f64]) -> (f64, f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    let avg = if v.is_empty() {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    };
    (
        avg,
        percentile_sorted(v, 0.50),
        percentile_sorted(v, 0.95),
        percentile_sorted(v, 0.99),
    )
}

/// Slowdown statistics of the finished flows with size in `[lo, hi)` bytes.
/// Empty buckets have count 0 and NaN statistics (`null` in JSON).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BucketStats {
    /// e.g. `<10KB`, `10KB-100KB`, `>=10MB`, `all`.
    pub label: String,
    /// Smallest size in the bucket, bytes.
    pub lo: u64,
    /// One past the largest size, bytes; `u64::MAX` for an open-ended bucket
    /// (`null` in JSON, where a number that large would not stay exact).
    #[serde(serialize_with = "open_as_null")]
    pub hi: u64,
    /// Finished flows in the bucket.
    pub count: u64,
    /// Mean slowdown.
    pub avg: f64,
    /// Median slowdown ([`percentile_sorted`] rule).
    pub p50: f64,
    /// 95th-percentile slowdown.
    pub p95: f64,
    /// 99th-percentile slowdown.
    pub p99: f64,
}

/// `hi` of [`BucketStats`] in JSON: `null` for an open-ended bucket.
fn open_as_null<S: serde::Serializer>(hi: &u64, s: S) -> Result<S::Ok, S::Error> {
    if *hi == u64::MAX {
        s.serialize_none()
    } else {
        s.serialize_u64(*hi)
    }
}

/// Bucket edges for web-search-like workloads: `<10KB`, `10KB-100KB`,
/// `100KB-1MB`, `1MB-10MB`, `>=10MB` (decimal units).
pub const DEFAULT_SIZE_EDGES: [u64; 4] = [10_000, 100_000, 1_000_000, 10_000_000];

/// A bucket edge in the largest decimal unit that divides it: `10KB`,
/// `1MB` (the edges are round numbers; [`DEFAULT_SIZE_EDGES`]).
fn edge_label(b: u64) -> String {
    if b == 0 {
        "0B".to_string()
    } else if b.is_multiple_of(1_000_000_000) {
        format!("{}GB", b / 1_000_000_000)
    } else if b.is_multiple_of(1_000_000) {
        format!("{}MB", b / 1_000_000)
    } else if b.is_multiple_of(1_000) {
        format!("{}KB", b / 1_000)
    } else {
        format!("{b}B")
    }
}

/// Slowdown statistics of finished flows (those with a slowdown) by size:
/// `edges` `[e0, e1, ...]` (sorted and deduplicated here; 0 ignored) make
/// the buckets `[0, e0)`, `[e0, e1)`, ..., `[e_last, u64::MAX)`, labelled
/// `<e0`, `e0-e1`, ..., `>=e_last`; a last row `all` covers every finished
/// flow. Slowdowns are taken as recorded (not clamped).
pub fn size_buckets(records: &[FlowRecord], edges: &[u64]) -> Vec<BucketStats> {
    let mut e: Vec<u64> = edges.iter().copied().filter(|&x| x > 0).collect();
    e.sort_unstable();
    e.dedup();
    let mut bounds = vec![0u64];
    bounds.extend(&e);
    bounds.push(u64::MAX);

    let finished: Vec<(u64, f64)> = records
        .iter()
        .filter_map(|r| r.slowdown.map(|s| (r.size, s)))
        .collect();
    let mut rows = Vec::with_capacity(bounds.len());
    let nb = bounds.len() - 1;
    for (k, w) in bounds.windows(2).enumerate() {
        let (lo, hi) = (w[0], w[1]);
        let label = if nb == 1 {
            "all sizes".to_string()
        } else if k == 0 {
            format!("<{}", edge_label(hi))
        } else if k == nb - 1 {
            format!(">={}", edge_label(lo))
        } else {
            format!("{}-{}", edge_label(lo), edge_label(hi))
        };
        // The last bucket includes u64::MAX itself.
        let mut v: Vec<f64> = finished
            .iter()
            .filter(|&&(s, _)| s >= lo && (s < hi || k == nb - 1))
            .map(|&(_, sd)| sd)
            .collect();
        rows.push(stats_row(label, lo, hi, &mut v));
    }
    let mut all: Vec<f64> = finished.iter().map(|&(_, sd)| sd).collect();
    rows.push(stats_row("all".to_string(), 0, u64::MAX, &mut all));
    rows
}

fn stats_row(label: String, lo: u64, hi: u64, v: &mut [f64]) -> BucketStats {
    let (avg, p50, p95, p99) = summarize(v);
    BucketStats {
        label,
        lo,
        hi,
        count: v.len() as u64,
        avg,
        p50,
        p95,
        p99,
    }
}

/// One group of [`peer_buckets`]: finished flows `lo_index..hi_index` in
/// size order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PeerBucket {
    /// First flow of the group (index into the size-sorted finished flows).
    pub lo_index: usize,
    /// One past the last flow of the group.
    pub hi_index: usize,
    /// Size of the largest flow in the group, bytes.
    pub max_size: u64,
    /// Mean slowdown (clamped at 1).
    pub avg: f64,
    /// Median slowdown (clamped at 1).
    pub p50: f64,
    /// 95th-percentile slowdown (clamped at 1).
    pub p95: f64,
    /// 99th-percentile slowdown (clamped at 1).
    pub p99: f64,
}

/// Smallest step of [`peer_buckets`] a user may ask for, percent: 10^5
/// steps (finer steps only leave empty groups out, a step per flow; the
/// walk would take 100 / step of them).
pub const MIN_PEER_STEP: f64 = 0.001;

/// The peer analysis script's buckets (HPCC `analysis/fct_analysis.py`):
/// the finished flows, sorted by size (ties by id), are cut into
/// consecutive groups of `step_percent` % of the flows — for
/// `i = 0, step, 2*step, ... < 100`: `l = int(i*n/100)`,
/// `r = min(int((i+step)*n/100), n)` — and each group reports its largest
/// size and the slowdown mean and percentiles ([`percentile_sorted`]), with
/// slowdowns below 1 counted as 1 as the script does.
///
/// Filter the records first as the script does (it keeps `dport == 100` and
/// flows finished before a time limit). Empty groups (fewer flows than
/// groups) are left out. A `step_percent` that is not positive gives no
/// rows; one above 100 counts as 100.
///
/// The walk takes 100 / `step_percent` steps, as the script's does: callers
/// that take the step from a user refuse one below [`MIN_PEER_STEP`].
pub fn peer_buckets(records: &[FlowRecord], step_percent: f64) -> Vec<PeerBucket> {
    if step_percent.is_nan() || step_percent <= 0.0 {
        return Vec::new();
    }
    let step = step_percent.min(100.0);
    let mut fin: Vec<(u64, u32, f64)> = records
        .iter()
        .filter_map(|r| r.slowdown.map(|s| (r.size, r.id, s.max(1.0))))
        .collect();
    fin.sort_by_key(|&(size, id, _)| (size, id));
    let n = fin.len();
    let cut = |pct: f64| (((pct * n as f64) / 100.0).floor() as usize).min(n);
    let mut rows = Vec::new();
    let mut k = 0u64;
    loop {
        let i = k as f64 * step;
        // The tolerance keeps float steps like 0.1 from adding a sliver group.
        if i >= 100.0 - 1e-9 {
            break;
        }
        k += 1;
        let (l, r) = (cut(i), cut(i + step));
        if l >= r {
            continue;
        }
        let group = &fin[l..r];
        let mut sd: Vec<f64> = group.iter().map(|g| g.2).collect();
        let (avg, p50, p95, p99) = summarize(&mut sd);
        rows.push(PeerBucket {
            lo_index: l,
            hi_index: r,
            max_size: group[group.len() - 1].0,
            avg,
            p50,
            p95,
            p99,
        });
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::tests::rec;

    #[test]
    fn percentile_rule() {
        let v: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(percentile_sorted(&v, 0.5), 6.0); // v[5]
        assert_eq!(percentile_sorted(&v, 0.95), 10.0); // v[int(9.5)] = v[9]
        assert_eq!(percentile_sorted(&v, 0.99), 10.0);
        assert_eq!(percentile_sorted(&v, 0.0), 1.0);
        assert_eq!(percentile_sorted(&v, 1.0), 10.0); // clamped
        assert_eq!(percentile_sorted(&v, 0.29), 3.0); // int(2.9) = 2
        let w: Vec<f64> = (0..200).map(f64::from).collect();
        assert_eq!(percentile_sorted(&w, 0.5), 100.0);
        assert_eq!(percentile_sorted(&w, 0.95), 190.0);
        assert_eq!(percentile_sorted(&w, 0.99), 198.0);
        assert!(percentile_sorted(&[], 0.5).is_nan());
    }

    #[test]
    fn size_bucket_boundaries() {
        let recs = vec![
            rec(0, 1, Some(1.0)),
            rec(1, 9_999, Some(2.0)),
            rec(2, 10_000, Some(3.0)),
            rec(3, 99_999, Some(4.0)),
            rec(4, 100_000, Some(5.0)),
            rec(5, 999_999, Some(6.0)),
            rec(6, 1_000_000, Some(7.0)),
            rec(7, 9_999_999, Some(8.0)),
            rec(8, 10_000_000, Some(9.0)),
            rec(9, 30_000_000, Some(10.0)),
            rec(10, 5_000, None), // unfinished: ignored
        ];
        let b = size_buckets(&recs, &DEFAULT_SIZE_EDGES);
        let labels: Vec<&str> = b.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(
            labels,
            vec![
                "<10KB",
                "10KB-100KB",
                "100KB-1MB",
                "1MB-10MB",
                ">=10MB",
                "all"
            ]
        );
        let counts: Vec<u64> = b.iter().map(|r| r.count).collect();
        assert_eq!(counts, vec![2, 2, 2, 2, 2, 10]);
        assert_eq!((b[0].lo, b[0].hi), (0, 10_000));
        assert_eq!((b[1].lo, b[1].hi), (10_000, 100_000));
        assert_eq!((b[4].lo, b[4].hi), (10_000_000, u64::MAX));
        // In JSON the open end is null, the others exact.
        let json = serde_json::to_value(&b).unwrap();
        assert_eq!(json[4]["hi"], serde_json::Value::Null);
        assert_eq!(json[3]["hi"], serde_json::json!(10_000_000));
        assert_eq!((b[0].avg, b[0].p50, b[0].p99), (1.5, 2.0, 2.0));
        assert_eq!((b[4].avg, b[4].p50), (9.5, 10.0));
        assert_eq!((b[5].avg, b[5].p50, b[5].p95), (5.5, 6.0, 10.0));

        // Unsorted, duplicated edges; an empty bucket.
        let b = size_buckets(&recs, &[1_000_000, 500, 500]);
        let labels: Vec<&str> = b.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(labels, vec!["<500B", "500B-1MB", ">=1MB", "all"]);
        assert_eq!(
            b.iter().map(|r| r.count).collect::<Vec<_>>(),
            vec![1, 5, 4, 10]
        );
        let b = size_buckets(&recs[10..], &DEFAULT_SIZE_EDGES);
        assert_eq!(b[0].count, 0);
        assert!(b[0].p50.is_nan());
        let json = serde_json::to_string(&b[0]).unwrap();
        assert!(json.contains("\"p50\":null"), "{json}");
    }

    #[test]
    fn peer_bucket_groups() {
        // Ten finished flows, sizes 10..=100, given out of order; slowdown
        // 0.5 for the smallest (clamped to 1).
        let mut recs: Vec<FlowRecord> = (0..10)
            .map(|i| rec(i, 10 * (10 - u64::from(i)), Some(1.0 + f64::from(i))))
            .collect();
        recs[9].slowdown = Some(0.5); // size 10
        recs.push(rec(10, 5, None));
        let b = peer_buckets(&recs, 20.0);
        assert_eq!(b.len(), 5);
        let idx: Vec<(usize, usize, u64)> = b
            .iter()
            .map(|r| (r.lo_index, r.hi_index, r.max_size))
            .collect();
        assert_eq!(
            idx,
            vec![(0, 2, 20), (2, 4, 40), (4, 6, 60), (6, 8, 80), (8, 10, 100)]
        );
        // Group 0: sizes 10 (slowdown 0.5 -> 1) and 20 (slowdown 9).
        assert_eq!((b[0].avg, b[0].p50, b[0].p95), (5.0, 9.0, 9.0));
        // Group 4: sizes 90 (2) and 100 (1).
        assert_eq!((b[4].p50, b[4].p99), (2.0, 2.0));

        // n = 7, step 50: l, r = 0, 3 and 3, 7 (integer division).
        let b = peer_buckets(&recs[..7], 50.0);
        let idx: Vec<(usize, usize)> = b.iter().map(|r| (r.lo_index, r.hi_index)).collect();
        assert_eq!(idx, vec![(0, 3), (3, 7)]);
        // Step 30 on 10 flows: 0-3, 3-6, 6-9, 9-10 (last one clamped).
        let idx: Vec<(usize, usize)> = peer_buckets(&recs, 30.0)
            .iter()
            .map(|r| (r.lo_index, r.hi_index))
            .collect();
        assert_eq!(idx, vec![(0, 3), (3, 6), (6, 9), (9, 10)]);
        // Ties by id; more groups than flows leaves empty groups out.
        let ties = vec![rec(3, 7, Some(3.0)), rec(1, 7, Some(1.0))];
        let b = peer_buckets(&ties, 10.0);
        assert_eq!(b.len(), 2);
        assert_eq!((b[0].lo_index, b[0].p50), (0, 1.0));
        assert_eq!((b[1].lo_index, b[1].p50), (1, 3.0));
        assert!(peer_buckets(&recs, 0.0).is_empty());
        assert_eq!(peer_buckets(&recs, 1.0).len(), 10);
        assert_eq!(peer_buckets(&recs, 0.1).len(), 10);
    }
}
