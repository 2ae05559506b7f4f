//! A sweep's report: `report.csv` (one row per run and flow group) and
//! `report.md` (the published reductions of `[report]`
//! ([`super::report_spec`]) beside the ones rdmasim measures, then the
//! per-run numbers). When `run.seed` is an axis, each set of runs that
//! differ only in their seed also gets a pooled row (point
//! `seeds=pooled`): statistics over all their flows together, counters
//! averaged over the runs.

use super::plan::{PlannedRun, Sweep};
use super::report_spec::{GroupOf, Metric, PaperRow, ReportSpec};
use crate::analyze::read_flows;
use crate::error::ExperimentError;
use crate::fmt::{csv_field, num, pct};
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

/// Statistics of one group of one run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GroupStats {
    /// Flows of the group.
    pub flows: usize,
    /// Of those, finished.
    pub finished: usize,
    /// Mean FCT of the finished flows, µs.
    pub fct_avg_us: f64,
    /// 99th-percentile FCT ([`stats::percentile_sorted`]), µs.
    pub fct_p99_us: f64,
    /// Mean slowdown.
    pub slowdown_avg: f64,
    /// 99th-percentile slowdown.
    pub slowdown_p99: f64,
}

/// The 99th percentile of `v` (sorted here), by the rule of every table
/// rdmasim writes ([`stats::percentile_sorted`]); NaN if `v` is empty.
fn p99(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    stats::percentile_sorted(v, 0.99)
}

