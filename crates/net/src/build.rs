//! Building a network: ports numbered per node in link order, flow
//! control and egress per port, switch buffers and routes, NICs, the
//! peer's ideal FCTs and base RTTs, and the first events.

use crate::config::{NetConfig, PfcMode};
use crate::context::Ctx;
use crate::egress::EgressChoice;
use crate::egress::{AnyEgress, BfcEgress, FlowSailEgress};
use crate::event::Event;
use crate::fc::{
    AnyFc, Bifrost, Cbfc, FlowControl, FlowPauseCounts, IdealPerFlow, Lossy, Pfc, PfcStorm,
    PfcWatchdog, SwingRelay,
};
use crate::fifo::Fifo;
use crate::mmu::Mmu;
use crate::port::{CacheLine, Port, PortCounters};
use crate::qp::Nic;
use crate::sim::Simulation;
use crate::switch::Switch;
use crate::wire::Packet;
use engine::{EventQueue, Rate, Rng, Time};
use topo::{NodeKind, Topology};
use workload::FlowSpec;

/// The payload of the largest Ethernet jumbo frame in common use (9,000 B
/// MTU; RoCEv2 itself stops at 4,096 B). A larger `mtu` is allowed, with
/// a note.
pub(crate) const JUMBO_PAYLOAD_BYTES: u32 = 9000;

/// RNG stream kinds, so each entity's stream is distinct (`engine::rng`).
pub(crate) const RNG_PORT: u32 = 10;
/// The RNG stream kind of a BFC or FlowSail egress's queue mapping.
pub(crate) const RNG_EGRESS: u32 = 11;

/// Compute every switch's next-hop table from `routes` (route.rs) and
/// return how to index them per destination node. `link_map` maps the link
/// indices `routes` uses to `topo`'s when the routes were computed on a
/// subset of the links.
pub(crate) fn install_routes(
    switches: &mut [Switch],
    node_switch: &[u32],
    topo: &Topology,
    routes: &topo::Routes,
    link_map: Option<&[u32]>,
    link_port: &[[u32; 2]],
    hosts: &[u32],
) -> Vec<crate::route::DstRoute> {
    let mut sw_nodes = vec![(0, 0); switches.len()];
    for (node, &s) in node_switch.iter().enumerate() {
        if s != u32::MAX {
            sw_nodes[s as usize] = (node as u32, switches[s as usize].first_port);
        }
    }
    let t = crate::route::route_tables(topo, routes, link_map, link_port, &sw_nodes, hosts);
    for (sw, (flat, rows)) in switches.iter_mut().zip(t.per_switch) {
        sw.routes = flat;
        sw.route_rows = rows;
    }
    t.dst
}

/// Why a network cannot be built.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// A flow names a node that does not exist or is not a host.
    #[error("flow {flow}: {msg}")]
    BadFlow {
        /// Flow id.
        flow: u32,
        /// What is wrong.
        msg: String,
    },
    /// A link failure names two nodes that share no link.
    #[error("link failure between nodes {0} and {1}: there is no such link")]
    NoSuchLink(u32, u32),
    /// A per-port rule that cannot apply.
    #[error("port rule for link {link}: {msg}")]
    BadPortRule {
        /// Link index of the rule.
        link: u32,
        /// What is wrong.
        msg: String,
    },
    /// A PFC storm is injected on a port that does not exist.
    #[error("PFC storm from node {0} to node {1}: the two share no link")]
    NoStormLink(u32, u32),
    /// Flows are not sorted by start time.
    #[error("flows must be sorted by start time (flow {0} starts before its predecessor)")]
    Unsorted(u32),
}

/// Switch `node`'s SONiC MMU, if `setup` lists it: its ports are
/// `first..first + count`, `node_ports[node]` their links. The peer's
/// per-port buffer settings (`xoff`, `headroom`, `alpha_shift`) have no
/// meaning there, and are an error.
fn sonic_mmu(
    setup: &crate::sonic_buffer::setup::SonicSetup,
    node: usize,
    first: u32,
    count: u32,
    port_set: &[crate::config::PortSettings],
    node_ports: &[Vec<(u32, usize)>],
) -> Result<Option<Box<crate::sonic_buffer::SonicMmu>>, BuildError> {
    let link = |local: usize| node_ports[node].get(local).map_or(0, |&(l, _)| l);
    let mmu = setup
        .mmu_for(node as u32, count as usize)
        .map_err(|msg| BuildError::BadPortRule { link: link(0), msg })?;
    if mmu.is_some() {
        for local in 0..count as usize {
            let set = &port_set[first as usize + local];
            if set.xoff.is_some() || set.headroom.is_some() || set.alpha_shift.is_some() {
                return Err(BuildError::BadPortRule {
                    link: link(local),
                    msg: format!(
                        "xoff, headroom and alpha_shift set the peer's MMU; switch {node} uses \
                         SONiC's buffer model, whose pools and profiles set them"
                    ),
                });
            }
        }
    }
    Ok(mmu.map(Box::new))
}

