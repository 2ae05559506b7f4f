//! Swift-like RTT AIMD on a congestion window: Bifröst's default CC.
//!
//! Heads up: read Bifröst (PFC-free) §3.4.3 and Swift. The Bifröst paper
//! gives the structure (RTT is the signal, "similar to Swift"; on a drop the
//! window goes to its minimum) and base_RTT = 50 µs (§4.1), and leaves every
//! other value unspecified. rdmasim follows Swift's structure:
//!
//! ```text
//! rtt < target:                         cwnd += ai · acked / cwnd
//! else, once per RTT (now − t_dec ≥ rtt): cwnd ·= max(1 − β·(rtt − target)/rtt, 1 − max_mdf)
//! on loss (NACK or timeout):             cwnd = cwnd_min
//! clamp cwnd to [cwnd_min, cwnd_max]
//! ```
//!
//! Values (our choices, from Swift's paper where it has one): target =
//! 50 µs (Bifröst's base_RTT), ai = 1 MTU per RTT, β = 0.8, max_mdf = 0.5,
//! cwnd_min = 1 MTU, cwnd_max = initial = 1 BDP at line rate over the
//! target. The QP paces at line rate; the window alone limits it.

use super::hooks::{AckSample, CcEnv, CongestionControl, TimerRequests};
use engine::{Delta, Rate, Time};

/// Swift-like parameters; `None` sizes derive from the path (see module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct SwiftConfig {
    /// Target delay (50 µs: Bifröst's base_RTT, Bifröst (PFC-free) §4.1).
    pub target: Delta,
    /// Additive increase per RTT, bytes (default: one MTU).
    pub ai: Option<u64>,
    /// Multiplicative decrease scale β (0.8, Swift).
    pub beta: f64,
    /// Largest decrease per RTT (0.5, Swift).
    pub max_mdf: f64,
    /// Window floor, bytes (default: one MTU; the paper's "minimal value").
    pub cwnd_min: Option<u64>,
    /// Window ceiling and initial window, bytes (default: line rate × target).
    pub cwnd_max: Option<u64>,
}

impl Default for SwiftConfig {
    fn default() -> Self {
        SwiftConfig {
            target: Delta::from_us(50),
            ai: None,
            beta: 0.8,
            max_mdf: 0.5,
            cwnd_min: None,
            cwnd_max: None,
        }
    }
}

/// One QP's window state.
#[derive(Clone, Debug)]
pub struct Swift {
    cfg: SwiftConfig,
    line_rate: Rate,
    ai: f64,
    cwnd: f64,
    cwnd_min: f64,
    cwnd_max: f64,
    last_decrease: Option<Time>,
}

impl Swift {
    /// A QP starting with a full window.
    pub fn new(cfg: SwiftConfig, env: &CcEnv) -> Swift {
        let mtu = f64::from(env.mtu.max(1));
        let bdp = env.line_rate.bytes_in(cfg.target) as f64;
        let cwnd_max = cfg.cwnd_max.map_or(bdp.max(mtu), |w| w as f64);
        // The config rejects a cwnd_min above a cwnd_max it gives; above
        // the default cwnd_max (this NIC's line rate × target), the ceiling
        // wins, as for the rate bounds of HPCC.
        let cwnd_min = cfg.cwnd_min.map_or(mtu, |w| w as f64).min(cwnd_max);
        Swift {
            ai: cfg.ai.map_or(mtu, |a| a as f64),
            cwnd_min,
            cwnd: cwnd_max,
            cwnd_max,
            line_rate: env.line_rate,
            last_decrease: None,
            cfg,
        }
    }

    /// Start from a window of `w` bytes instead of the full one (kept
    /// within the floor and the ceiling).
    pub fn start_at(&mut self, w: u64) {
        self.cwnd = w as f64;
        self.clamp();
    }

    /// Current window, bytes.
    pub fn cwnd(&self) -> f64 {
        self.cwnd
    }

