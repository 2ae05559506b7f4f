//! IRN: selective repeat for RDMA over a lossy fabric.
//!
//! Heads up: read IRN itself, Swing §2.1 (IRN as Swing describes it), §4.2
//! (its static bitmap on long links, Fig. 6) and §6.1 (its two
//! configurations), and Bifrost §III-C and §VI-B. The rules below are IRN's;
//! where the papers are silent the choice is rdmasim's and says so.
//!
//! Sequence numbers are packet sequence numbers (PSNs): packet `p` of a flow
//! carries bytes `p·MTU ..` of it. ACKs carry the cumulative acknowledgement
//! in bytes, as go-back-N's do.
//!
//! Receiver (Swing §2.1: "The receiver sends a SACK message after receiving
//! an out-of-order packet"):
//! - in order: advance the cumulative ACK over every packet the bitmap
//!   already holds, send an ACK;
//! - out of order: set the packet's bit, send a NACK carrying the cumulative
//!   ACK and the sequence of the packet that triggered it (its SACK);
//! - duplicate: re-ACK, so a sender whose ACK was lost learns the state.
//!
//! Every data packet is answered (IRN ACKs per packet; go-back-N's
//! `ack_interval` and `chunk` do not apply).
//!
//! Sender:
//! - BDP-FC (Swing §2.1: "a static bitmap that bounds the number of
//!   in-flight packets"): a new packet is sent only if its PSN is below the
//!   cumulative ACK's PSN + `bitmap_packets`, the span the receiver's bitmap
//!   covers.
//! - Each NACK's SACK is recorded in the sender's own bitmap. The first NACK
//!   enters *loss recovery* and notes the recovery sequence, the highest PSN
//!   sent so far. In recovery a packet counts as lost when it is neither
//!   cumulatively nor selectively acknowledged and some higher PSN was
//!   SACKed. Lost packets are retransmitted, each once per recovery and in
//!   PSN order, before any new packet. Recovery ends when the cumulative ACK
//!   passes the recovery sequence.
//! - Timeouts (Swing §2.1: "the timeout RTO_low of each packet", RTO_high
//!   for other flows): one timer per QP guards the oldest outstanding
//!   packet. It runs from the latest of: the last cumulative-ACK progress,
//!   the last retransmission of that packet, the moment it was armed when
//!   nothing was outstanding; for RTO_low while fewer than N packets are in
//!   flight (unacknowledged and not SACKed), RTO_high otherwise; IRN's rule,
//!   with N = 3 by default. The Swing paper words it as flows "less than
//!   three MTU" long, which the IRN rule covers: such a flow never has three
//!   packets in flight. On expiry the sender enters recovery with every
//!   outstanding un-SACKed packet counted as lost (rdmasim's choice where
//!   the papers are silent: a burst lost at the tail, which no SACK can
//!   reveal, is then resent at once rather than one packet per timeout), and
//!   a retransmission lost again is recovered by the next timeout.

use super::hooks::{Reliability, SendSeq, TimerOutcome};
use crate::config::{IrnConfig, NicConfig};
use engine::{Delta, Time};
use std::collections::VecDeque;

/// One bit per PSN at or above a base that only moves up.
#[derive(Clone, Debug, Default)]
pub struct Bitmap {
    /// PSN of bit 0 of `words[0]`; a multiple of 64.
    base: u64,
    words: VecDeque<u64>,
    /// Bits set.
    count: u64,
}

impl Bitmap {
    /// Set `psn`'s bit; false if it was set already or lies below the base.
    pub fn set(&mut self, psn: u64) -> bool {
        if psn < self.base {
            return false;
        }
        let off = psn - self.base;
        let w = (off / 64) as usize;
        if self.words.len() <= w {
            self.words.resize(w + 1, 0);
        }
        let bit = 1u64 << (off % 64);
        if self.words[w] & bit != 0 {
            return false;
        }
        self.words[w] |= bit;
        self.count += 1;
        true
    }

