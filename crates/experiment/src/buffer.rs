//! How much buffer a long link needs under each flow-control scheme
//! (`rdmasim buffer`): PFC, Swing's relay, Bifrost and InfiniBand's CBFC.
//!
//! Every function here is pure arithmetic on a [`LongLink`] and returns,
//! per scheme, each figure as a [`Term`]: the bytes, the formula, the
//! formula with the numbers put in, and where it comes from (a section of
//! the Swing or Bifrost paper (`docs/sources.md`), or rdmasim's own choice
//! where the papers leave a term out). Symbols are the papers': `R` the
//! link rate (bytes/s), `D` the one-way propagation delay (5 µs per km of
//! fibre), `Δ = 2·R·D` the bandwidth-delay product over the round trip
//! (BDP), `T` Bifrost's time slot, `k` its leak-check period.
//! Every figure is rounded up to a whole byte: they are lower bounds.
//! Bifrost's H is the one a simulated port takes by default, reckoned by
//! the port's own code ([`bifrost`]).
//!
//! `docs/long-haul.md` explains each formula and the choices made here.

use crate::error::ExperimentError;
use crate::fmt::{fmt_bytes_exact, fmt_decimal, fmt_thousands};
use engine::units::{parse_rate, parse_time, FIBRE_PS_PER_KM};
use engine::{Delta, InputError, Rate};
use std::fmt::Write as _;

/// Bytes of a PFC pause (or resume) frame: the Ethernet minimum, as
/// rdmasim's switches send them (`docs/model.md`, Bifrost §IV-C3: "one
/// pause frame is 64 B").
pub const PAUSE_FRAME_BYTES: u64 = 64;
/// Default MTU: the largest frame on the long link. Neither paper gives
/// one; their IRN settings imply 1500 B packets (Swing §6.1, Bifrost
/// §VI-B).
pub const DEFAULT_MTU: u64 = 1500;
/// Bifrost's default time slot T = 10 µs (Bifrost §V: "we configure T to
/// be 10 µs"; §VI-B).
pub const DEFAULT_SLOT: Delta = Delta::from_us(10);
/// Bifrost's default leak-check period k = 1 (Bifrost §VI-A1, §VI-B: "k is
/// set to 1").
pub const DEFAULT_K: u32 = 1;
/// InfiniBand's credit block, 64 B (Bifrost §II-B: "one block is 64 bytes").
pub const CBFC_BLOCK_BYTES: u64 = 64;
/// Width of InfiniBand's FCCL field, 12 bits (Bifrost §III-A).
pub const CBFC_FIELD_BITS: u32 = 12;
/// Longest link the calculator takes, km (half a second one way).
pub const MAX_DISTANCE_KM: f64 = 100_000.0;

/// A long link: its rate, its length and the largest frame on it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LongLink {
    /// Line rate R.
    pub rate: Rate,
    /// Fibre length, km.
    pub km: f64,
    /// One-way propagation delay D = km × 5 µs/km.
    pub delay: Delta,
    /// Largest frame on the link, bytes.
    pub mtu: u64,
}

impl LongLink {
    /// A link of `rate` over `km` of fibre carrying frames of at most `mtu`
    /// bytes. `km` must be in (0, [`MAX_DISTANCE_KM`]], `mtu` in
    /// [64, 65535] and `rate` above zero; the error names the offending
    /// argument (`--distance`, `--mtu`, `--rate`).
    pub fn new(rate: Rate, km: f64, mtu: u64) -> Result<LongLink, ExperimentError> {
        if rate.bps() == 0 {
            return Err(bad("--rate", "the rate must be greater than zero"));
        }
        if !(km.is_finite() && km > 0.0) {
            return Err(bad(
                "--distance",
                format!("the distance must be greater than zero (got {km} km)"),
            ));
        }
        if km > MAX_DISTANCE_KM {
            return Err(bad(
                "--distance",
                format!("{km} km is too long (at most {MAX_DISTANCE_KM} km)"),
            ));
        }
        if !(64..=65535).contains(&mtu) {
            return Err(bad(
                "--mtu",
                format!("{mtu} B is not a frame size; give 64 to 65535 bytes"),
            ));
        }
        let delay = Delta((km * FIBRE_PS_PER_KM as f64).round() as u64);
        Ok(LongLink {
            rate,
            km,
            delay,
            mtu,
        })
    }

