//! Reliability: how a QP recovers lost packets.
//!
//! Go-back-N RoCEv2 RC as the peer (`RdmaHw`), the default ([`go_back_n`]),
//! and IRN's selective repeat for lossy fabrics ([`irn`]). Each file holds
//! one transport's sender and receiver; the NIC (`nic.rs`) knows neither
//! and calls the hooks below.
//!
//! # Sender
//!
//! A QP keeps its [`SendSeq`] (the byte counters every transport shares:
//! the NIC reads them on each scan of its QPs, for the bytes left and the
//! window) and an [`AnyReliability`], the transport's own state. The NIC
//! calls the [`Reliability`] hooks:
//! - while picking its next frame: [`Reliability::retransmission`] (a
//!   packet to resend goes before new data and is not held by the window)
//!   and [`Reliability::may_send_new`] (the transport's own bound on new
//!   data, such as IRN's BDP-FC);
//! - for each data packet it sends: [`Reliability::on_send`];
//! - for each ACK or NACK of a QP with bytes still unacknowledged, after
//!   the cumulative acknowledgement moved [`SendSeq::una`]:
//!   [`Reliability::on_ack`] or [`Reliability::on_nack`], then, after the
//!   congestion control had the ACK, [`Reliability::timer_after_ack`];
//! - when the retransmission timer fires: [`Reliability::on_timer`].
//!
//! Timers: one retransmission timer per QP, in the QP's timer slot after
//! the CC's (an `Event::QpTimer` with a version; a timer whose version is
//! not the slot's current one is stale and ignored, never cancelled). The
//! transport says when, the NIC schedules: a hook that returns a time asks
//! the NIC to arm the timer for it (the NIC bumps the version, so a pending
//! timer becomes stale); on expiry [`TimerOutcome::again_at`] sets the same
//! version again, later (there was progress since arming). The hooks
//! return rather than schedule so that a transport needs neither the event
//! queue nor the QP's index, and its unit tests drive it alone.
//!
//! Dispatch is static: [`AnyReliability`] is an enum whose `match`
//! inlines into the NIC's per-packet path. Large or rarely used state goes
//! in a box (IRN's), so that the QP stays small.
//!
//! # Receiver
//!
//! [`Receiver`], one per QP at the destination, answers each data packet
//! with an ACK, a NACK (with a SACK, if the transport has them) or nothing.
//!
//! # A new transport
//!
//! A file here with its sender (implementing [`Reliability`]) and its
//! receiver; a variant of [`AnyReliability`] and of [`Receiver`]; its
//! [`Transport`] variant (with its parameters) and the mapping from it in
//! [`AnyReliability::new`] and [`Receiver::new`]. Its defaults belong to
//! the NIC models (`nic/model.rs`).

pub mod go_back_n;
mod hooks;
pub mod irn;
pub mod pfc_free;

pub use go_back_n::{GbnReceiver, GbnSender, RxVerdict};
pub use hooks::{Reliability, SendSeq, TimerOutcome};
pub use irn::{IrnReceiver, IrnRxVerdict, IrnSender, Scoreboard};
pub use pfc_free::{AckBody, PfcFreeConfig, PfcFreeReceiver, PfcFreeSender, SoftRx};

use crate::config::{NicConfig, Transport};
use crate::wire::Packet;
use engine::{Rate, Time};

/// The send-side state of one QP, per [`Transport`].
#[derive(Clone, Debug)]
pub enum AnyReliability {
    /// Go-back-N.
    GoBackN(GbnSender),
    /// IRN (boxed: its bitmap and parameters would make every QP larger).
    Irn(Box<IrnSender>),
    /// The PFC-free transport's software sender (boxed, as IRN's).
    PfcFree(Box<PfcFreeSender>),
}

impl AnyReliability {
    /// Whether the next packet starts a WQE the software posts (the
    /// PFC-free transport's; the hardware transports post none per
    /// packet).
    #[inline]
    pub fn at_wqe_start(&self) -> bool {
        match self {
            AnyReliability::PfcFree(r) => r.at_wqe_start(),
            _ => false,
        }
    }

    /// The sender of a QP of a flow of class `pg` and `size` bytes created
    /// at `now` on a NIC of `line_rate` configured as `nic`.
    pub fn new(nic: &NicConfig, pg: u8, size: u64, line_rate: Rate, now: Time) -> Self {
        match &nic.transport.for_class(pg) {
            Transport::GoBackN => AnyReliability::GoBackN(GbnSender::new(now)),
            Transport::Irn(c) => AnyReliability::Irn(Box::new(IrnSender::new(
                *c,
                u64::from(nic.mtu_payload),
                now,
            ))),
            Transport::PfcFree(c) => AnyReliability::PfcFree(Box::new(PfcFreeSender::new(
                *c,
                u64::from(nic.mtu_payload),
                size,
                line_rate,
                now,
            ))),
        }
    }

