//! RC mode (`rc.rs`) driven alone: delivery exactly once through a
//! network that drops, duplicates and reorders; the receiving QP's
//! discard after a gap; go-back-N; the retry count and the move to a
//! backup QP.

use super::config::{PfcFreeConfig, QpType};
use super::headers::{Verb, WqeHeader, WqeWire};
use super::receiver::{PfcFreeReceiver, SoftRx};
use super::sender::PfcFreeSender;
use super::tests::{check, transfer, Faults, EXACTLY_ONCE_RUNS, HARSH, MTU};
use crate::transport::hooks::SendSeq;
use engine::{Rate, Time};

fn rc(message: u64) -> PfcFreeConfig {
    PfcFreeConfig {
        message,
        qp_type: QpType::Rc,
        ..PfcFreeConfig::default()
    }
}

/// A packet as it left: its first byte, payload, its WQE's header (the
/// sender's, for the test to read), what it carries and the flow's size.
type Sent = (u64, u64, WqeHeader, WqeWire, u64);

/// Let the sender send every packet it may now (resends first).
fn send_all(tx: &mut PfcFreeSender, s: &mut SendSeq, size: u64, now: Time) -> Vec<Sent> {
    let mut out = Vec::new();
    while let Some(seq) = tx
        .retransmission()
        .or_else(|| tx.may_send_new(s).then_some(s.nxt))
    {
        let payload = (tx.packet_end(seq).min(size) - seq).min(MTU);
        tx.sent(s, seq, payload, now);
        let h = tx.header(tx.gn_of_tag(tx.tag())).unwrap();
        out.push((seq, payload, h, tx.wire(seq, payload), size));
    }
    out
}

/// Hand `p` to the receiver; an ACK or NAK it answers with goes straight
/// back to the sender. Returns whether it answered and when the sender's
/// timer should fire.
fn deliver(
    rx: &mut PfcFreeReceiver,
    tx: &mut PfcFreeSender,
    s: &mut SendSeq,
    p: &Sent,
    now: Time,
) -> (bool, Option<Time>) {
    match rx.on_wire(now, (p.0, p.1), false, p.3, p.4, 0) {
        SoftRx::Ack { serial, .. } => {
            let body = rx.take_ack(serial).unwrap();
            assert!(body.hw.is_some() && body.entries.is_empty());
            (true, tx.on_soft_ack(s, &body, now).1)
        }
        SoftRx::Nothing => (false, None),
        SoftRx::Timer { .. } => panic!("RC's NIC ACKs at once, with no software timer"),
    }
}

#[test]
fn rc_delivers_every_message_exactly_once_under_drops_duplicates_and_reordering() {
    for (seed, message, size) in EXACTLY_ONCE_RUNS {
        for unit in [1024, 4096] {
            let cfg = PfcFreeConfig {
                unit,
                ..rc(message)
            };
            let o = transfer(cfg, size, HARSH, seed);
            check(&o, size);
            let hw = o.rx.rc_stats().unwrap();
            let tx = o.tx.rc_stats().unwrap();
            assert!(
                hw.naks > 0 && hw.discarded > 0,
                "seed {seed}: gaps were NAKed"
            );
            assert!(tx.go_backs > 0, "seed {seed}: the NIC went back");
            assert!(tx.resent_bytes > 0, "seed {seed}: and resent");
            // Reliability is the NIC's: no software ACK, no loss found
            // from one.
            assert_eq!(o.rx.stats.acks, 0);
            assert_eq!(o.tx.stats.acks, 0);
            assert_eq!(o.tx.stats.lost_by_ack, 0);
        }
    }
}

#[test]
fn uc_keeps_no_rc_state() {
    let o = transfer(
        PfcFreeConfig {
            message: 16 * 1024,
            ..PfcFreeConfig::default()
        },
        100_000,
        Faults {
            drop: 0,
            dup: 0,
            hold: 0,
        },
        1,
    );
    check(&o, 100_000);
    assert!(o.rx.rc_stats().is_none() && o.tx.rc_stats().is_none());
    assert!(o.rx.stats.acks > 0, "UC's ACKs are software ACKs");
}

