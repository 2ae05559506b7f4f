//! Cutting a network into partitions along links, for the conservative
//! parallel engine (`docs/parallel.md`): each partition's nodes (hosts and
//! switches, never split) run on one thread, and what crosses a cut link
//! arrives at least that link's delay later, so the smallest delay of a
//! cut link, the lookahead, is how far the partitions may run apart.
//!
//! The automatic map ([`PartitionMap::auto`]) cuts first along long links
//! (those of at least [`PartitionSpec::long_link_factor`] times the
//! shortest delay: the long-haul links of a cross-DC fabric, whose
//! milliseconds make the lookahead large), then, where a part needs more
//! partitions than it has long-link pieces, below its top switch tiers
//! (a fat tree's or Clos's cores: its pods; a leaf–spine's spines: each
//! leaf with its hosts). The pieces go to partitions largest first, each
//! to the partition with the least work so far. Work is counted in ports,
//! the proxy for packet·hops: every port sends its frames, and in a
//! non-blocking fabric under uniform load every link carries about the
//! same traffic. An override ([`PartitionMap::from_groups`]) lists the
//! nodes of each partition.

use engine::Delta;
use std::fmt;
use topo::{NodeId, Topology};

/// Default of [`PartitionSpec::long_link_factor`]: a link at least ten
/// times longer than the shortest is a long link (a datacenter's links
/// are within a few µs of each other; a long-haul link is hundreds of µs
/// or more).
pub const LONG_LINK_FACTOR: u64 = 10;

/// How to cut a network: how many threads, and optionally which nodes go
/// together. The names are those of the configuration's keys, which the
/// errors name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartitionSpec {
    /// Threads, one partition each (`threads`; at least 1).
    pub threads: u32,
    /// The override (`partitions`): the nodes of each partition, every
    /// node in exactly one. `None`: automatic.
    pub groups: Option<Vec<Vec<NodeId>>>,
    /// A link whose delay is at least this multiple of the shortest link
    /// delay is a long link, cut first (`long_link_factor`; at least 1).
    pub long_link_factor: u64,
}

impl PartitionSpec {
    /// `threads` partitions, cut automatically.
    pub fn auto(threads: u32) -> PartitionSpec {
        PartitionSpec {
            threads,
            groups: None,
            long_link_factor: LONG_LINK_FACTOR,
        }
    }
}

/// A partitioning that cannot be made: the configuration key at fault and
/// what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartitionError {
    /// The key (`threads`, `partitions`, `long_link_factor`).
    pub key: &'static str,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for PartitionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.key, self.message)
    }
}

impl std::error::Error for PartitionError {}

fn err<T>(key: &'static str, message: String) -> Result<T, PartitionError> {
    Err(PartitionError { key, message })
}

/// Which partition every node is in, the links that cross, and the
/// lookahead they allow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartitionMap {
    /// Per node id: its partition. Partitions are numbered by their
    /// smallest node id.
    part: Vec<u32>,
    parts: u32,
    /// Links (indices into `Topology::links`) whose ends are in different
    /// partitions, ascending.
    cut: Vec<u32>,
    /// The smallest delay of a cut link; `None` when nothing is cut.
    lookahead: Option<Delta>,
    /// Per partition: its ports (work) and hosts.
    ports: Vec<u64>,
    hosts: Vec<u32>,
}

impl PartitionMap {
    /// The map `spec` asks for: its override if it has one, else cut
    /// automatically into `spec.threads` partitions.
    pub fn new(topo: &Topology, spec: &PartitionSpec) -> Result<PartitionMap, PartitionError> {
        if spec.threads == 0 {
            return err("threads", "must be at least 1 (got 0)".into());
        }
        if spec.long_link_factor == 0 {
            return err("long_link_factor", "must be at least 1 (got 0)".into());
        }
        match &spec.groups {
            Some(groups) => {
                let map = PartitionMap::from_groups(topo, groups)?;
                if spec.threads > map.parts {
                    return err(
                        "threads",
                        format!(
                            "{} threads, but `partitions` makes only {} partitions",
                            spec.threads, map.parts
                        ),
                    );
                }
                Ok(map)
            }
            None => PartitionMap::auto(topo, spec.threads, spec.long_link_factor),
        }
    }

