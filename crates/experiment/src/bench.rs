//! `rdmasim bench`: fixed reference scenarios, built with rdmasim's own
//! generators (no input files), run one after another, each reporting what
//! it cost: events, packet·hops, CPU and wall time, peak memory.
//!
//! The scenarios (`--smoke` shrinks each to a fraction of a second):
//!
//! * `fat-dcqcn`: the peer's reference run (HPCC sim; `docs/performance.md`): its
//!   320-host fat tree ([`topo::peer_fat_tree`]), WebSearch at 30% load,
//!   Poisson arrivals for 5 ms, DCQCN with the settings of the peer's
//!   `run.py` "dcqcn" — the network settings `rdmasim hpcc` builds from
//!   the reference run's `ws30_5ms_dcqcn.cfg` (`docs/performance.md`, "The
//!   peer's reference run").
//! * `fat-hpcc`: the same traffic under HPCC with run.py's "hp" NIC
//!   settings (BDP window scaled by rate, ACKs not prioritised,
//!   η = 0.95, additive increase 50 Mb/s), as `ws30_5ms_hp.cfg`.
//! * `incast`: a k = 8 fat tree (128 hosts, 100 Gb/s everywhere) with
//!   WebSearch background at 10% load and, every 250 µs, a 32-to-1 incast of
//!   1 MB flows into a different receiver; DCQCN with rdmasim's defaults.
//! * `longhaul`: two switches joined by 400 Gb/s over 600 km (3 ms one
//!   way), 8 hosts at 100 Gb/s on each side; each left host sends one long
//!   flow across, so the long link is oversubscribed 2:1 and PFC and DCQCN
//!   act over a 6 ms round trip.
//! * `pfc-free-incast`: Bifröst §4.4's large incast: 90 RPC clients of 64
//!   QPs each (5,760 connections) into one server, all on one 50 Gb/s
//!   star, the PFC-free transport (1 KB minimum chunk, 32 KB requests, I/O
//!   depth 8) on a lossy 16 MiB switch; two requests per QP.
//!
//! And one that runs only when named (`--scenario fat-k34`), minutes long:
//!
//! * `fat-k34`: a fabric of ten thousand hosts, a k = 34 fat tree (9,826
//!   hosts, 1,445 switches, 100 Gb/s and 1 µs everywhere), WebSearch at
//!   30% load, Poisson arrivals for 1 ms, DCQCN over PFC with rdmasim's
//!   defaults: `experiments/large/fat-tree-k34-ws30.toml`
//!   (`docs/performance.md`, "A fabric of ten thousand hosts"). Smoke: a
//!   k = 8 tree for 20 µs.
//!
//! * `flowsail`: FlowSail-8Q on FlowSail's 1024-host fat tree (`pods =
//!   8`), Web Server at 60% of the core links plus the 50-to-1 incast
//!   background at 6%, 200 µs of arrivals, line-rate hosts without e2e
//!   CC: `experiments/flowsail/base.toml` with FlowSail's variant keys
//!   (`docs/performance.md`, "FlowSail"). `--window` sets the arrivals'
//!   duration; smoke: `pods = 2`, 20 µs.
//!
//! Each scenario's flow arrivals start at time 0. The flow sets differ from
//! the peer's `ws30_5ms.txt` (a different generator and seed) but have the
//! same size distribution, load and duration.

use crate::fmt::{fmt_count, fmt_ns};
use crate::procstat;
use engine::{Delta, Rate, Time};
use net::cc::{CcConfig, DcqcnConfig, HpccConfig};
use net::partition::{PartitionMap, PartitionSpec};
use net::{BufferConfig, EcnConfig, EcnThreshold, NetConfig, NicConfig, PfcConfig, PfcMode};
use net::{RunResults, Simulation};
use std::fmt::Write as _;
use std::time::Instant;
use topo::Topology;
use workload::{FlowSpec, PoissonSpec, SizeCdf};

/// The scenarios, in the order `rdmasim bench` runs them.
pub const SCENARIOS: [&str; 5] = [
    "fat-dcqcn",
    "fat-hpcc",
    "incast",
    "longhaul",
    "pfc-free-incast",
];

/// Scenarios that run only when named: they take minutes.
pub const ON_REQUEST: [&str; 2] = ["fat-k34", "flowsail"];

