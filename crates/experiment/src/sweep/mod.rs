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
//!
//! On a cluster, `rdmasim sweep FILE --emit slurm` writes a Slurm job
//! array whose task *i* runs run *i* alone (`--only i`) into the same
//! directory ([`slurm`]).
//!
//! Modules: `plan` (what a sweep file says and the runs it makes),
//! `parse` (reading it and planning the runs), `run` (running them and
//! writing `index.csv`), [`report_spec`] (`[report]`) and [`report`]
//! (`report.csv` and `report.md`).

mod parse;
mod plan;
pub mod report;
pub mod report_spec;
mod run;
pub mod slurm;
#[cfg(test)]
mod tests;

pub use parse::{load_sweep, parse_sweep, plan};
pub use plan::{Axis, PlannedRun, Sweep};
pub use report::{axis_figures, AxisFigure, Comparison, RunNumbers};
pub use report_spec::{GroupOf, Metric, PaperRow, ReportSpec};
pub use run::{describe, run_sweep, RunStatus, SweepOptions, SweepReport, SWEEP_FILES};
