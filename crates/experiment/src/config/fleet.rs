//! `[dcqcn_fleet]`: DCQCN per NIC generation on listed hosts (Azure §7.2;
//! `net::cc::DcqcnFleet`).

use super::ctx::{Ctx, R};
use engine::Delta;
use net::cc::{CcConfig, DcqcnFleet, DcqcnGen};
use net::NetConfig;
use serde::Deserialize;

/// Default Gen1 NP coalescing interval (DCQCN §3, the NP algorithm: 50 µs; the paper
/// gives none).
pub(super) const DEFAULT_GEN1_CNP_INTERVAL: Delta = Delta::from_us(50);

/// `[dcqcn_fleet]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DcqcnFleetSection {
    /// Hosts with Gen1 NICs.
    pub gen1: Option<Vec<u32>>,
    /// Hosts with Gen2 NICs.
    pub gen2: Option<Vec<u32>>,
    /// Hosts with Gen3 NICs.
    pub gen3: Option<Vec<u32>>,
    /// Gen1's NP coalescing interval.
    pub gen1_cnp_interval: Option<String>,
    /// The interoperability fix on Gen2/3.
    pub interop_fix: Option<bool>,
}

pub(super) fn build_fleet(
    cx: &Ctx<'_>,
    s: &DcqcnFleetSection,
    topo: &topo::Topology,
    net: &mut NetConfig,
) -> R<()> {
    if !matches!(net.cc, CcConfig::Dcqcn(_)) {
        return Err(cx.err(
            "dcqcn_fleet",
            "NIC generations set DCQCN's behaviour; it needs [cc] kind = \"dcqcn\"",
        ));
    }
    let mut hosts: Vec<(u32, DcqcnGen)> = Vec::new();
    for (key, list, g) in [
        ("gen1", &s.gen1, DcqcnGen::Gen1),
        ("gen2", &s.gen2, DcqcnGen::Gen2),
        ("gen3", &s.gen3, DcqcnGen::Gen3),
    ] {
        for &h in list.iter().flatten() {
            let path = format!("dcqcn_fleet.{key}");
            if h as usize >= topo.kinds.len() || !topo.is_host(h) {
                return Err(cx.err(&path, format!("node {h} is not a host")));
            }
            if hosts.iter().any(|&(o, _)| o == h) {
                return Err(cx.err(&path, format!("host {h} is listed twice")));
            }
            hosts.push((h, g));
        }
    }
    let gen1_cnp_interval = match &s.gen1_cnp_interval {
        Some(v) => cx.positive_time("dcqcn_fleet.gen1_cnp_interval", v)?,
        None => DEFAULT_GEN1_CNP_INTERVAL,
    };
    net.dcqcn_fleet = Some(DcqcnFleet {
        hosts,
        gen1_cnp_interval,
        interop_fix: s.interop_fix.unwrap_or(false),
    });
    Ok(())
}
