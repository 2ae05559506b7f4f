//! The peer's queue-length monitor (`QLEN_MON_*`, HPCC sim `third.cc`
//! `monitor_buffer`): every 100 ns between start and end, each switch port's
//! egress bytes (all classes) are binned in 1 KB steps, and every 100 ms of
//! simulated time the cumulative histograms are written as a block
//! `time: <ns>` followed by `switch port cnt_0 cnt_1 ...` lines.
//!
//! Sampling every 100 ns would cost an event per 100 ns; rdmasim gets the
//! same counts exactly by integrating: when a port's queue changes at t, the
//! samples in (last change, t] all saw the old value, and their number is a
//! division. A sample at the instant of a change sees the value before it.
//! The value itself is the port's `queue_bytes`: a change passes the old
//! one, a dump reads the current one, so before the first sample (the
//! peer's configs put it after the run) a change costs one comparison.

use engine::{Delta, Time};
use std::fmt::Write as _;

/// Monitor window and steps.
#[derive(Clone, Debug, PartialEq)]
pub struct QlenMonitorConfig {
    /// First sample (the peer's `QLEN_MON_START`).
    pub start: Time,
    /// Sampling continues while the previous sample was before this
    /// (`QLEN_MON_END`).
    pub end: Time,
    /// Between samples: 100 ns in the peer.
    pub interval: Delta,
    /// Histograms are written at sample times that are multiples of this:
    /// 100 ms in the peer.
    pub dump_every: Delta,
}

#[derive(Debug, Default)]
struct PortHist {
    /// Time of the last change credited (before `start` if none yet).
    last: Time,
    cnt: Vec<u32>,
}

/// Monitor state of a run.
#[derive(Debug)]
pub(crate) struct QlenMonitor {
    cfg: QlenMonitorConfig,
    /// Samples at start + k·interval for k in 0..=k_max.
    k_max: u64,
    /// Per global port id; `None` for host ports.
    ports: Vec<Option<PortHist>>,
    /// (switch node, port id, if_index) in output order.
    order: Vec<(u32, u32, u32)>,
    next_dump: Option<Time>,
    pub(crate) text: String,
}

impl QlenMonitor {
    pub(crate) fn new(
        cfg: QlenMonitorConfig,
        switch_ports: Vec<(u32, u32, u32)>,
        n_ports: usize,
    ) -> QlenMonitor {
        let iv = cfg.interval.ps().max(1);
        let span = cfg.end.ps().saturating_sub(cfg.start.ps());
        let k_max = span.div_ceil(iv);
        let mut ports: Vec<Option<PortHist>> = (0..n_ports).map(|_| None).collect();
        for &(_, p, _) in &switch_ports {
            ports[p as usize] = Some(PortHist {
                last: Time(cfg.start.ps().saturating_sub(1)),
                ..PortHist::default()
            });
        }
        let mut m = QlenMonitor {
            cfg,
            k_max,
            ports,
            order: switch_ports,
            next_dump: None,
            text: String::new(),
        };
        m.next_dump = m.dump_after(None);
        m
    }

    /// Samples taken at or before `t`.
    fn samples_until(&self, t: Time) -> u64 {
        if t < self.cfg.start {
            return 0;
        }
        ((t.ps() - self.cfg.start.ps()) / self.cfg.interval.ps().max(1)).min(self.k_max) + 1
    }

    fn last_sample(&self) -> Time {
        Time(self.cfg.start.ps() + self.k_max * self.cfg.interval.ps())
    }

    /// The first dump time after `prev` (or the first at all): a sample time
    /// that is a multiple of `dump_every`.
    pub(crate) fn dump_after(&self, prev: Option<Time>) -> Option<Time> {
        let every = self.cfg.dump_every.ps().max(1);
        let iv = self.cfg.interval.ps().max(1);
        let from = prev.map_or(self.cfg.start.ps(), |p| p.ps() + 1);
        let mut d = from.div_ceil(every) * every;
        while d <= self.last_sample().ps() {
            if d >= self.cfg.start.ps() && (d - self.cfg.start.ps()).is_multiple_of(iv) {
                return Some(Time(d));
            }
            d += every;
        }
        None
    }

