//! SONiC's shared-buffer model (Azure §6.2, App. A): ingress and egress
//! pools and profiles with dynamic and static thresholds, read from a
//! switch's config_db JSON. A second MMU beside [`crate::mmu`] (the
//! peer's), chosen per switch by [`crate::NetConfig::sonic`]
//! (docs/sonic-buffer.md, "In a run").
//!
//! [`config`] holds the pools, profiles and per-port class maps,
//! [`json`] reads them from SONiC's `BUFFER_POOL`, `BUFFER_PROFILE`,
//! `BUFFER_PG` and `BUFFER_QUEUE` tables, and [`model`] admits and
//! releases frames against them; [`setup`] says which switches of a run
//! use it and what the run reports, and `in_switch` is a switch's hop
//! through it.

pub mod config;
mod in_switch;
pub mod json;
pub mod model;
pub mod setup;

#[cfg(test)]
mod tests;

pub use config::{
    dt_fixed_point, dt_limit, Pool, PoolMode, PoolType, PortProfiles, Profile, SonicBufferConfig,
    Threshold,
};
pub use json::{parse, read};
pub use model::{Admitted, BufferEvent, DropSide, PgUsage, QueueUsage, SonicMmu};
