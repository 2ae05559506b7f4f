//! CBFC (InfiniBand credits) in whole networks: lossless with any buffer,
//! and reach-limited by the 12-bit field (Bifrost §III-A).

use engine::{Delta, Rate, Time};
use rdmasim_net::cc::CcConfig;
use rdmasim_net::fc::{AnyFc, CbfcConfig};
use rdmasim_net::{FcChoice, NetConfig, PortRule, PortSettings, Simulation};
use topo::{LinkSpec, NodeKind, Topology};
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

/// CBFC with `c` on both ends of every link (at hosts with `host_buffer`
/// advertised), no congestion control.
fn cbfc_everywhere(topo: &Topology, c: &CbfcConfig, host_buffer: u64) -> NetConfig {
    let mut cfg = NetConfig {
        cc: CcConfig::None,
        ..NetConfig::default()
    };
    for (link, l) in topo.links.iter().enumerate() {
        for (at_b, node) in [(false, l.a), (true, l.b)] {
            let mut c = c.clone();
            if topo.is_host(node) {
                c.buffer = host_buffer;
            }
            cfg.ports.push(PortRule {
                link: link as u32,
                at_b,
                settings: PortSettings {
                    fc: Some(FcChoice::Cbfc(c)),
                    ..PortSettings::default()
                },
            });
        }
    }
    cfg
}

/// 8-to-1 incast through one switch whose ingresses have 4 KiB each (less
/// than one hop's BDP of 25 kB): the switch never holds more than it
/// advertised, and nothing is dropped. (The hosts advertise 64 KiB: a NIC
/// consumes at once, and a 4 KiB credit loop would cap the receiver's
/// link.)
#[test]
fn cbfc_never_overruns_a_tiny_buffer_under_incast() {
    let n = 8u32;
    let topo = topo::star(n + 1, Rate::gbps(100), Delta::from_us(1)).unwrap();
    let buffer = 4096u64;
    for c in [CbfcConfig::real(buffer), CbfcConfig::ideal(buffer)] {
        let flows = (0..n).map(|i| flow(i, i + 1, 0, 1_000_000)).collect();
        let cfg = cbfc_everywhere(&topo, &c, 65536);
        let mut sim = Simulation::new(&topo, flows, cfg).unwrap();
        sim.run();
        let r = sim.results();
        assert_eq!(r.drops(), 0, "{c:?}");
        assert_eq!(r.unfinished(), 0, "{c:?}");
        // The switch is node n + 1; its port i faces host i.
        let mut peak = 0;
        for port in 0..=n as u16 {
            let Some(AnyFc::Cbfc(f)) = sim.fc_of(n + 1, port) else {
                panic!("port {port} runs CBFC")
            };
            peak = peak.max(f.stats().peak_held[3]);
            assert!(f.stats().peak_held[3] <= buffer);
        }
        // The senders were held back by credits, and the buffer was used.
        assert!(peak > buffer / 2, "peak {peak}");
        // The receiver's link stayed mostly busy (8 MB at 100 Gb/s is
        // 0.67 ms): 4 KiB holds three 1048 B frames, below one hop's BDP,
        // so each sender's credit loop caps it; together they get ~77 Gb/s.
        let end = r.flows.iter().map(|f| f.end.unwrap()).max().unwrap();
        let goodput = 8e6 * 8.0 / end.secs_f64() / 1e9;
        eprintln!(
            "incast {:?}: peak held {peak} B of {buffer}, goodput {goodput:.1} Gb/s",
            c.field_bits
        );
        assert!(goodput > 60.0, "{c:?}: goodput {goodput:.1} Gb/s");
    }
}

/// host 0 — A ══ 10 km ══ B — host 1, all 100 Gb/s, 2 MB per ingress.
fn long_line(km: u64) -> Topology {
    let d = Delta::from_us(1);
    Topology {
        kinds: vec![
            NodeKind::Host,
            NodeKind::Host,
            NodeKind::Switch,
            NodeKind::Switch,
        ],
        links: vec![
            LinkSpec::new(0, 2, Rate::gbps(100), d),
            LinkSpec::new(2, 3, Rate::gbps(100), Delta::from_us(5 * km)),
            LinkSpec::new(3, 1, Rate::gbps(100), d),
        ],
    }
}

