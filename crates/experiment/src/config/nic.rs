//! The hosts' settings: `[nic]`, and `[transport]` (how QPs recover lost
//! packets).

use super::ctx::{set_keys, Ctx, R};
use crate::fmt::{fmt_bytes, fmt_delta};
use net::{IrnConfig, NetConfig, Transport};
use serde::Deserialize;

/// `[nic]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NicSection {
    /// Payload bytes per data packet.
    pub mtu: Option<String>,
    /// Header bytes per data packet.
    pub data_header: Option<String>,
    /// ACK/NACK frame bytes.
    pub ack_bytes: Option<String>,
    /// ACKs in the never-paused class 0.
    pub ack_high_prio: Option<bool>,
    /// Switches carry high-priority ACKs in class 0 too.
    pub switch_ack_high_prio: Option<bool>,
    /// Pace at the CC rate.
    pub rate_bound: Option<bool>,
    /// Fixed window; default none.
    pub window: Option<String>,
    /// NACK spacing.
    pub nack_interval: Option<String>,
    /// ACK every this many bytes.
    pub ack_interval: Option<String>,
    /// Forced ACK boundary.
    pub chunk: Option<String>,
    /// Go back to the chunk boundary on loss.
    pub back_to_zero: Option<bool>,
    /// Window = the BDP (the peer's HAS_WIN).
    pub bdp_window: Option<bool>,
    /// Base RTT and BDP are the maxima over all host pairs (GLOBAL_T).
    pub global_t: Option<bool>,
    /// Scale the window by rate / line rate (VAR_WIN).
    pub var_win: Option<bool>,
    /// Retransmission timeout, a duration or "off".
    pub rto: Option<String>,
}

/// `transport.kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TransportKind {
    /// Go-back-N (the peer).
    GoBackN,
    /// IRN's selective repeat.
    Irn,
}

impl TransportKind {
    /// The value `transport.kind` takes (and `summary.json`'s `transport`).
    pub fn name(self) -> &'static str {
        match self {
            TransportKind::GoBackN => "go_back_n",
            TransportKind::Irn => "irn",
        }
    }

    /// The kind of `t`.
    pub fn of(t: &Transport) -> TransportKind {
        match t {
            Transport::GoBackN => TransportKind::GoBackN,
            Transport::Irn(_) => TransportKind::Irn,
        }
    }
}

/// `[transport]`: how QPs recover lost packets.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransportSection {
    /// Scheme; default `go_back_n`.
    pub kind: Option<TransportKind>,
    /// IRN: bitmap size in packets (the in-flight cap).
    pub bitmap: Option<u32>,
    /// IRN: timeout while few packets are in flight.
    pub rto_low: Option<String>,
    /// IRN: timeout otherwise.
    pub rto_high: Option<String>,
    /// IRN: RTO_low applies below this many packets in flight (IRN's N).
    pub rto_low_threshold: Option<u32>,
}

/// Why a full-size data frame could never enter a switch, if it could
/// not: it is larger than the whole buffer, so the MMU would drop every
/// one (and a lossless run would report drops it cannot avoid).
pub(crate) fn frame_above_buffer(net: &NetConfig) -> Option<String> {
    let frame = u64::from(net.nic.mtu_payload) + u64::from(net.nic.data_header);
    (frame > net.buffer.size).then(|| {
        format!(
            "a full data frame ({} of payload + {} of headers) is larger than the whole switch \
             buffer ({}): every full-size packet would be dropped; lower the MTU or raise the \
             buffer",
            fmt_bytes(u64::from(net.nic.mtu_payload)),
            fmt_bytes(u64::from(net.nic.data_header)),
            fmt_bytes(net.buffer.size),
        )
    })
}

