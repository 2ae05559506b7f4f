//! A PFC storm source (Azure §3.1, §2.12 of its failure list: "a
//! malfunctioning NIC or switch" that sends pause frames without end): a
//! port that, from `start` to `stop`, sends an XOFF for one class every
//! `interval`, whatever its ingress holds, and a resume at `stop`. It is
//! what a test injects to see a storm spread, or be contained by the
//! watchdog (`fc/watchdog.rs`).
//!
//! It wraps the port's own flow control, which goes on as before.

use super::hooks::{FcCounters, FcOutbox, FlowControl, IngressState, InnerTimer};
use crate::wire::{Packet, QueueKey};
use engine::{Delta, Rate, Time};

/// Where and when a port storms.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StormConfig {
    /// The storming node.
    pub node: u32,
    /// Its port's far end: the storm pauses this node.
    pub peer: u32,
    /// The class it pauses.
    pub class: u8,
    /// First pause frame.
    pub start: Time,
    /// A resume is sent here and the storm ends (`Time::MAX`: never).
    pub stop: Time,
    /// Time between pause frames.
    pub interval: Delta,
}

/// A port that storms, around its own flow control.
#[derive(Clone, Debug)]
pub struct PfcStorm<F> {
    inner: F,
    timer: InnerTimer,
    class: u8,
    /// The pause time its frames carry.
    quanta: u16,
    stop: Time,
    interval: Delta,
    /// The next frame (`Time::MAX`: done).
    next: Time,
    sent: u64,
    resumed: bool,
}

impl<F: FlowControl> PfcStorm<F> {
    /// Storm as `cfg` says, with pause frames of `quanta`, around `inner`.
    pub fn new(inner: F, cfg: &StormConfig, quanta: u16) -> PfcStorm<F> {
        PfcStorm {
            inner,
            timer: InnerTimer::default(),
            class: cfg.class,
            quanta: quanta.max(1),
            stop: cfg.stop,
            interval: cfg.interval,
            next: cfg.start,
            sent: 0,
            resumed: false,
        }
    }

    /// The port's own flow control.
    pub fn inner(&self) -> &F {
        &self.inner
    }
}

impl<F: FlowControl> FlowControl for PfcStorm<F> {
    fn on_start(&mut self, now: Time, out: &mut FcOutbox) {
        self.timer.call(out, |o| self.inner.on_start(now, o));
        self.timer.arm(self.next, out);
    }
    fn may_send(&self, now: Time, key: QueueKey, bytes: u32) -> bool {
        self.inner.may_send(now, key, bytes)
    }
    fn on_send(&mut self, now: Time, key: QueueKey, bytes: u32) {
        self.inner.on_send(now, key, bytes)
    }
    fn on_ctrl(&mut self, now: Time, frame: &Packet, rate: Rate, out: &mut FcOutbox) {
        if self
            .timer
            .call(out, |o| self.inner.on_ctrl(now, frame, rate, o))
        {
            self.timer.arm(self.next, out);
        }
    }
    fn after_admit(
        &mut self,
        now: Time,
        key: QueueKey,
        bytes: u32,
        s: IngressState,
        out: &mut FcOutbox,
    ) {
        if self
            .timer
            .call(out, |o| self.inner.after_admit(now, key, bytes, s, o))
        {
            self.timer.arm(self.next, out);
        }
    }
    fn after_release(
        &mut self,
        now: Time,
        key: QueueKey,
        bytes: u32,
        s: IngressState,
        out: &mut FcOutbox,
    ) {
        if self
            .timer
            .call(out, |o| self.inner.after_release(now, key, bytes, s, o))
        {
            self.timer.arm(self.next, out);
        }
    }
    fn on_timer(&mut self, now: Time, s: &dyn Fn(usize) -> IngressState, out: &mut FcOutbox) {
        if self.timer.due(now) {
            self.timer.call(out, |o| self.inner.on_timer(now, s, o));
        }
        if self.next <= now {
            if now >= self.stop {
                out.frames.push(Packet::pfc(self.class, 0));
                self.resumed = true;
                self.next = Time::MAX;
            } else {
                out.frames.push(Packet::pfc(self.class, self.quanta));
                self.sent += 1;
                self.next = (now + self.interval).min(self.stop);
            }
        }
        self.timer.arm(self.next, out);
    }
    fn send_upstream(&mut self, now: Time, frame: &Packet, out: &mut FcOutbox) {
        self.inner.send_upstream(now, frame, out)
    }
    fn held_flows(&self) -> Vec<(u32, u64, bool)> {
        self.inner.held_flows()
    }
    fn counters(&self, now: Time) -> FcCounters {
        let mut c = self.inner.counters(now);
        let k = usize::from(self.class);
        c.pause_tx[k] += self.sent;
        c.resume_tx[k] += u64::from(self.resumed);
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fc::hooks::Lossy;

    #[test]
    fn it_pauses_every_interval_until_stop_then_resumes() {
        let cfg = StormConfig {
            node: 0,
            peer: 1,
            class: 3,
            start: Time::from_ns(1000),
            stop: Time::from_ns(3500),
            interval: Delta::from_ns(1000),
        };
        let mut s = PfcStorm::new(Lossy, &cfg, 65535);
        let mut out = FcOutbox::default();
        s.on_start(Time::ZERO, &mut out);
        assert!(out.frames.is_empty(), "nothing at link-up");
        let mut t = out.timer.take().expect("armed at start");
        let mut frames = Vec::new();
        while t != Time::MAX {
            let mut out = FcOutbox::default();
            s.on_timer(
                t,
                &|_| IngressState {
                    over_xoff: false,
                    below_xon: true,
                },
                &mut out,
            );
            frames.extend(out.frames.iter().map(|f| (t.ns(), f.pfc_quanta())));
            t = out.timer.unwrap_or(Time::MAX);
        }
        assert_eq!(
            frames,
            vec![(1000, 65535), (2000, 65535), (3000, 65535), (3500, 0)]
        );
        let c = s.counters(Time::from_ns(4000));
        assert_eq!((c.pause_tx[3], c.resume_tx[3]), (3, 1));
    }
}
