//! `[workload] kind = "storage"`: its messages reach the scenario, and
//! each bad key gives one error naming it.

use super::build::build_scenario;
use super::parse::parse_config;
use super::storage::{DEFAULT_REPLICAS, DEFAULT_STORAGE_DPORT};
use std::path::Path;

fn build(section: &str) -> Result<crate::scenario::Scenario, String> {
    let text = format!(
        "[topology]\nkind = \"star\"\nhosts = 12\n\n[workload]\nkind = \"storage\"\n\
         duration = \"1ms\"\n{section}"
    );
    parse_config(&text, "t.toml")
        .and_then(|c| build_scenario(&c, Path::new("")))
        .map_err(|e| e.to_string())
}

#[test]
fn storage_messages_reach_the_scenario() {
    let s = build(
        "load = 0.2\nreplication_load = 0.1\nreconstruction_load = 0.1\ndegree = 6\n\
         compute = [0, 1, 2, 3]\nstorage = [4, 5, 6, 7, 8, 9, 10, 11]\n",
    )
    .unwrap();
    assert!(!s.messages.is_empty());
    let kinds: std::collections::BTreeSet<_> = s.messages.iter().map(|m| m.kind).collect();
    assert_eq!(
        kinds.len(),
        4,
        "reads, writes, replications, reconstructions"
    );
    let mut n = 0;
    for m in &s.messages {
        let want = match m.kind {
            workload::MessageKind::Replication => DEFAULT_REPLICAS as usize,
            workload::MessageKind::Reconstruction => 6,
            _ => 1,
        };
        assert_eq!(m.flows.len(), want);
        for &f in &m.flows {
            assert_eq!(s.flows[f as usize].start, m.start);
            assert_eq!(s.flows[f as usize].dport, DEFAULT_STORAGE_DPORT);
        }
        n += m.flows.len();
    }
    assert_eq!(n, s.flows.len(), "every flow in one message");
}

#[test]
fn messages_follow_their_flows_past_other_generators() {
    let s = build(
        "load = 0.3\n\n[[workload.extra]]\nkind = \"incast\"\nsenders = [0, 1, 2]\n\
         receiver = 3\nsize = \"10KB\"\nstart = \"300us\"\n",
    )
    .unwrap();
    let in_msgs: usize = s.messages.iter().map(|m| m.flows.len()).sum();
    assert_eq!(
        in_msgs + 3,
        s.flows.len(),
        "the incast's flows are in no message"
    );
    for m in &s.messages {
        let f = &s.flows[m.flows[0] as usize];
        assert_eq!((f.start, f.dport), (m.start, DEFAULT_STORAGE_DPORT));
    }
    assert!(s.messages.windows(2).all(|w| w[0].start <= w[1].start));
}

#[test]
fn bad_storage_keys_name_themselves() {
    let e = build("").unwrap_err();
    assert!(
        e.starts_with("t.toml") && e.contains("workload.load: no traffic"),
        "{e}"
    );
    let e = build("replication_load = 0.1\nreplicas = 11\nstorage = [0, 1, 2]\n").unwrap_err();
    assert!(
        e.contains("t.toml:9: workload.replicas: 11 replicas need 12"),
        "{e}"
    );
    let e = build("reconstruction_load = 0.1\ndegree = 12\n").unwrap_err();
    assert!(
        e.contains("workload.degree: a 12-to-1 reconstruction"),
        "{e}"
    );
    let e = build("load = 1.5\n").unwrap_err();
    assert!(e.contains("t.toml:8: workload.load"), "{e}");
    let e = build("load = 0.1\nwrite_fraction = -1.0\n").unwrap_err();
    assert!(e.contains("workload.write_fraction"), "{e}");
    let e = build("load = 0.1\ncompute = [40]\n").unwrap_err();
    assert!(
        e.contains("workload.compute: node 40 does not exist"),
        "{e}"
    );
    let e = build("load = 0.1\nstorage = [1, 1]\n").unwrap_err();
    assert!(
        e.contains("workload.storage: storage host 1 is listed twice"),
        "{e}"
    );
    let e = build("load = 0.1\nsize = \"1MB\"\n").unwrap_err();
    assert!(
        e.contains("workload.size: not a key of kind = \"storage\""),
        "{e}"
    );
}
