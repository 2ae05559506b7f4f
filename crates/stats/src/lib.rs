//! Statistics: slowdown buckets, percentiles, counters.
#![warn(missing_docs, missing_debug_implementations, unreachable_pub)]
