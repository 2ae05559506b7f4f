//! `[topology]`: the shapes a network can take, and building the one a
//! config asks for.

use super::ctx::{set_keys, Ctx, R};
use engine::{Delta, Rate};
use serde::Deserialize;
use topo::{ClosSpec, Topology};

/// Default link rate of generated topologies (the peer's hosts run at
/// 100 Gb/s, HPCC sim's `mix/fat.txt`).
pub const DEFAULT_LINK_RATE: &str = "100Gbps";

/// Default link delay of generated topologies (the peer's fat tree: 1 µs).
pub const DEFAULT_LINK_DELAY: &str = "1us";

/// Default pods of `flowsail_fat_tree`: 8, the paper's 1024 hosts
/// (FlowSail §VI-B).
pub(super) const DEFAULT_FLOWSAIL_PODS: u32 = 8;

/// Default oversubscription of `flowsail_fat_tree`: 2:1 at the ToR
/// (FlowSail §VI-B).
pub(super) const DEFAULT_FLOWSAIL_OVERSUBSCRIPTION: u32 = 2;

/// Default `pod_hosts` of `kind = "pods"`: the Bifröst paper's clusters
/// A (10 hosts) and B (90), its pods 1 and 2 (Bifröst §4.1, §4.3).
pub(super) const DEFAULT_POD_HOSTS: [u32; 2] = [10, 90];

/// Default hosts per ToR of `kind = "pods"` (the paper gives none:
/// rdmasim's choice).
pub(super) const DEFAULT_POD_HOSTS_PER_TOR: u32 = 10;

/// Default Leaves per pod of `kind = "pods"` (rdmasim's choice).
pub(super) const DEFAULT_POD_LEAVES: u32 = 4;

/// Default Spines of `kind = "pods"` (rdmasim's choice).
pub(super) const DEFAULT_POD_SPINES: u32 = 4;

/// Default host rate of `kind = "pods"`: a dual-port 25 Gb/s NIC's two
/// ports as one bonded 50 Gb/s port (Bifröst Table 4; docs/pfc-free.md,
/// Simplifications).
pub(super) const DEFAULT_POD_HOST_RATE: &str = "50Gbps";

/// The shapes `[topology]` can take.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TopologyKind {
    /// k-ary fat tree.
    FatTree,
    /// Three-tier Clos (pods, ToRs, aggs, cores).
    Clos,
    /// The peer's reference fat tree (320 hosts).
    PeerFatTree,
    /// FlowSail's three-layer fat tree (1024 hosts, 2:1 at the ToR) or a
    /// scaled copy of the same shape ([`topo::flowsail_fat_tree`]).
    FlowsailFatTree,
    /// Two-tier leaf–spine.
    LeafSpine,
    /// Pods of different sizes (ToRs and Leaves) under one Spine tier
    /// ([`topo::pods`]); the defaults are the Bifröst paper's clusters A
    /// and B (§4.3).
    Pods,
    /// Hosts on one switch.
    Star,
    /// Two switches and a bottleneck.
    Dumbbell,
    /// Datacenters (k-ary fat trees, each with a DCI switch on every core)
    /// joined by long-haul links ([`topo::crossdc`]); the defaults are the
    /// Swing/Bifrost setup.
    CrossDc,
    /// An Azure-style region: fat-tree datacenters (T0, T1, T2) whose T2
    /// switches all reach every regional hub over long links
    /// ([`topo::region`]).
    Region,
    /// Nodes and links listed in the config: `hosts` hosts (ids 0..),
    /// `switches` switches (the ids after them), `links`. Parallel links
    /// between two switches are allowed (ECMP spreads flows over them).
    Links,
    /// A peer topology file.
    File,
}

/// One link of a `kind = "links"` topology.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkEntry {
    /// One end (node id).
    pub a: u32,
    /// The other end.
    pub b: u32,
    /// Rate; default 100Gbps.
    pub rate: Option<String>,
    /// One-way delay, a duration or a fibre length (5 us/km); default 1us.
    pub delay: Option<String>,
}

