//! Several datacenters joined by long-haul links: the topology of the
//! long-haul papers (Swing §6.1, Figs. 1 and 7; Bifrost §VI-B, Fig. 10).
//!
//! Each datacenter (DC) is a k-ary fat tree with `hosts_per_tor` hosts under
//! each ToR (the Swing/Bifrost fabric is k = 4 with 2 hosts per ToR, 16
//! hosts per DC), plus one DCI ("external") switch joined to every core
//! switch of its DC. The DCI switches of every pair of DCs are joined by
//! `long_links` parallel long-haul links, all of one rate and one delay
//! (a fibre length at 5 µs/km, [`engine::units::FIBRE_PS_PER_KM`]).
//!
//! # Parallel long links
//!
//! Several long links between the same two DCI switches (the Bifrost
//! testbed's two and three 80 km cables, balanced by ECMP, Bifrost §VI-A)
//! are plain parallel links of [`Topology::links`]: [`Topology::validate`]
//! accepts parallel links between two switches, each is a port of its own
//! at both ends, and [`Routes`](crate::Routes) lists every one of them as
//! an equal-cost next hop, so ECMP hashes flows across them. The
//! alternative, a pair of two-port "port" switches per long link, would add
//! two hops and a second buffer to every inter-DC path and put the long
//! link's ingress on a switch the papers do not have. Parallel links are
//! refused only in the peer's topology files, because the peer keeps one
//! route per neighbour and would silently use one of them.
//!
//! # Numbering
//!
//! Hosts first, DC by DC: DC `d`'s hosts are
//! `d * hosts_per_dc .. (d + 1) * hosts_per_dc`, numbered within the DC as
//! [`clos`] numbers a fat tree's hosts. Then the switches, DC
//! by DC, each DC's block in the order ToRs, aggs, cores (as in
//! [`clos`]) and last its DCI switch.
//!
//! Links, tier by tier upwards as the other builders: every host link (by
//! host), every ToR–agg link (DC by DC, each DC in [`clos`]
//! order), every agg–core link (likewise), every core–DCI link (DC by DC,
//! by core), then the long links: for each pair of DCs `(a, b)`, `a < b`,
//! in the order (0, 1), (0, 2), …, (1, 2), …, that pair's `long_links`
//! links, from DCI `a` to DCI `b`.

use crate::{clos, ClosSpec, LinkSpec, NodeId, NodeKind, Topology};
use engine::units::FIBRE_PS_PER_KM;
use engine::{Delta, Rate};
use std::ops::Range;

/// Most nodes the builder will make (as the other builders).
const MAX_NODES: u64 = 1 << 24;

/// The shape of a cross-DC topology; see the [module](self) documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CrossDcSpec {
    /// Number of datacenters, at least 2.
    pub dcs: u32,
    /// Fat-tree arity of every DC (even): `k` pods of `k/2` ToRs and `k/2`
    /// aggs, `(k/2)^2` cores.
    pub k: u32,
    /// Hosts under each ToR (`k/2` in a standard fat tree).
    pub hosts_per_tor: u32,
    /// Rate of the host–ToR links.
    pub host_rate: Rate,
    /// Rate of the ToR–agg, agg–core and core–DCI links.
    pub fabric_rate: Rate,
    /// Propagation delay of every link inside a DC, core–DCI included.
    pub delay: Delta,
    /// Parallel long links between each pair of DCI switches, at least 1.
    pub long_links: u32,
    /// Rate of each long link.
    pub long_rate: Rate,
    /// One-way propagation delay of each long link.
    pub long_delay: Delta,
    /// Put a Swing PFC relay (Swing §5.1, Fig. 7②) at each end of every
    /// long link: `DCI — relay — long link — relay — DCI`, the relay joined
    /// to its DCI switch by a link of `long_rate` and `delay`.
    pub relays: bool,
}

impl CrossDcSpec {
    /// The Swing evaluation (Swing §6.1): two k = 4 fat trees with 2 hosts
    /// per ToR (16 per DC), 100 Gb/s and 1 µs inside each DC, one DCI switch
    /// per DC on every core, one 400 Gb/s long link of 80 km (400 µs).
    pub const SWING: CrossDcSpec = CrossDcSpec {
        dcs: 2,
        k: 4,
        hosts_per_tor: 2,
        host_rate: Rate::gbps(100),
        fabric_rate: Rate::gbps(100),
        delay: Delta::from_us(1),
        long_links: 1,
        long_rate: Rate::gbps(400),
        long_delay: Delta::from_us(400),
        relays: false,
    };

