//! BFC's settings (Goyal et al., "Backpressure Flow Control", NSDI '22):
//! K physical queues per switch egress port, active flows given queues
//! dynamically, and the pause threshold.
//!
//! The mechanism is the egress's (`egress/bfc.rs`); a port's flow-control
//! object counts the per-flow PAUSE and RESUME frames and, at a NIC, holds
//! paused flows back ([`super::FlowPauseCounts`]).

use super::flow_pause::{check_port, default_hrtt, QueueMapping};
use engine::{Delta, Rate};

/// Settings of one BFC port.
#[derive(Clone, Debug, PartialEq)]
pub struct BfcConfig {
    /// Physical queues per egress port (2 to 128). Default 32: BFC's own
    /// configuration (FlowSail §II-B calls it "BFC-32Q ... used in
    /// the original paper"); FlowSail's comparisons run BFC-8Q.
    pub queues: u32,
    /// The pause threshold Th in hop BDPs (HRTT · μ), divided by the
    /// active queues N_active at each packet. Default 1: BFC §3's
    /// Th = HRTT · μ / N_active, the rule FlowSail §IV-B takes for its Q_l.
    pub th_hbdp: f64,
    /// The hop round trip HRTT; `None`: twice the port's link delay.
    pub hrtt: Option<Delta>,
    /// How a new active flow gets its queue.
    pub mapping: QueueMapping,
}

impl Default for BfcConfig {
    fn default() -> Self {
        BfcConfig {
            queues: 32,
            th_hbdp: 1.0,
            hrtt: None,
            mapping: QueueMapping::Dynamic,
        }
    }
}

impl BfcConfig {
    /// The fewest queues (FlowSail §VI-C, Fig. 15, sweeps BFC from 2).
    pub const MIN_QUEUES: u32 = 2;

    /// The hop round trip at a port whose link has `delay`.
    pub fn hrtt_at(&self, delay: Delta) -> Delta {
        self.hrtt.unwrap_or_else(|| default_hrtt(delay))
    }

    /// Why these settings cannot run at a port of `rate` and link `delay`
    /// whose data frames are at most `frame` bytes, naming the key at
    /// fault (`bfc_queues`, `bfc_threshold`).
    pub fn check(
        &self,
        rate: Rate,
        delay: Delta,
        frame: u64,
    ) -> Result<(), (&'static str, String)> {
        if !(self.th_hbdp > 0.0 && self.th_hbdp.is_finite()) {
            return Err(("bfc_threshold", format!("{} must be above 0", self.th_hbdp)));
        }
        check_port(
            self.queues,
            Self::MIN_QUEUES,
            self.th_hbdp,
            self.hrtt_at(delay),
            rate,
            frame,
        )
        .map(|_| ())
        .map_err(|e| {
            let key = if e.contains("queues per port") {
                "bfc_queues"
            } else {
                "bfc_threshold"
            };
            (key, e)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_settings_name_their_key() {
        let (g100, us) = (Rate(100_000_000_000), Delta(1_000_000));
        assert_eq!(BfcConfig::default().check(g100, us, 1048), Ok(()));
        let c = BfcConfig {
            queues: 1,
            ..Default::default()
        };
        assert_eq!(c.check(g100, us, 1048).unwrap_err().0, "bfc_queues");
        let c = BfcConfig {
            th_hbdp: 0.02,
            ..Default::default()
        };
        assert_eq!(c.check(g100, us, 1048).unwrap_err().0, "bfc_threshold");
    }
}