    /// [`LongLink::new`] from the command line's words: `rate` as
    /// `"400Gbps"`, `distance` as a fibre length (`"80km"`, `"500m"`).
    pub fn parse(rate: &str, distance: &str, mtu: u64) -> Result<LongLink, ExperimentError> {
        let rate = parse_rate(rate).map_err(|m| bad("--rate", m))?;
        let km = parse_km(distance).map_err(|m| bad("--distance", m))?;
        LongLink::new(rate, km, mtu)
    }

    /// Bytes the link carries in `d` at line rate, rounded up.
    pub fn bytes_in(&self, d: Delta) -> u64 {
        let bits_ps = self.rate.bps() as u128 * d.ps() as u128;
        bits_ps.div_ceil(8 * 1_000_000_000_000) as u64
    }

    /// R·D: the bytes in flight one way.
    pub fn one_way(&self) -> u64 {
        self.bytes_in(self.delay)
    }

    /// Δ = 2·R·D = R·RTT: the BDP of the link, propagation only (Bifrost
    /// §III-B: 2R_sD "is one BDP"; Swing §4.1: 4D·BW "equals to 2 × BDP").
    pub fn bdp(&self) -> u64 {
        self.bytes_in(Delta(2 * self.delay.ps()))
    }
}

/// `--mtu`: bytes, bare (`"1500"`) or with a size unit (`"1500B"`,
/// `"9KB"`), as a config's sizes are written; [`LongLink::new`] checks the
/// range.
pub fn parse_mtu(s: &str) -> Result<u64, ExperimentError> {
    engine::units::parse_bytes(s).map_err(|m| bad("--mtu", m))
}

/// A fibre length in km from `"80km"`, `"80 km"`, `"500m"`.
pub fn parse_km(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let (num, scale) = if let Some(n) = t.strip_suffix("km") {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 1e-3)
    } else {
        return Err(format!(
            "'{s}' is not a length; write the fibre length with its unit, e.g. 80km or \
             500m (the one-way delay is 5 us per km)"
        ));
    };
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' does not start with a number"))?;
    if !v.is_finite() {
        return Err(format!("'{s}' is not a finite length"));
    }
    Ok(v * scale)
}

pub(crate) fn bad(arg: &str, msg: impl Into<String>) -> ExperimentError {
    ExperimentError::Input(InputError::at("<command line>", None, arg, msg))
}

/// One figure: bytes, and how they were reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Term {
    /// What the figure is.
    pub what: &'static str,
    /// The value, bytes.
    pub bytes: u64,
    /// The formula, in the papers' symbols.
    pub formula: &'static str,
    /// The formula with this link's numbers in it.
    pub working: String,
    /// Where the formula comes from.
    pub source: &'static str,
}

/// PFC (IEEE 802.1Qbb) on the long link's ingress, XOFF = XON.
#[derive(Clone, Debug, PartialEq)]
pub struct PfcBuffer {
    /// Buffer above XOFF so that nothing is dropped.
    pub headroom: Term,
    /// Queue at XON so that the link never runs dry after a resume.
    pub xon: Term,
    /// Both: the buffer for no loss and no throughput-loss.
    pub total: Term,
    /// rdmasim's (and the peer's) default headroom for this port, for
    /// comparison: 3·R·D.
    pub default_headroom: Term,
}

/// The frame terms rdmasim adds to a PFC-style bound: one MTU the pause
/// waits behind at the downstream egress, the pause frame itself, one MTU
/// the upstream finishes sending (`docs/long-haul.md`).
fn frame_slack(l: &LongLink) -> u64 {
    2 * l.mtu + PAUSE_FRAME_BYTES
}

/// Where the frame terms come from, appended to a PFC-style source.
macro_rules! slack_source {
    () => {
        "; 2·MTU + 64 B: rdmasim's frame model (docs/long-haul.md)"
    };
}

