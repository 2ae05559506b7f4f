//! Experiments: rdmasim's TOML config ([`config`]), the [`Scenario`] it
//! builds, and [`run_scenario`], which runs one and writes its run
//! directory (`flows.csv`, `summary.json`, `fct.txt`, ...).
//!
//! The `rdmasim` binary is a thin layer over this crate: it parses
//! arguments, calls [`config::load_config`], [`config::build_scenario`] and
//! [`run_scenario`], prints the [`RunReport`] and turns errors into exit
//! codes ([`ExperimentError::exit_code`]).
#![warn(missing_docs, missing_debug_implementations, unreachable_pub)]

pub mod analyze;
pub mod bench;
pub mod buffer;
pub mod config;
mod error;
pub mod fmt;
mod locate;
pub mod output;
pub mod peer_config;
mod procstat;
pub mod run;
pub mod scenario;
pub mod summary;
pub mod sweep;

pub use config::{build_scenario, defaults_toml, load_config, parse_config, Config};
pub use error::ExperimentError;
pub use peer_config::{load_peer_config, run_peer_config, PeerConfig};
pub use run::{flow_records, run_scenario, RunReport};
pub use scenario::{PeerOutputs, RunOptions, Scenario};
pub use summary::{Counters, EngineStats, FlowCounts, Summary};
