//! The shape of the source: no two modules import each other, directly or
//! around a loop, and no file is over 1,500 lines.
//!
//! A module is a file of `src/` (`lib.rs` is the crate root, a folder's
//! `mod.rs` the folder's module, an inline `mod x { }` belongs to its
//! file). One module imports another when its code names it: a path that
//! starts with `crate::`, `super::` or `self::`, anywhere, or one through
//! a child module it declares (`use cc::CcKind`, `cc::build()`). Each path
//! counts for the deepest module it names, so
//! `crate::config::cc::CcKind` is an import of `config::cc`, and
//! `crate::ExperimentError` (a re-export in `lib.rs`) one of the crate
//! root. Comments and string literals are not code. A `mod x;`
//! declaration is not an import: a parent that only declares its children
//! and re-exports what they define sits above them, and a child that
//! imports its parent's own items closes a loop.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The crates checked, relative to this crate's directory: add a line to
/// check another one.
const CHECKED: &[&str] = &[".", "../net"];

/// Longest source file allowed, in lines.
const MAX_LINES: usize = 1500;

/// Module → the modules it imports. A module is named by its path below
/// the crate root (`config::cc`), the root itself `crate`.
type Graph = BTreeMap<String, BTreeSet<String>>;

#[test]
fn no_module_imports_itself_around_a_loop() {
    for dir in CHECKED {
        let src = crate_dir(dir).join("src");
        let graph = module_graph(&src);
        assert!(graph.len() > 1, "no modules found in {}", src.display());
        if let Some(cycle) = find_cycle(&graph) {
            panic!(
                "{}: modules import each other in a loop: {} -> {}",
                src.display(),
                cycle.join(" -> "),
                cycle[0]
            );
        }
    }
}

#[test]
fn no_source_file_is_over_the_limit() {
    for dir in CHECKED {
        let root = crate_dir(dir);
        let long: Vec<String> = ["src", "tests", "benches", "examples"]
            .iter()
            .flat_map(|d| rust_files(&root.join(d)))
            .filter_map(|f| {
                let n = fs::read_to_string(&f).ok()?.lines().count();
                (n > MAX_LINES).then(|| format!("{} ({n} lines)", f.display()))
            })
            .collect();
        assert!(
            long.is_empty(),
            "files over {MAX_LINES} lines: {}",
            long.join(", ")
        );
    }
}

/// The directory of crate `dir` of [`CHECKED`].
fn crate_dir(dir: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    d.canonicalize().unwrap_or(d)
}

/// Every `.rs` file below `dir` (none if it does not exist), sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(entries) = fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The module a file of `src` defines, as path segments (empty for the
/// crate root).
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).expect("below src");
    let mut segs: Vec<String> = rel
        .iter()
        .map(|s| s.to_string_lossy().into_owned())
        .collect();
    let last = segs.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs");
    let root_file = segs.is_empty() && (stem == "lib" || stem == "main");
    if stem != "mod" && !root_file {
        segs.push(stem.to_string());
    }
    segs
}

fn name(m: &[String]) -> String {
    if m.is_empty() {
        "crate".to_string()
    } else {
        m.join("::")
    }
}

/// The import graph of the crate whose sources are in `src`.
fn module_graph(src: &Path) -> Graph {
    let files: Vec<(Vec<String>, PathBuf)> = rust_files(src)
        .into_iter()
        .map(|f| (module_of(src, &f), f))
        .collect();
    let known: BTreeSet<Vec<String>> = files.iter().map(|(m, _)| m.clone()).collect();
    files
        .iter()
        .map(|(m, f)| {
            let text = fs::read_to_string(f).expect("readable source");
            let to = imports(m, &text, &known);
            (name(m), to.iter().map(|t| name(t)).collect())
        })
        .collect()
}

