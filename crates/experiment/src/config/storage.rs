//! `[workload] kind = "storage"`: storage messages (Azure §2.2; the
//! generator is `workload::storage`).

use super::ctx::{Ctx, R};
use super::workload::{build_cdf, check_node, host_rates, WorkloadSection};
use engine::{Rate, Time};
use topo::Topology;
use workload::{FlowSpec, Message, SizeCdf, StorageSpec};

/// Default share of frontend I/O that writes: half (rdmasim's choice; the
/// paper gives no mix).
pub(super) const DEFAULT_WRITE_FRACTION: f64 = 0.5;

/// Default copies of a replication: three (Azure §2.2: an extent is
/// replicated three times).
pub(super) const DEFAULT_REPLICAS: u32 = 3;

/// Default fragments a reconstruction reads: 8 (rdmasim's choice; the
/// paper says only that reconstruction reads from several servers).
pub(super) const DEFAULT_RECONSTRUCTION_DEGREE: u32 = 8;

/// Default destination port of storage flows.
pub(super) const DEFAULT_STORAGE_DPORT: u16 = 120;

/// The default message sizes: 8 KB to 1 MB (the I/O sizes of Azure §8.2),
/// an equal share in each doubling (rdmasim's choice of shape).
pub(super) fn default_sizes() -> SizeCdf {
    let points = (0..=7)
        .map(|k| (8192.0 * f64::from(1u32 << k), f64::from(k) / 7.0))
        .collect();
    SizeCdf::new(points).expect("a valid CDF")
}

#[allow(clippy::too_many_arguments)]
pub(super) fn build_storage(
    cx: &Ctx<'_>,
    sec: &str,
    w: &WorkloadSection,
    topo: &Topology,
    seed: u64,
    pg: u8,
    start: Time,
    why: &str,
) -> R<(Vec<FlowSpec>, Vec<Message>)> {
    let key = |k: &str| format!("{sec}.{k}");
    let duration = cx.required(&w.duration, &key("duration"), why)?;
    let duration = cx.positive_time(&key("duration"), &duration)?;
    let mut loads = [0.0; 3];
    for (i, (name, v)) in [
        ("load", w.load),
        ("replication_load", w.replication_load),
        ("reconstruction_load", w.reconstruction_load),
    ]
    .into_iter()
    .enumerate()
    {
        if let Some(v) = v {
            loads[i] = cx.fraction(&key(name), v, true)?;
        }
    }
    if loads.iter().all(|&l| l == 0.0) {
        return Err(cx.err(
            &key("load"),
            "no traffic: set load (frontend I/O), replication_load or reconstruction_load",
        ));
    }
    let write_fraction = cx.fraction(
        &key("write_fraction"),
        w.write_fraction.unwrap_or(DEFAULT_WRITE_FRACTION),
        true,
    )?;
    let hosts = |name: &str, v: &Option<Vec<u32>>| -> R<Vec<u32>> {
        match v {
            None => Ok(topo.hosts()),
            Some(list) if list.is_empty() => Err(cx.err(&key(name), "lists no host")),
            Some(list) => {
                for &n in list {
                    check_node(cx, &key(name), topo, n)?;
                }
                Ok(list.clone())
            }
        }
    };
    let compute = hosts("compute", &w.compute)?;
    let storage = hosts("storage", &w.storage)?;
    let host_rate = match &w.host_rate {
        Some(r) => cx.rate(&key("host_rate"), r)?,
        None => {
            let rates = host_rates(topo);
            let mut all = compute
                .iter()
                .chain(&storage)
                .filter_map(|&h| rates[h as usize]);
            let first = all.next().unwrap_or(Rate::gbps(100));
            if all.any(|r| r != first) {
                return Err(cx.err(
                    &key("host_rate"),
                    "the hosts' links run at different rates: set the rate the loads are \
                     fractions of",
                ));
            }
            first
        }
    };
    let sizes = match &w.cdf {
        Some(c) => build_cdf(cx, &key("cdf"), c)?,
        None => default_sizes(),
    };
    let spec = StorageSpec {
        compute,
        storage,
        host_rate,
        loads,
        write_fraction,
        replicas: w.replicas.unwrap_or(DEFAULT_REPLICAS),
        degree: w.degree.unwrap_or(DEFAULT_RECONSTRUCTION_DEGREE),
        sizes,
        start,
        duration,
        seed,
        pg,
        dport: w.dport.unwrap_or(DEFAULT_STORAGE_DPORT),
    };
    workload::storage(&spec).map_err(|m| {
        let field = if m.starts_with(workload::TOO_MANY_FLOWS) {
            "duration"
        } else if m.contains("replicas") {
            "replicas"
        } else if m.contains("reconstruction") {
            "degree"
        } else if m.contains("compute host") && m.contains("listed") {
            "compute"
        } else if m.contains("storage host") || m.contains("frontend") {
            "storage"
        } else {
            "kind"
        };
        cx.err(&key(field), m)
    })
}