impl TopologyKind {
    fn name(self) -> &'static str {
        match self {
            TopologyKind::FatTree => "fat_tree",
            TopologyKind::Clos => "clos",
            TopologyKind::PeerFatTree => "peer_fat_tree",
            TopologyKind::FlowsailFatTree => "flowsail_fat_tree",
            TopologyKind::LeafSpine => "leaf_spine",
            TopologyKind::Pods => "pods",
            TopologyKind::Star => "star",
            TopologyKind::Dumbbell => "dumbbell",
            TopologyKind::CrossDc => "cross_dc",
            TopologyKind::Region => "region",
            TopologyKind::Links => "links",
            TopologyKind::File => "file",
        }
    }
    /// The keys this kind takes besides `kind` and `error_rate_per_link`.
    fn keys(self) -> &'static [&'static str] {
        match self {
            TopologyKind::FatTree => &["k", "host_rate", "fabric_rate", "delay"],
            TopologyKind::Clos => &[
                "pods",
                "tors_per_pod",
                "aggs_per_pod",
                "hosts_per_tor",
                "cores",
                "host_rate",
                "fabric_rate",
                "delay",
            ],
            TopologyKind::PeerFatTree => &[],
            TopologyKind::FlowsailFatTree => &[
                "pods",
                "oversubscription",
                "host_rate",
                "fabric_rate",
                "delay",
            ],
            TopologyKind::LeafSpine => &[
                "leaves",
                "spines",
                "hosts_per_leaf",
                "host_rate",
                "oversubscription",
                "delay",
            ],
            TopologyKind::Pods => &[
                "pod_hosts",
                "hosts_per_tor",
                "leaves_per_pod",
                "spines",
                "host_rate",
                "fabric_rate",
                "delay",
            ],
            TopologyKind::Star => &["hosts", "rate", "delay"],
            TopologyKind::Dumbbell => &["left", "right", "host_rate", "bottleneck_rate", "delay"],
            TopologyKind::CrossDc => &[
                "dcs",
                "k",
                "hosts_per_tor",
                "host_rate",
                "fabric_rate",
                "delay",
                "long_links",
                "long_rate",
                "long_length",
                "long_delay",
                "relays",
            ],
            TopologyKind::Region => &[
                "dcs",
                "k",
                "hosts_per_tor",
                "hubs",
                "host_rate",
                "fabric_rate",
                "delay",
                "long_rate",
                "long_length",
                "long_delay",
            ],
            TopologyKind::Links => &["hosts", "switches", "links"],
            TopologyKind::File => &["path"],
        }
    }
}