/// One lost packet: the receiving RC QP takes nothing after it (a UC QP
/// would deliver the later WQEs), NAKs once, and the sender goes back to
/// the lost byte and resends everything from there (go-back-N), not just
/// the lost WQE.
#[test]
fn a_lost_packet_makes_the_rc_receiver_discard_what_follows_until_it_is_resent() {
    let size = 256 * 1024;
    let cfg = PfcFreeConfig {
        sw_cc: false,
        ..rc(size)
    };
    let mut tx = PfcFreeSender::new(cfg, MTU, size, Rate::gbps(25), Time::ZERO);
    let mut rx = PfcFreeReceiver::new(cfg);
    let mut s = SendSeq::default();
    let t = Time::from_ns(1000);
    let first = send_all(&mut tx, &mut s, size, t);
    assert_eq!(first.len() as u64, size / MTU, "the whole message left");
    let wqes = first.iter().filter(|p| p.0 == p.2.start).count();
    assert!(wqes > 1, "the message is several WQEs");
    assert!(first.iter().all(|p| p.2.verb == Verb::Write));
    // Lose the second packet of the first WQE.
    let lost = MTU;
    let mut answers = 0;
    for p in first.iter().filter(|p| p.0 != lost) {
        if deliver(&mut rx, &mut tx, &mut s, p, t).0 {
            answers += 1;
        }
    }
    let hw = rx.rc_stats().unwrap();
    assert_eq!(
        answers, 2,
        "the first packet's ACK and one NAK for the gap, nothing else"
    );
    assert_eq!(hw.naks, 1);
    assert_eq!(
        hw.discarded,
        size / MTU - 2,
        "every packet after the gap was discarded, later WQEs included"
    );
    assert_eq!(rx.stats.wqes, 0, "no WQE was taken");
    assert_eq!(rx.stats.placed, 0);
    assert_eq!(rx.stats.oos, 1, "the OOS counter counts the gap");
    // The NAK sent the NIC back to the lost byte: it resends all from
    // there, in order, outside the window.
    assert_eq!(tx.retransmission(), Some(lost));
    let again = send_all(&mut tx, &mut s, size, t);
    let bytes: Vec<u64> = again.iter().map(|p| p.0).collect();
    let expect: Vec<u64> = (1..size / MTU).map(|i| i * MTU).collect();
    assert_eq!(
        bytes, expect,
        "go-back-N resends every packet from the loss"
    );
    assert_eq!(tx.rc_stats().unwrap().resent_bytes, size - MTU);
    for p in &again {
        deliver(&mut rx, &mut tx, &mut s, p, t);
    }
    assert_eq!(rx.stats.wqes as usize, wqes, "every WQE taken once");
    assert_eq!(rx.stats.duplicates, 0);
    assert_eq!(s.una, size, "the send completions acknowledged it all");
    rx.check_complete(size).unwrap();
    assert_eq!(tx.stats.lost_by_ack + tx.stats.lost_by_timeout, 0);
}

/// The same packet lost again and again: the NIC goes back `rc_retry`
/// times (the first loss revealed by the NAK, a lost resend by the ACK
/// timer: the receiving QP NAKs a gap once); at the next loss the QP is in
/// the error state, the software resubmits the WQE as a SEND on a backup
/// QP (about 60 µs later, on a new source port), and the message arrives
/// once.
#[test]
fn the_retry_count_runs_out_after_two_and_the_software_moves_to_a_backup_qp() {
    for retry in [2u32, 1, 0] {
        let size = 8 * 1024;
        let cfg = PfcFreeConfig {
            rc_retry: retry,
            sw_cc: false,
            ..rc(size)
        };
        let mut tx = PfcFreeSender::new(cfg, MTU, size, Rate::gbps(25), Time::ZERO);
        let mut rx = PfcFreeReceiver::new(cfg);
        let mut s = SendSeq::default();
        let mut now = Time::from_ns(1000);
        let mut losses = 0;
        let out = loop {
            let burst = send_all(&mut tx, &mut s, size, now);
            assert!(!burst.is_empty(), "retry {retry}: the NIC resends");
            assert!(burst
                .iter()
                .all(|p| p.2.path == 0 && p.2.verb == Verb::Send));
            losses += 1;
            // The first packet is lost each time.
            let mut timer = None;
            for p in &burst[1..] {
                if let (_, Some(at)) = deliver(&mut rx, &mut tx, &mut s, p, now) {
                    timer = Some(at);
                }
            }
            let st = tx.rc_stats().unwrap();
            if st.qp_errors > 0 {
                // A NAK with no retry left: the error reaches the
                // software at once.
                assert_eq!(timer, Some(now));
                break tx.timeout(now);
            }
            if st.go_backs < u64::from(losses) {
                // No NAK (the gap was NAKed before): the ACK timer.
                now += cfg.rc_ack_timeout;
                let out = tx.timeout(now);
                if out.expired {
                    break out;
                }
            }
            assert_eq!(tx.rc_stats().unwrap().go_backs, u64::from(losses));
        };
        assert_eq!(losses, retry + 1, "the first send and {retry} retries");
        let st = tx.rc_stats().unwrap();
        assert_eq!((st.go_backs, st.qp_errors), (u64::from(retry), 1));
        assert!(out.expired && out.reroute, "a backup QP, a new source port");
        assert_eq!(out.again_at, Some(now + cfg.qp_switch));
        assert_eq!(tx.stats.qp_switches, 1);
        assert_eq!(tx.stats.timeouts, 0, "not the software timeout");
        assert_eq!(tx.retransmission(), None, "nothing goes during the switch");
        now += cfg.qp_switch;
        assert!(tx.timeout(now).look);
        let resent = send_all(&mut tx, &mut s, size, now);
        assert!(!resent.is_empty());
        assert!(resent
            .iter()
            .all(|p| p.2.path == 1 && p.2.verb == Verb::RetxSend));
        for p in &resent {
            deliver(&mut rx, &mut tx, &mut s, p, now);
        }
        assert_eq!(s.una, size, "retry {retry}: delivered on the backup QP");
        rx.check_complete(size).unwrap();
    }
}

