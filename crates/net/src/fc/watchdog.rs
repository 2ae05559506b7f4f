//! PFC storm watchdog (Azure §3.1, §6.3): a port whose egress class has
//! been paused without a break for `detect` is taken to be facing a storm
//! (a NIC or switch that pauses without end). The watchdog then stops
//! obeying PFC on that class and drops its frames, so the pause no longer
//! spreads upstream through a full buffer; once no pause frame of the
//! class has arrived for `restore`, it obeys PFC again.
//!
//! Azure runs one on every switch and on the bump-in-the-wire FPGA between
//! each server and its T0; detection is "hundreds of milliseconds" of
//! pause. The paper gives no polling interval, restoration rule or time:
//! rdmasim checks at the exact time a pause has lasted `detect`, restores
//! after `restore` without a pause frame (the rule of SONiC's watchdog),
//! and drops a storming class's frames by emptying its queue every
//! `drop_interval` (docs/pfc-watchdog.md).
//!
//! It wraps a port's own flow control, as the Swing relay does: ports
//! without a watchdog run exactly as before.

use super::hooks::{FcCounters, FcOutbox, FlowControl, IngressState, InnerTimer};
use crate::wire::{Packet, PacketKind, QueueKey, N_CLASSES};
use engine::{Delta, Rate, Time};

/// What a watchdog does with a storming class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WatchdogAction {
    /// Ignore PFC and drop the class's frames (Azure §3.1: "disable PFC on
    /// that queue and drop all of its packets").
    Drop,
    /// Ignore PFC and send the class's frames on.
    Forward,
}

impl WatchdogAction {
    /// Every action, by its config name.
    pub const ALL: [(&'static str, WatchdogAction); 2] = [
        ("drop", WatchdogAction::Drop),
        ("forward", WatchdogAction::Forward),
    ];

    /// The config name.
    pub fn name(self) -> &'static str {
        match self {
            WatchdogAction::Drop => "drop",
            WatchdogAction::Forward => "forward",
        }
    }
}

/// A watchdog's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WatchdogConfig {
    /// A class paused this long without a break is a storm.
    pub detect: Delta,
    /// A storming class is restored once no pause frame of it has arrived
    /// for this long.
    pub restore: Delta,
    /// What it does with a storming class at a switch port. (A NIC holds
    /// no queue to drop: at a host the watchdog always forwards.)
    pub action: WatchdogAction,
    /// While a class storms with `Drop`, its queue is emptied this often.
    pub drop_interval: Delta,
    /// Watch switch ports.
    pub switches: bool,
    /// Watch hosts' NIC ports (Azure's FPGA between server and T0).
    pub hosts: bool,
}

impl Default for WatchdogConfig {
    fn default() -> Self {
        // The paper: "e.g., hundreds of milliseconds"; 200 ms is
        // rdmasim's choice, and SONiC's default too.
        WatchdogConfig {
            detect: Delta::from_ms(200),
            restore: Delta::from_ms(200),
            action: WatchdogAction::Drop,
            drop_interval: Delta::from_us(1),
            switches: true,
            hosts: true,
        }
    }
}

/// `t + d`, at most the end of time.
fn later(t: Time, d: Delta) -> Time {
    Time(t.ps().saturating_add(d.ps()))
}

/// A port's flow control with a storm watchdog on its egress classes.
#[derive(Clone, Debug)]
pub struct PfcWatchdog<F> {
    inner: F,
    timer: InnerTimer,
    cfg: WatchdogConfig,
    /// The action at this port (`Forward` at a host).
    action: WatchdogAction,
    /// Since when each class has been paused without a break
    /// (`Time::MAX`: it is not paused, or it storms).
    since: [Time; N_CLASSES],
    /// Bit `c`: class `c` storms.
    storm: u8,
    /// When the last pause frame of each class arrived.
    last_xoff: [Time; N_CLASSES],
    /// The next emptying of the storming classes' queues.
    tick: Time,
    storms: [u64; N_CLASSES],
    restores: [u64; N_CLASSES],
}

impl<F: FlowControl> PfcWatchdog<F> {
    /// Watch `inner`; `host` if the port is a NIC's.
    pub fn new(inner: F, cfg: WatchdogConfig, host: bool) -> PfcWatchdog<F> {
        PfcWatchdog {
            inner,
            timer: InnerTimer::default(),
            cfg,
            action: if host {
                WatchdogAction::Forward
            } else {
                cfg.action
            },
            since: [Time::MAX; N_CLASSES],
            storm: 0,
            last_xoff: [Time::ZERO; N_CLASSES],
            tick: Time::MAX,
            storms: [0; N_CLASSES],
            restores: [0; N_CLASSES],
        }
    }

