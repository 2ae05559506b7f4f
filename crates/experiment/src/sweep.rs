//! Sweeps: one base config, axes over any of its keys, every combination
//! run in parallel, each into its own run directory; stopped and started
//! again, a sweep runs only what is missing.
//!
//! A sweep file:
//!
//! ```toml
//! base = "quickstart.toml"          # relative to this file
//! name = "load-sweep"               # default: this file's name
//! [set]                             # optional: the same in every run
//! "timeseries.interval" = "10us"
//! [axes]
//! "workload.load" = [0.3, 0.5, 0.7]
//! "run.seed" = [1, 2]
//! "cc.kind" = ["dcqcn", "none"]
//! ```
//!
//! An axis names any config key by its dotted path (`[i]` picks an element
//! of an array: `"ecn.thresholds[0].kmin"`, `"workload.extra[1].load"`) and
//! lists its values. Each run's config is the base file's TOML document
//! with those keys set (formatting, comments and the lines of the other
//! keys kept), checked like any config before anything runs: a key that is
//! not a config key, or a value a key does not take, is an error naming the
//! sweep file's line and the axis. `[set]` sets keys the same way in every
//! run, without naming them in the run directories; `[variants.<name>]`
//! tables set named groups of keys, one group a run. Their keys' errors
//! name the sweep file's line too, and the table (`variants.<name>`).
//!
//! The runs go to `runs/<name>/<k1=v1,k2=v2,...>/` (axes in key order,
//! characters other than letters, digits and `._+-` replaced by `_`), each
//! written aside and renamed into place when complete, so a run directory
//! that exists is complete. On start, a sweep takes `runs/<name>/.sweep.lock`,
//! removes temporary directories left by a sweep that was killed, and skips
//! every run whose directory holds a readable summary and the same config.
//! A skipped run keeps the outcome its summary records: a start that runs
//! nothing still reports, and exits with, the warnings of earlier starts.
//! Each start and finish is appended to `sweep.log`; at the end `index.csv`
//! has one row per run: its axis values and its key numbers.

use crate::config::{self, parse_config, Config};
use crate::fmt::csv_field;
use crate::scenario::{run_scenario, RunOptions};
use crate::{locate, ExperimentError};
use engine::InputError;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use toml_edit::{DocumentMut, Item, TableLike, Value};

/// The files a sweep directory holds besides its run directories.
pub const SWEEP_FILES: [&str; 3] = ["index.csv", "sweep.log", ".sweep.lock"];
const LOCK: &str = ".sweep.lock";
/// Longest run directory name; longer ones are cut and end in a hash.
const MAX_NAME: usize = 200;

/// One axis: a config key and its values.
#[derive(Clone, Debug)]
pub struct Axis {
    /// Dotted path of the key, as written in the sweep file.
    pub key: String,
    /// The values, in the file's order.
    pub values: Vec<Value>,
    /// Line of the axis in the sweep file.
    pub line: Option<usize>,
}

/// A parsed sweep file.
#[derive(Clone, Debug)]
pub struct Sweep {
    /// The sweep file, as named on the command line.
    pub file: String,
    /// Its text.
    pub text: String,
    /// The sweep's name (`runs/<name>`).
    pub name: String,
    /// The base config's path, as written in the sweep file.
    pub base_rel: String,
    /// The base config's path, resolved.
    pub base: PathBuf,
    /// The base config's text.
    pub base_text: String,
    /// The axes, sorted by key.
    pub axes: Vec<Axis>,
    /// `[set]`: keys set in every run, as axes of one value each.
    pub set: Vec<Axis>,
    /// `[variants.<name>]`: named sets of keys, in file order; with them
    /// the first axis is `variant`, taking each name.
    pub variants: Vec<(String, Vec<Axis>)>,
    /// `[report]`: flow groups, baseline and published numbers to compare.
    pub report: Option<crate::report::ReportSpec>,
}

/// One combination of axis values, ready to run.
#[derive(Clone, Debug)]
pub struct PlannedRun {
    /// Directory name, from the axis values.
    pub name: String,
    /// (key, value as written in TOML), in axis order.
    pub values: Vec<(String, String)>,
    /// The config: the base with the values set.
    pub config: Config,
    /// What goes into the run directory's `config.toml`.
    pub config_toml: String,
    /// The notes of building its scenario ([`crate::Scenario::notes`]),
    /// often the same in every run (a flow file's unread lines): the sweep
    /// prints each once before its runs, not once a run.
    pub notes: Vec<String>,
}

/// How to run a sweep.
#[derive(Clone, Debug, Default)]
pub struct SweepOptions {
    /// Runs at once; default: the machine's cores.
    pub jobs: Option<usize>,
    /// The sweep directory; default `runs/<name>`.
    pub out: Option<PathBuf>,
    /// Print nothing while running.
    pub quiet: bool,
}

/// What became of one run of a sweep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunStatus {
    /// Complete before this start, so not run again; the invariants its
    /// `summary.json` records as failed (empty if it was clean).
    Skipped(Vec<String>),
    /// Ran and is clean.
    Clean,
    /// Ran; these invariants failed (the run directory is written).
    Invariants(Vec<String>),
    /// Could not run or could not be written.
    Failed(String),
}

