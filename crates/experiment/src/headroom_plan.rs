//! The headroom-pool planner (Azure §7.1): for a switch's mix of ports
//! (count, speed, cable length), the PFC headroom each lossless queue needs,
//! what reserving it per queue would cost, and the shared headroom pool
//! that replaces the reservation at a chosen oversubscription ratio, each
//! queue capped at its own need. The paper gives neither its headroom
//! formula nor its ratio: the formula is rdmasim's PFC headroom
//! ([`crate::buffer::pfc`]) plus the peer's response time, and the ratio
//! is the operator's (`docs/sonic-buffer.md`, "Headroom-pool planner").

use crate::buffer::{self, bad, LongLink};
use crate::error::ExperimentError;
use crate::fmt::{fmt_bytes_exact, fmt_thousands};
use engine::units::parse_rate;
use engine::Delta;
use std::fmt::Write as _;

/// One group of like ports.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PortGroup {
    /// How many.
    pub count: u32,
    /// Their link.
    pub link: LongLink,
}

/// Parse `"32x100Gbps@3m,8x100Gbps@80km"` (a count is optional: 1).
pub fn parse_ports(s: &str, mtu: u64) -> Result<Vec<PortGroup>, ExperimentError> {
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (count, rest) = match part.split_once('x') {
            Some((n, rest)) if n.chars().all(|c| c.is_ascii_digit()) && !n.is_empty() => {
                let n: u32 = n
                    .parse()
                    .map_err(|_| bad("--ports", format!("'{n}' is not a port count")))?;
                (n, rest)
            }
            _ => (1, part),
        };
        if count == 0 {
            return Err(bad(
                "--ports",
                format!("'{part}': a group needs at least one port"),
            ));
        }
        let Some((rate, length)) = rest.split_once('@') else {
            return Err(bad(
                "--ports",
                format!("'{part}' is not COUNTxRATE@LENGTH (e.g. 32x100Gbps@3m)"),
            ));
        };
        let rate = parse_rate(rate).map_err(|m| bad("--ports", m))?;
        let km = buffer::parse_km(length).map_err(|m| bad("--ports", m))?;
        let link = LongLink::new(rate, km, mtu)?;
        out.push(PortGroup { count, link });
    }
    if out.is_empty() {
        return Err(bad(
            "--ports",
            "no ports given (e.g. 32x100Gbps@3m,8x100Gbps@80km)",
        ));
    }
    Ok(out)
}

/// Where a cable of `km` sits in Azure's region (§1.2, §7.1).
fn tier(km: f64) -> &'static str {
    if km >= 10.0 {
        "long-haul (T2–RH class, tens of km)"
    } else if km >= 0.1 {
        "T1–T2 class (hundreds of m)"
    } else {
        "intra-cluster"
    }
}

/// The plan's inputs beyond the ports.
#[derive(Clone, Copy, Debug)]
pub struct PlanInput {
    /// Lossless priorities per port (Azure uses two).
    pub priorities: u32,
    /// Reserved headroom ÷ pool size.
    pub oversubscription: f64,
    /// The peer's response time to a pause, added at line rate.
    pub response: Delta,
    /// The switch's buffer, if given: the pool must fit in it.
    pub buffer: Option<u64>,
}

/// The plan's text and whether it is safe.
#[derive(Clone, Debug)]
pub struct Plan {
    /// What to print.
    pub text: String,
    /// Failed checks.
    pub failures: Vec<String>,
}