    /// A software ACK with body `ack` arrived at `now`: whether it revealed
    /// a loss, and when the timeout should fire, if it is to be armed. Only
    /// the PFC-free transport sends software ACKs.
    pub fn on_soft_ack(
        &mut self,
        s: &mut SendSeq,
        ack: &AckBody,
        now: Time,
    ) -> (bool, Option<Time>) {
        match self {
            AnyReliability::PfcFree(r) => r.on_soft_ack(s, ack, now),
            _ => (false, None),
        }
    }

    /// Write into data packet `pkt`, just sent, what the transport's
    /// packets carry by value: the PFC-free transport's WQE fields
    /// ([`pfc_free::WqeWire`]); nothing for the others.
    #[inline(always)]
    pub fn stamp(&self, pkt: &mut Packet) {
        if let AnyReliability::PfcFree(r) = self {
            let w = r.wire(pkt.seq, u64::from(pkt.payload));
            pkt.ext = w.tag;
            pkt.sent_at = Time(w.pack());
        }
    }

    /// The PFC-free sender, if this is one.
    pub fn pfc_free(&self) -> Option<&PfcFreeSender> {
        match self {
            AnyReliability::PfcFree(r) => Some(r),
            _ => None,
        }
    }
}

/// Each hook passes to the variant's, inlined into the NIC's path.
macro_rules! dispatch {
    ($self:expr, $r:ident => $call:expr) => {
        match $self {
            AnyReliability::GoBackN($r) => $call,
            AnyReliability::Irn($r) => $call,
            AnyReliability::PfcFree($r) => $call,
        }
    };
}

impl Reliability for AnyReliability {
    #[inline]
    fn retransmission(&self) -> Option<u64> {
        dispatch!(self, r => r.retransmission())
    }

    #[inline]
    fn may_send_new(&self, s: &SendSeq) -> bool {
        dispatch!(self, r => r.may_send_new(s))
    }

    #[inline]
    fn on_send(
        &mut self,
        s: &mut SendSeq,
        seq: u64,
        payload: u64,
        now: Time,
        nic: &NicConfig,
    ) -> Option<Time> {
        dispatch!(self, r => r.on_send(s, seq, payload, now, nic))
    }

    #[inline]
    fn on_ack(&mut self, s: &mut SendSeq, progressed: bool, now: Time) {
        dispatch!(self, r => r.on_ack(s, progressed, now))
    }

    #[inline]
    fn on_nack(
        &mut self,
        s: &mut SendSeq,
        progressed: bool,
        sack: u64,
        now: Time,
        nic: &NicConfig,
    ) -> bool {
        dispatch!(self, r => r.on_nack(s, progressed, sack, now, nic))
    }

    #[inline]
    fn timer_after_ack(&mut self, s: &SendSeq, now: Time) -> Option<Time> {
        dispatch!(self, r => r.timer_after_ack(s, now))
    }

    #[inline]
    fn on_timer(&mut self, s: &mut SendSeq, size: u64, now: Time, nic: &NicConfig) -> TimerOutcome {
        dispatch!(self, r => r.on_timer(s, size, now, nic))
    }

    #[inline(always)]
    fn packet_end(&self, seq: u64) -> u64 {
        match self {
            AnyReliability::PfcFree(r) => r.packet_end(seq),
            _ => u64::MAX,
        }
    }

    #[inline(always)]
    fn tag(&self) -> u32 {
        match self {
            AnyReliability::PfcFree(r) => r.tag(),
            _ => 0,
        }
    }
}

/// Warnings for retransmission timeouts that cannot wait for an ACK: a timeout
/// at or below a flow's base round trip fires before the flow's first ACK can
/// arrive, so every such flow resends while its data is still on the way
/// (go-back-N rewinds its window, IRN resends its packets). `rtts_ns` has one
/// base round trip per flow, as the ideal FCT counts it (propagation both ways
/// and one data packet's serialisation per hop, HPCC sim `third.cc`): the first
/// ACK takes at least that long.
pub fn short_timeout_warnings(
    transport: &Transport,
    rto: Option<engine::Delta>,
    rtts_ns: &[u64],
) -> Vec<String> {
    let too_short = |what: &str, timeout: engine::Delta, effect: &str| {
        let hit: Vec<u64> = rtts_ns
            .iter()
            .copied()
            .filter(|&rtt| rtt.saturating_mul(1000) >= timeout.ps())
            .collect();
        let longest = engine::Delta(hit.iter().copied().max()? * 1000);
        Some(format!(
            "{what} = {timeout} is not longer than the base round trip of {} of the {} \
             flows (the longest: {longest}): {effect} before its first ACK can arrive; \
             give a timeout above {longest}",
            hit.len(),
            rtts_ns.len(),
        ))
    };
    match transport {
        Transport::GoBackN => rto
            .and_then(|t| {
                too_short(
                    "[nic] rto",
                    t,
                    "each of them times out and goes back to its first unacked byte",
                )
            })
            .into_iter()
            .collect(),
        Transport::Irn(c) => [
            too_short(
                "[transport] rto_low",
                c.rto_low,
                "each of them, with few packets in flight, times out and resends",
            ),
            too_short(
                "[transport] rto_high",
                c.rto_high,
                "each of them times out and resends",
            ),
        ]
        .into_iter()
        .flatten()
        .collect(),
        // Its timeout follows the measured RTT, at least `rto_min`.
        Transport::PfcFree(_) => Vec::new(),
    }
}