    fn clamp(&mut self) {
        self.cwnd = self.cwnd.clamp(self.cwnd_min, self.cwnd_max);
    }
}

impl CongestionControl for Swift {
    fn rate(&self) -> Rate {
        self.line_rate
    }

    fn window(&self) -> Option<u64> {
        Some(self.cwnd as u64)
    }

    fn on_ack(&mut self, now: Time, ack: &AckSample<'_>, _t: &mut TimerRequests) {
        let rtt = ack.rtt;
        let target = self.cfg.target;
        if rtt < target {
            self.cwnd += self.ai * ack.newly_acked as f64 / self.cwnd;
        } else if self.last_decrease.is_none_or(|t| now.since(t) >= rtt) {
            let excess = (rtt.ps() - target.ps()) as f64 / rtt.ps() as f64;
            self.cwnd *= (1.0 - self.cfg.beta * excess).max(1.0 - self.cfg.max_mdf);
            self.last_decrease = Some(now);
        }
        self.clamp();
    }

    fn on_nack(&mut self, _now: Time, _t: &mut TimerRequests) {
        self.cwnd = self.cwnd_min;
    }

    fn on_timeout(&mut self, _now: Time, _t: &mut TimerRequests) {
        self.cwnd = self.cwnd_min;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::cc::hooks::test_env as env;

    fn swift() -> Swift {
        Swift::new(SwiftConfig::default(), &env())
    }

    fn ack(rtt_us: u64, acked: u64) -> AckSample<'static> {
        AckSample {
            seq: 0,
            newly_acked: acked,
            rtt: Delta::from_us(rtt_us),
            ecn_echo: false,
            snd_nxt: 0,
            int: &[],
            pint: 0,
        }
    }

    #[test]
    fn decrease_scales_with_delay_excess_once_per_rtt() {
        let mut s = swift();
        let mut t = TimerRequests::default();
        // Initial window: 100 Gb/s × 50 µs = 625 kB.
        assert_eq!(s.cwnd(), 625_000.0);
        // RTT 100 µs: 1 − 0.8·(50/100) = 0.6.
        s.on_ack(Time::from_ns(1000), &ack(100, 1000), &mut t);
        assert!((s.cwnd() - 375_000.0).abs() < 1e-6);
        // Within the same RTT no second cut.
        s.on_ack(Time::from_ns(2000), &ack(100, 1000), &mut t);
        assert!((s.cwnd() - 375_000.0).abs() < 1e-6);
        // A huge delay is capped at max_mdf = 0.5.
        s.on_ack(Time::from_ns(20_000_000), &ack(10_000, 1000), &mut t);
        assert!((s.cwnd() - 187_500.0).abs() < 1e-6);
    }

    #[test]
    fn increase_below_target_and_floor_on_loss() {
        let mut s = swift();
        let mut t = TimerRequests::default();
        s.on_ack(Time::ZERO, &ack(100, 1000), &mut t); // 375 kB
        let w = s.cwnd();
        s.on_ack(Time::from_ns(500_000), &ack(20, 375_000), &mut t);
        // One window acked below target: +ai = +1 MTU.
        assert!((s.cwnd() - (w + 1000.0)).abs() < 1e-6);
        s.on_nack(Time::ZERO, &mut t);
        assert_eq!(s.window(), Some(1000));
    }

    #[test]
    fn a_cwnd_min_above_the_default_cwnd_max_acts_as_cwnd_max() {
        // The default cwnd_max is 100 Gb/s × 50 µs = 625 kB.
        let cfg = SwiftConfig {
            cwnd_min: Some(700_000),
            ..SwiftConfig::default()
        };
        let mut s = Swift::new(cfg, &env());
        let mut t = TimerRequests::default();
        s.on_ack(Time::from_ns(1000), &ack(100, 1000), &mut t);
        assert_eq!(s.cwnd(), 625_000.0);
        s.on_nack(Time::ZERO, &mut t);
        assert_eq!(s.window(), Some(625_000));
    }
}
