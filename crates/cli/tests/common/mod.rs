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
