//! Reliability: how a QP recovers lost packets.
//!
//! Today: go-back-N RoCEv2 RC as the peer (§2.2). Selective repeat (IRN) and
//! Bifröst's chunked UC retransmission plug in here as further variants.

pub mod go_back_n;

pub use go_back_n::{GbnReceiver, RxVerdict};
