//! Bifrost: downstream-driven flow control for a long-haul ingress.
//!
//! Heads up: read Bifrost §IV-B (Algorithm 1; Figs. 5 and 6 for timing),
//! §V (pause encoding, upstream and downstream behaviour, the limits on T),
//! §IV-D (pause-frame leaking) and §IV-C1 with its online appendix
//! (Theorem 1); `docs/bifrost.md` explains what is implemented, the printed
//! algorithm's two defects, and why.
//!
//! Every slot T the port reads L (bytes held at its ingress for the class)
//! and r (bytes received in the last slot), computes the grant
//! c = min(R_s·T, H − L − F), deducts over-granted bytes every k slots, and
//! sends a standard PFC frame with pause time p = T − ĉ/R_s when p > 0. The
//! upstream is a plain 802.1Qbb port (`PfcMode::Quanta` semantics): it
//! stays silent for p and sends for the rest of the slot. F, the virtual
//! incoming bytes, is kept in one of three ways ([`BifrostReading`]).
//!
//! This port's own egress (the reverse direction) obeys PFC frames from the
//! far end as 802.1Qbb timers; standard PFC threshold generation is off on
//! a Bifrost port (Bifrost §V: it is "triggered by time slot instead of by
//! queue length threshold").

use super::hooks::{FcCounters, FcOutbox, FlowControl, IngressState};
use super::pfc::quanta_duration;
use super::pfc::Pfc;
use super::pfc::PfcMode;
use crate::wire::{Packet, QueueKey};
use engine::units::MAX_BYTES;
use engine::{Delta, Rate, Time};
use std::collections::VecDeque;

/// Which reading of Bifrost's Algorithm 1 runs (`docs/bifrost.md`, "The
/// three readings").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BifrostReading {
    /// Algorithm 1 exactly as printed (Bifrost §IV-B, Alg. 1 ll. 10–15):
    /// c = min(R_s·T, H − L − F) may be negative; every k slots
    /// ĉ = max(0, c − (L + F − H)) (which raises the grant when L + F < H);
    /// F ← min(Δ + R_s·T, F − r + c) with the measured r. Not lossless even
    /// without leaks: a negative c drives F below the bytes in flight.
    Literal,
    /// c clamped at 0, only a positive excess deducted, F updated from the
    /// measured r as printed (line 15). Exact without leaks; a leak makes F
    /// drift below the true in-flight bytes, and the leak check never sees
    /// it.
    Clamped,
    /// c clamped at 0, only a positive excess deducted, and F the running
    /// sum of the grants in flight: the ĉ issued over the last N + 1 slots
    /// (the online appendix's F_n = F_{n−1} − c_{n−(N+1)} + c_n). Leaked
    /// bytes then raise L but not F, so L + F > H reveals them and the
    /// deduction takes them back (Bifrost §IV-D). rdmasim's default.
    Ledger,
}

/// A test knob: hold back some pause frames to make them late (Bifrost
/// §IV-D).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PauseDelay {
    /// Every `every`-th pause frame is delayed (1 = all).
    pub every: u32,
    /// By this much, on top of waiting for the wire.
    pub by: Delta,
}

/// Settings of a Bifrost ingress. Names are the paper's symbols.
#[derive(Clone, Debug, PartialEq)]
pub struct BifrostConfig {
    /// Time slot T. Default 10 µs (Bifrost §V: "we configure T to be
    /// 10 µs"; §VI-B).
    pub t_slot: Delta,
    /// Reserved buffer H of the queue, bytes. `None`: Δ + 2·R_s·T + k·MTU
    /// (Bifrost §IV-C1's condition for Theorem 1 plus §IV-D's k × MTU of
    /// leak headroom; Alg. 1's header prints the weaker Δ + R_s·T).
    pub h: Option<u64>,
    /// Leak-check period k, slots. Default 1 (Bifrost §VI-A1 and §VI-B: k is
    /// set to 1 on the testbed and in the simulations). 0 turns the check
    /// off.
    pub k: u32,
    /// Largest frame on the link, bytes, for H's k·MTU term. Default 1500
    /// (Bifrost §VI-B's IRN bitmap, 50,134 packets for a 6 ms round trip at
    /// 100 Gb/s, implies 1500 B packets; `rdmasim buffer` uses it).
    pub mtu: u64,
    /// Δ, bytes. `None`: R_s·N·T with N = ⌈2D/T⌉ slots per round trip: the
    /// link's BDP over propagation only (Bifrost Table I: "BDP"; what else it
    /// counts is not said), rounded up to whole slots (exact when T divides the
    /// RTT, as for 600 km and 10 µs).
    pub delta: Option<u64>,
    /// Which reading of the algorithm. Default [`BifrostReading::Ledger`].
    pub reading: BifrostReading,
    /// The (lossless) class this port controls. Default 3, rdmasim's and
    /// the peer's data class. Other classes on this ingress are not
    /// flow-controlled.
    pub class: u8,
    /// Keep a per-slot trace ([`BifrostSlot`]). Default off.
    pub trace: bool,
    /// Test knob: make some pause frames late (Bifrost §IV-D). Default none.
    pub pause_delay: Option<PauseDelay>,
}

