//! Pods of different sizes under one Spine tier: the ToR / Leaf / Spine
//! clusters of the Bifröst paper's §4.3 (pod 1 of 10 hosts, pod 2 of 90).

use crate::builders::{kinds, node_count, positive, positive_rate};
use crate::{LinkSpec, Topology};
use engine::{Delta, Rate};

/// Pods of ToRs and Leaves, each pod of its own size, under one tier of
/// Spines. See [`pods`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodsSpec {
    /// Hosts of each pod, in pod order.
    pub pod_hosts: Vec<u32>,
    /// Hosts under each ToR; a pod's last ToR takes what is left.
    pub hosts_per_tor: u32,
    /// Leaf switches in each pod.
    pub leaves_per_pod: u32,
    /// Spine switches, shared by every pod.
    pub spines: u32,
    /// Rate of the host–ToR links.
    pub host_rate: Rate,
    /// Rate of the ToR–Leaf and Leaf–Spine links.
    pub fabric_rate: Rate,
    /// Propagation delay of every link.
    pub delay: Delta,
}

/// Pods of ToRs and Leaves under one Spine tier.
///
/// Nodes, in id order: the hosts, pod by pod (pod 0's first); the ToRs,
/// pod by pod (a pod of `h` hosts has `ceil(h / hosts_per_tor)` of them,
/// each filled in turn); the Leaves, `leaves_per_pod` per pod, pod by pod;
/// then the Spines. Each ToR connects to every Leaf of its pod, and every
/// Leaf to every Spine, so traffic between pods crosses a Spine and
/// traffic within a pod does not.
///
/// Links, in order: host–ToR by host; ToR–Leaf by ToR, then Leaf;
/// Leaf–Spine by Leaf, then Spine.
pub fn pods(s: &PodsSpec) -> Result<Topology, String> {
    const W: &str = "pods";
    if s.pod_hosts.is_empty() {
        return Err(format!("{W}: pod_hosts lists no pod"));
    }
    if let Some(i) = s.pod_hosts.iter().position(|&h| h == 0) {
        return Err(format!("{W}: pod {i} of pod_hosts has no host"));
    }
    positive(W, "hosts_per_tor", s.hosts_per_tor)?;
    positive(W, "leaves_per_pod", s.leaves_per_pod)?;
    positive(W, "spines", s.spines)?;
    positive_rate(W, "host_rate", s.host_rate)?;
    positive_rate(W, "fabric_rate", s.fabric_rate)?;
    let hosts: u64 = s.pod_hosts.iter().map(|&h| u64::from(h)).sum();
    if hosts < 2 {
        return Err(format!("{W}: pod_hosts gives 1 host; it needs at least 2"));
    }
    let tors_of = |h: u32| h.div_ceil(s.hosts_per_tor);
    let tors: u64 = s.pod_hosts.iter().map(|&h| u64::from(tors_of(h))).sum();
    let leaves = s.pod_hosts.len() as u64 * u64::from(s.leaves_per_pod);
    let total = node_count(
        W,
        hosts,
        &[tors, leaves, u64::from(s.spines)],
        "pod_hosts",
        "leaves_per_pod or spines",
    )?;
    let (hosts, tors) = (hosts as u32, tors as u32);
    let tor0 = hosts;
    let leaf0 = tor0 + tors;
    let spine0 = leaf0 + leaves as u32;
    let mut links = Vec::new();
    // Host–ToR, and each ToR's pod.
    let mut tor_pod = Vec::with_capacity(tors as usize);
    let (mut host, mut tor) = (0, tor0);
    for (p, &h) in s.pod_hosts.iter().enumerate() {
        for i in 0..h {
            links.push(LinkSpec::new(
                host,
                tor + i / s.hosts_per_tor,
                s.host_rate,
                s.delay,
            ));
            host += 1;
        }
        for _ in 0..tors_of(h) {
            tor_pod.push(p as u32);
        }
        tor += tors_of(h);
    }
    for (t, &p) in tor_pod.iter().enumerate() {
        for j in 0..s.leaves_per_pod {
            let leaf = leaf0 + p * s.leaves_per_pod + j;
            links.push(LinkSpec::new(tor0 + t as u32, leaf, s.fabric_rate, s.delay));
        }
    }
    for l in 0..leaves as u32 {
        for sp in 0..s.spines {
            links.push(LinkSpec::new(
                leaf0 + l,
                spine0 + sp,
                s.fabric_rate,
                s.delay,
            ));
        }
    }
    Ok(Topology {
        kinds: kinds(hosts, total),
        links,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(pod_hosts: Vec<u32>) -> PodsSpec {
        PodsSpec {
            pod_hosts,
            hosts_per_tor: 4,
            leaves_per_pod: 2,
            spines: 3,
            host_rate: Rate::gbps(50),
            fabric_rate: Rate::gbps(100),
            delay: Delta::from_us(1),
        }
    }

    #[test]
    fn pods_of_different_sizes_share_the_spines() {
        // Pod 0: hosts 0-2 on one ToR; pod 1: hosts 3-12 on three ToRs
        // (4, 4, 2).
        let t = pods(&spec(vec![3, 10])).unwrap();
        t.validate("pods", None).unwrap();
        assert_eq!(t.hosts().len(), 13);
        // 4 ToRs (13-16), 4 Leaves (17-20), 3 Spines (21-23).
        assert_eq!(t.switches(), (13..24).collect::<Vec<_>>());
        let ends: Vec<(u32, u32)> = t.links.iter().map(|l| (l.a, l.b)).collect();
        assert_eq!(&ends[..4], &[(0, 13), (1, 13), (2, 13), (3, 14)]);
        assert_eq!(ends[11], (11, 16));
        assert_eq!(ends[12], (12, 16));
        // ToR 13 (pod 0) to Leaves 17, 18; ToR 14 (pod 1) to 19, 20.
        assert_eq!(&ends[13..17], &[(13, 17), (13, 18), (14, 19), (14, 20)]);
        // Every Leaf to every Spine, last.
        assert_eq!(&ends[21..24], &[(17, 21), (17, 22), (17, 23)]);
        assert_eq!(ends.len(), 13 + 4 * 2 + 4 * 3);
        assert_eq!(t.links[0].rate, Rate::gbps(50));
        assert_eq!(t.links[13].rate, Rate::gbps(100));
        // Within a pod no path climbs to a Spine; between pods every one
        // does (a shortest path of 6 links against 4).
        let r = crate::Routes::compute(&t);
        let hops = |src: u32, dst: u32| {
            let (mut at, mut n) = (src, 0);
            while at != dst {
                at = t.links[r.next_hops(at, dst)[0] as usize].other(at);
                n += 1;
            }
            n
        };
        assert_eq!(hops(4, 12), 4);
        assert_eq!(hops(0, 12), 6);
    }

    #[test]
    fn bad_pods_are_refused_by_key() {
        let e = |p: PodsSpec| pods(&p).unwrap_err();
        assert!(e(spec(vec![])).contains("pod_hosts lists no pod"));
        assert!(e(spec(vec![3, 0])).contains("pod 1 of pod_hosts has no host"));
        assert!(e(spec(vec![1])).contains("pod_hosts"));
        let mut s = spec(vec![2, 2]);
        s.spines = 0;
        assert_eq!(e(s), "pods: spines must be at least 1");
        let mut s = spec(vec![2, 2]);
        s.leaves_per_pod = 0;
        assert_eq!(e(s), "pods: leaves_per_pod must be at least 1");
    }
}
