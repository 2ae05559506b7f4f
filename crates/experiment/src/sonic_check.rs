//! The operator's checks of a SONiC buffer configuration (Azure §6.2,
//! App. A, §7.1, §7.3): does it fit the physical buffer, are lossless
//! and lossy traffic bypassed where App. A bypasses them, where do one and
//! N congested queues pause or drop, is each lossless PG's headroom cap
//! (`xoff`) enough for the cable it faces, and does PFC fire before ECN
//! can mark (the "PFC before ECN" lint). Each check prints its formula
//! and its numbers; a failed one names the config_db field to change
//! (`docs/sonic-buffer.md`, "Checks").

use crate::buffer::{self, LongLink};
use crate::fmt::{fmt_bytes_exact, fmt_thousands};
use net::sonic_buffer::{dt_fixed_point, PoolType, SonicBufferConfig, Threshold};
use std::fmt::Write as _;

/// What the checks are told beyond the file.
#[derive(Clone, Debug, Default)]
pub struct CheckInput {
    /// The switch's physical buffer B; `None`: the largest pool's size
    /// (Listing 1's 24 MB `egress_lossless_pool`, sized as the buffer to
    /// bypass egress admission).
    pub buffer: Option<u64>,
    /// The cable a lossless ingress faces, if given.
    pub cable: Option<LongLink>,
    /// Numbers of equally congested queues to report pause and drop
    /// points for (always with 1).
    pub congested: Vec<u32>,
    /// ECN Kmin of the egress queue, for the "PFC before ECN" lint.
    pub kmin: Option<u64>,
}

/// The outcome: the text to print and the failed checks.
#[derive(Clone, Debug, Default)]
pub struct CheckReport {
    /// Every check, its formula, its numbers and its verdict.
    pub text: String,
    /// One line per failed check, naming the field.
    pub failures: Vec<String>,
}

impl CheckReport {
    fn pass(&mut self, what: &str, working: String) {
        let _ = writeln!(self.text, "  ok    {what}: {working}");
    }
    fn fail(&mut self, field: String, what: &str, working: String) {
        let _ = writeln!(self.text, "  FAIL  {what}: {working}");
        let _ = writeln!(self.text, "        change {field}");
        self.failures.push(format!("{field}: {what}: {working}"));
    }
    /// The last line: the verdict.
    fn verdict(&mut self) {
        if self.failures.is_empty() {
            self.text.push_str("verdict: safe\n");
        } else {
            let _ = writeln!(
                self.text,
                "verdict: UNSAFE ({} failed check{})",
                self.failures.len(),
                if self.failures.len() == 1 { "" } else { "s" }
            );
        }
    }
}

/// Whether egress profile `q` carries lossless traffic: a class mapped to
/// it whose PG profile has headroom; with no classes mapped, SONiC's
/// naming (`egress_lossless_profile`), as Listing 1 has no maps.
fn egress_lossless(cfg: &SonicBufferConfig, q: usize) -> bool {
    if cfg.ports.is_empty() {
        return cfg.profiles[q].name.contains("lossless");
    }
    cfg.ports.values().any(|p| {
        (0..p.queue.len())
            .any(|c| p.queue[c] == Some(q) && p.pg[c].is_some_and(|pg| cfg.profiles[pg].lossless()))
    })
}