/// PFC's buffer on the long link.
pub fn pfc(l: &LongLink) -> PfcBuffer {
    let bdp = l.bdp();
    let slack = frame_slack(l);
    let headroom = Term {
        what: "lossless headroom (above XOFF)",
        bytes: bdp + slack,
        formula: "2·R·D + 2·MTU + 64 B",
        working: format!("{} + 2 × {} + 64", fmt_thousands(bdp), fmt_thousands(l.mtu)),
        source: concat!(
            "Bifrost §III-B \"a headroom of at least 2R_sD … which is one BDP\"; \
             Swing §4.1 \"to ensure zero packet loss, the maximum link propagation delay \
             is B_a/(2BW)\"",
            slack_source!()
        ),
    };
    let xon = Term {
        what: "XON, for no throughput-loss",
        bytes: bdp + slack,
        formula: "2·R_d·D + 2·MTU + 64 B (R_d = R)",
        working: format!("{} + 2 × {} + 64", fmt_thousands(bdp), fmt_thousands(l.mtu)),
        source: concat!(
            "Bifrost §III-B \"The packets buffered at downstream queue should be at least \
             2R_dD, otherwise, the downstream link will be drained\" (typical case R_d = R_s)",
            slack_source!()
        ),
    };
    let total = Term {
        what: "total, XOFF = XON",
        bytes: 2 * (bdp + slack),
        formula: "2·D·(R_s + R_d) + 4·MTU + 128 B = 2 BDP + 4·MTU + 128 B",
        working: format!(
            "2 × {} + 4 × {} + 128",
            fmt_thousands(bdp),
            fmt_thousands(l.mtu)
        ),
        source: "Bifrost §III-B \"the buffer size of downstream port should be at least \
                 2D(R_s + R_d)\"; Swing §4.1 \"B_a ≥ 4D·BW, which equals to 2 × BDP\"; \
                 + 4·MTU + 128 B: twice the frame terms above",
    };
    let one_way = l.one_way();
    let default_headroom = Term {
        what: "rdmasim's default headroom, 3·R·D",
        bytes: 3 * one_way,
        formula: "3·R·D = 1.5 BDP (buffer.headroom)",
        working: format!("3 × {}", fmt_thousands(one_way)),
        source: "the peer's third.cc (headroom = 3 × rate × link delay); docs/model.md",
    };
    PfcBuffer {
        headroom,
        xon,
        total,
        default_headroom,
    }
}

/// Swing: the relay's long-link (R-port) ingress buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct SwingBuffer {
    /// The relay's R-port buffer.
    pub relay: Term,
}

/// Swing's relay buffer on the long link.
pub fn swing(l: &LongLink) -> SwingBuffer {
    let bdp = l.bdp();
    SwingBuffer {
        relay: Term {
            what: "relay R-port buffer",
            bytes: bdp + frame_slack(l),
            formula: "2·D·BW + 2·MTU + 64 B = 1 BDP + 2·MTU + 64 B",
            working: format!("{} + 2 × {} + 64", fmt_thousands(bdp), fmt_thousands(l.mtu)),
            source: concat!(
                "Swing §5.2, Fig. 11 \"the maximum queue length is exactly one BDP (2D·BW)\"; \
                 \"a little larger than one BDP\"",
                slack_source!()
            ),
        },
    }
}

/// Bifrost: the reserved buffer H of the long-haul ingress queue.
#[derive(Clone, Debug, PartialEq)]
pub struct BifrostBuffer {
    /// H.
    pub h: Term,
    /// The slot T used.
    pub slot: Delta,
    /// The leak-check period k used.
    pub k: u32,
    /// Broken constraints on T (Bifrost §V), one line each; empty if
    /// none.
    pub warnings: Vec<String>,
}

