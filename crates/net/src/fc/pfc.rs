//! Priority flow control.
//!
//! Heads up: read the peer's PFC (HPCC sim `switch-mmu.cc`
//! `CheckShouldPause`/`CheckShouldResume`, `QbbNetDevice::Receive`) and
//! IEEE 802.1Qbb's pause semantics. Two modes ([`PfcMode`]):
//! - `UntilResume` (the peer): XOFF pauses the class until an XON (a frame
//!   with pause time 0); the pause-time field is not used as a timer.
//! - `Quanta` (the standard): XOFF pauses for `quanta` × 512 bit-times of the
//!   link and expires unless refreshed; the downstream refreshes it while the
//!   ingress stays above XON, and sends quanta 0 to resume early.
//!
//! The decision to pause or resume uses the MMU's conditions
//! ([`IngressState`]): XOFF once the ingress is over its threshold or in
//! headroom, XON once it is back below the threshold minus the hysteresis.
//! Frames are real 64-byte frames, sent ahead of data but never preempting a
//! frame on the wire. Class 0 carries control and is never paused.

use super::hooks::{FcCounters, FcOutbox, FlowControl, IngressState};
use crate::wire::{Packet, PacketKind, QueueKey, N_CLASSES};
use engine::{Delta, Rate, Time};

/// How a paused upstream port interprets a PFC frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PfcMode {
    /// The peer's semantics (HPCC ns-3 simulator, PFC): a pause holds until an explicit resume;
    /// the pause-time field is ignored.
    UntilResume,
    /// IEEE 802.1Qbb: a pause lasts `quanta` × 512 bit-times of the link and
    /// expires unless refreshed; the downstream refreshes it while congested
    /// and sends quanta 0 to resume early.
    Quanta {
        /// Pause time carried in XOFF frames.
        quanta: u16,
        /// The downstream re-sends XOFF after this fraction of the pause time.
        refresh_fraction: f64,
    },
}

/// PFC state of one port: its upstream (obeying) and downstream (sending)
/// halves. `repr(C)`, what every frame reads first: `may_send`,
/// `after_admit` and `after_release` read only its first four bytes
/// (`sends` and three bitmasks), which `Port` keeps in its first cache line
/// (port.rs).
#[derive(Clone, Debug)]
#[repr(C)]
pub struct Pfc {
    /// Whether this port sends PFC (switch ports do; the peer's hosts never
    /// do).
    sends: bool,
    // Upstream half: bit `c` set iff class `c` is paused.
    paused: u8,
    // Downstream half: bit `c` set iff an XOFF was sent for class `c`.
    xoff_sent: u8,
    // Bit `c` set iff this port pauses class `c` (never class 0).
    lossless: u8,
    mode: PfcMode,
    /// Rate of this port's link: quanta are 512 bit-times of it.
    rate: Rate,
    // Upstream half.
    paused_until: [Time; N_CLASSES],
    pause_start: [Time; N_CLASSES],
    // Downstream half.
    next_refresh: [Time; N_CLASSES],
    c: FcCounters,
}

/// Bit `class` of a per-class bitmask.
#[inline(always)]
fn bit(mask: u8, class: usize) -> bool {
    mask >> class & 1 != 0
}

/// Length of a pause of `quanta` at `rate`: each quantum is 512 bit-times.
pub fn quanta_duration(quanta: u16, rate: Rate) -> Delta {
    rate.tx_time(u64::from(quanta) * 512 / 8)
}

impl Pfc {
    /// PFC on a port of `rate`; `sends` if this port generates XOFF/XON.
    pub fn new(mode: PfcMode, rate: Rate, sends: bool) -> Pfc {
        Pfc {
            mode,
            rate,
            sends,
            paused: 0,
            paused_until: [Time::ZERO; N_CLASSES],
            pause_start: [Time::ZERO; N_CLASSES],
            xoff_sent: 0,
            lossless: !1,
            next_refresh: [Time::MAX; N_CLASSES],
            c: FcCounters::default(),
        }
    }

    /// Pause only the classes of `mask` (bit `c` for class `c`; class 0,
    /// the control class, never): the others are lossy on this port.
    pub fn set_classes(&mut self, mask: u8) {
        self.lossless = mask & !1;
    }