/// Seed of every bench scenario.
pub const SEED: u64 = 1;

/// One benchmark scenario, ready to run.
#[derive(Clone, Debug)]
pub struct BenchScenario {
    /// Name ([`SCENARIOS`]).
    pub name: &'static str,
    /// The network.
    pub topo: Topology,
    /// The flows, sorted by start time.
    pub flows: Vec<FlowSpec>,
    /// Network settings.
    pub net: NetConfig,
}

/// How to build the scenarios.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BenchOptions {
    /// Tiny versions of each scenario (for tests): well under a second each.
    pub smoke: bool,
    /// Replace each scenario's arrival window (Poisson traffic and incast
    /// rounds); e.g. 1 ms of `fat-dcqcn` for profiling.
    pub window: Option<Delta>,
    /// Threads for each run (0 or 1: one; `docs/parallel.md`). A row of a
    /// run on more than one is named `<scenario>/t<threads>`.
    pub threads: u32,
}

/// What one scenario cost.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchRow {
    /// Scenario name.
    pub name: String,
    /// Simulated time at the end of the run, ns.
    pub sim_time_ns: u64,
    /// Flows in the scenario.
    pub flows: u64,
    /// Flows whose last byte was acknowledged.
    pub finished: u64,
    /// Frames dropped anywhere (the scenarios are lossless: should be 0).
    pub drops: u64,
    /// Data frames delivered to hosts: sent by the switch ports that face a
    /// host (first transmissions and resends; one per packet of payload).
    pub packets: u64,
    /// Frames carried across a link, every kind (packet·hops).
    pub packet_hops: u64,
    /// Events processed.
    pub events: u64,
    /// Wall-clock seconds of the event loop.
    pub wall_s: f64,
    /// CPU seconds (user + system) of the event loop; the wall time where
    /// the operating system does not tell.
    pub cpu_s: f64,
    /// Peak resident memory while building and running this scenario, MiB
    /// (`VmHWM`, reset before each scenario where Linux allows it).
    pub peak_rss_mb: Option<f64>,
}

impl BenchRow {
    /// Seconds the rates are computed over: CPU time, or wall time where
    /// the CPU time is unknown or too short to resolve (10 ms ticks).
    pub fn rate_seconds(&self) -> f64 {
        if self.rates_per_cpu_second() {
            self.cpu_s
        } else {
            self.wall_s
        }
    }
    /// Whether the rates are per CPU second: the CPU time is known and at
    /// least 0.05 s (five 10 ms ticks); otherwise they are per wall second.
    pub fn rates_per_cpu_second(&self) -> bool {
        self.cpu_s >= 0.05
    }
    /// Events per second ([`BenchRow::rate_seconds`]).
    pub fn events_per_s(&self) -> f64 {
        per(self.events, self.rate_seconds())
    }
    /// Packet·hops per second ([`BenchRow::rate_seconds`]).
    pub fn packet_hops_per_s(&self) -> f64 {
        per(self.packet_hops, self.rate_seconds())
    }
    /// Whether every flow finished with no drop.
    pub fn clean(&self) -> bool {
        self.finished == self.flows && self.drops == 0
    }
}

fn per(n: u64, s: f64) -> f64 {
    if s > 0.0 {
        n as f64 / s
    } else {
        0.0
    }
}

