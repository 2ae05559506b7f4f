//! What a packet·hop costs when a hop does almost nothing: the floor under
//! rdmasim's per-hop cost on the peer's 320-host fat tree (issue 7,
//! docs/performance.md, "Fifteenth look").
//!
//! By default, the topology and flows of `rdmasim bench`'s `fat-hpcc` (the
//! peer's tree, rdmasim's WebSearch flows), on a lean model: output-queued switches with one unbounded FIFO per port, ECMP
//! by flow, NICs that send each flow's packets while its bytes in flight
//! stay under a fixed window (one bandwidth-delay product), an ACK per
//! data packet, and nothing else: no MMU, PFC, ECN, INT, congestion
//! control, counters or monitors. The event queue is rdmasim's, each
//! frame travels inside its arrival event (no link FIFO), and a port
//! schedules its end of transmission only when frames wait behind it.
//!
//! Its results are not rdmasim's and are not meant to be: it measures the
//! cost of the work every packet-level simulator of this network does per
//! hop, on this machine and this tree.
//!
//! ```sh
//! cargo run --release -p rdmasim-experiment --example hop_floor
//! cargo run --release -p rdmasim-experiment --example hop_floor -- --peer fat.txt ws30_5ms.txt
//! cargo run --release -p rdmasim-experiment --example hop_floor -- 4
//! ```
//! `--peer` reads the peer's topology and flow files (the reference run's
//! `fat.txt` and `ws30_5ms.txt`); an even `k` builds a k-ary fat tree of
//! 100 Gb/s links with WebSearch at 30% for 5 ms of arrivals.
//! `--link-fifo` keeps frames on the wire in a FIFO per link, as rdmasim
//! does, instead of one event per frame. `--computed-departures` makes a
//! switch hop one event: a port with one FIFO, no priorities and no pauses
//! knows a frame's departure when the frame arrives, so the frame's
//! arrival at the next hop is scheduled at once and no port keeps a queue
//! ("Sixteenth look").

use engine::EventQueue;
use engine::{Delta, Rate, Time};
use rdmasim_experiment::bench::{self, BenchOptions};
use std::collections::VecDeque;
use std::time::Instant;
use topo::Routes;
use topo::Topology;
use workload::FlowSpec;

/// Payload per data frame and the frame sizes, as the peer's reference run.
const PAYLOAD: u32 = 1000;
const HEADER: u32 = 48;
const ACK_FRAME: u32 = 60;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Frame {
    flow: u32,
    /// Index of the destination host (`Routes::host_index`).
    dst_host: u16,
    /// Index of the destination host's switch among the switches that
    /// hosts attach to.
    dst_group: u16,
    size: u32,
    /// Payload bytes; 0 on an ACK.
    payload: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    /// `frame` arrives at port `port` (the receiving end of a link).
    Arrive { port: u32, frame: Frame },
    /// Port `port` finishes sending: a switch port with frames waiting, or
    /// a host port, whose NIC then picks its next frame.
    TxDone { port: u32 },
    /// Flow `flow` starts.
    Start { flow: u32 },
    /// With link FIFOs: the first frame on the wire of port `port` arrives
    /// at the other end.
    Deliver { port: u32 },
}

/// One end of a link: one cache line.
#[derive(Debug)]
#[repr(align(64))]
struct Port {
    /// The port at the other end.
    peer: u32,
    /// At a switch, the switch's index among the switches.
    switch: u32,
    /// At a host, the host's index.
    host: Option<u32>,
    ps_per_byte: u64,
    delay: Delta,
    /// End of the current transmission.
    busy_until: Time,
    /// A `TxDone` is scheduled.
    tx_done_pending: bool,
    /// Switch ports: frames waiting to be sent.
    queue: VecDeque<Frame>,
}

#[derive(Debug)]
struct Flow {
    src_host: u16,
    src_group: u16,
    dst_host: u16,
    dst_group: u16,
    size: u64,
    sent: u64,
    acked: u64,
}

/// A host's NIC: ACKs first, then its flows in round robin.
#[derive(Debug, Default)]
struct Nic {
    port: u32,
    acks: VecDeque<Frame>,
    active: VecDeque<u32>,
}

