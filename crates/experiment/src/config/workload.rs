//! `[workload]` and its `[[workload.extra]]` generators: the flows of a
//! run.

use super::ctx::{set_keys, Ctx, R};
use super::hosts::{build_cdf, check_node, host_rates};
use crate::error::ExperimentError;
use engine::{InputError, Rate, Time};
use serde::Deserialize;
use topo::Topology;
use workload::{FlowSpec, Message, PoissonSpec};

/// Default priority class of generated flows (the peer's `pg`, 3 in its
/// flow files).
pub const DEFAULT_PG: u8 = 3;

/// Default destination port of Poisson flows (the peer's "normal" traffic,
/// `fct_analysis.py` dport 100).
pub const DEFAULT_DPORT: u16 = 100;

/// Default destination port of incast flows (the peer's incast,
/// `fct_analysis.py` dport 200).
pub const DEFAULT_INCAST_DPORT: u16 = 200;

/// Default senders per event of `incast_background` (FlowSail §VI-B's
/// 50-to-1).
pub(super) const DEFAULT_INCAST_DEGREE: u32 = 50;

/// Default smallest flow of `incast_background` (FlowSail §VI-B: 50 KB).
pub(super) const DEFAULT_INCAST_MIN_SIZE: &str = "50KB";

/// Default largest flow of `incast_background` (FlowSail §VI-B: 200 KB).
pub(super) const DEFAULT_INCAST_MAX_SIZE: &str = "200KB";

/// Default CDF of Poisson workloads.
pub const DEFAULT_CDF: &str = "websearch";

/// The generators `[workload]` can use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkloadKind {
    /// Open-loop Poisson arrivals over a size CDF.
    Poisson,
    /// N-to-1 incast.
    Incast,
    /// Long-lived bandwidth flows (perftest's bandwidth test).
    Bulk,
    /// Fixed-size latency probes at Poisson times (perftest's latency test).
    Probes,
    /// RPC clients, each with its QPs, into one server (Bifröst §4.4).
    Rpc,
    /// A peer flow file.
    File,
    /// N-to-1 incast events at Poisson times, flow sizes uniform in a
    /// range (FlowSail §VI-B's background).
    IncastBackground,
    /// Storage messages: frontend I/O, replication fan-out and
    /// reconstruction incast (Azure §2.2; `config/storage.rs`).
    Storage,
}

impl WorkloadKind {
    fn name(self) -> &'static str {
        match self {
            WorkloadKind::Poisson => "poisson",
            WorkloadKind::Incast => "incast",
            WorkloadKind::Bulk => "bulk",
            WorkloadKind::Probes => "probes",
            WorkloadKind::Rpc => "rpc",
            WorkloadKind::File => "file",
            WorkloadKind::IncastBackground => "incast_background",
            WorkloadKind::Storage => "storage",
        }
    }
    fn keys(self) -> &'static [&'static str] {
        match self {
            WorkloadKind::Poisson => &[
                "load",
                "load_on",
                "cdf",
                "duration",
                "start",
                "hosts",
                "dsts",
                "host_rate",
                "pg",
                "dport",
            ],
            WorkloadKind::Incast => &[
                "senders",
                "senders_count",
                "receiver",
                "size",
                "start",
                "pg",
                "dport",
            ],
            WorkloadKind::Bulk => &["hosts", "dsts", "flows", "size", "start", "pg", "dport"],
            WorkloadKind::Probes => &[
                "hosts", "dsts", "size", "interval", "start", "duration", "pg", "dport",
            ],
            WorkloadKind::Rpc => &[
                "clients",
                "clients_count",
                "server",
                "qps",
                "size",
                "start",
                "start_spread",
                "pg",
                "dport",
            ],
            WorkloadKind::File => &["path", "start_times"],
            WorkloadKind::IncastBackground => &[
                "load",
                "load_on",
                "share",
                "degree",
                "min_size",
                "max_size",
                "duration",
                "start",
                "hosts",
                "host_rate",
                "pg",
                "dport",
            ],
            WorkloadKind::Storage => &[
                "load",
                "replication_load",
                "reconstruction_load",
                "write_fraction",
                "replicas",
                "degree",
                "compute",
                "storage",
                "cdf",
                "duration",
                "start",
                "host_rate",
                "pg",
                "dport",
            ],
        }
    }
}