/// The network settings `rdmasim hpcc` builds from the peer's
/// `ws30_5ms_dcqcn.cfg` (`hpcc = false`) or `ws30_5ms_hp.cfg` (`hpcc =
/// true`), without the stop time.
pub fn peer_net(hpcc: bool) -> NetConfig {
    let ecn = |g: u64, kmin_kb: u64, kmax_kb: u64| EcnThreshold {
        rate: Rate::gbps(g),
        kmin: kmin_kb * 1000,
        kmax: kmax_kb * 1000,
        pmax: 0.2,
    };
    let cc = if hpcc {
        CcConfig::Hpcc(HpccConfig {
            eta: 0.95,
            max_stage: 0,
            rate_ai: Rate::mbps(50),
            min_rate: Rate::mbps(1000),
            fast_react: true,
            sample_feedback: false,
            ..HpccConfig::default()
        })
    } else {
        CcConfig::Dcqcn(DcqcnConfig::default())
    };
    NetConfig {
        seed: SEED,
        buffer: BufferConfig {
            size: 32 * 1024 * 1024,
            ..BufferConfig::default()
        },
        ecn: EcnConfig {
            enabled: true,
            thresholds: vec![ecn(100, 400, 1600), ecn(400, 1600, 6400)],
        },
        pfc: PfcConfig {
            watchdog: None,
            enabled: true,
            mode: PfcMode::UntilResume,
            ..PfcConfig::default()
        },
        nic: NicConfig {
            mtu_payload: 1000,
            ack_high_prio: !hpcc,
            switch_ack_high_prio: false,
            rate_bound: true,
            ack_interval: 1,
            chunk: 4000,
            back_to_zero: false,
            bdp_window: hpcc,
            global_t: true,
            var_win: hpcc,
            rto: None,
            ..NicConfig::default()
        },
        cc,
        stop_time: None,
        error_rate_per_link: 0.0,
        next_hop_order: topo::NextHopOrder::Descending,
        ..NetConfig::default()
    }
}

/// WebSearch flows among `hosts` at `load` of `rate`, Poisson arrivals over
/// `window` from time 0, with the bench's seed: the traffic of the fat-tree
/// scenarios.
pub fn websearch(hosts: Vec<u32>, rate: Rate, load: f64, window: Delta) -> Vec<FlowSpec> {
    workload::poisson(&PoissonSpec {
        hosts,
        host_rate: rate,
        load,
        cdf: SizeCdf::websearch(),
        start: Time::ZERO,
        duration: window,
        seed: SEED,
        pg: 3,
        dport: 100,
    })
    .expect("the bench's Poisson parameters are valid")
}

/// The peer's fat tree with WebSearch at 30% for `window` (5 ms).
fn fat(name: &'static str, hpcc: bool, o: &BenchOptions) -> BenchScenario {
    let topo = topo::peer_fat_tree();
    let window = o.window.unwrap_or(if o.smoke {
        Delta::from_us(20)
    } else {
        Delta::from_ms(5)
    });
    let flows = websearch(topo.hosts(), Rate::gbps(100), 0.3, window);
    let mut net = peer_net(hpcc);
    // The peer stops 200 ms after the first arrival (SIMULATOR_STOP_TIME 2.2,
    // flows from 2.0 s).
    net.stop_time = Some(Time::ZERO + Delta::from_ms(200));
    BenchScenario {
        name,
        topo,
        flows,
        net,
    }
}

/// Incast rounds over WebSearch background on a k = 8 fat tree.
fn incast(o: &BenchOptions) -> BenchScenario {
    let (k, fan_in, size, period, default_window) = if o.smoke {
        (4, 8, 100_000, Delta::from_us(50), Delta::from_us(100))
    } else {
        (8, 32, 1_000_000, Delta::from_us(250), Delta::from_ms(5))
    };
    let window = o.window.unwrap_or(default_window);
    let rate = Rate::gbps(100);
    let topo = topo::fat_tree(k, rate, rate, Delta::from_us(1)).expect("k is even");
    let hosts = topo.hosts();
    let n = hosts.len() as u32;
    let background = if o.smoke {
        Delta::from_us(20).min(window)
    } else {
        window
    };
    let mut lists = vec![websearch(hosts.clone(), rate, 0.1, background)];
    // Round r: receiver 37·r mod n (a different ToR and pod each round);
    // senders every (n / fan_in)-th host after it, spread over every pod.
    let stride = (n / fan_in).max(1);
    let mut r = 0u64;
    while Delta::from_ps(r * period.ps()) < window {
        let receiver = hosts[((37 * r) % n as u64) as usize];
        let senders: Vec<u32> = (1..=fan_in)
            .map(|i| hosts[((receiver + i * stride - 1) % n) as usize])
            .collect();
        let start = Time::ZERO + Delta::from_ps(r * period.ps());
        lists.push(workload::incast(&senders, receiver, size, start, 3, 200));
        r += 1;
    }
    let net = NetConfig {
        seed: SEED,
        cc: CcConfig::Dcqcn(DcqcnConfig::default()),
        stop_time: Some(Time::ZERO + Delta::from_ms(200)),
        ..NetConfig::default()
    };
    BenchScenario {
        name: "incast",
        topo,
        flows: workload::merge(lists),
        net,
    }
}

