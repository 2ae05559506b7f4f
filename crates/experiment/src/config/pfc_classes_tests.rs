//! A lossless and a lossy data class on one port from a config
//! (Bifröst §4.3, §4.6.1): `[pfc] classes` and `[transport] class`, and the
//! one error each bad combination gives.

use super::build::build_scenario;
use super::parse::parse_config;
use net::{NetConfig, Transport};
use std::path::Path;

/// Lines 1–11; `[transport]` follows on line 12, `kind` 13, `queue` 14,
/// `class` 15.
const BASE: &str = r#"[topology]
kind = "star"
hosts = 4

[workload]
kind = "incast"
senders = [0, 1, 2]
receiver = 3
size = "10KB"
pg = 4

"#;

fn build(extra: &str) -> Result<NetConfig, String> {
    parse_config(&format!("{BASE}{extra}"), "t.toml")
        .and_then(|c| build_scenario(&c, Path::new("")))
        .map(|s| s.net)
        .map_err(|e| e.to_string())
}

fn transport(queue: &str, class: u8) -> String {
    format!("[transport]\nkind = \"pfc_free\"\nqueue = \"{queue}\"\nclass = {class}\n")
}

#[test]
fn a_lossy_class_leaves_pfc_on_for_the_others() {
    let n = build(&transport("lossy", 4)).unwrap();
    assert!(n.pfc.enabled, "PFC stays on for the lossless classes");
    assert_eq!(n.pfc.classes, !(1 << 4), "class 4 is lossy");
    let Transport::PfcFree(c) = &n.nic.transport else {
        panic!("pfc_free")
    };
    assert_eq!(c.class, Some(4));
    // Flows of another class go by go-back-N.
    assert_eq!(n.nic.transport.for_class(3), Transport::GoBackN);
    assert_eq!(n.nic.transport.for_class(4), n.nic.transport);
    // Given explicitly, the same.
    let n = build(&format!(
        "{}[pfc]\nclasses = [1, 2, 3]\n",
        transport("lossy", 4)
    ))
    .unwrap();
    assert_eq!(n.pfc.classes, 0b1110);
    let n = build(&transport("lossless", 4)).unwrap();
    assert_eq!((n.pfc.enabled, n.pfc.classes), (true, u8::MAX));
}

#[test]
fn bad_class_settings_name_their_key() {
    for (extra, want) in [
        (
            format!("{}[pfc]\nclasses = [3, 4]\n", transport("lossy", 4)),
            "t.toml:15: transport.class: 4 with queue = \"lossy\", but [pfc] classes makes \
             class 4 lossless-only",
        ),
        (
            format!("{}[pfc]\nclasses = [3]\n", transport("lossless", 4)),
            "t.toml:15: transport.class: 4 with queue = \"lossless\", but PFC does not protect \
             class 4",
        ),
        (
            format!("{}[pfc]\nenabled = false\n", transport("lossless", 4)),
            "t.toml:15: transport.class: 4 with queue = \"lossless\", but PFC does not protect",
        ),
        (
            transport("lossy", 0),
            "t.toml:15: transport.class: 0: a data class is 1 to 7",
        ),
        (
            transport("lossy", 8),
            "t.toml:15: transport.class: 8: a data class is 1 to 7",
        ),
        (
            format!("{}ack_class = 4\n", transport("lossy", 4)),
            "t.toml:15: transport.class: 4: the ACKs' class",
        ),
        (
            "[pfc]\nclasses = [0]\n".to_string(),
            "t.toml:13: pfc.classes: 0: a data class is 1 to 7",
        ),
        (
            "[transport]\nclass = 4\n".to_string(),
            "t.toml:13: transport.class: not a key of kind = \"go_back_n\"",
        ),
    ] {
        let e = build(&extra).expect_err(&extra);
        assert!(e.starts_with(want), "{extra}: {e}");
    }
}
