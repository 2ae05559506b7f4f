//! The one enum of events: dense ids only, so that an event is small and
//! `Copy`, and the engine's `match` (sim.rs) hands it to the device it
//! concerns.

/// Everything that can happen. Dense ids only; `Copy`; at most 16 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Event {
    /// The next flow in start order begins.
    FlowArrive,
    /// The head of `port`'s link FIFO reaches the far end.
    LinkDeliver { port: u32 },
    /// `port` finished serialising its current frame.
    TxDone { port: u32 },
    /// A NIC's pacing: some QP may have become eligible.
    NicWake { nic: u32 },
    /// A congestion-control timer of a QP.
    QpTimer { qp: u32, slot: u8, version: u32 },
    /// The ACK-coalescing timer of a flow's software receiver (at the
    /// flow's destination).
    RxTimer { flow: u32, version: u32 },
    /// A flow-control timer of a port.
    FcTimer { port: u32, version: u32 },
    /// The `k`-th configured link failure happens.
    LinkDown { k: u32 },
    /// The queue-length monitor writes its histograms.
    QlenDump,
    /// A time-series sample (monitor.rs).
    Monitor,
}

const _: () = assert!(std::mem::size_of::<Event>() <= 16);
