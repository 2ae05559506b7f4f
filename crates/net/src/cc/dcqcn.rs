//! DCQCN, the peer's Mellanox (CX4+) flavour.
//!
//! Heads up: read the peer's DCQCN (HPCC sim `rdma-hw.cc`, the `…Mlx`
//! functions from `cnp_received_mlx` on, `CC_MODE 1`) before changing this
//! file. This is not the paper's byte-counter DCQCN: the reaction point
//! (RP) increases its rate by timer only, and a CNP is the ECN echo flag the
//! receiver sets on every ACK of a marked packet.
//!
//! The peer runs two periodic timers per QP from the first CNP on: an alpha
//! update every `ALPHA_RESUME_INTERVAL` (1 µs) and a rate-decrease check every
//! `RATE_DECREASE_INTERVAL` (4 µs), offset by 1 ns so the decrease follows the
//! alpha update. Neither changes anything unless a CNP arrived, so rdmasim
//! computes them lazily: alpha catches up over the elapsed ticks when it is
//! read, and a decrease check is scheduled only when a CNP arrived. Tick
//! times and arithmetic are the peer's; only the idle events are gone.
//! (A CNP at exactly a tick time counts for the next tick.)

use super::hooks::{CongestionControl, TimerRequests};
use engine::{Delta, Rate, Time};

/// Timer slot of the rate-decrease check.
const DECREASE: usize = 0;
/// Timer slot of the rate-increase timer (`RP_TIMER`).
const INCREASE: usize = 1;

/// DCQCN parameters (peer config keys in parentheses; defaults from run.py's
/// "dcqcn" at 100 Gb/s).
#[derive(Clone, Debug, PartialEq)]
pub struct DcqcnConfig {
    /// Alpha update period (`ALPHA_RESUME_INTERVAL`, 1 µs).
    pub alpha_interval: Delta,
    /// Rate-decrease check period (`RATE_DECREASE_INTERVAL`, 4 µs).
    pub decrease_interval: Delta,
    /// Rate-increase timer (`RP_TIMER`, 300 µs).
    pub rp_timer: Delta,
    /// Alpha EWMA gain g (`EWMA_GAIN`, 1/256).
    pub g: f64,
    /// Additive increase of the target rate (`RATE_AI`, 5·bw/25 = 20 Mb/s).
    pub rate_ai: Rate,
    /// Hyper increase (`RATE_HAI`, 50·bw/25 = 200 Mb/s).
    pub rate_hai: Rate,
    /// Rate floor (`MIN_RATE`, 1000 Mb/s).
    pub min_rate: Rate,
    /// Fast-recovery stages before additive increase (`FAST_RECOVERY_TIMES`, 1).
    pub fast_recovery_times: u32,
    /// Always set target = current rate on a decrease (`CLAMP_TARGET_RATE`, 0).
    pub clamp_target_rate: bool,
    /// Rate multiplier on the first CNP (`RateOnFirstCnp`, 1.0).
    pub rate_on_first_cnp: f64,
    /// Cut the rate on every CNP at once, with no rate-decrease window
    /// (Azure §7.2: Gen1's reaction point, and Gen2/3's with the interop
    /// fix); false: the peer's check every `decrease_interval`.
    pub cut_every_cnp: bool,
}

impl Default for DcqcnConfig {
    fn default() -> Self {
        DcqcnConfig {
            alpha_interval: Delta::from_us(1),
            decrease_interval: Delta::from_us(4),
            rp_timer: Delta::from_us(300),
            g: 1.0 / 256.0,
            rate_ai: Rate::mbps(20),
            rate_hai: Rate::mbps(200),
            min_rate: Rate::mbps(1000),
            fast_recovery_times: 1,
            clamp_target_rate: false,
            rate_on_first_cnp: 1.0,
            cut_every_cnp: false,
        }
    }
}

/// One QP's DCQCN reaction point. Names follow the peer's `mlx` state:
/// `rc` current rate, `rt` target rate, `alpha`, `stage` (rpTimeStage).
#[derive(Clone, Debug)]
pub struct Dcqcn {
    cfg: DcqcnConfig,
    line_rate: u64,
    /// Current rate R_C in bit/s.
    rc: u64,
    /// Target rate R_T in bit/s.
    rt: u64,
    alpha: f64,
    first_cnp: bool,
    /// Time of the first CNP: both periodic timers are anchored here.
    t0: Time,
    /// Alpha ticks already applied (tick k at t0 + k·alpha_interval).
    alpha_ticks: u64,
    alpha_cnp_arrived: bool,
    decrease_cnp_arrived: bool,
    decrease_pending: bool,
    /// Rate-increase stage since the last decrease.
    stage: u32,
}

