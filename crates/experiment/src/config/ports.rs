//! `[ports.<class>]` and `[[ports.at]]`: buffer and flow-control settings
//! of groups of ports, replacing the switch-wide ones.

use super::ctx::{set_keys, Ctx, R};
use crate::fmt::fmt_delta;
use net::egress::EgressChoice;
use net::fc::{
    BfcConfig, BifrostConfig, BifrostReading, CbfcConfig, FlowSailConfig, IdealPerFlowConfig,
    QueueMapping,
};
use net::{FcChoice, NetConfig, PfcMode};
use serde::Deserialize;
use topo::Topology;

/// `[ports.<class>]` and `[[ports.at]]`: settings of groups of switch
/// ports that replace the switch-wide `[buffer]`, `[ecn]` and `[pfc]`
/// ones. Applied in this order, later ones winning.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PortsSection {
    /// Every port of every switch that is not a DCI switch or a relay.
    pub fabric: Option<PortSection>,
    /// Both ends of every link between two switches neither of which has
    /// a host: in a three-tier tree (`pods`, `clos`, `fat_tree`), the
    /// links to the top tier (Spine, core).
    pub spine_links: Option<PortSection>,
    /// cross_dc: the DCI switches' ports towards their DC's cores.
    pub dci: Option<PortSection>,
    /// cross_dc with relays: both ends of every DCI–relay link.
    pub relay_access: Option<PortSection>,
    /// cross_dc: the switch ports at both ends of every long link.
    pub long_haul: Option<PortSection>,
    /// The hosts' NIC ports (only `fc` applies: how they obey the ToR).
    pub hosts: Option<PortSection>,
    /// Single ports: `node` and `port` (its local index), any topology.
    pub at: Option<Vec<PortSection>>,
}

/// The settings of one `[ports.*]` group.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PortSection {
    /// `[[ports.at]]` only: the switch.
    pub node: Option<u32>,
    /// `[[ports.at]]` only: its local port.
    pub port: Option<u16>,
    /// Static XOFF threshold (the port then owns xoff + headroom bytes).
    pub xoff: Option<String>,
    /// Static XON threshold; default xoff.
    pub xon: Option<String>,
    /// Headroom.
    pub headroom: Option<String>,
    /// Dynamic-threshold shift (ports in the shared pool).
    pub alpha_shift: Option<u8>,
    /// ECN marking at this egress.
    pub ecn: Option<bool>,
    /// The port's flow control, by the name of one of the choices
    /// `rdmasim config --defaults` lists.
    pub fc: Option<String>,
    /// How a switch port queues what it sends, by the name of one of
    /// `net::egress::EgressChoice::ALL`.
    pub egress: Option<String>,
    /// cbfc: buffer advertised per class; default xoff + headroom.
    pub cbfc_buffer: Option<String>,
    /// cbfc: send a credit update after this many freed 64 B blocks.
    pub cbfc_update_blocks: Option<u64>,
    /// cbfc: flush smaller credit advances after this long.
    pub cbfc_update_period: Option<String>,
    /// bifrost: time slot T.
    pub bifrost_t: Option<String>,
    /// bifrost: reserved buffer H; default Δ + 2·R_s·T + k·MTU.
    pub bifrost_h: Option<String>,
    /// bifrost: leak-check period k, in slots.
    pub bifrost_k: Option<u32>,
    /// bifrost: Δ; default the link's propagation BDP in whole slots.
    pub bifrost_delta: Option<String>,
    /// bifrost: `"ledger"` | `"clamped"` | `"literal"`.
    pub bifrost_reading: Option<String>,
    /// bifrost: write the per-slot trace (`bifrost_trace.csv`).
    pub bifrost_trace: Option<bool>,
    /// ideal_per_flow: pause a flow once the ingress holds more of it.
    pub ideal_pause: Option<String>,
    /// ideal_per_flow: resume it once the ingress holds at most this.
    pub ideal_resume: Option<String>,
    /// bfc or flowsail: physical queues per port (rsvQ included); the
    /// same as `bfc_queues` or `flowsail_queues`, so that one sweep axis
    /// sets the queue count of both schemes.
    pub queues: Option<u32>,
    /// bfc: physical queues per port.
    pub bfc_queues: Option<u32>,
    /// bfc: pause threshold in hop BDPs (divided by N_active).
    pub bfc_threshold: Option<f64>,
    /// bfc: the hop round trip; default twice the link delay.
    pub bfc_hrtt: Option<String>,
    /// bfc: `"dynamic"` | `"shared"`.
    pub bfc_mapping: Option<String>,
    /// flowsail: physical queues per port, rsvQ included.
    pub flowsail_queues: Option<u32>,
    /// flowsail: Q_l in hop BDPs (divided by N_active).
    pub flowsail_ql: Option<f64>,
    /// flowsail: Q_h in hop BDPs (divided by N_active).
    pub flowsail_qh: Option<f64>,
    /// flowsail: the hop round trip; default twice the link delay.
    pub flowsail_hrtt: Option<String>,
    /// flowsail: CFT release after this many idle HRTTs.
    pub flowsail_release: Option<f64>,
    /// flowsail: `"dynamic"` | `"shared"`.
    pub flowsail_mapping: Option<String>,
    /// flowsail: pause a congested flow's old queue until its RESUME.
    pub flowsail_pause_q1: Option<bool>,
    /// Random loss of the frames this port sends, a probability (e.g.
    /// 1/1024 = 0.0009765625); replaces the link's error rate for this
    /// direction.
    pub loss: Option<f64>,
}

