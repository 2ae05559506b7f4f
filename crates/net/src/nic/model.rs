//! NIC models: a NIC generation is a named set of defaults for the NIC and
//! for each transport it can run.
//!
//! Every default of a NIC setting comes from here: [`NicConfig::default`]
//! is [`NicModel::DEFAULT`]'s `nic`, and [`IrnConfig::default`] its `irn`.
//! Another generation is one more entry: a `const` like
//! [`NicModel::PEER_ROCE`], listed in [`NicModel::ALL`]. A transport that
//! comes with parameters of its own adds them as a field here, so that each
//! generation states them.
//!
//! One generation is modelled today, the peer's RoCEv2 NIC; where its
//! values come from is documented on the fields of [`NicConfig`] and
//! [`IrnConfig`].

use crate::config::{IrnConfig, NicConfig, Transport};
use engine::Delta;

/// A NIC generation: its name and its defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct NicModel {
    /// Its name.
    pub name: &'static str,
    /// The NIC's settings, with go-back-N as its transport.
    pub nic: NicConfig,
    /// IRN's parameters, when a run chooses IRN on this NIC.
    pub irn: IrnConfig,
}

impl NicModel {
    /// The peer's RoCEv2 NIC (`RdmaHw`: 1000 B payload, go-back-N, ACKs in
    /// strict priority) with rdmasim's 1 ms retransmission timeout, and
    /// Swing's IRN-intra parameters for IRN.
    pub const PEER_ROCE: NicModel = NicModel {
        name: "peer-roce",
        nic: NicConfig {
            mtu_payload: 1000,
            data_header: crate::wire::PEER_DATA_HEADER_BYTES,
            ack_bytes: crate::wire::PEER_ACK_BYTES,
            ack_high_prio: true,
            switch_ack_high_prio: true,
            rate_bound: true,
            ack_interval: 1,
            chunk: 4000,
            back_to_zero: false,
            nack_interval: Delta::from_us(500),
            window: None,
            bdp_window: false,
            global_t: true,
            var_win: false,
            one_chunk_in_flight: None,
            rto: Some(Delta::from_ms(1)),
            transport: Transport::GoBackN,
        },
        irn: IrnConfig {
            bitmap_packets: 106,
            rto_low: Delta::from_us(13),
            rto_high: Delta::from_us(140),
            rto_low_threshold_packets: 3,
        },
    };

    /// Every generation.
    pub const ALL: &'static [NicModel] = &[NicModel::PEER_ROCE];

    /// The generation a run gets unless it chooses.
    pub const DEFAULT: &'static NicModel = &NicModel::PEER_ROCE;

    /// The generation called `name`.
    pub fn by_name(name: &str) -> Option<&'static NicModel> {
        NicModel::ALL.iter().find(|m| m.name == name)
    }
}

impl Default for IrnConfig {
    /// The default NIC model's ([`NicModel::DEFAULT`]).
    fn default() -> Self {
        NicModel::DEFAULT.irn
    }
}

impl Default for NicConfig {
    /// The default NIC model's ([`NicModel::DEFAULT`]).
    fn default() -> Self {
        NicModel::DEFAULT.nic.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_default_models() {
        assert_eq!(NicConfig::default(), NicModel::DEFAULT.nic);
        assert_eq!(IrnConfig::default(), NicModel::DEFAULT.irn);
        assert_eq!(NicModel::by_name("peer-roce"), Some(NicModel::DEFAULT));
        assert_eq!(NicModel::by_name("no-such-nic"), None);
        for (i, m) in NicModel::ALL.iter().enumerate() {
            assert_eq!(m.nic.transport, Transport::GoBackN, "{}", m.name);
            assert!(
                NicModel::ALL[..i].iter().all(|n| n.name != m.name),
                "{} twice",
                m.name
            );
        }
    }
}
