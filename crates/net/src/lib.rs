//! rdmasim's network model: packets, links, ports, switches and NICs, with
//! the plug points for flow control ([`fc`]), congestion control ([`cc`]) and
//! reliability ([`transport`]).
//!
//! Build a [`Simulation`] from a topology, a flow list and a [`NetConfig`],
//! run it, and read its [`RunResults`].
#![warn(missing_docs, missing_debug_implementations)]

pub mod cc;
pub mod config;
pub mod egress;
pub mod fc;
pub mod hash;
pub mod mmu;
pub mod monitor;
pub mod qlen;
pub mod transport;
pub mod wire;

mod build;
mod failure;
mod fifo;
mod int_pool;
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
pub use results::{FlowOutcome, PfcLogEntry, PortReport, ProgressInfo, RunResults};
pub use sim::Simulation;

/// A hint to bring the cache line at `p` into L1; no effect on results.
#[inline(always)]
pub(crate) fn prefetch(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch only hints the cache; it does not read or fault,
    // whatever the address.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
