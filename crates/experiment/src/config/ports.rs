//! `[ports.<class>]` and `[[ports.at]]`: buffer and flow-control settings
//! of groups of ports, replacing the switch-wide ones.

use super::ctx::{set_keys, Ctx, R};
use net::{NetConfig, PfcMode};
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
    /// `"pfc"` | `"lossy"` | `"obey_only"` | `"cbfc"` | `"cbfc_ideal"` |
    /// `"bifrost"`.
    pub fc: Option<String>,
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
    let mut out = Vec::new();
    for (i, l) in topo.links.iter().enumerate() {
        for (node, at_b) in [(l.a, false), (l.b, true)] {
            if topo.is_host(node) != (class == "hosts") {
                continue;
            }
            let take = match (class, layout) {
                ("hosts", _) => true,
                ("fabric", _) => !special(node),
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
    use net::{FcChoice, PortRule, PortSettings};
    // Relays (seed-001 §3.2): the L port relays the PFC frames it receives;
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
        let set = set_keys!(h; node, port, xoff, xon, headroom, alpha_shift, ecn);
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
        ("dci", &s.dci),
        ("relay_access", &s.relay_access),
        ("long_haul", &s.long_haul),
    ];
    for (class, sec) in groups {
        let Some(sec) = sec else { continue };
        let path = format!("ports.{class}");
        if !["fabric", "hosts"].contains(&class) && layout.is_none() {
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
        let Some(FcChoice::Bifrost(b)) = &r.settings.fc else {
            continue;
        };
        let l = &topo.links[r.link as usize];
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
    use net::FcChoice;
    let key = |k: &str| format!("{path}.{k}");
    let bytes = |k: &str, v: &Option<String>| -> R<Option<u64>> {
        v.as_ref().map(|v| cx.bytes(&key(k), v)).transpose()
    };
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
    let fc_name = s.fc.as_deref().unwrap_or("");
    let cbfc_keys = set_keys!(s; cbfc_buffer, cbfc_update_blocks, cbfc_update_period);
    let bifrost_keys = set_keys!(s; bifrost_t, bifrost_h, bifrost_k, bifrost_delta,
        bifrost_reading, bifrost_trace);
    if let Some(k) = cbfc_keys.first().filter(|_| !fc_name.starts_with("cbfc")) {
        return Err(cx.err(&key(k), "only with fc = \"cbfc\" or \"cbfc_ideal\""));
    }
    if let Some(k) = bifrost_keys.first().filter(|_| fc_name != "bifrost") {
        return Err(cx.err(&key(k), "only with fc = \"bifrost\""));
    }
    let fc = match s.fc.as_deref() {
        None => None,
        Some("pfc") => Some(FcChoice::Pfc(mode)),
        Some("lossy") => Some(FcChoice::Lossy),
        Some("obey_only") => Some(FcChoice::PfcObeyOnly(mode)),
        Some(v @ ("cbfc" | "cbfc_ideal")) => {
            let buffer = match &s.cbfc_buffer {
                Some(b) => cx.positive_bytes(&key("cbfc_buffer"), b)?,
                None => match xoff {
                    Some(x) => x + bytes("headroom", &s.headroom)?.unwrap_or(0),
                    None => {
                        return Err(cx.err(
                            &key("cbfc_buffer"),
                            "missing: the buffer this ingress advertises (or give xoff)",
                        ))
                    }
                },
            };
            let mut c = if v == "cbfc" {
                net::fc::CbfcConfig::real(buffer)
            } else {
                net::fc::CbfcConfig::ideal(buffer)
            };
            if let Some(b) = s.cbfc_update_blocks {
                if b == 0 {
                    return Err(cx.err(&key("cbfc_update_blocks"), "must be at least 1"));
                }
                c.update_blocks = b;
            }
            if let Some(t) = &s.cbfc_update_period {
                c.update_period = cx.positive_time(&key("cbfc_update_period"), t)?;
            }
            Some(FcChoice::Cbfc(c))
        }
        Some("bifrost") => {
            let mut b = net::fc::BifrostConfig::default();
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
                b.reading = match r.as_str() {
                    "ledger" => net::fc::BifrostReading::Ledger,
                    "clamped" => net::fc::BifrostReading::Clamped,
                    "literal" => net::fc::BifrostReading::Literal,
                    _ => {
                        return Err(cx.err(
                            &key("bifrost_reading"),
                            format!("'{r}' is not \"ledger\", \"clamped\" or \"literal\""),
                        ))
                    }
                };
            }
            b.trace = s.bifrost_trace.unwrap_or(false);
            Some(FcChoice::Bifrost(b))
        }
        Some(v) => {
            return Err(cx.err(
                &key("fc"),
                format!(
                    "'{v}' is not a scheme; use \"pfc\", \"lossy\", \"obey_only\", \"cbfc\", \
                     \"cbfc_ideal\" or \"bifrost\""
                ),
            ))
        }
    };
    Ok(net::PortSettings {
        xoff,
        xon,
        headroom: bytes("headroom", &s.headroom)?,
        alpha_shift: s.alpha_shift,
        ecn: s.ecn,
        fc,
        relay_pfc: false,
    })
}
