//! The switches' next-hop tables, one row per destination *group* instead
//! of one per destination host.
//!
//! Shortest-path next hops towards a host depend only on the switch the
//! host hangs off (its ToR) everywhere except at that switch, where the one
//! next hop is the host's own port. So every switch keeps one row per
//! group (hosts of the same switch), and each host records its group and
//! its port at its own switch: the tables shrink by the hosts per switch,
//! and a hop reads a few hundred bytes of table instead of tens of KB
//! (docs/performance.md, "Second pass").
//!
//! The grouping is that of [`topo::Routes`], whose tables are kept per
//! attachment node: it lists the same next hops, in the same order, at
//! every node other than a host's own switch for every host of a group
//! ([`topo::Routes::group`]). A host is grouped only if, besides, its own
//! switch's one next hop towards it is its own port; any other host (e.g.
//! after its link failed) gets a row of its own in every switch. Lookups
//! therefore always return what a per-host table would, and the ECMP choice
//! among them is unchanged. Building the rows is one lookup per (switch,
//! group) and one per host, not one per (switch, host): a k = 34 fat tree
//! has 14 million of the latter (docs/performance.md, "A fabric of ten
//! thousand hosts").

use std::collections::HashMap;
use topo::Topology;

/// How a switch finds the next hops towards one destination host.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DstRoute {
    /// Row of this destination in every switch's table.
    pub key: u32,
    /// The switch (index into `Simulation::switches`) whose only next hop
    /// towards this host is its local port `attach_port`, without a table
    /// lookup; `u32::MAX` if none.
    pub attach_switch: u32,
    pub attach_port: u16,
}

/// No attachment shortcut (the host's row is used everywhere).
const NO_SWITCH: u32 = u32::MAX;

/// One key's next hops at a switch: `flat[start..start + len]` of its
/// table, the first of them also kept here. A hop reads the row, and with
/// one next hop (nearly all lookups) nothing else: a slice between two
/// offsets cost four bounds checks (docs/performance.md, "Sixth pass").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RouteRow {
    pub start: u32,
    pub len: u16,
    /// `flat[start]`, or 0 if `len` is 0.
    pub first: u16,
}

/// Next-hop tables of every switch, and how to index them.
#[derive(Debug)]
pub(crate) struct RouteTables {
    /// Per node id (meaningful for hosts).
    pub dst: Vec<DstRoute>,
    /// Per switch, in `Simulation::switches` order: next-hop local ports,
    /// flat, and the row of each key.
    pub per_switch: Vec<(Vec<u16>, Vec<RouteRow>)>,
}

