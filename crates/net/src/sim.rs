//! The engine: devices in arenas indexed by dense ids, one event enum, one
//! `match` per step that hands the event to the device it concerns.
//!
//! Packets never sit in the event queue. A port's egress queues hold frames
//! waiting to be sent; its link holds frames on the wire in a FIFO. Only the
//! FIFO's head has a pending `LinkDeliver` event, and a port has at most one
//! pending `TxDone` (htsim's pipe and queue). Timers carry a version and are
//! ignored if they were re-armed since (minim).
//!
//! A switch's handlers ([`Switch`], switch.rs) and a NIC's ([`Host`],
//! nic.rs) are given their own state and a [`Ctx`] (clock, event queue,
//! outbox). What spans devices is here: a link's delivery hands the frame
//! from the sending port to the receiving device, flows start, links fail,
//! observers sample.

use crate::config::NetConfig;
use crate::context::Ctx;
use crate::event::Event;
use crate::nic::Host;
use crate::port::Port;
use crate::qp::{Nic, Qp};
use crate::results::ProgressInfo;
use crate::switch::Switch;
use crate::transport::Receiver;
use engine::Time;
use topo::Topology;
use workload::FlowSpec;

/// A network ready to run: build it with [`Simulation::new`], then
/// [`Simulation::run`].
#[derive(Debug)]
pub struct Simulation {
    pub(crate) cfg: NetConfig,
    /// The clock, the event queue and the handlers' outbox and logs.
    pub(crate) cx: Ctx,
    pub(crate) ports: Vec<Port>,
    pub(crate) node_switch: Vec<u32>,
    pub(crate) node_nic: Vec<u32>,
    /// Per node id: how switches route towards it (hosts; route.rs).
    pub(crate) dst_route: Vec<crate::route::DstRoute>,
    pub(crate) switches: Vec<Switch>,
    pub(crate) nics: Vec<Nic>,
    pub(crate) qps: Vec<Qp>,
    pub(crate) rx: Vec<Receiver>,
    pub(crate) flows: Vec<FlowSpec>,
    pub(crate) next_flow: usize,
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

/// A device as its handlers see it ([`Simulation::device`]).
enum Device<'a> {
    Host(Host<'a>),
    /// A switch, its ports, the local number of the port at hand, and the
    /// routes (what its `receive` reads).
    Switch {
        sw: &'a mut Switch,
        ports: &'a mut [Port],
        local: usize,
        routes: &'a [crate::route::DstRoute],
    },
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
        while !(self.cx.completed.len() == n_flows && self.next_flow == n_flows) {
            let Some((t, ev)) = self.cx.q.pop_not_after(stop) else {
                break;
            };
            debug_assert!(t >= self.cx.now);
            self.cx.now = t;
            self.cx.events += 1;
            if let Some(&next) = self.cx.q.peek_near() {
                self.prefetch_for(next);
            }
            self.dispatch(ev);
            if self.cx.events >= next_report {
                next_report += every;
                progress(&ProgressInfo {
                    now: self.cx.now,
                    events: self.cx.events,
                    flows_started: self.next_flow,
                    flows_finished: self.cx.completed.len(),
                    flows_total: n_flows,
                });
            }
        }
        // The peer keeps running to its stop time: owe it the idle dumps.
        let until = if stop == Time::MAX { self.cx.now } else { stop };
        self.qlen_finish(until);
        #[cfg(debug_assertions)]
        self.check_finished_flows_not_paused();
    }

