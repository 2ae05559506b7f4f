//! The host NIC: one QP per flow, ACK queue in strict priority, round
//! robin over ready QPs, per-QP pacing at the CC rate (the peer's `RdmaHw`
//! and `RdmaEgressQueue`, HPCC sim). How a QP recovers losses is its
//! transport's (`transport/`): the NIC asks it what to send, tells it what
//! was sent and what came back, and schedules the timer it asks for. The
//! defaults of the NIC are its model's ([`model`]).
//!
//! Its handlers are methods on a [`Host`]: the NIC, its port and the
//! queue pairs and receivers of the flows, given a [`Ctx`]. A NIC touches
//! only its own flows' entries: the QPs of the flows it sends, the
//! receivers of those it receives.

pub mod model;
pub(crate) mod sched;

use crate::cc::{AckSample, CcEnv, CongestionControl, TimerRequests, N_CC_TIMERS};
use crate::config::NetConfig;
use crate::context::Ctx;
use crate::device::{flush_port, hear_ctrl, may_start, take_fc_outbox};
use crate::event::Event;
use crate::fc::FlowControl;
use crate::port::Port;
use crate::qp::{Nic, Qp, RTO_SLOT};
use crate::transport::{AnyReliability, Receiver, Reliability, RxReply, SendSeq, SoftRx};
use crate::wire::{Packet, PacketKind, QueueKey, NO_INT};
use engine::{Delta, EventQueue, Rate, Time};
use sched::Sendable;
use workload::FlowSpec;

/// ACK/NACK bytes before padding: PPP 14 + IPv4 20 + 12 B of ACK header,
/// plus the CC's header copy (the peer's `qbbHeader`, `RdmaHw::ReceiveUdp`).
const ACK_BASE_BYTES: u32 = 46;

/// How far a backup QP's UDP source port is from the one it replaces
/// (rdmasim's choice: far from the consecutive ports of one host pair's
/// other flows).
const REROUTE_SPORT_STEP: u16 = 0x1000;

/// A NIC with what its handlers work on.
#[derive(Debug)]
pub(crate) struct Host<'a> {
    pub nic: &'a mut Nic,
    /// The NIC's port (global id `nic.port`).
    pub port: &'a mut Port,
    /// Every flow's QP, by flow id (of which this NIC sends some).
    pub qps: &'a mut [Qp],
    /// Every flow's receiver, by flow id (of which this NIC receives some).
    pub rx: &'a mut [Receiver],
    pub cfg: &'a NetConfig,
}

