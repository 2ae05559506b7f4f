//! The host NIC: one QP per flow, ACK queue in strict priority, round
//! robin over ready QPs, per-QP pacing at the CC rate (the peer's `RdmaHw`
//! and `RdmaEgressQueue`, HPCC sim). How a QP recovers losses is its
//! transport's (`transport/`): the NIC asks it what to send, tells it what
//! was sent and what came back, and schedules the timer it asks for. The
//! defaults of the NIC are its model's ([`model`]).

pub mod model;

use crate::cc::{AckSample, CcEnv, CongestionControl, TimerRequests, N_CC_TIMERS};
use crate::fc::FlowControl;
use crate::qp::{Qp, RTO_SLOT};
use crate::sim::{Event, Simulation};
use crate::transport::{AnyReliability, Receiver, Reliability, RxReply, SendSeq};
use crate::wire::{Packet, PacketKind, QueueKey, NO_INT};
use engine::{Delta, EventQueue, Rate, Time};

/// ACK/NACK bytes before padding: PPP 14 + IPv4 20 + 12 B of ACK header,
/// plus the CC's header copy (the peer's `qbbHeader`, `RdmaHw::ReceiveUdp`).
const ACK_BASE_BYTES: u32 = 46;

impl Simulation {
    /// Create the QP of the next flow and schedule the one after.
    pub(crate) fn flow_arrive(&mut self) {
        let id = self.next_flow;
        self.next_flow += 1;
        if let Some(next) = self.flows.get(self.next_flow) {
            self.q.push(next.start, Event::FlowArrive);
        }
        debug_assert_eq!(self.qps.len(), id);
        let sport = self.sport_for(id);
        let f = &self.flows[id];
        let nic_id = self.node_nic[f.src as usize];
        let nic = &mut self.nics[nic_id as usize];
        // The peer's per-QP base RTT and window (third.cc): the maxima over
        // all pairs with GLOBAL_T, else this pair's.
        let (pair_rtt, pair_bw) = self.pair_rtt_bw[id];
        let pair_bdp = (pair_rtt as u128 * pair_bw as u128 / 8_000_000_000) as u64;
        let (rtt_ns, bdp) = self.max_rtt_bdp.unwrap_or((pair_rtt, pair_bdp));
        let env = CcEnv {
            line_rate: nic.line_rate,
            base_rtt: Delta::from_ns(rtt_ns),
            bdp,
            mtu: self.cfg.nic.mtu_payload,
            rng_seed: self.cfg.seed ^ (id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
        };
        let base_win = match self.cfg.nic.window {
            Some(w) => w,
            None if self.cfg.nic.bdp_window => bdp,
            None => 0,
        };
        self.qps.push(Qp {
            src: f.src,
            dst: f.dst,
            sport,
            dport: f.dport,
            pg: f.pg,
            size: f.size,
            start: self.now,
            snd: SendSeq::default(),
            next_avail: self.now,
            cc: self.cfg.cc.build(&env),
            timer_version: [0; N_CC_TIMERS + 1],
            end: None,
            retransmitted: 0,
            nic: nic_id,
            last_size: 0,
            base_win,
            timeouts: 0,
            rel: AnyReliability::new(&self.cfg.nic, self.now),
        });
        self.rx.push(Receiver::new(&self.cfg.nic.transport));
        nic.active.push(id as u32);
        let port = nic.port;
        self.try_send(port);
    }

    /// The NIC of host port `port`: its `owner`, unless the NIC's index
    /// does not fit there (more than 65,534 hosts).
    #[inline]
    pub(crate) fn port_nic(&self, port: u32) -> u32 {
        let p = &self.ports[port as usize];
        match p.owner {
            u16::MAX => self.node_nic[p.node as usize],
            nic => u32::from(nic),
        }
    }

    fn sport_for(&mut self, id: usize) -> u16 {
        let key = (self.flows[id].src, self.flows[id].dst);
        let n = self.sport_next.entry(key).or_insert(10_000);
        let s = *n;
        *n = n.wrapping_add(1);
        s
    }

    /// Pick the next frame of a host's NIC: ACKs first, then round robin
    /// over QPs that have data, are not paused, not window-bound and whose
    /// pacing allows (peer `GetNextQindex`).
    pub(crate) fn nic_dequeue(&mut self, port: u32) -> Option<Packet> {
        let now = self.now;
        let nic_id = self.port_nic(port);
        let nic = &mut self.nics[nic_id as usize];
        let fc = &self.ports[port as usize].fc;
        if let Some(ack) = nic.acks.front() {
            let class = if self.cfg.nic.ack_high_prio {
                0
            } else {
                ack.class as usize
            };
            if fc.may_send(now, QueueKey::of_class(class as u8), ack.size) {
                let size = ack.size;
                let ack = nic.acks.pop_front();
                if class != 0 {
                    self.ports[port as usize].fc.on_send(
                        now,
                        QueueKey::of_class(class as u8),
                        size,
                    );
                }
                return ack;
            }
        }
        let n = nic.active.len();
        let mut chosen = None;
        let mut earliest = Time::MAX;
        let mtu = u64::from(self.cfg.nic.mtu_payload);
        let header = self.cfg.nic.data_header + self.cfg.cc.header_bytes();
        for i in 1..=n {
            let idx = (nic.rr_last + i) % n;
            let qp = &self.qps[nic.active[idx] as usize];
            // A packet the transport resends goes first; the window and the
            // transport's own bound hold back only new data.
            let retx = qp.rel.retransmission().is_some();
            if !retx && qp.snd.nxt >= qp.size {
                continue;
            }
            // Credit schemes need the frame's size; a retransmission is at
            // most one MTU (asking for more credit than needed is safe).
            let next_size = if retx {
                mtu as u32 + header
            } else {
                (qp.size - qp.snd.nxt).min(mtu) as u32 + header
            };
            let key = QueueKey::of_flow(qp.pg, nic.active[idx]);
            if !fc.may_send(now, key, next_size) {
                continue;
            }
            if !retx {
                if !qp.rel.may_send_new(&qp.snd) {
                    continue;
                }
                if let Some(w) = qp.window(self.cfg.nic.var_win, nic.line_rate) {
                    if qp.snd.nxt - qp.snd.una >= w {
                        continue;
                    }
                }
            }
            if qp.next_avail > now {
                earliest = earliest.min(qp.next_avail);
                continue;
            }
            chosen = Some(idx);
            break;
        }
        let Some(idx) = chosen else {
            if earliest != Time::MAX && earliest < nic.wake_at {
                nic.wake_at = earliest;
                self.q.push(earliest, Event::NicWake { nic: nic_id });
            }
            return None;
        };
        nic.rr_last = idx;
        let qp_id = nic.active[idx];
        let int = if self.cfg.cc.uses_int() {
            self.int_alloc()
        } else {
            NO_INT
        };
        let nic = &mut self.nics[nic_id as usize];
        let cfg = &self.cfg.nic;
        let qp = &mut self.qps[qp_id as usize];
        let mtu = u64::from(cfg.mtu_payload);
        let seq = qp.rel.retransmission().unwrap_or(qp.snd.nxt);
        let payload = (qp.size - seq).min(mtu) as u32;
        let size = payload + cfg.data_header + self.cfg.cc.header_bytes();
        let pkt = Packet {
            kind: PacketKind::Data,
            class: qp.pg,
            ecn_ce: false,
            cnp: false,
            ingress: 0,
            size,
            payload,
            flow: qp_id,
            int,
            pint: 0,
            seq,
            ext: 0,
            src: qp.src,
            dst: qp.dst,
            sport: qp.sport,
            dport: qp.dport,
            sent_at: now,
        };
        // Bytes sent before are resent, whichever way the transport resends.
        if seq < qp.snd.max_sent {
            qp.retransmitted += u64::from(payload);
        }
        let rto_at = qp
            .rel
            .on_send(&mut qp.snd, seq, u64::from(payload), now, cfg);
        qp.cc.on_send(now, u64::from(size));
        // Peer UpdateNextAvail: next eligible = now + size at the QP's rate.
        let rate = if cfg.rate_bound {
            qp.cc.rate()
        } else {
            nic.line_rate
        };
        qp.next_avail = now + rate.tx_time(u64::from(size));
        qp.last_size = size;
        let p = &mut self.ports[port as usize];
        p.fc.on_send(now, QueueKey::of(&pkt), size);
        p.c.tx_data += 1;
        if let Some(at) = rto_at {
            arm_rto(qp, &mut self.q, qp_id, at, now);
        }
        Some(pkt)
    }

    /// A frame arrives at a host's port.
    /// (By reference, as `switch_receive`: no copy per call.)
    pub(crate) fn host_receive(&mut self, port: u32, pkt: &Packet) {
        if pkt.class != 0 && !matches!(pkt.kind, PacketKind::Pfc | PacketKind::Credit) {
            // The NIC consumes what it receives at once: its ingress admits
            // and releases the frame (credits flow back under CBFC).
            let s = crate::mmu::IngressState {
                over_xoff: false,
                below_xon: true,
            };
            let now = self.now;
            let fc = &mut self.ports[port as usize].fc;
            let out = &mut self.outbox;
            let key = QueueKey::of(pkt);
            let admit = fc.after_admit_emits(now, key, pkt.size, s, out);
            let release = fc.after_release_emits(now, key, pkt.size, s, out);
            if admit || release {
                self.apply_fc_outbox(port);
            }
        }
        match pkt.kind {
            PacketKind::Pfc | PacketKind::Credit => self.receive_ctrl(port, pkt),
            PacketKind::Data => self.receive_data(port, pkt),
            PacketKind::Ack | PacketKind::Nack => self.receive_ack(port, pkt),
        }
    }

    /// Receiver side (peer `ReceiveUdp`): ACK, NACK or nothing.
    fn receive_data(&mut self, port: u32, pkt: &Packet) {
        let now = self.now;
        let flow = pkt.flow as usize;
        let payload = u64::from(pkt.payload);
        let (kind, sack) = match self.rx[flow].on_data(now, pkt.seq, payload, &self.cfg.nic) {
            RxReply::Ack => (PacketKind::Ack, 0),
            RxReply::Nack { sack } => (PacketKind::Nack, sack),
            RxReply::Silent => {
                self.int_release(pkt.int);
                return;
            }
        };
        let nic_cfg = &self.cfg.nic;
        let class = if nic_cfg.ack_high_prio && nic_cfg.switch_ack_high_prio {
            0
        } else {
            pkt.class
        };
        let (sack_lo, sack_hi) = Packet::sack_fields(sack);
        let ack = Packet {
            kind,
            class,
            ecn_ce: false,
            cnp: pkt.ecn_ce,
            ingress: 0,
            size: self
                .cfg
                .nic
                .ack_bytes
                .max(ACK_BASE_BYTES + self.cfg.cc.header_bytes()),
            payload: sack_lo,
            flow: pkt.flow,
            // The ACK carries the data packet's INT back (as `ReceiveUdp`).
            int: pkt.int,
            pint: pkt.pint,
            seq: self.rx[flow].expected(),
            ext: sack_hi,
            src: pkt.dst,
            dst: pkt.src,
            sport: pkt.dport,
            dport: pkt.sport,
            sent_at: pkt.sent_at,
        };
        let nic = self.port_nic(port);
        self.nics[nic as usize].acks.push_back(ack);
        self.try_send(port);
    }

    /// Sender side (peer `ReceiveAck`).
    fn receive_ack(&mut self, port: u32, pkt: &Packet) {
        // The INT stack is read last, by the CC's update: ask for it now,
        // while the QP's lines are fetched.
        self.int_pool.prefetch(pkt.int);
        let now = self.now;
        let qp_id = pkt.flow;
        let qp = &mut self.qps[qp_id as usize];
        if qp.end.is_some() {
            self.int_release(pkt.int);
            return;
        }
        let newly_acked = pkt.seq.saturating_sub(qp.snd.una);
        let progressed = pkt.seq > qp.snd.una;
        if progressed {
            qp.snd.una = pkt.seq;
        }
        if qp.snd.nxt < qp.snd.una {
            qp.snd.nxt = qp.snd.una;
        }
        if qp.snd.una >= qp.size {
            qp.end = Some(now);
            self.finished += 1;
            self.completion_order.push(qp_id);
            let nic = &mut self.nics[qp.nic as usize];
            if let Some(pos) = nic.active.iter().position(|&q| q == qp_id) {
                nic.active.remove(pos);
                if pos <= nic.rr_last && nic.rr_last > 0 {
                    nic.rr_last -= 1;
                }
            }
            self.int_release(pkt.int);
            return;
        }
        // A loss the CC hears of: the transport says which NACK is one.
        let loss_event = if pkt.kind == PacketKind::Nack {
            qp.rel
                .on_nack(&mut qp.snd, progressed, pkt.sack(), now, &self.cfg.nic)
        } else {
            qp.rel.on_ack(&mut qp.snd, progressed, now);
            false
        };
        let mut timers = TimerRequests::default();
        let old_rate = qp.cc.rate();
        if pkt.cnp {
            qp.cc.on_cnp(now, &mut timers);
        }
        let int = self.int_pool.hops(pkt.int);
        let sample = AckSample {
            seq: pkt.seq,
            newly_acked,
            rtt: now - pkt.sent_at,
            ecn_echo: pkt.cnp,
            snd_nxt: qp.snd.nxt,
            int,
            pint: pkt.pint,
        };
        // The peer runs its CC on NACKs as on ACKs.
        qp.cc.on_ack(now, &sample, &mut timers);
        if loss_event {
            qp.cc.on_nack(now, &mut timers);
        }
        let new_rate = qp.cc.rate();
        if new_rate != old_rate && qp.cc.shifts_pacing() {
            qp.shift_pacing(old_rate, new_rate);
        }
        self.int_release(pkt.int);
        self.arm_qp_timers(qp_id, &timers);
        let qp = &mut self.qps[qp_id as usize];
        if let Some(at) = qp.rel.timer_after_ack(&qp.snd, now) {
            arm_rto(qp, &mut self.q, qp_id, at, now);
        }
        self.try_send(port);
    }

    /// Arm the timers a controller asked for. Most ACKs ask for none (HPCC
    /// never arms one), so that case is tested inline, without the call.
    #[inline]
    fn arm_qp_timers(&mut self, qp_id: u32, t: &TimerRequests) {
        if t.arm.iter().any(Option::is_some) {
            self.arm_requested_timers(qp_id, t);
        }
    }

    fn arm_requested_timers(&mut self, qp_id: u32, t: &TimerRequests) {
        let qp = &mut self.qps[qp_id as usize];
        for (slot, at) in t.arm.iter().enumerate() {
            if let Some(at) = *at {
                qp.timer_version[slot] = qp.timer_version[slot].wrapping_add(1);
                self.q.push(
                    at.max(self.now),
                    Event::QpTimer {
                        qp: qp_id,
                        slot: slot as u8,
                        version: qp.timer_version[slot],
                    },
                );
            }
        }
    }

    pub(crate) fn qp_timer(&mut self, qp_id: u32, slot: usize, version: u32) {
        let now = self.now;
        let qp = &mut self.qps[qp_id as usize];
        if qp.end.is_some() || qp.timer_version[slot] != version {
            return;
        }
        let mut timers = TimerRequests::default();
        if slot == RTO_SLOT {
            let out = qp.rel.on_timer(&mut qp.snd, qp.size, now, &self.cfg.nic);
            if let Some(at) = out.again_at {
                self.q.push(
                    at,
                    Event::QpTimer {
                        qp: qp_id,
                        slot: RTO_SLOT as u8,
                        version,
                    },
                );
            }
            if out.expired {
                qp.timeouts += 1;
                qp.cc.on_timeout(now, &mut timers);
            }
            if !out.look {
                return;
            }
        } else {
            qp.cc.on_timer(now, slot, &mut timers);
        }
        self.arm_qp_timers(qp_id, &timers);
        // A rate change may make the QP eligible sooner; the NIC re-checks.
        let port = self.nics[self.qps[qp_id as usize].nic as usize].port;
        self.try_send(port);
    }
}

/// Arm the retransmission timer of `qp` (index `qp_id`) for `at` (or now,
/// if that has passed): a new version, so a pending one becomes stale.
#[inline]
fn arm_rto(qp: &mut Qp, q: &mut EventQueue<Event>, qp_id: u32, at: Time, now: Time) {
    qp.timer_version[RTO_SLOT] = qp.timer_version[RTO_SLOT].wrapping_add(1);
    q.push(
        at.max(now),
        Event::QpTimer {
            qp: qp_id,
            slot: RTO_SLOT as u8,
            version: qp.timer_version[RTO_SLOT],
        },
    );
}

impl Qp {
    /// Bytes the QP may have in flight, if bounded: its base window (scaled
    /// by rate / line rate with `var_win`, peer `GetWin`) and the CC's own.
    fn window(&self, var_win: bool, line_rate: Rate) -> Option<u64> {
        let base = (self.base_win > 0).then(|| {
            if var_win {
                let w =
                    self.base_win as u128 * self.cc.rate().bps() as u128 / line_rate.bps() as u128;
                (w as u64).max(1)
            } else {
                self.base_win
            }
        });
        match (base, self.cc.window()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Peer `ChangeRate`: move the next send time by the change in the last
    /// packet's serialisation time.
    fn shift_pacing(&mut self, old: Rate, new: Rate) {
        let size = u64::from(self.last_size);
        let (before, after) = (old.tx_time(size).ps(), new.tx_time(size).ps());
        self.next_avail = Time((self.next_avail.ps() + after).saturating_sub(before));
    }
}
