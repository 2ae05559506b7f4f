//! BFC's egress (`fc = "bfc"`) on its own hooks: the congested port
//! pauses every flow that joins a queue above its threshold, and resumes
//! them together once the queue is back at it; the upstream pauses the
//! whole queue that holds a paused flow, so the flows beside it wait too
//! (FlowSail §II-B, Fig. 5's BFC row).

use engine::{Delta, Rate, Rng, Time};
use rdmasim_net::egress::{BfcEgress, Egress};
use rdmasim_net::fc::{AnyFc, BfcConfig, Lossy, QueueMapping};
use rdmasim_net::wire::{Packet, PacketKind};

const FC: AnyFc = AnyFc::Lossy(Lossy);
const T: Time = Time::ZERO;

fn frame(flow: u32, seq: u64, ingress: u16) -> Packet {
    let mut p = Packet::flow_pause(3, flow, true);
    p.kind = PacketKind::Data;
    p.class = 3;
    p.seq = seq;
    p.size = 1000;
    p.ingress = ingress;
    p
}

/// Two queues, every flow in the first: Th = 25 kB with one active queue.
fn port() -> BfcEgress {
    let cfg = BfcConfig {
        queues: 2,
        mapping: QueueMapping::Shared,
        ..BfcConfig::default()
    };
    BfcEgress::new(
        &cfg,
        Rate::gbps(100),
        Delta::from_us(1),
        Rng::stream(1, 1, 1),
    )
}

fn signals(e: &mut BfcEgress) -> Vec<(u16, u32, bool)> {
    std::iter::from_fn(|| e.pop_upstream())
        .map(|(i, f)| (i, f.flow, f.pauses_flow()))
        .collect()
}

#[test]
fn every_flow_joining_a_queue_above_its_threshold_is_paused() {
    let mut d = port();
    // f1 sends 24 frames, f2 one at the end: 25 kB, not over Th.
    for s in 0..24 {
        d.enqueue(T, &frame(1, s, 1));
    }
    d.enqueue(T, &frame(2, 0, 2));
    assert!(signals(&mut d).is_empty());
    // f1's next frame finds 25 kB, not over Th; f2's finds 26 kB and
    // pauses f2 (innocent as it is), f1's after it f1: each once.
    d.enqueue(T, &frame(1, 24, 1));
    d.enqueue(T, &frame(2, 1, 2));
    d.enqueue(T, &frame(1, 25, 1));
    assert_eq!(signals(&mut d), [(2, 2, true), (1, 1, true)]);
    assert_eq!(d.paused_here(), [1, 2]);
    // Resumed together when the queue is back at 25 kB (after the third
    // departure: 28 kB − 3 kB).
    let mut resumed_after = None;
    for n in 1..=28 {
        d.dequeue(T, &FC).unwrap();
        let s = signals(&mut d);
        if !s.is_empty() {
            assert_eq!(s, [(2, 2, false), (1, 1, false)]);
            resumed_after = Some(n);
            break;
        }
    }
    assert_eq!(resumed_after, Some(3));
    while d.dequeue(T, &FC).is_some() {}
    d.check_idle().unwrap();
}

#[test]
fn the_upstream_pauses_the_whole_queue_that_holds_a_paused_flow() {
    let mut u = port();
    for s in 0..2 {
        u.enqueue(T, &frame(4, s, 0));
        u.enqueue(T, &frame(5, s, 0));
    }
    u.on_ctrl(T, &Packet::flow_pause(3, 4, true));
    assert_eq!(u.cf_num(0), 1);
    assert!(u.dequeue(T, &FC).is_none(), "f5 waits behind paused f4");
    u.on_ctrl(T, &Packet::flow_pause(3, 4, false));
    let order: Vec<_> = std::iter::from_fn(|| u.dequeue(T, &FC))
        .map(|p| (p.flow, p.seq))
        .collect();
    assert_eq!(order, [(4, 0), (5, 0), (4, 1), (5, 1)]);
    // A flow paused with nothing queued here keeps its queue while paused:
    // its frames wait there.
    u.on_ctrl(T, &Packet::flow_pause(3, 6, true));
    assert_eq!(u.queue_of(6), Some(0));
    u.enqueue(T, &frame(6, 0, 0));
    assert!(u.dequeue(T, &FC).is_none());
    assert!(
        !u.pass(T, &frame(7, 0, 0), &FC),
        "the shared queue is paused"
    );
    u.on_ctrl(T, &Packet::flow_pause(3, 6, false));
    assert_eq!(u.dequeue(T, &FC).map(|p| p.flow), Some(6));
    u.check_idle().unwrap();
}
