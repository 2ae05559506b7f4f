//! The switch: output-queued, 8 classes per port, shared-buffer MMU,
//! RED/ECN at dequeue, ECMP over precomputed next hops (the peer's
//! `SwitchNode`, `SwitchMmu`).
//!
//! Its handlers are methods on the switch, given its ports (a slice of
//! the port arena, indexed by local port) and a [`Ctx`]; they reach no
//! other device. Frames, the kick stack and events name ports by their
//! global id, `first_port + local`.

use crate::context::Ctx;
use crate::device::{flush_port, hear_ctrl, may_start, prefetch_egress, take_fc_outbox};
use crate::fc::{FlowControl, IngressState};
use crate::hash::{host_ip, murmur3_32};
use crate::mmu::Mmu;
use crate::port::Port;
use crate::route::{DstRoute, RouteRow};
use crate::sonic_buffer::model::SonicMmu;
use crate::wire::{IntHop, Packet, PacketKind, QueueKey, NO_INT};

const _: () =
    assert!(std::mem::offset_of!(Switch, mmu) + std::mem::offset_of!(Mmu, peak_bytes) + 8 <= 128);

/// A switch. (`repr(C)`, aligned to a cache line: what every frame's hop
/// reads, its first port, route rows and the MMU's first fields (`Mmu`
/// is `repr(C)` too, up to `peak_bytes`), are in its first two lines;
/// they were spread over three or four. docs/performance.md, "Eighth
/// pass".)
#[derive(Debug)]
#[repr(C, align(64))]
pub(crate) struct Switch {
    /// The global id of its local port 0; its ports follow.
    pub first_port: u32,
    pub n_ports: u16,
    /// Whether RED/ECN marks here (`EcnConfig::enabled`).
    pub ecn_on: bool,
    /// Whether HPCC-PINT runs (then `pint` holds its parameters). Here,
    /// in the line every hop reads, so that a departure reads no other
    /// line to learn that it does not.
    pub pint_on: bool,
    /// SONiC's buffer model, if this switch uses it instead of the peer's
    /// MMU (`NetConfig::sonic`); then `mmu` is unused. Here, in the line
    /// every hop reads, so that a hop learns which MMU to call without
    /// reading another line; boxed, so that it is one word.
    pub sonic: Option<Box<SonicMmu>>,
    /// Per destination key (`DstRoute::key`, route.rs): where its next
    /// hops are in `routes`.
    pub route_rows: Vec<RouteRow>,
    pub mmu: Mmu,
    /// ECN thresholds per local port: (kmin, kmax, pmax).
    pub ecn: Vec<(u64, u64, f64)>,
    /// Next-hop local ports, flat, in the rows of `route_rows`.
    pub routes: Vec<u16>,
    /// With HPCC-PINT: its log base and the base RTT (ns) its utilisation
    /// is measured over.
    pub pint: Option<(f64, u64)>,
}

/// What the MMU's release of a departing frame says
/// ([`Switch::depart_with`]).
struct Released {
    /// Bytes left in the egress's class.
    q: u64,
    /// The ingress's state after the release.
    state: IngressState,
}

impl Switch {
    /// The global id of local port `local`.
    #[inline(always)]
    fn port_id(&self, local: usize) -> u32 {
        self.first_port + local as u32
    }

