//! FlowSail's micro-benchmark network (FlowSail §VI-A, Fig. 8), shared by
//! the tests that run Fig. 9 under each per-flow scheme.
//!
//! Senders into switch 1, whose port P1 leads to switch 2; switch 2's port
//! P2 leads to R1 and drains at 40 Gb/s, another port to R2. Flows f1 S→R1
//! at 60 Gb/s, f2 S→R1 at 20 Gb/s, f3 S→R2 at 20 Gb/s. rdmasim has no
//! per-flow sending rate, and the paper's S sends its UDP flows at fixed
//! rates; here each flow has a sender of its own whose link runs at the
//! flow's rate, with no congestion control, so it sends at exactly that
//! rate unless paused.

// Each test file is its own crate and uses only some of these.
#![allow(dead_code)]

use engine::{Delta, Rate, Time};
use rdmasim_net::wire::PacketKind;
use rdmasim_net::{FcChoice, NetConfig, PortRule, PortSettings, RunResults, Simulation};
use topo::{LinkSpec, NodeKind, Topology};
use workload::FlowSpec;

pub const SW1: u32 = 5;
pub const SW2: u32 = 6;
/// Switch 2's local ports: towards switch 1, P2 (R1), towards R2.
pub const SW2_P2: u16 = 1;
pub const SW2_TO_R2: u16 = 2;

/// A data frame: 1000 B of payload and 48 B of headers.
pub const FRAME: u64 = 1048;

/// f1, f2, f3: senders hosts 0, 1, 2; R1 and R2 hosts 3, 4.
pub const FIG9_FLOWS: [(u32, u32); 3] = [(0, 3), (1, 3), (2, 4)];

pub fn fig8() -> Topology {
    let us = Delta::from_us(1);
    let mut kinds = vec![NodeKind::Host; 5];
    kinds.extend([NodeKind::Switch; 2]);
    Topology {
        kinds,
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

/// One flow of `size` bytes per (src, dst) pair, all from t = 0.
pub fn flows(size: u64, pairs: &[(u32, u32)]) -> Vec<FlowSpec> {
    pairs
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
pub fn config(topo: &Topology, fc: Option<FcChoice>) -> NetConfig {
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

/// Run Fig. 9 (5 MB each: 2 ms at 20 Gb/s) on `topo` (Fig. 8) with
/// `cfg`; each flow's rate in Gb/s where it leaves switch 2, over the
/// middle three fifths of the time all three are active.
pub fn run_fig9(topo: &Topology, cfg: NetConfig) -> (Simulation, RunResults, [f64; 3]) {
    let mut sim = Simulation::new(topo, flows(5_000_000, &FIG9_FLOWS), cfg).unwrap();
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
    (sim, r, gbps)
}
