//! The PFC-free transport's sender: chunking, numbering, per-WQE state,
//! ACK processing, loss detection, selective retransmission by chunk,
//! the timeout and the move to a backup QP (Bifröst §3.2, §3.4, App. A).

use super::config::{PfcFreeConfig, OFFSET_UNITS};
use super::headers::{AckBody, AckEntry, PsnWire, Verb, WqeHeader, WqeWire};
use super::rc::{incarnation, HwAck, HwTimer, RcStats, RcTx};
use crate::cc::{AckSample, CcEnv, CongestionControl, Swift, SwiftConfig, TimerRequests};
use crate::transport::hooks::{SendSeq, TimerOutcome};
use engine::{Delta, Rate, Time};
use std::collections::{HashMap, VecDeque};

/// Where a WQE stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum St {
    /// Its packets are being handed to the NIC.
    Posting,
    /// Posted in full (its send completion, T1, is known), not yet
    /// acknowledged.
    InFlight,
    /// Acknowledged.
    Acked,
    /// Declared lost; its bytes are queued to be resent.
    Lost,
}

/// One posted WQE (Bifröst §3.2: "stores the WQE information and
/// maintains its state").
#[derive(Clone, Copy, Debug)]
struct Wqe {
    hdr: WqeHeader,
    st: St,
    /// Send completion: when its last packet left (T1 of eq. 1).
    t1: Time,
}

/// A message the connection has started and not yet seen acknowledged
/// in full.
#[derive(Clone, Debug)]
struct Msg {
    start: u64,
    len: u64,
    /// Bytes handed to WQEs so far.
    posted: u64,
    /// Units acknowledged (a bit per unit).
    acked: Vec<u64>,
    acked_units: u64,
    done: bool,
}

impl Msg {
    fn units(&self, unit: u64) -> u64 {
        self.len.div_ceil(unit)
    }
}

/// A retransmission waiting to be posted: one SEND.
#[derive(Clone, Copy, Debug)]
struct Piece {
    mid: u32,
    start: u64,
    len: u64,
    /// The chunk offset (in units) of the WRITE it resends, if it resends
    /// a WRITE (the SEND header's original WRITE RN).
    write_off: Option<u32>,
    /// Its SEND RN: the original's for a resent SEND, a new one for a
    /// piece of a WRITE.
    send_rn: u32,
    /// Declared lost by a timeout (not by an ACK).
    after_timeout: bool,
}

/// The sender of one connection (one flow).
#[derive(Clone, Debug)]
pub struct PfcFreeSender {
    cfg: PfcFreeConfig,
    mtu: u64,
    size: u64,
    msg_bytes: u64,
    /// Bytes a chunk may be at most for the path (rate × base_RTT).
    bdp: u64,
    msgs: VecDeque<Msg>,
    /// Message id of `msgs[0]`.
    base_mid: u32,
    /// Messages started and not acknowledged in full.
    open: u32,
    /// Where the next message starts.
    next_msg_start: u64,
    wqes: VecDeque<Wqe>,
    /// GN of `wqes[0]`.
    base_gn: u64,
    /// Posted original WRITE chunks not yet acknowledged, by their RN
    /// (message id and offset): a WRITE is acknowledged by its RN, its
    /// GN never leaves the sender (Bifröst App. A.1.1).
    write_rn: HashMap<(u32, u32), u64>,
    /// The WQE whose packets are being sent, and its next byte.
    cur: Option<(u64, u64)>,
    /// The GN of the WQE the last packet belonged to.
    last_gn: u64,
    retx: VecDeque<Piece>,
    next_send_rn: u32,
    /// Bytes of WQEs posted and neither acknowledged nor lost.
    inflight: u64,
    /// Which QP (0 = primary, then the backups) carries new WQEs.
    path: u8,
    /// Moving to a backup QP: nothing is sent until the switch is done.
    switching: bool,
    /// Highest GN acknowledged on each QP.
    max_acked: [u64; 4],
    cc: Swift,
    srtt: Option<Delta>,
    rttvar: Delta,
    last_progress: Time,
    timer_armed: bool,
    /// Timeouts in a row since the last RTT sample: the timeout is
    /// doubled this many times.
    backoff: u32,
    /// Bytes resent, losses detected from ACKs, timeouts.
    pub stats: SenderStats,
    /// RC mode's NIC side (`rc.rs`); `None` with UC.
    rc: Option<Box<RcTx>>,
}