/// `[topology]`: `kind` and that kind's keys (see [`TopologyKind`]).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopologySection {
    /// Which shape.
    pub kind: Option<TopologyKind>,
    /// fat_tree: k (even).
    pub k: Option<u32>,
    /// clos, flowsail_fat_tree: pods.
    pub pods: Option<u32>,
    /// clos: ToRs per pod.
    pub tors_per_pod: Option<u32>,
    /// clos: aggregation switches per pod.
    pub aggs_per_pod: Option<u32>,
    /// clos: hosts per ToR.
    pub hosts_per_tor: Option<u32>,
    /// clos: core switches.
    pub cores: Option<u32>,
    /// leaf_spine: leaves.
    pub leaves: Option<u32>,
    /// leaf_spine, pods: spines.
    pub spines: Option<u32>,
    /// pods: hosts of each pod.
    pub pod_hosts: Option<Vec<u32>>,
    /// pods: Leaf switches per pod.
    pub leaves_per_pod: Option<u32>,
    /// leaf_spine: hosts per leaf.
    pub hosts_per_leaf: Option<u32>,
    /// leaf_spine: host bandwidth over uplink bandwidth per leaf;
    /// flowsail_fat_tree: hosts per ToR over its uplinks, a whole number.
    pub oversubscription: Option<f64>,
    /// star, links: hosts.
    pub hosts: Option<u32>,
    /// links: switches (numbered after the hosts).
    pub switches: Option<u32>,
    /// links: the links, `{ a, b, rate, delay }` each.
    pub links: Option<Vec<LinkEntry>>,
    /// star: link rate.
    pub rate: Option<String>,
    /// dumbbell: hosts on the left switch.
    pub left: Option<u32>,
    /// dumbbell: hosts on the right switch.
    pub right: Option<u32>,
    /// dumbbell: rate of the switch–switch link.
    pub bottleneck_rate: Option<String>,
    /// cross_dc: number of datacenters; default 2.
    pub dcs: Option<u32>,
    /// cross_dc: parallel long links between each pair of DCI switches;
    /// default 1.
    pub long_links: Option<u32>,
    /// cross_dc: rate of each long link; default 400 Gb/s.
    pub long_rate: Option<String>,
    /// cross_dc: fibre length of each long link (5 µs/km); default 80 km.
    pub long_length: Option<String>,
    /// cross_dc: or its one-way delay.
    pub long_delay: Option<String>,
    /// cross_dc: a Swing PFC relay at each end of every long link; default
    /// false.
    pub relays: Option<bool>,
    /// region: regional hubs; default 2.
    pub hubs: Option<u32>,
    /// Host link rate.
    pub host_rate: Option<String>,
    /// Switch–switch link rate.
    pub fabric_rate: Option<String>,
    /// Link delay, as a duration or a fibre length (5 µs/km).
    pub delay: Option<String>,
    /// file: the peer topology file, relative to the config's directory.
    pub path: Option<String>,
    /// Packet error rate on links whose own error rate is 0 (the peer's
    /// `ERROR_RATE_PER_LINK`).
    pub error_rate_per_link: Option<f64>,
    /// Order of each switch's equal-cost next hops, among which ECMP picks
    /// by index (docs/model.md, "ECMP next-hop order").
    pub next_hop_order: Option<NextHopOrderKey>,
}

/// `next_hop_order`'s values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NextHopOrderKey {
    /// By ascending port (rdmasim's default).
    Ascending,
    /// By descending port, as the peer's tables are on its fat tree.
    Descending,
}

impl From<NextHopOrderKey> for topo::NextHopOrder {
    fn from(k: NextHopOrderKey) -> Self {
        match k {
            NextHopOrderKey::Ascending => topo::NextHopOrder::Ascending,
            NextHopOrderKey::Descending => topo::NextHopOrder::Descending,
        }
    }
}

/// The one-way delay of a long link: `long_length` (a fibre length) or
/// `long_delay`, not both; `default` if neither.
fn long_delay(cx: &Ctx<'_>, t: &TopologySection, default: Delta) -> R<Delta> {
    Ok(match (&t.long_length, &t.long_delay) {
        (Some(_), Some(_)) => {
            return Err(cx.err(
                "topology.long_delay",
                "give the long link's long_length or its long_delay, not both",
            ))
        }
        (Some(v), None) => {
            let path = "topology.long_length";
            let v = v.trim();
            if !(v.ends_with("km") || v.ends_with('m')) {
                return Err(cx.err(
                    path,
                    format!(
                        "'{v}' is not a length; write it in km or m, e.g. \"80km\" \
                         (5 us/km), or give a one-way delay as long_delay"
                    ),
                ));
            }
            cx.delay(path, v)?
        }
        (None, Some(v)) => cx.delay("topology.long_delay", v)?,
        (None, None) => default,
    })
}

