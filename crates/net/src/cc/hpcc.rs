//! HPCC, as the peer implements it (`CC_MODE 3`).
//!
//! Heads up: read the peer's `RdmaHw::UpdateRateHp` (HPCC sim `rdma-hw.cc`)
//! and HPCC's Algorithm 1 before changing this file. Per ACK, for each hop j
//! of the echoed INT stack:
//!
//! ```text
//! u_j = txRate_j / B_j + min(qlen_j, qlen_j,prev) / (B_j · T)
//! U   = max_j u_j (with that hop's τ), τ capped at T
//! u   = (u·(T − τ) + U·τ) / T                       (EWMA over one T)
//! if u/η ≥ 1 or incStage ≥ maxStage:  R = Rc / (u/η) + W_AI
//! else:                               R = Rc + W_AI, incStage + 1
//! ```
//!
//! The reference rate Rc (and incStage) is committed once per RTT, when the
//! ACK passes the `snd_nxt` recorded at the previous commit; other ACKs only
//! "fast react" from Rc. The window is W·R/line rate (`VAR_WIN`, applied by
//! the QP). Names follow the peer's `hp` state.

use super::hooks::{AckSample, CcEnv, CongestionControl, TimerRequests};
use crate::wire::{IntHop, MAX_INT_HOPS};
use engine::{Rate, Time};

/// HPCC parameters (peer keys in parentheses).
#[derive(Clone, Debug, PartialEq)]
pub struct HpccConfig {
    /// Target utilisation η (`U_TARGET`, 0.95).
    pub eta: f64,
    /// Stages of additive increase before a multiplicative step
    /// (`MI_THRESH`, run.py 0: always multiplicative).
    pub max_stage: u32,
    /// Additive increase W_AI (`RATE_AI`; the HPCC paper's figures use
    /// 50 Mb/s, run.py's default is 10·bw/25 Mb/s).
    pub rate_ai: Rate,
    /// Rate floor (`MIN_RATE`, 100 Mb/s in the shipped config).
    pub min_rate: Rate,
    /// React on every ACK from the committed rate (`FAST_REACT`, 1).
    pub fast_react: bool,
    /// Skip fast-react hops whose queue is empty (`SAMPLE_FEEDBACK`, 0).
    pub sample_feedback: bool,
    /// Keep a reference rate per hop and send at the smallest
    /// (`MULTI_RATE`, 0).
    pub multi_rate: bool,
}

impl Default for HpccConfig {
    fn default() -> Self {
        HpccConfig {
            eta: 0.95,
            max_stage: 0,
            rate_ai: Rate::mbps(50),
            min_rate: Rate::mbps(100),
            fast_react: true,
            sample_feedback: false,
            multi_rate: false,
        }
    }
}

/// One QP's HPCC sender state.
///
/// `repr(C)`, in the order an update reads it: the NIC's round robin reads
/// `rate` right after `AnyCc`'s tag, and an ACK reads the scalars, the
/// parameters and the first hops, so they lie together (in Rust's order
/// they were spread over the struct's 384 bytes, with `per_hop`, which only
/// `multi_rate` reads, in the middle).
#[derive(Clone, Debug)]
#[repr(C)]
pub struct Hpcc {
    /// Current rate R.
    rate: u64,
    last_update_seq: u64,
    /// T in ns (the peer's `m_baseRtt`).
    t_ns: u64,
    /// `line_rate as f64` and W in bytes (the peer's `m_win`) as `f64`,
    /// converted once: every INT hop of every update used both (the same
    /// values, so the same results).
    line_rate_f: f64,
    w_f: f64,
    /// EWMA of the normalised inflight, u.
    u: f64,
    /// Committed reference rate Rc.
    cur_rate: u64,
    line_rate: u64,
    cfg: HpccConfig,
    inc_stage: u32,
    hops: [IntHop; MAX_INT_HOPS],
    /// Per-hop (u, Rc, incStage) with `multi_rate` (the peer's `hopState`).
    per_hop: [(f64, u64, u32); MAX_INT_HOPS],
}

