//! Statistics: per-flow records, slowdown buckets, percentiles, and the
//! writers for the CSV and the peer's FCT file.
#![warn(missing_docs, missing_debug_implementations, unreachable_pub)]

mod buckets;
mod record;

pub use buckets::{
    peer_buckets, percentile_sorted, size_buckets, BucketStats, PeerBucket, DEFAULT_SIZE_EDGES,
    MIN_PEER_STEP,
};
pub use record::{host_ip, write_flows_csv, write_peer_fct, FlowRecord, FLOWS_CSV_HEADER};
