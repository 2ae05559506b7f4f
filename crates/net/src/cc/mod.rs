//! Congestion control: one controller per QP, chosen by [`CcConfig`].
//!
//! A controller never touches the event queue. It hears about ACKs, NACKs,
//! CNPs (the peer's ECN echo on ACKs), INT stacks, RTT samples and its own
//! timers; it reports a pacing rate, optionally a window, and asks for timers
//! through [`TimerRequests`]. The QP arms those timers with a version stamp,
//! so a re-armed timer's old event is ignored when it fires.
//!
//! Adding a scheme: a file here, a variant in [`AnyCc`] and [`CcConfig`].

mod dcqcn;
mod none;

pub use dcqcn::{Dcqcn, DcqcnConfig};
pub use none::LineRate;

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

/// One acknowledgement as the sender sees it.
#[derive(Clone, Copy, Debug)]
pub struct AckSample {
    /// Cumulative: next byte the receiver expects.
    pub seq: u64,
    /// Bytes newly acknowledged by this ACK.
    pub newly_acked: u64,
    /// Round-trip time of the packet that triggered this ACK.
    pub rtt: Delta,
    /// Whether the receiver echoed ECN-CE (the peer's CNP flag).
    pub ecn_echo: bool,
}

/// What every congestion controller can be told and asked.
///
/// Every hook has a no-op default, as in smoltcp's `Controller`.
pub trait CongestionControl {
    /// Current pacing rate.
    fn rate(&self) -> Rate;
    /// Current window in bytes, if the scheme limits bytes in flight.
    fn window(&self) -> Option<u64> {
        None
    }
    /// An ACK arrived.
    fn on_ack(&mut self, _now: Time, _ack: &AckSample, _t: &mut TimerRequests) {}
    /// A NACK arrived (a loss was detected at the receiver).
    fn on_nack(&mut self, _now: Time, _t: &mut TimerRequests) {}
    /// A congestion notification arrived (CNP, or an ACK with ECN echo).
    fn on_cnp(&mut self, _now: Time, _t: &mut TimerRequests) {}
    /// A timer armed through [`TimerRequests`] fired.
    fn on_timer(&mut self, _now: Time, _slot: usize, _t: &mut TimerRequests) {}
    /// A data packet of `bytes` (frame) left the NIC.
    fn on_send(&mut self, _now: Time, _bytes: u64) {}
}

/// Which congestion control every QP runs, with its parameters.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum CcConfig {
    /// Send at line rate; no reaction to congestion.
    #[default]
    None,
    /// DCQCN, the peer's Mellanox flavour (`CC_MODE 1`).
    Dcqcn(DcqcnConfig),
}

impl CcConfig {
    /// Short name for reports.
    pub fn name(&self) -> &'static str {
        match self {
            CcConfig::None => "none",
            CcConfig::Dcqcn(_) => "dcqcn",
        }
    }
    /// A fresh controller for a QP on a NIC of `line_rate`.
    pub fn build(&self, line_rate: Rate) -> AnyCc {
        match self {
            CcConfig::None => AnyCc::None(LineRate::new(line_rate)),
            CcConfig::Dcqcn(c) => AnyCc::Dcqcn(Dcqcn::new(c.clone(), line_rate)),
        }
    }
    /// Whether switches should mark ECN for this scheme to work.
    pub fn uses_ecn(&self) -> bool {
        matches!(self, CcConfig::Dcqcn(_))
    }
}

/// A controller of any kind: a closed set, dispatched by `match` (no `dyn`
/// on the per-packet path).
#[derive(Clone, Debug)]
pub enum AnyCc {
    /// Line rate.
    None(LineRate),
    /// DCQCN.
    Dcqcn(Dcqcn),
}

macro_rules! each {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            AnyCc::None($c) => $e,
            AnyCc::Dcqcn($c) => $e,
        }
    };
}

impl CongestionControl for AnyCc {
    #[inline]
    fn rate(&self) -> Rate {
        each!(self, c => c.rate())
    }
    #[inline]
    fn window(&self) -> Option<u64> {
        each!(self, c => c.window())
    }
    fn on_ack(&mut self, now: Time, ack: &AckSample, t: &mut TimerRequests) {
        each!(self, c => c.on_ack(now, ack, t))
    }
    fn on_nack(&mut self, now: Time, t: &mut TimerRequests) {
        each!(self, c => c.on_nack(now, t))
    }
    fn on_cnp(&mut self, now: Time, t: &mut TimerRequests) {
        each!(self, c => c.on_cnp(now, t))
    }
    fn on_timer(&mut self, now: Time, slot: usize, t: &mut TimerRequests) {
        each!(self, c => c.on_timer(now, slot, t))
    }
    fn on_send(&mut self, now: Time, bytes: u64) {
        each!(self, c => c.on_send(now, bytes))
    }
}
