//! The one enum of events: dense ids only, so that an event is small and
//! `Copy`, and the engine's `match` (sim.rs) hands it to the device it
//! concerns.

/// Everything that can happen. Dense ids only; `Copy`; at most 16 bytes.
///
/// The order of events (`Ord`, derived) breaks ties in the event queue:
/// events at the same picosecond pop in the order of the variants below,
/// then of their fields (port, NIC, QP, flow, version). It depends only
/// on the event, never on which device or partition pushed it or when,
/// so that a network cut into partitions runs its ties in the order one
/// queue would (`docs/parallel.md`, "The tie key"). Flows start first, so
/// that what their sources do at that time sees them; the samplers come
/// last, so that a sample at a time sees everything that happened at it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Event {
    /// Flow `flow`, the next in start order, begins.
    FlowArrive { flow: u32 },
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
