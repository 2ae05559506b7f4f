//! Simulated time: integer picoseconds, never floating point (rdmasim's
//! choice, as htsim's `simtime_picosec`).
//!
//! One byte at 400 Gb/s lasts 20 ps, so picoseconds keep serialisation
//! exact at every rate the papers use; `u64` picoseconds reach 213 days.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// A point in simulated time, in picoseconds since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

/// A span of simulated time, in picoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Delta(pub u64);

impl Time {
    /// The start of the simulation.
    pub const ZERO: Time = Time(0);
    /// A time after every event of any run.
    pub const MAX: Time = Time(u64::MAX);

    /// Picoseconds since the start.
    pub const fn ps(self) -> u64 {
        self.0
    }
    /// Whole nanoseconds since the start (truncated), as the peer prints times.
    pub const fn ns(self) -> u64 {
        self.0 / 1_000
    }
    /// Seconds as a float, for reports only.
    pub fn secs_f64(self) -> f64 {
        self.0 as f64 * 1e-12
    }
    /// Time from nanoseconds.
    pub const fn from_ns(ns: u64) -> Time {
        Time(ns * 1_000)
    }
    /// The span from `earlier` to `self`; zero if `earlier` is later.
    pub fn since(self, earlier: Time) -> Delta {
        Delta(self.0.saturating_sub(earlier.0))
    }
}

impl Delta {
    /// No time at all.
    pub const ZERO: Delta = Delta(0);
    /// Span from picoseconds.
    pub const fn from_ps(ps: u64) -> Delta {
        Delta(ps)
    }
    /// Span from nanoseconds.
    pub const fn from_ns(ns: u64) -> Delta {
        Delta(ns * 1_000)
    }
    /// Span from microseconds.
    pub const fn from_us(us: u64) -> Delta {
        Delta(us * 1_000_000)
    }
    /// Span from milliseconds.
    pub const fn from_ms(ms: u64) -> Delta {
        Delta(ms * 1_000_000_000)
    }
    /// Picoseconds in this span.
    pub const fn ps(self) -> u64 {
        self.0
    }
    /// Whole nanoseconds (truncated).
    pub const fn ns(self) -> u64 {
        self.0 / 1_000
    }
    /// Seconds as a float, for reports only.
    pub fn secs_f64(self) -> f64 {
        self.0 as f64 * 1e-12
    }
}

impl Add<Delta> for Time {
    type Output = Time;
    fn add(self, d: Delta) -> Time {
        Time(self.0 + d.0)
    }
}
impl AddAssign<Delta> for Time {
    fn add_assign(&mut self, d: Delta) {
        self.0 += d.0;
    }
}
impl Sub<Time> for Time {
    type Output = Delta;
    fn sub(self, t: Time) -> Delta {
        debug_assert!(self.0 >= t.0, "time went backwards: {} - {}", self.0, t.0);
        Delta(self.0 - t.0)
    }
}
impl Add for Delta {
    type Output = Delta;
    fn add(self, d: Delta) -> Delta {
        Delta(self.0 + d.0)
    }
}
impl AddAssign for Delta {
    fn add_assign(&mut self, d: Delta) {
        self.0 += d.0;
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_ps(self.0, f)
    }
}
impl fmt::Display for Delta {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_ps(self.0, f)
    }
}

fn fmt_ps(ps: u64, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let (v, unit) = if ps >= 1_000_000_000_000 {
        (ps as f64 / 1e12, "s")
    } else if ps >= 1_000_000_000 {
        (ps as f64 / 1e9, "ms")
    } else if ps >= 1_000_000 {
        (ps as f64 / 1e6, "us")
    } else if ps >= 1_000 {
        (ps as f64 / 1e3, "ns")
    } else {
        (ps as f64, "ps")
    };
    write!(f, "{v}{unit}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_and_display() {
        let t = Time::from_ns(5) + Delta::from_us(1);
        assert_eq!(t.ps(), 1_005_000);
        assert_eq!(t - Time::from_ns(5), Delta::from_us(1));
        assert_eq!(Delta::from_us(3).to_string(), "3us");
        assert_eq!(Time(1500).to_string(), "1.5ns");
        assert_eq!(Time::from_ns(2).since(Time::from_ns(9)), Delta::ZERO);
    }
}
