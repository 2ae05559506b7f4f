//! DCQCN across NIC generations (Azure §7.2, §2.12 of its failure list):
//! where each generation coalesces congestion notifications, and the
//! interoperability fix.
//!
//! - **Gen1** (firmware): the notification point (NP, the receiver)
//!   coalesces, sending at most one CNP per QP per interval, and the
//!   reaction point (RP, the sender) cuts its rate on every CNP.
//! - **Gen2 and Gen3** (hardware): the NP sends a CNP for every
//!   ECN-marked packet, and the RP coalesces, cutting at most once per
//!   window (rdmasim's DCQCN's rate-decrease check, `decrease_interval`).
//!
//! Mixed, a Gen1 RP hears a Gen2/3 NP's CNP per marked packet and cuts on
//! each: throughput collapses. The fix makes Gen2/3 behave like Gen1: a
//! per-QP CNP limiter at the NP with Gen1's interval, and the RP's window
//! at its minimum (a cut on every CNP).
//!
//! The paper gives neither Gen1's interval nor the minimal window: the
//! interval defaults to 50 µs (DCQCN §3, the NP algorithm: at most one CNP per 50 µs,
//! rdmasim's choice) and the minimal window is none at all.
//!
//! Two more traits of a generation's NIC live here:
//! - **Rate-limiting granularity** (Azure §7.2): Gen1 limits per burst of
//!   packets, Gen2/3 per packet, and the fix turns per-burst limiting on
//!   at Gen2/3. A burst of N packets leaves at line rate, then a gap keeps
//!   the average at the QP's rate ([`BurstPacer`]).
//! - **Gen1's loss recovery** (Azure §2.4: go-back-N in firmware, "hundreds
//!   of microseconds" to recover a lost packet): a Gen1 sender that hears
//!   a NACK resends from the lost packet only after its recovery time.
//!
//! - **Congestion leaking** (Azure §8.3, an optional bug mode): with the
//!   interop features on, a Gen2 NIC's firmware had a head-of-line block
//!   in its rate limiting, and every QP of the NIC ran at about the rate
//!   of its most congested one. A NIC of a generation listed in
//!   [`DcqcnFleet::congestion_leaking`] serves its QPs in strict rotation
//!   and waits for the next QP's rate limiter instead of passing it over
//!   (`nic/sched.rs`).
//!
//! (docs/dcqcn-generations.md.)

use engine::{Delta, Rate, Time};

/// A NIC generation's DCQCN behaviour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DcqcnGen {
    /// NP coalescing, RP cut on every CNP.
    Gen1,
    /// NP per marked packet, RP coalescing.
    Gen2,
    /// As Gen2.
    Gen3,
}

impl DcqcnGen {
    /// Every generation, by its config name.
    pub const ALL: [(&'static str, DcqcnGen); 3] = [
        ("gen1", DcqcnGen::Gen1),
        ("gen2", DcqcnGen::Gen2),
        ("gen3", DcqcnGen::Gen3),
    ];
}

/// Which hosts run which generation, and whether the fix is on. Hosts
/// not listed run rdmasim's DCQCN as configured.
#[derive(Clone, Debug, PartialEq)]
pub struct DcqcnFleet {
    /// (host, generation).
    pub hosts: Vec<(u32, DcqcnGen)>,
    /// Gen1's NP coalescing interval (and the fixed Gen2/3 limiter's).
    pub gen1_cnp_interval: Delta,
    /// The interoperability fix on Gen2/3 NICs.
    pub interop_fix: bool,
    /// Packets per burst of the rate limiter of Gen1, Gen2 and Gen3 (in
    /// [`DcqcnGen::ALL`]'s order); 1: per packet.
    pub burst_packets: [u32; 3],
    /// How long a Gen1 sender's go-back-N takes to start resending after a
    /// NACK; zero: at once.
    pub gen1_loss_recovery: Delta,
    /// The generations (in [`DcqcnGen::ALL`]'s order) whose NICs have the
    /// congestion-leaking bug: head-of-line blocking across the NIC's QPs
    /// at the rate limiter (Azure §8.3). None by default.
    pub congestion_leaking: [bool; 3],
}

impl DcqcnFleet {
    /// The generation of `host`, if listed.
    pub fn gen_of(&self, host: u32) -> Option<DcqcnGen> {
        self.hosts
            .iter()
            .find(|&&(h, _)| h == host)
            .map(|&(_, g)| g)
    }

    /// The least time between two CNPs of one QP from an NP of `g`;
    /// zero: one per marked packet.
    pub fn np_interval(&self, g: DcqcnGen) -> Delta {
        match g {
            DcqcnGen::Gen1 => self.gen1_cnp_interval,
            DcqcnGen::Gen2 | DcqcnGen::Gen3 if self.interop_fix => self.gen1_cnp_interval,
            DcqcnGen::Gen2 | DcqcnGen::Gen3 => Delta::ZERO,
        }
    }

    /// Whether an RP of `g` cuts its rate on every CNP (no window).
    pub fn rp_cuts_every_cnp(&self, g: DcqcnGen) -> bool {
        match g {
            DcqcnGen::Gen1 => true,
            DcqcnGen::Gen2 | DcqcnGen::Gen3 => self.interop_fix,
        }
    }

    /// The rate limiter's packets per burst at host `host`: 1 (per
    /// packet) unless listed with a burst.
    pub fn burst_of(&self, host: u32) -> u32 {
        match self.gen_of(host) {
            Some(g) => self.burst_packets[g as usize].max(1),
            None => 1,
        }
    }

