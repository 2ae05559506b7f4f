//! RC mode of the PFC-free transport (`qp_type = "rc"`): hardware RC QPs
//! carry the data, with the software help of Bifröst §3.4.2 ("Hardware
//! reliability for RC") and App. A.2, A.3.
//!
//! The NIC (hardware) side:
//! - each QP numbers its bytes (the PSN, here in bytes); the receiving QP
//!   takes only the next expected byte and **discards everything after a
//!   gap**, answering the first out-of-order packet with one NAK; the
//!   sender goes back to the NAKed byte and resends every packet from
//!   there (go-back-N), outside the software window (Bifröst §3.4.2);
//! - the receiving QP ACKs each packet it takes; an ACK is cumulative, and
//!   one that covers a WQE's last byte is its send completion ("delivered
//!   and acknowledged", Bifröst §2.1);
//! - with nothing acknowledged for `rc_ack_timeout`, the sender goes back
//!   to the first unacknowledged byte; every go-back (NAK or timeout) costs
//!   a retry, progress restores them, and a loss with no retry left puts
//!   the QP in the **error state**: retry count 2 (Bifröst §3.4.2).
//!
//! The software side (`sender/rc.rs`, `receiver/rc.rs`):
//! - chunking, the RTT window and the software timeout stay as with UC;
//!   the RTT is the send completion's time minus the WQE's send time
//!   (Bifröst §3.4.3 takes RoGUE's method, which it does not describe);
//! - no software ACK is built or parsed;
//! - on the error state (or the software timeout) the uncompleted WQEs are
//!   resubmitted as SENDs on a pre-connected backup QP with a new source
//!   port (about 60 µs), the window drops to its minimum, and the old QP
//!   reconnects in the background (about 5 ms) before it may serve again
//!   (Bifröst §3.4.2, App. A.3); the receiver copies a resent SEND only if
//!   its message is not yet submitted, which resolves the races of
//!   App. A.2.1 (a WQE the sender reported failed although it arrived).
//!
//! `docs/pfc-free.md`, "RC mode", lists what is modelled and simplified.

/// A QP's sequence numbers carry its incarnation above this bit: a QP
/// brought back from the error state restarts its PSNs (App. A.3's
/// re-synchronisation), and packets of an older incarnation still in the
/// network are dropped.
pub const INCARNATION_SHIFT: u32 = 48;

/// Bytes an RC ACK or NAK adds to the data header: its AETH (InfiniBand's
/// ACK extended transport header, 4 bytes).
pub const RC_ACK_BYTES: u32 = 4;

/// The incarnation of a QP sequence number.
#[inline]
pub fn incarnation(psn: u64) -> u64 {
    psn >> INCARNATION_SHIFT
}

/// The first sequence number of incarnation `inc`.
#[inline]
pub fn first_psn(inc: u64) -> u64 {
    inc << INCARNATION_SHIFT
}

/// What RC mode's hardware counted, summed over a run's flows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RcStats {
    /// NAKs the receiving QPs sent (one per gap).
    pub naks: u64,
    /// Packets the receiving QPs discarded after a gap.
    pub discarded: u64,
    /// Go-backs the sending QPs made (after a NAK or an ACK timeout).
    pub go_backs: u64,
    /// Of them, after the ACK timeout.
    pub ack_timeouts: u64,
    /// Bytes the sending QPs resent by go-back-N.
    pub resent_bytes: u64,
    /// Times a QP ran out of retries and went to the error state.
    pub qp_errors: u64,
}

impl RcStats {
    /// Add `o`'s counts.
    pub fn add(&mut self, o: &RcStats) {
        self.naks += o.naks;
        self.discarded += o.discarded;
        self.go_backs += o.go_backs;
        self.ack_timeouts += o.ack_timeouts;
        self.resent_bytes += o.resent_bytes;
        self.qp_errors += o.qp_errors;
    }
}

