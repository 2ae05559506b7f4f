//! What the CLI's integration tests share: a scratch directory per test
//! and the rdmasim binary run in it.

// Each test file is its own crate and uses only some of these.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// An empty scratch directory for `test` of the test file `file`, unique
/// to this process.
pub fn workdir(file: &str, test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rdmasim-{file}-{test}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// Run the rdmasim binary with `args` in `dir`.
pub fn rdmasim(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rdmasim"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the rdmasim binary runs")
}

/// Lossy UTF-8 of a process's output.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// For each `(from, to, want)`: `base` with its first `from` replaced by
/// `to`, checked by `rdmasim check` in `dir`, is one error that names the
/// file and line and contains `want`, with exit code 2.
pub fn assert_each_edit_is_one_error(dir: &Path, base: &str, cases: &[(&str, &str, &str)]) {
    for &(from, to, want) in cases {
        let text = base.replacen(from, to, 1);
        assert_ne!(text, base, "{from} is in the config");
        fs::write(dir.join("cfg.toml"), text).unwrap();
        let o = rdmasim(dir, &["check", "cfg.toml"]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{to}: {err}");
        assert!(err.contains("cfg.toml:"), "names the file and line: {err}");
        assert!(err.contains(want), "{to}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "one error: {err}");
    }
}