/// The modules among `known` that the code of module `module` imports,
/// itself left out.
fn imports(module: &[String], text: &str, known: &BTreeSet<Vec<String>>) -> BTreeSet<Vec<String>> {
    let tokens = tokens(&strip(text));
    // Inline modules open here: (name, brace depth outside them).
    let mut inline: Vec<(String, usize)> = Vec::new();
    // Child modules declared (`mod x;` or `mod x { }`), per scope.
    let mut children: BTreeSet<Vec<String>> = BTreeSet::new();
    let mut depth = 0usize;
    let mut paths: Vec<(Vec<String>, Vec<String>)> = Vec::new(); // (scope, path)
    let scope_of = |inline: &[(String, usize)]| -> Vec<String> {
        let mut s = module.to_vec();
        s.extend(inline.iter().map(|(n, _)| n.clone()));
        s
    };
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i].as_str();
        match t {
            "{" => depth += 1,
            "}" => {
                depth = depth.saturating_sub(1);
                if inline.last().is_some_and(|&(_, d)| d == depth) {
                    inline.pop();
                }
            }
            "mod" if tokens.get(i + 1).is_some_and(|n| is_ident(n)) => {
                let mut child = scope_of(&inline);
                child.push(tokens[i + 1].clone());
                children.insert(child);
                if tokens.get(i + 2).map(String::as_str) == Some("{") {
                    inline.push((tokens[i + 1].clone(), depth));
                }
                i += 2;
                continue;
            }
            "use" => {
                let mut j = i + 1;
                let mut found = Vec::new();
                use_tree(&tokens, &mut j, Vec::new(), &mut found);
                let scope = scope_of(&inline);
                for p in found {
                    let mut local = scope.clone();
                    local.push(p[0].clone());
                    let relative = ["crate", "super", "self"].contains(&p[0].as_str())
                        || children.contains(&local);
                    if relative {
                        paths.push((scope.clone(), p));
                    }
                }
                i = j;
                continue;
            }
            // A path through a child module: `child::f()`.
            name if tokens.get(i + 1).map(String::as_str) == Some("::")
                && is_ident(name)
                && (i == 0 || tokens[i - 1] != "::")
                && children.contains(&[scope_of(&inline), vec![name.to_string()]].concat()) =>
            {
                paths.push((scope_of(&inline), vec![name.to_string()]));
            }
            "crate" | "super" | "self" if tokens.get(i + 1).map(String::as_str) == Some("::") => {
                let mut p = vec![t.to_string()];
                let mut j = i + 1;
                while tokens.get(j).map(String::as_str) == Some("::")
                    && tokens.get(j + 1).is_some_and(|n| is_ident(n))
                {
                    p.push(tokens[j + 1].clone());
                    j += 2;
                }
                paths.push((scope_of(&inline), p));
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    paths
        .into_iter()
        .filter_map(|(scope, p)| resolve(&scope, &p, known))
        .filter(|m| m != module)
        .collect()
}

/// The deepest module of `known` that path `p`, written in `scope`, names.
fn resolve(scope: &[String], p: &[String], known: &BTreeSet<Vec<String>>) -> Option<Vec<String>> {
    let mut full: Vec<String> = scope.to_vec();
    match p[0].as_str() {
        "crate" => full.clear(),
        "self" => {}
        "super" => {
            full.pop()?;
        }
        child => full.push(child.to_string()),
    }
    for seg in &p[1..] {
        match seg.as_str() {
            "super" => {
                full.pop()?;
            }
            "self" => {}
            s => full.push(s.to_string()),
        }
    }
    (0..=full.len())
        .rev()
        .map(|n| full[..n].to_vec())
        .find(|m| known.contains(m))
}

/// The paths a `use` tree names, from `tokens[*i]` up to its `;`.
fn use_tree(tokens: &[String], i: &mut usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    let mut p = prefix;
    while let Some(t) = tokens.get(*i) {
        match t.as_str() {
            "::" => *i += 1,
            "*" => {
                *i += 1;
                break;
            }
            "{" => {
                *i += 1;
                loop {
                    match tokens.get(*i).map(String::as_str) {
                        Some("}") => {
                            *i += 1;
                            return end_of(tokens, i);
                        }
                        Some(",") => *i += 1,
                        Some(_) => use_tree(tokens, i, p.clone(), out),
                        None => return,
                    }
                }
            }
            s if is_ident(s) => {
                p.push(s.to_string());
                *i += 1;
                if tokens.get(*i).map(String::as_str) != Some("::") {
                    if tokens.get(*i).map(String::as_str) == Some("as") {
                        *i += 2;
                    }
                    break;
                }
            }
            _ => break,
        }
    }
    if !p.is_empty() {
        out.push(p);
    }
    end_of(tokens, i);
}

/// Past the `;` that ends a `use` (only when the tree is done).
fn end_of(tokens: &[String], i: &mut usize) {
    if tokens.get(*i).map(String::as_str) == Some(";") {
        *i += 1;
    }
}

fn is_ident(s: &str) -> bool {
    s.starts_with(|c: char| c.is_alphabetic() || c == '_')
}

/// Identifiers, `::` and single punctuation characters of code.
fn tokens(code: &str) -> Vec<String> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(chars[start..i].iter().collect());
            continue;
        }
        if c == ':' && chars.get(i + 1) == Some(&':') {
            out.push("::".to_string());
            i += 2;
            continue;
        }
        if !c.is_whitespace() {
            out.push(c.to_string());
        }
        i += 1;
    }
    out
}

