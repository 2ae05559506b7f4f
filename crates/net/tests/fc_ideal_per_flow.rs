//! Ideal per-flow flow control (`fc = "ideal_per_flow"`) in FlowSail's
//! micro-benchmark (FlowSail §VI-A, Fig. 9): only the flow that exceeds
//! its share at the bottleneck is paused, hop by hop, and the flows beside
//! it keep their rates.
//!
//! The network of Fig. 8: senders into switch 1, whose port P1 leads to
//! switch 2; switch 2's port P2 leads to R1 and drains at 40 Gb/s, another
//! port to R2. Flows f1 S→R1 at 60 Gb/s, f2 S→R1 at 20 Gb/s, f3 S→R2 at
//! 20 Gb/s. rdmasim has no per-flow sending rate, and the paper's S sends
//! its UDP flows at fixed rates; here each flow has a sender of its own
//! whose link runs at the flow's rate, with no congestion control, so it
//! sends at exactly that rate unless paused. Switch 1 and everything after
//! it see what the paper's do: 100 Gb/s of the three flows into P1.

use engine::{Delta, Rate, Time};
use rdmasim_net::egress::EgressChoice;
use rdmasim_net::fc::{AnyFc, IdealPerFlowConfig};
use rdmasim_net::wire::PacketKind;
use rdmasim_net::{FcChoice, NetConfig, PortRule, PortSettings, RunResults, Simulation};
use topo::{LinkSpec, NodeKind, Topology};
use workload::FlowSpec;

const SW1: u32 = 5;
const SW2: u32 = 6;
/// Switch 2's local ports: towards switch 1, P2 (R1), towards R2.
const SW2_P2: u16 = 1;
const SW2_TO_R2: u16 = 2;

/// A data frame: 1000 B of payload and 48 B of headers.
const FRAME: u64 = 1048;

/// The link of local port `port` of `node` (a node's ports are its links
/// in link order).
fn link_of(topo: &Topology, node: u32, port: u16) -> &LinkSpec {
    topo.links
        .iter()
        .filter(|l| l.a == node || l.b == node)
        .nth(usize::from(port))
        .expect("the port exists")
}

/// f1's, f2's and f3's senders are hosts 0, 1, 2; R1 and R2 hosts 3, 4.
fn fig8() -> Topology {
    let us = Delta::from_us(1);
    Topology {
        kinds: vec![
            NodeKind::Host,
            NodeKind::Host,
            NodeKind::Host,
            NodeKind::Host,
            NodeKind::Host,
            NodeKind::Switch,
            NodeKind::Switch,
        ],
        links: vec![
            LinkSpec::new(0, SW1, Rate::gbps(60), us),
            LinkSpec::new(1, SW1, Rate::gbps(20), us),
            LinkSpec::new(2, SW1, Rate::gbps(20), us),
            // P1.
            LinkSpec::new(SW1, SW2, Rate::gbps(100), us),
            // P2: the bottleneck.
            LinkSpec::new(SW2, 3, Rate::gbps(40), us),
            LinkSpec::new(SW2, 4, Rate::gbps(100), us),
        ],
    }
}

/// Each flow sends `size` bytes from t = 0.
fn flows(size: u64) -> Vec<FlowSpec> {
    [(0, 3), (1, 3), (2, 4)]
        .iter()
        .enumerate()
        .map(|(id, &(src, dst))| FlowSpec {
            id: id as u32,
            src,
            dst,
            size,
            start: Time::ZERO,
            pg: 3,
            dport: 100,
        })
        .collect()
}

/// `fc` on both ends of every link (`None`: the network-wide PFC).
fn config(topo: &Topology, fc: Option<FcChoice>) -> NetConfig {
    let mut cfg = NetConfig::default();
    // FlowSail §VI-B's switch buffer.
    cfg.buffer.size = 12_000_000;
    if let Some(fc) = fc {
        for link in 0..topo.links.len() as u32 {
            for at_b in [false, true] {
                cfg.ports.push(PortRule {
                    link,
                    at_b,
                    settings: PortSettings {
                        fc: Some(fc.clone()),
                        ..PortSettings::default()
                    },
                });
            }
        }
    }
    cfg
}

/// Run the benchmark; each flow's rate in Gb/s, measured where it leaves
/// switch 2 over the middle three fifths of the time all three are
/// active.
fn run(fc: Option<FcChoice>) -> (Topology, Simulation, RunResults, [f64; 3]) {
    let topo = fig8();
    // 5 MB: 2 ms at 20 Gb/s.
    let mut sim = Simulation::new(&topo, flows(5_000_000), config(&topo, fc)).unwrap();
    sim.trace_tx(SW1);
    sim.trace_tx(SW2);
    sim.run();
    let r = sim.results();
    let first_end = r.flows.iter().map(|f| f.end.unwrap()).min().unwrap();
    let (t1, t2) = (Time(first_end.ps() / 5), Time(first_end.ps() * 4 / 5));
    let mut bytes = [0u64; 3];
    for e in sim.tx_log() {
        let out = (e.port == SW2_P2 || e.port == SW2_TO_R2) && e.node == SW2;
        if out && e.kind == PacketKind::Data && e.time >= t1 && e.time < t2 {
            bytes[e.flow as usize] += FRAME;
        }
    }
    let gbps = bytes.map(|b| b as f64 * 8.0 / (t2 - t1).secs_f64() / 1e9);
    (topo, sim, r, gbps)
}