/// The outcome of a sweep.
#[derive(Clone, Debug)]
pub struct SweepReport {
    /// The sweep's name.
    pub name: String,
    /// The sweep directory.
    pub dir: PathBuf,
    /// Every run, in grid order, with what became of it.
    pub runs: Vec<(String, RunStatus)>,
    /// Temporary directories of earlier, interrupted sweeps that were removed.
    pub cleaned: Vec<String>,
    /// Wall-clock time of this start, s.
    pub wall_s: f64,
    /// With `[report]`: the published reductions beside ours.
    pub comparisons: Vec<crate::report::Comparison>,
    /// Every run's directory name and variant ("" without variants).
    pub variant_runs: Vec<(String, String)>,
    /// The sweep's `[report]`.
    pub report: Option<crate::report::ReportSpec>,
}

impl SweepReport {
    /// Runs with this status kind.
    pub fn count(&self, f: impl Fn(&RunStatus) -> bool) -> usize {
        self.runs.iter().filter(|(_, s)| f(s)).count()
    }
    /// The exit code: 2 if a run failed, 1 if an invariant failed, else 0.
    /// Runs done by an earlier start count with the invariants their
    /// summaries record, so that starting a sweep again cannot turn its
    /// exit code into success.
    pub fn exit_code(&self) -> u8 {
        if self.count(|s| matches!(s, RunStatus::Failed(_))) > 0 {
            2
        } else if self.count(RunStatus::has_warnings) > 0 {
            1
        } else {
            0
        }
    }
}

impl RunStatus {
    /// Whether an invariant failed, in this start or in the earlier one
    /// that ran it.
    pub fn has_warnings(&self) -> bool {
        match self {
            RunStatus::Invariants(w) | RunStatus::Skipped(w) => !w.is_empty(),
            RunStatus::Clean | RunStatus::Failed(_) => false,
        }
    }
}

fn input_err(
    file: &str,
    line: Option<usize>,
    field: &str,
    msg: impl Into<String>,
) -> ExperimentError {
    ExperimentError::Input(InputError::at(file, line, field, msg))
}