    /// A frame arrives at local port `pkt.ingress`; `routes` says how to
    /// route towards each destination host. (By reference, as `depart` and
    /// `transmit` take it: the frame is copied out of the link and into a
    /// queue or onto the next link, not at each call.) Inlined into the
    /// link's delivery, its one caller: as a call, it took seven arguments.
    #[inline(always)]
    pub(crate) fn receive(
        &mut self,
        ports: &mut [Port],
        routes: &[DstRoute],
        pkt: &mut Packet,
        cx: &mut Ctx,
    ) {
        let in_local = pkt.ingress as usize;
        if pkt.kind.is_control() {
            self.receive_ctrl(ports, in_local, pkt, cx);
            return;
        }
        // Held until the admission's flow-control hook: the port is looked
        // up once (each lookup is a bounds check and a multiplication).
        let ports_at = ports.as_ptr();
        let ip = &mut ports[in_local];
        let dst = &routes[pkt.dst as usize];
        // This switch's index is its ports' `owner`.
        let out_local = if dst.attach_switch == u32::from(ip.owner) {
            dst.attach_port
        } else {
            let row = self.route_rows[dst.key as usize];
            match row.len {
                1 => row.first,
                0 => {
                    // Only after a link failure: no path left (peer: dropped).
                    ip.c.unroutable += 1;
                    cx.int_pool.release(pkt.int);
                    return;
                }
                n => {
                    // Peer GetOutDev: Murmur3 over (sip, dip, sport | dport << 16), seed = node id.
                    let key = [
                        host_ip(pkt.src),
                        host_ip(pkt.dst),
                        u32::from(pkt.sport) | (u32::from(pkt.dport) << 16),
                    ];
                    let i = murmur3_32(&key, ip.node) % u32::from(n);
                    self.routes[(row.start + i) as usize]
                }
            }
        };
        let out_local = usize::from(out_local);
        // The egress's lines that this hop reads, asked for together
        // rather than one after the other as the code reaches them.
        prefetch_egress(ports_at, out_local);
        let class = pkt.class as usize;
        let size = u64::from(pkt.size);
        // The ingress's state after an admission within the class's
        // reserve, which the MMU has not counted yet (`Mmu::admit_or_pass`).
        let mut in_reserve = None;
        if class != 0 && self.sonic.is_some() {
            if !self.sonic_admit(ports, in_local, out_local, pkt, cx) {
                return;
            }
        } else if class != 0 {
            let Some(admitted) = self.mmu.admit_or_pass(in_local, out_local, class, size) else {
                ip.c.drops[class] += 1;
                cx.int_pool.release(pkt.int);
                return;
            };
            ip.peak_ingress = ip.peak_ingress.max(admitted.held);
            if admitted.in_reserve {
                in_reserve = Some(admitted.state);
            }
            if ip.fc.after_admit_emits(
                cx.now,
                QueueKey::of(pkt),
                pkt.size,
                admitted.state,
                &mut cx.outbox,
            ) {
                self.apply_fc_outbox(ports, in_local, cx);
            }
        }
        let now = cx.now;
        let out_port = self.port_id(out_local);
        let op = &mut ports[out_local];
        op.c.peak_queue = op.c.peak_queue.max(op.queue_bytes + size);
        // An idle egress with nothing queued would dequeue this frame at
        // once if flow control lets it go (`Egress::pass`): skip the
        // queue's push and pop, and do everything else as `try_send` would.
        let may_start = may_start(op, &mut cx.q, now, out_port);
        if may_start
            && op.ctrl.is_empty()
            && op.queue_bytes == 0
            && op.egress.pass(&mut op.egress_head, now, pkt, &op.fc)
        {
            // The queue would grow by `size` and shrink back at the same
            // time: the monitor hears of one change from the same length
            // (the second of the pair credits no sample).
            cx.before_queue_change(out_port, op.queue_bytes);
            match in_reserve {
                Some(state) => self.pass_and_transmit(ports, out_local, pkt, state, cx),
                None => self.depart_and_transmit(ports, out_local, pkt, cx),
            }
            self.kick_pending(ports, cx);
            return;
        }
        if in_reserve.is_some() {
            self.mmu.count_in_reserve(in_local, out_local, class, size);
        }
        let op = &mut ports[out_local];
        cx.before_queue_change(out_port, op.queue_bytes);
        op.queue_bytes += size;
        op.egress.enqueue(&mut op.egress_head, now, pkt);
        if op.egress_head.is_boxed() {
            self.egress_upstream(ports, out_local, cx);
        }
        if may_start {
            self.try_send(ports, out_local, cx);
        } else {
            // `try_send` would find the same: `may_start` is false again
            // (the port is busy, down or held, and its skipped `TxDone`, if
            // any, was pushed by the call above).
            self.kick_pending(ports, cx);
        }
    }

