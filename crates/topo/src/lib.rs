//! Topologies: the plain data a network is built from, builders for the
//! usual shapes, and the peer's topology file format.
//!
//! # Numbering rules
//!
//! * **Nodes.** Hosts and switches share one dense id space (`0..kinds.len()`),
//!   as in the peer's files. Every builder here numbers the hosts first
//!   (`0..H`) and the switches after them, tier by tier, exactly as the peer's
//!   generated files do (see [`clos`] for the fat-tree order; [`crossdc`]
//!   numbers DC by DC).
//! * **Links.** A link's index is its position in [`Topology::links`], i.e. its
//!   line order in a peer file. Builders emit links in the peer's order: host
//!   links first (by host id), then each tier upwards.
//! * **Ports.** Port `i` of node `n` is the `i`-th link, in link order, that has
//!   `n` as an endpoint ([`Topology::ports`], [`Adjacency`]). The peer's ns-3
//!   interface index is this port plus one (ns-3's interface 0 is loopback).
//! * **Routes.** [`Routes`] holds, for every node and every destination host,
//!   the links on a shortest path, in ascending link index; hosts never carry
//!   transit traffic.
#![warn(missing_docs, missing_debug_implementations, unreachable_pub)]

mod adjacency;
mod builders;
mod core_load;
pub mod crossdc;
mod peer;
mod pods;
mod region;
mod routing;
mod validate;
pub use validate::MAX_SWITCHES;

pub use adjacency::Adjacency;
pub use builders::{
    clos, dumbbell, fat_tree, flowsail_fat_tree, leaf_spine, peer_fat_tree, star, ClosSpec,
};
pub use core_load::core_load_factor;
pub use crossdc::{cross_dc, CrossDcLayout, CrossDcSpec};
pub use peer::{load_peer_topology, parse_peer_topology, write_peer_topology};
pub use pods::{pods, PodsSpec};
pub use region::{region, RegionSpec};
pub use routing::{NextHopOrder, Routes};

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

impl LinkSpec {
    /// A loss-free link.
    pub fn new(a: NodeId, b: NodeId, rate: Rate, delay: Delta) -> LinkSpec {
        LinkSpec {
            a,
            b,
            rate,
            delay,
            error_rate: 0.0,
        }
    }
    /// The end that is not `n`. If `n` is neither end, returns `a`.
    #[inline]
    pub fn other(&self, n: NodeId) -> NodeId {
        if n == self.a {
            self.b
        } else {
            self.a
        }
    }
    /// Whether `n` is one of the ends.
    #[inline]
    pub fn touches(&self, n: NodeId) -> bool {
        self.a == n || self.b == n
    }
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
    /// Ids of all switches, ascending.
    pub fn switches(&self) -> Vec<NodeId> {
        (0..self.kinds.len() as NodeId)
            .filter(|&n| self.kinds[n as usize] == NodeKind::Switch)
            .collect()
    }
    /// Whether `n` is a switch.
    pub fn is_switch(&self, n: NodeId) -> bool {
        self.kinds.get(n as usize) == Some(&NodeKind::Switch)
    }
    /// Number of nodes, hosts and switches together.
    pub fn n_nodes(&self) -> usize {
        self.kinds.len()
    }
    /// The links at `node`, as indices into [`links`](Topology::links), in
    /// link order: element `i` is the link on port `i` of `node`. This scans
    /// every link; use [`adjacency`](Topology::adjacency) for repeated queries.
    /// Links with an end out of range are left out, as in [`Adjacency`].
    pub fn ports(&self, node: NodeId) -> Vec<u32> {
        let n = self.kinds.len();
        self.links
            .iter()
            .enumerate()
            .filter(|(_, l)| l.touches(node) && (l.a as usize) < n && (l.b as usize) < n)
            .map(|(i, _)| i as u32)
            .collect()
    }
    /// Ports of every node and the port at each end of every link.
    pub fn adjacency(&self) -> Adjacency {
        Adjacency::new(self)
    }
}
