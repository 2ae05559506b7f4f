//! The peer's topology file format (ns-3 `third.cc`'s `topology.txt`):
//!
//! ```text
//! <node_count> <switch_count> <link_count>
//! <switch node ids ...>
//! <src> <dst> <rate> <delay> <error_rate>      (link_count lines)
//! ```
//!
//! Every id not listed as a switch is a host. Rates and delays are ns-3
//! strings (`100Gbps`, `1000ns`, `0.001ms`). Blank lines are skipped; the
//! switch ids may run over several lines; anything after the last link is
//! ignored (files carry comments there). Link `i` is the `i`-th link line,
//! which fixes port numbering (see [`Adjacency`](crate::Adjacency)).

use crate::{validate, LinkSpec, NodeId, NodeKind, Topology};
use engine::units::{parse_rate, parse_time};
use engine::InputError;
use std::fmt::Write as _;
use std::path::Path;

/// Most nodes a topology file may declare.
const MAX_NODES: u32 = 1 << 24;

const HEADER_FORM: &str = "the first line is \"<node_count> <switch_count> <link_count>\"";
const LINK_FORM: &str = "a link line is \"<src> <dst> <rate> <delay> <error_rate>\"";

/// Non-blank lines with their 1-based numbers.
struct Lines<'a> {
    inner: std::iter::Enumerate<std::str::Lines<'a>>,
    /// Number of the last line read, blank or not.
    last: usize,
}

impl<'a> Lines<'a> {
    fn next_tokens(&mut self) -> Option<(usize, Vec<&'a str>)> {
        for (i, line) in self.inner.by_ref() {
            self.last = i + 1;
            let toks: Vec<&str> = line.split_whitespace().collect();
            if !toks.is_empty() {
                return Some((i + 1, toks));
            }
        }
        None
    }
}

fn parse_count(tok: &str) -> Result<u32, String> {
    tok.parse::<u32>()
        .map_err(|_| format!("'{tok}' is not a whole number"))
}

/// Parse a topology in the peer's format. `file` names the source in errors.
///
/// Every error carries the 1-based line and the field at fault: `node_count`,
/// `switch_count`, `link_count`, `switch id`, `src`, `dst`, `rate`, `delay`,
/// `error_rate`; a file that ends early is reported at the line after its
/// last with field `switch id` or `link_count`. The result is checked with
/// [`Topology::validate`], giving each link's error its line; errors about a
/// node as a whole (a host without a link, too few hosts) point at the
/// header line. Unlike [`Topology::validate`], two links may not join the
/// same two switches: the peer keeps one route per neighbour.
pub fn parse_peer_topology(text: &str, file: &str) -> Result<Topology, InputError> {
    let mut lines = Lines {
        inner: text.lines().enumerate(),
        last: 0,
    };
    let err = |line: usize, field: &str, msg: String| InputError::at(file, Some(line), field, msg);

    // Header.
    let Some((hl, toks)) = lines.next_tokens() else {
        return Err(err(
            lines.last.max(1),
            "node_count",
            format!("the file has no topology; {HEADER_FORM}"),
        ));
    };
    const HEADER: [&str; 3] = ["node_count", "switch_count", "link_count"];
    let mut header = [0u32; 3];
    for (k, name) in HEADER.iter().enumerate() {
        let tok = toks
            .get(k)
            .ok_or_else(|| err(hl, name, format!("missing; {HEADER_FORM}")))?;
        header[k] = parse_count(tok).map_err(|m| err(hl, name, m))?;
    }
    if let Some(extra) = toks.get(3) {
        return Err(err(
            hl,
            "link_count",
            format!("unexpected '{extra}' after link_count; {HEADER_FORM}"),
        ));
    }
    let [n, n_switches, n_links] = header;
    if n > MAX_NODES {
        return Err(err(
            hl,
            "node_count",
            format!("{n} nodes is too many (at most {MAX_NODES})"),
        ));
    }
    if n_switches > n {
        return Err(err(
            hl,
            "switch_count",
            format!("switch_count {n_switches} is more than node_count {n}"),
        ));
    }

    // Switch ids: the next non-blank line(s), `n_switches` ids in all.
    let mut kinds = vec![NodeKind::Host; n as usize];
    let mut got = 0u32;
    while got < n_switches {
        let Some((sl, toks)) = lines.next_tokens() else {
            return Err(err(
                lines.last + 1,
                "switch id",
                format!("file ends after {got} of {n_switches} switch ids"),
            ));
        };
        for tok in toks {
            if got == n_switches {
                return Err(err(
                    sl,
                    "switch id",
                    format!("unexpected '{tok}': switch_count is {n_switches} and all are listed"),
                ));
            }
            let id = tok.parse::<NodeId>().map_err(|_| {
                err(
                    sl,
                    "switch id",
                    format!(
                        "'{tok}' is not a node id (a whole number); {got} of {n_switches} \
                         switch ids read so far"
                    ),
                )
            })?;
            if id >= n {
                return Err(err(
                    sl,
                    "switch id",
                    format!("switch id {id} is out of range: {}", id_range(n)),
                ));
            }
            let k = &mut kinds[id as usize];
            if *k == NodeKind::Switch {
                return Err(err(
                    sl,
                    "switch id",
                    format!("switch id {id} is listed twice"),
                ));
            }
            *k = NodeKind::Switch;
            got += 1;
        }
    }

    // Links.
    const LINK: [&str; 5] = ["src", "dst", "rate", "delay", "error_rate"];
    let cap = (n_links as usize).min(1 << 20);
    let mut links = Vec::with_capacity(cap);
    let mut link_lines = Vec::with_capacity(cap);
    for i in 0..n_links {
        let Some((ll, toks)) = lines.next_tokens() else {
            return Err(err(
                lines.last + 1,
                "link_count",
                format!(
                    "file ends after {i} of {n_links} links (link_count on line {hl} is {n_links})"
                ),
            ));
        };
        if toks.len() < LINK.len() {
            return Err(err(ll, LINK[toks.len()], format!("missing; {LINK_FORM}")));
        }
        if let Some(extra) = toks.get(LINK.len()) {
            return Err(err(
                ll,
                "error_rate",
                format!("unexpected '{extra}' after error_rate; {LINK_FORM}"),
            ));
        }
        let node = |k: usize| -> Result<NodeId, InputError> {
            let tok = toks[k];
            let id = tok.parse::<NodeId>().map_err(|_| {
                err(
                    ll,
                    LINK[k],
                    format!("'{tok}' is not a node id (a whole number)"),
                )
            })?;
            if id >= n {
                return Err(err(
                    ll,
                    LINK[k],
                    format!("{} {id} is out of range: {}", LINK[k], id_range(n)),
                ));
            }
            Ok(id)
        };
        let a = node(0)?;
        let b = node(1)?;
        let rate = parse_rate(toks[2]).map_err(|m| err(ll, "rate", m))?;
        let delay = parse_time(toks[3]).map_err(|m| err(ll, "delay", m))?;
        let error_rate: f64 = toks[4]
            .parse()
            .map_err(|_| err(ll, "error_rate", format!("'{}' is not a number", toks[4])))?;
        links.push(LinkSpec {
            a,
            b,
            rate,
            delay,
            error_rate,
        });
        link_lines.push(ll);
    }

    let topo = Topology { kinds, links };
    validate::check(&topo, file, Some(&link_lines), Some(hl), false)?;
    Ok(topo)
}