impl Qp {
    /// The QP of flow `id` (`f`), sent by NIC `nic` of `line_rate` from
    /// source port `sport`, starting now. `pair_rtt_bw`: the base RTT (ns)
    /// and bottleneck rate (bps) of its hosts' path; `max_rtt_bdp`: the
    /// largest RTT and BDP over all pairs, when `global_t` uses them.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn open(
        id: usize,
        f: &FlowSpec,
        nic: u32,
        line_rate: Rate,
        sport: u16,
        (pair_rtt, pair_bw): (u64, u64),
        max_rtt_bdp: Option<(u64, u64)>,
        cfg: &NetConfig,
        now: Time,
    ) -> Qp {
        // The peer's per-QP base RTT and window (third.cc): the maxima over
        // all pairs with GLOBAL_T, else this pair's.
        let pair_bdp = (pair_rtt as u128 * pair_bw as u128 / 8_000_000_000) as u64;
        let (rtt_ns, bdp) = max_rtt_bdp.unwrap_or((pair_rtt, pair_bdp));
        let env = CcEnv {
            line_rate,
            base_rtt: Delta::from_ns(rtt_ns),
            bdp,
            mtu: cfg.nic.mtu_payload,
            rng_seed: cfg.seed ^ (id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
        };
        let base_win = match cfg.nic.window {
            // A UC QP has no hardware window: the software's holds it.
            _ if matches!(
                cfg.nic.transport.for_class(f.pg),
                crate::config::Transport::PfcFree(_)
            ) =>
            {
                0
            }
            Some(w) => w,
            None if cfg.nic.bdp_window => bdp,
            None => 0,
        };
        Qp {
            src: f.src,
            dst: f.dst,
            sport,
            dport: f.dport,
            pg: f.pg,
            size: f.size,
            start: now,
            snd: SendSeq::default(),
            next_avail: now,
            cc: match (&cfg.dcqcn_fleet, &cfg.cc) {
                (Some(fleet), crate::cc::CcConfig::Dcqcn(c)) => match fleet.gen_of(f.src) {
                    Some(g) => crate::cc::CcConfig::Dcqcn(crate::cc::DcqcnConfig {
                        cut_every_cnp: fleet.rp_cuts_every_cnp(g),
                        ..c.clone()
                    })
                    .build(&env),
                    None => cfg.cc.build(&env),
                },
                _ => cfg.cc.build(&env),
            },
            timer_version: [0; N_CC_TIMERS + 1],
            end: None,
            retransmitted: 0,
            nic,
            last_size: 0,
            base_win,
            timeouts: 0,
            rel: AnyReliability::new(&cfg.nic, f.pg, f.size, line_rate, now),
            sched: Default::default(),
            post_at: Time::ZERO,
            pacer: cfg
                .dcqcn_fleet
                .as_ref()
                .and_then(|fl| crate::cc::BurstPacer::new(fl.burst_of(f.src))),
            loss_recovery: cfg
                .dcqcn_fleet
                .as_ref()
                .map_or(Delta::ZERO, |fl| fl.loss_recovery_of(f.src)),
        }
    }
}

