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
/// length). A packet carries the low 32 bits of its GN and the fields of
/// [`WqeWire`]; the receiver derives the rest.
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
}

/// What each data packet of a WQE carries, by value, besides its PSN
/// (`Packet::seq`): the low 32 bits of its GN (`Packet::ext`), its
/// opcode's place in the WQE (first, last: UC's FIRST/MIDDLE/LAST/ONLY),
/// and the SEND header's fields the receiver cannot derive (the SEND RN,
/// whether it resends, the QP, the hint). The rest of a [`WqeHeader`]
/// follows from the WQE's first byte and the flow's size (messages are
/// [`PfcFreeConfig::message_bytes`](super::PfcFreeConfig::message_bytes)
/// long, the last one shorter; a message longer than `send_max` goes by
/// WRITE). rdmasim keeps its packets small: these fields ride, packed by
/// [`WqeWire::pack`], in the data packet's `sent_at`, which only a
/// hardware ACK echoes and a PFC-free data packet never gets one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WqeWire {
    /// The low 32 bits of the WQE's GN.
    pub tag: u32,
    /// SEND RN (SEND and resent SEND).
    pub send_rn: u32,
    /// Which QP of the connection carries it.
    pub path: u8,
    /// A SEND that resends a lost WQE.
    pub retx: bool,
    /// The last WQE in the sender's window: ACK at once.
    pub hint: bool,
    /// The WQE's first packet.
    pub first: bool,
    /// The WQE's last packet.
    pub last: bool,
}

impl WqeWire {
    /// The fields besides the tag, in one word.
    pub fn pack(self) -> u64 {
        u64::from(self.send_rn)
            | u64::from(self.path) << 32
            | u64::from(self.retx) << 40
            | u64::from(self.hint) << 41
            | u64::from(self.first) << 42
            | u64::from(self.last) << 43
    }

    /// What [`WqeWire::pack`] packed, with the tag.
    pub fn unpack(tag: u32, word: u64) -> WqeWire {
        WqeWire {
            tag,
            send_rn: word as u32,
            path: (word >> 32) as u8,
            retx: word >> 40 & 1 == 1,
            hint: word >> 41 & 1 == 1,
            first: word >> 42 & 1 == 1,
            last: word >> 43 & 1 == 1,
        }
    }
}
