//! The per-flow egress (`egress = "per_flow"`) at a bottleneck: flows
//! take turns one frame each, so a short flow that arrives behind a
//! queue of long ones is not served after that queue, and long flows
//! that start together end together.

use engine::{Delta, Rate, Time};
use rdmasim_net::egress::EgressChoice;
use rdmasim_net::{NetConfig, PortRule, PortSettings, RunResults, Simulation};
use workload::FlowSpec;

fn flow(id: u32, src: u32, size: u64, start: Time) -> FlowSpec {
    FlowSpec {
        id,
        src,
        dst: 0,
        size,
        start,
        pg: 3,
        dport: 100,
    }
}

/// Three 2 MB flows into host 0 from t = 0, and a 50 KB flow that starts
/// at 60 us, when the bottleneck's queue holds about a megabyte; no
/// congestion control, so the queue is the switch's to serve. The
/// switch port towards host 0 runs `egress`.
fn incast(egress: EgressChoice) -> RunResults {
    let topo = topo::star(5, Rate::gbps(100), Delta::from_us(1)).unwrap();
    // Link 0 joins host 0 and the switch; the switch is its `b` end.
    assert!(topo.is_host(topo.links[0].a) && !topo.is_host(topo.links[0].b));
    let mut cfg = NetConfig::default();
    cfg.ports.push(PortRule {
        link: 0,
        at_b: true,
        settings: PortSettings {
            egress: Some(egress),
            ..PortSettings::default()
        },
    });
    let flows = vec![
        flow(0, 1, 2_000_000, Time::ZERO),
        flow(1, 2, 2_000_000, Time::ZERO),
        flow(2, 3, 2_000_000, Time::ZERO),
        flow(3, 4, 50_000, Time::from_ns(60_000)),
    ];
    let mut sim = Simulation::new(&topo, flows, cfg).expect("valid scenario");
    sim.run();
    sim.results()
}

fn fct_ns(r: &RunResults, i: usize) -> u64 {
    (r.flows[i].end.expect("flow finished") - r.flows[i].start).ns()
}

#[test]
fn a_short_flow_is_not_served_after_the_queue_of_long_ones() {
    let fifo = incast(EgressChoice::Classes);
    let fair = incast(EgressChoice::PerFlow);
    for r in [&fifo, &fair] {
        assert_eq!(r.unfinished(), 0);
        assert_eq!(r.drops(), 0);
    }
    // In one class queue the short flow waits behind everything queued
    // before it; taking turns, it gets a quarter of the link at once.
    let (behind, in_turn) = (fct_ns(&fifo, 3), fct_ns(&fair, 3));
    assert!(
        in_turn * 2 < behind,
        "short flow: {in_turn} ns taking turns, {behind} ns in one queue"
    );
}

#[test]
fn long_flows_that_start_together_end_together() {
    let r = incast(EgressChoice::PerFlow);
    let ends: Vec<u64> = (0..3).map(|i| fct_ns(&r, i)).collect();
    let (lo, hi) = (ends.iter().min().unwrap(), ends.iter().max().unwrap());
    // Within a few frames' time of each other (one frame is 84 ns).
    assert!(hi - lo < 2_000, "long flows end at {ends:?} ns");
}

#[test]
fn a_host_port_takes_no_egress_choice() {
    let topo = topo::star(2, Rate::gbps(100), Delta::from_us(1)).unwrap();
    let mut cfg = NetConfig::default();
    cfg.ports.push(PortRule {
        link: 0,
        at_b: false,
        settings: PortSettings {
            egress: Some(EgressChoice::PerFlow),
            ..PortSettings::default()
        },
    });
    let err = Simulation::new(&topo, vec![flow(0, 1, 1000, Time::ZERO)], cfg).unwrap_err();
    assert!(
        err.to_string().contains("egress applies to switch ports"),
        "{err}"
    );
}