    /// The flow control it watches.
    pub fn inner(&self) -> &F {
        &self.inner
    }

    /// Whether class `class` storms now.
    pub fn storming(&self, class: usize) -> bool {
        self.storm >> class & 1 != 0
    }

    /// Whether the wrapped scheme holds class `c` paused at `now`.
    fn inner_paused(&self, now: Time, c: usize) -> bool {
        !self.inner.may_send(now, QueueKey::of_class(c as u8), 0)
    }

    /// Bring detection and restoration up to `now`, and arm the timer if
    /// the next of them (or the wrapped scheme's) changed.
    fn update(&mut self, now: Time, inner_armed: bool, out: &mut FcOutbox) {
        let before = self.own_next();
        // Class 0 carries control and is never paused.
        for c in 1..N_CLASSES {
            if self.storming(c) {
                if now >= later(self.last_xoff[c], self.cfg.restore) {
                    self.storm &= !(1 << c);
                    self.restores[c] += 1;
                    out.wake = true;
                } else {
                    continue;
                }
            }
            if !self.inner_paused(now, c) {
                self.since[c] = Time::MAX;
                continue;
            }
            if self.since[c] == Time::MAX {
                self.since[c] = now;
            }
            if now >= later(self.since[c], self.cfg.detect) {
                self.since[c] = Time::MAX;
                // Restoration counts from the later of the detection and
                // the last pause frame.
                self.last_xoff[c] = self.last_xoff[c].max(now);
                self.storm |= 1 << c;
                self.storms[c] += 1;
                out.wake = true;
                if self.action == WatchdogAction::Drop {
                    out.flush.push(QueueKey::of_class(c as u8));
                    self.tick = later(now, self.cfg.drop_interval);
                }
            }
        }
        if self.action == WatchdogAction::Drop && self.storm != 0 && now >= self.tick {
            for c in 1..N_CLASSES {
                if self.storming(c) {
                    out.flush.push(QueueKey::of_class(c as u8));
                }
            }
            self.tick = later(now, self.cfg.drop_interval);
        }
        if self.storm == 0 {
            self.tick = Time::MAX;
        }
        let after = self.own_next();
        if inner_armed || after != before {
            self.timer.arm(after, out);
        }
    }

    /// The earliest time the watchdog itself must look again.
    fn own_next(&self) -> Time {
        let mut next = self.tick;
        for c in 1..N_CLASSES {
            if self.storming(c) {
                next = next.min(later(self.last_xoff[c], self.cfg.restore));
            } else if self.since[c] != Time::MAX {
                next = next.min(later(self.since[c], self.cfg.detect));
            }
        }
        next
    }
}