fn check_switch(cx: &Ctx<'_>, path: &str, topo: &Topology, node: u32) -> R<()> {
    let n = topo.n_nodes() as u32;
    if node >= n {
        return Err(cx.err(
            path,
            format!("node {node} does not exist (the topology has {n} nodes)"),
        ));
    }
    if topo.is_host(node) {
        return Err(cx.err(
            path,
            format!("node {node} is a host; port settings are for switches"),
        ));
    }
    Ok(())
}

/// The (link, at_b) ends of switch ports in a class; see [`PortsSection`].
fn port_class(
    topo: &Topology,
    layout: Option<&topo::CrossDcLayout>,
    class: &str,
) -> Vec<(u32, bool)> {
    let special =
        |n: u32| layout.is_some_and(|l| l.is_relay(n) || (0..l.dcs()).any(|d| l.dci(d) == n));
    // Switches with a host on one of their ports.
    let mut has_host = vec![false; topo.n_nodes()];
    if class == "spine_links" {
        for l in &topo.links {
            if topo.is_host(l.a) {
                has_host[l.b as usize] = true;
            }
            if topo.is_host(l.b) {
                has_host[l.a as usize] = true;
            }
        }
    }
    let up = |n: u32| !topo.is_host(n) && !has_host[n as usize];
    let mut out = Vec::new();
    for (i, l) in topo.links.iter().enumerate() {
        for (node, at_b) in [(l.a, false), (l.b, true)] {
            if topo.is_host(node) != (class == "hosts") {
                continue;
            }
            let take = match (class, layout) {
                ("hosts", _) => true,
                ("fabric", _) => !special(node),
                ("spine_links", _) => up(l.a) && up(l.b) && !special(l.a) && !special(l.b),
                ("long_haul", Some(lay)) => lay.is_long_link(i),
                ("relay_access", Some(lay)) => lay.relay_link_range().contains(&i),
                ("dci", Some(lay)) => {
                    (0..lay.dcs()).any(|d| lay.dci(d) == node)
                        && !lay.is_long_link(i)
                        && !lay.relay_link_range().contains(&i)
                }
                _ => false,
            };
            if take {
                out.push((i as u32, at_b));
            }
        }
    }
    out
}