struct Model {
    q: EventQueue<Event>,
    now: Time,
    ports: Vec<Port>,
    /// Per switch and destination group (the hosts of one switch): egress
    /// ports to choose from, as (first index in `route_ports`, count).
    route_rows: Vec<(u32, u32)>,
    route_ports: Vec<u32>,
    n_groups: usize,
    /// Per group: its switch's index; per host: the port of its switch
    /// that faces it.
    group_switch: Vec<u32>,
    host_facing: Vec<u32>,
    nics: Vec<Nic>,
    flows: Vec<Flow>,
    window: u64,
    /// Frames on the wire of each port, with their arrival times, when
    /// links keep them (one event per link instead of one per frame in
    /// flight, as rdmasim does).
    link_fifo: bool,
    /// Switch ports compute each frame's departure on arrival (one FIFO,
    /// no priorities, no pauses: the departure is known then), so a
    /// switch hop is one event and a port keeps no queue.
    computed: bool,
    flight: Vec<VecDeque<(Time, Frame)>>,
    finished: usize,
    packet_hops: u64,
    events: u64,
}

impl Model {
    /// The model of `topo` and `flows`; an error for a network it does not
    /// model (a link rate with no whole number of picoseconds per byte, a
    /// host without exactly one link to a switch).
    fn new(
        topo: &Topology,
        flows: &[FlowSpec],
        window: u64,
        link_fifo: bool,
        computed: bool,
    ) -> Result<Model, String> {
        let adj = topo.adjacency();
        let routes = Routes::compute(topo);
        let hosts = routes.hosts().to_vec();
        let n_nodes = topo.n_nodes();
        let mut base = vec![0u32; n_nodes + 1];
        for n in 0..n_nodes {
            base[n + 1] = base[n] + adj.degree(n as u32) as u32;
        }
        let switches = topo.switches();
        let mut switch_index = vec![u32::MAX; n_nodes];
        for (i, &n) in switches.iter().enumerate() {
            switch_index[n as usize] = i as u32;
        }
        let n_ports = base[n_nodes];
        let mut ports = Vec::with_capacity(n_ports as usize);
        for n in 0..n_nodes as u32 {
            for local in 0..adj.degree(n) as u32 {
                let link = adj.link_at(n, local);
                let spec = &topo.links[link as usize];
                let (peer_node, peer_local) = adj.peer_of(n, local);
                let ps_per_byte = spec.rate.ps_per_byte().ok_or_else(|| {
                    format!(
                        "link {}-{}: its rate ({} b/s) is not a whole number of picoseconds per byte",
                        spec.a,
                        spec.b,
                        spec.rate.bps()
                    )
                })?;
                ports.push(Port {
                    peer: base[peer_node as usize] + peer_local,
                    switch: switch_index[n as usize],
                    host: routes.host_index(n),
                    ps_per_byte: u64::from(ps_per_byte),
                    delay: spec.delay,
                    busy_until: Time::ZERO,
                    tx_done_pending: false,
                    queue: VecDeque::new(),
                });
            }
        }
        // Hosts grouped by the switch they attach to: a switch that is not
        // that one reaches every host of the group by the same next hops.
        let (mut group_switch, mut group_host) = (vec![], vec![]);
        let (mut host_group, mut host_facing) = (vec![], vec![]);
        for &h in &hosts {
            if adj.degree(h) != 1 {
                return Err(format!("host {h} has {} links, not one", adj.degree(h)));
            }
            let (tor, tor_local) = adj.peer_of(h, 0);
            let sw = switch_index[tor as usize];
            if sw == u32::MAX {
                return Err(format!("host {h} is linked to node {tor}, not to a switch"));
            }
            let g = match group_switch.iter().position(|&s| s == sw) {
                Some(g) => g,
                None => {
                    group_switch.push(sw);
                    group_host.push(h);
                    group_switch.len() - 1
                }
            };
            host_group.push(g as u16);
            host_facing.push(base[tor as usize] + tor_local);
        }
        let (mut route_rows, mut route_ports) = (vec![], vec![]);
        for &n in &switches {
            for &h in &group_host {
                let next = routes.next_hops(n, h);
                route_rows.push((route_ports.len() as u32, next.len() as u32));
                for &link in next {
                    let local = adj.port_of(link, n).expect("a link of this node");
                    route_ports.push(base[n as usize] + local);
                }
            }
        }
        let nics = hosts
            .iter()
            .map(|&h| Nic {
                port: base[h as usize],
                ..Nic::default()
            })
            .collect();
        assert!(
            hosts.len() <= usize::from(u16::MAX),
            "host indices fit 16 bits"
        );
        let index = |n: u32| routes.host_index(n).expect("a host") as u16;
        let mut q = EventQueue::new();
        let flows = flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                q.push(f.start, Event::Start { flow: i as u32 });
                Flow {
                    src_host: index(f.src),
                    src_group: host_group[usize::from(index(f.src))],
                    dst_host: index(f.dst),
                    dst_group: host_group[usize::from(index(f.dst))],
                    size: f.size,
                    sent: 0,
                    acked: 0,
                }
            })
            .collect();
        Ok(Model {
            q,
            now: Time::ZERO,
            ports,
            route_rows,
            route_ports,
            n_groups: group_switch.len(),
            group_switch,
            host_facing,
            nics,
            flows,
            window,
            link_fifo,
            computed,
            flight: (0..n_ports as usize).map(|_| VecDeque::new()).collect(),
            finished: 0,
            packet_hops: 0,
            events: 0,
        })
    }

    fn run(&mut self) {
        while let Some((at, ev)) = self.q.pop() {
            self.now = at;
            self.events += 1;
            match ev {
                Event::Arrive { port, frame } => self.arrive(port, frame),
                Event::Deliver { port } => {
                    let flight = &mut self.flight[port as usize];
                    let (_, frame) = flight.pop_front().expect("a frame on the wire");
                    if let Some(&(next, _)) = flight.front() {
                        self.q.push(next, Event::Deliver { port });
                    }
                    let peer = self.ports[port as usize].peer;
                    self.arrive(peer, frame);
                }
                Event::TxDone { port } => self.tx_done(port),
                Event::Start { flow } => {
                    let nic = self.flows[flow as usize].src_host as usize;
                    self.nics[nic].active.push_back(flow);
                    self.host_send(nic);
                }
            }
        }
    }

    /// Put `frame` on the wire of `port` at `start`, when the port is free.
    fn transmit(&mut self, port: u32, frame: Frame, start: Time) {
        let p = &mut self.ports[port as usize];
        let end = start + Delta(u64::from(frame.size) * p.ps_per_byte);
        p.busy_until = end;
        let (peer, at) = (p.peer, end + p.delay);
        if self.link_fifo {
            let flight = &mut self.flight[port as usize];
            flight.push_back((at, frame));
            if flight.len() == 1 {
                self.q.push(at, Event::Deliver { port });
            }
        } else {
            self.q.push(at, Event::Arrive { port: peer, frame });
        }
    }

    fn arrive(&mut self, port: u32, frame: Frame) {
        self.packet_hops += 1;
        let p = &self.ports[port as usize];
        if let Some(host) = p.host {
            return self.host_receive(host as usize, frame);
        }
        let group = usize::from(frame.dst_group);
        let out = if self.group_switch[group] == p.switch {
            self.host_facing[usize::from(frame.dst_host)]
        } else {
            let (first, n) = self.route_rows[p.switch as usize * self.n_groups + group];
            let pick = if n == 1 {
                0
            } else {
                frame.flow.wrapping_mul(0x9e37_79b1).rotate_left(7) % n
            };
            self.route_ports[(first + pick) as usize]
        };
        let op = &mut self.ports[out as usize];
        if self.computed {
            let start = op.busy_until.max(self.now);
            return self.transmit(out, frame, start);
        }
        if op.queue.is_empty() && op.busy_until <= self.now {
            self.transmit(out, frame, self.now);
            return;
        }
        op.queue.push_back(frame);
        let at = op.busy_until.max(self.now);
        self.arm_tx_done(out, at);
    }

    /// Schedule port `port`'s `TxDone` at `at`, unless one is pending.
    fn arm_tx_done(&mut self, port: u32, at: Time) {
        let p = &mut self.ports[port as usize];
        if !p.tx_done_pending {
            p.tx_done_pending = true;
            self.q.push(at, Event::TxDone { port });
        }
    }

    fn tx_done(&mut self, port: u32) {
        let p = &mut self.ports[port as usize];
        p.tx_done_pending = false;
        if let Some(host) = p.host {
            return self.host_send(host as usize);
        }
        let Some(frame) = p.queue.pop_front() else {
            return;
        };
        self.transmit(port, frame, self.now);
        let p = &self.ports[port as usize];
        if !p.queue.is_empty() {
            self.arm_tx_done(port, p.busy_until);
        }
    }

    fn host_receive(&mut self, host: usize, frame: Frame) {
        if frame.payload > 0 {
            let f = &self.flows[frame.flow as usize];
            let (dst_host, dst_group) = (f.src_host, f.src_group);
            self.nics[host].acks.push_back(Frame {
                flow: frame.flow,
                dst_host,
                dst_group,
                size: ACK_FRAME,
                payload: 0,
            });
            return self.host_send(host);
        }
        let f = &mut self.flows[frame.flow as usize];
        f.acked = (f.acked + u64::from(PAYLOAD)).min(f.size);
        if f.acked == f.size {
            self.finished += 1;
        }
        self.host_send(host);
    }

    /// Send the NIC's next frame if its port is free: an ACK, else the next
    /// flow with payload left and room in its window.
    fn host_send(&mut self, host: usize) {
        let port = self.nics[host].port;
        let p = &self.ports[port as usize];
        if p.busy_until > self.now {
            return self.arm_tx_done(port, p.busy_until);
        }
        let nic = &mut self.nics[host];
        let frame = if let Some(ack) = nic.acks.pop_front() {
            ack
        } else {
            let mut found = None;
            for _ in 0..nic.active.len() {
                let flow = nic.active.pop_front().expect("counted");
                let f = &mut self.flows[flow as usize];
                if f.sent >= f.size {
                    continue; // all sent: leaves the round robin
                }
                nic.active.push_back(flow);
                if f.sent - f.acked < self.window {
                    let payload = (f.size - f.sent).min(u64::from(PAYLOAD)) as u32;
                    f.sent += u64::from(payload);
                    found = Some(Frame {
                        flow,
                        dst_host: f.dst_host,
                        dst_group: f.dst_group,
                        size: payload + HEADER,
                        payload,
                    });
                    break;
                }
            }
            match found {
                Some(frame) => frame,
                None => return,
            }
        };
        self.transmit(port, frame, self.now);
        // A pending `TxDone` (due now, not yet run) finds the port busy and
        // schedules the next one itself.
        self.arm_tx_done(port, self.ports[port as usize].busy_until);
    }
}

