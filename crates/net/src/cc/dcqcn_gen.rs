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
//! rdmasim's choice) and the minimal window is none at all. Per-burst rate
//! limiting and Gen1's go-back-N recovery cost are not modelled here
//! (docs/dcqcn-generations.md).

use engine::{Delta, Time};

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

#[cfg(test)]
mod tests {
    use super::*;

    fn fleet(fix: bool) -> DcqcnFleet {
        DcqcnFleet {
            hosts: vec![(0, DcqcnGen::Gen1), (1, DcqcnGen::Gen2)],
            gen1_cnp_interval: Delta::from_us(50),
            interop_fix: fix,
        }
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
