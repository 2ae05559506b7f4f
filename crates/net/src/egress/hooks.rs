//! What every egress queueing scheme implements ([`Egress`]).

use crate::fc::AnyFc;
use crate::wire::{Packet, QueueKey};
use engine::Time;

/// The hooks every egress queueing scheme implements.
pub trait Egress: std::fmt::Debug + Send {
    /// Queue `pkt`, which the switch admitted and routed here at `now`;
    /// return the key of the queue it joined.
    fn enqueue(&mut self, now: Time, pkt: &Packet) -> QueueKey;
    /// Take the next frame that flow control lets leave now (asking
    /// `fc.may_send` with the frame's key, [`QueueKey::of`]); `None` if
    /// every queue is empty or gated.
    fn dequeue(&mut self, now: Time, fc: &AnyFc) -> Option<Packet>;
    /// The egress holds nothing and its port is idle: may `pkt` leave at
    /// once, without being queued (what `enqueue` then `dequeue` would
    /// do)? If so, update the scheduling state that dequeue would have
    /// (round-robin position) and say yes.
    fn pass(&mut self, now: Time, pkt: &Packet, fc: &AnyFc) -> bool;
    /// Whether any frame is queued.
    fn has_backlog(&self) -> bool;
    /// Bytes queued in `class` (all its queues), for the time series.
    fn class_bytes(&self, class: usize) -> u64;
    /// The size of the frame that would leave next from `class`, if any.
    fn class_head(&self, class: usize) -> Option<u32>;
    /// Remove every frame of the queue `key` names (a class key: all the
    /// class's queues), appending them to `out` in queue order. Flow
    /// control asks for this through its outbox (a watchdog that drops a
    /// stuck queue).
    fn flush(&mut self, key: QueueKey, out: &mut Vec<Packet>);
    /// A control frame for this egress arrived on its link (per-flow pause
    /// frames); the default ignores it.
    fn on_ctrl(&mut self, _now: Time, _frame: &Packet) {}
    /// A control frame this egress decided to send upstream, out of the
    /// switch's local port `.0` (the ingress of the frame that caused it),
    /// if one waits: per-flow PAUSE and RESUME (BFC, FlowSail). The switch
    /// asks after each enqueue and dequeue of a boxed egress until `None`.
    fn pop_upstream(&mut self) -> Option<(u16, Packet)> {
        None
    }
    /// This egress as `Any`, for tests and tools that read a scheme's own
    /// state; the default gives none.
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        None
    }
    /// The port's timer fired (it is shared with flow control: the latest
    /// request wins); the default does nothing.
    fn on_timer(&mut self, _now: Time) {}
}
