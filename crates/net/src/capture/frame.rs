//! The bytes of a captured frame: the RoCEv2 headers a data, ACK or NAK
//! frame stands for, the CNP its congestion flag stands for, the MAC
//! control frame of PFC, and rdmasim's own encoding of credit and
//! per-flow pause frames. The mapping is documented in `docs/capture.md`;
//! [`decode`] reads it back.
//!
//! rdmasim frames carry no payload bytes: payloads, the ICRC and the
//! padding are zeros.

use crate::wire::{Packet, PacketKind};
use engine::Time;

/// RoCEv2's UDP destination port (IBTA RoCEv2 annex A17).
pub const ROCE_UDP_PORT: u16 = 4791;
/// A flow's queue pair number is its id plus this (QPs 0 and 1 are the
/// management QPs; with this base a QPN read in hex shows the flow id in
/// its low digits).
pub const QPN_BASE: u32 = 0x100;

/// Ethernet types.
const ETH_IPV4: u16 = 0x0800;
const ETH_MAC_CONTROL: u16 = 0x8808;
/// IEEE 802 Local Experimental Ethertype 1: rdmasim's own control frames.
const ETH_LOCAL_EXPERIMENTAL: u16 = 0x88B5;
/// MAC control opcode of a PFC frame (IEEE 802.1Qbb).
const PFC_OPCODE: u16 = 0x0101;
/// The MAC control multicast address PFC frames go to.
const PFC_DST: [u8; 6] = [0x01, 0x80, 0xC2, 0x00, 0x00, 0x01];
/// Subtypes of rdmasim's own control frames (after the Ethernet type).
const SUBTYPE_CREDIT: u16 = 1;
const SUBTYPE_FLOW_PAUSE: u16 = 2;
/// The minimum Ethernet frame without its FCS.
const MIN_FRAME: usize = 60;

/// BTH opcodes (IBTA vol. 1, Table 38: RC; RoCEv2 annex: CNP).
const OP_WRITE_FIRST: u8 = 0x06;
const OP_WRITE_MIDDLE: u8 = 0x07;
const OP_WRITE_LAST: u8 = 0x08;
const OP_WRITE_ONLY: u8 = 0x0A;
const OP_ACK: u8 = 0x11;
const OP_CNP: u8 = 0x81;
/// UD SEND Only: the PFC-free transport's software ACK, sent on a UD QP.
const OP_UD_SEND_ONLY: u8 = 0x64;
/// The Q_Key a software ACK's DETH carries (rdmasim's choice: any fixed
/// key; rdmasim models no Q_Key check).
const SOFT_ACK_QKEY: u32 = 0x1111_1111;
/// AETH syndromes: an ACK with no end-to-end credit count, a NAK for a
/// PSN sequence error.
const AETH_ACK: u8 = 0x1F;
const AETH_NAK_PSN: u8 = 0x60;

/// One captured frame.
#[derive(Clone, Copy, Debug)]
pub struct Frame {
    /// When it left (sent) or arrived whole (received).
    pub time: Time,
    /// The interface (index into [`CaptureFile::interfaces`]).
    pub iface: u32,
    /// Received by the interface's port (else sent by it).
    pub inbound: bool,
    /// Global id of the port that sent it.
    pub(crate) sender: u32,
    /// The frame.
    pub pkt: Packet,
}

/// What headers are made of, beyond the frame itself.
#[derive(Clone, Debug)]
pub(crate) struct HeaderCtx {
    /// Per global port id: (node, local port) of the port and of its peer.
    pub ends: Vec<[(u32, u16); 2]>,
    /// Per flow index: its id (`flows.csv`).
    pub flow_ids: Vec<u32>,
    /// Per flow index: its size in bytes.
    pub flow_sizes: Vec<u64>,
    /// Payload bytes per data packet: PSN = byte offset / mtu.
    pub mtu: u32,
}

/// A port's MAC address: locally administered, the node's id in three
/// bytes and the local port in two.
pub fn mac(node: u32, port: u16) -> [u8; 6] {
    let [_, a, b, c] = node.to_be_bytes();
    let [d, e] = port.to_be_bytes();
    [0x02, a, b, c, d, e]
}