    /// Cut `topo` into `threads` partitions (module doc).
    pub fn auto(
        topo: &Topology,
        threads: u32,
        long_link_factor: u64,
    ) -> Result<PartitionMap, PartitionError> {
        if threads == 0 {
            return err("threads", "must be at least 1 (got 0)".into());
        }
        let g = Graph::new(topo);
        let n = topo.n_nodes();
        let (comps, pieces) = cut_pieces(topo, &g, long_link_factor);
        let most: u64 = pieces.iter().map(|p| p.len() as u64).sum();
        if u64::from(threads) > most {
            return err(
                "threads",
                format!(
                    "{threads} threads, but this network cuts into at most {most} partitions \
                     (nodes are never split)"
                ),
            );
        }
        let weight = |nodes: &[NodeId]| nodes.iter().map(|&v| g.degree(v)).sum::<u64>();
        // How many partitions each long-link part gets: when there are
        // fewer partitions than parts, the parts are packed together;
        // else every part gets one, and each further one goes to the part
        // with the most work per partition that can still be split.
        let mut part_of = vec![u32::MAX; n];
        let mut place = |groups: Vec<Vec<NodeId>>, first: u32| {
            for (p, grp) in groups.into_iter().enumerate() {
                for v in grp {
                    part_of[v as usize] = first + p as u32;
                }
            }
        };
        if (threads as usize) <= comps.len() {
            place(pack(&comps, threads as usize, &weight), 0);
        } else {
            let w: Vec<u64> = comps.iter().map(|c| weight(c)).collect();
            let mut share = vec![1u64; comps.len()];
            for _ in comps.len()..threads as usize {
                let best = (0..comps.len())
                    .filter(|&i| share[i] < pieces[i].len() as u64)
                    .max_by(|&a, &b| {
                        // w[a]/share[a] against w[b]/share[b]; the lower
                        // index wins a tie.
                        (u128::from(w[a]) * u128::from(share[b]))
                            .cmp(&(u128::from(w[b]) * u128::from(share[a])))
                            .then(b.cmp(&a))
                    })
                    .expect("the threads fit the pieces");
                share[best] += 1;
            }
            let tier = g.tiers(topo);
            let mut first = 0;
            for (i, pcs) in pieces.iter().enumerate() {
                place(balance(pcs, share[i] as usize, &weight, &g, &tier), first);
                first += share[i] as u32;
            }
        }
        PartitionMap::finish(topo, &g, part_of)
    }

    /// The most partitions [`PartitionMap::auto`] can cut `topo` into.
    pub fn most_parts(topo: &Topology, long_link_factor: u64) -> u32 {
        let g = Graph::new(topo);
        let (_, pieces) = cut_pieces(topo, &g, long_link_factor.max(1));
        let most: usize = pieces.iter().map(Vec::len).sum();
        u32::try_from(most.max(1)).unwrap_or(u32::MAX)
    }

    /// The override: `groups[i]` lists the nodes of partition `i`; every
    /// node must be in exactly one (a node in two would be split).
    pub fn from_groups(
        topo: &Topology,
        groups: &[Vec<NodeId>],
    ) -> Result<PartitionMap, PartitionError> {
        if groups.is_empty() {
            return err("partitions", "lists no partition".into());
        }
        let n = topo.n_nodes();
        let mut part_of = vec![u32::MAX; n];
        for (p, grp) in groups.iter().enumerate() {
            if grp.is_empty() {
                return err("partitions", format!("partition {p} lists no node"));
            }
            for &v in grp {
                if v as usize >= n {
                    return err(
                        "partitions",
                        format!("partition {p} lists node {v}, but the network has {n} nodes"),
                    );
                }
                let was = part_of[v as usize];
                if was == p as u32 {
                    return err("partitions", format!("partition {p} lists node {v} twice"));
                }
                if was != u32::MAX {
                    return err(
                        "partitions",
                        format!(
                            "node {v} is in partitions {was} and {p}: a node cannot be split \
                             between partitions"
                        ),
                    );
                }
                part_of[v as usize] = p as u32;
            }
        }
        if let Some(v) = part_of.iter().position(|&p| p == u32::MAX) {
            return err(
                "partitions",
                format!("node {v} is in no partition (every node must be in one)"),
            );
        }
        let g = Graph::new(topo);
        PartitionMap::finish(topo, &g, part_of)
    }

