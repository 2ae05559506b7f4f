//! Physical units and the parsers for their written-out forms.
//!
//! Config files write units out (rdmasim's choice): `"100Gbps"`, `"1us"`,
//! `"32MiB"`, `"80km"`. The parsers here return a plain message on failure;
//! loaders wrap it in an [`InputError`](crate::InputError) naming file, line
//! and field.

use crate::Delta;
use std::fmt;

/// Propagation delay of light in fibre, 5 µs per km (Swing §2.2, §6.1;
/// Bifrost §VI-A: 80 km is 400 µs).
pub const FIBRE_PS_PER_KM: u64 = 5_000_000;

/// The longest time or duration an input may give: 10^6 s (about 11.6
/// days), 10^18 ps. The clock counts picoseconds in a `u64` (up to about
/// 1.8 × 10^19, 213 days); the margin keeps the sum of a few input times
/// (a start, a delay, a timer period) from overflowing it.
pub const MAX_INPUT_PS: u64 = 1_000_000_000_000_000_000;

/// `v` units of `ps_per_unit` picoseconds each, rounded to a whole
/// picosecond; `None` if that is above [`MAX_INPUT_PS`]. (`v` is not
/// negative: the callers say so in their own words first.)
pub fn input_ps(v: f64, ps_per_unit: f64) -> Option<u64> {
    let ps = (v * ps_per_unit).round();
    (ps <= MAX_INPUT_PS as f64).then_some(ps as u64)
}

/// The highest rate an input may give, 100 Tb/s: a 64 B frame still takes
/// 5 ps on the wire (faster links would serialise frames in no time).
pub const MAX_RATE_BPS: u64 = 100_000_000_000_000;

/// The largest size an input may give, 2^53 bytes (9 PB): sizes stay exact
/// as `f64`, and sums of a few of them stay below `u64::MAX`.
pub const MAX_BYTES: u64 = 1 << 53;

/// What an error says of a time above [`MAX_INPUT_PS`].
pub const MAX_INPUT_TIME: &str = "1000000s (about 11.6 days)";

/// A data rate in bits per second.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(pub u64);

impl Rate {
    /// Rate from Gb/s.
    pub const fn gbps(g: u64) -> Rate {
        Rate(g * 1_000_000_000)
    }
    /// Rate from Mb/s.
    pub const fn mbps(m: u64) -> Rate {
        Rate(m * 1_000_000)
    }
    /// Bits per second.
    pub const fn bps(self) -> u64 {
        self.0
    }
    /// Picoseconds per byte when that is a whole number below 2^32 (e.g. 80
    /// at 100 Gb/s, 20 at 400 Gb/s): then [`Rate::tx_time`] of `b` bytes is
    /// exactly `b` times it, with nothing to round, and a caller that
    /// keeps it multiplies instead of dividing per frame.
    pub fn ps_per_byte(self) -> Option<u32> {
        const PS_BITS: u64 = 8_000_000_000_000;
        if self.0 == 0 || !PS_BITS.is_multiple_of(self.0) {
            return None;
        }
        u32::try_from(PS_BITS / self.0).ok()
    }

    /// Time to serialise `bytes` at this rate, rounded up to a picosecond.
    #[inline]
    pub fn tx_time(self, bytes: u64) -> Delta {
        debug_assert!(self.0 > 0);
        // Frames are small: the product fits in 64 bits (up to ~2.3 MB), and
        // a 64-bit division is several times cheaper than a 128-bit one.
        const MAX_FAST: u64 = u64::MAX / 8_000_000_000_000;
        if bytes <= MAX_FAST {
            return Delta((bytes * 8_000_000_000_000).div_ceil(self.0));
        }
        let bits_ps = bytes as u128 * 8 * 1_000_000_000_000;
        Delta(bits_ps.div_ceil(self.0 as u128) as u64)
    }
    /// Bytes this rate carries in `d` (rounded down).
    pub fn bytes_in(self, d: Delta) -> u64 {
        (self.0 as u128 * d.0 as u128 / 8 / 1_000_000_000_000) as u64
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        if b.is_multiple_of(1_000_000_000) {
            write!(f, "{}Gbps", b / 1_000_000_000)
        } else if b.is_multiple_of(1_000_000) {
            write!(f, "{}Mbps", b / 1_000_000)
        } else if b.is_multiple_of(1_000) {
            write!(f, "{}Kbps", b / 1_000)
        } else {
            write!(f, "{b}bps")
        }
    }
}

fn split_number(s: &str) -> Result<(f64, &str), String> {
    let s = s.trim();
    let end = s
        .find(|c: char| {
            !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+')
        })
        .unwrap_or(s.len());
    // "1e3" is a number but "1ebps" is not; back off a trailing 'e'.
    let (mut num, mut unit) = s.split_at(end);
    if num.ends_with(['e', 'E']) {
        num = &num[..num.len() - 1];
        unit = &s[num.len()..];
    }
    let v: f64 = num
        .parse()
        .map_err(|_| format!("'{s}' does not start with a number"))?;
    if !v.is_finite() {
        return Err(format!("'{s}' is not a finite number"));
    }
    Ok((v, unit.trim()))
}