/// Plan the headroom of `ports`.
pub fn plan(ports: &[PortGroup], p: &PlanInput) -> Result<Plan, ExperimentError> {
    if p.priorities == 0 {
        return Err(bad("--priorities", "at least one lossless priority"));
    }
    if !(p.oversubscription.is_finite() && p.oversubscription >= 1.0) {
        return Err(bad(
            "--oversubscription",
            format!(
                "{} must be at least 1 (1: no oversubscription)",
                p.oversubscription
            ),
        ));
    }
    let mut o = String::new();
    let mut failures = Vec::new();
    let mut reserved = 0u64;
    let mut worst_port = 0u64;
    o.push_str(
        "per-queue headroom = 2·R·D + 2·MTU + 64 B + R·t_response \
         (docs/long-haul.md; t_response: --response)\n",
    );
    for g in ports {
        let l = &g.link;
        let h = buffer::pfc(l).headroom.bytes + l.bytes_in(p.response);
        let group = u64::from(g.count) * u64::from(p.priorities) * h;
        reserved += group;
        worst_port = worst_port.max(u64::from(p.priorities) * h);
        let _ = writeln!(
            o,
            "  {} × {} over {} km ({}): {} per queue; {} × {} priorities × {} = {}",
            g.count,
            l.rate,
            l.km,
            tier(l.km),
            fmt_bytes_exact(h),
            g.count,
            p.priorities,
            fmt_thousands(h),
            fmt_thousands(group)
        );
    }
    let pool = (reserved as f64 / p.oversubscription).ceil() as u64;
    let _ = writeln!(
        o,
        "reserved per queue, all ports: {}\n\
         shared headroom pool = reserved / oversubscription = {} / {} = {}\n\
         each queue capped in the pool at its own per-queue headroom (xoff)",
        fmt_bytes_exact(reserved),
        fmt_thousands(reserved),
        p.oversubscription,
        fmt_bytes_exact(pool)
    );
    let _ = writeln!(
        o,
        "worst case of one port (Azure §7.1 footnote 2: its lossless queues pause their \
         peers one after another, none draining) = priorities × its per-queue headroom = {}; \
         the pool holds {:.1} such ports at once",
        fmt_bytes_exact(worst_port),
        pool as f64 / worst_port as f64
    );
    if pool < worst_port {
        let msg = format!(
            "the pool ({}) cannot hold one port's worst case ({}): lower --oversubscription",
            fmt_thousands(pool),
            fmt_thousands(worst_port)
        );
        let _ = writeln!(o, "  FAIL  {msg}");
        failures.push(msg);
    }
    if let Some(b) = p.buffer {
        let msg = format!(
            "the pool ({}) {} the buffer ({})",
            fmt_thousands(pool),
            if pool <= b { "fits in" } else { "exceeds" },
            fmt_thousands(b)
        );
        if pool <= b {
            let _ = writeln!(
                o,
                "  ok    {msg}; {} left for the shared pools",
                fmt_bytes_exact(b - pool)
            );
        } else {
            let _ = writeln!(o, "  FAIL  {msg}");
            failures.push(msg);
        }
    }
    if failures.is_empty() {
        o.push_str("verdict: safe\n");
    } else {
        let _ = writeln!(o, "verdict: UNSAFE ({} failed)", failures.len());
    }
    Ok(Plan { text: o, failures })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_port_mix_is_planned() {
        let ports = parse_ports("32x100Gbps@3m, 8x100Gbps@300m", 1500).unwrap();
        let input = PlanInput {
            priorities: 2,
            oversubscription: 4.0,
            response: Delta::ZERO,
            buffer: Some(32_000_000),
        };
        let p = plan(&ports, &input).unwrap();
        // 3 m: 2 × 100 Gb/s × 15 ns = 375 B + 3,064 = 3,439 per queue.
        // 300 m: 2 × 100 Gb/s × 1.5 µs = 37,500 + 3,064 = 40,564.
        let reserved = 32 * 2 * 3_439 + 8 * 2 * 40_564;
        assert!(p.text.contains(&fmt_thousands(reserved)), "{}", p.text);
        assert!(p
            .text
            .contains(&fmt_thousands((reserved as f64 / 4.0).ceil() as u64)));
        assert!(p.text.contains("T1–T2 class"));
        assert!(p.failures.is_empty(), "{}", p.text);
    }

    #[test]
    fn an_80_km_port_needs_more_than_a_pizza_box_holds() {
        // 40 Gb/s over 80 km: 4,003,064 B per queue, 2 priorities, 16 ports,
        // ratio 4: a 32 MB pool, past a 24 MB switch.
        let ports = parse_ports("16x40Gbps@80km", 1500).unwrap();
        let input = PlanInput {
            priorities: 2,
            oversubscription: 4.0,
            response: Delta::ZERO,
            buffer: Some(24_000_000),
        };
        let p = plan(&ports, &input).unwrap();
        assert_eq!(p.failures.len(), 1, "{}", p.text);
        assert!(p.failures[0].contains("exceeds the buffer"));
        // Too high a ratio cannot hold even one port's worst case.
        let ports = parse_ports("2x40Gbps@80km", 1500).unwrap();
        let p = plan(
            &ports,
            &PlanInput {
                oversubscription: 8.0,
                buffer: None,
                ..input
            },
        )
        .unwrap();
        assert!(
            p.failures[0].contains("one port's worst case"),
            "{}",
            p.text
        );
    }

    #[test]
    fn bad_ports_are_one_error_naming_the_argument() {
        for bad in [
            "",
            "0x100Gbps@3m",
            "32x100Gbps",
            "32x100Gbs@3m",
            "4x100Gbps@3",
        ] {
            let e = parse_ports(bad, 1500).unwrap_err().to_string();
            assert!(e.contains("--ports"), "{bad}: {e}");
        }
    }
}
