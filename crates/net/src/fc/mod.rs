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

mod bifrost;
mod cbfc;
mod pfc;
mod swing;

pub use bifrost::{
    write_trace_csv, Bifrost, BifrostConfig, BifrostParams, BifrostReading, BifrostSlot,
    PauseDelay, MAX_SLOTS_PER_RTT,
};
pub use cbfc::{Cbfc, CbfcConfig, CbfcStats};
pub use pfc::{quanta_duration, Pfc, PfcMode};
pub use swing::SwingRelay;

use crate::wire::{Packet, QueueKey, N_CLASSES};
use engine::{Rate, Time};

/// What the ingress's buffer (the switch MMU) says about an (ingress port, class) after a change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IngressState {
    /// Over XOFF: headroom in use or shared use at the threshold (peer
    /// `CheckShouldPause`, without its paused flag).
    pub over_xoff: bool,
    /// Below XON: headroom empty and shared use + offset ≤ threshold, or no
    /// shared use (peer `CheckShouldResume`).
    pub below_xon: bool,
}

/// What a flow-control hook asks the simulation to do.
#[derive(Debug, Default)]
pub struct FcOutbox {
    /// Control frames to send from this port, ahead of data.
    pub frames: Vec<Packet>,
    /// (Re-)arm this port's flow-control timer at this time.
    pub timer: Option<Time>,
    /// The egress may have become able to send: try to transmit.
    pub wake: bool,
    /// Control frames to send out of another port of the same node, ahead
    /// of its data: (port id, frame). A Swing relay forwards this way.
    pub forward: Vec<(u32, Packet)>,
    /// Queues of this port's egress to empty, their frames dropped and
    /// released from the switch buffer (a watchdog that gives up on a
    /// stuck queue).
    pub flush: Vec<QueueKey>,
}

impl FcOutbox {
    /// Whether a hook put nothing here.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
            && self.timer.is_none()
            && !self.wake
            && self.forward.is_empty()
            && self.flush.is_empty()
    }
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
    /// The run starts: schemes that speak first (initial credits) or run on
    /// a free-running clock (Bifrost's slots) emit or arm here. Frames
    /// emitted here are the link-up exchange: the simulation hands them to
    /// the peer's `on_ctrl` at time zero instead of sending them.
    fn on_start(&mut self, _now: Time, _out: &mut FcOutbox) {}
    /// Upstream egress: may a frame of `class` and `bytes` on the wire start
    /// now?
    fn may_send(&self, _now: Time, _key: QueueKey, _bytes: u32) -> bool {
        true
    }
    /// Upstream egress: a frame of `class` (not class 0) and `bytes` was
    /// taken for transmission (credit accounting).
    fn on_send(&mut self, _now: Time, _key: QueueKey, _bytes: u32) {}
    /// Upstream egress: a control frame arrived on this port's link.
    /// `rate` is the link's rate (quanta are bit-times of it).
    fn on_ctrl(&mut self, _now: Time, _frame: &Packet, _rate: Rate, _out: &mut FcOutbox) {}
    /// Downstream ingress: the MMU admitted a frame of `bytes` in `class`
    /// from this port (at a host: the NIC received it).
    fn after_admit(
        &mut self,
        _now: Time,
        _key: QueueKey,
        _bytes: u32,
        _s: IngressState,
        _out: &mut FcOutbox,
    ) {
    }
    /// Downstream ingress: a frame of `bytes` in `class` that came in on
    /// this port left (at a host: at once, the NIC consumes what it gets).
    fn after_release(
        &mut self,
        _now: Time,
        _key: QueueKey,
        _bytes: u32,
        _s: IngressState,
        _out: &mut FcOutbox,
    ) {
    }
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
// `repr(u8)`: a plain tag byte first, so each hook's `match` is a load and
// a jump (with the compiler's choice of niche it had to decode the tag).
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
#[repr(u8)]
pub enum AnyFc {
    /// None.
    Lossy(Lossy),
    /// Priority flow control (IEEE 802.1Qbb, or the peer's variant).
    Pfc(Pfc),
    /// InfiniBand-style credits per class (IBTA; Bifrost §II-B).
    Cbfc(Cbfc),
    /// Bifrost's downstream slot loop on a long-haul ingress (Bifrost §IV-B,
    /// Alg. 1).
    Bifrost(Bifrost),
    /// A Swing relay's local port: its own flow control, and every control
    /// frame it receives sent on out of the relay's other port.
    Swing(SwingRelay),
}