/// What a sender counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    /// WQEs posted (retransmissions included).
    pub wqes: u64,
    /// WQEs declared lost from an ACK (an acknowledged later WQE).
    pub lost_by_ack: u64,
    /// WQEs declared lost by a timeout.
    pub lost_by_timeout: u64,
    /// RTT samples taken.
    pub rtt_samples: u64,
    /// Moves to a backup QP.
    pub qp_switches: u64,
    /// Timeouts that expired (each declares every WQE in flight lost).
    pub timeouts: u64,
    /// Software ACKs read.
    pub acks: u64,
}

/// Doublings of the timeout at most (beyond, `rto_max` holds anyway).
const MAX_BACKOFF: u32 = 20;

pub use super::config::MAX_PATHS;

impl PfcFreeSender {
    /// The sender of a flow of `size` bytes on a NIC of `line_rate`.
    pub fn new(cfg: PfcFreeConfig, mtu: u64, size: u64, line_rate: Rate, now: Time) -> Self {
        let env = CcEnv {
            line_rate,
            base_rtt: cfg.base_rtt,
            bdp: line_rate.bytes_in(cfg.base_rtt),
            mtu: mtu as u32,
            rng_seed: 0,
        };
        // Bifröst's window: Swift's structure with base_RTT as the target
        // and the minimum at one unit (Bifröst §3.4.3, §4.4).
        let mut cc = Swift::new(
            SwiftConfig {
                target: cfg.base_rtt,
                cwnd_min: Some(cfg.unit),
                ai: Some(cfg.unit),
                ..SwiftConfig::default()
            },
            &env,
        );
        cc.start_at(cfg.init_window.unwrap_or(cfg.unit));
        PfcFreeSender {
            msg_bytes: cfg.message_bytes(),
            bdp: env.bdp.max(cfg.unit),
            cfg,
            mtu: mtu.max(1),
            size,
            msgs: VecDeque::new(),
            base_mid: 0,
            open: 0,
            next_msg_start: 0,
            wqes: VecDeque::new(),
            base_gn: 0,
            write_rn: HashMap::new(),
            cur: None,
            last_gn: 0,
            retx: VecDeque::new(),
            next_send_rn: 0,
            inflight: 0,
            path: 0,
            switching: false,
            max_acked: [0; 4],
            cc,
            srtt: None,
            rttvar: Delta::ZERO,
            last_progress: now,
            timer_armed: false,
            backoff: 0,
            stats: SenderStats::default(),
            rc: (cfg.qp_type == super::config::QpType::Rc).then(|| Box::new(RcTx::new(&cfg))),
        }
    }

    fn next_gn(&self) -> u64 {
        self.base_gn + self.wqes.len() as u64
    }

    fn wqe_mut(&mut self, gn: u64) -> Option<&mut Wqe> {
        let i = gn.checked_sub(self.base_gn)?;
        self.wqes.get_mut(i as usize)
    }

    /// The header of WQE `gn` (what its packets carry: opcode, PSN range,
    /// imm_data or SEND header), while the sender keeps it.
    pub fn header(&self, gn: u64) -> Option<WqeHeader> {
        let i = gn.checked_sub(self.base_gn)?;
        self.wqes.get(i as usize).map(|w| w.hdr)
    }

    /// The full GN of a packet that carries its low 32 bits.
    pub fn gn_of_tag(&self, tag: u32) -> u64 {
        self.base_gn + u64::from(tag.wrapping_sub(self.base_gn as u32))
    }

    /// The software window, bytes (unbounded without the software CC).
    pub fn cwnd(&self) -> u64 {
        if self.cfg.sw_cc {
            self.cc.cwnd() as u64
        } else {
            u64::MAX
        }
    }

    /// The smoothed RTT, once measured.
    pub fn srtt(&self) -> Option<Delta> {
        self.srtt
    }

    /// Bytes in flight.
    pub fn inflight(&self) -> u64 {
        self.inflight
    }

    fn avail(&self) -> u64 {
        self.cwnd().saturating_sub(self.inflight)
    }