/// Bifrost's H for slot `slot` and leak-check period `k`: the default H
/// a simulated Bifrost port takes on this link
/// ([`net::fc::BifrostConfig::resolve`], where Theorem 1's bound is
/// reckoned), so that a port given the printed H runs at its bound. Δ there
/// is the round trip in whole slots, N = ⌈2D/T⌉ of R·T each: the BDP
/// itself when T divides 2D, up to one R·T more when it does not; the
/// working then says how many slots.
pub fn bifrost(l: &LongLink, slot: Delta, k: u32) -> BifrostBuffer {
    let port = net::fc::BifrostConfig {
        t_slot: slot,
        k,
        mtu: l.mtu,
        ..net::fc::BifrostConfig::default()
    };
    let (par, _) = port.resolve(l.rate, l.delay);
    let (delta, rt) = (par.delta, par.r_s_t);
    let slots = if delta == l.bdp() {
        String::new()
    } else {
        let s = if par.n == 1 { "" } else { "s" };
        format!(", Δ = ⌈2D/T⌉ = {} slot{s} of R·T", fmt_thousands(par.n))
    };
    let h = Term {
        what: "reserved buffer H",
        bytes: par.h,
        formula: "Δ + 2·R·T + k·MTU",
        working: format!(
            "{} + 2 × {} + {k} × {}   (T = {slot}, k = {k}{slots})",
            fmt_thousands(delta),
            fmt_thousands(rt),
            fmt_thousands(l.mtu)
        ),
        source: "Bifrost §IV-C1 Theorem 1: \"H should be larger than Δ + 2R_sT\"; §IV-D \"an \
                 extra headroom of k × MTU\"; Alg. 1's header prints only H ≥ Δ + R_sT",
    };
    let mut warnings = Vec::new();
    if slot < Delta::from_us(1) {
        warnings.push(format!(
            "T = {slot} is below the switch's internal delay of about 1 us (Bifrost §V: T > 1 us)"
        ));
    }
    if slot >= l.delay {
        warnings.push(format!(
            "T = {slot} is not below D = {} (Bifrost §V: T < D, \"otherwise, it could not \
             react in time\")",
            l.delay
        ));
    }
    let field = 65_535 * 64u64;
    if rt > field {
        warnings.push(format!(
            "R·T = {} B is more than a pause frame can hold, 65535 quanta = {} B \
             (Bifrost §V)",
            fmt_thousands(rt),
            fmt_thousands(field)
        ));
    }
    if k == 0 {
        warnings.push("k = 0: the leak check never runs (Bifrost §IV-D)".to_string());
    }
    BifrostBuffer {
        h,
        slot,
        k,
        warnings,
    }
}

/// CBFC (InfiniBand credits): the credits a long link needs, and how far
/// the 12-bit FCCL field reaches.
#[derive(Clone, Debug, PartialEq)]
pub struct CbfcBuffer {
    /// Credits (and so buffer) for full rate: one BDP, in whole blocks.
    pub credits: Term,
    /// The most the 12-bit field can grant: 4096 blocks of 64 B.
    pub field_limit: Term,
    /// Blocks the link needs.
    pub blocks: u64,
    /// Bits an FCCL field needs to grant that many blocks.
    pub bits_needed: u32,
    /// Longest link the 12-bit field keeps at full rate, km.
    pub reach_km: f64,
    /// Highest rate the 12-bit field allows on this link (one field of
    /// credit per round trip), capped at the line rate.
    pub capped_rate: Rate,
}

/// CBFC on the long link.
pub fn cbfc(l: &LongLink) -> CbfcBuffer {
    let bdp = l.bdp();
    let blocks = bdp.div_ceil(CBFC_BLOCK_BYTES);
    let limit_blocks = 1u64 << CBFC_FIELD_BITS;
    let limit = limit_blocks * CBFC_BLOCK_BYTES;
    // Smallest b with 2^b >= blocks.
    let bits_needed = (64 - blocks.saturating_sub(1).leading_zeros()).max(1);
    // 2·R·D ≤ limit ⇔ D ≤ limit / (2·R); km = D / 5 µs.
    let rate_bytes_per_s = l.rate.bps() as f64 / 8.0;
    let reach_km = limit as f64 / (2.0 * rate_bytes_per_s) / (FIBRE_PS_PER_KM as f64 * 1e-12);
    let rtt_ps = 2 * l.delay.ps() as u128;
    let capped = (limit as u128 * 8 * 1_000_000_000_000)
        .checked_div(rtt_ps)
        .unwrap_or(u128::MAX);
    let capped_rate = Rate(capped.min(l.rate.bps() as u128) as u64);
    CbfcBuffer {
        credits: Term {
            what: "credits for full rate (CBFC-ideal)",
            bytes: blocks * CBFC_BLOCK_BYTES,
            formula: "⌈2·R·D / 64 B⌉ blocks × 64 B = 1 BDP",
            working: format!("{} blocks × 64", fmt_thousands(blocks)),
            source: "Bifrost §III-A \"The credits should be larger than one BDP\"; §II-B \"one \
                     block is 64 bytes\"",
        },
        field_limit: Term {
            what: "12-bit FCCL field limit",
            bytes: limit,
            formula: "2^12 blocks × 64 B",
            working: format!("{} × 64", fmt_thousands(limit_blocks)),
            source: "Bifrost §III-A \"There are 12 bits in the CBFC message for the FCCL\"; \
                     4096 × 64 B = 262,144 B",
        },
        blocks,
        bits_needed,
        reach_km,
        capped_rate,
    }
}