impl AnyFc {
    /// Whether the port runs no hop-by-hop flow control (a Swing relay is
    /// as lossy as the flow control it wraps).
    pub fn is_lossy(&self) -> bool {
        match self {
            AnyFc::Lossy(_) => true,
            AnyFc::Swing(s) => s.inner().is_lossy(),
            _ => false,
        }
    }

    /// [`FlowControl::after_admit`], returning false if it put nothing in
    /// `out`, so that the caller need not look at the outbox (at every
    /// switch hop). PFC and lossy ports know; the other schemes answer
    /// true, and the caller checks the outbox as before.
    #[inline]
    pub fn after_admit_emits(
        &mut self,
        now: Time,
        key: QueueKey,
        bytes: u32,
        s: IngressState,
        out: &mut FcOutbox,
    ) -> bool {
        let class = key.class();
        // The other kinds call `unlikely`, so that the compiler tests for
        // PFC (nearly every switch hop) first with a compare and a branch,
        // before the jump through a table that a `match` compiles to.
        match self {
            AnyFc::Pfc(f) => f.admit_emits(now, class, s, out),
            AnyFc::Lossy(_) => {
                unlikely();
                false
            }
            _ => {
                unlikely();
                self.after_admit(now, key, bytes, s, out);
                true
            }
        }
    }

    /// [`FlowControl::after_release`], returning false if it put nothing
    /// in `out` (as [`AnyFc::after_admit_emits`]).
    #[inline]
    pub fn after_release_emits(
        &mut self,
        now: Time,
        key: QueueKey,
        bytes: u32,
        s: IngressState,
        out: &mut FcOutbox,
    ) -> bool {
        let class = key.class();
        // PFC first, as in `after_admit_emits`.
        match self {
            AnyFc::Pfc(f) => f.release_emits(class, s, out),
            AnyFc::Lossy(_) => {
                unlikely();
                false
            }
            _ => {
                unlikely();
                self.after_release(now, key, bytes, s, out);
                true
            }
        }
    }
}

/// Marks the path that calls it as rarely taken (a call to a cold function
/// is what the compiler's branch weights know; `std::hint::cold_path` is
/// newer than this workspace's minimum Rust).
#[cold]
#[inline(never)]
fn unlikely() {}

macro_rules! each {
    ($self:ident, $f:ident => $e:expr) => {
        match $self {
            AnyFc::Lossy($f) => $e,
            AnyFc::Pfc($f) => $e,
            AnyFc::Cbfc($f) => $e,
            AnyFc::Bifrost($f) => $e,
            AnyFc::Swing($f) => $e,
        }
    };
}

impl FlowControl for AnyFc {
    fn on_start(&mut self, now: Time, out: &mut FcOutbox) {
        each!(self, f => f.on_start(now, out))
    }
    // Called in the schedulers' scan loops: inlined, or those loops lose
    // their optimisations (measured: +8% instructions per event).
    #[inline(always)]
    fn may_send(&self, now: Time, key: QueueKey, bytes: u32) -> bool {
        // PFC first with a compare and a branch, as in `after_admit_emits`.
        if let AnyFc::Pfc(f) = self {
            return f.may_send(now, key, bytes);
        }
        each!(self, f => f.may_send(now, key, bytes))
    }
    #[inline]
    fn on_send(&mut self, now: Time, key: QueueKey, bytes: u32) {
        each!(self, f => f.on_send(now, key, bytes))
    }
    fn on_ctrl(&mut self, now: Time, frame: &Packet, rate: Rate, out: &mut FcOutbox) {
        each!(self, f => f.on_ctrl(now, frame, rate, out))
    }
    #[inline]
    fn after_admit(
        &mut self,
        now: Time,
        key: QueueKey,
        bytes: u32,
        s: IngressState,
        out: &mut FcOutbox,
    ) {
        each!(self, f => f.after_admit(now, key, bytes, s, out))
    }
    #[inline]
    fn after_release(
        &mut self,
        now: Time,
        key: QueueKey,
        bytes: u32,
        s: IngressState,
        out: &mut FcOutbox,
    ) {
        each!(self, f => f.after_release(now, key, bytes, s, out))
    }
    fn on_timer(&mut self, now: Time, s: &dyn Fn(usize) -> IngressState, out: &mut FcOutbox) {
        each!(self, f => f.on_timer(now, s, out))
    }
    fn counters(&self, now: Time) -> FcCounters {
        each!(self, f => f.counters(now))
    }
}