    fn xoff_quanta(&self) -> u16 {
        match self.mode {
            // The peer's PAUSE_TIME default fills the field; unused as a timer.
            PfcMode::UntilResume => 5,
            PfcMode::Quanta { quanta, .. } => quanta,
        }
    }

    fn send_xoff(&mut self, now: Time, class: usize, out: &mut FcOutbox) {
        out.frames
            .push(Packet::pfc(class as u8, self.xoff_quanta()));
        self.c.pause_tx[class] += 1;
        if let PfcMode::Quanta {
            quanta,
            refresh_fraction,
        } = self.mode
        {
            let d = quanta_duration(quanta, self.rate);
            let refresh = Delta(((d.ps() as f64 * refresh_fraction) as u64).max(1));
            self.next_refresh[class] = now + refresh;
            self.arm(now, out);
        }
    }

    /// [`FlowControl::after_admit`], returning whether it put anything in
    /// `out` (an XOFF).
    #[inline(always)]
    pub(crate) fn admit_emits(
        &mut self,
        now: Time,
        class: usize,
        s: IngressState,
        out: &mut FcOutbox,
    ) -> bool {
        // `over_xoff` first: it is false for nearly every frame, and a
        // register here (the MMU's answer), so most frames test nothing else.
        let pause =
            s.over_xoff && self.sends && bit(self.lossless, class) && !bit(self.xoff_sent, class);
        if pause {
            self.pause(now, class, out);
        }
        pause
    }

    /// [`FlowControl::after_release`], returning whether it put anything
    /// in `out` (an XON).
    #[inline(always)]
    pub(crate) fn release_emits(
        &mut self,
        class: usize,
        s: IngressState,
        out: &mut FcOutbox,
    ) -> bool {
        let resume = bit(self.xoff_sent, class) && s.below_xon;
        if resume {
            self.resume(class, out);
        }
        resume
    }

    /// Downstream: the ingress went over XOFF in `class`.
    #[inline(never)]
    fn pause(&mut self, now: Time, class: usize, out: &mut FcOutbox) {
        self.xoff_sent |= 1 << class;
        self.send_xoff(now, class, out);
    }

    /// Downstream: the ingress went below XON in `class` after an XOFF.
    #[inline(never)]
    fn resume(&mut self, class: usize, out: &mut FcOutbox) {
        self.xoff_sent &= !(1 << class);
        self.next_refresh[class] = Time::MAX;
        out.frames.push(Packet::pfc(class as u8, 0));
        self.c.resume_tx[class] += 1;
    }

    fn unpause(&mut self, class: usize, at: Time) {
        if bit(self.paused, class) {
            self.paused &= !(1 << class);
            self.c.paused_ps[class] += at.since(self.pause_start[class]).ps();
        }
    }

    /// Arm the timer at the earliest pending expiry or refresh.
    fn arm(&self, now: Time, out: &mut FcOutbox) {
        let mut next = Time::MAX;
        for c in 0..N_CLASSES {
            if bit(self.paused, c) && self.paused_until[c] > now {
                next = next.min(self.paused_until[c]);
            }
            if bit(self.xoff_sent, c) {
                next = next.min(self.next_refresh[c]);
            }
        }
        if next != Time::MAX {
            out.timer = Some(next);
        }
    }
}

impl FlowControl for Pfc {
    // The hooks every frame calls are inlined, with their rare actions
    // (sending XOFF or XON) out of line: most frames only test a flag.
    #[inline(always)]
    fn may_send(&self, now: Time, key: QueueKey, _bytes: u32) -> bool {
        let class = key.class();
        // The mode matters only while paused: read it only then.
        !bit(self.paused, class)
            || match self.mode {
                PfcMode::UntilResume => false,
                PfcMode::Quanta { .. } => now >= self.paused_until[class],
            }
    }

    fn on_ctrl(&mut self, now: Time, frame: &Packet, rate: Rate, out: &mut FcOutbox) {
        debug_assert_eq!(frame.kind, PacketKind::Pfc);
        let class = frame.pfc_class() as usize;
        if frame.pfc_quanta() == 0 {
            self.c.resume_rx[class] += 1;
            self.unpause(class, now);
            out.wake = true;
            return;
        }
        self.c.pause_rx[class] += 1;
        if !bit(self.paused, class) {
            self.paused |= 1 << class;
            self.pause_start[class] = now;
        }
        if let PfcMode::Quanta { .. } = self.mode {
            // A refresh replaces the pause time; it does not add to it.
            self.paused_until[class] = now + quanta_duration(frame.pfc_quanta(), rate);
            self.arm(now, out);
        }
    }

