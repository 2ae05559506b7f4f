//! FlowSail's worked example (FlowSail §III, Fig. 5), walked frame by
//! frame on the scheme's own hooks, as a state machine: four flows f1–f4
//! share the one normal queue of a congested port, where f1 and f4 send
//! more than their share; f5 shares an upstream queue with f4 and never
//! crosses the congested port. FlowSail pauses f1 and f4 alone, and at the
//! upstream isolates f4 in rsvQ while f5 keeps sending.

use engine::{Delta, Rate, Rng, Time};
use rdmasim_net::egress::{Egress, FlowSailEgress};
use rdmasim_net::fc::{AnyFc, FlowSailConfig, Lossy};
use rdmasim_net::wire::{Packet, PacketKind};

const FC: AnyFc = AnyFc::Lossy(Lossy);

/// A 1000 B data frame of `flow`, its `seq`-th, that came in by `ingress`.
fn frame(flow: u32, seq: u64, ingress: u16) -> Packet {
    let mut p = Packet::flow_pause(3, flow, true);
    p.kind = PacketKind::Data;
    p.class = 3;
    p.seq = seq;
    p.size = 1000;
    p.ingress = ingress;
    p
}

/// One normal queue and rsvQ, at 100 Gb/s with a 2 µs hop round trip:
/// Q_l = 25 kB and Q_h = 75 kB with one active queue.
fn port() -> FlowSailEgress {
    port_with(true)
}

/// [`port`], pausing a congested flow's old queue or not (`pause_q1`).
fn port_with(pause_q1: bool) -> FlowSailEgress {
    let cfg = FlowSailConfig {
        queues: 2,
        pause_q1,
        ..FlowSailConfig::default()
    };
    FlowSailEgress::new(
        &cfg,
        Rate::gbps(100),
        Delta::from_us(1),
        Rng::stream(1, 1, 1),
    )
}

/// The control frames the port asks to send upstream: (ingress, flow,
/// pause).
fn signals(e: &mut FlowSailEgress) -> Vec<(u16, u32, bool)> {
    std::iter::from_fn(|| e.pop_upstream())
        .map(|(i, f)| {
            assert_eq!(f.kind, PacketKind::FlowPause);
            (i, f.flow, f.pauses_flow())
        })
        .collect()
}

#[test]
fn the_congested_port_pauses_only_the_flows_over_their_share() {
    let mut d = port();
    let t = Time::ZERO;
    // Each flow came in by its own ingress (f1 by 1, ..., f4 by 4). Per
    // round, f1 and f4 send three frames each, f2 and f3 one: 8 kB.
    let mut seq = [0u64; 5];
    let mut send = |d: &mut FlowSailEgress, f: u32| {
        d.enqueue(t, &frame(f, seq[f as usize], f as u16));
        seq[f as usize] += 1;
    };
    for _ in 0..3 {
        for f in [1, 4, 1, 2, 4, 3, 1, 4] {
            send(&mut d, f);
        }
    }
    // 24 kB: not over Q_l, nobody marked.
    assert_eq!(d.queue_bytes(0), 24_000);
    assert!(signals(&mut d).is_empty());
    assert_eq!(d.flow_num(0), 4);
    // The next round crosses Q_l = 25 kB. Fair share Q >> ⌈log2 4⌉ = Q/4
    // (about 6.3 kB): f1 and f4 hold 9 kB each, over it; f2 and f3 hold
    // 3 kB, under it.
    for f in [1, 4, 1, 2, 4, 3, 1, 4] {
        send(&mut d, f);
    }
    assert_eq!(signals(&mut d), [(1, 1, true), (4, 4, true)]);
    assert_eq!(d.pause_num(1).0, 2, "f1's two frames after Q_l are marked");
    assert_eq!(d.pause_num(4).0, 2);
    assert_eq!(d.pause_num(2).0, 0);
    assert_eq!(d.pause_num(3).0, 0);
    // More of f1 while it is paused (in flight): no second PAUSE.
    send(&mut d, 1);
    assert!(signals(&mut d).is_empty());
    assert_eq!(d.pause_num(1).0, 3);
    // The queue drains; each flow is resumed as its last marked frame
    // leaves, f4's before f1's (f1's last marked frame is the last one).
    let mut resumed = Vec::new();
    while let Some(p) = d.dequeue(t, &FC) {
        for s in signals(&mut d) {
            resumed.push((p.seq, s));
        }
    }
    assert_eq!(resumed, [(11, (4, 4, false)), (12, (1, 1, false))]);
    d.check_idle().unwrap();
}

