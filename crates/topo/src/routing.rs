//! The peer's static shortest-path routes, with every equal-cost next hop.

use crate::{Adjacency, NodeId, NodeKind, Topology};

const NONE: u32 = u32::MAX;

/// The order in which [`Routes::next_hops`] lists a node's equal-cost next
/// hops; ECMP picks one by its index in the list, so two orders send a
/// flow down different (equally short) paths.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NextHopOrder {
    /// By ascending port (rdmasim's order).
    #[default]
    Ascending,
    /// By descending port: the order the peer's tables have on its fat
    /// tree (docs/model.md, "ECMP next-hop order").
    Descending,
}

/// Where [`Routes`] keeps one (node, host) route.
enum Slot {
    /// The host itself: no hop.
    Own,
    /// The node the host (this host index) hangs from: its link.
    Last(usize),
    /// A table slot toward the host's group node.
    Table(usize),
    /// Another host (this host index) with the destination's group (this
    /// group index): its route is its one link, if the node at the other
    /// end reaches the group node.
    FromHost(usize, usize),
}

/// Static routes: for every node `n` and every host `h`, the links out of
/// `n` that lie on a shortest path from `n` to `h`.
///
/// As in the peer (`CalculateRoute` in `third.cc`), the routes toward `h`
/// come from a breadth-first search from `h` that expands `h` and switches
/// only: a host is never an intermediate hop. A link from `n` to `m` is a next
/// hop of `n` toward `h` when `m` is `h` or a switch and `dist(m, h) + 1 ==
/// dist(n, h)`. Next hops are listed by ascending link index (that is, by
/// ascending port at `n`), or descending ([`NextHopOrder`]). Parallel links between two switches (the
/// cross-DC builder's long links, [`crate::crossdc`]) each appear, so ECMP
/// spreads flows across them.
///
/// A host has one link ([`Topology::validate`]), so every path to it ends
/// with the node it hangs from, `g`: `dist(n, h) = dist(n, g) + 1` for
/// `n != h`, and the next hops of `n != g` toward `h` are those toward `g`
/// (by the same rule, with `g` in the place of `h`). The tables are kept per
/// attachment node `g` (a ToR), not per host: `node * groups + group`. On
/// the peer's fat tree that is 20 columns instead of 320; on a star of
/// thousands of hosts, one. Only switches have rows: a host's one link is
/// its only route, so its distance to a group node is that of the node at
/// the link's other end, plus one (a k = 32 fat tree has 8,192 hosts and
/// 1,280 switches). (A host with several links, which `validate` refuses,
/// is routed to and from through its first link only.)
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Routes {
    n_nodes: usize,
    hosts: Vec<NodeId>,
    /// Rank of each node among the hosts, `NONE` for switches.
    host_index: Vec<u32>,
    /// Per host index: its link, and the group of the node at its other
    /// end; `NONE` for a host without a link.
    host_link: Vec<u32>,
    host_group: Vec<u32>,
    /// Per group: the node its hosts hang from.
    group_node: Vec<NodeId>,
    /// Per node: its row in the tables (switches only), else `NONE`.
    row: Vec<u32>,
    /// Hops from a row's switch to a group node, `NONE` if unreachable:
    /// `dist[row * groups + group]`.
    dist: Vec<u32>,
    /// `next[start..start + len]` are the next hops for table slot `i`,
    /// `(start, len) = slots[i]`. A switch's slots with the same next hops
    /// share their entries: a ToR of a k = 34 fat tree goes up over the
    /// same 17 links to 561 of its 578 groups.
    slots: Vec<(u32, u32)>,
    next: Vec<u32>,
}

impl Routes {
    /// Compute the routes of `topo`. Links whose ends are out of range are
    /// ignored; use on a topology that passes [`Topology::validate`] (or on
    /// one with some of its links removed).
    pub fn compute(topo: &Topology) -> Routes {
        Routes::compute_ordered(topo, NextHopOrder::Ascending)
    }