/// The 12-bit field caps the credit in flight at 4095 blocks of 64 B, so
/// over 10 km (100 µs round trip) one flow gets at most 262 kB per credit
/// loop, about 21 Gb/s; CBFC-ideal with the same 2 MB buffer runs at line
/// rate. `rdmasim buffer` gives the same reach (2.1 km at 100 Gb/s).
#[test]
fn real_cbfc_is_reach_limited_and_ideal_is_not() {
    let topo = long_line(10);
    let size = 20_000_000u64;
    let mut goodput = Vec::new();
    for c in [CbfcConfig::real(2_000_000), CbfcConfig::ideal(2_000_000)] {
        let cfg = cbfc_everywhere(&topo, &c, 2_000_000);
        let mut sim = Simulation::new(&topo, vec![flow(0, 0, 1, size)], cfg).unwrap();
        sim.run();
        let r = sim.results();
        assert_eq!(r.drops(), 0);
        let fct = r.flows[0].end.unwrap() - r.flows[0].start;
        goodput.push(size as f64 * 8.0 / fct.secs_f64() / 1e9);
    }
    // Credit loop: 2 × 50 µs of fibre plus a few µs of hops and frames.
    let limit = 4095.0 * 64.0 * 8.0 / 100e-6 / 1e9;
    let (real, ideal) = (goodput[0], goodput[1]);
    eprintln!("10 km: real {real:.1} Gb/s (field limit {limit:.1}), ideal {ideal:.1} Gb/s");
    assert!(
        real < limit && real > 0.8 * limit,
        "real CBFC {real:.1} Gb/s; the 12-bit field allows {limit:.1} Gb/s"
    );
    assert!(ideal > 85.0, "CBFC-ideal {ideal:.1} Gb/s");
}

/// ACKs in the data class (`ack_high_prio` off) take credits like data, and
/// the NIC that receives them returns those credits: 4-to-1 incast of 2 MB
/// flows, far more ACKs than any buffer holds, all finish without loss.
#[test]
fn acks_in_the_data_class_return_their_credits() {
    let n = 4u32;
    let topo = topo::star(n + 1, Rate::gbps(100), Delta::from_us(1)).unwrap();
    let flows = (0..n).map(|i| flow(i, i + 1, 0, 2_000_000)).collect();
    let mut cfg = cbfc_everywhere(&topo, &CbfcConfig::real(16_384), 65_536);
    cfg.nic.ack_high_prio = false;
    cfg.nic.switch_ack_high_prio = false;
    // 8 MB take 0.7 ms; a credit leak would stall the run instead.
    cfg.stop_time = Some(Time::from_ns(20_000_000));
    let mut sim = Simulation::new(&topo, flows, cfg).unwrap();
    sim.run();
    let r = sim.results();
    assert_eq!(r.drops(), 0);
    assert_eq!(r.unfinished(), 0);
    // No retransmission timeout fired: nothing stalled on credits.
    assert!(r.flows.iter().all(|f| f.retransmitted == 0));
}

/// The initial credits are exchanged at link-up, before the run: on a
/// 100 km line (500 µs each way) the first frame leaves at once, so a
/// 1 MB flow completes (its last ACK back) in one round trip plus its
/// serialisation, about 1.09 ms, not half a millisecond later after a first
/// credit update has crossed the long link (1.59 ms).
#[test]
fn initial_credits_are_known_at_time_zero() {
    let topo = long_line(100);
    let size = 1_000_000u64;
    let cfg = cbfc_everywhere(&topo, &CbfcConfig::ideal(20_000_000), 20_000_000);
    let mut sim = Simulation::new(&topo, vec![flow(0, 0, 1, size)], cfg).unwrap();
    sim.run();
    let r = sim.results();
    assert_eq!(r.drops(), 0);
    let fct = r.flows[0].end.unwrap() - r.flows[0].start;
    // Round trip: 2 × (500 µs of fibre + 2 µs of host links); 1 MB at
    // 100 Gb/s is 80 µs plus headers; 120 µs covers serialisation and hops.
    let round_trip_us = 2 * (500 + 2);
    eprintln!("100 km, 1 MB: FCT {fct:?}");
    assert!(
        fct < Delta::from_us(round_trip_us + 120),
        "FCT {fct:?}: the sender waited for credits"
    );
}

/// Credits need both ends: CBFC on one end of a link only, or the 12-bit
/// field on one end and CBFC-ideal on the other, is refused when the
/// network is built (each would stall or drop: the far end ignores the
/// credit frames, or reads a 12-bit FCCL as a full one).
#[test]
fn cbfc_on_one_end_of_a_link_is_refused() {
    let topo = topo::star(3, Rate::gbps(100), Delta::from_us(1)).unwrap();
    let flows = || vec![flow(0, 1, 0, 10_000)];
    let all = cbfc_everywhere(&topo, &CbfcConfig::real(65536), 65536);
    // Link 1 joins host 1 and the switch (node 3); drop its host end's rule.
    let mut one_sided = all.clone();
    one_sided.ports.retain(|r| r.link != 1 || r.at_b);
    let e = Simulation::new(&topo, flows(), one_sided)
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("link 1") && e.contains("another flow control") && e.contains("cbfc"),
        "{e}"
    );
    let mut mixed = all.clone();
    for r in mixed.ports.iter_mut().filter(|r| r.link == 2 && r.at_b) {
        r.settings.fc = Some(FcChoice::Cbfc(CbfcConfig::ideal(65536)));
    }
    let e = Simulation::new(&topo, flows(), mixed)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("link 2") && e.contains("cbfc_ideal"), "{e}");
    assert!(Simulation::new(&topo, flows(), all).is_ok());
}
