//! A lossless and a lossy data class on one port (Bifröst §4.3, §4.6.1):
//! go-back-N RC with DCQCN on a class PFC protects, the PFC-free
//! transport on a class it does not (`[pfc] classes`, `[transport]
//! class`), both through one congested switch port.

use engine::{Delta, Rate, Time};
use rdmasim_net::cc::{CcConfig, DcqcnConfig};
use rdmasim_net::transport::PfcFreeConfig;
use rdmasim_net::{BufferConfig, NetConfig, RunResults, Simulation, Transport};
use workload::FlowSpec;

const LOSSLESS: u8 = 3;
const LOSSY: u8 = 4;
/// Connections per host, and bytes each (four messages).
const QPS: u32 = 4;
const SIZE: u64 = 1 << 20;

/// Hosts 0–2 send class 3 (go-back-N, DCQCN) and hosts 3–5 class 4 (the
/// PFC-free transport), `QPS` connections each, to host 6, all at once over 25 Gb/s links; class 4
/// is `lossy` (PFC leaves it out) or lossless too.
fn run(lossy: bool) -> RunResults {
    let topo = topo::star(7, Rate::gbps(25), Delta::from_us(1)).unwrap();
    let flows = (0..6 * QPS)
        .map(|i| FlowSpec {
            id: i,
            src: i / QPS,
            dst: 6,
            size: SIZE,
            start: Time::ZERO,
            pg: if i / QPS < 3 { LOSSLESS } else { LOSSY },
            dport: 100,
        })
        .collect::<Vec<_>>();
    let pf = PfcFreeConfig {
        message: 256 * 1024,
        // A full window each from the start, so that the lossy class
        // overflows its share before the software window learns.
        init_window: Some(1 << 20),
        class: Some(LOSSY),
        ..PfcFreeConfig::default()
    };
    let mut cfg = NetConfig {
        stop_time: Some(Time::from_ns(1_000_000_000)),
        buffer: BufferConfig {
            size: 2 << 20,
            ..BufferConfig::default()
        },
        ..NetConfig::default()
    };
    cfg.nic.mtu_payload = 1024;
    cfg.nic.transport = Transport::PfcFree(pf);
    cfg.cc = CcConfig::Dcqcn(DcqcnConfig::default());
    if lossy {
        cfg.pfc.classes = !(1 << LOSSY);
    }
    let mut sim = Simulation::new(&topo, flows, cfg).expect("valid scenario");
    sim.run();
    sim.results()
}

fn per_class(r: &RunResults, f: impl Fn(&rdmasim_net::PortReport) -> [u64; 8]) -> [u64; 8] {
    let mut sum = [0; 8];
    for p in &r.ports {
        for (s, v) in sum.iter_mut().zip(f(p)) {
            *s += v;
        }
    }
    sum
}

#[test]
fn a_lossless_and_a_lossy_class_share_a_congested_port() {
    let r = run(true);
    assert_eq!(r.unfinished(), 0, "every flow finishes");
    assert!(r.delivery_failures.is_empty(), "{:?}", r.delivery_failures);
    let drops = per_class(&r, |p| p.counters.drops);
    let pauses = per_class(&r, |p| p.fc.pause_tx);
    // The lossless class is paused and never drops.
    assert_eq!(drops[LOSSLESS as usize], 0, "drops per class {drops:?}");
    assert!(pauses[LOSSLESS as usize] > 0, "pauses per class {pauses:?}");
    // The lossy class is never paused; it drops, and the software path
    // recovers every message.
    assert_eq!(pauses[LOSSY as usize], 0, "pauses per class {pauses:?}");
    assert!(drops[LOSSY as usize] > 0, "drops per class {drops:?}");
    let t = r.pfc_free.unwrap();
    assert!(t.sender.lost_by_ack + t.sender.lost_by_timeout > 0);
    assert_eq!(
        t.receiver.messages,
        3 * 4 * u64::from(QPS),
        "the PFC-free flows' messages"
    );
    // The hardware flows are go-back-N: they resend nothing (no loss), and
    // the PFC-free transport's counters cover only its own three flows.
    for f in r.flows.iter().filter(|f| f.pg == LOSSLESS) {
        assert_eq!(f.retransmitted, 0, "flow {}", f.id);
    }
    assert_eq!(t.receiver.bytes, 3 * u64::from(QPS) * SIZE);
}

/// The same traffic with PFC on every class: nothing drops, and both
/// classes are paused.
#[test]
fn with_pfc_on_every_class_the_same_traffic_drops_nothing() {
    let r = run(false);
    assert_eq!(r.unfinished(), 0);
    assert_eq!(r.drops(), 0);
    let pauses = per_class(&r, |p| p.fc.pause_tx);
    assert!(
        pauses[LOSSLESS as usize] > 0 && pauses[LOSSY as usize] > 0,
        "{pauses:?}"
    );
}