    /// Whether `psn`'s bit is set.
    pub fn get(&self, psn: u64) -> bool {
        if psn < self.base {
            return false;
        }
        let off = psn - self.base;
        self.words
            .get((off / 64) as usize)
            .is_some_and(|w| w & (1u64 << (off % 64)) != 0)
    }

    /// Forget every bit below `psn`.
    pub fn clear_below(&mut self, psn: u64) {
        while psn >= self.base + 64 {
            match self.words.pop_front() {
                Some(w) => {
                    self.count -= u64::from(w.count_ones());
                    self.base += 64;
                }
                None => {
                    self.base = psn / 64 * 64;
                    return;
                }
            }
        }
        if psn > self.base {
            if let Some(w) = self.words.front_mut() {
                let below = (1u64 << (psn - self.base)) - 1;
                self.count -= u64::from((*w & below).count_ones());
                *w &= !below;
            }
        }
    }

    /// Bits set.
    pub fn count(&self) -> u64 {
        self.count
    }
}

/// What the receiver answers a data packet with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IrnRxVerdict {
    /// An ACK of the cumulative sequence.
    Ack,
    /// A NACK: the cumulative sequence plus this packet's SACK.
    Nack,
}

/// Receive state of one QP.
#[derive(Clone, Debug, Default)]
pub struct IrnReceiver {
    /// Cumulative ACK: every byte below has arrived.
    pub expected: u64,
    /// Packets above `expected` that arrived out of order.
    received: Bitmap,
    /// End of the highest packet received (the last packet may be short).
    high_end: u64,
}

impl IrnReceiver {
    /// Process a data packet of `payload` bytes at byte offset `seq`; `mtu`
    /// is the sender's payload per packet.
    pub fn on_data(&mut self, seq: u64, payload: u64, mtu: u64) -> IrnRxVerdict {
        self.high_end = self.high_end.max(seq + payload);
        if seq < self.expected {
            return IrnRxVerdict::Ack;
        }
        let psn = seq / mtu;
        if seq > self.expected {
            self.received.set(psn);
            return IrnRxVerdict::Nack;
        }
        let mut next = psn + 1;
        while self.received.get(next) {
            next += 1;
        }
        self.received.clear_below(next);
        self.expected = (next * mtu).min(self.high_end);
        IrnRxVerdict::Ack
    }
}

/// The sender's SACK scoreboard, in PSNs: what was selectively
/// acknowledged, whether the sender is in loss recovery and which packets
/// to resend.
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    /// PSNs above the cumulative ACK that were SACKed.
    sacked: Bitmap,
    una_psn: u64,
    in_recovery: bool,
    /// Recovery ends once the cumulative ACK reaches this PSN.
    recovery_psn: u64,
    /// Packets below this PSN that are not acknowledged are lost.
    lost_end: u64,
    /// Next PSN to examine for retransmission in this recovery.
    retx_next: u64,
}

impl Scoreboard {
    /// An ACK or NACK arrived with cumulative ACK `una_psn` (PSN of the first
    /// unacknowledged packet) and, for a NACK, the SACKed PSN. `sent_psn` is
    /// one past the highest PSN sent. True if this NACK started a recovery.
    pub fn on_feedback(&mut self, una_psn: u64, sack: Option<u64>, sent_psn: u64) -> bool {
        let mut entered = false;
        if una_psn > self.una_psn {
            self.una_psn = una_psn;
            self.sacked.clear_below(una_psn);
        }
        if self.in_recovery && self.una_psn >= self.recovery_psn {
            self.in_recovery = false;
        }
        if let Some(s) = sack {
            if s >= self.una_psn {
                self.sacked.set(s);
                if !self.in_recovery {
                    entered = true;
                    self.in_recovery = true;
                    self.recovery_psn = sent_psn;
                    self.retx_next = self.una_psn;
                    self.lost_end = 0;
                }
                // Everything below a SACKed packet that is not itself
                // acknowledged was lost.
                self.lost_end = self.lost_end.max(s);
            }
        }
        self.skip_acked();
        entered
    }