    /// A control frame arrives at local port `local`: it governs what that
    /// port itself may send.
    fn receive_ctrl(&mut self, ports: &mut [Port], local: usize, pkt: &Packet, cx: &mut Ctx) {
        hear_ctrl(&mut ports[local], pkt, cx);
        self.apply_fc_outbox(ports, local, cx);
        self.try_send(ports, local, cx);
    }

    /// Start sending from local port `local` if it is idle and has
    /// something to send; then do the same for every port this made
    /// eligible.
    pub(crate) fn try_send(&mut self, ports: &mut [Port], local: usize, cx: &mut Ctx) {
        // As if `local` were pushed on the kick stack and popped at once
        // (LIFO), so the order is that of the stack, without the push and
        // pop.
        self.try_send_one(ports, local, cx);
        self.kick_pending(ports, cx);
    }

    /// `try_send` every port on the kick stack, last pushed first. (Only
    /// this switch's handlers push, and only its own ports.)
    #[inline]
    pub(crate) fn kick_pending(&mut self, ports: &mut [Port], cx: &mut Ctx) {
        while let Some(p) = cx.kick.pop() {
            debug_assert!(p.wrapping_sub(self.first_port) < u32::from(self.n_ports));
            self.try_send_one(ports, (p - self.first_port) as usize, cx);
        }
    }

    #[inline]
    fn try_send_one(&mut self, ports: &mut [Port], local: usize, cx: &mut Ctx) {
        let id = self.port_id(local);
        let p = &mut ports[local];
        if !may_start(p, &mut cx.q, cx.now, id) {
            return;
        }
        let pkt = if let Some(f) = p.ctrl.pop_front() {
            f
        } else {
            match self.dequeue(ports, local, cx) {
                Some(pkt) => pkt,
                None => return,
            }
        };
        ports[local].transmit(id, &pkt, true, cx);
    }

    /// Take the next frame of local port `local`'s egress, as its queueing
    /// scheme and flow control allow (`Egress::dequeue`). (Inlined into
    /// `try_send_one`, its one caller.)
    #[inline(always)]
    fn dequeue(&mut self, ports: &mut [Port], local: usize, cx: &mut Ctx) -> Option<Packet> {
        let now = cx.now;
        let id = self.port_id(local);
        let p = &mut ports[local];
        let mut pkt = p.egress.dequeue(&mut p.egress_head, now, &p.fc)?;
        let size = u64::from(pkt.size);
        cx.before_queue_change(id, p.queue_bytes);
        p.queue_bytes -= size;
        if p.egress_head.is_boxed() {
            self.egress_upstream(ports, local, cx);
        }
        self.depart(ports, local, &mut pkt, cx);
        Some(pkt)
    }

    /// [`Switch::depart`] and [`Port::transmit`] of a frame that passes an
    /// idle egress, in one call: as two calls from `receive`, each saved
    /// and restored registers and looked the port up (inlined there, they
    /// cost more: docs/performance.md).
    #[inline(never)]
    fn depart_and_transmit(
        &mut self,
        ports: &mut [Port],
        local: usize,
        pkt: &mut Packet,
        cx: &mut Ctx,
    ) {
        self.depart(ports, local, pkt, cx);
        let id = self.port_id(local);
        ports[local].transmit(id, pkt, true, cx);
    }

