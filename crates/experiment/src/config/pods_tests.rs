//! The Bifröst paper's two-pod clusters from a config (Bifröst §4.3): the
//! `pods` topology, PFC off on the Spine links by `[ports.spine_links]`,
//! and the one error each bad key gives.

use super::build::build_scenario;
use super::parse::parse_config;
use crate::scenario::Scenario;
use net::FcChoice;
use std::path::Path;

const PODS: &str = r#"
[topology]
kind = "pods"
pod_hosts = [3, 6]
hosts_per_tor = 3
leaves_per_pod = 2
spines = 2

[workload]
kind = "bulk"
hosts = [0, 3]
dsts = [8]
size = "10KB"
"#;

fn scenario(text: &str) -> Scenario {
    let c = parse_config(text, "t.toml").unwrap();
    build_scenario(&c, Path::new("")).unwrap()
}

fn err_of(text: &str) -> String {
    match parse_config(text, "t.toml").and_then(|c| build_scenario(&c, Path::new(""))) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn pods_default_to_the_papers_clusters_a_and_b() {
    let s = scenario(
        "[topology]\nkind = \"pods\"\n\n[workload]\nkind = \"bulk\"\nhosts = [0]\n\
         dsts = [99]\nsize = \"10KB\"\n",
    );
    // 10 + 90 hosts, 1 + 9 ToRs, 4 Leaves per pod, 4 Spines.
    assert_eq!(s.topo.hosts().len(), 100);
    assert_eq!(s.topo.switches().len(), 10 + 8 + 4);
    assert_eq!(s.topo.links[0].rate, engine::Rate::gbps(50));
    assert_eq!(s.topo.links[100].rate, engine::Rate::gbps(100));
}

#[test]
fn spine_links_are_both_ends_of_every_leaf_spine_link() {
    let s = scenario(&format!(
        "{PODS}\n[pfc]\nenabled = true\n[ports.spine_links]\nfc = \"lossy\"\n"
    ));
    // 3 ToRs (9-11), 4 Leaves (12-15), 2 Spines (16, 17).
    let rules: Vec<_> = s.net.ports.iter().collect();
    assert_eq!(rules.len(), 4 * 2 * 2, "both ends of 8 Leaf-Spine links");
    for r in rules {
        let l = &s.topo.links[r.link as usize];
        assert!((12..16).contains(&l.a) && (16..18).contains(&l.b), "{l:?}");
        assert!(matches!(r.settings.fc, Some(FcChoice::Lossy)));
    }
    // A tree of two tiers has none.
    let e = err_of(&format!(
        "{}\n[ports.spine_links]\nfc = \"lossy\"\n",
        PODS.replace(
            "kind = \"pods\"",
            "kind = \"leaf_spine\"\nleaves = 2\nhosts_per_leaf = 5"
        )
        .replace(
            "pod_hosts = [3, 6]\nhosts_per_tor = 3\nleaves_per_pod = 2\n",
            ""
        )
    ));
    assert_eq!(
        e,
        "t.toml:14: ports.spine_links: this topology has no spine_links ports"
    );
}

#[test]
fn bad_pods_keys_name_the_key() {
    for (from, to, key, says) in [
        (
            "pod_hosts = [3, 6]",
            "pod_hosts = []",
            "t.toml:4: topology.pod_hosts",
            "lists no pod",
        ),
        (
            "pod_hosts = [3, 6]",
            "pod_hosts = [3, 0]",
            "t.toml:4: topology.pod_hosts",
            "pod 1 of pod_hosts has no host",
        ),
        (
            "pod_hosts = [3, 6]",
            "pod_hosts = [1]",
            "t.toml:4: topology.pod_hosts",
            "at least 2",
        ),
        (
            "spines = 2",
            "spines = 0",
            "t.toml:7: topology.spines",
            "must be at least 1",
        ),
        (
            "leaves_per_pod = 2",
            "leaves_per_pod = 0",
            "t.toml:6: topology.leaves_per_pod",
            "at least 1",
        ),
        (
            "spines = 2",
            "cores = 2",
            "t.toml:7: topology.cores",
            "pods",
        ),
    ] {
        let e = err_of(&PODS.replace(from, to));
        assert!(e.starts_with(key) && e.contains(says), "{to}: {e}");
    }
}
