//! What travels on a link: data only, no behaviour.
//!
//! Frame sizes follow the peer's header model (HPCC sim's `CustomHeader`
//! and `RdmaHw::ReceiveUdp`) by default: 48 B of headers on every data
//! packet (PPP 14 + IPv4 20 + UDP 8 plus SeqTs 6), ACK/NACK frames padded to
//! 60 B, no preamble or inter-frame gap. PFC frames are 64 B, the Ethernet
//! minimum (IEEE 802.1Qbb).

use engine::Time;

/// Data-packet header bytes in the peer's model (HPCC sim `third.cc`
/// `qp_finish`: `CustomHeader` less `IntHeader`), without INT.
pub const PEER_DATA_HEADER_BYTES: u32 = 48;
/// ACK/NACK frame bytes in the peer's model (HPCC sim
/// `RdmaHw::ReceiveUdp` pads to 60 B), without INT.
pub const PEER_ACK_BYTES: u32 = 60;
/// A PFC pause frame: the minimum Ethernet frame (IEEE 802.1Qbb).
pub const PFC_FRAME_BYTES: u32 = 64;
/// A CBFC credit update: one minimum Ethernet frame, like a pause frame.
/// (InfiniBand's flow-control packet is 8 B; rdmasim's links carry
/// Ethernet framing, so the update costs what a PFC frame costs and goes
/// at high priority like one: rdmasim's choice, as Bifrost §VI-B leaves
/// CBFC-ideal's update open.)
pub const CREDIT_FRAME_BYTES: u32 = 64;
/// A per-flow PAUSE or RESUME frame: one minimum Ethernet frame, like a
/// pause frame (FlowSail §IV-C gives these frames their own Ethernet type
/// but not their size; 64 B is rdmasim's choice).
pub const FLOW_PAUSE_FRAME_BYTES: u32 = 64;
/// Number of priority classes per port (IEEE 802.1Q).
pub const N_CLASSES: usize = 8;

/// Which queue of a port a frame belongs to, or a hook speaks of: a
/// priority class, or one flow within a class. Class-based schemes (PFC,
/// CBFC, Bifrost) read [`QueueKey::class`] alone; per-flow schemes also
/// read [`QueueKey::flow`]. (A struct rather than an enum: the class is
/// read on every hop, and a field read costs no branch.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct QueueKey {
    class: u8,
    /// The flow id, or [`QueueKey::WHOLE_CLASS`].
    flow: u32,
}

impl QueueKey {
    /// `flow` of a key that names a whole class.
    const WHOLE_CLASS: u32 = u32::MAX;

    /// Every frame of priority class `class`.
    #[inline(always)]
    pub const fn of_class(class: u8) -> QueueKey {
        QueueKey {
            class,
            flow: Self::WHOLE_CLASS,
        }
    }

    /// The frames of flow `flow` (its id, [`Packet::flow`]) in `class`.
    #[inline(always)]
    pub const fn of_flow(class: u8, flow: u32) -> QueueKey {
        QueueKey { class, flow }
    }

    /// The frame's own key, naming its flow (what ingress hooks get: a
    /// class-based scheme reads the class, a per-flow one the flow too).
    #[inline(always)]
    pub fn of(pkt: &Packet) -> QueueKey {
        QueueKey::of_flow(pkt.class, pkt.flow)
    }

    /// The priority class.
    #[inline(always)]
    pub fn class(self) -> usize {
        usize::from(self.class)
    }

    /// The flow, if the key names one.
    #[inline(always)]
    pub fn flow(self) -> Option<u32> {
        (self.flow != Self::WHOLE_CLASS).then_some(self.flow)
    }
}

/// Maximum INT hops a packet carries (HPCC sim's `IntHeader::maxHop`).
pub const MAX_INT_HOPS: usize = 5;

/// "No INT stack" in [`Packet::int`].
pub const NO_INT: u32 = u32::MAX;

