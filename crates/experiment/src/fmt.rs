//! Numbers as rdmasim writes them, and read back: one function per
//! format, used by every report, table and message.
//!
//! Three families: the way a config writes a value (`fmt_delta`,
//! `fmt_bytes`: `"300us"`, `"32MiB"`, which parse back to the same value),
//! values for people (`fmt_time`, `fmt_count`, `fmt_size`, rounded), and
//! cells of tables and CSV files (`num`, `pct`, `csv_field`).

use engine::{Delta, Time};

/// A duration as a config writes it: in the largest unit that divides it
/// (`1us`, `300us`, `500ps`), so that it parses back to the same value.
pub fn fmt_delta(d: Delta) -> String {
    let ps = d.ps();
    for (unit, scale) in [
        ("s", 1_000_000_000_000u64),
        ("ms", 1_000_000_000),
        ("us", 1_000_000),
        ("ns", 1_000),
    ] {
        if ps != 0 && ps.is_multiple_of(scale) {
            return format!("{}{unit}", ps / scale);
        }
    }
    format!("{ps}ps")
}

/// A size as a config writes it: in the largest binary unit that divides
/// it, else bytes (`32MiB`, `4KiB`, `1000B`), so that it parses back to
/// the same value.
pub fn fmt_bytes(b: u64) -> String {
    for (unit, scale) in [("GiB", 1u64 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)] {
        if b != 0 && b.is_multiple_of(scale) {
            return format!("{}{unit}", b / scale);
        }
    }
    format!("{b}B")
}

/// A size to the byte, then in both units for people:
/// `10,003,064 B (10.003 MB, 9.540 MiB)`.
pub fn fmt_bytes_exact(b: u64) -> String {
    format!(
        "{} B ({:.3} MB, {:.3} MiB)",
        fmt_thousands(b),
        b as f64 / 1e6,
        b as f64 / (1024.0 * 1024.0)
    )
}

/// A whole number with its thousands separated: `1,234,567`.
pub fn fmt_thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A size for people, in decimal units to one place: `950B`, `12.3KB`,
/// `1.5MB`.
pub fn fmt_size(b: u64) -> String {
    let f = b as f64;
    if f < 1e3 {
        format!("{b}B")
    } else if f < 1e6 {
        format!("{:.1}KB", f / 1e3)
    } else if f < 1e9 {
        format!("{:.1}MB", f / 1e6)
    } else {
        format!("{:.1}GB", f / 1e9)
    }
}

/// A simulated time for people: `850ns`, `12.3us`, `1.23ms`, `2.000s`.
pub fn fmt_time(t: Time) -> String {
    let ps = t.ps() as f64;
    if ps < 1e6 {
        format!("{}ns", t.ns())
    } else if ps < 1e9 {
        format!("{:.1}us", ps / 1e6)
    } else if ps < 1e12 {
        format!("{:.2}ms", ps / 1e9)
    } else {
        format!("{:.3}s", ps / 1e12)
    }
}

/// A simulated time given in nanoseconds, as [`fmt_time`] writes it.
pub fn fmt_ns(ns: u64) -> String {
    fmt_time(Time::from_ns(ns))
}

/// A count for people: `812`, `12.3k`, `4.1M`, `2.0G`.
pub fn fmt_count(n: f64) -> String {
    if n < 1e3 {
        format!("{n:.0}")
    } else if n < 1e6 {
        format!("{:.1}k", n / 1e3)
    } else if n < 1e9 {
        format!("{:.1}M", n / 1e6)
    } else {
        format!("{:.1}G", n / 1e9)
    }
}