/// Read and check a sweep file and its base config's text.
pub fn load_sweep(path: &Path) -> Result<Sweep, ExperimentError> {
    let text = engine::input::read_text(path).map_err(|e| ExperimentError::io(path, e))?;
    parse_sweep(&text, &path.display().to_string(), &config::base_dir(path))
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
    for (k, _) in doc.iter() {
        if !["base", "name", "axes", "set", "variants", "report"].contains(&k) {
            return Err(input_err(
                file,
                at(k),
                k,
                "unknown key; a sweep file has base, name, [set], [axes], [variants.*] and \
                 [report]",
            ));
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
        Some(item) => Some(crate::report::parse_report(item, file, text, &variants)?),
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
fn name_part(s: &str) -> String {
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
fn run_name(values: &[(String, String)]) -> String {
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
        // The time series too: its keys are checked against the scenario
        // (ports, intervals), and a bad one is an input error before the
        // first run, not a failed run.
        let (cfg, notes) = parse_config(&text, &base_name)
            .and_then(|cfg| {
                let s = config::build_scenario(&cfg, &base_dir)?;
                crate::timeseries::build_timeseries(&cfg, &s)?;
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
        setters.push((&a.key, a.line, v.clone(), format!("axes.\"{}\"", a.key)));
    }
    if let Some((vname, keys)) = variant {
        for k in keys {
            let field = format!("variants.{vname}.\"{}\"", k.key);
            setters.push((&k.key, k.line, show_value(&k.values[0]), field));
        }
    }
    for a in &sweep.set {
        let field = format!("set.\"{}\"", a.key);
        setters.push((&a.key, a.line, show_value(&a.values[0]), field));
    }
    let hit = setters.into_iter().find(|(k, ..)| {
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
            input_err(&sweep.file, line, &blamed, msg)
        }
        None => ExperimentError::Input(InputError {
            msg: format!("{} (in sweep run {})", ie.msg, fmt_values(values)),
            ..ie.clone()
        }),
    }
}

/// Holds the sweep directory's lock file while alive.
struct Lock(PathBuf);

impl Lock {
    fn take(dir: &Path) -> Result<Lock, ExperimentError> {
        let path = dir.join(LOCK);
        let me = std::process::id();
        if let Ok(text) = fs::read_to_string(&path) {
            if let Ok(pid) = text.trim().parse::<u32>() {
                if pid != me && alive(pid) {
                    return Err(input_err(
                        &dir.display().to_string(),
                        None,
                        "",
                        format!(
                            "another sweep (process {pid}) is running in this directory; wait \
                             for it, or delete {} if that process is not rdmasim",
                            path.display()
                        ),
                    ));
                }
            }
        }
        fs::write(&path, format!("{me}\n")).map_err(|e| ExperimentError::io(&path, e))?;
        Ok(Lock(path))
    }
}

/// Whether process `pid` runs (Linux: `/proc/<pid>` exists); `false` where
/// that cannot be told.
fn alive(pid: u32) -> bool {
    let proc_dir = Path::new("/proc");
    proc_dir.is_dir() && proc_dir.join(pid.to_string()).exists()
}

impl Lock {
    #[cfg(test)]
    fn holder(dir: &Path) -> Option<u32> {
        fs::read_to_string(dir.join(LOCK)).ok()?.trim().parse().ok()
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.0);
    }
}

/// Remove `<run>.tmp-<pid>` and `<run>.old-<pid>` directories (and an
/// `index.csv.tmp-<pid>`): what a killed sweep left. Returns their names.
fn clean_stale(dir: &Path) -> Result<Vec<String>, ExperimentError> {
    let mut removed = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| ExperimentError::io(dir, e))? {
        let entry = entry.map_err(|e| ExperimentError::io(dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let stale = [".tmp-", ".old-"].iter().any(|m| {
            name.rfind(m).is_some_and(|i| {
                let pid = &name[i + m.len()..];
                !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit())
            })
        });
        if stale {
            let p = entry.path();
            let gone = if entry.file_type().is_ok_and(|t| t.is_dir()) {
                fs::remove_dir_all(&p)
            } else {
                fs::remove_file(&p)
            };
            gone.map_err(|e| ExperimentError::io(&p, e))?;
            removed.push(name);
        }
    }
    removed.sort();
    Ok(removed)
}

/// If `dir` holds the complete run of `r`: the invariants its summary
/// records as failed (empty if none). A summary that cannot be read or
/// lacks those numbers is not a complete run: it is run again, so that
/// every run a sweep skips has a known outcome.
fn done_status(dir: &Path, r: &PlannedRun) -> Option<Vec<String>> {
    if !fs::read_to_string(dir.join("config.toml")).is_ok_and(|t| t == r.config_toml) {
        return None;
    }
    let text = fs::read_to_string(dir.join("summary.json")).ok()?;
    summary_warnings(&serde_json::from_str(&text).ok()?)
}

/// The invariants a summary records as failed, checked as a run checks
/// them (`scenario::invariants`: no flows, lossless drops, unfinished
/// flows); `None`
/// if the summary lacks the numbers.
fn summary_warnings(v: &serde_json::Value) -> Option<Vec<String>> {
    let n = |a: &str, b: &str| v.get(a).and_then(|x| x.get(b)).and_then(|x| x.as_u64());
    let unfinished = n("flows", "unfinished")?;
    let lossless = n("counters", "lossless_drops")?;
    let s = |k: u64| if k == 1 { "" } else { "s" };
    let mut out = Vec::new();
    if n("flows", "total") == Some(0) {
        out.push("the workload has no flows, so nothing was simulated".to_string());
    }
    if lossless > 0 {
        out.push(format!(
            "{lossless} packet{} dropped at ports under hop-by-hop flow control (a lossless \
             fabric)",
            s(lossless)
        ));
    }
    if unfinished > 0 {
        // Endless bandwidth flows are neither finished nor unfinished.
        let of = n("flows", "total")
            .map(|t| t.saturating_sub(n("flows", "endless").unwrap_or(0)))
            .map_or(String::new(), |t| format!(" of {t} flow{}", s(t)));
        out.push(format!("{unfinished}{of} did not finish"));
    }
    Some(out)
}

/// Appends lines to `sweep.log`.
struct Log(Mutex<fs::File>);

impl Log {
    fn open(path: &Path) -> Result<Log, ExperimentError> {
        let f = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| ExperimentError::io(path, e))?;
        Ok(Log(Mutex::new(f)))
    }
    fn line(&self, what: &str, run: &str, extra: &str) {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs_f64())
            .unwrap_or(0.0);
        let line = format!("{t:.3} {what} {run} pid={}{extra}\n", std::process::id());
        if let Ok(mut f) = self.0.lock() {
            // One write per line: appends of whole lines, even from threads.
            let _ = f.write_all(line.as_bytes());
        }
    }
}

/// Run a sweep file: check it, skip what is done, run the rest on `jobs`
/// threads with a progress bar, write `index.csv`.
pub fn run_sweep(path: &Path, opts: &SweepOptions) -> Result<SweepReport, ExperimentError> {
    let t0 = Instant::now();
    let sweep = load_sweep(path)?;
    let runs = plan(&sweep)?;
    let dir = opts
        .out
        .clone()
        .unwrap_or_else(|| Path::new("runs").join(&sweep.name));
    fs::create_dir_all(&dir).map_err(|e| ExperimentError::io(&dir, e))?;
    let _lock = Lock::take(&dir)?;
    let cleaned = clean_stale(&dir)?;
    let log = Log::open(&dir.join("sweep.log"))?;

    let mut done: Vec<Option<Vec<String>>> = runs
        .iter()
        .map(|r| done_status(&dir.join(&r.name), r))
        .collect();
    let todo: Vec<usize> = (0..runs.len()).filter(|&i| done[i].is_none()).collect();
    let show = !opts.quiet;
    if show {
        let done = runs.len() - todo.len();
        let mut msg = format!("{}: {} runs", sweep.name, runs.len());
        if done > 0 {
            let _ = write!(msg, ", {done} already done");
        }
        if !cleaned.is_empty() {
            let _ = write!(msg, ", removed {} unfinished", cleaned.len());
        }
        eprintln!("rdmasim: {msg}; output in {}", dir.display());
    }
    let jobs = opts
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, todo.len().max(1));
    let base_dir = config::base_dir(&sweep.base);

    // Time series of every run to do, for one size note.
    let mut ts_bytes = 0u64;
    for &i in &todo {
        let cfg = &runs[i].config;
        if cfg.doc.timeseries.is_some() {
            let s = config::build_scenario(cfg, &base_dir)?;
            if let Some(m) = crate::timeseries::build_timeseries(cfg, &s)? {
                ts_bytes += crate::timeseries::estimate(&m, &s).bytes;
            }
        }
    }
    if show {
        for note in build_notes(&runs, &todo) {
            eprintln!("rdmasim: note: {note}");
        }
    }
    if show && ts_bytes > crate::timeseries::LARGE_BYTES {
        eprintln!(
            "rdmasim: note: the runs' time series will take about {:.0} MB",
            ts_bytes as f64 / 1e6
        );
    }

    let bar = if show && std::io::stderr().is_terminal() {
        let b = indicatif::ProgressBar::new(todo.len() as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} runs done, {msg}, ETA {eta}",
            )
            .expect("a valid template")
            .progress_chars("=> "),
        );
        b.set_message("0 running");
        b.enable_steady_tick(Duration::from_millis(200));
        Some(b)
    } else {
        None
    };
    let running = AtomicUsize::new(0);
    let finished = AtomicUsize::new(0);
    let next = AtomicUsize::new(0);
    let status: Vec<Mutex<Option<RunStatus>>> = (0..runs.len()).map(|_| Mutex::new(None)).collect();
    let set_running = |n: usize| {
        if let Some(b) = &bar {
            b.set_message(format!("{n} running"));
        }
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| ExperimentError::Unsupported(format!("cannot start threads: {e}")))?;
    pool.scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|_| loop {
                let k = next.fetch_add(1, Ordering::SeqCst);
                let Some(&i) = todo.get(k) else { break };
                let r = &runs[i];
                set_running(running.fetch_add(1, Ordering::SeqCst) + 1);
                log.line("start", &r.name, "");
                let started = Instant::now();
                let (st, mut notes) = run_one(r, &dir, &base_dir);
                // Printed before the runs (still in the run's summary).
                notes.retain(|n| !r.notes.contains(n));
                let secs = started.elapsed().as_secs_f64();
                let what = match &st {
                    RunStatus::Clean => "done",
                    RunStatus::Invariants(_) => "done-with-warnings",
                    _ => "failed",
                };
                log.line(what, &r.name, &format!(" wall_s={secs:.3}"));
                set_running(running.fetch_sub(1, Ordering::SeqCst) - 1);
                let n = finished.fetch_add(1, Ordering::SeqCst) + 1;
                let line = match &st {
                    RunStatus::Clean => format!("{} ({secs:.1} s)", r.name),
                    RunStatus::Invariants(w) => {
                        format!("{} ({secs:.1} s): warning: {}", r.name, w.join("; "))
                    }
                    RunStatus::Failed(e) => format!("{}: failed: {e}", r.name),
                    RunStatus::Skipped(_) => unreachable!("only runs to do are run"),
                };
                match &bar {
                    Some(b) => {
                        if !matches!(st, RunStatus::Clean) {
                            b.println(format!("rdmasim: {line}"));
                        }
                        for note in &notes {
                            b.println(format!("rdmasim: note: {}: {note}", r.name));
                        }
                        b.inc(1);
                    }
                    None if show => {
                        eprintln!("rdmasim: [{n}/{}] {line}", todo.len());
                        for note in &notes {
                            eprintln!("rdmasim: note: {}: {note}", r.name);
                        }
                    }
                    None => {}
                }
                if let Ok(mut s) = status[i].lock() {
                    *s = Some(st);
                }
            });
        }
    });
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let runs_status: Vec<(String, RunStatus)> = runs
        .iter()
        .zip(status)
        .zip(&mut done)
        .map(|((r, s), d)| {
            let s = s
                .into_inner()
                .ok()
                .flatten()
                .unwrap_or_else(|| match d.take() {
                    Some(w) => RunStatus::Skipped(w),
                    // A run to do that left no outcome must not pass for clean.
                    None => RunStatus::Failed("it ran but recorded no outcome".into()),
                });
            (r.name.clone(), s)
        })
        .collect();
    write_index(&dir, &sweep, &runs, &runs_status)?;
    let comparisons = match &sweep.report {
        Some(spec) => crate::report::write_report(&dir, &sweep, spec, &runs)?,
        None => Vec::new(),
    };
    Ok(SweepReport {
        comparisons,
        variant_runs: runs
            .iter()
            .map(|r| {
                let v = r.values.iter().find(|(k, _)| k == "variant");
                (
                    r.name.clone(),
                    v.map(|(_, v)| v.clone()).unwrap_or_default(),
                )
            })
            .collect(),
        report: sweep.report.clone(),
        name: sweep.name,
        dir,
        runs: runs_status,
        cleaned,
        wall_s: t0.elapsed().as_secs_f64(),
    })
}

