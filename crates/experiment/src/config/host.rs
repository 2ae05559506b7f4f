//! `[host]`: the hosts' CPU model (`net::host_cpu`): cores per host and
//! the cost of each operation of the PFC-free transport's software path.

use super::ctx::{Ctx, R};
use net::{NetConfig, Transport};
use serde::Deserialize;

/// `[host]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostSection {
    /// Cores per host; 0 (the default): no CPU model.
    pub cores: Option<u32>,
    /// Posting one WQE.
    pub post_wqe: Option<String>,
    /// Polling one completion.
    pub poll_cqe: Option<String>,
    /// Building one software ACK.
    pub build_ack: Option<String>,
    /// Parsing one software ACK.
    pub parse_ack: Option<String>,
}

pub(super) fn build_host(cx: &Ctx<'_>, s: &HostSection, net: &mut NetConfig) -> R<()> {
    let h = &mut net.host;
    if let Some(n) = s.cores {
        if n > 4096 {
            return Err(cx.err("host.cores", "must be at most 4096"));
        }
        h.cores = n;
    }
    if let Some(v) = &s.post_wqe {
        h.post_wqe = cx.time("host.post_wqe", v)?;
    }
    if let Some(v) = &s.poll_cqe {
        h.poll_cqe = cx.time("host.poll_cqe", v)?;
    }
    if let Some(v) = &s.build_ack {
        h.build_ack = cx.time("host.build_ack", v)?;
    }
    if let Some(v) = &s.parse_ack {
        h.parse_ack = cx.time("host.parse_ack", v)?;
    }
    if h.cores > 0 && !matches!(net.nic.transport, Transport::PfcFree(_)) {
        return Err(cx.err(
            "host.cores",
            "the host CPU model costs the PFC-free transport's software path: it needs \
             [transport] kind = \"pfc_free\"",
        ));
    }
    Ok(())
}
