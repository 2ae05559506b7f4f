//! Go-back-N receiver, as the peer's `RdmaHw::ReceiverCheckSeq` (§2.2).
//!
//! In order: advance and ACK. A gap: NACK carrying the expected sequence, at
//! most once per `nack_interval` for the same expected value. Duplicate:
//! ignore (the peer), or re-ACK when retransmission timeouts are on. The sender answers a NACK by going back to its first unacked byte.

use crate::config::NicConfig;
use engine::Time;

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
}
