//! What `summary.json` holds: a run's flow counts, slowdowns by size,
//! network-wide counters and what the simulation cost.

use serde::Serialize;
use stats::BucketStats;

/// The contents of `summary.json`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// Run name.
    pub name: String,
    /// Seed of every random stream.
    pub seed: u64,
    /// Congestion control (`dcqcn`, `none`).
    pub cc: String,
    /// PFC mode: `until_resume`, `quanta`, or `off`.
    pub pfc: String,
    /// Reliability: `go_back_n` or `irn`.
    pub transport: String,
    /// Flow counts.
    pub flows: FlowCounts,
    /// Slowdown of finished flows by size ([`stats::DEFAULT_SIZE_EDGES`]), with a
    /// last row `all`. Empty buckets have `null` statistics.
    pub slowdown: Vec<BucketStats>,
    /// Network-wide counters.
    pub counters: Counters,
    /// The PFC storm watchdog's events, when the run had one
    /// (`[pfc.watchdog]`); not written otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub watchdog: Option<WatchdogSummary>,
    /// The PFC-free transport's counters, when the run used it
    /// (`[transport] kind = "pfc_free"`); not written otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pfc_free: Option<PfcFreeSummary>,
    /// The hosts' CPU, with a CPU model (`[host] cores`); not written
    /// otherwise. Per host: `hosts.csv`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_cpu: Option<HostCpuSummary>,
    /// What the switches with SONiC's buffer model did, when the run had
    /// any (`[buffer] model = "sonic"`); not written otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sonic_buffer: Option<Vec<SonicSwitchSummary>>,
    /// Message completion times by kind, then `all`, when the workload
    /// has messages (a storage workload's); not written otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub messages: Option<Vec<crate::messages::MessageStats>>,
    /// What the simulation cost.
    pub engine: EngineStats,
    /// The run's notes ([`crate::run::RunReport::notes`]), which the CLI prints as it
    /// finds them. Not written when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Flow counts of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct FlowCounts {
    /// Flows in the workload.
    pub total: u64,
    /// Flows whose last byte was acknowledged.
    pub finished: u64,
    /// Flows that were not, other than `endless` ones.
    pub unfinished: u64,
    /// Of `unfinished`, flows whose start time is after the stop time:
    /// they never started. Not written when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub not_started: u64,
    /// Bandwidth flows meant to run until the stop time
    /// ([`workload::ENDLESS`] bytes), still running at the end. Not
    /// written when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub endless: u64,
}