    /// The retransmission timer expired: every outstanding packet not SACKed
    /// is lost.
    pub fn on_timeout(&mut self, sent_psn: u64) {
        self.in_recovery = true;
        self.recovery_psn = sent_psn;
        self.lost_end = sent_psn;
        self.retx_next = self.una_psn;
        self.skip_acked();
    }

    fn skip_acked(&mut self) {
        self.retx_next = self.retx_next.max(self.una_psn);
        while self.retx_next < self.lost_end && self.sacked.get(self.retx_next) {
            self.retx_next += 1;
        }
    }

    /// The next lost packet to retransmit, if any.
    pub fn next_retx(&self) -> Option<u64> {
        (self.in_recovery && self.retx_next < self.lost_end).then_some(self.retx_next)
    }

    /// `psn` (from [`Self::next_retx`]) was retransmitted.
    pub fn retransmitted(&mut self, psn: u64) {
        debug_assert_eq!(Some(psn), self.next_retx());
        self.retx_next = psn + 1;
        self.skip_acked();
    }

    /// BDP-FC: whether new packet `psn` fits in the bitmap.
    pub fn may_send_new(&self, psn: u64, cfg: &IrnConfig) -> bool {
        psn < self.una_psn + u64::from(cfg.bitmap_packets)
    }

    /// Packets in flight: sent, neither cumulatively nor selectively acked.
    pub fn in_flight(&self, sent_psn: u64) -> u64 {
        sent_psn.saturating_sub(self.una_psn) - self.sacked.count()
    }

    /// The timeout for the current number of packets in flight: RTO_low
    /// below N packets, else RTO_high (module docs).
    pub fn rto(&self, sent_psn: u64, cfg: &IrnConfig) -> Delta {
        if self.in_flight(sent_psn) < u64::from(cfg.rto_low_threshold_packets) {
            cfg.rto_low
        } else {
            cfg.rto_high
        }
    }

    /// Whether the sender is in loss recovery.
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }
}

/// Send state of one QP: its [`Scoreboard`], its retransmission timer
/// and IRN's parameters. The QP's [`SendSeq`] holds the bytes; `nxt` is
/// the next new byte, never moved back (`nxt == max_sent`).
#[derive(Clone, Debug)]
pub struct IrnSender {
    board: Scoreboard,
    cfg: IrnConfig,
    /// Payload bytes per packet: packet `p` carries bytes `p·mtu ..`.
    mtu: u64,
    /// A timer is pending.
    rto_armed: bool,
    /// When the timer runs from (module docs).
    last_progress: Time,
    /// When the pending timer expires.
    rto_at: Time,
}

impl IrnSender {
    /// The sender of a QP created at `now`, with `mtu` payload bytes per
    /// packet.
    pub fn new(cfg: IrnConfig, mtu: u64, now: Time) -> Self {
        IrnSender {
            board: Scoreboard::default(),
            cfg,
            mtu,
            rto_armed: false,
            last_progress: now,
            rto_at: Time::ZERO,
        }
    }

    /// One past the highest PSN sent.
    fn sent_psn(&self, s: &SendSeq) -> u64 {
        s.max_sent.div_ceil(self.mtu)
    }

    /// Arm the retransmission timer, or bring it forward: it expires
    /// RTO_low or RTO_high (by the packets in flight now) after the last
    /// cumulative-ACK progress. `None` if nothing is outstanding or the
    /// pending timer comes first (it re-checks when it fires).
    fn arm(&mut self, s: &SendSeq, now: Time) -> Option<Time> {
        if s.una >= s.max_sent {
            return None;
        }
        if !self.rto_armed {
            self.last_progress = now;
        }
        let at = self.last_progress + self.board.rto(self.sent_psn(s), &self.cfg);
        if self.rto_armed && at >= self.rto_at {
            return None;
        }
        self.rto_armed = true;
        self.rto_at = at;
        Some(at)
    }
}

