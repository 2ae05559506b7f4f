//! The simulation: entities in arenas indexed by dense ids, one event enum,
//! one `match` per step.
//!
//! Packets never sit in the event queue. A port's egress queues hold frames
//! waiting to be sent; its link holds frames on the wire in a FIFO. Only the
//! FIFO's head has a pending `LinkDeliver` event, and a port has at most one
//! pending `TxDone` (htsim's pipe and queue). Timers carry a version and are
//! ignored if they were re-armed since (minim).

use crate::cc::N_CC_TIMERS;
use crate::config::NetConfig;
use crate::egress::{AnyEgress, Egress};
use crate::fc::{AnyFc, Bifrost, BifrostSlot, Cbfc, FcOutbox, FlowControl, Lossy, Pfc, SwingRelay};
use crate::fifo::Fifo;
use crate::mmu::Mmu;
use crate::results::{PfcLogEntry, ProgressInfo};
use crate::wire::{InFlight, Packet, N_CLASSES};
use engine::{Delta, EventQueue, Rate, Rng, Time};
use topo::{NodeKind, Topology};
use workload::FlowSpec;

/// The payload of the largest Ethernet jumbo frame in common use (9,000 B
/// MTU; RoCEv2 itself stops at 4,096 B). A larger `mtu` is allowed, with
/// a note.
pub(crate) const JUMBO_PAYLOAD_BYTES: u32 = 9000;

/// RNG stream kinds, so each entity's stream is distinct (DESIGN §3).
pub(crate) const RNG_PORT: u32 = 10;

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
// `fc`'s tag and `Pfc`'s first bytes (which it keeps at its start, at
// offset 8 of `AnyFc`) are in the port's first line.
const _: () = assert!(std::mem::offset_of!(Port, fc) + 8 + 3 <= 64);
const _: () = assert!(std::mem::offset_of!(Port, line2) == std::mem::offset_of!(Port, line1) + 64);
const _: () =
    assert!(std::mem::offset_of!(Switch, mmu) + std::mem::offset_of!(Mmu, peak_bytes) + 8 <= 128);

/// A zero-sized field of [`Port`] that starts a new cache line.
#[derive(Clone, Copy, Debug, Default)]
#[repr(align(64))]
pub(crate) struct CacheLine;

/// One end of a full-duplex link: an egress with its queues ([`AnyEgress`])
/// and the link direction that leaves it.
///
/// The fields are laid out by hand (`repr(C)`; each `lineN` marker starts
/// a new cache line) so that a frame's hop touches few cache lines of its
/// ports: line 0 holds what every enqueue, dequeue and transmission reads,
/// and what a frame's arrival at an ingress updates, and ends with the
/// start of flow control, whose hooks every frame calls at its ingress and
/// its egress (`AnyFc`'s tag and `Pfc`'s first bytes, which are all that
/// the hooks read; the rest of `fc` fills the lines after it); line 1 what
/// the link's delivery and a transmission read (the frames on the wire,
/// the error model, the peer, the delay, the rate); line 2 the control
/// queue and the counters every frame updates (`PortCounters` puts them
/// first); from line 3 the egress, whose class scheduler keeps its state
/// and class 0 in its first line and one 32-byte queue per class after,
/// of which a hop touches only its own; the rest after it
/// (docs/performance.md, "Second pass" and "Seventh pass").
#[derive(Debug)]
#[repr(C, align(64))]
pub(crate) struct Port {
    // First cache line.
    /// Bytes queued in the egress. Kept here, by the port, as frames go in
    /// and out: every hop reads it, and it is zero exactly when the egress
    /// holds nothing (every frame has a size).
    pub queue_bytes: u64,
    /// `PortCounters::peak_ingress`, kept here while the run goes: an
    /// ingress updates it on every frame and reads nothing else of its
    /// counters' line. [`Simulation::results`] puts it in the counters.
    pub peak_ingress: u64,
    /// A switch port's end of the current transmission when it was not
    /// scheduled, with the queue place reserved for it in
    /// `unscheduled_seq` (see [`Simulation::transmit`]); `Time::MAX` when
    /// it is scheduled or the port is idle. (Not an `Option`: 8 bytes less
    /// in this line.)
    pub unscheduled_end: Time,
    pub unscheduled_seq: u64,
    pub node: u32,
    pub local: u16,
    pub is_host: bool,
    pub busy: bool,
    /// False once its link was taken down (`LINK_DOWN`): it sends nothing.
    pub up: bool,
    /// Held by [`Simulation::hold_egress`]: sends nothing until released.
    pub held: bool,
    /// Its node is traced ([`Simulation::trace_tx`]): log what it sends.
    pub traced: bool,
    /// At a switch port, the index of its switch in `Simulation::switches`;
    /// at a host port, of its NIC in `Simulation::nics`, or `u16::MAX` if
    /// that does not fit (see [`Simulation::port_nic`]). A hop and the
    /// NIC's send path read it here, in the line they read anyway, instead
    /// of through `node_switch` or `node_nic`.
    pub owner: u16,
    /// Starts at byte 48: its tag and `Pfc`'s flags are in this line.
    pub fc: AnyFc,
    pub line1: CacheLine,
    /// Frames on the wire: (arrival time at the peer, frame).
    pub flight: Fifo<InFlight>,
    /// Frames sent from this port are corrupted on arrival with this probability.
    pub error_rate: f64,
    /// The port at the other end of the link.
    pub peer: u32,
    /// `rate.ps_per_byte()`, 0 if none: `transmit` multiplies by it
    /// instead of dividing by the rate (the same time, exactly).
    pub ps_per_byte: u32,
    pub delay: Delta,
    pub rate: Rate,
    pub line2: CacheLine,
    /// Control frames: strict priority, never paused.
    pub ctrl: Fifo<Packet>,
    pub c: PortCounters,
    pub line3: CacheLine,
    /// The egress queues (switch ports; a host's NIC schedules its own).
    pub egress: AnyEgress,
    pub fc_version: u32,
    pub rng: Rng,
    /// HPCC-PINT's utilisation estimate of this egress (switch ports).
    pub pint: crate::cc::PintPort,
}

