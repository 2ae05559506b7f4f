//! Hop-by-hop flow control across one long link, against the closed forms
//! of Swing §4.1 (native PFC, Eq. 4) and §5.2 (the PFC relay's one-BDP
//! bound, Fig. 11, Eq. 6).
//!
//! The network: `sender — E_A — long link — E_B — receiver`, or with relays
//! `sender — E_A — R_A — long link — R_B — E_B — receiver`. Every link but
//! the long one has 1 µs of delay; no congestion control, so the sender
//! runs at line rate and only flow control holds it back.

use engine::{Delta, Rate, Time};
use rdmasim_net::cc::CcConfig;
use rdmasim_net::{FcChoice, NetConfig, PortRule, PortSettings, Simulation};
use topo::{LinkSpec, NodeKind, Topology};
use workload::FlowSpec;

const BW: Rate = Rate::gbps(100);
/// One-way delay of the long link: 20 km.
const D: Delta = Delta::from_us(100);
/// 2·D·BW: 2.5 MB.
const BDP: u64 = 2 * 100 * 12_500_000 / 1000;
const SENDER: u32 = 0;
const RECEIVER: u32 = 1;
const EA: u32 = 2;
const EB: u32 = 3;
const RB: u32 = 5;

fn flow(size: u64) -> Vec<FlowSpec> {
    vec![FlowSpec {
        id: 0,
        src: SENDER,
        dst: RECEIVER,
        size,
        start: Time::ZERO,
        pg: 3,
        dport: 100,
    }]
}

fn short(a: u32, b: u32, rate: Rate) -> LinkSpec {
    LinkSpec::new(a, b, rate, Delta::from_us(1))
}

fn base_config() -> NetConfig {
    let mut cfg = NetConfig {
        cc: CcConfig::None,
        ..NetConfig::default()
    };
    cfg.nic.rto = None;
    cfg.ecn.enabled = false;
    cfg
}

fn rule(link: u32, at_b: bool, settings: PortSettings) -> PortRule {
    PortRule {
        link,
        at_b,
        settings,
    }
}

/// Native PFC: E_B's ingress from the long link (link 2) owns `xoff` +
/// `headroom` bytes, XON = XOFF (Swing §4.1). The receiver's link drains at
/// `drain`.
fn native(drain: Rate, xoff: u64, headroom: u64) -> (Topology, NetConfig) {
    let topo = Topology {
        kinds: vec![
            NodeKind::Host,
            NodeKind::Host,
            NodeKind::Switch,
            NodeKind::Switch,
        ],
        links: vec![
            short(SENDER, EA, BW),
            short(EB, RECEIVER, drain),
            LinkSpec::new(EA, EB, BW, D),
        ],
    };
    let mut cfg = base_config();
    cfg.ports.push(rule(
        2,
        true,
        PortSettings {
            xoff: Some(xoff),
            headroom: Some(headroom),
            ..PortSettings::default()
        },
    ));
    (topo, cfg)
}

/// Swing (§5.2, Fig. 8): relays R_A (node 4) and R_B (node 5). Their L ports
/// (links 2, 3) run PFC at 100 KB / 60 KB and relay what they receive; their
/// R ports (link 4) obey only, R_B's owning `relay_buffer` bytes.
fn swing(drain: Rate, relay_buffer: u64) -> (Topology, NetConfig) {
    let topo = Topology {
        kinds: vec![
            NodeKind::Host,
            NodeKind::Host,
            NodeKind::Switch,
            NodeKind::Switch,
            NodeKind::Switch,
            NodeKind::Switch,
        ],
        links: vec![
            short(SENDER, EA, BW),
            short(EB, RECEIVER, drain),
            short(EA, 4, BW),
            short(RB, EB, BW),
            LinkSpec::new(4, RB, BW, D),
        ],
    };
    let mut cfg = base_config();
    let access = PortSettings {
        xoff: Some(100_000),
        headroom: Some(60_000),
        ..PortSettings::default()
    };
    let mode = cfg.pfc.mode;
    for (link, at_b) in [(2, false), (2, true), (3, false), (3, true)] {
        let relay_end = (link == 2 && at_b) || (link == 3 && !at_b);
        cfg.ports.push(rule(
            link,
            at_b,
            PortSettings {
                relay_pfc: relay_end,
                ..access.clone()
            },
        ));
    }
    for at_b in [false, true] {
        cfg.ports.push(rule(
            4,
            at_b,
            PortSettings {
                xoff: Some(relay_buffer),
                headroom: Some(0),
                fc: Some(FcChoice::PfcObeyOnly(mode)),
                ..PortSettings::default()
            },
        ));
    }
    (topo, cfg)
}