/// Parse a rate: `100Gbps`, `100Gb/s`, `20Mb/s`, `1.5Tbps`, `400G`, or in
/// bytes per second `12.5GBps`, `12.5GB/s`. Must be positive and have a
/// unit.
///
/// As in ns-3's `DataRate`, whose strings the peer's files hold, a lower
/// case `b` counts bits and an upper case `B` bytes; the prefix (`k`, `M`,
/// `G`, `T`) may be either case, and a prefix alone means bits. A bare
/// number is refused: ns-3 would read it as bits per second, which no one
/// writing `100` for a link means.
pub fn parse_rate(s: &str) -> Result<Rate, String> {
    let (v, unit) = split_number(s)?;
    let mut chars = unit.chars();
    let (scale, per_second) = match chars.next().map(|c| c.to_ascii_lowercase()) {
        Some('k') => (1e3, chars.as_str()),
        Some('m') => (1e6, chars.as_str()),
        Some('g') => (1e9, chars.as_str()),
        Some('t') => (1e12, chars.as_str()),
        _ => (1.0, unit),
    };
    let bits_per = match per_second {
        "bps" | "b/s" => 1.0,
        "Bps" | "B/s" => 8.0,
        "" if scale > 1.0 => 1.0,
        "" => return Err(format!("rate '{s}' needs a unit (e.g. \"100Gbps\")")),
        _ => {
            return Err(format!(
                "unknown rate unit in '{s}' (write e.g. \"100Gbps\", \"20Mb/s\", or \"12.5GBps\" \
                 for bytes per second)"
            ))
        }
    };
    let mult = scale * bits_per;
    let bps = (v * mult).round();
    if bps <= 0.0 {
        return Err(format!("rate '{s}' must be greater than zero"));
    }
    if bps > MAX_RATE_BPS as f64 {
        return Err(format!(
            "rate '{s}' is too high: at most 100Tbps (the clock counts picoseconds; a 64 B \
             frame takes 5 ps at that rate)"
        ));
    }
    Ok(Rate(bps as u64))
}

/// [`parse_rate`], where a bare number counts bits per second: the rates
/// of the peer config's `KMAX_MAP`, `KMIN_MAP` and `PMAX_MAP`, which its
/// scripts write as `100000000000`.
pub fn parse_rate_or_bps(s: &str) -> Result<Rate, String> {
    match split_number(s) {
        Ok((_, "")) => parse_rate(&format!("{}bps", s.trim())),
        _ => parse_rate(s),
    }
}

/// Parse a duration: `1us`, `1000ns`, `0.001ms`, `2s`, `500ps`.
pub fn parse_time(s: &str) -> Result<Delta, String> {
    let (v, unit) = split_number(s)?;
    let mult = match unit {
        "ps" => 1.0,
        "ns" => 1e3,
        "us" | "µs" => 1e6,
        "ms" => 1e9,
        "s" => 1e12,
        "" => return Err(format!("'{s}' needs a unit (ps, ns, us, ms, s)")),
        _ => {
            return Err(format!(
                "unknown time unit in '{s}' (use ps, ns, us, ms or s)"
            ))
        }
    };
    if v < 0.0 {
        return Err(format!("duration '{s}' must not be negative"));
    }
    input_ps(v, mult)
        .map(Delta)
        .ok_or_else(|| format!("duration '{s}' is too long: at most {MAX_INPUT_TIME}"))
}

/// Parse a size in bytes: `32MiB`, `4KiB`, `1500B`, `9.72MB`, or a bare number
/// of bytes. `KB`/`MB`/`GB` are decimal, `KiB`/`MiB`/`GiB` binary.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let (v, unit) = split_number(s)?;
    let mult = match unit {
        "" | "B" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        _ => {
            return Err(format!(
                "unknown size unit in '{s}' (use B, KB, MB, GB, KiB, MiB or GiB)"
            ))
        }
    };
    if v < 0.0 {
        return Err(format!("size '{s}' must not be negative"));
    }
    let bytes = (v * mult).round();
    if bytes > MAX_BYTES as f64 {
        return Err(format!(
            "size '{s}' is too large: at most 2^53 bytes (9 PB)"
        ));
    }
    Ok(bytes as u64)
}