impl FlowCounts {
    /// Unfinished flows that started: cut off by the stop time, or stalled.
    pub fn started_unfinished(&self) -> u64 {
        self.unfinished - self.not_started
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Network-wide counters of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Counters {
    /// Frames dropped at switch admission.
    pub drops: u64,
    /// Of those, drops while PFC was on: each one breaks the lossless
    /// promise and fails the run.
    pub lossless_drops: u64,
    /// PFC pause (XOFF) frames sent.
    pub pause_frames: u64,
    /// PFC resume (XON) frames sent.
    pub resume_frames: u64,
    /// Paused time summed over every port and class, ns.
    pub paused_ns: u64,
    /// Paused time of the hosts' NIC ports alone, ns (the servers' share
    /// of pause, Swing §6.1's "PFC pause duration").
    pub host_paused_ns: u64,
    /// Data frames ECN-marked.
    pub ecn_marks: u64,
    /// Frames lost to link errors.
    pub corrupted: u64,
    /// Payload bytes sent more than once, all flows (the sum of flows.csv's
    /// `retransmitted_bytes`).
    pub retransmitted_bytes: u64,
    /// Retransmission timeouts that expired, all flows.
    pub timeouts: u64,
}

/// What a run cost.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct EngineStats {
    /// Events processed.
    pub events: u64,
    /// Frames carried across a link (packet·hops).
    pub packet_hops: u64,
    /// Simulated time at the end, ns.
    pub sim_time_ns: u64,
    /// Wall-clock time of the event loop, s.
    pub wall_s: f64,
    /// CPU time (user + system) of the event loop, s; the wall time where
    /// the operating system does not tell.
    pub cpu_s: f64,
    /// Events per wall-clock second.
    pub events_per_s: f64,
    /// Packet·hops per wall-clock second.
    pub packet_hops_per_s: f64,
    /// Peak resident memory of the process, MiB (`null` where unknown).
    pub peak_rss_mb: Option<f64>,
    /// Threads the run used, one partition each (`docs/parallel.md`).
    pub threads: u32,
    /// With several threads: windows run, and of them those in which the
    /// run might have ended (run in two phases).
    pub windows: u64,
    /// See `windows`.
    pub end_windows: u64,
    /// With several threads: frames that crossed between partitions.
    pub cut_frames: u64,
    /// With several threads: the longest time a thread waited at the
    /// windows' barriers, s.
    pub barrier_wait_s: f64,
    /// With several threads: events of the busiest partition over the
    /// mean (1 = balanced).
    pub imbalance: f64,
}

/// What the PFC-free transport counted, all connections (Bifröst's
/// software control path; docs/pfc-free.md).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PfcFreeSummary {
    /// WQEs posted, retransmissions included.
    pub wqes: u64,
    /// WQEs declared lost from an ACK (a later WQE on the same QP was
    /// acknowledged).
    pub lost_by_ack: u64,
    /// WQEs declared lost by a timeout.
    pub lost_by_timeout: u64,
    /// Timeouts that expired.
    pub timeouts: u64,
    /// Moves to a backup QP.
    pub qp_switches: u64,
    /// Software ACKs the receivers sent.
    pub acks_sent: u64,
    /// Software ACKs the senders read.
    pub acks_read: u64,
    /// Numbers the ACKs acknowledged.
    pub acked_entries: u64,
    /// RTT samples taken.
    pub rtt_samples: u64,
    /// WQEs the receiving UC QPs dropped for a missing packet (the
    /// paper's OOS counter, Bifröst §4.4).
    pub oos: u64,
    /// WQEs received whose data was already there.
    pub duplicates: u64,
    /// Messages handed to the application.
    pub messages: u64,
    /// Their bytes.
    pub delivered_bytes: u64,
    /// Bytes put in place for the first time, incomplete messages
    /// included.
    pub placed_bytes: u64,
    /// `placed_bytes` over the simulated time, Gb/s: the receivers'
    /// goodput.
    pub goodput_gbps: f64,
    /// RC mode's NIC counters (`qp_type = "rc"`); not written with UC.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rc: Option<RcSummary>,
}

/// What the NICs of the PFC-free transport's RC mode counted
/// (docs/pfc-free.md, "RC mode").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RcSummary {
    /// NAKs the receiving QPs sent, one per gap.
    pub naks: u64,
    /// Packets the receiving QPs discarded after a gap.
    pub discarded: u64,
    /// Times a sending QP went back (go-back-N), after a NAK or its ACK
    /// timeout.
    pub go_backs: u64,
    /// Of them, after the ACK timeout.
    pub ack_timeouts: u64,
    /// Bytes resent by go-back-N.
    pub resent_bytes: u64,
    /// Times a QP ran out of retries (the error state).
    pub qp_errors: u64,
}

impl PfcFreeSummary {
    /// From the run's totals.
    pub fn of(t: &net::transport::pfc_free::PfcFreeTotals, sim_ns: u64) -> PfcFreeSummary {
        PfcFreeSummary {
            wqes: t.sender.wqes,
            lost_by_ack: t.sender.lost_by_ack,
            lost_by_timeout: t.sender.lost_by_timeout,
            timeouts: t.sender.timeouts,
            qp_switches: t.sender.qp_switches,
            acks_sent: t.receiver.acks,
            acks_read: t.sender.acks,
            acked_entries: t.receiver.acked_entries,
            rtt_samples: t.sender.rtt_samples,
            oos: t.receiver.oos,
            duplicates: t.receiver.duplicates,
            messages: t.receiver.messages,
            delivered_bytes: t.receiver.bytes,
            placed_bytes: t.receiver.placed,
            goodput_gbps: if sim_ns == 0 {
                0.0
            } else {
                t.receiver.placed as f64 * 8.0 / sim_ns as f64
            },
            rc: t.rc.map(|r| RcSummary {
                naks: r.naks,
                discarded: r.discarded,
                go_backs: r.go_backs,
                ack_timeouts: r.ack_timeouts,
                resent_bytes: r.resent_bytes,
                qp_errors: r.qp_errors,
            }),
        }
    }
}

