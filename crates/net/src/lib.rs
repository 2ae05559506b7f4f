//! rdmasim's network model: packets, links, ports, switches and NICs, with
//! the plug points for flow control ([`fc`]), congestion control ([`cc`]) and
//! reliability ([`transport`]).
//!
//! Build a [`Simulation`] from a topology, a flow list and a [`NetConfig`],
//! run it, and read its [`RunResults`].
#![warn(missing_docs, missing_debug_implementations)]

pub mod capture;
pub mod cc;
pub mod config;
pub mod egress;
pub mod fc;
pub mod hash;
pub mod host_cpu;
pub mod mmu;
pub mod monitor;
pub mod parallel;
pub mod partition;
pub mod qlen;
pub mod sonic_buffer;
pub mod transport;
pub mod wire;

mod build;
mod cache;
mod context;
mod device;
mod event;
mod failure;
mod fifo;
mod int_pool;
mod link;
mod nic;
mod observe;
mod port;
mod qp;
mod results;
mod route;
mod sim;
mod switch;

pub use build::BuildError;
pub use config::{
    BufferConfig, EcnConfig, EcnThreshold, FcChoice, Headroom, IrnConfig, NetConfig, NicConfig,
    PfcConfig, PfcMode, PortRule, PortSettings, Transport,
};
pub use nic::model::NicModel;
pub use port::{PortCounters, TxLogEntry};
pub use results::{FlowOutcome, HostCpuRow, PfcLogEntry, PortReport, ProgressInfo, RunResults};
pub use sim::Simulation;
