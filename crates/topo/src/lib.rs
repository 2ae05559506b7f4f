//! Topologies: the plain data a network is built from, builders for the
//! usual shapes, and the peer's topology file format.
#![warn(missing_docs, missing_debug_implementations, unreachable_pub)]

use engine::{Delta, Rate};

/// Dense node id, as in the peer's files: hosts and switches share one space.
pub type NodeId = u32;

/// What a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// An end host with one RDMA NIC.
    Host,
    /// A switch.
    Switch,
}

/// One full-duplex link between nodes `a` and `b`.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkSpec {
    /// One end.
    pub a: NodeId,
    /// The other end.
    pub b: NodeId,
    /// Rate in each direction.
    pub rate: Rate,
    /// One-way propagation delay.
    pub delay: Delta,
    /// Probability that a frame is corrupted and dropped on receipt.
    pub error_rate: f64,
}

/// A network's nodes and links. Port numbers at each node follow the order
/// in which its links appear in `links`, as in the peer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Topology {
    /// Kind of each node, indexed by `NodeId`.
    pub kinds: Vec<NodeKind>,
    /// Links in file order.
    pub links: Vec<LinkSpec>,
}

impl Topology {
    /// Ids of all hosts, ascending.
    pub fn hosts(&self) -> Vec<NodeId> {
        (0..self.kinds.len() as NodeId)
            .filter(|&n| self.kinds[n as usize] == NodeKind::Host)
            .collect()
    }
    /// Whether `n` is a host.
    pub fn is_host(&self, n: NodeId) -> bool {
        self.kinds.get(n as usize) == Some(&NodeKind::Host)
    }
}
