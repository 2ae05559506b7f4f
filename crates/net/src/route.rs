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
//! The grouping is checked, not assumed: a host is grouped only if, at
//! every switch, the grouped lookup gives exactly the list of next hops
//! (same ports, same order) that its own row would; any other host (e.g.
//! after its link failed) gets a row of its own in every switch. Lookups
//! therefore always return what a per-host table would, and the ECMP choice
//! among them is unchanged.

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
    let own_row = |s: usize, h: u32| -> Vec<u16> { own_hops(s, h).collect() };
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
    // Group rows: per group (switch index) its row at every switch, taken
    // from the first host whose own switch routes it over its own port.
    let mut group_rows: Vec<Option<Vec<Vec<u16>>>> = vec![None; n_sw];
    let mut singletons: Vec<u32> = Vec::new();
    for &h in hosts {
        let grouped = attach(h).and_then(|(t, port)| {
            if !own_hops(t, h).eq([port]) {
                return None;
            }
            // The group's rows are the first such host's; every other host
            // of the group must have the same, compared without a copy.
            let group = group_rows[t].get_or_insert_with(|| {
                (0..n_sw)
                    .map(|s| if s == t { Vec::new() } else { own_row(s, h) })
                    .collect()
            });
            let same = group
                .iter()
                .enumerate()
                .all(|(s, row)| s == t || row.iter().copied().eq(own_hops(s, h)));
            same.then_some((t, port))
        });
        dst[h as usize] = match grouped {
            Some((t, port)) => DstRoute {
                key: t as u32,
                attach_switch: t as u32,
                attach_port: port,
            },
            None => {
                singletons.push(h);
                DstRoute {
                    key: (n_sw + singletons.len() - 1) as u32,
                    attach_switch: NO_SWITCH,
                    attach_port: 0,
                }
            }
        };
    }
    let per_switch = (0..n_sw)
        .map(|s| {
            let mut flat: Vec<u16> = Vec::new();
            let mut rows = Vec::with_capacity(n_sw + singletons.len());
            let mut push_row = |flat: &mut Vec<u16>, hops: &[u16]| {
                rows.push(RouteRow {
                    start: flat.len() as u32,
                    len: u16::try_from(hops.len()).expect("next hops fit in a u16"),
                    first: hops.first().copied().unwrap_or(0),
                });
                flat.extend_from_slice(hops);
            };
            for group in &group_rows {
                let hops = group.as_ref().map_or(&[][..], |g| &g[s][..]);
                push_row(&mut flat, hops);
            }
            for &h in &singletons {
                push_row(&mut flat, &own_row(s, h));
            }
            (flat, rows)
        })
        .collect();
    RouteTables { dst, per_switch }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every (switch, host) lookup gives exactly the per-host next hops;
    /// returns how many (switch, host) pairs used a group row.
    fn check(topo: &Topology, routes: &topo::Routes, link_map: Option<&[u32]>) -> usize {
        let mut link_port = vec![[0u32; 2]; topo.links.len()];
        let mut next = 0;
        let mut first = vec![0u32; topo.kinds.len()];
        for node in 0..topo.kinds.len() as u32 {
            first[node as usize] = next;
            for (li, l) in topo.links.iter().enumerate() {
                for (end, n) in [l.a, l.b].into_iter().enumerate() {
                    if n == node {
                        link_port[li][end] = next;
                        next += 1;
                    }
                }
            }
        }
        let switches: Vec<(u32, u32)> = (0..topo.kinds.len() as u32)
            .filter(|&n| !topo.is_host(n))
            .map(|n| (n, first[n as usize]))
            .collect();
        let hosts = topo.hosts();
        let t = route_tables(topo, routes, link_map, &link_port, &switches, &hosts);
        let mut grouped = 0;
        for (s, &(node, f)) in switches.iter().enumerate() {
            for &h in &hosts {
                let want: Vec<u16> = routes
                    .next_hops(node, h)
                    .iter()
                    .map(|&li| {
                        let li = link_map.map_or(li, |m| m[li as usize]) as usize;
                        let end = if topo.links[li].a == node { 0 } else { 1 };
                        (link_port[li][end] - f) as u16
                    })
                    .collect();
                let d = t.dst[h as usize];
                let got: Vec<u16> = if d.attach_switch == s as u32 {
                    vec![d.attach_port]
                } else {
                    let (flat, rows) = &t.per_switch[s];
                    let row = rows[d.key as usize];
                    let hops = &flat[row.start as usize..row.start as usize + usize::from(row.len)];
                    assert_eq!(row.first, hops.first().copied().unwrap_or(0));
                    hops.to_vec()
                };
                assert_eq!(got, want, "switch node {node}, host {h}");
                grouped += usize::from(d.attach_switch != NO_SWITCH);
            }
        }
        grouped
    }

    #[test]
    fn grouped_lookups_equal_per_host_rows() {
        let topo = topo::peer_fat_tree();
        let routes = topo::Routes::compute(&topo);
        let pairs = check(&topo, &routes, None);
        assert_eq!(
            pairs,
            (topo.kinds.len() - topo.hosts().len()) * topo.hosts().len()
        );
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
        let pairs = check(&topo, &routes, Some(&up));
        assert_eq!(pairs, n_sw * (topo.hosts().len() - 1));
    }
}