impl<F: FlowControl> FlowControl for PfcWatchdog<F> {
    fn on_start(&mut self, now: Time, out: &mut FcOutbox) {
        let armed = self.timer.call(out, |o| self.inner.on_start(now, o));
        if armed {
            self.timer.arm(self.own_next(), out);
        }
    }
    fn may_send(&self, now: Time, key: QueueKey, bytes: u32) -> bool {
        if self.storming(key.class()) {
            return self.action == WatchdogAction::Forward;
        }
        self.inner.may_send(now, key, bytes)
    }
    fn on_send(&mut self, now: Time, key: QueueKey, bytes: u32) {
        self.inner.on_send(now, key, bytes)
    }
    fn on_ctrl(&mut self, now: Time, frame: &Packet, rate: Rate, out: &mut FcOutbox) {
        let armed = self
            .timer
            .call(out, |o| self.inner.on_ctrl(now, frame, rate, o));
        if frame.kind == PacketKind::Pfc && frame.pfc_quanta() > 0 {
            self.last_xoff[frame.pfc_class() as usize] = now;
        }
        self.update(now, armed, out);
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
            self.timer.arm(self.own_next(), out);
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
            self.timer.arm(self.own_next(), out);
        }
    }
    fn on_timer(&mut self, now: Time, s: &dyn Fn(usize) -> IngressState, out: &mut FcOutbox) {
        if self.timer.due(now) {
            self.timer.call(out, |o| self.inner.on_timer(now, s, o));
        }
        // The port's timer is spent: arm it again whatever changed.
        self.update(now, true, out);
    }
    fn send_upstream(&mut self, now: Time, frame: &Packet, out: &mut FcOutbox) {
        self.inner.send_upstream(now, frame, out)
    }
    fn held_flows(&self) -> Vec<(u32, u64, bool)> {
        self.inner.held_flows()
    }
    fn counters(&self, now: Time) -> FcCounters {
        let mut c = self.inner.counters(now);
        c.storms = self.storms;
        c.restores = self.restores;
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fc::pfc::{Pfc, PfcMode};

    fn us(n: u64) -> Time {
        Time::from_ns(n * 1000)
    }

    fn watchdog(host: bool) -> PfcWatchdog<Pfc> {
        let cfg = WatchdogConfig {
            detect: Delta::from_us(100),
            restore: Delta::from_us(50),
            ..WatchdogConfig::default()
        };
        PfcWatchdog::new(
            Pfc::new(PfcMode::UntilResume, Rate::gbps(100), !host),
            cfg,
            host,
        )
    }

    const NOTHING: IngressState = IngressState {
        over_xoff: false,
        below_xon: true,
    };

    #[test]
    fn a_pause_that_lasts_detect_is_a_storm_and_its_queue_is_dropped() {
        let mut w = watchdog(false);
        let rate = Rate::gbps(100);
        let mut out = FcOutbox::default();
        w.on_ctrl(us(10), &Packet::pfc(3, 5), rate, &mut out);
        assert_eq!(out.timer, Some(us(110)));
        assert!(!w.may_send(us(109), QueueKey::of_class(3), 1000));
        let mut out = FcOutbox::default();
        w.on_timer(us(110), &|_| NOTHING, &mut out);
        assert!(w.storming(3));
        assert_eq!(out.flush, vec![QueueKey::of_class(3)]);
        // Dropped, not sent: the class stays closed, and its queue is
        // emptied again a drop interval later.
        assert!(!w.may_send(us(110), QueueKey::of_class(3), 1000));
        assert_eq!(out.timer, Some(us(111)));
        assert_eq!(w.counters(us(110)).storms[3], 1);
        // Other classes are untouched.
        assert!(w.may_send(us(110), QueueKey::of_class(4), 1000));
    }

    #[test]
    fn intermittent_pauses_never_trip_it() {
        let mut w = watchdog(false);
        let rate = Rate::gbps(100);
        for k in 0..100u64 {
            let mut out = FcOutbox::default();
            let t = us(k * 20);
            w.on_ctrl(t, &Packet::pfc(3, 5), rate, &mut out);
            w.on_ctrl(t + Delta::from_us(15), &Packet::pfc(3, 0), rate, &mut out);
            // The timer the pause armed fires after the resume: nothing.
            w.on_timer(t + Delta::from_us(16), &|_| NOTHING, &mut out);
            assert!(out.flush.is_empty());
        }
        assert_eq!(w.counters(us(3000)).storms, [0; N_CLASSES]);
    }

    #[test]
    fn a_storm_is_restored_after_restore_without_pause_frames() {
        let mut w = watchdog(false);
        let rate = Rate::gbps(100);
        let mut out = FcOutbox::default();
        w.on_ctrl(Time::ZERO, &Packet::pfc(3, 5), rate, &mut out);
        w.on_timer(us(100), &|_| NOTHING, &mut out);
        assert!(w.storming(3));
        // Pause frames keep coming: still a storm.
        w.on_ctrl(us(120), &Packet::pfc(3, 5), rate, &mut out);
        w.on_timer(us(169), &|_| NOTHING, &mut out);
        assert!(w.storming(3));
        // The last one then resumes the class; 50 µs on, it is restored.
        w.on_ctrl(us(130), &Packet::pfc(3, 0), rate, &mut out);
        let mut out = FcOutbox::default();
        w.on_timer(us(170), &|_| NOTHING, &mut out);
        assert!(!w.storming(3));
        assert!(out.wake);
        assert!(w.may_send(us(170), QueueKey::of_class(3), 1000));
        let c = w.counters(us(170));
        assert_eq!((c.storms[3], c.restores[3]), (1, 1));
    }

    #[test]
    fn at_a_host_a_storming_class_is_sent_on() {
        let mut w = watchdog(true);
        let rate = Rate::gbps(100);
        let mut out = FcOutbox::default();
        w.on_ctrl(Time::ZERO, &Packet::pfc(3, 5), rate, &mut out);
        w.on_timer(us(100), &|_| NOTHING, &mut out);
        assert!(w.storming(3));
        assert!(out.flush.is_empty());
        assert!(w.may_send(us(100), QueueKey::of_class(3), 1000));
    }
}