use super::config::{PfcFreeConfig, MAX_PATHS};
pub use super::headers::HwAck;
use super::headers::PsnWire;
use engine::{Delta, Time};
use std::collections::VecDeque;

/// One WQE in a sending RC QP's send queue, posted and not yet
/// acknowledged.
#[derive(Clone, Copy, Debug)]
struct Seg {
    gn: u64,
    /// Its first byte in the QP's sequence.
    psn: u64,
    /// Its first byte in the flow.
    start: u64,
    len: u64,
}

/// A sending QP's numbers.
#[derive(Clone, Copy, Debug, Default)]
struct TxQp {
    /// The next byte to number (the QP's next PSN).
    next: u64,
    /// Every byte below is acknowledged.
    acked: u64,
    /// The highest byte resent by go-back-N: a completion of a WQE below it
    /// gives no RTT sample (it may time either copy).
    resent_to: u64,
    /// Its incarnation: one more each time it (re)connects.
    inc: u64,
    /// When it is back from the error state, reconnected.
    ready_at: Time,
}

/// What the sending NIC's ACK timer did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HwTimer {
    /// Not due, or nothing unacknowledged.
    Nothing,
    /// It went back to the first unacknowledged byte.
    GoBack,
    /// The QP is in the error state: the software takes over.
    Error,
}

/// What an RC ACK or NAK did at the sending NIC.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HwAcked {
    /// The WQEs it completed (their send completions), oldest first, and
    /// whether each may time an RTT (never resent by go-back-N).
    pub completed: Vec<(u64, bool)>,
    /// The QP went to the error state (a NAK with no retry left).
    pub error: bool,
}

/// The sending side of a connection's RC QPs: the NIC's part (numbering,
/// go-back-N, the ACK timer, the retry count, the error state).
#[derive(Clone, Debug)]
pub struct RcTx {
    retry: u32,
    ack_timeout: Delta,
    recover: Delta,
    qps: [TxQp; MAX_PATHS as usize],
    /// The QP in use.
    cur: u8,
    /// Its send queue: WQEs posted and not acknowledged, oldest first.
    sq: VecDeque<Seg>,
    /// Retries left before the error state.
    retries: u32,
    /// The go-back-N resend under way: the WQE and the next byte (in the
    /// flow) to resend.
    rewind: Option<(u64, u64)>,
    /// When the ACK timer fires, while bytes are unacknowledged.
    due: Option<Time>,
    /// In the error state, not yet reported to the software.
    error: bool,
    /// What it counted.
    pub stats: RcStats,
}

impl RcTx {
    /// The NIC's side of a connection's RC QPs under `cfg`.
    pub fn new(cfg: &PfcFreeConfig) -> Self {
        RcTx {
            retry: cfg.rc_retry,
            ack_timeout: cfg.rc_ack_timeout,
            recover: cfg.rc_recover,
            qps: [TxQp::default(); MAX_PATHS as usize],
            cur: 0,
            sq: VecDeque::new(),
            retries: cfg.rc_retry,
            rewind: None,
            due: None,
            error: false,
            stats: RcStats::default(),
        }
    }

    /// WQE `gn`, `len` bytes from flow byte `start`, is posted on the QP in
    /// use: its first PSN.
    pub fn post(&mut self, gn: u64, start: u64, len: u64) -> u64 {
        let q = &mut self.qps[usize::from(self.cur)];
        let psn = q.next;
        q.next += len;
        self.sq.push_back(Seg {
            gn,
            psn,
            start,
            len,
        });
        psn
    }

    /// A packet left now; true if it started the ACK timer (nothing was
    /// unacknowledged).
    pub fn on_wire(&mut self, now: Time) -> bool {
        if self.due.is_some() {
            return false;
        }
        self.due = Some(now + self.ack_timeout);
        true
    }

    /// When the ACK timer fires, if it runs.
    pub fn due(&self) -> Option<Time> {
        self.due
    }

