//! Finding keys in TOML source text, so errors found after parsing can name
//! the line. This is a light line scanner, not a TOML parser: it knows
//! `[table]` and `[[array]]` headers, `key = value` lines (dotted and quoted
//! keys too) and values that run over several lines in brackets. Key paths
//! are dotted, with `[i]` for the `i`-th element of an array of tables:
//! `cc.dcqcn.rp_timer`, `workload.extra[1].load`.
//!
//! The same scanner tells, by a glance at a file, which command reads it
//! ([`looks_like`]), so that an error in a file given to the wrong command
//! can name the right one.

use crate::error::ExperimentError;
use engine::InputError;
use std::path::Path;

/// Read the TOML file at `path` whole. A byte that is not UTF-8 is an
/// input error at its line, naming the key set there; any other failure is
/// an I/O error on `path`.
pub(crate) fn read_toml(path: &Path) -> Result<String, ExperimentError> {
    engine::input::read_text(path).map_err(|e| match engine::input::not_utf8(&e) {
        Some(bad) => {
            let field = match at_line(&lossy_text(path), bad.line) {
                At::Key(k) => k,
                At::Header(_) | At::Table(_) => String::new(),
            };
            ExperimentError::Input(InputError::at(
                path.display().to_string(),
                Some(bad.line),
                field,
                bad.in_line(),
            ))
        }
        None => ExperimentError::io(path, e),
    })
}

/// The text of the file at `path` with every byte that is not UTF-8
/// replaced (empty if it cannot be read): only to find what is on the line
/// that an error names.
pub(crate) fn lossy_text(path: &Path) -> String {
    std::fs::read(path)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default()
}

/// What one line of the source is.
#[derive(Debug, PartialEq, Eq)]
enum LineKind {
    /// A `[table]` or `[[array]]` header; the path of the table it opens.
    Header(String),
    /// A `key = value` line; the full path of its key.
    Key(String),
    /// Anything else (blank, comment, continuation of a value).
    Other,
}

/// Strip quotes and spaces from each part of a dotted key, and read the
/// escapes of a double-quoted part (`"a\tb"` is the key `a<tab>b`, as
/// the TOML parser names it in its errors).
fn normalize_key(raw: &str) -> String {
    split_outside_quotes(raw, '.')
        .into_iter()
        .map(|p| {
            let p = p.trim();
            match p.strip_prefix('"').and_then(|q| q.strip_suffix('"')) {
                Some(q) => unescape(q),
                None => p.trim_matches(|c| c == '"' || c == '\'').to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// The byte offset of the first `sep` in `s` outside quotes (a key
/// `"a.b"` or `"x=y"` is one key).
fn find_outside_quotes(s: &str, sep: char) -> Option<usize> {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        match quote {
            Some(q) => {
                if c == q && !escaped {
                    quote = None;
                }
                escaped = q == '"' && c == '\\' && !escaped;
            }
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == sep => return Some(i),
            None => {}
        }
    }
    None
}

/// `s` split at each `sep` outside quotes.
fn split_outside_quotes(s: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(i) = find_outside_quotes(rest, sep) {
        out.push(&rest[..i]);
        rest = &rest[i + sep.len_utf8()..];
    }
    out.push(rest);
    out
}

/// The text of a TOML basic string's contents (`\t`, `\n`, `\"`, `\\`,
/// `\uXXXX`, ...); an escape TOML does not have is kept as written.
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let simple = match chars.clone().next() {
            Some('b') => Some('\u{8}'),
            Some('t') => Some('\t'),
            Some('n') => Some('\n'),
            Some('f') => Some('\u{c}'),
            Some('r') => Some('\r'),
            Some('"') => Some('"'),
            Some('\\') => Some('\\'),
            _ => None,
        };
        if let Some(e) = simple {
            chars.next();
            out.push(e);
            continue;
        }
        let digits = match chars.clone().next() {
            Some('u') => 4,
            Some('U') => 8,
            _ => 0,
        };
        let hex: String = chars.clone().skip(1).take(digits).collect();
        match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
            Some(e) if digits > 0 && hex.len() == digits => {
                chars.nth(digits);
                out.push(e);
            }
            _ => out.push('\\'),
        }
    }
    out
}

fn join(header: &str, key: &str) -> String {
    if header.is_empty() {
        key.to_string()
    } else {
        format!("{header}.{key}")
    }
}

