//! `[buffer] model = "sonic"`: what builds, and the one error each
//! mistake gives (file, line and key).

use super::build::build_scenario;
use super::parse::parse_config;
use crate::scenario::Scenario;
use crate::ExperimentError;
use std::path::{Path, PathBuf};

/// A one-switch star whose flows use class 3, with `buffer` as its
/// `[buffer]` section.
fn config(buffer: &str) -> String {
    format!(
        r#"
[topology]
kind = "star"
hosts = 3

[workload]
kind = "incast"
senders = [0, 1]
receiver = 2
size = "10KB"

[buffer]
{buffer}
"#
    )
}

/// experiments/azure, where listing1.json is.
fn azure() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments/azure")
}

fn build(buffer: &str, base: &Path) -> Result<Scenario, ExperimentError> {
    parse_config(&config(buffer), "t.toml").and_then(|c| build_scenario(&c, base))
}

fn err(buffer: &str) -> String {
    match build(buffer, &azure()) {
        Ok(_) => panic!("expected an error for {buffer}"),
        Err(e) => e.to_string(),
    }
}

const LISTING1: &str = r#"model = "sonic"
sonic = "listing1.json"
sonic_pg = { 3 = "ingress_lossless_profile" }
sonic_queue = { 3 = "egress_lossless_profile" }"#;

#[test]
fn listing1_maps_onto_every_port_of_the_switch() {
    let s = build(LISTING1, &azure()).unwrap();
    let setup = s.net.sonic.expect("SONiC's model is on");
    // The star's switch is node 3, with a port per host.
    let ports = &setup.switches[&3];
    assert_eq!(ports.len(), 3);
    let lossless = setup.config.profile("ingress_lossless_profile");
    assert!(ports
        .iter()
        .all(|p| p.pg[3] == lossless && p.pg[1].is_none()));
    // The default is the peer's MMU.
    assert!(build("", &azure()).unwrap().net.sonic.is_none());
    assert!(build("model = \"peer\"", &azure())
        .unwrap()
        .net
        .sonic
        .is_none());
}

#[test]
fn each_mistake_is_one_error_naming_the_key() {
    for (buffer, want) in [
        ("model = \"sonic\"", "t.toml:12: buffer.sonic: missing"),
        ("model = \"broadcom\"", "buffer.model: 'broadcom' is neither"),
        (
            "sonic = \"listing1.json\"",
            "buffer.sonic: only used with model = \"sonic\"",
        ),
        (
            "model = \"sonic\"\nsonic = \"nowhere.json\"",
            "buffer.sonic: cannot read the SONiC buffer configuration",
        ),
        (
            "model = \"sonic\"\nsonic = \"listing1.json\"\nsonic_pg = { 3 = \"ingress_lossless_profile\" }",
            "buffer.sonic_queue: flows use class 3, but switch 3's port 0 has no egress profile",
        ),
        (
            "model = \"sonic\"\nsonic = \"listing1.json\"",
            "buffer.sonic_pg: flows use class 3, but switch 3's port 0 has no ingress profile",
        ),
        (
            "model = \"sonic\"\nsonic = \"listing1.json\"\nsonic_pg = { 3 = \"pg_lossless\" }",
            "buffer.sonic_pg.3: ",
        ),
        (
            "model = \"sonic\"\nsonic = \"listing1.json\"\nsonic_pg = { 3 = \"egress_lossless_profile\" }",
            "buffer.sonic_pg.3: profile \"egress_lossless_profile\" of",
        ),
        (
            "model = \"sonic\"\nsonic = \"listing1.json\"\nsonic_pg = { 0 = \"ingress_lossy_profile\" }",
            "buffer.sonic_pg.0: '0' is not a data class",
        ),
        (
            "model = \"sonic\"\nsonic = \"listing1.json\"\nsonic_switches = [1]",
            "buffer.sonic_switches: node 1 is not a switch",
        ),
    ] {
        let e = err(buffer);
        assert!(e.contains(want), "{buffer}:\n  got  {e}\n  want {want}");
    }
    assert!(err(
        "model = \"sonic\"\nsonic = \"listing1.json\"\nsonic_pg = { 3 = \"pg_lossless\" }"
    )
    .contains("has no profile \"pg_lossless\""));
}

#[test]
fn a_malformed_file_is_named_with_its_key() {
    let dir = std::env::temp_dir().join(format!("rdmasim-sonic-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("sw.json");
    std::fs::write(
        &file,
        r#"{"BUFFER_POOL": {"ingress_pool": {"size": "-5", "type": "ingress", "mode": "dynamic"}},
            "BUFFER_PROFILE": {}}"#,
    )
    .unwrap();
    let e = match build("model = \"sonic\"\nsonic = \"sw.json\"", &dir) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e,
    };
    assert!(
        matches!(e, ExperimentError::Input(_)),
        "an input error (exit 2)"
    );
    let e = e.to_string();
    assert!(
        e.contains("sw.json") && e.contains("BUFFER_POOL.ingress_pool.size: must not be negative"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_file_that_maps_ports_is_read_by_port_order_or_by_name() {
    let dir = std::env::temp_dir().join(format!("rdmasim-sonic-ports-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("sw.json"),
        r#"{"BUFFER_POOL": {
              "ingress_pool": {"size": "18000000", "type": "ingress", "mode": "dynamic", "xoff": "6000000"},
              "egress_pool": {"size": "24000000", "type": "egress", "mode": "static"}},
            "BUFFER_PROFILE": {
              "pg": {"pool": "ingress_pool", "size": "0", "dynamic_th": "-3", "xoff": "96928", "xon": "1248", "xon_offset": "2496"},
              "pg_other": {"pool": "ingress_pool", "size": "0", "dynamic_th": "-1", "xoff": "96928", "xon": "1248", "xon_offset": "2496"},
              "q": {"pool": "egress_pool", "size": "0", "static_th": "24000000"}},
            "BUFFER_PG": {"Ethernet12|3": {"profile": "pg_other"}, "Ethernet0,Ethernet4|3": {"profile": "pg"}},
            "BUFFER_QUEUE": {"Ethernet0,Ethernet4,Ethernet12|3": {"profile": "q"}}}"#,
    )
    .unwrap();
    // By the file's port names in number order: Ethernet0, Ethernet4,
    // Ethernet12 for local ports 0, 1, 2 (as text, Ethernet12 would sort
    // second).
    let s = build("model = \"sonic\"\nsonic = \"sw.json\"", &dir).unwrap();
    let setup = s.net.sonic.unwrap();
    let other = setup.config.profile("pg_other");
    let ports = &setup.switches[&3];
    assert_eq!(ports[2].pg[3], other);
    assert_ne!(ports[0].pg[3], other);
    // By name, in link order.
    let s = build(
        "model = \"sonic\"\nsonic = \"sw.json\"\nsonic_ports = [\"Ethernet12\", \"Ethernet0\", \"Ethernet4\"]",
        &dir,
    )
    .unwrap();
    assert_eq!(s.net.sonic.unwrap().switches[&3][0].pg[3], other);
    let e = match build(
        "model = \"sonic\"\nsonic = \"sw.json\"\nsonic_ports = [\"Ethernet0\", \"Ethernet99\"]",
        &dir,
    ) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    };
    assert!(
        e.contains("buffer.sonic_ports[1]") && e.contains("Ethernet99"),
        "{e}"
    );
    let e = match build(
        "model = \"sonic\"\nsonic = \"sw.json\"\nsonic_ports = [\"Ethernet0\", \"Ethernet4\"]",
        &dir,
    ) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    };
    assert!(
        e.contains("switch 3 has 3 ports, but only 2 port names"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
