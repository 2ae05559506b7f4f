//! Reading a sweep file, and planning its runs: each combination of axis
//! values set into the base config's TOML document, checked as a config
//! and as a scenario before anything runs.

use super::plan::{Axis, PlannedRun, Sweep};
use super::report_spec::parse_report;
use crate::config::{self, parse_config};
use crate::error::ExperimentError;
use crate::locate::{self, FileKind};
use crate::suggest;
use engine::InputError;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use toml_edit::{DocumentMut, Item, TableLike, Value};

/// Longest run directory name; longer ones are cut and end in a hash.
pub(super) const MAX_NAME: usize = 200;

pub(super) fn input_err(
    file: &str,
    line: Option<usize>,
    field: &str,
    msg: impl Into<String>,
) -> ExperimentError {
    ExperimentError::Input(InputError::at(file, line, field, msg))
}

/// Read and check a sweep file and its base config's text. An error in a
/// file that looks like rdmasim's TOML config or the peer's config ends
/// with the command that reads it.
pub fn load_sweep(path: &Path) -> Result<Sweep, ExperimentError> {
    let text = locate::read_toml(path)?;
    let file = path.display().to_string();
    parse_sweep(&text, &file, &config::base_dir(path))
        .map_err(|e| locate::hint_wrong_kind(e, &text, &file, &[FileKind::Config, FileKind::Peer]))
}

