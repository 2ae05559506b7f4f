//! The hosts' settings: `[nic]`, and `[transport]` (how QPs recover lost
//! packets).

use super::ctx::{set_keys, Ctx, R};
use crate::fmt::{fmt_bytes, fmt_delta};
use net::transport::pfc_free::{PfcFreeConfig, PfcFreeQueue, QpType, MAX_PATHS, OFFSET_UNITS};
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
    /// One chunk of this size in flight per QP; default off.
    pub one_chunk_in_flight: Option<String>,
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
    /// The PFC-free transport (Bifröst's UC data path with a software
    /// control path); not the Bifrost flow control.
    PfcFree,
}

impl TransportKind {
    /// The value `transport.kind` takes (and `summary.json`'s `transport`).
    pub fn name(self) -> &'static str {
        match self {
            TransportKind::GoBackN => "go_back_n",
            TransportKind::Irn => "irn",
            TransportKind::PfcFree => "pfc_free",
        }
    }

    /// The kind of `t`.
    pub fn of(t: &Transport) -> TransportKind {
        match t {
            Transport::GoBackN => TransportKind::GoBackN,
            Transport::Irn(_) => TransportKind::Irn,
            Transport::PfcFree(_) => TransportKind::PfcFree,
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
    /// pfc_free: the minimum chunk, UNIT_SIZE.
    pub unit: Option<String>,
    /// pfc_free: the largest chunk.
    pub max_chunk: Option<String>,
    /// pfc_free: messages up to this size go by SEND.
    pub send_max: Option<String>,
    /// pfc_free: bytes per message (the request size).
    pub message: Option<String>,
    /// pfc_free: messages outstanding per connection.
    pub io_depth: Option<u32>,
    /// pfc_free: ACK after this many WQEs.
    pub ack_count: Option<u32>,
    /// pfc_free: ACK after this many bytes.
    pub ack_bytes: Option<String>,
    /// pfc_free: ACK this long after the first pending WQE.
    pub ack_timer: Option<String>,
    /// pfc_free: the ACKs' priority class.
    pub ack_class: Option<u8>,
    /// pfc_free: base_RTT.
    pub base_rtt: Option<String>,
    /// pfc_free: queueing delay at which a chunk is one unit.
    pub chunk_shrink_delay: Option<String>,
    /// pfc_free: the software congestion control on or off.
    pub sw_cc: Option<bool>,
    /// pfc_free: the lowest timeout.
    pub rto_min: Option<String>,
    /// pfc_free: the timeout before the first RTT sample.
    pub rto_init: Option<String>,
    /// pfc_free: the longest timeout (the back-off's cap).
    pub rto_max: Option<String>,
    /// pfc_free: the window a connection starts with.
    pub init_window: Option<String>,
    /// pfc_free: backup QPs per connection.
    pub backups: Option<u32>,
    /// pfc_free: the time to move to a backup QP.
    pub qp_switch: Option<String>,
    /// pfc_free: "lossy" or "lossless", the switch queue of the data.
    pub queue: Option<String>,
    /// pfc_free: the one class whose flows use it (go-back-N for the rest).
    pub class: Option<u8>,
    /// pfc_free: "uc" or "rc", the data QPs' type.
    pub qp_type: Option<String>,
    /// pfc_free RC: the NIC's retry count.
    pub rc_retry: Option<u32>,
    /// pfc_free RC: the NIC's local ACK timeout.
    pub rc_ack_timeout: Option<String>,
    /// pfc_free RC: time to bring a QP back from the error state.
    pub rc_recover: Option<String>,
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
    if let Some(v) = &s.one_chunk_in_flight {
        n.one_chunk_in_flight = Some(cx.positive_bytes("nic.one_chunk_in_flight", v)?);
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

/// `[transport]`; `pfc_given`: whether `[pfc] enabled` and `[pfc]
/// classes` are set.
/// IRN runs on a lossy fabric (Swing §4.2: "we disable PFC on all switches
/// and hosts", as IRN recommends), so choosing it turns PFC off unless
/// `[pfc] enabled` says otherwise; IRN over PFC stays possible, written out.
/// Go-back-N's keys in `[nic]` (`rto`, `nack_interval`, `ack_interval`,
/// `chunk`, `back_to_zero`) are accepted and do not apply to IRN, so a
/// config written from `rdmasim config --defaults` switches by one key.
pub(super) fn build_transport(
    cx: &Ctx<'_>,
    s: &TransportSection,
    pfc_given: (bool, bool),
    net: &mut NetConfig,
) -> R<()> {
    let set = set_keys!(s; bitmap, rto_low, rto_high, rto_low_threshold, unit, max_chunk,
        send_max, message, io_depth, ack_count, ack_bytes, ack_timer, ack_class, base_rtt,
        chunk_shrink_delay, sw_cc, rto_min, rto_init, rto_max, init_window, backups, qp_switch, queue,
        class, qp_type, rc_retry, rc_ack_timeout, rc_recover);
    const IRN_KEYS: &[&str] = &["bitmap", "rto_low", "rto_high", "rto_low_threshold"];
    match s.kind.unwrap_or(TransportKind::GoBackN) {
        TransportKind::GoBackN => {
            cx.only_keys("transport", TransportKind::GoBackN.name(), &set, &[])?;
            net.nic.transport = Transport::GoBackN;
        }
        TransportKind::PfcFree => {
            let irn: Vec<&'static str> = set
                .iter()
                .copied()
                .filter(|k| IRN_KEYS.contains(k))
                .collect();
            cx.only_keys("transport", TransportKind::PfcFree.name(), &irn, &[])?;
            net.nic.transport = Transport::PfcFree(build_pfc_free(cx, s, pfc_given, net)?);
        }
        TransportKind::Irn => {
            let other: Vec<&'static str> = set
                .iter()
                .copied()
                .filter(|k| !IRN_KEYS.contains(k))
                .collect();
            cx.only_keys("transport", TransportKind::Irn.name(), &other, IRN_KEYS)?;
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
            if !pfc_given.0 {
                net.pfc.enabled = false;
            }
        }
    }
    Ok(())
}

/// `[transport] kind = "pfc_free"`: its keys, each checked, and the PFC
/// setting its queue implies: "lossy" turns PFC off unless `[pfc] enabled`
/// is given, and refuses it given as true (a lossless class cannot be the
/// lossy queue); "lossless" needs PFC.
fn build_pfc_free(
    cx: &Ctx<'_>,
    s: &TransportSection,
    (pfc_enabled_given, pfc_classes_given): (bool, bool),
    net: &mut NetConfig,
) -> R<PfcFreeConfig> {
    let mut c = PfcFreeConfig::default();
    if let Some(v) = &s.unit {
        c.unit = cx.positive_bytes("transport.unit", v)?;
    }
    if let Some(v) = &s.max_chunk {
        c.max_chunk = cx.positive_bytes("transport.max_chunk", v)?;
    }
    if c.unit > c.max_chunk {
        let key = if s.unit.is_some() {
            "transport.unit"
        } else {
            "transport.max_chunk"
        };
        return Err(cx.err(
            key,
            format!(
                "the minimum chunk (unit = {}) is above the maximum chunk (max_chunk = {})",
                fmt_bytes(c.unit),
                fmt_bytes(c.max_chunk)
            ),
        ));
    }
    if c.max_chunk % c.unit != 0 {
        return Err(cx.err(
            "transport.max_chunk",
            format!(
                "must be a whole number of units (unit = {}): every chunk is one",
                fmt_bytes(c.unit)
            ),
        ));
    }
    if let Some(v) = &s.send_max {
        c.send_max = cx.bytes("transport.send_max", v)?;
    }
    if let Some(v) = &s.message {
        c.message = cx.bytes("transport.message", v)?;
        if c.message > c.max_message() {
            return Err(cx.err(
                "transport.message",
                format!(
                    "{} is above the largest message a WRITE's 10-bit chunk offset can address, \
                     {OFFSET_UNITS} units of {} ({})",
                    fmt_bytes(c.message),
                    fmt_bytes(c.unit),
                    fmt_bytes(c.max_message())
                ),
            ));
        }
    }
    if let Some(n) = s.io_depth {
        if n == 0 {
            return Err(cx.err("transport.io_depth", "must be at least 1 message"));
        }
        c.io_depth = n;
    }
    if let Some(n) = s.ack_count {
        if n == 0 || n > 32 {
            return Err(cx.err(
                "transport.ack_count",
                format!(
                    "{n} WQEs: must be 1 to 32 (an ACK's 32-bit bitmap acknowledges at most 32)"
                ),
            ));
        }
        c.ack_count = n;
    }
    if let Some(v) = &s.ack_bytes {
        c.ack_bytes = cx.positive_bytes("transport.ack_bytes", v)?;
    }
    if let Some(v) = &s.ack_timer {
        c.ack_timer = cx.positive_time("transport.ack_timer", v)?;
    }
    if let Some(k) = s.ack_class {
        if usize::from(k) >= net::wire::N_CLASSES {
            return Err(cx.err(
                "transport.ack_class",
                format!("{k}: a class is 0 to {}", net::wire::N_CLASSES - 1),
            ));
        }
        c.ack_class = k;
    }
    if let Some(v) = &s.base_rtt {
        c.base_rtt = cx.positive_time("transport.base_rtt", v)?;
    }
    if let Some(v) = &s.chunk_shrink_delay {
        c.chunk_shrink_delay = cx.positive_time("transport.chunk_shrink_delay", v)?;
    }
    if let Some(v) = s.sw_cc {
        c.sw_cc = v;
    }
    if let Some(v) = &s.rto_min {
        c.rto_min = cx.positive_time("transport.rto_min", v)?;
    }
    if let Some(v) = &s.rto_init {
        c.rto_init = cx.positive_time("transport.rto_init", v)?;
    }
    if let Some(v) = &s.rto_max {
        c.rto_max = cx.positive_time("transport.rto_max", v)?;
    }
    if c.rto_max < c.rto_min {
        let key = if s.rto_max.is_some() {
            "transport.rto_max"
        } else {
            "transport.rto_min"
        };
        return Err(cx.err(
            key,
            format!(
                "the longest timeout (rto_max = {}) is below the lowest (rto_min = {})",
                fmt_delta(c.rto_max),
                fmt_delta(c.rto_min)
            ),
        ));
    }
    if let Some(v) = &s.init_window {
        let w = cx.positive_bytes("transport.init_window", v)?;
        if w < c.unit {
            return Err(cx.err(
                "transport.init_window",
                format!(
                    "{} is below one unit (unit = {}), the smallest window",
                    fmt_bytes(w),
                    fmt_bytes(c.unit)
                ),
            ));
        }
        c.init_window = Some(w);
    }
    if let Some(n) = s.backups {
        if n >= MAX_PATHS {
            return Err(cx.err(
                "transport.backups",
                format!("{n}: at most {} backup QPs per connection", MAX_PATHS - 1),
            ));
        }
        c.backups = n;
    }
    if let Some(v) = &s.qp_switch {
        c.qp_switch = cx.time("transport.qp_switch", v)?;
    }
    if let Some(t) = &s.qp_type {
        c.qp_type = match t.as_str() {
            "uc" => QpType::Uc,
            "rc" => QpType::Rc,
            other => {
                return Err(cx.err(
                    "transport.qp_type",
                    format!("\"{other}\": \"uc\" or \"rc\""),
                ))
            }
        };
    }
    let rc_keys = [
        ("rc_retry", s.rc_retry.is_some()),
        ("rc_ack_timeout", s.rc_ack_timeout.is_some()),
        ("rc_recover", s.rc_recover.is_some()),
    ];
    if c.qp_type != QpType::Rc {
        if let Some((k, _)) = rc_keys.iter().find(|(_, given)| *given) {
            return Err(cx.err(
                &format!("transport.{k}"),
                "applies to RC data QPs only; set qp_type = \"rc\" or remove it",
            ));
        }
    }
    if let Some(n) = s.rc_retry {
        if n > 7 {
            return Err(cx.err(
                "transport.rc_retry",
                format!("{n}: a QP's retry count is 0 to 7 (a 3-bit field)"),
            ));
        }
        c.rc_retry = n;
    }
    if let Some(v) = &s.rc_ack_timeout {
        c.rc_ack_timeout = cx.positive_time("transport.rc_ack_timeout", v)?;
    }
    if let Some(v) = &s.rc_recover {
        c.rc_recover = cx.time("transport.rc_recover", v)?;
    }
    if let Some(q) = &s.queue {
        c.queue = match q.as_str() {
            "lossy" => PfcFreeQueue::Lossy,
            "lossless" => PfcFreeQueue::Lossless,
            other => {
                return Err(cx.err(
                    "transport.queue",
                    format!("\"{other}\": \"lossy\" or \"lossless\""),
                ))
            }
        };
    }
    if let Some(k) = s.class {
        return pfc_free_class(cx, k, c, (pfc_enabled_given, pfc_classes_given), net);
    }
    match (c.queue, pfc_enabled_given, net.pfc.enabled) {
        (PfcFreeQueue::Lossy, false, _) => net.pfc.enabled = false,
        (PfcFreeQueue::Lossy, true, true) => {
            return Err(cx.err(
                "transport.queue",
                "\"lossy\", but [pfc] enabled = true makes the data's class lossless; \
                 set queue = \"lossless\" or turn PFC off",
            ))
        }
        (PfcFreeQueue::Lossless, true, false) => {
            return Err(cx.err(
                "transport.queue",
                "\"lossless\", but [pfc] enabled = false leaves no lossless class; \
                 set queue = \"lossy\" or turn PFC on",
            ))
        }
        (PfcFreeQueue::Lossless, false, _) => net.pfc.enabled = true,
        _ => {}
    }
    Ok(c)
}

/// `[transport] class = k`: the PFC-free transport carries class `k`'s
/// flows only, beside go-back-N (with `[cc]`) on the others, PFC staying
/// as `[pfc]` sets it (Bifröst §4.3, §4.6.1: a lossless and a lossy class
/// on one port). "lossy" takes `k` out of the classes PFC protects, and
/// refuses a `[pfc] classes` that names it; "lossless" needs PFC on `k`.
fn pfc_free_class(
    cx: &Ctx<'_>,
    k: u8,
    mut c: PfcFreeConfig,
    (pfc_enabled_given, classes_given): (bool, bool),
    net: &mut NetConfig,
) -> R<PfcFreeConfig> {
    let key = "transport.class";
    if k == 0 || usize::from(k) >= net::wire::N_CLASSES {
        return Err(cx.err(
            key,
            format!(
                "{k}: a data class is 1 to {} (0 is the control class)",
                net::wire::N_CLASSES - 1
            ),
        ));
    }
    if k == c.ack_class {
        return Err(cx.err(
            key,
            format!("{k}: the ACKs' class (ack_class) cannot carry data"),
        ));
    }
    let protected = net.pfc.classes >> k & 1 == 1;
    match c.queue {
        PfcFreeQueue::Lossy if net.pfc.enabled && protected && classes_given => {
            return Err(cx.err(
                key,
                format!(
                    "{k} with queue = \"lossy\", but [pfc] classes makes class {k} \
                     lossless-only; leave it out of [pfc] classes or set queue = \"lossless\""
                ),
            ))
        }
        PfcFreeQueue::Lossy => net.pfc.classes &= !(1 << k),
        PfcFreeQueue::Lossless if pfc_enabled_given && !net.pfc.enabled || !protected => {
            return Err(cx.err(
                key,
                format!(
                    "{k} with queue = \"lossless\", but PFC does not protect class {k}; \
                     turn PFC on for it or set queue = \"lossy\""
                ),
            ))
        }
        PfcFreeQueue::Lossless => net.pfc.enabled = true,
    }
    c.class = Some(k);
    Ok(c)
}