/// Parse a link's delay, given either as a duration or as a fibre length
/// (`80km`, `600km`, `500m`) at [`FIBRE_PS_PER_KM`].
pub fn parse_delay_or_length(s: &str) -> Result<Delta, String> {
    let (v, unit) = split_number(s)?;
    let km = match unit {
        "km" => v,
        "m" => v / 1000.0,
        _ => return parse_time(s),
    };
    if km < 0.0 {
        return Err(format!("length '{s}' must not be negative"));
    }
    input_ps(km, FIBRE_PS_PER_KM as f64)
        .map(Delta)
        .ok_or_else(|| {
            format!("length '{s}' is too long: its delay must be at most {MAX_INPUT_TIME}")
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ps_per_byte_gives_tx_time_exactly() {
        assert_eq!(Rate::gbps(100).ps_per_byte(), Some(80));
        assert_eq!(Rate::gbps(400).ps_per_byte(), Some(20));
        assert_eq!(Rate::gbps(3).ps_per_byte(), None);
        assert_eq!(Rate(1).ps_per_byte(), None, "8e12 does not fit u32");
        assert_eq!(Rate(0).ps_per_byte(), None);
        for r in [
            Rate::gbps(1),
            Rate::gbps(10),
            Rate::gbps(25),
            Rate::gbps(100),
            Rate::gbps(400),
            Rate::gbps(800),
            Rate::mbps(2),
            Rate(8_000_000_000_000),
        ] {
            let k = u64::from(r.ps_per_byte().expect("exact"));
            for b in [
                0,
                1,
                64,
                1048,
                9000,
                2_300_000,
                2_400_000,
                u64::from(u32::MAX),
            ] {
                assert_eq!(r.tx_time(b), Delta(b * k), "{r:?} {b}");
            }
        }
    }

    #[test]
    fn rates() {
        assert_eq!(parse_rate("100Gbps").unwrap(), Rate::gbps(100));
        assert_eq!(parse_rate("20Mb/s").unwrap(), Rate::mbps(20));
        assert_eq!(parse_rate("1000Mb/s").unwrap(), Rate::gbps(1));
        assert_eq!(parse_rate("400G").unwrap(), Rate::gbps(400));
        assert!(parse_rate("0Gbps").is_err());
        assert!(parse_rate("-5Gbps").is_err());
        assert!(parse_rate("fast").is_err());
        assert!(parse_rate("10furlongs").is_err());
        // ns-3's `DataRate`: `B` is bytes, `b` bits, the prefix either case.
        assert_eq!(parse_rate("12.5GBps").unwrap(), Rate::gbps(100));
        assert_eq!(parse_rate("12.5GB/s").unwrap(), Rate::gbps(100));
        assert_eq!(parse_rate("100gbps").unwrap(), Rate::gbps(100));
        assert_eq!(parse_rate("125kBps").unwrap(), Rate::mbps(1));
        assert_eq!(parse_rate("8bps").unwrap(), parse_rate("1Bps").unwrap());
        assert!(parse_rate("100GBPS")
            .unwrap_err()
            .contains("unknown rate unit"));
        // A bare number is not taken as bits per second, except where the
        // peer writes one.
        assert!(parse_rate("100").unwrap_err().contains("needs a unit"));
        assert_eq!(parse_rate_or_bps("100000000000").unwrap(), Rate::gbps(100));
        assert_eq!(parse_rate_or_bps("25Gbps").unwrap(), Rate::gbps(25));
        assert!(parse_rate_or_bps("0").is_err());
    }

    #[test]
    fn times_and_lengths() {
        assert_eq!(parse_time("1000ns").unwrap(), Delta::from_us(1));
        assert_eq!(parse_time("0.001ms").unwrap(), Delta::from_us(1));
        assert!(parse_time("5").is_err());
        assert_eq!(parse_delay_or_length("80km").unwrap(), Delta::from_us(400));
        assert_eq!(parse_delay_or_length("2us").unwrap(), Delta::from_us(2));
        // Beyond what the clock can add up safely: an error, not a wrap.
        assert_eq!(
            parse_time("1000000s").unwrap(),
            Delta(MAX_INPUT_PS),
            "the limit itself is allowed"
        );
        let e = parse_time("1e9s").unwrap_err();
        assert!(e.contains("too long") && e.contains("1000000s"), "{e}");
        assert!(parse_delay_or_length("1e12km").is_err());
    }

    #[test]
    fn limits() {
        assert_eq!(parse_rate("100Tbps").unwrap(), Rate(MAX_RATE_BPS));
        let e = parse_rate("1e30Gbps").unwrap_err();
        assert!(e.contains("too high"), "{e}");
        assert!(parse_rate("101Tbps").is_err());
        assert_eq!(parse_bytes("9007199254740992").unwrap(), MAX_BYTES);
        let e = parse_bytes("1e30MiB").unwrap_err();
        assert!(e.contains("too large"), "{e}");
        assert!(parse_bytes("18446744073709551616B").is_err());
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_bytes("32MiB").unwrap(), 32 * 1024 * 1024);
        assert_eq!(parse_bytes("4KiB").unwrap(), 4096);
        assert_eq!(parse_bytes("9.72MB").unwrap(), 9_720_000);
        assert_eq!(parse_bytes("1500").unwrap(), 1500);
    }

    #[test]
    fn serialisation_time() {
        // 1048 B at 100 Gb/s = 83.84 ns; at 400 Gb/s = 20.96 ns.
        assert_eq!(Rate::gbps(100).tx_time(1048), Delta(83_840));
        assert_eq!(Rate::gbps(400).tx_time(1048), Delta(20_960));
        assert_eq!(Rate::gbps(100).bytes_in(Delta::from_us(1)), 12_500);
    }
}
