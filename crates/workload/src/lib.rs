//! Workloads: flow lists from generators (Poisson over a size CDF, incast)
//! and from the peer's flow-file format.
#![warn(missing_docs, missing_debug_implementations, unreachable_pub)]

use engine::Time;

/// One flow (one RDMA message on its own QP).
#[derive(Clone, Debug, PartialEq)]
pub struct FlowSpec {
    /// Dense id, in start-time order.
    pub id: u32,
    /// Sending host.
    pub src: u32,
    /// Receiving host.
    pub dst: u32,
    /// Bytes of payload.
    pub size: u64,
    /// When the sender's QP is created.
    pub start: Time,
    /// Priority class (the peer's `pg`; 3 in all its flow files).
    pub pg: u8,
    /// Destination port; the peer's analysis keeps dport 100 ("normal") and
    /// uses 200 for incast.
    pub dport: u16,
}