pub(super) fn build_ports(
    cx: &Ctx<'_>,
    s: &PortsSection,
    topo: &Topology,
    layout: Option<&topo::CrossDcLayout>,
    net: &mut NetConfig,
) -> R<()> {
    use net::{PortRule, PortSettings};
    // Relays (Swing §5.2): the L port relays the PFC frames it receives;
    // the R port obeys them and never pauses its upstream.
    if let Some(lay) = layout {
        for i in 0..lay.long_link_range().len() {
            let Some((ra, rb)) = lay.relays_of(i) else {
                break;
            };
            for r in [ra, rb] {
                for (li, l) in topo.links.iter().enumerate() {
                    if l.a != r && l.b != r {
                        continue;
                    }
                    let settings = if lay.is_long_link(li) {
                        PortSettings {
                            fc: Some(FcChoice::PfcObeyOnly(net.pfc.mode)),
                            ..PortSettings::default()
                        }
                    } else {
                        PortSettings {
                            relay_pfc: true,
                            ..PortSettings::default()
                        }
                    };
                    net.ports.push(PortRule {
                        link: li as u32,
                        at_b: l.b == r,
                        settings,
                    });
                }
            }
        }
    }
    if let Some(h) = &s.hosts {
        let set = set_keys!(h; node, port, xoff, xon, headroom, alpha_shift, ecn, egress);
        if let Some(k) = set.first() {
            return Err(cx.err(
                &format!("ports.hosts.{k}"),
                "hosts have no switch buffer; [ports.hosts] takes fc only",
            ));
        }
    }
    // The section each rule below comes from, by its index in net.ports.
    let mut paths: Vec<(usize, String)> = Vec::new();
    let groups = [
        ("hosts", &s.hosts),
        ("fabric", &s.fabric),
        ("spine_links", &s.spine_links),
        ("dci", &s.dci),
        ("relay_access", &s.relay_access),
        ("long_haul", &s.long_haul),
    ];
    for (class, sec) in groups {
        let Some(sec) = sec else { continue };
        let path = format!("ports.{class}");
        if !["fabric", "hosts", "spine_links"].contains(&class) && layout.is_none() {
            return Err(cx.err(
                &path,
                "only for topology kind = \"cross_dc\"; use [[ports.at]] with node and port",
            ));
        }
        if sec.node.is_some() || sec.port.is_some() {
            return Err(cx.err(
                &format!("{path}.node"),
                "node and port are for [[ports.at]] only",
            ));
        }
        let settings = port_settings(cx, &path, sec, net.pfc.mode)?;
        let ends = port_class(topo, layout, class);
        if ends.is_empty() {
            return Err(cx.err(&path, format!("this topology has no {class} ports")));
        }
        for (link, at_b) in ends {
            paths.push((net.ports.len(), path.clone()));
            net.ports.push(PortRule {
                link,
                at_b,
                settings: settings.clone(),
            });
        }
    }
    for (i, sec) in s.at.iter().flatten().enumerate() {
        let path = format!("ports.at[{i}]");
        let node = cx.required(&sec.node, &format!("{path}.node"), "[[ports.at]]")?;
        let port = cx.required(&sec.port, &format!("{path}.port"), "[[ports.at]]")?;
        check_switch(cx, &format!("{path}.node"), topo, node)?;
        // Local port p of a node is its p-th link in link order.
        let end = topo
            .links
            .iter()
            .enumerate()
            .filter(|(_, l)| l.a == node || l.b == node)
            .nth(usize::from(port))
            .map(|(li, l)| (li as u32, l.b == node));
        let Some((link, at_b)) = end else {
            return Err(cx.err(
                &format!("{path}.port"),
                format!("node {node} has no port {port}"),
            ));
        };
        let settings = port_settings(cx, &path, sec, net.pfc.mode)?;
        paths.push((net.ports.len(), path));
        net.ports.push(PortRule {
            link,
            at_b,
            settings,
        });
    }
    // A Bifrost port keeps a grant per slot of its link's round trip, and
    // its byte counts grow with the slot: settings its link cannot take
    // (too many slots, or sizes past 2^53 bytes) are refused at the section
    // that chose Bifrost, not when the network is built. The last rule that
    // sets a port's fc is the one that holds.
    let mut seen = std::collections::HashSet::new();
    for (i, path) in paths.iter().rev() {
        let r = &net.ports[*i];
        if r.settings.fc.is_none() || !seen.insert((r.link, r.at_b)) {
            continue;
        }
        let l = &topo.links[r.link as usize];
        // BFC and FlowSail: queue counts and thresholds that the port can
        // hold (a threshold below one data frame).
        let frame = u64::from(net.nic.mtu_payload) + u64::from(net.nic.data_header);
        let checked = match &r.settings.fc {
            Some(FcChoice::Bfc(c)) => Some(c.check(l.rate, l.delay, frame)),
            Some(FcChoice::FlowSail(c)) => Some(c.check(l.rate, l.delay, frame)),
            _ => None,
        };
        if let Some(Err((k, e))) = checked {
            return Err(cx.err(
                &format!("{path}.{k}"),
                format!("link {} (nodes {}-{}): {e}", r.link, l.a, l.b),
            ));
        }
        let Some(FcChoice::Bifrost(b)) = &r.settings.fc else {
            continue;
        };
        if let Err(e) = b.check(l.rate, l.delay) {
            return Err(cx.err(
                &format!("{path}.bifrost_t"),
                format!("link {} (nodes {}-{}): {e}", r.link, l.a, l.b),
            ));
        }
    }
    Ok(())
}

