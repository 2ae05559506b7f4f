//! A port: one end of a full-duplex link, with its egress queues, its
//! flow control, the frames on its wire and its counters. Data only: what
//! a port does is its device's (`switch.rs`, `nic.rs`, `device.rs`), its
//! link's (`link.rs`) and its egress's and flow control's (`egress/`,
//! `fc/`).

use crate::egress::{AnyEgress, EgressHead};
use crate::fc::AnyFc;
use crate::fifo::Fifo;
use crate::wire::{InFlight, Packet, N_CLASSES};
use engine::{Delta, Rate, Rng, Time};

// `fc`'s tag and `Pfc`'s first bytes (which it keeps at its start, at
// offset 8 of `AnyFc`) are in the port's first line.
const _: () = assert!(std::mem::offset_of!(Port, fc) + 8 + 4 <= 64);
const _: () = assert!(std::mem::offset_of!(Port, line2) == std::mem::offset_of!(Port, line1) + 64);

/// A zero-sized field of [`Port`] that starts a new cache line.
#[derive(Clone, Copy, Debug, Default)]
#[repr(align(64))]
pub struct CacheLine;

/// One end of a full-duplex link: an egress with its queues ([`AnyEgress`])
/// and the link direction that leaves it.
///
/// The fields are laid out by hand (`repr(C)`; each `lineN` marker starts
/// a new cache line) so that a frame's hop touches few cache lines of its
/// ports: line 0 holds what every enqueue, dequeue and transmission reads,
/// and what a frame's arrival at an ingress updates, and ends with the
/// start of flow control, whose hooks every frame calls at its ingress and
/// its egress (`AnyFc`'s tag and `Pfc`'s first bytes, which are all that
/// the hooks read; the rest of `fc` fills the lines after it); line 1 what
/// the link's delivery and a transmission read (the frames on the wire,
/// the error model, the peer, the delay, the rate); line 2 the control
/// queue and the counters every frame updates (`PortCounters` puts them
/// first); from line 3 the egress's queues, 32 bytes per class, of which
/// a hop touches only its own (the class scheduler's bitmask and
/// round-robin position are in line 0, `egress_head`); the rest after
/// them (docs/performance.md, "Second pass", "Seventh pass" and "The
/// architecture step").
#[derive(Debug)]
#[repr(C, align(64))]
pub(crate) struct Port {
    // First cache line.
    /// Bytes queued in the egress. Kept here, by the port, as frames go in
    /// and out: every hop reads it, and it is zero exactly when the egress
    /// holds nothing (every frame has a size).
    pub queue_bytes: u64,
    /// `PortCounters::peak_ingress`, kept here while the run goes: an
    /// ingress updates it on every frame and reads nothing else of its
    /// counters' line. [`Simulation::results`] puts it in the counters.
    pub peak_ingress: u64,
    /// A port's end of the current transmission when it was not
    /// scheduled (see `Port::transmit`); `Time::MAX` when it is scheduled
    /// or the port is idle. (Not an `Option`: 8 bytes less in this line.)
    pub unscheduled_end: Time,
    pub node: u32,
    pub local: u16,
    pub is_host: bool,
    pub busy: bool,
    /// False once its link was taken down (`LINK_DOWN`): it sends nothing.
    pub up: bool,
    /// Held by [`Simulation::hold_egress`]: sends nothing until released.
    pub held: bool,
    /// What observes the frames this port starts, a set of `TRACE_*`
    /// bits; 0 (the usual case) costs `Port::transmit` one test.
    pub trace: u8,
    /// What the port keeps of its egress here, where every hop reads it:
    /// its kind and the class scheduler's state (egress/mod.rs).
    pub egress_head: EgressHead,
    /// At a switch port, the index of its switch in `Simulation::switches`;
    /// at a host port, of its NIC in `Simulation::nics`, or `u16::MAX` if
    /// that does not fit (see [`Simulation::port_nic`]). A hop and the
    /// NIC's send path read it here, in the line they read anyway, instead
    /// of through `node_switch` or `node_nic`.
    pub owner: u16,
    /// Starts at byte 40: its tag and `Pfc`'s flags are in this line.
    pub fc: AnyFc,
    pub line1: CacheLine,
    /// Frames on the wire: (arrival time at the peer, frame).
    pub flight: Fifo<InFlight>,
    /// Frames sent from this port are corrupted on arrival with this probability.
    pub error_rate: f64,
    /// The port at the other end of the link.
    pub peer: u32,
    /// `rate.ps_per_byte()`, 0 if none: `transmit` multiplies by it
    /// instead of dividing by the rate (the same time, exactly).
    pub ps_per_byte: u32,
    pub delay: Delta,
    pub rate: Rate,
    pub line2: CacheLine,
    /// Control frames: strict priority, never paused.
    pub ctrl: Fifo<Packet>,
    pub c: PortCounters,
    pub line3: CacheLine,
    /// The egress queues (switch ports; a host's NIC schedules its own).
    pub egress: AnyEgress,
    pub fc_version: u32,
    pub rng: Rng,
    /// HPCC-PINT's utilisation estimate of this egress (switch ports).
    pub pint: crate::cc::PintPort,
}

/// [`Port::trace`]: its node is traced ([`Simulation::trace_tx`]): log
/// what it sends.
pub(crate) const TRACE_LOG: u8 = 1;
/// [`Port::trace`]: the packet capture records what this port sends, or
/// what its peer receives (`capture/`).
pub(crate) const TRACE_CAPTURE: u8 = 2;

/// One frame that started transmission at a traced node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxLogEntry {
    /// Start of transmission.
    pub time: Time,
    /// Node.
    pub node: u32,
    /// Local port.
    pub port: u16,
    /// Frame kind.
    pub kind: crate::wire::PacketKind,
    /// Flow (data, ACK) or `u32::MAX`.
    pub flow: u32,
    /// Sequence (data, ACK).
    pub seq: u64,
}

/// Counters of one port. (`repr(C)`: the ones every frame updates first,
/// next to the port's control queue; see [`Port`].)
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct PortCounters {
    /// Bytes sent (all frames).
    pub tx_bytes: u64,
    /// Data frames sent (a host's, retransmissions included).
    pub tx_data: u64,
    /// Highest egress queue occupancy in bytes.
    pub peak_queue: u64,
    /// Highest number of bytes held for this ingress in one class (switch
    /// ports): what its buffer had to hold. (While running, in
    /// `Port::peak_ingress`.)
    pub peak_ingress: u64,
    /// Data frames ECN-marked at this egress.
    pub ecn_marks: u64,
    /// Frames lost to the link error model on arrival through this port.
    pub corrupted: u64,
    /// Frames dropped at this switch ingress because no route led to their
    /// destination (after a link failure).
    pub unroutable: u64,
    /// Frames dropped at admission into this switch through this ingress port, per class.
    pub drops: [u64; N_CLASSES],
    /// Frames dropped from this egress's queues when flow control flushed
    /// them ([`FcOutbox::flush`]).
    pub flushed: u64,
    /// Frames a SONiC buffer ([`crate::NetConfig::sonic`]) refused at
    /// this egress's queue (also in `drops` of the port they came in by);
    /// 0 under the peer's MMU, which has no egress check.
    pub egress_drops: u64,
}