impl Dcqcn {
    /// A QP starting at line rate (all peer CCs start at line rate).
    pub fn new(cfg: DcqcnConfig, line_rate: Rate) -> Dcqcn {
        Dcqcn {
            cfg,
            line_rate: line_rate.0,
            rc: line_rate.0,
            rt: line_rate.0,
            alpha: 1.0,
            first_cnp: true,
            t0: Time::ZERO,
            alpha_ticks: 0,
            alpha_cnp_arrived: false,
            decrease_cnp_arrived: false,
            decrease_pending: false,
            stage: 0,
        }
    }

    /// Current alpha, as of the last tick applied.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }
    /// Target rate.
    pub fn target(&self) -> Rate {
        Rate(self.rt)
    }

    /// Cut the rate (peer `CheckRateDecreaseMlx`, when a CNP arrived).
    fn decrease(&mut self, now: Time, t: &mut TimerRequests) {
        let clamp = self.cfg.clamp_target_rate || self.stage != 0;
        if clamp {
            self.rt = self.rc;
        }
        let cut = (self.rc as f64 * (1.0 - self.alpha / 2.0)) as u64;
        self.rc = cut.max(self.cfg.min_rate.0);
        self.stage = 0;
        self.decrease_cnp_arrived = false;
        t.set(INCREASE, now + self.cfg.rp_timer);
    }

    /// Apply every alpha tick at or before `now` (peer `UpdateAlphaMlx`):
    /// alpha = (1−g)·alpha + g if a CNP arrived since the last tick, else
    /// (1−g)·alpha.
    fn catch_up_alpha(&mut self, now: Time) {
        if self.first_cnp {
            return;
        }
        let due = (now - self.t0).ps() / self.cfg.alpha_interval.ps();
        let g = self.cfg.g;
        while self.alpha_ticks < due {
            self.alpha_ticks += 1;
            if self.alpha_cnp_arrived {
                self.alpha = (1.0 - g) * self.alpha + g;
                self.alpha_cnp_arrived = false;
            } else if self.alpha == 0.0 {
                // Further ticks multiply zero: skip them.
                self.alpha_ticks = due;
            } else {
                self.alpha *= 1.0 - g;
            }
        }
    }

    /// The first decrease tick strictly after `now`: ticks are at
    /// t0 + 1 ns + k·decrease_interval, k ≥ 1 (peer `ScheduleDecreaseRateMlx`).
    fn next_decrease_tick(&self, now: Time) -> Time {
        let first = self.t0 + Delta::from_ns(1) + self.cfg.decrease_interval;
        if now < first {
            return first;
        }
        let p = self.cfg.decrease_interval.ps();
        let k = (now - first).ps() / p + 1;
        first + Delta(k * p)
    }

    fn increase(&mut self) {
        // Peer `RateIncEventMlx`: fast recovery, then active, then hyper.
        let f = self.cfg.fast_recovery_times;
        if self.stage == f {
            self.rt = (self.rt + self.cfg.rate_ai.0).min(self.line_rate);
        } else if self.stage > f {
            self.rt = (self.rt + self.cfg.rate_hai.0).min(self.line_rate);
        }
        self.rc = self.rc / 2 + self.rt / 2;
    }
}

impl CongestionControl for Dcqcn {
    fn rate(&self) -> Rate {
        Rate(self.rc)
    }

    /// The peer's Mellanox DCQCN assigns the rate directly, without
    /// `ChangeRate`'s pacing shift.
    fn shifts_pacing(&self) -> bool {
        false
    }

    /// Peer `cnp_received_mlx`.
    fn on_cnp(&mut self, now: Time, t: &mut TimerRequests) {
        self.catch_up_alpha(now);
        self.alpha_cnp_arrived = true;
        self.decrease_cnp_arrived = true;
        if self.first_cnp {
            self.alpha = 1.0;
            self.alpha_cnp_arrived = false;
            self.t0 = now;
            self.alpha_ticks = 0;
            let r = (self.rc as f64 * self.cfg.rate_on_first_cnp) as u64;
            self.rc = r;
            self.rt = r;
            self.first_cnp = false;
        }
        if self.cfg.cut_every_cnp {
            self.decrease(now, t);
        } else if !self.decrease_pending {
            self.decrease_pending = true;
            t.set(DECREASE, self.next_decrease_tick(now));
        }
    }