fn group_stats(records: &[stats::FlowRecord], group: &GroupOf) -> GroupStats {
    let kept: Vec<&stats::FlowRecord> = records.iter().filter(|r| group.keeps(r)).collect();
    let mut fct: Vec<f64> = kept
        .iter()
        .filter_map(|r| r.fct_ns.map(|f| f as f64 / 1e3))
        .collect();
    let mut sd: Vec<f64> = kept.iter().filter_map(|r| r.slowdown).collect();
    let mean = |v: &[f64]| {
        if v.is_empty() {
            f64::NAN
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    };
    GroupStats {
        flows: kept.len(),
        finished: fct.len(),
        fct_avg_us: mean(&fct),
        slowdown_avg: mean(&sd),
        fct_p99_us: p99(&mut fct),
        slowdown_p99: p99(&mut sd),
    }
}

/// One run's numbers for the report.
#[derive(Clone, Debug)]
pub struct RunNumbers {
    /// Run directory name.
    pub run: String,
    /// Its variant.
    pub variant: String,
    /// The other axes' values, `k=v` joined by commas ("" if none).
    pub point: String,
    /// Per group, in the [`ReportSpec`]'s order.
    pub groups: Vec<GroupStats>,
    /// Host NIC paused time, ns.
    pub host_paused_ns: f64,
    /// Retransmitted bytes.
    pub retransmitted: f64,
    /// Frames dropped.
    pub drops: f64,
    /// The PFC-free transport's goodput, Gb/s (NaN for other transports).
    pub goodput_gbps: f64,
    /// What the hosts' NICs sent, Gb/s, the mean over the hosts that sent
    /// anything.
    pub host_tx_gbps: f64,
    /// Average transmit rate of each of the [`ReportSpec`]'s ports over the run,
    /// Gb/s (NaN where unknown).
    pub port_gbps: Vec<f64>,
}

impl RunNumbers {
    fn metric(&self, spec: &ReportSpec, group: &str, m: Metric) -> f64 {
        let g = spec
            .groups
            .iter()
            .position(|(n, _)| n == group)
            .map(|i| &self.groups[i]);
        match (m, g) {
            (Metric::HostPaused, _) => self.host_paused_ns,
            (Metric::Retransmitted, _) => self.retransmitted,
            (Metric::Goodput, _) => self.goodput_gbps,
            (Metric::HostTx, _) => self.host_tx_gbps,
            (Metric::FctAvg, Some(g)) => g.fct_avg_us,
            (Metric::FctP99, Some(g)) => g.fct_p99_us,
            (Metric::SlowdownAvg, Some(g)) => g.slowdown_avg,
            (Metric::SlowdownP99, Some(g)) => g.slowdown_p99,
            (_, None) => f64::NAN,
        }
    }
}

/// A run's parsed `summary.json`, if it has one.
fn read_summary(dir: &Path) -> Option<serde_json::Value> {
    let text = fs::read_to_string(dir.join("summary.json")).ok()?;
    serde_json::from_str(&text).ok()
}

/// A run's host pause time, retransmitted bytes, drops and PFC-free
/// goodput from its parsed `summary.json`, and a place for the hosts'
/// send rate (NaN where missing).
fn summary_counters(v: Option<&serde_json::Value>) -> [f64; 5] {
    let get = |section: &str, key: &str| {
        v.as_ref()
            .and_then(|v| v.get(section)?.get(key)?.as_f64())
            .unwrap_or(f64::NAN)
    };
    [
        get("counters", "host_paused_ns"),
        get("counters", "retransmitted_bytes"),
        get("counters", "drops"),
        get("pfc_free", "goodput_gbps"),
        // The hosts' send rate, from ports.csv ([`host_tx`]).
        f64::NAN,
    ]
}

/// The PFC-free goodput (Gb/s) of each run of `runs` (directory name,
/// variant) that has a summary, by variant in order of first appearance,
/// each with its run's axis values but the variant (`k=v`, joined by
/// commas): the points of a goodput figure.
pub fn goodput_by_variant(
    dir: &Path,
    runs: &[(String, String)],
) -> Vec<(String, Vec<(String, f64)>)> {
    let mut out: Vec<(String, Vec<(String, f64)>)> = Vec::new();
    for (name, variant) in runs {
        let Some(summary) = read_summary(&dir.join(name)) else {
            continue;
        };
        let g = summary_counters(Some(&summary))[3];
        let point = name
            .split(',')
            .filter(|kv| !kv.starts_with("variant="))
            .collect::<Vec<_>>()
            .join(",");
        match out.iter_mut().find(|(v, _)| v == variant) {
            Some((_, pts)) => pts.push((point, g)),
            None => out.push((variant.clone(), vec![(point, g)])),
        }
    }
    out
}

/// Each port's bytes sent over the simulated time, in Gb/s, from the run's
/// `ports.csv` and its parsed `summary.json` (NaN where missing).
fn port_rates(
    dir: &Path,
    summary: Option<&serde_json::Value>,
    ports: &[(String, u32, u16)],
) -> Vec<f64> {
    if ports.is_empty() {
        return Vec::new();
    }
    let sim_ns = summary
        .and_then(|v| v.get("engine")?.get("sim_time_ns")?.as_f64())
        .filter(|&t| t > 0.0);
    let text = fs::read_to_string(dir.join("ports.csv")).unwrap_or_default();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name);
    let (Some(cn), Some(cp), Some(ct), Some(sim_ns)) =
        (col("node"), col("port"), col("tx_bytes"), sim_ns)
    else {
        return vec![f64::NAN; ports.len()];
    };
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    ports
        .iter()
        .map(|(_, node, port)| {
            rows.iter()
                .find(|r| {
                    r.get(cn).and_then(|v| v.parse::<u32>().ok()) == Some(*node)
                        && r.get(cp).and_then(|v| v.parse::<u16>().ok()) == Some(*port)
                })
                .and_then(|r| r.get(ct)?.parse::<f64>().ok())
                .map_or(f64::NAN, |bytes| bytes * 8.0 / sim_ns)
        })
        .collect()
}

/// What the hosts' NICs sent over the simulated time, Gb/s, the mean over
/// the hosts that sent anything, from the run's `ports.csv` and its parsed `summary.json`
/// (NaN where missing).
fn host_tx(dir: &Path, summary: Option<&serde_json::Value>) -> f64 {
    let sim_ns = summary
        .and_then(|v| v.get("engine")?.get("sim_time_ns")?.as_f64())
        .filter(|&t| t > 0.0);
    let text = fs::read_to_string(dir.join("ports.csv")).unwrap_or_default();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name);
    let (Some(cs), Some(ct), Some(sim_ns)) = (col("is_switch"), col("tx_bytes"), sim_ns) else {
        return f64::NAN;
    };
    let (mut bytes, mut hosts) = (0.0, 0u32);
    for l in lines {
        let r: Vec<&str> = l.split(',').collect();
        let tx = r.get(ct).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
        // A host with no flow and no peer sends nothing: left out.
        if r.get(cs) == Some(&"0") && tx > 0.0 {
            bytes += tx;
            hosts += 1;
        }
    }
    if hosts == 0 {
        f64::NAN
    } else {
        bytes * 8.0 / sim_ns / f64::from(hosts)
    }
}