/// A port's flow control with what the config adds around it: the PFC
/// storm watchdog, if on for its kind of node and it runs PFC (Azure
/// §3.1), and a storm it sends, if one is injected on it. Ports with
/// neither are returned as they are.
fn watch_and_storm(
    fc: AnyFc,
    cfg: &NetConfig,
    is_host: bool,
    node: u32,
    l: &topo::LinkSpec,
    end: usize,
) -> Result<AnyFc, String> {
    let mut fc = fc;
    if let Some(w) = &cfg.pfc.watchdog {
        let pfc = match &fc {
            AnyFc::Pfc(_) => true,
            AnyFc::Swing(s) => matches!(s.inner(), AnyFc::Pfc(_)),
            _ => false,
        };
        if pfc && (if is_host { w.hosts } else { w.switches }) {
            fc = AnyFc::Watchdog(Box::new(PfcWatchdog::new(fc, *w, is_host)));
        }
    }
    let peer = if end == 0 { l.b } else { l.a };
    for s in cfg
        .pfc_storms
        .iter()
        .filter(|s| (s.node, s.peer) == (node, peer))
    {
        let quanta = match cfg.pfc.mode {
            PfcMode::Quanta { quanta, .. } => quanta,
            PfcMode::UntilResume => u16::MAX,
        };
        if usize::from(s.class) >= crate::wire::N_CLASSES || s.class == 0 {
            return Err(format!(
                "a PFC storm pauses a class from 1 to {}, not {}",
                crate::wire::N_CLASSES - 1,
                s.class
            ));
        }
        fc = AnyFc::Storm(Box::new(PfcStorm::new(fc, s, quanta)));
    }
    Ok(fc)
}

/// The largest base RTT (ns) and BDP (bytes) over every ordered pair of
/// hosts that can reach each other, each pair's as `Routes::path` gives it
/// (the path that always takes a node's first next hop), from each link's
/// `(delay ns, serialisation ns, rate bps)` in `link_terms`: RTT = 2 ×
/// delay + serialisation, BDP = RTT × the path's bottleneck rate.
///
/// Without a path per pair: the path from a node to a host `d` is its first
/// next hop and then the path from the next node, so one pass per
/// destination fills (delay, serialisation, bottleneck) for every node it
/// reaches. And not one pass per host, nor one source per host: where every
/// host hangs from a switch, the path from `s` to `d` is `s`'s link, then a
/// path between their switches that depends only on their groups
/// ([`topo::Routes::group`]), then `d`'s link. Hosts of one group whose
/// links have the same terms are one class, and any two hosts of two
/// classes (two distinct hosts of one) give the same pair of values, so the
/// maxima are taken over classes: on a fat tree of k = 34 that is 578
/// classes instead of 9,826 hosts, and 578² pairs instead of 10^8.
fn max_rtt_and_bdp(
    topo: &Topology,
    routes: &topo::Routes,
    hosts: &[u32],
    link_terms: impl Fn(u32) -> (u64, u64, u64),
) -> (u64, u64) {
    // Classes, as (a host of it, another if it has one), in host order.
    let by_switch = hosts.iter().all(|&h| {
        routes
            .group(h)
            .is_none_or(|g| topo.is_switch(routes.group_node(g)))
    });
    let mut classes: Vec<(u32, Option<u32>)> = Vec::new();
    let mut class_of = std::collections::HashMap::new();
    for &h in hosts {
        let key = match (by_switch, routes.group(h), routes.host_link(h)) {
            (true, Some(g), Some(l)) => Some((g, link_terms(l))),
            _ => None,
        };
        match key.and_then(|k| class_of.get(&k).copied()) {
            Some(c) => {
                let c: &mut (u32, Option<u32>) = &mut classes[c];
                c.1 = c.1.or(Some(h));
            }
            None => {
                if let Some(k) = key {
                    class_of.insert(k, classes.len());
                }
                classes.push((h, None));
            }
        }
    }
    let mut max_rtt = 0u64;
    let mut max_bdp = 0u64;
    let mut memo: Vec<Option<(u64, u64, u64)>> = vec![None; topo.kinds.len()];
    let mut filled: Vec<u32> = Vec::new();
    let mut chain: Vec<(u32, u32)> = Vec::new();
    for (di, &(d, _)) in classes.iter().enumerate() {
        for &u in &filled {
            memo[u as usize] = None;
        }
        filled.clear();
        memo[d as usize] = Some((0, 0, u64::MAX));
        filled.push(d);
        for (si, &(s0, s1)) in classes.iter().enumerate() {
            // A pair within one class needs two hosts of it.
            let s = if si == di {
                match s1 {
                    Some(s) => s,
                    None => continue,
                }
            } else {
                s0
            };
            if routes.distance(s, d).is_none() {
                continue;
            }
            chain.clear();
            let mut at = s;
            while memo[at as usize].is_none() {
                let li = routes.next_hops(at, d)[0];
                chain.push((at, li));
                at = topo.links[li as usize].other(at);
            }
            let mut v = memo[at as usize].expect("reached a filled node");
            for &(u, li) in chain.iter().rev() {
                let (dl, tx, r) = link_terms(li);
                v = (v.0 + dl, v.1 + tx, v.2.min(r));
                memo[u as usize] = Some(v);
                filled.push(u);
            }
            let (delay_ns, tx_ns, bw) = v;
            let rtt = 2 * delay_ns + tx_ns;
            max_rtt = max_rtt.max(rtt);
            max_bdp = max_bdp.max((rtt as u128 * bw as u128 / 8_000_000_000) as u64);
        }
    }
    (max_rtt, max_bdp)
}

