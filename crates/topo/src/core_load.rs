//! Load "on the core links" (FlowSail §VI-B: "X% denotes X% load on the
//! core links") as the per-host load a generator offers.

use crate::{NodeId, Topology};
use engine::Rate;

/// The per-host load (a fraction of `host_rate`) that puts load 1.0 on the
/// core links, when every host of `hosts` sends to uniformly random other
/// hosts of `hosts` and ECMP spreads the flows evenly.
///
/// Core switches are the switches two or more hops from every host (not a
/// ToR, not next to one); a pod is a connected group of the other
/// switches. A flow between hosts of different pods crosses one
/// non-core→core link, so the core carries, per direction,
/// `H · r · L · f` where `f` is the share of host pairs in different pods;
/// its capacity is the summed rate of the links from non-core switches up
/// to the core. Hence `L = X · capacity / (H · r · f)`; on FlowSail's
/// 1024-host tree, 0.571 · X (512 × 100 Gb/s over 1024 × 100 Gb/s × 0.876).
pub fn core_load_factor(topo: &Topology, hosts: &[NodeId], host_rate: Rate) -> Result<f64, String> {
    let n = topo.n_nodes();
    let adj = topo.adjacency();
    let peers = |x: usize| -> Vec<usize> {
        adj.ports(x as NodeId)
            .iter()
            .map(|&l| topo.links[l as usize].other(x as NodeId) as usize)
            .collect()
    };
    let mut near_host = vec![false; n]; // a host, or a switch next to one
    for h in topo.hosts() {
        near_host[h as usize] = true;
        for p in peers(h as usize) {
            near_host[p] = true;
        }
    }
    let tor_level = near_host.clone();
    let mut core = vec![false; n];
    for s in topo.switches() {
        let s = s as usize;
        core[s] = !tor_level[s]
            && !peers(s)
                .iter()
                .any(|&p| tor_level[p] && topo.is_switch(p as NodeId));
    }
    if !core.iter().any(|&c| c) {
        return Err(
            "the topology has no core tier (no switch two hops from every host); load on \
             the core links needs a three-tier tree"
                .into(),
        );
    }
    let capacity: f64 = topo
        .links
        .iter()
        .filter(|l| core[l.a as usize] != core[l.b as usize])
        .map(|l| l.rate.bps() as f64)
        .sum();
    // Pods: connected groups of the non-core switches.
    let mut pod = vec![usize::MAX; n];
    let mut next = 0;
    for s in topo.switches() {
        let s = s as usize;
        if core[s] || pod[s] != usize::MAX {
            continue;
        }
        let mut stack = vec![s];
        pod[s] = next;
        while let Some(x) = stack.pop() {
            for p in peers(x) {
                if topo.is_switch(p as NodeId) && !core[p] && pod[p] == usize::MAX {
                    pod[p] = next;
                    stack.push(p);
                }
            }
        }
        next += 1;
    }
    let mut per_pod = vec![0u64; next];
    let mut host_pod = Vec::with_capacity(hosts.len());
    for &h in hosts {
        let tor = peers(h as usize)
            .first()
            .copied()
            .ok_or_else(|| format!("host {h} has no link"))?;
        host_pod.push(pod[tor]);
        per_pod[pod[tor]] += 1;
    }
    let m = hosts.len() as f64;
    if hosts.len() < 2 {
        return Err("load on the core links needs at least 2 hosts".into());
    }
    let same: f64 = host_pod.iter().map(|&p| (per_pod[p] - 1) as f64).sum();
    let cross = 1.0 - same / (m * (m - 1.0));
    if cross <= 0.0 {
        return Err("no two hosts are in different pods: no flow crosses the core".into());
    }
    Ok(capacity / (m * host_rate.bps() as f64 * cross))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{flowsail_fat_tree, leaf_spine};
    use engine::Delta;

    #[test]
    fn flowsail_tree_core_load() {
        let g = Rate::gbps(100);
        let t = flowsail_fat_tree(8, 2, g, g, Delta::from_us(1)).unwrap();
        let f = core_load_factor(&t, &t.hosts(), g).unwrap();
        // 512 core links of 100 Gb/s; 896 of each host's 1023 peers are in
        // other pods.
        let want = 512.0 / (1024.0 * 896.0 / 1023.0);
        assert!((f - want).abs() < 1e-12, "{f} vs {want}");
        assert!((f - 0.5708).abs() < 1e-3);
        let t = flowsail_fat_tree(4, 2, g, g, Delta::from_us(1)).unwrap();
        let f = core_load_factor(&t, &t.hosts(), g).unwrap();
        let want = 64.0 / (128.0 * 96.0 / 127.0);
        assert!((f - want).abs() < 1e-12, "{f} vs {want}");
        let t = leaf_spine(4, 2, 8, g, 1.0, Delta::from_us(1)).unwrap();
        assert!(core_load_factor(&t, &t.hosts(), g)
            .unwrap_err()
            .contains("no core tier"));
    }
}