/// A run's axis values but `skip`, as `k=v` joined by commas.
fn point_of(r: &PlannedRun, skip: &[&str]) -> String {
    r.values
        .iter()
        .filter(|(k, _)| !skip.contains(&k.as_str()))
        .map(|(k, v)| format!("{k}={}", v.trim_matches('"')))
        .collect::<Vec<_>>()
        .join(",")
}

/// Read the numbers of every run of the sweep that has a directory.
pub fn collect(
    dir: &Path,
    spec: &ReportSpec,
    runs: &[PlannedRun],
) -> Result<Vec<RunNumbers>, ExperimentError> {
    let mut out = Vec::new();
    // Flows of the runs that differ only in `run.seed`, pooled: (variant,
    // the other axes) -> (flows, per-run counters, seeds).
    type Pool = (Vec<stats::FlowRecord>, Vec<[f64; 5]>, Vec<Vec<f64>>, usize);
    let mut pools: Vec<((String, String), Pool)> = Vec::new();
    for r in runs {
        let rd = dir.join(&r.name);
        let flows = rd.join("flows.csv");
        if !flows.exists() {
            continue;
        }
        let records = read_flows(&flows)?;
        let variant = r
            .values
            .iter()
            .find(|(k, _)| k == "variant")
            .map(|(_, v)| v.clone())
            .unwrap_or_default();
        // Each run's summary is read and parsed once.
        let summary = read_summary(&rd);
        let mut counters = summary_counters(summary.as_ref());
        counters[4] = host_tx(&rd, summary.as_ref());
        let rates = port_rates(&rd, summary.as_ref(), &spec.ports);
        if r.values.iter().any(|(k, _)| k == "run.seed") {
            let mut rest = point_of(r, &["variant", "run.seed"]);
            if !rest.is_empty() {
                rest.push(',');
            }
            rest.push_str("seeds=pooled");
            let key = (variant.clone(), rest);
            match pools.iter_mut().find(|(k, _)| *k == key) {
                Some((_, pool)) => {
                    pool.0.extend(records.iter().cloned());
                    pool.1.push(counters);
                    pool.2.push(rates.clone());
                    pool.3 += 1;
                }
                None => pools.push((
                    key,
                    (records.clone(), vec![counters], vec![rates.clone()], 1),
                )),
            }
        }
        out.push(RunNumbers {
            run: r.name.clone(),
            point: point_of(r, &["variant"]),
            variant,
            groups: spec
                .groups
                .iter()
                .map(|(_, d)| group_stats(&records, d))
                .collect(),
            host_paused_ns: counters[0],
            retransmitted: counters[1],
            drops: counters[2],
            goodput_gbps: counters[3],
            host_tx_gbps: counters[4],
            port_gbps: rates,
        });
    }
    // Pooled rows where several seeds ran: the flows of all of them
    // together, the counters averaged over the runs.
    for ((variant, point), (records, counters, rates, n)) in pools {
        if n < 2 {
            continue;
        }
        let mean = |i: usize| counters.iter().map(|c| c[i]).sum::<f64>() / n as f64;
        let port_gbps = (0..spec.ports.len())
            .map(|i| rates.iter().map(|r| r[i]).sum::<f64>() / n as f64)
            .collect();
        out.push(RunNumbers {
            run: format!("variant={variant},{point}"),
            groups: spec
                .groups
                .iter()
                .map(|(_, d)| group_stats(&records, d))
                .collect(),
            host_paused_ns: mean(0),
            retransmitted: mean(1),
            drops: mean(2),
            goodput_gbps: mean(3),
            host_tx_gbps: mean(4),
            port_gbps,
            variant,
            point,
        });
    }
    Ok(out)
}

/// One published reduction beside ours.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// The published row.
    pub paper: PaperRow,
    /// The other axes' values of the runs compared.
    pub point: String,
    /// Baseline's value and the variant's.
    pub values: (f64, f64),
    /// Our reduction: 1 − variant / baseline.
    pub ours: f64,
}

impl Comparison {
    /// Whether ours and the published reduction have the same sign.
    pub fn sign_matches(&self) -> bool {
        (self.ours > 0.0) == (self.paper.reduction > 0.0)
    }
    /// Whether the magnitudes differ by more than a factor of two.
    pub fn off_by_2x(&self) -> bool {
        let (a, b) = (self.ours.abs(), self.paper.reduction.abs());
        a > 2.0 * b || b > 2.0 * a
    }
}

