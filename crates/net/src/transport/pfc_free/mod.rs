//! A PFC-free RDMA transport (`transport = "pfc_free"`): the Bifröst
//! framework's UC data path with a software control path on the hosts
//! (Bifröst §3). Not to be confused with the Bifrost flow control of
//! `fc/bifrost.rs`, a different paper's hop-by-hop scheme.
//!
//! A flow is one connection: its bytes go as messages of
//! [`PfcFreeConfig::message`] bytes, at most [`PfcFreeConfig::io_depth`]
//! outstanding, each cut into chunks, each chunk one WQE on a UC QP:
//! - the NIC (hardware) sends a WQE's packets in order; the receiving UC QP
//!   delivers a WQE only if all of them arrive in order and drops it
//!   whole otherwise ([`receiver`]);
//! - the sender (software) numbers each WQE (a GN, and a SEND or WRITE RN),
//!   keeps its state, reads coalesced software ACKs, declares a WQE lost
//!   when a later one on the same QP is acknowledged or on a timeout,
//!   resends it by SENDs, and on a timeout moves to a backup QP on a new
//!   source port ([`sender`]);
//! - the software window is Swift-like RTT AIMD (`cc/swift.rs`) on RTTs of
//!   eq. 1 of the paper, set to its minimum on a drop.
//!
//! `docs/pfc-free.md` describes the model and each simplification.

pub mod bodies;
pub mod config;
pub mod headers;
pub mod rc;
pub mod receiver;
pub mod sender;

pub use bodies::AckBodies;
pub use config::{PfcFreeConfig, PfcFreeQueue, QpType, OFFSET_UNITS};
pub use headers::{AckBody, AckEntry, PsnWire, Verb, WqeHeader, WqeWire};
pub use receiver::{PfcFreeReceiver, ReceiverStats, SoftRx};
pub use sender::{PfcFreeSender, SenderStats, MAX_PATHS};

/// The PFC-free transport's counters, summed over a run's flows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PfcFreeTotals {
    /// The senders'.
    pub sender: SenderStats,
    /// The receivers'.
    pub receiver: ReceiverStats,
    /// RC mode's hardware counters, both sides; `None` with UC.
    pub rc: Option<rc::RcStats>,
}

#[cfg(test)]
mod rc_tests;
#[cfg(test)]
mod tests;
