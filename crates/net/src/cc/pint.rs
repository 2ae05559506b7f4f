//! HPCC-PINT, as the peer implements it (`CC_MODE 10`).
//!
//! Heads up: read the peer's `RdmaHw::UpdateRateHpPint` and its switch side in
//! `SwitchNode::SwitchNotifyDequeue` (HPCC sim). Instead of a per-hop INT
//! stack, every switch egress keeps an estimate of its own normalised inflight
//! U and writes it into a 2-byte field of the data packet when it exceeds what
//! is there, so the packet arrives with the path's maximum. The ACK echoes it;
//! the sender applies HPCC's single-rate rule to it (reference rate committed
//! once per RTT, fast react between), using only a fraction `PINT_PROB` of the
//! ACKs.
//!
//! Switch estimate per egress port, at each data dequeue (T = max RTT,
//! B = line rate in bytes/s, dt = time since the port's last dequeue, ≤ T):
//!
//! ```text
//! U = qlen·dt / (B·T²) + last_size / (B·T) + U_prev·(T − dt) / T
//! ```
//!
//! The peer evaluates this with log₂ approximations; rdmasim evaluates it
//! exactly. The field carries ⌈log_base U⌉ offset by 2¹⁵ (`PINT_LOG_BASE`),
//! so the sender sees U rounded up to a power of the base.

use super::hooks::{AckSample, CcEnv, CongestionControl, TimerRequests};
use engine::{Rate, Rng, Time};

/// HPCC-PINT parameters (peer keys in parentheses).
#[derive(Clone, Debug, PartialEq)]
pub struct PintConfig {
    /// Target utilisation η (`U_TARGET`, 0.95).
    pub eta: f64,
    /// Additive-increase stages before a multiplicative step (`MI_THRESH`).
    pub max_stage: u32,
    /// Additive increase (`RATE_AI`).
    pub rate_ai: Rate,
    /// Rate floor (`MIN_RATE`).
    pub min_rate: Rate,
    /// Base of the logarithmic encoding (`PINT_LOG_BASE`, 1.01; the
    /// shipped config uses 1.05).
    pub log_base: f64,
    /// Fraction of ACKs the sender uses (`PINT_PROB`, 1.0).
    pub prob: f64,
}

impl Default for PintConfig {
    fn default() -> Self {
        PintConfig {
            eta: 0.95,
            max_stage: 0,
            rate_ai: Rate::mbps(50),
            min_rate: Rate::mbps(100),
            log_base: 1.01,
            prob: 1.0,
        }
    }
}

const OFFSET: f64 = 32768.0;

/// The 16-bit field for utilisation `u` (0 = no sample).
pub fn encode_u(u: f64, log_base: f64) -> u16 {
    if u <= 0.0 || !u.is_finite() {
        return 0;
    }
    let p = (u.ln() / log_base.ln()).ceil() + OFFSET;
    p.clamp(1.0, 65535.0) as u16
}

/// The utilisation a field stands for.
pub fn decode_u(power: u16, log_base: f64) -> f64 {
    if power == 0 {
        return 0.0;
    }
    log_base.powf(f64::from(power) - OFFSET)
}

/// A switch port's PINT estimator state.
#[derive(Clone, Copy, Debug, Default)]
pub struct PintPort {
    /// Current estimate U.
    pub u: f64,
    /// Time of the port's last dequeue, ns.
    pub last_ts_ns: u64,
    /// Frame bytes of that dequeue.
    pub last_size: u64,
}

impl PintPort {
    /// Update at a data dequeue (peer `SwitchNotifyDequeue`, mode 10) and
    /// return the new U.
    pub fn on_data_dequeue(&mut self, now_ns: u64, qlen: u64, rate: Rate, t_ns: u64) -> f64 {
        let t = t_ns.max(1) as f64;
        let dt = now_ns.saturating_sub(self.last_ts_ns).min(t_ns) as f64;
        let b = rate.bps() as f64 / 8.0 * 1e-9; // bytes per ns
        let qterm = qlen as f64 * dt / (b * t * t);
        let byte_term = self.last_size as f64 / (b * t);
        let u_term = self.u * (t - dt) / t;
        self.u = qterm + byte_term + u_term;
        self.u
    }