/// A number without trailing zeros (`12.5`, `80`, `7.5`), to six places,
/// or to six significant digits below 0.1 (a 1 bps link's rate in GB/s is
/// `0.000000000125`, not `0`). Six places also hide float noise: `3 * 0.1`
/// prints as `0.3`.
pub fn fmt_decimal(v: f64) -> String {
    let decimals = if v > 0.0 && v < 1.0 {
        6 + (-v.log10().floor() as usize).saturating_sub(1)
    } else {
        6
    };
    let s = format!("{v:.decimals$}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// A cell of a table: `x` to `digits` places, or `missing` when `x` is not
/// a finite number (an empty group's mean, say).
pub fn num(x: f64, digits: usize, missing: &str) -> String {
    if x.is_finite() {
        format!("{x:.digits$}")
    } else {
        missing.to_string()
    }
}

/// A relative change as a signed percentage to `digits` places (`0.045`
/// → `+4.5%`), or `missing` when it is not a finite number.
pub fn pct(change: f64, digits: usize, missing: &str) -> String {
    if change.is_finite() {
        format!("{:+.digits$}%", change * 100.0)
    } else {
        missing.to_string()
    }
}

/// A CSV field, quoted (and its quotes doubled) if it holds a comma, a
/// quote or a line break.
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// An unsigned integer type a field of a file is read into.
pub(crate) trait Whole: TryFrom<u64> {
    /// Its largest value.
    const MAX: u64;
    /// Zero.
    const ZERO: Self;
}

macro_rules! whole {
    ($($t:ty),*) => {$(
        impl Whole for $t {
            const MAX: u64 = <$t>::MAX as u64;
            const ZERO: Self = 0;
        }
    )*};
}
whole!(u8, u16, u32, u64);

/// A whole number read from a file, into the field's type: a number too
/// large for it is an error saying the range allowed, never truncated.
pub(crate) fn parse_whole<T: Whole>(s: &str) -> Result<T, String> {
    let too_large = || format!("'{s}' is out of range (0 to {})", T::MAX);
    match s.trim().parse::<u64>() {
        Ok(v) => T::try_from(v).map_err(|_| too_large()),
        Err(e) if *e.kind() == std::num::IntErrorKind::PosOverflow => Err(too_large()),
        Err(_) => Err(format!("'{s}' is not a whole number")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_units_parse_back() {
        assert_eq!(fmt_delta(Delta::from_us(300)), "300us");
        assert_eq!(fmt_delta(Delta::from_ms(1000)), "1s");
        assert_eq!(fmt_delta(Delta(1500)), "1500ps");
        assert_eq!(fmt_bytes(32 << 20), "32MiB");
        assert_eq!(fmt_bytes(3072), "3KiB");
        assert_eq!(fmt_bytes(1000), "1000B");
        for d in [Delta::from_us(300), Delta(1500), Delta::from_ms(7)] {
            assert_eq!(engine::units::parse_time(&fmt_delta(d)), Ok(d));
        }
        for b in [32 << 20, 3072, 1000] {
            assert_eq!(engine::units::parse_bytes(&fmt_bytes(b)), Ok(b));
        }
    }

    #[test]
    fn human_units() {
        assert_eq!(fmt_time(Time(850_000)), "850ns");
        assert_eq!(fmt_time(Time(1_230_000_000)), "1.23ms");
        assert_eq!(fmt_time(Time(2_000_000_000_000)), "2.000s");
        assert_eq!(fmt_count(812.0), "812");
        assert_eq!(fmt_count(12_300_000.0), "12.3M");
        assert_eq!(fmt_size(950), "950B");
        assert_eq!(fmt_size(12_345), "12.3KB");
        assert_eq!(fmt_thousands(0), "0");
        assert_eq!(fmt_thousands(999), "999");
        assert_eq!(fmt_thousands(1000), "1,000");
        assert_eq!(fmt_thousands(10_003_064), "10,003,064");
        assert_eq!(
            fmt_bytes_exact(10_000_000),
            "10,000,000 B (10.000 MB, 9.537 MiB)"
        );
        assert_eq!(fmt_decimal(12.5), "12.5");
        assert_eq!(fmt_decimal(80.0), "80");
        assert_eq!(fmt_decimal(0.3125), "0.3125");
        assert_eq!(fmt_decimal(0.000_000_000_125), "0.000000000125");
        assert_eq!(fmt_decimal(3.0 * 0.1), "0.3");
        assert_eq!(fmt_decimal(0.0), "0");
    }

    #[test]
    fn table_cells() {
        assert_eq!(num(1.234, 2, "-"), "1.23");
        assert_eq!(num(f64::NAN, 2, "-"), "-");
        assert_eq!(num(f64::INFINITY, 0, ""), "");
        assert_eq!(pct(0.045, 1, ""), "+4.5%");
        assert_eq!(pct(-0.59, 0, "n/a"), "-59%");
        assert_eq!(pct(f64::NAN, 0, "n/a"), "n/a");
        assert_eq!(csv_field("a"), "a");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"x\""), "\"say \"\"x\"\"\"");
        assert_eq!(csv_field("two\nlines"), "\"two\nlines\"");
    }

    #[test]
    fn whole_numbers_fit_their_field() {
        assert_eq!(parse_whole::<u16>("65535"), Ok(65535));
        assert_eq!(
            parse_whole::<u16>("65536"),
            Err("'65536' is out of range (0 to 65535)".to_string())
        );
        assert_eq!(
            parse_whole::<u64>("99999999999999999999"),
            Err(format!(
                "'99999999999999999999' is out of range (0 to {})",
                u64::MAX
            ))
        );
        assert_eq!(
            parse_whole::<u32>("4.5"),
            Err("'4.5' is not a whole number".to_string())
        );
    }
}