    /// [`Routes::compute`], listing each node's next hops in `order`.
    pub fn compute_ordered(topo: &Topology, order: NextHopOrder) -> Routes {
        let n = topo.kinds.len();
        let adj = Adjacency::new(topo);
        let hosts = topo.hosts();
        let nh = hosts.len();
        let mut host_index = vec![NONE; n];
        for (i, &h) in hosts.iter().enumerate() {
            host_index[h as usize] = i as u32;
        }
        let is_switch = |x: NodeId| topo.kinds[x as usize] == NodeKind::Switch;

        // The node each host hangs from; one group per such node.
        let mut host_link = vec![NONE; nh];
        let mut host_group = vec![NONE; nh];
        let mut node_group = vec![NONE; n];
        let mut group_node = Vec::new();
        for (hi, &h) in hosts.iter().enumerate() {
            let Some(&l) = adj.ports(h).first() else {
                continue;
            };
            let g = adj.other_end(l, h);
            if node_group[g as usize] == NONE {
                node_group[g as usize] = group_node.len() as u32;
                group_node.push(g);
            }
            host_link[hi] = l;
            host_group[hi] = node_group[g as usize];
        }
        let ng = group_node.len();
        let mut row = vec![NONE; n];
        let mut switches = Vec::new();
        for u in 0..n as NodeId {
            if is_switch(u) {
                row[u as usize] = switches.len() as u32;
                switches.push(u);
            }
        }

        // Distances, one BFS per group node (expanding it and switches),
        // of every node in `d`; the switches' are kept. `reached` lists the
        // nodes `d` holds a distance for, to clear them for the next group.
        let mut dist = vec![NONE; switches.len() * ng];
        let mut d = vec![NONE; n];
        let mut queue: Vec<NodeId> = Vec::with_capacity(n);
        let mut reached: Vec<NodeId> = Vec::with_capacity(n);
        for (gi, &g) in group_node.iter().enumerate() {
            for &u in &reached {
                d[u as usize] = NONE;
            }
            reached.clear();
            queue.clear();
            queue.push(g);
            reached.push(g);
            d[g as usize] = 0;
            let mut head = 0;
            while head < queue.len() {
                let u = queue[head];
                head += 1;
                for &l in adj.ports(u) {
                    let v = adj.other_end(l, u);
                    if d[v as usize] == NONE {
                        d[v as usize] = d[u as usize] + 1;
                        reached.push(v);
                        if is_switch(v) {
                            queue.push(v);
                        }
                    }
                }
            }
            for (r, &u) in switches.iter().enumerate() {
                dist[r * ng + gi] = d[u as usize];
            }
        }

        // Next hops toward each group node, switch-major (none at the group
        // node itself: its next hop toward a host is the host's link).
        let mut slots: Vec<(u32, u32)> = Vec::with_capacity(switches.len() * ng);
        let mut seen: std::collections::HashMap<Vec<u32>, u32> = Default::default();
        let mut next = Vec::new();
        for (r, &u) in switches.iter().enumerate() {
            let ports = adj.ports(u);
            // This switch's lists so far, and where each starts.
            seen.clear();
            for (gi, &g) in group_node.iter().enumerate() {
                let du = dist[r * ng + gi];
                let start = next.len();
                if u != g && du != NONE {
                    for &l in ports {
                        let v = adj.other_end(l, u);
                        let dv = if v == g {
                            0
                        } else if is_switch(v) {
                            dist[row[v as usize] as usize * ng + gi]
                        } else {
                            continue;
                        };
                        if dv != NONE && dv + 1 == du {
                            next.push(l);
                        }
                    }
                }
                if order == NextHopOrder::Descending {
                    next[start..].reverse();
                }
                let len = next.len() - start;
                let at = match seen.get(&next[start..]) {
                    Some(&at) => {
                        next.truncate(start);
                        at
                    }
                    None => {
                        let at = u32::try_from(start).expect("route table over 4G entries");
                        seen.insert(next[start..].to_vec(), at);
                        at
                    }
                };
                slots.push((at, len as u32));
            }
        }
        next.shrink_to_fit();
        Routes {
            n_nodes: n,
            hosts,
            host_index,
            host_link,
            host_group,
            group_node,
            row,
            dist,
            slots,
            next,
        }
    }

    /// Number of nodes the routes cover.
    pub fn n_nodes(&self) -> usize {
        self.n_nodes
    }

    /// The hosts, ascending; a host's position here is its host index.
    pub fn hosts(&self) -> &[NodeId] {
        &self.hosts
    }

