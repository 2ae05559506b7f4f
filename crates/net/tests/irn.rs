//! IRN (selective repeat on a lossy fabric) in whole networks
//! (Swing §2.1, §4.2, §6.1; transport/irn.rs).

use engine::{Delta, Rate, Time};
use rdmasim_net::{IrnConfig, NetConfig, RunResults, Simulation, Transport};
use topo::Topology;
use workload::FlowSpec;

fn flow(id: u32, src: u32, dst: u32, size: u64, start: Time) -> FlowSpec {
    FlowSpec {
        id,
        src,
        dst,
        size,
        start,
        pg: 3,
        dport: 100,
    }
}

/// A lossy fabric (PFC off, as IRN runs) with `transport`.
fn lossy(transport: Transport) -> NetConfig {
    let mut cfg = NetConfig {
        stop_time: Some(Time::from_ns(1_000_000_000)),
        ..NetConfig::default()
    };
    cfg.pfc.enabled = false;
    cfg.nic.transport = transport;
    cfg
}

fn irn(c: IrnConfig) -> NetConfig {
    lossy(Transport::Irn(c))
}

fn run_dropping(
    topo: &Topology,
    flows: Vec<FlowSpec>,
    cfg: NetConfig,
    drops: &[(u32, u64)],
) -> RunResults {
    let mut sim = Simulation::new(topo, flows, cfg).expect("valid scenario");
    for &(f, seq) in drops {
        sim.drop_once(f, seq);
    }
    sim.run();
    sim.results()
}

fn fct_ns(r: &RunResults, i: usize) -> u64 {
    (r.flows[i].end.expect("flow finished") - r.flows[i].start).ns()
}

fn total_retx(r: &RunResults) -> u64 {
    r.flows.iter().map(|f| f.retransmitted).sum()
}

/// IRN completes every flow under random loss (1% of frames on every link
/// of a k = 4 fat tree), retransmitting, and it resends a small fraction of
/// what go-back-N resends under the same loss.
#[test]
fn irn_completes_every_flow_under_random_loss() {
    let topo = topo::fat_tree(4, Rate::gbps(100), Rate::gbps(100), Delta::from_us(1)).unwrap();
    let hosts = topo.hosts();
    let flows: Vec<_> = (0..48u32)
        .map(|i| {
            let src = hosts[(i as usize * 5) % hosts.len()];
            let dst = hosts[(i as usize * 7 + 3) % hosts.len()];
            let dst = if dst == src {
                hosts[(i as usize + 1) % hosts.len()]
            } else {
                dst
            };
            let size = [3_000u64, 40_000, 300_000, 2_000_000][i as usize % 4];
            flow(i, src, dst, size, Time::from_ns(u64::from(i) * 2_000))
        })
        .collect();
    let with_loss = |mut cfg: NetConfig| {
        cfg.error_rate_per_link = 0.01;
        cfg
    };
    let r = run_dropping(
        &topo,
        flows.clone(),
        with_loss(irn(IrnConfig::default())),
        &[],
    );
    assert!(r.corrupted() > 100, "corrupted {}", r.corrupted());
    assert_eq!(r.unfinished(), 0);
    let irn_retx = total_retx(&r);
    assert!(irn_retx > 0);
    // Data crosses up to 6 links (≈ 6% loss per packet) and ACKs as many.
    // A NACK carries one SACK, so a lost NACK makes its packet look lost
    // too, and a lost retransmission waits for a timeout that resends every
    // packet not SACKed: IRN resends about twice the data lost (measured:
    // 12% of the bytes).
    let bytes: u64 = flows.iter().map(|f| f.size).sum();
    assert!(
        irn_retx < bytes / 6,
        "IRN resent {irn_retx} of {bytes} bytes at 1% loss"
    );

    let g = run_dropping(&topo, flows, with_loss(lossy(Transport::GoBackN)), &[]);
    assert_eq!(g.unfinished(), 0);
    // Measured: IRN 3.50 MB (73 timeouts), go-back-N 354 MB.
    assert!(
        total_retx(&g) > 10 * irn_retx,
        "go-back-N resent {} bytes, IRN {irn_retx}",
        total_retx(&g)
    );
}

/// Selective repeat: one lost packet in the middle of a flow is the only
/// packet resent, and the flow loses about one RTT; go-back-N resends
/// everything sent after it.
#[test]
fn one_loss_resends_one_packet() {
    let topo = topo::star(2, Rate::gbps(100), Delta::from_us(1)).unwrap();
    let flows = vec![flow(0, 0, 1, 1_000_000, Time::ZERO)];
    let drop = [(0, 100_000)];
    let r = run_dropping(&topo, flows.clone(), irn(IrnConfig::default()), &drop);
    assert_eq!(r.corrupted(), 1);
    assert_eq!(r.unfinished(), 0);
    assert_eq!(r.flows[0].retransmitted, 1_000, "exactly the lost packet");
    assert_eq!(r.flows[0].timeouts, 0, "a NACK reveals the loss");
    // The loss costs about one RTT (4 µs of propagation plus
    // serialisation), no timeout.
    let late = fct_ns(&r, 0) - r.flows[0].ideal_fct_ns;
    assert!(late < 6_000, "IRN late by {late} ns");

    let g = run_dropping(&topo, flows, lossy(Transport::GoBackN), &drop);
    assert_eq!(g.unfinished(), 0);
    assert!(
        g.flows[0].retransmitted >= 20_000,
        "go-back-N resent only {} bytes",
        g.flows[0].retransmitted
    );
}

