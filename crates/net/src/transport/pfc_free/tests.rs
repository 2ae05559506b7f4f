//! The sender and receiver driven alone, through a network that drops,
//! duplicates and reorders packets and ACKs on purpose.

use super::config::PfcFreeConfig;
use super::headers::{AckEntry, Verb, WqeHeader, WqeWire};
use super::receiver::{self, PfcFreeReceiver};
use super::sender::PfcFreeSender;
use crate::transport::hooks::SendSeq;
use engine::{Rate, Time};

pub(super) const MTU: u64 = 1024;

/// A deterministic stream of numbers (an LCG): which packets the test
/// network drops, copies or holds back.
struct Draw(u64);

impl Draw {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

/// What the test network does to each frame: of every 1000, `drop` are
/// lost, `dup` arrive twice, `hold` arrive after the next one.
#[derive(Clone, Copy)]
pub(super) struct Faults {
    pub(super) drop: u64,
    pub(super) dup: u64,
    pub(super) hold: u64,
}

/// The exactly-once tests' network: 2% of frames lost, 2% duplicated, 2%
/// reordered.
pub(super) const HARSH: Faults = Faults {
    drop: 20,
    dup: 20,
    hold: 20,
};

/// The exactly-once tests' runs: (seed, message size, bytes), from one
/// small message per WQE to 1 MB messages, each size ending mid-message.
pub(super) const EXACTLY_ONCE_RUNS: [(u64, u64, u64); 4] = [
    (1, 1024, 300_000),
    (2, 16 * 1024, 700_000),
    (3, 256 * 1024, 1_500_000),
    (4, 1 << 20, 3_000_001),
];

/// Frames on the way: (arrival, order sent, a data packet (seq, payload,
/// what it carries of its WQE) or an ACK's serial).
type Frame = (Time, u64, Result<(u64, u64, WqeWire), u64>);

struct Net {
    wire: Vec<Frame>,
    order: u64,
    draw: Draw,
    faults: Faults,
}

impl Net {
    fn send(&mut self, now: Time, f: Result<(u64, u64, WqeWire), u64>) {
        if self.draw.next(1000) < self.faults.drop {
            return;
        }
        let late = if self.draw.next(1000) < self.faults.hold {
            3
        } else {
            0
        };
        let at = now + engine::Delta::from_us(2) + engine::Delta::from_ns(400 * late);
        self.order += 1;
        self.wire.push((at, self.order, f));
        if self.draw.next(1000) < self.faults.dup {
            self.order += 1;
            self.wire
                .push((at + engine::Delta::from_ns(400), self.order, f));
        }
    }

