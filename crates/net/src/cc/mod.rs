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
mod dcqcn_gen;
mod dctcp;
mod hooks;
mod hpcc;
mod none;
mod pint;
mod swift;
mod timely;

pub use dcqcn::{Dcqcn, DcqcnConfig};
pub(crate) use dcqcn_gen::BurstPacer;
pub use dcqcn_gen::{DcqcnFleet, DcqcnGen};
pub use dctcp::{Dctcp, DctcpConfig};
pub use hooks::{AckSample, CcEnv, CongestionControl, TimerRequests, N_CC_TIMERS};
pub use hpcc::{Hpcc, HpccConfig};
pub use none::LineRate;
pub use pint::{decode_u, encode_u, Pint, PintConfig, PintPort};
pub use swift::{Swift, SwiftConfig};
pub use timely::{Timely, TimelyConfig};

use engine::{Rate, Time};

/// Which congestion control every QP runs, with its parameters.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum CcConfig {
    /// Send at line rate; no reaction to congestion.
    #[default]
    None,
    /// DCQCN, the peer's Mellanox flavour (`CC_MODE 1`).
    Dcqcn(DcqcnConfig),
    /// HPCC (`CC_MODE 3`).
    Hpcc(HpccConfig),
    /// HPCC-PINT (`CC_MODE 10`).
    Pint(PintConfig),
    /// TIMELY (`CC_MODE 7`).
    Timely(TimelyConfig),
    /// The peer's rate-based DCTCP (`CC_MODE 8`).
    Dctcp(DctcpConfig),
    /// Swift-like RTT AIMD on a window (Bifröst's CC).
    Swift(SwiftConfig),
}

impl CcConfig {
    /// Short name for reports.
    pub fn name(&self) -> &'static str {
        match self {
            CcConfig::None => "none",
            CcConfig::Dcqcn(_) => "dcqcn",
            CcConfig::Hpcc(_) => "hpcc",
            CcConfig::Pint(_) => "hpcc_pint",
            CcConfig::Timely(_) => "timely",
            CcConfig::Dctcp(_) => "dctcp",
            CcConfig::Swift(_) => "swift",
        }
    }
    /// A fresh controller for a QP.
    pub fn build(&self, env: &CcEnv) -> AnyCc {
        match self {
            CcConfig::None => AnyCc::None(LineRate::new(env.line_rate)),
            CcConfig::Dcqcn(c) => AnyCc::Dcqcn(Dcqcn::new(c.clone(), env.line_rate)),
            CcConfig::Hpcc(c) => AnyCc::Hpcc(Hpcc::new(c.clone(), env)),
            CcConfig::Pint(c) => AnyCc::Pint(Pint::new(c.clone(), env)),
            CcConfig::Timely(c) => AnyCc::Timely(Timely::new(c.clone(), env)),
            CcConfig::Dctcp(c) => AnyCc::Dctcp(Dctcp::new(c.clone(), env)),
            CcConfig::Swift(c) => AnyCc::Swift(Swift::new(c.clone(), env)),
        }
    }
    /// Whether switches should mark ECN for this scheme to work.
    pub fn uses_ecn(&self) -> bool {
        matches!(self, CcConfig::Dcqcn(_) | CcConfig::Dctcp(_))
    }
    /// PINT's log base, when switches write PINT utilisation fields.
    pub fn pint_log_base(&self) -> Option<f64> {
        match self {
            CcConfig::Pint(c) => Some(c.log_base),
            _ => None,
        }
    }
    /// Whether switches stamp INT on data packets (HPCC).
    pub fn uses_int(&self) -> bool {
        matches!(self, CcConfig::Hpcc(_))
    }
    /// Bytes of the scheme's header on each data packet beyond the base headers
    /// (the peer's `IntHeader`: HPCC's INT 42 B = 5 hops × 8 B + 2 B, TIMELY's
    /// 8 B timestamp). ACKs carry the same header, padded to the 60 B minimum.
    pub fn header_bytes(&self) -> u32 {
        match self {
            CcConfig::Hpcc(_) => 42,
            CcConfig::Pint(_) => 2,
            CcConfig::Timely(_) => 8,
            _ => 0,
        }
    }
}

/// A controller of any kind: a closed set, dispatched by `match` (no `dyn`
/// on the per-packet path).
// Inline in each QP: every QP of a run holds the same variant, so the
// size spread costs nothing and saves an indirection per ACK.
// `repr(u8)`: a plain tag byte, as `AnyFc`'s, for the `match` per ACK and
// per frame sent.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
#[repr(u8)]
pub enum AnyCc {
    /// Line rate.
    None(LineRate),
    /// DCQCN.
    Dcqcn(Dcqcn),
    /// HPCC.
    Hpcc(Hpcc),
    /// HPCC-PINT.
    Pint(Pint),
    /// TIMELY.
    Timely(Timely),
    /// DCTCP.
    Dctcp(Dctcp),
    /// Swift-like.
    Swift(Swift),
}

macro_rules! each {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            AnyCc::None($c) => $e,
            AnyCc::Dcqcn($c) => $e,
            AnyCc::Hpcc($c) => $e,
            AnyCc::Pint($c) => $e,
            AnyCc::Timely($c) => $e,
            AnyCc::Dctcp($c) => $e,
            AnyCc::Swift($c) => $e,
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
    #[inline]
    fn shifts_pacing(&self) -> bool {
        each!(self, c => c.shifts_pacing())
    }
    fn on_ack(&mut self, now: Time, ack: &AckSample<'_>, t: &mut TimerRequests) {
        each!(self, c => c.on_ack(now, ack, t))
    }
    fn on_timeout(&mut self, now: Time, t: &mut TimerRequests) {
        each!(self, c => c.on_timeout(now, t))
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
