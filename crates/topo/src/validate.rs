//! Checks that a topology is one rdmasim can simulate.

use crate::{NodeId, NodeKind, Topology};
use engine::InputError;
use std::collections::HashMap;

/// Most switches a topology may have: a port keeps its switch's index in
/// 16 bits, `u16::MAX` excluded (the simulation's `Port::owner`).
pub const MAX_SWITCHES: usize = u16::MAX as usize - 1;

impl Topology {
    /// Check that this topology can be simulated:
    ///
    /// * every link joins two distinct nodes that exist, and has a rate
    ///   above zero and an error rate in `[0, 1]`;
    /// * every host has exactly one link (rdmasim supports one NIC per host),
    ///   so only two switches can be joined by several (parallel) links; each
    ///   is a port of its own at both ends and [`Routes`](crate::Routes)
    ///   lists each as an equal-cost next hop (the cross-DC builder's
    ///   parallel long links, [`crate::crossdc`]). The peer's topology files
    ///   may not have them ([`parse_peer_topology`](crate::parse_peer_topology)):
    ///   the peer keeps one route per neighbour and would use one of them;
    /// * there are at least two hosts and at most [`MAX_SWITCHES`] switches;
    /// * the graph is connected.
    ///
    /// Errors name `file`. With `link_lines` (the 1-based line of each link,
    /// as the file parser passes it) a link's error carries that line and the
    /// field at fault (`src`, `dst`, `rate`, `error_rate`); without it the
    /// field is `link <index>`. Errors about a node as a whole name the field
    /// `node <id>` (or `hosts`) and have no line.
    pub fn validate(&self, file: &str, link_lines: Option<&[usize]>) -> Result<(), InputError> {
        check(self, file, link_lines, None, true)
    }
}

