//! Go-back-N, as the peer's `RdmaHw` (HPCC sim `rdma-hw.cc`).
//!
//! Receiver (`ReceiverCheckSeq`): in order, advance and ACK. A gap: NACK
//! carrying the expected sequence, at most once per `nack_interval` for the
//! same expected value. Duplicate: ignore (the peer), or re-ACK when
//! retransmission timeouts are on.
//!
//! Sender: a NACK sends it back to its first unacked byte (to the chunk
//! boundary below it with `back_to_zero`). With [`NicConfig::rto`]
//! (rdmasim's, not the peer's) one timer per QP, armed by the first send
//! while none is pending, expires `rto` after the last cumulative-ACK
//! progress (or its arming) and sends the QP back to its first unacked
//! byte as well.

use super::hooks::{Reliability, SendSeq, TimerOutcome};
use crate::config::NicConfig;
use engine::Time;

/// Send state of one QP: its retransmission timer. The rest of go-back-N's
/// state is the QP's [`SendSeq`].
#[derive(Clone, Copy, Debug)]
pub struct GbnSender {
    /// A timer is pending.
    rto_armed: bool,
    /// The last cumulative-ACK progress, or the arming of the timer: the
    /// timer expires `rto` after it.
    last_progress: Time,
}

impl GbnSender {
    /// The sender of a QP created at `now`.
    pub fn new(now: Time) -> Self {
        GbnSender {
            rto_armed: false,
            last_progress: now,
        }
    }
}

impl Reliability for GbnSender {
    #[inline]
    fn retransmission(&self) -> Option<u64> {
        None
    }

    #[inline]
    fn may_send_new(&self, _: &SendSeq) -> bool {
        true
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
        debug_assert_eq!(seq, s.nxt, "go-back-N sends in order");
        s.nxt += payload;
        s.max_sent = s.max_sent.max(s.nxt);
        let rto = nic.rto?;
        if self.rto_armed {
            return None;
        }
        self.rto_armed = true;
        self.last_progress = now;
        Some(now + rto)
    }

    #[inline]
    fn on_ack(&mut self, _: &mut SendSeq, progressed: bool, now: Time) {
        if progressed {
            self.last_progress = now;
        }
    }

    fn on_nack(
        &mut self,
        s: &mut SendSeq,
        progressed: bool,
        _sack: u64,
        now: Time,
        nic: &NicConfig,
    ) -> bool {
        self.on_ack(s, progressed, now);
        s.nxt = if nic.back_to_zero {
            s.una / nic.chunk * nic.chunk
        } else {
            s.una
        };
        true
    }

    #[inline]
    fn timer_after_ack(&mut self, _: &SendSeq, _: Time) -> Option<Time> {
        // An ACK neither arms nor moves the timer: its progress makes a
        // pending one wait longer when it fires.
        None
    }

    fn on_timer(&mut self, s: &mut SendSeq, size: u64, now: Time, nic: &NicConfig) -> TimerOutcome {
        let Some(rto) = nic.rto else {
            return TimerOutcome::default();
        };
        let deadline = self.last_progress + rto;
        if now < deadline {
            return TimerOutcome {
                again_at: Some(deadline),
                ..TimerOutcome::default()
            };
        }
        self.rto_armed = false;
        if s.una >= s.nxt && s.nxt >= size {
            return TimerOutcome::default();
        }
        // Go back to the first unacknowledged byte.
        s.nxt = s.una;
        TimerOutcome {
            again_at: None,
            expired: true,
            look: true,
            reroute: false,
        }
    }
}

/// What the receiver does with a data packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RxVerdict {
    /// Send an ACK for `expected`.
    Ack,
    /// Send a NACK for `expected`.
    Nack,
    /// Send nothing.
    Silent,
}

/// Receive state of one QP.
#[derive(Clone, Debug, Default)]
pub struct GbnReceiver {
    /// Next byte expected (`ReceiverNextExpectedSeq`).
    pub expected: u64,
    milestone: u64,
    nack_deadline: Time,
    last_nack: Option<u64>,
}