/// A lost last packet, with nothing after it to reveal the gap: the NIC's
/// ACK timer goes back after `rc_ack_timeout`, before the software timeout.
#[test]
fn a_lost_tail_is_resent_when_the_ack_timer_fires() {
    let size = 8 * 1024;
    let cfg = PfcFreeConfig {
        sw_cc: false,
        ..rc(4 * 1024)
    };
    let mut tx = PfcFreeSender::new(cfg, MTU, size, Rate::gbps(25), Time::ZERO);
    let mut rx = PfcFreeReceiver::new(cfg);
    let mut s = SendSeq::default();
    let t = Time::from_ns(1000);
    let burst = send_all(&mut tx, &mut s, size, t);
    assert_eq!(burst.len(), 8, "two WQEs of four packets");
    // The last packet is lost.
    for p in &burst[..7] {
        deliver(&mut rx, &mut tx, &mut s, p, t);
    }
    assert_eq!(rx.stats.oos, 0, "no gap seen");
    assert_eq!(s.una, 4096, "the first WQE completed");
    let (_, _, h, _, _) = burst[4];
    assert_eq!(h.psn, 4096, "the second WQE follows the first on the QP");
    // The NIC's ACK timer, from the ACK's progress.
    let at = t + cfg.rc_ack_timeout;
    let out = tx.timeout(at);
    assert!(
        out.look && !out.expired,
        "the NIC went back; no software timeout"
    );
    let st = tx.rc_stats().unwrap();
    assert_eq!((st.ack_timeouts, st.go_backs), (1, 1));
    assert_eq!(
        tx.retransmission(),
        Some(7168),
        "from the first unacknowledged byte: the lost last packet's"
    );
    for p in &send_all(&mut tx, &mut s, size, at) {
        deliver(&mut rx, &mut tx, &mut s, p, at);
    }
    assert_eq!(s.una, size);
    rx.check_complete(size).unwrap();
}

/// RC data packets carry the low 32 bits of their PSN and their QP's
/// incarnation; the receiving QP reads the full PSN as the one nearest its
/// expected byte, also across a wrap of the 32 bits carried.
#[test]
fn the_receiving_qp_rebuilds_the_full_psn_from_the_low_bits_a_packet_carries() {
    use super::headers::PsnWire;
    use super::rc::{first_psn, incarnation, RcRx};
    let carried = |psn: u64| {
        let w = WqeWire {
            tag: 0,
            send_rn: 0,
            psn: Some(PsnWire {
                low: psn as u32,
                inc: incarnation(psn) as u16,
            }),
            path: 0,
            retx: false,
            hint: false,
            first: false,
            last: false,
        };
        WqeWire::unpack(0, w.pack()).psn.unwrap()
    };
    let mut rx = RcRx::default();
    // The QP's expected byte just below 2^32.
    let epsn = (1u64 << 32) - 1000;
    assert!(rx.on_packet(0, 0, epsn, false).take);
    for psn in [epsn, epsn + 24, epsn + 5000, epsn - 3000, epsn + (1 << 30)] {
        assert_eq!(rx.psn_of(0, carried(psn)), psn, "byte {psn}");
    }
    // The QP reconnected as incarnation 5, also 2^33 bytes on.
    let e5 = first_psn(5) + (1 << 33) + 100;
    assert!(rx.on_packet(0, first_psn(5), e5 - first_psn(5), false).take);
    for psn in [e5, e5 - 7, first_psn(6) + 1, first_psn(4) + 9] {
        assert_eq!(rx.psn_of(0, carried(psn)), psn, "byte {psn}");
    }
    // Another QP of the connection keeps its own numbers.
    assert_eq!(rx.psn_of(1, carried(4096)), 4096);
}