impl Default for BifrostConfig {
    fn default() -> Self {
        BifrostConfig {
            t_slot: Delta::from_us(10),
            h: None,
            k: 1,
            mtu: 1500,
            delta: None,
            reading: BifrostReading::Ledger,
            class: 3,
            trace: false,
            pause_delay: None,
        }
    }
}

/// A Bifrost port's parameters, resolved against its link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BifrostParams {
    /// R_s·T: bytes one slot carries at line rate.
    pub r_s_t: u64,
    /// N: slots per round trip, ⌈2D/T⌉.
    pub n: u64,
    /// Δ, bytes.
    pub delta: u64,
    /// H, bytes.
    pub h: u64,
    /// T in 512-bit quanta of the link (rounded up).
    pub t_quanta: u64,
}

/// One slot of a Bifrost port (Alg. 1's variables), values after the
/// slot's update.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BifrostSlot {
    /// Slot number n (1 at the first tick).
    pub n: u64,
    /// When the slot ended (the tick).
    pub time: Time,
    /// L_n: bytes held at the ingress for the class.
    pub l: u64,
    /// F_n: virtual incoming bytes after the update.
    pub f: i64,
    /// r_n: bytes received during the slot.
    pub r: u64,
    /// c_n: the grant (line 10, clamped unless literal).
    pub c: i64,
    /// ĉ_n: the grant after the leak deduction (lines 11–13).
    pub c_hat: i64,
    /// Pause time sent, in quanta; 0 = no frame (p ≤ 0).
    pub quanta: u16,
}

/// Write a trace as CSV: a header, then one row per slot. `h` adds the
/// column L + F − H (Theorem 1's upper bound is ≤ 0).
pub fn write_trace_csv(
    w: &mut impl std::io::Write,
    trace: &[BifrostSlot],
    h: u64,
) -> std::io::Result<()> {
    writeln!(w, "n,time_ns,L,F,r,c,c_hat,p_quanta,L_plus_F_minus_H")?;
    for s in trace {
        writeln!(
            w,
            "{},{},{},{},{},{},{},{},{}",
            s.n,
            s.time.ps() as f64 / 1000.0,
            s.l,
            s.f,
            s.r,
            s.c,
            s.c_hat,
            s.quanta,
            s.l as i64 + s.f - h as i64
        )?;
    }
    Ok(())
}

/// Bifrost state of one port.
#[derive(Clone, Debug)]
pub struct Bifrost {
    cfg: BifrostConfig,
    par: BifrostParams,
    rate: Rate,
    /// T in bits of the link (pause arithmetic).
    t_bits: u128,
    /// Slot number n.
    n: u64,
    /// F, virtual incoming bytes. Signed: the literal reading drives it
    /// negative.
    f: i64,
    /// Bytes received in the current slot (the MAC's RX counter, Bifrost §V).
    rx_slot: u64,
    /// L: bytes of the class held at this ingress, from admission until the
    /// switch sends them on (the MMU's ingress accounting, Bifrost §V).
    l: u64,
    /// Ledger reading: ĉ of the last N + 1 slots, oldest first.
    ledger: VecDeque<i64>,
    next_tick: Time,
    /// Frames held back by the `pause_delay` knob: (release time, frame).
    pending: VecDeque<(Time, Packet)>,
    pauses: u64,
    /// The upstream half: obeys PFC frames as 802.1Qbb timers.
    up: Pfc,
    up_timer: Time,
    trace: Vec<BifrostSlot>,
    peak_l: u64,
    peak_lf_minus_h: i64,
    min_lf: i64,
}