/// One frame that started transmission at a traced node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxLogEntry {
    /// Start of transmission.
    pub time: Time,
    /// Node.
    pub node: u32,
    /// Local port.
    pub port: u16,
    /// Frame kind.
    pub kind: crate::wire::PacketKind,
    /// Flow (data, ACK) or `u32::MAX`.
    pub flow: u32,
    /// Sequence (data, ACK).
    pub seq: u64,
}

/// Counters of one port. (`repr(C)`: the ones every frame updates first,
/// next to the port's control queue; see [`Port`].)
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct PortCounters {
    /// Bytes sent (all frames).
    pub tx_bytes: u64,
    /// Data frames sent (a host's, retransmissions included).
    pub tx_data: u64,
    /// Highest egress queue occupancy in bytes.
    pub peak_queue: u64,
    /// Highest number of bytes held for this ingress in one class (switch
    /// ports): what its buffer had to hold. (While running, in
    /// `Port::peak_ingress`.)
    pub peak_ingress: u64,
    /// Data frames ECN-marked at this egress.
    pub ecn_marks: u64,
    /// Frames lost to the link error model on arrival through this port.
    pub corrupted: u64,
    /// Frames dropped at this switch ingress because no route led to their
    /// destination (after a link failure).
    pub unroutable: u64,
    /// Frames dropped at admission into this switch through this ingress port, per class.
    pub drops: [u64; N_CLASSES],
    /// Frames dropped from this egress's queues when flow control flushed
    /// them ([`FcOutbox::flush`]).
    pub flushed: u64,
}

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

#[derive(Debug)]
pub(crate) struct Nic {
    pub port: u32,
    pub line_rate: Rate,
    pub acks: Fifo<Packet>,
    /// QPs with work or unacked data, in creation order (round-robin).
    pub active: Vec<u32>,
    pub rr_last: usize,
    /// Pending pacing wake-up, `Time::MAX` if none.
    pub wake_at: Time,
}

#[derive(Debug)]
pub(crate) struct Qp {
    pub src: u32,
    pub dst: u32,
    pub sport: u16,
    pub dport: u16,
    pub pg: u8,
    pub size: u64,
    pub start: Time,
    pub snd: crate::transport::SendSeq,
    pub next_avail: Time,
    pub cc: crate::cc::AnyCc,
    /// Versions of the CC timer slots, then the retransmission timer.
    pub timer_version: [u32; N_CC_TIMERS + 1],
    pub end: Option<Time>,
    pub retransmitted: u64,
    pub nic: u32,
    /// Frame bytes of the last data packet sent (for pacing shifts).
    pub last_size: u32,
    /// Window in bytes before rate scaling; 0 = none.
    pub base_win: u64,
    pub timeouts: u32,
    /// The transport's send state (transport/).
    pub rel: crate::transport::AnyReliability,
}

/// Timer slot of the retransmission timeout, after the CC's slots.
pub(crate) const RTO_SLOT: usize = N_CC_TIMERS;