/// Data frames the receiver's link carried between `from` and `to`.
fn frames_between(sim: &mut Simulation, from: Time, to: Time) -> u64 {
    sim.run_until(from);
    let a = sim.data_frames_sent(EB, 0);
    sim.run_until(to);
    sim.data_frames_sent(EB, 0) - a
}

/// Swing Eq. 4 (§4.1): utilisation of the long link under native PFC with
/// `b_a` bytes of buffer, X_off = B_a − 2D·BW.
fn eq4(d_s: f64, alpha: f64, b_a: f64, bw_bytes: f64) -> f64 {
    let t3 = (b_a - 2.0 * d_s * bw_bytes) / (alpha * bw_bytes);
    if t3 >= 2.0 * d_s {
        alpha
    } else {
        alpha * (2.0 * bw_bytes * d_s * alpha - b_a)
            / (2.0 * bw_bytes * d_s * (-1.0 + alpha + alpha * alpha) - alpha * b_a)
    }
}

/// Swing §4.1, Fig. 5: with one BDP of headroom native PFC is lossless but the
/// long link runs below the draining rate (as Eq. 4 predicts); with two BDPs of
/// buffer it runs at the draining rate.
#[test]
fn native_pfc_needs_two_bdp_for_full_throughput() {
    let alpha = 0.8;
    let drain = Rate::gbps(80);
    // Headroom: the BDP plus what arrives while the XOFF waits behind a
    // frame on the wire at each end (rdmasim's frame terms).
    let headroom = BDP + 30_000;
    let window = (
        Time::ZERO + Delta::from_ms(2),
        Time::ZERO + Delta::from_ms(6),
    );
    let secs = (window.1 - window.0).ps() as f64 / 1e12;
    let drain_frames = drain.bps() as f64 * secs / (1048.0 * 8.0);
    let mut measured = Vec::new();
    for xoff in [50_000u64, BDP + 50_000] {
        let (topo, cfg) = native(drain, xoff, headroom);
        let mut sim = Simulation::new(&topo, flow(200_000_000), cfg).unwrap();
        let frames = frames_between(&mut sim, window.0, window.1);
        let r = sim.results();
        assert_eq!(
            r.drops(),
            0,
            "xoff {xoff}: PFC with 1 BDP of headroom is lossless"
        );
        let phi = frames as f64 / drain_frames * alpha;
        let b_a = (xoff + headroom) as f64;
        let expect = eq4(D.ps() as f64 / 1e12, alpha, b_a, 12.5e9);
        measured.push((xoff, phi, expect));
    }
    let (_, phi_1, expect_1) = measured[0];
    let (_, phi_2, expect_2) = measured[1];
    // 1 BDP: well below the draining rate, near Eq. 4.
    assert!(expect_1 < 0.7 * alpha, "Eq. 4 at 1 BDP: {expect_1}");
    assert!(
        (phi_1 - expect_1).abs() <= 0.1 * expect_1,
        "1 BDP: utilisation {phi_1:.3}, Eq. 4 {expect_1:.3}"
    );
    // 2 BDP: the draining rate.
    assert_eq!(expect_2, alpha);
    assert!(
        phi_2 >= 0.98 * alpha,
        "2 BDP: utilisation {phi_2:.3} vs {alpha}"
    );
}

/// Peak bytes held for the relay R_B's long-haul ingress (its port 1).
fn relay_peak(sim: &Simulation) -> u64 {
    let r = sim.results();
    r.ports
        .iter()
        .find(|p| p.node == RB && p.port == 1)
        .unwrap()
        .counters
        .peak_ingress
}