    /// The next packet go-back-N resends: its WQE, its first byte and the
    /// WQE's end (flow bytes).
    pub fn resend_next(&self) -> Option<(u64, u64, u64)> {
        let (gn, byte) = self.rewind?;
        let s = self.sq.iter().find(|s| s.gn == gn)?;
        Some((gn, byte, s.start + s.len))
    }

    /// The packet [`Self::resend_next`] named, of `payload` bytes, left.
    pub fn resent(&mut self, payload: u64) {
        let Some((gn, byte)) = self.rewind else {
            return;
        };
        self.stats.resent_bytes += payload;
        let i = self
            .sq
            .iter()
            .position(|s| s.gn == gn)
            .expect("the WQE resent is queued");
        let next = byte + payload;
        let s = self.sq[i];
        self.rewind = if next < s.start + s.len {
            Some((gn, next))
        } else {
            self.sq.get(i + 1).map(|n| (n.gn, n.start))
        };
    }

    /// Go back to PSN `from` on the QP in use, if a retry is left; false
    /// (and the error state) if none is.
    fn go_back(&mut self, from: u64, now: Time) -> bool {
        if self.retries == 0 {
            self.stats.qp_errors += 1;
            self.error = true;
            self.rewind = None;
            self.due = None;
            return false;
        }
        self.retries -= 1;
        self.stats.go_backs += 1;
        let q = &mut self.qps[usize::from(self.cur)];
        q.resent_to = q.resent_to.max(q.next);
        self.rewind = self
            .sq
            .iter()
            .find(|s| s.psn + s.len > from)
            .map(|s| (s.gn, s.start + from.saturating_sub(s.psn)));
        self.due = Some(now + self.ack_timeout);
        true
    }

    /// An ACK or NAK of the receiving QP arrived now.
    pub fn on_ack(&mut self, a: HwAck, now: Time) -> HwAcked {
        let mut out = HwAcked::default();
        let cur = usize::from(self.cur);
        let q = &mut self.qps[cur];
        // One of a QP left behind (in error, reconnecting): it is gone.
        if usize::from(a.path) != cur || incarnation(a.psn) != q.inc || self.error {
            return out;
        }
        if a.psn > q.acked {
            q.acked = a.psn;
            let resent_to = q.resent_to;
            while self.sq.front().is_some_and(|s| s.psn + s.len <= a.psn) {
                let s = self.sq.pop_front().expect("checked");
                out.completed.push((s.gn, s.psn + s.len > resent_to));
            }
            // Progress: the retries are back.
            self.retries = self.retry;
            let q = &self.qps[cur];
            self.due = (q.acked < q.next).then(|| now + self.ack_timeout);
            if self
                .rewind
                .is_some_and(|(gn, _)| !self.sq.iter().any(|s| s.gn == gn))
            {
                // The resend is behind what is acknowledged: go on from
                // the first unacknowledged WQE.
                self.rewind = self.sq.front().map(|s| (s.gn, s.start));
            }
        }
        if a.nak && a.psn >= self.qps[cur].acked {
            out.error = !self.go_back(a.psn, now);
        }
        out
    }

    /// The ACK timer, or a reported error, at `now`.
    pub fn on_timer(&mut self, now: Time) -> HwTimer {
        if self.error {
            return HwTimer::Error;
        }
        if self.due.is_none_or(|d| d > now) {
            return HwTimer::Nothing;
        }
        let q = self.qps[usize::from(self.cur)];
        if q.acked >= q.next {
            self.due = None;
            return HwTimer::Nothing;
        }
        self.stats.ack_timeouts += 1;
        if self.go_back(q.acked, now) {
            HwTimer::GoBack
        } else {
            HwTimer::Error
        }
    }