/// Compute every switch's next-hop table from `routes` (route.rs) and
/// return how to index them per destination node. `link_map` maps the link
/// indices `routes` uses to `topo`'s when the routes were computed on a
/// subset of the links.
pub(crate) fn install_routes(
    switches: &mut [Switch],
    node_switch: &[u32],
    topo: &Topology,
    routes: &topo::Routes,
    link_map: Option<&[u32]>,
    link_port: &[[u32; 2]],
    hosts: &[u32],
) -> Vec<crate::route::DstRoute> {
    let mut sw_nodes = vec![(0, 0); switches.len()];
    for (node, &s) in node_switch.iter().enumerate() {
        if s != u32::MAX {
            sw_nodes[s as usize] = (node as u32, switches[s as usize].first_port);
        }
    }
    let t = crate::route::route_tables(topo, routes, link_map, link_port, &sw_nodes, hosts);
    for (sw, (flat, rows)) in switches.iter_mut().zip(t.per_switch) {
        sw.routes = flat;
        sw.route_rows = rows;
    }
    t.dst
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

/// Why a network cannot be built.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// A flow names a node that does not exist or is not a host.
    #[error("flow {flow}: {msg}")]
    BadFlow {
        /// Flow id.
        flow: u32,
        /// What is wrong.
        msg: String,
    },
    /// A link failure names two nodes that share no link.
    #[error("link failure between nodes {0} and {1}: there is no such link")]
    NoSuchLink(u32, u32),
    /// A per-port rule that cannot apply.
    #[error("port rule for link {link}: {msg}")]
    BadPortRule {
        /// Link index of the rule.
        link: u32,
        /// What is wrong.
        msg: String,
    },
    /// Flows are not sorted by start time.
    #[error("flows must be sorted by start time (flow {0} starts before its predecessor)")]
    Unsorted(u32),
}

