//! The switch: output-queued, 8 classes per port, shared-buffer MMU,
//! RED/ECN at dequeue, ECMP over precomputed next hops (the peer's
//! `SwitchNode`, `SwitchMmu`).

use crate::fc::{FlowControl, IngressState};
use crate::hash::{host_ip, murmur3_32};
use crate::sim::{Simulation, Switch};
use crate::wire::{IntHop, Packet, PacketKind, QueueKey, NO_INT};

/// What the MMU's release of a departing frame says
/// ([`Simulation::switch_depart_with`]).
struct Released {
    /// Bytes left in the egress's class.
    q: u64,
    /// The ingress's state after the release.
    state: IngressState,
    /// The frame's ingress port.
    in_port: u32,
}

impl Simulation {
    /// A frame arrives at switch port `in_port`. (By reference, as
    /// `switch_depart` and `transmit` take it: the frame is copied out of
    /// the link and into a queue or onto the next link, not at each call.)
    pub(crate) fn switch_receive(&mut self, in_port: u32, pkt: &mut Packet) {
        if matches!(pkt.kind, PacketKind::Pfc | PacketKind::Credit) {
            self.receive_ctrl(in_port, pkt);
            return;
        }
        // Held until the admission's flow-control hook: the port is looked
        // up once (each lookup is a bounds check and a multiplication).
        let ports = self.ports.as_ptr();
        let ip = &mut self.ports[in_port as usize];
        let node = ip.node;
        let sw_id = usize::from(ip.owner);
        let dst = &self.dst_route[pkt.dst as usize];
        let sw = &mut self.switches[sw_id];
        let out_local = if dst.attach_switch == sw_id as u32 {
            dst.attach_port
        } else {
            let row = sw.route_rows[dst.key as usize];
            match row.len {
                1 => row.first,
                0 => {
                    // Only after a link failure: no path left (peer: dropped).
                    ip.c.unroutable += 1;
                    self.int_release(pkt.int);
                    return;
                }
                n => {
                    // Peer GetOutDev: Murmur3 over (sip, dip, sport | dport << 16), seed = node id.
                    let key = [
                        host_ip(pkt.src),
                        host_ip(pkt.dst),
                        u32::from(pkt.sport) | (u32::from(pkt.dport) << 16),
                    ];
                    let i = murmur3_32(&key, node) % u32::from(n);
                    sw.routes[(row.start + i) as usize]
                }
            }
        };
        let out_port = sw.first_port + u32::from(out_local);
        // The egress's lines that this hop reads, asked for together
        // rather than one after the other as the code reaches them.
        Simulation::prefetch_egress(ports, out_port);
        let class = pkt.class as usize;
        let in_local = pkt.ingress as usize;
        let size = u64::from(pkt.size);
        // The ingress's state after an admission within the class's
        // reserve, which the MMU has not counted yet (`Mmu::admit_or_pass`).
        let mut in_reserve = None;
        if class != 0 {
            let Some(admitted) = sw
                .mmu
                .admit_or_pass(in_local, out_local as usize, class, size)
            else {
                ip.c.drops[class] += 1;
                self.int_release(pkt.int);
                return;
            };
            ip.peak_ingress = ip.peak_ingress.max(admitted.held);
            if admitted.in_reserve {
                in_reserve = Some(admitted.state);
            }
            let now = self.now;
            if ip.fc.after_admit_emits(
                now,
                QueueKey::of(pkt),
                pkt.size,
                admitted.state,
                &mut self.outbox,
            ) {
                self.apply_fc_outbox(in_port);
            }
        }
        let now = self.now;
        let op = &mut self.ports[out_port as usize];
        op.c.peak_queue = op.c.peak_queue.max(op.queue_bytes + size);
        // An idle egress with nothing queued would dequeue this frame at
        // once if flow control lets it go (`Egress::pass`): skip the
        // queue's push and pop, and do everything else as `try_send` would.
        let may_start = Simulation::may_start(op, &mut self.q, now, out_port);
        if may_start
            && op.ctrl.is_empty()
            && op.queue_bytes == 0
            && op.egress.pass(&mut op.egress_head, now, pkt, &op.fc)
        {
            // The queue would grow by `size` and shrink back at the same
            // time: the monitor hears of one change from the same length
            // (the second of the pair credits no sample).
            if let Some(m) = self.qlen.as_mut() {
                m.before_change(out_port, now, op.queue_bytes);
            }
            match in_reserve {
                Some(state) => self.pass_and_transmit(out_port, class, pkt, in_port, state),
                None => self.depart_and_transmit(out_port, class, pkt),
            }
            self.kick_pending();
            return;
        }
        if in_reserve.is_some() {
            self.switches[sw_id]
                .mmu
                .count_in_reserve(in_local, out_local as usize, class, size);
        }
        let op = &mut self.ports[out_port as usize];
        if let Some(m) = self.qlen.as_mut() {
            m.before_change(out_port, now, op.queue_bytes);
        }
        op.queue_bytes += size;
        op.egress.enqueue(&mut op.egress_head, pkt);
        if may_start {
            self.try_send(out_port);
        } else {
            // `try_send` would find the same: `may_start` is false again
            // (the port is busy, down or held, and its skipped `TxDone`, if
            // any, was pushed by the call above).
            self.kick_pending();
        }
    }