/// Parse sweep text; `file` names it in errors, `dir` is where `base` is
/// resolved from.
pub fn parse_sweep(text: &str, file: &str, dir: &Path) -> Result<Sweep, ExperimentError> {
    let doc: DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| {
        let line = e.span().map(|s| locate::line_of_offset(text, s.start));
        let msg = locate::toml_message(e.message(), text, e.span().map(|s| s.start));
        input_err(file, line, "", format!("invalid TOML: {msg}"))
    })?;
    let at = |key: &str| locate::key_line(text, key);
    const KEYS: [&str; 6] = ["base", "name", "axes", "set", "variants", "report"];
    for (k, _) in doc.iter() {
        if !KEYS.contains(&k) {
            let msg = match suggest::closest(k, KEYS) {
                Some(meant) => format!("unknown key; did you mean {meant}?"),
                None => "unknown key; a sweep file has base, name, [set], [axes], \
                         [variants.*] and [report]"
                    .to_string(),
            };
            return Err(input_err(file, at(k), k, msg));
        }
    }
    let base_rel = match doc.get("base") {
        Some(Item::Value(Value::String(s))) => s.value().clone(),
        Some(_) => {
            return Err(input_err(
                file,
                at("base"),
                "base",
                "expected a file name (a string)",
            ))
        }
        None => {
            return Err(input_err(
                file,
                None,
                "base",
                "missing; name the base config, e.g. base = \"quickstart.toml\"",
            ))
        }
    };
    let name = match doc.get("name") {
        Some(Item::Value(Value::String(s))) => s.value().clone(),
        Some(_) => return Err(input_err(file, at("name"), "name", "expected a string")),
        None => Path::new(file)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "sweep".into()),
    };
    if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\\']) {
        return Err(input_err(
            file,
            at("name"),
            "name",
            format!("'{name}' cannot name a directory"),
        ));
    }
    let mut variants = Vec::new();
    if let Some(item) = doc.get("variants") {
        let Some(table) = item.as_table_like() else {
            return Err(input_err(
                file,
                at("variants"),
                "variants",
                "expected tables [variants.<name>] of key = value",
            ));
        };
        for (vname, item) in table.iter() {
            let vfield = format!("variants.{vname}");
            let vline = at(&vfield);
            if name_part(vname) != vname {
                return Err(input_err(
                    file,
                    vline,
                    &vfield,
                    "a variant name may use letters, digits and ._+- only",
                ));
            }
            let Some(t) = item.as_table_like() else {
                return Err(input_err(
                    file,
                    vline,
                    &vfield,
                    "expected a table of key = value",
                ));
            };
            let keys = key_values(file, t, &vfield, &at, &|_| None)?;
            variants.push((vname.to_string(), keys));
        }
        if variants.is_empty() {
            return Err(input_err(
                file,
                at("variants"),
                "variants",
                "no variant; add [variants.<name>] tables",
            ));
        }
    }
    let report = match doc.get("report") {
        Some(item) => {
            let names: Vec<&str> = variants.iter().map(|(n, _)| n.as_str()).collect();
            Some(parse_report(item, file, text, &names)?)
        }
        None => None,
    };
    let empty_axes = toml_edit::Item::Table(toml_edit::Table::new());
    let axes_item = match doc.get("axes") {
        Some(a) => a,
        None if !variants.is_empty() => &empty_axes,
        None => {
            return Err(input_err(
                file,
                None,
                "axes",
                "missing; add an [axes] table, e.g. \"workload.load\" = [0.3, 0.5]",
            ))
        }
    };
    let Some(table) = axes_item.as_table_like() else {
        return Err(input_err(
            file,
            at("axes"),
            "axes",
            "expected a table of key = [values]",
        ));
    };
    let mut axes = BTreeMap::new();
    for (key, item) in table.iter() {
        let field = format!("axes.\"{key}\"");
        let line = at(&format!("axes.{key}"));
        parse_path(key).map_err(|m| input_err(file, line, &field, m))?;
        let values: Vec<Value> = match item {
            Item::Value(Value::Array(a)) => a.iter().cloned().collect(),
            _ => {
                return Err(input_err(
                    file,
                    line,
                    &field,
                    "expected a list of values, e.g. [0.3, 0.5]",
                ))
            }
        };
        if values.is_empty() {
            return Err(input_err(file, line, &field, "the list of values is empty"));
        }
        let shown: Vec<String> = values.iter().map(show_value).collect();
        for (i, v) in shown.iter().enumerate() {
            if shown[..i].contains(v) {
                return Err(input_err(
                    file,
                    line,
                    &field,
                    format!("{v} is listed twice"),
                ));
            }
        }
        axes.insert(
            key.to_string(),
            Axis {
                key: key.to_string(),
                values,
                line,
            },
        );
    }
    if axes.contains_key("variant") {
        return Err(input_err(
            file,
            at("axes.variant"),
            "axes.variant",
            "'variant' names the [variants.*] axis; it is not a config key",
        ));
    }
    if axes.is_empty() && variants.is_empty() {
        return Err(input_err(
            file,
            at("axes"),
            "axes",
            "no axes; list at least one key",
        ));
    }
    let mut set = Vec::new();
    if let Some(item) = doc.get("set") {
        let Some(table) = item.as_table_like() else {
            return Err(input_err(
                file,
                at("set"),
                "set",
                "expected a table of key = value",
            ));
        };
        set = key_values(file, table, "set", &at, &|key| {
            axes.contains_key(key)
                .then_some("is also an axis; keep one")
        })?;
    }
    let base = dir.join(&base_rel);
    let base_text = engine::input::read_text(&base).map_err(|e| {
        input_err(
            file,
            at("base"),
            "base",
            format!("cannot read '{}': {e}", base.display()),
        )
    })?;
    // A sweep file given as the base: say so here, rather than let each
    // run trip over its `base` key as an unknown section.
    if let Ok(t) = base_text.parse::<toml::Table>() {
        if t.contains_key("base") {
            return Err(input_err(
                file,
                at("base"),
                "base",
                format!(
                    "'{}' is a sweep file (it sets base); the base must be an experiment \
                     config, such as that sweep's own base",
                    base.display()
                ),
            ));
        }
    }
    let mut axes: Vec<Axis> = axes.into_values().collect();
    if !variants.is_empty() {
        // The variant is the first, slowest axis.
        axes.insert(
            0,
            Axis {
                key: "variant".to_string(),
                values: variants
                    .iter()
                    .map(|(n, _)| Value::from(n.as_str()))
                    .collect(),
                line: at("variants"),
            },
        );
    }
    Ok(Sweep {
        file: file.to_string(),
        text: text.to_string(),
        name,
        base_rel,
        base,
        base_text,
        axes,
        set,
        variants,
        report,
    })
}