    /// The Bifrost simulation (Bifrost §VI-B, Fig. 10):
    /// the Swing fabric with a 600 km (3 ms) long link.
    pub const BIFROST: CrossDcSpec = CrossDcSpec {
        long_delay: Delta::from_ms(3),
        ..CrossDcSpec::SWING
    };

    /// Check the spec and work out where everything is.
    pub fn layout(&self) -> Result<CrossDcLayout, String> {
        CrossDcLayout::new(*self)
    }
}

/// One-way delay of `km` kilometres of fibre at 5 µs/km
/// ([`FIBRE_PS_PER_KM`]), rounded to a picosecond; `None` if `km` is
/// negative, not finite or beyond 10^6 s of delay.
pub fn fibre_delay(km: f64) -> Option<Delta> {
    let ps = km * FIBRE_PS_PER_KM as f64;
    (km.is_finite() && km >= 0.0 && ps <= 1e18).then(|| Delta(ps.round() as u64))
}

/// Where the nodes and links of a cross-DC topology are: the numbering of
/// the [module](self) documentation, for a checked [`CrossDcSpec`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CrossDcLayout {
    spec: CrossDcSpec,
    hosts_per_dc: u32,
    tors_per_dc: u32,
    aggs_per_dc: u32,
    cores_per_dc: u32,
    /// ToRs, aggs, cores and the DCI switch.
    switches_per_dc: u32,
}

impl CrossDcLayout {
    /// Check `spec`: at least 2 DCs and 1 long link per pair, `k` even and
    /// at least 2, at least 1 host per ToR, every rate above zero, at most
    /// 2^24 nodes.
    pub fn new(spec: CrossDcSpec) -> Result<CrossDcLayout, String> {
        const W: &str = "cross_dc";
        if spec.dcs < 2 {
            return Err(format!(
                "{W}: dcs must be at least 2 (got {}); for one DC use kind = \"fat_tree\"",
                spec.dcs
            ));
        }
        if spec.k < 2 || !spec.k.is_multiple_of(2) {
            return Err(format!(
                "{W}: k must be even and at least 2 (got {})",
                spec.k
            ));
        }
        if spec.hosts_per_tor == 0 {
            return Err(format!("{W}: hosts_per_tor must be at least 1"));
        }
        if spec.long_links == 0 {
            return Err(format!("{W}: long_links must be at least 1"));
        }
        for (name, r) in [
            ("host_rate", spec.host_rate),
            ("fabric_rate", spec.fabric_rate),
            ("long_rate", spec.long_rate),
        ] {
            if r.bps() == 0 {
                return Err(format!("{W}: {name} must be greater than zero"));
            }
        }
        let h = spec.k as u64 / 2;
        let tors = spec.k as u64 * h;
        let cores = h * h;
        let hosts = tors * spec.hosts_per_tor as u64;
        let per_dc = hosts + 2 * tors + cores + 1;
        let total = per_dc * spec.dcs as u64;
        if total > MAX_NODES {
            return Err(format!(
                "{W}: {total} nodes is too many (at most {MAX_NODES}); lower k, \
                 hosts_per_tor or dcs"
            ));
        }
        let pairs = spec.dcs as u64 * (spec.dcs as u64 - 1) / 2;
        let dci_ports = cores + (spec.dcs as u64 - 1) * spec.long_links as u64;
        let switches = (2 * tors + cores + 1) * spec.dcs as u64;
        if switches > crate::MAX_SWITCHES as u64 {
            return Err(format!(
                "{W}: {switches} switches is too many (at most {}); lower k or dcs",
                crate::MAX_SWITCHES
            ));
        }
        if pairs * spec.long_links as u64 > MAX_NODES || dci_ports > u16::MAX as u64 {
            return Err(format!(
                "{W}: long_links = {} gives each DCI switch {dci_ports} ports, too many \
                 (at most {}); lower long_links",
                spec.long_links,
                u16::MAX
            ));
        }
        Ok(CrossDcLayout {
            spec,
            hosts_per_dc: hosts as u32,
            tors_per_dc: tors as u32,
            aggs_per_dc: tors as u32,
            cores_per_dc: cores as u32,
            switches_per_dc: (2 * tors + cores + 1) as u32,
        })
    }

    /// The spec this layout was made from.
    pub fn spec(&self) -> &CrossDcSpec {
        &self.spec
    }

    /// Number of DCs.
    pub fn dcs(&self) -> u32 {
        self.spec.dcs
    }

    /// Hosts in each DC: `k * (k/2) * hosts_per_tor`.
    pub fn hosts_per_dc(&self) -> u32 {
        self.hosts_per_dc
    }

