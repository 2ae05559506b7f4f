//! The PFC-free transport's RC mode from the command line: the loss
//! example runs clean with `qp_type = "rc"` and reports its NICs'
//! counters, and a bad RC setting is one error naming its key, exit code 2.

use std::fs;
use std::path::{Path, PathBuf};

mod common;
use common::rdmasim;

fn workdir(test: &str) -> PathBuf {
    common::workdir("pfcfree-rc", test)
}

/// The loss example (1/1024 random loss on one 25 Gb/s path) in RC mode.
fn example() -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments/pfc-free/loss.toml");
    let text = fs::read_to_string(p).unwrap();
    let rc = text.replacen("io_depth = 8", "io_depth = 8\nqp_type = \"rc\"", 1);
    assert_ne!(rc, text);
    rc
}

#[test]
fn the_loss_example_runs_clean_in_rc_mode() {
    let dir = workdir("loss");
    fs::write(dir.join("cfg.toml"), example()).unwrap();
    let o = rdmasim(&dir, &["run", "cfg.toml", "--out", "out", "-q"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let summary = fs::read_to_string(dir.join("out/summary.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&summary).unwrap();
    let rc = &v["pfc_free"]["rc"];
    assert!(rc["go_backs"].as_u64().unwrap() > 0, "{rc}");
    assert!(rc["naks"].as_u64().unwrap() > 0, "{rc}");
    assert_eq!(
        v["pfc_free"]["acks_sent"].as_u64(),
        Some(0),
        "no software ACK"
    );
}

#[test]
fn bad_rc_settings_name_their_key_and_exit_2() {
    let dir = workdir("bad");
    common::assert_each_edit_is_one_error(
        &dir,
        &example(),
        &[
            (
                "qp_type = \"rc\"",
                "qp_type = \"rd\"",
                "transport.qp_type: \"rd\": \"uc\" or \"rc\"",
            ),
            (
                "qp_type = \"rc\"",
                "qp_type = \"rc\"\nrc_retry = 8",
                "transport.rc_retry: 8: a QP's retry count is 0 to 7",
            ),
            (
                "qp_type = \"rc\"",
                "qp_type = \"uc\"\nrc_retry = 2",
                "transport.rc_retry: applies to RC data QPs only",
            ),
            (
                "qp_type = \"rc\"",
                "rc_ack_timeout = \"100us\"",
                "transport.rc_ack_timeout: applies to RC data QPs only",
            ),
            (
                "qp_type = \"rc\"",
                "qp_type = \"rc\"\nrc_ack_timeout = \"0us\"",
                "transport.rc_ack_timeout",
            ),
            (
                "qp_type = \"rc\"",
                "qp_type = \"rc\"\nrc_recover = \"soon\"",
                "transport.rc_recover",
            ),
        ],
    );
}