    /// Take the next frame of switch port `port`'s egress, as its queueing
    /// scheme and flow control allow (`Egress::dequeue`).
    pub(crate) fn switch_dequeue(&mut self, port: u32) -> Option<Packet> {
        let now = self.now;
        let p = &mut self.ports[port as usize];
        let mut pkt = p.egress.dequeue(&mut p.egress_head, now, &p.fc)?;
        let size = u64::from(pkt.size);
        if let Some(m) = self.qlen.as_mut() {
            m.before_change(port, now, p.queue_bytes);
        }
        p.queue_bytes -= size;
        self.switch_depart(port, usize::from(pkt.class), &mut pkt);
        Some(pkt)
    }

    /// [`Simulation::switch_depart`] and [`Simulation::transmit`] of a frame
    /// that passes an idle egress, in one call: as two calls from
    /// `switch_receive`, each saved and restored registers and looked the
    /// port up (inlined there, they cost more: docs/performance.md).
    #[inline(never)]
    fn depart_and_transmit(&mut self, port: u32, class: usize, pkt: &mut Packet) {
        self.switch_depart(port, class, pkt);
        self.transmit_inline(port, pkt);
    }

    /// [`Simulation::depart_and_transmit`] of a frame that the MMU admitted
    /// within its class's reserve and did not count
    /// ([`crate::mmu::Mmu::admit_or_pass`]): its release changes nothing
    /// either, and leaves the ingress in `state`, the state after its
    /// admission.
    /// (`in_port` is the frame's ingress, which the caller has at hand: the
    /// switch is not looked up.)
    #[inline(never)]
    fn pass_and_transmit(
        &mut self,
        port: u32,
        class: usize,
        pkt: &mut Packet,
        in_port: u32,
        state: IngressState,
    ) {
        self.switch_depart_with(port, class, pkt, |switches, sw_id, _, out_local, _| {
            // The egress has nothing queued (`queue_bytes` is 0), and its MMU
            // bytes are those of its queued frames: none are left after
            // this one, so RED/ECN cannot mark it (and draws nothing).
            debug_assert_eq!(switches[sw_id].mmu.egress_bytes(out_local, class), 0);
            Released {
                q: 0,
                state,
                in_port,
            }
        });
        self.transmit_inline(port, pkt);
    }

    /// `pkt` of `class` left the queues of switch port `port` (their bytes
    /// already count it out): PINT, flow control, MMU release, ECN, INT.
    /// (`pkt` by reference: by value it was copied in and out of each call.)
    /// Out of line: inlined into its two callers (`switch_dequeue`'s and
    /// `depart_and_transmit`), it cost 0.6% more instructions.
    #[inline(never)]
    fn switch_depart(&mut self, port: u32, class: usize, pkt: &mut Packet) {
        self.switch_depart_with(
            port,
            class,
            pkt,
            |switches, sw_id, in_local, out_local, size| {
                let sw = &mut switches[sw_id];
                let (q, state) = sw.mmu.release_state(in_local, out_local, class, size);
                Released {
                    q,
                    state,
                    in_port: sw.first_port + in_local as u32,
                }
            },
        );
    }

    /// [`Simulation::switch_depart`], with the MMU's release done by
    /// `release`, given the switches, the index of this one, the ingress's
    /// and egress's local ports and the frame's bytes.
    #[inline(always)]
    fn switch_depart_with(
        &mut self,
        port: u32,
        class: usize,
        pkt: &mut Packet,
        release: impl FnOnce(&mut [Switch], usize, usize, usize, u64) -> Released,
    ) {
        let now = self.now;
        let p = &mut self.ports[port as usize];
        let size = u64::from(pkt.size);
        let out_local = p.local as usize;
        let sw_id = usize::from(p.owner);
        if let Some(base) = self.cfg.cc.pint_log_base() {
            // HPCC-PINT at dequeue (peer SwitchNotifyDequeue, mode 10).
            if pkt.kind == PacketKind::Data {
                let t_ns = self.max_rtt_bdp.map_or(1, |(rtt, _)| rtt);
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
        let Released { q, state, in_port } =
            release(&mut self.switches, sw_id, in_local, out_local, size);
        // RED/ECN at dequeue on the bytes left in this class (peer
        // ShouldSendCN). With none left it marks nothing and draws nothing,
        // so the thresholds are not read.
        if q > 0 && self.cfg.ecn.enabled && pkt.kind == PacketKind::Data {
            let (kmin, kmax, pmax) = self.switches[sw_id].ecn[out_local];
            let mark = if q > kmax {
                true
            } else if q > kmin {
                let prob = pmax * (q - kmin) as f64 / (kmax - kmin) as f64;
                self.ports[port as usize].rng.uniform() < prob
            } else {
                false
            };
            if mark {
                pkt.ecn_ce = true;
                self.ports[port as usize].c.ecn_marks += 1;
            }
        }
        if pkt.kind == PacketKind::Data {
            let p = &mut self.ports[port as usize];
            p.c.tx_data += 1;
            if pkt.int != NO_INT {
                // INT at dequeue (peer SwitchNotifyDequeue): tx bytes before
                // this packet, queue bytes of the port after it left.
                self.int_pool.push(
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
        if self.ports[in_port as usize].fc.after_release_emits(
            now,
            QueueKey::of(pkt),
            pkt.size,
            state,
            &mut self.outbox,
        ) {
            self.apply_fc_outbox(in_port);
        }
    }
}
