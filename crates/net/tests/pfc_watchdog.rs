//! PFC storms and the watchdog that contains them (Azure §3.1): a NIC that
//! pauses without end blocks flows that never go near it, through the
//! pauses its switch sends upstream; with the watchdog the spread stops
//! within the detection time and one round trip; congestion's
//! intermittent pauses never trip it.

use engine::{Delta, Rate, Time};
use rdmasim_net::cc::CcConfig;
use rdmasim_net::fc::{StormConfig, WatchdogConfig};
use rdmasim_net::{NetConfig, Simulation};
use workload::FlowSpec;

fn flow(id: u32, src: u32, dst: u32, size: u64) -> FlowSpec {
    FlowSpec {
        id,
        src,
        dst,
        size,
        start: Time::ZERO,
        pg: 3,
        dport: 100,
    }
}

const STORM_START: Time = Time::from_ns(10_000);
const DETECT: Delta = Delta::from_us(100);
const STOP: Time = Time::from_ns(2_000_000);

/// Hosts 0 and 1 on switch 4, hosts 2 and 3 on switch 5, 100 Gb/s and
/// 1 µs links, 4 MiB buffers. Host `stormer` (or a switch port, `(node, peer)`) pauses
/// class 3 without end from 10 µs. Flow 0 goes to host 2, flow 1 (the
/// innocent one) from host 1 to host 3.
fn storm_run(storm: (u32, u32), watchdog: Option<WatchdogConfig>) -> Simulation {
    let topo = topo::dumbbell(2, 2, Rate::gbps(100), Rate::gbps(100), Delta::from_us(1)).unwrap();
    let mut cfg = NetConfig {
        cc: CcConfig::None,
        stop_time: Some(STOP),
        ..NetConfig::default()
    };
    // A 4 MiB buffer fills within tens of µs, before the detection.
    cfg.buffer.size = 4 << 20;
    cfg.pfc.watchdog = watchdog;
    cfg.pfc_storms.push(StormConfig {
        node: storm.0,
        peer: storm.1,
        class: 3,
        start: STORM_START,
        stop: Time::MAX,
        interval: Delta::from_us(10),
    });
    let flows = vec![flow(0, 0, 2, 100_000_000), flow(1, 1, 3, 2_000_000)];
    let mut sim = Simulation::new(&topo, flows, cfg).unwrap();
    sim.record_pfc(true);
    sim.run();
    sim
}

fn wd() -> WatchdogConfig {
    WatchdogConfig {
        detect: DETECT,
        restore: Delta::from_us(100),
        ..WatchdogConfig::default()
    }
}

/// Pause frames received by switch 4's port towards switch 5 (local port
/// 2, the peer's interface 3): (time, pause).
fn pauses_at_s4_uplink(sim: &Simulation) -> Vec<(Time, bool)> {
    sim.results()
        .pfc_log
        .iter()
        .filter(|e| e.node == 4 && e.if_index == 3)
        .map(|e| (e.time, e.pause))
        .collect()
}

#[test]
fn a_storming_nic_blocks_innocent_flows_without_the_watchdog() {
    let sim = storm_run((2, 5), None);
    let r = sim.results();
    // The innocent flow never reaches host 2, yet it is stuck: switch 5
    // filled with flow 0's frames and paused switch 4's uplink for good.
    assert!(r.flows[1].end.is_none(), "{:?}", r.flows[1]);
    let log = pauses_at_s4_uplink(&sim);
    let (t, pause) = *log.last().expect("switch 4's uplink was paused");
    assert!(pause, "the uplink is still paused at the end");
    assert!(t < STORM_START + DETECT, "paused at {t}");
    // And the pause spread further: switch 4 paused the innocent sender.
    let host1 = r.ports.iter().find(|p| p.node == 1).expect("host 1's port");
    assert!(host1.fc.pause_rx[3] > 0);
    assert_eq!(r.ports.iter().map(|p| p.fc.storms[3]).sum::<u64>(), 0);
}