impl Reliability for IrnSender {
    #[inline]
    fn retransmission(&self) -> Option<u64> {
        self.board.next_retx().map(|p| p * self.mtu)
    }

    #[inline]
    fn may_send_new(&self, s: &SendSeq) -> bool {
        self.board.may_send_new(s.nxt / self.mtu, &self.cfg)
    }

    fn on_send(
        &mut self,
        s: &mut SendSeq,
        seq: u64,
        payload: u64,
        now: Time,
        _: &NicConfig,
    ) -> Option<Time> {
        if seq < s.nxt {
            let psn = seq / self.mtu;
            self.board.retransmitted(psn);
            if psn == s.una / self.mtu {
                // The timer guards the oldest outstanding packet from its
                // latest transmission.
                self.last_progress = now;
            }
        } else {
            debug_assert_eq!(seq, s.nxt);
            s.nxt += payload;
            s.max_sent = s.max_sent.max(s.nxt);
        }
        self.arm(s, now)
    }

    fn on_ack(&mut self, s: &mut SendSeq, progressed: bool, now: Time) {
        if progressed {
            self.last_progress = now;
        }
        let sent = self.sent_psn(s);
        self.board.on_feedback(s.una / self.mtu, None, sent);
    }

    fn on_nack(
        &mut self,
        s: &mut SendSeq,
        progressed: bool,
        sack: u64,
        now: Time,
        _: &NicConfig,
    ) -> bool {
        if progressed {
            self.last_progress = now;
        }
        // The receiver NACKs every out-of-order packet: the CC hears of the
        // NACK that starts a recovery (one loss event), as TCP's CC reacts
        // once per recovery.
        let sent = self.sent_psn(s);
        self.board
            .on_feedback(s.una / self.mtu, Some(sack / self.mtu), sent)
    }

    fn timer_after_ack(&mut self, s: &SendSeq, now: Time) -> Option<Time> {
        // Fewer packets in flight may call for RTO_low now.
        self.arm(s, now)
    }