/// The hosts' CPU over a run (`[host]`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HostCpuSummary {
    /// Cores per host.
    pub cores: u32,
    /// The highest CPU share of a host (busy core time over cores ×
    /// simulated time, 0 to 1).
    pub max_cpu_share: f64,
    /// Messages (requests) handed to receiving applications per second of
    /// simulated time, all hosts.
    pub iops: f64,
    /// WQEs posted, all hosts.
    pub posts: u64,
    /// Completions polled, all hosts.
    pub cqes: u64,
    /// Software ACKs built, all hosts.
    pub acks_built: u64,
    /// Software ACKs parsed, all hosts.
    pub acks_parsed: u64,
}

/// A host's CPU share: busy core time over cores × `sim_ns` (0 to 1).
pub fn cpu_share(r: &net::HostCpuRow, sim_ns: u64) -> f64 {
    let cap = f64::from(r.cores) * sim_ns as f64 * 1000.0;
    if cap == 0.0 {
        0.0
    } else {
        r.totals.busy_ps as f64 / cap
    }
}

/// Per second of `sim_ns`.
pub fn per_sim_second(n: u64, sim_ns: u64) -> f64 {
    if sim_ns == 0 {
        0.0
    } else {
        n as f64 * 1e9 / sim_ns as f64
    }
}

impl HostCpuSummary {
    /// From the per-host rows; `None` without a CPU model.
    pub fn of(rows: &[net::HostCpuRow], sim_ns: u64) -> Option<HostCpuSummary> {
        let first = rows.first()?;
        let sum = |f: fn(&net::HostCpuRow) -> u64| rows.iter().map(f).sum::<u64>();
        Some(HostCpuSummary {
            cores: first.cores,
            max_cpu_share: rows
                .iter()
                .map(|r| cpu_share(r, sim_ns))
                .fold(0.0, f64::max),
            iops: per_sim_second(sum(|r| r.messages_received), sim_ns),
            posts: sum(|r| r.totals.posts),
            cqes: sum(|r| r.totals.cqes),
            acks_built: sum(|r| r.totals.acks_built),
            acks_parsed: sum(|r| r.totals.acks_parsed),
        })
    }
}

/// The header of `hosts.csv`.
pub const HOSTS_CSV_HEADER: &str = "node,cores,busy_ns,cpu_share,posts,cqes,acks_built,acks_parsed,messages_sent,messages_received,iops_sent,iops_received";

/// `hosts.csv`: one row per host with a CPU model, in node order.
pub fn write_hosts_csv(
    rows: &[net::HostCpuRow],
    sim_ns: u64,
    w: &mut impl std::io::Write,
) -> std::io::Result<()> {
    writeln!(w, "{HOSTS_CSV_HEADER}")?;
    for r in rows {
        let t = &r.totals;
        writeln!(
            w,
            "{},{},{},{:.6},{},{},{},{},{},{},{:.1},{:.1}",
            r.node,
            r.cores,
            t.busy_ps / 1000,
            cpu_share(r, sim_ns),
            t.posts,
            t.cqes,
            t.acks_built,
            t.acks_parsed,
            r.messages_sent,
            r.messages_received,
            per_sim_second(r.messages_sent, sim_ns),
            per_sim_second(r.messages_received, sim_ns),
        )?;
    }
    Ok(())
}

