//! Reports of sweeps that reproduce a published evaluation: flow groups
//! (by destination port), a baseline variant, and the published reductions
//! beside the ones rdmasim measures.
//!
//! In a sweep file:
//!
//! ```toml
//! [report]
//! baseline = "pfc"                        # the variant reductions are relative to
//! groups = { inter = [100], intra = [101] } # flow groups by dport; default: all flows
//! # or by DC: { inter = "cross:16", intra = "within:16" } (16 hosts per DC)
//!
//! [[report.paper]]
//! target = "Fig. 13a"          # a label, e.g. the paper's figure
//! variant = "swing"
//! group = "inter"              # not needed for run-wide metrics
//! metric = "fct_avg"           # see Metric (or "goodput": a reduction of
//!                              # the PFC-free transport's goodput)
//! reduction = 0.59             # published: 59% lower than the baseline
//! ```
//!
//! This module reads `[report]`; after the runs, [`super::report`] gives
//! the sweep directory `report.csv` (one row per run
//! and group) and `report.md` (the published reductions and ours side by
//! side, then the per-run numbers). When `run.seed` is an axis, each set
//! of runs that differ only in their seed also gets a pooled row (point
//! `seeds=pooled`): statistics over all their flows together, counters
//! averaged over the runs.

use crate::error::ExperimentError;
use crate::locate;
use crate::suggest;
use engine::InputError;
use toml_edit::Item;

/// What a published number measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// Mean FCT of the group's finished flows.
    FctAvg,
    /// 99th-percentile FCT of the group.
    FctP99,
    /// Mean slowdown (FCT / ideal FCT).
    SlowdownAvg,
    /// 99th-percentile slowdown.
    SlowdownP99,
    /// Time the hosts' NIC ports spent paused (run-wide).
    HostPaused,
    /// Bytes retransmitted (run-wide).
    Retransmitted,
    /// The PFC-free transport's goodput, `pfc_free.goodput_gbps` of
    /// summary.json (run-wide; NaN for other transports).
    Goodput,
    /// What the hosts' NICs sent, Gb/s, the mean over the hosts that sent
    /// anything (run-wide, from ports.csv; ACKs included): Bifröst Fig. 8's "average send
    /// throughput per host".
    HostTx,
}

impl Metric {
    const ALL: [(&'static str, Metric); 8] = [
        ("fct_avg", Metric::FctAvg),
        ("fct_p99", Metric::FctP99),
        ("slowdown_avg", Metric::SlowdownAvg),
        ("slowdown_p99", Metric::SlowdownP99),
        ("host_paused", Metric::HostPaused),
        ("retransmitted", Metric::Retransmitted),
        ("goodput", Metric::Goodput),
        ("host_tx", Metric::HostTx),
    ];
    fn parse(s: &str) -> Option<Metric> {
        Metric::ALL.iter().find(|(n, _)| *n == s).map(|(_, m)| *m)
    }
    /// The name, as parsed.
    pub fn name(self) -> &'static str {
        Metric::ALL
            .iter()
            .find(|(_, m)| *m == self)
            .map(|(n, _)| *n)
            .expect("listed")
    }
    pub(super) fn run_wide(self) -> bool {
        matches!(
            self,
            Metric::HostPaused | Metric::Retransmitted | Metric::Goodput | Metric::HostTx
        )
    }
}

/// One published reduction.
#[derive(Clone, Debug, PartialEq)]
pub struct PaperRow {
    /// Label (e.g. the paper's figure).
    pub target: String,
    /// The variant compared.
    pub variant: String,
    /// Compared with this variant; default the report's baseline.
    pub baseline: Option<String>,
    /// Flow group (ignored for run-wide metrics).
    pub group: String,
    /// What is compared.
    pub metric: Metric,
    /// Published reduction, as a fraction (0.59 = 59% lower).
    pub reduction: f64,
    /// Compare only at points with these axis values (`at = "k=v,k=v"`);
    /// empty: at every point.
    pub at: Vec<String>,
}