impl GbnReceiver {
    /// Process a data packet of `payload` bytes at offset `seq`.
    pub fn on_data(&mut self, now: Time, seq: u64, payload: u64, cfg: &NicConfig) -> RxVerdict {
        // The peer resets the milestone on every arrival, so any interval
        // ACKs every in-order packet once `ack_interval` bytes arrived.
        self.milestone = cfg.ack_interval;
        if seq == self.expected {
            self.expected += payload;
            if self.expected >= self.milestone {
                self.milestone += cfg.ack_interval;
                RxVerdict::Ack
            } else if self.expected.is_multiple_of(cfg.chunk) {
                RxVerdict::Ack
            } else {
                RxVerdict::Silent
            }
        } else if seq > self.expected {
            if now >= self.nack_deadline || self.last_nack != Some(self.expected) {
                self.nack_deadline = now + cfg.nack_interval;
                self.last_nack = Some(self.expected);
                if cfg.back_to_zero {
                    self.expected = self.expected / cfg.chunk * cfg.chunk;
                }
                RxVerdict::Nack
            } else {
                RxVerdict::Silent
            }
        } else if cfg.rto.is_some() {
            // A duplicate: the sender timed out, so our ACK was probably
            // lost. Re-ACK, as an InfiniBand responder does for duplicate
            // requests; otherwise a lost last ACK stalls the flow for good.
            // Without a timeout (the peer) duplicates are ignored.
            RxVerdict::Ack
        } else {
            RxVerdict::Silent
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Delta;

    #[test]
    fn in_order_acks_gap_nacks_once_per_interval() {
        let cfg = NicConfig::default();
        let mut r = GbnReceiver::default();
        let t = Time::from_ns(10);
        assert_eq!(r.on_data(t, 0, 1000, &cfg), RxVerdict::Ack);
        assert_eq!(r.expected, 1000);
        // 1000..2000 lost.
        assert_eq!(r.on_data(t, 2000, 1000, &cfg), RxVerdict::Nack);
        assert_eq!(r.on_data(t, 3000, 1000, &cfg), RxVerdict::Silent);
        // After the NACK interval the same gap is NACKed again.
        let later = t + cfg.nack_interval;
        assert_eq!(r.on_data(later, 4000, 1000, &cfg), RxVerdict::Nack);
        // Duplicate of an old packet: re-ACKed when the sender has a
        // timeout, ignored as in the peer when it has none.
        assert_eq!(r.on_data(later, 0, 1000, &cfg), RxVerdict::Ack);
        let peer = NicConfig {
            rto: None,
            ..NicConfig::default()
        };
        assert_eq!(r.on_data(later, 0, 1000, &peer), RxVerdict::Silent);
        assert_eq!(r.on_data(later, 1000, 1000, &cfg), RxVerdict::Ack);
        assert_eq!(r.expected, 2000);
    }

    const MTU: u64 = 1000;

    /// Send `n` packets in order, as the NIC does; the timer's arming.
    fn send(g: &mut GbnSender, s: &mut SendSeq, n: u64, now: Time, cfg: &NicConfig) -> Vec<Time> {
        let mut armed = Vec::new();
        for _ in 0..n {
            let seq = s.nxt;
            armed.extend(g.on_send(s, seq, MTU, now, cfg));
        }
        armed
    }

    #[test]
    fn sender_goes_back_to_the_first_unacked_byte_on_a_nack() {
        let cfg = NicConfig::default();
        let t = Time::from_ns(10);
        let mut g = GbnSender::new(Time::ZERO);
        let mut s = SendSeq::default();
        // Five packets: the first send arms the timer, once.
        assert_eq!(send(&mut g, &mut s, 5, t, &cfg), vec![t + cfg.rto.unwrap()]);
        assert_eq!((s.nxt, s.max_sent), (5000, 5000));
        assert_eq!(g.retransmission(), None, "it resends by moving nxt back");
        assert!(g.may_send_new(&s));
        // The NIC moved una to 2000; the NACK rewinds.
        s.una = 2000;
        assert!(g.on_nack(&mut s, true, 0, t, &cfg), "every NACK is a loss");
        assert_eq!((s.nxt, s.max_sent), (2000, 5000));
        // With back_to_zero, to the chunk boundary.
        let chunked = NicConfig {
            back_to_zero: true,
            ..NicConfig::default()
        };
        s.una = 5500;
        s.nxt = 6000;
        g.on_nack(&mut s, true, 0, t, &chunked);
        assert_eq!(s.nxt, 4000);
        assert_eq!(g.timer_after_ack(&s, t), None);
    }

    #[test]
    fn timer_waits_for_progress_then_rewinds() {
        let cfg = NicConfig::default();
        let rto = cfg.rto.unwrap();
        let t0 = Time::from_ns(10);
        let mut g = GbnSender::new(Time::ZERO);
        let mut s = SendSeq::default();
        send(&mut g, &mut s, 3, t0, &cfg);
        // Progress at t1: the timer fires at t0 + rto and waits until t1 + rto.
        let t1 = t0 + Delta::from_us(5);
        s.una = 1000;
        g.on_ack(&mut s, true, t1);
        let out = g.on_timer(&mut s, 10 * MTU, t0 + rto, &cfg);
        assert_eq!(out.again_at, Some(t1 + rto));
        assert!(!out.expired && !out.look);
        // No progress since: it expires and sends the QP back.
        let out = g.on_timer(&mut s, 10 * MTU, t1 + rto, &cfg);
        assert!(out.expired && out.look && out.again_at.is_none());
        assert_eq!(s.nxt, 1000);
        // The next send arms a new timer.
        assert_eq!(
            send(&mut g, &mut s, 1, t1 + rto, &cfg),
            vec![t1 + rto + rto]
        );
        // Everything sent and acknowledged: a timer that fires does nothing.
        s.una = 10 * MTU;
        s.nxt = 10 * MTU;
        let out = g.on_timer(&mut s, 10 * MTU, t1 + rto + rto, &cfg);
        assert_eq!(out, TimerOutcome::default());
        // Without a timeout, sends arm none.
        let peer = NicConfig {
            rto: None,
            ..NicConfig::default()
        };
        let mut g = GbnSender::new(Time::ZERO);
        let mut s = SendSeq::default();
        assert!(send(&mut g, &mut s, 3, t0, &peer).is_empty());
    }
}
