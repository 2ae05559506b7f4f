//! rdmasim's own TOML config, in two stages (ripgrep's low/high args):
//! [`load_config`] parses the file into [`ConfigDoc`], plain data as close
//! to the file as possible, rejecting unknown keys; [`build_scenario`]
//! checks every value and builds the [`Scenario`](crate::scenario::Scenario).
//! Every error names the file, the line and the key's full path.
//!
//! Units are written out as strings (`"100Gbps"`, `"1us"`, `"32MiB"`,
//! `"80km"`). Every key but the topology's and workload's shape has a
//! default, taken from [`NetConfig::default`](net::NetConfig::default) and
//! friends; `rdmasim config --defaults` ([`defaults_toml`]) prints them all
//! with their sources.
//!
//! Each section is one module: its type in [`ConfigDoc`], its defaults and
//! how it is checked and built. This module only declares them and
//! re-exports what the rest of rdmasim uses; none of them imports it.

mod build;
pub mod capture;
#[cfg(test)]
mod capture_tests;
mod cc;
mod ctx;
mod defaults;
mod doc;
mod engine;
mod fabric;
mod fleet;
#[cfg(test)]
mod fleet_tests;
#[cfg(test)]
mod flowsail_tests;
mod host;
mod hosts;
mod nic;
mod parse;
#[cfg(test)]
mod pfc_classes_tests;
#[cfg(test)]
mod pods_tests;
mod ports;
mod sonic;
#[cfg(test)]
mod sonic_tests;
mod storage;
#[cfg(test)]
mod storage_tests;
#[cfg(test)]
mod tests;
pub mod timeseries;
mod topology;
mod values;
mod workload;

pub use build::{
    base_dir, build_capture, build_engine, build_scenario, build_timeseries, default_notes,
    DEFAULT_STOP_AFTER_LAST_START_S,
};
pub use capture::CaptureSection;
pub use cc::{
    CcKind, CcSection, DcqcnSection, DctcpSection, HpccSection, PintSection, SwiftSection,
    TimelySection,
};
pub use defaults::defaults_toml;
pub use doc::{Config, ConfigDoc, LinkDownSection, OutputSection, PfcStormSection, RunSection};
pub use engine::EngineSection;
pub use fabric::{
    BufferSection, EcnSection, EcnThresholdSection, PfcModeKey, PfcSection, WatchdogSection,
    DEFAULT_PFC_QUANTA, DEFAULT_PFC_REFRESH,
};
pub use fleet::DcqcnFleetSection;
pub use nic::{NicSection, TransportKind, TransportSection};
pub use parse::{load_config, parse_config};
pub use ports::{PortSection, PortsSection};
pub use timeseries::TimeseriesSection;
pub use topology::{
    LinkEntry, TopologyKind, TopologySection, DEFAULT_LINK_DELAY, DEFAULT_LINK_RATE,
};
pub use workload::{
    WorkloadKind, WorkloadSection, DEFAULT_CDF, DEFAULT_DPORT, DEFAULT_INCAST_DPORT, DEFAULT_PG,
};

pub(crate) use build::stop_before_flows;
pub(crate) use cc::{cc_toml, check_peer_value, from_peer as cc_from_peer, PEER_CC_KEYS};
pub(crate) use nic::frame_above_buffer;
pub(crate) use workload::unread_flows_warning;
