//! What a PFC-free WQE's packets and a software ACK carry: data only.

use engine::Delta;

/// The verb of a WQE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verb {
    /// A SEND of a small message (its chunk).
    Send,
    /// A WRITE_WITH_IMM chunk of a large message.
    Write,
    /// A SEND that resends a lost WQE.
    RetxSend,
}

/// What a WQE's packets tell the receiver: their opcodes and PSNs (a
/// packet is the first of its WQE when `seq == start`), the WRITE's
/// imm_data (hint, message id, chunk offset) or the SEND header (GN, SEND
/// RN, the original WRITE RN of a resent WRITE piece, the message's
/// length). A packet carries the low 32 bits of its GN; the receiver
/// reads the rest from the sender's record (rdmasim keeps headers out of
/// its small packets).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WqeHeader {
    /// Global sequence number.
    pub gn: u64,
    /// Its verb.
    pub verb: Verb,
    /// Message id.
    pub mid: u32,
    /// The message's first byte in the flow.
    pub msg_start: u64,
    /// The message's length (known to a WRITE from the rendezvous).
    pub msg_len: u64,
    /// The WQE's first byte in the flow.
    pub start: u64,
    /// Its length.
    pub len: u64,
    /// SEND RN (SEND and resent SEND).
    pub send_rn: u32,
    /// A WRITE's chunk offset, in units from the message start; a resent
    /// piece of a WRITE carries its own.
    pub write_off: Option<u32>,
    /// Which QP of the connection carries it (0 primary, then backups).
    pub path: u8,
    /// The last WQE in the sender's window: ACK at once.
    pub hint: bool,
    /// RC: the WQE's first byte in its QP's sequence (the PSN of its first
    /// packet, in bytes; the QP's incarnation in the high bits, `rc.rs`).
    /// 0 with UC.
    pub psn: u64,
}

/// One acknowledged number: a WRITE by its RN, a SEND by its GN (Bifröst
/// App. A.1.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckEntry {
    /// A SEND's (or a resending SEND's) GN.
    Send(u64),
    /// A WRITE's RN: message id and chunk offset.
    Write {
        /// Message id.
        mid: u32,
        /// Chunk offset in units.
        off: u32,
    },
}

/// The contents of a software ACK: the numbers, and the reference WQE's
/// time at the receiver (T3′ − T2) for the RTT of eq. 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AckBody {
    /// The acknowledged numbers, in arrival order; the last is the
    /// reference WQE.
    pub entries: Vec<AckEntry>,
    /// T3′ − T2 of the reference WQE.
    pub residence: Delta,
    /// RC: the NIC's ACK or NAK this frame is (no software numbers then).
    pub hw: Option<super::rc::HwAck>,
}