#[test]
fn the_watchdog_stops_the_spread_within_detection_and_one_rtt() {
    let sim = storm_run((2, 5), Some(wd()));
    let r = sim.results();
    // Switch 5's port to host 2 (its local port 0) detected one storm,
    // nothing else did, and nothing was restored (the storm goes on).
    for p in &r.ports {
        let want = u64::from(p.node == 5 && p.port == 0);
        assert_eq!(p.fc.storms[3], want, "node {} port {}", p.node, p.port);
        assert_eq!(p.fc.restores[3], 0);
    }
    let s5 = r.ports.iter().find(|p| p.node == 5 && p.port == 0).unwrap();
    assert!(s5.counters.flushed > 0, "its queue was dropped");
    // The uplink of switch 4 was paused by the spread, and resumed for good
    // within the detection time plus one round trip of the storm's start.
    let log = pauses_at_s4_uplink(&sim);
    assert!(
        log.iter().any(|&(_, p)| p),
        "the storm spread before detection"
    );
    let (t, pause) = *log.last().unwrap();
    assert!(!pause, "the uplink ends resumed");
    // One round trip between the switches and the stormer's host: 3 links
    // each way of 1 µs, and a frame's serialisation per hop.
    let rtt = Delta::from_us(6) + Rate::gbps(100).tx_time(6 * 1100);
    assert!(
        t <= STORM_START + DETECT + rtt,
        "resumed at {t}, after {}",
        STORM_START + DETECT + rtt
    );
    // The innocent flow finishes; the one into the storm does not.
    assert!(r.flows[1].end.is_some());
    assert!(r.flows[0].end.is_none());
}

/// A switch port that storms towards a host: the NIC's watchdog (Azure's
/// FPGA between server and T0) stops obeying it, and the host's flow
/// finishes.
#[test]
fn a_host_watchdog_ignores_a_storming_switch() {
    let without = storm_run((4, 1), None);
    assert!(without.results().flows[1].end.is_none());
    let sim = storm_run((4, 1), Some(wd()));
    let r = sim.results();
    let host1 = r.ports.iter().find(|p| p.node == 1).unwrap();
    assert_eq!(host1.fc.storms[3], 1);
    assert!(r.flows[1].end.is_some(), "{:?}", r.flows[1]);
    // Only the host's watchdog saw a storm.
    assert_eq!(r.ports.iter().map(|p| p.fc.storms[3]).sum::<u64>(), 1);
}

/// 8-to-1 incast: congestion pauses come and go, and the watchdog (at a
/// detection time far below the paper's, and still well above a
/// congestion pause) never fires.
#[test]
fn congestion_pauses_never_trip_the_watchdog() {
    let n = 8u32;
    let topo = topo::star(n + 1, Rate::gbps(100), Delta::from_us(1)).unwrap();
    let mut cfg = NetConfig {
        cc: CcConfig::None,
        ..NetConfig::default()
    };
    // An 8 MiB buffer: the 16 MB incast pauses its senders again and again.
    cfg.buffer.size = 8 << 20;
    cfg.pfc.watchdog = Some(WatchdogConfig {
        detect: Delta::from_us(50),
        restore: Delta::from_us(50),
        ..WatchdogConfig::default()
    });
    let flows = (0..n).map(|i| flow(i, i + 1, 0, 2_000_000)).collect();
    let mut sim = Simulation::new(&topo, flows, cfg).unwrap();
    sim.run();
    let r = sim.results();
    assert_eq!(r.unfinished(), 0);
    assert_eq!(r.drops(), 0);
    assert!(
        r.pause_frames() > 8,
        "congestion paused: {}",
        r.pause_frames()
    );
    // The incast lasted ~1.3 ms, 26 detection times, paused most of it.
    assert!(r.paused_ps() > 8 * DETECT.ps());
    for p in &r.ports {
        assert_eq!(p.fc.storms, [0; 8], "node {} port {}", p.node, p.port);
        assert_eq!(p.counters.flushed, 0);
    }
}