    /// Debug builds, at the end of a run: a flow that finished having sent
    /// each byte once has all its frames delivered, so no per-flow ingress
    /// still holds its bytes or has it paused (every PAUSE met its RESUME).
    /// (A flow that resent may leave duplicates in a queue.)
    #[cfg(debug_assertions)]
    fn check_finished_flows_not_paused(&self) {
        use crate::fc::FlowControl;
        for p in &self.ports {
            for (flow, bytes, paused) in p.fc.held_flows() {
                let qp = &self.qps[flow as usize];
                assert!(
                    qp.end.is_none() || qp.retransmitted > 0,
                    "flow {flow} finished, but node {} port {} holds {bytes} B of it \
                     (paused: {paused})",
                    p.node,
                    p.local
                );
            }
        }
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
    pub(crate) fn prefetch_for(&self, ev: Event) {
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

    // Inlined into the run loop: as a call, saving and restoring the
    // registers of this large function cost ~16 instructions per event.
    #[inline(always)]
    pub(crate) fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::FlowArrive { flow } => self.flow_arrive(flow),
            Event::LinkDeliver { port } => self.link_deliver(port),
            Event::TxDone { port } => {
                let p = &mut self.ports[port as usize];
                p.busy = false;
                p.unscheduled_end = Time::MAX;
                self.try_send(port);
            }
            Event::NicWake { nic } => {
                let (mut host, cx) = self.host(nic);
                host.wake(cx);
            }
            Event::QpTimer { qp, slot, version } => {
                let nic = self.qps[qp as usize].nic;
                let (mut host, cx) = self.host(nic);
                host.qp_timer(qp, slot as usize, version, cx);
            }
            Event::RxTimer { flow, version } => {
                let nic = self.node_nic[self.qps[flow as usize].dst as usize];
                let (mut host, cx) = self.host(nic);
                host.rx_timer(flow, version, cx);
            }
            Event::FcTimer { port, version } => match self.device(port) {
                (Device::Host(mut host), cx) => host.fc_timer(version, cx),
                (
                    Device::Switch {
                        sw, ports, local, ..
                    },
                    cx,
                ) => sw.fc_timer(ports, local, version, cx),
            },
            Event::LinkDown { k } => self.link_down(k as usize),
            Event::QlenDump => {
                let cx = &mut self.cx;
                if let Some(m) = cx.qlen.as_mut() {
                    let ports = &self.ports;
                    m.dump(cx.now, |p| ports[p as usize].queue_bytes);
                    if let Some(next) = m.next_dump() {
                        cx.q.push(next, Event::QlenDump);
                    }
                }
            }
            Event::Monitor => self.monitor_tick(),
        }
        debug_assert!(self.cx.kick.is_empty(), "a device left ports to kick");
    }

    /// NIC `nic` with its port, the flows' QPs and receivers, and the
    /// context: what its handlers are given.
    #[inline(always)]
    fn host(&mut self, nic: u32) -> (Host<'_>, &mut Ctx) {
        let port = self.nics[nic as usize].port;
        self.host_at(nic, port)
    }

    /// [`Simulation::host`] of NIC `nic`, whose port `port` the caller has
    /// at hand (it is not looked up again through the NIC).
    #[inline(always)]
    pub(crate) fn host_at(&mut self, nic: u32, port: u32) -> (Host<'_>, &mut Ctx) {
        let host = Host {
            nic: &mut self.nics[nic as usize],
            port: &mut self.ports[port as usize],
            qps: &mut self.qps,
            rx: &mut self.rx,
            cfg: &self.cfg,
        };
        (host, &mut self.cx)
    }