fn port_settings(cx: &Ctx<'_>, path: &str, s: &PortSection, mode: PfcMode) -> R<net::PortSettings> {
    let key = |k: &str| format!("{path}.{k}");
    let bytes = |k: &str, v: &Option<String>| size(cx, path, k, v);
    let xoff = bytes("xoff", &s.xoff)?;
    let xon = bytes("xon", &s.xon)?;
    match (xoff, xon) {
        (None, Some(_)) => return Err(cx.err(&key("xon"), "needs xoff (a static threshold)")),
        (Some(off), Some(on)) if on > off => {
            return Err(cx.err(&key("xon"), format!("{on} B is above xoff ({off} B)")))
        }
        _ => {}
    }
    if let Some(v) = s.alpha_shift {
        if v > 63 {
            return Err(cx.err(&key("alpha_shift"), format!("{v} must be at most 63")));
        }
    }
    // An unknown choice first: the keys it would take cannot be judged.
    let scheme = match s.fc.as_deref() {
        None => None,
        Some(v) => Some(FC_SCHEMES.iter().find(|f| f.name == v).ok_or_else(|| {
            let names: Vec<String> = FC_SCHEMES.iter().map(|f| quoted(f.name)).collect();
            cx.err(
                &key("fc"),
                format!("'{v}' is not a scheme; use {}", or_list(&names)),
            )
        })?),
    };
    let scheme_keys = set_keys!(s; cbfc_buffer, cbfc_update_blocks, cbfc_update_period,
        bifrost_t, bifrost_h, bifrost_k, bifrost_delta, bifrost_reading, bifrost_trace,
        ideal_pause, ideal_resume, queues, bfc_queues, bfc_threshold, bfc_hrtt, bfc_mapping,
        flowsail_queues, flowsail_ql, flowsail_qh, flowsail_hrtt, flowsail_release,
        flowsail_mapping, flowsail_pause_q1);
    if let Some(k) = scheme_keys
        .iter()
        .find(|k| !scheme.is_some_and(|f| f.keys.contains(k)))
    {
        let takers: Vec<String> = FC_SCHEMES
            .iter()
            .filter(|f| f.keys.contains(k))
            .map(|f| quoted(f.name))
            .collect();
        return Err(cx.err(&key(k), format!("only with fc = {}", or_list(&takers))));
    }
    let fc = match scheme {
        Some(f) => Some((f.build)(cx, path, s, xoff, mode)?),
        None => None,
    };
    let egress = match s.egress.as_deref() {
        None => None,
        Some(v) => Some(EgressChoice::from_name(v).ok_or_else(|| {
            let names: Vec<String> = EgressChoice::ALL.iter().map(|(n, _)| quoted(n)).collect();
            cx.err(
                &key("egress"),
                format!("'{v}' is not an egress; use {}", or_list(&names)),
            )
        })?),
    };
    let loss = match s.loss {
        Some(p) => Some(cx.fraction(&key("loss"), p, true)?),
        None => None,
    };
    Ok(net::PortSettings {
        xoff,
        xon,
        headroom: bytes("headroom", &s.headroom)?,
        alpha_shift: s.alpha_shift,
        ecn: s.ecn,
        fc,
        relay_pfc: false,
        egress,
        loss,
    })
}

/// A size given at `path.k`, if given.
fn size(cx: &Ctx<'_>, path: &str, k: &str, v: &Option<String>) -> R<Option<u64>> {
    v.as_ref()
        .map(|v| cx.bytes(&format!("{path}.{k}"), v))
        .transpose()
}

fn quoted(s: &str) -> String {
    format!("\"{s}\"")
}

/// `a`, `a or b`, `a, b or c`.
fn or_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// One value of a port's `fc`. The flow-control choices are declared
/// once, in [`FC_SCHEMES`]: the check of `fc`, of the keys only some
/// choices take, and what `rdmasim config --defaults` says of them all
/// come from that table.
pub(super) struct FcScheme {
    /// The value of `fc`.
    pub(super) name: &'static str,
    /// The keys of [`PortSection`] that only this choice and the others
    /// listing them take.
    pub(super) keys: &'static [&'static str],
    /// The choice for the port of section `path` whose static XOFF is
    /// `xoff`, under the fabric's pause semantics.
    build: fn(&Ctx<'_>, &str, &PortSection, Option<u64>, PfcMode) -> R<FcChoice>,
    /// What `--defaults` says of its keys, if it is the first choice to
    /// take them: comment lines, each starting with `# `.
    about: Option<fn() -> String>,
}