/// What a receiver answers a data packet with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RxReply {
    /// An ACK of the cumulative sequence ([`Receiver::expected`]).
    Ack,
    /// A NACK: the cumulative sequence, and the SACK of the packet that
    /// triggered it (a byte offset; 0 for a receiver that sends none).
    Nack {
        /// The SACKed byte.
        sack: u64,
    },
    /// Nothing.
    Silent,
    /// What a software receiver (the PFC-free transport) asks: an ACK it
    /// built, or its coalescing timer.
    Soft(SoftRx),
}

/// Receive state of one QP, per [`Transport`].
#[derive(Clone, Debug)]
pub enum Receiver {
    /// Go-back-N.
    GoBackN(GbnReceiver),
    /// IRN.
    Irn(IrnReceiver),
    /// The PFC-free transport (boxed: its coalescing state and messages).
    PfcFree(Box<PfcFreeReceiver>),
}

impl Receiver {
    /// The receiver of a QP under `transport`.
    pub fn new(transport: &Transport) -> Self {
        match transport {
            Transport::GoBackN => Receiver::GoBackN(GbnReceiver::default()),
            Transport::Irn(_) => Receiver::Irn(IrnReceiver::default()),
            Transport::PfcFree(c) => Receiver::PfcFree(Box::new(PfcFreeReceiver::new(*c))),
        }
    }

    /// Data packet `pkt` of a flow of `size` bytes arrived (a software
    /// receiver reads its WQE's header from what the packet carries,
    /// [`pfc_free::WqeWire`]).
    #[inline]
    pub fn on_data(&mut self, now: Time, pkt: &Packet, size: u64, nic: &NicConfig) -> RxReply {
        let (seq, payload) = (pkt.seq, u64::from(pkt.payload));
        match self {
            Receiver::GoBackN(r) => match r.on_data(now, seq, payload, nic) {
                RxVerdict::Ack => RxReply::Ack,
                RxVerdict::Nack => RxReply::Nack { sack: 0 },
                RxVerdict::Silent => RxReply::Silent,
            },
            Receiver::Irn(r) => match r.on_data(seq, payload, u64::from(nic.mtu_payload)) {
                IrnRxVerdict::Ack => RxReply::Ack,
                IrnRxVerdict::Nack => RxReply::Nack { sack: seq },
            },
            Receiver::PfcFree(r) => {
                let w = pfc_free::WqeWire::unpack(pkt.ext, pkt.sent_at.ps());
                RxReply::Soft(r.on_wire(now, (seq, payload), pkt.ecn_ce, w, size, pkt.sport))
            }
        }
    }

    /// The coalescing timer of a software receiver, armed as `version`,
    /// fired.
    pub fn on_timer(&mut self, now: Time, version: u32) -> SoftRx {
        match self {
            Receiver::PfcFree(r) => r.on_timer(now, version),
            _ => SoftRx::Nothing,
        }
    }

    /// Messages a software receiver handed to the application.
    pub fn messages_received(&self) -> u64 {
        match self {
            Receiver::PfcFree(r) => r.stats.messages,
            _ => 0,
        }
    }

    /// Receive completions (WQEs a software receiver took whole) since
    /// the host last polled.
    pub fn poll_completions(&mut self) -> u64 {
        match self {
            Receiver::PfcFree(r) => r.poll_completions(),
            _ => 0,
        }
    }

    /// The body of software ACK `serial`, just built, to go with its
    /// frame.
    pub fn take_soft_ack(&mut self, serial: u64) -> Option<AckBody> {
        match self {
            Receiver::PfcFree(r) => r.take_ack(serial),
            _ => None,
        }
    }

