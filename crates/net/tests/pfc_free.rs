//! The PFC-free transport (Bifröst's UC data path with a software control
//! path; `transport/pfc_free/`) in whole runs: robustness to random loss
//! (Bifröst §4.2.2, Fig. 7) and delivery exactly once.

use engine::{Delta, Rate, Time};
use rdmasim_net::transport::PfcFreeConfig;
use rdmasim_net::{RunResults, Simulation, Transport};
use workload::FlowSpec;

mod lossy_path;
use lossy_path::{flow, net, path, run, LINK};

/// Bytes delivered over the time from the first start to the last end, Gb/s.
fn goodput(r: &RunResults) -> f64 {
    assert_eq!(r.unfinished(), 0, "every flow finishes");
    let bytes: u64 = r.flows.iter().map(|f| f.size).sum();
    let start = r.flows.iter().map(|f| f.start).min().unwrap();
    let end = r.flows.iter().filter_map(|f| f.end).max().unwrap();
    bytes as f64 * 8.0 / (end - start).ps() as f64 * 1000.0
}

/// One connection of `requests` messages of `request` bytes, I/O depth 8.
fn pfc_free(request: u64, requests: u64, loss: f64) -> RunResults {
    let c = PfcFreeConfig {
        message: request,
        ..PfcFreeConfig::default()
    };
    let r = run(
        vec![flow(0, request * requests, Time::ZERO)],
        net(Transport::PfcFree(c), loss),
    );
    assert!(r.delivery_failures.is_empty(), "{:?}", r.delivery_failures);
    r
}

/// Bifröst Fig. 7's shape at 1/1024 random loss on the ToR port facing the
/// server: the PFC-free transport keeps at least 85% of its loss-free
/// goodput at request sizes 1 KB, 64 KB and 1 MB (measured: 100%, 92.6%,
/// 92.4%), every message delivered exactly once.
#[test]
fn pfc_free_keeps_its_goodput_under_random_loss() {
    for (request, n) in [(1024u64, 4096u64), (64 * 1024, 256), (1 << 20, 32)] {
        let clean = pfc_free(request, n, 0.0);
        let lossy = pfc_free(request, n, 1.0 / 1024.0);
        assert_eq!(clean.corrupted(), 0);
        assert!(lossy.corrupted() > 0, "{request} B: no frame was lost");
        let t = lossy.pfc_free.expect("the PFC-free transport ran");
        assert_eq!(t.receiver.messages, n, "each message handed over once");
        assert!(t.sender.lost_by_ack + t.sender.lost_by_timeout > 0);
        let kept = goodput(&lossy) / goodput(&clean);
        assert!(
            kept >= 0.85,
            "{request} B requests: {:.2} of {:.2} Gb/s kept ({:.1}%)",
            goodput(&lossy),
            goodput(&clean),
            kept * 100.0
        );
    }
}

/// Planned losses of a WQE's first, middle and last packets, and of a
/// retransmission: each costs its WQE, which is resent (by SENDs of one
/// unit), and the receiver hands every message over exactly once.
#[test]
fn planned_losses_cost_their_whole_wqe_and_nothing_else() {
    let c = PfcFreeConfig {
        message: 256 * 1024,
        ..PfcFreeConfig::default()
    };
    let size = 4 << 20;
    let mut sim = Simulation::new(
        &path(),
        vec![flow(0, size, Time::ZERO)],
        net(Transport::PfcFree(c), 0.0),
    )
    .unwrap();
    // The first packet of the flow (its first WQE's), one in the middle of
    // a chunk, the flow's very last byte's packet; and the same first
    // packet again, when resent.
    for seq in [0, 300 * 1024, size - 1024, 0] {
        sim.drop_once(0, seq);
    }
    sim.run();
    let r = sim.results();
    assert_eq!(r.unfinished(), 0);
    assert!(r.delivery_failures.is_empty(), "{:?}", r.delivery_failures);
    assert_eq!(r.corrupted(), 4);
    let t = r.pfc_free.unwrap();
    assert_eq!(t.receiver.messages, size / (256 * 1024));
    assert_eq!(t.receiver.bytes, size);
    // Only the lost WQEs' bytes come again: at most 4 chunks of 64 KB.
    let resent = r.flows[0].retransmitted;
    assert!(resent > 0 && resent <= 4 * 64 * 1024, "resent {resent}");
}