    fn rto(&self) -> Delta {
        let base = match self.srtt {
            Some(s) => {
                (s.ps() + 4 * self.rttvar.ps()).max(self.cfg.rto_min.ps()) + self.ack_wait().ps()
            }
            // No RTT measured yet (RFC 6298 §2.1's initial timeout).
            None => self.cfg.rto_init.ps(),
        };
        Delta(
            base.saturating_mul(1 << self.backoff.min(MAX_BACKOFF))
                .min(self.cfg.rto_max.ps().max(base)),
        )
    }

    /// How long an ACK may wait at the receiver: the coalescing timer of
    /// software ACKs; none for RC's, which its NIC sends at once.
    fn ack_wait(&self) -> Delta {
        if self.rc.is_some() {
            Delta::ZERO
        } else {
            self.cfg.ack_timer
        }
    }

    /// The timer for `at`, or earlier if RC's ACK timer is due first.
    fn arm_at(&self, at: Time) -> Time {
        match self.rc.as_deref().and_then(RcTx::due) {
            Some(d) => d.min(at),
            None => at,
        }
    }

    /// RC's counters; `None` with UC.
    pub fn rc_stats(&self) -> Option<RcStats> {
        self.rc.as_deref().map(|rc| rc.stats)
    }

    /// The chunk for new data at the head of a message with `left` bytes
    /// still to post: at most the available window, the path's BDP and
    /// the largest chunk, smaller as queueing grows, a whole number of
    /// units, and one unit when the window has less than that but is not
    /// empty (Bifröst §3.4.1).
    fn chunk(&self, left: u64) -> u64 {
        let unit = self.cfg.unit;
        let avail = self.avail();
        let cap = avail.min(self.bdp).min(self.cfg.max_chunk);
        let s = if cap < unit {
            unit
        } else {
            let q = match self.srtt {
                Some(r) => r.ps().saturating_sub(self.cfg.base_rtt.ps()),
                None => 0,
            };
            let lim = self.cfg.chunk_shrink_delay.ps().max(1);
            let keep = lim.saturating_sub(q) as u128;
            let s = (cap as u128 * keep / lim as u128) as u64;
            (s / unit * unit).max(unit)
        };
        s.min(left)
    }

    /// Whether the window holds resending piece `p` back. The paper does
    /// not say whether it does: rdmasim resends what an ACK showed lost at
    /// once (it was within the window when sent), and holds what a timeout
    /// declared lost to the window, as new data (unheld, many QPs timing
    /// out together resend all they had in flight at once, and again at
    /// the next timeout).
    fn held(&self, p: &Piece) -> bool {
        p.after_timeout && self.cfg.sw_cc && self.avail() == 0
    }

    /// Forget queued pieces of messages acknowledged in full meanwhile.
    fn prune_retx(&mut self) {
        let base = self.base_mid;
        self.retx.retain(|p| p.mid >= base);
    }

    /// Whether a new message may start: its I/O depth is not reached and
    /// bytes are left.
    fn may_open(&self) -> bool {
        self.next_msg_start < self.size && self.open < self.cfg.io_depth
    }

    /// The message new data comes from, if one has bytes left to post.
    fn posting_msg(&self) -> Option<usize> {
        self.msgs.iter().position(|m| m.posted < m.len)
    }

    /// What the next packet starts, as (WQE start, WQE length, whether a
    /// retransmission), if a packet may go now.
    fn next_wqe(&self) -> Option<(u64, u64, bool)> {
        if let Some((gn, _)) = self.cur {
            let w = &self.wqes[(gn - self.base_gn) as usize];
            return Some((w.hdr.start, w.hdr.len, w.hdr.verb == Verb::RetxSend));
        }
        if self.switching {
            return None;
        }
        // Retransmissions go before new data (Bifröst §3.2).
        if let Some(p) = self.retx.front() {
            return (!self.held(p)).then_some((p.start, p.len, true));
        }
        if self.cfg.sw_cc && self.avail() == 0 {
            return None;
        }
        let (start, left) = match self.posting_msg() {
            Some(i) => {
                let m = &self.msgs[i];
                (m.start + m.posted, m.len - m.posted)
            }
            None if self.may_open() => {
                let len = self.msg_bytes.min(self.size - self.next_msg_start);
                (self.next_msg_start, len)
            }
            None => return None,
        };
        Some((start, self.chunk(left), false))
    }