pub(super) fn build_nic(cx: &Ctx<'_>, s: &NicSection, net: &mut NetConfig) -> R<()> {
    let n = &mut net.nic;
    if let Some(v) = &s.mtu {
        n.mtu_payload = cx.bytes_u32("nic.mtu", v, true)?;
    }
    if let Some(v) = &s.data_header {
        n.data_header = cx.bytes_u32("nic.data_header", v, false)?;
    }
    if let Some(v) = &s.ack_bytes {
        n.ack_bytes = cx.bytes_u32("nic.ack_bytes", v, true)?;
    }
    if let Some(v) = s.switch_ack_high_prio {
        n.switch_ack_high_prio = v;
    }
    if let Some(v) = s.ack_high_prio {
        n.ack_high_prio = v;
    }
    if let Some(v) = s.rate_bound {
        n.rate_bound = v;
    }
    if let Some(v) = &s.window {
        n.window = Some(cx.positive_bytes("nic.window", v)?);
    }
    if let Some(v) = &s.nack_interval {
        n.nack_interval = cx.time("nic.nack_interval", v)?;
    }
    if let Some(v) = &s.ack_interval {
        n.ack_interval = cx.positive_bytes("nic.ack_interval", v)?;
    }
    if let Some(v) = &s.chunk {
        n.chunk = cx.positive_bytes("nic.chunk", v)?;
    }
    if let Some(v) = s.back_to_zero {
        n.back_to_zero = v;
    }
    if let Some(v) = s.bdp_window {
        n.bdp_window = v;
    }
    if let Some(v) = s.global_t {
        n.global_t = v;
    }
    if let Some(v) = s.var_win {
        n.var_win = v;
    }
    if let Some(v) = &s.rto {
        n.rto = if v == "off" {
            None
        } else {
            Some(cx.positive_time("nic.rto", v)?)
        };
    }
    Ok(())
}

/// `[transport]`; `pfc_enabled_given`: whether `[pfc] enabled` is set.
/// IRN runs on a lossy fabric (Swing §4.2: "we disable PFC on all switches
/// and hosts", as IRN recommends), so choosing it turns PFC off unless
/// `[pfc] enabled` says otherwise; IRN over PFC stays possible, written out.
/// Go-back-N's keys in `[nic]` (`rto`, `nack_interval`, `ack_interval`,
/// `chunk`, `back_to_zero`) are accepted and do not apply to IRN, so a
/// config written from `rdmasim config --defaults` switches by one key.
pub(super) fn build_transport(
    cx: &Ctx<'_>,
    s: &TransportSection,
    pfc_enabled_given: bool,
    net: &mut NetConfig,
) -> R<()> {
    let set = set_keys!(s; bitmap, rto_low, rto_high, rto_low_threshold);
    match s.kind.unwrap_or(TransportKind::GoBackN) {
        TransportKind::GoBackN => {
            cx.only_keys("transport", TransportKind::GoBackN.name(), &set, &[])?;
            net.nic.transport = Transport::GoBackN;
        }
        TransportKind::Irn => {
            let mut c = IrnConfig::default();
            if let Some(b) = s.bitmap {
                if b == 0 {
                    return Err(cx.err("transport.bitmap", "must be at least 1 packet"));
                }
                c.bitmap_packets = b;
            }
            if let Some(v) = &s.rto_low {
                c.rto_low = cx.positive_time("transport.rto_low", v)?;
            }
            if let Some(v) = &s.rto_high {
                c.rto_high = cx.positive_time("transport.rto_high", v)?;
            }
            if let Some(n) = s.rto_low_threshold {
                c.rto_low_threshold_packets = n;
            }
            if c.rto_low > c.rto_high {
                let key = if s.rto_low.is_some() {
                    "transport.rto_low"
                } else {
                    "transport.rto_high"
                };
                return Err(cx.err(
                    key,
                    format!(
                        "rto_low ({}) is longer than rto_high ({}); IRN's RTO_low is the shorter one",
                        fmt_delta(c.rto_low),
                        fmt_delta(c.rto_high)
                    ),
                ));
            }
            net.nic.transport = Transport::Irn(c);
            if !pfc_enabled_given {
                net.pfc.enabled = false;
            }
        }
    }
    Ok(())
}