#[cfg(test)]
mod tests {
    use super::super::build::build_scenario;
    use super::super::parse::parse_config;
    use super::*;
    use std::path::Path;

    fn build(section: &str) -> Result<crate::scenario::Scenario, String> {
        let text = format!(
            "[topology]\nkind = \"star\"\nhosts = 12\n\n[workload]\nkind = \"storage\"\n\
             duration = \"1ms\"\n{section}"
        );
        parse_config(&text, "t.toml")
            .and_then(|c| build_scenario(&c, Path::new("")))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn storage_messages_reach_the_scenario() {
        let s = build(
            "load = 0.2\nreplication_load = 0.1\nreconstruction_load = 0.1\ndegree = 6\n\
             compute = [0, 1, 2, 3]\nstorage = [4, 5, 6, 7, 8, 9, 10, 11]\n",
        )
        .unwrap();
        assert!(!s.messages.is_empty());
        let kinds: std::collections::BTreeSet<_> = s.messages.iter().map(|m| m.kind).collect();
        assert_eq!(
            kinds.len(),
            4,
            "reads, writes, replications, reconstructions"
        );
        let mut n = 0;
        for m in &s.messages {
            let want = match m.kind {
                workload::MessageKind::Replication => DEFAULT_REPLICAS as usize,
                workload::MessageKind::Reconstruction => 6,
                _ => 1,
            };
            assert_eq!(m.flows.len(), want);
            for &f in &m.flows {
                assert_eq!(s.flows[f as usize].start, m.start);
                assert_eq!(s.flows[f as usize].dport, DEFAULT_STORAGE_DPORT);
            }
            n += m.flows.len();
        }
        assert_eq!(n, s.flows.len(), "every flow in one message");
    }

    #[test]
    fn messages_follow_their_flows_past_other_generators() {
        let s = build(
            "load = 0.3\n\n[[workload.extra]]\nkind = \"incast\"\nsenders = [0, 1, 2]\n\
             receiver = 3\nsize = \"10KB\"\nstart = \"300us\"\n",
        )
        .unwrap();
        let in_msgs: usize = s.messages.iter().map(|m| m.flows.len()).sum();
        assert_eq!(
            in_msgs + 3,
            s.flows.len(),
            "the incast's flows are in no message"
        );
        for m in &s.messages {
            let f = &s.flows[m.flows[0] as usize];
            assert_eq!((f.start, f.dport), (m.start, DEFAULT_STORAGE_DPORT));
        }
        assert!(s.messages.windows(2).all(|w| w[0].start <= w[1].start));
    }

    #[test]
    fn bad_storage_keys_name_themselves() {
        let e = build("").unwrap_err();
        assert!(
            e.starts_with("t.toml") && e.contains("workload.load: no traffic"),
            "{e}"
        );
        let e = build("replication_load = 0.1\nreplicas = 11\nstorage = [0, 1, 2]\n").unwrap_err();
        assert!(
            e.contains("t.toml:9: workload.replicas: 11 replicas need 12"),
            "{e}"
        );
        let e = build("reconstruction_load = 0.1\ndegree = 12\n").unwrap_err();
        assert!(
            e.contains("workload.degree: a 12-to-1 reconstruction"),
            "{e}"
        );
        let e = build("load = 1.5\n").unwrap_err();
        assert!(e.contains("t.toml:8: workload.load"), "{e}");
        let e = build("load = 0.1\nwrite_fraction = -1.0\n").unwrap_err();
        assert!(e.contains("workload.write_fraction"), "{e}");
        let e = build("load = 0.1\ncompute = [40]\n").unwrap_err();
        assert!(
            e.contains("workload.compute: node 40 does not exist"),
            "{e}"
        );
        let e = build("load = 0.1\nstorage = [1, 1]\n").unwrap_err();
        assert!(
            e.contains("workload.storage: storage host 1 is listed twice"),
            "{e}"
        );
        let e = build("load = 0.1\nsize = \"1MB\"\n").unwrap_err();
        assert!(
            e.contains("workload.size: not a key of kind = \"storage\""),
            "{e}"
        );
    }
}
