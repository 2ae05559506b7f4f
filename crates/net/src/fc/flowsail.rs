//! FlowSail's settings (Li et al., "Towards Fine-grained and Practical
//! Flow Control for Datacenter Networks", ICNP): K physical queues per
//! switch egress port, one of them the reserved isolation queue rsvQ, and
//! the thresholds of its hierarchical congested-flow identification.
//!
//! The mechanism is the egress's (`egress/flowsail.rs`: Alg. 1 and 2, the
//! flow tables, Order Mark Matching); a port's flow-control object counts
//! the per-flow PAUSE and RESUME frames and, at a NIC, holds paused flows
//! back ([`super::FlowPauseCounts`]).

use super::flow_pause::{check_port, default_hrtt, QueueMapping};
use engine::{Delta, Rate};

/// Settings of one FlowSail port.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowSailConfig {
    /// Physical queues per egress port, rsvQ included (2 to 128).
    /// Default 8: FlowSail-8Q, the paper's main configuration (§VI-B);
    /// "8Q" is read as 7 normal queues and rsvQ, which the paper's
    /// "theoretically as few as two" (§III-A) implies.
    pub queues: u32,
    /// Q_l in hop BDPs (HRTT · μ), divided by the active queues
    /// N_active at each packet. Default 1 (§IV-B: Q_l = HRTT·μ/N_active;
    /// §VI-C, Fig. 16).
    pub ql_hbdp: f64,
    /// Q_h in hop BDPs, likewise. Default 3 (§IV-B: Q_h =
    /// 3·HRTT·μ/N_active; §VI-C).
    pub qh_hbdp: f64,
    /// The hop round trip HRTT; `None`: twice the port's link delay (the
    /// 2 µs of §VI-B's 1 µs links).
    pub hrtt: Option<Delta>,
    /// A congested flow leaves the congested-flow table once it is
    /// resumed, has nothing in rsvQ and was last touched this many HRTTs
    /// ago. Default 2 (§IV-C: "2·HRTT").
    pub release_hrtts: f64,
    /// How a new active flow gets its normal queue.
    pub mapping: QueueMapping,
    /// Pause a newly congested flow's old queue q1 until its first RESUME
    /// when it still has frames there (§IV-C, "In-order support"; Alg. 2
    /// l. 21–24, 30–31). Default true, as the paper; false keeps only the
    /// Order Marks, which alone keep the flow in order (docs/flowsail.md).
    pub pause_q1: bool,
}

impl Default for FlowSailConfig {
    fn default() -> Self {
        FlowSailConfig {
            queues: 8,
            ql_hbdp: 1.0,
            qh_hbdp: 3.0,
            hrtt: None,
            release_hrtts: 2.0,
            mapping: QueueMapping::Dynamic,
            pause_q1: true,
        }
    }
}

impl FlowSailConfig {
    /// The fewest queues: one normal queue and rsvQ (§III-A, O2).
    pub const MIN_QUEUES: u32 = 2;

    /// The hop round trip at a port whose link has `delay`.
    pub fn hrtt_at(&self, delay: Delta) -> Delta {
        self.hrtt.unwrap_or_else(|| default_hrtt(delay))
    }

    /// Why these settings cannot run at a port of `rate` and link `delay`
    /// whose data frames are at most `frame` bytes, naming the key at
    /// fault (`flowsail_queues`, `flowsail_ql`, `flowsail_qh`,
    /// `flowsail_release`).
    pub fn check(
        &self,
        rate: Rate,
        delay: Delta,
        frame: u64,
    ) -> Result<(), (&'static str, String)> {
        if !(self.ql_hbdp > 0.0 && self.ql_hbdp.is_finite()) {
            return Err(("flowsail_ql", format!("{} must be above 0", self.ql_hbdp)));
        }
        if !(self.qh_hbdp >= self.ql_hbdp && self.qh_hbdp.is_finite()) {
            return Err((
                "flowsail_qh",
                format!(
                    "{} must be at least flowsail_ql ({})",
                    self.qh_hbdp, self.ql_hbdp
                ),
            ));
        }
        if !(self.release_hrtts >= 0.0 && self.release_hrtts.is_finite()) {
            return Err((
                "flowsail_release",
                format!("{} must be 0 or more", self.release_hrtts),
            ));
        }
        check_port(
            self.queues,
            Self::MIN_QUEUES,
            self.ql_hbdp,
            self.hrtt_at(delay),
            rate,
            frame,
        )
        .map(|_| ())
        .map_err(|e| {
            let key = if e.contains("queues per port") {
                "flowsail_queues"
            } else {
                "flowsail_ql"
            };
            (key, e)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const G100: Rate = Rate(100_000_000_000);
    const US: Delta = Delta(1_000_000);

    #[test]
    fn the_defaults_run_on_the_papers_links() {
        let c = FlowSailConfig::default();
        assert_eq!(c.check(G100, US, 1048), Ok(()));
        assert_eq!(c.hrtt_at(US), Delta(2_000_000));
    }

    #[test]
    fn each_bad_setting_names_its_key() {
        let key = |c: FlowSailConfig| c.check(G100, US, 1048).unwrap_err().0;
        for q in [0, 1, 129] {
            let c = FlowSailConfig {
                queues: q,
                ..Default::default()
            };
            assert_eq!(key(c), "flowsail_queues", "{q} queues");
        }
        let c = FlowSailConfig {
            ql_hbdp: 0.01,
            ..Default::default()
        };
        let e = c.check(G100, US, 1048).unwrap_err();
        assert_eq!(e.0, "flowsail_ql");
        assert!(e.1.contains("below one 1048 B data frame"), "{}", e.1);
        let c = FlowSailConfig {
            qh_hbdp: 0.5,
            ..Default::default()
        };
        assert_eq!(key(c), "flowsail_qh");
        let c = FlowSailConfig {
            release_hrtts: -1.0,
            ..Default::default()
        };
        assert_eq!(key(c), "flowsail_release");
    }
}
