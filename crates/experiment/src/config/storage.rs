//! `[workload] kind = "storage"`: storage messages (Azure §2.2; the
//! generator is `workload::storage`).

use super::ctx::{Ctx, R};
use super::hosts::{build_cdf, check_node, host_rates};
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

/// The storage keys of a `[workload]` or `[[workload.extra]]` section.
#[derive(Debug)]
pub(super) struct StorageKeys<'a> {
    pub(super) load: Option<f64>,
    pub(super) replication_load: Option<f64>,
    pub(super) reconstruction_load: Option<f64>,
    pub(super) write_fraction: Option<f64>,
    pub(super) replicas: Option<u32>,
    pub(super) degree: Option<u32>,
    pub(super) compute: &'a Option<Vec<u32>>,
    pub(super) storage: &'a Option<Vec<u32>>,
    pub(super) cdf: &'a Option<String>,
    pub(super) duration: &'a Option<String>,
    pub(super) host_rate: &'a Option<String>,
    pub(super) dport: Option<u16>,
}

/// The flows and messages of section `sec`'s storage generator.
#[allow(clippy::too_many_arguments)]
pub(super) fn build_storage(
    cx: &Ctx<'_>,
    sec: &str,
    w: &StorageKeys<'_>,
    topo: &Topology,
    seed: u64,
    pg: u8,
    start: Time,
    why: &str,
) -> R<(Vec<FlowSpec>, Vec<Message>)> {
    let key = |k: &str| format!("{sec}.{k}");
    let duration = cx.required(w.duration, &key("duration"), why)?;
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
    let compute = hosts("compute", w.compute)?;
    let storage = hosts("storage", w.storage)?;
    let host_rate = match w.host_rate {
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
    let sizes = match w.cdf {
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