    /// The byte of the next resent packet, if one may go now.
    pub fn retransmission(&self) -> Option<u64> {
        match self.cur {
            Some((gn, next)) => {
                let w = &self.wqes[(gn - self.base_gn) as usize];
                (w.hdr.verb == Verb::RetxSend).then_some(next)
            }
            None if self.switching => None,
            // RC's go-back-N resends first, outside the window.
            None => match self.rc.as_deref().and_then(RcTx::resend_next) {
                Some((_, byte, _)) => Some(byte),
                None => self.retx.front().filter(|p| !self.held(p)).map(|p| p.start),
            },
        }
    }

    /// Whether the next packet starts a WQE (none is being sent).
    pub fn at_wqe_start(&self) -> bool {
        self.cur.is_none()
    }

    /// Whether new data may go now.
    pub fn may_send_new(&self, s: &SendSeq) -> bool {
        if s.nxt >= self.size {
            return false;
        }
        matches!(self.next_wqe(), Some((_, _, false)))
    }

    /// One past the last byte of the packet that starts at `seq`: the end
    /// of its WQE (a packet never spans two WQEs).
    pub fn packet_end(&self, seq: u64) -> u64 {
        match self.cur {
            Some((gn, _)) => {
                let w = &self.wqes[(gn - self.base_gn) as usize];
                w.hdr.start + w.hdr.len
            }
            None => match self.rc.as_deref().and_then(RcTx::resend_next) {
                Some((_, byte, end)) if byte == seq => end,
                _ => match self.next_wqe() {
                    Some((start, len, _)) if start == seq => start + len,
                    _ => seq + self.mtu,
                },
            },
        }
    }

    /// The low 32 bits of the GN of the WQE the last packet sent belongs
    /// to: what the receiver reads the WQE's header by.
    pub fn tag(&self) -> u32 {
        self.last_gn as u32
    }

    /// What the packet just sent, `payload` bytes at `seq`, carries of its
    /// WQE (the one [`Self::tag`] names).
    pub fn wire(&self, seq: u64, payload: u64) -> WqeWire {
        let h = self.header(self.last_gn).expect("the WQE just sent");
        // RC: the packet's PSN in place of the SEND RN (`WqeWire::psn`).
        let psn = self.rc.is_some().then(|| {
            let p = h.psn + (seq - h.start);
            PsnWire {
                low: p as u32,
                inc: incarnation(p) as u16,
            }
        });
        WqeWire {
            tag: self.last_gn as u32,
            send_rn: if psn.is_some() { 0 } else { h.send_rn },
            psn,
            path: h.path,
            retx: h.verb == Verb::RetxSend,
            hint: h.hint,
            first: seq == h.start,
            last: seq + payload >= h.start + h.len,
        }
    }

    /// Post a new WQE starting at `seq` (what [`Self::next_wqe`] named).
    fn post(&mut self, seq: u64, now: Time) {
        let (start, len, retx) = self.next_wqe().expect("the NIC sends what may go");
        debug_assert_eq!(start, seq);
        let gn = self.next_gn();
        let unit = self.cfg.unit;
        let hdr = if retx {
            let p = self.retx.pop_front().expect("a piece");
            WqeHeader {
                gn,
                verb: Verb::RetxSend,
                mid: p.mid,
                msg_start: self.msgs[(p.mid - self.base_mid) as usize].start,
                msg_len: self.msgs[(p.mid - self.base_mid) as usize].len,
                start: p.start,
                len: p.len,
                send_rn: p.send_rn,
                write_off: p.write_off,
                path: self.path,
                hint: false,
                psn: 0,
            }
        } else {
            let i = match self.posting_msg() {
                Some(i) => i,
                None => {
                    let len = self.msg_bytes.min(self.size - self.next_msg_start);
                    let units = len.div_ceil(unit) as usize;
                    self.msgs.push_back(Msg {
                        start: self.next_msg_start,
                        len,
                        posted: 0,
                        acked: vec![0; units.div_ceil(64)],
                        acked_units: 0,
                        done: false,
                    });
                    self.next_msg_start += len;
                    self.open += 1;
                    self.msgs.len() - 1
                }
            };
            let mid = self.base_mid + i as u32;
            let m = &mut self.msgs[i];
            let off = m.posted / unit;
            debug_assert!(off < OFFSET_UNITS);
            m.posted += len;
            let verb = if m.len <= self.cfg.send_max {
                Verb::Send
            } else {
                Verb::Write
            };
            let send_rn = if verb == Verb::Send {
                self.next_send_rn = self.next_send_rn.wrapping_add(1);
                self.next_send_rn - 1
            } else {
                0
            };
            if verb == Verb::Write {
                self.write_rn.insert((mid, off as u32), gn);
            }
            WqeHeader {
                gn,
                verb,
                mid,
                msg_start: m.start,
                msg_len: m.len,
                start,
                len,
                send_rn,
                write_off: (verb == Verb::Write).then_some(off as u32),
                path: self.path,
                hint: false,
                psn: 0,
            }
        };
        let mut hdr = hdr;
        if let Some(rc) = self.rc.as_deref_mut() {
            hdr.psn = rc.post(gn, hdr.start, hdr.len);
        }
        self.wqes.push_back(Wqe {
            hdr,
            st: St::Posting,
            t1: now,
        });
        self.inflight += len;
        self.stats.wqes += 1;
        // The hint: this WQE fills the window, or nothing else waits to go
        // (Bifröst App. A.1.1: "the last WQE in congestion window").
        let last = self.avail() == 0
            || (self.retx.is_empty() && self.posting_msg().is_none() && !self.may_open());
        self.wqes.back_mut().expect("pushed").hdr.hint = last;
        self.cur = Some((gn, start));
    }

