//! The simulation: entities in arenas indexed by dense ids, one event enum,
//! one `match` per step.
//!
//! Packets never sit in the event queue. A port's egress queues hold frames
//! waiting to be sent; its link holds frames on the wire in a FIFO. Only the
//! FIFO's head has a pending `LinkDeliver` event, and a port has at most one
//! pending `TxDone` (htsim's pipe and queue). Timers carry a version and are
//! ignored if they were re-armed since (minim).

use crate::config::NetConfig;
use crate::fc::{FcOutbox, FlowControl};
use crate::mmu::Mmu;
use crate::port::{Port, TxLogEntry};
use crate::qp::{Nic, Qp};
use crate::results::{PfcLogEntry, ProgressInfo};
use crate::wire::{InFlight, Packet};
use engine::{Delta, EventQueue, Time};
use topo::Topology;
use workload::FlowSpec;

/// Everything that can happen. Dense ids only; `Copy`; at most 16 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Event {
    /// The next flow in start order begins.
    FlowArrive,
    /// The head of `port`'s link FIFO reaches the far end.
    LinkDeliver { port: u32 },
    /// `port` finished serialising its current frame.
    TxDone { port: u32 },
    /// A NIC's pacing: some QP may have become eligible.
    NicWake { nic: u32 },
    /// A congestion-control timer of a QP.
    QpTimer { qp: u32, slot: u8, version: u32 },
    /// A flow-control timer of a port.
    FcTimer { port: u32, version: u32 },
    /// The `k`-th configured link failure happens.
    LinkDown { k: u32 },
    /// The queue-length monitor writes its histograms.
    QlenDump,
    /// A time-series sample (monitor.rs).
    Monitor,
}

const _: () = assert!(std::mem::size_of::<Event>() <= 16);
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
    pub first_port: u32,
    /// Per destination key (`DstRoute::key`, route.rs): where its next
    /// hops are in `routes`.
    pub route_rows: Vec<crate::route::RouteRow>,
    pub mmu: Mmu,
    /// ECN thresholds per local port: (kmin, kmax, pmax).
    pub ecn: Vec<(u64, u64, f64)>,
    /// Next-hop local ports, flat, in the rows of `route_rows`.
    pub routes: Vec<u16>,
}

/// A network ready to run: build it with [`Simulation::new`], then
/// [`Simulation::run`].
#[derive(Debug)]
pub struct Simulation {
    pub(crate) cfg: NetConfig,
    pub(crate) now: Time,
    pub(crate) q: EventQueue<Event>,
    pub(crate) ports: Vec<Port>,
    pub(crate) node_switch: Vec<u32>,
    pub(crate) node_nic: Vec<u32>,
    /// Per node id: how switches route towards it (hosts; route.rs).
    pub(crate) dst_route: Vec<crate::route::DstRoute>,
    pub(crate) switches: Vec<Switch>,
    pub(crate) nics: Vec<Nic>,
    pub(crate) qps: Vec<Qp>,
    pub(crate) rx: Vec<crate::transport::Receiver>,
    pub(crate) flows: Vec<FlowSpec>,
    pub(crate) next_flow: usize,
    pub(crate) finished: usize,
    pub(crate) completion_order: Vec<u32>,
    pub(crate) ideal_fct_ns: Vec<u64>,
    /// Per flow: the peer's base RTT (ns) and bottleneck rate (bps) of its pair.
    pub(crate) pair_rtt_bw: Vec<(u64, u64)>,
    /// The largest base RTT (ns) and BDP (bytes) over all host pairs, when
    /// `global_t` needs them (the peer's maxRtt, maxBdp).
    pub(crate) max_rtt_bdp: Option<(u64, u64)>,
    /// What routing needs to be recomputed after a link failure.
    pub(crate) topo: Topology,
    pub(crate) link_port: Vec<[u32; 2]>,
    pub(crate) hosts: Vec<u32>,
    /// Configured failures as link indices, in `cfg.link_down` order.
    pub(crate) failures: Vec<u32>,
    pub(crate) link_up: Vec<bool>,
    /// The peer's queue-length monitor, when configured.
    pub(crate) qlen: Option<Box<crate::qlen::QlenMonitor>>,
    /// INT stacks of packets in flight (HPCC), by `Packet::int`.
    pub(crate) int_pool: crate::int_pool::IntPool,
    pub(crate) events: u64,
    pub(crate) packet_hops: u64,
    pub(crate) outbox: FcOutbox,
    pub(crate) kick: Vec<u32>,
    pub(crate) record_pfc: bool,
    pub(crate) pfc_log: Vec<PfcLogEntry>,
    pub(crate) tx_log: Vec<TxLogEntry>,
    /// Time-series sampling, when on (monitor.rs).
    pub(crate) monitor: Option<Box<crate::monitor::Monitor>>,
    /// Next source port per (src, dst) pair.
    pub(crate) sport_next: std::collections::HashMap<(u32, u32), u16>,
    /// Data frames (flow, byte offset) to lose once ([`Simulation::drop_once`]).
    pub(crate) drop_once: Vec<(u32, u64)>,
    /// Whether a frame may be lost on a link at all: some port has an error
    /// rate, or a loss was planned (`drop_once`). False in most runs, where
    /// a delivery then tests this flag alone.
    pub(crate) lossy: bool,
    /// Configuration warnings found while building (e.g. a Bifrost H below
    /// Theorem 1's bound).
    pub(crate) warnings: Vec<String>,
}