/// Two switches joined by 400 Gb/s × 600 km, 2:1 oversubscribed.
fn longhaul(o: &BenchOptions) -> BenchScenario {
    let (per_side, size) = if o.smoke {
        (2, 2_000_000)
    } else {
        (8, 100_000_000)
    };
    let host_rate = Rate::gbps(100);
    let long_rate = Rate::gbps(400);
    let mut topo = topo::dumbbell(per_side, per_side, host_rate, long_rate, Delta::from_us(1))
        .expect("a valid dumbbell");
    // 600 km of fibre at 5 µs/km.
    let long = topo.links.last_mut().expect("the bottleneck link");
    long.delay = Delta::from_ms(3);
    let window = o.window.unwrap_or(Delta::from_us(100));
    let flows: Vec<FlowSpec> = (0..per_side)
        .map(|h| FlowSpec {
            id: h,
            src: h,
            dst: per_side + h,
            size,
            // Staggered over the window so the CC sees arrivals.
            start: Time::ZERO + Delta::from_ps(window.ps() * u64::from(h) / u64::from(per_side)),
            pg: 3,
            dport: 100,
        })
        .collect();
    let net = NetConfig {
        seed: SEED,
        // Headroom is 3 × rate × delay: 450 MB on each end of the long link.
        buffer: BufferConfig {
            size: 2 * 1024 * 1024 * 1024,
            ..BufferConfig::default()
        },
        // rdmasim's default retransmission timeout (1 ms) is shorter than
        // the 6 ms round trip; a timeout must outlast it.
        nic: NicConfig {
            rto: Some(Delta::from_ms(50)),
            ..NicConfig::default()
        },
        cc: CcConfig::Dcqcn(DcqcnConfig::default()),
        stop_time: Some(Time::ZERO + Delta::from_ms(500)),
        ..NetConfig::default()
    };
    BenchScenario {
        name: "longhaul",
        topo,
        flows,
        net,
    }
}

/// A k = 34 fat tree at 30% WebSearch load for 1 ms, DCQCN over PFC.
fn fat_k34(o: &BenchOptions) -> BenchScenario {
    let (k, default_window) = if o.smoke {
        (8, Delta::from_us(20))
    } else {
        (34, Delta::from_ms(1))
    };
    let rate = Rate::gbps(100);
    let topo = topo::fat_tree(k, rate, rate, Delta::from_us(1)).expect("k is even");
    let flows = websearch(topo.hosts(), rate, 0.3, o.window.unwrap_or(default_window));
    let net = NetConfig {
        seed: SEED,
        cc: CcConfig::Dcqcn(DcqcnConfig::default()),
        ..NetConfig::default()
    };
    BenchScenario {
        name: "fat-k34",
        topo,
        flows,
        net,
    }
}

/// Thousands of PFC-free connections into one server (Bifröst §4.4).
fn pfc_free_incast(o: &BenchOptions) -> BenchScenario {
    let (clients, qps) = if o.smoke { (4, 8) } else { (90, 64) };
    let request = 32 * 1024;
    let topo = topo::star(clients + 1, Rate::gbps(50), Delta::from_us(1)).expect("a valid star");
    let all: Vec<u32> = (0..clients).collect();
    let flows = workload::rpc_clients(&all, clients, qps, 2 * request, Time::ZERO, 3, 200);
    let mut net = NetConfig {
        seed: SEED,
        buffer: BufferConfig {
            size: 16 * 1024 * 1024,
            ..BufferConfig::default()
        },
        stop_time: Some(Time::ZERO + Delta::from_ms(500)),
        ..NetConfig::default()
    };
    net.pfc.enabled = false;
    net.nic.mtu_payload = 1024;
    net.nic.transport = net::Transport::PfcFree(net::transport::PfcFreeConfig {
        unit: 1024,
        message: request,
        io_depth: 8,
        ..Default::default()
    });
    BenchScenario {
        name: "pfc-free-incast",
        topo,
        flows,
        net,
    }
}