/// [`Topology::validate`], with `node_line` given to errors not tied to a
/// link, and refusing parallel links unless `parallel_ok` (false for the
/// peer's files).
pub(crate) fn check(
    topo: &Topology,
    file: &str,
    link_lines: Option<&[usize]>,
    node_line: Option<usize>,
    parallel_ok: bool,
) -> Result<(), InputError> {
    let n = topo.kinds.len();
    let link_err = |i: usize, field: &str, msg: String| -> InputError {
        match link_lines.and_then(|ls| ls.get(i)) {
            Some(&line) => InputError::at(file, Some(line), field, msg),
            None => InputError::at(file, None, format!("link {i}"), msg),
        }
    };
    let range_msg = |what: &str, x: NodeId| {
        if n == 0 {
            format!("{what} {x} is out of range: the topology has no nodes")
        } else {
            format!(
                "{what} {x} is out of range: the topology has {n} nodes (ids 0 to {})",
                n - 1
            )
        }
    };
    let is_host = |x: NodeId| topo.kinds[x as usize] == NodeKind::Host;

    // First link of each node, to name in messages.
    let mut first_link = vec![u32::MAX; n];
    let mut pairs: HashMap<(NodeId, NodeId), usize> = HashMap::with_capacity(topo.links.len());
    for (i, l) in topo.links.iter().enumerate() {
        if l.a as usize >= n {
            return Err(link_err(i, "src", range_msg("src", l.a)));
        }
        if l.b as usize >= n {
            return Err(link_err(i, "dst", range_msg("dst", l.b)));
        }
        if l.a == l.b {
            return Err(link_err(
                i,
                "dst",
                format!(
                    "src and dst are both node {}; a link must join two different nodes",
                    l.a
                ),
            ));
        }
        if l.rate.bps() == 0 {
            return Err(link_err(
                i,
                "rate",
                "rate must be greater than zero (it is 0 bps)".into(),
            ));
        }
        if !(0.0..=1.0).contains(&l.error_rate) {
            return Err(link_err(
                i,
                "error_rate",
                format!("error_rate {} must be between 0 and 1", l.error_rate),
            ));
        }
        for (x, field) in [(l.a, "src"), (l.b, "dst")] {
            let first = &mut first_link[x as usize];
            if *first == u32::MAX {
                *first = i as u32;
            } else if is_host(x) {
                return Err(link_err(
                    i,
                    field,
                    format!(
                        "host {x} already has a link (link {} to node {}); rdmasim supports \
                         one NIC per host, so every host must have exactly one link",
                        *first,
                        topo.links[*first as usize].other(x)
                    ),
                ));
            }
        }
        let key = (l.a.min(l.b), l.a.max(l.b));
        if let Some(&j) = pairs.get(&key).filter(|_| !parallel_ok) {
            return Err(link_err(
                i,
                "dst",
                format!(
                    "nodes {} and {} are already joined by link {j}; the peer's topology \
                     files cannot have parallel links (the peer keeps one route per \
                     neighbour)",
                    l.a, l.b
                ),
            ));
        }
        pairs.entry(key).or_insert(i);
    }

    let switches = n - topo.hosts().len();
    if switches > MAX_SWITCHES {
        return Err(InputError::at(
            file,
            node_line,
            "switches",
            format!(
                "the topology has {switches} switches; rdmasim supports at most {MAX_SWITCHES}"
            ),
        ));
    }
    let hosts = topo.hosts();
    if hosts.len() < 2 {
        return Err(InputError::at(
            file,
            node_line,
            "hosts",
            format!(
                "the topology has {} host{}; it needs at least 2",
                hosts.len(),
                if hosts.len() == 1 { "" } else { "s" }
            ),
        ));
    }
    for &h in &hosts {
        if first_link[h as usize] == u32::MAX {
            return Err(InputError::at(
                file,
                node_line,
                format!("node {h}"),
                format!(
                    "host {h} has no link; rdmasim supports one NIC per host, so every \
                     host must have exactly one link"
                ),
            ));
        }
    }

    // Connectivity: breadth-first from node 0 over every link.
    let adj = topo.adjacency();
    let mut seen = vec![false; n];
    let mut queue = vec![0 as NodeId];
    seen[0] = true;
    let mut head = 0;
    while head < queue.len() {
        let u = queue[head];
        head += 1;
        for &l in adj.ports(u) {
            let v = adj.other_end(l, u);
            if !seen[v as usize] {
                seen[v as usize] = true;
                queue.push(v);
            }
        }
    }
    if let Some(u) = seen.iter().position(|&s| !s) {
        let u = u as NodeId;
        let what = if is_host(u) { "host" } else { "switch" };
        let fl = first_link[u as usize];
        if fl == u32::MAX {
            return Err(InputError::at(
                file,
                node_line,
                format!("node {u}"),
                format!(
                    "{what} {u} has no links, so it is not reachable from node 0; the \
                     topology must be connected"
                ),
            ));
        }
        let field = if topo.links[fl as usize].a == u {
            "src"
        } else {
            "dst"
        };
        return Err(link_err(
            fl as usize,
            field,
            format!("{what} {u} is not reachable from node 0; the topology must be connected"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::{LinkSpec, NodeKind, Topology};
    use engine::{Delta, Rate};

    fn l(a: u32, b: u32) -> LinkSpec {
        LinkSpec::new(a, b, Rate::gbps(100), Delta::from_us(1))
    }

    /// Hosts 0, 1, 2 on switch 3.
    fn small() -> Topology {
        Topology {
            kinds: vec![
                NodeKind::Host,
                NodeKind::Host,
                NodeKind::Host,
                NodeKind::Switch,
            ],
            links: vec![l(0, 3), l(1, 3), l(2, 3)],
        }
    }

    fn err(t: &Topology) -> String {
        t.validate("t", None).unwrap_err().to_string()
    }

    #[test]
    fn accepts_a_star() {
        small().validate("t", None).unwrap();
    }

    #[test]
    fn link_checks_name_the_link() {
        let mut t = small();
        t.links[1].b = 9;
        assert_eq!(
            err(&t),
            "t: link 1: dst 9 is out of range: the topology has 4 nodes (ids 0 to 3)"
        );
        let mut t = small();
        t.links[2].b = 2;
        assert!(err(&t).starts_with("t: link 2: src and dst are both node 2"));
        let mut t = small();
        t.links[0].rate = Rate(0);
        assert_eq!(
            err(&t),
            "t: link 0: rate must be greater than zero (it is 0 bps)"
        );
        let mut t = small();
        t.links[0].error_rate = 1.5;
        assert!(err(&t).contains("error_rate 1.5 must be between 0 and 1"));
        t.links[0].error_rate = f64::NAN;
        assert!(err(&t).contains("error_rate NaN"));
    }

    #[test]
    fn line_numbers_replace_link_index() {
        let mut t = small();
        t.links[2].rate = Rate(0);
        let e = t.validate("f.txt", Some(&[3, 4, 7])).unwrap_err();
        assert_eq!(e.line, Some(7));
        assert_eq!(e.field, "rate");
        assert!(e.to_string().starts_with("f.txt:7: rate: "));
    }

    #[test]
    fn one_nic_per_host() {
        let mut t = small();
        t.kinds.push(NodeKind::Switch);
        t.links.push(l(4, 3));
        t.links.push(l(1, 4));
        let e = t.validate("t", None).unwrap_err().to_string();
        assert!(e.starts_with("t: link 4: host 1 already has a link (link 1 to node 3)"));
        assert!(e.contains("one NIC per host"));

        let mut t = small();
        t.links.pop();
        assert!(err(&t).starts_with("t: node 2: host 2 has no link; rdmasim supports one NIC"));
    }

    #[test]
    fn parallel_links_join_switches_only_and_not_in_peer_files() {
        let mut t = small();
        t.kinds.push(NodeKind::Switch);
        t.links.push(l(3, 4));
        t.links.push(l(4, 3));
        // Two switches may share several links (the cross-DC long links)...
        t.validate("t", None).unwrap();
        // ... but the peer's files may not.
        let e = super::check(&t, "t", None, None, false)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("nodes 4 and 3 are already joined by link 3"),
            "{e}"
        );
        assert!(e.contains("parallel links"), "{e}");
        // A host still has one link: a second one to the same switch is refused.
        let mut t = small();
        t.links.push(l(0, 3));
        assert!(err(&t).starts_with("t: link 3: host 0 already has a link"));
    }

    #[test]
    fn needs_two_hosts_and_connectivity() {
        let t = Topology {
            kinds: vec![NodeKind::Host, NodeKind::Switch],
            links: vec![l(0, 1)],
        };
        assert_eq!(
            err(&t),
            "t: hosts: the topology has 1 host; it needs at least 2"
        );

        // Hosts 0,1 on switch 4; hosts 2,3 on switch 5; no link between.
        let mut t = Topology {
            kinds: vec![NodeKind::Host; 4],
            links: vec![l(0, 4), l(1, 4), l(2, 5), l(3, 5)],
        };
        t.kinds.extend([NodeKind::Switch; 2]);
        assert_eq!(
            err(&t),
            "t: link 2: host 2 is not reachable from node 0; the topology must be connected"
        );
        t.links.push(l(4, 5));
        t.validate("t", None).unwrap();
        t.kinds.push(NodeKind::Switch);
        assert!(err(&t).starts_with("t: node 6: switch 6 has no links"));
    }

    #[test]
    fn at_most_max_switches() {
        // Two hosts on a chain of switches, one longer than a port's
        // 16-bit switch index can count.
        let n = crate::MAX_SWITCHES as u32 + 1;
        let mut t = Topology {
            kinds: vec![NodeKind::Host; 2],
            links: vec![l(0, 2), l(1, n + 1)],
        };
        t.kinds.extend(vec![NodeKind::Switch; n as usize]);
        t.links.extend((2..n + 1).map(|s| l(s, s + 1)));
        assert_eq!(
            err(&t),
            "t: switches: the topology has 65535 switches; rdmasim supports at most 65534"
        );
        t.kinds.pop();
        t.links.pop();
        t.links[1] = l(1, n);
        t.validate("t", None).unwrap();
    }
}