    /// The destination port of a software receiver's ACK: the source port
    /// of the last data packet, if one came.
    pub fn soft_ack_port(&self) -> Option<u16> {
        match self {
            Receiver::PfcFree(r) => r.reply_port(),
            _ => None,
        }
    }

    /// Whether a flow of `size` bytes, finished at its sender, was handed
    /// to the application whole, each message exactly once (a software
    /// receiver's check; the hardware transports count bytes only at
    /// the sender).
    pub fn check_delivered(&self, size: u64) -> Result<(), String> {
        match self {
            Receiver::PfcFree(r) => r.check_complete(size),
            _ => Ok(()),
        }
    }

    /// Whether a software receiver's ACK frames are built and parsed by
    /// the hosts (the PFC-free transport's UC mode; its RC mode's are the
    /// NICs').
    pub fn acks_in_software(&self) -> bool {
        match self {
            Receiver::PfcFree(r) => r.acks_in_software(),
            _ => false,
        }
    }

    /// The class a software receiver's ACKs travel in.
    pub fn soft_ack_class(&self) -> u8 {
        match self {
            Receiver::PfcFree(r) => r.ack_class(),
            _ => 0,
        }
    }

    /// The cumulative acknowledgement: every byte below has arrived.
    #[inline]
    pub fn expected(&self) -> u64 {
        match self {
            Receiver::GoBackN(r) => r.expected,
            Receiver::Irn(r) => r.expected,
            Receiver::PfcFree(_) => 0,
        }
    }
}

/// The PFC-free transport's counters, summed over a run's flows.
impl pfc_free::PfcFreeTotals {
    /// The sum over each flow's sender and receiver; `None` if no flow
    /// runs the PFC-free transport.
    pub fn sum<'a>(
        flows: impl Iterator<Item = (&'a AnyReliability, &'a Receiver)>,
    ) -> Option<Self> {
        let mut t = Self::default();
        let mut any = false;
        for (s, r) in flows {
            if let AnyReliability::PfcFree(s) = s {
                any = true;
                let a = &mut t.sender;
                let b = &s.stats;
                a.wqes += b.wqes;
                a.lost_by_ack += b.lost_by_ack;
                a.lost_by_timeout += b.lost_by_timeout;
                a.rtt_samples += b.rtt_samples;
                a.qp_switches += b.qp_switches;
                a.timeouts += b.timeouts;
                a.acks += b.acks;
                if let Some(rc) = s.rc_stats() {
                    t.rc.get_or_insert_with(Default::default).add(&rc);
                }
            }
            if let Receiver::PfcFree(r) = r {
                any = true;
                let a = &mut t.receiver;
                let b = &r.stats;
                a.messages += b.messages;
                a.bytes += b.bytes;
                a.placed += b.placed;
                a.oos += b.oos;
                a.duplicates += b.duplicates;
                a.wqes += b.wqes;
                a.acks += b.acks;
                a.acked_entries += b.acked_entries;
                if let Some(rc) = r.rc_stats() {
                    t.rc.get_or_insert_with(Default::default).add(&rc);
                }
            }
        }
        any.then_some(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::IrnConfig;
    use engine::Delta;

    #[test]
    fn a_timeout_at_or_below_a_base_round_trip_is_named_with_its_flows() {
        let rtts = [12_720, 800_000, 400_000];
        // Go-back-N: 1 ms waits for every flow; 400 us does not for two
        // (one's round trip is exactly 400 us).
        assert!(
            short_timeout_warnings(&Transport::GoBackN, Some(Delta::from_ms(1)), &rtts).is_empty()
        );
        assert!(short_timeout_warnings(&Transport::GoBackN, None, &rtts).is_empty());
        let w = short_timeout_warnings(&Transport::GoBackN, Some(Delta::from_us(400)), &rtts);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with("[nic] rto = 400us is not longer than the base round trip of 2 of the 3 flows (the longest: 800us)"),
            "{}",
            w[0]
        );
        // IRN-intra's timeouts on inter-DC flows: both are too short.
        let w = short_timeout_warnings(&Transport::Irn(IrnConfig::default()), None, &rtts);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].starts_with("[transport] rto_low = 13us"), "{}", w[0]);
        assert!(w[1].starts_with("[transport] rto_high = 140us"), "{}", w[1]);
        // On the intra-DC flow alone, they wait for its ACK.
        assert!(
            short_timeout_warnings(&Transport::Irn(IrnConfig::default()), None, &rtts[..1])
                .is_empty()
        );
    }

    /// The QP carries its transport's state on the per-packet path: IRN's
    /// is boxed, and go-back-N's (a timer) fits in two words.
    #[test]
    fn send_state_stays_two_words() {
        assert_eq!(std::mem::size_of::<AnyReliability>(), 16);
    }
}