/// A node's IPv4 address, as the peer simulator numbers them
/// (`node_id_to_ip`: 11.x.y.1).
pub fn ip(node: u32) -> [u8; 4] {
    0x0b00_0001u32
        .wrapping_add((node / 256) << 16)
        .wrapping_add((node % 256) << 8)
        .to_be_bytes()
}

fn psn(n: u64) -> u32 {
    (n & 0xFF_FFFF) as u32
}

/// The frames that `f` shows as on the wire (two for an ACK with its
/// congestion flag: the ACK and a CNP), each as (bytes kept, up to
/// `snaplen`; length on the wire without FCS).
pub(crate) fn encode(f: &Frame, cx: &HeaderCtx, snaplen: u32) -> Vec<(Vec<u8>, u32)> {
    let p = &f.pkt;
    let [(sn, sp), (dn, dp)] = cx.ends[f.sender as usize];
    let mut eth = Vec::with_capacity(128);
    let frames = match p.kind {
        PacketKind::Pfc => {
            ethernet(&mut eth, PFC_DST, mac(sn, sp), ETH_MAC_CONTROL);
            eth.extend_from_slice(&PFC_OPCODE.to_be_bytes());
            let class = p.pfc_class() & 7;
            eth.extend_from_slice(&(1u16 << class).to_be_bytes());
            for c in 0..8 {
                let q = if c == class { p.pfc_quanta() } else { 0 };
                eth.extend_from_slice(&q.to_be_bytes());
            }
            vec![(eth, 0)]
        }
        PacketKind::Credit | PacketKind::FlowPause => {
            ethernet(&mut eth, mac(dn, dp), mac(sn, sp), ETH_LOCAL_EXPERIMENTAL);
            if p.kind == PacketKind::Credit {
                eth.extend_from_slice(&SUBTYPE_CREDIT.to_be_bytes());
                eth.extend_from_slice(&[p.pfc_class(), 0]);
                eth.extend_from_slice(&p.seq.to_be_bytes());
            } else {
                eth.extend_from_slice(&SUBTYPE_FLOW_PAUSE.to_be_bytes());
                eth.extend_from_slice(&[p.pfc_class(), u8::from(p.pauses_flow())]);
                eth.extend_from_slice(&flow_id(cx, p).to_be_bytes());
            }
            vec![(eth, 0)]
        }
        PacketKind::Data | PacketKind::Ack | PacketKind::Nack => {
            let (dst_mac, src_mac) = (mac(dn, dp), mac(sn, sp));
            let qpn = (flow_id(cx, p).wrapping_add(QPN_BASE)) & 0xFF_FFFF;
            let mtu = u64::from(cx.mtu);
            let size = cx.flow_sizes.get(p.flow as usize).copied().unwrap_or(0);
            let mut out = Vec::with_capacity(2);
            if p.kind == PacketKind::Data {
                let first = p.seq == 0;
                let last = p.seq + u64::from(p.payload) >= size;
                let op = match (first, last) {
                    (true, true) => OP_WRITE_ONLY,
                    (true, false) => OP_WRITE_FIRST,
                    (false, false) => OP_WRITE_MIDDLE,
                    (false, true) => OP_WRITE_LAST,
                };
                let mut ext = Vec::with_capacity(16);
                if first {
                    // RETH: virtual address, R_Key, DMA length (the message).
                    ext.extend_from_slice(&0u64.to_be_bytes());
                    ext.extend_from_slice(&qpn.to_be_bytes());
                    ext.extend_from_slice(&(size.min(u64::from(u32::MAX)) as u32).to_be_bytes());
                }
                let ecn = if p.ecn_ce { 0b11 } else { 0b10 };
                let bth = Bth {
                    opcode: op,
                    ack_req: last,
                    qpn,
                    psn: psn(p.seq / mtu),
                };
                out.push(roce(
                    &mut eth, dst_mac, src_mac, p, ecn, bth, &ext, p.payload,
                ));
            } else {
                // The next expected byte: an ACK acknowledges the packet
                // before it, a NAK asks for the packet at it.
                let next = p.seq.div_ceil(mtu);
                let (number, syndrome) = if p.kind == PacketKind::Ack {
                    (next.wrapping_sub(1), AETH_ACK)
                } else {
                    (next, AETH_NAK_PSN)
                };
                let msn = u32::from(size > 0 && p.seq >= size);
                let mut aeth = (msn & 0xFF_FFFF).to_be_bytes();
                aeth[0] = syndrome;
                let bth = Bth {
                    opcode: OP_ACK,
                    ack_req: false,
                    qpn,
                    psn: psn(number),
                };
                out.push(roce(&mut eth, dst_mac, src_mac, p, 0, bth, &aeth, 0));
                if p.cnp {
                    let mut cnp = Vec::with_capacity(80);
                    let bth = Bth {
                        opcode: OP_CNP,
                        ack_req: false,
                        qpn,
                        psn: 0,
                    };
                    out.push(roce(&mut cnp, dst_mac, src_mac, p, 0, bth, &[0; 16], 0));
                }
            }
            out
        }
        PacketKind::SoftAck => {
            // A UD SEND with a DETH (Q_Key, source QP); the ACK's body
            // (its WQE numbers and timestamps) is zeros, as long as the
            // frame's size leaves for it after these headers.
            let qpn = (flow_id(cx, p).wrapping_add(QPN_BASE)) & 0xFF_FFFF;
            let mut deth = Vec::with_capacity(8);
            deth.extend_from_slice(&SOFT_ACK_QKEY.to_be_bytes());
            deth.extend_from_slice(&qpn.to_be_bytes());
            let bth = Bth {
                opcode: OP_UD_SEND_ONLY,
                ack_req: false,
                qpn,
                psn: psn(p.seq),
            };
            let (dst_mac, src_mac) = (mac(dn, dp), mac(sn, sp));
            let headers = 14 + 20 + 8 + 12 + deth.len() as u32 + 4;
            let body = p.size.saturating_sub(headers);
            vec![roce(&mut eth, dst_mac, src_mac, p, 0, bth, &deth, body)]
        }
    };
    frames
        .into_iter()
        .map(|(mut b, len)| {
            let len = len.max(b.len()).max(MIN_FRAME);
            b.resize(len.min(snaplen as usize), 0);
            (b, len as u32)
        })
        .collect()
}