impl BifrostConfig {
    /// Resolve against a link of `rate` and one-way delay `delay`, with
    /// one line per constraint broken (Bifrost §V, §IV-D, §IV-C1).
    ///
    /// This is rdmasim's one reckoning of Theorem 1's bound (Bifrost
    /// §IV-C1), for the simulated port and for `rdmasim buffer` alike:
    /// H ≥ Δ + 2·R_s·T, and the default H adds k·MTU for late pause frames
    /// (§IV-D). R_s·T is rounded down to whole bytes, as the port grants
    /// it. Δ, when not given, is the round trip in whole slots, N·R_s·T
    /// with N = ⌈2D/T⌉, not the exact R_s·2D: the port grants bytes one
    /// slot at a time and keeps the grants of the last N slots in flight
    /// (F is capped at Δ + R_s·T), so what it may have granted and not yet
    /// received is N slots' worth, up to one R_s·T more than the exact BDP
    /// when T does not divide the round trip; an H from the exact BDP could
    /// fall short of the bound the running port needs. The two agree when
    /// T divides 2D, as for the paper's 600 km and 10 µs.
    pub fn resolve(&self, rate: Rate, delay: Delta) -> (BifrostParams, Vec<String>) {
        let t = self.t_slot;
        let t_bits = rate.bps() as u128 * t.ps() as u128 / 1_000_000_000_000;
        // In u128 and saturated: a slot of 10^6 s at 100 Tb/s (the input
        // limits) carries 1.25·10^19 B, and 2·R_s·T would wrap a u64.
        // `check` refuses sizes past `MAX_BYTES` before anything uses them.
        let sat = |v: u128| u64::try_from(v).unwrap_or(u64::MAX);
        let r_s_t = sat(t_bits / 8);
        let n = (2 * delay.ps()).div_ceil(t.ps().max(1));
        let delta = self.delta.unwrap_or(sat(u128::from(n) * u128::from(r_s_t)));
        let bound = sat(u128::from(delta) + 2 * u128::from(r_s_t));
        let k_mtu = u64::from(self.k).saturating_mul(self.mtu);
        let h = self.h.unwrap_or(bound.saturating_add(k_mtu));
        let t_quanta = sat(t_bits.div_ceil(512));
        let mut w = Vec::new();
        if h < bound {
            w.push(format!(
                "Bifrost H = {h} B is below Theorem 1's bound Δ + 2·R_s·T = {bound} B \
                 (Bifrost §IV-C1): the port may drop or leave its link idle"
            ));
        } else if h < bound.saturating_add(k_mtu) {
            w.push(format!(
                "Bifrost H = {h} B leaves less than k·MTU = {} B above Δ + 2·R_s·T for \
                 pause-frame leaking (Bifrost §IV-D)",
                u64::from(self.k) * self.mtu
            ));
        }
        if t >= delay {
            w.push(format!(
                "Bifrost T = {t} is not below the link's one-way delay D = {delay} \
                 (Bifrost §V: T must be smaller than D)"
            ));
        }
        if t_quanta > 65_535 {
            w.push(format!(
                "Bifrost T = {t} is {t_quanta} quanta of 512 bits, more than a PFC pause \
                 field holds (65535; Bifrost §V): pauses are cut to 65535"
            ));
        }
        if self.k == 0 {
            w.push("Bifrost k = 0: the leak check never runs (Bifrost §IV-D)".into());
        }
        if self.class == 0 || self.class as usize >= crate::wire::N_CLASSES {
            w.push(format!(
                "Bifrost class {} is not a data class (1-7): nothing is controlled",
                self.class
            ));
        }
        (
            BifrostParams {
                r_s_t,
                n,
                delta,
                h,
                t_quanta,
            },
            w,
        )
    }
}

/// Most slots per round trip N a Bifrost port takes: its ledger keeps one
/// grant per slot (8 bytes each, 32 MiB at this limit). A 600 km link with
/// the default T = 10 µs has N = 1,200.
pub const MAX_SLOTS_PER_RTT: u64 = 1 << 22;