    /// A packet of `payload` bytes at `seq` was sent now. Returns when the
    /// timeout should fire, if it is to be armed.
    pub fn sent(&mut self, s: &mut SendSeq, seq: u64, payload: u64, now: Time) -> Option<Time> {
        if self.cur.is_none() {
            if let Some(rc) = self.rc.as_deref_mut() {
                if let Some((gn, byte, _)) = rc.resend_next() {
                    // RC's NIC resends a packet by go-back-N: the WQE's
                    // state is the software's and stays as it is.
                    debug_assert_eq!(byte, seq);
                    rc.resent(payload);
                    self.last_gn = gn;
                    return self.arm_after_send(now);
                }
            }
            self.post(seq, now);
        }
        let (gn, next) = self.cur.expect("posting");
        debug_assert_eq!(next, seq);
        self.last_gn = gn;
        let end = seq + payload;
        let w = self.wqe_mut(gn).expect("current WQE");
        let done = end >= w.hdr.start + w.hdr.len;
        if w.hdr.verb != Verb::RetxSend {
            s.nxt = s.nxt.max(end);
        }
        s.max_sent = s.max_sent.max(end);
        if done {
            w.st = St::InFlight;
            // UC's send completion: the packets are on the wire (T1).
            w.t1 = now;
            self.cur = None;
        } else {
            self.cur = Some((gn, end));
        }
        self.arm_after_send(now)
    }

    /// After a packet left now: when the timeout should fire, if it is to
    /// be armed (or armed earlier, for RC's ACK timer that this packet
    /// started).
    fn arm_after_send(&mut self, now: Time) -> Option<Time> {
        let hw = self.rc.as_deref_mut().is_some_and(|rc| rc.on_wire(now));
        if self.timer_armed {
            return hw.then(|| self.arm_at(self.last_progress + self.rto()));
        }
        self.timer_armed = true;
        self.last_progress = now;
        Some(self.arm_at(now + self.rto()))
    }

    /// Queue WQE `gn` (declared lost) to be resent: a WRITE as SENDs of one
    /// unit each, each with a new SEND RN; a SEND as one SEND with its
    /// original SEND RN (Bifröst §3.4.2, App. A.1.1).
    fn resend(&mut self, gn: u64, after_timeout: bool) {
        let w = self.wqe_mut(gn).expect("a posted WQE");
        w.st = St::Lost;
        let h = w.hdr;
        self.inflight -= h.len;
        if h.verb == Verb::Write {
            self.write_rn
                .remove(&(h.mid, h.write_off.expect("a WRITE's offset")));
            let unit = self.cfg.unit;
            let mut off = 0;
            while off < h.len {
                let len = unit.min(h.len - off);
                let rn = self.next_send_rn;
                self.next_send_rn = rn.wrapping_add(1);
                self.retx.push_back(Piece {
                    mid: h.mid,
                    start: h.start + off,
                    len,
                    write_off: Some(((h.start + off - h.msg_start) / unit) as u32),
                    send_rn: rn,
                    after_timeout,
                });
                off += len;
            }
        } else {
            self.retx.push_back(Piece {
                mid: h.mid,
                start: h.start,
                len: h.len,
                write_off: h.write_off,
                send_rn: h.send_rn,
                after_timeout,
            });
        }
    }