    fn handle(&mut self, r: receiver::SoftRx, now: Time, rx_timer: &mut Option<(Time, u32)>) {
        match r {
            receiver::SoftRx::Nothing => {}
            receiver::SoftRx::Timer { at, version } => *rx_timer = Some((at, version)),
            receiver::SoftRx::Ack { serial, .. } => self.send(now, Err(serial)),
        }
    }
}

pub(super) struct Outcome {
    pub(super) rx: PfcFreeReceiver,
    pub(super) tx: PfcFreeSender,
    pub(super) done: bool,
}

/// Send a flow of `size` bytes in messages of `message` through a network
/// with `faults`, a packet per `step` of time, until it is acknowledged or
/// the time runs out.
pub(super) fn transfer(cfg: PfcFreeConfig, size: u64, faults: Faults, seed: u64) -> Outcome {
    let mut tx = PfcFreeSender::new(cfg, MTU, size, Rate::gbps(25), Time::ZERO);
    let mut rx = PfcFreeReceiver::new(cfg);
    let mut s = SendSeq::default();
    let mut net = Net {
        wire: Vec::new(),
        order: 0,
        draw: Draw(seed),
        faults,
    };
    let step = engine::Delta::from_ns(400);
    let mut now = Time::ZERO;
    let mut timer: Option<Time> = None;
    let mut rx_timer: Option<(Time, u32)> = None;
    let mut done = false;
    for _ in 0..2_000_000 {
        // One packet may leave per step.
        let seq = tx
            .retransmission()
            .or_else(|| tx.may_send_new(&s).then_some(s.nxt));
        if let Some(seq) = seq {
            let payload = (tx.packet_end(seq).min(size) - seq).min(MTU);
            if let Some(at) = tx.sent(&mut s, seq, payload, now) {
                timer = Some(at);
            }
            let w = tx.wire(seq, payload);
            // What the packet carries gives the receiver the sender's
            // header of its WQE.
            let h = tx.header(tx.gn_of_tag(w.tag)).expect("the WQE just sent");
            assert_eq!(w.first, seq == h.start);
            assert_eq!(
                WqeWire::unpack(w.tag, w.pack()),
                w,
                "it survives the packet"
            );
            if let Some(p) = w.psn {
                // RC: the low bits of the packet's PSN, no SEND RN.
                assert_eq!(u64::from(p.low), (h.psn + seq - h.start) & 0xffff_ffff);
                assert_eq!(u64::from(p.inc), super::rc::incarnation(h.psn));
            }
            if w.last {
                // The PSN and (in RC) the SEND RN the receiver does not
                // rebuild here.
                let expect = WqeHeader {
                    psn: 0,
                    send_rn: if w.psn.is_some() { 0 } else { h.send_rn },
                    ..h
                };
                assert_eq!(rx.header(h.gn, h.start, seq + payload, w, size), expect);
            }
            net.send(now, Ok((seq, payload, w)));
        }
        now += step;
        net.wire.sort_by_key(|&(at, o, _)| (at, o));
        while net.wire.first().is_some_and(|&(at, _, _)| at <= now) {
            let (_, _, f) = net.wire.remove(0);
            match f {
                Ok((seq, payload, w)) => {
                    let r = rx.on_wire(now, (seq, payload), false, w, size, 0);
                    net.handle(r, now, &mut rx_timer);
                }
                Err(serial) => {
                    if let Some(body) = rx.take_ack(serial) {
                        let (_, t) = tx.on_soft_ack(&mut s, &body, now);
                        if t.is_some() {
                            timer = t;
                        }
                    }
                }
            }
        }
        if let Some((at, v)) = rx_timer {
            if at <= now {
                rx_timer = None;
                let r = rx.on_timer(now, v);
                net.handle(r, now, &mut rx_timer);
            }
        }
        if let Some(at) = timer {
            if at <= now {
                let out = tx.timeout(now);
                timer = out.again_at;
            }
        }
        if s.una >= size {
            done = true;
            break;
        }
    }
    Outcome { rx, tx, done }
}

pub(super) fn check(o: &Outcome, size: u64) {
    assert!(o.done, "the flow was not acknowledged in full");
    o.rx.check_complete(size).expect("delivered exactly once");
}

#[test]
fn a_clean_network_delivers_every_message_once_without_resending() {
    let cfg = PfcFreeConfig {
        message: 200_000,
        ..PfcFreeConfig::default()
    };
    let none = Faults {
        drop: 0,
        dup: 0,
        hold: 0,
    };
    let o = transfer(cfg, 1_000_000, none, 1);
    check(&o, 1_000_000);
    assert_eq!(o.rx.stats.messages, 5);
    assert_eq!(o.rx.stats.duplicates, 0);
    assert_eq!(o.tx.stats.lost_by_ack + o.tx.stats.lost_by_timeout, 0);
}

#[test]
fn drops_duplicates_and_reordering_still_deliver_exactly_once() {
    for (seed, message, size) in EXACTLY_ONCE_RUNS {
        for unit in [1024, 4096] {
            let cfg = PfcFreeConfig {
                message,
                unit,
                ..PfcFreeConfig::default()
            };
            let o = transfer(cfg, size, HARSH, seed);
            check(&o, size);
            let st = o.rx.stats;
            assert!(st.duplicates > 0, "seed {seed}: some WQEs arrived twice");
            assert!(
                o.tx.stats.lost_by_ack > 0,
                "seed {seed}: losses were found from ACKs"
            );
        }
    }
}

#[test]
fn a_lost_write_chunk_is_resent_as_sends_of_one_unit() {
    // Without the window, which would let the pieces go one at a time.
    let cfg = PfcFreeConfig {
        message: 256 * 1024,
        sw_cc: false,
        ..PfcFreeConfig::default()
    };
    let size = 256 * 1024;
    let mut tx = PfcFreeSender::new(cfg, MTU, size, Rate::gbps(25), Time::ZERO);
    let mut rx = PfcFreeReceiver::new(cfg);
    let mut s = SendSeq::default();
    let t = Time::from_ns(1000);
    // Post and "send" WQEs until the window stops it; lose the first WQE's
    // second packet.
    let mut first_len = 0;
    let mut acks = Vec::new();
    while let Some(seq) = tx.may_send_new(&s).then_some(s.nxt) {
        let payload = (tx.packet_end(seq) - seq).min(MTU);
        tx.sent(&mut s, seq, payload, t);
        let h = tx.header(tx.gn_of_tag(tx.tag())).unwrap();
        if h.gn == 0 {
            first_len = h.len;
            assert_eq!(h.verb, Verb::Write, "a 256 KB message goes by WRITE");
            if seq == MTU {
                continue;
            }
        }
        let w = tx.wire(seq, payload);
        if let receiver::SoftRx::Ack { serial, .. } =
            rx.on_wire(t, (seq, payload), false, w, size, 0)
        {
            acks.push(serial);
        }
    }
    assert!(first_len > cfg.unit, "the first chunk spans several units");
    assert_eq!(rx.stats.oos, 1, "the UC QP dropped the first WQE");
    if let receiver::SoftRx::Ack { serial, .. } = rx.on_timer(t, 1) {
        acks.push(serial);
    }
    assert!(!acks.is_empty());
    let mut loss = false;
    for serial in acks {
        let body = rx.take_ack(serial).unwrap();
        assert!(
            !body.entries.contains(&AckEntry::Write { mid: 0, off: 0 }),
            "the lost WQE is not acknowledged"
        );
        loss |= tx.on_soft_ack(&mut s, &body, t).0;
    }
    assert!(loss, "a later WQE was acknowledged: the first is lost");
    // Its bytes come back as SENDs of one unit each.
    let mut pieces = Vec::new();
    while let Some(seq) = tx.retransmission() {
        let end = tx.packet_end(seq);
        let payload = (end - seq).min(MTU);
        tx.sent(&mut s, seq, payload, t);
        let h = tx.header(tx.gn_of_tag(tx.tag())).unwrap();
        if seq == h.start {
            pieces.push(h);
        }
    }
    assert_eq!(pieces.len() as u64, first_len / cfg.unit);
    for (i, p) in pieces.iter().enumerate() {
        assert_eq!(p.verb, Verb::RetxSend);
        assert_eq!(p.len, cfg.unit);
        assert_eq!(
            p.write_off,
            Some(i as u32),
            "each piece names its own offset"
        );
    }
}

/// Eq. 1 of Bifröst §3.4.3: an ACK held 120 µs by the coalescing timer
/// yields the path's round trip, not the round trip plus the wait.
#[test]
fn the_rtt_leaves_out_the_time_the_ack_waited_at_the_receiver() {
    let cfg = PfcFreeConfig {
        message: 1024,
        io_depth: 2,
        ..PfcFreeConfig::default()
    };
    let mut tx = PfcFreeSender::new(cfg, MTU, 2048, Rate::gbps(25), Time::ZERO);
    let mut rx = PfcFreeReceiver::new(cfg);
    let mut s = SendSeq::default();
    // Two one-packet messages; the second (the hint) is lost.
    tx.sent(&mut s, 0, 1024, Time::ZERO);
    let first = tx.wire(0, 1024);
    assert!(!first.hint);
    tx.sent(&mut s, 1024, 1024, Time::from_ns(400));
    let t2 = Time::from_ns(5_000);
    let receiver::SoftRx::Timer { at, version } = rx.on_wire(t2, (0, 1024), false, first, 2048, 0)
    else {
        panic!("the first WQE waits for company");
    };
    assert_eq!(at, t2 + cfg.ack_timer);
    let receiver::SoftRx::Ack { serial, .. } = rx.on_timer(at, version) else {
        panic!("the timer sends the ACK");
    };
    let body = rx.take_ack(serial).unwrap();
    assert_eq!(body.residence, cfg.ack_timer);
    // The ACK takes 5 µs back: T4 − T1 = 130 µs, of which 120 waited.
    let t4 = at + engine::Delta::from_us(5);
    tx.on_soft_ack(&mut s, &body, t4);
    assert_eq!(tx.srtt(), Some(engine::Delta::from_us(10)));
}

/// Into a network that loses everything: the first timeout is `rto_init`
/// (no RTT measured), each one after it twice the one before (with the
/// switch to a backup QP between), up to `rto_max`.
#[test]
fn timeouts_in_a_row_back_off_up_to_the_longest() {
    let cfg = PfcFreeConfig {
        message: 32 * 1024,
        ..PfcFreeConfig::default()
    };
    let size = 1 << 20;
    let mut tx = PfcFreeSender::new(cfg, MTU, size, Rate::gbps(25), Time::ZERO);
    let mut s = SendSeq::default();
    let mut now = Time::ZERO;
    let mut timer = None;
    let mut gaps = Vec::new();
    let mut last = Time::ZERO;
    while gaps.len() < 8 {
        let seq = tx
            .retransmission()
            .or_else(|| tx.may_send_new(&s).then_some(s.nxt));
        if let Some(seq) = seq {
            let payload = (tx.packet_end(seq).min(size) - seq).min(MTU);
            if let Some(at) = tx.sent(&mut s, seq, payload, now) {
                timer = Some(at);
            }
        }
        now += engine::Delta::from_ns(400);
        if let Some(at) = timer.filter(|&at| at <= now) {
            let out = tx.timeout(at);
            if out.expired {
                gaps.push((at - last).ps());
                last = at;
            }
            timer = out.again_at;
        }
    }
    assert_eq!(tx.stats.timeouts, 8);
    assert_eq!(gaps[0], cfg.rto_init.ps());
    for w in gaps[1..].windows(2) {
        let (a, b) = (w[0] - cfg.qp_switch.ps(), w[1] - cfg.qp_switch.ps());
        assert!(b == 2 * a || b == cfg.rto_max.ps(), "{gaps:?}");
    }
    assert_eq!(*gaps.last().unwrap() - cfg.qp_switch.ps(), cfg.rto_max.ps());
}
