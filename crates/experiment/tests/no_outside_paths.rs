//! No file of the repository cites a path outside it: a reader has the
//! repository, not the folders it was written beside. Papers are cited by
//! title and section (`docs/sources.md`), the peer simulator by its own
//! files' names.
//!
//! The test reads every file git tracks (every file under the
//! repository's root but build outputs and runs, where git is missing) and
//! looks for the forms such a path takes. The patterns are assembled at
//! run time, so that this file does not hold them itself.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository's root.
fn root() -> PathBuf {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    d.canonicalize().unwrap_or(d)
}

/// The files git tracks, or every file below `root` but build outputs,
/// runs and hidden folders where git cannot tell.
fn files(root: &Path) -> Vec<PathBuf> {
    let listed = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root)
        .output()
        .ok()
        .filter(|o| o.status.success() && !o.stdout.is_empty());
    if let Some(o) = listed {
        return o
            .stdout
            .split(|&b| b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| root.join(String::from_utf8_lossy(p).as_ref()))
            .collect();
    }
    let mut out = Vec::new();
    let mut todo = vec![root.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if p.is_dir() {
                if !(name.starts_with('.') || name == "target" || name == "runs") {
                    todo.push(p);
                }
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// The forms a path outside the repository takes: a sibling folder of
/// the checkout, the specifications' and papers' folders, and the spec
/// section marks that point into them.
fn patterns() -> Vec<String> {
    [
        ["..", "/shared"].concat(),
        ["/work", "/"].concat(),
        ["specs", "/"].concat(),
        ["seeds", "/"].concat(),
        ["seed", "-0"].concat(),
        ["spec", " §"].concat(),
    ]
    .into()
}

/// Every occurrence of `patterns` in `text`, as `line: pattern`.
fn outside_paths(text: &str, patterns: &[String]) -> Vec<String> {
    let mut found = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let lower = line.to_ascii_lowercase();
        for p in patterns {
            if lower.contains(p.as_str()) {
                found.push(format!("{}: {p}", i + 1));
            }
        }
    }
    found
}

#[test]
fn no_tracked_file_cites_a_path_outside_the_repository() {
    let root = root();
    let patterns = patterns();
    let files = files(&root);
    assert!(
        files.iter().any(|f| f.ends_with("README.md")),
        "no files found under {}",
        root.display()
    );
    let mut bad = Vec::new();
    for f in &files {
        // Binary files (figures) are not text a reader follows.
        let Ok(text) = fs::read_to_string(f) else {
            continue;
        };
        for hit in outside_paths(&text, &patterns) {
            let rel = f.strip_prefix(&root).unwrap_or(f);
            bad.push(format!("{}:{hit}", rel.display()));
        }
    }
    assert!(
        bad.is_empty(),
        "files cite paths outside the repository (cite the paper by title and section, \
         docs/sources.md):\n{}",
        bad.join("\n")
    );
}

/// The scan finds each form, wherever on a line, in any case.
#[test]
fn the_scan_finds_each_form() {
    let patterns = patterns();
    for p in &patterns {
        let text = format!("ok\nsee {} here\n", p.to_ascii_uppercase());
        assert_eq!(outside_paths(&text, &patterns), [format!("2: {p}")]);
    }
    assert!(outside_paths("Swing §4.2, docs/sources.md\n", &patterns).is_empty());
}