    /// The device that owns `port`, with what its handlers are given, and
    /// the context.
    #[inline(always)]
    fn device(&mut self, port: u32) -> (Device<'_>, &mut Ctx) {
        let p = &self.ports[port as usize];
        if p.is_host {
            let (host, cx) = self.host_at(self.port_nic(port), port);
            return (Device::Host(host), cx);
        }
        let local = usize::from(p.local);
        let sw = &mut self.switches[usize::from(p.owner)];
        let first = sw.first_port as usize;
        let ports = &mut self.ports[first..first + usize::from(sw.n_ports)];
        let device = Device::Switch {
            sw,
            ports,
            local,
            routes: &self.dst_route,
        };
        (device, &mut self.cx)
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

    /// Have the device of `port` start sending from it if it can.
    /// (Inlined: an end of transmission, one event in three, routes here.)
    #[inline(always)]
    pub(crate) fn try_send(&mut self, port: u32) {
        match self.device(port) {
            (Device::Host(mut host), cx) => host.try_send(cx),
            (
                Device::Switch {
                    sw, ports, local, ..
                },
                cx,
            ) => sw.try_send(ports, local, cx),
        }
    }

    /// Have the device of `port` apply what its flow control put in the
    /// outbox (at the start of the run).
    pub(crate) fn apply_fc_outbox(&mut self, port: u32) {
        match self.device(port) {
            (Device::Host(mut host), cx) => host.apply_fc_outbox(cx),
            (
                Device::Switch {
                    sw, ports, local, ..
                },
                cx,
            ) => sw.apply_fc_outbox(ports, local, cx),
        }
    }

    /// Open the QP of the next flow at its source NIC and schedule the
    /// flow after it.
    fn flow_arrive(&mut self, flow: u32) {
        let nic = self.open_flow(flow);
        let (mut host, cx) = self.host(nic);
        host.start(flow, cx);
    }

    /// What a flow's arrival does but start it: open its QP and receiver
    /// and schedule the next flow. Returns its source NIC. (A partition of
    /// the parallel engine opens every flow, and starts those of its own
    /// hosts: `parallel.rs`.)
    pub(crate) fn open_flow(&mut self, flow: u32) -> u32 {
        let id = self.next_flow;
        debug_assert_eq!(flow as usize, id);
        self.next_flow += 1;
        if let Some(next) = self.flows.get(self.next_flow) {
            let flow = self.next_flow as u32;
            self.cx.q.push(next.start, Event::FlowArrive { flow });
        }
        debug_assert_eq!(self.qps.len(), id);
        let sport = self.sport_for(id);
        let f = &self.flows[id];
        let nic = self.node_nic[f.src as usize];
        let qp = Qp::open(
            id,
            f,
            nic,
            self.nics[nic as usize].line_rate,
            sport,
            self.pair_rtt_bw[id],
            self.max_rtt_bdp,
            &self.cfg,
            self.cx.now,
        );
        self.qps.push(qp);
        let pg = self.flows[id].pg;
        self.rx
            .push(Receiver::new(&self.cfg.nic.transport.for_class(pg)));
        nic
    }

    fn sport_for(&mut self, id: usize) -> u16 {
        let key = (self.flows[id].src, self.flows[id].dst);
        let n = self.sport_next.entry(key).or_insert(10_000);
        let s = *n;
        *n = n.wrapping_add(1);
        s
    }

    /// The head of `port`'s wire reaches the far end: hand it to the
    /// receiving device, unless the link loses it.
    fn link_deliver(&mut self, port: u32) {
        let p = &mut self.ports[port as usize];
        let mut pkt = p.deliver(port, &mut self.cx);
        let to = p.peer;
        if self.lossy && self.lost(port, &pkt) {
            return;
        }
        match self.device(to) {
            (Device::Host(mut host), cx) => {
                // A copy of its own: the NIC's path takes the frame's
                // address where the compiler cannot follow it, and if it
                // took `pkt`'s, every hop would copy the frame out of the
                // link to the stack (about 8 instructions a hop) instead
                // of keeping it in registers on the switch path.
                let at_nic = pkt;
                host.receive(&at_nic, cx);
            }
            (
                Device::Switch {
                    sw,
                    ports,
                    local,
                    routes,
                },
                cx,
            ) => {
                pkt.ingress = local as u16;
                sw.receive(ports, routes, &mut pkt, cx);
            }
        }
    }

    /// Whether `pkt`, just off the wire of `port`, is lost (a planned loss
    /// or the link's error model); if so, count it at the receiving port.
    /// A planned loss is looked for on the links out of hosts only: a data
    /// frame's first delivery is always on the link out of its source, so
    /// this loses the same frame as looking on every link, and the loss
    /// is decided by the node at the far end of that link alone (which a
    /// partition of the parallel engine owns: `parallel.rs`).
    #[inline(never)]
    fn lost(&mut self, port: u32, pkt: &crate::wire::Packet) -> bool {
        let planned = !self.drop_once.is_empty()
            && pkt.kind == crate::wire::PacketKind::Data
            && self.ports[port as usize].is_host
            && {
                let hit = self
                    .drop_once
                    .iter()
                    .position(|&d| d == (pkt.flow, pkt.seq));
                hit.map(|i| self.drop_once.swap_remove(i)).is_some()
            };
        let p = &mut self.ports[port as usize];
        if planned || p.corrupts() {
            let peer = p.peer as usize;
            self.ports[peer].c.corrupted += 1;
            self.cx.int_pool.release(pkt.int);
            return true;
        }
        false
    }

    /// The current simulated time.
    pub fn now(&self) -> Time {
        self.cx.now
    }

    /// Run every event up to and including time `t`, then stop with the
    /// clock at `t` (for tests and tools that sample state as they go).
    pub fn run_until(&mut self, t: Time) {
        while let Some(next) = self.cx.q.peek_time() {
            if next > t {
                break;
            }
            let (at, ev) = self.cx.q.pop().expect("peeked");
            self.cx.now = at;
            self.cx.events += 1;
            self.dispatch(ev);
        }
        self.cx.now = self.cx.now.max(t);
    }
}
