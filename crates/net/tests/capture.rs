//! The packet capture of a simulation: what it records of an incast with
//! 802.1Qbb PFC, read back with rdmasim's pcapng reader; its filters,
//! window, limit and snap length; and that capturing changes no result.

use engine::{Delta, Rate, Time};
use rdmasim_net::capture::pcapng::{read, ReadPacket};
use rdmasim_net::capture::{decode, CaptureConfig, Decoded, Direction, QPN_BASE};
use rdmasim_net::fc::PfcMode;
use rdmasim_net::monitor::MonitorPorts;
use rdmasim_net::{NetConfig, PfcConfig, Simulation};
use workload::FlowSpec;

const WRITE_FIRST: u8 = 0x06;
const WRITE_MIDDLE: u8 = 0x07;
const ACK: u8 = 0x11;
const QUANTA: u16 = 300;

/// Eight hosts send 1 MB each to host 0 of a star (switch 9) in class 3,
/// with 802.1Qbb quanta and a 1 MB switch buffer: the switch pauses the
/// senders.
fn incast_sim() -> Simulation {
    let topo = topo::star(9, Rate::gbps(100), Delta::from_us(1)).unwrap();
    let flows = (0..8)
        .map(|i| FlowSpec {
            id: 10 + i,
            src: i + 1,
            dst: 0,
            size: 1_000_000,
            start: Time::ZERO,
            pg: 3,
            dport: 100,
        })
        .collect();
    let mut cfg = NetConfig {
        pfc: PfcConfig {
            enabled: true,
            mode: PfcMode::Quanta {
                quanta: QUANTA,
                refresh_fraction: 0.5,
            },
            watchdog: None,
            ..PfcConfig::default()
        },
        ..NetConfig::default()
    };
    cfg.buffer.size = 1_000_000;
    Simulation::new(&topo, flows, cfg).unwrap()
}

fn cfg(ports: Vec<(u32, u16)>, direction: Direction) -> CaptureConfig {
    CaptureConfig {
        ports: MonitorPorts::List(ports),
        direction,
        start: Time::ZERO,
        stop: None,
        snaplen: 128,
        flows: None,
        classes: None,
        max_frames: u64::MAX,
    }
}

fn captured(c: CaptureConfig) -> (Simulation, Vec<ReadPacket>) {
    let mut sim = incast_sim();
    sim.capture(c).unwrap();
    sim.run();
    let file = sim.take_capture().unwrap();
    let mut bytes = Vec::new();
    file.write_pcapng(&mut bytes).unwrap();
    let (ifaces, packets) = read(&bytes).unwrap();
    assert_eq!(ifaces.len(), file.interfaces.len());
    assert!(ifaces.iter().all(|i| i.units_per_s == 1_000_000_000));
    (sim, packets)
}

#[test]
fn capturing_changes_no_result() {
    let mut plain = incast_sim();
    plain.run();
    let (sim, packets) = captured(cfg(vec![(9, 1), (9, 0), (1, 0)], Direction::Both));
    assert!(packets.len() > 1000, "{} frames", packets.len());
    let (a, b) = (plain.results(), sim.results());
    assert_eq!(a.flows, b.flows);
    assert_eq!(a.completion_order, b.completion_order);
    assert_eq!(a.events, b.events);
    assert_eq!(a.ports, b.ports);
}

#[test]
fn data_frames_read_back_with_their_opcodes_qps_and_psns() {
    // What switch 9 receives on its port 1, from host 1 (flow 10).
    let (_, packets) = captured(cfg(vec![(9, 1)], Direction::Rx));
    assert!(packets.iter().all(|p| p.inbound == Some(true)));
    assert!(packets.windows(2).all(|w| w[0].ns <= w[1].ns));
    let data: Vec<Decoded> = packets
        .iter()
        .filter_map(|p| decode(&p.data))
        .filter(|d| matches!(d, Decoded::Roce { opcode, .. } if *opcode != ACK))
        .collect();
    let mtu = NetConfig::default().nic.mtu_payload;
    assert!(
        data.len() as u32 >= 1_000_000 / mtu,
        "{} data frames",
        data.len()
    );
    for (i, d) in data.iter().take(5).enumerate() {
        let Decoded::Roce {
            opcode,
            dest_qp,
            psn,
            src_ip,
            dst_ip,
            ecn,
            dscp,
            payload,
            reth_len,
            ..
        } = d
        else {
            unreachable!()
        };
        let want = if i == 0 { WRITE_FIRST } else { WRITE_MIDDLE };
        assert_eq!(*opcode, want, "frame {i}");
        assert_eq!(*dest_qp, QPN_BASE + 10);
        assert_eq!(*psn, i as u32);
        assert_eq!(*src_ip, [11, 0, 1, 1]);
        assert_eq!(*dst_ip, [11, 0, 0, 1]);
        assert_eq!(*dscp, 3 * 8);
        assert!(*ecn == 0b10 || *ecn == 0b11);
        assert_eq!(*payload, mtu);
        assert_eq!(*reth_len, (i == 0).then_some(1_000_000));
    }
    // The data frames' timestamps are their arrival: after one serialisation
    // and the 1 us link.
    let first = &packets[0];
    assert!(first.ns > 1_000, "{}", first.ns);
    // Every data frame arrived, none twice (no loss on a PFC fabric).
    let mut psns: Vec<u32> = data
        .iter()
        .map(|d| match d {
            Decoded::Roce { psn, .. } => *psn,
            _ => unreachable!(),
        })
        .collect();
    psns.sort_unstable();
    psns.dedup();
    assert_eq!(psns.len(), data.len());
}