/// The flow-control choices of a port, in the order of `--defaults`.
pub(super) const FC_SCHEMES: &[FcScheme] = &[
    FcScheme {
        name: "pfc",
        keys: &[],
        build: |_, _, _, _, mode| Ok(FcChoice::Pfc(mode)),
        about: None,
    },
    FcScheme {
        name: "lossy",
        keys: &[],
        build: |_, _, _, _, _| Ok(FcChoice::Lossy),
        about: None,
    },
    FcScheme {
        name: "obey_only",
        keys: &[],
        build: |_, _, _, _, mode| Ok(FcChoice::PfcObeyOnly(mode)),
        about: None,
    },
    FcScheme {
        name: "cbfc",
        keys: CBFC_KEYS,
        build: |cx, path, s, xoff, _| cbfc(cx, path, s, xoff, CbfcConfig::real),
        about: Some(cbfc_about),
    },
    FcScheme {
        name: "cbfc_ideal",
        keys: CBFC_KEYS,
        build: |cx, path, s, xoff, _| cbfc(cx, path, s, xoff, CbfcConfig::ideal),
        about: None,
    },
    FcScheme {
        name: "bifrost",
        keys: &[
            "bifrost_t",
            "bifrost_h",
            "bifrost_k",
            "bifrost_delta",
            "bifrost_reading",
            "bifrost_trace",
        ],
        build: |cx, path, s, _, _| bifrost(cx, path, s),
        about: Some(bifrost_about),
    },
    FcScheme {
        name: "ideal_per_flow",
        keys: &["ideal_pause", "ideal_resume"],
        build: |cx, path, s, _, _| ideal_per_flow(cx, path, s),
        about: Some(ideal_per_flow_about),
    },
    FcScheme {
        name: "bfc",
        keys: &[
            "queues",
            "bfc_queues",
            "bfc_threshold",
            "bfc_hrtt",
            "bfc_mapping",
        ],
        build: |cx, path, s, _, _| bfc(cx, path, s),
        about: Some(bfc_about),
    },
    FcScheme {
        name: "flowsail",
        keys: &[
            "queues",
            "flowsail_queues",
            "flowsail_ql",
            "flowsail_qh",
            "flowsail_hrtt",
            "flowsail_release",
            "flowsail_mapping",
            "flowsail_pause_q1",
        ],
        build: |cx, path, s, _, _| flowsail(cx, path, s),
        about: Some(flowsail_about),
    },
];

/// A queue mapping named at `key`.
fn mapping(cx: &Ctx<'_>, key: &str, v: &Option<String>) -> R<Option<QueueMapping>> {
    let Some(v) = v else { return Ok(None) };
    match QueueMapping::ALL.iter().find(|(n, _)| n == v) {
        Some(&(_, m)) => Ok(Some(m)),
        None => {
            let names: Vec<String> = QueueMapping::ALL.iter().map(|(n, _)| quoted(n)).collect();
            Err(cx.err(key, format!("'{v}' is not {}", or_list(&names))))
        }
    }
}

/// The queue count of a BFC or FlowSail port: the shared key `queues` or
/// the scheme's own (`own`, set to `v`), not both. `queues` is checked
/// here, against the range every such port takes; the scheme's own key
/// with the rest of its settings, against its links.
fn queue_count(
    cx: &Ctx<'_>,
    path: &str,
    queues: Option<u32>,
    own: &str,
    v: Option<u32>,
    min: u32,
) -> R<Option<u32>> {
    let Some(q) = queues else { return Ok(v) };
    let key = format!("{path}.queues");
    if v.is_some() {
        return Err(cx.err(&key, format!("give the queue count once: queues or {own}")));
    }
    let range = min..=net::fc::MAX_QUEUES;
    if !range.contains(&q) {
        return Err(cx.err(
            &key,
            format!(
                "{q} queues per port: it takes {} to {}",
                range.start(),
                range.end()
            ),
        ));
    }
    Ok(Some(q))
}

/// BFC, with its settings (each checked against its links after the
/// rules are placed: `check_per_flow_ports`).
fn bfc(cx: &Ctx<'_>, path: &str, s: &PortSection) -> R<FcChoice> {
    let key = |k: &str| format!("{path}.{k}");
    let mut c = BfcConfig::default();
    if let Some(v) = queue_count(
        cx,
        path,
        s.queues,
        "bfc_queues",
        s.bfc_queues,
        BfcConfig::MIN_QUEUES,
    )? {
        c.queues = v;
    }
    if let Some(v) = s.bfc_threshold {
        c.th_hbdp = v;
    }
    if let Some(v) = &s.bfc_hrtt {
        c.hrtt = Some(cx.positive_time(&key("bfc_hrtt"), v)?);
    }
    if let Some(m) = mapping(cx, &key("bfc_mapping"), &s.bfc_mapping)? {
        c.mapping = m;
    }
    Ok(FcChoice::Bfc(c))
}