fn id_range(n: u32) -> String {
    if n == 0 {
        "node_count is 0".into()
    } else {
        format!("node_count is {n}, so ids are 0 to {}", n - 1)
    }
}

/// Read and parse a topology file; see [`parse_peer_topology`]. Errors name
/// the file as `path` is written.
pub fn load_peer_topology(path: &Path) -> Result<Topology, InputError> {
    let file = path.display().to_string();
    let text = engine::input::read_text(path).map_err(|e| {
        InputError::at(
            file.as_str(),
            None,
            "",
            format!("cannot read the topology file: {e}"),
        )
    })?;
    parse_peer_topology(&text, &file)
}

/// Write `topo` in the peer's format: rates as `100Gbps` (or `Mbps`, `Kbps`,
/// `bps` where not whole), delays in nanoseconds (`1000ns`, or `ps` where not
/// whole), error rates with six decimals (more only where six would lose
/// precision). [`parse_peer_topology`] reads it back exactly.
pub fn write_peer_topology(topo: &Topology) -> String {
    let switches = topo.switches();
    let mut s = String::with_capacity(64 + 8 * switches.len() + 40 * topo.links.len());
    let _ = writeln!(
        s,
        "{} {} {}",
        topo.kinds.len(),
        switches.len(),
        topo.links.len()
    );
    for (i, id) in switches.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        let _ = write!(s, "{id}");
    }
    s.push('\n');
    for l in &topo.links {
        let ps = l.delay.ps();
        let delay = if ps % 1000 == 0 {
            format!("{}ns", ps / 1000)
        } else {
            format!("{ps}ps")
        };
        let mut err = format!("{:.6}", l.error_rate);
        if err.parse::<f64>() != Ok(l.error_rate) {
            err = format!("{}", l.error_rate);
        }
        let _ = writeln!(s, "{} {} {} {delay} {err}", l.a, l.b, l.rate);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{dumbbell, peer_fat_tree};
    use engine::{Delta, Rate};

    /// Hosts 0, 1 on switch 3, host 2 on switch 4; switches joined.
    const SMALL: &str = "\
5 2 4
3 4
0 3 100Gbps 1000ns 0.000000
1 3 100Gbps 1000ns 0.000000
2 4 100Gbps 0.001ms 0.000000
3 4 400Gbps 1us 0.000000
";

    fn perr(text: &str) -> InputError {
        parse_peer_topology(text, "t.txt").unwrap_err()
    }

    fn small_with(line: usize, new: &str) -> String {
        SMALL
            .lines()
            .enumerate()
            .map(|(i, l)| if i + 1 == line { new } else { l })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn parses_a_small_file() {
        let t = parse_peer_topology(SMALL, "t.txt").unwrap();
        assert_eq!(t.hosts(), vec![0, 1, 2]);
        assert_eq!(t.switches(), vec![3, 4]);
        assert_eq!(t.links.len(), 4);
        assert_eq!(t.links[2].delay, Delta::from_us(1));
        assert_eq!(t.links[3].rate, Rate::gbps(400));
    }

    #[test]
    fn blank_lines_split_ids_and_trailing_text() {
        let text = "\n5 2 4\n\n3\n4\n\n0 3 100Gbps 1000ns 0\n1 3 100Gbps 1000ns 0\r\n\n\
                    2 4 100Gbps 1000ns 0\n3 4 400Gbps 1000ns 0.01\n\nfirst line comment\n\
                    more: text 1 2 3\n";
        let t = parse_peer_topology(text, "t.txt").unwrap();
        assert_eq!(t.switches(), vec![3, 4]);
        assert_eq!(t.links[3].error_rate, 0.01);
    }

    #[test]
    fn bad_rate() {
        let e = perr(&small_with(4, "1 3 100Gbs 1000ns 0.000000"));
        assert_eq!((e.line, e.field.as_str()), (Some(4), "rate"));
        assert!(e
            .to_string()
            .starts_with("t.txt:4: rate: unknown rate unit in '100Gbs'"));
    }

    #[test]
    fn parallel_links_are_refused() {
        let text = SMALL.replacen("5 2 4", "5 2 5", 1) + "4 3 400Gbps 1000ns 0\n";
        let e = perr(&text);
        assert_eq!((e.line, e.field.as_str()), (Some(7), "dst"));
        assert!(e.msg.contains("already joined by link 3"), "{e}");
        // The same topology built in code is one rdmasim can run.
        let mut t = parse_peer_topology(SMALL, "t.txt").unwrap();
        t.links.push(t.links[3].clone());
        t.validate("t", None).unwrap();
    }

    #[test]
    fn zero_rate() {
        let e = perr(&small_with(6, "3 4 0Gbps 1000ns 0.000000"));
        assert_eq!(
            e.to_string(),
            "t.txt:6: rate: rate '0Gbps' must be greater than zero"
        );
    }

    #[test]
    fn bad_delay_and_error_rate() {
        let e = perr(&small_with(3, "0 3 100Gbps 1000 0.000000"));
        assert!(e
            .to_string()
            .starts_with("t.txt:3: delay: '1000' needs a unit"));
        let e = perr(&small_with(3, "0 3 100Gbps 1000ns x"));
        assert_eq!(e.to_string(), "t.txt:3: error_rate: 'x' is not a number");
        let e = perr(&small_with(5, "2 4 100Gbps 1000ns 2"));
        assert_eq!(
            e.to_string(),
            "t.txt:5: error_rate: error_rate 2 must be between 0 and 1"
        );
        let e = perr(&small_with(5, "2 4 100Gbps 1000ns"));
        assert!(e
            .to_string()
            .starts_with("t.txt:5: error_rate: missing; a link line is"));
        let e = perr(&small_with(5, "2 4 100Gbps 1000ns 0 7"));
        assert!(e
            .to_string()
            .starts_with("t.txt:5: error_rate: unexpected '7' after"));
    }

    #[test]
    fn missing_links() {
        let text = SMALL.replacen("5 2 4", "5 2 6", 1);
        assert_eq!(
            perr(&text).to_string(),
            "t.txt:7: link_count: file ends after 4 of 6 links (link_count on line 1 is 6)"
        );
    }

    #[test]
    fn node_out_of_range() {
        let e = perr(&small_with(5, "2 9 100Gbps 1000ns 0.000000"));
        assert_eq!(
            e.to_string(),
            "t.txt:5: dst: dst 9 is out of range: node_count is 5, so ids are 0 to 4"
        );
        let e = perr(&small_with(2, "3 5"));
        assert_eq!((e.line, e.field.as_str()), (Some(2), "switch id"));
        let e = perr(&small_with(3, "x 3 100Gbps 1000ns 0"));
        assert_eq!(
            e.to_string(),
            "t.txt:3: src: 'x' is not a node id (a whole number)"
        );
    }

    #[test]
    fn disconnected() {
        // Hosts 0,1 on switch 4, hosts 2,3 on switch 5, nothing between.
        let text = "6 2 4\n4 5\n0 4 1Gbps 1ns 0\n1 4 1Gbps 1ns 0\n2 5 1Gbps 1ns 0\n\
                    3 5 1Gbps 1ns 0\n";
        assert_eq!(
            perr(text).to_string(),
            "t.txt:5: src: host 2 is not reachable from node 0; the topology must be connected"
        );
    }

    #[test]
    fn bad_header() {
        let e = perr("abc 2 4\n3 4\n");
        assert_eq!(
            e.to_string(),
            "t.txt:1: node_count: 'abc' is not a whole number"
        );
        let e = perr("\n\n5 2\n");
        assert_eq!((e.line, e.field.as_str()), (Some(3), "link_count"));
        let e = perr("5 -2 4\n");
        assert_eq!(e.field, "switch_count");
        let e = perr("5 6 4\n");
        assert!(e
            .to_string()
            .contains("switch_count 6 is more than node_count 5"));
        let e = perr("");
        assert_eq!((e.line, e.field.as_str()), (Some(1), "node_count"));
    }

    #[test]
    fn bad_switch_ids() {
        let e = perr("5 2 4\n3\n");
        assert_eq!(
            e.to_string(),
            "t.txt:3: switch id: file ends after 1 of 2 switch ids"
        );
        let e = perr("5 2 4\n3 3\n");
        assert_eq!(
            e.to_string(),
            "t.txt:2: switch id: switch id 3 is listed twice"
        );
        let e = perr("5 2 4\n3 4 1\n");
        assert!(e
            .to_string()
            .starts_with("t.txt:2: switch id: unexpected '1'"));
    }

    #[test]
    fn host_with_two_links() {
        let text = SMALL.replacen("5 2 4", "5 2 5", 1) + "0 4 100Gbps 1000ns 0\n";
        let e = perr(&text);
        assert_eq!((e.line, e.field.as_str()), (Some(7), "src"));
        assert!(e
            .to_string()
            .contains("host 0 already has a link (link 0 to node 3)"));
        assert!(e.to_string().contains("one NIC per host"));
        // A host with no link points at the header.
        let text = "6 2 4\n3 4\n0 3 1Gbps 1ns 0\n1 3 1Gbps 1ns 0\n2 4 1Gbps 1ns 0\n\
                    3 4 1Gbps 1ns 0\n";
        assert_eq!(
            perr(text).to_string(),
            "t.txt:1: node 5: host 5 has no link; rdmasim supports one NIC per host, so \
             every host must have exactly one link"
        );
    }

    #[test]
    fn load_names_the_file() {
        let e = load_peer_topology(Path::new("/nonexistent/topo.txt")).unwrap_err();
        assert_eq!(e.file, "/nonexistent/topo.txt");
        assert!(e
            .to_string()
            .starts_with("/nonexistent/topo.txt: cannot read the topology file"));
    }

    #[test]
    fn round_trip() {
        let t = peer_fat_tree();
        let text = write_peer_topology(&t);
        assert!(text.starts_with("376 56 480\n320 321 322 "));
        assert!(text.contains(" 374 375\n0 320 100Gbps 1000ns 0.000000\n1 320 "));
        assert!(text.ends_with("\n359 375 400Gbps 1000ns 0.000000\n"));
        assert_eq!(parse_peer_topology(&text, "w").unwrap(), t);
        // Byte for byte the peer's fat.txt (which ends with one blank line):
        // 482 lines, and this FNV-1a hash of the reference file.
        let with_blank = text.clone() + "\n";
        assert_eq!(with_blank.len(), FAT_TXT_LEN);
        assert_eq!(fnv1a(with_blank.as_bytes()), FAT_TXT_FNV1A);

        let mut t = dumbbell(2, 3, Rate(123_456_789), Rate::mbps(40), Delta(1_500)).unwrap();
        t.links[0].error_rate = 0.25;
        t.links[1].error_rate = 1e-9;
        t.links[5].delay = Delta::from_ms(3);
        let text = write_peer_topology(&t);
        assert!(text.contains("0 5 123456789bps 1500ps 0.250000\n"));
        assert!(text.contains("1 5 123456789bps 1500ps 0.000000001\n"));
        assert!(text.contains("5 6 40Mbps 3000000ns 0.000000\n"));
        assert_eq!(parse_peer_topology(&text, "w").unwrap(), t);
    }

    const FAT_TXT_LEN: usize = 15_486;
    const FAT_TXT_FNV1A: u64 = 0x8aab_da79_b324_b006;

    fn fnv1a(b: &[u8]) -> u64 {
        b.iter().fold(0xcbf2_9ce4_8422_2325, |h, &x| {
            (h ^ x as u64).wrapping_mul(0x0000_0100_0000_01b3)
        })
    }
}