#[test]
fn pfc_frames_match_the_port_counters() {
    let (sim, packets) = captured(cfg(vec![(9, 1), (9, 2)], Direction::Tx));
    let r = sim.results();
    for (iface, port) in [(0u32, 1u16), (1, 2)] {
        let fc = r
            .ports
            .iter()
            .find(|p| p.node == 9 && p.port == port)
            .unwrap()
            .fc
            .clone();
        let pfc: Vec<[u16; 8]> = packets
            .iter()
            .filter(|p| p.iface == iface)
            .filter_map(|p| match decode(&p.data) {
                Some(Decoded::Pfc { cev, quanta }) => {
                    assert_eq!(cev, 1 << 3);
                    assert_eq!(p.orig_len, 60);
                    Some(quanta)
                }
                _ => None,
            })
            .collect();
        let pauses = pfc.iter().filter(|q| q[3] == QUANTA).count() as u64;
        let resumes = pfc.iter().filter(|q| q[3] == 0).count() as u64;
        assert!(pauses > 0, "port {port}: no pause");
        assert_eq!(pauses, fc.pause_tx[3], "port {port}");
        assert_eq!(resumes, fc.resume_tx[3], "port {port}");
        assert_eq!(pauses + resumes, pfc.len() as u64);
        assert!(pfc
            .iter()
            .all(|q| q.iter().enumerate().all(|(c, &v)| c == 3 || v == 0)));
    }
}

#[test]
fn filters_window_limit_and_snap_length() {
    let all = captured(cfg(vec![(9, 0)], Direction::Tx)).1;
    let n = all.len();
    // Class 3 is every frame to host 0 (data; PFC speaks of class 3 too).
    let mut c = cfg(vec![(9, 0)], Direction::Tx);
    c.classes = Some(vec![0, 1]);
    assert_eq!(captured(c).1.len(), 0);
    // One flow of eight.
    let mut c = cfg(vec![(9, 0)], Direction::Tx);
    c.flows = Some(vec![12]);
    let one = captured(c).1;
    assert!(one.len() < n / 4 && !one.is_empty(), "{} of {n}", one.len());
    assert!(one.iter().all(|p| match decode(&p.data) {
        Some(Decoded::Roce { dest_qp, .. }) => dest_qp == QPN_BASE + 12,
        Some(Decoded::Pfc { .. }) => true,
        _ => false,
    }));
    // A window.
    let mut c = cfg(vec![(9, 0)], Direction::Tx);
    c.start = Time::from_ns(20_000);
    c.stop = Some(Time::from_ns(30_000));
    let w = captured(c).1;
    assert!(!w.is_empty() && w.len() < n);
    assert!(w.iter().all(|p| (20_000..30_000).contains(&p.ns)));
    // A limit.
    let mut c = cfg(vec![(9, 0)], Direction::Tx);
    c.max_frames = 7;
    let mut sim = incast_sim();
    sim.capture(c).unwrap();
    sim.run();
    let f = sim.take_capture().unwrap();
    assert_eq!(f.frames.len(), 7);
    assert!(f.truncated_at.is_some());
    // A snap length.
    let mut c = cfg(vec![(9, 0)], Direction::Tx);
    c.snaplen = 54;
    let short = captured(c).1;
    assert_eq!(short.len(), n);
    assert!(short.iter().all(|p| p.data.len() <= 54));
    assert!(short.iter().any(|p| p.orig_len > 1000));
}

#[test]
fn bad_settings_are_refused() {
    let mut sim = incast_sim();
    let e = sim.capture(cfg(vec![(9, 12)], Direction::Tx)).unwrap_err();
    assert!(e.contains("node 9 has no port 12"), "{e}");
    let mut c = cfg(vec![(9, 0)], Direction::Tx);
    c.flows = Some(vec![3]);
    assert!(sim.capture(c).unwrap_err().contains("no flow has id 3"));
    let mut c = cfg(vec![(9, 0)], Direction::Tx);
    c.classes = Some(vec![8]);
    assert!(sim.capture(c).unwrap_err().contains("class 8"));
    let mut c = cfg(vec![(9, 0)], Direction::Tx);
    c.snaplen = 0;
    assert!(sim.capture(c).is_err());
    assert!(sim.take_capture().is_none());
}