    /// Switches in each DC, its DCI switch included: `k^2 + (k/2)^2 + 1`.
    pub fn switches_per_dc(&self) -> u32 {
        self.switches_per_dc
    }

    /// Hosts in all DCs.
    pub fn n_hosts(&self) -> u32 {
        self.hosts_per_dc * self.spec.dcs
    }

    /// Nodes in all, hosts and switches.
    pub fn n_nodes(&self) -> u32 {
        self.relay0() + 2 * self.n_long_links() as u32 * u32::from(self.spec.relays)
    }

    /// The first relay node (= the number of nodes without relays).
    fn relay0(&self) -> NodeId {
        (self.hosts_per_dc + self.switches_per_dc) * self.spec.dcs
    }

    fn n_long_links(&self) -> usize {
        let dcs = self.spec.dcs as usize;
        dcs * (dcs - 1) / 2 * self.spec.long_links as usize
    }

    /// The two relays of long link number `i` (0-based, in the order of
    /// [`long_link_range`](Self::long_link_range)): the one on the lower
    /// DC's side first; `None` without relays or past the last long link.
    pub fn relays_of(&self, i: usize) -> Option<(NodeId, NodeId)> {
        (self.spec.relays && i < self.n_long_links()).then(|| {
            let r = self.relay0() + 2 * i as u32;
            (r, r + 1)
        })
    }

    /// Whether `node` is a relay.
    pub fn is_relay(&self, node: NodeId) -> bool {
        self.spec.relays && node >= self.relay0() && node < self.n_nodes()
    }

    /// Indices of the relay access links (DCI–relay), empty without relays.
    pub fn relay_link_range(&self) -> Range<usize> {
        let first = self.fabric_links();
        first..first + 2 * self.n_long_links() * usize::from(self.spec.relays)
    }

    /// Links in all: per DC, one per host, `k/2` per ToR and per agg, one
    /// per core; then `long_links` per pair of DCs.
    pub fn n_links(&self) -> usize {
        self.long_link_range().end
    }

    /// Host ids of DC `dc`.
    pub fn hosts(&self, dc: u32) -> Range<NodeId> {
        let h0 = dc * self.hosts_per_dc;
        h0..h0 + self.hosts_per_dc
    }

    fn switch0(&self, dc: u32) -> NodeId {
        self.n_hosts() + dc * self.switches_per_dc
    }

    /// ToR switches of DC `dc`, pod by pod.
    pub fn tors(&self, dc: u32) -> Range<NodeId> {
        let s = self.switch0(dc);
        s..s + self.tors_per_dc
    }

    /// Aggregation switches of DC `dc`, pod by pod.
    pub fn aggs(&self, dc: u32) -> Range<NodeId> {
        let s = self.switch0(dc) + self.tors_per_dc;
        s..s + self.aggs_per_dc
    }

    /// Core switches of DC `dc`.
    pub fn cores(&self, dc: u32) -> Range<NodeId> {
        let s = self.switch0(dc) + self.tors_per_dc + self.aggs_per_dc;
        s..s + self.cores_per_dc
    }

    /// The DCI switch of DC `dc`, the last of its switches.
    pub fn dci(&self, dc: u32) -> NodeId {
        self.switch0(dc) + self.switches_per_dc - 1
    }

    /// The DC that `node` (host or switch) belongs to; `None` past the last
    /// node.
    pub fn dc_of(&self, node: NodeId) -> Option<u32> {
        if node < self.n_hosts() {
            Some(node / self.hosts_per_dc)
        } else if self.is_relay(node) {
            // Relay 2i sits by the lower DC of its long link's pair.
            let i = ((node - self.relay0()) / 2) as usize;
            let link = self.long_link_range().start + i;
            let t = self.build_long_link_ends(link);
            Some(if (node - self.relay0()).is_multiple_of(2) {
                t.0
            } else {
                t.1
            })
        } else if node < self.relay0() {
            Some((node - self.n_hosts()) / self.switches_per_dc)
        } else {
            None
        }
    }

    /// The DC that host `host` is in; `None` if `host` is not a host.
    pub fn dc_of_host(&self, host: NodeId) -> Option<u32> {
        (host < self.n_hosts()).then(|| host / self.hosts_per_dc)
    }

    /// Whether hosts `a` and `b` are in different DCs (so traffic between
    /// them crosses a long link); `false` if either is not a host.
    pub fn crosses_dcs(&self, a: NodeId, b: NodeId) -> bool {
        match (self.dc_of_host(a), self.dc_of_host(b)) {
            (Some(x), Some(y)) => x != y,
            _ => false,
        }
    }

