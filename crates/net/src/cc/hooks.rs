//! What every congestion control implements ([`CongestionControl`]) and
//! what it is handed: the path it starts on, ACK samples, timer requests.

use crate::wire::IntHop;
use engine::{Delta, Rate, Time};

/// Timer slots a controller may use (index into [`TimerRequests`]).
pub const N_CC_TIMERS: usize = 4;

/// Timers a controller asks the QP to arm: slot → absolute time.
#[derive(Clone, Copy, Debug, Default)]
pub struct TimerRequests {
    /// `Some(t)`: (re-)arm this slot at `t`, cancelling any earlier arming.
    pub arm: [Option<Time>; N_CC_TIMERS],
}

impl TimerRequests {
    /// Arm `slot` at `at`.
    pub fn set(&mut self, slot: usize, at: Time) {
        self.arm[slot] = Some(at);
    }
}

/// What a controller knows about its QP's path when it is created.
#[derive(Clone, Copy, Debug)]
pub struct CcEnv {
    /// The NIC's line rate: every QP starts there (the peer's
    /// `RdmaHw::AddQueuePair`).
    pub line_rate: Rate,
    /// Base RTT the scheme uses (the peer's maxRtt with `GLOBAL_T 1`, else
    /// the pair's base RTT, as `third.cc` computes them).
    pub base_rtt: Delta,
    /// Bandwidth-delay product matching `base_rtt`, bytes (the peer's
    /// maxBdp or the pair's BDP).
    pub bdp: u64,
    /// Payload bytes per packet.
    pub mtu: u32,
    /// Seed of the QP's own random stream (derived from the run seed and
    /// the flow id).
    pub rng_seed: u64,
}

/// The path the controllers' unit tests share: a 100 Gb/s NIC, a 10 µs
/// base RTT and its 125 kB BDP, 1000-byte packets.
#[cfg(test)]
pub(crate) fn test_env() -> CcEnv {
    CcEnv {
        line_rate: Rate::gbps(100),
        base_rtt: Delta::from_us(10),
        bdp: 125_000,
        mtu: 1000,
        rng_seed: 0,
    }
}

/// One acknowledgement (or NACK) as the sender sees it.
#[derive(Clone, Copy, Debug)]
pub struct AckSample<'a> {
    /// Cumulative: next byte the receiver expects.
    pub seq: u64,
    /// Bytes newly acknowledged by this ACK.
    pub newly_acked: u64,
    /// Round-trip time of the data packet that triggered this ACK (its send
    /// time is echoed back; the TIMELY timestamp of the peer).
    pub rtt: Delta,
    /// Whether the receiver echoed ECN-CE (the peer's CNP flag).
    pub ecn_echo: bool,
    /// The sender's next sequence to send when the ACK arrives.
    pub snd_nxt: u64,
    /// In-band telemetry copied from the data packet, one entry per switch
    /// egress on its path (HPCC); empty when INT is off.
    pub int: &'a [IntHop],
    /// HPCC-PINT's encoded path utilisation (0 = none).
    pub pint: u16,
}

/// What every congestion controller can be told and asked.
///
/// Every hook has a no-op default, as in smoltcp's `Controller`. ACKs carry
/// the RTT sample and the INT stack ([`AckSample`]); NACKs are delivered to
/// both `on_ack` (the peer runs its CC on them) and `on_nack`.
pub trait CongestionControl {
    /// Current pacing rate.
    fn rate(&self) -> Rate;
    /// The scheme's own window in bytes, if it limits bytes in flight.
    fn window(&self) -> Option<u64> {
        None
    }
    /// Whether a rate change shifts the QP's next send time by the change in
    /// the last packet's serialisation time (the peer's `ChangeRate`, used by
    /// every scheme but DCQCN).
    fn shifts_pacing(&self) -> bool {
        true
    }
    /// An ACK (or NACK) arrived.
    fn on_ack(&mut self, _now: Time, _ack: &AckSample<'_>, _t: &mut TimerRequests) {}
    /// A NACK arrived (a loss was detected at the receiver).
    fn on_nack(&mut self, _now: Time, _t: &mut TimerRequests) {}
    /// A congestion notification arrived (CNP, or an ACK with ECN echo).
    fn on_cnp(&mut self, _now: Time, _t: &mut TimerRequests) {}
    /// The retransmission timer expired.
    fn on_timeout(&mut self, _now: Time, _t: &mut TimerRequests) {}
    /// A timer armed through [`TimerRequests`] fired.
    fn on_timer(&mut self, _now: Time, _slot: usize, _t: &mut TimerRequests) {}
    /// A data packet of `bytes` (frame) left the NIC.
    fn on_send(&mut self, _now: Time, _bytes: u64) {}
}