    /// `port`'s queue, which held `old_bytes` since its last change, is
    /// about to change at `now`: credit the old value to the samples since.
    /// Before the first sample there is nothing to credit, and nothing to
    /// remember: the first credit or dump reads what the port holds then
    /// (the inline check keeps the peer's configs, whose window is after
    /// the run, from calling out at every enqueue and dequeue).
    #[inline]
    pub(crate) fn before_change(&mut self, port: u32, now: Time, old_bytes: u64) {
        if now < self.cfg.start {
            return;
        }
        self.credit(port, now, old_bytes);
    }

    /// [`QlenMonitor::before_change`] at or after the first sample.
    #[inline(never)]
    fn credit(&mut self, port: u32, now: Time, old_bytes: u64) {
        let n_new = self.samples_until(now);
        if let Some(h) = self.ports[port as usize].as_mut() {
            let n_old = {
                let t = h.last;
                if t < self.cfg.start {
                    0
                } else {
                    ((t.ps() - self.cfg.start.ps()) / self.cfg.interval.ps().max(1)).min(self.k_max)
                        + 1
                }
            };
            add(&mut h.cnt, old_bytes, n_new.saturating_sub(n_old));
            h.last = now;
        }
    }

    /// Write the block for dump time `t`; `bytes(port)` is what `port`'s
    /// queue holds now (since its last change).
    pub(crate) fn dump(&mut self, t: Time, bytes: impl Fn(u32) -> u64) {
        let n_now = self.samples_until(t);
        let _ = writeln!(self.text, "time: {}", t.ns());
        for &(node, port, if_index) in &self.order {
            let start = self.cfg.start;
            let iv = self.cfg.interval.ps().max(1);
            let k_max = self.k_max;
            let h = self.ports[port as usize].as_mut().expect("switch port");
            let n_old = if h.last < start {
                0
            } else {
                ((h.last.ps() - start.ps()) / iv).min(k_max) + 1
            };
            add(&mut h.cnt, bytes(port), n_now.saturating_sub(n_old));
            h.last = t;
            let _ = write!(self.text, "{node} {if_index}");
            for c in &h.cnt {
                let _ = write!(self.text, " {c}");
            }
            self.text.push('\n');
        }
        self.next_dump = self.dump_after(Some(t));
    }

    pub(crate) fn next_dump(&self) -> Option<Time> {
        self.next_dump
    }
}

/// `n` samples saw `bytes`: bin by 1 KB (1000 B) as the peer's QueueLenDist.
fn add(cnt: &mut Vec<u32>, bytes: u64, n: u64) {
    if n == 0 {
        return;
    }
    let kb = (bytes / 1000) as usize;
    if cnt.len() <= kb {
        cnt.resize(kb + 1, 0);
    }
    cnt[kb] += n as u32;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_are_counted_by_integration() {
        let cfg = QlenMonitorConfig {
            start: Time::from_ns(1000),
            end: Time::from_ns(2000),
            interval: Delta::from_ns(100),
            dump_every: Delta::from_ns(1000),
        };
        let mut m = QlenMonitor::new(cfg, vec![(9, 0, 1)], 1);
        // Samples at 1000, 1100, ..., 2000 ns: 11. Dumps at 1000 and 2000.
        assert_eq!(m.next_dump(), Some(Time::from_ns(1000)));
        // A change before the first sample credits nothing.
        m.before_change(0, Time::from_ns(500), 0);
        m.dump(Time::from_ns(1000), |_| 0);
        assert_eq!(m.text, "time: 1000\n9 1 1\n");
        // 2500 B queued from 1250 ns, emptied at 1650 ns.
        m.before_change(0, Time::from_ns(1250), 0);
        m.before_change(0, Time::from_ns(1650), 2500);
        m.dump(Time::from_ns(2000), |_| 0);
        // Samples 1300..1600 (4) saw 2.5 KB; the other 7 saw 0.
        assert!(m.text.ends_with("time: 2000\n9 1 7 0 4\n"), "{}", m.text);
        assert_eq!(m.next_dump(), None);
    }
}