impl BifrostConfig {
    /// [`BifrostConfig::resolve`], or why a port cannot run these settings
    /// on a link of `rate` and one-way delay `delay`: more than
    /// [`MAX_SLOTS_PER_RTT`] slots per round trip, or byte counts (Δ, H,
    /// the ledger's N + 1 slots of R_s·T) past the 2^53 bytes that every
    /// size in rdmasim is held to (`engine::units::MAX_BYTES`).
    pub fn check(&self, rate: Rate, delay: Delta) -> Result<(BifrostParams, Vec<String>), String> {
        let (par, warnings) = self.resolve(rate, delay);
        let t = self.t_slot;
        if par.n > MAX_SLOTS_PER_RTT {
            return Err(format!(
                "Bifrost T = {t} over a one-way delay D = {delay} gives N = ⌈2D/T⌉ = {} slots \
                 per round trip; at most {MAX_SLOTS_PER_RTT}: raise bifrost_t or shorten the link",
                par.n
            ));
        }
        let ledger = u128::from(par.r_s_t) * u128::from(par.n + 2);
        let most = u128::from(par.delta.max(par.h)).max(ledger);
        if most > u128::from(MAX_BYTES) {
            return Err(format!(
                "Bifrost T = {t} at {rate} gives R_s·T = {} B a slot, and its buffer H = Δ + \
                 2·R_s·T + k·MTU passes the 2^53 bytes rdmasim counts: lower bifrost_t",
                par.r_s_t
            ));
        }
        Ok((par, warnings))
    }
}

impl Bifrost {
    /// A Bifrost ingress on a link of `rate` and one-way delay `delay`,
    /// with the warnings its settings deserve; an error if
    /// [`BifrostConfig::check`] refuses its settings on this link.
    pub fn new(
        cfg: &BifrostConfig,
        rate: Rate,
        delay: Delta,
    ) -> Result<(Bifrost, Vec<String>), String> {
        assert!(cfg.t_slot > Delta::ZERO, "Bifrost T must be > 0");
        let (par, warnings) = cfg.check(rate, delay)?;
        let t_bits = rate.bps() as u128 * cfg.t_slot.ps() as u128 / 1_000_000_000_000;
        let s = par.r_s_t as i64;
        // Line 1: F ← Δ + R_s·T (the link may be full at start).
        let f = par.delta as i64 + s;
        let ledger = if cfg.reading == BifrostReading::Ledger {
            std::iter::repeat_n(s, par.n as usize + 1).collect()
        } else {
            VecDeque::new()
        };
        let f = if cfg.reading == BifrostReading::Ledger {
            s * (par.n as i64 + 1)
        } else {
            f
        };
        let up_mode = PfcMode::Quanta {
            quanta: 0xFFFF,
            refresh_fraction: 0.5,
        };
        Ok((
            Bifrost {
                cfg: cfg.clone(),
                par,
                rate,
                t_bits,
                n: 0,
                f,
                rx_slot: 0,
                l: 0,
                ledger,
                next_tick: Time::MAX,
                pending: VecDeque::new(),
                pauses: 0,
                up: Pfc::new(up_mode, rate, false),
                up_timer: Time::MAX,
                trace: Vec::new(),
                peak_l: 0,
                peak_lf_minus_h: i64::MIN,
                min_lf: i64::MAX,
            },
            warnings,
        ))
    }

    /// Resolved parameters.
    pub fn params(&self) -> BifrostParams {
        self.par
    }

    /// The per-slot trace (empty unless `trace` is on).
    pub fn trace(&self) -> &[BifrostSlot] {
        &self.trace
    }

    /// Pause frames generated so far.
    pub fn pauses(&self) -> u64 {
        self.pauses
    }

    /// Largest L seen at a slot tick.
    pub fn peak_l(&self) -> u64 {
        self.peak_l
    }

    /// Largest L_n + F_n − H over the slots so far (Theorem 1: ≤ 0).
    pub fn peak_excess(&self) -> i64 {
        self.peak_lf_minus_h
    }

    /// Smallest L_n + F_n over the slots so far (Theorem 1: ≥ Δ + R_s·T).
    pub fn min_l_plus_f(&self) -> i64 {
        self.min_lf
    }

