//! The PFC-free transport from the command line: its example config runs
//! clean, and a bad setting is one error naming its key, exit code 2.

use std::fs;
use std::path::{Path, PathBuf};

mod common;
use common::rdmasim;

fn workdir(test: &str) -> PathBuf {
    common::workdir("pfcfree", test)
}

fn example() -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments/pfc-free/loss.toml");
    fs::read_to_string(p).unwrap()
}

#[test]
fn the_loss_example_runs_clean() {
    let dir = workdir("loss");
    fs::write(dir.join("cfg.toml"), example()).unwrap();
    let o = rdmasim(&dir, &["run", "cfg.toml", "--out", "out", "-q"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let flows = fs::read_to_string(dir.join("out/flows.csv")).unwrap();
    let row = flows.lines().nth(1).unwrap();
    let resent: u64 = row.rsplit(',').nth(1).unwrap().parse().unwrap();
    assert!(resent > 0, "the random loss cost resends: {row}");
}

#[test]
fn bad_settings_name_their_key_and_exit_2() {
    let dir = workdir("bad");
    common::assert_each_edit_is_one_error(
        &dir,
        &example(),
        &[
            (
                "io_depth = 8",
                "io_depth = 8\nunit = \"128KiB\"",
                "transport.unit: the minimum chunk (unit = 128KiB) is above the maximum chunk",
            ),
            (
                "io_depth = 8",
                "io_depth = 8\nack_count = 0",
                "transport.ack_count: 0 WQEs: must be 1 to 32",
            ),
            (
                "io_depth = 8",
                "io_depth = 8\nqueue = \"lossy\"\n\n[pfc]\nenabled = true",
                "transport.queue: \"lossy\", but [pfc] enabled = true makes the data's class lossless",
            ),
            ("loss = 0.0009765625", "loss = 1.5", "ports.at[0].loss"),
        ],
    );
}