/// `text` with comments and string and character literals blanked out.
fn strip(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let ident = |k: usize| k > 0 && (c[k - 1].is_alphanumeric() || c[k - 1] == '_');
    let mut i = 0;
    while i < c.len() {
        let next = c.get(i + 1).copied();
        if c[i] == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if c[i] == '/' && next == Some('*') {
            let mut depth = 0;
            loop {
                if i + 1 >= c.len() {
                    i = c.len();
                    break;
                }
                if c[i] == '/' && c[i + 1] == '*' {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && c[i + 1] == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if (c[i] == 'r' || (c[i] == 'b' && next == Some('r'))) && !ident(i) {
            // A raw string `r#"..."#` (or a raw identifier `r#type`).
            let mut k = i + if c[i] == 'b' { 2 } else { 1 };
            let hashes = c[k..].iter().take_while(|&&h| h == '#').count();
            k += hashes;
            if c.get(k) == Some(&'"') {
                k += 1;
                while k < c.len()
                    && !(c[k] == '"'
                        && c[k + 1..]
                            .iter()
                            .take(hashes)
                            .filter(|&&h| h == '#')
                            .count()
                            == hashes)
                {
                    k += 1;
                }
                i = (k + 1 + hashes).min(c.len());
                out.push_str("\"\"");
            } else {
                out.push(c[i]);
                i += 1;
            }
        } else if c[i] == '"' {
            i += 1;
            while i < c.len() && c[i] != '"' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if c[i] == '\'' {
            // A character literal, or a lifetime (left as it is).
            if next == Some('\\') {
                let mut k = i + 3;
                while k < c.len() && c[k] != '\'' {
                    k += 1;
                }
                i = k + 1;
                out.push_str("' '");
            } else if c.get(i + 2) == Some(&'\'') {
                i += 3;
                out.push_str("' '");
            } else {
                out.push('\'');
                i += 1;
            }
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// A loop of imports in `g`, as the modules around it, if there is one.
fn find_cycle(g: &Graph) -> Option<Vec<String>> {
    // Depth-first, in name order; a module still on the path when it is
    // reached again closes a loop.
    #[derive(Clone, Copy, PartialEq)]
    enum Seen {
        OnPath,
        Done,
    }
    fn visit<'a>(
        g: &'a Graph,
        m: &'a str,
        seen: &mut BTreeMap<&'a str, Seen>,
        path: &mut Vec<&'a str>,
    ) -> Option<Vec<String>> {
        seen.insert(m, Seen::OnPath);
        path.push(m);
        for next in g.get(m).into_iter().flatten() {
            match seen.get(next.as_str()) {
                Some(Seen::OnPath) => {
                    let start = path.iter().position(|p| *p == next)?;
                    return Some(path[start..].iter().map(|s| s.to_string()).collect());
                }
                Some(Seen::Done) => {}
                None => {
                    if let Some(c) = visit(g, next, seen, path) {
                        return Some(c);
                    }
                }
            }
        }
        path.pop();
        seen.insert(m, Seen::Done);
        None
    }
    let mut seen = BTreeMap::new();
    for m in g.keys() {
        if !seen.contains_key(m.as_str()) {
            if let Some(c) = visit(g, m, &mut seen, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

fn graph(edges: &[(&str, &str)]) -> Graph {
    let mut g = Graph::new();
    for (a, b) in edges {
        g.entry(a.to_string()).or_default().insert(b.to_string());
        g.entry(b.to_string()).or_default();
    }
    g
}

#[test]
fn the_checker_finds_a_loop_and_names_it() {
    let looped = graph(&[("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("e", "a")]);
    assert_eq!(
        find_cycle(&looped),
        Some(vec!["a".into(), "b".into(), "c".into()])
    );
    let two = graph(&[("sweep", "report"), ("report", "sweep")]);
    assert_eq!(
        find_cycle(&two),
        Some(vec!["report".into(), "sweep".into()])
    );
    let layered = graph(&[("a", "b"), ("a", "c"), ("b", "c"), ("c", "d")]);
    assert_eq!(find_cycle(&layered), None);
}

#[test]
fn the_checker_reads_paths_in_code_only() {
    let known: BTreeSet<Vec<String>> = [
        vec![],
        vec!["config".to_string()],
        vec!["config".to_string(), "cc".to_string()],
        vec!["config".to_string(), "ctx".to_string()],
        vec!["fmt".to_string()],
        vec!["error".to_string()],
        vec!["sweep".to_string()],
    ]
    .into_iter()
    .collect();
    let module = ["config".to_string(), "cc".to_string()];
    let code = r##"
        //! See [`crate::sweep`]: not an import.
        use super::ctx::{Ctx, R};
        use crate::{error::ExperimentError, fmt::{self, num}};
        /* crate::sweep::nothing */
        const S: &str = "crate::sweep::nor_this";
        const Q: char = '"';
        const RAW: &str = r#"super::sweep "quoted" "#;
        fn f<'a>(x: &'a str) -> &'a str { let _ = crate::ExperimentError::io; x }
        #[cfg(test)]
        mod tests {
            use super::*;
        }
    "##;
    let found: BTreeSet<String> = imports(&module, code, &known)
        .iter()
        .map(|m| name(m))
        .collect();
    let want: BTreeSet<String> = ["config::ctx", "error", "fmt", "crate"]
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(found, want);
    // A parent that uses its child, and a child that uses its parent.
    let parent = imports(
        &["config".to_string()],
        "mod cc; pub use cc::CcKind;",
        &known,
    );
    assert!(parent.contains(module.as_slice()), "{parent:?}");
    let parent = imports(
        &["config".to_string()],
        "mod cc; fn f() { cc::g() }",
        &known,
    );
    assert!(parent.contains(module.as_slice()), "{parent:?}");
    let child = imports(&module, "use super::Config;", &known);
    assert!(child.contains(&vec!["config".to_string()]), "{child:?}");
}