    fn on_timer(&mut self, now: Time, slot: usize, t: &mut TimerRequests) {
        match slot {
            // Peer `CheckRateDecreaseMlx`.
            DECREASE => {
                self.decrease_pending = false;
                self.catch_up_alpha(now);
                if self.decrease_cnp_arrived {
                    self.decrease(now, t);
                }
            }
            // Peer `RateIncEventTimerMlx`: re-arm, increase, then stage++.
            INCREASE => {
                t.set(INCREASE, now + self.cfg.rp_timer);
                self.increase();
                self.stage += 1;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fire(d: &mut Dcqcn, t: &mut TimerRequests, slot: usize) -> Time {
        let at = t.arm[slot].take().expect("timer armed");
        d.on_timer(at, slot, t);
        at
    }

    #[test]
    fn first_cnp_cuts_rate_by_half_alpha_at_the_next_decrease_tick() {
        let mut d = Dcqcn::new(DcqcnConfig::default(), Rate::gbps(100));
        let mut t = TimerRequests::default();
        d.on_cnp(Time::from_ns(1000), &mut t);
        // Decrease check at t0 + 4 µs + 1 ns.
        assert_eq!(t.arm[DECREASE], Some(Time::from_ns(1000 + 4001)));
        let at = fire(&mut d, &mut t, DECREASE);
        // alpha started at 1 and decayed over 4 ticks with no further CNP.
        let g = 1.0 / 256.0;
        let alpha = (1.0f64 - g).powi(4);
        assert!((d.alpha() - alpha).abs() < 1e-12);
        let expect = (100e9 * (1.0 - alpha / 2.0)) as u64;
        assert_eq!(d.rate(), Rate(expect));
        // The target is not clamped at stage 0 (CLAMP_TARGET_RATE 0).
        assert_eq!(d.target(), Rate::gbps(100));
        assert_eq!(t.arm[INCREASE], Some(at + Delta::from_us(300)));
    }

    #[test]
    fn recovery_halves_the_gap_then_increases_the_target() {
        let mut d = Dcqcn::new(DcqcnConfig::default(), Rate::gbps(100));
        let mut t = TimerRequests::default();
        d.on_cnp(Time::ZERO, &mut t);
        fire(&mut d, &mut t, DECREASE);
        let r0 = d.rate().0;
        let rt = d.target().0;
        // Stage 0 < F = 1: fast recovery, rate = (rate + target) / 2.
        fire(&mut d, &mut t, INCREASE);
        assert_eq!(d.rate().0, r0 / 2 + rt / 2);
        assert_eq!(d.target().0, rt);
        // Stage 1 == F: active increase, target is capped at line rate.
        fire(&mut d, &mut t, INCREASE);
        assert_eq!(d.target(), Rate::gbps(100));
    }

    #[test]
    fn no_cnp_means_no_decrease_events() {
        let mut d = Dcqcn::new(DcqcnConfig::default(), Rate::gbps(100));
        let mut t = TimerRequests::default();
        d.on_cnp(Time::ZERO, &mut t);
        fire(&mut d, &mut t, DECREASE);
        // A second decrease check is only requested by another CNP.
        assert_eq!(t.arm[DECREASE], None);
        d.on_cnp(Time::from_ns(10_000), &mut t);
        // Next tick after 10 µs on the grid 4.001, 8.001, 12.001 µs.
        assert_eq!(t.arm[DECREASE], Some(Time::from_ns(12_001)));
    }

    #[test]
    fn rate_never_drops_below_min_rate() {
        let cfg = DcqcnConfig {
            min_rate: Rate::gbps(60),
            ..DcqcnConfig::default()
        };
        let mut d = Dcqcn::new(cfg, Rate::gbps(100));
        let mut t = TimerRequests::default();
        for i in 0..50 {
            d.on_cnp(Time::from_ns(i * 4000), &mut t);
            if let Some(at) = t.arm[DECREASE].take() {
                d.on_timer(at, DECREASE, &mut t);
            }
        }
        assert_eq!(d.rate(), Rate::gbps(60));
    }
}