impl Simulation {
    /// Build the network of `topo` carrying `flows` (sorted by start time).
    /// The topology must already be validated (connected, one link per host).
    pub fn new(
        topo: &Topology,
        flows: Vec<FlowSpec>,
        cfg: NetConfig,
    ) -> Result<Simulation, BuildError> {
        let n = topo.kinds.len();
        for (i, f) in flows.iter().enumerate() {
            for (what, node) in [("src", f.src), ("dst", f.dst)] {
                if node as usize >= n {
                    return Err(BuildError::BadFlow {
                        flow: f.id,
                        msg: format!(
                            "{what} node {node} does not exist (the topology has {n} nodes)"
                        ),
                    });
                }
                if !topo.is_host(node) {
                    return Err(BuildError::BadFlow {
                        flow: f.id,
                        msg: format!("{what} node {node} is a switch, not a host"),
                    });
                }
            }
            if f.src == f.dst {
                return Err(BuildError::BadFlow {
                    flow: f.id,
                    msg: "src and dst are the same host".into(),
                });
            }
            if i > 0 && f.start < flows[i - 1].start {
                return Err(BuildError::Unsorted(f.id));
            }
        }

        // Ports: numbered per node in link order (the peer's device order).
        let mut node_ports: Vec<Vec<(u32, usize)>> = vec![Vec::new(); n]; // (link, end)
        for (li, l) in topo.links.iter().enumerate() {
            node_ports[l.a as usize].push((li as u32, 0));
            node_ports[l.b as usize].push((li as u32, 1));
        }
        let mut node_first_port = Vec::with_capacity(n + 1);
        let mut link_port = vec![[0u32; 2]; topo.links.len()];
        let mut next = 0u32;
        for (node, ps) in node_ports.iter().enumerate() {
            node_first_port.push(next);
            for &(li, end) in ps {
                link_port[li as usize][end] = next;
                next += 1;
            }
            let _ = node;
        }
        node_first_port.push(next);
        // Per-port overrides, later rules replacing the fields they set.
        let mut port_set: Vec<crate::config::PortSettings> =
            vec![Default::default(); next as usize];
        for r in &cfg.ports {
            if r.link as usize >= topo.links.len() {
                return Err(BuildError::BadPortRule {
                    link: r.link,
                    msg: format!("there is no such link ({} links)", topo.links.len()),
                });
            }
            let id = link_port[r.link as usize][usize::from(r.at_b)] as usize;
            port_set[id].merge(&r.settings);
        }
        let nic_rate = topo
            .links
            .iter()
            .find(|l| topo.is_host(l.a) || topo.is_host(l.b))
            .map(|l| l.rate)
            .unwrap_or(Rate::gbps(100));
        let mut ports = Vec::with_capacity(next as usize);
        let mut warnings = Vec::new();
        for (node, ps) in node_ports.iter().enumerate() {
            let is_host = topo.kinds[node] == NodeKind::Host;
            for (local, &(li, end)) in ps.iter().enumerate() {
                let l = &topo.links[li as usize];
                let id = ports.len();
                let choice = port_set[id].fc.clone();
                let fc = match &choice {
                    None if cfg.pfc.enabled => AnyFc::Pfc(Pfc::new(cfg.pfc.mode, l.rate, !is_host)),
                    None | Some(crate::config::FcChoice::Lossy) => AnyFc::Lossy(Lossy),
                    Some(crate::config::FcChoice::Pfc(mode)) => {
                        AnyFc::Pfc(Pfc::new(*mode, l.rate, !is_host))
                    }
                    Some(crate::config::FcChoice::PfcObeyOnly(mode)) => {
                        AnyFc::Pfc(Pfc::new(*mode, l.rate, false))
                    }
                    Some(crate::config::FcChoice::Cbfc(c)) => {
                        if port_set[id].xoff.is_none() && !is_host {
                            port_set[id].xoff = Some(c.buffer);
                        }
                        AnyFc::Cbfc(Cbfc::new(c.clone()))
                    }
                    Some(crate::config::FcChoice::Bifrost(b)) => {
                        let (bf, warn) = Bifrost::new(b, l.rate, l.delay)
                            .map_err(|msg| BuildError::BadPortRule { link: li, msg })?;
                        for w in warn {
                            warnings.push(format!("link {li}, node {node}: {w}"));
                        }
                        if port_set[id].xoff.is_none() && !is_host {
                            port_set[id].xoff = Some(bf.params().h);
                        }
                        AnyFc::Bifrost(bf)
                    }
                };
                let fc = if port_set[id].relay_pfc {
                    if is_host || ps.len() != 2 {
                        return Err(BuildError::BadPortRule {
                            link: li,
                            msg: format!(
                                "relay_pfc needs a switch with exactly two ports; node {node} has {}",
                                ps.len()
                            ),
                        });
                    }
                    let twin = node_first_port[node] + (1 - local as u32);
                    AnyFc::Swing(SwingRelay::new(fc, twin))
                } else {
                    fc
                };
                let error_rate = if l.error_rate > 0.0 {
                    l.error_rate
                } else {
                    cfg.error_rate_per_link
                };
                ports.push(Port {
                    node: node as u32,
                    local: local as u16,
                    is_host,
                    peer: link_port[li as usize][1 - end],
                    ps_per_byte: l.rate.ps_per_byte().unwrap_or(0),
                    rate: l.rate,
                    delay: l.delay,
                    error_rate,
                    busy: false,
                    unscheduled_end: Time::MAX,
                    unscheduled_seq: 0,
                    up: true,
                    held: false,
                    traced: false,
                    owner: u16::MAX,
                    line1: CacheLine,
                    line2: CacheLine,
                    line3: CacheLine,
                    ctrl: Fifo::new(),
                    egress: AnyEgress::default(),
                    queue_bytes: 0,
                    peak_ingress: 0,
                    flight: Fifo::new(),
                    fc,
                    fc_version: 0,
                    rng: Rng::stream(cfg.seed, RNG_PORT, id as u64),
                    pint: crate::cc::PintPort::default(),
                    c: PortCounters::default(),
                });
            }
        }

        // Credits only work when both ends speak them, in the same field
        // width (docs/model.md, CBFC): the other end of a CBFC port would
        // ignore its credit frames, or read a 12-bit FCCL as a full one.
        for (li, ends) in link_port.iter().enumerate() {
            let field = |p: u32| match &ports[p as usize].fc {
                AnyFc::Cbfc(c) => Some(c.config().field_bits),
                _ => None,
            };
            let (a, b) = (field(ends[0]), field(ends[1]));
            if a != b {
                let name = |f: Option<Option<u32>>| match f {
                    Some(Some(_)) => "cbfc",
                    Some(None) => "cbfc_ideal",
                    None => "another flow control",
                };
                return Err(BuildError::BadPortRule {
                    link: li as u32,
                    msg: format!(
                        "one end (node {}) runs {} and the other (node {}) {}: both ends of \
                         a link must run the same CBFC (fc = \"cbfc\" or \"cbfc_ideal\")",
                        topo.links[li].a,
                        name(a),
                        topo.links[li].b,
                        name(b)
                    ),
                });
            }
        }

        let hosts = topo.hosts();
        let routes = topo::Routes::compute(topo);

        let mut node_switch = vec![u32::MAX; n];
        let mut switches = Vec::new();
        // Switches whose ports set aside all of the buffer: (node, bytes).
        let mut no_shared_pool: Vec<(usize, u64)> = Vec::new();
        let mut node_nic = vec![u32::MAX; n];
        let mut nics = Vec::new();
        for node in 0..n {
            let first = node_first_port[node];
            let count = node_first_port[node + 1] - first;
            if topo.kinds[node] == NodeKind::Host {
                node_nic[node] = nics.len() as u32;
                ports[first as usize].owner = u16::try_from(nics.len()).unwrap_or(u16::MAX);
                nics.push(Nic {
                    port: first,
                    line_rate: ports[first as usize].rate,
                    acks: Fifo::new(),
                    active: Vec::new(),
                    rr_last: 0,
                    wake_at: Time::MAX,
                });
                continue;
            }
            let mut headroom = Vec::with_capacity(count as usize);
            let mut shift = Vec::with_capacity(count as usize);
            let mut ecn = Vec::with_capacity(count as usize);
            for p in first..first + count {
                let port = &ports[p as usize];
                headroom.push(match cfg.buffer.headroom {
                    crate::config::Headroom::RateDelay { factor } => {
                        // Peer: rate × delay / 8 × 3, delay in ns (third.cc).
                        (port.rate.bps() as f64 * port.delay.ps() as f64 / 8e12 * factor) as u64
                    }
                    crate::config::Headroom::Bytes(b) => b,
                });
                // Alpha halves... shift drops by one per doubling above NIC speed.
                let mut s = cfg.buffer.alpha_shift;
                let mut r = port.rate.bps();
                while r > nic_rate.bps() && s > 0 {
                    s -= 1;
                    r /= 2;
                }
                shift.push(s);
                let t = cfg.ecn.for_rate(port.rate);
                if port_set[p as usize].ecn == Some(false) {
                    ecn.push((u64::MAX, u64::MAX, 0.0));
                } else {
                    ecn.push((t.kmin, t.kmax, t.pmax));
                }
            }
            node_switch[node] = switches.len() as u32;
            let mut mmu = Mmu::new(&cfg.buffer, headroom, shift);
            for p in first..first + count {
                let set = &port_set[p as usize];
                let local = (p - first) as usize;
                if let Some(s) = set.alpha_shift {
                    mmu.set_shift(local, s);
                }
                if let Some(h) = set.headroom {
                    mmu.set_headroom(local, h);
                }
                if let Some(xoff) = set.xoff {
                    let h = set.headroom.unwrap_or(0);
                    mmu.set_static(local, xoff, set.xon.unwrap_or(xoff), h);
                }
            }
            let (size, set_aside) = mmu.size_and_set_aside();
            if set_aside >= size {
                no_shared_pool.push((node, set_aside));
            }
            switches.push(Switch {
                first_port: first,
                mmu,
                ecn,
                routes: Vec::new(),
                route_rows: Vec::new(),
            });
        }

        if let Some(&(node, set_aside)) = no_shared_pool.iter().max_by_key(|&&(_, a)| a) {
            // The MMU does what it is told (the peer's would too), but the
            // buffer then holds more than its size says.
            warnings.push(format!(
                "[buffer] size = {} B is not more than the {} B that switch {node}'s ports \
                 set aside (reserves and headroom), so its shared pool is empty and it holds \
                 up to {set_aside} B, beyond its size (switches like it: {} of {})",
                cfg.buffer.size,
                set_aside,
                no_shared_pool.len(),
                switches.len()
            ));
        }
        // `Topology::validate` refuses more (topo::MAX_SWITCHES).
        assert!(
            switches.len() <= topo::MAX_SWITCHES,
            "at most {} switches",
            topo::MAX_SWITCHES
        );
        for p in &mut ports {
            let s = node_switch[p.node as usize];
            if s != u32::MAX {
                p.owner = s as u16;
            }
        }

        let dst_route = install_routes(
            &mut switches,
            &node_switch,
            topo,
            &routes,
            None,
            &link_port,
            &hosts,
        );

        // The peer's ideal ("standalone") FCT, §2.5, in integer ns as third.cc.
        let payload = u64::from(cfg.nic.mtu_payload);
        let header = u64::from(cfg.nic.data_header);
        // A link's share of a path's (delay, serialisation, bottleneck).
        let link_terms = |li: u32| {
            let l = &topo.links[li as usize];
            (
                l.delay.ps() / 1000,
                payload * 1_000_000_000 * 8 / l.rate.bps(),
                l.rate.bps(),
            )
        };
        let pair_rtt_bw_of = |src: u32, dst: u32| {
            let mut delay_ns = 0u64;
            let mut tx_ns = 0u64;
            let mut bw = u64::MAX;
            for &li in &routes.path(topo, src, dst) {
                let (d, t, r) = link_terms(li);
                delay_ns += d;
                tx_ns += t;
                bw = bw.min(r);
            }
            (2 * delay_ns + tx_ns, bw)
        };
        let mut ideal_fct_ns = Vec::with_capacity(flows.len());
        let mut pair_rtt_bw = Vec::with_capacity(flows.len());
        let mut pair_cache = std::collections::HashMap::new();
        for f in &flows {
            let (rtt, bw) = *pair_cache
                .entry((f.src, f.dst))
                .or_insert_with(|| pair_rtt_bw_of(f.src, f.dst));
            let total = f.size + f.size.div_ceil(payload) * header;
            ideal_fct_ns.push(rtt + (total as u128 * 8_000_000_000 / bw as u128) as u64);
            pair_rtt_bw.push((rtt, bw));
        }
        if cfg.nic.mtu_payload < cfg.nic.data_header {
            warnings.push(format!(
                "[nic] mtu = {} B is less than the {} B of headers of each data frame: \
                 most of what the links carry is headers, and a flow takes one packet \
                 (and one ACK) per {} B",
                cfg.nic.mtu_payload, cfg.nic.data_header, cfg.nic.mtu_payload
            ));
        }
        if cfg.nic.mtu_payload > JUMBO_PAYLOAD_BYTES {
            warnings.push(format!(
                "[nic] mtu = {} B is larger than an Ethernet jumbo frame's payload \
                 ({JUMBO_PAYLOAD_BYTES} B); the ideal FCT charges one full-size frame's \
                 serialisation per hop, so flows shorter than one frame get slowdowns \
                 below 1",
                cfg.nic.mtu_payload
            ));
        }
        {
            let rtts: Vec<u64> = pair_rtt_bw.iter().map(|&(rtt, _)| rtt).collect();
            warnings.extend(crate::transport::short_timeout_warnings(
                &cfg.nic.transport,
                cfg.nic.rto,
                &rtts,
            ));
        }
        let needs_env = !matches!(
            cfg.cc,
            crate::cc::CcConfig::None | crate::cc::CcConfig::Dcqcn(_)
        );
        let pint = cfg.cc.pint_log_base().is_some();
        let max_rtt_bdp =
            ((cfg.nic.global_t && (cfg.nic.bdp_window || needs_env)) || pint).then(|| {
                // Every ordered pair of hosts, as `pair_rtt_bw_of` gives it,
                // without a path per pair: `Routes::path` always takes a
                // node's first next hop, so the path from a node to `d` is
                // that hop and then the path from the next node, and one
                // pass per destination fills (delay, serialisation,
                // bottleneck) for every node (O(nodes) per host instead of
                // O(hosts × hops) walks and allocations).
                let mut max_rtt = 0u64;
                let mut max_bdp = 0u64;
                let mut memo: Vec<Option<(u64, u64, u64)>> = vec![None; n];
                let mut chain: Vec<(u32, u32)> = Vec::new();
                for &d in &hosts {
                    memo.fill(None);
                    memo[d as usize] = Some((0, 0, u64::MAX));
                    for &s in &hosts {
                        if s == d || routes.distance(s, d).is_none() {
                            continue;
                        }
                        chain.clear();
                        let mut at = s;
                        while memo[at as usize].is_none() {
                            let li = routes.next_hops(at, d)[0];
                            chain.push((at, li));
                            at = topo.links[li as usize].other(at);
                        }
                        let mut v = memo[at as usize].expect("reached a filled node");
                        for &(u, li) in chain.iter().rev() {
                            let (dl, tx, r) = link_terms(li);
                            v = (v.0 + dl, v.1 + tx, v.2.min(r));
                            memo[u as usize] = Some(v);
                        }
                        let (delay_ns, tx_ns, bw) = v;
                        let rtt = 2 * delay_ns + tx_ns;
                        max_rtt = max_rtt.max(rtt);
                        max_bdp = max_bdp.max((rtt as u128 * bw as u128 / 8_000_000_000) as u64);
                    }
                }
                (max_rtt, max_bdp)
            });

        let mut q = EventQueue::new();
        if let Some(f) = flows.first() {
            q.push(f.start, Event::FlowArrive);
        }
        let qlen = cfg.qlen_monitor.clone().map(|m| {
            let mut order = Vec::new();
            for p in &ports {
                if !p.is_host {
                    order.push((p.node, 0, u32::from(p.local) + 1));
                }
            }
            for (i, p) in ports.iter().enumerate().filter(|(_, p)| !p.is_host) {
                let slot = order
                    .iter_mut()
                    .find(|o| o.0 == p.node && o.2 == u32::from(p.local) + 1)
                    .expect("listed");
                slot.1 = i as u32;
            }
            Box::new(crate::qlen::QlenMonitor::new(m, order, ports.len()))
        });
        if let Some(d) = qlen.as_ref().and_then(|m| m.next_dump()) {
            q.push(d, Event::QlenDump);
        }
        let mut failures = Vec::new();
        for (k, &(at, a, b)) in cfg.link_down.iter().enumerate() {
            let li = topo
                .links
                .iter()
                .position(|l| (l.a, l.b) == (a, b) || (l.a, l.b) == (b, a))
                .ok_or(BuildError::NoSuchLink(a, b))?;
            failures.push(li as u32);
            q.push(at, Event::LinkDown { k: k as u32 });
        }
        let n_flows = flows.len();
        let mut sim = Simulation {
            cfg,
            now: Time::ZERO,
            q,
            ports,
            node_switch,
            node_nic,
            dst_route,
            switches,
            nics,
            qps: Vec::with_capacity(n_flows),
            rx: Vec::with_capacity(n_flows),
            flows,
            next_flow: 0,
            finished: 0,
            completion_order: Vec::with_capacity(n_flows),
            ideal_fct_ns,
            pair_rtt_bw,
            max_rtt_bdp,
            int_pool: Default::default(),
            link_up: vec![true; topo.links.len()],
            qlen,
            topo: topo.clone(),
            link_port,
            hosts,
            failures,
            events: 0,
            packet_hops: 0,
            outbox: FcOutbox::default(),
            kick: Vec::new(),
            record_pfc: false,
            pfc_log: Vec::new(),
            sport_next: std::collections::HashMap::new(),
            tx_log: Vec::new(),
            monitor: None,
            drop_once: Vec::new(),
            lossy: false,
            warnings,
        };
        sim.lossy = sim.ports.iter().any(|p| p.error_rate > 0.0);
        // Schemes that speak first (initial credits) or run on a clock.
        // What they say at the start is the link-up exchange: it reaches
        // the peer at time zero, not one link delay into the run. (In
        // InfiniBand the initial credits are exchanged while the link
        // trains, before it carries data; delivering them over the wire at
        // t = 0 would idle a 600 km link for its first 3 ms.)
        for port in 0..sim.ports.len() as u32 {
            let mut out = std::mem::take(&mut sim.outbox);
            sim.ports[port as usize].fc.on_start(Time::ZERO, &mut out);
            let link_up: Vec<Packet> = out.frames.drain(..).collect();
            sim.outbox = out;
            sim.apply_fc_outbox(port);
            let peer = sim.ports[port as usize].peer;
            let rate = sim.ports[peer as usize].rate;
            for frame in &link_up {
                let mut out = std::mem::take(&mut sim.outbox);
                sim.ports[peer as usize]
                    .fc
                    .on_ctrl(Time::ZERO, frame, rate, &mut out);
                sim.outbox = out;
                sim.apply_fc_outbox(peer);
            }
        }
        while let Some(p) = sim.kick.pop() {
            sim.try_send(p);
        }
        Ok(sim)
    }

