//! TIMELY, as the peer implements it (`CC_MODE 7`).
//!
//! Heads up: read the peer's `RdmaHw::UpdateRateTimely` (HPCC sim
//! `rdma-hw.cc`) and TIMELY's Algorithm 1. Data packets carry an 8 B send
//! timestamp that the ACK echoes; the rate is updated once per RTT (when the
//! ACK passes the `snd_nxt` recorded at the last update), with no fast
//! react:
//!
//! ```text
//! rtt_diff = (1 − α)·rtt_diff + α·(rtt − prev_rtt);  gradient = rtt_diff / minRTT
//! rtt < T_low                 → R = Rc + δ   (+ 5δ after 5 increases: HAI)
//! rtt > T_high                → R = Rc·(1 − β·(1 − T_high/rtt))
//! gradient ≤ 0                → R = Rc + δ
//! otherwise                   → R = Rc·(1 − β·gradient)
//! ```

use super::hooks::{AckSample, CcEnv, CongestionControl, TimerRequests};
use engine::{Delta, Rate, Time};

/// TIMELY parameters. The peer has them as attributes, not config keys.
#[derive(Clone, Debug, PartialEq)]
pub struct TimelyConfig {
    /// EWMA weight of the newest RTT difference (peer `TmlyAlpha`, 0.875).
    pub alpha: f64,
    /// Multiplicative decrease factor β (0.8).
    pub beta: f64,
    /// Below this RTT always increase (50 µs).
    pub t_low: Delta,
    /// Above this RTT always decrease (500 µs).
    pub t_high: Delta,
    /// Normalises the gradient (20 µs).
    pub min_rtt: Delta,
    /// Additive increase δ (`RATE_AI`; run.py: bw Mb/s ·10/10 = 100 Mb/s at 100G).
    pub rate_ai: Rate,
    /// Hyper-active increase after 5 consecutive increases (`RATE_HAI`, 5δ).
    pub rate_hai: Rate,
    /// Rate floor (`MIN_RATE`).
    pub min_rate: Rate,
}

impl Default for TimelyConfig {
    fn default() -> Self {
        TimelyConfig {
            alpha: 0.875,
            beta: 0.8,
            t_low: Delta::from_us(50),
            t_high: Delta::from_us(500),
            min_rtt: Delta::from_us(20),
            rate_ai: Rate::mbps(100),
            rate_hai: Rate::mbps(500),
            min_rate: Rate::mbps(100),
        }
    }
}

/// One QP's TIMELY state (the peer's `tmly`).
#[derive(Clone, Debug)]
pub struct Timely {
    cfg: TimelyConfig,
    line_rate: u64,
    rate: u64,
    cur_rate: u64,
    inc_stage: u32,
    rtt_diff: f64,
    last_rtt_ns: u64,
    last_update_seq: u64,
}

impl Timely {
    /// A QP starting at line rate.
    pub fn new(cfg: TimelyConfig, env: &CcEnv) -> Timely {
        let r = env.line_rate.bps();
        Timely {
            cfg,
            line_rate: r,
            rate: r,
            cur_rate: r,
            inc_stage: 0,
            rtt_diff: 0.0,
            last_rtt_ns: 0,
            last_update_seq: 0,
        }
    }
}

impl CongestionControl for Timely {
    fn rate(&self) -> Rate {
        Rate(self.rate)
    }

    /// The peer's TIMELY assigns the rate directly (no `ChangeRate` shift).
    fn shifts_pacing(&self) -> bool {
        false
    }

    /// Peer `HandleAckTimely` → `UpdateRateTimely` (fast react is empty).
    fn on_ack(&mut self, _now: Time, ack: &AckSample<'_>, _t: &mut TimerRequests) {
        if ack.seq <= self.last_update_seq {
            return;
        }
        let rtt = ack.rtt.ns();
        if self.last_update_seq != 0 {
            let new_diff = rtt as f64 - self.last_rtt_ns as f64;
            let a = self.cfg.alpha;
            let rtt_diff = (1.0 - a) * self.rtt_diff + a * new_diff;
            let gradient = rtt_diff / self.cfg.min_rtt.ns() as f64;
            let t_high = self.cfg.t_high.ns();
            let decrease = if rtt < self.cfg.t_low.ns() {
                None
            } else if rtt > t_high {
                Some(1.0 - self.cfg.beta * (1.0 - t_high as f64 / rtt as f64))
            } else if gradient <= 0.0 {
                None
            } else {
                Some((1.0 - self.cfg.beta * gradient).max(0.0))
            };
            match decrease {
                None => {
                    let step = if self.inc_stage < 5 {
                        self.cfg.rate_ai.bps()
                    } else {
                        self.cfg.rate_hai.bps()
                    };
                    self.rate = (self.cur_rate + step).min(self.line_rate);
                    self.inc_stage += 1;
                }
                Some(c) => {
                    self.rate = ((self.cur_rate as f64 * c) as u64).max(self.cfg.min_rate.bps());
                    self.inc_stage = 0;
                }
            }
            self.cur_rate = self.rate;
            self.rtt_diff = rtt_diff;
        }
        self.last_update_seq = ack.snd_nxt;
        self.last_rtt_ns = rtt;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::cc::hooks::test_env as env;

    fn ack(seq: u64, snd_nxt: u64, rtt_us: u64) -> AckSample<'static> {
        AckSample {
            seq,
            newly_acked: 1000,
            rtt: Delta::from_us(rtt_us),
            ecn_echo: false,
            snd_nxt,
            int: &[],
            pint: 0,
        }
    }

    #[test]
    fn rtt_above_t_high_cuts_by_beta_times_excess() {
        let mut c = Timely::new(TimelyConfig::default(), &env());
        let mut t = TimerRequests::default();
        c.on_ack(Time::ZERO, &ack(1000, 10_000, 100), &mut t);
        assert_eq!(c.rate(), Rate::gbps(100), "first RTT only records");
        c.on_ack(Time::ZERO, &ack(20_000, 30_000, 1000), &mut t);
        // c = 1 − 0.8·(1 − 500/1000) = 0.6.
        assert_eq!(c.rate(), Rate::gbps(60));
    }

    #[test]
    fn rising_rtt_in_the_band_cuts_by_the_gradient() {
        let mut c = Timely::new(TimelyConfig::default(), &env());
        let mut t = TimerRequests::default();
        c.on_ack(Time::ZERO, &ack(1000, 10_000, 100), &mut t);
        c.on_ack(Time::ZERO, &ack(20_000, 30_000, 110), &mut t);
        // rtt_diff = 0.875 · 10 µs; gradient = 8.75/20; c = 1 − 0.8·0.4375 = 0.65.
        let expect = (100e9 * (1.0 - 0.8 * (8750.0 / 20000.0))) as u64;
        assert_eq!(c.rate(), Rate(expect));
        // Only once per RTT: an ACK below the recorded snd_nxt changes nothing.
        c.on_ack(Time::ZERO, &ack(25_000, 40_000, 400), &mut t);
        assert_eq!(c.rate(), Rate(expect));
    }
}