/// `[workload]` and each `[[workload.extra]]`: `kind` and that kind's keys.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSection {
    /// Which generator.
    pub kind: Option<WorkloadKind>,
    /// poisson: offered load per host, in (0, 1]; incast_background: the
    /// incast flows' load, as an average over the hosts.
    pub load: Option<f64>,
    /// poisson, incast_background: what `load` is a fraction of: `"hosts"`
    /// (default: each host's rate) or `"core"` (the core links' capacity,
    /// FlowSail §VI-B; [`topo::core_load_factor`]).
    pub load_on: Option<String>,
    /// incast_background (in `[[workload.extra]]`): instead of `load` and
    /// `load_on`, the incast's load as this share of `[workload]`'s, on
    /// the same base (FlowSail §VI-B: 0.1).
    pub share: Option<f64>,
    /// incast_background: senders per event; default 50. storage: the
    /// fragments a reconstruction reads.
    pub degree: Option<u32>,
    /// storage: replication's offered load.
    pub replication_load: Option<f64>,
    /// storage: reconstruction's offered load.
    pub reconstruction_load: Option<f64>,
    /// storage: share of frontend I/O that writes.
    pub write_fraction: Option<f64>,
    /// storage: copies per replication.
    pub replicas: Option<u32>,
    /// storage: the compute hosts; default all.
    pub compute: Option<Vec<u32>>,
    /// storage: the storage hosts; default all.
    pub storage: Option<Vec<u32>>,
    /// incast_background: smallest flow; default 50KB.
    pub min_size: Option<String>,
    /// incast_background: largest flow; default 200KB.
    pub max_size: Option<String>,
    /// poisson: `websearch`, `fb_hadoop`, or a CDF file relative to the config.
    pub cdf: Option<String>,
    /// poisson, probes: length of the arrival window.
    pub duration: Option<String>,
    /// poisson, incast, bulk, probes: start time; default `0s`.
    pub start: Option<String>,
    /// poisson: the hosts that take part; default all. bulk, probes: the
    /// senders (required).
    pub hosts: Option<Vec<u32>>,
    /// poisson: with it, `hosts` only send and every flow goes to one of
    /// these (not its source); default: the other hosts of `hosts`.
    pub dsts: Option<Vec<u32>>,
    /// poisson: the rate load is a fraction of; default the hosts' link rate.
    pub host_rate: Option<String>,
    /// incast: the senders.
    pub senders: Option<Vec<u32>>,
    /// incast: or this many senders, the lowest host ids but the receiver.
    pub senders_count: Option<u32>,
    /// incast: the receiver.
    pub receiver: Option<u32>,
    /// incast: bytes per sender; probes: bytes per flow; bulk: bytes per
    /// flow, default `"endless"` (until the stop time).
    pub size: Option<String>,
    /// bulk: how many flows, spread over `hosts` in turn; default 1.
    pub flows: Option<u32>,
    /// probes: mean time between one sender's probes (Poisson).
    pub interval: Option<String>,
    /// file: the peer flow file, relative to the config's directory.
    pub path: Option<String>,
    /// file: how start times are read: `"exact"` (default, the decimals
    /// as written) or `"as_peer"` (through a double, as the peer reads
    /// them; [`workload::StartTimes`]).
    pub start_times: Option<String>,
    /// rpc: the clients.
    pub clients: Option<Vec<u32>>,
    /// rpc: or this many clients, the lowest host ids but the server.
    pub clients_count: Option<u32>,
    /// rpc: the server.
    pub server: Option<u32>,
    /// rpc: connections (QPs) per client; default 1.
    pub qps: Option<u32>,
    /// Priority class; default 3.
    pub pg: Option<u8>,
    /// Destination port; default 100 (poisson), 200 (incast).
    pub dport: Option<u16>,
    /// More generators whose flows are merged in (top level only).
    pub extra: Option<Vec<WorkloadSection>>,
    /// rpc: each connection starts a uniform random time in [0, this)
    /// after `start`; default 0 (all at once).
    pub start_spread: Option<String>,
}