    /// Configuration warnings found while building, one line each (e.g. a
    /// Bifrost reserved buffer H below Theorem 1's bound). Empty if none.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The flow-control object of `node`'s port `port` (tests, tools).
    pub fn fc_of(&self, node: u32, port: u16) -> Option<&AnyFc> {
        self.ports
            .iter()
            .find(|p| p.node == node && p.local == port)
            .map(|p| &p.fc)
    }

    /// The per-slot trace of the Bifrost ingress at `node`'s port `port`
    /// (seed-000 §2.12 "Instrument"), if that port runs Bifrost with
    /// `trace` on. Write it with [`crate::fc::write_trace_csv`].
    pub fn bifrost_trace(&self, node: u32, port: u16) -> Option<&[BifrostSlot]> {
        match self.fc_of(node, port)? {
            AnyFc::Bifrost(b) => Some(b.trace()),
            _ => None,
        }
    }

    /// Every Bifrost port with a trace: node, local port, H and its slots.
    pub fn bifrost_traces(&self) -> Vec<(u32, u16, u64, &[BifrostSlot])> {
        self.ports
            .iter()
            .filter_map(|p| match &p.fc {
                AnyFc::Bifrost(b) if !b.trace().is_empty() => {
                    Some((p.node, p.local, b.params().h, b.trace()))
                }
                _ => None,
            })
            .collect()
    }