/// Walk `s`, a piece of a value, outside strings and comments: update
/// `depth` (net `[`/`{` minus `]`/`}`) and return how many inline tables
/// start at depth 1, each an element of an array of inline tables
/// (`links = [ { a = 0, b = 2 }, ... ]`).
fn walk_value(s: &str, depth: &mut i64) -> usize {
    let mut elements = 0;
    let mut quote: Option<char> = None;
    let mut prev = '\0';
    for c in s.chars() {
        match quote {
            Some(q) => {
                if c == q && !(q == '"' && prev == '\\') {
                    quote = None;
                }
            }
            None => match c {
                '"' | '\'' => quote = Some(c),
                '#' => break,
                '{' if *depth == 1 => {
                    elements += 1;
                    *depth += 1;
                }
                '[' | '{' => *depth += 1,
                ']' | '}' => *depth -= 1,
                _ => {}
            },
        }
        prev = c;
    }
    elements
}

/// Classify every line of `text`; also the 1-based line where each
/// element of an array of inline tables starts (`topology.links[1]`).
fn scan(text: &str) -> (Vec<LineKind>, Vec<(String, usize)>) {
    let mut out = Vec::new();
    let mut elements = Vec::new();
    let mut header = String::new();
    let mut arrays: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    // The key whose value is still open, its depth and elements so far.
    let mut value = String::new();
    let mut open = 0i64;
    let mut element = 0usize;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if open > 0 {
            for _ in 0..walk_value(t, &mut open) {
                elements.push((format!("{value}[{element}]"), i + 1));
                element += 1;
            }
            out.push(LineKind::Other);
            continue;
        }
        let kind = if let Some(rest) = t.strip_prefix("[[") {
            let end = find_outside_quotes(rest, ']').unwrap_or(rest.len());
            let name = normalize_key(&rest[..end]);
            let n = arrays.entry(name.clone()).or_insert(0);
            header = format!("{name}[{n}]");
            *n += 1;
            LineKind::Header(header.clone())
        } else if let Some(rest) = t.strip_prefix('[') {
            header = normalize_key(&rest[..find_outside_quotes(rest, ']').unwrap_or(rest.len())]);
            // A table inside the latest element of an array of tables.
            for (name, n) in &arrays {
                if let Some(sub) = header.strip_prefix(&format!("{name}.")) {
                    header = format!("{name}[{}].{sub}", n - 1);
                    break;
                }
            }
            LineKind::Header(header.clone())
        } else if t.starts_with('#') || t.is_empty() {
            LineKind::Other
        } else if let Some((k, v)) = find_outside_quotes(t, '=').map(|i| (&t[..i], &t[i + 1..])) {
            value = join(&header, &normalize_key(k));
            element = 0;
            open = 0;
            for _ in 0..walk_value(v, &mut open) {
                elements.push((format!("{value}[{element}]"), i + 1));
                element += 1;
            }
            open = open.max(0);
            LineKind::Key(value.clone())
        } else {
            LineKind::Other
        };
        out.push(kind);
    }
    (out, elements)
}

/// The path one level up: `a.b[2].c` → `a.b[2]` → `a.b` → `a` → ``.
fn parent(path: &str) -> &str {
    if path.ends_with(']') {
        if let Some(i) = path.rfind('[') {
            return &path[..i];
        }
    }
    match path.rfind('.') {
        Some(i) => &path[..i],
        None => "",
    }
}

/// The 1-based line where `path` is set (its `key =` line, or the header of
/// the table it names). If `path` is not written in the file (a default),
/// the line of the nearest enclosing key or table that is; `None` if none is.
pub(crate) fn key_line(text: &str, path: &str) -> Option<usize> {
    let (lines, elements) = scan(text);
    let mut p = path;
    while !p.is_empty() {
        let found = lines.iter().position(|k| match k {
            LineKind::Header(h) | LineKind::Key(h) => h == p,
            LineKind::Other => false,
        });
        if let Some(i) = found {
            return Some(i + 1);
        }
        if let Some((_, line)) = elements.iter().find(|(e, _)| e == p) {
            return Some(*line);
        }
        p = parent(p);
    }
    None
}

/// The 1-based line holding byte `offset`.
pub(crate) fn line_of_offset(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// A TOML parser's message on one line. The parser says nothing of a
/// stray character (a carriage return alone, say) or of a file that ends
/// where a value was due: then the message names what is at `offset`.
pub(crate) fn toml_message(msg: &str, text: &str, offset: Option<usize>) -> String {
    let msg = msg.trim().replace('\n', "; ");
    if !msg.is_empty() {
        return msg;
    }
    match offset
        .and_then(|o| text.get(o..))
        .and_then(|r| r.chars().next())
    {
        Some(c) => format!("unexpected character {c:?}"),
        None => "unexpected end of file".to_string(),
    }
}

/// What is at 1-based `line`: the table header it opens (`Header`), the key
/// it sets (`Key`), or the table it lies in (`Table`).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum At {
    /// A header line opening this table.
    Header(String),
    /// A key line setting this key.
    Key(String),
    /// Some other line in this table (`""` for the top level).
    Table(String),
}

