//! `rdmasim buffer --sonic FILE`: what a switch's SONiC buffer
//! configuration (config_db JSON) gives, read the way Azure App. A reads
//! its Listing 1: each pool, each profile, and where a lone PG or queue
//! under a dynamic threshold pauses or drops (`docs/sonic-buffer.md`).

use crate::error::ExperimentError;
use crate::fmt::{fmt_bytes_exact, fmt_thousands};
use net::sonic_buffer::{self, dt_fixed_point, PoolMode, PoolType, SonicBufferConfig, Threshold};
use std::fmt::Write as _;
use std::path::Path;

/// Read the config_db JSON file at `path` and describe it.
pub fn report_file(path: &Path) -> Result<String, ExperimentError> {
    Ok(report(&sonic_buffer::read(path)?))
}

/// Describe `cfg`.
pub fn report(cfg: &SonicBufferConfig) -> String {
    let mut o = String::new();
    o.push_str("pools:\n");
    for p in &cfg.pools {
        let kind = match p.kind {
            PoolType::Ingress => "ingress",
            PoolType::Egress => "egress",
        };
        let mode = match p.mode {
            PoolMode::Dynamic => "dynamic",
            PoolMode::Static => "static",
        };
        let _ = write!(
            o,
            "  {}: {kind}, {mode}, size {}",
            p.name,
            fmt_bytes_exact(p.size)
        );
        if p.xoff > 0 {
            let _ = write!(o, ", headroom pool (xoff) {}", fmt_bytes_exact(p.xoff));
        }
        o.push('\n');
    }
    o.push_str("profiles:\n");
    for p in &cfg.profiles {
        let pool = &cfg.pools[p.pool];
        let _ = write!(
            o,
            "  {}: pool {}, reserve {} B, ",
            p.name,
            pool.name,
            fmt_thousands(p.size)
        );
        match p.threshold {
            Threshold::Static(b) => {
                let _ = write!(o, "static threshold {}", fmt_bytes_exact(b));
            }
            Threshold::Dynamic(th) => {
                let _ = write!(o, "dynamic threshold, alpha = 2^{th}");
            }
        }
        if p.lossless() {
            let _ = write!(
                o,
                ", headroom cap (xoff) {} B, xon {} B, xon_offset {} B",
                fmt_thousands(p.xoff),
                fmt_thousands(p.xon),
                fmt_thousands(p.xon_offset)
            );
        }
        o.push('\n');
        if let Threshold::Dynamic(th) = p.threshold {
            let (who, what) = match (pool.kind, p.lossless()) {
                (PoolType::Ingress, true) => ("PG", "pauses"),
                (PoolType::Ingress, false) => ("PG", "drops"),
                (PoolType::Egress, _) => ("queue", "drops"),
            };
            let at = dt_fixed_point(th, pool.size, 1).round() as u64;
            let _ = writeln!(
                o,
                "    a lone {who} {what} at {} (alpha·size / (1 + alpha), the pool otherwise empty)",
                fmt_bytes_exact(at)
            );
        }
        if p.lossless() && pool.xoff > 0 {
            let _ = writeln!(
                o,
                "    the headroom pool holds {:.1} PGs at their cap",
                pool.xoff as f64 / p.xoff as f64
            );
        }
    }
    if cfg.ports.is_empty() {
        o.push_str("no BUFFER_PG or BUFFER_QUEUE: no classes mapped to profiles\n");
    } else {
        for (i, p) in cfg.pools.iter().enumerate() {
            if p.kind == PoolType::Ingress {
                let _ = writeln!(
                    o,
                    "lossless-only share of {}: {}",
                    p.name,
                    fmt_bytes_exact(cfg.lossless_only_share(i))
                );
            }
        }
    }
    o
}