    /// Number the partitions by their smallest node, find the cut links
    /// and the lookahead.
    fn finish(
        topo: &Topology,
        g: &Graph,
        mut part_of: Vec<u32>,
    ) -> Result<PartitionMap, PartitionError> {
        let mut map = std::collections::HashMap::new();
        for p in &mut part_of {
            debug_assert_ne!(*p, u32::MAX, "every node placed");
            let next = map.len() as u32;
            *p = *map.entry(*p).or_insert(next);
        }
        let parts = map.len() as u32;
        let mut cut = Vec::new();
        let mut lookahead: Option<Delta> = None;
        for (i, l) in topo.links.iter().enumerate() {
            let (a, b) = (l.a as usize, l.b as usize);
            if a >= part_of.len() || b >= part_of.len() || part_of[a] == part_of[b] {
                continue;
            }
            if l.delay.0 == 0 {
                return err(
                    "partitions",
                    format!(
                        "link {i} (nodes {a}–{b}) is cut but has no delay: partitions must be \
                         joined by links with a delay (the lookahead)"
                    ),
                );
            }
            cut.push(i as u32);
            lookahead = Some(lookahead.map_or(l.delay, |d| d.min(l.delay)));
        }
        let mut ports = vec![0u64; parts as usize];
        let mut hosts = vec![0u32; parts as usize];
        for (v, &p) in part_of.iter().enumerate() {
            ports[p as usize] += g.degree(v as NodeId);
            if topo.is_host(v as NodeId) {
                hosts[p as usize] += 1;
            }
        }
        Ok(PartitionMap {
            part: part_of,
            parts,
            cut,
            lookahead,
            ports,
            hosts,
        })
    }

    /// Number of partitions.
    pub fn parts(&self) -> u32 {
        self.parts
    }

    /// The partition of node `node`.
    pub fn partition_of(&self, node: NodeId) -> u32 {
        self.part[node as usize]
    }

    /// The links whose ends are in different partitions, ascending.
    pub fn cut_links(&self) -> &[u32] {
        &self.cut
    }

    /// The smallest delay of a cut link: how far ahead of the others a
    /// partition may run. `None` when nothing is cut (one partition, or
    /// parts not joined at all).
    pub fn lookahead(&self) -> Option<Delta> {
        self.lookahead
    }

    /// Per partition: its ports, the work it was balanced by.
    pub fn ports(&self) -> &[u64] {
        &self.ports
    }

    /// Per partition: its hosts.
    pub fn hosts(&self) -> &[u32] {
        &self.hosts
    }
}

/// The parts of `topo` left when its long links are cut, and each part's
/// pieces below its top tiers (module doc).
#[allow(clippy::type_complexity)]
fn cut_pieces(
    topo: &Topology,
    g: &Graph,
    long_link_factor: u64,
) -> (Vec<Vec<NodeId>>, Vec<Vec<Vec<NodeId>>>) {
    let shortest = topo.links.iter().map(|l| l.delay.0).min().unwrap_or(0);
    let long = |li: u32| {
        let d = topo.links[li as usize].delay.0;
        shortest > 0 && d >= shortest.saturating_mul(long_link_factor) && d > shortest
    };
    let all = vec![true; topo.n_nodes()];
    let comps = g.components(&all, |li| !long(li));
    let tier = g.tiers(topo);
    let pieces = comps.iter().map(|c| g.split(c, &tier)).collect();
    (comps, pieces)
}

