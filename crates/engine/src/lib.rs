//! rdmasim's discrete-event core.
//!
//! This crate knows nothing about networks. It provides integer picosecond
//! [`Time`], physical units with parsers for written-out strings ([`units`]),
//! a deterministic [`EventQueue`] whose ties pop in the events' own order, per-entity
//! random streams ([`Rng`]), the [`InputError`] every loader returns, and the
//! bounded reader of input files ([`input`]).
#![warn(missing_docs, missing_debug_implementations, unreachable_pub)]

mod error;
pub mod input;
mod queue;
mod rng;
mod time;
pub mod units;

pub use error::InputError;
pub use queue::EventQueue;
pub use rng::Rng;
pub use time::{Delta, Time};
pub use units::Rate;