#[test]
fn only_the_flow_over_its_share_is_paused_and_the_others_keep_their_rates() {
    let (topo, sim, r, gbps) = run(Some(FcChoice::IdealPerFlow(IdealPerFlowConfig::default())));
    assert_eq!(r.unfinished(), 0);
    assert_eq!(r.drops(), 0);
    let [f1, f2, f3] = gbps;
    // f2 and f3 at their sending rate; f1 gets the rest of P2's 40 Gb/s.
    assert!((f2 - 20.0).abs() <= 1.0, "f2 at {f2:.2} Gb/s");
    assert!((f3 - 20.0).abs() <= 1.0, "f3 at {f3:.2} Gb/s");
    assert!((f1 - 20.0).abs() <= 1.0, "f1 at {f1:.2} Gb/s");
    // Every per-flow pause frame either switch sent names f1, and some
    // were sent: by switch 2 (to P1) and by switch 1 (to f1's sender).
    let pauses: Vec<_> = sim
        .tx_log()
        .iter()
        .filter(|e| e.kind == PacketKind::FlowPause)
        .collect();
    assert!(pauses.iter().all(|e| e.flow == 0), "only f1 is paused");
    for node in [SW1, SW2] {
        assert!(
            pauses.iter().any(|e| e.node == node),
            "switch {node} paused f1"
        );
    }
    assert!(r.pause_frames() > 0 && r.pause_frames() == r.resume_frames());
    // Every PAUSE met its RESUME: no port holds a flow back, or has one
    // held back, at the end.
    for node in [0, 1, 2, 3, 4, SW1, SW2] {
        for port in 0.. {
            let Some(fc) = sim.fc_of(node, port) else {
                break;
            };
            let AnyFc::IdealPerFlow(f) = fc else {
                panic!("node {node} port {port} runs ideal per-flow FC")
            };
            assert!(f.paused_by_this_port().is_empty(), "node {node}");
            assert!(f.paused_at_this_port().is_empty(), "node {node}");
            // A flow's queue at an ingress stays within its pause
            // threshold plus what reaches it before the PAUSE takes hold:
            // the frame that crossed the threshold, the one the PAUSE
            // waits behind here, the one the upstream is sending when it
            // arrives, and a round trip of the link at its rate.
            let link = link_of(&topo, node, port);
            let round_trip = link.rate.bps() * 2 * link.delay.ps() / 8 / 1_000_000_000_000;
            let bound = f.config().pause + 3 * FRAME + 64 + round_trip;
            let peak = f.stats().peak_flow_bytes;
            assert!(
                peak <= bound,
                "node {node} port {port}: {peak} B of one flow, bound {bound} B"
            );
        }
    }
}

/// The same network under PFC with one queue per class: f2 waits in P2's
/// queue behind f1's frames and gets P2 in proportion to what it sends
/// (a quarter, 10 Gb/s), not its 20 Gb/s. What the test above checks is
/// what one queue per flow and the per-flow pause add.
#[test]
fn under_pfc_and_class_queues_the_small_flow_loses_its_rate() {
    let (_, _, r, [f1, f2, _]) = run(None);
    assert_eq!(r.drops(), 0);
    assert!(f2 < 15.0, "f2 at {f2:.2} Gb/s under PFC");
    assert!(f1 > 25.0, "f1 at {f1:.2} Gb/s under PFC");
}

#[test]
fn both_ends_of_a_link_must_run_it() {
    let topo = fig8();
    let mut cfg = config(&topo, None);
    cfg.ports.push(PortRule {
        link: 3,
        at_b: false,
        settings: PortSettings {
            fc: Some(FcChoice::IdealPerFlow(IdealPerFlowConfig::default())),
            ..PortSettings::default()
        },
    });
    let err = Simulation::new(&topo, flows(1000), cfg).unwrap_err();
    assert!(err.to_string().contains("both ends of a link"), "{err}");
}

#[test]
fn a_switch_port_running_it_refuses_a_shared_queue() {
    let topo = fig8();
    let mut cfg = config(
        &topo,
        Some(FcChoice::IdealPerFlow(IdealPerFlowConfig::default())),
    );
    cfg.ports.push(PortRule {
        link: 3,
        at_b: false,
        settings: PortSettings {
            egress: Some(EgressChoice::Classes),
            ..PortSettings::default()
        },
    });
    let err = Simulation::new(&topo, flows(1000), cfg).unwrap_err();
    assert!(err.to_string().contains("queue of its own"), "{err}");
}