/// Every published row against every point where both runs exist.
pub fn compare(spec: &ReportSpec, numbers: &[RunNumbers]) -> Vec<Comparison> {
    let mut out = Vec::new();
    for p in &spec.paper {
        let base = p.baseline.as_deref().unwrap_or(&spec.baseline);
        let at_point = |point: &str| {
            p.at.iter()
                .all(|kv| point.split(',').any(|x| x == kv.as_str()))
        };
        for b in numbers
            .iter()
            .filter(|n| n.variant == base && at_point(&n.point))
        {
            let Some(v) = numbers
                .iter()
                .find(|n| n.variant == p.variant && n.point == b.point)
            else {
                continue;
            };
            let bv = b.metric(spec, &p.group, p.metric);
            let vv = v.metric(spec, &p.group, p.metric);
            out.push(Comparison {
                paper: p.clone(),
                point: b.point.clone(),
                values: (bv, vv),
                ours: 1.0 - vv / bv,
            });
        }
    }
    out
}

/// A reduction (0.59 = 59% lower) as the change it is: `-59%`.
fn reduction(x: f64) -> String {
    pct(-x, 0, "n/a")
}

/// The text of `report.csv`: one row per run and group. Every text field
/// (run, variant, point, group) is quoted where it needs to be, so a group
/// named `"a,b"` stays one field.
fn report_csv(spec: &ReportSpec, numbers: &[RunNumbers]) -> String {
    let mut csv = String::from(
        "run,variant,point,group,flows,finished,fct_avg_us,fct_p99_us,slowdown_avg,\
         slowdown_p99,host_paused_ns,retransmitted_bytes,drops\n",
    );
    for n in numbers {
        for ((g, _), s) in spec.groups.iter().zip(&n.groups) {
            let _ = writeln!(
                csv,
                "{},{},{},{},{},{},{},{},{},{},{},{},{}",
                csv_field(&n.run),
                csv_field(&n.variant),
                csv_field(&n.point),
                csv_field(g),
                s.flows,
                s.finished,
                num(s.fct_avg_us, 3, ""),
                num(s.fct_p99_us, 3, ""),
                num(s.slowdown_avg, 4, ""),
                num(s.slowdown_p99, 4, ""),
                num(n.host_paused_ns, 0, ""),
                num(n.retransmitted, 0, ""),
                num(n.drops, 0, ""),
            );
        }
    }
    csv
}

/// A metric of one group against the sweep's one axis, one line per
/// variant: what a paper draws as, say, Fig. 10b (p99 slowdown of short
/// flows by load).
#[derive(Clone, Debug, PartialEq)]
pub struct AxisFigure {
    /// The axis's key (`workload.load`).
    pub axis: String,
    /// The group.
    pub group: String,
    /// The metric.
    pub metric: Metric,
    /// Per variant, in the order first met: (axis value, metric) by value.
    pub lines: Vec<(String, Vec<(f64, f64)>)>,
}

/// The metrics drawn against a sweep's axis, per group.
pub const AXIS_METRICS: [Metric; 2] = [Metric::SlowdownP99, Metric::SlowdownAvg];

