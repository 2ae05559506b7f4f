//! Builders for the usual shapes. Every builder numbers the hosts first
//! (`0..H`) and the switches after them, and emits the host links first, in
//! host order, as the peer's generated files do; see each builder for the
//! rest of the order.

use crate::{LinkSpec, NodeId, NodeKind, Topology, MAX_SWITCHES};
use engine::{Delta, Rate};

/// Most nodes a builder will make; far beyond what a run can simulate.
const MAX_NODES: u64 = 1 << 24;

pub(crate) fn positive(what: &str, name: &str, v: u32) -> Result<(), String> {
    if v == 0 {
        Err(format!("{what}: {name} must be at least 1"))
    } else {
        Ok(())
    }
}

pub(crate) fn positive_rate(what: &str, name: &str, r: Rate) -> Result<(), String> {
    if r.bps() == 0 {
        Err(format!("{what}: {name} must be greater than zero"))
    } else {
        Ok(())
    }
}

/// The node count of a `what` topology of `hosts` hosts and switches in
/// `switches`, if it is at most [`MAX_NODES`] with at most
/// [`MAX_SWITCHES`] switches; otherwise an error that says which of the
/// builder's keys to lower (`lower`, `lower_switches`), so that a config's
/// error names the key. Checked before anything is built: a fat tree of
/// k = 400 has 16 million hosts.
pub(crate) fn node_count(
    what: &str,
    hosts: u64,
    switches: &[u64],
    lower: &str,
    lower_switches: &str,
) -> Result<u32, String> {
    let n_switches: u64 = switches.iter().sum();
    let total = hosts + n_switches;
    if total > MAX_NODES {
        Err(format!(
            "{what}: {total} nodes is too many (at most {MAX_NODES}); lower {lower}"
        ))
    } else if n_switches > MAX_SWITCHES as u64 {
        Err(format!(
            "{what}: {n_switches} switches is too many (at most {MAX_SWITCHES}); lower \
             {lower_switches}"
        ))
    } else {
        Ok(total as u32)
    }
}

pub(crate) fn kinds(hosts: u32, total: u32) -> Vec<NodeKind> {
    let mut k = vec![NodeKind::Host; hosts as usize];
    k.resize(total as usize, NodeKind::Switch);
    k
}

/// A three-tier tree: pods of ToR (edge) and aggregation switches under a
/// tier of cores. See [`clos`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClosSpec {
    /// Number of pods.
    pub pods: u32,
    /// ToR switches in each pod.
    pub tors_per_pod: u32,
    /// Aggregation switches in each pod.
    pub aggs_per_pod: u32,
    /// Hosts under each ToR.
    pub hosts_per_tor: u32,
    /// Core switches; a multiple of `aggs_per_pod`.
    pub cores: u32,
    /// Rate of the host–ToR links.
    pub host_rate: Rate,
    /// Rate of the ToR–agg and agg–core links.
    pub fabric_rate: Rate,
    /// Propagation delay of every link.
    pub delay: Delta,
}

impl ClosSpec {
    /// The peer's reference fat tree: 5 pods of 4 ToR and 4 agg switches,
    /// 16 cores, 16 hosts per ToR (320 hosts); hosts at 100 Gb/s, the fabric
    /// at 400 Gb/s, 1 µs per link.
    pub const PEER: ClosSpec = ClosSpec {
        pods: 5,
        tors_per_pod: 4,
        aggs_per_pod: 4,
        hosts_per_tor: 16,
        cores: 16,
        host_rate: Rate::gbps(100),
        fabric_rate: Rate::gbps(400),
        delay: Delta::from_us(1),
    };
}