/// The `key = value` lines of `[set]` or of a `[variants.<name>]` table
/// (`section`), each key a config key path, as axes of one value each.
/// `reject` may refuse a key with a reason.
fn key_values(
    file: &str,
    table: &dyn TableLike,
    section: &str,
    at: &dyn Fn(&str) -> Option<usize>,
    reject: &dyn Fn(&str) -> Option<&'static str>,
) -> Result<Vec<Axis>, ExperimentError> {
    let mut out = Vec::new();
    for (key, item) in table.iter() {
        let field = format!("{section}.\"{key}\"");
        let line = at(&format!("{section}.{key}"));
        parse_path(key).map_err(|m| input_err(file, line, &field, m))?;
        if let Some(why) = reject(key) {
            return Err(input_err(file, line, &field, why));
        }
        let Some(v) = item.as_value() else {
            return Err(input_err(file, line, &field, "expected a value"));
        };
        out.push(Axis {
            key: key.to_string(),
            values: vec![v.clone()],
            line,
        });
    }
    Ok(out)
}

/// One segment of a key path: a key and an optional array index.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Seg {
    key: String,
    index: Option<usize>,
}

fn parse_path(path: &str) -> Result<Vec<Seg>, String> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let (key, index) = match part.find('[') {
            Some(i) => {
                let idx = part[i + 1..]
                    .strip_suffix(']')
                    .and_then(|n| n.parse::<usize>().ok())
                    .ok_or_else(|| format!("'{part}' is not key[index]"))?;
                (&part[..i], Some(idx))
            }
            None => (part, None),
        };
        if key.is_empty() {
            return Err(format!(
                "'{path}' is not a dotted key path like workload.load"
            ));
        }
        out.push(Seg {
            key: key.to_string(),
            index,
        });
    }
    Ok(out)
}

/// Set the key at `segs` in `t` to `v`, creating missing tables.
fn set_in(t: &mut dyn TableLike, segs: &[Seg], mut v: Value) -> Result<(), String> {
    let (seg, rest) = segs.split_first().expect("paths are not empty");
    if rest.is_empty() && seg.index.is_none() {
        // Keep the old value's spacing and trailing comment.
        match t.get(&seg.key) {
            Some(Item::Value(old)) => *v.decor_mut() = old.decor().clone(),
            Some(Item::None) | None => v.decor_mut().clear(),
            Some(_) => return Err(format!("{} is a table, not a value", seg.key)),
        }
        t.insert(&seg.key, Item::Value(v));
        return Ok(());
    }
    if t.get(&seg.key).is_none() {
        if seg.index.is_some() {
            return Err(format!("{} is not set in the base config", seg.key));
        }
        t.insert(&seg.key, Item::Table(toml_edit::Table::new()));
    }
    let child = t.get_mut(&seg.key).expect("just checked or inserted");
    let Some(i) = seg.index else {
        let what = child.type_name();
        let ct = child
            .as_table_like_mut()
            .ok_or_else(|| format!("{} is not a table (its value is of type {what})", seg.key))?;
        return set_in(ct, rest, v);
    };
    match child {
        Item::ArrayOfTables(a) => {
            let n = a.len();
            let tab = a.get_mut(i).ok_or_else(|| {
                format!("{}[{i}] does not exist (the base config has {n})", seg.key)
            })?;
            if rest.is_empty() {
                return Err(format!("{}[{i}] is a table; name a key inside it", seg.key));
            }
            set_in(tab, rest, v)
        }
        Item::Value(Value::Array(arr)) => {
            let n = arr.len();
            if i >= n {
                return Err(format!(
                    "{}[{i}] does not exist (the base config has {n})",
                    seg.key
                ));
            }
            if rest.is_empty() {
                let old = arr.get(i).expect("in range");
                *v.decor_mut() = old.decor().clone();
                arr.replace_formatted(i, v);
                return Ok(());
            }
            match arr.get_mut(i) {
                Some(Value::InlineTable(it)) => set_in(it, rest, v),
                _ => Err(format!("{}[{i}] is not a table", seg.key)),
            }
        }
        other => Err(format!(
            "{} is a {}, not an array",
            seg.key,
            other.type_name()
        )),
    }
}

/// A value as TOML writes it, without surrounding space or comments.
fn show_value(v: &Value) -> String {
    let mut v = v.clone();
    v.decor_mut().clear();
    v.to_string().trim().to_string()
}