/// The figures of every group and [`AXIS_METRICS`] against the sweep's
/// axis, if it has exactly one besides `variant` and `run.seed`, with
/// numeric values and at least two of them; else none. Pooled rows
/// (several seeds) stand for their point.
pub fn axis_figures(spec: &ReportSpec, numbers: &[RunNumbers]) -> Vec<AxisFigure> {
    // Each row's (axis, value), if its point is one numeric axis.
    let one = |n: &RunNumbers| -> Option<(String, f64)> {
        let kv: Vec<&str> = n
            .point
            .split(',')
            .filter(|kv| !kv.is_empty() && !kv.starts_with("run.seed=") && *kv != "seeds=pooled")
            .collect();
        let [kv] = kv.as_slice() else {
            return None;
        };
        let (k, v) = kv.split_once('=')?;
        Some((k.to_string(), v.parse::<f64>().ok()?))
    };
    // With seeds as an axis, only the pooled rows.
    let pooled = numbers.iter().any(|n| n.point.contains("seeds=pooled"));
    let rows: Vec<(&RunNumbers, (String, f64))> = numbers
        .iter()
        .filter(|n| !pooled || n.point.contains("seeds=pooled"))
        .filter_map(|n| one(n).map(|a| (n, a)))
        .collect();
    let Some(axis) = rows.first().map(|(_, (k, _))| k.clone()) else {
        return Vec::new();
    };
    let n_rows = numbers
        .iter()
        .filter(|n| !pooled || n.point.contains("seeds=pooled"))
        .count();
    let mut xs: Vec<f64> = rows.iter().map(|(_, (_, x))| *x).collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    if rows.len() != n_rows || rows.iter().any(|(_, (k, _))| *k != axis) || xs.len() < 2 {
        return Vec::new();
    }
    // Besides AXIS_METRICS, the FCTs a published target compares in its
    // group (FlowSail Fig. 15: the average FCT against the queue count).
    let mut figures: Vec<(&String, Metric)> = Vec::new();
    for (group, _) in &spec.groups {
        figures.extend(AXIS_METRICS.iter().map(|&m| (group, m)));
    }
    for p in &spec.paper {
        let fct = matches!(p.metric, Metric::FctAvg | Metric::FctP99);
        if let Some((group, _)) = spec.groups.iter().find(|(g, _)| *g == p.group) {
            if fct && !figures.contains(&(group, p.metric)) {
                figures.push((group, p.metric));
            }
        }
    }
    let mut out = Vec::new();
    for (group, metric) in figures {
        {
            let mut lines: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
            for (n, (_, x)) in &rows {
                let y = n.metric(spec, group, metric);
                match lines.iter_mut().find(|(v, _)| *v == n.variant) {
                    Some((_, pts)) => pts.push((*x, y)),
                    None => lines.push((n.variant.clone(), vec![(*x, y)])),
                }
            }
            for (_, pts) in &mut lines {
                pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            }
            out.push(AxisFigure {
                axis: axis.clone(),
                group: group.clone(),
                metric,
                lines,
            });
        }
    }
    out
}