    fn fabric_links(&self) -> usize {
        let dcs = self.spec.dcs as usize;
        let h = self.spec.k as usize / 2;
        dcs * (self.hosts_per_dc as usize
            + self.tors_per_dc as usize * h
            + self.aggs_per_dc as usize * h
            + self.cores_per_dc as usize)
    }

    /// Indices (into [`Topology::links`]) of every long link: the last
    /// links.
    pub fn long_link_range(&self) -> Range<usize> {
        let first = self.relay_link_range().end;
        first..first + self.n_long_links()
    }

    /// The DCs `(a, b)`, `a < b`, that long link `link` joins.
    fn build_long_link_ends(&self, link: usize) -> (u32, u32) {
        let mut i = (link - self.long_link_range().start) / self.spec.long_links as usize;
        let n = self.spec.dcs;
        for a in 0..n {
            let pairs = (n - a - 1) as usize;
            if i < pairs {
                return (a, a + 1 + i as u32);
            }
            i -= pairs;
        }
        unreachable!("a long link index")
    }

    /// Indices of the `long_links` links between DCs `a` and `b` (either
    /// order); empty if `a == b` or either is not a DC.
    pub fn long_links_between(&self, a: u32, b: u32) -> Range<usize> {
        let (a, b) = (a.min(b) as usize, a.max(b) as usize);
        let n = self.spec.dcs as usize;
        if a == b || b >= n {
            return 0..0;
        }
        // Pairs before (a, b): those of every lower first DC, then (a, a+1..b).
        let pair = a * (2 * n - a - 1) / 2 + (b - a - 1);
        let per = self.spec.long_links as usize;
        let first = self.long_link_range().start + pair * per;
        first..first + per
    }

    /// Whether link `link` is a long link.
    pub fn is_long_link(&self, link: usize) -> bool {
        self.long_link_range().contains(&link)
    }

    /// The topology, numbered as the [module](self) documentation says.
    pub fn build(&self) -> Topology {
        let s = &self.spec;
        let h = s.k / 2;
        let one = clos(ClosSpec {
            pods: s.k,
            tors_per_pod: h,
            aggs_per_pod: h,
            hosts_per_tor: s.hosts_per_tor,
            cores: h * h,
            host_rate: s.host_rate,
            fabric_rate: s.fabric_rate,
            delay: s.delay,
        })
        .expect("a checked cross-DC spec makes a well-formed fat tree");
        let hd = self.hosts_per_dc;
        // One DC's links in clos order: host links, ToR–agg, agg–core.
        let tier_ends = [
            0,
            hd as usize,
            hd as usize + (self.tors_per_dc * h) as usize,
            one.links.len(),
        ];
        debug_assert_eq!(tier_ends[3] - tier_ends[2], (self.aggs_per_dc * h) as usize);
        // A node of the one-DC tree as a node of DC `dc`.
        let map = |dc: u32, n: NodeId| -> NodeId {
            if n < hd {
                dc * hd + n
            } else {
                self.switch0(dc) + (n - hd)
            }
        };
        let mut links = Vec::with_capacity(self.n_links());
        for tier in 0..3 {
            for dc in 0..s.dcs {
                for l in &one.links[tier_ends[tier]..tier_ends[tier + 1]] {
                    links.push(LinkSpec::new(map(dc, l.a), map(dc, l.b), l.rate, l.delay));
                }
            }
        }
        for dc in 0..s.dcs {
            for core in self.cores(dc) {
                links.push(LinkSpec::new(core, self.dci(dc), s.fabric_rate, s.delay));
            }
        }
        let mut ends = Vec::with_capacity(self.n_long_links());
        for a in 0..s.dcs {
            for b in a + 1..s.dcs {
                for _ in 0..s.long_links {
                    ends.push((self.dci(a), self.dci(b)));
                }
            }
        }
        if s.relays {
            for (i, &(a, b)) in ends.iter().enumerate() {
                let (ra, rb) = self.relays_of(i).expect("relays on");
                links.push(LinkSpec::new(a, ra, s.long_rate, s.delay));
                links.push(LinkSpec::new(rb, b, s.long_rate, s.delay));
            }
            for (i, e) in ends.iter_mut().enumerate() {
                *e = self.relays_of(i).expect("relays on");
            }
        }
        for (a, b) in ends {
            links.push(LinkSpec::new(a, b, s.long_rate, s.long_delay));
        }
        debug_assert_eq!(links.len(), self.n_links());
        let mut kinds = vec![NodeKind::Host; self.n_hosts() as usize];
        kinds.resize(self.n_nodes() as usize, NodeKind::Switch);
        Topology { kinds, links }
    }
}

