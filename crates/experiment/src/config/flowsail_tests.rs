//! FlowSail's fabric and workloads from a config: the tree, load on the
//! core links, the Web Server CDF and the incast background, and the one
//! error each bad key gives.

use super::build::build_scenario;
use super::parse::parse_config;
use super::workload::DEFAULT_INCAST_DPORT;
use crate::scenario::Scenario;
use std::path::Path;

const TREE: &str = r#"
[topology]
kind = "flowsail_fat_tree"
pods = 4

[workload]
kind = "poisson"
cdf = "fb_webserver"
load = 0.6
load_on = "core"
duration = "200us"

[[workload.extra]]
kind = "incast_background"
load = 0.06
load_on = "core"
degree = 50
duration = "200us"
"#;

fn build(text: &str) -> Result<Scenario, String> {
    parse_config(text, "t.toml")
        .and_then(|c| build_scenario(&c, Path::new("")))
        .map_err(|e| e.to_string())
}

#[test]
fn the_128_host_tree_with_web_server_and_incast_builds() {
    let s = build(TREE).unwrap();
    assert_eq!(s.topo.hosts().len(), 128);
    assert_eq!(s.topo.switches().len(), 48);
    let incast: Vec<_> = s
        .flows
        .iter()
        .filter(|f| f.dport == DEFAULT_INCAST_DPORT)
        .collect();
    assert!(!incast.is_empty());
    assert!(incast.iter().all(|f| (50_000..=200_000).contains(&f.size)));
    // Load on the core: 0.6 of the core is 0.6 * 64 / (128 * 96/127) of
    // each host; the Poisson bytes offered match it within sampling noise.
    let per_host = 0.6 * 64.0 / (128.0 * 96.0 / 127.0);
    let bytes: u64 = s
        .flows
        .iter()
        .filter(|f| f.dport == 100)
        .map(|f| f.size)
        .sum();
    let offered = bytes as f64 * 8.0 / 200e-6 / (128.0 * 100e9);
    assert!(
        (offered / per_host - 1.0).abs() < 0.15,
        "{offered} vs {per_host}"
    );
    // The default tree is the paper's 1024 hosts.
    let full = TREE
        .replace("pods = 4\n", "")
        .replace("\"200us\"", "\"2us\"");
    assert_eq!(build(&full).unwrap().topo.hosts().len(), 1024);
}

#[test]
fn bad_flowsail_fabric_and_workload_keys_name_the_key() {
    let cases = [
        (
            "pods = 4",
            "pods = 0",
            "t.toml:4: topology.pods: must be at least 1",
        ),
        (
            "pods = 4",
            "pods = 4\noversubscription = 1.5",
            "t.toml:5: topology.oversubscription:",
        ),
        (
            "pods = 4",
            "pods = 4\nk = 4",
            "t.toml:5: topology.k: not a key of kind",
        ),
        (
            "load_on = \"core\"\nduration = \"200us\"\n\n",
            "load_on = \"cores\"\nduration = \"200us\"\n\n",
            "t.toml:10: workload.load_on: unknown value \"cores\"",
        ),
        (
            "degree = 50",
            "degree = 128",
            "t.toml:17: workload.extra[0].degree: 128 senders",
        ),
        (
            "degree = 50",
            "degree = 50\nmax_size = \"10KB\"",
            "t.toml:18: workload.extra[0].max_size: 10000 B is below min_size",
        ),
        (
            "degree = 50",
            "degree = 50\nshare = 0.1",
            "t.toml:18: workload.extra[0].share: give share",
        ),
        (
            "degree = 50",
            "degree = 50\ncdf = \"websearch\"",
            "t.toml:18: workload.extra[0].cdf: not a key of kind",
        ),
    ];
    let shared = TREE.replace("load = 0.06\nload_on = \"core\"", "share = 0.1");
    let (a, b) = (build(TREE).unwrap(), build(&shared).unwrap());
    assert_eq!(
        a.flows, b.flows,
        "share = 0.1 of 0.6 on the core is 0.06 on the core"
    );
    for (from, to, want) in cases {
        let text = TREE.replacen(from, to, 1);
        assert_ne!(text, TREE, "{from}");
        match build(&text) {
            Ok(_) => panic!("{to}: built"),
            Err(e) => assert!(e.starts_with(want), "{to}: {e}"),
        }
    }
    // A 1:1 tree of 64 hosts: 0.9 of its core is 1.18 of each host.
    let over = TREE
        .replace("pods = 4", "pods = 4\noversubscription = 1")
        .replace("load = 0.6", "load = 0.9");
    match build(&over) {
        Ok(_) => panic!("built"),
        Err(e) => assert!(
            e.starts_with("t.toml:10: workload.load: 0.9 of the core links is 1.181"),
            "{e}"
        ),
    }
    let leaf = TREE.replace(
        "kind = \"flowsail_fat_tree\"\npods = 4",
        "kind = \"leaf_spine\"\nleaves = 4\nspines = 2\nhosts_per_leaf = 32",
    );
    match build(&leaf) {
        Ok(_) => panic!("built"),
        Err(e) => assert!(
            e.contains("workload.load_on: the topology has no core tier"),
            "{e}"
        ),
    }
}