impl Hpcc {
    /// A QP starting at line rate.
    pub fn new(cfg: HpccConfig, env: &CcEnv) -> Hpcc {
        Hpcc {
            cfg,
            line_rate: env.line_rate.bps(),
            t_ns: env.base_rtt.ns().max(1),
            line_rate_f: env.line_rate.bps() as f64,
            w_f: env.bdp.max(1) as f64,
            rate: env.line_rate.bps(),
            cur_rate: env.line_rate.bps(),
            inc_stage: 0,
            u: 1.0,
            last_update_seq: 0,
            hops: [IntHop::default(); MAX_INT_HOPS],
            per_hop: [(1.0, env.line_rate.bps(), 0); MAX_INT_HOPS],
        }
    }

    /// The EWMA of normalised inflight, u.
    pub fn utilisation(&self) -> f64 {
        self.u
    }

    /// Peer `UpdateRateHp`.
    fn update(&mut self, ack: &AckSample<'_>, fast_react: bool) {
        if self.last_update_seq == 0 {
            // First RTT: only store the INT.
            self.last_update_seq = ack.snd_nxt;
            for (i, h) in ack.int.iter().enumerate() {
                self.hops[i] = *h;
            }
            return;
        }
        if self.cfg.multi_rate {
            self.update_per_hop(ack, fast_react);
        } else {
            self.update_path(ack, fast_react);
        }
        if !fast_react && ack.snd_nxt > self.last_update_seq {
            self.last_update_seq = ack.snd_nxt;
        }
    }

    /// Hop `h`'s normalised inflight, u_j, against the hop's previous
    /// record `prev`, `tau` (> 0) ns earlier.
    #[inline]
    fn hop_utilisation(&self, h: &IntHop, prev: &IntHop, tau: u64) -> f64 {
        let duration = tau as f64 * 1e-9;
        let tx_rate = h.tx_bytes.saturating_sub(prev.tx_bytes) as f64 * 8.0 / duration;
        let b = h.rate_bps as f64;
        tx_rate / b + h.qlen.min(prev.qlen) as f64 * self.line_rate_f / b / self.w_f
    }

    /// Hop `i`'s new record `h` against the one kept from the last update:
    /// the time between them and the hop's utilisation, or `None` if the
    /// record does not count (SAMPLE_FEEDBACK's empty queue on a fast
    /// reaction, or two samples in the same nanosecond: no rate to
    /// compute).
    #[inline]
    fn sample(&self, i: usize, h: &IntHop, fast_react: bool) -> Option<(u64, f64)> {
        if self.cfg.sample_feedback && h.qlen == 0 && fast_react {
            return None;
        }
        let prev = &self.hops[i];
        let tau = h.ts_ns.saturating_sub(prev.ts_ns);
        if tau == 0 {
            return None;
        }
        Some((tau, self.hop_utilisation(h, prev, tau)))
    }

    /// R = Rc / (u/η) + W_AI, or Rc + W_AI while below η and stages last:
    /// the new rate and incStage from (u, Rc, incStage).
    #[inline]
    fn step(&self, u: f64, rc: u64, stage: u32) -> (u64, u32) {
        let c = u / self.cfg.eta;
        let ai = self.cfg.rate_ai.bps();
        let (r, s) = if c >= 1.0 || stage >= self.cfg.max_stage {
            ((rc as f64 / c) as u64 + ai, 0)
        } else {
            (rc + ai, stage + 1)
        };
        (
            floor_then_ceiling(r, self.cfg.min_rate.bps(), self.line_rate),
            s,
        )
    }