fn flow_id(cx: &HeaderCtx, p: &Packet) -> u32 {
    cx.flow_ids.get(p.flow as usize).copied().unwrap_or(p.flow)
}

fn ethernet(b: &mut Vec<u8>, dst: [u8; 6], src: [u8; 6], ty: u16) {
    b.extend_from_slice(&dst);
    b.extend_from_slice(&src);
    b.extend_from_slice(&ty.to_be_bytes());
}

struct Bth {
    opcode: u8,
    ack_req: bool,
    qpn: u32,
    psn: u32,
}

/// Ethernet, IPv4, UDP and BTH, then `ext` (RETH, AETH or a CNP's
/// reserved bytes), then `payload` bytes, its padding and the ICRC (all
/// zeros, not written: the caller pads the frame to the length returned
/// with it).
#[allow(clippy::too_many_arguments)]
fn roce(
    b: &mut Vec<u8>,
    dst: [u8; 6],
    src: [u8; 6],
    p: &Packet,
    ecn: u8,
    bth: Bth,
    ext: &[u8],
    payload: u32,
) -> (Vec<u8>, usize) {
    b.clear();
    ethernet(b, dst, src, ETH_IPV4);
    let pad = (4 - payload % 4) % 4;
    let udp_len = 8 + 12 + ext.len() as u64 + u64::from(payload) + u64::from(pad) + 4;
    let ip_len = (20 + udp_len).min(0xFFFF) as u16;
    let ip_start = b.len();
    b.push(0x45);
    b.push(((p.class & 7) << 5) | ecn); // DSCP = 8 x class (CSn), then ECN
    b.extend_from_slice(&ip_len.to_be_bytes());
    b.extend_from_slice(&[0, 0, 0x40, 0]); // id 0, don't fragment
    b.extend_from_slice(&[64, 17, 0, 0]); // TTL, UDP, checksum (below)
    b.extend_from_slice(&ip(p.src));
    b.extend_from_slice(&ip(p.dst));
    let sum = checksum(&b[ip_start..]);
    b[ip_start + 10..ip_start + 12].copy_from_slice(&sum.to_be_bytes());
    b.extend_from_slice(&p.sport.to_be_bytes());
    b.extend_from_slice(&ROCE_UDP_PORT.to_be_bytes());
    b.extend_from_slice(&(ip_len - 20).to_be_bytes());
    b.extend_from_slice(&[0, 0]); // no UDP checksum (RoCEv2 allows it)
    b.push(bth.opcode);
    b.push((pad as u8) << 4); // SE 0, MigReq 0, pad count, TVer 0
    b.extend_from_slice(&0xFFFFu16.to_be_bytes()); // default P_Key
    let mut qp = bth.qpn.to_be_bytes();
    qp[0] = 0;
    b.extend_from_slice(&qp);
    let mut psn = bth.psn.to_be_bytes();
    psn[0] = u8::from(bth.ack_req) << 7;
    b.extend_from_slice(&psn);
    b.extend_from_slice(ext);
    (std::mem::take(b), 14 + usize::from(ip_len))
}

