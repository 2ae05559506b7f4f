//! Ports: which link sits on which port of which node.

use crate::{NodeId, Topology};

/// Precomputed ports of every node.
///
/// Port `i` of node `n` is the `i`-th link, in link (file) order, that has `n`
/// as an endpoint, so a node's ports list its links by ascending link index.
/// This is the peer's numbering less one: ns-3 gives interface 0 to loopback,
/// so the peer's interface `i + 1` is port `i` here.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Adjacency {
    /// `ports[offsets[n]..offsets[n + 1]]` are node `n`'s links.
    offsets: Vec<u32>,
    ports: Vec<u32>,
    /// Ends `[a, b]` of each link.
    ends: Vec<[NodeId; 2]>,
    /// Port at end `a` and at end `b` of each link.
    link_ports: Vec<[u32; 2]>,
}

impl Adjacency {
    /// Number the ports of `topo`. A link with an end out of range is left
    /// off every node's port list and has no ports (such a topology fails
    /// [`Topology::validate`]); a self-loop takes one port.
    pub fn new(topo: &Topology) -> Adjacency {
        let n = topo.kinds.len();
        let in_range = |x: NodeId| (x as usize) < n;
        let mut degree = vec![0u32; n];
        let usable = |a: NodeId, b: NodeId| in_range(a) && in_range(b);
        for l in &topo.links {
            if usable(l.a, l.b) {
                degree[l.a as usize] += 1;
                if l.b != l.a {
                    degree[l.b as usize] += 1;
                }
            }
        }
        let mut offsets = Vec::with_capacity(n + 1);
        let mut total = 0u32;
        offsets.push(0);
        for d in &degree {
            total += d;
            offsets.push(total);
        }
        let mut fill: Vec<u32> = offsets[..n].to_vec();
        let mut ports = vec![0u32; total as usize];
        let mut link_ports = Vec::with_capacity(topo.links.len());
        let mut ends = Vec::with_capacity(topo.links.len());
        for (i, l) in topo.links.iter().enumerate() {
            ends.push([l.a, l.b]);
            if !usable(l.a, l.b) {
                link_ports.push([u32::MAX; 2]);
                continue;
            }
            let mut take = |x: NodeId| -> u32 {
                let slot = &mut fill[x as usize];
                ports[*slot as usize] = i as u32;
                *slot += 1;
                *slot - 1 - offsets[x as usize]
            };
            let pa = take(l.a);
            let pb = if l.b == l.a { pa } else { take(l.b) };
            link_ports.push([pa, pb]);
        }
        Adjacency {
            offsets,
            ports,
            ends,
            link_ports,
        }
    }

    /// Number of nodes.
    pub fn n_nodes(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Links of `node` by port: element `i` is the index of the link on port
    /// `i`. Ascending link index.
    #[inline]
    pub fn ports(&self, node: NodeId) -> &[u32] {
        let n = node as usize;
        &self.ports[self.offsets[n] as usize..self.offsets[n + 1] as usize]
    }

    /// Number of ports (links) at `node`.
    #[inline]
    pub fn degree(&self, node: NodeId) -> usize {
        let n = node as usize;
        (self.offsets[n + 1] - self.offsets[n]) as usize
    }

    /// The link on port `port` of `node`.
    #[inline]
    pub fn link_at(&self, node: NodeId, port: u32) -> u32 {
        self.ports(node)[port as usize]
    }

    /// Ports of `link` at its ends: `(port at a, port at b)`.
    #[inline]
    pub fn link_ports(&self, link: u32) -> (u32, u32) {
        let [pa, pb] = self.link_ports[link as usize];
        (pa, pb)
    }

    /// The port of `link` at `node`, or `None` if `node` is not an end.
    #[inline]
    pub fn port_of(&self, link: u32, node: NodeId) -> Option<u32> {
        let [a, b] = self.ends[link as usize];
        let [pa, pb] = self.link_ports[link as usize];
        if node == a {
            Some(pa)
        } else if node == b {
            Some(pb)
        } else {
            None
        }
    }

    /// The end of `link` that is not `node` (`a` if `node` is neither).
    #[inline]
    pub fn other_end(&self, link: u32, node: NodeId) -> NodeId {
        let [a, b] = self.ends[link as usize];
        if node == a {
            b
        } else {
            a
        }
    }

    /// The node and port at the far end of `node`'s port `port`.
    #[inline]
    pub fn peer_of(&self, node: NodeId, port: u32) -> (NodeId, u32) {
        let link = self.link_at(node, port);
        let other = self.other_end(link, node);
        let p = self.port_of(link, other).unwrap_or(u32::MAX);
        (other, p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{LinkSpec, NodeKind};
    use engine::{Delta, Rate};

    #[test]
    fn ports_follow_link_order() {
        // 0,1 hosts; 2,3 switches. Links: 0-2, 2-3, 3-1.
        let l = |a, b| LinkSpec::new(a, b, Rate::gbps(100), Delta::from_us(1));
        let t = Topology {
            kinds: vec![
                NodeKind::Host,
                NodeKind::Host,
                NodeKind::Switch,
                NodeKind::Switch,
            ],
            links: vec![l(0, 2), l(2, 3), l(3, 1)],
        };
        let adj = t.adjacency();
        assert_eq!(adj.ports(2), &[0, 1]);
        assert_eq!(adj.ports(3), &[1, 2]);
        assert_eq!(adj.ports(1), &[2]);
        assert_eq!(adj.link_ports(1), (1, 0));
        assert_eq!(adj.port_of(2, 1), Some(0));
        assert_eq!(adj.port_of(2, 0), None);
        assert_eq!(adj.peer_of(2, 1), (3, 0));
        assert_eq!(adj.degree(0), 1);
        for n in 0..4 {
            assert_eq!(adj.ports(n), t.ports(n).as_slice());
        }
    }

    #[test]
    fn out_of_range_links_get_no_ports() {
        let l = |a, b| LinkSpec::new(a, b, Rate::gbps(1), Delta::ZERO);
        let t = Topology {
            kinds: vec![NodeKind::Host, NodeKind::Switch],
            links: vec![l(0, 7), l(0, 1), l(1, 1)],
        };
        let adj = t.adjacency();
        assert_eq!(adj.ports(0), &[1]);
        assert_eq!(adj.ports(1), &[1, 2]);
        assert_eq!(adj.link_ports(0), (u32::MAX, u32::MAX));
        assert_eq!(adj.link_ports(2), (1, 1));
        let r = crate::Routes::compute(&t);
        assert!(r.next_hops(1, 0) == [1]);
    }
}
