//! What a sweep file says and what it makes: the parsed [`Sweep`], its
//! [`Axis`]es, and each [`PlannedRun`] ready to run. Plain data, shared by
//! the sweep's parsing, running and report.

use super::report_spec::ReportSpec;
use crate::config::Config;
use std::path::PathBuf;
use toml_edit::Value;

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
    pub report: Option<ReportSpec>,
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
    /// The notes of building its scenario ([`crate::scenario::Scenario::notes`]),
    /// often the same in every run (a flow file's unread lines): the sweep
    /// prints each once before its runs, not once a run.
    pub notes: Vec<String>,
}