#[test]
fn the_upstream_isolates_the_paused_flow_and_the_flow_beside_it_keeps_sending() {
    let mut u = port();
    let t = Time::ZERO;
    let rsv = u.rsv_queue();
    // f4 and f5 share the upstream's normal queue.
    for s in 0..3 {
        u.enqueue(t, &frame(4, s, 0));
        u.enqueue(t, &frame(5, s, 0));
    }
    assert_eq!(u.normal_queue_of(4), Some(0));
    assert_eq!(u.normal_queue_of(5), Some(0));
    // PAUSE(f4) from the congested port: f4 enters the CFT; an Order Mark
    // goes behind its three frames in queue 0 and one into rsvQ; queue 0
    // and rsvQ are paused.
    u.on_ctrl(t, &Packet::flow_pause(3, 4, true));
    assert!(u.is_congested(4));
    assert_eq!(
        u.contents(0),
        [
            Some((4, 0)),
            Some((5, 0)),
            Some((4, 1)),
            Some((5, 1)),
            Some((4, 2)),
            Some((5, 2)),
            None
        ]
    );
    assert_eq!(u.contents(rsv), [None]);
    assert_eq!((u.cf_num(0), u.cf_num(rsv)), (1, 1));
    assert!(u.om_hold(), "rsvQ waits for the mark in queue 0");
    assert!(u.dequeue(t, &FC).is_none(), "both queues paused");
    // f4's new frames join rsvQ; f5's stay in queue 0.
    u.enqueue(t, &frame(4, 3, 0));
    u.enqueue(t, &frame(5, 3, 0));
    assert_eq!(u.contents(rsv), [None, Some((4, 3))]);
    assert_eq!(u.flow_num(rsv), 1);
    // RESUME(f4): queue 0 and rsvQ count down to 0, but rsvQ still waits
    // for f4's old frames to leave queue 0 (Order Mark Matching): what
    // leaves is queue 0's, in order, f4's old frames included.
    u.on_ctrl(t, &Packet::flow_pause(3, 4, false));
    assert_eq!((u.cf_num(0), u.cf_num(rsv)), (0, 0));
    let mut order = Vec::new();
    while let Some(p) = u.dequeue(t, &FC) {
        order.push((p.flow, p.seq));
    }
    assert_eq!(
        order,
        [
            (4, 0),
            (5, 0),
            (4, 1),
            (5, 1),
            (4, 2),
            (5, 2),
            (4, 3),
            (5, 3)
        ],
        "rsvQ's f4 frame only once the mark in queue 0 left; then round robin"
    );
    assert!(!u.om_hold());
    // f4 is still in the CFT (resumed, released only after 2·HRTT idle):
    // a second PAUSE pauses rsvQ alone, and f5 keeps sending.
    assert!(u.is_congested(4));
    u.on_ctrl(t, &Packet::flow_pause(3, 4, true));
    for s in 4..7 {
        u.enqueue(t, &frame(4, s, 0));
        u.enqueue(t, &frame(5, s, 0));
    }
    assert_eq!((u.cf_num(0), u.cf_num(rsv)), (0, 1));
    let sent: Vec<_> = std::iter::from_fn(|| u.dequeue(t, &FC))
        .map(|p| p.flow)
        .collect();
    assert_eq!(sent, [5, 5, 5], "f5 sends; f4 waits in the paused rsvQ");
    assert_eq!(u.queue_bytes(rsv), 3000);
    u.on_ctrl(t, &Packet::flow_pause(3, 4, false));
    let sent: Vec<_> = std::iter::from_fn(|| u.dequeue(t, &FC))
        .map(|p| (p.flow, p.seq))
        .collect();
    assert_eq!(sent, [(4, 4), (4, 5), (4, 6)]);
    // 2·HRTT (4 µs) after its last frame left, f4's next frame finds it
    // released: it is a normal flow again, in queue 0.
    u.enqueue(Time::from_ns(4_001), &frame(4, 7, 0));
    assert!(!u.is_congested(4));
    assert_eq!(u.normal_queue_of(4), Some(0));
    u.dequeue(Time::from_ns(4_001), &FC);
    u.check_idle().unwrap();
    assert_eq!(u.stats().isolated, 1);
    assert_eq!(u.stats().order_marks, 1);
}