/// Write `report.csv` and `report.md` into the sweep directory; returns the
/// comparisons and every run's numbers.
pub fn write_report(
    dir: &Path,
    sweep: &Sweep,
    spec: &ReportSpec,
    runs: &[PlannedRun],
) -> Result<(Vec<Comparison>, Vec<RunNumbers>), ExperimentError> {
    let numbers = collect(dir, spec, runs)?;
    let csv = report_csv(spec, &numbers);
    let path = dir.join("report.csv");
    fs::write(&path, csv).map_err(|e| ExperimentError::io(&path, e))?;

    let cmp = compare(spec, &numbers);
    let mut md = format!(
        "# {}: published reductions and rdmasim's\n\n\
         Written by `rdmasim sweep {}`. A reduction is 1 − variant / baseline \
         (negative: the variant is higher); shown as the change, e.g. −59%.\n\n",
        sweep.name, sweep.file
    );
    if !cmp.is_empty() {
        md.push_str(
            "| target | metric | group | variant vs baseline | point | published | rdmasim | \
             baseline | variant | sign | within 2x |\n\
             |---|---|---|---|---|---|---|---|---|---|---|\n",
        );
        for c in &cmp {
            let base = c.paper.baseline.as_deref().unwrap_or(&spec.baseline);
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} vs {} | {} | {} | {} | {} | {} | {} | {} |",
                c.paper.target,
                c.paper.metric.name(),
                if c.paper.metric.run_wide() {
                    "all"
                } else {
                    &c.paper.group
                },
                c.paper.variant,
                base,
                if c.point.is_empty() { "-" } else { &c.point },
                reduction(c.paper.reduction),
                reduction(c.ours),
                num(c.values.0, 1, ""),
                num(c.values.1, 1, ""),
                if c.sign_matches() { "same" } else { "DIFFERS" },
                if c.off_by_2x() { "no" } else { "yes" },
            );
        }
        md.push('\n');
    }
    md.push_str(
        "| run | group | flows | finished | avg FCT (us) | p99 FCT (us) | avg slowdown | \
         p99 slowdown | host pause (ms) | retransmitted (MB) | drops |\n\
         |---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for n in &numbers {
        for ((g, _), s) in spec.groups.iter().zip(&n.groups) {
            let _ = writeln!(
                md,
                "| {} | {g} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                n.run,
                s.flows,
                s.finished,
                num(s.fct_avg_us, 0, ""),
                num(s.fct_p99_us, 0, ""),
                num(s.slowdown_avg, 2, ""),
                num(s.slowdown_p99, 2, ""),
                num(n.host_paused_ns / 1e6, 2, ""),
                num(n.retransmitted / 1e6, 2, ""),
                num(n.drops, 0, ""),
            );
        }
    }
    if !spec.ports.is_empty() {
        md.push_str("\nAverage transmit rate over the run (Gb/s; pooled rows: the mean of the runs):\n\n| run |");
        for (name, node, port) in &spec.ports {
            let _ = write!(md, " {name} ({node}:{port}) |");
        }
        md.push_str("\n|---|");
        md.push_str(&"---|".repeat(spec.ports.len()));
        md.push('\n');
        for n in &numbers {
            let _ = write!(md, "| {} |", n.run);
            for r in &n.port_gbps {
                let _ = write!(md, " {} |", num(*r, 2, ""));
            }
            md.push('\n');
        }
    }
    if spec.paper.iter().any(|p| p.metric == Metric::Goodput) {
        md.push_str(
            "\nGoodput of the PFC-free transport over the run (Gb/s, \
             `pfc_free.goodput_gbps`):\n\n| run | goodput |\n|---|---|\n",
        );
        for n in &numbers {
            let _ = writeln!(md, "| {} | {} |", n.run, num(n.goodput_gbps, 2, ""));
        }
    }
    let path = dir.join("report.md");
    fs::write(&path, md).map_err(|e| ExperimentError::io(&path, e))?;
    Ok((cmp, numbers))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(dport: u16, fct: Option<u64>, ideal: u64) -> stats::FlowRecord {
        stats::FlowRecord {
            id: 0,
            src: 0,
            dst: 1,
            size: 1000,
            start_ns: 0,
            end_ns: fct,
            fct_ns: fct,
            ideal_fct_ns: ideal,
            slowdown: fct.map(|f| f as f64 / ideal as f64),
            pg: 3,
            dport,
            sport: 0,
            retransmitted_bytes: 0,
            paused_ns: 0,
        }
    }

    #[test]
    fn group_stats_keep_their_ports_and_take_the_p99_of_every_table() {
        let mut r: Vec<_> = (1..=200u64)
            .map(|i| rec(100, Some(i * 1000), 1000))
            .collect();
        r.push(rec(101, Some(5_000_000), 1000));
        r.push(rec(100, None, 1000));
        let g = group_stats(&r, &GroupOf::Dports(vec![100]));
        assert_eq!((g.flows, g.finished), (201, 200));
        assert_eq!(g.fct_avg_us, 100.5);
        // sorted[int(200 * 0.99)], as rdmasim analyze and summary.json
        // take it: the 199th of 200.
        assert_eq!(g.fct_p99_us, 199.0);
        assert_eq!(g.slowdown_p99, 199.0);
        let all = group_stats(&r, &GroupOf::Dports(vec![]));
        assert_eq!(all.flows, 202);
        // sorted[int(201 * 0.99)] = sorted[198].
        assert_eq!(all.fct_p99_us, 199.0);
        // The same flows give the same p99 here as in summary.json and
        // rdmasim analyze (the `all` row of the size buckets).
        let buckets = stats::size_buckets(&r, &stats::DEFAULT_SIZE_EDGES);
        assert_eq!(buckets.last().map(|b| b.p99), Some(all.slowdown_p99));
        // rec() flows go from host 0 to host 1: within a DC of 16, across
        // DCs of 1.
        assert_eq!(group_stats(&r, &GroupOf::WithinDc(16)).flows, 202);
        assert_eq!(group_stats(&r, &GroupOf::CrossDc(16)).flows, 0);
        assert_eq!(group_stats(&r, &GroupOf::CrossDc(1)).flows, 202);
    }

    /// A group name with a comma (`groups = { "a,b" = [100] }`) is one
    /// quoted field of report.csv, so every row has the header's 13 fields.
    #[test]
    fn report_csv_quotes_group_names_with_commas() {
        let spec = ReportSpec {
            baseline: "pfc".into(),
            groups: vec![("a,b".into(), GroupOf::Dports(vec![100]))],
            paper: Vec::new(),
            ports: Vec::new(),
        };
        let numbers = [RunNumbers {
            run: "variant=pfc,load=0.3".into(),
            variant: "pfc".into(),
            point: "load=0.3".into(),
            groups: vec![GroupStats {
                flows: 2,
                finished: 2,
                ..GroupStats::default()
            }],
            host_paused_ns: 0.0,
            retransmitted: 0.0,
            drops: 0.0,
            goodput_gbps: f64::NAN,
            host_tx_gbps: f64::NAN,
            port_gbps: Vec::new(),
        }];
        let csv = report_csv(&spec, &numbers);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 2, "{csv}");
        assert_eq!(
            lines[1],
            "\"variant=pfc,load=0.3\",pfc,load=0.3,\"a,b\",2,2,0.000,0.000,0.0000,0.0000,0,0,0"
        );
    }

    #[test]
    fn axis_figures_draw_each_group_by_the_one_numeric_axis() {
        let spec = ReportSpec {
            baseline: "a".into(),
            groups: vec![("short".into(), GroupOf::Dports(vec![100]))],
            paper: Vec::new(),
            ports: Vec::new(),
        };
        let run = |variant: &str, point: &str, p99: f64| RunNumbers {
            run: format!("{variant}-{point}"),
            variant: variant.into(),
            point: point.into(),
            groups: vec![GroupStats {
                slowdown_p99: p99,
                slowdown_avg: p99 / 2.0,
                ..GroupStats::default()
            }],
            host_paused_ns: 0.0,
            retransmitted: 0.0,
            drops: 0.0,
            port_gbps: Vec::new(),
            goodput_gbps: 0.0,
            host_tx_gbps: 0.0,
        };
        // Grid order need not be the axis's order: lines are sorted by x.
        let numbers = [
            run("a", "load=0.8", 8.0),
            run("b", "load=0.8", 4.0),
            run("a", "load=0.4", 2.0),
            run("b", "load=0.4", 1.0),
        ];
        let f = axis_figures(&spec, &numbers);
        assert_eq!(f.len(), 2);
        assert_eq!(
            (f[0].axis.as_str(), f[0].metric),
            ("load", Metric::SlowdownP99)
        );
        assert_eq!(
            f[0].lines,
            vec![
                ("a".to_string(), vec![(0.4, 2.0), (0.8, 8.0)]),
                ("b".to_string(), vec![(0.4, 1.0), (0.8, 4.0)]),
            ]
        );
        assert_eq!(f[1].metric, Metric::SlowdownAvg);
        assert_eq!(f[1].lines[0].1, vec![(0.4, 1.0), (0.8, 4.0)]);
        // With seeds, the pooled rows stand for their point.
        let seeded = [
            run("a", "load=0.4,run.seed=1", 9.0),
            run("a", "load=0.8,run.seed=1", 9.0),
            run("a", "load=0.4,seeds=pooled", 3.0),
            run("a", "load=0.8,seeds=pooled", 5.0),
        ];
        let f = axis_figures(&spec, &seeded);
        assert_eq!(f[0].lines[0].1, vec![(0.4, 3.0), (0.8, 5.0)]);
        // Seeds alone, no point, a text axis, two axes, or one value: none.
        for bad in [
            vec![run("a", "run.seed=1", 1.0), run("a", "run.seed=2", 2.0)],
            vec![run("a", "", 1.0), run("b", "", 2.0)],
            vec![run("a", "cc=dcqcn", 1.0), run("a", "cc=hpcc", 2.0)],
            vec![run("a", "x=1,y=1", 1.0), run("a", "x=2,y=1", 2.0)],
            vec![run("a", "x=1", 1.0), run("b", "x=1", 2.0)],
        ] {
            assert!(axis_figures(&spec, &bad).is_empty(), "{bad:?}");
        }
        // A published target on a group's average FCT adds that figure
        // (once, however many targets name it).
        let row = PaperRow {
            target: "Fig. 15".into(),
            variant: "a".into(),
            baseline: Some("b".into()),
            group: "short".into(),
            metric: Metric::FctAvg,
            reduction: 0.95,
            at: Vec::new(),
        };
        let spec = ReportSpec {
            paper: vec![row.clone(), row],
            ..spec
        };
        let numbers: Vec<RunNumbers> = numbers
            .into_iter()
            .map(|mut n| {
                n.groups[0].fct_avg_us = n.groups[0].slowdown_p99 * 10.0;
                n
            })
            .collect();
        let f = axis_figures(&spec, &numbers);
        assert_eq!(f.len(), 3);
        assert_eq!(
            (f[2].group.as_str(), f[2].metric),
            ("short", Metric::FctAvg)
        );
        assert_eq!(f[2].lines[0].1, vec![(0.4, 20.0), (0.8, 80.0)]);
    }

    #[test]
    fn reductions_compare_matching_points_and_flag_signs_and_2x() {
        let spec = ReportSpec {
            baseline: "pfc".into(),
            groups: vec![("inter".into(), GroupOf::Dports(vec![100]))],
            paper: vec![PaperRow {
                target: "Fig. 13a".into(),
                variant: "swing".into(),
                baseline: None,
                group: "inter".into(),
                metric: Metric::FctAvg,
                reduction: 0.59,
                at: Vec::new(),
            }],
            ports: Vec::new(),
        };
        let run = |variant: &str, point: &str, avg: f64| RunNumbers {
            run: format!("{variant}-{point}"),
            variant: variant.into(),
            point: point.into(),
            groups: vec![GroupStats {
                fct_avg_us: avg,
                ..GroupStats::default()
            }],
            host_paused_ns: 0.0,
            retransmitted: 0.0,
            drops: 0.0,
            goodput_gbps: f64::NAN,
            host_tx_gbps: f64::NAN,
            port_gbps: Vec::new(),
        };
        let numbers = [
            run("pfc", "seed=1", 1000.0),
            run("swing", "seed=1", 500.0),
            run("pfc", "seed=2", 1000.0),
            run("swing", "seed=2", 1250.0),
        ];
        let c = compare(&spec, &numbers);
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].ours, 0.5);
        assert!(c[0].sign_matches() && !c[0].off_by_2x());
        assert_eq!(c[1].ours, -0.25);
        assert!(!c[1].sign_matches());
        assert_eq!(reduction(0.59), "-59%");
        // `at` keeps the points with those axis values only.
        let mut only = spec.clone();
        only.paper[0].at = vec!["seed=2".into()];
        let c = compare(&only, &numbers);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].point, "seed=2");
    }

    #[test]
    fn port_rates_are_bytes_sent_over_the_simulated_time() {
        let dir = std::env::temp_dir().join(format!("rdmasim-port-rates-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        fs::write(
            dir.join("summary.json"),
            r#"{"engine": {"sim_time_ns": 2000000}}"#,
        )
        .unwrap();
        fs::write(
            dir.join("ports.csv"),
            "node,port,is_switch,tx_bytes\n4,0,1,12500000\n4,1,1,0\n",
        )
        .unwrap();
        let ports = [
            ("c".to_string(), 4, 0),
            ("idle".to_string(), 4, 1),
            ("none".to_string(), 9, 0),
        ];
        let r = port_rates(&dir, read_summary(&dir).as_ref(), &ports);
        // 12.5 MB in 2 ms is 50 Gb/s.
        assert_eq!(r[0], 50.0);
        assert_eq!(r[1], 0.0);
        assert!(r[2].is_nan());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn host_tx_is_the_mean_over_the_hosts_that_sent_and_goodput_is_pfc_frees() {
        let dir = std::env::temp_dir().join(format!("rdmasim-host-tx-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        fs::write(
            dir.join("summary.json"),
            r#"{"engine": {"sim_time_ns": 2000000}, "pfc_free": {"goodput_gbps": 21.5}}"#,
        )
        .unwrap();
        // Hosts 0 and 1 sent 12.5 and 5 MB, host 2 nothing; the switch's
        // port is not a host's.
        fs::write(
            dir.join("ports.csv"),
            "node,port,is_switch,tx_bytes\n0,0,0,12500000\n1,0,0,5000000\n2,0,0,0\n\
             3,0,1,99000000\n",
        )
        .unwrap();
        let summary = read_summary(&dir);
        // (50 + 20) / 2 Gb/s.
        assert_eq!(host_tx(&dir, summary.as_ref()), 35.0);
        assert_eq!(summary_counters(summary.as_ref())[3], 21.5);
        let by = goodput_by_variant(
            dir.parent().unwrap(),
            &[(
                dir.file_name().unwrap().to_string_lossy().into_owned(),
                "v".into(),
            )],
        );
        assert_eq!(by.len(), 1);
        assert_eq!(by[0].1[0].1, 21.5);
        // Without a summary: NaN, not 0.
        fs::remove_file(dir.join("summary.json")).unwrap();
        assert!(host_tx(&dir, None).is_nan());
        fs::remove_dir_all(&dir).unwrap();
    }
}