impl Simulation {
    /// Run until every flow finished, the queue empties or the stop time.
    pub fn run(&mut self) {
        self.run_with_progress(u64::MAX, |_| {});
    }

    /// Run, calling `progress` every `every` events.
    pub fn run_with_progress(&mut self, every: u64, mut progress: impl FnMut(&ProgressInfo)) {
        let stop = self.cfg.stop_time.unwrap_or(Time::MAX);
        let n_flows = self.flows.len();
        let mut next_report = every;
        while !(self.finished == n_flows && self.next_flow == n_flows) {
            let Some((t, ev)) = self.q.pop_not_after(stop) else {
                break;
            };
            debug_assert!(t >= self.now);
            self.now = t;
            self.events += 1;
            if let Some(&next) = self.q.peek_near() {
                self.prefetch_for(next);
            }
            self.dispatch(ev);
            if self.events >= next_report {
                next_report += every;
                progress(&ProgressInfo {
                    now: self.now,
                    events: self.events,
                    flows_started: self.next_flow,
                    flows_finished: self.finished,
                    flows_total: n_flows,
                });
            }
        }
        // The peer keeps running to its stop time: owe it the idle dumps.
        let until = if stop == Time::MAX { self.now } else { stop };
        self.qlen_finish(until);
    }

    /// Ask the cache for what `ev`, the next event, reads first, while the
    /// current one is handled (docs/performance.md, "Eleventh pass"): for
    /// a delivery, the frame after the one it delivers (whose arrival time
    /// it reads) and the receiving port; for an end of transmission, the
    /// port. The lines a hop reads are cold (the link held the frame for
    /// a microsecond or more of simulated time, during which thousands of
    /// other events ran); an event takes about 150 ns, longer than a miss
    /// to the last-level cache.
    #[inline(always)]
    fn prefetch_for(&self, ev: Event) {
        match ev {
            Event::LinkDeliver { port } => {
                let p = &self.ports[port as usize];
                p.flight.prefetch_second();
                crate::cache::prefetch(
                    self.ports
                        .as_ptr()
                        .wrapping_add(p.peer as usize)
                        .cast::<u8>(),
                );
            }
            Event::TxDone { port } => {
                crate::cache::prefetch(
                    self.ports.as_ptr().wrapping_add(port as usize).cast::<u8>(),
                );
            }
            _ => {}
        }
    }