    fn on_timer(&mut self, s: &mut SendSeq, _: u64, now: Time, _: &NicConfig) -> TimerOutcome {
        let look = TimerOutcome {
            look: true,
            ..TimerOutcome::default()
        };
        if s.una >= s.max_sent {
            self.rto_armed = false;
            return look;
        }
        let sent = self.sent_psn(s);
        let deadline = self.last_progress + self.board.rto(sent, &self.cfg);
        if now < deadline {
            // Progress since arming: wait out the rest.
            self.rto_at = deadline;
            return TimerOutcome {
                again_at: Some(deadline),
                ..look
            };
        }
        self.rto_armed = false;
        self.board.on_timeout(sent);
        TimerOutcome {
            expired: true,
            ..look
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MTU: u64 = 1000;

    #[test]
    fn bitmap_counts_and_slides() {
        let mut b = Bitmap::default();
        assert!(b.set(3) && b.set(70) && b.set(200));
        assert!(!b.set(3));
        assert_eq!(b.count(), 3);
        assert!(b.get(70) && !b.get(71));
        b.clear_below(71);
        assert_eq!(b.count(), 1);
        assert!(!b.get(3) && !b.get(70) && b.get(200));
        b.clear_below(10_000);
        assert_eq!(b.count(), 0);
        assert!(!b.get(9_999));
        assert!(b.set(10_000) && b.get(10_000));
    }

    /// Swing §2.1: out-of-order packets are NACKed with their SACK; the packet
    /// that fills the hole moves the cumulative ACK over everything held.
    #[test]
    fn receiver_sacks_out_of_order_and_jumps_on_fill() {
        let mut r = IrnReceiver::default();
        assert_eq!(r.on_data(0, MTU, MTU), IrnRxVerdict::Ack);
        assert_eq!(r.expected, 1000);
        // PSN 1 lost; 2, 3 and the short last packet 4 arrive.
        assert_eq!(r.on_data(2000, MTU, MTU), IrnRxVerdict::Nack);
        assert_eq!(r.on_data(3000, MTU, MTU), IrnRxVerdict::Nack);
        assert_eq!(r.on_data(4000, 500, MTU), IrnRxVerdict::Nack);
        assert_eq!(r.expected, 1000);
        // The retransmission of PSN 1 completes the flow.
        assert_eq!(r.on_data(1000, MTU, MTU), IrnRxVerdict::Ack);
        assert_eq!(r.expected, 4500);
        // A duplicate is re-ACKed.
        assert_eq!(r.on_data(2000, MTU, MTU), IrnRxVerdict::Ack);
    }

    /// A NACK enters recovery; only the holes below the highest SACK are
    /// retransmitted, once each, and recovery ends when the cumulative ACK
    /// passes the recovery sequence.
    #[test]
    fn sender_retransmits_only_holes_below_the_highest_sack() {
        let cfg = IrnConfig::default();
        let mut s = Scoreboard::default();
        // PSNs 0..10 sent; 2 and 5 lost. NACKs for 3, 4 (cum 2), then 6..9.
        assert!(!s.on_feedback(2, None, 10));
        assert_eq!(s.next_retx(), None);
        assert!(
            s.on_feedback(2, Some(3), 10),
            "the first NACK starts recovery"
        );
        assert!(s.in_recovery());
        assert_eq!(s.next_retx(), Some(2));
        assert!(!s.on_feedback(2, Some(4), 10), "later NACKs do not");
        s.retransmitted(2);
        // 5 is not known lost until a higher PSN is SACKed.
        assert_eq!(s.next_retx(), None);
        s.on_feedback(2, Some(6), 10);
        assert_eq!(s.next_retx(), Some(5));
        s.retransmitted(5);
        for p in 7..10 {
            s.on_feedback(2, Some(p), 10);
        }
        assert_eq!(s.next_retx(), None);
        assert_eq!(s.in_flight(10), 2, "2 and 5 are in flight again");
        // Retransmitted 2 arrives: cum ACK 5. Then 5: cum ACK 10.
        s.on_feedback(5, None, 10);
        assert!(s.in_recovery());
        s.on_feedback(10, None, 10);
        assert!(!s.in_recovery());
        assert_eq!(s.in_flight(10), 0);
        assert!(s.may_send_new(10 + 105, &cfg) && !s.may_send_new(10 + 106, &cfg));
    }

    /// IRN's rule: RTO_low while fewer than N packets are in flight.
    #[test]
    fn rto_low_below_n_packets_in_flight() {
        let cfg = IrnConfig::default();
        let mut s = Scoreboard::default();
        assert_eq!(s.rto(2, &cfg), cfg.rto_low);
        assert_eq!(s.rto(3, &cfg), cfg.rto_high);
        // Ten sent, PSN 0 lost, 1..9 SACKed: one packet in flight.
        for p in 1..10 {
            s.on_feedback(0, Some(p), 10);
        }
        assert_eq!(s.in_flight(10), 1);
        assert_eq!(s.rto(10, &cfg), cfg.rto_low);
    }

    /// A timeout counts every outstanding un-SACKed packet as lost.
    #[test]
    fn timeout_resends_everything_not_sacked() {
        let mut s = Scoreboard::default();
        s.on_feedback(1, Some(3), 6);
        s.retransmitted(1);
        s.retransmitted(2);
        assert_eq!(s.next_retx(), None);
        s.on_timeout(6);
        let mut resent = Vec::new();
        while let Some(p) = s.next_retx() {
            resent.push(p);
            s.retransmitted(p);
        }
        assert_eq!(resent, vec![1, 2, 4, 5]);
    }

    /// Send new packets as the NIC does, while IRN lets it; the timer
    /// requests.
    fn send_new(
        x: &mut IrnSender,
        s: &mut SendSeq,
        n: u64,
        now: Time,
        nic: &NicConfig,
    ) -> Vec<Time> {
        let mut armed = Vec::new();
        for _ in 0..n {
            assert!(x.retransmission().is_none() && x.may_send_new(s));
            let seq = s.nxt;
            armed.extend(x.on_send(s, seq, MTU, now, nic));
        }
        armed
    }

    /// Through the hooks: BDP-FC holds new packets, a NACK's hole is resent
    /// first and does not move `nxt`.
    #[test]
    fn hooks_resend_holes_first_and_bound_new_data_by_the_bitmap() {
        let nic = NicConfig::default();
        let cfg = IrnConfig {
            bitmap_packets: 4,
            ..IrnConfig::default()
        };
        let t = Time::from_ns(10);
        let mut x = IrnSender::new(cfg, MTU, Time::ZERO);
        let mut s = SendSeq::default();
        send_new(&mut x, &mut s, 4, t, &nic);
        assert_eq!((s.nxt, s.max_sent), (4000, 4000));
        assert!(!x.may_send_new(&s), "the bitmap spans 4 packets");
        // PSN 0 ACKed (the NIC moved una), PSN 1 lost, 2 SACKed.
        s.una = 1000;
        x.on_ack(&mut s, true, t);
        assert!(x.may_send_new(&s));
        assert!(x.on_nack(&mut s, false, 2000, t, &nic), "recovery starts");
        assert!(!x.on_nack(&mut s, false, 3000, t, &nic), "once");
        assert_eq!(x.retransmission(), Some(1000));
        x.on_send(&mut s, 1000, MTU, t, &nic);
        assert_eq!(x.retransmission(), None);
        assert_eq!(
            (s.nxt, s.max_sent),
            (4000, 4000),
            "a resend is not new data"
        );
    }

    /// The timer: RTO_low while few packets are in flight, RTO_high
    /// otherwise; progress makes it wait; on expiry everything outstanding
    /// is resent.
    #[test]
    fn hooks_arm_and_expire_the_timer() {
        let nic = NicConfig::default();
        let cfg = IrnConfig::default();
        let t0 = Time::from_ns(10);
        let mut x = IrnSender::new(cfg, MTU, Time::ZERO);
        let mut s = SendSeq::default();
        // One packet in flight: RTO_low. Three: RTO_high, later than the
        // pending timer, which re-checks when it fires.
        assert_eq!(
            send_new(&mut x, &mut s, 1, t0, &nic),
            vec![t0 + cfg.rto_low]
        );
        assert!(send_new(&mut x, &mut s, 2, t0, &nic).is_empty());
        let out = x.on_timer(&mut s, 3 * MTU, t0 + cfg.rto_low, &nic);
        assert_eq!(out.again_at, Some(t0 + cfg.rto_high));
        assert!(out.look && !out.expired);
        // An ACK at t1 leaves one packet in flight: RTO_low from t1 comes
        // first and is armed.
        let t1 = t0 + Delta::from_us(20);
        s.una = 2000;
        x.on_ack(&mut s, true, t1);
        assert_eq!(x.timer_after_ack(&s, t1), Some(t1 + cfg.rto_low));
        assert_eq!(x.timer_after_ack(&s, t1), None, "armed already");
        // It expires: PSN 2 is resent, and the next send arms anew.
        let out = x.on_timer(&mut s, 3 * MTU, t1 + cfg.rto_low, &nic);
        assert!(out.expired && out.look && out.again_at.is_none());
        assert_eq!(x.retransmission(), Some(2000));
        let t2 = t1 + cfg.rto_low;
        assert_eq!(
            x.on_send(&mut s, 2000, MTU, t2, &nic),
            Some(t2 + cfg.rto_low)
        );
        // All acknowledged: nothing to arm; a timer that fires stops.
        s.una = 3000;
        x.on_ack(&mut s, true, t2);
        assert_eq!(x.timer_after_ack(&s, t2), None);
        let out = x.on_timer(&mut s, 3 * MTU, t2 + cfg.rto_low, &nic);
        assert_eq!(
            out,
            TimerOutcome {
                look: true,
                ..TimerOutcome::default()
            }
        );
    }
}
