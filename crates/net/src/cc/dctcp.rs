//! DCTCP, the peer's rate-based "hardware DCTCP" (`CC_MODE 8`).
//!
//! Heads up: read the peer's `RdmaHw::HandleAckDctcp` (HPCC sim
//! `rdma-hw.cc`). The sender starts at line rate. Alpha is updated once per
//! window of data from the fraction F of ECN-echo ACKs in it:
//! α = (1 − g)·α + g·F. An ECN echo outside CWR cuts the rate to
//! R·(1 − α/2) and enters CWR until the `snd_nxt` at the cut is
//! acknowledged; outside CWR the rate grows by `DCTCP_RATE_AI` once per
//! window. Switches mark with a step at K (Kmin = Kmax = K, Pmax = 1).

use super::hooks::{AckSample, CcEnv, CongestionControl, TimerRequests};
use engine::{Rate, Time};

/// DCTCP parameters (peer keys in parentheses; run.py "dctcp").
#[derive(Clone, Debug, PartialEq)]
pub struct DctcpConfig {
    /// Alpha gain g (`EWMA_GAIN`, 1/16).
    pub g: f64,
    /// Additive increase per window (`DCTCP_RATE_AI`, 615 Mb/s in run.py).
    pub rate_ai: Rate,
    /// Rate floor (`MIN_RATE`).
    pub min_rate: Rate,
}

impl Default for DctcpConfig {
    fn default() -> Self {
        DctcpConfig {
            g: 1.0 / 16.0,
            rate_ai: Rate::mbps(615),
            min_rate: Rate::mbps(100),
        }
    }
}

/// One QP's DCTCP state (the peer's `dctcp`).
#[derive(Clone, Debug)]
pub struct Dctcp {
    cfg: DctcpConfig,
    line_rate: u64,
    mtu: u64,
    rate: u64,
    alpha: f64,
    last_update_seq: u64,
    ecn_cnt: u64,
    batch: u64,
    in_cwr: bool,
    high_seq: u64,
}

impl Dctcp {
    /// A QP starting at line rate with α = 1.
    pub fn new(cfg: DctcpConfig, env: &CcEnv) -> Dctcp {
        Dctcp {
            cfg,
            line_rate: env.line_rate.bps(),
            mtu: u64::from(env.mtu.max(1)),
            rate: env.line_rate.bps(),
            alpha: 1.0,
            last_update_seq: 0,
            ecn_cnt: 0,
            batch: 1,
            in_cwr: false,
            high_seq: 0,
        }
    }

    /// Current α.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }
}

impl CongestionControl for Dctcp {
    fn rate(&self) -> Rate {
        Rate(self.rate)
    }

    /// Peer `HandleAckDctcp`.
    fn on_ack(&mut self, _now: Time, ack: &AckSample<'_>, _t: &mut TimerRequests) {
        let mut new_batch = false;
        self.ecn_cnt += u64::from(ack.ecn_echo);
        if ack.seq > self.last_update_seq {
            new_batch = true;
            if self.last_update_seq == 0 {
                self.last_update_seq = ack.snd_nxt;
                self.batch = ack.snd_nxt / self.mtu + 1;
            } else {
                let frac = (self.ecn_cnt as f64 / self.batch as f64).min(1.0);
                self.alpha = (1.0 - self.cfg.g) * self.alpha + self.cfg.g * frac;
                self.last_update_seq = ack.snd_nxt;
                self.ecn_cnt = 0;
                self.batch = ack.snd_nxt.saturating_sub(ack.seq) / self.mtu + 1;
            }
        }
        if self.in_cwr && ack.seq > self.high_seq {
            self.in_cwr = false;
        }
        if ack.ecn_echo && !self.in_cwr {
            self.in_cwr = true;
            self.high_seq = ack.snd_nxt;
            let cut = (self.rate as f64 * (1.0 - self.alpha / 2.0)) as u64;
            self.rate = cut.max(self.cfg.min_rate.bps());
        }
        if !self.in_cwr && new_batch {
            self.rate = (self.rate + self.cfg.rate_ai.bps()).min(self.line_rate);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Delta;

    fn ack(seq: u64, snd_nxt: u64, ecn: bool) -> AckSample<'static> {
        AckSample {
            seq,
            newly_acked: 1000,
            rtt: Delta::from_us(10),
            ecn_echo: ecn,
            snd_nxt,
            int: &[],
            pint: 0,
        }
    }

    #[test]
    fn one_echo_halves_the_rate_then_cwr_holds_it() {
        let env = crate::cc::hooks::test_env();
        let mut d = Dctcp::new(DctcpConfig::default(), &env);
        let mut t = TimerRequests::default();
        // α starts at 1: the first echo cuts to R·(1 − 1/2).
        d.on_ack(Time::ZERO, &ack(1000, 10_000, true), &mut t);
        assert_eq!(d.rate(), Rate::gbps(50));
        // Inside CWR (until 10 000 is acked) no further cut and no increase.
        d.on_ack(Time::ZERO, &ack(5000, 12_000, true), &mut t);
        assert_eq!(d.rate(), Rate::gbps(50));
        // Past high_seq and a new batch: CWR ends, +615 Mb/s.
        d.on_ack(Time::ZERO, &ack(11_000, 20_000, false), &mut t);
        assert_eq!(d.rate(), Rate(50_000_000_000 + 615_000_000));
        // α = 15/16 + 1/16 · min(1, 2 marks / 11-packet batch).
        let expect = 15.0 / 16.0 + (2.0 / 11.0) / 16.0;
        assert!((d.alpha() - expect).abs() < 1e-12);
    }
}