/// The IPv4 header checksum (RFC 791).
fn checksum(h: &[u8]) -> u16 {
    let mut s: u32 = h
        .chunks(2)
        .map(|c| u32::from(u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)])))
        .sum();
    while s > 0xFFFF {
        s = (s & 0xFFFF) + (s >> 16);
    }
    !(s as u16)
}

/// What [`decode`] reads of a frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decoded {
    /// A RoCEv2 packet.
    Roce {
        /// IPv4 source and destination.
        src_ip: [u8; 4],
        /// IPv4 destination.
        dst_ip: [u8; 4],
        /// DSCP.
        dscp: u8,
        /// The ECN field (0b10 ECT(0), 0b11 CE).
        ecn: u8,
        /// BTH opcode.
        opcode: u8,
        /// Destination QP.
        dest_qp: u32,
        /// PSN.
        psn: u32,
        /// The BTH's AckReq bit.
        ack_req: bool,
        /// AETH syndrome, on an ACK or NAK.
        aeth_syndrome: Option<u8>,
        /// RETH DMA length, on a first or only packet of a write.
        reth_len: Option<u32>,
        /// Payload bytes (from the lengths and the pad count).
        payload: u32,
    },
    /// A PFC frame: class-enable vector and the eight quanta.
    Pfc {
        /// Bit c: the frame speaks of class c.
        cev: u16,
        /// Pause time per class, in quanta of 512 bit times.
        quanta: [u16; 8],
    },
    /// rdmasim's credit update.
    Credit {
        /// The class credited.
        class: u8,
        /// The FCCL.
        fccl: u64,
    },
    /// rdmasim's per-flow PAUSE or RESUME.
    FlowPause {
        /// The class of the flow.
        class: u8,
        /// Pause (else resume).
        pause: bool,
        /// The flow's id.
        flow: u32,
    },
}