    /// Any frame left the port (peer: `m_lastPktSize`, `m_lastPktTs`).
    pub fn on_dequeue(&mut self, now_ns: u64, size: u64) {
        self.last_ts_ns = now_ns;
        self.last_size = size;
    }
}

/// One QP's HPCC-PINT sender state (the peer's `hpccPint`).
#[derive(Clone, Debug)]
pub struct Pint {
    cfg: PintConfig,
    line_rate: u64,
    rate: u64,
    cur_rate: u64,
    inc_stage: u32,
    last_update_seq: u64,
    rng: Rng,
}

impl Pint {
    /// A QP starting at line rate.
    pub fn new(cfg: PintConfig, env: &CcEnv) -> Pint {
        let r = env.line_rate.bps();
        Pint {
            cfg,
            line_rate: r,
            rate: r,
            cur_rate: r,
            inc_stage: 0,
            last_update_seq: 0,
            rng: Rng::stream(env.rng_seed, 0, 0),
        }
    }

    /// Peer `UpdateRateHpPint`.
    fn update(&mut self, ack: &AckSample<'_>, fast_react: bool) {
        if self.last_update_seq == 0 {
            self.last_update_seq = ack.snd_nxt;
            return;
        }
        let u = decode_u(ack.pint, self.cfg.log_base);
        let max_c = u / self.cfg.eta;
        let ai = self.cfg.rate_ai.bps();
        let (new_rate, new_stage) = if max_c >= 1.0 || self.inc_stage >= self.cfg.max_stage {
            ((self.cur_rate as f64 / max_c) as u64 + ai, 0)
        } else {
            (self.cur_rate + ai, self.inc_stage + 1)
        };
        self.rate =
            super::hpcc::floor_then_ceiling(new_rate, self.cfg.min_rate.bps(), self.line_rate);
        if !fast_react {
            self.cur_rate = self.rate;
            self.inc_stage = new_stage;
            if ack.snd_nxt > self.last_update_seq {
                self.last_update_seq = ack.snd_nxt;
            }
        }
    }
}

impl CongestionControl for Pint {
    fn rate(&self) -> Rate {
        Rate(self.rate)
    }

    /// Peer `HandleAckHpPint`: sample a fraction of the ACKs, then a full
    /// update once per RTT or a fast react.
    fn on_ack(&mut self, _now: Time, ack: &AckSample<'_>, _t: &mut TimerRequests) {
        if self.cfg.prob < 1.0 && self.rng.uniform() >= self.cfg.prob {
            return;
        }
        let fast_react = ack.seq <= self.last_update_seq;
        self.update(ack, fast_react);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_rounds_up_to_a_power_of_the_base() {
        for u in [0.01, 0.5, 0.95, 1.0, 1.4, 7.0] {
            let d = decode_u(encode_u(u, 1.01), 1.01);
            assert!(d >= u * (1.0 - 1e-12) && d < u * 1.01 + 1e-12, "{u} -> {d}");
        }
        assert_eq!(encode_u(0.0, 1.01), 0);
    }

    #[test]
    fn a_busy_port_reports_about_one() {
        // A 100 Gb/s port sending 1000 B frames back to back (80 ns apart)
        // with no queue settles at U = size / (B·T) per T... summed: ≈ 1.
        let mut p = PintPort::default();
        let t_ns = 10_000;
        let mut now = 0;
        let mut u = 0.0;
        for _ in 0..2000 {
            now += 80;
            u = p.on_data_dequeue(now, 0, Rate::gbps(100), t_ns);
            p.on_dequeue(now, 1000);
        }
        assert!((u - 1.0).abs() < 0.01, "{u}");
    }
}
