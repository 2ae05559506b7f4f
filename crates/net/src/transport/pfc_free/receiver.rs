//! The PFC-free transport's receiver: a UC QP's hardware semantics (a
//! WQE is delivered only if every one of its packets arrives, in order;
//! Bifröst §2.1, §3.3) under the software control path's receive side:
//! placement of each chunk, submission of whole messages, exactly once,
//! and coalesced software ACKs (Bifröst §3.4.2, App. A.1).

use super::config::{PfcFreeConfig, ACK_ENTRY_BYTES, ACK_FIXED_BYTES};
use super::headers::{AckBody, AckEntry, PsnWire, Verb, WqeHeader, WqeWire};
use super::rc::{RcRx, RcStats, RC_ACK_BYTES};
use super::sender::MAX_PATHS;
use engine::Time;
use std::collections::{HashMap, VecDeque};

/// A UC QP's receive state: the WQE being received and its next byte
/// (its ePSN).
#[derive(Clone, Copy, Debug, Default)]
struct UcQp {
    gn: u64,
    /// The WQE's first byte (from its first packet).
    start: u64,
    next: u64,
    /// Receiving a WQE whose packets so far arrived in order.
    alive: bool,
}

/// A message being received.
#[derive(Clone, Debug)]
struct RxMsg {
    len: u64,
    units: Vec<u64>,
    got: u64,
    submitted: bool,
}

/// What the receiver counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReceiverStats {
    /// Messages handed to the application (each once).
    pub messages: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Bytes put in place for the first time (a unit's bytes once, however
    /// often it arrives): the application's goodput, messages still
    /// incomplete included.
    pub placed: u64,
    /// WQEs the UC QP dropped because one of their packets was missing
    /// (the paper's OOS counter: PSN gaps seen).
    pub oos: u64,
    /// WQEs received whose data was already there (resent or duplicated).
    pub duplicates: u64,
    /// WQEs taken whole (receive completions).
    pub wqes: u64,
    /// ACK frames sent.
    pub acks: u64,
    /// Numbers they acknowledged.
    pub acked_entries: u64,
}

/// What the receiver asks of its NIC after a packet or its timer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SoftRx {
    /// Nothing.
    Nothing,
    /// Send the ACK just built: its serial number and frame bytes.
    Ack {
        /// Its serial number (in the frame's `seq`).
        serial: u64,
        /// Payload bytes: the fixed part and the numbers.
        bytes: u32,
        /// An acknowledged packet was ECN-marked (the hardware CNP, carried
        /// on the ACK).
        cnp: bool,
    },
    /// Arm the coalescing timer for this time, as this version.
    Timer {
        /// When.
        at: Time,
        /// Its version.
        version: u32,
    },
}

/// The receiver of one connection.
#[derive(Clone, Debug)]
pub struct PfcFreeReceiver {
    cfg: PfcFreeConfig,
    qps: [UcQp; MAX_PATHS as usize],
    msgs: HashMap<u32, RxMsg>,
    /// Message ids below this are all submitted (and forgotten).
    done_below: u32,
    expected_send_rn: u32,
    expected_write: Option<(u32, u32)>,
    pending: Vec<AckEntry>,
    pending_bytes: u64,
    pending_cnp: bool,
    /// T2 of the newest pending WQE (the ACK's reference).
    ref_t2: Time,
    timer_version: u32,
    timer_armed: bool,
    next_serial: u64,
    /// ACKs built and not yet taken to go with their frames, by serial.
    sent: VecDeque<(u64, AckBody)>,
    /// What it counted.
    pub stats: ReceiverStats,
    /// Receive completions the host has polled (`stats.wqes` so far).
    polled: u64,
    /// Messages submitted, each id once (checked at the end of a run).
    submitted_twice: u64,
    /// The highest GN seen: a packet's 32 bits of GN are read as the GN
    /// nearest to it.
    gn_seen: u64,
    /// The source port of the last data packet: the ACK's destination
    /// port (the sender's QP, after a move to a backup, uses a new one).
    reply_port: Option<u16>,
    /// RC mode's receiving QPs (`rc.rs`); `None` with UC.
    rc: Option<Box<RcRx>>,
}