    /// Pause quanta for a grant of `c_hat` bytes: p = T − ĉ/R_s in 512-bit
    /// quanta, rounded up (rdmasim's choice, conservative: Bifrost does not
    /// say how p is rounded), at most 65535.
    /// 0 when p ≤ 0 (no frame, line 7).
    fn quanta_for(&self, c_hat: i64) -> u16 {
        let granted_bits = (c_hat as i128) * 8;
        let pause_bits = self.t_bits as i128 - granted_bits;
        if pause_bits <= 0 {
            return 0;
        }
        (pause_bits as u128).div_ceil(512).min(0xFFFF) as u16
    }

    /// One slot of Algorithm 1 (lines 3–15).
    fn slot(&mut self, now: Time, l: u64, out: &mut FcOutbox) {
        let class = self.cfg.class;
        let h = self.par.h as i64;
        let s = self.par.r_s_t as i64;
        let cap = self.par.delta as i64 + s;
        let li = l as i64;
        // Line 4: bytes received during the last slot.
        let r = std::mem::take(&mut self.rx_slot);
        // Line 5.
        self.n += 1;
        let n = self.n;
        // Line 10, with the old F (the online appendix's
        // c_n = min(R_s·T, H − L_n − F_{n−1})).
        let raw = s.min(h - li - self.f);
        let c = match self.cfg.reading {
            BifrostReading::Literal => raw,
            // Clamp at 0: a pause frame cannot carry a negative grant.
            _ => raw.max(0),
        };
        // Lines 11–13: every k slots, deduct over-granted bytes.
        let mut c_hat = c;
        if self.cfg.k > 0 && n.is_multiple_of(u64::from(self.cfg.k)) {
            let excess = li + self.f - h;
            c_hat = match self.cfg.reading {
                BifrostReading::Literal => (c - excess).max(0),
                // Only a positive excess is deducted (Bifrost §IV-D).
                _ if excess > 0 => (c - excess).max(0),
                _ => c,
            };
        }
        // Line 14.
        let quanta = self.quanta_for(c_hat);
        // Line 15.
        match self.cfg.reading {
            BifrostReading::Literal | BifrostReading::Clamped => {
                self.f = cap.min(self.f - r as i64 + c);
            }
            BifrostReading::Ledger => {
                // What the frame actually grants: ĉ within [0, R_s·T].
                let g = c_hat.clamp(0, s);
                self.ledger.push_back(g);
                self.f += g;
                if self.ledger.len() > self.par.n as usize + 1 {
                    self.f -= self.ledger.pop_front().expect("non-empty");
                }
            }
        }
        let lf = li + self.f;
        self.peak_l = self.peak_l.max(l);
        self.peak_lf_minus_h = self.peak_lf_minus_h.max(lf - h);
        self.min_lf = self.min_lf.min(lf);
        if self.cfg.trace {
            self.trace.push(BifrostSlot {
                n,
                time: now,
                l,
                f: self.f,
                r,
                c,
                c_hat,
                quanta,
            });
        }
        // Lines 7–8: a standard PFC frame when p > 0.
        if quanta > 0 {
            self.pauses += 1;
            let frame = Packet::pfc(class, quanta);
            match self.cfg.pause_delay {
                Some(d) if d.every > 0 && self.pauses.is_multiple_of(u64::from(d.every)) => {
                    self.pending.push_back((now + d.by, frame));
                }
                _ => out.frames.push(frame),
            }
        }
    }

    fn arm(&self, out: &mut FcOutbox) {
        let mut next = self.next_tick.min(self.up_timer);
        if let Some(&(t, _)) = self.pending.front() {
            next = next.min(t);
        }
        if next != Time::MAX {
            out.timer = Some(next);
        }
    }

    /// The pause time of `quanta` on this link.
    pub fn pause_time(&self, quanta: u16) -> Delta {
        quanta_duration(quanta, self.rate)
    }
}

impl FlowControl for Bifrost {
    fn on_start(&mut self, now: Time, out: &mut FcOutbox) {
        // A free-running slot clock (rdmasim's choice: Bifrost sets no phase).
        self.next_tick = now + self.cfg.t_slot;
        self.arm(out);
    }

    #[inline]
    fn may_send(&self, now: Time, key: QueueKey, bytes: u32) -> bool {
        self.up.may_send(now, key, bytes)
    }

