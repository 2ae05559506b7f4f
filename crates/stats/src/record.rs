//! The per-flow record and its two text forms: our CSV, and the peer's FCT
//! file (`fct.txt` of the HPCC simulator).

use serde::Serialize;
use std::io::{self, Write};

/// What happened to one flow.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlowRecord {
    /// Flow id (as in the workload).
    pub id: u32,
    /// Sending host.
    pub src: u32,
    /// Receiving host.
    pub dst: u32,
    /// Payload bytes.
    pub size: u64,
    /// Start time, ns.
    pub start_ns: u64,
    /// Completion time, ns; `None` if the flow did not finish.
    pub end_ns: Option<u64>,
    /// Flow completion time `end - start`, ns; `None` if unfinished.
    pub fct_ns: Option<u64>,
    /// FCT of the flow alone in the network (the peer's `standalone_fct`), ns.
    pub ideal_fct_ns: u64,
    /// `fct / ideal_fct`; `None` if unfinished.
    pub slowdown: Option<f64>,
    /// Priority class.
    pub pg: u8,
    /// Destination port.
    pub dport: u16,
    /// Source port.
    pub sport: u16,
    /// Bytes sent more than once.
    pub retransmitted_bytes: u64,
    /// Time the sender's QP spent PFC-paused, ns (0 if unknown).
    pub paused_ns: u64,
}

impl FlowRecord {
    /// Whether the flow completed.
    pub fn is_finished(&self) -> bool {
        self.fct_ns.is_some()
    }
}

/// The IP address the peer gives node `node`:
/// `0x0b000001 + ((node / 256) << 16) + ((node % 256) << 8)`
/// (node 238 is `0x0b00ee01`).
pub fn host_ip(node: u32) -> u32 {
    0x0b00_0001u32
        .wrapping_add((node / 256) << 16)
        .wrapping_add((node % 256) << 8)
}

/// The header line of [`write_flows_csv`].
pub const FLOWS_CSV_HEADER: &str = "id,src,dst,size,start_ns,end_ns,fct_ns,ideal_fct_ns,slowdown,\
                                    pg,sport,dport,retransmitted_bytes,paused_ns";

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

/// Write one CSV row per record, after [`FLOWS_CSV_HEADER`]. Unfinished
/// flows have empty `end_ns`, `fct_ns` and `slowdown` cells; slowdown has 6
/// decimals. Everything is numeric, so no quoting is ever needed.
pub fn write_flows_csv<W: Write>(records: &[FlowRecord], mut w: W) -> io::Result<()> {
    writeln!(w, "{FLOWS_CSV_HEADER}")?;
    for r in records {
        writeln!(
            w,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            r.id,
            r.src,
            r.dst,
            r.size,
            r.start_ns,
            opt(r.end_ns),
            opt(r.fct_ns),
            r.ideal_fct_ns,
            r.slowdown.map(|s| format!("{s:.6}")).unwrap_or_default(),
            r.pg,
            r.sport,
            r.dport,
            r.retransmitted_bytes,
            r.paused_ns,
        )?;
    }
    Ok(())
}

/// Write the peer's FCT file: one line per finished flow, in the order
/// given (the peer writes in completion order):
/// `sip dip sport dport size start_ns fct_ns standalone_fct_ns`, IPs as
/// 8-digit lowercase hex ([`host_ip`]). Unfinished flows are left out, as
/// the peer only writes a line when a flow completes.
pub fn write_peer_fct<W: Write>(records: &[FlowRecord], mut w: W) -> io::Result<()> {
    for r in records {
        let Some(fct) = r.fct_ns else { continue };
        writeln!(
            w,
            "{:08x} {:08x} {} {} {} {} {} {}",
            host_ip(r.src),
            host_ip(r.dst),
            r.sport,
            r.dport,
            r.size,
            r.start_ns,
            fct,
            r.ideal_fct_ns
        )?;
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn rec(id: u32, size: u64, slowdown: Option<f64>) -> FlowRecord {
        let ideal = 10_000;
        FlowRecord {
            id,
            src: 238,
            dst: 3,
            size,
            start_ns: 2_000_000_000 + u64::from(id),
            end_ns: slowdown.map(|s| 2_000_000_000 + u64::from(id) + (s * ideal as f64) as u64),
            fct_ns: slowdown.map(|s| (s * ideal as f64) as u64),
            ideal_fct_ns: ideal,
            slowdown,
            pg: 3,
            dport: 100,
            sport: 10_000 + id as u16,
            retransmitted_bytes: 0,
            paused_ns: 0,
        }
    }

    #[test]
    fn ip_addresses() {
        assert_eq!(host_ip(0), 0x0b00_0001);
        assert_eq!(host_ip(238), 0x0b00_ee01);
        assert_eq!(format!("{:08x}", host_ip(238)), "0b00ee01");
        assert_eq!(host_ip(256), 0x0b01_0001);
        assert_eq!(host_ip(300), 0x0b01_2c01);
    }

    #[test]
    fn csv_rows() {
        let recs = [rec(0, 1000, Some(1.5)), rec(1, 2000, None)];
        let mut out = Vec::new();
        write_flows_csv(&recs, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(
            lines[0],
            "id,src,dst,size,start_ns,end_ns,fct_ns,ideal_fct_ns,slowdown,pg,sport,dport,\
             retransmitted_bytes,paused_ns"
        );
        assert_eq!(
            lines[1],
            "0,238,3,1000,2000000000,2000015000,15000,10000,1.500000,3,10000,100,0,0"
        );
        assert_eq!(lines[2], "1,238,3,2000,2000000001,,,10000,,3,10001,100,0,0");
        let cols = lines[0].split(',').count();
        assert!(lines
            .iter()
            .all(|l| l.split(',').count() == cols && !l.ends_with(' ')));
    }

    #[test]
    fn peer_fct_lines() {
        let recs = [
            rec(5, 1000, Some(2.0)),
            rec(6, 2000, None),
            rec(7, 64, Some(1.0)),
        ];
        let mut out = Vec::new();
        write_peer_fct(&recs, &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "0b00ee01 0b000301 10005 100 1000 2000000005 20000 10000\n\
             0b00ee01 0b000301 10007 100 64 2000000007 10000 10000\n"
        );
    }

    #[test]
    fn serialises_to_json() {
        let v = serde_json::to_value(rec(1, 10, None)).unwrap();
        assert_eq!(v["fct_ns"], serde_json::Value::Null);
        assert_eq!(v["size"], 10);
        let v = serde_json::to_value(rec(1, 10, Some(2.0))).unwrap();
        assert_eq!(v["slowdown"], 2.0);
    }
}
