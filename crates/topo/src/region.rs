//! An Azure-style region (Azure §1.2, Fig. 1): datacenters whose Clos
//! fabrics of T0 (ToR), T1 and T2 switches are joined by regional hubs
//! (RH), every T2 switch of every datacenter to every hub over a long link
//! (tens of km; the paper's example is 80 km). Paths inside a rack take
//! microseconds, paths between datacenters two long links each way (an
//! RTT of about 2 ms over 80 km links).
//!
//! Simplifications (docs/reproduce-azure.md, "Region fabric"): each
//! datacenter is a k-ary fat tree (T0 = its ToRs, T1 its aggs, T2 its
//! cores), which the paper does not say; every T2 has one link to every
//! hub, all long links alike.
//!
//! # Numbering
//!
//! Hosts first, datacenter by datacenter (`hosts_per_dc` each, numbered as
//! [`clos`] numbers a fat tree's); then each datacenter's switches in
//! [`clos`] order (T0s, T1s, T2s); then the hubs. Links: each
//! datacenter's [`clos`] links in turn, then the long links, datacenter by
//! datacenter, T2 by T2, hub by hub.

use crate::{clos, ClosSpec, LinkSpec, NodeKind, Topology};
use engine::{Delta, Rate};

/// The shape of a region; see the [module](self) documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegionSpec {
    /// Datacenters, at least 1.
    pub dcs: u32,
    /// Fat-tree arity of each datacenter (even, at least 2).
    pub k: u32,
    /// Hosts under each T0.
    pub hosts_per_tor: u32,
    /// Regional hubs, at least 1.
    pub hubs: u32,
    /// Host–T0 links.
    pub host_rate: Rate,
    /// T0–T1 and T1–T2 links.
    pub fabric_rate: Rate,
    /// Delay of every link inside a datacenter.
    pub delay: Delta,
    /// T2–RH links.
    pub long_rate: Rate,
    /// One-way delay of each T2–RH link.
    pub long_delay: Delta,
}

/// Build the region `s` describes.
pub fn region(s: RegionSpec) -> Result<Topology, String> {
    if s.dcs == 0 || s.hubs == 0 {
        return Err(format!(
            "region: dcs and hubs must be at least 1 (got {} and {})",
            s.dcs, s.hubs
        ));
    }
    if s.k < 2 || !s.k.is_multiple_of(2) {
        return Err(format!(
            "region: k must be even and at least 2 (got {})",
            s.k
        ));
    }
    let h = s.k / 2;
    let dc = clos(ClosSpec {
        pods: s.k,
        tors_per_pod: h,
        aggs_per_pod: h,
        hosts_per_tor: s.hosts_per_tor,
        cores: h * h,
        host_rate: s.host_rate,
        fabric_rate: s.fabric_rate,
        delay: s.delay,
    })
    .map_err(|e| format!("region: {e}"))?;
    let dc_hosts = dc.hosts().len() as u64;
    let dc_switches = dc.n_nodes() as u64 - dc_hosts;
    let total = u64::from(s.dcs) * (dc_hosts + dc_switches) + u64::from(s.hubs);
    if total > 1 << 24 {
        return Err(format!("region: {total} nodes is too many"));
    }
    let all_hosts = u64::from(s.dcs) * dc_hosts;
    // Node `n` of datacenter `d`'s fat tree in the region.
    let id = |d: u64, n: u32| -> u32 {
        let n = u64::from(n);
        let v = if n < dc_hosts {
            d * dc_hosts + n
        } else {
            all_hosts + d * dc_switches + (n - dc_hosts)
        };
        v as u32
    };
    let hub = |j: u32| (all_hosts + u64::from(s.dcs) * dc_switches) as u32 + j;
    let mut kinds = vec![NodeKind::Host; all_hosts as usize];
    kinds.resize(total as usize, NodeKind::Switch);
    let mut links = Vec::with_capacity(dc.links.len() * s.dcs as usize);
    for d in 0..u64::from(s.dcs) {
        for l in &dc.links {
            links.push(LinkSpec::new(id(d, l.a), id(d, l.b), l.rate, l.delay));
        }
    }
    // The T2s are each fat tree's last (k/2)^2 switches.
    let first_t2 = dc.n_nodes() as u32 - h * h;
    for d in 0..u64::from(s.dcs) {
        for t2 in first_t2..dc.n_nodes() as u32 {
            for j in 0..s.hubs {
                links.push(LinkSpec::new(id(d, t2), hub(j), s.long_rate, s.long_delay));
            }
        }
    }
    Ok(Topology { kinds, links })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Routes;

    fn spec() -> RegionSpec {
        RegionSpec {
            dcs: 2,
            k: 4,
            hosts_per_tor: 2,
            hubs: 2,
            host_rate: Rate::gbps(100),
            fabric_rate: Rate::gbps(100),
            delay: Delta::from_us(1),
            long_rate: Rate::gbps(400),
            long_delay: Delta::from_us(400),
        }
    }

    /// One-way delay along the first shortest path from `src` to `dst`.
    fn path_delay(t: &Topology, r: &Routes, src: u32, dst: u32) -> Delta {
        let (mut at, mut d) = (src, Delta::ZERO);
        while at != dst {
            let l = &t.links[r.next_hops(at, dst)[0] as usize];
            d += l.delay;
            at = l.other(at);
        }
        d
    }

    #[test]
    fn two_datacenters_and_two_hubs() {
        let t = region(spec()).unwrap();
        // Per DC: 16 hosts, 8 T0 + 8 T1 + 4 T2; then 2 hubs.
        assert_eq!(t.hosts(), (0..32).collect::<Vec<_>>());
        assert_eq!(t.n_nodes(), 32 + 2 * 20 + 2);
        // Per DC 48 links; 2 DCs x 4 T2 x 2 hubs long links.
        assert_eq!(t.links.len(), 2 * 48 + 16);
        let long: Vec<_> = t
            .links
            .iter()
            .filter(|l| l.delay == Delta::from_us(400))
            .collect();
        assert_eq!(long.len(), 16);
        assert!(long.iter().all(|l| l.b >= 72 && l.rate == Rate::gbps(400)));
        t.validate("region", None).unwrap();
        let r = Routes::compute(&t);
        // Same T0: two host links. Across DCs: two long links each way
        // (T2-RH-T2), plus six links inside the two DCs.
        assert_eq!(path_delay(&t, &r, 0, 1), Delta::from_us(2));
        assert_eq!(path_delay(&t, &r, 0, 16), Delta::from_us(806));
        // Every T2 of DC 0 reaches host 16 through a hub.
        for t2 in 48..52 {
            assert_eq!(r.next_hops(t2, 16).len(), 2, "both hubs");
        }
    }

    #[test]
    fn bad_shapes_are_refused() {
        let e = region(RegionSpec { hubs: 0, ..spec() }).unwrap_err();
        assert!(e.contains("hubs"), "{e}");
        let e = region(RegionSpec { k: 3, ..spec() }).unwrap_err();
        assert!(e.contains("k must be even"), "{e}");
    }
}