/// The distinct notes of building the runs `todo`, in the order first met.
fn build_notes<'a>(runs: &'a [PlannedRun], todo: &[usize]) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for n in todo.iter().flat_map(|&i| &runs[i].notes) {
        if !out.contains(&n.as_str()) {
            out.push(n);
        }
    }
    out
}

fn run_one(r: &PlannedRun, dir: &Path, base_dir: &Path) -> (RunStatus, Vec<String>) {
    let go = || -> Result<(Vec<String>, Vec<String>), ExperimentError> {
        let mut s = config::build_scenario(&r.config, base_dir)?;
        s.name = r.name.clone();
        let timeseries = crate::timeseries::build_timeseries(&r.config, &s)?;
        let opts = RunOptions {
            progress: false,
            quiet: true,
            print_notes: false,
            config_toml: Some(r.config_toml.clone()),
            timeseries,
        };
        let report = run_scenario(s, Some(&dir.join(&r.name)), &opts)?;
        Ok((report.invariant_failures, report.notes))
    };
    match go() {
        Ok((w, notes)) if w.is_empty() => (RunStatus::Clean, notes),
        Ok((w, notes)) => (RunStatus::Invariants(w), notes),
        Err(e) => (RunStatus::Failed(e.to_string()), Vec::new()),
    }
}

