//! What every flow-control scheme implements ([`FlowControl`]), what it
//! is told (the ingress's buffer state) and what it may ask for (an
//! [`FcOutbox`]).

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
    /// PFC storms a watchdog detected on this port's egress, per class
    /// (`fc/watchdog.rs`).
    pub storms: [u64; N_CLASSES],
    /// Of those, the ones it restored (PFC obeyed again).
    pub restores: [u64; N_CLASSES],
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
    /// Downstream: this port's switch decided, at one of its egresses, to
    /// send `frame` (a per-flow PAUSE or RESUME, BFC and FlowSail) to the
    /// upstream at the far end of this port's link, which the flow it
    /// names came in by. The default sends it.
    fn send_upstream(&mut self, _now: Time, frame: &Packet, out: &mut FcOutbox) {
        out.frames.push(*frame);
    }
    /// This port's timer fired. `s` gives the ingress state per class when
    /// the port belongs to a switch.
    fn on_timer(&mut self, _now: Time, _s: &dyn Fn(usize) -> IngressState, _out: &mut FcOutbox) {}
    /// Flows whose frames this port's ingress still counts as held, with
    /// the bytes and whether it has them paused: what a per-flow scheme
    /// checks at the end of a run in debug builds (a flow that finished
    /// having sent each byte once has nothing left anywhere). Class-based
    /// schemes hold no flow.
    fn held_flows(&self) -> Vec<(u32, u64, bool)> {
        Vec::new()
    }
    /// Counters so far (paused time closed at `now`).
    fn counters(&self, _now: Time) -> FcCounters {
        FcCounters::default()
    }
}

/// When the flow control a wrapper holds (a watchdog, a storm source)
/// wants its timer. A port has one timer, and each arming replaces the one
/// before; a wrapper that arms its own must arm the earlier of the two.
#[derive(Clone, Copy, Debug)]
pub struct InnerTimer {
    /// The wrapped scheme's pending timer (`Time::MAX`: none).
    pub at: Time,
}

impl Default for InnerTimer {
    fn default() -> Self {
        InnerTimer { at: Time::MAX }
    }
}

impl InnerTimer {
    /// Run a hook of the wrapped scheme with `out`, keeping the timer it
    /// asks for here instead of in `out` (which keeps what it held).
    /// Returns whether it asked for one.
    #[inline]
    pub fn call(&mut self, out: &mut FcOutbox, f: impl FnOnce(&mut FcOutbox)) -> bool {
        let before = out.timer.take();
        f(out);
        let armed = out.timer.take();
        out.timer = before;
        if let Some(t) = armed {
            self.at = t;
        }
        armed.is_some()
    }

    /// Arm the port's timer at the earlier of the wrapped scheme's and
    /// `own` (nothing if neither wants one).
    #[inline]
    pub fn arm(&self, own: Time, out: &mut FcOutbox) {
        let t = self.at.min(own);
        if t != Time::MAX {
            out.timer = Some(t);
        }
    }

    /// The port's timer fired at `now`: whether it was the wrapped
    /// scheme's (then it is forgotten: the scheme arms again if it needs).
    #[inline]
    pub fn due(&mut self, now: Time) -> bool {
        if self.at <= now {
            self.at = Time::MAX;
            true
        } else {
            false
        }
    }
}

/// No hop-by-hop flow control: a lossy port.
#[derive(Clone, Debug, Default)]
pub struct Lossy;

impl FlowControl for Lossy {}
