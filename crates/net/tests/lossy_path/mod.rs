//! The single path of Bifröst Fig. 7, shared by the PFC-free transport's
//! whole-run tests: two hosts on one ToR at 25 Gb/s, a lossy fabric (no
//! PFC) with the paper's 1024 B MTU (Bifröst Table 2), random loss on the
//! ToR port facing the server (host 1).

// Each test file is its own crate and uses only some of these.
#![allow(dead_code)]

use engine::{Delta, Rate, Time};
use rdmasim_net::{NetConfig, PortRule, PortSettings, RunResults, Simulation, Transport};
use topo::Topology;
use workload::FlowSpec;

/// The path's link rate, Gb/s.
pub const LINK: u64 = 25;

/// Flow `id` of `size` bytes from host 0 to host 1, from `start`.
pub fn flow(id: u32, size: u64, start: Time) -> FlowSpec {
    FlowSpec {
        id,
        src: 0,
        dst: 1,
        size,
        start,
        pg: 3,
        dport: 100,
    }
}

/// Two hosts on one ToR, 25 Gb/s.
pub fn path() -> Topology {
    topo::star(2, Rate::gbps(LINK), Delta::from_us(1)).unwrap()
}

/// The fabric with `transport` on the hosts, losing `loss` of the frames
/// the ToR sends to the server.
pub fn net(transport: Transport, loss: f64) -> NetConfig {
    let mut cfg = NetConfig {
        stop_time: Some(Time::from_ns(2_000_000_000)),
        ..NetConfig::default()
    };
    cfg.pfc.enabled = false;
    cfg.nic.mtu_payload = 1024;
    cfg.nic.transport = transport;
    if loss > 0.0 {
        cfg.ports.push(PortRule {
            link: 1,
            at_b: true,
            settings: PortSettings {
                loss: Some(loss),
                ..PortSettings::default()
            },
        });
    }
    cfg
}

/// `flows` on the path under `cfg`, run to the end.
pub fn run(flows: Vec<FlowSpec>, cfg: NetConfig) -> RunResults {
    let mut sim = Simulation::new(&path(), flows, cfg).expect("valid scenario");
    sim.run();
    sim.results()
}
