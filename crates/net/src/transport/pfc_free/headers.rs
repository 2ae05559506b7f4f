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
    pub hw: Option<HwAck>,
}

/// What each data packet of a WQE carries, by value, besides its PSN
/// (`Packet::seq`): the low 32 bits of its GN (`Packet::ext`), its
/// opcode's place in the WQE (first, last: UC's FIRST/MIDDLE/LAST/ONLY),
/// and the SEND header's fields the receiver cannot derive (the SEND RN,
/// whether it resends, the QP, the hint); RC mode's packets carry their
/// QP's PSN instead of the SEND RN ([`PsnWire`]). The rest of a
/// [`WqeHeader`] follows from the WQE's first byte and the flow's size
/// (messages are
/// [`PfcFreeConfig::message_bytes`](super::PfcFreeConfig::message_bytes)
/// long, the last one shorter; a message longer than `send_max` goes by
/// WRITE). rdmasim keeps its packets small: these fields ride, packed by
/// [`WqeWire::pack`], in the data packet's `sent_at`, which only a
/// hardware ACK echoes and a PFC-free data packet never gets one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WqeWire {
    /// The low 32 bits of the WQE's GN.
    pub tag: u32,
    /// SEND RN (SEND and resent SEND); 0 in RC mode, whose receiver builds
    /// no software ACK and so reads none.
    pub send_rn: u32,
    /// RC: the packet's PSN, in the bits UC's SEND RN takes; `None` with
    /// UC.
    pub psn: Option<PsnWire>,
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

/// What an RC data packet carries of its PSN (`rc.rs`: the packet's first
/// byte in its QP's sequence, the QP's incarnation in the 16 bits above
/// `INCARNATION_SHIFT`): the low 32 bits of the byte and the incarnation.
/// The receiving QP reads the byte as the one nearest its expected byte
/// (`RcRx::psn_of`), as a RoCE NIC reads its 24-bit PSN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PsnWire {
    /// The low 32 bits of the packet's byte in its QP's incarnation.
    pub low: u32,
    /// The QP's incarnation.
    pub inc: u16,
}

/// The RC flag's bit in a packed word.
const RC_BIT: u32 = 44;

impl WqeWire {
    /// The fields besides the tag, in one word: the SEND RN (UC) or the
    /// PSN's low 32 bits (RC) in bits 0–31, the QP in 32–39, the flags in
    /// 40–43; RC sets bit 44 and puts the incarnation in 45–60.
    pub fn pack(self) -> u64 {
        let (num, rc) = match self.psn {
            None => (self.send_rn, 0),
            Some(p) => (p.low, 1 << RC_BIT | u64::from(p.inc) << (RC_BIT + 1)),
        };
        u64::from(num)
            | u64::from(self.path) << 32
            | u64::from(self.retx) << 40
            | u64::from(self.hint) << 41
            | u64::from(self.first) << 42
            | u64::from(self.last) << 43
            | rc
    }

    /// What [`WqeWire::pack`] packed, with the tag.
    pub fn unpack(tag: u32, word: u64) -> WqeWire {
        let rc = word >> RC_BIT & 1 == 1;
        WqeWire {
            tag,
            send_rn: if rc { 0 } else { word as u32 },
            psn: rc.then_some(PsnWire {
                low: word as u32,
                inc: (word >> (RC_BIT + 1)) as u16,
            }),
            path: (word >> 32) as u8,
            retx: word >> 40 & 1 == 1,
            hint: word >> 41 & 1 == 1,
            first: word >> 42 & 1 == 1,
            last: word >> 43 & 1 == 1,
        }
    }
}

/// What an RC receiver's ACK or NAK tells the sender's NIC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HwAck {
    /// The QP (0 primary, then backups).
    pub path: u8,
    /// Every byte of the QP below this arrived (its expected PSN).
    pub psn: u64,
    /// A NAK (sequence error): a packet after `psn` arrived first.
    pub nak: bool,
}