/// The runs' own end-of-run check: a flow whose receiver did not hand over
/// every byte is named.
#[test]
fn the_end_of_run_check_names_a_short_delivery() {
    let c = PfcFreeConfig::default();
    let rx = rdmasim_net::transport::Receiver::new(&Transport::PfcFree(c));
    let e = rx.check_delivered(10_000).unwrap_err();
    assert!(e.contains("submitted 0 bytes of the sender's 10000"), "{e}");
}

/// Beside PFC and DCQCN on a lossless class (Bifröst §4.3, and step 2 of
/// the upgrade of §4.6.1): a 3-to-1 incast of PFC-free connections drops
/// nothing, the switch marks ECN, and DCQCN hears the marks
/// through the software ACKs; every message arrives once.
#[test]
fn runs_beside_pfc_and_dcqcn_on_a_lossless_class() {
    use rdmasim_net::cc::{CcConfig, DcqcnConfig};
    let topo = topo::star(4, Rate::gbps(25), Delta::from_us(1)).unwrap();
    let flows = (0..3)
        .map(|i| FlowSpec {
            id: i,
            src: i,
            dst: 3,
            size: 4 << 20,
            start: Time::ZERO,
            pg: 3,
            dport: 100,
        })
        .collect::<Vec<_>>();
    let run_with = |cc: CcConfig| {
        let c = PfcFreeConfig {
            message: 256 * 1024,
            queue: rdmasim_net::transport::pfc_free::PfcFreeQueue::Lossless,
            ..PfcFreeConfig::default()
        };
        let mut cfg = net(Transport::PfcFree(c), 0.0);
        cfg.pfc.enabled = true;
        cfg.cc = cc;
        let mut sim = Simulation::new(&topo, flows.clone(), cfg).unwrap();
        sim.run();
        sim.results()
    };
    let r = run_with(CcConfig::Dcqcn(DcqcnConfig::default()));
    assert_eq!(r.unfinished(), 0);
    assert_eq!(r.drops(), 0, "a lossless class drops nothing");
    assert!(r.delivery_failures.is_empty(), "{:?}", r.delivery_failures);
    assert!(r.ecn_marks() > 0, "the incast queue marks");
    let t = r.pfc_free.unwrap();
    assert_eq!(t.receiver.messages, 3 * 16);
    assert_eq!(t.sender.lost_by_ack + t.sender.lost_by_timeout, 0);
    // Without DCQCN the same incast marks more: the hardware control
    // acted on the CNPs the software ACKs carried.
    let none = run_with(CcConfig::None);
    assert_eq!(none.drops(), 0);
    assert!(r.ecn_marks() < none.ecn_marks());
}

/// Bifröst Fig. 9's shape, scaled down: `clients` clients of `qps` QPs each
/// (32 KB requests, I/O depth 8, endless) into one server over 25 Gb/s
/// links, on a 1 MiB switch buffer, for 20 ms. Returns the switch drops
/// and the server's goodput (bytes placed for the first time), Gb/s.
fn incast(clients: u32, qps: u32, unit: u64) -> (u64, f64) {
    let c = PfcFreeConfig {
        message: 32 * 1024,
        unit,
        ..PfcFreeConfig::default()
    };
    let server = clients;
    let flows = workload::rpc_clients(
        &(0..clients).collect::<Vec<_>>(),
        server,
        qps,
        workload::ENDLESS,
        Time::ZERO,
        3,
        200,
    );
    let stop = Time::from_ns(20_000_000);
    let mut cfg = net(Transport::PfcFree(c), 0.0);
    cfg.stop_time = Some(stop);
    cfg.buffer.size = 1 << 20;
    let star = topo::star(clients + 1, Rate::gbps(LINK), Delta::from_us(1)).unwrap();
    let mut sim = Simulation::new(&star, flows, cfg).expect("valid scenario");
    sim.run();
    let r = sim.results();
    let t = r.pfc_free.expect("the PFC-free transport ran");
    let gbps = t.receiver.placed as f64 * 8.0 / r.end_time.ps() as f64 * 1000.0;
    (r.drops(), gbps)
}