fn bfc_about() -> String {
    let c = BfcConfig::default();
    format!(
        "# With fc = \"bfc\" (BFC, NSDI '22; docs/flowsail.md; both ends of a link
# alike, hosts in [ports.hosts]; switch ports queue in their own K queues):
# bfc_queues (K, {}-{}; default {}; or queues, the key BFC and FlowSail
# share, for a sweep of both), bfc_threshold (pause threshold in hop
# BDPs, divided by the active queues; default {}), bfc_hrtt (hop round
# trip; default twice the link delay), bfc_mapping (\"dynamic\", default:
# an empty queue else a random one | \"shared\": all in the first queue).
",
        BfcConfig::MIN_QUEUES,
        net::fc::MAX_QUEUES,
        c.queues,
        c.th_hbdp
    )
}

/// FlowSail, with its settings (checked as BFC's).
fn flowsail(cx: &Ctx<'_>, path: &str, s: &PortSection) -> R<FcChoice> {
    let key = |k: &str| format!("{path}.{k}");
    let mut c = FlowSailConfig::default();
    if let Some(v) = queue_count(
        cx,
        path,
        s.queues,
        "flowsail_queues",
        s.flowsail_queues,
        FlowSailConfig::MIN_QUEUES,
    )? {
        c.queues = v;
    }
    if let Some(v) = s.flowsail_ql {
        c.ql_hbdp = v;
    }
    if let Some(v) = s.flowsail_qh {
        c.qh_hbdp = v;
    }
    if let Some(v) = &s.flowsail_hrtt {
        c.hrtt = Some(cx.positive_time(&key("flowsail_hrtt"), v)?);
    }
    if let Some(v) = s.flowsail_release {
        c.release_hrtts = v;
    }
    if let Some(m) = mapping(cx, &key("flowsail_mapping"), &s.flowsail_mapping)? {
        c.mapping = m;
    }
    if let Some(v) = s.flowsail_pause_q1 {
        c.pause_q1 = v;
    }
    Ok(FcChoice::FlowSail(c))
}

fn flowsail_about() -> String {
    let c = FlowSailConfig::default();
    format!(
        "# With fc = \"flowsail\" (FlowSail §IV; docs/flowsail.md; both ends of a
# link alike, hosts in [ports.hosts]; switch ports queue in their own K
# queues): flowsail_queues (K with rsvQ, {}-{}; default {}), flowsail_ql and
# flowsail_qh (Q_l, Q_h in hop BDPs, divided by the active queues; default
# {} and {}), flowsail_hrtt (hop round trip; default twice the link delay),
# flowsail_release (CFT release after this many idle HRTTs; default {}),
# flowsail_mapping (\"dynamic\" | \"shared\", as bfc_mapping),
# flowsail_pause_q1 (pause a newly congested flow's old queue until its
# RESUME, Alg. 2 l. 24; default {}; false: Order Marks alone keep order).
",
        FlowSailConfig::MIN_QUEUES,
        net::fc::MAX_QUEUES,
        c.queues,
        c.ql_hbdp,
        c.qh_hbdp,
        c.release_hrtts,
        c.pause_q1
    )
}

/// The keys of both kinds of credit-based flow control.
const CBFC_KEYS: &[&str] = &["cbfc_buffer", "cbfc_update_blocks", "cbfc_update_period"];

/// Credit-based flow control, real or ideal (`new`).
fn cbfc(
    cx: &Ctx<'_>,
    path: &str,
    s: &PortSection,
    xoff: Option<u64>,
    new: fn(u64) -> CbfcConfig,
) -> R<FcChoice> {
    let key = |k: &str| format!("{path}.{k}");
    let buffer = match &s.cbfc_buffer {
        Some(b) => cx.positive_bytes(&key("cbfc_buffer"), b)?,
        None => match xoff {
            Some(x) => x + size(cx, path, "headroom", &s.headroom)?.unwrap_or(0),
            None => {
                return Err(cx.err(
                    &key("cbfc_buffer"),
                    "missing: the buffer this ingress advertises (or give xoff)",
                ))
            }
        },
    };
    let mut c = new(buffer);
    if let Some(b) = s.cbfc_update_blocks {
        if b == 0 {
            return Err(cx.err(&key("cbfc_update_blocks"), "must be at least 1"));
        }
        c.update_blocks = b;
    }
    if let Some(t) = &s.cbfc_update_period {
        c.update_period = cx.positive_time(&key("cbfc_update_period"), t)?;
    }
    Ok(FcChoice::Cbfc(c))
}