/// Columns of `index.csv` after the axis values, and where each is found
/// in `summary.json`.
const INDEX_COLUMNS: [(&str, &[&str]); 16] = [
    ("flows", &["flows", "total"]),
    ("finished", &["flows", "finished"]),
    ("unfinished", &["flows", "unfinished"]),
    ("slowdown_avg", &["slowdown", "all", "avg"]),
    ("slowdown_p50", &["slowdown", "all", "p50"]),
    ("slowdown_p95", &["slowdown", "all", "p95"]),
    ("slowdown_p99", &["slowdown", "all", "p99"]),
    ("drops", &["counters", "drops"]),
    ("pause_frames", &["counters", "pause_frames"]),
    ("paused_ns", &["counters", "paused_ns"]),
    ("ecn_marks", &["counters", "ecn_marks"]),
    ("retransmitted_bytes", &["counters", "retransmitted_bytes"]),
    ("timeouts", &["counters", "timeouts"]),
    ("events", &["engine", "events"]),
    ("sim_time_ns", &["engine", "sim_time_ns"]),
    ("wall_s", &["engine", "wall_s"]),
];

/// One number of a summary: `slowdown.all` is the row labelled `all`.
fn summary_value(v: &serde_json::Value, path: &[&str]) -> String {
    let mut cur = v;
    for p in path {
        cur = match cur {
            serde_json::Value::Array(rows) => match rows
                .iter()
                .find(|r| r.get("label").and_then(|l| l.as_str()) == Some(p))
            {
                Some(r) => r,
                None => return String::new(),
            },
            other => match other.get(p) {
                Some(x) => x,
                None => return String::new(),
            },
        };
    }
    match cur {
        serde_json::Value::Number(n) => n.to_string(),
        serde_json::Value::String(s) => s.clone(),
        _ => String::new(),
    }
}

