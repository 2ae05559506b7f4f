//! Ideal per-flow flow control (`fc = "ideal_per_flow"`) in FlowSail's
//! micro-benchmark (FlowSail §VI-A, Fig. 9): only the flow that exceeds
//! its share at the bottleneck is paused, hop by hop, and the flows beside
//! it keep their rates.
//!
//! The network of Fig. 8 is `fig8/mod.rs`'s. Switch 1 and everything after
//! it see what the paper's do: 100 Gb/s of the three flows into P1.

use rdmasim_net::egress::EgressChoice;
use rdmasim_net::fc::{AnyFc, IdealPerFlowConfig};
use rdmasim_net::wire::PacketKind;
use rdmasim_net::{FcChoice, PortRule, PortSettings, RunResults, Simulation};
use topo::{LinkSpec, Topology};

mod fig8;
use fig8::{config, fig8, flows, run_fig9, FIG9_FLOWS, FRAME, SW1, SW2};

/// The link of local port `port` of `node` (a node's ports are its links
/// in link order).
fn link_of(topo: &Topology, node: u32, port: u16) -> &LinkSpec {
    topo.links
        .iter()
        .filter(|l| l.a == node || l.b == node)
        .nth(usize::from(port))
        .expect("the port exists")
}

/// Run the benchmark ([`fig8::run_fig9`]): each flow's rate in Gb/s,
/// measured where it leaves switch 2.
fn run(fc: Option<FcChoice>) -> (Topology, Simulation, RunResults, [f64; 3]) {
    let topo = fig8();
    let (sim, r, gbps) = run_fig9(&topo, config(&topo, fc));
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
    let err = Simulation::new(&topo, flows(1000, &FIG9_FLOWS), cfg).unwrap_err();
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
    let err = Simulation::new(&topo, flows(1000, &FIG9_FLOWS), cfg).unwrap_err();
    assert!(err.to_string().contains("queue of its own"), "{err}");
}