/// Run every check on `cfg`.
pub fn check(cfg: &SonicBufferConfig, input: &CheckInput) -> CheckReport {
    let mut r = CheckReport::default();
    let largest = cfg.pools.iter().map(|p| p.size).max().unwrap_or(0);
    let b = input.buffer.unwrap_or(largest);
    let _ = writeln!(
        r.text,
        "checks (B = physical buffer = {}{}):",
        fmt_bytes_exact(b),
        if input.buffer.is_none() {
            ", the largest pool; --buffer sets it"
        } else {
            ""
        }
    );
    // 1. Ingress pools and their headroom pools fit the buffer.
    for p in cfg.pools.iter().filter(|p| p.kind == PoolType::Ingress) {
        let sum = p.size + p.xoff;
        let working = format!(
            "size + xoff = {} + {} = {} ≤ B = {}",
            fmt_thousands(p.size),
            fmt_thousands(p.xoff),
            fmt_thousands(sum),
            fmt_thousands(b)
        );
        let what = "the ingress pool and its headroom pool fit the buffer";
        if sum <= b {
            r.pass(what, working);
        } else {
            r.fail(format!("BUFFER_POOL.{}.size", p.name), what, working);
        }
    }
    // 2. Lossy egress pools leave lossless traffic a share of each
    //    ingress pool: egress_lossy_pool < ingress_pool (App. A: 18 − 14
    //    = 4 MB only lossless traffic can use).
    for (pi, ip) in cfg.pools.iter().enumerate() {
        if ip.kind != PoolType::Ingress
            || !cfg.profiles.iter().any(|p| p.pool == pi && p.lossless())
        {
            continue;
        }
        for (qi, qp) in cfg.pools.iter().enumerate() {
            let lossy_egress = qp.kind == PoolType::Egress
                && cfg
                    .profiles
                    .iter()
                    .enumerate()
                    .any(|(i, p)| p.pool == qi && !egress_lossless(cfg, i));
            if !lossy_egress {
                continue;
            }
            let share = ip.size.saturating_sub(qp.size);
            let working = format!(
                "{} < {}: lossless-only share = {} − {} = {}",
                qp.name,
                ip.name,
                fmt_thousands(ip.size),
                fmt_thousands(qp.size),
                fmt_thousands(share)
            );
            let what = "a lossy egress pool is smaller than the lossless ingress pool";
            if qp.size < ip.size {
                r.pass(what, working);
            } else {
                r.fail(format!("BUFFER_POOL.{}.size", qp.name), what, working);
            }
        }
    }
    // 3. Bypasses (App. A): lossless traffic never fails egress admission,
    //    lossy never fails ingress admission, by static thresholds as large
    //    as the buffer.
    for (i, p) in cfg.profiles.iter().enumerate() {
        let pool = &cfg.pools[p.pool];
        let bypass = match pool.kind {
            PoolType::Ingress if !p.lossless() => "lossy traffic bypasses ingress admission",
            PoolType::Egress if egress_lossless(cfg, i) => {
                "lossless traffic bypasses egress admission"
            }
            _ => continue,
        };
        match p.threshold {
            Threshold::Static(th) if th >= b => r.pass(
                bypass,
                format!("{}.static_th = {} ≥ B", p.name, fmt_thousands(th)),
            ),
            Threshold::Static(th) => r.fail(
                format!("BUFFER_PROFILE.{}.static_th", p.name),
                bypass,
                format!(
                    "{}.static_th = {} < B = {}",
                    p.name,
                    fmt_thousands(th),
                    fmt_thousands(b)
                ),
            ),
            Threshold::Dynamic(th) => r.fail(
                format!("BUFFER_PROFILE.{}.dynamic_th", p.name),
                bypass,
                format!(
                    "{} has a dynamic threshold (2^{th}); a bypass needs static_th ≥ B",
                    p.name
                ),
            ),
        }
        if pool.kind == PoolType::Egress && pool.size < b {
            r.fail(
                format!("BUFFER_POOL.{}.size", pool.name),
                bypass,
                format!(
                    "{}.size = {} < B = {}",
                    pool.name,
                    fmt_thousands(pool.size),
                    fmt_thousands(b)
                ),
            );
        }
    }
    // 4. Pause and drop points of 1 and N congested queues.
    let mut ns = vec![1u32];
    ns.extend(input.congested.iter().copied().filter(|&n| n > 1));
    for p in &cfg.profiles {
        let Threshold::Dynamic(th) = p.threshold else {
            continue;
        };
        let pool = &cfg.pools[p.pool];
        let (who, what) = match (pool.kind, p.lossless()) {
            (PoolType::Ingress, true) => ("PG", "pauses"),
            (PoolType::Ingress, false) => ("PG", "drops"),
            (PoolType::Egress, _) => ("queue", "drops"),
        };
        for &n in &ns {
            let at = dt_fixed_point(th, pool.size, n).round() as u64;
            let _ = writeln!(
                r.text,
                "  info  {}: each of {n} congested {who}s {what} at α·size / (1 + n·α) = \
                 2^{th} × {} / (1 + {n} × 2^{th}) = {}",
                p.name,
                fmt_thousands(pool.size),
                fmt_bytes_exact(at)
            );
        }
    }
    // 5. Headroom for the cable (Azure §7.1).
    if let Some(l) = &input.cable {
        let need = buffer::pfc(l).headroom;
        for p in cfg.profiles.iter().filter(|p| p.lossless()) {
            let working = format!(
                "xoff = {} vs {} at {} over {} km: {} = {} = {}",
                fmt_thousands(p.xoff),
                need.what,
                l.rate,
                l.km,
                need.formula,
                need.working,
                fmt_thousands(need.bytes)
            );
            let what = "the lossless headroom cap covers the cable";
            if p.xoff >= need.bytes {
                r.pass(what, working);
            } else {
                r.fail(format!("BUFFER_PROFILE.{}.xoff", p.name), what, working);
            }
        }
    }
    // 6. PFC before ECN (Azure §7.3): under N-way incast into one egress
    //    queue, each ingress PG pauses at T_N = α·size / (1 + N·α), when the
    //    egress queue holds N·T_N; if that is below Kmin, PFC pauses before
    //    ECN marks anything.
    if let Some(kmin) = input.kmin {
        for p in cfg.profiles.iter().filter(|p| p.lossless()) {
            let Threshold::Dynamic(th) = p.threshold else {
                continue;
            };
            let pool = &cfg.pools[p.pool];
            for &n in &ns {
                let t = dt_fixed_point(th, pool.size, n);
                let q = (f64::from(n) * t).round() as u64;
                let working = format!(
                    "{n}-way incast: each PG pauses at {} B, the egress queue then holds \
                     N·T_N = {} B {} Kmin = {} B",
                    fmt_thousands(t.round() as u64),
                    fmt_thousands(q),
                    if q > kmin { ">" } else { "≤" },
                    fmt_thousands(kmin)
                );
                let what = "ECN marks before PFC pauses";
                if q > kmin {
                    r.pass(what, working);
                } else {
                    r.fail(
                        format!("BUFFER_PROFILE.{}.dynamic_th (or lower Kmin)", p.name),
                        what,
                        working,
                    );
                }
            }
        }
    }
    r.verdict();
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Rate;
    use net::sonic_buffer::parse;

    fn listing1() -> String {
        std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../experiments/azure/listing1.json"
        ))
        .unwrap()
    }

    fn cfg(text: &str) -> SonicBufferConfig {
        parse(text, "t.json").unwrap()
    }

    #[test]
    fn listing1_is_safe() {
        let r = check(
            &cfg(&listing1()),
            &CheckInput {
                buffer: Some(24_000_000),
                congested: vec![2, 10],
                kmin: Some(1_000_000),
                ..CheckInput::default()
            },
        );
        assert!(r.failures.is_empty(), "{}", r.text);
        assert!(r.text.ends_with("verdict: safe\n"), "{}", r.text);
        // 18 MB/(8 + N): 1.8 MB and 1 MB for N = 2 and 10.
        assert!(r.text.contains("= 1,800,000 B"), "{}", r.text);
        assert!(r.text.contains("= 1,000,000 B"), "{}", r.text);
        assert!(r
            .text
            .contains("lossless-only share = 18,000,000 − 14,000,000 = 4,000,000"));
    }

    #[test]
    fn a_lossy_egress_pool_above_the_ingress_pool_fails_naming_it() {
        let text = listing1().replace("\"14000000\"", "\"20000000\"");
        let r = check(&cfg(&text), &CheckInput::default());
        assert_eq!(r.failures.len(), 1, "{}", r.text);
        assert!(r.failures[0].starts_with("BUFFER_POOL.egress_lossy_pool.size:"));
        assert!(r.text.contains("verdict: UNSAFE"));
    }

    #[test]
    fn xoff_below_an_80_km_links_need_fails_naming_it() {
        let l = LongLink::new(Rate::gbps(40), 80.0, 1500).unwrap();
        let r = check(
            &cfg(&listing1()),
            &CheckInput {
                cable: Some(l),
                ..CheckInput::default()
            },
        );
        assert_eq!(r.failures.len(), 1, "{}", r.text);
        assert!(r.failures[0].starts_with("BUFFER_PROFILE.ingress_lossless_profile.xoff:"));
        // 2·R·D at 40 Gb/s over 400 µs: 4,000,000 B, + 2 × 1500 + 64.
        assert!(r.failures[0].contains("4,003,064"), "{}", r.failures[0]);
        // A 300 m cable is covered: 2 × 40 Gb/s × 1.5 µs = 15,000 B + 3,064.
        let l = LongLink::new(Rate::gbps(40), 0.3, 1500).unwrap();
        let r = check(
            &cfg(&listing1()),
            &CheckInput {
                cable: Some(l),
                ..CheckInput::default()
            },
        );
        assert!(r.failures.is_empty(), "{}", r.text);
    }

    #[test]
    fn a_bypass_below_the_buffer_and_a_too_small_buffer_fail() {
        let text = listing1().replacen(
            "\"static_th\": \"24000000\"",
            "\"static_th\": \"2000000\"",
            1,
        );
        let r = check(&cfg(&text), &CheckInput::default());
        assert_eq!(r.failures.len(), 1, "{}", r.text);
        assert!(r.failures[0].starts_with("BUFFER_PROFILE.ingress_lossy_profile.static_th:"));
        let r = check(
            &cfg(&listing1()),
            &CheckInput {
                buffer: Some(22_000_000),
                ..CheckInput::default()
            },
        );
        assert!(
            r.failures[0].starts_with("BUFFER_POOL.ingress_pool.size:"),
            "{}",
            r.text
        );
    }

    /// Raising Kmin past what N ingresses hold at their pause makes PFC
    /// fire first (Azure §7.3): with Listing 1 a lone congested ingress
    /// pauses at 2 MB, so Kmin = 3 MB fails for N = 1 and passes for N = 2
    /// (2 × 1.8 MB).
    #[test]
    fn kmin_above_the_pause_point_is_pfc_before_ecn() {
        let r = check(
            &cfg(&listing1()),
            &CheckInput {
                kmin: Some(3_000_000),
                congested: vec![2],
                ..CheckInput::default()
            },
        );
        assert_eq!(r.failures.len(), 1, "{}", r.text);
        assert!(r.failures[0].contains("1-way incast"), "{}", r.failures[0]);
        assert!(r.failures[0].starts_with("BUFFER_PROFILE.ingress_lossless_profile.dynamic_th"));
    }
}