    /// A software ACK arrived at `now` (T4). Returns whether a loss was
    /// detected and when the timeout should fire, if it is to be re-armed.
    pub fn on_soft_ack(
        &mut self,
        s: &mut SendSeq,
        ack: &AckBody,
        now: Time,
    ) -> (bool, Option<Time>) {
        if let Some(hw) = ack.hw {
            return self.on_hw_ack(s, hw, now);
        }
        let mut newly = 0;
        let mut reference = None;
        self.stats.acks += 1;
        for e in &ack.entries {
            let gn = match *e {
                AckEntry::Send(gn) => Some(gn),
                AckEntry::Write { mid, off } => self.write_rn.remove(&(mid, off)),
            };
            let Some(gn) = gn else { continue };
            let Some(w) = self.wqe_mut(gn) else { continue };
            reference = Some((w.t1, w.st));
            newly += self.settle(gn);
        }
        // RTT = (T4 − T1) − (T3′ − T2), of the ACK's reference WQE
        // (Bifröst §3.4.3, eq. 1).
        let mut timers = TimerRequests::default();
        if let Some((t1, st)) = reference {
            if st != St::Posting && now >= t1 {
                let rtt = Delta((now - t1).ps().saturating_sub(ack.residence.ps()));
                self.rtt_sample(s, rtt, newly, now, &mut timers);
            }
        }
        // A later WQE on the same QP was acknowledged: the earlier ones
        // still in flight there were lost (one QP delivers in order).
        let mut lost = Vec::new();
        for w in &self.wqes {
            let p = usize::from(w.hdr.path);
            if w.st == St::InFlight && w.hdr.gn < self.max_acked[p] {
                lost.push(w.hdr.gn);
            }
        }
        let loss = !lost.is_empty();
        for gn in lost {
            self.stats.lost_by_ack += 1;
            self.resend(gn, false);
        }
        if loss && self.cfg.sw_cc {
            // The window to its minimum on a drop (Bifröst §3.4.3).
            self.cc.on_nack(now, &mut timers);
        }
        if newly > 0 {
            self.last_progress = now;
        }
        self.retire(s);
        self.prune_retx();
        let arm = (self.inflight > 0 || self.cur.is_some()) && !self.timer_armed;
        if arm {
            self.timer_armed = true;
        }
        (loss, arm.then(|| now + self.rto()))
    }

    /// WQE `gn` is acknowledged (delivered): mark it and the units it
    /// carried. Returns its bytes if it was not acknowledged before.
    fn settle(&mut self, gn: u64) -> u64 {
        let unit = self.cfg.unit;
        let Some(w) = self.wqe_mut(gn) else { return 0 };
        if w.st == St::Acked || w.st == St::Posting {
            return 0;
        }
        let was = w.st;
        w.st = St::Acked;
        let h = w.hdr;
        if was == St::InFlight {
            self.inflight -= h.len;
        }
        let p = usize::from(h.path);
        self.max_acked[p] = self.max_acked[p].max(gn + 1);
        // Mark the units it carried (unless its message was acknowledged
        // in full by other copies and retired).
        let i = h.mid.checked_sub(self.base_mid);
        if let Some(m) = i.and_then(|i| self.msgs.get_mut(i as usize)) {
            let first = (h.start - m.start) / unit;
            let last = (h.start + h.len - m.start).div_ceil(unit);
            for u in first..last {
                let (word, bit) = ((u / 64) as usize, u % 64);
                if m.acked[word] & (1 << bit) == 0 {
                    m.acked[word] |= 1 << bit;
                    m.acked_units += 1;
                }
            }
            if !m.done && m.acked_units == m.units(unit) {
                m.done = true;
                self.open -= 1;
            }
        }
        h.len
    }