    /// The software leaves the QP in use (its error state, or a software
    /// timeout) and moves to QP `to`: the one left reconnects in the
    /// background, `to` starts a new incarnation. Returns when `to` may
    /// carry data (it may itself be reconnecting still).
    pub fn switch_to(&mut self, to: u8, now: Time) -> Time {
        self.qps[usize::from(self.cur)].ready_at = now + self.recover;
        self.sq.clear();
        self.rewind = None;
        self.due = None;
        self.error = false;
        self.retries = self.retry;
        self.cur = to;
        let q = &mut self.qps[usize::from(to)];
        q.inc += 1;
        q.next = first_psn(q.inc);
        q.acked = q.next;
        q.resent_to = q.next;
        q.ready_at
    }
}

/// A receiving QP's numbers.
#[derive(Clone, Copy, Debug, Default)]
struct RxQp {
    inc: u64,
    /// The next byte it takes (its ePSN).
    epsn: u64,
    /// A NAK was sent for the current gap.
    nak: bool,
}

/// The receiving side of a connection's RC QPs: the NIC's part.
#[derive(Clone, Debug, Default)]
pub struct RcRx {
    qps: [RxQp; MAX_PATHS as usize],
    /// What it counted.
    pub stats: RcStats,
}

/// What a receiving RC QP does with a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RxVerdict {
    /// It took the packet (the next expected byte).
    pub take: bool,
    /// The ACK or NAK it sends back, if any.
    pub reply: Option<HwAck>,
}

impl RcRx {
    /// The full PSN of a packet on QP `path` that carries `w` (the low 32
    /// bits of its byte, `headers.rs`): in its incarnation, the byte
    /// nearest the QP's expected one (from 0 in a newer incarnation, which
    /// starts there; a packet of an older one is dropped all the same). A
    /// packet 2 GiB or more from the expected byte would be misread; the
    /// window keeps every packet of a QP far closer.
    pub fn psn_of(&self, path: u8, w: PsnWire) -> u64 {
        let q = &self.qps[usize::from(path)];
        let inc = u64::from(w.inc);
        let base = if inc == q.inc {
            q.epsn - first_psn(inc)
        } else {
            0
        };
        let d = i64::from(w.low.wrapping_sub(base as u32) as i32);
        first_psn(inc) + base.saturating_add_signed(d)
    }

    /// A packet of `payload` bytes at PSN `psn` on QP `path` arrived; `last`:
    /// the last packet of its WQE.
    pub fn on_packet(&mut self, path: u8, psn: u64, payload: u64, last: bool) -> RxVerdict {
        let q = &mut self.qps[usize::from(path)];
        let inc = incarnation(psn);
        if inc > q.inc {
            // The sender reconnected this QP: its PSNs start again.
            *q = RxQp {
                inc,
                epsn: first_psn(inc),
                nak: false,
            };
        } else if inc < q.inc {
            return RxVerdict {
                take: false,
                reply: None,
            };
        }
        let ack = |epsn, nak| HwAck {
            path,
            psn: epsn,
            nak,
        };
        if psn == q.epsn {
            // Taken, and ACKed: a NIC coalesces its ACKs in a way the
            // paper does not give; every packet is the closest bound, and
            // keeps the sender's ACK timer from expiring while a long WQE
            // is still on its way.
            q.epsn += payload;
            q.nak = false;
            return RxVerdict {
                take: true,
                reply: Some(ack(q.epsn, false)),
            };
        }
        if psn > q.epsn {
            // After a gap: discard, and NAK the first one (Bifröst §2.1).
            self.stats.discarded += 1;
            let first = !q.nak;
            q.nak = true;
            if first {
                self.stats.naks += 1;
            }
            return RxVerdict {
                take: false,
                reply: first.then(|| ack(q.epsn, true)),
            };
        }
        // A duplicate: ACK again at its WQE's end (the first ACK may be lost).
        RxVerdict {
            take: false,
            reply: last.then(|| ack(q.epsn, false)),
        }
    }
}