/// Which scheme(s) to print.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// PFC.
    Pfc,
    /// Swing's PFC relay.
    Swing,
    /// Bifrost.
    Bifrost,
    /// InfiniBand CBFC.
    Cbfc,
}

impl Scheme {
    /// Every scheme, in print order.
    pub const ALL: [Scheme; 4] = [Scheme::Pfc, Scheme::Swing, Scheme::Bifrost, Scheme::Cbfc];

    /// `pfc`, `swing`, `bifrost`, `cbfc`, or `all` (every one).
    pub fn parse(s: &str) -> Result<Vec<Scheme>, ExperimentError> {
        Ok(match s.trim().to_ascii_lowercase().as_str() {
            "pfc" => vec![Scheme::Pfc],
            "swing" => vec![Scheme::Swing],
            "bifrost" => vec![Scheme::Bifrost],
            "cbfc" => vec![Scheme::Cbfc],
            "all" => Scheme::ALL.to_vec(),
            _ => {
                return Err(bad(
                    "--scheme",
                    format!("'{s}' is not one of pfc, swing, bifrost, cbfc, all"),
                ))
            }
        })
    }
}

/// Parse `--slot` (a duration above zero).
pub fn parse_slot(s: &str) -> Result<Delta, ExperimentError> {
    let d = parse_time(s).map_err(|m| bad("--slot", m))?;
    if d == Delta::ZERO {
        return Err(bad(
            "--slot",
            format!("the slot '{s}' must be greater than zero"),
        ));
    }
    if d > Delta::from_ms(1000) {
        return Err(bad(
            "--slot",
            format!("the slot '{s}' is too long (at most 1 s)"),
        ));
    }
    Ok(d)
}

fn term(out: &mut String, t: &Term) {
    let _ = writeln!(out, "  {:<36} {}", t.what, fmt_bytes_exact(t.bytes));
    let _ = writeln!(out, "      = {} = {}", t.formula, t.working);
    let _ = writeln!(out, "      source: {}", t.source);
}