/// The directory-name form of a value: strings without quotes; anything
/// but letters, digits and `._+-` becomes `_`.
pub(super) fn name_part(s: &str) -> String {
    let s = s
        .strip_prefix('"')
        .and_then(|x| x.strip_suffix('"'))
        .unwrap_or(s);
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._+-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// FNV-1a, to shorten long names stably.
fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The run directory name of one combination.
pub(super) fn run_name(values: &[(String, String)]) -> String {
    let name = values
        .iter()
        .map(|(k, v)| format!("{}={}", name_part(k), name_part(v)))
        .collect::<Vec<_>>()
        .join(",");
    if name.len() <= MAX_NAME {
        return name;
    }
    let mut cut = MAX_NAME - 17;
    while !name.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}-{:016x}", &name[..cut], fnv(&name))
}

/// Every combination of the axes (the first axis slowest), each checked
/// as a config and as a scenario.
pub fn plan(sweep: &Sweep) -> Result<Vec<PlannedRun>, ExperimentError> {
    let base_doc: DocumentMut = sweep.base_text.parse().map_err(|e: toml_edit::TomlError| {
        let line = e
            .span()
            .map(|s| locate::line_of_offset(&sweep.base_text, s.start));
        input_err(
            &sweep.base.display().to_string(),
            line,
            "",
            format!(
                "invalid TOML: {}",
                locate::toml_message(e.message(), &sweep.base_text, e.span().map(|s| s.start))
            ),
        )
    })?;
    let base_dir = config::base_dir(&sweep.base);
    let sweep_file = Path::new(&sweep.file)
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let total: usize = sweep.axes.iter().map(|a| a.values.len()).product();
    let mut runs = Vec::with_capacity(total);
    let mut names: BTreeMap<String, usize> = BTreeMap::new();
    let mut idx = vec![0usize; sweep.axes.len()];
    for _ in 0..total {
        let mut doc = base_doc.clone();
        for a in &sweep.set {
            let segs = parse_path(&a.key).expect("checked when parsed");
            set_in(doc.as_table_mut(), &segs, a.values[0].clone())
                .map_err(|m| input_err(&sweep.file, a.line, &format!("set.\"{}\"", a.key), m))?;
        }
        let mut values = Vec::with_capacity(idx.len());
        for (a, &i) in sweep.axes.iter().zip(&idx) {
            let v = a.values[i].clone();
            let shown = show_value(&v);
            if a.key == "variant" && !sweep.variants.is_empty() {
                let (vname, keys) = &sweep.variants[i];
                for k in keys {
                    let segs = parse_path(&k.key).expect("checked when parsed");
                    set_in(doc.as_table_mut(), &segs, k.values[0].clone()).map_err(|m| {
                        input_err(
                            &sweep.file,
                            k.line,
                            &format!("variants.{vname}.\"{}\"", k.key),
                            m,
                        )
                    })?;
                }
                values.push((a.key.clone(), vname.clone()));
                continue;
            }
            let segs = parse_path(&a.key).expect("checked when parsed");
            set_in(doc.as_table_mut(), &segs, v)
                .map_err(|m| input_err(&sweep.file, a.line, &format!("axes.\"{}\"", a.key), m))?;
            values.push((a.key.clone(), shown));
        }
        let text = doc.to_string();
        let base_name = sweep.base.display().to_string();
        // The time series and the capture too: their keys are checked against the scenario
        // (ports, intervals), and a bad one is an input error before the
        // first run, not a failed run.
        let (cfg, notes) = parse_config(&text, &base_name)
            .and_then(|cfg| {
                let s = config::build_scenario(&cfg, &base_dir)?;
                config::build_timeseries(&cfg, &s)?;
                config::build_capture(&cfg, &s)?;
                Ok((cfg, s.notes))
            })
            .map_err(|e| blame_axis(e, sweep, &values))?;
        let name = run_name(&values);
        if let Some(&j) = names.get(&name) {
            let other: &PlannedRun = &runs[j];
            return Err(input_err(
                &sweep.file,
                None,
                "axes",
                format!(
                    "two runs would share the directory '{name}' ({} and {}); make the values \
                     differ in letters or digits",
                    fmt_values(&other.values),
                    fmt_values(&values)
                ),
            ));
        }
        names.insert(name.clone(), runs.len());
        let mut with = fmt_values(&values);
        for a in &sweep.set {
            let _ = write!(with, ", {} = {}", a.key, show_value(&a.values[0]));
        }
        let config_toml = format!(
            "# rdmasim sweep \"{}\" ({sweep_file}): {} with\n#   {with}\n{text}",
            sweep.name, sweep.base_rel,
        );
        runs.push(PlannedRun {
            name,
            values,
            config: cfg,
            config_toml,
            notes,
        });
        // Odometer: the last axis turns fastest.
        for k in (0..idx.len()).rev() {
            idx[k] += 1;
            if idx[k] < sweep.axes[k].values.len() {
                break;
            }
            idx[k] = 0;
        }
    }
    Ok(runs)
}