    /// One utilisation for the path, the most loaded hop's (the default).
    /// Apart from the per-hop variant so that the common case keeps no
    /// per-hop arrays.
    fn update_path(&mut self, ack: &AckSample<'_>, fast_react: bool) {
        let t = self.t_ns;
        let mut big_u = 0.0f64;
        let mut dt = 0u64;
        let mut updated_any = false;
        for (i, h) in ack.int.iter().enumerate() {
            let Some((tau, u)) = self.sample(i, h, fast_react) else {
                continue;
            };
            updated_any = true;
            if u > big_u {
                big_u = u;
                dt = tau;
            }
            self.hops[i] = *h;
        }
        if updated_any {
            let dt = dt.min(t);
            self.u = (self.u * (t - dt) as f64 + big_u * dt as f64) / t as f64;
            let (new_rate, new_stage) = self.step(self.u, self.cur_rate, self.inc_stage);
            self.rate = new_rate;
            if !fast_react {
                self.cur_rate = new_rate;
                self.inc_stage = new_stage;
            }
        }
    }

    /// A utilisation and reference rate per hop; the QP sends at the
    /// smallest of the hops' rates (peer `MULTI_RATE`).
    fn update_per_hop(&mut self, ack: &AckSample<'_>, fast_react: bool) {
        let t = self.t_ns;
        let mut updated = [false; MAX_INT_HOPS];
        for (i, h) in ack.int.iter().enumerate() {
            let Some((tau, u)) = self.sample(i, h, fast_react) else {
                continue;
            };
            updated[i] = true;
            let tau = tau.min(t);
            let hu = &mut self.per_hop[i].0;
            *hu = (*hu * (t - tau) as f64 + u * tau as f64) / t as f64;
            self.hops[i] = *h;
        }
        if !updated.iter().any(|&u| u) {
            return;
        }
        let mut new_rate = self.line_rate;
        let mut per_hop_new = [(0u64, 0u32); MAX_INT_HOPS];
        for i in 0..ack.int.len() {
            let (hu, rc, stage) = self.per_hop[i];
            if updated[i] {
                per_hop_new[i] = self.step(hu, rc, stage);
                new_rate = new_rate.min(per_hop_new[i].0);
            } else {
                new_rate = new_rate.min(rc);
            }
        }
        self.rate = new_rate;
        if !fast_react {
            self.cur_rate = new_rate;
            for i in 0..ack.int.len() {
                if updated[i] {
                    self.per_hop[i].1 = per_hop_new[i].0;
                    self.per_hop[i].2 = per_hop_new[i].1;
                }
            }
        }
    }
}

impl CongestionControl for Hpcc {
    fn rate(&self) -> Rate {
        Rate(self.rate)
    }

    /// Peer `HandleAckHp`: a full update once per RTT, fast react otherwise.
    fn on_ack(&mut self, _now: Time, ack: &AckSample<'_>, _t: &mut TimerRequests) {
        if ack.seq > self.last_update_seq {
            self.update(ack, false);
        } else if self.cfg.fast_react {
            self.update(ack, true);
        }
    }
}