    /// An RTT sample: the estimator, and the window unless it is off.
    fn rtt_sample(
        &mut self,
        s: &SendSeq,
        rtt: Delta,
        newly: u64,
        now: Time,
        timers: &mut TimerRequests,
    ) {
        self.sample(rtt);
        if self.cfg.sw_cc {
            let sample = AckSample {
                seq: 0,
                newly_acked: newly,
                rtt,
                ecn_echo: false,
                snd_nxt: s.nxt,
                int: &[],
                pint: 0,
            };
            self.cc.on_ack(now, &sample, timers);
        }
    }

    /// RC: the receiving QP's ACK or NAK reached the NIC at `now`. The
    /// send completions of the WQEs it acknowledged time the RTT (from the
    /// newest one's send, Bifröst §3.4.3 after RoGUE) and feed the window;
    /// a NAK makes the NIC go back (no software sees it); a NAK with no
    /// retry left puts the QP in the error state, which the software
    /// handles at once through the timer ([`Self::timeout`]).
    fn on_hw_ack(&mut self, s: &mut SendSeq, hw: HwAck, now: Time) -> (bool, Option<Time>) {
        let Some(rc) = self.rc.as_deref_mut() else {
            return (false, None);
        };
        let out = rc.on_ack(hw, now);
        let mut newly = 0;
        let mut reference = None;
        for (gn, timed) in out.completed {
            let Some(w) = self.wqe_mut(gn) else { continue };
            if timed && w.st == St::InFlight {
                reference = Some(w.t1);
            }
            newly += self.settle(gn);
        }
        let mut timers = TimerRequests::default();
        if let Some(t1) = reference.filter(|&t1| now >= t1) {
            self.rtt_sample(s, now - t1, newly, now, &mut timers);
        }
        if newly > 0 {
            self.last_progress = now;
        }
        self.retire(s);
        self.prune_retx();
        if out.error {
            self.timer_armed = true;
            return (false, Some(now));
        }
        if self.inflight == 0 && self.cur.is_none() {
            return (false, None);
        }
        // The ACK timer may have moved (progress, or a go-back): re-arm.
        if !self.timer_armed {
            self.timer_armed = true;
            self.last_progress = now;
        }
        (false, Some(self.arm_at(self.last_progress + self.rto())))
    }

    fn sample(&mut self, rtt: Delta) {
        self.stats.rtt_samples += 1;
        // A fresh sample (every GN is new, so none is ambiguous) ends the
        // back-off.
        self.backoff = 0;
        // RFC 6298's estimator (the paper names none).
        match self.srtt {
            None => {
                self.srtt = Some(rtt);
                self.rttvar = Delta(rtt.ps() / 2);
            }
            Some(s) => {
                let diff = s.ps().abs_diff(rtt.ps());
                self.rttvar = Delta((3 * self.rttvar.ps() + diff) / 4);
                self.srtt = Some(Delta((7 * s.ps() + rtt.ps()) / 8));
            }
        }
    }

    /// Drop finished messages and settled WQEs from the front; the
    /// cumulative acknowledgement is the first unfinished message's start.
    fn retire(&mut self, s: &mut SendSeq) {
        while self.msgs.front().is_some_and(|m| m.done) {
            self.msgs.pop_front();
            self.base_mid += 1;
        }
        while self
            .wqes
            .front()
            .is_some_and(|w| matches!(w.st, St::Acked | St::Lost) && w.hdr.mid < self.base_mid)
        {
            self.wqes.pop_front();
            self.base_gn += 1;
        }
        s.una = match self.msgs.front() {
            Some(m) => m.start,
            None => self.next_msg_start,
        };
    }

    /// The timeout fired.
    pub fn timeout(&mut self, now: Time) -> TimerOutcome {
        if self.switching {
            // The backup QP is ready.
            self.switching = false;
            let busy = self.inflight > 0 || self.cur.is_some() || !self.retx.is_empty();
            self.timer_armed = busy;
            self.last_progress = now;
            return TimerOutcome {
                again_at: busy.then(|| now + self.rto()),
                look: true,
                ..TimerOutcome::default()
            };
        }
        // RC: the NIC's ACK timer, or its error state.
        let mut look = false;
        if let Some(rc) = self.rc.as_deref_mut() {
            match rc.on_timer(now) {
                HwTimer::Nothing => {}
                HwTimer::GoBack => look = true,
                HwTimer::Error => return self.fail_over(now),
            }
        }
        if self.inflight == 0 && self.cur.is_none() {
            self.timer_armed = false;
            return TimerOutcome::default();
        }
        let due = self.last_progress + self.rto();
        if now < due {
            return TimerOutcome {
                again_at: Some(self.arm_at(due)),
                look,
                ..TimerOutcome::default()
            };
        }
        self.stats.timeouts += 1;
        self.backoff = self.backoff.saturating_add(1);
        self.fail_over(now)
    }

