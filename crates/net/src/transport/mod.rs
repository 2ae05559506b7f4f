//! Reliability: how a QP recovers lost packets.
//!
//! Go-back-N RoCEv2 RC as the peer (§2.2), the default, and IRN's selective
//! repeat for lossy fabrics ([`irn`]). Bifröst's chunked UC retransmission
//! plugs in here as a further variant.

pub mod go_back_n;
pub mod irn;

pub use go_back_n::{GbnReceiver, RxVerdict};
pub use irn::{IrnReceiver, IrnRxVerdict, IrnSender};

/// Receive state of one QP, per [`crate::config::Transport`].
#[derive(Clone, Debug)]
pub enum Receiver {
    /// Go-back-N.
    GoBackN(GbnReceiver),
    /// IRN.
    Irn(IrnReceiver),
}

impl Receiver {
    /// The cumulative acknowledgement: every byte below has arrived.
    pub fn expected(&self) -> u64 {
        match self {
            Receiver::GoBackN(r) => r.expected,
            Receiver::Irn(r) => r.expected,
        }
    }
}