impl PfcFreeReceiver {
    /// A receiver with `cfg`.
    pub fn new(cfg: PfcFreeConfig) -> Self {
        PfcFreeReceiver {
            cfg,
            qps: [UcQp::default(); MAX_PATHS as usize],
            msgs: HashMap::new(),
            done_below: 0,
            expected_send_rn: 0,
            expected_write: None,
            pending: Vec::new(),
            pending_bytes: 0,
            pending_cnp: false,
            ref_t2: Time::ZERO,
            timer_version: 0,
            timer_armed: false,
            next_serial: 0,
            sent: VecDeque::new(),
            stats: ReceiverStats::default(),
            polled: 0,
            submitted_twice: 0,
            gn_seen: 0,
            reply_port: None,
            rc: (cfg.qp_type == super::config::QpType::Rc).then(Box::default),
        }
    }

    /// The full GN of a packet that carries its low 32 bits: the one
    /// nearest the highest seen.
    fn gn_of(&mut self, tag: u32) -> u64 {
        let d = i64::from(tag.wrapping_sub(self.gn_seen as u32) as i32);
        let gn = self.gn_seen.saturating_add_signed(d);
        self.gn_seen = self.gn_seen.max(gn);
        gn
    }

    /// The header of WQE `gn` of a flow of `size` bytes, from bytes
    /// `start..end` and what its packets carried ([`WqeWire`]).
    pub(super) fn header(&self, gn: u64, start: u64, end: u64, w: WqeWire, size: u64) -> WqeHeader {
        let msg = self.cfg.message_bytes();
        let mid = start / msg;
        let msg_start = mid * msg;
        let msg_len = msg.min(size - msg_start);
        let write = msg_len > self.cfg.send_max;
        WqeHeader {
            gn,
            verb: match (w.retx, write) {
                (true, _) => Verb::RetxSend,
                (false, true) => Verb::Write,
                (false, false) => Verb::Send,
            },
            mid: mid as u32,
            msg_start,
            msg_len,
            start,
            len: end - start,
            send_rn: w.send_rn,
            write_off: write.then(|| ((start - msg_start) / self.cfg.unit) as u32),
            path: w.path,
            hint: w.hint,
            // RC: the WQE's first PSN, set by the caller, which knows it.
            psn: 0,
        }
    }

    /// The source port of the last data packet received, if any.
    pub fn reply_port(&self) -> Option<u16> {
        self.reply_port
    }

    /// A data packet of a flow of `size` bytes arrived at `now` from source
    /// port `sport`: `seq` and `payload` bytes of a WQE, with what its
    /// packets carry (`w`), ECN-marked or not.
    pub fn on_wire(
        &mut self,
        now: Time,
        (seq, payload): (u64, u64),
        ecn: bool,
        w: WqeWire,
        size: u64,
        sport: u16,
    ) -> SoftRx {
        self.reply_port = Some(sport);
        let gn = self.gn_of(w.tag);
        if let (Some(_), Some(p)) = (&self.rc, w.psn) {
            return self.on_rc_wire(gn, (seq, payload), ecn, (w, p), size);
        }
        let q = &mut self.qps[usize::from(w.path)];
        if w.first {
            // A first packet: a WQE still open on this QP lost its tail.
            if q.alive {
                self.stats.oos += 1;
            }
            *q = UcQp {
                gn,
                start: seq,
                next: seq + payload,
                alive: true,
            };
        } else if q.alive && q.gn == gn && seq == q.next {
            q.next += payload;
        } else if q.gn == gn && seq < q.next {
            // A duplicate of a packet already taken (PSN below ePSN).
            return SoftRx::Nothing;
        } else {
            // A gap: UC drops the rest of this WQE (counted once, also when
            // the gap is the WQE's first packet).
            if q.alive || q.gn != gn {
                self.stats.oos += 1;
            }
            *q = UcQp {
                gn,
                start: 0,
                next: 0,
                alive: false,
            };
            return SoftRx::Nothing;
        }
        if ecn {
            self.pending_cnp = true;
        }
        if !w.last {
            return SoftRx::Nothing;
        }
        q.alive = false;
        let (start, end) = (q.start, q.next);
        let h = self.header(gn, start, end, w, size);
        self.on_wqe(&h, now)
    }