/// What is at 1-based `line` of `text`.
pub(crate) fn at_line(text: &str, line: usize) -> At {
    let (lines, _) = scan(text);
    let mut table = String::new();
    for (i, k) in lines.iter().enumerate() {
        let here = i + 1 == line;
        match k {
            LineKind::Header(h) => {
                if here {
                    return At::Header(h.clone());
                }
                table = h.clone();
            }
            LineKind::Key(p) if here => return At::Key(p.clone()),
            _ if here => return At::Table(table),
            _ => {}
        }
    }
    At::Table(table)
}

/// The files a sweep directory holds besides its run directories.
pub const SWEEP_FILES: [&str; 3] = ["index.csv", "sweep.log", ".sweep.lock"];

/// Whether `dir` is a sweep's directory: it holds one of [`SWEEP_FILES`]
/// and no `flows.csv` of its own.
pub(crate) fn is_sweep_dir(dir: &Path) -> bool {
    dir.is_dir()
        && !dir.join("flows.csv").exists()
        && SWEEP_FILES.iter().any(|f| dir.join(f).exists())
}

/// The kinds of file rdmasim's commands read, as told from their text
/// alone, to point a user who gave one command another's file to the
/// command that reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FileKind {
    /// A sweep file (`rdmasim sweep`): a top-level `base` key, `[axes]`,
    /// `[set]`, `[report]` or `[variants.*]`, tables no config has.
    Sweep,
    /// rdmasim's TOML config (`rdmasim run`): `[table]` headers or
    /// `key = value` lines.
    Config,
    /// The HPCC peer's config (`rdmasim hpcc`): its first line that is not
    /// blank or a comment is an upper-case KEY, blanks and a value.
    Peer,
}

impl FileKind {
    /// What to append to an error about `file`, which looks like `self`.
    pub(crate) fn hint(self, file: &str) -> String {
        let (what, cmd) = match self {
            FileKind::Sweep => ("a sweep file", "sweep"),
            FileKind::Config => ("an rdmasim TOML config", "run"),
            FileKind::Peer => ("a config of the HPCC peer simulator", "hpcc"),
        };
        format!("this looks like {what}: run it with `rdmasim {cmd} {file}`")
    }
}

/// What `text` looks like, if anything. A glance, not a parse: only used
/// to add a hint to an error already found, never to accept a file.
pub(crate) fn looks_like(text: &str) -> Option<FileKind> {
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))?;
    let mut words = first.split_whitespace();
    let key = words.next().unwrap_or("");
    let peer_key = key.starts_with(|c: char| c.is_ascii_uppercase())
        && key
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    if peer_key && words.next().is_some_and(|v| !v.starts_with('=')) {
        return Some(FileKind::Peer);
    }
    let (lines, _) = scan(text);
    let sweep = lines.iter().any(|k| match k {
        LineKind::Key(k) => k == "base",
        LineKind::Header(h) => {
            ["axes", "set", "report", "variants"].contains(&h.as_str())
                || h.starts_with("variants.")
                || h.starts_with("report.")
        }
        LineKind::Other => false,
    });
    if sweep {
        Some(FileKind::Sweep)
    } else if lines.iter().any(|k| *k != LineKind::Other) {
        Some(FileKind::Config)
    } else {
        None
    }
}