    #[inline]
    fn after_admit(
        &mut self,
        now: Time,
        key: QueueKey,
        _bytes: u32,
        s: IngressState,
        out: &mut FcOutbox,
    ) {
        let class = key.class();
        self.admit_emits(now, class, s, out);
    }

    #[inline]
    fn after_release(
        &mut self,
        _now: Time,
        key: QueueKey,
        _bytes: u32,
        s: IngressState,
        out: &mut FcOutbox,
    ) {
        let class = key.class();
        self.release_emits(class, s, out);
    }

    fn on_timer(&mut self, now: Time, _s: &dyn Fn(usize) -> IngressState, out: &mut FcOutbox) {
        for c in 0..N_CLASSES {
            // Upstream: a pause that was not refreshed expires.
            if bit(self.paused, c) && self.paused_until[c] <= now {
                if let PfcMode::Quanta { .. } = self.mode {
                    let until = self.paused_until[c];
                    self.unpause(c, until);
                    out.wake = true;
                }
            }
            // Downstream: still not below XON, so refresh the pause.
            if bit(self.xoff_sent, c) && self.next_refresh[c] <= now {
                self.send_xoff(now, c, out);
            }
        }
        self.arm(now, out);
    }

    fn counters(&self, now: Time) -> FcCounters {
        let mut c = self.c.clone();
        for k in 0..N_CLASSES {
            if bit(self.paused, k) {
                let end = match self.mode {
                    PfcMode::UntilResume => now,
                    PfcMode::Quanta { .. } => now.min(self.paused_until[k]),
                };
                c.paused_ps[k] += end.since(self.pause_start[k]).ps();
            }
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OVER: IngressState = IngressState {
        over_xoff: true,
        below_xon: false,
    };
    const BELOW: IngressState = IngressState {
        over_xoff: false,
        below_xon: true,
    };

    #[test]
    fn quanta_are_512_bit_times() {
        // 0xFFFF quanta at 100 Gb/s: 65535 × 5.12 ns = 335.539 µs.
        assert_eq!(quanta_duration(0xFFFF, Rate::gbps(100)), Delta(335_539_200));
        assert_eq!(quanta_duration(1, Rate::gbps(400)), Delta(1_280));
    }

    #[test]
    fn xoff_once_then_xon_once() {
        let mut p = Pfc::new(PfcMode::UntilResume, Rate::gbps(100), true);
        let mut out = FcOutbox::default();
        p.after_admit(Time::ZERO, QueueKey::of_class(3), 1000, OVER, &mut out);
        p.after_admit(Time::ZERO, QueueKey::of_class(3), 1000, OVER, &mut out);
        assert_eq!(out.frames.len(), 1);
        assert_eq!(out.frames[0].pfc_class(), 3);
        assert!(out.frames[0].pfc_quanta() > 0);
        p.after_release(Time::ZERO, QueueKey::of_class(3), 1000, OVER, &mut out);
        assert_eq!(out.frames.len(), 1, "no XON while above XON");
        p.after_release(Time::ZERO, QueueKey::of_class(3), 1000, BELOW, &mut out);
        assert_eq!(out.frames.len(), 2);
        assert_eq!(out.frames[1].pfc_quanta(), 0);
    }

    #[test]
    fn peer_mode_pauses_until_resume() {
        let mut p = Pfc::new(PfcMode::UntilResume, Rate::gbps(100), false);
        let mut out = FcOutbox::default();
        p.on_ctrl(Time::ZERO, &Packet::pfc(3, 5), Rate::gbps(100), &mut out);
        assert!(!p.may_send(Time::from_ns(1_000_000), QueueKey::of_class(3), 1000));
        assert!(p.may_send(Time::ZERO, QueueKey::of_class(0), 1000));
        p.on_ctrl(
            Time::from_ns(700),
            &Packet::pfc(3, 0),
            Rate::gbps(100),
            &mut out,
        );
        assert!(p.may_send(Time::from_ns(700), QueueKey::of_class(3), 1000));
        assert_eq!(p.counters(Time::from_ns(900)).paused_ps[3], 700_000);
    }

    #[test]
    fn standard_mode_pause_expires_unless_refreshed() {
        let mode = PfcMode::Quanta {
            quanta: 100,
            refresh_fraction: 0.5,
        };
        let rate = Rate::gbps(100);
        let mut p = Pfc::new(mode, rate, false);
        let mut out = FcOutbox::default();
        p.on_ctrl(Time::ZERO, &Packet::pfc(3, 100), rate, &mut out);
        // 100 quanta × 512 bit / 100 Gb/s = 512 ns.
        assert_eq!(out.timer, Some(Time::from_ns(512)));
        assert!(!p.may_send(Time::from_ns(511), QueueKey::of_class(3), 1000));
        assert!(p.may_send(Time::from_ns(512), QueueKey::of_class(3), 1000));
        // A refresh at 300 ns extends it to 812 ns.
        p.on_ctrl(Time::from_ns(300), &Packet::pfc(3, 100), rate, &mut out);
        assert!(!p.may_send(Time::from_ns(700), QueueKey::of_class(3), 1000));
        let mut out = FcOutbox::default();
        p.on_timer(Time::from_ns(812), &|_| BELOW, &mut out);
        assert!(out.wake);
        assert_eq!(p.counters(Time::from_ns(2000)).paused_ps[3], 812_000);
    }

    /// 802.1Qbb as Bifrost needs it (Bifrost §V): q quanta pause for
    /// q × 512 bit-times, and a newer frame replaces the running timer,
    /// shorter as well as longer; 0 quanta resumes at once.
    #[test]
    fn a_newer_pause_replaces_the_timer() {
        let mode = PfcMode::Quanta {
            quanta: 7813,
            refresh_fraction: 0.5,
        };
        let rate = Rate::gbps(400);
        let mut p = Pfc::new(mode, rate, false);
        let mut out = FcOutbox::default();
        p.on_ctrl(Time::ZERO, &Packet::pfc(3, 7813), rate, &mut out);
        // 7813 × 512 bit / 400 Gb/s = 10.00064 µs (Bifrost §V: 7813 quanta).
        assert_eq!(out.timer, Some(Time(10_000_640)));
        assert!(!p.may_send(Time(10_000_639), QueueKey::of_class(3), 1048));
        // 1 µs later, 100 quanta (128 ns) replace the rest of the pause.
        p.on_ctrl(Time::from_ns(1000), &Packet::pfc(3, 100), rate, &mut out);
        assert_eq!(out.timer, Some(Time::from_ns(1128)));
        assert!(!p.may_send(Time::from_ns(1127), QueueKey::of_class(3), 1048));
        assert!(p.may_send(Time::from_ns(1128), QueueKey::of_class(3), 1048));
        // A longer one extends it; a zero resumes at once.
        p.on_ctrl(Time::from_ns(1100), &Packet::pfc(3, 7813), rate, &mut out);
        assert!(!p.may_send(Time::from_ns(5000), QueueKey::of_class(3), 1048));
        p.on_ctrl(Time::from_ns(5000), &Packet::pfc(3, 0), rate, &mut out);
        assert!(p.may_send(Time::from_ns(5000), QueueKey::of_class(3), 1048));
        assert_eq!(p.counters(Time::from_ns(6000)).paused_ps[3], 5_000_000);
    }

    #[test]
    fn standard_mode_downstream_refreshes_while_congested() {
        let mode = PfcMode::Quanta {
            quanta: 100,
            refresh_fraction: 0.5,
        };
        let mut p = Pfc::new(mode, Rate::gbps(100), true);
        let mut out = FcOutbox::default();
        p.after_admit(Time::ZERO, QueueKey::of_class(3), 1000, OVER, &mut out);
        assert_eq!(out.timer, Some(Time::from_ns(256)));
        let mut out2 = FcOutbox::default();
        p.on_timer(Time::from_ns(256), &|_| OVER, &mut out2);
        assert_eq!(out2.frames.len(), 1);
        assert_eq!(out2.frames[0].pfc_quanta(), 100);
        assert_eq!(out2.timer, Some(Time::from_ns(512)));
    }
}