    /// Ask the cache for the lines of egress `port` (of the ports at
    /// `ports`) that a frame's enqueue or pass and its transmission read:
    /// the first line, the link's (frames on the wire) and the counters'.
    #[inline(always)]
    pub(crate) fn prefetch_egress(ports: *const Port, port: u32) {
        let p = ports.wrapping_add(port as usize).cast::<u8>();
        crate::cache::prefetch(p);
        crate::cache::prefetch(p.wrapping_add(std::mem::offset_of!(Port, line1)));
        crate::cache::prefetch(p.wrapping_add(std::mem::offset_of!(Port, line2)));
    }

    // Inlined into the run loop: as a call, saving and restoring the
    // registers of this large function cost ~16 instructions per event.
    #[inline(always)]
    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::FlowArrive => self.flow_arrive(),
            Event::LinkDeliver { port } => self.link_deliver(port),
            Event::TxDone { port } => {
                let p = &mut self.ports[port as usize];
                p.busy = false;
                p.unscheduled_end = Time::MAX;
                self.try_send(port);
            }
            Event::NicWake { nic } => {
                let n = &mut self.nics[nic as usize];
                if n.wake_at == self.now {
                    n.wake_at = Time::MAX;
                    let port = n.port;
                    self.try_send(port);
                }
            }
            Event::QpTimer { qp, slot, version } => self.qp_timer(qp, slot as usize, version),
            Event::FcTimer { port, version } => self.fc_timer(port, version),
            Event::LinkDown { k } => self.link_down(k as usize),
            Event::QlenDump => {
                if let Some(m) = self.qlen.as_mut() {
                    let ports = &self.ports;
                    m.dump(self.now, |p| ports[p as usize].queue_bytes);
                    if let Some(next) = m.next_dump() {
                        self.q.push(next, Event::QlenDump);
                    }
                }
            }
            Event::Monitor => self.monitor_tick(),
        }
    }

    /// Start sending from `port` if it is idle and has something to send;
    /// then do the same for every port this made eligible.
    pub(crate) fn try_send(&mut self, port: u32) {
        // As if `port` were pushed on `kick` and popped at once (LIFO), so
        // the order is that of the stack, without the push and pop.
        self.try_send_one(port);
        self.kick_pending();
    }

    /// `try_send` every port on the `kick` stack, last pushed first.
    #[inline]
    pub(crate) fn kick_pending(&mut self) {
        while let Some(p) = self.kick.pop() {
            self.try_send_one(p);
        }
    }

    /// Whether `port` may start a frame now: not transmitting (once the
    /// end of a transmission that was not scheduled has passed, the port
    /// is idle), up and not held. A port still transmitting whose end was
    /// not scheduled gets its `TxDone` now, in its reserved place: someone
    /// has something to send when it ends. (`p` is port `port`, which the
    /// callers have at hand: an associated function, so that they look it
    /// up once.)
    #[inline]
    pub(crate) fn may_start(p: &mut Port, q: &mut EventQueue<Event>, now: Time, port: u32) -> bool {
        if p.busy {
            let (at, seq) = (p.unscheduled_end, p.unscheduled_seq);
            if at == Time::MAX {
                return false;
            }
            p.unscheduled_end = Time::MAX;
            // Has the TxDone at (at, seq) that `transmit` skipped popped
            // already? Then it found nothing to send (nothing was queued
            // since, or we would have scheduled it then): the port is idle.
            let (last_t, last_seq) = q.last_popped();
            let passed = at < now || (at == now && (last_t < now || seq < last_seq));
            if !passed {
                // Someone wants to send while the frame is on the wire:
                // the TxDone is needed, in its original place.
                Self::push_reserved_done(q, port, at, seq);
                return false;
            }
            p.busy = false;
        }
        p.up && !p.held
    }

    /// `may_start`'s push of a skipped `TxDone`, out of line: the queue's
    /// insertion inlined there made every call to it (several per frame)
    /// save and restore registers it rarely needs.
    #[inline(never)]
    fn push_reserved_done(q: &mut EventQueue<Event>, port: u32, at: Time, seq: u64) {
        q.push_reserved(at, seq, Event::TxDone { port });
    }

    #[inline]
    fn try_send_one(&mut self, port: u32) {
        let p = &mut self.ports[port as usize];
        if !Self::may_start(p, &mut self.q, self.now, port) {
            return;
        }
        let pkt = if let Some(f) = p.ctrl.pop_front() {
            f
        } else if p.is_host {
            match self.nic_dequeue(port) {
                Some(pkt) => pkt,
                None => return,
            }
        } else {
            match self.switch_dequeue(port) {
                Some(pkt) => pkt,
                None => return,
            }
        };
        self.transmit(port, &pkt);
    }

    /// Put `pkt` on the wire of `port` (which is idle).
    pub(crate) fn transmit(&mut self, port: u32, pkt: &Packet) {
        self.transmit_inline(port, pkt);
    }

    /// [`Simulation::transmit`], inlined where a caller needs it to be.
    #[inline(always)]
    pub(crate) fn transmit_inline(&mut self, port: u32, pkt: &Packet) {
        let now = self.now;
        let p = &mut self.ports[port as usize];
        debug_assert!(!p.busy);
        p.busy = true;
        let tx = if p.ps_per_byte != 0 {
            Delta(u64::from(pkt.size) * u64::from(p.ps_per_byte))
        } else {
            p.rate.tx_time(u64::from(pkt.size))
        };
        p.c.tx_bytes += u64::from(pkt.size);
        let arrive = now + tx + p.delay;
        // Logged at the end, so that the port is not looked up again.
        let traced = p.traced;
        p.flight.push_back(InFlight { arrive, pkt: *pkt });
        let first_in_flight = p.flight.len() == 1;
        // At a switch port with nothing else queued, the end of this frame
        // usually finds the port still empty and only clears `busy`. Do not
        // schedule it: reserve its place among ties, and schedule it into
        // that place only if a frame comes (every enqueue calls
        // `try_send`, which does it). `try_send` after its time treats the
        // port as idle. Results are unchanged; about a third fewer events.
        // A host port's TxDone also looks for the NIC's next frame and arms
        // its pacing wake-up: skip it only when the NIC has nothing at all to
        // send (no ACK queued, every active QP sent all its bytes and has
        // nothing to resend), where its `nic_dequeue` would return nothing
        // and arm nothing. Whatever gives the NIC something to send (an
        // ACK, a new flow, a NACK or timeout that rewinds a QP) calls
        // `try_send` on the port, which schedules it.
        let end = now + tx;
        if !p.is_host {
            // `queue_bytes` is 0 exactly when the egress has no backlog.
            debug_assert_eq!(p.queue_bytes == 0, !p.egress.has_backlog(&p.egress_head));
            if p.ctrl.is_empty() && p.queue_bytes == 0 {
                p.unscheduled_end = end;
                p.unscheduled_seq = self.q.reserve();
            } else {
                self.q.push(end, Event::TxDone { port });
            }
        } else {
            if p.ctrl.is_empty() && self.nic_has_nothing(self.port_nic(port)) {
                let seq = self.q.reserve();
                let p = &mut self.ports[port as usize];
                p.unscheduled_end = end;
                p.unscheduled_seq = seq;
            } else {
                self.q.push(end, Event::TxDone { port });
            }
        }
        if first_in_flight {
            self.q.push(arrive, Event::LinkDeliver { port });
        }
        if traced {
            self.log_tx(port, pkt);
        }
    }

    /// Log `pkt`, which `port` of a traced node starts to send now.
    #[inline(never)]
    fn log_tx(&mut self, port: u32, pkt: &Packet) {
        let p = &self.ports[port as usize];
        self.tx_log.push(TxLogEntry {
            time: self.now,
            node: p.node,
            port: p.local,
            kind: pkt.kind,
            flow: pkt.flow,
            // A PFC frame carries its quanta in `seq`; the log keeps 0.
            seq: if pkt.kind == crate::wire::PacketKind::Pfc {
                0
            } else {
                pkt.seq
            },
        });
    }

    /// Whether NIC `nic` has nothing to send: no ACK queued
    /// and no active QP with bytes left to send or resend (then
    /// `nic_dequeue` returns nothing and arms no wake-up).
    fn nic_has_nothing(&self, nic: u32) -> bool {
        use crate::transport::Reliability;
        let nic = &self.nics[nic as usize];
        nic.acks.is_empty()
            && nic.active.iter().all(|&q| {
                let qp = &self.qps[q as usize];
                qp.snd.nxt >= qp.size && qp.rel.retransmission().is_none()
            })
    }

    fn link_deliver(&mut self, port: u32) {
        let p = &mut self.ports[port as usize];
        let InFlight {
            arrive: at,
            mut pkt,
        } = p
            .flight
            .pop_front()
            .expect("a pending delivery has a frame");
        debug_assert_eq!(at, self.now);
        if let Some(&InFlight { arrive: next, .. }) = p.flight.front() {
            self.q.push(next, Event::LinkDeliver { port });
        }
        self.packet_hops += 1;
        let to = p.peer;
        if self.lossy && self.lost(port, &pkt) {
            return;
        }
        if self.ports[to as usize].is_host {
            // A copy of its own: the NIC's path takes the frame's address
            // where the compiler cannot follow it, and if it took `pkt`'s,
            // every hop would copy the frame out of the link to the stack
            // (about 8 instructions a hop) instead of keeping it in
            // registers on the switch path.
            let at_nic = pkt;
            self.host_receive(to, &at_nic);
        } else {
            pkt.ingress = self.ports[to as usize].local;
            self.switch_receive(to, &mut pkt);
        }
    }

    /// Whether `pkt`, just off the wire of `port`, is lost (a planned loss
    /// or the link's error model); if so, count it at the receiving port.
    #[inline(never)]
    fn lost(&mut self, port: u32, pkt: &Packet) -> bool {
        let planned = !self.drop_once.is_empty() && pkt.kind == crate::wire::PacketKind::Data && {
            let hit = self
                .drop_once
                .iter()
                .position(|&d| d == (pkt.flow, pkt.seq));
            hit.map(|i| self.drop_once.swap_remove(i)).is_some()
        };
        let p = &mut self.ports[port as usize];
        if planned || (p.error_rate > 0.0 && p.rng.uniform() < p.error_rate) {
            let peer = p.peer as usize;
            self.ports[peer].c.corrupted += 1;
            self.int_release(pkt.int);
            return true;
        }
        false
    }

    /// Apply whatever a flow-control hook of `port` put in the outbox.
    #[inline]
    pub(crate) fn apply_fc_outbox(&mut self, port: u32) {
        // Most hooks emit nothing: skip the take-and-return of the outbox
        // (inline check, out-of-line work).
        if self.outbox.is_empty() {
            return;
        }
        self.apply_fc_outbox_slow(port);
    }

    #[inline(never)]
    fn apply_fc_outbox_slow(&mut self, port: u32) {
        let now = self.now;
        let mut out = std::mem::take(&mut self.outbox);
        // Frames relayed out of another port go first (a Swing relay sends
        // on what it receives before it acts on it).
        for (to, f) in out.forward.drain(..) {
            self.ports[to as usize].ctrl.push_back(f);
            self.kick.push(to);
        }
        let flush = std::mem::take(&mut out.flush);
        let p = &mut self.ports[port as usize];
        let mut kick = out.wake;
        for f in out.frames.drain(..) {
            p.ctrl.push_back(f);
            kick = true;
        }
        if let Some(t) = out.timer.take() {
            p.fc_version = p.fc_version.wrapping_add(1);
            let version = p.fc_version;
            self.q.push(t.max(now), Event::FcTimer { port, version });
        }
        out.wake = false;
        self.outbox = out;
        if kick {
            self.kick.push(port);
        }
        for key in flush {
            self.flush_queue(port, key);
        }
    }

    /// Empty the queue `key` of `port`'s egress: each frame is dropped,
    /// counted in `flushed`, and released from the switch buffer as if it
    /// had left (so its ingress may resume its upstream).
    #[inline(never)]
    fn flush_queue(&mut self, port: u32, key: crate::wire::QueueKey) {
        let mut gone = Vec::new();
        let now = self.now;
        let p = &mut self.ports[port as usize];
        p.egress.flush(&mut p.egress_head, key, &mut gone);
        if gone.is_empty() {
            return;
        }
        if let Some(m) = self.qlen.as_mut() {
            m.before_change(port, now, p.queue_bytes);
        }
        p.queue_bytes -= gone.iter().map(|f| u64::from(f.size)).sum::<u64>();
        p.c.flushed += gone.len() as u64;
        let (out_local, sw_id, is_host) = (p.local as usize, usize::from(p.owner), p.is_host);
        for f in gone {
            self.int_release(f.int);
            let class = usize::from(f.class);
            if is_host || class == 0 {
                continue;
            }
            let in_local = usize::from(f.ingress);
            let sw = &mut self.switches[sw_id];
            let (_, state) = sw
                .mmu
                .release_state(in_local, out_local, class, u64::from(f.size));
            let in_port = sw.first_port + in_local as u32;
            if self.ports[in_port as usize].fc.after_release_emits(
                now,
                crate::wire::QueueKey::of(&f),
                f.size,
                state,
                &mut self.outbox,
            ) {
                self.apply_fc_outbox(in_port);
            }
        }
    }

    fn fc_timer(&mut self, port: u32, version: u32) {
        if self.ports[port as usize].fc_version != version {
            return;
        }
        let now = self.now;
        let node = self.ports[port as usize].node as usize;
        let sw = self.node_switch[node];
        let local = self.ports[port as usize].local as usize;
        let mut out = std::mem::take(&mut self.outbox);
        {
            let mmu = (sw != u32::MAX).then(|| &self.switches[sw as usize].mmu);
            let state = |class: usize| match mmu {
                Some(m) => m.ingress_state(local, class),
                None => crate::mmu::IngressState {
                    over_xoff: false,
                    below_xon: true,
                },
            };
            let p = &mut self.ports[port as usize];
            p.fc.on_timer(now, &state, &mut out);
            p.egress.on_timer(&p.egress_head, now);
        }
        self.outbox = out;
        self.apply_fc_outbox(port);
        self.try_send(port);
    }

    /// Handle a PFC (or other control) frame arriving at `port`: it governs
    /// what `port` itself may send.
    pub(crate) fn receive_ctrl(&mut self, port: u32, pkt: &Packet) {
        let now = self.now;
        if self.record_pfc && pkt.kind == crate::wire::PacketKind::Pfc {
            let p = &self.ports[port as usize];
            self.pfc_log.push(PfcLogEntry {
                time: now,
                node: p.node,
                is_switch: !p.is_host,
                // The peer's device index: port 0 is its loopback.
                if_index: u32::from(p.local) + 1,
                pause: pkt.pfc_quanta() > 0,
            });
        }
        let rate = self.ports[port as usize].rate;
        let mut out = std::mem::take(&mut self.outbox);
        let p = &mut self.ports[port as usize];
        p.fc.on_ctrl(now, pkt, rate, &mut out);
        p.egress.on_ctrl(&p.egress_head, now, pkt);
        self.outbox = out;
        self.apply_fc_outbox(port);
        self.try_send(port);
    }

    /// A fresh, empty INT stack.
    pub(crate) fn int_alloc(&mut self) -> u32 {
        self.int_pool.alloc()
    }

    /// Return a packet's INT stack, if it has one.
    pub(crate) fn int_release(&mut self, h: u32) {
        self.int_pool.release(h);
    }

    /// The current simulated time.
    pub fn now(&self) -> Time {
        self.now
    }

    /// Run every event up to and including time `t`, then stop with the
    /// clock at `t` (for tests and tools that sample state as they go).
    pub fn run_until(&mut self, t: Time) {
        while let Some(next) = self.q.peek_time() {
            if next > t {
                break;
            }
            let (at, ev) = self.q.pop().expect("peeked");
            self.now = at;
            self.events += 1;
            self.dispatch(ev);
        }
        self.now = self.now.max(t);
    }
}