/// A three-tier tree.
///
/// Nodes, in id order: the hosts (ToR `t`'s hosts are
/// `t*hosts_per_tor .. (t+1)*hosts_per_tor`), the ToRs (pod `p`'s are
/// `p*tors_per_pod ..`), the aggs (pod `p`'s are `p*aggs_per_pod ..`), then
/// the cores. Each ToR connects to every agg in its pod. The cores are split
/// into `aggs_per_pod` consecutive groups of `cores / aggs_per_pod`; agg `j`
/// of every pod connects to every core of group `j`.
///
/// Links, in order: host–ToR by host; ToR–agg by ToR, then agg; agg–core by
/// agg, then core. This is the order of the peer's `fat.txt`.
pub fn clos(s: ClosSpec) -> Result<Topology, String> {
    const W: &str = "clos";
    positive(W, "pods", s.pods)?;
    positive(W, "tors_per_pod", s.tors_per_pod)?;
    positive(W, "aggs_per_pod", s.aggs_per_pod)?;
    positive(W, "hosts_per_tor", s.hosts_per_tor)?;
    positive(W, "cores", s.cores)?;
    positive_rate(W, "host_rate", s.host_rate)?;
    positive_rate(W, "fabric_rate", s.fabric_rate)?;
    if !s.cores.is_multiple_of(s.aggs_per_pod) {
        return Err(format!(
            "{W}: cores ({}) must be a multiple of aggs_per_pod ({}): agg j of each pod \
             connects to the j-th of aggs_per_pod equal groups of cores",
            s.cores, s.aggs_per_pod
        ));
    }
    let tors = s.pods as u64 * s.tors_per_pod as u64;
    let aggs = s.pods as u64 * s.aggs_per_pod as u64;
    let hosts = tors * s.hosts_per_tor as u64;
    if hosts < 2 {
        return Err(format!("{W}: the tree has 1 host; it needs at least 2"));
    }
    let total = node_count(
        W,
        hosts,
        &[tors, aggs, s.cores as u64],
        "pods, tors_per_pod, aggs_per_pod, hosts_per_tor or cores",
        "pods, tors_per_pod, aggs_per_pod or cores",
    )?;
    let (hosts, tors, aggs) = (hosts as u32, tors as u32, aggs as u32);
    let tor0 = hosts;
    let agg0 = tor0 + tors;
    let core0 = agg0 + aggs;
    let group = s.cores / s.aggs_per_pod;

    let mut links = Vec::with_capacity((hosts + tors * s.aggs_per_pod + aggs * group) as usize);
    for h in 0..hosts {
        links.push(LinkSpec::new(
            h,
            tor0 + h / s.hosts_per_tor,
            s.host_rate,
            s.delay,
        ));
    }
    for t in 0..tors {
        let pod = t / s.tors_per_pod;
        for j in 0..s.aggs_per_pod {
            let agg = agg0 + pod * s.aggs_per_pod + j;
            links.push(LinkSpec::new(tor0 + t, agg, s.fabric_rate, s.delay));
        }
    }
    for a in 0..aggs {
        let j = a % s.aggs_per_pod;
        for c in 0..group {
            let core = core0 + j * group + c;
            links.push(LinkSpec::new(agg0 + a, core, s.fabric_rate, s.delay));
        }
    }
    Ok(Topology {
        kinds: kinds(hosts, total),
        links,
    })
}

/// The standard k-ary fat tree (`k` even): `k` pods of `k/2` ToR and `k/2`
/// agg switches, `(k/2)^2` cores, `k/2` hosts per ToR, `k^3/4` hosts. Agg `j`
/// of each pod connects to cores `j*(k/2) .. j*(k/2)+k/2-1`. Fabric links run
/// at `fabric_rate`, host links at `host_rate`. Numbering and link order as
/// in [`clos`].
pub fn fat_tree(
    k: u32,
    host_rate: Rate,
    fabric_rate: Rate,
    delay: Delta,
) -> Result<Topology, String> {
    if k < 2 || !k.is_multiple_of(2) {
        return Err(format!("fat_tree: k must be even and at least 2 (got {k})"));
    }
    // Its own count first: the error then names k, not clos's keys.
    let (k64, h64) = (u64::from(k), u64::from(k / 2));
    node_count(
        "fat_tree",
        k64 * h64 * h64,
        &[k64 * h64, k64 * h64, h64 * h64],
        "k",
        "k",
    )?;
    let h = k / 2;
    clos(ClosSpec {
        pods: k,
        tors_per_pod: h,
        aggs_per_pod: h,
        hosts_per_tor: h,
        cores: h
            .checked_mul(h)
            .ok_or_else(|| format!("fat_tree: k = {k} is too large"))?,
        host_rate,
        fabric_rate,
        delay,
    })
    .map_err(|e| e.replacen("clos:", "fat_tree:", 1))
}

