//! `[capture]` end to end: a short incast with 802.1Qbb PFC writes
//! `capture.pcapng`, which rdmasim's own reader and Wireshark's `tshark`
//! both read: the first data frames' BTH opcodes, destination QPs and
//! PSNs, and as many PFC frames, with the configured quanta, as
//! `ports.csv` counts for the captured port.
//!
//! Without `tshark` the tshark part is skipped and says so on stderr, so
//! that the README's test command works on a machine with only a Rust
//! toolchain; `RDMASIM_REQUIRE_TSHARK=1` (which `.ci/run` sets once it has
//! installed tshark) makes a missing tshark a failure (docs/capture.md).

use net::capture::pcapng::read;
use net::capture::{decode, Decoded, QPN_BASE};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Eight hosts of a star send 1 MB each to host 0 in class 3 through
/// switch 9 with a 1 MB buffer: the switch pauses them. The capture is
/// the switch's port 1, towards host 1 (flow 0), both ways.
const CONFIG: &str = r#"
[run]
name = "incast-capture"

[topology]
kind = "star"
hosts = 9
rate = "100Gbps"
delay = "1us"

[workload]
kind = "incast"
senders = [1, 2, 3, 4, 5, 6, 7, 8]
receiver = 0
size = "1MB"

[pfc]
enabled = true
mode = "quanta"
quanta = 300

[buffer]
size = "1MB"

[capture]
ports = [{node = 9, port = 1}]
"#;

const QUANTA: u16 = 300;
const MTU: u32 = 1000;

/// Run the incast into a fresh directory; its run directory.
fn run_incast(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rdmasim-capture-{test}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("incast.toml"), CONFIG).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_rdmasim"))
        .args(["run", "incast.toml", "--out", "run", "--quiet"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir.join("run")
}

/// `pause_tx` and `resume_tx` of switch 9's port 1 in `ports.csv`.
fn pfc_counts(run: &Path) -> (u64, u64) {
    let t = fs::read_to_string(run.join("ports.csv")).unwrap();
    let mut lines = t.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let row: Vec<&str> = lines
        .map(|l| l.split(',').collect::<Vec<_>>())
        .find(|r| r[col("node")] == "9" && r[col("port")] == "1")
        .unwrap();
    let n = |name: &str| row[col(name)].parse::<u64>().unwrap();
    (n("pause_tx"), n("resume_tx"))
}

#[test]
fn rdmasims_reader_finds_the_data_frames_and_the_pfc_frames() {
    let run = run_incast("reader");
    let (pause_tx, resume_tx) = pfc_counts(&run);
    assert!(pause_tx > 0, "the incast should pause host 1");
    let bytes = fs::read(run.join("capture.pcapng")).unwrap();
    let (ifaces, packets) = read(&bytes).unwrap();
    assert_eq!(ifaces.len(), 1);
    assert_eq!(ifaces[0].name.as_deref(), Some("node9:port1"));
    let data: Vec<(u8, u32, u32)> = packets
        .iter()
        .filter(|p| p.inbound == Some(true))
        .filter_map(|p| match decode(&p.data) {
            Some(Decoded::Roce {
                opcode,
                dest_qp,
                psn,
                ..
            }) if opcode <= 0x0A => Some((opcode, dest_qp, psn)),
            _ => None,
        })
        .collect();
    assert_eq!(data.len() as u32, 1_000_000 / MTU, "one frame per packet");
    assert_eq!(
        &data[..3],
        &[(6, QPN_BASE, 0), (7, QPN_BASE, 1), (7, QPN_BASE, 2)]
    );
    assert_eq!(data.last().unwrap().0, 8, "RDMA WRITE Last");
    let quanta: Vec<u16> = packets
        .iter()
        .filter(|p| p.inbound == Some(false))
        .filter_map(|p| match decode(&p.data) {
            Some(Decoded::Pfc { cev: 0x08, quanta }) => Some(quanta[3]),
            _ => None,
        })
        .collect();
    let count = |q: u16| quanta.iter().filter(|&&x| x == q).count() as u64;
    assert_eq!(count(QUANTA), pause_tx);
    assert_eq!(count(0), resume_tx);
    assert_eq!(quanta.len() as u64, pause_tx + resume_tx);
}

/// `tshark`'s fields of the frames of `run`'s capture that pass `filter`,
/// one line per frame, tab-separated; `None` if tshark is missing and
/// `RDMASIM_REQUIRE_TSHARK=1` does not insist on it.
fn tshark(run: &Path, filter: &str, fields: &[&str]) -> Option<Vec<Vec<String>>> {
    let mut cmd = Command::new("tshark");
    cmd.arg("-r")
        .arg(run.join("capture.pcapng"))
        .args(["-Y", filter, "-T", "fields"]);
    for f in fields {
        cmd.args(["-e", f]);
    }
    let out = match cmd.output() {
        Ok(out) => out,
        Err(e) if std::env::var("RDMASIM_REQUIRE_TSHARK").as_deref() == Ok("1") => panic!(
            "tshark does not run ({e}), and RDMASIM_REQUIRE_TSHARK=1 requires it: \
             install it (apt-get install tshark)"
        ),
        Err(e) => {
            eprintln!(
                "tshark does not run ({e}): its part of this test is SKIPPED; install \
                 tshark (apt-get install tshark) to run it, or set \
                 RDMASIM_REQUIRE_TSHARK=1 to make a missing tshark fail"
            );
            return None;
        }
    };
    assert!(
        out.status.success(),
        "tshark: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| l.split('\t').map(str::to_string).collect())
            .collect(),
    )
}

fn number(s: &str) -> u64 {
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).unwrap(),
        None => s.parse().unwrap(),
    }
}

#[test]
fn tshark_reads_the_bth_of_the_first_data_frames_and_every_pfc_frame() {
    let run = run_incast("tshark");
    let (pause_tx, resume_tx) = pfc_counts(&run);
    // Data: RC RDMA WRITE opcodes (6 First, 7 Middle, 8 Last, 10 Only).
    let Some(data) = tshark(
        &run,
        "infiniband.bth.opcode <= 10 && frame.interface_name == \"node9:port1\"",
        &[
            "infiniband.bth.opcode",
            "infiniband.bth.destqp",
            "infiniband.bth.psn",
            "ip.src",
            "udp.dstport",
        ],
    ) else {
        return;
    };
    assert_eq!(data.len() as u32, 1_000_000 / MTU);
    for (i, f) in data.iter().take(5).enumerate() {
        let opcode = if i == 0 { 6 } else { 7 };
        assert_eq!(number(&f[0]), opcode, "frame {i}: {f:?}");
        assert_eq!(number(&f[1]), u64::from(QPN_BASE), "frame {i}: {f:?}");
        assert_eq!(number(&f[2]), i as u64, "frame {i}: {f:?}");
        assert_eq!(f[3], "11.0.1.1");
        assert_eq!(f[4], "4791");
    }
    // PFC: MAC control opcode 0x0101, sent by the switch (outbound).
    let pfc = tshark(
        &run,
        "macc.opcode == 0x0101 && frame.packet_flags_direction == 2",
        &["macc.cbfc.enbv", "macc.cbfc.pause_time.c3"],
    )
    .unwrap();
    assert_eq!(pfc.len() as u64, pause_tx + resume_tx);
    assert!(pfc.iter().all(|f| number(&f[0]) == 0x08), "class 3 only");
    let count = |q: u64| pfc.iter().filter(|f| number(&f[1]) == q).count() as u64;
    assert_eq!(count(u64::from(QUANTA)), pause_tx);
    assert_eq!(count(0), resume_tx);
}