    /// [`Switch::depart_and_transmit`] of a frame that the MMU admitted
    /// within its class's reserve and did not count
    /// ([`Mmu::admit_or_pass`]): its release changes nothing either, and
    /// leaves the ingress in `state`, the state after its admission.
    #[inline(never)]
    fn pass_and_transmit(
        &mut self,
        ports: &mut [Port],
        local: usize,
        pkt: &mut Packet,
        state: IngressState,
        cx: &mut Ctx,
    ) {
        self.depart_with(ports, local, pkt, cx, |sw, _, out_local, class, _| {
            // The egress has nothing queued (`queue_bytes` is 0), and its MMU
            // bytes are those of its queued frames: none are left after
            // this one, so RED/ECN cannot mark it (and draws nothing).
            debug_assert_eq!(sw.mmu.egress_bytes(out_local, class), 0);
            Released { q: 0, state }
        });
        let id = self.port_id(local);
        ports[local].transmit(id, pkt, true, cx);
    }

    /// `pkt` left the queues of local port `local` (their bytes already
    /// count it out): PINT, flow control, MMU release, ECN, INT.
    /// (`pkt` by reference: by value it was copied in and out of each call.)
    /// Out of line: inlined into its two callers (`dequeue`'s and
    /// `depart_and_transmit`), it cost 0.6% more instructions.
    #[inline(never)]
    fn depart(&mut self, ports: &mut [Port], local: usize, pkt: &mut Packet, cx: &mut Ctx) {
        self.depart_with(
            ports,
            local,
            pkt,
            cx,
            |sw, in_local, out_local, class, size| {
                let (q, state) = sw.release_any(in_local, out_local, class, size);
                Released { q, state }
            },
        );
    }

    /// [`Switch::depart`], with the MMU's release done by `release`, given
    /// the switch, the ingress's and egress's local ports, the frame's
    /// class and its bytes.
    #[inline(always)]
    fn depart_with(
        &mut self,
        ports: &mut [Port],
        local: usize,
        pkt: &mut Packet,
        cx: &mut Ctx,
        release: impl FnOnce(&mut Switch, usize, usize, usize, u64) -> Released,
    ) {
        let now = cx.now;
        let class = usize::from(pkt.class);
        let p = &mut ports[local];
        let size = u64::from(pkt.size);
        if let (true, Some((base, t_ns))) = (self.pint_on, self.pint) {
            // HPCC-PINT at dequeue (peer SwitchNotifyDequeue, mode 10).
            if pkt.kind == PacketKind::Data {
                let u = p
                    .pint
                    .on_data_dequeue(now.ns(), p.queue_bytes, p.rate, t_ns);
                pkt.pint = pkt.pint.max(crate::cc::encode_u(u, base));
            }
            p.pint.on_dequeue(now.ns(), size);
        }
        if class == 0 {
            return;
        }
        p.fc.on_send(now, QueueKey::of(pkt), pkt.size);
        let in_local = pkt.ingress as usize;
        let Released { q, state } = release(self, in_local, local, class, size);
        // RED/ECN at dequeue on the bytes left in this class (peer
        // ShouldSendCN). With none left it marks nothing and draws nothing,
        // so the thresholds are not read.
        if q > 0 && self.ecn_on && pkt.kind == PacketKind::Data {
            let (kmin, kmax, pmax) = self.ecn[local];
            let mark = if q > kmax {
                true
            } else if q > kmin {
                let prob = pmax * (q - kmin) as f64 / (kmax - kmin) as f64;
                ports[local].rng.uniform() < prob
            } else {
                false
            };
            if mark {
                pkt.ecn_ce = true;
                ports[local].c.ecn_marks += 1;
            }
        }
        if pkt.kind == PacketKind::Data {
            let p = &mut ports[local];
            p.c.tx_data += 1;
            if pkt.int != NO_INT {
                // INT at dequeue (peer SwitchNotifyDequeue): tx bytes before
                // this packet, queue bytes of the port after it left.
                cx.int_pool.push(
                    &mut pkt.int,
                    IntHop {
                        ts_ns: now.ns(),
                        tx_bytes: p.c.tx_bytes,
                        qlen: p.queue_bytes,
                        rate_bps: p.rate.bps(),
                    },
                );
            }
        }
        // The ingress may now be below XON.
        if ports[in_local].fc.after_release_emits(
            now,
            QueueKey::of(pkt),
            pkt.size,
            state,
            &mut cx.outbox,
        ) {
            self.apply_fc_outbox(ports, in_local, cx);
        }
    }