/// Write `index.csv`: `run`, one column per axis, `status`, then
/// [`INDEX_COLUMNS`] from each run's `summary.json`, then `notes`, how many
/// notes the run's summary has (its `notes` say what they are).
fn write_index(
    dir: &Path,
    sweep: &Sweep,
    runs: &[PlannedRun],
    status: &[(String, RunStatus)],
) -> Result<(), ExperimentError> {
    let mut s = String::from("run");
    for a in &sweep.axes {
        s.push(',');
        s.push_str(&csv_field(&a.key));
    }
    s.push_str(",status");
    for (c, _) in INDEX_COLUMNS {
        s.push(',');
        s.push_str(c);
    }
    s.push_str(",notes\n");
    for (r, (_, st)) in runs.iter().zip(status) {
        s.push_str(&csv_field(&r.name));
        for (_, v) in &r.values {
            let v = v
                .strip_prefix('"')
                .and_then(|x| x.strip_suffix('"'))
                .unwrap_or(v);
            s.push(',');
            s.push_str(&csv_field(v));
        }
        let summary = fs::read_to_string(dir.join(&r.name).join("summary.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok());
        let st = match (st, &summary) {
            (RunStatus::Failed(_), _) => "failed",
            (_, None) => "missing",
            (st, _) if st.has_warnings() => "warning",
            (_, Some(v)) if summary_warnings(v).is_none_or(|w| !w.is_empty()) => "warning",
            _ => "ok",
        };
        s.push(',');
        s.push_str(st);
        for (_, path) in INDEX_COLUMNS {
            s.push(',');
            if let Some(v) = &summary {
                s.push_str(&summary_value(v, path));
            }
        }
        s.push(',');
        if let Some(v) = &summary {
            let n = v
                .get("notes")
                .and_then(|n| n.as_array())
                .map_or(0, Vec::len);
            s.push_str(&n.to_string());
        }
        s.push('\n');
    }
    let path = dir.join("index.csv");
    let tmp = dir.join(format!("index.csv.tmp-{}", std::process::id()));
    fs::write(&tmp, s)
        .and_then(|()| fs::rename(&tmp, &path))
        .map_err(|e| ExperimentError::io(&path, e))
}

/// A one-line account of a finished sweep, for people. Warnings count
/// every run, those already done included, as the exit code does; how
/// many of them were already done says why a start that ran nothing
/// still warns.
pub fn describe(r: &SweepReport) -> String {
    let skipped = r.count(|s| matches!(s, RunStatus::Skipped(_)));
    let ran = r.runs.len() - skipped;
    let warn = r.count(RunStatus::has_warnings);
    let warn_done = r.count(|s| matches!(s, RunStatus::Skipped(_)) && s.has_warnings());
    let failed = r.count(|s| matches!(s, RunStatus::Failed(_)));
    let mut s = format!(
        "{}: {} runs ({ran} ran, {skipped} already done",
        r.name,
        r.runs.len()
    );
    if warn > 0 {
        let _ = write!(s, ", {warn} with warnings");
        if warn_done > 0 {
            let _ = write!(s, ", {warn_done} of them already done");
        }
    }
    if failed > 0 {
        let _ = write!(s, ", {failed} failed");
    }
    let _ = write!(
        s,
        ") in {:.1} s; index: {}",
        r.wall_s,
        r.dir.join("index.csv").display()
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// index.csv copies summary.json's numbers digit for digit: a slowdown
    /// read back from the summary is the same double, not its neighbour.
    #[test]
    fn index_numbers_are_the_summarys_digits() {
        let summary: serde_json::Value = serde_json::from_str(
            r#"{"slowdown": [{"label": "all", "avg": 1.9930244399603774,
                "p99": 6.457281080898757}], "engine": {"wall_s": 0.515752234}}"#,
        )
        .unwrap();
        let at = |p: &[&str]| summary_value(&summary, p);
        assert_eq!(at(&["slowdown", "all", "avg"]), "1.9930244399603774");
        assert_eq!(at(&["slowdown", "all", "p99"]), "6.457281080898757");
        assert_eq!(at(&["engine", "wall_s"]), "0.515752234");
    }

    const BASE: &str = r#"# base
[run]
name = "base"
seed = 1

[topology]
kind = "star"
hosts = 4   # four hosts

[workload]
kind = "incast"
senders = [0, 1, 2]
receiver = 3
size = "10KB"

[[ecn.thresholds]]
rate = "100Gbps"
kmin = "100KB"
kmax = "400KB"
"#;

    fn sweep_of(axes: &str) -> Result<Sweep, ExperimentError> {
        static N: AtomicUsize = AtomicUsize::new(0);
        let k = N.fetch_add(1, Ordering::SeqCst);
        let dir =
            std::env::temp_dir().join(format!("rdmasim-sweep-unit-{}-{k}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("base.toml"), BASE).unwrap();
        let text = format!("base = \"base.toml\"\nname = \"t\"\n\n[axes]\n{axes}");
        let s = parse_sweep(&text, "s.toml", &dir);
        fs::remove_dir_all(&dir).unwrap();
        s
    }

    fn plan_of(axes: &str) -> Result<Vec<PlannedRun>, ExperimentError> {
        plan(&sweep_of(axes)?)
    }

    /// A stray carriage return, or a file that ends inside a value: the
    /// TOML parser's own message is empty, rdmasim's names the problem.
    #[test]
    fn invalid_toml_is_named_even_where_the_parser_says_nothing() {
        let e = sweep_of("\"run.seed\" = [1]\n\r").unwrap_err().to_string();
        assert_eq!(e, "s.toml:6: invalid TOML: unexpected character '\\r'");
        let e = sweep_of("\"run.seed\" = { a = ").unwrap_err().to_string();
        assert_eq!(e, "s.toml:5: invalid TOML: unexpected end of file");
    }

    #[test]
    fn the_grid_names_and_configs() {
        let runs = plan_of(
            "\"run.seed\" = [1, 2]\n\"cc.kind\" = [\"dcqcn\", \"none\"]\n\"topology.hosts\" = [4]\n",
        )
        .unwrap();
        let names: Vec<&str> = runs.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(
            names,
            vec![
                "cc.kind=dcqcn,run.seed=1,topology.hosts=4",
                "cc.kind=dcqcn,run.seed=2,topology.hosts=4",
                "cc.kind=none,run.seed=1,topology.hosts=4",
                "cc.kind=none,run.seed=2,topology.hosts=4",
            ]
        );
        let r = &runs[1];
        assert_eq!(r.config.doc.run.seed, Some(2));
        assert_eq!(r.config.doc.cc.kind, Some(crate::config::CcKind::Dcqcn));
        // Comments and the lines of untouched keys are kept.
        let text = &r.config.text;
        assert!(text.contains("hosts = 4   # four hosts"), "{text}");
        assert_eq!(
            text.lines().position(|l| l.starts_with("kind = \"star\"")),
            Some(6)
        );
        assert!(r
            .config_toml
            .starts_with("# rdmasim sweep \"t\" (s.toml): base.toml with\n"));
        assert!(r.config_toml.contains("cc.kind = \"dcqcn\", run.seed = 2"));
    }

    #[test]
    fn any_key_array_elements_too() {
        let runs = plan_of("\"ecn.thresholds[0].kmin\" = [\"50KB\", \"200KB\"]\n").unwrap();
        assert_eq!(runs[0].name, "ecn.thresholds_0_.kmin=50KB");
        let t = runs[1].config.doc.ecn.thresholds.as_ref().unwrap();
        assert_eq!(t[0].kmin.as_deref(), Some("200KB"));
        let runs = plan_of("\"workload.senders\" = [[0, 1], [1, 2]]\n").unwrap();
        assert_eq!(runs[0].name, "workload.senders=_0__1_");
        assert_eq!(
            runs[1].config.doc.workload.as_ref().unwrap().senders,
            Some(vec![1, 2])
        );
        let runs = plan_of("\"cc.dcqcn.g\" = [0.5]\n\"cc.kind\" = [\"dcqcn\"]\n").unwrap();
        assert_eq!(runs[0].config.doc.cc.dcqcn.as_ref().unwrap().g, Some(0.5));
        // [set]: in every run, not in the names.
        let s =
            sweep_of("\"run.seed\" = [1, 2]\n[set]\n\"timeseries.interval\" = \"5us\"\n").unwrap();
        let runs = plan(&s).unwrap();
        assert_eq!(runs[1].name, "run.seed=2");
        let ts = runs[1].config.doc.timeseries.as_ref().unwrap();
        assert_eq!(ts.interval.as_deref(), Some("5us"));
        assert!(runs[1]
            .config_toml
            .contains("run.seed = 2, timeseries.interval = \"5us\""));
        let e = plan_of("\"run.seed\" = [1]\n[set]\n\"timeseries.intervall\" = \"5us\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("s.toml:7: set.\"timeseries.intervall\": unknown key"),
            "{e}"
        );
    }

    #[test]
    fn unknown_keys_and_bad_values_name_the_sweep_line() {
        let e = plan_of("\"run.seed\" = [1]\n\"workload.lod\" = [0.3]\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("s.toml:6: axes.\"workload.lod\": unknown key"),
            "{e}"
        );
        let e = plan_of("\"bogus.x\" = [1]\n").unwrap_err().to_string();
        assert!(
            e.starts_with("s.toml:5: axes.\"bogus.x\": unknown section"),
            "{e}"
        );
        let e = plan_of("\"topology.hosts\" = [4, 0]\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("s.toml:5: axes.\"topology.hosts\": value 0: "),
            "{e}"
        );
        let e = plan_of("\"cc.kind\" = [\"dcqcn\", \"fast\"]\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("axes.\"cc.kind\": value \"fast\" is not one this key takes"),
            "{e}"
        );
        let e = plan_of("\"run.seed.x\" = [1]\n").unwrap_err().to_string();
        assert!(
            e.starts_with("s.toml:5: axes.\"run.seed.x\": seed is not a table"),
            "{e}"
        );
        let e = plan_of("\"ecn.thresholds[3].kmin\" = [\"1KB\"]\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("thresholds[3] does not exist (the base config has 1)"),
            "{e}"
        );
        let e = plan_of("\"run.seed\" = [1, 1]\n").unwrap_err().to_string();
        assert!(e.contains("1 is listed twice"), "{e}");
        let e = plan_of("\"run.seed\" = 1\n").unwrap_err().to_string();
        assert!(e.contains("expected a list of values"), "{e}");
        let e = plan_of("\"a..b\" = [1]\n").unwrap_err().to_string();
        assert!(e.contains("not a dotted key path"), "{e}");
        let e = parse_sweep(
            "base = \"x.toml\"\nbogus = 1\n[axes]\n",
            "s.toml",
            Path::new("/nonexistent"),
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("s.toml:2: bogus: unknown key"), "{e}");

        // A sweep file as the base: named as such at the base line.
        let dir = std::env::temp_dir().join(format!("rdmasim-sweep-base-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("inner.toml"), "base = \"base.toml\"\n[axes]\n").unwrap();
        let e = parse_sweep(
            "name = \"t\"\nbase = \"inner.toml\"\n[axes]\n\"run.seed\" = [1]\n",
            "s.toml",
            &dir,
        )
        .unwrap_err()
        .to_string();
        fs::remove_dir_all(&dir).unwrap();
        assert!(
            e.starts_with("s.toml:2: base: ") && e.contains("is a sweep file"),
            "{e}"
        );
    }

    #[test]
    fn a_bad_value_of_a_valid_key_is_blamed_on_the_value() {
        let e = plan_of("\"cc.kind\" = [\"dcqcn\", \"dcqn\"]\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(
                "s.toml:5: axes.\"cc.kind\": value \"dcqn\" is not one this key takes; \
                 expected one of none, dcqcn,"
            ),
            "{e}"
        );
        assert!(!e.contains("not a config key"), "{e}");
        let e = plan_of("\"topology.rate\" = [\"10Gbps\", \"10Gbs\"]\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("s.toml:5: axes.\"topology.rate\": value \"10Gbs\": unknown rate unit"),
            "{e}"
        );
        assert!(!e.contains("not a config key"), "{e}");
        // [set] the same way.
        let e = plan(&sweep_of("\"run.seed\" = [1]\n[set]\n\"cc.kind\" = \"dcqn\"\n").unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("s.toml:7: set.\"cc.kind\": value \"dcqn\" is not one this key takes"),
            "{e}"
        );
        // A key of another topology kind: the key is wrong here, not the
        // value it was given.
        let e = plan_of("\"topology.host_rate\" = [\"10Gbps\"]\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("s.toml:5: axes.\"topology.host_rate\": not a key of kind = \"star\""),
            "{e}"
        );
        // A key that is no config key is still called one.
        let e = plan_of("\"workload.lod\" = [0.3]\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("s.toml:5: axes.\"workload.lod\": unknown key")
                && e.ends_with("(not a config key: `rdmasim config --defaults` lists them)"),
            "{e}"
        );
    }

    /// A bad `[timeseries]` key set by the sweep is its error at the
    /// setting's line when the sweep is planned, not a failed run whose
    /// message names a line of the generated config past the base's end.
    #[test]
    fn a_bad_timeseries_value_is_blamed_when_planned() {
        let e = plan(
            &sweep_of("\"run.seed\" = [1]\n[set]\n\"timeseries.interval\" = \"0us\"\n").unwrap(),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with(
                "s.toml:7: set.\"timeseries.interval\": value \"0us\": must be at least 1ns"
            ),
            "{e}"
        );
        let e = plan_of("\"timeseries.ports\" = [[{ node = 99, port = 0 }]]\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("s.toml:5: axes.\"timeseries.ports\": "),
            "{e}"
        );
    }

    #[test]
    fn variants_are_the_first_axis_and_set_their_keys() {
        // `sweep_of` puts these lines under [axes]; [variants.*] starts
        // its own tables.
        let runs = plan_of(
            "\"run.seed\" = [1, 2]\n\n[variants.lossy]\n\"pfc.enabled\" = false\n\
             \"cc.kind\" = \"none\"\n\n[variants.dcqcn]\n\"cc.kind\" = \"dcqcn\"\n",
        );
        let runs = runs.unwrap();
        let names: Vec<&str> = runs.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(
            names,
            vec![
                "variant=lossy,run.seed=1",
                "variant=lossy,run.seed=2",
                "variant=dcqcn,run.seed=1",
                "variant=dcqcn,run.seed=2",
            ]
        );
        assert_eq!(runs[0].config.doc.pfc.enabled, Some(false));
        assert_eq!(
            runs[0].config.doc.cc.kind,
            Some(crate::config::CcKind::None)
        );
        assert_eq!(runs[3].config.doc.pfc.enabled, None);
        assert_eq!(
            runs[3].config.doc.cc.kind,
            Some(crate::config::CcKind::Dcqcn)
        );
        let e = sweep_of("\"variant\" = [1]\n").unwrap_err().to_string();
        assert!(e.contains("axes.variant"), "{e}");
    }

    /// A key of a `[variants.<name>]` table that no config has, or a value
    /// it does not take, is the sweep file's error at the key's line in that
    /// table, naming the variant, as one of `[axes]` is: not the base
    /// config's, where the key may not even be written.
    #[test]
    fn a_bad_key_or_value_of_a_variant_is_blamed_on_its_table() {
        let e = plan_of("\"run.seed\" = [1]\n\n[variants.bad]\n\"cc.kond\" = 1\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("s.toml:8: variants.bad.\"cc.kond\": unknown key")
                && e.ends_with("(not a config key: `rdmasim config --defaults` lists them)"),
            "{e}"
        );
        // The second variant's value, at its line in that variant's table.
        let e = plan_of(
            "\"run.seed\" = [1]\n\n[variants.ok]\n\"cc.kind\" = \"none\"\n\n\
             [variants.typo]\n\"pfc.enabled\" = false\n\"cc.kind\" = \"dcqn\"\n",
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with(
                "s.toml:12: variants.typo.\"cc.kind\": value \"dcqn\" is not one this key takes"
            ),
            "{e}"
        );
        let e = plan_of("\"run.seed\" = [1]\n\n[variants.v]\n\"topology.hosts\" = 0\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("s.toml:8: variants.v.\"topology.hosts\": value 0: "),
            "{e}"
        );
        // An axis on the same key sets it after the variant: the axis is blamed.
        let e = plan_of("\"cc.kind\" = [\"dcqn\"]\n\n[variants.v]\n\"cc.kind\" = \"none\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("s.toml:5: axes.\"cc.kind\": value \"dcqn\""),
            "{e}"
        );
    }

    #[test]
    fn runs_already_done_count_with_the_warnings_their_summaries_record() {
        let w = |j: &str| summary_warnings(&serde_json::from_str(j).unwrap());
        assert_eq!(
            w(r#"{"flows": {"total": 10, "unfinished": 0}, "counters": {"lossless_drops": 0}}"#),
            Some(vec![])
        );
        assert_eq!(
            w(r#"{"flows": {"total": 0, "unfinished": 0}, "counters": {"lossless_drops": 0}}"#),
            Some(vec![
                "the workload has no flows, so nothing was simulated".to_string()
            ])
        );
        assert_eq!(
            w(r#"{"flows": {"total": 10, "unfinished": 3, "endless": 1},
                  "counters": {"lossless_drops": 1}}"#),
            Some(vec![
                "1 packet dropped at ports under hop-by-hop flow control (a lossless fabric)"
                    .to_string(),
                "3 of 9 flows did not finish".to_string()
            ])
        );
        // Without the numbers the outcome is unknown: the run is redone.
        assert_eq!(w(r#"{"flows": {"total": 10}}"#), None);

        let mut r = SweepReport {
            name: "t".into(),
            dir: PathBuf::from("runs/t"),
            runs: vec![
                (
                    "a".into(),
                    RunStatus::Skipped(vec!["3 of 9 flows did not finish".into()]),
                ),
                ("b".into(), RunStatus::Skipped(vec![])),
                ("c".into(), RunStatus::Clean),
            ],
            cleaned: vec![],
            wall_s: 0.0,
            comparisons: vec![],
            variant_runs: vec![],
            report: None,
        };
        assert_eq!(r.exit_code(), 1);
        assert!(
            describe(&r).starts_with(
                "t: 3 runs (1 ran, 2 already done, 1 with warnings, 1 of them already done) in "
            ),
            "{}",
            describe(&r)
        );
        r.runs[0].1 = RunStatus::Skipped(vec![]);
        assert_eq!(r.exit_code(), 0);
        assert!(describe(&r).starts_with("t: 3 runs (1 ran, 2 already done) in "));
        r.runs[2].1 = RunStatus::Invariants(vec!["x".into()]);
        assert_eq!(r.exit_code(), 1);
        assert!(describe(&r).starts_with("t: 3 runs (1 ran, 2 already done, 1 with warnings) in "));
    }

    #[test]
    fn names_are_sanitized_and_bounded() {
        assert_eq!(name_part("\"a b/c\""), "a_b_c");
        assert_eq!(name_part("0.3"), "0.3");
        let long: Vec<(String, String)> =
            vec![("k".into(), "x".repeat(300)), ("j".into(), "1".into())];
        let n = run_name(&long);
        assert_eq!(n.len(), MAX_NAME);
        assert_ne!(n, run_name(&[("k".into(), "x".repeat(301))]));
        assert_eq!(csv_field("a,b"), "\"a,b\"");
    }

    #[test]
    fn stale_temporary_directories_are_removed() {
        let dir = std::env::temp_dir().join(format!("rdmasim-sweep-stale-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        for d in ["a=1.tmp-123", "b=2.old-9", "c=3", "d.tmp-x"] {
            fs::create_dir_all(dir.join(d)).unwrap();
        }
        assert_eq!(clean_stale(&dir).unwrap(), vec!["a=1.tmp-123", "b=2.old-9"]);
        assert!(dir.join("c=3").exists() && dir.join("d.tmp-x").exists());
        fs::write(dir.join("index.csv.tmp-77"), "run\n").unwrap();
        assert_eq!(clean_stale(&dir).unwrap(), vec!["index.csv.tmp-77"]);
        // A lock left by a dead process is taken over and released; one
        // held by a live process (init) is refused.
        fs::write(dir.join(LOCK), "999999999\n").unwrap();
        let lock = Lock::take(&dir).unwrap();
        assert_eq!(Lock::holder(&dir), Some(std::process::id()));
        drop(lock);
        assert!(!dir.join(LOCK).exists());
        if alive(1) {
            fs::write(dir.join(LOCK), "1\n").unwrap();
            let e = Lock::take(&dir).err().unwrap().to_string();
            assert!(e.contains("another sweep (process 1) is running"), "{e}");
        }
        fs::remove_dir_all(&dir).unwrap();
    }
}