/// What a run's PFC storm watchdogs did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WatchdogSummary {
    /// Storms detected, all ports and classes.
    pub storms: u64,
    /// Storms restored.
    pub restores: u64,
    /// Frames dropped from storming queues.
    pub dropped: u64,
    /// Per port and class with a storm: where, and how many.
    pub events: Vec<WatchdogEvent>,
}

/// The storms of one class at one port.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WatchdogEvent {
    /// Node.
    pub node: u32,
    /// Its port (link order).
    pub port: u16,
    /// Class.
    pub class: u8,
    /// Storms detected.
    pub storms: u64,
    /// Storms restored.
    pub restores: u64,
}

impl WatchdogSummary {
    /// The storms counted at `ports`.
    pub fn of(ports: &[net::PortReport]) -> WatchdogSummary {
        let mut events = Vec::new();
        for p in ports {
            for class in 0..p.fc.storms.len() {
                if p.fc.storms[class] > 0 {
                    events.push(WatchdogEvent {
                        node: p.node,
                        port: p.port,
                        class: class as u8,
                        storms: p.fc.storms[class],
                        restores: p.fc.restores[class],
                    });
                }
            }
        }
        WatchdogSummary {
            storms: events.iter().map(|e| e.storms).sum(),
            restores: events.iter().map(|e| e.restores).sum(),
            dropped: ports.iter().map(|p| p.counters.flushed).sum(),
            events,
        }
    }
}

/// What one switch's SONiC buffer did in a run (`net::sonic_buffer::setup::SonicReport`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SonicSwitchSummary {
    /// The switch's node.
    pub node: u32,
    /// Most bytes in its buffer at once.
    pub peak_bytes: u64,
    /// Per ingress pool with headroom, the most headroom bytes it held.
    pub peak_headroom: std::collections::BTreeMap<String, u64>,
    /// Frames its ingress checks refused (lossy PGs over their threshold,
    /// lossless ones out of headroom).
    pub ingress_drops: u64,
    /// Frames its egress checks refused (queues over their threshold).
    pub egress_drops: u64,
    /// The first PG to pause: its port, class and shared bytes then.
    pub first_pause: Option<SonicBufferEvent>,
    /// The first frame refused at ingress: the PG's shared bytes then.
    pub first_ingress_drop: Option<SonicBufferEvent>,
    /// The first frame refused at egress: the queue's shared bytes then.
    pub first_egress_drop: Option<SonicBufferEvent>,
}

/// Where in a SONiC buffer something first happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SonicBufferEvent {
    /// Local port (link order).
    pub port: usize,
    /// Class.
    pub class: usize,
    /// Shared bytes of the PG or queue then (reserves and headroom left out).
    pub shared_bytes: u64,
}

impl SonicSwitchSummary {
    /// The summaries of `results`' SONiC switches; `None` if it has none.
    pub fn of(results: &net::RunResults) -> Option<Vec<SonicSwitchSummary>> {
        if results.sonic.is_empty() {
            return None;
        }
        let ev = |e: Option<net::sonic_buffer::BufferEvent>| {
            e.map(|e| SonicBufferEvent {
                port: e.port,
                class: e.class,
                shared_bytes: e.shared,
            })
        };
        Some(
            results
                .sonic
                .iter()
                .map(|r| {
                    let ports = results.ports.iter().filter(|p| p.node == r.node);
                    let (mut all, mut egress) = (0, 0);
                    for p in ports {
                        all += p.counters.drops.iter().sum::<u64>();
                        egress += p.counters.egress_drops;
                    }
                    SonicSwitchSummary {
                        node: r.node,
                        peak_bytes: r.peak_bytes,
                        peak_headroom: r.peak_headroom.iter().cloned().collect(),
                        ingress_drops: all - egress,
                        egress_drops: egress,
                        first_pause: ev(r.first_pause),
                        first_ingress_drop: ev(r.first_ingress_drop),
                        first_egress_drop: ev(r.first_egress_drop),
                    }
                })
                .collect(),
        )
    }
}