    /// The group of host `host`: the hosts that hang from one node share
    /// a group, and every node other than the host itself and the group's
    /// node ([`Routes::group_node`]) has the same next hops toward each
    /// host of a group ([`Routes::next_hops`] reads them from one table
    /// slot). `None` if `host` is not a host or has no link.
    #[inline]
    pub fn group(&self, host: NodeId) -> Option<u32> {
        let hi = self.host_index(host)?;
        match self.host_group[hi as usize] {
            NONE => None,
            g => Some(g),
        }
    }

    /// The link of host `host` that its routes start with (its one link),
    /// or `None` if it is not a host or has no link.
    pub fn host_link(&self, host: NodeId) -> Option<u32> {
        let hi = self.host_index(host)?;
        match self.host_link[hi as usize] {
            NONE => None,
            l => Some(l),
        }
    }

    /// Number of groups: the nodes that hosts hang from.
    pub fn n_groups(&self) -> usize {
        self.group_node.len()
    }

    /// The node the hosts of group `group` hang from.
    ///
    /// # Panics
    /// If `group` is not below [`Routes::n_groups`].
    pub fn group_node(&self, group: u32) -> NodeId {
        self.group_node[group as usize]
    }

    /// Rank of `node` among the hosts, or `None` if it is not a host.
    #[inline]
    pub fn host_index(&self, node: NodeId) -> Option<u32> {
        match self.host_index.get(node as usize) {
            Some(&i) if i != NONE => Some(i),
            _ => None,
        }
    }

    /// Where the route from `node` to `host` is kept: `None` if there is
    /// none (not a host, out of range, no link), `Own` for the host itself,
    /// `Last(hi)` at the node the host hangs from, else `Table(slot)`.
    #[inline]
    fn slot(&self, node: NodeId, host: NodeId) -> Option<Slot> {
        let hi = *self.host_index.get(host as usize)?;
        if hi == NONE || node as usize >= self.n_nodes {
            return None;
        }
        if node == host {
            return Some(Slot::Own);
        }
        let gi = self.host_group[hi as usize];
        if gi == NONE {
            return None;
        }
        if self.group_node[gi as usize] == node {
            return Some(Slot::Last(hi as usize));
        }
        match self.row[node as usize] {
            NONE => {
                let from = self.host_index[node as usize];
                (from != NONE).then_some(Slot::FromHost(from as usize, gi as usize))
            }
            r => Some(Slot::Table(
                r as usize * self.group_node.len() + gi as usize,
            )),
        }
    }

    /// Hops from the host of host index `from` to the node of group `gi`
    /// (not the host itself), through its one link; `None` if unreachable.
    fn host_to_group(&self, from: usize, gi: usize) -> Option<u32> {
        let own = self.host_group[from];
        if own == NONE {
            return None;
        }
        let w = self.group_node[own as usize];
        if w == self.group_node[gi] {
            return Some(1);
        }
        // Hosts do not transit: past a host, nothing is reached.
        let r = self.row[w as usize];
        if r == NONE {
            return None;
        }
        let d = self.dist[r as usize * self.group_node.len() + gi];
        (d != NONE).then_some(d + 1)
    }

    /// Indices of every link out of `node` on a shortest path to host `host`,
    /// ascending. Empty when `node == host`, when `host` is not a host, or
    /// when `host` cannot be reached.
    #[inline]
    pub fn next_hops(&self, node: NodeId, host: NodeId) -> &[u32] {
        match self.slot(node, host) {
            Some(Slot::Table(i)) => {
                let (start, len) = self.slots[i];
                &self.next[start as usize..(start + len) as usize]
            }
            Some(Slot::Last(hi)) => std::slice::from_ref(&self.host_link[hi]),
            Some(Slot::FromHost(from, gi)) => match self.host_to_group(from, gi) {
                Some(_) => std::slice::from_ref(&self.host_link[from]),
                None => &[],
            },
            Some(Slot::Own) | None => &[],
        }
    }