    /// RC: the receiving QP takes the packet only if it is the next
    /// expected one and discards it after a gap (one NAK per gap: the
    /// paper's OOS counter counts them); a WQE whose last packet it takes
    /// is complete (its receive completion), placed and ACKed by the NIC.
    /// The QP takes a WQE's packets in order, so the first packet it took
    /// last on this QP is the WQE's first.
    fn on_rc_wire(
        &mut self,
        gn: u64,
        (seq, payload): (u64, u64),
        ecn: bool,
        (w, p): (WqeWire, PsnWire),
        size: u64,
    ) -> SoftRx {
        let rc = self.rc.as_deref_mut().expect("RC mode");
        let psn = rc.psn_of(w.path, p);
        let v = rc.on_packet(w.path, psn, payload, w.last);
        if v.reply.is_some_and(|a| a.nak) {
            self.stats.oos += 1;
        }
        if v.take {
            if ecn {
                self.pending_cnp = true;
            }
            let q = &mut self.qps[usize::from(w.path)];
            if w.first {
                *q = UcQp {
                    gn,
                    start: seq,
                    next: seq,
                    alive: true,
                };
            }
            debug_assert!(q.alive && q.gn == gn && q.next == seq, "RC takes in order");
            q.next = seq + payload;
            if w.last {
                q.alive = false;
                let start = q.start;
                let mut h = self.header(gn, start, seq + payload, w, size);
                h.psn = psn - (seq - start);
                self.stats.wqes += 1;
                self.place(&h);
            }
        }
        let Some(a) = v.reply else {
            return SoftRx::Nothing;
        };
        let serial = self.next_serial;
        self.next_serial += 1;
        self.sent.push_back((
            serial,
            AckBody {
                entries: Vec::new(),
                residence: engine::Delta::ZERO,
                hw: Some(a),
            },
        ));
        SoftRx::Ack {
            serial,
            bytes: RC_ACK_BYTES,
            cnp: std::mem::take(&mut self.pending_cnp),
        }
    }

    /// RC's counters; `None` with UC.
    pub fn rc_stats(&self) -> Option<RcStats> {
        self.rc.as_deref().map(|rc| rc.stats)
    }

    /// Receive completions since the host last polled.
    pub fn poll_completions(&mut self) -> u64 {
        let n = self.stats.wqes - self.polled;
        self.polled = self.stats.wqes;
        n
    }

    /// WQE `h` arrived whole at `now` (its receive completion, T2).
    fn on_wqe(&mut self, h: &WqeHeader, now: Time) -> SoftRx {
        self.stats.wqes += 1;
        let unit = self.cfg.unit;
        let (entry, ooo) = match h.verb {
            Verb::Write => {
                let off = h.write_off.expect("a WRITE's offset");
                let ooo = self.expected_write.is_some_and(|e| e != (h.mid, off));
                let next_off = off + h.len.div_ceil(unit) as u32;
                self.expected_write = Some(if h.start + h.len - h.msg_start >= h.msg_len {
                    (h.mid + 1, 0)
                } else {
                    (h.mid, next_off)
                });
                (AckEntry::Write { mid: h.mid, off }, ooo)
            }
            Verb::Send | Verb::RetxSend => {
                let ooo = h.send_rn != self.expected_send_rn;
                if h.send_rn.wrapping_sub(self.expected_send_rn) < u32::MAX / 2 {
                    self.expected_send_rn = h.send_rn.wrapping_add(1);
                }
                (AckEntry::Send(h.gn), ooo)
            }
        };
        self.place(h);
        self.pending.push(entry);
        self.pending_bytes += h.len;
        self.ref_t2 = now;
        let full = self.pending.len() >= self.cfg.ack_count as usize
            || self.pending_bytes >= self.cfg.ack_bytes;
        if full || h.hint || ooo {
            return self.flush(now);
        }
        if self.timer_armed {
            return SoftRx::Nothing;
        }
        self.timer_armed = true;
        self.timer_version = self.timer_version.wrapping_add(1);
        SoftRx::Timer {
            at: now + self.cfg.ack_timer,
            version: self.timer_version,
        }
    }