/// Which flows a report group holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GroupOf {
    /// Flows to these destination ports (empty: every flow).
    Dports(Vec<u16>),
    /// Flows between hosts of different DCs, hosts numbered DC by DC with
    /// this many per DC (`"cross:16"`, the cross_dc numbering).
    CrossDc(u32),
    /// Flows within one DC (`"within:16"`).
    WithinDc(u32),
    /// Flows of `lo <= size < hi` bytes (`hi` none: no upper bound), to
    /// these destination ports (empty: any): `"size:0-10000"`,
    /// `"size:100000-,dport:100"` (FlowSail §VI-B's short and large flows).
    Sizes {
        /// Smallest size kept, bytes.
        lo: u64,
        /// Sizes from this one up are left out.
        hi: Option<u64>,
        /// Destination ports kept (empty: every port).
        dports: Vec<u16>,
    },
}

/// A `"size:LO-HI[,dport:P]..."` group, if `s` is one.
fn parse_sizes(s: &str) -> Option<GroupOf> {
    let mut range = None;
    let mut dports = Vec::new();
    for part in s.split(',') {
        let (k, v) = part.trim().split_once(':')?;
        match k.trim() {
            "size" if range.is_none() => {
                let (lo, hi) = v.trim().split_once('-')?;
                let lo: u64 = lo.trim().parse().ok()?;
                let hi: Option<u64> = match hi.trim() {
                    "" => None,
                    h => Some(h.parse().ok().filter(|&h| h > lo)?),
                };
                range = Some((lo, hi));
            }
            "dport" => dports.push(v.trim().parse().ok()?),
            _ => return None,
        }
    }
    let (lo, hi) = range?;
    Some(GroupOf::Sizes { lo, hi, dports })
}

impl GroupOf {
    pub(super) fn keeps(&self, r: &stats::FlowRecord) -> bool {
        match self {
            GroupOf::Dports(d) => d.is_empty() || d.contains(&r.dport),
            GroupOf::CrossDc(n) => r.src / n != r.dst / n,
            GroupOf::WithinDc(n) => r.src / n == r.dst / n,
            GroupOf::Sizes { lo, hi, dports } => {
                r.size >= *lo
                    && hi.is_none_or(|h| r.size < h)
                    && (dports.is_empty() || dports.contains(&r.dport))
            }
        }
    }
}

/// `[report]` of a sweep file.
#[derive(Clone, Debug, PartialEq)]
pub struct ReportSpec {
    /// The variant reductions are relative to.
    pub baseline: String,
    /// Flow groups: name and which flows; never empty.
    pub groups: Vec<(String, GroupOf)>,
    /// Published numbers.
    pub paper: Vec<PaperRow>,
    /// Switch or host ports whose average transmit rate each run reports:
    /// name, node and local port (`[report] ports = { name = "node:port" }`).
    pub ports: Vec<(String, u32, u16)>,
}

fn err(file: &str, text: &str, field: &str, msg: impl Into<String>) -> ExperimentError {
    ExperimentError::Input(InputError::at(
        file,
        locate::key_line(text, field),
        field,
        msg,
    ))
}