impl Host<'_> {
    /// Flow `qp` (whose QP was just opened) starts sending.
    pub(crate) fn start(&mut self, qp: u32, cx: &mut Ctx) {
        let q = &mut self.qps[qp as usize];
        if let Some(cpu) = &mut self.nic.cpu {
            // The host posts the connection's first WQE.
            q.post_at = cpu.run(cx.now, self.cfg.host.post_wqe);
            cpu.totals.posts += 1;
        }
        self.nic.sched.add(qp, q);
        self.try_send(cx);
    }

    /// The pacing wake-up armed for now.
    pub(crate) fn wake(&mut self, cx: &mut Ctx) {
        if self.nic.wake_at == cx.now {
            self.nic.wake_at = Time::MAX;
            self.try_send(cx);
        }
    }

    /// Start sending from the port if it is idle and there is something to
    /// send; then whatever else a flow-control hook asked to try.
    pub(crate) fn try_send(&mut self, cx: &mut Ctx) {
        self.try_send_one(cx);
        self.kick_pending(cx);
    }

    /// `try_send` for each entry of the kick stack (only this NIC's port).
    #[inline]
    fn kick_pending(&mut self, cx: &mut Ctx) {
        while let Some(p) = cx.kick.pop() {
            debug_assert_eq!(p, self.nic.port);
            self.try_send_one(cx);
        }
    }

    #[inline]
    fn try_send_one(&mut self, cx: &mut Ctx) {
        let id = self.nic.port;
        if !may_start(self.port, &mut cx.q, cx.now, id) {
            return;
        }
        let pkt = if let Some(f) = self.port.ctrl.pop_front() {
            f
        } else {
            match self.dequeue(cx) {
                Some(pkt) => pkt,
                None => return,
            }
        };
        let idle = self.port.ctrl.is_empty() && self.has_nothing(cx.now);
        self.port.transmit(id, &pkt, idle, cx);
    }

    /// Whether the NIC has nothing to send: no ACK queued and no active QP
    /// with bytes left to send or resend (then `dequeue` returns nothing
    /// and arms no wake-up).
    fn has_nothing(&mut self, now: Time) -> bool {
        let j = Judge::new(self.cfg, self.nic.line_rate, &self.port.fc, now);
        self.nic.acks.is_empty() && self.nic.sched.nothing_to_send(self.qps, now, &j)
    }

    /// Apply whatever a flow-control hook of the port put in the outbox.
    #[inline]
    pub(crate) fn apply_fc_outbox(&mut self, cx: &mut Ctx) {
        if cx.outbox.is_empty() {
            return;
        }
        self.apply_fc_outbox_slow(cx);
    }

    #[inline(never)]
    fn apply_fc_outbox_slow(&mut self, cx: &mut Ctx) {
        let id = self.nic.port;
        let ports = std::slice::from_mut(&mut *self.port);
        for key in take_fc_outbox(ports, id, 0, cx) {
            // A NIC schedules its own frames: its port's egress holds none
            // to flush, and it has no buffer to release them from.
            for f in flush_port(self.port, id, key, cx) {
                cx.int_pool.release(f.int);
            }
        }
    }

    /// The port's flow-control timer, armed as `version`.
    pub(crate) fn fc_timer(&mut self, version: u32, cx: &mut Ctx) {
        if self.port.fc_version != version {
            return;
        }
        // The NIC consumes what it receives at once: its ingress is never
        // over XOFF.
        let state = |_: usize| crate::mmu::IngressState {
            over_xoff: false,
            below_xon: true,
        };
        let p = &mut *self.port;
        p.fc.on_timer(cx.now, &state, &mut cx.outbox);
        p.egress.on_timer(&p.egress_head, cx.now);
        self.apply_fc_outbox(cx);
        self.try_send(cx);
    }

    /// Pick the next frame: ACKs first, then round robin over QPs that have
    /// data, are not paused, not window-bound and whose pacing allows (peer
    /// `GetNextQindex`; the NIC's scheduler, `nic/sched.rs`). (Inlined into
    /// `try_send_one`, its one caller.)
    #[inline(always)]
    fn dequeue(&mut self, cx: &mut Ctx) -> Option<Packet> {
        let now = cx.now;
        let cfg = self.cfg;
        let nic = &mut *self.nic;
        let fc = &self.port.fc;
        if let Some(ack) = nic.acks.front() {
            let class = if cfg.nic.ack_high_prio {
                0
            } else {
                ack.class as usize
            };
            if fc.may_send(now, QueueKey::of_class(class as u8), ack.size) {
                let size = ack.size;
                let ack = nic.acks.pop_front();
                if class != 0 {
                    self.port
                        .fc
                        .on_send(now, QueueKey::of_class(class as u8), size);
                }
                return ack;
            }
        }
        let j = Judge::new(cfg, nic.line_rate, fc, now);
        let qp_id = match nic.sched.next(self.qps, now, &j) {
            Ok(id) => id,
            Err(earliest) => {
                if let Some(at) = earliest.filter(|&at| at < nic.wake_at) {
                    nic.wake_at = at;
                    cx.q.push(at, Event::NicWake { nic: nic.id });
                }
                return None;
            }
        };
        let mtu = u64::from(cfg.nic.mtu_payload);
        let int = if cfg.cc.uses_int() {
            cx.int_pool.alloc()
        } else {
            NO_INT
        };
        let qp = &mut self.qps[qp_id as usize];
        nic.sched.mark(qp_id, qp);
        if let Some(cpu) = &mut nic.cpu {
            if qp.rel.at_wqe_start() {
                // This WQE's packets go; the host polls its send completion
                // and posts the next WQE.
                qp.post_at = cpu.run(now, cfg.host.poll_cqe + cfg.host.post_wqe);
                cpu.totals.posts += 1;
                cpu.totals.cqes += 1;
            }
        }
        let seq = qp.rel.retransmission().unwrap_or(qp.snd.nxt);
        // A packet ends at the MTU, the flow's end, or where the transport
        // says (its WQE's end).
        let payload = (qp.size.min(qp.rel.packet_end(seq)) - seq).min(mtu) as u32;
        let size = payload + cfg.nic.data_header + cfg.cc.header_bytes();
        let mut pkt = Packet {
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
            .on_send(&mut qp.snd, seq, u64::from(payload), now, &cfg.nic);
        qp.rel.stamp(&mut pkt);
        qp.cc.on_send(now, u64::from(size));
        // Peer UpdateNextAvail: next eligible = now + size at the QP's rate.
        let rate = if cfg.nic.rate_bound {
            qp.cc.rate()
        } else {
            nic.line_rate
        };
        qp.next_avail = match qp.pacer.as_deref_mut() {
            None => now + rate.tx_time(u64::from(size)),
            Some(p) => p.next_send(now, u64::from(size), rate, nic.line_rate),
        };
        qp.last_size = size;
        let p = &mut *self.port;
        p.fc.on_send(now, QueueKey::of(&pkt), size);
        p.c.tx_data += 1;
        if let Some(at) = rto_at {
            arm_rto(qp, &mut cx.q, qp_id, at, now);
        }
        Some(pkt)
    }

    /// A frame arrives at the NIC's port. (By reference, as the switch's
    /// `receive`: no copy per call.) Inlined into the link's delivery, its
    /// one caller.
    #[inline(always)]
    pub(crate) fn receive(&mut self, pkt: &Packet, cx: &mut Ctx) {
        if pkt.class != 0 && !pkt.kind.is_control() {
            // The NIC consumes what it receives at once: its ingress admits
            // and releases the frame (credits flow back under CBFC).
            let s = crate::mmu::IngressState {
                over_xoff: false,
                below_xon: true,
            };
            let now = cx.now;
            let fc = &mut self.port.fc;
            let out = &mut cx.outbox;
            let key = QueueKey::of(pkt);
            let admit = fc.after_admit_emits(now, key, pkt.size, s, out);
            let release = fc.after_release_emits(now, key, pkt.size, s, out);
            if admit || release {
                self.apply_fc_outbox(cx);
            }
        }
        match pkt.kind {
            PacketKind::Data => self.receive_data(pkt, cx),
            PacketKind::Ack | PacketKind::Nack => self.receive_ack(pkt, cx),
            PacketKind::SoftAck => self.receive_soft_ack(pkt, cx),
            // Every control kind (`PacketKind::is_control`): a new one
            // needs no arm here.
            _ => {
                debug_assert!(pkt.kind.is_control());
                hear_ctrl(self.port, pkt, cx);
                self.apply_fc_outbox(cx);
                self.try_send(cx);
            }
        }
        // A path that sends nothing may still have left the port a control
        // frame to send (credits for what arrived).
        self.kick_pending(cx);
    }

    /// Receiver side (peer `ReceiveUdp`): ACK, NACK or nothing. (This and
    /// `receive_ack` are inlined into `receive`, and so into the link's
    /// delivery, as they were before the NIC had a type of its own.)
    #[inline(always)]
    fn receive_data(&mut self, pkt: &Packet, cx: &mut Ctx) {
        let now = cx.now;
        let cnp = pkt.ecn_ce && self.np_may_send(pkt, now);
        let flow = pkt.flow as usize;
        let nic_cfg = &self.cfg.nic;
        let (kind, sack) = match self.rx[flow].on_data(now, pkt, self.qps[flow].size, nic_cfg) {
            RxReply::Ack => (PacketKind::Ack, 0),
            RxReply::Nack { sack } => (PacketKind::Nack, sack),
            RxReply::Silent => {
                cx.int_pool.release(pkt.int);
                return;
            }
            RxReply::Soft(r) => {
                cx.int_pool.release(pkt.int);
                self.charge_receive(flow, cx.now);
                self.soft_rx(pkt.flow, r, cx);
                return;
            }
        };
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
            cnp,
            ingress: 0,
            size: nic_cfg
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
        self.nic.acks.push_back(ack);
        self.try_send(cx);
    }

    /// Whether a CNP goes back for marked data `pkt`: always, unless a
    /// DCQCN fleet makes this NIC's NP coalesce (`cc/dcqcn_gen.rs`).
    #[cold]
    fn np_may_send(&mut self, pkt: &Packet, now: Time) -> bool {
        let Some(fleet) = &self.cfg.dcqcn_fleet else {
            return true;
        };
        let mut last = self.nic.last_cnp.get(&pkt.flow).copied();
        let ok = fleet.np_may_send(pkt.dst, now, &mut last);
        if let Some(t) = last {
            self.nic.last_cnp.insert(pkt.flow, t);
        }
        ok
    }

    /// Sender side (peer `ReceiveAck`).
    #[inline(always)]
    fn receive_ack(&mut self, pkt: &Packet, cx: &mut Ctx) {
        // The INT stack is read last, by the CC's update: ask for it now,
        // while the QP's lines are fetched.
        cx.int_pool.prefetch(pkt.int);
        let now = cx.now;
        let qp_id = pkt.flow;
        let qp = &mut self.qps[qp_id as usize];
        if qp.end.is_some() {
            cx.int_pool.release(pkt.int);
            return;
        }
        self.nic.sched.mark(qp_id, qp);
        let newly_acked = pkt.seq.saturating_sub(qp.snd.una);
        let progressed = pkt.seq > qp.snd.una;
        if progressed {
            qp.snd.una = pkt.seq;
        }
        if qp.snd.nxt < qp.snd.una {
            qp.snd.nxt = qp.snd.una;
        }
        if qp.snd.una >= qp.size {
            self.finish(qp_id, cx);
            cx.int_pool.release(pkt.int);
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
        let int = cx.int_pool.hops(pkt.int);
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
            // A Gen1 NIC's firmware takes its time to go back (Azure §2.4).
            if qp.loss_recovery > Delta::ZERO {
                qp.next_avail = qp.next_avail.max(now + qp.loss_recovery);
            }
        }
        let new_rate = qp.cc.rate();
        if new_rate != old_rate && qp.cc.shifts_pacing() {
            qp.shift_pacing(old_rate, new_rate);
        }
        cx.int_pool.release(pkt.int);
        arm_qp_timers(qp, qp_id, &timers, cx);
        if let Some(at) = qp.rel.timer_after_ack(&qp.snd, now) {
            arm_rto(qp, &mut cx.q, qp_id, at, now);
        }
        self.try_send(cx);
    }

    /// Flow `qp_id`, all of whose bytes are acknowledged, ends now.
    #[inline(always)]
    fn finish(&mut self, qp_id: u32, cx: &mut Ctx) {
        self.qps[qp_id as usize].end = Some(cx.now);
        cx.completed.push(qp_id);
        self.nic.sched.remove(qp_id, &mut self.qps[qp_id as usize]);
    }

    /// What a software receiver (of flow `flow`, received here) asked for:
    /// send the ACK it built, at once, ahead of data (the high-priority UD
    /// QP), or arm its coalescing timer.
    fn soft_rx(&mut self, flow: u32, r: SoftRx, cx: &mut Ctx) {
        match r {
            SoftRx::Nothing => {}
            SoftRx::Timer { at, version } => cx.q.push(at, Event::RxTimer { flow, version }),
            SoftRx::Ack { serial, bytes, cnp } => {
                let built = self.rx[flow as usize].acks_in_software();
                if let (true, Some(cpu)) = (built, &mut self.nic.cpu) {
                    cpu.run(cx.now, self.cfg.host.build_ack);
                    cpu.totals.acks_built += 1;
                }
                let qp = &self.qps[flow as usize];
                let rx = &mut self.rx[flow as usize];
                // The body goes with the frame (`pfc_free::AckBodies`).
                if let Some(body) = rx.take_soft_ack(serial) {
                    cx.soft_acks.put(flow, serial, body);
                }
                let ack = Packet {
                    kind: PacketKind::SoftAck,
                    class: rx.soft_ack_class(),
                    ecn_ce: false,
                    cnp,
                    ingress: 0,
                    size: self.cfg.nic.data_header + bytes,
                    payload: 0,
                    flow,
                    int: NO_INT,
                    pint: 0,
                    seq: serial,
                    ext: 0,
                    src: qp.dst,
                    dst: qp.src,
                    sport: qp.dport,
                    // An ACK follows a data packet: its source port is known.
                    dport: rx.soft_ack_port().unwrap_or(qp.sport),
                    sent_at: cx.now,
                };
                self.nic.acks.push_back(ack);
                self.try_send(cx);
            }
        }
    }

    /// With a host CPU model: the host polls the receive completion of
    /// each WQE flow `flow`'s receiver (here) took whole since it last
    /// looked.
    #[inline]
    fn charge_receive(&mut self, flow: usize, now: Time) {
        let Some(cpu) = &mut self.nic.cpu else {
            return;
        };
        for _ in 0..self.rx[flow].poll_completions() {
            cpu.run(now, self.cfg.host.poll_cqe);
            cpu.totals.cqes += 1;
        }
    }

    /// The coalescing timer of flow `flow`'s receiver (here), armed as
    /// `version`.
    pub(crate) fn rx_timer(&mut self, flow: u32, version: u32, cx: &mut Ctx) {
        let r = self.rx[flow as usize].on_timer(cx.now, version);
        self.soft_rx(flow, r, cx);
    }

    /// A software ACK reaches the sender: its transport reads the body
    /// (the hardware's CNP, if any, rides on it), and the flow ends once
    /// every message is acknowledged.
    fn receive_soft_ack(&mut self, pkt: &Packet, cx: &mut Ctx) {
        let now = cx.now;
        let qp_id = pkt.flow;
        let flow = qp_id as usize;
        if self.qps[flow].end.is_some() {
            return;
        }
        let Some(body) = cx.soft_acks.take(qp_id, pkt.seq) else {
            return;
        };
        let parsed = self.rx[flow].acks_in_software();
        if let (true, Some(cpu)) = (parsed, &mut self.nic.cpu) {
            cpu.run(now, self.cfg.host.parse_ack);
            cpu.totals.acks_parsed += 1;
        }
        let qp = &mut self.qps[flow];
        self.nic.sched.mark(qp_id, qp);
        let (_, rto_at) = qp.rel.on_soft_ack(&mut qp.snd, &body, now);
        if pkt.cnp {
            let mut timers = TimerRequests::default();
            let old_rate = qp.cc.rate();
            qp.cc.on_cnp(now, &mut timers);
            let new_rate = qp.cc.rate();
            if new_rate != old_rate && qp.cc.shifts_pacing() {
                qp.shift_pacing(old_rate, new_rate);
            }
            arm_qp_timers(qp, qp_id, &timers, cx);
        }
        if qp.snd.una >= qp.size {
            self.finish(qp_id, cx);
            return;
        }
        if let Some(at) = rto_at {
            arm_rto(qp, &mut cx.q, qp_id, at, now);
        }
        self.try_send(cx);
    }

    /// Timer `slot` of QP `qp_id` (one of this NIC's), armed as `version`.
    pub(crate) fn qp_timer(&mut self, qp_id: u32, slot: usize, version: u32, cx: &mut Ctx) {
        let now = cx.now;
        let qp = &mut self.qps[qp_id as usize];
        if qp.end.is_some() || qp.timer_version[slot] != version {
            return;
        }
        self.nic.sched.mark(qp_id, qp);
        let mut timers = TimerRequests::default();
        if slot == RTO_SLOT {
            let out = qp.rel.on_timer(&mut qp.snd, qp.size, now, &self.cfg.nic);
            if let Some(at) = out.again_at {
                cx.q.push(
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
            if out.reroute {
                // A backup QP: a new UDP source port, a new ECMP hash.
                qp.sport = qp.sport.wrapping_add(REROUTE_SPORT_STEP);
            }
            if !out.look {
                return;
            }
        } else {
            qp.cc.on_timer(now, slot, &mut timers);
        }
        arm_qp_timers(qp, qp_id, &timers, cx);
        // A rate change may make the QP eligible sooner; the NIC re-checks.
        self.try_send(cx);
    }
}

/// Arm the timers a controller asked for. Most ACKs ask for none (HPCC
/// never arms one), so that case is tested inline, without the call.
#[inline]
fn arm_qp_timers(qp: &mut Qp, qp_id: u32, t: &TimerRequests, cx: &mut Ctx) {
    if t.arm.iter().any(Option::is_some) {
        arm_requested_timers(qp, qp_id, t, cx);
    }
}

fn arm_requested_timers(qp: &mut Qp, qp_id: u32, t: &TimerRequests, cx: &mut Ctx) {
    for (slot, at) in t.arm.iter().enumerate() {
        if let Some(at) = *at {
            qp.timer_version[slot] = qp.timer_version[slot].wrapping_add(1);
            cx.q.push(
                at.max(cx.now),
                Event::QpTimer {
                    qp: qp_id,
                    slot: slot as u8,
                    version: qp.timer_version[slot],
                },
            );
        }
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

/// What the NIC's scheduler asks of a QP (`nic/sched.rs`), at `now`.
struct Judge<'a> {
    cfg: &'a NetConfig,
    line_rate: Rate,
    fc: &'a crate::fc::AnyFc,
    now: Time,
    mtu: u64,
    header: u32,
}

impl<'a> Judge<'a> {
    #[inline(always)]
    fn new(cfg: &'a NetConfig, line_rate: Rate, fc: &'a crate::fc::AnyFc, now: Time) -> Self {
        Judge {
            cfg,
            line_rate,
            fc,
            now,
            mtu: u64::from(cfg.nic.mtu_payload),
            header: cfg.nic.data_header + cfg.cc.header_bytes(),
        }
    }
}

impl sched::Judge<Qp> for Judge<'_> {
    #[inline(always)]
    fn sendable(&self, qp: &Qp) -> Sendable {
        qp.sendable(self.cfg, self.line_rate)
    }

    #[inline(always)]
    fn has_data(&self, qp: &Qp) -> bool {
        qp.snd.nxt < qp.size || qp.rel.retransmission().is_some()
    }

    /// Credit schemes need the frame's size; a retransmission is at most
    /// one MTU (asking for more credit than needed is safe).
    #[inline(always)]
    fn may(&self, id: u32, qp: &Qp) -> bool {
        let next_size = if qp.rel.retransmission().is_some() {
            self.mtu as u32 + self.header
        } else {
            (qp.size - qp.snd.nxt).min(self.mtu) as u32 + self.header
        };
        self.fc
            .may_send(self.now, QueueKey::of_flow(qp.pg, id), next_size)
    }
}

impl Qp {
    /// What the QP may send, flow control aside: it has data (or a
    /// retransmission), its window and its transport allow new data (they
    /// hold back only new data), and its pacing allows it at `next_avail`.
    fn sendable(&self, cfg: &NetConfig, line_rate: Rate) -> Sendable {
        let retx = self.rel.retransmission().is_some();
        if !retx {
            if self.snd.nxt >= self.size {
                return Sendable::Nothing;
            }
            if !self.rel.may_send_new(&self.snd) {
                return Sendable::Held;
            }
            if let Some(w) = self.window(cfg.nic.var_win, cfg.nic.one_chunk_in_flight, line_rate) {
                if self.snd.nxt - self.snd.una >= w {
                    return Sendable::Held;
                }
            }
        }
        // With a host CPU model, a WQE's first packet waits for its post.
        if self.post_at > self.next_avail && self.rel.at_wqe_start() {
            return Sendable::At(self.post_at);
        }
        Sendable::At(self.next_avail)
    }

    /// Bytes the QP may have in flight, if bounded: its base window (scaled
    /// by rate / line rate with `var_win`, peer `GetWin`), the CC's own,
    /// and with one chunk in flight what is left of the first unacked
    /// byte's chunk.
    #[inline]
    fn window(&self, var_win: bool, chunk: Option<u64>, line_rate: Rate) -> Option<u64> {
        let w = self.rate_window(var_win, line_rate);
        match chunk {
            None => w,
            Some(c) => {
                let left = c - self.snd.una % c;
                Some(w.map_or(left, |w| w.min(left)))
            }
        }
    }

    /// [`Qp::window`] without chunks.
    #[inline]
    fn rate_window(&self, var_win: bool, line_rate: Rate) -> Option<u64> {
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