    /// Send what local port `local`'s egress decided to send upstream
    /// (per-flow PAUSE and RESUME, BFC and FlowSail): each out of the port
    /// its frame came in by, through that port's flow control
    /// (`FlowControl::send_upstream`). Boxed egresses only.
    #[inline(never)]
    fn egress_upstream(&mut self, ports: &mut [Port], local: usize, cx: &mut Ctx) {
        let now = cx.now;
        while let Some((to, frame)) = {
            let p = &mut ports[local];
            p.egress.pop_upstream(&p.egress_head)
        } {
            let to = usize::from(to);
            ports[to].fc.send_upstream(now, &frame, &mut cx.outbox);
            self.apply_fc_outbox(ports, to, cx);
        }
    }

    /// Apply whatever a flow-control hook of local port `local` put in the
    /// outbox.
    #[inline]
    pub(crate) fn apply_fc_outbox(&mut self, ports: &mut [Port], local: usize, cx: &mut Ctx) {
        // Most hooks emit nothing: skip the take-and-return of the outbox
        // (inline check, out-of-line work).
        if cx.outbox.is_empty() {
            return;
        }
        self.apply_fc_outbox_slow(ports, local, cx);
    }

    #[inline(never)]
    fn apply_fc_outbox_slow(&mut self, ports: &mut [Port], local: usize, cx: &mut Ctx) {
        for key in take_fc_outbox(ports, self.first_port, local, cx) {
            self.flush_queue(ports, local, key, cx);
        }
    }

    /// Empty the queue `key` of local port `local`'s egress: each frame is
    /// dropped, counted in `flushed`, and released from the buffer as if
    /// it had left (so its ingress may resume its upstream).
    #[inline(never)]
    fn flush_queue(&mut self, ports: &mut [Port], local: usize, key: QueueKey, cx: &mut Ctx) {
        let id = self.port_id(local);
        let now = cx.now;
        for f in flush_port(&mut ports[local], id, key, cx) {
            cx.int_pool.release(f.int);
            let class = usize::from(f.class);
            if class == 0 {
                continue;
            }
            let in_local = usize::from(f.ingress);
            let (_, state) = self.release_any(in_local, local, class, u64::from(f.size));
            if ports[in_local].fc.after_release_emits(
                now,
                QueueKey::of(&f),
                f.size,
                state,
                &mut cx.outbox,
            ) {
                self.apply_fc_outbox(ports, in_local, cx);
            }
        }
    }

    /// The release of a frame from this switch's MMU, whichever it has:
    /// the bytes left in the egress's class and the ingress's state after.
    #[inline(always)]
    fn release_any(
        &mut self,
        in_local: usize,
        out_local: usize,
        class: usize,
        bytes: u64,
    ) -> (u64, IngressState) {
        match self.sonic.as_mut() {
            None => self.mmu.release_state(in_local, out_local, class, bytes),
            Some(s) => s.release_queued(in_local, out_local, class, bytes),
        }
    }

    /// The flow-control timer of local port `local`, armed as `version`.
    pub(crate) fn fc_timer(
        &mut self,
        ports: &mut [Port],
        local: usize,
        version: u32,
        cx: &mut Ctx,
    ) {
        if ports[local].fc_version != version {
            return;
        }
        let now = cx.now;
        let sw = &*self;
        let state = |class: usize| match &sw.sonic {
            None => sw.mmu.ingress_state(local, class),
            Some(s) => s.ingress_state(local, class),
        };
        let p = &mut ports[local];
        p.fc.on_timer(now, &state, &mut cx.outbox);
        p.egress.on_timer(&p.egress_head, now);
        self.apply_fc_outbox(ports, local, cx);
        self.try_send(ports, local, cx);
    }
}