    /// Links on a shortest path from `node` to host `host`, or `None` if it
    /// cannot reach `host` (or `host` is not a host). `Some(0)` for
    /// `node == host`.
    pub fn distance(&self, node: NodeId, host: NodeId) -> Option<u32> {
        match self.slot(node, host)? {
            Slot::Own => Some(0),
            Slot::Last(_) => Some(1),
            Slot::Table(i) => {
                let d = self.dist[i];
                (d != NONE).then_some(d + 1)
            }
            Slot::FromHost(from, gi) => self.host_to_group(from, gi).map(|d| d + 1),
        }
    }

    /// Links on a shortest path from `src` to host `dst`.
    ///
    /// # Panics
    /// If `dst` is not a host or cannot be reached from `src`; neither
    /// happens for two nodes of a topology that passes
    /// [`Topology::validate`].
    pub fn hops(&self, src: NodeId, dst: NodeId) -> u32 {
        self.distance(src, dst)
            .unwrap_or_else(|| panic!("no route from node {src} to host {dst}"))
    }

    /// One shortest path from `src` to host `dst`, as link indices in order,
    /// always taking the first next hop (lowest link index). Deterministic;
    /// used for base-RTT computations. Empty if `src == dst` or there is no
    /// route. `topo` must be the topology the routes were computed from.
    pub fn path(&self, topo: &Topology, src: NodeId, dst: NodeId) -> Vec<u32> {
        let Some(d) = self.distance(src, dst) else {
            return Vec::new();
        };
        let mut path = Vec::with_capacity(d as usize);
        let mut at = src;
        while at != dst {
            let l = self.next_hops(at, dst)[0];
            path.push(l);
            at = topo.links[l as usize].other(at);
        }
        path
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{dumbbell, peer_fat_tree, star, LinkSpec};
    use engine::{Delta, Rate};

    /// Descending order lists the same next hops as ascending, reversed;
    /// single next hops are unchanged.
    #[test]
    fn descending_order_reverses_each_list_of_next_hops() {
        let t = peer_fat_tree();
        let up = Routes::compute(&t);
        let down = Routes::compute_ordered(&t, NextHopOrder::Descending);
        let mut multi = 0;
        for node in 0..t.kinds.len() as NodeId {
            for &h in &[0, 17, 319] {
                let mut a = up.next_hops(node, h).to_vec();
                let b = down.next_hops(node, h);
                if a.len() > 1 {
                    multi += 1;
                    assert!(a.windows(2).all(|w| w[0] < w[1]), "{a:?}");
                }
                a.reverse();
                assert_eq!(a, b, "node {node} to host {h}");
            }
        }
        // ToRs and aggregation switches have 4 next hops up the tree.
        assert!(multi > 50, "{multi}");
    }

    #[test]
    fn peer_fat_tree_routes() {
        let t = peer_fat_tree();
        let r = Routes::compute(&t);
        let adj = t.adjacency();
        // Host 0 sits on ToR 320 (pod 0); host 319 on ToR 339 (pod 4).
        let (src, dst) = (0, 319);
        assert_eq!(r.hops(src, dst), 6);
        let p = r.path(&t, src, dst);
        assert_eq!(p.len(), 6);
        // Walk it: host 0 -> ToR 320 -> agg 340 -> core 360 -> agg 356 -> ToR 339 -> 319.
        let mut at = src;
        let mut nodes = vec![at];
        for &l in &p {
            at = t.links[l as usize].other(at);
            nodes.push(at);
        }
        assert_eq!(nodes, vec![0, 320, 340, 360, 356, 339, 319]);

        // Equal-cost next hops along the way: 1 * 4 * 4 * 1 * 1 * 1 = 16 paths.
        assert_eq!(r.next_hops(0, dst), &[0]);
        let tor = r.next_hops(320, dst);
        assert_eq!(tor.len(), 4);
        let aggs: Vec<u32> = tor.iter().map(|&l| adj.other_end(l, 320)).collect();
        assert_eq!(aggs, vec![340, 341, 342, 343]);
        assert!(tor.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(r.next_hops(341, dst).len(), 4);
        let cores: Vec<u32> = r
            .next_hops(341, dst)
            .iter()
            .map(|&l| adj.other_end(l, 341))
            .collect();
        assert_eq!(cores, vec![364, 365, 366, 367]);
        // Core 365 (group 1) goes down to agg 1 of pod 4 only.
        let down = r.next_hops(365, dst);
        assert_eq!(down.len(), 1);
        assert_eq!(adj.other_end(down[0], 365), 357);
        assert_eq!(r.next_hops(357, dst).len(), 1);
        assert_eq!(r.next_hops(339, dst), &[319]);
        assert_eq!(count_paths(&t, &r, src, dst), 16);

        // Same ToR: 2 links; same pod, other ToR: 4 links via any of 4 aggs.
        assert_eq!(r.hops(0, 15), 2);
        assert_eq!(r.path(&t, 0, 15), vec![0, 15]);
        assert_eq!(r.hops(0, 16), 4);
        assert_eq!(r.next_hops(320, 16).len(), 4);
        assert_eq!(r.next_hops(340, 16).len(), 1);
        assert_eq!(count_paths(&t, &r, 0, 16), 4);

        // Hosts never transit; a ToR's route to its own host is the host link.
        assert_eq!(r.next_hops(320, 5), &[5]);
        assert!(r.next_hops(5, 5).is_empty());
        assert!(r.next_hops(5, 320).is_empty()); // 320 is not a host
        assert_eq!(r.distance(5, 5), Some(0));
        assert_eq!(r.host_index(319), Some(319));
        assert_eq!(r.host_index(320), None);
        // Groups: one per ToR, its hosts' links their first hops.
        assert_eq!(r.n_groups(), 20);
        let g = r.group(17).unwrap();
        assert_eq!(r.group_node(g), 321);
        assert_eq!(r.group(31), Some(g));
        assert_ne!(r.group(32), Some(g));
        assert_eq!(r.host_link(17), Some(17));
        assert_eq!((r.group(320), r.host_link(320)), (None, None));
        // Every host reaches every host.
        for &a in t.hosts().iter().step_by(7) {
            for &b in t.hosts().iter().step_by(5) {
                if a != b {
                    let want = if a / 16 == b / 16 {
                        2
                    } else if a / 64 == b / 64 {
                        4
                    } else {
                        6
                    };
                    assert_eq!(r.hops(a, b), want, "{a} -> {b}");
                    assert_eq!(r.path(&t, a, b).len(), want as usize);
                }
            }
        }
    }

    /// Number of distinct shortest paths, following every next hop.
    fn count_paths(t: &Topology, r: &Routes, at: NodeId, dst: NodeId) -> usize {
        if at == dst {
            return 1;
        }
        r.next_hops(at, dst)
            .iter()
            .map(|&l| count_paths(t, r, t.links[l as usize].other(at), dst))
            .sum()
    }

    #[test]
    fn hosts_do_not_transit() {
        // Switch 3 reaches host 1 directly, and also via host 0 (which
        // illegally has two links): the host path must not be used even where
        // it ties in length.
        // Nodes: hosts 0, 1; switches 2, 3. Links: 0-2, 0-3, 2-1, 3-2.
        let l = |a, b| LinkSpec::new(a, b, Rate::gbps(1), Delta::ZERO);
        let t = Topology {
            kinds: vec![
                NodeKind::Host,
                NodeKind::Host,
                NodeKind::Switch,
                NodeKind::Switch,
            ],
            links: vec![l(0, 2), l(0, 3), l(2, 1), l(3, 2)],
        };
        let r = Routes::compute(&t);
        assert_eq!(r.next_hops(3, 1), &[3]);
        assert_eq!(r.next_hops(0, 1), &[0]);
        assert_eq!(r.hops(3, 1), 2);
    }

    /// The routes as one breadth-first search per host computes them (the
    /// peer's `CalculateRoute`, and rdmasim's tables before they were kept
    /// per attachment node): (distance, next hops) for every (node, host).
    fn per_host_reference(t: &Topology) -> Vec<Vec<(Option<u32>, Vec<u32>)>> {
        let adj = t.adjacency();
        let n = t.kinds.len();
        let is_switch = |x: NodeId| t.kinds[x as usize] == NodeKind::Switch;
        let mut out = vec![Vec::new(); n];
        for h in t.hosts() {
            let mut dist = vec![NONE; n];
            dist[h as usize] = 0;
            let mut queue = vec![h];
            let mut head = 0;
            while head < queue.len() {
                let u = queue[head];
                head += 1;
                for &l in adj.ports(u) {
                    let v = adj.other_end(l, u);
                    if dist[v as usize] == NONE {
                        dist[v as usize] = dist[u as usize] + 1;
                        if is_switch(v) {
                            queue.push(v);
                        }
                    }
                }
            }
            for u in 0..n as NodeId {
                let d = dist[u as usize];
                let next = if u == h || d == NONE {
                    Vec::new()
                } else {
                    adj.ports(u)
                        .iter()
                        .copied()
                        .filter(|&l| {
                            let v = adj.other_end(l, u);
                            let dv = dist[v as usize];
                            (v == h || is_switch(v)) && dv != NONE && dv + 1 == d
                        })
                        .collect()
                };
                out[u as usize].push(((d != NONE).then_some(d), next));
            }
        }
        out
    }

    /// Tables kept per attachment node give every (node, host) route that a
    /// search per host gives: trees, parallel long links, relays, a
    /// dumbbell, a star, two hosts joined directly, and a network with a
    /// host link and a core link taken out (as after link failures).
    #[test]
    fn routes_per_attachment_node_equal_routes_per_host() {
        let r100 = Rate::gbps(100);
        let us = Delta::from_us(1);
        let mut failed = crate::fat_tree(4, r100, r100, us).unwrap();
        failed.links.remove(3); // host 3's link
        let core = failed.links.len() - 1;
        failed.links.remove(core);
        let two = Topology {
            kinds: vec![NodeKind::Host, NodeKind::Host],
            links: vec![LinkSpec::new(0, 1, r100, us)],
        };
        let topos = [
            peer_fat_tree(),
            crate::fat_tree(4, r100, Rate::gbps(400), us).unwrap(),
            crate::leaf_spine(3, 2, 4, r100, 2.0, us).unwrap(),
            dumbbell(3, 2, r100, Rate::gbps(10), us).unwrap(),
            star(5, r100, us).unwrap(),
            crate::cross_dc(crate::CrossDcSpec {
                long_links: 2,
                relays: true,
                ..crate::CrossDcSpec::SWING
            })
            .unwrap(),
            failed,
            two,
        ];
        for t in &topos {
            let r = Routes::compute(t);
            let want = per_host_reference(t);
            for (u, row) in want.iter().enumerate() {
                for (hi, (d, next)) in row.iter().enumerate() {
                    let h = t.hosts()[hi];
                    let u = u as NodeId;
                    assert_eq!(r.distance(u, h), *d, "distance {u} -> {h}");
                    assert_eq!(r.next_hops(u, h), next.as_slice(), "next hops {u} -> {h}");
                }
            }
        }
        // The peer's tree: one column per ToR, one row per switch (hosts
        // have none).
        let t = peer_fat_tree();
        let r = Routes::compute(&t);
        assert_eq!(r.group_node.len(), 20);
        let switches = t.kinds.len() - t.hosts().len();
        assert_eq!(r.dist.len(), switches * 20);
        assert_eq!(r.slots.len(), switches * 20);
        // Shared lists: a ToR's 4 links up and, for its own group, none;
        // an aggregation switch's 4 links up and one down per ToR of its
        // pod; a core's one down per pod.
        assert_eq!(r.next.len(), 20 * 4 + 20 * (4 + 4) + 16 * 5);
        assert_eq!(
            r.next_hops(320, 300).as_ptr(),
            r.next_hops(320, 200).as_ptr()
        );
    }

    #[test]
    fn small_shapes() {
        let t = star(4, Rate::gbps(10), Delta::from_us(1)).unwrap();
        let r = Routes::compute(&t);
        assert_eq!(r.path(&t, 1, 3), vec![1, 3]);
        assert_eq!(r.next_hops(4, 2), &[2]);
        assert!(r.path(&t, 2, 2).is_empty());

        let t = dumbbell(2, 2, Rate::gbps(10), Rate::gbps(1), Delta::from_us(1)).unwrap();
        let r = Routes::compute(&t);
        assert_eq!(r.path(&t, 0, 3), vec![0, 4, 3]);
        assert_eq!(r.hops(0, 1), 2);
        assert_eq!(r.n_nodes(), 6);
        assert_eq!(r.hosts(), &[0, 1, 2, 3]);
    }
}