/// The minimum window of one unit per QP (Bifröst §3.4.1, §4.4): 8
/// clients of 24 QPs with 1 KB units fit the buffer, so nothing is dropped
/// and the server's link carries goodput at 95% of its rate or more; with
/// 4 KB units they do not (768 KB in flight at the least, each client's
/// 96 KB above its share of the buffer), so the switch drops, yet the
/// link stays busy; 4 QPs a client with 4 KB units fit.
#[test]
fn the_minimum_chunk_decides_whether_a_large_incast_drops() {
    let (drops_1k, g_1k) = incast(8, 24, 1024);
    assert_eq!(drops_1k, 0, "1 KB units: no drop");
    assert!(g_1k >= 0.95 * LINK as f64, "1 KB units: {g_1k:.2} Gb/s");
    let (drops_4k, g_4k) = incast(8, 24, 4096);
    assert!(drops_4k > 0, "4 KB units: the floor overflows the buffer");
    assert!(g_4k >= 0.8 * LINK as f64, "4 KB units: {g_4k:.2} Gb/s");
    // Fewer QPs fit with 4 KB units too.
    let (drops_few, g_few) = incast(8, 4, 4096);
    assert_eq!(drops_few, 0, "4 QPs a client of 4 KB units fit");
    assert!(
        g_few >= 0.95 * LINK as f64,
        "4 QPs a client: {g_few:.2} Gb/s"
    );
}

/// One connection of 4 KB requests with the host CPU model (`[host]`):
/// `cores` per host, the costs given, the others the defaults.
fn with_cpu(post_wqe_ns: u64, parse_ack_ns: u64) -> RunResults {
    let c = PfcFreeConfig {
        message: 4096,
        ..PfcFreeConfig::default()
    };
    let mut cfg = net(Transport::PfcFree(c), 0.0);
    cfg.host = rdmasim_net::host_cpu::HostCpuConfig {
        cores: 1,
        post_wqe: Delta::from_ns(post_wqe_ns),
        parse_ack: Delta::from_ns(parse_ack_ns),
        ..Default::default()
    };
    let r = run(vec![flow(0, 4096 * 512, Time::ZERO)], cfg);
    assert!(r.delivery_failures.is_empty(), "{:?}", r.delivery_failures);
    r
}

/// The host CPU limits the rate: a sender whose one core takes longer to
/// post a WQE than the link takes to send it sends at the core's pace
/// (at most a WQE per post), and a core busy parsing ACKs delays the
/// posts behind it; the CPU share and the operation counts are reported
/// per host.
#[test]
fn a_busy_host_cpu_holds_back_the_sender() {
    let free = with_cpu(0, 0);
    let cheap = goodput(&free);
    assert_eq!(free.host_cpu.len(), 2, "a row per host");
    // 4 KB at 25 Gb/s take 1.3 us on the wire; a post of 4 us is slower.
    let slow_post = with_cpu(4000, 0);
    let rows = &slow_post.host_cpu;
    let sender = rows.iter().find(|r| r.node == 0).unwrap();
    let receiver = rows.iter().find(|r| r.node == 1).unwrap();
    let wqes = sender.totals.posts;
    assert!(wqes >= 512, "a WQE per 4 KB request at least: {wqes}");
    assert_eq!(receiver.totals.posts, 0, "the server posts no data");
    assert!(receiver.totals.acks_built > 0 && sender.totals.acks_parsed > 0);
    assert_eq!(receiver.messages_received, 512);
    assert_eq!(sender.messages_sent, 512);
    let bound = 4096.0 * 8.0 / 4000.0; // Gb/s: one 4 KB WQE per 4 us
    let g = goodput(&slow_post);
    assert!(g <= bound * 1.01, "{g:.2} Gb/s above the core's {bound:.2}");
    assert!(g < cheap / 2.0, "{g:.2} against {cheap:.2} Gb/s");
    // Parsing ACKs on the same core: the posts wait behind it.
    let slow_parse = goodput(&with_cpu(0, 40_000));
    assert!(
        slow_parse < cheap * 0.9,
        "{slow_parse:.2} against {cheap:.2}"
    );
}
