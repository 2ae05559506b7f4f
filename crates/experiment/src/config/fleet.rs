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

/// Default Gen1 go-back-N recovery time after a NACK: Azure §2.4 measured
/// "hundreds of microseconds" to recover a lost packet on Gen1; 200 µs is
/// rdmasim's choice in that range.
pub(super) const DEFAULT_GEN1_LOSS_RECOVERY: Delta = Delta::from_us(200);

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
    /// Packets per burst of Gen1's rate limiter (1: per packet).
    pub gen1_burst: Option<i64>,
    /// Packets per burst of Gen2's rate limiter (default 1, or Gen1's with
    /// the fix).
    pub gen2_burst: Option<i64>,
    /// As `gen2_burst`, for Gen3.
    pub gen3_burst: Option<i64>,
    /// Gen1's go-back-N recovery time after a NACK.
    pub gen1_loss_recovery: Option<String>,
    /// Generations whose NICs have the congestion-leaking bug (Azure §8.3),
    /// by name: `["gen2"]`.
    pub congestion_leaking: Option<Vec<String>>,
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
    let interop_fix = s.interop_fix.unwrap_or(false);
    let burst = |key: &str, v: Option<i64>, default: u32| -> R<u32> {
        match v {
            None => Ok(default),
            Some(n) if (1..=i64::from(u16::MAX)).contains(&n) => Ok(n as u32),
            Some(n) => Err(cx.err(
                &format!("dcqcn_fleet.{key}"),
                format!("{n} packets per burst: must be 1 (per packet) to 65535"),
            )),
        }
    };
    // The paper gives no burst size: per packet unless set. The fix turns
    // Gen1's per-burst limiting on at Gen2/3 (Azure §7.2).
    let gen1_burst = burst("gen1_burst", s.gen1_burst, 1)?;
    let fixed = if interop_fix { gen1_burst } else { 1 };
    let burst_packets = [
        gen1_burst,
        burst("gen2_burst", s.gen2_burst, fixed)?,
        burst("gen3_burst", s.gen3_burst, fixed)?,
    ];
    let gen1_loss_recovery = match &s.gen1_loss_recovery {
        Some(v) => cx.time("dcqcn_fleet.gen1_loss_recovery", v)?,
        None => DEFAULT_GEN1_LOSS_RECOVERY,
    };
    // Off unless listed: the paper's vendor fixed it on every NIC.
    let mut congestion_leaking = [false; 3];
    for name in s.congestion_leaking.iter().flatten() {
        let Some(i) = DcqcnGen::ALL.iter().position(|(n, _)| n == name) else {
            return Err(cx.err(
                "dcqcn_fleet.congestion_leaking",
                format!("unknown NIC generation \"{name}\" (gen1, gen2 or gen3)"),
            ));
        };
        congestion_leaking[i] = true;
    }
    net.dcqcn_fleet = Some(DcqcnFleet {
        hosts,
        gen1_cnp_interval,
        interop_fix,
        burst_packets,
        gen1_loss_recovery,
        congestion_leaking,
    });
    Ok(())
}