/// A key as an error shows it: on one line, a line break in a quoted key
/// written as its escape.
fn one_line(key: &str) -> String {
    key.replace('\n', "\\n").replace('\r', "\\r")
}

fn fmt_values(values: &[(String, String)]) -> String {
    values
        .iter()
        .map(|(k, v)| format!("{k} = {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// An error in the config of one combination: pointed at the line of the
/// sweep file that set the key it names (an `[axes]` key, a key of the
/// run's `[variants.<name>]` table or of `[set]`: an unknown key, a bad
/// value), else left at the base file. Only an error about the key itself
/// calls it unknown; any other is the value's, named with the value, since a
/// valid key with a mistyped value would otherwise send the user looking for
/// a key that is fine.
fn blame_axis(e: ExperimentError, sweep: &Sweep, values: &[(String, String)]) -> ExperimentError {
    let ExperimentError::Input(ie) = &e else {
        return e;
    };
    let field = ie.field.as_str();
    // What set each key, as (key, line, value, field to blame), in the
    // order that wins when two set the same key: an axis over the variant
    // (set after it), the variant over [set] (set before both).
    let mut setters: Vec<(&str, Option<usize>, String, String)> = Vec::new();
    let mut variant = None;
    for (a, (_, v)) in sweep.axes.iter().zip(values) {
        if a.key == "variant" && !sweep.variants.is_empty() {
            variant = sweep.variants.iter().find(|(n, _)| n == v);
            continue;
        }
        setters.push((
            &a.key,
            a.line,
            v.clone(),
            format!("axes.\"{}\"", one_line(&a.key)),
        ));
    }
    if let Some((vname, keys)) = variant {
        for k in keys {
            let field = format!("variants.{vname}.\"{}\"", one_line(&k.key));
            setters.push((&k.key, k.line, show_value(&k.values[0]), field));
        }
    }
    for a in &sweep.set {
        let field = format!("set.\"{}\"", one_line(&a.key));
        setters.push((&a.key, a.line, show_value(&a.values[0]), field));
    }
    let hit = setters.iter().find(|(k, ..)| {
        !field.is_empty()
            && (*k == field
                || k.starts_with(&format!("{field}."))
                || k.starts_with(&format!("{field}["))
                || field.starts_with(&format!("{k}.")))
    });
    match hit {
        Some((k, line, v, blamed)) => {
            // The error names the key or a table on its path, not a key
            // inside the value (an inline table).
            let on_key = !field.starts_with(&format!("{k}."));
            let msg = ie.msg.as_str();
            let msg = if on_key
                && (msg.starts_with("unknown key") || msg.starts_with("unknown section"))
            {
                format!("{msg} (not a config key: `rdmasim config --defaults` lists them)")
            } else if on_key && msg.starts_with("not a key of kind") {
                // A config key, but not of the kind this run has.
                msg.to_string()
            } else if let Some(rest) = msg.strip_prefix(&format!("unknown value {v}")) {
                format!("value {v} is not one this key takes{rest}")
            } else {
                format!("value {v}: {msg}")
            };
            input_err(&sweep.file, *line, blamed, msg)
        }
        None => {
            let msg = format!("{} (in sweep run {})", ie.msg, fmt_values(values));
            // A line past the base file's end is one the sweep's keys added
            // (a key whose name the config's parser read another way): blame
            // the key that added its table, else the first key the sweep set.
            let base_lines = sweep.base_text.lines().count();
            if ie.line.is_some_and(|l| l > base_lines) {
                let head = field.split('.').next().unwrap_or("");
                let setter = setters
                    .iter()
                    .find(|(k, ..)| k.split('.').next() == Some(head))
                    .or(setters.first());
                if let Some((_, line, _, blamed)) = setter {
                    return input_err(&sweep.file, *line, blamed, msg);
                }
            }
            ExperimentError::Input(InputError { msg, ..ie.clone() })
        }
    }
}
