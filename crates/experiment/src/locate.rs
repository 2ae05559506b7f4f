//! Finding keys in TOML source text, so errors found after parsing can name
//! the line. This is a light line scanner, not a TOML parser: it knows
//! `[table]` and `[[array]]` headers, `key = value` lines (dotted and quoted
//! keys too) and values that run over several lines in brackets. Key paths
//! are dotted, with `[i]` for the `i`-th element of an array of tables:
//! `cc.dcqcn.rp_timer`, `workload.extra[1].load`.

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

/// Strip quotes and spaces from each part of a dotted key.
fn normalize_key(raw: &str) -> String {
    raw.split('.')
        .map(|p| p.trim().trim_matches(|c| c == '"' || c == '\''))
        .collect::<Vec<_>>()
        .join(".")
}

fn join(header: &str, key: &str) -> String {
    if header.is_empty() {
        key.to_string()
    } else {
        format!("{header}.{key}")
    }
}

/// Net `[` minus `]` in `s`, outside strings and comments.
fn bracket_depth(s: &str) -> i64 {
    let mut depth = 0i64;
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
                '[' | '{' => depth += 1,
                ']' | '}' => depth -= 1,
                _ => {}
            },
        }
        prev = c;
    }
    depth
}

/// Classify every line of `text`.
fn scan(text: &str) -> Vec<LineKind> {
    let mut out = Vec::new();
    let mut header = String::new();
    let mut arrays: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut open = 0i64;
    for line in text.lines() {
        let t = line.trim();
        if open > 0 {
            open += bracket_depth(t);
            out.push(LineKind::Other);
            continue;
        }
        let kind = if let Some(rest) = t.strip_prefix("[[") {
            let name = normalize_key(rest.split("]]").next().unwrap_or(""));
            let n = arrays.entry(name.clone()).or_insert(0);
            header = format!("{name}[{n}]");
            *n += 1;
            LineKind::Header(header.clone())
        } else if let Some(rest) = t.strip_prefix('[') {
            header = normalize_key(rest.split(']').next().unwrap_or(""));
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
        } else if let Some((k, v)) = t.split_once('=') {
            open = bracket_depth(v).max(0);
            LineKind::Key(join(&header, &normalize_key(k)))
        } else {
            LineKind::Other
        };
        out.push(kind);
    }
    out
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
    let lines = scan(text);
    let mut p = path;
    while !p.is_empty() {
        let found = lines.iter().position(|k| match k {
            LineKind::Header(h) | LineKind::Key(h) => h == p,
            LineKind::Other => false,
        });
        if let Some(i) = found {
            return Some(i + 1);
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
    let lines = scan(text);
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
    fn what_is_at_a_line() {
        assert_eq!(at_line(SRC, 2), At::Header("run".into()));
        assert_eq!(at_line(SRC, 3), At::Key("run.name".into()));
        assert_eq!(at_line(SRC, 8), At::Table("topology".into()));
        assert_eq!(at_line(SRC, 1), At::Table(String::new()));
        assert_eq!(line_of_offset("a\nb\nc", 2), 2);
        assert_eq!(line_of_offset("a\nb\nc", 0), 1);
    }
}
