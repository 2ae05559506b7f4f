//! The pcapng file format (IETF draft "PCAP Now Generic", the format
//! Wireshark writes by default): a section header, one interface
//! description per captured port (its name, its speed, nanosecond
//! timestamps) and one enhanced packet block per frame, with its direction
//! in its flags. Written little-endian. [`read`] reads what [`write`]
//! writes (and any little-endian pcapng file of these three block types).
//!
//! rdmasim writes the format itself: it takes some sixty lines, and one
//! writer makes the file's bytes depend on rdmasim alone (same seed, same
//! bytes).

use std::io::{self, Write};

const SHB: u32 = 0x0A0D_0D0A;
const IDB: u32 = 1;
const EPB: u32 = 6;
const BYTE_ORDER_MAGIC: u32 = 0x1A2B_3C4D;
/// LINKTYPE_ETHERNET.
const LINKTYPE_ETHERNET: u16 = 1;
const OPT_END: u16 = 0;
const OPT_SHB_USERAPPL: u16 = 4;
const OPT_IF_NAME: u16 = 2;
const OPT_IF_DESCRIPTION: u16 = 3;
const OPT_IF_SPEED: u16 = 8;
const OPT_IF_TSRESOL: u16 = 9;
const OPT_EPB_FLAGS: u16 = 2;
/// `epb_flags` direction bits: inbound, outbound.
const FLAG_INBOUND: u32 = 1;
const FLAG_OUTBOUND: u32 = 2;

/// One block: type, length, body (padded to 4 bytes), length again.
fn block(w: &mut impl Write, ty: u32, body: &[u8]) -> io::Result<()> {
    let len = (12 + body.len()) as u32;
    w.write_all(&ty.to_le_bytes())?;
    w.write_all(&len.to_le_bytes())?;
    w.write_all(body)?;
    w.write_all(&len.to_le_bytes())
}

fn option(b: &mut Vec<u8>, code: u16, value: &[u8]) {
    b.extend_from_slice(&code.to_le_bytes());
    b.extend_from_slice(&(value.len() as u16).to_le_bytes());
    b.extend_from_slice(value);
    pad4(b);
}

fn pad4(b: &mut Vec<u8>) {
    b.resize(b.len().next_multiple_of(4), 0);
}

/// A captured port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interface {
    /// Its node.
    pub node: u32,
    /// Its local port number (link order, from 0).
    pub port: u16,
    /// Whether the node is a switch.
    pub is_switch: bool,
    /// Line rate, bits per second.
    pub rate_bps: u64,
}

/// Write the start of a pcapng file: its section header and one
/// interface description per port in `interfaces`.
pub(crate) fn write_header(
    w: &mut impl Write,
    interfaces: &[Interface],
    snaplen: u32,
) -> io::Result<()> {
    let mut b = Vec::with_capacity(256);
    b.extend_from_slice(&BYTE_ORDER_MAGIC.to_le_bytes());
    b.extend_from_slice(&1u16.to_le_bytes());
    b.extend_from_slice(&0u16.to_le_bytes());
    b.extend_from_slice(&(-1i64).to_le_bytes()); // section length unknown
    option(&mut b, OPT_SHB_USERAPPL, b"rdmasim");
    option(&mut b, OPT_END, &[]);
    block(w, SHB, &b)?;
    for i in interfaces {
        b.clear();
        b.extend_from_slice(&LINKTYPE_ETHERNET.to_le_bytes());
        b.extend_from_slice(&0u16.to_le_bytes());
        b.extend_from_slice(&snaplen.to_le_bytes());
        let name = format!("node{}:port{}", i.node, i.port);
        option(&mut b, OPT_IF_NAME, name.as_bytes());
        let what = if i.is_switch { "switch" } else { "host" };
        let desc = format!("{what} {} port {}", i.node, i.port);
        option(&mut b, OPT_IF_DESCRIPTION, desc.as_bytes());
        option(&mut b, OPT_IF_SPEED, &i.rate_bps.to_le_bytes());
        option(&mut b, OPT_IF_TSRESOL, &[9]); // 10^-9 s
        option(&mut b, OPT_END, &[]);
        block(w, IDB, &b)?;
    }
    Ok(())
}

/// Write one packet: `data` (its first bytes) of a frame of `len` bytes
/// that interface `iface` received (`inbound`) or sent at `ns`.
pub(crate) fn write_packet(
    w: &mut impl Write,
    iface: u32,
    ns: u64,
    inbound: bool,
    data: &[u8],
    len: u32,
) -> io::Result<()> {
    let flags = if inbound { FLAG_INBOUND } else { FLAG_OUTBOUND };
    let mut b = Vec::with_capacity(data.len() + 48);
    b.extend_from_slice(&iface.to_le_bytes());
    b.extend_from_slice(&((ns >> 32) as u32).to_le_bytes());
    b.extend_from_slice(&(ns as u32).to_le_bytes());
    b.extend_from_slice(&(data.len() as u32).to_le_bytes());
    b.extend_from_slice(&len.to_le_bytes());
    b.extend_from_slice(data);
    pad4(&mut b);
    option(&mut b, OPT_EPB_FLAGS, &flags.to_le_bytes());
    option(&mut b, OPT_END, &[]);
    block(w, EPB, &b)
}