/// Pack `pieces` into `parts` groups: largest first (then by smallest
/// node), each into the group with the least work so far (then the lowest
/// index). Every group gets at least one piece (`parts <= pieces.len()`,
/// or one group of everything when `pieces` is empty).
fn pack(
    pieces: &[Vec<NodeId>],
    parts: usize,
    weight: &impl Fn(&[NodeId]) -> u64,
) -> Vec<Vec<NodeId>> {
    let mut order: Vec<(u64, NodeId, usize)> = pieces
        .iter()
        .enumerate()
        .map(|(i, p)| (weight(p), p.iter().copied().min().unwrap_or(0), i))
        .collect();
    order.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut groups: Vec<(u64, Vec<NodeId>)> = vec![(0, Vec::new()); parts.max(1)];
    for (k, &(w, _, i)) in order.iter().enumerate() {
        // The first `parts` pieces open the groups, so none stays empty.
        let g = if k < groups.len() {
            k
        } else {
            (0..groups.len())
                .min_by_key(|&g| (groups[g].0, g))
                .expect("at least one group")
        };
        groups[g].0 += w;
        groups[g].1.extend_from_slice(&pieces[i]);
    }
    groups.into_iter().map(|(_, v)| v).collect()
}

/// How far above the mean work the busiest partition may be before
/// [`balance`] splits a piece further: 2%. A pod is the natural piece of a
/// fat tree, but a few pods rarely share out evenly (the peer's five pods
/// on two threads: 10% above the mean); splitting one pod below its
/// aggregation switches costs some more cut links and evens the work.
const BALANCE_TOLERANCE_PCT: u64 = 2;

/// [`pack`] `pieces` into `parts` groups; while the busiest group has more
/// than [`BALANCE_TOLERANCE_PCT`] above the mean work, split the heaviest
/// piece that splits (below its own top tier, as [`Graph::split`] cuts a
/// part) and pack again, as long as that lightens the busiest group.
fn balance(
    pieces: &[Vec<NodeId>],
    parts: usize,
    weight: &impl Fn(&[NodeId]) -> u64,
    g: &Graph,
    tier: &[u32],
) -> Vec<Vec<NodeId>> {
    let busiest = |groups: &[Vec<NodeId>]| groups.iter().map(|x| weight(x)).max().unwrap_or(0);
    let total: u64 = pieces.iter().map(|p| weight(p)).sum();
    let mut pieces = pieces.to_vec();
    let mut groups = pack(&pieces, parts, weight);
    loop {
        let most = busiest(&groups);
        if most * parts as u64 * 100 <= total * (100 + BALANCE_TOLERANCE_PCT) {
            return groups;
        }
        // The heaviest piece that splits (then the smallest node first).
        let mut order: Vec<usize> = (0..pieces.len()).filter(|&i| pieces[i].len() > 1).collect();
        order.sort_by_key(|&i| (std::cmp::Reverse(weight(&pieces[i])), pieces[i][0]));
        let Some((i, sub)) = order.into_iter().find_map(|i| {
            let sub = g.split(&pieces[i], tier);
            (sub.len() >= 2).then_some((i, sub))
        }) else {
            return groups;
        };
        let mut finer = pieces.clone();
        finer.splice(i..=i, sub);
        let regrouped = pack(&finer, parts, weight);
        if busiest(&regrouped) >= most {
            return groups;
        }
        pieces = finer;
        groups = regrouped;
    }
}

/// The topology as adjacency lists: (neighbour, link) per node.
struct Graph {
    adj: Vec<Vec<(NodeId, u32)>>,
}

impl Graph {
    fn new(topo: &Topology) -> Graph {
        let n = topo.n_nodes();
        let mut adj = vec![Vec::new(); n];
        for (i, l) in topo.links.iter().enumerate() {
            if (l.a as usize) < n && (l.b as usize) < n {
                adj[l.a as usize].push((l.b, i as u32));
                adj[l.b as usize].push((l.a, i as u32));
            }
        }
        Graph { adj }
    }

    fn degree(&self, v: NodeId) -> u64 {
        self.adj[v as usize].len() as u64
    }

    /// The connected components of the nodes in `keep` over the links
    /// `use_link` accepts, each ascending, in order of their smallest node.
    fn components(&self, keep: &[bool], use_link: impl Fn(u32) -> bool) -> Vec<Vec<NodeId>> {
        let mut seen = vec![false; self.adj.len()];
        let mut out = Vec::new();
        for s in 0..self.adj.len() {
            if seen[s] || !keep[s] {
                continue;
            }
            seen[s] = true;
            let mut comp = vec![s as NodeId];
            let mut i = 0;
            while i < comp.len() {
                let v = comp[i] as usize;
                i += 1;
                for &(w, li) in &self.adj[v] {
                    if !seen[w as usize] && keep[w as usize] && use_link(li) {
                        seen[w as usize] = true;
                        comp.push(w);
                    }
                }
            }
            comp.sort_unstable();
            out.push(comp);
        }
        out
    }