fn main() {
    let usage =
        "usage: hop_floor [k | --peer TOPOLOGY FLOWS] [--link-fifo] [--computed-departures]";
    let fail = |msg: String| -> ! {
        eprintln!("hop_floor: {msg}\n{usage}");
        std::process::exit(2)
    };
    let (mut k, mut peer, mut link_fifo, mut computed) = (None, None, false, false);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--link-fifo" => link_fifo = true,
            "--computed-departures" => computed = true,
            "--peer" => match (args.next(), args.next()) {
                (Some(t), Some(f)) => peer = Some((t, f)),
                _ => fail("--peer takes a topology file and a flow file".into()),
            },
            _ => match a.parse::<u32>() {
                Ok(v) if v >= 2 && v % 2 == 0 => k = Some(v),
                _ => fail(format!("{a:?} is not an even k ≥ 2")),
            },
        }
    }
    let (topo, flows, name) = match (k, peer) {
        (Some(k), _) => {
            let rate = Rate::gbps(100);
            let topo = topo::fat_tree(k, rate, rate, Delta::from_us(1)).expect("k is even");
            let flows = bench::websearch(topo.hosts(), rate, 0.3, Delta::from_ms(5));
            (topo, flows, format!("a {k}-ary fat tree"))
        }
        (None, Some((t, f))) => {
            let topo = topo::load_peer_topology(t.as_ref()).unwrap_or_else(|e| fail(e.to_string()));
            let (flows, lines) =
                workload::load_peer_flows_with_lines(&f).unwrap_or_else(|e| fail(e.to_string()));
            let n_nodes = topo.n_nodes() as u32;
            workload::validate_endpoints(&flows, &lines, &f, n_nodes, &|n| topo.is_host(n))
                .unwrap_or_else(|e| fail(e.to_string()));
            (topo, flows, format!("{t} with {f}"))
        }
        (None, None) => {
            let fat = bench::build("fat-hpcc", &BenchOptions::default()).expect("a scenario");
            (fat.topo, fat.flows, "bench's fat-hpcc".to_string())
        }
    };
    // One bandwidth-delay product of the longest path: six 1 µs links.
    let window = Rate::gbps(100).bytes_in(Delta::from_us(12)) + u64::from(PAYLOAD + HEADER);
    let built = Instant::now();
    let mut m = Model::new(&topo, &flows, window, link_fifo, computed).unwrap_or_else(|e| fail(e));
    println!(
        "{name}{}: {} hosts, {} ports, {} flows; built in {:.2} s",
        match (link_fifo, computed) {
            (true, true) => ", link FIFOs, computed departures",
            (true, false) => ", link FIFOs",
            (false, true) => ", computed departures",
            (false, false) => "",
        },
        m.nics.len(),
        m.ports.len(),
        m.flows.len(),
        built.elapsed().as_secs_f64()
    );
    let start = Instant::now();
    m.run();
    let secs = start.elapsed().as_secs_f64();
    println!(
        "finished {} of {} flows at {:.3} ms; {} events, {} packet·hops",
        m.finished,
        m.flows.len(),
        m.now.secs_f64() * 1e3,
        m.events,
        m.packet_hops
    );
    println!(
        "loop {secs:.2} s wall: {:.1} ns per packet·hop, {:.1} ns per event",
        secs * 1e9 / m.packet_hops as f64,
        secs * 1e9 / m.events as f64
    );
}