    /// The go-back-N recovery time of a sender at host `host`: Gen1's, or
    /// zero.
    pub fn loss_recovery_of(&self, host: u32) -> Delta {
        match self.gen_of(host) {
            Some(DcqcnGen::Gen1) => self.gen1_loss_recovery,
            _ => Delta::ZERO,
        }
    }

    /// Whether the NIC of host `host` has the congestion-leaking bug.
    pub fn leaks_congestion(&self, host: u32) -> bool {
        self.gen_of(host)
            .is_some_and(|g| self.congestion_leaking[g as usize])
    }

    /// Whether the NP of host `host` may send a CNP for a marked packet
    /// of QP `flow` at `now`, given when it last sent one (`last`, updated
    /// when it may).
    pub fn np_may_send(&self, host: u32, now: Time, last: &mut Option<Time>) -> bool {
        let Some(g) = self.gen_of(host) else {
            return true;
        };
        let gap = self.np_interval(g);
        let ok = match *last {
            Some(t) => now.since(t) >= gap,
            None => true,
        };
        if ok {
            *last = Some(now);
        }
        ok
    }
}

/// A QP's rate limiter when it limits per burst: `packets` frames leave
/// back to back at line rate, then the QP waits until the burst's bytes at
/// its rate have passed since the burst began, so the average is the rate.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct BurstPacer {
    /// Packets per burst (at least 2; 1 is per-packet pacing, no pacer).
    packets: u32,
    /// Packets of the current burst sent so far.
    sent: u32,
    /// When the current burst's first packet left.
    start: Time,
    /// Frame bytes of the current burst so far.
    bytes: u64,
}

impl BurstPacer {
    /// A pacer of `packets` per burst, if that is more than one.
    pub(crate) fn new(packets: u32) -> Option<Box<BurstPacer>> {
        (packets > 1).then(|| {
            Box::new(BurstPacer {
                packets,
                sent: 0,
                start: Time::ZERO,
                bytes: 0,
            })
        })
    }

    /// A frame of `size` bytes leaves now: when the QP may send its next,
    /// at `rate` with `line` the NIC's line rate.
    pub(crate) fn next_send(&mut self, now: Time, size: u64, rate: Rate, line: Rate) -> Time {
        if self.sent == 0 {
            self.start = now;
            self.bytes = 0;
        }
        self.sent += 1;
        self.bytes += size;
        let back_to_back = now + line.tx_time(size);
        if self.sent < self.packets {
            return back_to_back;
        }
        self.sent = 0;
        (self.start + rate.tx_time(self.bytes)).max(back_to_back)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fleet(fix: bool) -> DcqcnFleet {
        DcqcnFleet {
            hosts: vec![(0, DcqcnGen::Gen1), (1, DcqcnGen::Gen2)],
            gen1_cnp_interval: Delta::from_us(50),
            interop_fix: fix,
            burst_packets: [8, 1, 1],
            gen1_loss_recovery: Delta::from_us(200),
            congestion_leaking: [false, true, false],
        }
    }

    #[test]
    fn a_burst_leaves_at_line_rate_and_the_gap_keeps_the_average() {
        let line = Rate::gbps(100);
        let rate = Rate::gbps(25);
        let mut p = BurstPacer::new(4).unwrap();
        // 1000 B frames: 80 ns at 100 Gb/s, 320 ns at 25 Gb/s.
        let mut now = Time::ZERO;
        let mut gaps = Vec::new();
        for _ in 0..8 {
            let next = p.next_send(now, 1000, rate, line);
            gaps.push(next.since(now).ns());
            now = next;
        }
        assert_eq!(gaps, [80, 80, 80, 1040, 80, 80, 80, 1040]);
        // Eight frames over 2 x 4 x 320 ns: the average is the rate.
        assert_eq!(now.ns(), 2560);
        assert!(
            BurstPacer::new(1).is_none(),
            "one packet per burst is per-packet pacing"
        );
    }

    #[test]
    fn burst_and_recovery_belong_to_their_generation() {
        let f = fleet(false);
        assert_eq!(f.burst_of(0), 8, "Gen1");
        assert_eq!(f.burst_of(1), 1, "Gen2");
        assert_eq!(f.burst_of(7), 1, "not in the fleet");
        assert_eq!(f.loss_recovery_of(0), Delta::from_us(200));
        assert_eq!(f.loss_recovery_of(1), Delta::ZERO);
        assert_eq!(f.loss_recovery_of(7), Delta::ZERO);
        assert!(!f.leaks_congestion(0), "Gen1 not listed");
        assert!(f.leaks_congestion(1), "Gen2 listed");
        assert!(!f.leaks_congestion(7), "not in the fleet");
    }

    #[test]
    fn gen1_coalesces_at_the_np_and_gen2_only_with_the_fix() {
        for (fix, host, want) in [(false, 0, 2), (false, 1, 10), (true, 1, 2), (false, 7, 10)] {
            let f = fleet(fix);
            let mut last = None;
            let sent = (0..10u64)
                .filter(|k| f.np_may_send(host, Time::from_ns(k * 10_000), &mut last))
                .count();
            assert_eq!(sent, want, "fix {fix}, host {host}");
        }
        assert!(fleet(false).rp_cuts_every_cnp(DcqcnGen::Gen1));
        assert!(!fleet(false).rp_cuts_every_cnp(DcqcnGen::Gen3));
        assert!(fleet(true).rp_cuts_every_cnp(DcqcnGen::Gen3));
    }
}