/// Without the pause of q1 (`flowsail_pause_q1 = false`), the Order Marks
/// alone keep a newly congested flow in order (FlowSail §IV-C, Order Mark
/// Matching): q1 keeps sending, the innocent f5 and f4's old frames with
/// it, while f4's new frames wait in rsvQ for the mark in q1 to leave and
/// for f4's RESUME.
#[test]
fn without_the_pause_of_q1_the_order_marks_alone_keep_the_flow_in_order() {
    let mut u = port_with(false);
    let t = Time::ZERO;
    let rsv = u.rsv_queue();
    for s in 0..2 {
        u.enqueue(t, &frame(4, s, 0));
        u.enqueue(t, &frame(5, s, 0));
    }
    u.on_ctrl(t, &Packet::flow_pause(3, 4, true));
    assert_eq!((u.cf_num(0), u.cf_num(rsv)), (0, 1), "only rsvQ paused");
    assert!(u.om_hold());
    u.enqueue(t, &frame(4, 2, 0));
    u.enqueue(t, &frame(5, 2, 0));
    let sent: Vec<_> = std::iter::from_fn(|| u.dequeue(t, &FC))
        .map(|p| (p.flow, p.seq))
        .collect();
    assert_eq!(
        sent,
        [(4, 0), (5, 0), (4, 1), (5, 1), (5, 2)],
        "q1 drains, f4's old frames included; f4's new frame waits in rsvQ"
    );
    assert!(
        !u.om_hold(),
        "the mark in q1 left: rsvQ waits only for RESUME"
    );
    u.on_ctrl(t, &Packet::flow_pause(3, 4, false));
    let sent: Vec<_> = std::iter::from_fn(|| u.dequeue(t, &FC))
        .map(|p| (p.flow, p.seq))
        .collect();
    assert_eq!(sent, [(4, 2)]);
    u.check_idle().unwrap();
}

/// Debug builds catch a counter that would go below 0: a RESUME for a flow
/// the port never saw paused would leave rsvQ's cfNum at −1.
#[test]
#[cfg(debug_assertions)]
#[should_panic(expected = "a RESUME without its PAUSE")]
fn a_resume_without_its_pause_is_caught() {
    port().on_ctrl(Time::ZERO, &Packet::flow_pause(3, 9, false));
}

/// Every PAUSE met its RESUME, and every counter is back at 0, once the
/// frames are gone: what an idle port must show. A port left with a
/// paused flow fails the check.
#[test]
fn an_idle_port_with_a_paused_flow_fails_its_check() {
    let mut u = port();
    u.on_ctrl(Time::ZERO, &Packet::flow_pause(3, 4, true));
    let e = u.check_idle().unwrap_err();
    assert!(e.contains("cfNum 1"), "{e}");
    u.on_ctrl(Time::ZERO, &Packet::flow_pause(3, 4, false));
    u.check_idle().unwrap();
}