    /// A timeout, or RC's error state: every WQE in flight is lost; resend
    /// them on a backup QP with a new source port (Bifröst §3.4.2,
    /// App. A.3), after the switch time; the window goes to its minimum.
    fn fail_over(&mut self, now: Time) -> TimerOutcome {
        if self.rc.is_some() {
            // RC's QP is left: the WQE being posted on it is lost too.
            if let Some((gn, _)) = self.cur.take() {
                self.stats.lost_by_timeout += 1;
                self.resend(gn, true);
            }
        }
        let lost: Vec<u64> = self
            .wqes
            .iter()
            .filter(|w| w.st == St::InFlight)
            .map(|w| w.hdr.gn)
            .collect();
        for gn in lost {
            self.stats.lost_by_timeout += 1;
            self.resend(gn, true);
        }
        // A WQE still in flight may belong to a message acknowledged in
        // full by another copy meanwhile: nothing of it is resent.
        self.prune_retx();
        let mut timers = TimerRequests::default();
        if self.cfg.sw_cc {
            self.cc.on_nack(now, &mut timers);
        }
        let paths = (self.cfg.backups + 1).min(MAX_PATHS);
        let reroute = paths > 1;
        if reroute {
            self.path = ((u32::from(self.path) + 1) % paths) as u8;
            self.stats.qp_switches += 1;
        }
        let mut wait = reroute.then_some(self.cfg.qp_switch);
        if let Some(rc) = self.rc.as_deref_mut() {
            // The QP left reconnects in the background (Bifröst §3.4.2);
            // the next one may still be reconnecting itself.
            let ready = rc.switch_to(self.path, now);
            wait = Some(wait.unwrap_or(Delta::ZERO).max(ready.since(now)));
        }
        self.switching = wait.is_some();
        self.last_progress = now;
        TimerOutcome {
            again_at: Some(match wait {
                Some(w) => now + w,
                None => now + self.rto(),
            }),
            expired: true,
            look: wait.is_none(),
            reroute,
        }
    }

    /// Messages started and not yet acknowledged in full.
    pub fn open_messages(&self) -> u32 {
        self.open
    }
}

impl crate::transport::hooks::Reliability for PfcFreeSender {
    #[inline]
    fn retransmission(&self) -> Option<u64> {
        PfcFreeSender::retransmission(self)
    }

    #[inline]
    fn may_send_new(&self, s: &SendSeq) -> bool {
        PfcFreeSender::may_send_new(self, s)
    }

    fn on_send(
        &mut self,
        s: &mut SendSeq,
        seq: u64,
        payload: u64,
        now: Time,
        _: &crate::config::NicConfig,
    ) -> Option<Time> {
        PfcFreeSender::sent(self, s, seq, payload, now)
    }

    /// Its ACKs are software ACKs ([`PfcFreeSender::on_soft_ack`]): a hardware
    /// ACK never comes.
    fn on_ack(&mut self, _: &mut SendSeq, _: bool, _: Time) {}

    fn on_nack(
        &mut self,
        _: &mut SendSeq,
        _: bool,
        _: u64,
        _: Time,
        _: &crate::config::NicConfig,
    ) -> bool {
        false
    }

    fn timer_after_ack(&mut self, _: &SendSeq, _: Time) -> Option<Time> {
        None
    }

    fn on_timer(
        &mut self,
        _: &mut SendSeq,
        _: u64,
        now: Time,
        _: &crate::config::NicConfig,
    ) -> TimerOutcome {
        PfcFreeSender::timeout(self, now)
    }

    #[inline]
    fn packet_end(&self, seq: u64) -> u64 {
        PfcFreeSender::packet_end(self, seq)
    }

    #[inline]
    fn tag(&self) -> u32 {
        PfcFreeSender::tag(self)
    }
}