pub(super) fn build_topology(
    cx: &Ctx<'_>,
    t: &TopologySection,
) -> R<(Topology, Option<topo::CrossDcLayout>)> {
    let kind = cx.required(&t.kind, "topology.kind", "[topology]")?;
    let set = set_keys!(t; k, pods, tors_per_pod, aggs_per_pod, hosts_per_tor, cores, leaves,
        spines, hosts_per_leaf, oversubscription, hosts, rate, left, right, bottleneck_rate,
        host_rate, fabric_rate, delay, path, dcs, long_links, long_rate, long_length, long_delay,
        relays, switches, links, hubs, pod_hosts, leaves_per_pod);
    cx.only_keys("topology", kind.name(), &set, kind.keys())?;
    let why = format!("kind = \"{}\"", kind.name());
    let rate = |key: &str, v: &Option<String>, default: &str| -> R<Rate> {
        cx.rate(&format!("topology.{key}"), v.as_deref().unwrap_or(default))
    };
    let delay = || {
        cx.delay(
            "topology.delay",
            t.delay.as_deref().unwrap_or(DEFAULT_LINK_DELAY),
        )
    };
    let count = |key: &str, v: &Option<u32>| -> R<u32> {
        let path = format!("topology.{key}");
        let n = cx.required(v, &path, &why)?;
        if n == 0 {
            return Err(cx.err(&path, "must be at least 1"));
        }
        Ok(n)
    };
    let mut layout = None;
    let built: Result<Topology, String> = match kind {
        TopologyKind::FatTree => {
            let host = rate("host_rate", &t.host_rate, DEFAULT_LINK_RATE)?;
            let fabric = match &t.fabric_rate {
                Some(v) => cx.rate("topology.fabric_rate", v)?,
                None => host,
            };
            // k's rule (even, at least 2) is the builder's alone: one
            // message for 0 and 1 alike.
            let k = cx.required(&t.k, "topology.k", &why)?;
            topo::fat_tree(k, host, fabric, delay()?)
        }
        TopologyKind::Clos => {
            let p = ClosSpec::PEER;
            let or = |v: &Option<u32>, d: u32, key: &str| -> R<u32> {
                match v {
                    Some(_) => count(key, v),
                    None => Ok(d),
                }
            };
            topo::clos(ClosSpec {
                pods: or(&t.pods, p.pods, "pods")?,
                tors_per_pod: or(&t.tors_per_pod, p.tors_per_pod, "tors_per_pod")?,
                aggs_per_pod: or(&t.aggs_per_pod, p.aggs_per_pod, "aggs_per_pod")?,
                hosts_per_tor: or(&t.hosts_per_tor, p.hosts_per_tor, "hosts_per_tor")?,
                cores: or(&t.cores, p.cores, "cores")?,
                host_rate: match &t.host_rate {
                    Some(v) => cx.rate("topology.host_rate", v)?,
                    None => p.host_rate,
                },
                fabric_rate: match &t.fabric_rate {
                    Some(v) => cx.rate("topology.fabric_rate", v)?,
                    None => p.fabric_rate,
                },
                delay: match &t.delay {
                    Some(v) => cx.delay("topology.delay", v)?,
                    None => p.delay,
                },
            })
        }
        TopologyKind::PeerFatTree => Ok(topo::peer_fat_tree()),
        TopologyKind::FlowsailFatTree => {
            let over = match t.oversubscription {
                None => DEFAULT_FLOWSAIL_OVERSUBSCRIPTION,
                Some(o) if o.is_finite() && o >= 1.0 && o.fract() == 0.0 && o <= 1024.0 => o as u32,
                Some(o) => {
                    return Err(cx.err(
                        "topology.oversubscription",
                        format!(
                            "{o} is not a whole number from 1 to 1024: each ToR has \
                             oversubscription x pods hosts"
                        ),
                    ))
                }
            };
            let host = rate("host_rate", &t.host_rate, DEFAULT_LINK_RATE)?;
            let fabric = match &t.fabric_rate {
                Some(v) => cx.rate("topology.fabric_rate", v)?,
                None => host,
            };
            let pods = match &t.pods {
                Some(_) => count("pods", &t.pods)?,
                None => DEFAULT_FLOWSAIL_PODS,
            };
            topo::flowsail_fat_tree(pods, over, host, fabric, delay()?)
        }
        TopologyKind::LeafSpine => topo::leaf_spine(
            count("leaves", &t.leaves)?,
            count("spines", &t.spines)?,
            count("hosts_per_leaf", &t.hosts_per_leaf)?,
            rate("host_rate", &t.host_rate, DEFAULT_LINK_RATE)?,
            t.oversubscription.unwrap_or(1.0),
            delay()?,
        ),
        TopologyKind::Pods => {
            let or = |v: &Option<u32>, d: u32, key: &str| -> R<u32> {
                match v {
                    Some(_) => count(key, v),
                    None => Ok(d),
                }
            };
            topo::pods(&topo::PodsSpec {
                pod_hosts: t
                    .pod_hosts
                    .clone()
                    .unwrap_or_else(|| DEFAULT_POD_HOSTS.to_vec()),
                hosts_per_tor: or(&t.hosts_per_tor, DEFAULT_POD_HOSTS_PER_TOR, "hosts_per_tor")?,
                leaves_per_pod: or(&t.leaves_per_pod, DEFAULT_POD_LEAVES, "leaves_per_pod")?,
                spines: or(&t.spines, DEFAULT_POD_SPINES, "spines")?,
                host_rate: rate("host_rate", &t.host_rate, DEFAULT_POD_HOST_RATE)?,
                fabric_rate: rate("fabric_rate", &t.fabric_rate, DEFAULT_LINK_RATE)?,
                delay: delay()?,
            })
        }
        TopologyKind::Star => topo::star(
            count("hosts", &t.hosts)?,
            rate("rate", &t.rate, DEFAULT_LINK_RATE)?,
            delay()?,
        ),
        TopologyKind::Dumbbell => {
            let host = rate("host_rate", &t.host_rate, DEFAULT_LINK_RATE)?;
            let bottleneck = match &t.bottleneck_rate {
                Some(v) => cx.rate("topology.bottleneck_rate", v)?,
                None => host,
            };
            topo::dumbbell(
                count("left", &t.left)?,
                count("right", &t.right)?,
                host,
                bottleneck,
                delay()?,
            )
        }
        TopologyKind::CrossDc => {
            // Every key defaults to the Swing/Bifrost setup (Swing §6.1).
            let d = topo::CrossDcSpec::SWING;
            let or = |v: &Option<u32>, d: u32, key: &str| -> R<u32> {
                match v {
                    Some(_) => count(key, v),
                    None => Ok(d),
                }
            };
            let host_rate = match &t.host_rate {
                Some(v) => cx.rate("topology.host_rate", v)?,
                None => d.host_rate,
            };
            let long_delay = long_delay(cx, t, d.long_delay)?;
            topo::CrossDcSpec {
                // The layout's own rules for these (at least 2 DCs; k
                // even, at least 2): one message for 0 and 1 alike.
                dcs: t.dcs.unwrap_or(d.dcs),
                k: t.k.unwrap_or(d.k),
                hosts_per_tor: or(&t.hosts_per_tor, d.hosts_per_tor, "hosts_per_tor")?,
                host_rate,
                fabric_rate: match &t.fabric_rate {
                    Some(v) => cx.rate("topology.fabric_rate", v)?,
                    None => host_rate,
                },
                delay: match &t.delay {
                    Some(v) => cx.delay("topology.delay", v)?,
                    None => d.delay,
                },
                long_links: or(&t.long_links, d.long_links, "long_links")?,
                long_rate: match &t.long_rate {
                    Some(v) => cx.rate("topology.long_rate", v)?,
                    None => d.long_rate,
                },
                long_delay,
                relays: t.relays.unwrap_or(false),
            }
            .layout()
            .map(|l| {
                layout = Some(l);
                l.build()
            })
        }
        TopologyKind::Region => {
            let host_rate = rate("host_rate", &t.host_rate, DEFAULT_LINK_RATE)?;
            let fabric_rate = match &t.fabric_rate {
                Some(v) => cx.rate("topology.fabric_rate", v)?,
                None => host_rate,
            };
            let or = |v: &Option<u32>, d: u32, key: &str| -> R<u32> {
                match v {
                    Some(_) => count(key, v),
                    None => Ok(d),
                }
            };
            topo::region(topo::RegionSpec {
                dcs: or(&t.dcs, 2, "dcs")?,
                // k's rule (even, at least 2) is the builder's.
                k: t.k.unwrap_or(4),
                hosts_per_tor: or(&t.hosts_per_tor, 2, "hosts_per_tor")?,
                hubs: or(&t.hubs, 2, "hubs")?,
                host_rate,
                fabric_rate,
                delay: delay()?,
                long_rate: match &t.long_rate {
                    Some(v) => cx.rate("topology.long_rate", v)?,
                    None => fabric_rate,
                },
                // Azure §1.2: T2-RH links of up to 80 km.
                long_delay: long_delay(cx, t, Delta::from_us(400))?,
            })
        }
        TopologyKind::Links => return build_link_list(cx, t, &why).map(|topo| (topo, None)),
        TopologyKind::File => {
            let rel = cx.required(&t.path, "topology.path", &why)?;
            let (text, name) = cx.read("topology.path", &rel, "topology file")?;
            return Ok((topo::parse_peer_topology(&text, &name)?, None));
        }
    };
    // A built topology is valid by construction except for its size
    // (`Topology::validate`'s limits); its errors go where the builder's do.
    let built = built.and_then(|topo| match topo.validate(cx.file, None) {
        Ok(()) => Ok(topo),
        Err(e) => Err(e.msg),
    });
    let topo = built.map_err(|msg| {
        // Point at the key the builder complains about, if it names one:
        // the first one it says to lower, else the first one it names.
        let msg = msg
            .split_once(": ")
            .map(|(_, m)| m.to_string())
            .unwrap_or(msg);
        let words = |m: &str| {
            m.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        let lowered = msg
            .split_once("lower ")
            .and_then(|(_, rest)| words(rest).into_iter().next());
        let key = kind
            .keys()
            .iter()
            .find(|k| lowered.as_deref() == Some(**k))
            .or_else(|| {
                kind.keys()
                    .iter()
                    .find(|k| words(&msg).iter().any(|w| w == **k))
            });
        let path = match key {
            Some(k) => format!("topology.{k}"),
            None => "topology.kind".to_string(),
        };
        cx.err(&path, msg)
    })?;
    Ok((topo, layout))
}

/// A `kind = "links"` topology: every error names `topology.links[i].<field>`.
fn build_link_list(cx: &Ctx<'_>, t: &TopologySection, why: &str) -> R<Topology> {
    let hosts = cx.required(&t.hosts, "topology.hosts", why)?;
    let switches = cx.required(&t.switches, "topology.switches", why)?;
    let entries = cx.required(&t.links, "topology.links", why)?;
    let n = hosts + switches;
    let mut kinds = vec![topo::NodeKind::Host; hosts as usize];
    kinds.resize(n as usize, topo::NodeKind::Switch);
    let mut links = Vec::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        let at = |f: &str| format!("topology.links[{i}].{f}");
        for (f, x) in [("a", e.a), ("b", e.b)] {
            if x >= n {
                return Err(cx.err(
                    &at(f),
                    format!(
                        "node {x} does not exist ({hosts} hosts and {switches} switches: 0-{})",
                        n.saturating_sub(1)
                    ),
                ));
            }
        }
        let rate = cx.rate(&at("rate"), e.rate.as_deref().unwrap_or(DEFAULT_LINK_RATE))?;
        let delay = cx.delay(
            &at("delay"),
            e.delay.as_deref().unwrap_or(DEFAULT_LINK_DELAY),
        )?;
        links.push(topo::LinkSpec::new(e.a, e.b, rate, delay));
    }
    let topo = Topology { kinds, links };
    topo.validate(cx.file, None).map_err(|e| {
        let field = match e.field.strip_prefix("link ") {
            Some(i) => format!("topology.links[{i}]"),
            None => format!("topology.{}", e.field),
        };
        cx.err(&field, e.msg)
    })?;
    Ok(topo)
}