fn cbfc_about() -> String {
    let c = CbfcConfig::real(0);
    format!(
        "# With fc = \"cbfc\" or \"cbfc_ideal\" (credits, IBTA; Bifrost §II-B;
# both ends of a link alike): cbfc_buffer (advertised per class; default
# xoff + headroom), cbfc_update_blocks (credit update after this many freed
# 64 B blocks; default {}), cbfc_update_period (flush smaller ones
# after this long; default \"{}\"); rdmasim's choices.
",
        c.update_blocks,
        fmt_delta(c.update_period)
    )
}

/// The readings of Bifrost's algorithm a port may run.
const BIFROST_READINGS: [(&str, BifrostReading); 3] = [
    ("ledger", BifrostReading::Ledger),
    ("clamped", BifrostReading::Clamped),
    ("literal", BifrostReading::Literal),
];

fn bifrost(cx: &Ctx<'_>, path: &str, s: &PortSection) -> R<FcChoice> {
    let key = |k: &str| format!("{path}.{k}");
    let mut b = BifrostConfig::default();
    if let Some(t) = &s.bifrost_t {
        b.t_slot = cx.positive_time(&key("bifrost_t"), t)?;
    }
    if let Some(h) = &s.bifrost_h {
        b.h = Some(cx.positive_bytes(&key("bifrost_h"), h)?);
    }
    if let Some(d) = &s.bifrost_delta {
        b.delta = Some(cx.positive_bytes(&key("bifrost_delta"), d)?);
    }
    if let Some(k) = s.bifrost_k {
        b.k = k;
    }
    if let Some(r) = &s.bifrost_reading {
        b.reading = match BIFROST_READINGS.iter().find(|(n, _)| n == r) {
            Some(&(_, reading)) => reading,
            None => {
                let names: Vec<String> = BIFROST_READINGS.iter().map(|(n, _)| quoted(n)).collect();
                return Err(cx.err(
                    &key("bifrost_reading"),
                    format!("'{r}' is not {}", or_list(&names)),
                ));
            }
        };
    }
    b.trace = s.bifrost_trace.unwrap_or(false);
    Ok(FcChoice::Bifrost(b))
}

fn bifrost_about() -> String {
    let b = BifrostConfig::default();
    let readings: Vec<String> = BIFROST_READINGS
        .iter()
        .map(|&(n, r)| {
            let default = if r == b.reading { " (default)" } else { "" };
            format!("{}{default}", quoted(n))
        })
        .collect();
    format!(
        "# With fc = \"bifrost\" (Bifrost §IV-B, Alg. 1; docs/bifrost.md):
# bifrost_t (slot T; default \"{}\"), bifrost_h (reserved H; default
# Δ + 2·R·T + k·MTU), bifrost_k (leak-check period in slots; default {}),
# bifrost_delta (Δ; default the link's propagation BDP in whole slots),
# bifrost_reading ({}), bifrost_trace (write bifrost_trace.csv; default
# false).
",
        fmt_delta(b.t_slot),
        b.k,
        readings.join(" | ")
    )
}

/// Ideal per-flow flow control, with its thresholds.
fn ideal_per_flow(cx: &Ctx<'_>, path: &str, s: &PortSection) -> R<FcChoice> {
    let key = |k: &str| format!("{path}.{k}");
    let mut c = IdealPerFlowConfig::default();
    if let Some(v) = &s.ideal_pause {
        c.pause = cx.positive_bytes(&key("ideal_pause"), v)?;
    }
    if let Some(v) = &s.ideal_resume {
        c.resume = cx.bytes(&key("ideal_resume"), v)?;
    }
    if c.resume >= c.pause {
        // Name the key the user set; with both or neither set, the resume
        // threshold is the one that must move below the other.
        let k = if s.ideal_pause.is_some() && s.ideal_resume.is_none() {
            "ideal_pause"
        } else {
            "ideal_resume"
        };
        return Err(cx.err(
            &key(k),
            format!(
                "ideal_resume ({} B) must be below ideal_pause ({} B)",
                c.resume, c.pause
            ),
        ));
    }
    Ok(FcChoice::IdealPerFlow(c))
}