    /// Each node's tier: 0 for a host, else its distance in hops from the
    /// nearest host (a ToR 1, an agg 2, a core 3); `u32::MAX` for a switch
    /// that reaches no host.
    fn tiers(&self, topo: &Topology) -> Vec<u32> {
        let mut tier = vec![u32::MAX; self.adj.len()];
        let mut frontier: Vec<NodeId> = topo.hosts();
        for &h in &frontier {
            tier[h as usize] = 0;
        }
        let mut d = 0;
        while !frontier.is_empty() {
            d += 1;
            let mut next = Vec::new();
            for &v in &frontier {
                for &(w, _) in &self.adj[v as usize] {
                    if tier[w as usize] == u32::MAX {
                        tier[w as usize] = d;
                        next.push(w);
                    }
                }
            }
            frontier = next;
        }
        tier
    }

    /// Pieces of component `comp` to spread over partitions: below the
    /// fewest top tiers whose removal leaves it in two pieces or more,
    /// each piece with hosts, and each removed switch a piece of its own;
    /// `comp` whole if no cut splits it.
    fn split(&self, comp: &[NodeId], tier: &[u32]) -> Vec<Vec<NodeId>> {
        let top = comp
            .iter()
            .map(|&v| tier[v as usize])
            .filter(|&t| t != u32::MAX)
            .max()
            .unwrap_or(0);
        let mut keep = vec![false; self.adj.len()];
        for level in (1..=top).rev() {
            for &v in comp {
                let t = tier[v as usize];
                keep[v as usize] = t < level;
            }
            let below = self.components(&keep, |_| true);
            if below.len() >= 2 {
                let mut pieces = below;
                for &v in comp {
                    if !keep[v as usize] {
                        pieces.push(vec![v]);
                    }
                }
                return pieces;
            }
        }
        vec![comp.to_vec()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{Delta, Rate};
    use topo::{CrossDcSpec, LinkSpec, NodeKind};

    fn fat(k: u32) -> Topology {
        topo::fat_tree(k, Rate::gbps(100), Rate::gbps(100), Delta::from_us(1)).unwrap()
    }

    /// Every link is cut iff its ends differ, and the lookahead is the
    /// least delay of the cut ones.
    fn check_consistent(t: &Topology, m: &PartitionMap) {
        let mut cut = Vec::new();
        for (i, l) in t.links.iter().enumerate() {
            if m.partition_of(l.a) != m.partition_of(l.b) {
                cut.push(i as u32);
            }
        }
        assert_eq!(m.cut_links(), &cut[..]);
        let la = cut.iter().map(|&i| t.links[i as usize].delay).min();
        assert_eq!(m.lookahead(), la);
        assert_eq!(m.hosts().iter().sum::<u32>() as usize, t.hosts().len());
        assert!(m.hosts().len() == m.parts() as usize);
    }

    #[test]
    fn one_thread_cuts_nothing() {
        let t = fat(4);
        let m = PartitionMap::new(&t, &PartitionSpec::auto(1)).unwrap();
        assert_eq!(m.parts(), 1);
        assert!(m.cut_links().is_empty());
        assert_eq!(m.lookahead(), None);
        check_consistent(&t, &m);
    }

    #[test]
    fn a_fat_tree_cuts_between_pods_and_cores() {
        // k = 4: 16 hosts, 4 pods of 2 ToRs and 2 aggs, 4 cores. Two
        // threads: two pods each, cores shared out; no pod is split, so
        // only agg–core links are cut.
        let t = fat(4);
        let m = PartitionMap::new(&t, &PartitionSpec::auto(2)).unwrap();
        assert_eq!(m.parts(), 2);
        check_consistent(&t, &m);
        assert_eq!(m.hosts(), &[8, 8]);
        let tier = Graph::new(&t).tiers(&t);
        for &li in m.cut_links() {
            let l = &t.links[li as usize];
            let tiers = (
                tier[l.a as usize].min(tier[l.b as usize]),
                tier[l.a as usize].max(tier[l.b as usize]),
            );
            assert_eq!(tiers, (2, 3), "link {li} cut");
        }
        assert_eq!(m.lookahead(), Some(Delta::from_us(1)));
        // Balanced by ports: 16 hosts + 20 switches × 4 ports = 96.
        assert_eq!(m.ports().iter().sum::<u64>(), 96);
        assert_eq!(m.ports(), &[48, 48]);
    }

    #[test]
    fn as_many_threads_as_pods_and_cores_at_most() {
        let t = fat(4);
        // 4 pods + 4 cores = 8 pieces.
        let m = PartitionMap::new(&t, &PartitionSpec::auto(8)).unwrap();
        assert_eq!(m.parts(), 8);
        check_consistent(&t, &m);
        let e = PartitionMap::new(&t, &PartitionSpec::auto(9)).unwrap_err();
        assert_eq!(e.key, "threads");
        assert!(e.message.contains("at most 8 partitions"), "{e}");
    }

    #[test]
    fn zero_threads_is_an_error_naming_the_key() {
        let t = fat(4);
        let e = PartitionMap::new(&t, &PartitionSpec::auto(0)).unwrap_err();
        assert_eq!(e.key, "threads");
        assert_eq!(e.to_string(), "threads: must be at least 1 (got 0)");
        let mut s = PartitionSpec::auto(2);
        s.long_link_factor = 0;
        assert_eq!(
            PartitionMap::new(&t, &s).unwrap_err().key,
            "long_link_factor"
        );
    }

    #[test]
    fn cross_dc_cuts_the_long_links_first() {
        // Two DCs joined by a 3 ms link: two threads cut it alone, and
        // the lookahead is its delay.
        let t = topo::cross_dc(CrossDcSpec::BIFROST).unwrap();
        let m = PartitionMap::new(&t, &PartitionSpec::auto(2)).unwrap();
        check_consistent(&t, &m);
        assert_eq!(m.cut_links().len(), 1);
        assert_eq!(m.lookahead(), Some(Delta::from_ms(3)));
        assert_eq!(m.hosts(), &[16, 16]);
        // Four threads: each DC split below its top tiers; the long link
        // is still cut, and now short ones too.
        let m4 = PartitionMap::new(&t, &PartitionSpec::auto(4)).unwrap();
        check_consistent(&t, &m4);
        assert_eq!(m4.parts(), 4);
        assert_eq!(m4.lookahead(), Some(Delta::from_us(1)));
        let long = t
            .links
            .iter()
            .position(|l| l.delay == Delta::from_ms(3))
            .unwrap() as u32;
        assert!(m4.cut_links().contains(&long));
        assert_eq!(m4.hosts(), &[8, 8, 8, 8]);
    }

    #[test]
    fn the_override_places_every_node_once() {
        let t = fat(4);
        let n = t.n_nodes() as u32;
        // Hosts and ToRs of pods 0–1 with their aggs, and the rest.
        let (a, b): (Vec<u32>, Vec<u32>) =
            (0..n).partition(|&v| v < 8 || (16..20).contains(&v) || (24..28).contains(&v));
        let spec = PartitionSpec {
            threads: 2,
            groups: Some(vec![b.clone(), a.clone()]),
            long_link_factor: LONG_LINK_FACTOR,
        };
        let m = PartitionMap::new(&t, &spec).unwrap();
        check_consistent(&t, &m);
        // Numbered by smallest node: `a` holds node 0.
        assert_eq!(m.partition_of(0), 0);
        assert_eq!(m.partition_of(n - 1), 1);
        // A node in two partitions splits it.
        let mut split = b.clone();
        split.push(3);
        let e = PartitionMap::from_groups(&t, &[a.clone(), split]).unwrap_err();
        assert_eq!(e.key, "partitions");
        assert!(e.message.contains("node 3 is in partitions 0 and 1"), "{e}");
        // A node in none; an empty partition; none at all; out of range.
        let e = PartitionMap::from_groups(&t, &[a.clone(), b[1..].to_vec()]).unwrap_err();
        assert!(
            e.message
                .contains(&format!("node {} is in no partition", b[0])),
            "{e}"
        );
        let e = PartitionMap::from_groups(&t, &[a.clone(), b.clone(), vec![]]).unwrap_err();
        assert!(e.message.contains("partition 2 lists no node"), "{e}");
        assert_eq!(
            PartitionMap::from_groups(&t, &[]).unwrap_err().key,
            "partitions"
        );
        let mut far = b.clone();
        far.push(n);
        let e = PartitionMap::from_groups(&t, &[a.clone(), far]).unwrap_err();
        assert!(e.message.contains(&format!("lists node {n}")), "{e}");
        // More threads than the override's partitions.
        let spec3 = PartitionSpec { threads: 3, ..spec };
        let e = PartitionMap::new(&t, &spec3).unwrap_err();
        assert_eq!(e.key, "threads");
        assert!(e.message.contains("only 2 partitions"), "{e}");
    }

    #[test]
    fn a_cut_without_delay_is_refused() {
        let t = Topology {
            kinds: vec![NodeKind::Host, NodeKind::Switch, NodeKind::Host],
            links: vec![
                LinkSpec::new(0, 1, Rate::gbps(100), Delta::from_us(1)),
                LinkSpec::new(1, 2, Rate::gbps(100), Delta(0)),
            ],
        };
        let e = PartitionMap::from_groups(&t, &[vec![0, 1], vec![2]]).unwrap_err();
        assert_eq!(e.key, "partitions");
        assert!(e.message.contains("link 1"), "{e}");
        let ok = PartitionMap::from_groups(&t, &[vec![0], vec![1, 2]]).unwrap();
        assert_eq!(ok.lookahead(), Some(Delta::from_us(1)));
    }

    #[test]
    fn the_peer_tree_balances_its_pods() {
        // 320 hosts, 5 pods, 16 cores: 5 threads put one pod in each and
        // spread the cores; no ToR is separated from its hosts.
        let t = topo::peer_fat_tree();
        let m = PartitionMap::new(&t, &PartitionSpec::auto(5)).unwrap();
        check_consistent(&t, &m);
        assert_eq!(m.hosts(), &[64; 5]);
        let tier = Graph::new(&t).tiers(&t);
        for &li in m.cut_links() {
            let l = &t.links[li as usize];
            assert_eq!(
                tier[l.a as usize].max(tier[l.b as usize]),
                3,
                "link {li} cut"
            );
        }
        let (lo, hi) = (
            m.ports().iter().min().unwrap(),
            m.ports().iter().max().unwrap(),
        );
        assert!(hi - lo <= 16, "ports per partition {:?}", m.ports());
    }

    #[test]
    fn two_threads_split_one_pod_of_the_peer_tree_to_balance() {
        // Five pods do not halve: whole pods give 528 and 432 ports. One
        // pod is split below its aggregation switches, and the ports
        // balance within the tolerance; every other pod stays whole.
        let t = topo::peer_fat_tree();
        let m = PartitionMap::new(&t, &PartitionSpec::auto(2)).unwrap();
        check_consistent(&t, &m);
        let total: u64 = m.ports().iter().sum();
        let most = *m.ports().iter().max().unwrap();
        assert!(
            most * 2 * 100 <= total * (100 + BALANCE_TOLERANCE_PCT),
            "ports per partition {:?}",
            m.ports()
        );
        let tier = Graph::new(&t).tiers(&t);
        let below_agg = m
            .cut_links()
            .iter()
            .filter(|&&li| {
                let l = &t.links[li as usize];
                tier[l.a as usize].max(tier[l.b as usize]) == 2
            })
            .count();
        // One pod's ToR–agg links, half of its 16 cut; no host link.
        assert_eq!(below_agg, 8, "ToR–agg links cut");
        for &li in m.cut_links() {
            let l = &t.links[li as usize];
            assert!(tier[l.a as usize].min(tier[l.b as usize]) >= 1, "link {li}");
        }
    }
}