/// Parse `[report]`; `variants` are the names of the sweep's variants.
pub fn parse_report(
    item: &Item,
    file: &str,
    text: &str,
    variants: &[&str],
) -> Result<ReportSpec, ExperimentError> {
    let e = |field: &str, msg: String| err(file, text, field, msg);
    let Some(t) = item.as_table_like() else {
        return Err(e("report", "expected a table".into()));
    };
    if variants.is_empty() {
        return Err(e(
            "report",
            "a report compares variants; add [variants.<name>] tables".into(),
        ));
    }
    let names = variants;
    let variant = |field: &str, v: Option<&Item>| -> Result<String, ExperimentError> {
        match v.and_then(Item::as_str) {
            Some(s) if names.contains(&s) => Ok(s.to_string()),
            Some(s) => Err(e(
                field,
                format!("'{s}' is not a variant (they are {})", names.join(", ")),
            )),
            None => Err(e(field, "expected a variant name (a string)".into())),
        }
    };
    const KEYS: [&str; 4] = ["baseline", "groups", "paper", "ports"];
    for (k, _) in t.iter() {
        if !KEYS.contains(&k) {
            let msg = match suggest::closest(k, KEYS) {
                Some(meant) => format!("unknown key; did you mean {meant}?"),
                None => {
                    "unknown key; [report] has baseline, groups, ports and [[report.paper]]".into()
                }
            };
            return Err(e(&format!("report.{k}"), msg));
        }
    }
    let baseline = variant("report.baseline", t.get("baseline"))?;
    let mut groups = Vec::new();
    if let Some(g) = t.get("groups") {
        let Some(g) = g.as_table_like() else {
            return Err(e(
                "report.groups",
                "expected a table, e.g. { inter = [100] }".into(),
            ));
        };
        for (name, v) in g.iter() {
            let field = format!("report.groups.{name}");
            // A group's name becomes part of a file name (fct_cdf_<name>.png)
            // and a cell of report.md's tables.
            if let Some(c) = name
                .chars()
                .find(|&c| matches!(c, '/' | '\\' | '|') || c.is_control())
            {
                return Err(e(
                    &field,
                    format!(
                        "a group's name cannot hold {c:?}: it names a figure file and a \
                         column of report.md; use letters, digits, '_' or '-'"
                    ),
                ));
            }
            let ports: Option<Vec<u16>> = v.as_array().and_then(|a| {
                a.iter()
                    .map(|x| x.as_integer().and_then(|i| u16::try_from(i).ok()))
                    .collect()
            });
            let by_dc = v.as_str().and_then(|s| {
                if s.trim_start().starts_with("size:") {
                    return parse_sizes(s);
                }
                let (kind, n) = s.split_once(':')?;
                let n: u32 = n.trim().parse().ok().filter(|&n| n > 0)?;
                match kind {
                    "cross" => Some(GroupOf::CrossDc(n)),
                    "within" => Some(GroupOf::WithinDc(n)),
                    _ => None,
                }
            });
            match (ports, by_dc) {
                (Some(p), _) if !p.is_empty() => {
                    groups.push((name.to_string(), GroupOf::Dports(p)))
                }
                (_, Some(g)) => groups.push((name.to_string(), g)),
                _ => {
                    return Err(e(
                        &field,
                        "expected a non-empty list of destination ports, e.g. [100], \
                         \"cross:N\" / \"within:N\" (flows between / within DCs of N hosts), \
                         or \"size:LO-HI\" (bytes, HI left out or above LO; \
                         \",dport:P\" to keep port P only)"
                            .into(),
                    ))
                }
            }
        }
    }
    if groups.is_empty() {
        groups.push(("all".to_string(), GroupOf::Dports(Vec::new())));
    }
    let mut paper = Vec::new();
    if let Some(p) = t.get("paper") {
        let Some(rows) = p.as_array_of_tables() else {
            return Err(e("report.paper", "expected [[report.paper]] tables".into()));
        };
        for (i, row) in rows.iter().enumerate() {
            let field = |k: &str| format!("report.paper[{i}].{k}");
            const ROW_KEYS: [&str; 7] = [
                "target",
                "variant",
                "baseline",
                "group",
                "metric",
                "reduction",
                "at",
            ];
            for (k, _) in row.iter() {
                if !ROW_KEYS.contains(&k) {
                    let hint = match suggest::closest(k, ROW_KEYS) {
                        Some(meant) => format!("did you mean {meant}?"),
                        None => format!("expected one of {}", ROW_KEYS.join(", ")),
                    };
                    return Err(e(&field(k), format!("unknown key; {hint}")));
                }
            }
            let metric = match row.get("metric").and_then(Item::as_str) {
                Some(m) => Metric::parse(m).ok_or_else(|| {
                    let all: Vec<&str> = Metric::ALL.iter().map(|(n, _)| *n).collect();
                    e(
                        &field("metric"),
                        format!("'{m}' is not a metric ({})", all.join(", ")),
                    )
                })?,
                None => return Err(e(&field("metric"), "missing".into())),
            };
            let group = match row.get("group").and_then(Item::as_str) {
                Some(g) if groups.iter().any(|(n, _)| n == g) => g.to_string(),
                Some(g) => {
                    return Err(e(&field("group"), format!("'{g}' is not in report.groups")))
                }
                None if metric.run_wide() => groups[0].0.clone(),
                None => return Err(e(&field("group"), "missing".into())),
            };
            let reduction = row
                .get("reduction")
                .and_then(|v| v.as_float().or_else(|| v.as_integer().map(|i| i as f64)))
                .filter(|r| r.is_finite() && *r < 1.0)
                .ok_or_else(|| {
                    e(
                        &field("reduction"),
                        "expected a fraction below 1, e.g. 0.59".into(),
                    )
                })?;
            paper.push(PaperRow {
                target: row
                    .get("target")
                    .and_then(Item::as_str)
                    .unwrap_or("")
                    .to_string(),
                variant: variant(&field("variant"), row.get("variant"))?,
                baseline: match row.get("baseline") {
                    Some(b) => Some(variant(&field("baseline"), Some(b))?),
                    None => None,
                },
                group,
                metric,
                reduction,
                at: match row.get("at") {
                    None => Vec::new(),
                    Some(v) => {
                        let at: Option<Vec<String>> = v.as_str().map(|s| {
                            s.split(',').map(|kv| kv.trim().to_string()).collect()
                        });
                        match at {
                            Some(a) if a.iter().all(|kv| {
                                kv.split_once('=').is_some_and(|(k, v)| !k.is_empty() && !v.is_empty())
                            }) => a,
                            _ => {
                                return Err(e(
                                    &field("at"),
                                    "expected axis values \"key=value,...\", e.g. \"workload.flows=128\""
                                        .into(),
                                ))
                            }
                        }
                    }
                },
            });
        }
    }
    let mut ports = Vec::new();
    if let Some(p) = t.get("ports") {
        let Some(p) = p.as_table_like() else {
            return Err(e(
                "report.ports",
                "expected a table, e.g. { to_c = \"4:0\" } (node:port)".into(),
            ));
        };
        for (name, v) in p.iter() {
            let at = v.as_str().and_then(|s| {
                let (n, l) = s.split_once(':')?;
                Some((n.trim().parse::<u32>().ok()?, l.trim().parse::<u16>().ok()?))
            });
            match at {
                Some((node, port)) => ports.push((name.to_string(), node, port)),
                None => {
                    return Err(e(
                        &format!("report.ports.{name}"),
                        "expected \"node:port\", e.g. \"4:0\" (port 0 of node 4)".into(),
                    ))
                }
            }
        }
    }
    Ok(ReportSpec {
        baseline,
        groups,
        paper,
        ports,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_group_name_that_cannot_name_a_file_is_refused_at_its_line() {
        let variants = ["pfc"];
        let parse = |groups: &str| {
            let text = format!("[report]\nbaseline = \"pfc\"\ngroups = {groups}\n");
            let doc: toml_edit::DocumentMut = text.parse().unwrap();
            parse_report(&doc["report"], "s.toml", &text, &variants)
        };
        assert!(parse(r#"{ inter_dc = [100], "a,b" = [200] }"#).is_ok());
        let spec =
            parse(r#"{ short = "size:0-10000,dport:100", large = "size:100001-" }"#).unwrap();
        assert_eq!(
            spec.groups[0].1,
            GroupOf::Sizes {
                lo: 0,
                hi: Some(10_000),
                dports: vec![100]
            }
        );
        let rec = |size, dport| stats::FlowRecord {
            id: 0,
            src: 0,
            dst: 1,
            size,
            start_ns: 0,
            end_ns: None,
            fct_ns: None,
            ideal_fct_ns: 1,
            slowdown: None,
            pg: 3,
            dport,
            sport: 0,
            retransmitted_bytes: 0,
            paused_ns: 0,
        };
        let (short, large) = (&spec.groups[0].1, &spec.groups[1].1);
        assert!(short.keeps(&rec(9_999, 100)) && !short.keeps(&rec(10_000, 100)));
        assert!(!short.keeps(&rec(100, 200)));
        assert!(large.keeps(&rec(100_001, 200)) && !large.keeps(&rec(100_000, 100)));
        for bad in [r#""size:10-5""#, r#""size:x-""#, r#""size:0-10,port:1""#] {
            let err = parse(&format!("{{ g = {bad} }}")).unwrap_err().to_string();
            assert!(
                err.starts_with("s.toml:3: report.groups.g: expected"),
                "{err}"
            );
        }
        for (name, c) in [("a/b", "'/'"), ("a|b", "'|'"), ("a\\\\b", "'\\\\'")] {
            let err = parse(&format!(r#"{{ "{name}" = [100] }}"#))
                .unwrap_err()
                .to_string();
            assert!(
                err.starts_with("s.toml:3: report.groups.")
                    && err.contains(&format!("a group's name cannot hold {c}")),
                "{name}: {err}"
            );
        }
    }
}