/// `e` with `kind`'s hint appended, if `e` is about `file` and `text` (its
/// contents) looks like one of the `wrong` kinds of file.
pub(crate) fn hint_wrong_kind(
    e: ExperimentError,
    text: &str,
    file: &str,
    wrong: &[FileKind],
) -> ExperimentError {
    match (e, looks_like(text)) {
        (ExperimentError::Input(mut ie), Some(kind))
            if ie.file == file && wrong.contains(&kind) =>
        {
            ie.msg = format!("{}; {}", ie.msg, kind.hint(file));
            ExperimentError::Input(ie)
        }
        (e, _) => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = r#"# a config
[run]
name = "x"   # the name

[topology]
kind = "star"
hosts = [
  1, 2,
  3,
]
rate = "100Gbps"

[cc]
kind = "dcqcn"
dcqcn.g = 0.5

[cc.dcqcn]
rp_timer = "300us"

[[workload.extra]]
kind = "incast"

[[workload.extra]]
kind = "poisson"
"load" = 0.5
"#;

    #[test]
    fn finds_keys_and_tables() {
        assert_eq!(key_line(SRC, "run"), Some(2));
        assert_eq!(key_line(SRC, "run.name"), Some(3));
        assert_eq!(key_line(SRC, "topology.hosts"), Some(7));
        assert_eq!(key_line(SRC, "topology.rate"), Some(11));
        assert_eq!(key_line(SRC, "cc.dcqcn.g"), Some(15));
        assert_eq!(key_line(SRC, "cc.dcqcn.rp_timer"), Some(18));
        assert_eq!(key_line(SRC, "workload.extra[1].load"), Some(25));
        assert_eq!(key_line(SRC, "workload.extra[0].kind"), Some(21));
        // Defaults fall back to the enclosing table.
        assert_eq!(key_line(SRC, "workload.extra[0].size"), Some(20));
        assert_eq!(key_line(SRC, "run.seed"), Some(2));
        assert_eq!(key_line(SRC, "nic.mtu"), None);
    }

    #[test]
    fn finds_the_elements_of_an_array_of_inline_tables() {
        let src = "[topology]\nkind = \"links\"\nlinks = [ { a = 0, b = 2 },\n  { a = 1, b = 3, rate = \"{[\" },\n\n  { a = 2, b = 3 }, { a = 4,\n b = 5 }\n]\nhosts = 4\n";
        assert_eq!(key_line(src, "topology.links[0].a"), Some(3));
        assert_eq!(key_line(src, "topology.links[1].rate"), Some(4));
        assert_eq!(key_line(src, "topology.links[2]"), Some(6));
        assert_eq!(key_line(src, "topology.links[3].b"), Some(6));
        // Past the last element: the key's line.
        assert_eq!(key_line(src, "topology.links[4].a"), Some(3));
        assert_eq!(key_line(src, "topology.hosts"), Some(9));
        // Nested arrays and lone inline tables are not elements.
        let src = "m = [[1, 2], [3]]\nt = { a = 1 }\nx = 2\n";
        assert_eq!(key_line(src, "m[0]"), Some(1));
        assert_eq!(key_line(src, "x"), Some(3));
    }

    #[test]
    fn reads_the_escapes_of_a_quoted_key() {
        let text = "[cc]\n\"ki\\td\" = 1\n'a\\tb' = 2\n\"x\\u0041\\q\" = 3\n";
        assert_eq!(key_line(text, "cc.ki\td"), Some(2));
        assert_eq!(key_line(text, "cc.a\\tb"), Some(3));
        assert_eq!(key_line(text, "cc.xA\\q"), Some(4));
        // A dot, an equals sign or a bracket inside quotes is part of the key.
        let text = "[\"a]b\"]\n\"x=y\" = 1\n\"p.q\".r = 2\n";
        assert_eq!(key_line(text, "a]b.x=y"), Some(2));
        assert_eq!(key_line(text, "a]b.p.q.r"), Some(3));
        assert_eq!(at_line(text, 2), At::Key("a]b.x=y".into()));
    }

    #[test]
    fn what_is_at_a_line() {
        assert_eq!(at_line(SRC, 2), At::Header("run".into()));
        assert_eq!(at_line(SRC, 3), At::Key("run.name".into()));
        assert_eq!(at_line(SRC, 8), At::Table("topology".into()));
        assert_eq!(at_line(SRC, 1), At::Table(String::new()));
        assert_eq!(line_of_offset("a\nb\nc", 2), 2);
        assert_eq!(line_of_offset("a\nb\nc", 0), 1);
    }

    #[test]
    fn tells_the_kinds_of_file_apart() {
        let sweep = "# a sweep\nbase = \"q.toml\"\n[axes]\n\"cc.kind\" = [\"none\"]\n";
        assert_eq!(looks_like(sweep), Some(FileKind::Sweep));
        let variants = "name = \"x\"\n\n[variants.pfc]\n\"pfc.enabled\" = true\n";
        assert_eq!(looks_like(variants), Some(FileKind::Sweep));
        let set = "name = \"x\"\n[set]\n\"run.seed\" = 2\n";
        assert_eq!(looks_like(set), Some(FileKind::Sweep));
        assert_eq!(looks_like(SRC), Some(FileKind::Config));
        // `base` inside a table is a config key, not a sweep's.
        assert_eq!(
            looks_like("[ports.fabric]\nbase = 1\n"),
            Some(FileKind::Config)
        );
        let peer = "ENABLE_QCN 1\nTOPOLOGY_FILE mix/topology.txt\nRATE_AI 5Mb/s\n";
        assert_eq!(looks_like(peer), Some(FileKind::Peer));
        assert_eq!(looks_like("\n# x\nCC_MODE\t3\n"), Some(FileKind::Peer));
        // An upper-case TOML key is still TOML.
        assert_eq!(looks_like("CC_MODE = 3\n"), Some(FileKind::Config));
        assert_eq!(looks_like("320 16 1\n0 1 2\n"), None);
        assert_eq!(looks_like(""), None);
        assert_eq!(
            FileKind::Sweep.hint("s.toml"),
            "this looks like a sweep file: run it with `rdmasim sweep s.toml`"
        );
    }
}
