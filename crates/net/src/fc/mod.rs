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

mod bfc;
mod bifrost;
mod cbfc;
mod flow_pause;
mod flowsail;
mod hooks;
mod ideal_per_flow;
mod pfc;
mod storm;
mod swing;
mod watchdog;

pub use bfc::BfcConfig;
pub use bifrost::{
    write_trace_csv, Bifrost, BifrostConfig, BifrostParams, BifrostReading, BifrostSlot,
    PauseDelay, MAX_SLOTS_PER_RTT,
};
pub use cbfc::{Cbfc, CbfcConfig, CbfcStats};
pub use flow_pause::{FlowPauseCounts, QueueMapping, MAX_QUEUES};
pub use flowsail::FlowSailConfig;
pub use hooks::{FcCounters, FcOutbox, FlowControl, IngressState, InnerTimer, Lossy};
pub use ideal_per_flow::{IdealPerFlow, IdealPerFlowConfig, IdealPerFlowStats};
pub use pfc::{quanta_duration, Pfc, PfcMode};
pub use storm::{PfcStorm, StormConfig};
pub use swing::SwingRelay;
pub use watchdog::{PfcWatchdog, WatchdogAction, WatchdogConfig};

use crate::wire::{Packet, QueueKey};
use engine::{Rate, Time};

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
    Swing(SwingRelay<AnyFc>),
    /// Ideal per-flow flow control: a flow paused alone when its own queue
    /// grows (FlowSail §I, §VI-A). Boxed: its tables would grow every
    /// port, and few runs use it.
    IdealPerFlow(Box<IdealPerFlow>),
    /// BFC (NSDI '22): the port's per-flow PAUSE/RESUME counts; its switch
    /// egress (`egress/bfc.rs`) decides and pauses queues. Boxed, as
    /// `IdealPerFlow`.
    Bfc(Box<FlowPauseCounts>),
    /// FlowSail: the port's per-flow PAUSE/RESUME counts; its switch
    /// egress (`egress/flowsail.rs`) decides, isolates and pauses queues.
    FlowSail(Box<FlowPauseCounts>),
    /// A port's flow control under a PFC storm watchdog (Azure §3.1).
    /// Boxed, as few ports run it.
    Watchdog(Box<PfcWatchdog<AnyFc>>),
    /// A port that sends pause frames without end (a storm, Azure §3.1),
    /// around its own flow control.
    Storm(Box<PfcStorm<AnyFc>>),
}

impl AnyFc {
    /// Whether the port runs no hop-by-hop flow control (a Swing relay is
    /// as lossy as the flow control it wraps).
    pub fn is_lossy(&self) -> bool {
        match self {
            AnyFc::Lossy(_) => true,
            AnyFc::Swing(s) => s.inner().is_lossy(),
            AnyFc::Watchdog(w) => w.inner().is_lossy(),
            AnyFc::Storm(s) => s.inner().is_lossy(),
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
            AnyFc::IdealPerFlow($f) => $e,
            AnyFc::Bfc($f) => $e,
            AnyFc::FlowSail($f) => $e,
            AnyFc::Watchdog($f) => $e,
            AnyFc::Storm($f) => $e,
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
    // Every frame a switch sends calls it: PFC and lossy ports (nearly
    // all) count nothing here, so they return at once, and the other kinds
    // go out of line (as one `match` over every kind, the compiler stopped
    // inlining it once the enum grew).
    #[inline(always)]
    fn on_send(&mut self, now: Time, key: QueueKey, bytes: u32) {
        if let AnyFc::Pfc(_) | AnyFc::Lossy(_) = self {
            return;
        }
        self.on_send_other(now, key, bytes)
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
    fn send_upstream(&mut self, now: Time, frame: &Packet, out: &mut FcOutbox) {
        each!(self, f => f.send_upstream(now, frame, out))
    }
    fn on_timer(&mut self, now: Time, s: &dyn Fn(usize) -> IngressState, out: &mut FcOutbox) {
        each!(self, f => f.on_timer(now, s, out))
    }
    fn held_flows(&self) -> Vec<(u32, u64, bool)> {
        each!(self, f => f.held_flows())
    }
    fn counters(&self, now: Time) -> FcCounters {
        each!(self, f => f.counters(now))
    }
}

impl AnyFc {
    /// [`FlowControl::on_send`] of the kinds that count what they send.
    #[inline(never)]
    fn on_send_other(&mut self, now: Time, key: QueueKey, bytes: u32) {
        each!(self, f => f.on_send(now, key, bytes))
    }
}