/// The seed of generator `index` (0 = `[workload]`, i = `extra[i-1]`):
/// the run seed for the first, so its flows match a run without extras;
/// distinct, fixed derivations for the rest.
fn generator_seed(seed: u64, index: usize) -> u64 {
    if index == 0 {
        seed
    } else {
        seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
}

/// The flows of `[workload]` and its extras, sorted by start, and the
/// messages of storage generators (by flow id); what the user should know
/// about them goes to `notes`.
pub(super) fn build_workload(
    cx: &Ctx<'_>,
    w: &WorkloadSection,
    topo: &Topology,
    seed: u64,
    notes: &mut Vec<String>,
) -> R<(Vec<FlowSpec>, Vec<Message>)> {
    let mut msgs = vec![Vec::new()];
    let mut lists = vec![build_generator(
        cx,
        "workload",
        w,
        None,
        topo,
        generator_seed(seed, 0),
        notes,
        &mut msgs[0],
    )?];
    let mut total = lists[0].len();
    for (i, e) in w.extra.iter().flatten().enumerate() {
        let path = format!("workload.extra[{i}]");
        if e.extra.is_some() {
            return Err(cx.err(
                &format!("{path}.extra"),
                "extra generators go in [[workload.extra]] only, not inside one",
            ));
        }
        msgs.push(Vec::new());
        lists.push(build_generator(
            cx,
            &path,
            e,
            Some(w),
            topo,
            generator_seed(seed, i + 1),
            notes,
            &mut msgs[i + 1],
        )?);
        // Each generator is bounded; so is their sum.
        total += lists[i + 1].len();
        if total > workload::MAX_FLOWS {
            return Err(cx.err(
                &path,
                format!(
                    "{}: {total} with this generator's, at most {} in all",
                    workload::TOO_MANY_FLOWS,
                    workload::MAX_FLOWS
                ),
            ));
        }
    }
    if msgs.iter().any(|m| !m.is_empty()) {
        return Ok(merge_messages(lists, msgs));
    }
    let sorted = |l: &[FlowSpec]| l.windows(2).all(|w| w[0].start <= w[1].start);
    if lists.len() == 1 && sorted(&lists[0]) {
        return Ok((lists.pop().unwrap_or_default(), Vec::new()));
    }
    Ok((workload::merge(lists), Vec::new()))
}

/// [`workload::merge`] of `lists` whose messages `msgs` (one list each,
/// naming flows by their index in it) follow their flows to their new ids;
/// the messages numbered in arrival order, generators' in theirs.
fn merge_messages(
    lists: Vec<Vec<FlowSpec>>,
    msgs: Vec<Vec<Message>>,
) -> (Vec<FlowSpec>, Vec<Message>) {
    let mut all: Vec<Message> = Vec::new();
    let mut tagged: Vec<(FlowSpec, u32)> = Vec::new();
    for (list, ms) in lists.into_iter().zip(msgs) {
        let mut owner = vec![u32::MAX; list.len()];
        for m in ms {
            for &f in &m.flows {
                owner[f as usize] = all.len() as u32;
            }
            all.push(Message {
                flows: Vec::new(),
                ..m
            });
        }
        tagged.extend(list.into_iter().zip(owner));
    }
    let (flows, owner) = workload::sort_and_number_tagged(tagged);
    for (f, &m) in flows.iter().zip(&owner) {
        if m != u32::MAX {
            all[m as usize].flows.push(f.id);
        }
    }
    all.sort_by_key(|m| m.start);
    for (i, m) in all.iter_mut().enumerate() {
        m.id = i as u32;
    }
    (flows, all)
}

/// The flows of one generator; a storage generator's messages (their flow
/// ids this list's) go to `messages`.
#[allow(clippy::too_many_arguments)]
fn build_generator(
    cx: &Ctx<'_>,
    sec: &str,
    w: &WorkloadSection,
    main: Option<&WorkloadSection>,
    topo: &Topology,
    seed: u64,
    notes: &mut Vec<String>,
    messages: &mut Vec<Message>,
) -> R<Vec<FlowSpec>> {
    let kind = cx.required(&w.kind, &format!("{sec}.kind"), &format!("[{sec}]"))?;
    let set = set_keys!(w; load, load_on, share, degree, min_size, max_size, cdf, duration, start, hosts,
        dsts, host_rate, senders, senders_count, receiver, size, flows, interval, path, start_times,
        pg, dport, clients, clients_count, server, qps, replication_load, reconstruction_load,
        write_fraction, replicas, compute, storage, start_spread);
    cx.only_keys(sec, kind.name(), &set, kind.keys())?;
    let key = |k: &str| format!("{sec}.{k}");
    let why = format!("kind = \"{}\"", kind.name());
    let start = match &w.start {
        Some(s) => Time(cx.time(&key("start"), s)?.ps()),
        None => Time::ZERO,
    };
    let pg = w.pg.unwrap_or(DEFAULT_PG);
    if usize::from(pg) >= net::wire::N_CLASSES || pg == 0 {
        return Err(cx.err(
            &key("pg"),
            format!(
                "priority class {pg} is not a data class (use 1 to {}; 0 is for control)",
                net::wire::N_CLASSES - 1
            ),
        ));
    }
    match kind {
        WorkloadKind::Storage => {
            let keys = super::storage::StorageKeys {
                load: w.load,
                replication_load: w.replication_load,
                reconstruction_load: w.reconstruction_load,
                write_fraction: w.write_fraction,
                replicas: w.replicas,
                degree: w.degree,
                compute: &w.compute,
                storage: &w.storage,
                cdf: &w.cdf,
                duration: &w.duration,
                host_rate: &w.host_rate,
                dport: w.dport,
            };
            let (flows, m) =
                super::storage::build_storage(cx, sec, &keys, topo, seed, pg, start, &why)?;
            *messages = m;
            Ok(flows)
        }
        WorkloadKind::Poisson => {
            // `load` first, as its errors always came first.
            let load = cx.required(&w.load, &key("load"), &why)?;
            cx.fraction(&key("load"), load, false)?;
            let duration = cx.required(&w.duration, &key("duration"), &why)?;
            let duration = cx.positive_time(&key("duration"), &duration)?;
            let cdf = build_cdf(cx, &key("cdf"), w.cdf.as_deref().unwrap_or(DEFAULT_CDF))?;
            let (hosts, host_rate, load) = hosts_rate_load(cx, sec, w, topo, &why)?;
            let spec = PoissonSpec {
                hosts,
                host_rate,
                load,
                cdf,
                start,
                duration,
                seed,
                pg,
                dport: w.dport.unwrap_or(DEFAULT_DPORT),
            };
            let dsts = match &w.dsts {
                Some(d) => {
                    for &n in d {
                        check_node(cx, &key("dsts"), topo, n)?;
                    }
                    if d.is_empty() {
                        return Err(cx.err(
                            &key("dsts"),
                            "lists no host; leave it out to send to the other hosts",
                        ));
                    }
                    d.clone()
                }
                None => Vec::new(),
            };
            workload::poisson_to(&spec, &dsts).map_err(|m| {
                let field = if m.starts_with(workload::TOO_MANY_FLOWS) {
                    key("duration")
                } else if m.contains("destination") || m.contains("but itself") {
                    key("dsts")
                } else if m.contains("CDF") {
                    key("cdf")
                } else if m.contains("host") {
                    key("hosts")
                } else {
                    key("kind")
                };
                cx.err(&field, m)
            })
        }
        WorkloadKind::IncastBackground => {
            let duration = cx.required(&w.duration, &key("duration"), &why)?;
            let duration = cx.positive_time(&key("duration"), &duration)?;
            let shared;
            let w = match w.share {
                None => w,
                Some(share) => {
                    let main = main
                        .filter(|m| m.kind == Some(WorkloadKind::Poisson) && m.load.is_some())
                        .ok_or_else(|| {
                            cx.err(
                                &key("share"),
                                "a share of [workload]'s load needs [workload] kind = \
                                 \"poisson\" and this generator in [[workload.extra]]",
                            )
                        })?;
                    if w.load.is_some() || w.load_on.is_some() {
                        return Err(cx.err(
                            &key("share"),
                            "give share (of [workload]'s load) or load and load_on, not both",
                        ));
                    }
                    let share = cx.fraction(&key("share"), share, false)?;
                    shared = WorkloadSection {
                        load: main.load.map(|l| l * share),
                        load_on: main.load_on.clone(),
                        ..w.clone()
                    };
                    &shared
                }
            };
            let (hosts, host_rate, load) = hosts_rate_load(cx, sec, w, topo, &why)?;
            let degree = w.degree.unwrap_or(DEFAULT_INCAST_DEGREE);
            if degree == 0 || degree as usize >= hosts.len() {
                return Err(cx.err(
                    &key("degree"),
                    format!(
                        "{degree} senders per event; it must be from 1 to {} (one fewer than \
                         the {} hosts)",
                        hosts.len().saturating_sub(1),
                        hosts.len()
                    ),
                ));
            }
            let min_size = cx.positive_bytes(
                &key("min_size"),
                w.min_size.as_deref().unwrap_or(DEFAULT_INCAST_MIN_SIZE),
            )?;
            let max_size = cx.positive_bytes(
                &key("max_size"),
                w.max_size.as_deref().unwrap_or(DEFAULT_INCAST_MAX_SIZE),
            )?;
            if max_size < min_size {
                return Err(cx.err(
                    &key("max_size"),
                    format!("{max_size} B is below min_size ({min_size} B)"),
                ));
            }
            let spec = workload::IncastBackgroundSpec {
                hosts,
                degree,
                min_size,
                max_size,
                load,
                host_rate,
                start,
                duration,
                seed,
                pg,
                dport: w.dport.unwrap_or(DEFAULT_INCAST_DPORT),
            };
            workload::incast_background(&spec).map_err(|m| {
                let field = if m.starts_with(workload::TOO_MANY_FLOWS) {
                    "duration"
                } else if m.contains("host") {
                    "hosts"
                } else {
                    "kind"
                };
                cx.err(&key(field), m)
            })
        }
        WorkloadKind::Incast => {
            let receiver = cx.required(&w.receiver, &key("receiver"), &why)?;
            check_node(cx, &key("receiver"), topo, receiver)?;
            let senders = pick_senders(
                cx,
                (&key("senders"), &key("senders_count")),
                (&w.senders, w.senders_count),
                (receiver, "receiver"),
                topo,
                &why,
            )?;
            let size = cx.required(&w.size, &key("size"), &why)?;
            let size = cx.positive_bytes(&key("size"), &size)?;
            let flows = workload::incast(
                &senders,
                receiver,
                size,
                start,
                pg,
                w.dport.unwrap_or(DEFAULT_INCAST_DPORT),
            );
            if flows.is_empty() {
                return Err(cx.err(
                    &key("senders"),
                    "the incast has no sender besides the receiver",
                ));
            }
            if flows.len() < senders.len() {
                // A host sends no flow to itself: say so, or the user counts
                // one flow more than the run has.
                notes.push(
                    cx.err(
                        &key("senders"),
                        format!(
                            "lists the receiver {receiver}, which sends no flow to itself: \
                             the incast has {} flows",
                            flows.len()
                        ),
                    )
                    .to_string(),
                );
            }
            Ok(flows)
        }
        WorkloadKind::Bulk | WorkloadKind::Probes => {
            let hosts = cx.required(&w.hosts, &key("hosts"), &why)?;
            let dsts = cx.required(&w.dsts, &key("dsts"), &why)?;
            for (field, list) in [("hosts", &hosts), ("dsts", &dsts)] {
                if list.is_empty() {
                    return Err(cx.err(&key(field), "lists no host"));
                }
                for &n in list {
                    check_node(cx, &key(field), topo, n)?;
                }
            }
            let dport = w.dport.unwrap_or(DEFAULT_DPORT);
            let made = if kind == WorkloadKind::Bulk {
                // Bandwidth flows run until the stop time unless sized.
                let size = match w.size.as_deref() {
                    None | Some("endless") => workload::ENDLESS,
                    Some(v) => cx.positive_bytes(&key("size"), v)?,
                };
                let flows = w.flows.unwrap_or(1);
                if flows == 0 {
                    return Err(cx.err(&key("flows"), "must be at least 1"));
                }
                workload::bulk(&hosts, &dsts, flows, size, start, pg, dport)
            } else {
                let size = cx.required(&w.size, &key("size"), &why)?;
                let size = cx.positive_bytes(&key("size"), &size)?;
                let interval = cx.required(&w.interval, &key("interval"), &why)?;
                let interval = cx.positive_time(&key("interval"), &interval)?;
                let duration = cx.required(&w.duration, &key("duration"), &why)?;
                let duration = cx.positive_time(&key("duration"), &duration)?;
                workload::probes(
                    &hosts, &dsts, size, interval, start, duration, seed, pg, dport,
                )
            };
            made.map_err(|m| {
                let field = match kind {
                    _ if !m.starts_with(workload::TOO_MANY_FLOWS) => "dsts",
                    WorkloadKind::Bulk => "flows",
                    _ => "duration",
                };
                cx.err(&key(field), m)
            })
        }
        WorkloadKind::Rpc => {
            let server = cx.required(&w.server, &key("server"), &why)?;
            check_node(cx, &key("server"), topo, server)?;
            let clients = pick_senders(
                cx,
                (&key("clients"), &key("clients_count")),
                (&w.clients, w.clients_count),
                (server, "server"),
                topo,
                &why,
            )?;
            let qps = w.qps.unwrap_or(1);
            if qps == 0 {
                return Err(cx.err(&key("qps"), "must be at least 1 QP per client"));
            }
            let size = match w.size.as_deref() {
                None | Some("endless") => workload::ENDLESS,
                Some(v) => cx.positive_bytes(&key("size"), v)?,
            };
            let n = clients.iter().filter(|&&c| c != server).count();
            if n == 0 {
                return Err(cx.err(&key("clients"), "no client besides the server"));
            }
            if n * qps as usize > workload::MAX_FLOWS {
                return Err(cx.err(
                    &key("qps"),
                    format!(
                        "{}: {n} clients × {qps} QPs, at most {}",
                        workload::TOO_MANY_FLOWS,
                        workload::MAX_FLOWS
                    ),
                ));
            }
            let mut flows = workload::rpc_clients(
                &clients,
                server,
                qps,
                size,
                start,
                pg,
                w.dport.unwrap_or(DEFAULT_INCAST_DPORT),
            );
            if let Some(v) = &w.start_spread {
                let spread = cx.time(&key("start_spread"), v)?;
                workload::spread_starts(&mut flows, spread, seed);
            }
            Ok(flows)
        }
        WorkloadKind::File => {
            let rel = cx.required(&w.path, &key("path"), &why)?;
            let (text, name) = cx.read(&key("path"), &rel, "flow file")?;
            let starts = match w.start_times.as_deref() {
                None | Some("exact") => workload::StartTimes::Exact,
                Some("as_peer") => workload::StartTimes::AsPeer,
                Some(v) => {
                    return Err(cx.err(
                        &key("start_times"),
                        format!("unknown value \"{v}\"; expected \"exact\" or \"as_peer\""),
                    ))
                }
            };
            let (flows, lines) = workload::parse_peer_flows_reading(&text, &name, starts)?;
            let n = topo.n_nodes() as u32;
            workload::validate_endpoints(&flows, &lines, &name, n, &|x| topo.is_host(x))?;
            for (i, f) in flows.iter().enumerate() {
                if f.src == f.dst {
                    return Err(ExperimentError::Input(InputError::at(
                        name.as_str(),
                        lines.get(i).copied(),
                        "dst",
                        format!(
                            "src and dst are both host {}; a flow needs two hosts",
                            f.src
                        ),
                    )));
                }
            }
            workload::validate_classes(&flows, &lines, &name, net::wire::N_CLASSES)?;
            // Flows past the count are not run, as in the peer (`rdmasim
            // hpcc` warns the same way): lowering the count runs the first
            // flows, but a count left behind when flows were added drops
            // them unseen.
            notes.extend(unread_flows_warning(&text, &name, flows.len()));
            Ok(flows)
        }
    }
}

/// The hosts of a Poisson or incast-background generator (`hosts`,
/// default all), the rate its load is a fraction of (`host_rate`, default
/// the hosts' common link rate), and its per-host load: `load` itself, or
/// with `load_on = "core"` the per-host load that offers `load` on the
/// core links ([`topo::core_load_factor`]). No host is asked to send more
/// than its link carries.
fn hosts_rate_load(
    cx: &Ctx<'_>,
    sec: &str,
    w: &WorkloadSection,
    topo: &Topology,
    why: &str,
) -> R<(Vec<u32>, Rate, f64)> {
    let key = |k: &str| format!("{sec}.{k}");
    let load = cx.required(&w.load, &key("load"), why)?;
    let load = cx.fraction(&key("load"), load, false)?;
    let hosts = match &w.hosts {
        Some(h) => {
            for &n in h {
                check_node(cx, &key("hosts"), topo, n)?;
            }
            h.clone()
        }
        None => topo.hosts(),
    };
    let rates = host_rates(topo);
    let host_rate = match &w.host_rate {
        Some(r) => cx.rate(&key("host_rate"), r)?,
        None => {
            let mut it = hosts
                .iter()
                .filter_map(|&h| rates[h as usize].map(|r| (h, r)));
            let first = it.next();
            if let (Some((h0, r0)), Some((h1, r1))) =
                (first, it.find(|&(_, r)| Some(r) != first.map(|f| f.1)))
            {
                return Err(cx.err(
                    &key("hosts"),
                    format!(
                        "host {h0}'s link runs at {r0} but host {h1}'s at {r1}; set \
                         {sec}.host_rate to the rate the load is a fraction of"
                    ),
                ));
            }
            first.map(|f| f.1).unwrap_or(Rate::gbps(100))
        }
    };
    let load = match w.load_on.as_deref() {
        None | Some("hosts") => load,
        Some("core") => {
            let f = topo::core_load_factor(topo, &hosts, host_rate)
                .map_err(|m| cx.err(&key("load_on"), m))?;
            let per_host = load * f;
            if per_host > 1.0 {
                return Err(cx.err(
                    &key("load"),
                    format!(
                        "{load} of the core links is {per_host:.3} of each host's {host_rate}, \
                         more than its link carries; lower the load"
                    ),
                ));
            }
            per_host
        }
        Some(v) => {
            return Err(cx.err(
                &key("load_on"),
                format!("unknown value \"{v}\"; expected \"hosts\" or \"core\""),
            ))
        }
    };
    if w.host_rate.is_some() {
        // As `load` ≤ 1 says for the hosts' own links: no host is asked to
        // send more than its link carries.
        let offered = load * host_rate.bps() as f64;
        let slowest = hosts
            .iter()
            .filter_map(|&h| rates[h as usize].map(|l| (h, l)))
            .min_by_key(|&(_, l)| l.bps());
        if let Some((h, link)) = slowest.filter(|&(_, l)| offered > l.bps() as f64) {
            return Err(cx.err(
                &key("host_rate"),
                format!(
                    "load {load} of {host_rate} is more than host {h}'s link carries \
                     ({link}); lower the load or the host_rate"
                ),
            ));
        }
    }
    Ok((hosts, host_rate, load))
}

/// The lines of a peer flow file after the `count` flows its header
/// announces: the peer reads only that many, and so does rdmasim, so a
/// count left behind when flows were added would silently drop them. A
/// warning, not an error: running the first flows of a file by lowering the
/// count is a use the peer allows. Lines are counted as the flow parser
/// counts them (blank lines and `#` comments skipped). Also said of a TOML
/// config's `[workload] kind = "file"`, which reads the same format.
pub(crate) fn unread_flows_warning(text: &str, file: &str, count: usize) -> Option<String> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
    let (header, _) = lines.next()?;
    let mut rest = lines.skip(count);
    let (first, _) = rest.next()?;
    let more = rest.count();
    let lines = if more == 0 {
        format!("line {first} follows them")
    } else {
        format!("{} lines follow them (from line {first})", more + 1)
    };
    Some(format!(
        "{file}:{header}: flow_count: the header says {count} flow{}, but {lines} and \
         {} not read, as the peer reads only the number of flows the header gives",
        if count == 1 { "" } else { "s" },
        if more == 0 { "is" } else { "are" }
    ))
}