/// Read back a frame [`encode`] wrote (its first bytes, at least the
/// headers); `None` for anything else or too short.
pub fn decode(b: &[u8]) -> Option<Decoded> {
    let be16 = |i: usize| b.get(i..i + 2).map(|s| u16::from_be_bytes([s[0], s[1]]));
    let be32 = |i: usize| {
        b.get(i..i + 4)
            .map(|s| u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
    };
    match be16(12)? {
        ETH_MAC_CONTROL if be16(14)? == PFC_OPCODE => {
            let mut quanta = [0; 8];
            for (c, q) in quanta.iter_mut().enumerate() {
                *q = be16(18 + 2 * c)?;
            }
            Some(Decoded::Pfc {
                cev: be16(16)?,
                quanta,
            })
        }
        ETH_LOCAL_EXPERIMENTAL => match be16(14)? {
            SUBTYPE_CREDIT => Some(Decoded::Credit {
                class: *b.get(16)?,
                fccl: (u64::from(be32(18)?) << 32) | u64::from(be32(22)?),
            }),
            SUBTYPE_FLOW_PAUSE => Some(Decoded::FlowPause {
                class: *b.get(16)?,
                pause: *b.get(17)? != 0,
                flow: be32(18)?,
            }),
            _ => None,
        },
        ETH_IPV4 if *b.get(23)? == 17 && be16(36)? == ROCE_UDP_PORT => {
            let tos = *b.get(15)?;
            let ip_len = u32::from(be16(16)?);
            let opcode = *b.get(42)?;
            let pad = u32::from((*b.get(43)? >> 4) & 3);
            let ext = match opcode {
                OP_WRITE_FIRST | OP_WRITE_ONLY | OP_CNP => 16,
                OP_ACK => 4,
                _ => 0,
            };
            let aeth_syndrome = (opcode == OP_ACK).then(|| b.get(54).copied()).flatten();
            let reth_len = matches!(opcode, OP_WRITE_FIRST | OP_WRITE_ONLY)
                .then(|| be32(66))
                .flatten();
            Some(Decoded::Roce {
                src_ip: b.get(26..30)?.try_into().ok()?,
                dst_ip: b.get(30..34)?.try_into().ok()?,
                dscp: tos >> 2,
                ecn: tos & 3,
                opcode,
                dest_qp: be32(46)? & 0xFF_FFFF,
                psn: be32(50)? & 0xFF_FFFF,
                ack_req: *b.get(50)? & 0x80 != 0,
                aeth_syndrome,
                reth_len,
                payload: ip_len.saturating_sub(20 + 8 + 12 + ext + pad + 4),
            })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WRITE_ONLY: u8 = 0x0A;
    const ACK: u8 = 0x11;
    const CNP: u8 = 0x81;

    fn header_ctx() -> HeaderCtx {
        HeaderCtx {
            ends: vec![[(1, 0), (9, 1)], [(9, 1), (1, 0)]],
            flow_ids: vec![10],
            flow_sizes: vec![500],
            mtu: 1000,
        }
    }

    fn frame(pkt: Packet, sender: u32) -> Frame {
        Frame {
            time: Time::ZERO,
            iface: 0,
            inbound: false,
            sender,
            pkt,
        }
    }

    #[test]
    fn acks_naks_cnps_and_own_control_frames_encode_and_decode() {
        let cx = header_ctx();
        let data = Packet {
            kind: PacketKind::Data,
            class: 3,
            seq: 0,
            payload: 500,
            flow: 0,
            src: 1,
            dst: 0,
            ..Packet::pfc(0, 0)
        };
        let f = encode(&frame(data, 0), &cx, 1 << 16);
        assert_eq!(f.len(), 1);
        // Ethernet 14, IPv4 20, UDP 8, BTH 12, RETH 16, payload 500, ICRC 4.
        assert_eq!(f[0].1, 574);
        assert_eq!(f[0].0.len(), 574);
        assert_eq!(&f[0].0[0..6], &mac(9, 1));
        assert_eq!(&f[0].0[6..12], &mac(1, 0));
        match decode(&f[0].0).unwrap() {
            Decoded::Roce {
                opcode,
                ack_req,
                payload,
                reth_len,
                ..
            } => {
                assert_eq!((opcode, ack_req, payload), (WRITE_ONLY, true, 500));
                assert_eq!(reth_len, Some(500));
            }
            d => panic!("{d:?}"),
        }
        let ack = Packet {
            kind: PacketKind::Ack,
            seq: 500,
            cnp: true,
            src: 0,
            dst: 1,
            ..data
        };
        let f = encode(&frame(ack, 1), &cx, 128);
        assert_eq!(f.len(), 2, "an ACK with the congestion flag and its CNP");
        match (decode(&f[0].0).unwrap(), decode(&f[1].0).unwrap()) {
            (
                Decoded::Roce {
                    opcode: ACK,
                    psn: 0,
                    aeth_syndrome: Some(0x1F),
                    dest_qp,
                    ..
                },
                Decoded::Roce {
                    opcode: CNP,
                    dest_qp: q2,
                    ..
                },
            ) => assert_eq!((dest_qp, q2), (QPN_BASE + 10, QPN_BASE + 10)),
            d => panic!("{d:?}"),
        }
        let nak = Packet {
            kind: PacketKind::Nack,
            seq: 2000,
            cnp: false,
            ..ack
        };
        let f = encode(&frame(nak, 1), &cx, 128);
        assert_eq!(f.len(), 1);
        assert!(matches!(
            decode(&f[0].0),
            Some(Decoded::Roce {
                psn: 2,
                aeth_syndrome: Some(0x60),
                ..
            })
        ));
        let f = encode(&frame(Packet::credit(5, 123_456), 1), &cx, 128);
        assert_eq!(f[0].1, 60);
        assert_eq!(
            decode(&f[0].0),
            Some(Decoded::Credit {
                class: 5,
                fccl: 123_456
            })
        );
        let f = encode(&frame(Packet::flow_pause(3, 0, true), 1), &cx, 128);
        assert_eq!(
            decode(&f[0].0),
            Some(Decoded::FlowPause {
                class: 3,
                pause: true,
                flow: 10
            })
        );
    }
}
