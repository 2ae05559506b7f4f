//! Reliability: how a QP recovers lost packets.
//!
//! Go-back-N RoCEv2 RC as the peer (§2.2), the default, and IRN's selective
//! repeat for lossy fabrics ([`irn`]). Bifröst's chunked UC retransmission
//! plugs in here as a further variant.

pub mod go_back_n;
pub mod irn;

pub use go_back_n::{GbnReceiver, RxVerdict};
pub use irn::{IrnReceiver, IrnRxVerdict, IrnSender};

/// Warnings for retransmission timeouts that cannot wait for an ACK: a
/// timeout at or below a flow's base round trip fires before the flow's
/// first ACK can arrive, so every such flow resends while its data is
/// still on the way (go-back-N rewinds its window, IRN resends its
/// packets). `rtts_ns` has one base round trip per flow, as the ideal FCT
/// counts it (propagation both ways and one data packet's serialisation
/// per hop, `specs/peer-hpcc-ns3.md` §2.5): the first ACK takes at least
/// that long.
pub fn short_timeout_warnings(
    transport: &crate::config::Transport,
    rto: Option<engine::Delta>,
    rtts_ns: &[u64],
) -> Vec<String> {
    use crate::config::Transport;
    let too_short = |what: &str, timeout: engine::Delta, effect: &str| {
        let hit: Vec<u64> = rtts_ns
            .iter()
            .copied()
            .filter(|&rtt| rtt.saturating_mul(1000) >= timeout.ps())
            .collect();
        let longest = engine::Delta(hit.iter().copied().max()? * 1000);
        Some(format!(
            "{what} = {timeout} is not longer than the base round trip of {} of the {} \
             flows (the longest: {longest}): {effect} before its first ACK can arrive; \
             give a timeout above {longest}",
            hit.len(),
            rtts_ns.len(),
        ))
    };
    match transport {
        Transport::GoBackN => rto
            .and_then(|t| {
                too_short(
                    "[nic] rto",
                    t,
                    "each of them times out and goes back to its first unacked byte",
                )
            })
            .into_iter()
            .collect(),
        Transport::Irn(c) => [
            too_short(
                "[transport] rto_low",
                c.rto_low,
                "each of them, with few packets in flight, times out and resends",
            ),
            too_short(
                "[transport] rto_high",
                c.rto_high,
                "each of them times out and resends",
            ),
        ]
        .into_iter()
        .flatten()
        .collect(),
    }
}

/// Receive state of one QP, per [`crate::config::Transport`].
#[derive(Clone, Debug)]
pub enum Receiver {
    /// Go-back-N.
    GoBackN(GbnReceiver),
    /// IRN.
    Irn(IrnReceiver),
}

impl Receiver {
    /// The cumulative acknowledgement: every byte below has arrived.
    pub fn expected(&self) -> u64 {
        match self {
            Receiver::GoBackN(r) => r.expected,
            Receiver::Irn(r) => r.expected,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{IrnConfig, Transport};
    use engine::Delta;

    #[test]
    fn a_timeout_at_or_below_a_base_round_trip_is_named_with_its_flows() {
        let rtts = [12_720, 800_000, 400_000];
        // Go-back-N: 1 ms waits for every flow; 400 us does not for two
        // (one's round trip is exactly 400 us).
        assert!(
            short_timeout_warnings(&Transport::GoBackN, Some(Delta::from_ms(1)), &rtts).is_empty()
        );
        assert!(short_timeout_warnings(&Transport::GoBackN, None, &rtts).is_empty());
        let w = short_timeout_warnings(&Transport::GoBackN, Some(Delta::from_us(400)), &rtts);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with("[nic] rto = 400us is not longer than the base round trip of 2 of the 3 flows (the longest: 800us)"),
            "{}",
            w[0]
        );
        // IRN-intra's timeouts on inter-DC flows: both are too short.
        let w = short_timeout_warnings(&Transport::Irn(IrnConfig::default()), None, &rtts);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].starts_with("[transport] rto_low = 13us"), "{}", w[0]);
        assert!(w[1].starts_with("[transport] rto_high = 140us"), "{}", w[1]);
        // On the intra-DC flow alone, they wait for its ACK.
        assert!(
            short_timeout_warnings(&Transport::Irn(IrnConfig::default()), None, &rtts[..1])
                .is_empty()
        );
    }
}