/// One switch egress's in-band telemetry record, stamped at dequeue (HPCC,
/// as HPCC sim's `SwitchNode::SwitchNotifyDequeue`). rdmasim keeps exact
/// values; the peer quantises them (24-bit ns timestamp, 128 B units of tx
/// bytes, 80 B units of queue length) and unwraps the differences.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IntHop {
    /// Dequeue time, ns.
    pub ts_ns: u64,
    /// Bytes the port had sent before this packet.
    pub tx_bytes: u64,
    /// Bytes queued at the port, all classes, after this packet left.
    pub qlen: u64,
    /// Port line rate.
    pub rate_bps: u64,
}

/// What a frame is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketKind {
    /// RDMA payload from a QP.
    Data,
    /// Cumulative acknowledgement (`seq` = next expected byte).
    Ack,
    /// Negative acknowledgement: a gap was seen; `seq` = next expected byte
    /// (IRN: and `sack` = the out-of-order packet received).
    Nack,
    /// A software ACK of the PFC-free transport, sent by the receiving
    /// host's software on a high-priority UD QP: `seq` is its serial
    /// number, by which the sender reads its body (the numbers it
    /// acknowledges: `transport/pfc_free/`).
    SoftAck,
    /// A PFC frame for one class (`pfc_class`, `pfc_quanta`; 0 quanta = resume).
    Pfc,
    /// A CBFC credit update for one class (`pfc_class`): `seq` carries the
    /// FCCL, already reduced modulo 2^field bits where the field is limited.
    Credit,
    /// A per-flow PAUSE (`seq` 1) or RESUME (`seq` 0) naming one flow
    /// (`flow`, in class `pfc_class`): an ideal per-flow flow control's
    /// frame (FlowSail §IV-C). A kind of its own rather than a PFC
    /// frame with a flow in it: a PFC port that got one would read it as a
    /// pause of the whole class, where every other scheme now ignores it.
    FlowPause,
}

impl PacketKind {
    /// Whether this is a control frame (PFC, credits, per-flow pause):
    /// sent in strict priority from the port's control queue, never paused,
    /// never routed or admitted to the MMU, handed to the receiving port's
    /// flow control. Every control kind is listed here and only here, so
    /// the devices need no change for a new one. (The data kinds come
    /// first in the enum: this is one compare.)
    #[inline(always)]
    pub fn is_control(self) -> bool {
        matches!(
            self,
            PacketKind::Pfc | PacketKind::Credit | PacketKind::FlowPause
        )
    }
}

/// One frame. Small and `Copy`: packets live in the FIFOs of the ports and
/// links that hold them, never on the heap one by one.
#[derive(Clone, Copy, Debug)]
pub struct Packet {
    /// What this frame is.
    pub kind: PacketKind,
    /// Priority class it travels in.
    pub class: u8,
    /// ECN Congestion Experienced, set by a switch at dequeue.
    pub ecn_ce: bool,
    /// On an ACK/NACK: the data packet that caused it was marked (the peer's
    /// CNP flag, `RdmaHw::ReceiveUdp`).
    pub cnp: bool,
    /// Ingress port index at the switch currently holding it.
    pub ingress: u16,
    /// Frame bytes on the wire.
    pub size: u32,
    /// Data: payload bytes. ACK/NACK: the low 32 bits of the IRN SACK
    /// offset ([`Packet::sack`]). PFC/credit frames: 0.
    pub payload: u32,
    /// Flow (= QP) this frame belongs to; on a per-flow pause frame, the
    /// flow it pauses or resumes.
    pub flow: u32,
    /// Handle of this packet's INT stack in the simulation's side table
    /// (its index, and the hops recorded in its low bits: `int_pool.rs`),
    /// or [`NO_INT`]. INT lives outside the packet so packets stay small
    /// when it is off (rdmasim's choice).
    pub int: u32,
    /// HPCC-PINT's encoded path utilisation (0 = none); ACKs echo it.
    pub pint: u16,
    /// Data: byte offset of the payload. ACK/NACK: next expected byte.
    /// PFC frame: the pause time in quanta ([`Packet::pfc_quanta`]).
    /// Credit frame: the FCCL. Per-flow pause frame: 1 pause, 0 resume.
    pub seq: u64,
    /// ACK/NACK: the high 32 bits of the IRN SACK offset
    /// ([`Packet::sack`]). PFC/credit/per-flow pause frame: the class it
    /// pauses, resumes or credits ([`Packet::pfc_class`]). Data: 0.
    pub ext: u32,
    /// Source node (for an ACK: the data receiver).
    pub src: u32,
    /// Destination node.
    pub dst: u32,
    /// Transport ports, used by the ECMP hash (swapped on ACKs).
    pub sport: u16,
    /// Destination transport port.
    pub dport: u16,
    /// When the data packet left its sender (echoed in ACKs for RTT samples).
    /// A PFC-free data packet, which no hardware ACK echoes, carries its
    /// WQE's fields here instead (`transport::pfc_free::WqeWire`).
    pub sent_at: Time,
}