/// The cross-DC topology of `spec`; see the [module](self) documentation.
/// [`CrossDcSpec::layout`] gives the same topology's numbering (which DC a
/// host is in, which links are long).
pub fn cross_dc(spec: CrossDcSpec) -> Result<Topology, String> {
    Ok(spec.layout()?.build())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Routes;

    /// Number of distinct shortest paths from `at` to host `dst`.
    fn count_paths(t: &Topology, r: &Routes, at: NodeId, dst: NodeId) -> usize {
        if at == dst {
            return 1;
        }
        r.next_hops(at, dst)
            .iter()
            .map(|&l| count_paths(t, r, t.links[l as usize].other(at), dst))
            .sum()
    }

    /// Every link on any shortest path from `src` to host `dst`.
    fn links_on_paths(t: &Topology, r: &Routes, src: NodeId, dst: NodeId) -> Vec<u32> {
        let mut seen = vec![false; t.links.len()];
        let mut stack = vec![src];
        while let Some(at) = stack.pop() {
            for &l in r.next_hops(at, dst) {
                if !seen[l as usize] {
                    seen[l as usize] = true;
                    stack.push(t.links[l as usize].other(at));
                }
            }
        }
        (0..t.links.len() as u32)
            .filter(|&l| seen[l as usize])
            .collect()
    }

    #[test]
    fn swing_setup_counts() {
        let lay = CrossDcSpec::SWING.layout().unwrap();
        let t = lay.build();
        // Per DC: 16 hosts; 8 ToRs, 8 aggs, 4 cores, 1 DCI = 21 switches.
        assert_eq!(lay.hosts_per_dc(), 16);
        assert_eq!(lay.switches_per_dc(), 21);
        assert_eq!(t.n_nodes(), 2 * (16 + 21));
        assert_eq!(t.hosts(), (0..32).collect::<Vec<_>>());
        assert_eq!(t.switches(), (32..74).collect::<Vec<_>>());
        // Per DC: 16 host links, 8 x 2 ToR-agg, 8 x 2 agg-core, 4 core-DCI = 52;
        // plus 1 long link.
        assert_eq!(t.links.len(), 2 * 52 + 1);
        assert_eq!(lay.n_links(), t.links.len());
        t.validate("swing", None).unwrap();

        assert_eq!(lay.hosts(1), 16..32);
        assert_eq!(lay.tors(0), 32..40);
        assert_eq!(lay.aggs(0), 40..48);
        assert_eq!(lay.cores(0), 48..52);
        assert_eq!(lay.dci(0), 52);
        assert_eq!(lay.tors(1), 53..61);
        assert_eq!(lay.cores(1), 69..73);
        assert_eq!(lay.dci(1), 73);
        for n in 0..t.n_nodes() as u32 {
            let want = if n < 32 { n / 16 } else { (n - 32) / 21 };
            assert_eq!(lay.dc_of(n), Some(want), "node {n}");
        }
        assert_eq!(lay.dc_of(74), None);
        assert_eq!(lay.dc_of_host(15), Some(0));
        assert_eq!(lay.dc_of_host(16), Some(1));
        assert_eq!(lay.dc_of_host(32), None);
        assert!(lay.crosses_dcs(3, 20) && !lay.crosses_dcs(3, 4) && !lay.crosses_dcs(3, 52));

        // Link order: host links, ToR-agg, agg-core, core-DCI, long.
        let ab = |i: usize| (t.links[i].a, t.links[i].b);
        assert_eq!(ab(0), (0, 32));
        assert_eq!(ab(1), (1, 32));
        assert_eq!(ab(16), (16, 53));
        assert_eq!(ab(32), (32, 40)); // DC 0's first ToR-agg
        assert_eq!(ab(48), (53, 61)); // DC 1's first ToR-agg
        assert_eq!(ab(64), (40, 48)); // DC 0's first agg-core
        assert_eq!(ab(96), (48, 52)); // core-DCI
        assert_eq!(ab(100), (69, 73));
        assert_eq!(ab(104), (52, 73)); // the long link
        assert_eq!(lay.long_link_range(), 104..105);
        assert_eq!(lay.long_links_between(1, 0), 104..105);
        assert!(lay.is_long_link(104) && !lay.is_long_link(103));
        let long = &t.links[104];
        assert_eq!(
            (long.rate, long.delay),
            (Rate::gbps(400), Delta::from_us(400))
        );
        assert!(t.links[..104]
            .iter()
            .all(|l| l.rate == Rate::gbps(100) && l.delay == Delta::from_us(1)));
        // Each DCI switch: 4 cores and the long link.
        let adj = t.adjacency();
        assert_eq!(adj.degree(52), 5);
        assert_eq!(adj.degree(73), 5);
        // Inside a DC the fat tree is intact: every ToR, agg and core has k = 4
        // ports, counting the core's DCI link and a ToR's 2 hosts.
        for dc in 0..2 {
            for s in lay.tors(dc).chain(lay.aggs(dc)) {
                assert_eq!(adj.degree(s), 4, "switch {s}");
            }
            for s in lay.cores(dc) {
                assert_eq!(adj.degree(s), 5, "core {s}");
            }
        }
    }

    #[test]
    fn long_link_delay_is_length_times_5us_per_km() {
        assert_eq!(fibre_delay(80.0), Some(Delta::from_us(400)));
        assert_eq!(fibre_delay(600.0), Some(Delta::from_ms(3)));
        assert_eq!(fibre_delay(0.5), Some(Delta::from_ns(2500)));
        assert_eq!(fibre_delay(-1.0), None);
        assert_eq!(fibre_delay(f64::NAN), None);
        for km in [1u64, 80, 120, 600, 3000] {
            let spec = CrossDcSpec {
                long_delay: fibre_delay(km as f64).unwrap(),
                ..CrossDcSpec::SWING
            };
            let lay = spec.layout().unwrap();
            let t = lay.build();
            for li in lay.long_link_range() {
                assert_eq!(t.links[li].delay.ps(), km * FIBRE_PS_PER_KM);
                assert_eq!(t.links[li].delay.ps(), km * 5_000_000, "{km} km");
            }
        }
        assert_eq!(CrossDcSpec::BIFROST.long_delay, fibre_delay(600.0).unwrap());
    }

    #[test]
    fn inter_dc_routes_cross_the_long_link() {
        let lay = CrossDcSpec::SWING.layout().unwrap();
        let t = lay.build();
        let r = Routes::compute(&t);
        let long = lay.long_link_range().start as u32;
        for src in lay.hosts(0) {
            for dst in lay.hosts(1) {
                // host-ToR-agg-core-DCI, long, DCI-core-agg-ToR-host.
                assert_eq!(r.hops(src, dst), 9, "{src} -> {dst}");
                assert_eq!(r.hops(dst, src), 9, "{dst} -> {src}");
                let p = r.path(&t, src, dst);
                assert_eq!(p.iter().filter(|&&l| l == long).count(), 1);
                assert!(links_on_paths(&t, &r, src, dst).contains(&long));
                // Every shortest path crosses it.
                let mut at = src;
                for &l in &p {
                    at = t.links[l as usize].other(at);
                }
                assert_eq!(at, dst);
            }
        }
        // 2 aggs x 2 cores up, 1 long link, 4 cores down: 16 paths.
        assert_eq!(count_paths(&t, &r, 0, 31), 16);
        assert_eq!(r.next_hops(lay.dci(0), 31), &[long]);
        assert_eq!(r.next_hops(lay.dci(1), 0), &[long]);
        // From DCI 1 every core leads down to any host of DC 1.
        assert_eq!(r.next_hops(lay.dci(1), 31).len(), 4);
        // A core of DC 0 sends DC 1's traffic to its DCI only.
        for c in lay.cores(0) {
            let nh = r.next_hops(c, 20);
            assert_eq!(nh.len(), 1);
            assert_eq!(t.links[nh[0] as usize].other(c), lay.dci(0));
        }
        // Base delay of the path: 8 x 1 us + 400 us (Swing §6.1's IRN-inter
        // RTO_low, 817 us, is about this round trip plus serialisation).
        let d: u64 = r
            .path(&t, 0, 31)
            .iter()
            .map(|&l| t.links[l as usize].delay.ps())
            .sum();
        assert_eq!(d, Delta::from_us(408).ps());
    }

    #[test]
    fn intra_dc_routes_never_use_the_long_link_or_the_dci() {
        let spec = CrossDcSpec {
            dcs: 3,
            long_links: 2,
            ..CrossDcSpec::SWING
        };
        let lay = spec.layout().unwrap();
        let t = lay.build();
        t.validate("3 DCs", None).unwrap();
        let r = Routes::compute(&t);
        for dc in 0..3 {
            let hosts: Vec<NodeId> = lay.hosts(dc).collect();
            for &a in &hosts {
                for &b in &hosts {
                    if a == b {
                        continue;
                    }
                    // As in a lone k = 4 fat tree: 2, 4 or 6 hops.
                    let local = (a - hosts[0], b - hosts[0]);
                    let want = if local.0 / 2 == local.1 / 2 {
                        2
                    } else if local.0 / 4 == local.1 / 4 {
                        4
                    } else {
                        6
                    };
                    assert_eq!(r.hops(a, b), want, "{a} -> {b}");
                    for l in links_on_paths(&t, &r, a, b) {
                        assert!(
                            !lay.is_long_link(l as usize),
                            "{a} -> {b} uses long link {l}"
                        );
                        let link = &t.links[l as usize];
                        assert!(
                            !link.touches(lay.dci(dc)),
                            "{a} -> {b} goes through the DCI switch"
                        );
                        assert_eq!(lay.dc_of(link.a), Some(dc));
                        assert_eq!(lay.dc_of(link.b), Some(dc));
                    }
                }
            }
        }
        // With three DCs every pair has its own links: DC 0 -> DC 2 goes direct.
        let direct = lay.long_links_between(0, 2);
        assert_eq!(
            direct,
            lay.long_link_range().start + 2..lay.long_link_range().start + 4
        );
        assert_eq!(lay.long_links_between(2, 1), direct.end..direct.end + 2);
        assert!(lay.long_links_between(1, 1).is_empty());
        assert!(lay.long_links_between(0, 3).is_empty());
        let dst = lay.hosts(2).start;
        assert_eq!(r.hops(0, dst), 9);
        let used: Vec<usize> = links_on_paths(&t, &r, 0, dst)
            .into_iter()
            .map(|l| l as usize)
            .filter(|&l| lay.is_long_link(l))
            .collect();
        assert_eq!(used, direct.collect::<Vec<_>>());
        for dc in 0..3 {
            assert_eq!(t.adjacency().degree(lay.dci(dc)), 4 + 2 * 2);
        }
    }

    #[test]
    fn relays_sit_between_each_dci_switch_and_the_long_link() {
        let spec = CrossDcSpec {
            relays: true,
            long_links: 2,
            ..CrossDcSpec::SWING
        };
        let lay = spec.layout().unwrap();
        let t = lay.build();
        t.validate("relays", None).unwrap();
        let plain = CrossDcSpec::SWING.layout().unwrap();
        assert_eq!(lay.n_nodes(), plain.n_nodes() + 4);
        assert_eq!(t.kinds.len(), lay.n_nodes() as usize);
        let adj = t.adjacency();
        for i in 0..2 {
            let (ra, rb) = lay.relays_of(i).unwrap();
            assert!(lay.is_relay(ra) && lay.is_relay(rb));
            assert_eq!((lay.dc_of(ra), lay.dc_of(rb)), (Some(0), Some(1)));
            assert_eq!(adj.degree(ra), 2);
            assert_eq!(adj.degree(rb), 2);
            let long = &t.links[lay.long_link_range().start + i];
            assert_eq!((long.a, long.b), (ra, rb));
            assert_eq!(long.delay, Delta::from_us(400));
            let access = &t.links[lay.relay_link_range().start + 2 * i];
            assert_eq!((access.a, access.b), (lay.dci(0), ra));
            assert_eq!(
                (access.rate, access.delay),
                (Rate::gbps(400), Delta::from_us(1))
            );
            let access = &t.links[lay.relay_link_range().start + 2 * i + 1];
            assert_eq!((access.a, access.b), (rb, lay.dci(1)));
        }
        assert!(lay.relays_of(2).is_none());
        assert!(!lay.is_relay(lay.dci(1)));
        // Inter-DC paths gain the two relay hops; both long links are ECMP.
        let r = Routes::compute(&t);
        let pr = Routes::compute(&plain.build());
        assert_eq!(
            r.hops(0, lay.hosts(1).start),
            pr.hops(0, plain.hosts(1).start) + 2
        );
        assert_eq!(r.next_hops(lay.dci(0), lay.hosts(1).start).len(), 2);
        assert!(CrossDcSpec::SWING.layout().unwrap().relays_of(0).is_none());
    }

    #[test]
    fn parallel_long_links_are_equal_cost_next_hops() {
        let spec = CrossDcSpec {
            long_links: 3,
            long_rate: Rate::gbps(100),
            ..CrossDcSpec::SWING
        };
        let lay = spec.layout().unwrap();
        let t = lay.build();
        t.validate("parallel", None).unwrap();
        let r = Routes::compute(&t);
        let long: Vec<u32> = lay.long_link_range().map(|l| l as u32).collect();
        assert_eq!(long.len(), 3);
        for l in &long {
            let link = &t.links[*l as usize];
            assert_eq!((link.a, link.b), (lay.dci(0), lay.dci(1)));
            assert_eq!(link.rate, Rate::gbps(100));
        }
        // Each long link is a port of its own at both DCI switches.
        let adj = t.adjacency();
        assert_eq!(adj.degree(lay.dci(0)), 4 + 3);
        assert_eq!(&adj.ports(lay.dci(0))[4..], &long[..]);
        assert_eq!(&adj.ports(lay.dci(1))[4..], &long[..]);
        for dst in lay.hosts(1) {
            assert_eq!(r.next_hops(lay.dci(0), dst), &long[..], "to {dst}");
        }
        for dst in lay.hosts(0) {
            assert_eq!(r.next_hops(lay.dci(1), dst), &long[..], "to {dst}");
        }
        // Three times the paths of one long link, all of one length.
        assert_eq!(count_paths(&t, &r, 0, 31), 3 * 16);
        assert_eq!(r.hops(0, 31), 9);
        // Intra-DC traffic still stays home.
        for l in links_on_paths(&t, &r, 0, 15) {
            assert!(!lay.is_long_link(l as usize));
        }
    }

    #[test]
    fn hosts_per_tor_generalises_the_fat_tree() {
        // k = 4 with k/2 hosts per ToR is the standard fat tree.
        let spec = CrossDcSpec {
            hosts_per_tor: 2,
            k: 6,
            ..CrossDcSpec::SWING
        };
        let lay = spec.layout().unwrap();
        assert_eq!(lay.hosts_per_dc(), 6 * 3 * 2);
        assert_eq!(lay.switches_per_dc(), 36 + 9 + 1);
        let t = lay.build();
        t.validate("k6", None).unwrap();
        // Each DC's fabric is the fat tree's, shifted.
        let ft = crate::fat_tree(6, Rate::gbps(100), Rate::gbps(100), Delta::from_us(1)).unwrap();
        let k6 = CrossDcSpec {
            hosts_per_tor: 3,
            ..spec
        }
        .layout()
        .unwrap();
        let t6 = k6.build();
        assert_eq!(k6.hosts_per_dc(), ft.hosts().len() as u32);
        let ft_hosts = ft.hosts().len() as u32;
        let to_dc1 = |n: NodeId| {
            if n < ft_hosts {
                k6.hosts(1).start + n
            } else {
                k6.tors(1).start + (n - ft_hosts)
            }
        };
        let dc1: Vec<(NodeId, NodeId)> = t6
            .links
            .iter()
            .filter(|l| k6.dc_of(l.a) == Some(1) && k6.dc_of(l.b) == Some(1))
            .filter(|l| l.b != k6.dci(1))
            .map(|l| (l.a, l.b))
            .collect();
        let want: Vec<(NodeId, NodeId)> = ft
            .links
            .iter()
            .map(|l| (to_dc1(l.a), to_dc1(l.b)))
            .collect();
        assert_eq!(dc1, want);
    }

    #[test]
    fn bad_specs_are_refused() {
        let f = |s: CrossDcSpec| cross_dc(s).unwrap_err();
        let s = CrossDcSpec::SWING;
        assert!(f(CrossDcSpec { dcs: 1, ..s }).starts_with("cross_dc: dcs must be at least 2"));
        assert!(f(CrossDcSpec { k: 3, ..s }).contains("k must be even"));
        assert!(f(CrossDcSpec { k: 0, ..s }).contains("k must be even"));
        assert!(f(CrossDcSpec {
            hosts_per_tor: 0,
            ..s
        })
        .contains("hosts_per_tor"));
        assert!(f(CrossDcSpec { long_links: 0, ..s }).contains("long_links must be at least 1"));
        assert!(f(CrossDcSpec {
            long_rate: Rate(0),
            ..s
        })
        .contains("long_rate must be greater than zero"));
        assert!(f(CrossDcSpec { k: 2000, ..s }).contains("too many"));
        assert!(f(CrossDcSpec {
            long_links: 70000,
            ..s
        })
        .ends_with("too many (at most 65535); lower long_links"));
        assert!(f(CrossDcSpec { k: 1000, ..s })
            .ends_with("2500002 switches is too many (at most 65534); lower k or dcs"));
        // The smallest: k = 2, one host per ToR: 2 hosts per DC.
        let t = cross_dc(CrossDcSpec {
            k: 2,
            hosts_per_tor: 1,
            ..s
        })
        .unwrap();
        t.validate("tiny", None).unwrap();
        assert_eq!(t.hosts().len(), 4);
    }
}