/// FlowSail-8Q with Web Server at 60% and the incast background on
/// FlowSail's 1024-host fat tree, 200 µs of arrivals (a tenth of
/// `experiments/flowsail/base.toml`'s), through the config layer as that
/// file and its FlowSail variant build it.
fn flowsail(o: &BenchOptions) -> BenchScenario {
    let (pods, default_window) = if o.smoke {
        (2, Delta::from_us(20))
    } else {
        (8, Delta::from_us(200))
    };
    let window = o.window.unwrap_or(default_window).ns();
    let text = format!(
        r#"[run]
seed = {SEED}
[topology]
kind = "flowsail_fat_tree"
pods = {pods}
[workload]
kind = "poisson"
cdf = "fb_webserver"
load = 0.6
load_on = "core"
duration = "{window}ns"
dport = 100
[[workload.extra]]
kind = "incast_background"
share = 0.1
degree = {degree}
duration = "{window}ns"
dport = 200
[cc]
kind = "none"
[buffer]
size = "12MB"
[nic]
rto = "off"
[ports.fabric]
fc = "flowsail"
flowsail_queues = 8
[ports.hosts]
fc = "flowsail"
"#,
        // A 50-to-1 incast needs 51 hosts; the smoke tree has 16.
        degree = if o.smoke { 8 } else { 50 },
    );
    let cfg = crate::config::parse_config(&text, "<bench flowsail>")
        .expect("the flowsail bench config is valid");
    let s = crate::config::build_scenario(&cfg, std::path::Path::new("."))
        .expect("the flowsail bench scenario builds");
    BenchScenario {
        name: "flowsail",
        topo: s.topo,
        flows: s.flows,
        net: s.net,
    }
}

/// Build scenario `name` ([`SCENARIOS`], [`ON_REQUEST`]); `None` for an
/// unknown name.
pub fn build(name: &str, o: &BenchOptions) -> Option<BenchScenario> {
    Some(match name {
        "fat-dcqcn" => fat("fat-dcqcn", false, o),
        "fat-hpcc" => fat("fat-hpcc", true, o),
        "incast" => incast(o),
        "longhaul" => longhaul(o),
        "pfc-free-incast" => pfc_free_incast(o),
        "fat-k34" => fat_k34(o),
        "flowsail" => flowsail(o),
        _ => return None,
    })
}

/// Forget the process's peak resident memory so far (Linux ≥ 4.0:
/// `echo 5 > /proc/self/clear_refs`); false where that is not possible.
fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// Why scenario `name` cannot run on `o.threads` threads (its network
/// cuts into fewer partitions), or an unknown name; `Ok` if it can.
pub fn check_threads(name: &str, o: &BenchOptions) -> Result<(), String> {
    let s = build(name, o).ok_or_else(|| format!("no scenario '{name}'"))?;
    if o.threads <= 1 {
        return Ok(());
    }
    partition(&s.topo, o.threads).map(drop)
}

/// The partition map for `threads` threads (`None`: one).
fn partition(topo: &Topology, threads: u32) -> Result<Option<PartitionMap>, String> {
    if threads <= 1 {
        return Ok(None);
    }
    PartitionMap::new(topo, &PartitionSpec::auto(threads))
        .map(Some)
        .map_err(|e| e.message)
}

/// Build and run scenario `name`; `None` for an unknown name.
///
/// # Panics
/// If it cannot run on `o.threads` threads ([`check_threads`] says why).
pub fn run(name: &str, o: &BenchOptions) -> Option<BenchRow> {
    reset_peak_rss();
    let BenchScenario {
        name,
        topo,
        flows,
        net,
    } = build(name, o)?;
    let n_flows = flows.len() as u64;
    let map = partition(&topo, o.threads).expect("checked by check_threads");
    let make = || {
        Simulation::new(&topo, flows.clone(), net.clone())
            .expect("bench scenarios are built from valid parts")
    };
    let replicas: Vec<Simulation> = (0..map.as_ref().map_or(1, PartitionMap::parts))
        .map(|_| make())
        .collect();
    drop(flows);
    let cpu0 = procstat::cpu_seconds();
    let wall0 = Instant::now();
    let sim = match &map {
        Some(map) => Simulation::run_parallel(replicas, map, u64::MAX, |_| {}).0,
        None => {
            let mut sim = replicas.into_iter().next().expect("one replica");
            sim.run();
            sim
        }
    };
    let wall_s = wall0.elapsed().as_secs_f64();
    let cpu_s = match (cpu0, procstat::cpu_seconds()) {
        (Some(a), Some(b)) => b - a,
        _ => wall_s,
    };
    let results = sim.results();
    drop(sim);
    let name = match &map {
        Some(m) => format!("{name}/t{}", m.parts()),
        None => name.to_string(),
    };
    Some(row(&name, &topo, n_flows, &results, wall_s, cpu_s))
}