impl Simulation {
    /// Build the network of `topo` carrying `flows` (sorted by start time).
    /// The topology must already be validated (connected, one link per host).
    pub fn new(
        topo: &Topology,
        flows: Vec<FlowSpec>,
        cfg: NetConfig,
    ) -> Result<Simulation, BuildError> {
        let n = topo.kinds.len();
        for s in &cfg.pfc_storms {
            let linked = topo
                .links
                .iter()
                .any(|l| (l.a, l.b) == (s.node, s.peer) || (l.a, l.b) == (s.peer, s.node));
            if !linked {
                return Err(BuildError::NoStormLink(s.node, s.peer));
            }
        }
        for (i, f) in flows.iter().enumerate() {
            for (what, node) in [("src", f.src), ("dst", f.dst)] {
                if node as usize >= n {
                    return Err(BuildError::BadFlow {
                        flow: f.id,
                        msg: format!(
                            "{what} node {node} does not exist (the topology has {n} nodes)"
                        ),
                    });
                }
                if !topo.is_host(node) {
                    return Err(BuildError::BadFlow {
                        flow: f.id,
                        msg: format!("{what} node {node} is a switch, not a host"),
                    });
                }
            }
            if f.src == f.dst {
                return Err(BuildError::BadFlow {
                    flow: f.id,
                    msg: "src and dst are the same host".into(),
                });
            }
            if i > 0 && f.start < flows[i - 1].start {
                return Err(BuildError::Unsorted(f.id));
            }
        }

        // Ports: numbered per node in link order (the peer's device order).
        let mut node_ports: Vec<Vec<(u32, usize)>> = vec![Vec::new(); n]; // (link, end)
        for (li, l) in topo.links.iter().enumerate() {
            node_ports[l.a as usize].push((li as u32, 0));
            node_ports[l.b as usize].push((li as u32, 1));
        }
        let mut node_first_port = Vec::with_capacity(n + 1);
        let mut link_port = vec![[0u32; 2]; topo.links.len()];
        let mut next = 0u32;
        for (node, ps) in node_ports.iter().enumerate() {
            node_first_port.push(next);
            for &(li, end) in ps {
                link_port[li as usize][end] = next;
                next += 1;
            }
            let _ = node;
        }
        node_first_port.push(next);
        // Per-port overrides, later rules replacing the fields they set.
        let mut port_set: Vec<crate::config::PortSettings> =
            vec![Default::default(); next as usize];
        for r in &cfg.ports {
            if r.link as usize >= topo.links.len() {
                return Err(BuildError::BadPortRule {
                    link: r.link,
                    msg: format!("there is no such link ({} links)", topo.links.len()),
                });
            }
            let id = link_port[r.link as usize][usize::from(r.at_b)] as usize;
            port_set[id].merge(&r.settings);
        }
        // The largest data frame: BFC's and FlowSail's thresholds must hold one.
        let frame = u64::from(cfg.nic.mtu_payload) + u64::from(cfg.nic.data_header);
        let nic_rate = topo
            .links
            .iter()
            .find(|l| topo.is_host(l.a) || topo.is_host(l.b))
            .map(|l| l.rate)
            .unwrap_or(Rate::gbps(100));
        let mut ports = Vec::with_capacity(next as usize);
        let mut warnings = Vec::new();
        for (node, ps) in node_ports.iter().enumerate() {
            let is_host = topo.kinds[node] == NodeKind::Host;
            for (local, &(li, end)) in ps.iter().enumerate() {
                let l = &topo.links[li as usize];
                let id = ports.len();
                let choice = port_set[id].fc.clone();
                let mut fc = match &choice {
                    None if cfg.pfc.enabled => AnyFc::Pfc(Pfc::new(cfg.pfc.mode, l.rate, !is_host)),
                    None | Some(crate::config::FcChoice::Lossy) => AnyFc::Lossy(Lossy),
                    Some(crate::config::FcChoice::Pfc(mode)) => {
                        AnyFc::Pfc(Pfc::new(*mode, l.rate, !is_host))
                    }
                    Some(crate::config::FcChoice::PfcObeyOnly(mode)) => {
                        AnyFc::Pfc(Pfc::new(*mode, l.rate, false))
                    }
                    Some(crate::config::FcChoice::Cbfc(c)) => {
                        if port_set[id].xoff.is_none() && !is_host {
                            port_set[id].xoff = Some(c.buffer);
                        }
                        AnyFc::Cbfc(Cbfc::new(c.clone()))
                    }
                    Some(crate::config::FcChoice::Bifrost(b)) => {
                        let (bf, warn) = Bifrost::new(b, l.rate, l.delay)
                            .map_err(|msg| BuildError::BadPortRule { link: li, msg })?;
                        for w in warn {
                            warnings.push(format!("link {li}, node {node}: {w}"));
                        }
                        if port_set[id].xoff.is_none() && !is_host {
                            port_set[id].xoff = Some(bf.params().h);
                        }
                        AnyFc::Bifrost(bf)
                    }
                    Some(crate::config::FcChoice::IdealPerFlow(c)) => {
                        c.check()
                            .map_err(|msg| BuildError::BadPortRule { link: li, msg })?;
                        AnyFc::IdealPerFlow(Box::new(IdealPerFlow::new(c.clone())))
                    }
                    Some(crate::config::FcChoice::Bfc(c)) => {
                        c.check(l.rate, l.delay, frame).map_err(|(key, msg)| {
                            BuildError::BadPortRule {
                                link: li,
                                msg: format!("{key}: {msg}"),
                            }
                        })?;
                        AnyFc::Bfc(Box::new(FlowPauseCounts::new(is_host)))
                    }
                    Some(crate::config::FcChoice::FlowSail(c)) => {
                        c.check(l.rate, l.delay, frame).map_err(|(key, msg)| {
                            BuildError::BadPortRule {
                                link: li,
                                msg: format!("{key}: {msg}"),
                            }
                        })?;
                        AnyFc::FlowSail(Box::new(FlowPauseCounts::new(is_host)))
                    }
                };
                if let AnyFc::Pfc(p) = &mut fc {
                    p.set_classes(cfg.pfc.classes);
                }
                if is_host && port_set[id].egress.is_some() {
                    return Err(BuildError::BadPortRule {
                        link: li,
                        msg: format!(
                            "egress applies to switch ports; node {node} is a host, whose NIC \
                             schedules its own QPs"
                        ),
                    });
                }
                let fc = if port_set[id].relay_pfc {
                    if is_host || ps.len() != 2 {
                        return Err(BuildError::BadPortRule {
                            link: li,
                            msg: format!(
                                "relay_pfc needs a switch with exactly two ports; node {node} has {}",
                                ps.len()
                            ),
                        });
                    }
                    let twin = node_first_port[node] + (1 - local as u32);
                    AnyFc::Swing(SwingRelay::new(fc, twin))
                } else {
                    fc
                };
                let fc = watch_and_storm(fc, &cfg, is_host, node as u32, l, end)
                    .map_err(|msg| BuildError::BadPortRule { link: li, msg })?;
                let error_rate = if let Some(p) = port_set[id].loss {
                    p
                } else if l.error_rate > 0.0 {
                    l.error_rate
                } else {
                    cfg.error_rate_per_link
                };
                // A per-flow pause helps only if the paused flow waits in a
                // queue of its own: ideal per-flow ports queue by flow
                // unless told otherwise, and refuse a shared queue.
                let egress = match (&port_set[id].fc, port_set[id].egress) {
                    (Some(crate::config::FcChoice::IdealPerFlow(_)), None) if !is_host => {
                        Some(EgressChoice::PerFlow)
                    }
                    (Some(crate::config::FcChoice::IdealPerFlow(_)), Some(e))
                        if e != EgressChoice::PerFlow =>
                    {
                        return Err(BuildError::BadPortRule {
                            link: li,
                            msg: format!(
                                "node {node}: ideal per-flow flow control needs each flow in a \
                                 queue of its own (egress = \"per_flow\"), not egress = \"{}\"",
                                e.name()
                            ),
                        });
                    }
                    (_, e) => e,
                };
                // BFC and FlowSail queue in their own K queues: their egress
                // is built from their settings, and no other may be named.
                let own = match &port_set[id].fc {
                    Some(crate::config::FcChoice::Bfc(c)) if !is_host => {
                        Some(AnyEgress::boxed(BfcEgress::new(
                            c,
                            l.rate,
                            l.delay,
                            Rng::stream(cfg.seed, RNG_EGRESS, id as u64),
                        )))
                    }
                    Some(crate::config::FcChoice::FlowSail(c)) if !is_host => {
                        Some(AnyEgress::boxed(FlowSailEgress::new(
                            c,
                            l.rate,
                            l.delay,
                            Rng::stream(cfg.seed, RNG_EGRESS, id as u64),
                        )))
                    }
                    _ => None,
                };
                if let (Some(_), Some(e)) = (&own, egress) {
                    return Err(BuildError::BadPortRule {
                        link: li,
                        msg: format!(
                            "node {node}: BFC and FlowSail queue in their own K queues \
                             (bfc_queues, flowsail_queues); egress = \"{}\" does not apply",
                            e.name()
                        ),
                    });
                }
                let (egress_head, egress) = match own {
                    Some(own) => own,
                    None => egress.unwrap_or_default().build(),
                };
                ports.push(Port {
                    node: node as u32,
                    local: local as u16,
                    is_host,
                    peer: link_port[li as usize][1 - end],
                    ps_per_byte: l.rate.ps_per_byte().unwrap_or(0),
                    rate: l.rate,
                    delay: l.delay,
                    error_rate,
                    busy: false,
                    unscheduled_end: Time::MAX,
                    up: true,
                    held: false,
                    trace: 0,
                    owner: u16::MAX,
                    line1: CacheLine,
                    line2: CacheLine,
                    line3: CacheLine,
                    ctrl: Fifo::new(),
                    egress_head,
                    egress,
                    queue_bytes: 0,
                    peak_ingress: 0,
                    flight: Fifo::new(),
                    fc,
                    fc_version: 0,
                    rng: Rng::stream(cfg.seed, RNG_PORT, id as u64),
                    pint: crate::cc::PintPort::default(),
                    c: PortCounters::default(),
                });
            }
        }

        // Credits only work when both ends speak them, in the same field
        // width (docs/model.md, CBFC): the other end of a CBFC port would
        // ignore its credit frames, or read a 12-bit FCCL as a full one.
        for (li, ends) in link_port.iter().enumerate() {
            let field = |p: u32| match &ports[p as usize].fc {
                AnyFc::Cbfc(c) => Some(c.config().field_bits),
                _ => None,
            };
            let (a, b) = (field(ends[0]), field(ends[1]));
            if a != b {
                let name = |f: Option<Option<u32>>| match f {
                    Some(Some(_)) => "cbfc",
                    Some(None) => "cbfc_ideal",
                    None => "another flow control",
                };
                return Err(BuildError::BadPortRule {
                    link: li as u32,
                    msg: format!(
                        "one end (node {}) runs {} and the other (node {}) {}: both ends of \
                         a link must run the same CBFC (fc = \"cbfc\" or \"cbfc_ideal\")",
                        topo.links[li].a,
                        name(a),
                        topo.links[li].b,
                        name(b)
                    ),
                });
            }
        }

        // Per-flow pause frames mean nothing to another scheme (a PFC port
        // would not even expect them), and an ideal port ignores PFC
        // frames: both ends of a link run it, or neither. So for BFC and
        // FlowSail, and each with itself.
        for (li, ends) in link_port.iter().enumerate() {
            let scheme = |p: u32| match ports[p as usize].fc {
                AnyFc::Bfc(_) => Some("BFC (fc = \"bfc\")"),
                AnyFc::FlowSail(_) => Some("FlowSail (fc = \"flowsail\")"),
                _ => None,
            };
            let (sa, sb) = (scheme(ends[0]), scheme(ends[1]));
            if sa != sb {
                let (on, s, off) = match sa {
                    Some(s) => (topo.links[li].a, s, topo.links[li].b),
                    None => (topo.links[li].b, sb.expect("differ"), topo.links[li].a),
                };
                return Err(BuildError::BadPortRule {
                    link: li as u32,
                    msg: format!(
                        "one end (node {on}) runs {s} and the other (node {off}) does not: \
                         both ends of a link must run it (hosts too, in [ports.hosts])"
                    ),
                });
            }
            let ideal = |p: u32| matches!(ports[p as usize].fc, AnyFc::IdealPerFlow(_));
            let (a, b) = (ideal(ends[0]), ideal(ends[1]));
            if a != b {
                let (on, off) = if a {
                    (topo.links[li].a, topo.links[li].b)
                } else {
                    (topo.links[li].b, topo.links[li].a)
                };
                return Err(BuildError::BadPortRule {
                    link: li as u32,
                    msg: format!(
                        "one end (node {on}) runs ideal per-flow flow control and the other \
                         (node {off}) does not: both ends of a link must run it \
                         (fc = \"ideal_per_flow\"; hosts too, in [ports.hosts])"
                    ),
                });
            }
            // Its pause frames are never refreshed: a lost RESUME stalls its
            // flow for good.
            if a && b && ends.iter().any(|&p| ports[p as usize].error_rate > 0.0) {
                warnings.push(format!(
                    "link {li}: ideal per-flow flow control on a link that loses frames; \
                     a lost RESUME leaves its flow paused for good"
                ));
            }
        }

        let hosts = topo.hosts();
        let routes = topo::Routes::compute_ordered(topo, cfg.next_hop_order);

        let mut node_switch = vec![u32::MAX; n];
        let mut switches = Vec::new();
        // Switches whose ports set aside all of the buffer: (node, bytes).
        let mut no_shared_pool: Vec<(usize, u64)> = Vec::new();
        let mut node_nic = vec![u32::MAX; n];
        let mut nics = Vec::new();
        for node in 0..n {
            let first = node_first_port[node];
            let count = node_first_port[node + 1] - first;
            if topo.kinds[node] == NodeKind::Host {
                node_nic[node] = nics.len() as u32;
                ports[first as usize].owner = u16::try_from(nics.len()).unwrap_or(u16::MAX);
                nics.push(Nic {
                    id: nics.len() as u32,
                    port: first,
                    line_rate: ports[first as usize].rate,
                    acks: Fifo::new(),
                    sched: match &cfg.dcqcn_fleet {
                        Some(f) if f.leaks_congestion(node as u32) => {
                            crate::nic::sched::QpSched::head_of_line_blocking()
                        }
                        _ => Default::default(),
                    },
                    wake_at: Time::MAX,
                    last_cnp: Default::default(),
                    cpu: crate::host_cpu::HostCpu::new(&cfg.host),
                });
                continue;
            }
            let mut headroom = Vec::with_capacity(count as usize);
            let mut shift = Vec::with_capacity(count as usize);
            let mut ecn = Vec::with_capacity(count as usize);
            for p in first..first + count {
                let port = &ports[p as usize];
                headroom.push(match cfg.buffer.headroom {
                    crate::config::Headroom::RateDelay { factor } => {
                        // Peer: rate × delay / 8 × 3, delay in ns (third.cc).
                        (port.rate.bps() as f64 * port.delay.ps() as f64 / 8e12 * factor) as u64
                    }
                    crate::config::Headroom::Bytes(b) => b,
                });
                // Alpha halves... shift drops by one per doubling above NIC speed.
                let mut s = cfg.buffer.alpha_shift;
                let mut r = port.rate.bps();
                while r > nic_rate.bps() && s > 0 {
                    s -= 1;
                    r /= 2;
                }
                shift.push(s);
                let t = cfg.ecn.for_rate(port.rate);
                if port_set[p as usize].ecn == Some(false) {
                    ecn.push((u64::MAX, u64::MAX, 0.0));
                } else {
                    ecn.push((t.kmin, t.kmax, t.pmax));
                }
            }
            node_switch[node] = switches.len() as u32;
            let mut mmu = Mmu::new(&cfg.buffer, headroom, shift);
            for p in first..first + count {
                let set = &port_set[p as usize];
                let local = (p - first) as usize;
                if let Some(s) = set.alpha_shift {
                    mmu.set_shift(local, s);
                }
                if let Some(h) = set.headroom {
                    mmu.set_headroom(local, h);
                }
                if let Some(xoff) = set.xoff {
                    let h = set.headroom.unwrap_or(0);
                    mmu.set_static(local, xoff, set.xon.unwrap_or(xoff), h);
                }
                // A class PFC does not protect drops at its share.
                for c in (1..crate::wire::N_CLASSES).filter(|&c| cfg.pfc.classes >> c & 1 == 0) {
                    mmu.set_lossy(local, c);
                }
            }
            let sonic = match &cfg.sonic {
                None => None,
                Some(setup) => sonic_mmu(setup, node, first, count, &port_set, &node_ports)?,
            };
            let (size, set_aside) = mmu.size_and_set_aside();
            if set_aside >= size && sonic.is_none() {
                no_shared_pool.push((node, set_aside));
            }
            switches.push(Switch {
                first_port: first,
                n_ports: count as u16,
                mmu,
                sonic,
                ecn,
                routes: Vec::new(),
                route_rows: Vec::new(),
                ecn_on: cfg.ecn.enabled,
                pint_on: false,
                pint: None,
            });
        }

        if let Some(&(node, set_aside)) = no_shared_pool.iter().max_by_key(|&&(_, a)| a) {
            // The MMU does what it is told (the peer's would too), but the
            // buffer then holds more than its size says.
            warnings.push(format!(
                "[buffer] size = {} B is not more than the {} B that switch {node}'s ports \
                 set aside (reserves and headroom), so its shared pool is empty and it holds \
                 up to {set_aside} B, beyond its size (switches like it: {} of {})",
                cfg.buffer.size,
                set_aside,
                no_shared_pool.len(),
                switches.len()
            ));
        }
        // `Topology::validate` refuses more (topo::MAX_SWITCHES).
        assert!(
            switches.len() <= topo::MAX_SWITCHES,
            "at most {} switches",
            topo::MAX_SWITCHES
        );
        for p in &mut ports {
            let s = node_switch[p.node as usize];
            if s != u32::MAX {
                p.owner = s as u16;
            }
        }

        let dst_route = install_routes(
            &mut switches,
            &node_switch,
            topo,
            &routes,
            None,
            &link_port,
            &hosts,
        );

        // The peer's ideal ("standalone") FCT, in integer ns as third.cc's
        // `qp_finish`.
        let payload = u64::from(cfg.nic.mtu_payload);
        let header = u64::from(cfg.nic.data_header);
        // A link's share of a path's (delay, serialisation, bottleneck).
        let link_terms = |li: u32| {
            let l = &topo.links[li as usize];
            (
                l.delay.ps() / 1000,
                payload * 1_000_000_000 * 8 / l.rate.bps(),
                l.rate.bps(),
            )
        };
        let pair_rtt_bw_of = |src: u32, dst: u32| {
            let mut delay_ns = 0u64;
            let mut tx_ns = 0u64;
            let mut bw = u64::MAX;
            for &li in &routes.path(topo, src, dst) {
                let (d, t, r) = link_terms(li);
                delay_ns += d;
                tx_ns += t;
                bw = bw.min(r);
            }
            (2 * delay_ns + tx_ns, bw)
        };
        let mut ideal_fct_ns = Vec::with_capacity(flows.len());
        let mut pair_rtt_bw = Vec::with_capacity(flows.len());
        let mut pair_cache = std::collections::HashMap::new();
        for f in &flows {
            let (rtt, bw) = *pair_cache
                .entry((f.src, f.dst))
                .or_insert_with(|| pair_rtt_bw_of(f.src, f.dst));
            let total = f.size + f.size.div_ceil(payload) * header;
            ideal_fct_ns.push(rtt + (total as u128 * 8_000_000_000 / bw as u128) as u64);
            pair_rtt_bw.push((rtt, bw));
        }
        if cfg.nic.mtu_payload < cfg.nic.data_header {
            warnings.push(format!(
                "[nic] mtu = {} B is less than the {} B of headers of each data frame: \
                 most of what the links carry is headers, and a flow takes one packet \
                 (and one ACK) per {} B",
                cfg.nic.mtu_payload, cfg.nic.data_header, cfg.nic.mtu_payload
            ));
        }
        if cfg.nic.mtu_payload > JUMBO_PAYLOAD_BYTES {
            warnings.push(format!(
                "[nic] mtu = {} B is larger than an Ethernet jumbo frame's payload \
                 ({JUMBO_PAYLOAD_BYTES} B); the ideal FCT charges one full-size frame's \
                 serialisation per hop, so flows shorter than one frame get slowdowns \
                 below 1",
                cfg.nic.mtu_payload
            ));
        }
        {
            let rtts: Vec<u64> = pair_rtt_bw.iter().map(|&(rtt, _)| rtt).collect();
            warnings.extend(crate::transport::short_timeout_warnings(
                &cfg.nic.transport,
                cfg.nic.rto,
                &rtts,
            ));
        }
        let needs_env = !matches!(
            cfg.cc,
            crate::cc::CcConfig::None | crate::cc::CcConfig::Dcqcn(_)
        );
        let pint = cfg.cc.pint_log_base().is_some();
        let max_rtt_bdp = ((cfg.nic.global_t && (cfg.nic.bdp_window || needs_env)) || pint)
            .then(|| max_rtt_and_bdp(topo, &routes, &hosts, link_terms));

        if let Some(base) = cfg.cc.pint_log_base() {
            // PINT measures utilisation over the largest base RTT.
            let t_ns = max_rtt_bdp.map_or(1, |(rtt, _)| rtt);
            for sw in &mut switches {
                sw.pint_on = true;
                sw.pint = Some((base, t_ns));
            }
        }
        let mut q = EventQueue::new();
        if let Some(f) = flows.first() {
            q.push(f.start, Event::FlowArrive { flow: 0 });
        }
        let qlen = cfg.qlen_monitor.clone().map(|m| {
            // Every switch port: (node, port id, interface), in port order.
            let order: Vec<(u32, u32, u32)> = ports
                .iter()
                .enumerate()
                .filter(|(_, p)| !p.is_host)
                .map(|(i, p)| (p.node, i as u32, u32::from(p.local) + 1))
                .collect();
            Box::new(crate::qlen::QlenMonitor::new(m, order, ports.len()))
        });
        if let Some(d) = qlen.as_ref().and_then(|m| m.next_dump()) {
            q.push(d, Event::QlenDump);
        }
        let mut failures = Vec::new();
        for (k, &(at, a, b)) in cfg.link_down.iter().enumerate() {
            let li = topo
                .links
                .iter()
                .position(|l| (l.a, l.b) == (a, b) || (l.a, l.b) == (b, a))
                .ok_or(BuildError::NoSuchLink(a, b))?;
            failures.push(li as u32);
            q.push(at, Event::LinkDown { k: k as u32 });
        }
        let n_flows = flows.len();
        let mut sim = Simulation {
            cx: Ctx::new(q, qlen, n_flows),
            cfg,
            ports,
            node_switch,
            node_nic,
            dst_route,
            switches,
            nics,
            qps: Vec::with_capacity(n_flows),
            rx: Vec::with_capacity(n_flows),
            flows,
            next_flow: 0,
            ideal_fct_ns,
            pair_rtt_bw,
            max_rtt_bdp,
            link_up: vec![true; topo.links.len()],
            topo: topo.clone(),
            link_port,
            hosts,
            failures,
            sport_next: std::collections::HashMap::new(),
            monitor: None,
            drop_once: Vec::new(),
            lossy: false,
            warnings,
        };
        sim.lossy = sim.ports.iter().any(|p| p.error_rate > 0.0);
        // Schemes that speak first (initial credits) or run on a clock.
        // What they say at the start is the link-up exchange: it reaches
        // the peer at time zero, not one link delay into the run. (In
        // InfiniBand the initial credits are exchanged while the link
        // trains, before it carries data; delivering them over the wire at
        // t = 0 would idle a 600 km link for its first 3 ms.)
        for port in 0..sim.ports.len() as u32 {
            sim.ports[port as usize]
                .fc
                .on_start(Time::ZERO, &mut sim.cx.outbox);
            let link_up: Vec<Packet> = sim.cx.outbox.frames.drain(..).collect();
            sim.apply_fc_outbox(port);
            let peer = sim.ports[port as usize].peer;
            let rate = sim.ports[peer as usize].rate;
            for frame in &link_up {
                sim.ports[peer as usize]
                    .fc
                    .on_ctrl(Time::ZERO, frame, rate, &mut sim.cx.outbox);
                sim.apply_fc_outbox(peer);
            }
        }
        // Ports that the start made able to send, of any device: each
        // device's `try_send` then empties the stack of its own.
        let kicked = std::mem::take(&mut sim.cx.kick);
        for &p in kicked.iter().rev() {
            sim.try_send(p);
        }
        Ok(sim)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{CcConfig, HpccConfig};
    use engine::Delta;

    /// The largest base RTT and BDP over every ordered pair of hosts that
    /// `Simulation::new` works out per class of hosts (group and link) are
    /// those of each pair's own path (`Routes::path`), on trees with mixed
    /// rates, one whose ToRs have hosts on slower and longer links than
    /// their neighbours (the largest BDP is not the largest RTT's), a star
    /// (every pair within one class), a dumbbell and a cross-DC network
    /// with a long link.
    #[test]
    fn max_rtt_and_bdp_are_those_of_every_pair() {
        let mut mixed = topo::peer_fat_tree();
        for (i, l) in mixed.links.iter_mut().take(320).enumerate() {
            match i % 16 {
                3 => l.rate = Rate::gbps(25),
                7 => l.delay = Delta::from_us(3),
                9 if i < 40 => l.rate = Rate::gbps(400),
                _ => {}
            }
        }
        let topos = [
            topo::fat_tree(4, Rate::gbps(100), Rate::gbps(400), Delta::from_us(1)).unwrap(),
            topo::peer_fat_tree(),
            mixed,
            topo::star(5, Rate::gbps(100), Delta::from_us(1)).unwrap(),
            topo::dumbbell(3, 2, Rate::gbps(100), Rate::gbps(25), Delta::from_ns(700)).unwrap(),
            topo::cross_dc(topo::CrossDcSpec::BIFROST).unwrap(),
        ];
        for t in &topos {
            let mut cfg = NetConfig {
                cc: CcConfig::Hpcc(HpccConfig::default()),
                ..NetConfig::default()
            };
            cfg.nic.global_t = true;
            let payload = u64::from(cfg.nic.mtu_payload);
            let sim = Simulation::new(t, Vec::new(), cfg).unwrap();
            let routes = topo::Routes::compute(t);
            let mut want = (0u64, 0u64);
            let hosts = t.hosts();
            for &s in &hosts {
                for &d in hosts.iter().filter(|&&d| d != s) {
                    let (mut delay, mut tx, mut bw) = (0u64, 0u64, u64::MAX);
                    for &li in &routes.path(t, s, d) {
                        let l = &t.links[li as usize];
                        delay += l.delay.ps() / 1000;
                        tx += payload * 1_000_000_000 * 8 / l.rate.bps();
                        bw = bw.min(l.rate.bps());
                    }
                    let rtt = 2 * delay + tx;
                    want.0 = want.0.max(rtt);
                    want.1 = want
                        .1
                        .max((rtt as u128 * bw as u128 / 8_000_000_000) as u64);
                }
            }
            assert!(want.0 > 0);
            assert_eq!(sim.max_rtt_bdp, Some(want));
        }
    }
}