/// The senders of an incast or the clients of RPCs: a list (`list_key`)
/// or a count (`count_key`) of the lowest host ids but `receiver` (called
/// `role` in messages).
fn pick_senders(
    cx: &Ctx<'_>,
    (list_key, count_key): (&str, &str),
    (list, count): (&Option<Vec<u32>>, Option<u32>),
    (receiver, role): (u32, &str),
    topo: &Topology,
    why: &str,
) -> R<Vec<u32>> {
    let name = |k: &str| k.rsplit('.').next().unwrap_or(k).to_string();
    let (l, c) = (name(list_key), name(count_key));
    match (list, count) {
        (Some(_), Some(_)) => Err(cx.err(count_key, format!("give {l} or {c}, not both"))),
        (None, None) => Err(cx.err(
            list_key,
            format!("missing; {why} needs {l} (a list) or {c}"),
        )),
        (Some(list), None) => {
            for &n in list {
                check_node(cx, list_key, topo, n)?;
            }
            Ok(list.clone())
        }
        (None, Some(n)) => {
            let pool: Vec<u32> = topo
                .hosts()
                .into_iter()
                .filter(|&h| h != receiver)
                .collect();
            if n as usize > pool.len() {
                return Err(cx.err(
                    count_key,
                    format!(
                        "{n} {l} asked for, but only {} hosts besides the {role}",
                        pool.len()
                    ),
                ));
            }
            Ok(pool[..n as usize].to_vec())
        }
    }
}
