//! What travels on a link: data only, no behaviour.
//!
//! Frame sizes follow the peer's header model (`specs/peer-hpcc-ns3.md` §2.1)
//! by default: 48 B of headers on every data packet (PPP 14 + IPv4 20 + UDP 8
//! plus SeqTs 6), ACK/NACK frames padded to 60 B, no preamble or inter-frame
//! gap. PFC frames are 64 B, the Ethernet minimum (IEEE 802.1Qbb).

use engine::Time;

/// Data-packet header bytes in the peer's model (§2.1), without INT.
pub const PEER_DATA_HEADER_BYTES: u32 = 48;
/// ACK/NACK frame bytes in the peer's model (§2.1), without INT.
pub const PEER_ACK_BYTES: u32 = 60;
/// A PFC pause frame: the minimum Ethernet frame (IEEE 802.1Qbb).
pub const PFC_FRAME_BYTES: u32 = 64;
/// Number of priority classes per port (IEEE 802.1Q).
pub const N_CLASSES: usize = 8;

/// What a frame is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketKind {
    /// RDMA payload from a QP.
    Data,
    /// Cumulative acknowledgement (`seq` = next expected byte).
    Ack,
    /// Negative acknowledgement: a gap was seen; `seq` = next expected byte.
    Nack,
    /// A PFC frame for one class (`pfc_class`, `pfc_quanta`; 0 quanta = resume).
    Pfc,
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
    /// CNP flag, §2.2).
    pub cnp: bool,
    /// Ingress port index at the switch currently holding it.
    pub ingress: u16,
    /// PFC class this frame pauses or resumes.
    pub pfc_class: u8,
    /// PFC pause time in quanta of 512 bit-times; 0 = resume.
    pub pfc_quanta: u16,
    /// Frame bytes on the wire.
    pub size: u32,
    /// Payload bytes (data only).
    pub payload: u32,
    /// Flow (= QP) this frame belongs to.
    pub flow: u32,
    /// Data: byte offset of the payload. ACK/NACK: next expected byte.
    pub seq: u64,
    /// Source node (for an ACK: the data receiver).
    pub src: u32,
    /// Destination node.
    pub dst: u32,
    /// Transport ports, used by the ECMP hash (swapped on ACKs).
    pub sport: u16,
    /// Destination transport port.
    pub dport: u16,
    /// When the data packet left its sender (echoed in ACKs for RTT samples).
    pub sent_at: Time,
}

const _: () = assert!(std::mem::size_of::<Packet>() <= 64);

impl Packet {
    /// A PFC frame for `class` with `quanta` (0 = resume).
    pub fn pfc(class: u8, quanta: u16) -> Packet {
        Packet {
            kind: PacketKind::Pfc,
            class: 0,
            ecn_ce: false,
            cnp: false,
            ingress: 0,
            pfc_class: class,
            pfc_quanta: quanta,
            size: PFC_FRAME_BYTES,
            payload: 0,
            flow: u32::MAX,
            seq: 0,
            src: u32::MAX,
            dst: u32::MAX,
            sport: 0,
            dport: 0,
            sent_at: Time::ZERO,
        }
    }
}