/// At most 56 bytes, so that a link-FIFO entry `(Time, Packet)` is 64 bytes
/// and, aligned ([`InFlight`]), fills exactly one cache line
/// (docs/performance.md, "Third pass").
const _: () = assert!(std::mem::size_of::<Packet>() <= 56);

/// A link-FIFO entry: a frame and the time it arrives at the far end,
/// aligned to a 64-byte cache line, which it fills.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub struct InFlight {
    /// When the frame arrives at the far end.
    pub arrive: Time,
    /// The frame.
    pub pkt: Packet,
}

const _: () = assert!(std::mem::size_of::<InFlight>() == 64);

impl Packet {
    /// A PFC frame for `class` with `quanta` (0 = resume).
    pub fn pfc(class: u8, quanta: u16) -> Packet {
        Packet {
            kind: PacketKind::Pfc,
            class: 0,
            ecn_ce: false,
            cnp: false,
            ingress: 0,
            size: PFC_FRAME_BYTES,
            payload: 0,
            flow: u32::MAX,
            int: NO_INT,
            pint: 0,
            seq: u64::from(quanta),
            ext: u32::from(class),
            src: u32::MAX,
            dst: u32::MAX,
            sport: 0,
            dport: 0,
            sent_at: Time::ZERO,
        }
    }

    /// A CBFC credit update for `class` carrying `fccl` (IBTA; Bifrost
    /// §II-B).
    pub fn credit(class: u8, fccl: u64) -> Packet {
        Packet {
            kind: PacketKind::Credit,
            size: CREDIT_FRAME_BYTES,
            seq: fccl,
            ..Packet::pfc(class, 0)
        }
    }

    /// A per-flow PAUSE (`pause`) or RESUME of flow `flow` in `class`
    /// (FlowSail §IV-C: PAUSE(FID) and RESUME(FID)).
    pub fn flow_pause(class: u8, flow: u32, pause: bool) -> Packet {
        Packet {
            kind: PacketKind::FlowPause,
            size: FLOW_PAUSE_FRAME_BYTES,
            flow,
            seq: u64::from(pause),
            ..Packet::pfc(class, 0)
        }
    }

    /// Per-flow pause frame: whether it pauses (else it resumes) its flow.
    #[inline]
    pub fn pauses_flow(&self) -> bool {
        self.seq != 0
    }

    /// PFC, credit or per-flow pause frame: the class it pauses, resumes
    /// or credits.
    #[inline]
    pub fn pfc_class(&self) -> u8 {
        self.ext as u8
    }

    /// PFC frame: the pause time in quanta of 512 bit-times; 0 = resume.
    #[inline]
    pub fn pfc_quanta(&self) -> u16 {
        self.seq as u16
    }

    /// ACK/NACK: the IRN selective acknowledgement, the byte offset of the
    /// out-of-order data packet that triggered a NACK (IRN; Swing §4.2);
    /// 0 otherwise.
    #[inline]
    pub fn sack(&self) -> u64 {
        (u64::from(self.ext) << 32) | u64::from(self.payload)
    }

    /// The `(payload, ext)` fields of an ACK/NACK carrying `sack`
    /// ([`Packet::sack`]).
    #[inline]
    pub fn sack_fields(sack: u64) -> (u32, u32) {
        (sack as u32, (sack >> 32) as u32)
    }
}
