//! `[engine]`: how many threads one run uses, and how its network is cut
//! into partitions for them (`docs/parallel.md`).
//!
//! ```toml
//! [engine]
//! threads = 2                    # default: the machine's cores, capped
//!                                # by the partitions the network allows
//! partitions = [[0, 1, 4], [2, 3, 5]]  # optional: the nodes of each
//! long_link_factor = 10          # a link this many times the shortest is cut first
//! ```
//!
//! Every thread count gives the same outputs, byte for byte; only the
//! engine's timing in `summary.json` differs.

use super::ctx::{Ctx, R};
use crate::threads::{EngineSpec, KeysFrom};
use serde::Deserialize;

/// `[engine]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineSection {
    /// Threads, one partition each; default: the machine's cores, capped
    /// by the partitions the network can be cut into.
    pub threads: Option<u32>,
    /// The nodes of each partition (every node in exactly one); default:
    /// cut automatically.
    pub partitions: Option<Vec<Vec<u32>>>,
    /// A link whose delay is at least this multiple of the shortest is a
    /// long link, cut first; default [`net::partition::LONG_LINK_FACTOR`].
    pub long_link_factor: Option<u64>,
}

/// The engine settings of an `[engine]` section (`None`: all defaults).
pub(super) fn engine(cx: &Ctx<'_>, e: Option<&EngineSection>) -> R<EngineSpec> {
    let Some(e) = e else {
        return Ok(EngineSpec::default());
    };
    Ok(EngineSpec {
        threads: e.threads,
        partitions: e.partitions.clone(),
        long_link_factor: e
            .long_link_factor
            .unwrap_or(net::partition::LONG_LINK_FACTOR),
        from: KeysFrom::Config {
            file: cx.file.to_string(),
            text: cx.text.to_string(),
        },
        cli_threads: false,
    })
}