/// FlowSail's three-layer fat tree (FlowSail §VI-B: 64 ToR, 64 aggregation
/// and 64 core switches, 1024 hosts, 2:1 oversubscribed, every link
/// 100 Gb/s and 1 µs) and its scaled-down copies of the same shape:
/// `pods` pods of `pods` ToRs and `pods` aggs, each ToR with one uplink to
/// every agg of its pod and `oversubscription · pods` hosts (so its host
/// bandwidth is `oversubscription` times its uplink bandwidth when
/// `host_rate = fabric_rate`), and `pods²` cores in `pods` groups of
/// `pods`: agg `j` of every pod has one uplink to each core of group `j`,
/// so every core has one link to every pod and the tree above the ToRs is
/// non-blocking. Hosts: `oversubscription · pods³`; `pods = 8`,
/// `oversubscription = 2` is the paper's 1024-host tree, `pods = 4` a
/// 128-host copy. Numbering and link order as in [`clos`]. The paper gives
/// the switch counts and the ratio only; this wiring is the one that
/// matches them and its 6-hop, 12 µs longest round trip.
pub fn flowsail_fat_tree(
    pods: u32,
    oversubscription: u32,
    host_rate: Rate,
    fabric_rate: Rate,
    delay: Delta,
) -> Result<Topology, String> {
    const W: &str = "flowsail_fat_tree";
    positive(W, "pods", pods)?;
    positive(W, "oversubscription", oversubscription)?;
    let n = u64::from(pods);
    let hosts = n * n * n * u64::from(oversubscription);
    node_count(
        W,
        hosts,
        &[n * n, n * n, n * n],
        "pods or oversubscription",
        "pods",
    )?;
    clos(ClosSpec {
        pods,
        tors_per_pod: pods,
        aggs_per_pod: pods,
        hosts_per_tor: pods * oversubscription,
        cores: pods * pods,
        host_rate,
        fabric_rate,
        delay,
    })
    .map_err(|e| e.replacen("clos:", &format!("{W}:"), 1))
}

/// The peer's reference topology, [`ClosSpec::PEER`]: 376 nodes (hosts
/// 0–319, ToRs 320–339, aggs 340–359, cores 360–375) and 480 links, in the
/// order of the peer's `fat.txt`.
pub fn peer_fat_tree() -> Topology {
    clos(ClosSpec::PEER).expect("the peer's fat tree is well formed")
}

/// A two-tier leaf–spine: every leaf connects to every spine.
///
/// Nodes: hosts (leaf `l`'s are `l*hosts_per_leaf ..`), then the leaves,
/// then the spines. Links: host–leaf by host, then leaf–spine by leaf, then
/// spine. The leaf–spine rate is chosen so that
/// `hosts_per_leaf * host_rate / (spines * uplink_rate) = oversubscription`,
/// rounded to a whole bit per second.
pub fn leaf_spine(
    leaves: u32,
    spines: u32,
    hosts_per_leaf: u32,
    host_rate: Rate,
    oversubscription: f64,
    delay: Delta,
) -> Result<Topology, String> {
    const W: &str = "leaf_spine";
    positive(W, "leaves", leaves)?;
    positive(W, "spines", spines)?;
    positive(W, "hosts_per_leaf", hosts_per_leaf)?;
    positive_rate(W, "host_rate", host_rate)?;
    if !(oversubscription.is_finite() && oversubscription > 0.0) {
        return Err(format!(
            "{W}: oversubscription must be a positive number (got {oversubscription})"
        ));
    }
    let hosts = leaves as u64 * hosts_per_leaf as u64;
    if hosts < 2 {
        return Err(format!("{W}: the fabric has 1 host; it needs at least 2"));
    }
    let total = node_count(
        W,
        hosts,
        &[leaves as u64, spines as u64],
        "leaves, spines or hosts_per_leaf",
        "leaves or spines",
    )?;
    let down = hosts_per_leaf as f64 * host_rate.bps() as f64;
    let up = (down / (spines as f64 * oversubscription)).round();
    if up < 1.0 || up >= u64::MAX as f64 {
        return Err(format!(
            "{W}: oversubscription {oversubscription} gives an uplink rate of {up} bps"
        ));
    }
    let uplink = Rate(up as u64);
    let hosts = hosts as u32;
    let leaf0 = hosts;
    let spine0 = leaf0 + leaves;
    let mut links = Vec::with_capacity(hosts as usize + (leaves * spines) as usize);
    for h in 0..hosts {
        links.push(LinkSpec::new(
            h,
            leaf0 + h / hosts_per_leaf,
            host_rate,
            delay,
        ));
    }
    for l in 0..leaves {
        for s in 0..spines {
            links.push(LinkSpec::new(leaf0 + l, spine0 + s, uplink, delay));
        }
    }
    Ok(Topology {
        kinds: kinds(hosts, total),
        links,
    })
}