    fn on_ctrl(&mut self, now: Time, frame: &Packet, rate: Rate, out: &mut FcOutbox) {
        let mut sub = FcOutbox::default();
        self.up.on_ctrl(now, frame, rate, &mut sub);
        if let Some(t) = sub.timer {
            self.up_timer = t;
        }
        out.wake |= sub.wake;
        self.arm(out);
    }

    fn after_admit(
        &mut self,
        _now: Time,
        key: QueueKey,
        bytes: u32,
        _s: IngressState,
        _out: &mut FcOutbox,
    ) {
        let class = key.class();
        if class == self.cfg.class as usize {
            self.rx_slot += u64::from(bytes);
            self.l += u64::from(bytes);
        }
    }

    fn after_release(
        &mut self,
        _now: Time,
        key: QueueKey,
        bytes: u32,
        _s: IngressState,
        _out: &mut FcOutbox,
    ) {
        let class = key.class();
        if class == self.cfg.class as usize {
            self.l -= u64::from(bytes);
        }
    }

    fn on_timer(&mut self, now: Time, s: &dyn Fn(usize) -> IngressState, out: &mut FcOutbox) {
        if self.up_timer <= now {
            let mut sub = FcOutbox::default();
            self.up.on_timer(now, s, &mut sub);
            self.up_timer = sub.timer.unwrap_or(Time::MAX);
            out.wake |= sub.wake;
        }
        while let Some(&(t, f)) = self.pending.front() {
            if t > now {
                break;
            }
            self.pending.pop_front();
            out.frames.push(f);
        }
        if self.next_tick <= now {
            self.slot(now, self.l, out);
            self.next_tick += self.cfg.t_slot;
        }
        self.arm(out);
    }

