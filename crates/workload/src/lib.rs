//! Workloads: flow lists from generators (Poisson over a size CDF, incast,
//! storage messages of several flows) and from the peer's flow-file format.
#![warn(missing_docs, missing_debug_implementations, unreachable_pub)]

mod cdf;
mod generate;
mod peer;
mod rpc;
mod storage;

pub use cdf::{load_cdf, parse_cdf, SizeCdf};
pub use generate::sort_and_number_tagged;
pub use generate::{
    bulk, incast, incast_background, merge, poisson, poisson_to, probes, sort_and_number,
    IncastBackgroundSpec, PoissonSpec, ENDLESS, INCAST_STREAM_KIND, MAX_FLOWS, POISSON_STREAM_KIND,
    PROBE_STREAM_KIND, TOO_MANY_FLOWS,
};
pub use peer::{
    load_peer_flows, load_peer_flows_with_lines, parse_peer_flows, parse_peer_flows_reading,
    parse_peer_flows_with_lines, validate_classes, validate_endpoints, write_peer_flows,
    StartTimes,
};
pub use rpc::{rpc_clients, spread_starts, RPC_STREAM_KIND};
pub use storage::{storage, Message, MessageKind, StorageSpec, STORAGE_STREAM_KIND};

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
