//! The kinds of value a congestion control's parameter takes ([`Param`]):
//! how rdmasim's TOML writes each, how the peer's `config.txt` writes it,
//! and how `rdmasim config --defaults` prints it, so that one parameter
//! is checked alike wherever it is read.

use super::ctx::{Ctx, R};
use crate::fmt::{fmt_bytes, fmt_delta};
use engine::units::{input_ps, parse_rate, MAX_BYTES, MAX_INPUT_TIME};
use engine::{Delta, Rate};

/// One kind of parameter value.
pub(super) trait Param {
    /// What a TOML config holds.
    type Toml;
    /// What the network's config holds.
    type Value;
    /// The value a TOML config gives at `path`, checked.
    fn from_toml(cx: &Ctx<'_>, path: &str, v: &Self::Toml) -> R<Self::Value>;
    /// The value the peer's config gives (the one word after its key),
    /// checked; the error says what is wrong, the caller where.
    fn from_peer(v: &str) -> Result<Self::Value, String>;
    /// The value as `rdmasim config --defaults` writes it.
    fn show(v: &Self::Value) -> String;
}

/// A duration above zero: `"300us"`; the peer's, in microseconds.
pub(super) struct Duration;
/// A rate: `"50Mbps"`, as the peer writes it too (`50Mb/s`).
pub(super) struct LinkRate;
/// A fraction in (0, 1].
pub(super) struct Fraction;
/// A number above 1.
pub(super) struct AboveOne;
/// A count (u32); the peer's, a whole number.
pub(super) struct Count;
/// A switch: `true`/`false`; the peer's, `1`/`0`.
pub(super) struct Flag;
/// A size above zero: `"1500B"`; the peer's, in bytes.
pub(super) struct Bytes;

/// A number of the peer's config.
fn peer_number(v: &str) -> Result<f64, String> {
    v.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .ok_or_else(|| format!("'{v}' is not a number"))
}

impl Param for Duration {
    type Toml = String;
    type Value = Delta;
    fn from_toml(cx: &Ctx<'_>, path: &str, v: &String) -> R<Delta> {
        cx.positive_time(path, v)
    }
    fn from_peer(v: &str) -> Result<Delta, String> {
        let us = peer_number(v)?;
        if us <= 0.0 {
            return Err("must be greater than zero (microseconds)".into());
        }
        input_ps(us, 1e6)
            .map(Delta)
            .ok_or_else(|| format!("must be at most 1e12 microseconds ({MAX_INPUT_TIME})"))
    }
    fn show(v: &Delta) -> String {
        format!("\"{}\"", fmt_delta(*v))
    }
}

impl Param for LinkRate {
    type Toml = String;
    type Value = Rate;
    fn from_toml(cx: &Ctx<'_>, path: &str, v: &String) -> R<Rate> {
        cx.rate(path, v)
    }
    fn from_peer(v: &str) -> Result<Rate, String> {
        parse_rate(v)
    }
    fn show(v: &Rate) -> String {
        format!("\"{v}\"")
    }
}

impl Param for Fraction {
    type Toml = f64;
    type Value = f64;
    fn from_toml(cx: &Ctx<'_>, path: &str, v: &f64) -> R<f64> {
        cx.fraction(path, *v, false)
    }
    fn from_peer(v: &str) -> Result<f64, String> {
        let x = peer_number(v)?;
        if !(x > 0.0 && x <= 1.0) {
            return Err("must be in (0, 1]".into());
        }
        Ok(x)
    }
    fn show(v: &f64) -> String {
        format!("{v:?}")
    }
}

impl Param for AboveOne {
    type Toml = f64;
    type Value = f64;
    fn from_toml(cx: &Ctx<'_>, path: &str, v: &f64) -> R<f64> {
        if !(v.is_finite() && *v > 1.0) {
            return Err(cx.err(path, format!("{v} must be greater than 1")));
        }
        Ok(*v)
    }
    fn from_peer(v: &str) -> Result<f64, String> {
        let x = peer_number(v)?;
        if x <= 1.0 {
            return Err("must be greater than 1".into());
        }
        Ok(x)
    }
    fn show(v: &f64) -> String {
        format!("{v:?}")
    }
}

impl Param for Count {
    type Toml = u32;
    type Value = u32;
    fn from_toml(_: &Ctx<'_>, _: &str, v: &u32) -> R<u32> {
        Ok(*v)
    }
    fn from_peer(v: &str) -> Result<u32, String> {
        let x = peer_number(v)?;
        if x < 0.0 || x.fract() != 0.0 || x > f64::from(u32::MAX) {
            return Err(format!("must be a whole number from 0 to {}", u32::MAX));
        }
        Ok(x as u32)
    }
    fn show(v: &u32) -> String {
        v.to_string()
    }
}

impl Param for Flag {
    type Toml = bool;
    type Value = bool;
    fn from_toml(_: &Ctx<'_>, _: &str, v: &bool) -> R<bool> {
        Ok(*v)
    }
    fn from_peer(v: &str) -> Result<bool, String> {
        match v {
            "0" => Ok(false),
            "1" => Ok(true),
            _ => Err(format!("'{v}' must be 0 or 1")),
        }
    }
    fn show(v: &bool) -> String {
        v.to_string()
    }
}

impl Param for Bytes {
    type Toml = String;
    type Value = u64;
    fn from_toml(cx: &Ctx<'_>, path: &str, v: &String) -> R<u64> {
        cx.positive_bytes(path, v)
    }
    fn from_peer(v: &str) -> Result<u64, String> {
        let x = peer_number(v)?;
        if !(1.0..=MAX_BYTES as f64).contains(&x) {
            return Err("must be from 1 byte to 2^53 bytes".into());
        }
        Ok(x as u64)
    }
    fn show(v: &u64) -> String {
        format!("\"{}\"", fmt_bytes(*v))
    }
}

/// Store `v` in `slot`, which may hold it as it is or as `Some(v)` (the
/// parameters whose default is worked out when the QP starts).
pub(super) fn set<T, S: From<T>>(slot: &mut S, v: T) {
    *slot = S::from(v);
}