/// What may arrive beyond 2·D·BW before a relayed pause takes effect: the
/// two 1 µs access-link crossings of the PAUSE and the frames in
/// serialisation at E_B, R_B and R_A (Swing §5.2's bound has none of these).
// 12,500 B per µs at 100 Gb/s.
const RELAY_SLACK: u64 = 2 * 12_500 + 4 * 1048;

/// Swing §5.2, Fig. 11: the relay's long-haul queue never exceeds one BDP
/// (plus the access-link slack), here with the drain stalled for 20 RTTs.
#[test]
fn relay_queue_stays_within_one_bdp_when_the_drain_stalls() {
    let (topo, cfg) = swing(BW, BDP + 100_000);
    let mut sim = Simulation::new(&topo, flow(30_000_000), cfg).unwrap();
    sim.run_until(Time::ZERO + Delta::from_us(50));
    sim.hold_egress(EB, 0, true);
    sim.run_until(Time::ZERO + Delta::from_ms(4));
    sim.hold_egress(EB, 0, false);
    sim.run();
    let r = sim.results();
    assert_eq!(r.unfinished(), 0);
    assert_eq!(r.drops(), 0);
    let peak = relay_peak(&sim);
    assert!(
        peak <= BDP + RELAY_SLACK,
        "relay queue peaked at {peak} B, BDP {BDP} B"
    );
    // The stall really filled it: a test of the bound, not of an idle relay.
    assert!(peak >= BDP * 9 / 10, "relay queue only reached {peak} B");
}

/// The same bound under a drain that starts and stops at random (Swing §5.2:
/// the curve of Fig. 11 "is arbitrary").
#[test]
fn relay_queue_stays_within_one_bdp_under_a_fluctuating_drain() {
    let (topo, cfg) = swing(BW, BDP + 100_000);
    let mut sim = Simulation::new(&topo, flow(40_000_000), cfg).unwrap();
    let mut rng = engine::Rng::stream(7, 99, 0);
    let mut t = Time::ZERO + Delta::from_us(20);
    let mut held = false;
    while t < Time::ZERO + Delta::from_ms(5) {
        sim.run_until(t);
        held = !held;
        sim.hold_egress(EB, 0, held);
        // Hold for 5..300 µs, run for 5..100 µs.
        let us = if held {
            5 + rng.below(295)
        } else {
            5 + rng.below(95)
        };
        t += Delta::from_us(us);
    }
    sim.hold_egress(EB, 0, false);
    sim.run();
    let r = sim.results();
    assert_eq!(r.unfinished(), 0);
    assert_eq!(r.drops(), 0);
    let peak = relay_peak(&sim);
    assert!(
        peak <= BDP + RELAY_SLACK,
        "relay queue peaked at {peak} B, BDP {BDP} B"
    );
    assert!(
        peak >= BDP / 4,
        "the drain's stalls should fill the relay: {peak} B"
    );
}

/// Swing Eq. 6 (§5.2, Fig. 12): with relays and one BDP of relay buffer the
/// long link runs at the draining rate, where native PFC with the same buffer
/// (1 BDP of headroom) does not.
#[test]
fn relay_keeps_the_draining_rate_with_one_bdp() {
    let drain = Rate::gbps(80);
    let window = (
        Time::ZERO + Delta::from_ms(2),
        Time::ZERO + Delta::from_ms(6),
    );
    let secs = (window.1 - window.0).ps() as f64 / 1e12;
    let drain_frames = drain.bps() as f64 * secs / (1048.0 * 8.0);
    let (topo, cfg) = swing(drain, BDP + 100_000);
    let mut sim = Simulation::new(&topo, flow(200_000_000), cfg).unwrap();
    let frames = frames_between(&mut sim, window.0, window.1);
    assert_eq!(sim.results().drops(), 0);
    let util = frames as f64 / drain_frames;
    assert!(util >= 0.98, "relay: {util:.3} of the draining rate");
    assert!(relay_peak(&sim) <= BDP + RELAY_SLACK);
}