/// An interface of a pcapng file read back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadInterface {
    /// Link type (1: Ethernet).
    pub linktype: u16,
    /// Snap length.
    pub snaplen: u32,
    /// `if_name`, if given.
    pub name: Option<String>,
    /// Timestamp units per second (`if_tsresol`; 10^6 if not given).
    pub units_per_s: u64,
}

/// A packet of a pcapng file read back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadPacket {
    /// Interface index.
    pub iface: u32,
    /// Timestamp in nanoseconds.
    pub ns: u64,
    /// Length on the wire.
    pub orig_len: u32,
    /// The bytes captured.
    pub data: Vec<u8>,
    /// Received (`Some(true)`), sent (`Some(false)`), or not said.
    pub inbound: Option<bool>,
}

/// Read a little-endian pcapng file's interfaces and packets; other block
/// types are skipped. Errors say what is wrong and at which byte.
pub fn read(bytes: &[u8]) -> Result<(Vec<ReadInterface>, Vec<ReadPacket>), String> {
    let u16_at = |i: usize| -> Result<u16, String> {
        bytes
            .get(i..i + 2)
            .map(|s| u16::from_le_bytes([s[0], s[1]]))
            .ok_or_else(|| format!("truncated at byte {i}"))
    };
    let u32_at = |i: usize| -> Result<u32, String> {
        bytes
            .get(i..i + 4)
            .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
            .ok_or_else(|| format!("truncated at byte {i}"))
    };
    if u32_at(0)? != SHB || u32_at(8)? != BYTE_ORDER_MAGIC {
        return Err("not a little-endian pcapng file".into());
    }
    let (mut ifaces, mut packets) = (Vec::new(), Vec::new());
    let mut at = 0;
    while at < bytes.len() {
        let ty = u32_at(at)?;
        let len = u32_at(at + 4)? as usize;
        if len < 12
            || !len.is_multiple_of(4)
            || at + len > bytes.len()
            || u32_at(at + len - 4)? != len as u32
        {
            return Err(format!("bad block length {len} at byte {at}"));
        }
        let body = at + 8;
        let end = at + len - 4;
        // Options from `from` to `end`: (code, value) pairs.
        let options = |mut from: usize| -> Result<Vec<(u16, &[u8])>, String> {
            let mut v = Vec::new();
            while from + 4 <= end {
                let (code, n) = (u16_at(from)?, usize::from(u16_at(from + 2)?));
                if code == OPT_END {
                    break;
                }
                let value = bytes
                    .get(from + 4..from + 4 + n)
                    .ok_or_else(|| format!("bad option at byte {from}"))?;
                v.push((code, value));
                from += 4 + n.next_multiple_of(4);
            }
            Ok(v)
        };
        match ty {
            IDB => {
                let mut i = ReadInterface {
                    linktype: u16_at(body)?,
                    snaplen: u32_at(body + 4)?,
                    name: None,
                    units_per_s: 1_000_000,
                };
                for (code, v) in options(body + 8)? {
                    match (code, v) {
                        (OPT_IF_NAME, v) => i.name = Some(String::from_utf8_lossy(v).into()),
                        (OPT_IF_TSRESOL, [r]) if r & 0x80 == 0 => {
                            i.units_per_s = 10u64.checked_pow(u32::from(*r)).ok_or("bad tsresol")?
                        }
                        (OPT_IF_TSRESOL, [r]) => {
                            i.units_per_s =
                                1u64.checked_shl(u32::from(r & 0x7F)).ok_or("bad tsresol")?
                        }
                        _ => {}
                    }
                }
                ifaces.push(i);
            }
            EPB => {
                let iface = u32_at(body)?;
                let units = ifaces
                    .get(iface as usize)
                    .map(|i: &ReadInterface| i.units_per_s)
                    .ok_or_else(|| format!("packet at byte {at} names interface {iface}"))?;
                let ts = (u64::from(u32_at(body + 4)?) << 32) | u64::from(u32_at(body + 8)?);
                let cap = u32_at(body + 12)? as usize;
                let data = bytes
                    .get(body + 20..body + 20 + cap)
                    .filter(|_| body + 20 + cap <= end)
                    .ok_or_else(|| format!("packet at byte {at} overruns its block"))?;
                let mut inbound = None;
                for (code, v) in options(body + 20 + cap.next_multiple_of(4))? {
                    if let (OPT_EPB_FLAGS, [a, b, c, d]) = (code, v) {
                        match u32::from_le_bytes([*a, *b, *c, *d]) & 3 {
                            FLAG_INBOUND => inbound = Some(true),
                            FLAG_OUTBOUND => inbound = Some(false),
                            _ => {}
                        }
                    }
                }
                packets.push(ReadPacket {
                    iface,
                    ns: (u128::from(ts) * 1_000_000_000 / u128::from(units)) as u64,
                    orig_len: u32_at(body + 16)?,
                    data: data.to_vec(),
                    inbound,
                });
            }
            _ => {}
        }
        at += len;
    }
    Ok((ifaces, packets))
}