/// One switch (node `hosts`) with every host (`0..hosts`) on it; links by
/// host.
pub fn star(hosts: u32, rate: Rate, delay: Delta) -> Result<Topology, String> {
    if hosts < 2 {
        return Err(format!("star: hosts must be at least 2 (got {hosts})"));
    }
    positive_rate("star", "rate", rate)?;
    let total = node_count("star", hosts as u64, &[1], "hosts", "hosts")?;
    let sw: NodeId = hosts;
    Ok(Topology {
        kinds: kinds(hosts, total),
        links: (0..hosts)
            .map(|h| LinkSpec::new(h, sw, rate, delay))
            .collect(),
    })
}

/// Two switches joined by one bottleneck link. Left hosts `0..L` sit on
/// switch A (node `L+R`), right hosts `L..L+R` on switch B (node `L+R+1`).
/// Links: host links by host, then the bottleneck A–B last.
pub fn dumbbell(
    left_hosts: u32,
    right_hosts: u32,
    host_rate: Rate,
    bottleneck_rate: Rate,
    delay: Delta,
) -> Result<Topology, String> {
    const W: &str = "dumbbell";
    positive(W, "left_hosts", left_hosts)?;
    positive(W, "right_hosts", right_hosts)?;
    positive_rate(W, "host_rate", host_rate)?;
    positive_rate(W, "bottleneck_rate", bottleneck_rate)?;
    let hosts = left_hosts as u64 + right_hosts as u64;
    let total = node_count(W, hosts, &[2], "left or right", "left or right")?;
    let hosts = hosts as u32;
    let (sa, sb) = (hosts, hosts + 1);
    let mut links: Vec<LinkSpec> = (0..hosts)
        .map(|h| LinkSpec::new(h, if h < left_hosts { sa } else { sb }, host_rate, delay))
        .collect();
    links.push(LinkSpec::new(sa, sb, bottleneck_rate, delay));
    Ok(Topology {
        kinds: kinds(hosts, total),
        links,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(t: &Topology, k: NodeKind) -> usize {
        t.kinds.iter().filter(|&&x| x == k).count()
    }

    #[test]
    fn fat_tree_4() {
        let t = fat_tree(4, Rate::gbps(100), Rate::gbps(100), Delta::from_us(1)).unwrap();
        assert_eq!(count(&t, NodeKind::Host), 16);
        assert_eq!(count(&t, NodeKind::Switch), 20);
        assert_eq!(t.links.len(), 48);
        assert_eq!(t.hosts(), (0..16).collect::<Vec<_>>());
        t.validate("fat_tree(4)", None).unwrap();
        // Agg j (of any pod) reaches cores j*2, j*2+1: nodes 16+8=24.. are aggs,
        // 32..36 cores. Pod 1's agg 1 is node 24+3 = 27.
        let cores: Vec<u32> = t.links.iter().filter(|l| l.a == 27).map(|l| l.b).collect();
        assert_eq!(cores, vec![34, 35]);
        // Every switch has k = 4 ports.
        let adj = t.adjacency();
        for s in t.switches() {
            assert_eq!(adj.degree(s), 4);
        }
    }

    #[test]
    fn peer_fat_tree_shape() {
        let t = peer_fat_tree();
        assert_eq!(t.n_nodes(), 376);
        assert_eq!(count(&t, NodeKind::Switch), 56);
        assert_eq!(t.hosts().len(), 320);
        assert_eq!(t.switches(), (320..376).collect::<Vec<_>>());
        assert_eq!(t.links.len(), 480);
        t.validate("peer", None).unwrap();
        // Spot checks against the peer's fat.txt link order.
        let ab = |i: usize| (t.links[i].a, t.links[i].b);
        assert_eq!(ab(0), (0, 320));
        assert_eq!(ab(16), (16, 321));
        assert_eq!(ab(319), (319, 339));
        assert_eq!(ab(320), (320, 340));
        assert_eq!(ab(324), (321, 340));
        assert_eq!(ab(336), (324, 344));
        assert_eq!(ab(400), (340, 360));
        assert_eq!(ab(404), (341, 364));
        assert_eq!(ab(464), (356, 360));
        assert_eq!(ab(479), (359, 375));
        assert_eq!(t.links[0].rate, Rate::gbps(100));
        assert_eq!(t.links[320].rate, Rate::gbps(400));
        assert!(t
            .links
            .iter()
            .all(|l| l.delay == Delta::from_us(1) && l.error_rate == 0.0));
        // Five pods: ToR 320+4p..320+4p+3 reach exactly aggs 340+4p..
        let adj = t.adjacency();
        for p in 0..5 {
            for tor in 320 + 4 * p..324 + 4 * p {
                let aggs: Vec<u32> = adj.ports(tor)[16..]
                    .iter()
                    .map(|&l| adj.other_end(l, tor))
                    .collect();
                assert_eq!(aggs, (340 + 4 * p..344 + 4 * p).collect::<Vec<_>>());
            }
        }
    }

    /// The paper's tree: 64 ToRs, 64 aggs, 64 cores, 1024 hosts, 16 per
    /// ToR with 8 uplinks (2:1), 8 core uplinks per agg, every core one
    /// link to each of the 8 pods; the 128-host copy has the same shape.
    #[test]
    fn flowsail_fat_tree_shape() {
        for (pods, hosts) in [(8u32, 1024usize), (4, 128)] {
            let t = flowsail_fat_tree(pods, 2, Rate::gbps(100), Rate::gbps(100), Delta::from_us(1))
                .unwrap();
            let p = pods as usize;
            assert_eq!(count(&t, NodeKind::Host), hosts);
            assert_eq!(count(&t, NodeKind::Switch), 3 * p * p);
            let adj = t.adjacency();
            let (tor0, agg0, core0) = (hosts, hosts + p * p, hosts + 2 * p * p);
            let pod_of = |n: usize| {
                if n < agg0 {
                    (n - tor0) / p
                } else {
                    (n - agg0) / p
                }
            };
            let peers = |n: usize| -> Vec<usize> {
                t.ports(n as NodeId)
                    .iter()
                    .map(|&l| t.links[l as usize].other(n as NodeId) as usize)
                    .collect()
            };
            for tor in tor0..agg0 {
                let nb = peers(tor);
                let down = nb.iter().filter(|&&x| x < hosts).count();
                let up: Vec<usize> = nb.iter().copied().filter(|&x| x >= hosts).collect();
                assert_eq!(down, 2 * p, "ToR {tor}: hosts");
                assert_eq!(up.len(), p, "ToR {tor}: uplinks");
                assert_eq!(down, 2 * up.len(), "2:1 at the ToR");
                assert!(up
                    .iter()
                    .all(|&a| (agg0..core0).contains(&a) && pod_of(a) == pod_of(tor)));
            }
            for agg in agg0..core0 {
                let nb = peers(agg);
                assert_eq!(
                    nb.iter().filter(|&&x| x < agg0).count(),
                    p,
                    "agg {agg}: ToRs"
                );
                assert_eq!(
                    nb.iter().filter(|&&x| x >= core0).count(),
                    p,
                    "agg {agg}: cores"
                );
            }
            for core in core0..core0 + p * p {
                let mut pods_seen: Vec<usize> = peers(core).iter().map(|&a| pod_of(a)).collect();
                pods_seen.sort_unstable();
                assert_eq!(pods_seen, (0..p).collect::<Vec<_>>(), "core {core}");
            }
            assert!(t
                .links
                .iter()
                .all(|l| l.rate == Rate::gbps(100) && l.delay == Delta::from_us(1)));
            assert_eq!(adj.ports(tor0 as NodeId).len(), 3 * p);
        }
        assert_eq!(
            flowsail_fat_tree(0, 2, Rate::gbps(100), Rate::gbps(100), Delta::from_us(1))
                .unwrap_err(),
            "flowsail_fat_tree: pods must be at least 1"
        );
        assert!(
            flowsail_fat_tree(400, 2, Rate::gbps(100), Rate::gbps(100), Delta::from_us(1))
                .unwrap_err()
                .contains("lower pods")
        );
    }

    #[test]
    fn clos_rules() {
        let mut s = ClosSpec::PEER;
        s.cores = 6;
        assert!(clos(s).unwrap_err().contains("multiple of aggs_per_pod"));
        s.cores = 8; // two cores per group
        let t = clos(s).unwrap();
        assert_eq!(t.links.len(), 320 + 80 + 40);
        t.validate("clos", None).unwrap();
        s.pods = 0;
        assert_eq!(clos(s).unwrap_err(), "clos: pods must be at least 1");
        let mut s = ClosSpec::PEER;
        s.fabric_rate = Rate(0);
        assert!(clos(s).unwrap_err().contains("fabric_rate"));
    }

    #[test]
    fn fat_tree_rejects_bad_k() {
        let f = |k| fat_tree(k, Rate::gbps(1), Rate::gbps(1), Delta::ZERO);
        assert!(f(3).unwrap_err().contains("k must be even"));
        assert!(f(0).unwrap_err().contains("k must be even"));
        assert!(f(1000).unwrap_err().contains("too many"));
        let t = f(2).unwrap();
        assert_eq!((t.hosts().len(), t.n_nodes(), t.links.len()), (2, 7, 6));
    }

    #[test]
    fn leaf_spine_oversubscription() {
        let d = Delta::from_us(1);
        // 16 x 100G down, 4 spines: 1:1 needs 400G uplinks.
        let t = leaf_spine(8, 4, 16, Rate::gbps(100), 1.0, d).unwrap();
        assert_eq!(t.hosts().len(), 128);
        assert_eq!(t.n_nodes(), 128 + 8 + 4);
        assert_eq!(t.links.len(), 128 + 32);
        assert_eq!(t.links[128].rate, Rate::gbps(400));
        assert_eq!((t.links[128].a, t.links[128].b), (128, 136));
        assert_eq!((t.links[159].a, t.links[159].b), (135, 139));
        t.validate("ls", None).unwrap();
        // 2:1 gives 200G; 3:1 gives 1.6T/12 rounded.
        let t = leaf_spine(8, 4, 16, Rate::gbps(100), 2.0, d).unwrap();
        assert_eq!(t.links[128].rate, Rate::gbps(200));
        let t = leaf_spine(8, 4, 16, Rate::gbps(100), 3.0, d).unwrap();
        assert_eq!(t.links[128].rate, Rate(133_333_333_333));
        let t = leaf_spine(2, 3, 2, Rate::gbps(25), 0.5, d).unwrap();
        assert_eq!(t.links[4].rate, Rate(33_333_333_333));
        assert!(leaf_spine(2, 0, 2, Rate::gbps(25), 1.0, d).is_err());
        assert!(leaf_spine(2, 2, 2, Rate::gbps(25), 0.0, d)
            .unwrap_err()
            .contains("oversubscription"));
        assert!(leaf_spine(1, 2, 1, Rate::gbps(25), 1.0, d).is_err());
    }

    #[test]
    fn star_and_dumbbell() {
        let d = Delta::from_ns(500);
        let t = star(5, Rate::gbps(100), d).unwrap();
        assert_eq!(t.n_nodes(), 6);
        assert_eq!(t.switches(), vec![5]);
        assert!(t
            .links
            .iter()
            .enumerate()
            .all(|(i, l)| l.a == i as u32 && l.b == 5));
        t.validate("star", None).unwrap();
        assert!(star(1, Rate::gbps(100), d).is_err());
        assert!(star(4, Rate(0), d).is_err());

        let t = dumbbell(3, 2, Rate::gbps(100), Rate::gbps(40), d).unwrap();
        assert_eq!(t.hosts(), vec![0, 1, 2, 3, 4]);
        assert_eq!(t.switches(), vec![5, 6]);
        let ends: Vec<(u32, u32)> = t.links.iter().map(|l| (l.a, l.b)).collect();
        assert_eq!(ends, vec![(0, 5), (1, 5), (2, 5), (3, 6), (4, 6), (5, 6)]);
        assert_eq!(t.links[5].rate, Rate::gbps(40));
        assert_eq!(t.links[0].rate, Rate::gbps(100));
        t.validate("dumbbell", None).unwrap();
        assert_eq!(
            dumbbell(0, 2, Rate::gbps(1), Rate::gbps(1), d).unwrap_err(),
            "dumbbell: left_hosts must be at least 1"
        );
    }
}