/// Data frames sent by switch ports whose link leads to a host.
fn data_frames_to_hosts(topo: &Topology, r: &RunResults) -> u64 {
    let adj = topo.adjacency();
    r.ports
        .iter()
        .filter(|p| p.is_switch)
        .filter(|p| {
            let link = adj.ports(p.node)[usize::from(p.port)];
            topo.is_host(topo.links[link as usize].other(p.node))
        })
        .map(|p| p.counters.tx_data)
        .sum()
}

fn row(
    name: &str,
    topo: &Topology,
    n_flows: u64,
    r: &RunResults,
    wall_s: f64,
    cpu_s: f64,
) -> BenchRow {
    BenchRow {
        name: name.to_string(),
        sim_time_ns: r.end_time.ns(),
        flows: n_flows,
        finished: r.flows.iter().filter(|f| f.end.is_some()).count() as u64,
        drops: r.drops(),
        packets: data_frames_to_hosts(topo, r),
        packet_hops: r.packet_hops,
        events: r.events,
        wall_s,
        cpu_s,
        peak_rss_mb: procstat::peak_rss_mb(),
    }
}

/// Column headers of [`table`].
pub const COLUMNS: [&str; 13] = [
    "scenario",
    "sim_time",
    "flows",
    "finished",
    "drops",
    "packets",
    "packet_hops",
    "events",
    "events_per_s",
    "packet_hops_per_s",
    "wall_s",
    "cpu_s",
    "peak_rss_mb",
];

/// Column headers of [`csv`]: [`COLUMNS`] with the unit of the simulated
/// time in its name (the table prints it with its unit, e.g. `822.5us`).
pub const CSV_COLUMNS: [&str; 13] = {
    let mut c = COLUMNS;
    c[1] = "sim_time_ns";
    c
};

/// The rows as an aligned text table, one line per scenario after the
/// header. Rates are per CPU second ([`BenchRow::rate_seconds`]).
pub fn table(rows: &[BenchRow]) -> String {
    let fmt = |r: &BenchRow| -> [String; 13] {
        [
            r.name.clone(),
            fmt_ns(r.sim_time_ns),
            r.flows.to_string(),
            r.finished.to_string(),
            r.drops.to_string(),
            r.packets.to_string(),
            r.packet_hops.to_string(),
            r.events.to_string(),
            fmt_count(r.events_per_s()),
            fmt_count(r.packet_hops_per_s()),
            format!("{:.2}", r.wall_s),
            format!("{:.2}", r.cpu_s),
            r.peak_rss_mb
                .map(|m| format!("{m:.1}"))
                .unwrap_or_else(|| "-".into()),
        ]
    };
    let cells: Vec<[String; 13]> = rows.iter().map(fmt).collect();
    let mut width = COLUMNS.map(str::len);
    for c in &cells {
        for (w, s) in width.iter_mut().zip(c) {
            *w = (*w).max(s.chars().count());
        }
    }
    let mut out = String::new();
    let line = |out: &mut String, c: &[String]| {
        for (i, s) in c.iter().enumerate() {
            let pad = width[i] - s.chars().count();
            if i == 0 {
                let _ = write!(out, "{s}{}", " ".repeat(pad));
            } else {
                let _ = write!(out, "  {}{s}", " ".repeat(pad));
            }
        }
        out.push('\n');
    };
    line(&mut out, &COLUMNS.map(String::from));
    for c in &cells {
        line(&mut out, c);
    }
    out
}

