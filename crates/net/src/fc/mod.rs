//! Hop-by-hop flow control, one object per port ([`AnyFc`]).
//!
//! A port is one end of a full-duplex link, so its flow-control object has
//! two halves:
//! - the **downstream ingress** half, at a switch port that receives data:
//!   after the MMU admits or releases bytes it may emit control frames
//!   (XOFF/XON, credits, grants) back to the upstream;
//! - the **upstream egress** half, at a port that sends data: it applies the
//!   control frames it receives and gates which classes may send.
//!
//! Both halves can ask for a timer (PFC pause expiry and refresh, slotted
//! schemes). Outputs go to an [`FcOutbox`]; the simulation turns them into
//! frames on the wire and events. Adding a scheme: a file here and a variant
//! of [`AnyFc`]; the engine does not change.

mod pfc;

pub use pfc::Pfc;

use crate::mmu::IngressState;
use crate::wire::{Packet, N_CLASSES};
use engine::{Rate, Time};

/// What a flow-control hook asks the simulation to do.
#[derive(Debug, Default)]
pub struct FcOutbox {
    /// Control frames to send from this port, ahead of data.
    pub frames: Vec<Packet>,
    /// (Re-)arm this port's flow-control timer at this time.
    pub timer: Option<Time>,
    /// The egress may have become able to send: try to transmit.
    pub wake: bool,
}

/// Per-class flow-control counters of one port.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FcCounters {
    /// XOFF frames sent (by this port as downstream).
    pub pause_tx: [u64; N_CLASSES],
    /// XON / zero-quanta frames sent.
    pub resume_tx: [u64; N_CLASSES],
    /// XOFF frames received (this port as upstream).
    pub pause_rx: [u64; N_CLASSES],
    /// XON / zero-quanta frames received.
    pub resume_rx: [u64; N_CLASSES],
    /// Picoseconds this port's egress spent paused, per class.
    pub paused_ps: [u64; N_CLASSES],
}

/// The hooks every flow-control scheme implements; each has a no-op default.
pub trait FlowControl {
    /// Upstream egress: may a frame of `class` start now?
    fn may_send(&self, _now: Time, _class: usize) -> bool {
        true
    }
    /// Upstream egress: a control frame arrived on this port's link.
    /// `rate` is the link's rate (quanta are bit-times of it).
    fn on_ctrl(&mut self, _now: Time, _frame: &Packet, _rate: Rate, _out: &mut FcOutbox) {}
    /// Downstream ingress: the MMU admitted bytes of `class` from this port.
    fn after_admit(&mut self, _now: Time, _class: usize, _s: IngressState, _out: &mut FcOutbox) {}
    /// Downstream ingress: bytes of `class` that came in on this port left.
    fn after_release(&mut self, _now: Time, _class: usize, _s: IngressState, _out: &mut FcOutbox) {}
    /// This port's timer fired. `s` gives the ingress state per class when
    /// the port belongs to a switch.
    fn on_timer(&mut self, _now: Time, _s: &dyn Fn(usize) -> IngressState, _out: &mut FcOutbox) {}
    /// Counters so far (paused time closed at `now`).
    fn counters(&self, _now: Time) -> FcCounters {
        FcCounters::default()
    }
}

/// No hop-by-hop flow control: a lossy port.
#[derive(Clone, Debug, Default)]
pub struct Lossy;

impl FlowControl for Lossy {}

/// A port's flow control of any kind.
// Stored inline in each port: one indirection less on the per-packet path.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum AnyFc {
    /// None.
    Lossy(Lossy),
    /// Priority flow control (IEEE 802.1Qbb, or the peer's variant).
    Pfc(Pfc),
}

macro_rules! each {
    ($self:ident, $f:ident => $e:expr) => {
        match $self {
            AnyFc::Lossy($f) => $e,
            AnyFc::Pfc($f) => $e,
        }
    };
}

impl FlowControl for AnyFc {
    #[inline]
    fn may_send(&self, now: Time, class: usize) -> bool {
        each!(self, f => f.may_send(now, class))
    }
    fn on_ctrl(&mut self, now: Time, frame: &Packet, rate: Rate, out: &mut FcOutbox) {
        each!(self, f => f.on_ctrl(now, frame, rate, out))
    }
    #[inline]
    fn after_admit(&mut self, now: Time, class: usize, s: IngressState, out: &mut FcOutbox) {
        each!(self, f => f.after_admit(now, class, s, out))
    }
    #[inline]
    fn after_release(&mut self, now: Time, class: usize, s: IngressState, out: &mut FcOutbox) {
        each!(self, f => f.after_release(now, class, s, out))
    }
    fn on_timer(&mut self, now: Time, s: &dyn Fn(usize) -> IngressState, out: &mut FcOutbox) {
        each!(self, f => f.on_timer(now, s, out))
    }
    fn counters(&self, now: Time) -> FcCounters {
        each!(self, f => f.counters(now))
    }
}