    /// Put the WQE's bytes in place, unless its message was submitted (a
    /// resent SEND is copied only then, Bifröst §3.4.2), and submit the
    /// message once every unit is there.
    fn place(&mut self, h: &WqeHeader) {
        let unit = self.cfg.unit;
        if h.mid < self.done_below {
            self.stats.duplicates += 1;
            return;
        }
        let m = self.msgs.entry(h.mid).or_insert_with(|| RxMsg {
            len: h.msg_len,
            units: vec![0; h.msg_len.div_ceil(unit).div_ceil(64) as usize],
            got: 0,
            submitted: false,
        });
        if m.submitted {
            self.stats.duplicates += 1;
            return;
        }
        let first = (h.start - h.msg_start) / unit;
        let last = (h.start + h.len - h.msg_start).div_ceil(unit);
        let mut fresh = false;
        for u in first..last {
            let (w, b) = ((u / 64) as usize, u % 64);
            if m.units[w] & (1 << b) == 0 {
                m.units[w] |= 1 << b;
                m.got += 1;
                self.stats.placed += unit.min(m.len - u * unit);
                fresh = true;
            }
        }
        if !fresh {
            self.stats.duplicates += 1;
        }
        if m.got == m.len.div_ceil(unit) {
            if m.submitted {
                self.submitted_twice += 1;
            }
            m.submitted = true;
            self.stats.messages += 1;
            self.stats.bytes += m.len;
            // Forget submitted messages at the front.
            while self.msgs.get(&self.done_below).is_some_and(|m| m.submitted) {
                self.msgs.remove(&self.done_below);
                self.done_below += 1;
            }
        }
    }

    /// Build an ACK of every pending number now (T3′).
    fn flush(&mut self, now: Time) -> SoftRx {
        self.timer_armed = false;
        if self.pending.is_empty() {
            return SoftRx::Nothing;
        }
        let entries = std::mem::take(&mut self.pending);
        let n = entries.len() as u32;
        let body = AckBody {
            entries,
            residence: now - self.ref_t2,
            hw: None,
        };
        let serial = self.next_serial;
        self.next_serial += 1;
        self.sent.push_back((serial, body));
        self.stats.acks += 1;
        self.stats.acked_entries += u64::from(n);
        self.pending_bytes = 0;
        let cnp = std::mem::take(&mut self.pending_cnp);
        SoftRx::Ack {
            serial,
            bytes: ACK_FIXED_BYTES + ACK_ENTRY_BYTES * n,
            cnp,
        }
    }

    /// The coalescing timer, armed as `version`, fired at `now`.
    pub fn on_timer(&mut self, now: Time, version: u32) -> SoftRx {
        if !self.timer_armed || version != self.timer_version {
            return SoftRx::Nothing;
        }
        self.flush(now)
    }

    /// The body of ACK `serial`, taken to go with its frame as it is
    /// sent (`AckBodies`); older ones not taken are dropped.
    pub fn take_ack(&mut self, serial: u64) -> Option<AckBody> {
        while let Some((s, _)) = self.sent.front() {
            if *s < serial {
                self.sent.pop_front();
            } else {
                break;
            }
        }
        match self.sent.front() {
            Some((s, _)) if *s == serial => self.sent.pop_front().map(|(_, b)| b),
            _ => None,
        }
    }

    /// Whether every message of a flow of `size` bytes was submitted,
    /// exactly once, and the bytes submitted are the sender's: the
    /// end-of-run check. `Err` says what is wrong.
    pub fn check_complete(&self, size: u64) -> Result<(), String> {
        if self.submitted_twice > 0 {
            return Err(format!("{} messages submitted twice", self.submitted_twice));
        }
        if self.stats.bytes != size {
            return Err(format!(
                "the receiver submitted {} bytes of the sender's {size}",
                self.stats.bytes
            ));
        }
        let msgs = size.div_ceil(self.cfg.message_bytes());
        if self.stats.messages != msgs {
            return Err(format!(
                "the receiver submitted {} messages of the sender's {msgs}",
                self.stats.messages
            ));
        }
        Ok(())
    }

    /// The ACK class.
    pub fn ack_class(&self) -> u8 {
        self.cfg.ack_class
    }

    /// Whether its ACKs are software ACKs, built and parsed by the hosts
    /// (UC); RC's are the NICs'.
    pub fn acks_in_software(&self) -> bool {
        self.rc.is_none()
    }
}