/// The rows as CSV with a header ([`CSV_COLUMNS`]): simulated time in ns, wall
/// and CPU time in s (ms precision), rates per [`BenchRow::rate_seconds`], peak RSS in MiB
/// (empty where unknown).
pub fn csv(rows: &[BenchRow]) -> String {
    let mut out = CSV_COLUMNS.join(",");
    out.push('\n');
    for r in rows {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{:.0},{:.0},{:.3},{:.3},{}",
            r.name,
            r.sim_time_ns,
            r.flows,
            r.finished,
            r.drops,
            r.packets,
            r.packet_hops,
            r.events,
            r.events_per_s(),
            r.packet_hops_per_s(),
            r.wall_s,
            r.cpu_s,
            r.peak_rss_mb.map(|m| format!("{m:.1}")).unwrap_or_default(),
        );
    }
    out
}

/// Read back what [`csv`] wrote (how `rdmasim bench` collects the rows of
/// scenarios it runs in child processes).
pub fn parse_csv(text: &str) -> Result<Vec<BenchRow>, String> {
    let mut lines = text.lines();
    match lines.next() {
        Some(h) if h == CSV_COLUMNS.join(",") => {}
        h => return Err(format!("unexpected header {h:?}")),
    }
    lines
        .filter(|l| !l.is_empty())
        .map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            if c.len() != CSV_COLUMNS.len() {
                return Err(format!("{} fields in '{l}'", c.len()));
            }
            let int = |i: usize| -> Result<u64, String> {
                c[i].parse()
                    .map_err(|_| format!("{}: '{}' is not a count", CSV_COLUMNS[i], c[i]))
            };
            let real = |i: usize| -> Result<f64, String> {
                c[i].parse()
                    .map_err(|_| format!("{}: '{}' is not a number", CSV_COLUMNS[i], c[i]))
            };
            Ok(BenchRow {
                name: c[0].to_string(),
                sim_time_ns: int(1)?,
                flows: int(2)?,
                finished: int(3)?,
                drops: int(4)?,
                packets: int(5)?,
                packet_hops: int(6)?,
                events: int(7)?,
                wall_s: real(10)?,
                cpu_s: real(11)?,
                peak_rss_mb: if c[12].is_empty() {
                    None
                } else {
                    Some(real(12)?)
                },
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The peer's config files, with the topology and flow paths replaced.
    fn peer_cfg(hpcc: bool, topo: &str, flows: &str, fct: &str) -> String {
        let (mode, ai, hai, win, fast, multi, ack) = if hpcc {
            ("3", "50Mb/s", "50Mb/s", "1", "1", "4", "0")
        } else {
            ("1", "20Mb/s", "200Mb/s", "0", "0", "1", "1")
        };
        format!(
            "ENABLE_QCN 1\nUSE_DYNAMIC_PFC_THRESHOLD 1\nPACKET_PAYLOAD_SIZE 1000\n\
             TOPOLOGY_FILE {topo}\nFLOW_FILE {flows}\nTRACE_FILE trace_none.txt\n\
             TRACE_OUTPUT_FILE out/mix.tr\nFCT_OUTPUT_FILE {fct}\n\
             SIMULATOR_STOP_TIME 2.2\nCC_MODE {mode}\nALPHA_RESUME_INTERVAL 1\n\
             RATE_DECREASE_INTERVAL 4\nCLAMP_TARGET_RATE 0\nRP_TIMER 300\n\
             EWMA_GAIN 0.00390625\nFAST_RECOVERY_TIMES 1\nRATE_AI {ai}\nRATE_HAI {hai}\n\
             MIN_RATE 1000Mb/s\nDCTCP_RATE_AI 1000Mb/s\nERROR_RATE_PER_LINK 0.0000\n\
             L2_CHUNK_SIZE 4000\nL2_ACK_INTERVAL 1\nL2_BACK_TO_ZERO 0\nHAS_WIN {win}\n\
             GLOBAL_T 1\nVAR_WIN {win}\nFAST_REACT {fast}\nU_TARGET 0.95\nMI_THRESH 0\n\
             INT_MULTI {multi}\nMULTI_RATE 0\nSAMPLE_FEEDBACK 0\nPINT_LOG_BASE 1.01\n\
             PINT_PROB 1.0\nRATE_BOUND 1\nACK_HIGH_PRIO {ack}\nLINK_DOWN 0 0 0\n\
             ENABLE_TRACE 0\n\
             KMAX_MAP 2 100000000000 1600 400000000000 6400\n\
             KMIN_MAP 2 100000000000 400 400000000000 1600\n\
             PMAX_MAP 2 100000000000 0.20 400000000000 0.20\nBUFFER_SIZE 32\n\
             QLEN_MON_FILE out/qlen.txt\nQLEN_MON_START 3200000000\nQLEN_MON_END 3200000000\n"
        )
    }

    #[test]
    fn fat_scenarios_use_the_network_of_the_peer_configs() {
        let dir = std::env::temp_dir().join(format!("rdmasim-bench-peer-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let topo = topo::peer_fat_tree();
        let topo_path = dir.join("fat.txt");
        std::fs::write(&topo_path, topo::write_peer_topology(&topo)).unwrap();
        let flows = websearch(topo.hosts(), Rate::gbps(100), 0.3, Delta::from_us(5));
        let flow_path = dir.join("flows.txt");
        std::fs::write(&flow_path, workload::write_peer_flows(&flows)).unwrap();
        for hpcc in [false, true] {
            let cfg_path = dir.join(format!("cfg-{hpcc}.txt"));
            let text = peer_cfg(
                hpcc,
                topo_path.to_str().unwrap(),
                flow_path.to_str().unwrap(),
                dir.join("fct.txt").to_str().unwrap(),
            );
            std::fs::write(&cfg_path, text).unwrap();
            let peer = crate::peer_config::load_peer_config(&cfg_path).unwrap();
            let mut expected = peer.scenario.net.clone();
            expected.stop_time = None;
            // QLEN_MON_START 3.2 s is after the stop time: the peer's
            // monitor records nothing, and the bench writes no files.
            expected.qlen_monitor = None;
            assert_eq!(peer_net(hpcc), expected, "hpcc = {hpcc}");
            assert_eq!(peer.scenario.topo, topo);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn every_scenario_builds_in_both_sizes() {
        for smoke in [true, false] {
            let o = BenchOptions {
                smoke,
                window: None,
                threads: 1,
            };
            for name in SCENARIOS {
                let s = build(name, &o).unwrap();
                assert_eq!(s.name, name);
                assert!(!s.flows.is_empty(), "{name}");
                assert!(s.flows.windows(2).all(|w| w[0].start <= w[1].start));
                s.topo.validate(name, None).unwrap();
            }
        }
        assert!(build("nope", &BenchOptions::default()).is_none());
    }

    #[test]
    fn the_full_fat_tree_run_has_the_peer_workload_size() {
        let s = build("fat-dcqcn", &BenchOptions::default()).unwrap();
        // The peer's ws30_5ms.txt has 3,236 flows; a Poisson draw of the
        // same load lands within a few percent of it.
        let n = s.flows.len();
        assert!((3000..3900).contains(&n), "{n} flows");
    }

    #[test]
    fn smoke_runs_finish_every_flow() {
        let o = BenchOptions {
            smoke: true,
            window: None,
            threads: 1,
        };
        let rows: Vec<BenchRow> = SCENARIOS.iter().map(|n| run(n, &o).unwrap()).collect();
        for r in &rows {
            assert!(r.clean(), "{r:?}");
            assert!(r.packets > 0 && r.packet_hops > r.packets && r.events > 0);
        }
        let t = table(&rows);
        assert_eq!(t.lines().count(), 1 + rows.len());
        let c = csv(&rows);
        assert!(c.starts_with("scenario,sim_time_ns,flows,finished,drops,"));
        assert_eq!(c.lines().count(), 1 + rows.len());
        // The CSV reads back to the same rows, times to the millisecond.
        let back = parse_csv(&c).unwrap();
        assert_eq!(back.len(), rows.len());
        for (a, b) in rows.iter().zip(&back) {
            assert_eq!(
                (&a.name, a.flows, a.finished),
                (&b.name, b.flows, b.finished)
            );
            assert_eq!((a.drops, a.packets), (b.drops, b.packets));
            assert_eq!((a.packet_hops, a.events), (b.packet_hops, b.events));
            assert_eq!(a.sim_time_ns, b.sim_time_ns);
            assert!((a.cpu_s - b.cpu_s).abs() < 1e-3 && (a.wall_s - b.wall_s).abs() < 1e-3);
        }
        assert!(parse_csv("nope\n").is_err());
    }
}
