//! Embeds the git commit rdmasim is built from, for `rdmasim --version`:
//! `unknown` where git or the repository is absent (a source archive, a
//! machine with only a Rust toolchain), which must still build.

use std::path::Path;
use std::process::Command;

/// What `git args` prints, trimmed; `None` if git is missing or fails.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let commit = git(&["rev-parse", "--short=12", "HEAD"]);
    println!(
        "cargo:rustc-env=RDMASIM_GIT_COMMIT={}",
        commit.as_deref().unwrap_or("unknown")
    );
    if commit.is_none() {
        return;
    }
    // Built again when HEAD moves: a checkout rewrites HEAD, a commit the
    // branch's ref (loose, or in packed-refs once packed). Only files that
    // exist are named: Cargo reruns a script on every build for one that
    // does not.
    let mut watched = vec![git(&["rev-parse", "--git-path", "HEAD"])];
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watched.push(git(&["rev-parse", "--git-path", &branch]));
        watched.push(git(&["rev-parse", "--git-path", "packed-refs"]));
    }
    for path in watched.into_iter().flatten() {
        if Path::new(&path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    }
}