fn ideal_per_flow_about() -> String {
    let c = IdealPerFlowConfig::default();
    format!(
        "# With fc = \"ideal_per_flow\" (one queue per flow, each paused alone;
# FlowSail §I, §VI-A; docs/per-flow-fc.md; both ends of a link alike, hosts
# in [ports.hosts]; switch ports queue per flow, egress = \"per_flow\"):
# ideal_pause (pause a flow once the ingress holds more of it; default
# {} B), ideal_resume (resume it at or below this; default {} B);
# rdmasim's choices.
",
        c.pause, c.resume
    )
}

/// The comment on `[ports.*]` keys of `rdmasim config --defaults`: every
/// key, the flow-control choices, then the keys some of them take.
pub(super) fn defaults_text() -> String {
    let names: Vec<String> = FC_SCHEMES.iter().map(|f| quoted(f.name)).collect();
    let keys = format!(
        "Keys: xoff, xon (default xoff), headroom (a static buffer of xoff + headroom \
         outside the shared pool), alpha_shift, ecn (true/false), fc ({}), egress \
         (switch ports: {}; default \"classes\"), loss (a probability: random loss of \
         the frames the port sends, e.g. 0.0009765625 = 1/1024). \
         Swing §6.1 for the long-haul values.",
        names.join(" | "),
        EgressChoice::ALL
            .iter()
            .map(|(n, _)| quoted(n))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    let mut out = wrap_comment(&keys, 80);
    for about in FC_SCHEMES.iter().filter_map(|f| f.about) {
        out.push_str(&about());
    }
    out
}

/// `text` as `# ` comment lines of at most `width` characters (a word
/// longer than that alone on its line).
fn wrap_comment(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = String::from("#");
    for word in text.split_whitespace() {
        if line.len() > 1 && line.chars().count() + 1 + word.chars().count() > width {
            out.push_str(&line);
            out.push('\n');
            line = String::from("#");
        }
        line.push(' ');
        line.push_str(word);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The keys only some choices take are the fields of [`PortSection`]
    /// that `port_settings` checks against the choice, no more, no fewer.
    #[test]
    fn the_choices_keys_are_the_checked_port_keys() {
        let all = PortSection {
            cbfc_buffer: Some("1".into()),
            cbfc_update_blocks: Some(1),
            cbfc_update_period: Some("1".into()),
            bifrost_t: Some("1".into()),
            bifrost_h: Some("1".into()),
            bifrost_k: Some(1),
            bifrost_delta: Some("1".into()),
            bifrost_reading: Some("1".into()),
            bifrost_trace: Some(true),
            ideal_pause: Some("1".into()),
            ideal_resume: Some("1".into()),
            queues: Some(1),
            bfc_queues: Some(1),
            bfc_threshold: Some(1.0),
            bfc_hrtt: Some("1".into()),
            bfc_mapping: Some("1".into()),
            flowsail_queues: Some(1),
            flowsail_ql: Some(1.0),
            flowsail_qh: Some(1.0),
            flowsail_hrtt: Some("1".into()),
            flowsail_release: Some(1.0),
            flowsail_mapping: Some("1".into()),
            flowsail_pause_q1: Some(true),
            ..PortSection::default()
        };
        let checked = set_keys!(all; cbfc_buffer, cbfc_update_blocks, cbfc_update_period,
            bifrost_t, bifrost_h, bifrost_k, bifrost_delta, bifrost_reading, bifrost_trace,
            ideal_pause, ideal_resume, queues, bfc_queues, bfc_threshold, bfc_hrtt,
            bfc_mapping, flowsail_queues, flowsail_ql, flowsail_qh, flowsail_hrtt,
            flowsail_release, flowsail_mapping, flowsail_pause_q1);
        let mut declared: Vec<&str> = FC_SCHEMES
            .iter()
            .flat_map(|f| f.keys.iter().copied())
            .collect();
        declared.sort_unstable();
        declared.dedup();
        let mut checked = checked;
        checked.sort_unstable();
        assert_eq!(checked, declared);
    }

    #[test]
    fn lists_read_as_sentences() {
        let l = |v: &[&str]| or_list(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(l(&["a"]), "a");
        assert_eq!(l(&["a", "b"]), "a or b");
        assert_eq!(l(&["a", "b", "c"]), "a, b or c");
        assert_eq!(wrap_comment("one two three", 9), "# one two\n# three\n");
    }
}
