//! What every transport's sender implements ([`Reliability`]) and the
//! sequence state it shares with the NIC.

use crate::config::NicConfig;
use engine::Time;

/// A QP's send sequence, in bytes of the flow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SendSeq {
    /// The first unacknowledged byte: the cumulative acknowledgement.
    pub una: u64,
    /// The next byte to send in order. Go-back-N moves it back to resend;
    /// a selective transport resends through
    /// [`Reliability::retransmission`] and leaves it alone.
    pub nxt: u64,
    /// One past the highest byte sent so far.
    pub max_sent: u64,
}

/// What a retransmission timer did when it fired.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimerOutcome {
    /// Not yet due (progress since it was armed): set the same timer, same
    /// version, for this time.
    pub again_at: Option<Time>,
    /// It expired: the transport marked what to resend; the NIC counts a
    /// timeout and the CC hears of it.
    pub expired: bool,
    /// The NIC looks for its next frame afterwards. Go-back-N's timer asks
    /// for it only when it expired; IRN's every time it runs. A timer that
    /// did nothing gives the NIC nothing new to send, but the extra look
    /// can schedule events, and outputs stay as they were only with
    /// exactly these looks.
    pub look: bool,
    /// The connection moved to a backup QP: the NIC gives the QP a new UDP
    /// source port, so ECMP hashes it onto another path (the PFC-free
    /// transport; Bifröst App. A.3).
    pub reroute: bool,
}

/// The send side of a transport, per QP. Every hook sees the QP's
/// [`SendSeq`]; the NIC updates `una` (and keeps `nxt` at or above it)
/// before [`Reliability::on_ack`] and [`Reliability::on_nack`].
pub trait Reliability {
    /// The first byte of the packet to resend now, if one is due. It goes
    /// before any new data and is not held by the window (a resent packet
    /// adds nothing to what is in flight).
    fn retransmission(&self) -> Option<u64>;

    /// Whether new data at `s.nxt` may go, as far as the transport is
    /// concerned (the NIC checks the window and the CC's own).
    fn may_send_new(&self, s: &SendSeq) -> bool;

    /// A data packet of `payload` bytes at byte `seq` was sent: either the
    /// one [`Reliability::retransmission`] named, or new data at `s.nxt`.
    /// Returns when the retransmission timer should fire, if it is to be
    /// armed now.
    fn on_send(
        &mut self,
        s: &mut SendSeq,
        seq: u64,
        payload: u64,
        now: Time,
        nic: &NicConfig,
    ) -> Option<Time>;

    /// An ACK arrived; `progressed` if its cumulative acknowledgement moved
    /// `s.una` (already done).
    fn on_ack(&mut self, s: &mut SendSeq, progressed: bool, now: Time);

    /// A NACK arrived, with `progressed` as in [`Reliability::on_ack`] and
    /// the SACK it carries (the byte of the packet that triggered it; 0 if
    /// the receiver sends none). Returns whether the CC hears of a loss.
    fn on_nack(
        &mut self,
        s: &mut SendSeq,
        progressed: bool,
        sack: u64,
        now: Time,
        nic: &NicConfig,
    ) -> bool;

    /// After an ACK or NACK, once the CC reacted: when the retransmission
    /// timer should fire, if it is to be armed (or brought forward) now.
    fn timer_after_ack(&mut self, s: &SendSeq, now: Time) -> Option<Time>;

    /// The retransmission timer fired (its current version); `size` is the
    /// flow's length in bytes.
    fn on_timer(&mut self, s: &mut SendSeq, size: u64, now: Time, nic: &NicConfig) -> TimerOutcome;

    /// One past the last byte the packet starting at `seq` may carry (the
    /// NIC also stops at the MTU and the flow's end). A transport that
    /// posts WQEs ends a packet at its WQE's end; the default, none.
    #[inline(always)]
    fn packet_end(&self, _seq: u64) -> u64 {
        u64::MAX
    }

    /// What the data packet just sent ([`Reliability::on_send`]) carries
    /// in its `ext` field: the PFC-free transport's WQE tag (the low 32
    /// bits of its GN); 0 for the others.
    #[inline(always)]
    fn tag(&self) -> u32 {
        0
    }
}