    fn counters(&self, now: Time) -> FcCounters {
        let mut c = self.up.counters(now);
        let class = self.cfg.class as usize;
        if class < c.pause_tx.len() {
            c.pause_tx[class] += self.pauses;
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: IngressState = IngressState {
        over_xoff: false,
        below_xon: true,
    };

    /// The slot tick at `t_ns` with `l` bytes held at the ingress.
    fn tick(b: &mut Bifrost, t_ns: u64, l: u64, out: &mut FcOutbox) {
        b.l = l;
        b.on_timer(Time::from_ns(t_ns), &|_| S, out);
    }

    /// 400 Gb/s, 600 km, T = 10 µs: the numbers of Bifrost §V and §VI-B.
    #[test]
    fn parameters_at_400g_600km() {
        let cfg = BifrostConfig::default();
        let (p, w) = cfg.resolve(Rate::gbps(400), Delta::from_ms(3));
        assert_eq!(p.r_s_t, 500_000);
        assert_eq!(p.n, 600);
        assert_eq!(p.delta, 300_000_000);
        assert_eq!(p.h, 301_000_000 + 1500);
        // 7812.5 quanta, rounded up: 7813 (Bifrost §V).
        assert_eq!(p.t_quanta, 7813);
        assert!(w.is_empty(), "{w:?}");
        let low = BifrostConfig {
            h: Some(300_900_000),
            ..cfg
        };
        let (_, w) = low.resolve(Rate::gbps(400), Delta::from_ms(3));
        assert!(w[0].contains("Theorem 1"), "{w:?}");
    }

    /// No congestion: c = R_s·T, p = 0, no frame (Bifrost §IV-C3: a frame
    /// only when the pause time is non-zero). A full stall: the grant
    /// shrinks at once and a pause goes out in the first slot that sees the
    /// queue (Bifrost §IV-C2: "at most after time 2T").
    #[test]
    fn no_frame_while_uncongested_then_pause_at_once() {
        let cfg = BifrostConfig::default();
        let (mut b, _) = Bifrost::new(&cfg, Rate::gbps(400), Delta::from_ms(3)).unwrap();
        let mut out = FcOutbox::default();
        b.on_start(Time::ZERO, &mut out);
        assert_eq!(out.timer, Some(Time::from_ns(10_000)));
        for i in 1..=5u64 {
            b.rx_slot += 500_000;
            tick(&mut b, 10_000 * i, 0, &mut out);
        }
        assert!(out.frames.is_empty());
        assert_eq!(b.f, 300_500_000);
        // The drain stops: 500 kB arrived and stayed.
        b.rx_slot += 500_000;
        tick(&mut b, 60_000, 500_000, &mut out);
        assert_eq!(out.frames.len(), 1);
        // H − L − F = 301,001,500 − 500,000 − 300,500,000 = 1,500.
        let q = out.frames[0].pfc_quanta();
        assert_eq!(q, ((4_000_000u64 - 1500 * 8) as f64 / 512.0).ceil() as u16);
    }

    /// A round trip of more slots than the ledger may hold is refused
    /// (a 10^5 s link would ask for 160 GB), at the limit it is not.
    #[test]
    fn too_many_slots_per_round_trip_is_an_error() {
        let cfg = BifrostConfig::default();
        let d = |slots: u64| Delta::from_us(10 * slots / 2);
        let e = Bifrost::new(&cfg, Rate::gbps(400), d(MAX_SLOTS_PER_RTT + 2)).unwrap_err();
        assert!(e.contains("raise bifrost_t"), "{e}");
        let (b, _) = Bifrost::new(&cfg, Rate::gbps(400), d(MAX_SLOTS_PER_RTT)).unwrap();
        assert_eq!(b.params().n, MAX_SLOTS_PER_RTT);
    }

    /// A slot whose bytes pass 2^53 (at the input limits, 2·R_s·T would
    /// wrap a u64) is refused; H is computed without wrapping either way.
    #[test]
    fn bytes_past_2_pow_53_are_an_error() {
        let slot = |t: Delta| BifrostConfig {
            t_slot: t,
            ..BifrostConfig::default()
        };
        let rate = Rate::gbps(100_000);
        let (par, _) = slot(Delta::from_ms(1_000_000_000)).resolve(rate, Delta::from_us(5));
        assert_eq!(par.r_s_t, 12_500_000_000_000_000_000);
        assert_eq!(par.h, u64::MAX, "saturated, not wrapped");
        let e = Bifrost::new(
            &slot(Delta::from_ms(1_000_000_000)),
            rate,
            Delta::from_us(5),
        )
        .unwrap_err();
        assert!(e.contains("passes the 2^53 bytes"), "{e}");
        // 1 ms at 100 Tb/s is 12.5 GB a slot: within the limit.
        assert!(Bifrost::new(&slot(Delta::from_ms(1)), rate, Delta::from_ms(5)).is_ok());
    }

    /// The literal reading lets c go negative and F follow it.
    #[test]
    fn literal_grant_goes_negative_clamped_does_not() {
        for (reading, negative) in [
            (BifrostReading::Literal, true),
            (BifrostReading::Clamped, false),
            (BifrostReading::Ledger, false),
        ] {
            let cfg = BifrostConfig {
                reading,
                trace: true,
                ..BifrostConfig::default()
            };
            let (mut b, _) = Bifrost::new(&cfg, Rate::gbps(400), Delta::from_ms(3)).unwrap();
            let mut out = FcOutbox::default();
            b.on_start(Time::ZERO, &mut out);
            b.rx_slot += 500_000;
            tick(&mut b, 10_000, 2_000_000, &mut out);
            let t = b.trace()[0];
            assert_eq!(t.c < 0, negative, "{reading:?}: {t:?}");
            assert!(t.c_hat >= 0);
        }
    }

    /// Pause frames can be held back for leak tests (Bifrost §IV-D).
    #[test]
    fn a_delayed_pause_leaves_later() {
        let cfg = BifrostConfig {
            pause_delay: Some(PauseDelay {
                every: 1,
                by: Delta::from_ns(50),
            }),
            ..BifrostConfig::default()
        };
        let (mut b, _) = Bifrost::new(&cfg, Rate::gbps(400), Delta::from_ms(3)).unwrap();
        let mut out = FcOutbox::default();
        b.on_start(Time::ZERO, &mut out);
        tick(&mut b, 10_000, 10_000_000, &mut out);
        assert!(out.frames.is_empty());
        assert_eq!(out.timer, Some(Time::from_ns(10_050)));
        tick(&mut b, 10_050, 10_000_000, &mut out);
        assert_eq!(out.frames.len(), 1);
        assert_eq!(out.timer, Some(Time::from_ns(20_000)));
    }
}
