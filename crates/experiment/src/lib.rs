//! Experiments: rdmasim's TOML config ([`config`]), the [`Scenario`] it
//! builds, and [`run_scenario`], which runs one and writes its run
//! directory (`flows.csv`, `summary.json`, `fct.txt`, ...).
//!
//! The `rdmasim` binary is a thin layer over this crate: it parses
//! arguments, calls [`config::load_config`], [`config::build_scenario`] and
//! [`run_scenario`], prints the [`RunReport`] and turns errors into exit
//! codes ([`ExperimentError::exit_code`]).
//!
//! One module per job, each importing only modules below it (the test
//! `tests/module_graph.rs` keeps it so): [`config`] (the TOML config, a
//! file per section), [`peer_config`] (the peer's `config.txt`),
//! [`convert`] (the peer's config as rdmasim's TOML),
//! [`scenario`], [`run`], [`summary`], [`messages`] and [`output`] (running
//! and writing a run), [`analyze`] (`rdmasim analyze`), [`sweep`] (sweeps and their
//! reports), [`bench`](mod@bench), [`buffer`] (the buffer calculator), [`compare`] (`rdmasim compare`); below them
//! [`fmt`] (every number format), `locate` (lines of TOML keys), `suggest`
//! (the key meant by a misspelt one), `error` and `procstat`. Modules name what they use by its own module, never by
//! this root's re-exports.
#![warn(missing_docs, missing_debug_implementations, unreachable_pub)]

pub mod analyze;
pub mod bench;
pub mod buffer;
pub mod compare;
pub mod config;
pub mod convert;
mod error;
pub mod fmt;
pub mod headroom_plan;
mod locate;
pub mod messages;
pub mod output;
pub mod peer_config;
mod procstat;
pub mod run;
pub mod scenario;
pub mod sonic;
pub mod sonic_check;
mod suggest;
pub mod summary;
pub mod sweep;
pub mod threads;

pub use config::{build_scenario, defaults_toml, load_config, parse_config, Config};
pub use error::ExperimentError;
pub use peer_config::{load_peer_config, run_peer_config, PeerConfig};
pub use run::{check_scenario, flow_records, run_scenario, CheckReport, RunReport};
pub use scenario::{PeerOutputs, RunOptions, Scenario};
pub use summary::{Counters, EngineStats, FlowCounts, Summary};
