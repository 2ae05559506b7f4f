//! Stage 1: a config's text → [`ConfigDoc`], every TOML error turned into
//! one line naming the file, the line and the key's full path.

use super::doc::{Config, ConfigDoc};
use crate::error::ExperimentError;
use crate::locate::{self, At, FileKind};
use crate::suggest;
use engine::InputError;
use std::path::Path;

/// Read and parse a config file. Errors name `path` as written.
pub fn load_config(path: &Path) -> Result<Config, ExperimentError> {
    let text = locate::read_toml(path)?;
    parse_config(&text, &path.display().to_string())
}

/// Parse config text; `file` names it in errors. An error in a file that
/// looks like a sweep file or the peer's config ends with the command that
/// reads it.
pub fn parse_config(text: &str, file: &str) -> Result<Config, ExperimentError> {
    parse_config_text(text, file)
        .map_err(|e| locate::hint_wrong_kind(e, text, file, &[FileKind::Sweep, FileKind::Peer]))
}

fn parse_config_text(text: &str, file: &str) -> Result<Config, ExperimentError> {
    if let Err(e) = text.parse::<toml::Table>() {
        return Err(toml_error(text, file, &e, true).into());
    }
    let doc: ConfigDoc = toml::from_str(text).map_err(|e| toml_error(text, file, &e, false))?;
    Ok(Config {
        file: file.to_string(),
        text: text.to_string(),
        doc,
    })
}

/// The text between the first pair of backticks after `prefix` in `msg`.
fn quoted_after<'a>(msg: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = msg.strip_prefix(prefix)?;
    let rest = rest.strip_prefix('`')?;
    Some(&rest[..rest.find('`')?])
}

/// `expected one of `a`, `b`` → `expected one of a, b`.
fn expected_list(msg: &str) -> String {
    match msg.find("expected") {
        Some(i) => format!("; {}", msg[i..].replace('`', "")),
        None => String::new(),
    }
}

/// The names between backticks after `expected` in `msg`.
fn expected_names(msg: &str) -> impl Iterator<Item = &str> {
    let list = msg.find("expected").map_or("", |i| &msg[i..]);
    list.split('`').skip(1).step_by(2)
}

/// Path of the key `name` named by an error at `line`: the key on that line
/// (or the header) cut after its last `name` segment.
fn path_of_named(text: &str, line: usize, name: &str) -> String {
    let (base, on_line) = match locate::at_line(text, line) {
        At::Header(h) => (h, true),
        At::Key(k) => (k, true),
        At::Table(t) => (t, false),
    };
    if on_line && (base == name || base.ends_with(&format!(".{name}"))) {
        return base;
    }
    if on_line {
        let segs: Vec<&str> = base.split('.').collect();
        // An array of tables' header names its entry (`x[0]`): the unknown
        // name is `x`, not a key inside it.
        let unindexed = |s: &str| s.split_once('[').map_or(s, |(n, _)| n).to_string();
        if let Some(i) = segs.iter().rposition(|s| unindexed(s) == name) {
            let mut path = segs[..i].join(".");
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(name);
            return path;
        }
    }
    if base.is_empty() {
        name.to_string()
    } else {
        format!("{base}.{name}")
    }
}

/// Turn a TOML error into `file:line: key.path: message`.
fn toml_error(text: &str, file: &str, e: &toml::de::Error, syntax: bool) -> InputError {
    let line = e.span().map(|s| locate::line_of_offset(text, s.start));
    let raw = locate::toml_message(e.message(), text, e.span().map(|s| s.start));
    let key_at_line = |l: usize| match locate::at_line(text, l) {
        At::Key(k) => k,
        At::Header(h) | At::Table(h) => h,
    };
    if syntax {
        let field = line.map(key_at_line).unwrap_or_default();
        return InputError::at(
            file,
            line,
            field,
            format!("invalid TOML: {}", raw.replace('`', "'")),
        );
    }
    if let Some(name) = quoted_after(&raw, "unknown field ") {
        let path = match line {
            Some(l) => path_of_named(text, l, name),
            None => name.to_string(),
        };
        let line = locate::key_line(text, &path).or(line);
        let what = if path.contains('.') { "key" } else { "section" };
        // The key meant, if one is close; else every key the table takes.
        let hint = match suggest::closest(name, expected_names(&raw)) {
            Some(k) => format!("; did you mean {k}?"),
            None => expected_list(&raw),
        };
        return InputError::at(file, line, path, format!("unknown {what}{hint}"));
    }
    if let Some(name) = quoted_after(&raw, "missing field ") {
        let table = match line.map(|l| locate::at_line(text, l)) {
            Some(At::Header(h)) | Some(At::Table(h)) => h,
            Some(At::Key(k)) => locate_parent(&k).to_string(),
            None => String::new(),
        };
        let path = if table.is_empty() {
            name.to_string()
        } else {
            format!("{table}.{name}")
        };
        return InputError::at(file, line, path, "missing (this key is required)");
    }
    let field = line.map(key_at_line).unwrap_or_default();
    let mut msg = raw.replace('`', "\"");
    if let Some(v) = quoted_after(&raw, "unknown variant ") {
        msg = format!("unknown value \"{v}\"{}", expected_list(&raw));
    } else if raw.contains("expected a string") {
        msg.push_str("; write values with units as strings, e.g. \"100Gbps\", \"1us\", \"32MiB\"");
    }
    InputError::at(file, line, field, msg)
}

fn locate_parent(path: &str) -> &str {
    match path.rfind('.') {
        Some(i) => &path[..i],
        None => "",
    }
}
