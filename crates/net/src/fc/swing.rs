//! Swing's PFC relay (Swing §5.2, Fig. 8): a two-port relay device next to each
//! end of a long link. Every PFC frame that reaches the relay's local port L
//! from its data-center switch is sent on, unchanged and at once, ahead of
//! data, out of its other port R onto the long link; the port's own flow
//! control then acts on the frame as it would without the relay.
//!
//! It wraps the port's flow control (PFC as configured, or whatever the
//! port's rule chose) and adds the forwarding: the relay is a flow-control
//! scheme of its own rather than a flag the engine checks on every control
//! frame.

use super::hooks::{FcCounters, FcOutbox, FlowControl, IngressState};
use crate::wire::{Packet, QueueKey};
use engine::{Rate, Time};

/// A relay's local port: its own flow control, and the port its control
/// frames are relayed to.
#[derive(Clone, Debug)]
pub struct SwingRelay<F> {
    // Boxed: a relay may wrap the enum that holds it.
    inner: Box<F>,
    /// The relay's other port (a port id of the simulation).
    twin: u32,
}

impl<F: FlowControl> SwingRelay<F> {
    /// Relay what arrives here to port `twin`, and let `inner` act on it.
    pub fn new(inner: F, twin: u32) -> SwingRelay<F> {
        SwingRelay {
            inner: Box::new(inner),
            twin,
        }
    }

    /// The port's own flow control.
    pub fn inner(&self) -> &F {
        &self.inner
    }
}

impl<F: FlowControl> FlowControl for SwingRelay<F> {
    fn on_start(&mut self, now: Time, out: &mut FcOutbox) {
        self.inner.on_start(now, out)
    }
    fn may_send(&self, now: Time, key: QueueKey, bytes: u32) -> bool {
        self.inner.may_send(now, key, bytes)
    }
    fn on_send(&mut self, now: Time, key: QueueKey, bytes: u32) {
        self.inner.on_send(now, key, bytes)
    }
    fn on_ctrl(&mut self, now: Time, frame: &Packet, rate: Rate, out: &mut FcOutbox) {
        // Relayed first, as the device forwards it on receipt (Swing §5.2).
        out.forward.push((self.twin, *frame));
        self.inner.on_ctrl(now, frame, rate, out)
    }
    fn after_admit(
        &mut self,
        now: Time,
        key: QueueKey,
        bytes: u32,
        s: IngressState,
        out: &mut FcOutbox,
    ) {
        self.inner.after_admit(now, key, bytes, s, out)
    }
    fn after_release(
        &mut self,
        now: Time,
        key: QueueKey,
        bytes: u32,
        s: IngressState,
        out: &mut FcOutbox,
    ) {
        self.inner.after_release(now, key, bytes, s, out)
    }
    fn on_timer(&mut self, now: Time, s: &dyn Fn(usize) -> IngressState, out: &mut FcOutbox) {
        self.inner.on_timer(now, s, out)
    }
    fn send_upstream(&mut self, now: Time, frame: &Packet, out: &mut FcOutbox) {
        self.inner.send_upstream(now, frame, out)
    }
    fn held_flows(&self) -> Vec<(u32, u64, bool)> {
        self.inner.held_flows()
    }
    fn counters(&self, now: Time) -> FcCounters {
        self.inner.counters(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fc::pfc::{Pfc, PfcMode};
    use crate::wire::QueueKey;

    #[test]
    fn a_relay_forwards_each_frame_to_its_twin_and_obeys_it_too() {
        let rate = Rate::gbps(100);
        let pfc = Pfc::new(PfcMode::UntilResume, rate, true);
        let mut relay = SwingRelay::new(pfc, 17);
        let mut out = FcOutbox::default();
        let xoff = Packet::pfc(3, 5);
        relay.on_ctrl(Time::ZERO, &xoff, rate, &mut out);
        assert_eq!(out.forward.len(), 1);
        assert_eq!(out.forward[0].0, 17);
        assert_eq!(out.forward[0].1.pfc_class(), 3);
        assert!(!relay.may_send(Time::ZERO, QueueKey::of_class(3), 1000));
        relay.on_ctrl(Time::from_ns(5), &Packet::pfc(3, 0), rate, &mut out);
        assert_eq!(out.forward.len(), 2);
        assert!(relay.may_send(Time::from_ns(5), QueueKey::of_class(3), 1000));
        assert_eq!(relay.counters(Time::from_ns(5)).pause_rx[3], 1);
    }
}