/// Build the tables for `switches` (node id and first port of each, in
/// switch order) from `routes`. `link_map` maps the link indices `routes`
/// uses to `topo`'s when the routes were computed on a subset of the links.
pub(crate) fn route_tables(
    topo: &Topology,
    routes: &topo::Routes,
    link_map: Option<&[u32]>,
    link_port: &[[u32; 2]],
    switches: &[(u32, u32)],
    hosts: &[u32],
) -> RouteTables {
    let n_sw = switches.len();
    let mut switch_of_node = vec![NO_SWITCH; topo.kinds.len()];
    for (s, &(node, _)) in switches.iter().enumerate() {
        switch_of_node[node as usize] = s as u32;
    }
    // The exact next hops of switch `s` towards host `h`, as local ports
    // (an iterator: a tree of k = 32 asks for 10 million of them).
    let own_hops = |s: usize, h: u32| {
        let (node, first) = switches[s];
        routes.next_hops(node, h).iter().map(move |&li| {
            let li = link_map.map_or(li, |m| m[li as usize]) as usize;
            let end = if topo.links[li].a == node { 0 } else { 1 };
            (link_port[li][end] - first) as u16
        })
    };
    // Each node's first link, found in one pass (hosts have one link).
    let mut first_link = vec![usize::MAX; topo.kinds.len()];
    for (li, l) in topo.links.iter().enumerate().rev() {
        first_link[l.a as usize] = li;
        first_link[l.b as usize] = li;
    }
    // Each host's switch and its local port there.
    let attach = |h: u32| -> Option<(usize, u16)> {
        let li = first_link[h as usize];
        if li == usize::MAX {
            return None;
        }
        let l = &topo.links[li];
        let (other, end) = if l.a == h { (l.b, 1) } else { (l.a, 0) };
        let s = switch_of_node[other as usize];
        (s != NO_SWITCH).then(|| {
            (
                s as usize,
                (link_port[li][end] - switches[s as usize].1) as u16,
            )
        })
    };

    let mut dst = vec![
        DstRoute {
            key: u32::MAX,
            attach_switch: NO_SWITCH,
            attach_port: 0,
        };
        topo.kinds.len()
    ];
    // Keys: one per group of `routes` that has a grouped host, in the
    // order of its first host (that host, and its switch, stand for the
    // group), then one per host left ungrouped.
    let mut group_key = vec![u32::MAX; routes.n_groups()];
    let mut group_reps: Vec<(u32, usize)> = Vec::new();
    let mut singletons: Vec<u32> = Vec::new();
    for &h in hosts {
        let grouped = attach(h).and_then(|(t, port)| {
            let g = routes.group(h)?;
            if routes.group_node(g) != switches[t].0 || !own_hops(t, h).eq([port]) {
                return None;
            }
            let key = &mut group_key[g as usize];
            if *key == u32::MAX {
                *key = group_reps.len() as u32;
                group_reps.push((h, t));
            }
            Some((*key, t, port))
        });
        dst[h as usize] = match grouped {
            Some((key, t, port)) => DstRoute {
                key,
                attach_switch: t as u32,
                attach_port: port,
            },
            None => {
                singletons.push(h);
                DstRoute {
                    key: u32::MAX,
                    attach_switch: NO_SWITCH,
                    attach_port: 0,
                }
            }
        };
    }
    for (i, &h) in singletons.iter().enumerate() {
        dst[h as usize].key = (group_reps.len() + i) as u32;
    }
    // A switch's rows share their lists of next hops: a ToR of a k = 34
    // fat tree sends to 561 of its 578 groups over the same 17 ports.
    let per_switch = (0..n_sw)
        .map(|s| {
            let mut flat: Vec<u16> = Vec::new();
            let mut rows = Vec::with_capacity(group_reps.len() + singletons.len());
            let mut seen: HashMap<Vec<u16>, u32> = HashMap::new();
            let mut hops: Vec<u16> = Vec::new();
            let keys = group_reps
                .iter()
                .map(|&(h, t)| (h, Some(t)))
                .chain(singletons.iter().map(|&h| (h, None)));
            for (h, t) in keys {
                hops.clear();
                // A group's own switch reaches its hosts by their ports.
                if t != Some(s) {
                    hops.extend(own_hops(s, h));
                }
                let start = match seen.get(hops.as_slice()) {
                    Some(&start) => start,
                    None => {
                        let start = u32::try_from(flat.len()).expect("route table over 4G entries");
                        flat.extend_from_slice(&hops);
                        seen.insert(hops.clone(), start);
                        start
                    }
                };
                rows.push(RouteRow {
                    start,
                    len: u16::try_from(hops.len()).expect("next hops fit in a u16"),
                    first: hops.first().copied().unwrap_or(0),
                });
            }
            flat.shrink_to_fit();
            (flat, rows)
        })
        .collect();
    RouteTables { dst, per_switch }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{Delta, Rate};

    /// What `Simulation::new` hands `route_tables`, numbered as it does
    /// (ports per node in link order), in one pass over the links.
    struct Numbered {
        link_port: Vec<[u32; 2]>,
        switches: Vec<(u32, u32)>,
        hosts: Vec<u32>,
    }

    fn number(topo: &Topology) -> Numbered {
        let n = topo.kinds.len();
        let mut count = vec![0u32; n];
        let mut local = vec![[0u32; 2]; topo.links.len()];
        for (li, l) in topo.links.iter().enumerate() {
            for (end, node) in [l.a, l.b].into_iter().enumerate() {
                local[li][end] = count[node as usize];
                count[node as usize] += 1;
            }
        }
        let mut first = vec![0u32; n];
        for node in 1..n {
            first[node] = first[node - 1] + count[node - 1];
        }
        let link_port = topo
            .links
            .iter()
            .zip(&local)
            .map(|(l, p)| [first[l.a as usize] + p[0], first[l.b as usize] + p[1]])
            .collect();
        let switches = (0..n as u32)
            .filter(|&x| !topo.is_host(x))
            .map(|x| (x, first[x as usize]))
            .collect();
        Numbered {
            link_port,
            switches,
            hosts: topo.hosts(),
        }
    }

    /// The next hops of `routes` (per host) from switch `node`, whose
    /// first port is `first`, towards host `h`, as local ports.
    fn want(
        topo: &Topology,
        routes: &topo::Routes,
        link_map: Option<&[u32]>,
        link_port: &[[u32; 2]],
        (node, first): (u32, u32),
        h: u32,
    ) -> Vec<u16> {
        routes
            .next_hops(node, h)
            .iter()
            .map(|&li| {
                let li = link_map.map_or(li, |m| m[li as usize]) as usize;
                let end = if topo.links[li].a == node { 0 } else { 1 };
                (link_port[li][end] - first) as u16
            })
            .collect()
    }

    /// What the switch of index `s` looks up towards host `h`.
    fn lookup(t: &RouteTables, s: usize, h: u32) -> Vec<u16> {
        let d = t.dst[h as usize];
        if d.attach_switch == s as u32 {
            return vec![d.attach_port];
        }
        let (flat, rows) = &t.per_switch[s];
        let row = rows[d.key as usize];
        let hops = &flat[row.start as usize..row.start as usize + usize::from(row.len)];
        assert_eq!(row.first, hops.first().copied().unwrap_or(0));
        hops.to_vec()
    }

    /// Every (switch, host) lookup gives exactly the per-host next hops;
    /// returns how many (switch, host) pairs used a group row, and the
    /// tables.
    fn check(
        topo: &Topology,
        routes: &topo::Routes,
        link_map: Option<&[u32]>,
    ) -> (usize, RouteTables) {
        let n = number(topo);
        let t = route_tables(topo, routes, link_map, &n.link_port, &n.switches, &n.hosts);
        let mut grouped = 0;
        for (s, &sw) in n.switches.iter().enumerate() {
            for &h in &n.hosts {
                let want = want(topo, routes, link_map, &n.link_port, sw, h);
                assert_eq!(lookup(&t, s, h), want, "switch node {}, host {h}", sw.0);
                grouped += usize::from(t.dst[h as usize].attach_switch != NO_SWITCH);
            }
        }
        (grouped, t)
    }

    /// The tables, built one lookup per (switch, group), give what a table
    /// per (switch, host) would, on trees (one with faster fabric links),
    /// a leaf-spine, a dumbbell and a cross-DC network with parallel long
    /// links and relays; every switch keeps one row per switch that hosts
    /// hang from, and nothing for the others.
    #[test]
    fn grouped_lookups_equal_per_host_rows() {
        let r100 = Rate::gbps(100);
        let us = Delta::from_us(1);
        let topos = [
            topo::peer_fat_tree(),
            topo::fat_tree(4, r100, Rate::gbps(400), us).unwrap(),
            topo::leaf_spine(3, 2, 4, r100, 2.0, us).unwrap(),
            topo::dumbbell(3, 2, r100, Rate::gbps(10), us).unwrap(),
            topo::cross_dc(topo::CrossDcSpec {
                long_links: 2,
                relays: true,
                ..topo::CrossDcSpec::SWING
            })
            .unwrap(),
        ];
        for topo in &topos {
            let routes = topo::Routes::compute(topo);
            let (pairs, t) = check(topo, &routes, None);
            let hosts = topo.hosts().len();
            let n_sw = topo.kinds.len() - hosts;
            assert_eq!(pairs, n_sw * hosts);
            for (_, rows) in &t.per_switch {
                assert_eq!(rows.len(), routes.n_groups());
            }
        }
        // The peer's tree: 20 ToRs of its 56 switches.
        let topo = topo::peer_fat_tree();
        let (_, t) = check(&topo, &topo::Routes::compute(&topo), None);
        assert_eq!(t.per_switch.len(), 56);
        assert!(t.per_switch.iter().all(|(_, rows)| rows.len() == 20));
    }

    #[test]
    fn a_host_whose_link_failed_gets_its_own_rows() {
        let topo = topo::peer_fat_tree();
        let h = topo.hosts()[3];
        let up: Vec<u32> = (0..topo.links.len() as u32)
            .filter(|&l| topo.links[l as usize].a != h && topo.links[l as usize].b != h)
            .collect();
        let mut sub = topo.clone();
        sub.links = up.iter().map(|&l| topo.links[l as usize].clone()).collect();
        let routes = topo::Routes::compute(&sub);
        let n_sw = topo.kinds.len() - topo.hosts().len();
        let (pairs, t) = check(&topo, &routes, Some(&up));
        assert_eq!(pairs, n_sw * (topo.hosts().len() - 1));
        // 20 group rows, and one for the host cut off (empty everywhere).
        assert_eq!(t.dst[h as usize].key, 20);
        assert!(t
            .per_switch
            .iter()
            .all(|(_, rows)| rows.len() == 21 && rows[20].len == 0));
    }

    /// A fat tree of k = 34 (9,826 hosts under 578 ToRs, 1,445 switches):
    /// its routes and tables build with one row per ToR at every switch,
    /// sampled lookups equal the per-host next hops, each tier has the
    /// equal-cost choices of a fat tree (17 up from a ToR and from an
    /// aggregation switch, one down), and following any choice at each hop
    /// reaches the host in 2, 4 or 6 links.
    #[test]
    fn a_fat_tree_of_ten_thousand_hosts_routes_by_tor() {
        let k = 34u32;
        let h = k / 2;
        let topo = topo::fat_tree(k, Rate::gbps(100), Rate::gbps(100), Delta::from_us(1)).unwrap();
        let n_hosts = k * h * h;
        assert_eq!(n_hosts, 9826);
        let routes = topo::Routes::compute(&topo);
        assert_eq!(routes.n_groups(), (k * h) as usize);
        let n = number(&topo);
        assert_eq!(n.switches.len(), 1445);
        let t = route_tables(&topo, &routes, None, &n.link_port, &n.switches, &n.hosts);
        // Switch index `s` is node `n_hosts + s`: ToRs, then aggs, then cores.
        let (tor, agg, core) = (0usize, (k * h) as usize, (2 * k * h) as usize);
        assert!(t.per_switch.iter().all(|(_, rows)| rows.len() == 578));
        // Rows share their lists: a ToR keeps its 17 ports up once, an
        // aggregation switch those and one port down per ToR of its pod.
        assert_eq!(t.per_switch[tor].0.len(), 17);
        assert_eq!(t.per_switch[agg].0.len(), 17 + 17);
        assert_eq!(t.per_switch[core].0.len(), 34); // one port down per pod
        for s in (0..n.switches.len()).step_by(7) {
            for host in (0..n_hosts).step_by(89) {
                let w = want(&topo, &routes, None, &n.link_port, n.switches[s], host);
                assert_eq!(lookup(&t, s, host), w, "switch {s}, host {host}");
            }
        }
        let last = n_hosts - 1; // under the last ToR, in the last pod
        assert_eq!(lookup(&t, tor, last).len(), 17);
        assert_eq!(lookup(&t, agg, last).len(), 17);
        assert_eq!(lookup(&t, core, last).len(), 1);
        assert_eq!(lookup(&t, agg, 5).len(), 1); // pod 0, below it
        assert_eq!(lookup(&t, tor, 5), vec![5]); // its own port
                                                 // Host 0 to hosts under its ToR, in its pod, and beyond.
        for (dst, links) in [(16, 2), (17, 4), (288, 4), (289, 6), (last, 6)] {
            assert_eq!(routes.hops(0, dst), links, "to host {dst}");
            for pick in 0..3usize {
                let mut at = 0u32;
                let mut walked = 0u32;
                while at != dst {
                    let li = if topo.is_host(at) {
                        routes.next_hops(at, dst)[0]
                    } else {
                        let s = (at - n_hosts) as usize;
                        let hops = lookup(&t, s, dst);
                        let local = hops[(pick + walked as usize) % hops.len()];
                        let port = n.switches[s].1 + u32::from(local);
                        let li = n
                            .link_port
                            .iter()
                            .position(|p| p.contains(&port))
                            .expect("a port of a link");
                        li as u32
                    };
                    at = topo.links[li as usize].other(at);
                    walked += 1;
                    assert!(walked <= links, "to host {dst}: a loop");
                }
                assert_eq!(walked, links, "to host {dst}");
            }
        }
    }
}