    /// Keep a log of every PFC frame received (the peer's PFC output file).
    pub fn record_pfc(&mut self, on: bool) {
        self.record_pfc = on;
    }

    /// Log every frame that node `node` starts to transmit.
    pub fn trace_tx(&mut self, node: u32) {
        for p in self.ports.iter_mut().filter(|p| p.node == node) {
            p.traced = true;
        }
    }

    /// Frames started by traced nodes, in time order.
    pub fn tx_log(&self) -> &[TxLogEntry] {
        &self.tx_log
    }

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
                crate::prefetch(
                    self.ports
                        .as_ptr()
                        .wrapping_add(p.peer as usize)
                        .cast::<u8>(),
                );
            }
            Event::TxDone { port } => {
                crate::prefetch(self.ports.as_ptr().wrapping_add(port as usize).cast::<u8>());
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
        crate::prefetch(p);
        crate::prefetch(p.wrapping_add(std::mem::offset_of!(Port, line1)));
        crate::prefetch(p.wrapping_add(std::mem::offset_of!(Port, line2)));
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
            debug_assert_eq!(p.queue_bytes == 0, !p.egress.has_backlog());
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
        p.egress.flush(key, &mut gone);
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
            p.egress.on_timer(now);
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
        p.egress.on_ctrl(now, pkt);
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

    /// Stop (`true`) or restart (`false`) every transmission of `node`'s
    /// port `port`, control frames included: a drain that stalls, for tests
    /// and microbenchmarks of hop-by-hop flow control. A frame already on
    /// the wire completes.
    pub fn hold_egress(&mut self, node: u32, port: u16, held: bool) {
        let id = self
            .ports
            .iter()
            .position(|p| p.node == node && p.local == port)
            .expect("hold_egress: no such port") as u32;
        self.ports[id as usize].held = held;
        if !held {
            self.try_send(id);
        }
    }

    /// Lose the next data frame of flow `flow` at byte offset `seq` when it
    /// next crosses a link, once, counted as corrupted (tests of loss
    /// recovery).
    pub fn drop_once(&mut self, flow: u32, seq: u64) {
        self.drop_once.push((flow, seq));
        self.lossy = true;
    }

    /// Bytes queued for transmission at `node`'s port `port` (all classes).
    pub fn queue_bytes(&self, node: u32, port: u16) -> u64 {
        self.ports
            .iter()
            .find(|p| p.node == node && p.local == port)
            .map_or(0, |p| p.queue_bytes)
    }

    /// Data frames started so far by `node`'s port `port`.
    pub fn data_frames_sent(&self, node: u32, port: u16) -> u64 {
        self.ports
            .iter()
            .find(|p| p.node == node && p.local == port)
            .map_or(0, |p| p.c.tx_data)
    }

    /// The current pacing rate of flow `flow`'s QP, if it has started.
    pub fn qp_rate(&self, flow: u32) -> Option<engine::Rate> {
        use crate::cc::CongestionControl;
        self.qps.get(flow as usize).map(|q| q.cc.rate())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{CcConfig, HpccConfig};
    use engine::Delta;

    /// The largest base RTT and BDP over every ordered pair of hosts that
    /// `Simulation::new` works out per destination are those of each
    /// pair's own path (`Routes::path`), on trees with mixed rates, a
    /// dumbbell and a cross-DC network with a long link.
    #[test]
    fn max_rtt_and_bdp_are_those_of_every_pair() {
        let topos = [
            topo::fat_tree(4, Rate::gbps(100), Rate::gbps(400), Delta::from_us(1)).unwrap(),
            topo::peer_fat_tree(),
            topo::dumbbell(3, 2, Rate::gbps(100), Rate::gbps(25), Delta::from_ns(700)).unwrap(),
            topo::cross_dc(topo::CrossDcSpec::BIFROST).unwrap(),
        ];
        for t in &topos {
            let mut cfg = NetConfig {
                cc: CcConfig::Hpcc(HpccConfig::default()),
                ..NetConfig::default()
            };
            cfg.nic.global_t = true;
            let payload = u64::from(cfg.nic.mtu_payload);
            let sim = Simulation::new(t, Vec::new(), cfg).unwrap();
            let routes = topo::Routes::compute(t);
            let mut want = (0u64, 0u64);
            let hosts = t.hosts();
            for &s in &hosts {
                for &d in hosts.iter().filter(|&&d| d != s) {
                    let (mut delay, mut tx, mut bw) = (0u64, 0u64, u64::MAX);
                    for &li in &routes.path(t, s, d) {
                        let l = &t.links[li as usize];
                        delay += l.delay.ps() / 1000;
                        tx += payload * 1_000_000_000 * 8 / l.rate.bps();
                        bw = bw.min(l.rate.bps());
                    }
                    let rtt = 2 * delay + tx;
                    want.0 = want.0.max(rtt);
                    want.1 = want
                        .1
                        .max((rtt as u128 * bw as u128 / 8_000_000_000) as u64);
                }
            }
            assert!(want.0 > 0);
            assert_eq!(sim.max_rtt_bdp, Some(want));
        }
    }
}