/// `rate` raised to MIN_RATE, then lowered to the line rate (the peer's
/// `UpdateRateHp` clamps to `m_minRate`, then to `m_max_rate`). The same as
/// `clamp` when MIN_RATE is below the line rate; above it (a slow NIC with
/// the default MIN_RATE), the line rate wins, where `clamp` would panic.
pub(crate) fn floor_then_ceiling(rate: u64, min_rate: u64, line_rate: u64) -> u64 {
    rate.max(min_rate).min(line_rate)
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Delta;

    use crate::cc::hooks::test_env as env;

    fn hop(ts_ns: u64, tx_bytes: u64, qlen: u64) -> IntHop {
        IntHop {
            ts_ns,
            tx_bytes,
            qlen,
            rate_bps: 100_000_000_000,
        }
    }

    fn ack<'a>(seq: u64, snd_nxt: u64, int: &'a [IntHop]) -> AckSample<'a> {
        AckSample {
            seq,
            newly_acked: 1000,
            rtt: Delta::from_us(10),
            ecn_echo: false,
            snd_nxt,
            int,
            pint: 0,
        }
    }

    #[test]
    fn a_full_link_with_a_queue_cuts_the_rate_below_eta() {
        let mut h = Hpcc::new(HpccConfig::default(), &env());
        let mut t = TimerRequests::default();
        h.on_ack(Time::ZERO, &ack(1000, 10_000, &[hop(0, 0, 50_000)]), &mut t);
        // 10 µs later the hop sent at line rate (125 kB) and holds 50 kB.
        h.on_ack(
            Time::ZERO,
            &ack(20_000, 30_000, &[hop(10_000, 125_000, 50_000)]),
            &mut t,
        );
        // u_j = 1 + 50 kB / 125 kB = 1.4; τ = T, so u = 1.4.
        assert!((h.utilisation() - 1.4).abs() < 1e-9);
        let expect = (100e9 / (1.4 / 0.95)) as u64 + 50_000_000;
        assert_eq!(h.rate(), Rate(expect));
    }

    #[test]
    fn an_idle_path_lets_the_rate_climb_back() {
        let mut h = Hpcc::new(HpccConfig::default(), &env());
        let mut t = TimerRequests::default();
        h.on_ack(Time::ZERO, &ack(1000, 10_000, &[hop(0, 0, 0)]), &mut t);
        h.on_ack(
            Time::ZERO,
            &ack(20_000, 30_000, &[hop(10_000, 62_500, 0)]),
            &mut t,
        );
        // Half utilised: u = 0.5, R = Rc/(0.5/0.95) + AI, capped at line rate.
        assert_eq!(h.rate(), Rate::gbps(100));
    }

    #[test]
    fn a_min_rate_above_the_line_rate_gives_the_line_rate() {
        // A 50 Mb/s NIC with the default MIN_RATE of 100 Mb/s.
        let env = CcEnv {
            line_rate: Rate::mbps(50),
            bdp: 62,
            ..env()
        };
        let mut h = Hpcc::new(HpccConfig::default(), &env);
        let mut t = TimerRequests::default();
        let full = |ts, tx| [hop(ts, tx, 1_000_000)];
        h.on_ack(Time::ZERO, &ack(1000, 10_000, &full(0, 0)), &mut t);
        h.on_ack(Time::ZERO, &ack(20_000, 30_000, &full(10_000, 62)), &mut t);
        assert!(h.utilisation() > 1.0, "a congested hop: the rate is cut");
        assert_eq!(h.rate(), Rate::mbps(50));
        assert_eq!(floor_then_ceiling(7, 10, 100), 10);
        assert_eq!(floor_then_ceiling(700, 10, 100), 100);
        assert_eq!(floor_then_ceiling(7, 200, 100), 100);
    }

    #[test]
    fn multi_rate_sends_at_the_slowest_hops_rate() {
        let cfg = HpccConfig {
            multi_rate: true,
            ..HpccConfig::default()
        };
        let mut h = Hpcc::new(cfg, &env());
        let mut t = TimerRequests::default();
        let first = [hop(0, 0, 50_000), hop(0, 0, 0)];
        h.on_ack(Time::ZERO, &ack(1000, 10_000, &first), &mut t);
        // Hop 0 full with a queue (u = 1.4), hop 1 half used (u = 0.5).
        let second = [hop(10_000, 125_000, 50_000), hop(10_000, 62_500, 0)];
        h.on_ack(Time::ZERO, &ack(20_000, 30_000, &second), &mut t);
        let hop0 = (100e9 / (1.4 / 0.95)) as u64 + 50_000_000;
        assert_eq!(h.rate(), Rate(hop0));
        assert_eq!(h.per_hop[1].1, 100_000_000_000);
    }

    #[test]
    fn fast_react_does_not_commit_the_reference_rate() {
        let mut h = Hpcc::new(HpccConfig::default(), &env());
        let mut t = TimerRequests::default();
        h.on_ack(Time::ZERO, &ack(1000, 10_000, &[hop(0, 0, 50_000)]), &mut t);
        // An ACK below last_update_seq (10 000): fast react only.
        h.on_ack(
            Time::ZERO,
            &ack(5_000, 12_000, &[hop(10_000, 125_000, 50_000)]),
            &mut t,
        );
        assert!(h.rate() < Rate::gbps(100));
        assert_eq!(h.cur_rate, 100_000_000_000);
    }
}