/// Losses of several packets, retransmissions included, are each resent
/// once per loss.
#[test]
fn scattered_losses_resend_only_those_packets() {
    let topo = topo::star(2, Rate::gbps(100), Delta::from_us(1)).unwrap();
    let flows = vec![flow(0, 0, 1, 1_000_000, Time::ZERO)];
    // 200 and 201 back to back, 500, and 700 twice (its retransmission
    // is lost too and recovered by timeout).
    let drop = [
        (0, 200_000),
        (0, 201_000),
        (0, 500_000),
        (0, 700_000),
        (0, 700_000),
    ];
    let r = run_dropping(&topo, flows, irn(IrnConfig::default()), &drop);
    assert_eq!(r.corrupted(), 5);
    assert_eq!(r.unfinished(), 0);
    assert_eq!(r.flows[0].retransmitted, 5_000);
    assert_eq!(r.flows[0].timeouts, 1);
}

/// BDP-FC (Swing §4.2, Fig. 6b): a single flow on an 800 µs RTT path with
/// a 219-packet bitmap is window-limited at bitmap × payload / RTT
/// (≈ 2.19 Gb/s with 1000 B payloads), far below the 100 Gb/s line.
#[test]
fn small_bitmap_on_a_long_path_is_window_limited() {
    // Host - switch - host, 200 µs per link: base RTT 800 µs.
    let topo = topo::star(2, Rate::gbps(100), Delta::from_us(200)).unwrap();
    let size = 20_000_000u64;
    let flows = vec![flow(0, 0, 1, size, Time::ZERO)];
    let cfg = IrnConfig {
        bitmap_packets: 219,
        rto_low: Delta::from_us(817),
        rto_high: Delta::from_us(1875),
        ..IrnConfig::default()
    };
    let r = run_dropping(&topo, flows.clone(), irn(cfg), &[]);
    let fct = fct_ns(&r, 0);
    let goodput = size as f64 * 8.0 / (fct as f64 * 1e-9);
    // The RTT of a full packet and its ACK: 800 µs plus serialisation.
    let rtt = 800e-6 + 2.0 * (1048.0 + 60.0) * 8.0 / 100e9;
    let cap = 219.0 * 1000.0 * 8.0 / rtt;
    assert!(
        (goodput / cap - 1.0).abs() < 0.02,
        "goodput {:.3} Gb/s, cap {:.3} Gb/s",
        goodput / 1e9,
        cap / 1e9
    );
    assert_eq!(r.flows[0].retransmitted, 0);
    // With twice the bitmap, twice the goodput.
    let r2 = run_dropping(
        &topo,
        flows,
        irn(IrnConfig {
            bitmap_packets: 438,
            ..cfg
        }),
        &[],
    );
    let speedup = fct as f64 / fct_ns(&r2, 0) as f64;
    assert!((speedup - 2.0).abs() < 0.05, "speedup {speedup:.3}");
}

/// IRN's timeout choice: a lost tail, which no later packet can reveal,
/// waits RTO_low when fewer than N = 3 packets are in flight, RTO_high from
/// N on; the timeout resends exactly the lost tail.
#[test]
fn tail_loss_waits_rto_low_below_n_packets_and_rto_high_from_n() {
    let topo = topo::star(2, Rate::gbps(100), Delta::from_us(1)).unwrap();
    let size = 100_000u64;
    let flows = vec![flow(0, 0, 1, size, Time::ZERO)];
    let cfg = IrnConfig {
        rto_low: Delta::from_us(50),
        rto_high: Delta::from_us(500),
        ..IrnConfig::default()
    };
    let mut late = Vec::new();
    for lost in 1..=4u64 {
        let drops: Vec<_> = (0..lost).map(|k| (0, size - (k + 1) * 1000)).collect();
        let r = run_dropping(&topo, flows.clone(), irn(cfg), &drops);
        assert_eq!(r.unfinished(), 0);
        assert_eq!(r.flows[0].retransmitted, lost * 1000, "{lost} lost");
        assert_eq!(r.flows[0].timeouts, 1);
        late.push((fct_ns(&r, 0) - r.flows[0].ideal_fct_ns) as f64 / 1e3);
    }
    // The timer runs from the last ACK progress; the resent tail then takes
    // about one RTT (≈ 4 µs) more.
    for (i, &us) in late.iter().enumerate() {
        let (rto, name) = if i + 1 < 3 {
            (50.0, "RTO_low")
        } else {
            (500.0, "RTO_high")
        };
        assert!(
            us > rto - 5.0 && us < rto + 10.0,
            "{} lost: late {us:.1} us, expected about {name} {rto} us",
            i + 1
        );
    }
}

/// Without loss a lone IRN flow whose bitmap covers the BDP finishes at its
/// ideal FCT, as go-back-N does.
#[test]
fn lone_flow_with_a_bdp_bitmap_is_ideal() {
    let topo = topo::star(2, Rate::gbps(100), Delta::from_us(1)).unwrap();
    let packet_ns = Rate::gbps(100).tx_time(1048).ns();
    for size in [1_000u64, 20_000, 1_000_000] {
        let r = run_dropping(
            &topo,
            vec![flow(0, 0, 1, size, Time::ZERO)],
            irn(IrnConfig::default()),
            &[],
        );
        let fct = fct_ns(&r, 0);
        let ideal = r.flows[0].ideal_fct_ns;
        assert!(
            fct.abs_diff(ideal) <= packet_ns,
            "size {size}: fct {fct} ns vs ideal {ideal} ns"
        );
        assert_eq!(r.flows[0].retransmitted, 0);
    }
}