/// What `rdmasim buffer` prints: the link, then each scheme's figures with
/// formula, working and source.
pub fn report(l: &LongLink, schemes: &[Scheme], slot: Delta, k: u32) -> String {
    let mut o = String::new();
    let rate_bytes = l.rate.bps() as f64 / 8e9;
    let _ = writeln!(
        o,
        "long link: {} (R = {} GB/s), {} km of fibre, D = {} one way (5 us/km), MTU {} B",
        l.rate,
        fmt_decimal(rate_bytes),
        fmt_decimal(l.km),
        l.delay,
        l.mtu
    );
    let _ = writeln!(o, "BDP Δ = 2·R·D = {}", fmt_bytes_exact(l.bdp()));
    for s in schemes {
        o.push('\n');
        match s {
            Scheme::Pfc => {
                let b = pfc(l);
                let _ = writeln!(o, "PFC (802.1Qbb on the long link's ingress, XOFF = XON)");
                term(&mut o, &b.headroom);
                term(&mut o, &b.xon);
                term(&mut o, &b.total);
                term(&mut o, &b.default_headroom);
            }
            Scheme::Swing => {
                let b = swing(l);
                let _ = writeln!(o, "Swing (PFC relay at each end of the long link)");
                term(&mut o, &b.relay);
                let _ = writeln!(
                    o,
                    "  note: the paper gives the relay 41 MB for a 40 MB BDP (Swing §6.1); the \
                     relay's L port and the DCI switch keep intra-DC PFC buffers"
                );
            }
            Scheme::Bifrost => {
                let b = bifrost(l, slot, k);
                let _ = writeln!(
                    o,
                    "Bifrost (downstream-driven pause-time grants every slot T)"
                );
                term(&mut o, &b.h);
                let _ = writeln!(
                    o,
                    "  note: T = {} and k = {} are the paper's defaults (Bifrost §V, §VI-B); \
                     the paper configures H = 287 MiB at 400 Gbps × 600 km (§VI-B)",
                    DEFAULT_SLOT, DEFAULT_K
                );
                for w in &b.warnings {
                    let _ = writeln!(o, "  warning: {w}");
                }
            }
            Scheme::Cbfc => {
                let b = cbfc(l);
                let _ = writeln!(o, "CBFC (InfiniBand credits, 64 B blocks)");
                term(&mut o, &b.credits);
                term(&mut o, &b.field_limit);
                let _ = writeln!(
                    o,
                    "  12-bit FCCL: full rate up to {:.3} km at {} (D ≤ 2^12 × 64 B / (2·R)); \
                     this link needs {} blocks ({} bits of FCCL){}",
                    b.reach_km,
                    l.rate,
                    fmt_thousands(b.blocks),
                    b.bits_needed,
                    if b.bits_needed <= CBFC_FIELD_BITS {
                        String::new()
                    } else {
                        format!(
                            "; with 12 bits it runs at most at {:.3} Gbps",
                            b.capped_rate.bps() as f64 / 1e9
                        )
                    }
                );
                // The paper's check is at 100 Gbps: 125,000 B of BDP per km.
                let at_100g = LongLink::new(Rate::gbps(100), 1.0, l.mtu).map_or(0.0, |one_km| {
                    ((1u64 << CBFC_FIELD_BITS) * CBFC_BLOCK_BYTES) as f64 / one_km.bdp() as f64
                });
                let _ = writeln!(
                    o,
                    "  note: the paper says \"at most 1 kilometer for a 100 Gbps link\" \
                     (Bifrost §III-A); its own check (4096 × 64 B vs 125 KB per km at \
                     100 Gbps) gives {at_100g:.3} km"
                );
            }
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(gbps: u64, km: f64) -> LongLink {
        LongLink::new(Rate::gbps(gbps), km, DEFAULT_MTU).unwrap()
    }

    #[test]
    fn one_hundred_gbps_over_80_km() {
        // R = 100 Gb/s = 12.5e9 B/s; D = 80 km × 5 us/km = 400 us.
        // Δ = 2·R·D = 12.5e9 × 800e-6 = 10,000,000 B.
        let l = link(100, 80.0);
        assert_eq!(l.delay, Delta::from_us(400));
        assert_eq!(l.one_way(), 5_000_000);
        assert_eq!(l.bdp(), 10_000_000);
        // PFC: headroom = XON = 10,000,000 + 2 × 1500 + 64 = 10,003,064;
        // total 20,006,128; the default headroom 3·R·D = 15,000,000.
        let p = pfc(&l);
        assert_eq!(p.headroom.bytes, 10_003_064);
        assert_eq!(p.xon.bytes, 10_003_064);
        assert_eq!(p.total.bytes, 20_006_128);
        assert_eq!(p.default_headroom.bytes, 15_000_000);
        // Swing: 1 BDP + 2·MTU + 64 = 10,003,064.
        assert_eq!(swing(&l).relay.bytes, 10_003_064);
        // Bifrost: R·T = 12.5e9 × 10e-6 = 125,000; H = 10,000,000 + 250,000
        // + 1 × 1500 = 10,251,500 (Bifrost §VI-A: BDP 9.5 MB; Δ + 2R_sT = 10,250,000).
        let b = bifrost(&l, DEFAULT_SLOT, DEFAULT_K);
        assert_eq!(b.h.bytes, 10_251_500);
        assert!(b.warnings.is_empty(), "{:?}", b.warnings);
        // CBFC: 10,000,000 / 64 = 156,250 blocks (an 18-bit field: 2^17 =
        // 131,072 < 156,250 ≤ 262,144); the 12-bit field grants 262,144 B,
        // a full-rate reach of 262,144 / (2 × 12.5e9 × 5e-6) = 2.097152 km,
        // and 262,144 B per 800 us = 2.62144 Gb/s at 80 km.
        let c = cbfc(&l);
        assert_eq!(c.credits.bytes, 10_000_000);
        assert_eq!(c.blocks, 156_250);
        assert_eq!(c.bits_needed, 18);
        assert_eq!(c.field_limit.bytes, 262_144);
        assert!((c.reach_km - 2.097152).abs() < 1e-9, "{}", c.reach_km);
        assert_eq!(c.capped_rate, Rate(2_621_440_000));
    }

    #[test]
    fn four_hundred_gbps_over_600_km() {
        // R = 50e9 B/s; D = 3 ms; Δ = 50e9 × 6e-3 = 300,000,000 B
        // (Bifrost §VI-B's "286 MB" is 286.1 MiB).
        let l = link(400, 600.0);
        assert_eq!(l.delay, Delta::from_ms(3));
        assert_eq!(l.bdp(), 300_000_000);
        let p = pfc(&l);
        assert_eq!(p.headroom.bytes, 300_003_064);
        assert_eq!(p.total.bytes, 600_006_128);
        assert_eq!(swing(&l).relay.bytes, 300_003_064);
        // R·T = 500,000; H = 300,000,000 + 1,000,000 + 1,500 = 301,001,500
        // (Bifrost §VI-B configures H = 287 MiB; Δ + 2R_sT = 301,000,000).
        assert_eq!(bifrost(&l, DEFAULT_SLOT, 1).h.bytes, 301_001_500);
        // 4,687,500 blocks, 23 bits (2^22 = 4,194,304 < 4,687,500); reach
        // 262,144 / (2 × 50e9 × 5e-6) = 0.524288 km; 262,144 B per 6 ms =
        // 349,525,333 b/s.
        let c = cbfc(&l);
        assert_eq!(c.blocks, 4_687_500);
        assert_eq!(c.bits_needed, 23);
        assert!((c.reach_km - 0.524288).abs() < 1e-9);
        assert_eq!(c.capped_rate, Rate(349_525_333));
    }

    #[test]
    fn cbfc_within_reach_and_rounding() {
        // 1 km at 100 Gb/s: Δ = 12.5e9 × 10e-6 = 125,000 B = 1,953.125 blocks
        // -> 1,954 blocks = 125,056 B, 11 bits; the 12-bit field suffices.
        let c = cbfc(&link(100, 1.0));
        assert_eq!(
            (c.blocks, c.credits.bytes, c.bits_needed),
            (1954, 125_056, 11)
        );
        assert_eq!(c.capped_rate, Rate::gbps(100));
        // Exactly 2^12 blocks fit in 12 bits.
        let l = LongLink::new(Rate::gbps(100), 2.097152, 1500).unwrap();
        assert_eq!(l.bdp(), 262_144);
        assert_eq!(cbfc(&l).bits_needed, 12);
    }

    #[test]
    fn bifrost_slot_and_k() {
        let l = link(100, 80.0);
        // T = 20 us, k = 3: 10,000,000 + 2 × 250,000 + 3 × 1500.
        assert_eq!(bifrost(&l, Delta::from_us(20), 3).h.bytes, 10_504_500);
        // Constraint checks of Bifrost §V.
        let w = bifrost(&l, Delta::from_us(500), 1).warnings;
        assert!(w.iter().any(|w| w.contains("not below D = 400us")), "{w:?}");
        let w = bifrost(&link(400, 80.0), Delta::from_us(100), 1).warnings;
        assert!(w.iter().any(|w| w.contains("65535 quanta")), "{w:?}");
        let w = bifrost(&l, Delta::from_ns(500), 1).warnings;
        assert!(w.iter().any(|w| w.contains("internal delay")), "{w:?}");
    }

    /// The calculator's defaults are a Bifrost port's.
    #[test]
    fn defaults_are_the_ports() {
        let port = net::fc::BifrostConfig::default();
        assert_eq!(
            (DEFAULT_SLOT, DEFAULT_K, DEFAULT_MTU),
            (port.t_slot, port.k, port.mtu)
        );
    }

    /// When T does not divide the round trip, Δ is the round trip in whole
    /// slots, as the simulated port takes it, not the exact BDP.
    #[test]
    fn bifrost_delta_is_whole_slots() {
        // 81.3 km: 2D = 813 us, N = ⌈813 / 10⌉ = 82 slots of 125,000 B =
        // 10,250,000 B (the BDP is 10,162,500 B); H = 10,250,000 + 250,000
        // + 1,500.
        let l = link(100, 81.3);
        assert_eq!(l.bdp(), 10_162_500);
        let b = bifrost(&l, DEFAULT_SLOT, DEFAULT_K);
        assert_eq!(b.h.bytes, 10_501_500);
        assert!(b.h.working.contains("82 slots"), "{}", b.h.working);
        // And no slot count when T divides 2D.
        let b = bifrost(&link(100, 80.0), DEFAULT_SLOT, DEFAULT_K);
        assert!(!b.h.working.contains("slots"), "{}", b.h.working);
    }

    #[test]
    fn parsing_and_bad_input() {
        let l = LongLink::parse("400Gbps", "80km", 1500).unwrap();
        assert_eq!((l.rate, l.delay), (Rate::gbps(400), Delta::from_us(400)));
        assert_eq!(
            LongLink::parse("100G", "500m", 1500).unwrap().delay,
            Delta::from_ns(2500)
        );
        assert_eq!(LongLink::parse("100G", " 80 km ", 1500).unwrap().km, 80.0);
        let e = |r: &str, d: &str, m: u64| LongLink::parse(r, d, m).unwrap_err().to_string();
        assert!(e("400Gbs", "80km", 1500).starts_with("<command line>: --rate: unknown rate unit"));
        assert!(e("0Gbps", "80km", 1500).starts_with("<command line>: --rate: "));
        assert!(e("400Gbps", "80", 1500)
            .starts_with("<command line>: --distance: '80' is not a length"));
        assert!(e("400Gbps", "400us", 1500).contains("is not a length"));
        assert!(e("400Gbps", "xkm", 1500).contains("does not start with a number"));
        assert!(e("400Gbps", "-5km", 1500).contains("must be greater than zero"));
        assert!(e("400Gbps", "0km", 1500).contains("must be greater than zero"));
        assert!(e("400Gbps", "1e9km", 1500).contains("too long"));
        assert!(e("400Gbps", "80km", 10).starts_with("<command line>: --mtu: "));
        assert_eq!(Scheme::parse("all").unwrap(), Scheme::ALL.to_vec());
        assert_eq!(Scheme::parse("Bifrost").unwrap(), vec![Scheme::Bifrost]);
        assert!(Scheme::parse("irn")
            .unwrap_err()
            .to_string()
            .contains("--scheme: 'irn'"));
        assert_eq!(parse_slot("10us").unwrap(), DEFAULT_SLOT);
        assert!(parse_slot("0us").is_err());
        assert!(parse_slot("10").unwrap_err().to_string().contains("--slot"));
    }

    #[test]
    fn formatting() {
        let slow = LongLink::new(Rate(1), 0.000_1, DEFAULT_MTU).unwrap();
        let r = report(&slow, &[], DEFAULT_SLOT, 1);
        assert!(
            r.starts_with("long link: 1bps (R = 0.000000000125 GB/s), 0.0001 km of fibre"),
            "{r}"
        );
        let r = report(&link(100, 80.0), &Scheme::ALL, DEFAULT_SLOT, 1);
        assert!(r.starts_with("long link: 100Gbps (R = 12.5 GB/s), 80 km of fibre, D = 400us"));
        for s in ["PFC", "Swing", "Bifrost", "CBFC"] {
            assert!(r.contains(&format!("\n{s} (")), "{s}\n{r}");
        }
        // The paper's CBFC check is at 100 Gbps whatever the link's rate.
        let r = report(&link(400, 80.0), &[Scheme::Cbfc], DEFAULT_SLOT, 1);
        assert!(r.contains("full rate up to 0.524 km at 400Gbps"), "{r}");
        assert!(
            r.contains("(4096 × 64 B vs 125 KB per km at 100 Gbps) gives 2.097 km\n"),
            "{r}"
        );
        let r = report(&link(100, 80.0), &[Scheme::Swing], DEFAULT_SLOT, 1);
        assert!(!r.contains("PFC (") && r.contains("Swing ("));
    }
}
