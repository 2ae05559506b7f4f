//! Running a scenario: build the simulation, run it with an optional
//! progress line, turn the results into flow records and a summary, check
//! the run's invariants and write the output files.

use crate::config::{PfcModeKey, TransportKind};
use crate::error::ExperimentError;
use crate::fmt::{fmt_count, fmt_time};
use crate::output;
use crate::procstat;
use crate::scenario::{RunOptions, Scenario};
use crate::summary::{Counters, EngineStats, FlowCounts, PfcFreeSummary, Summary, WatchdogSummary};
use engine::{InputError, Time};
use net::parallel::ParallelStats;
use net::{NetConfig, ProgressInfo, RunResults, Simulation};
use stats::{size_buckets, FlowRecord, DEFAULT_SIZE_EDGES};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The outcome of a run.
#[derive(Clone, Debug)]
pub struct RunReport {
    /// One record per flow, in flow-id order.
    pub records: Vec<FlowRecord>,
    /// What `summary.json` holds.
    pub summary: Summary,
    /// Checked invariants that failed, as sentences (a lossless drop,
    /// unfinished flows). Empty for a clean run; the CLI exits with 1
    /// otherwise.
    pub invariant_failures: Vec<String>,
    /// The run directory written, if any.
    pub out_dir: Option<PathBuf>,
    /// Things worth saying that are not failures (a time series cut short).
    pub notes: Vec<String>,
}

/// How often (in events) the event loop hands control to the progress
/// callback; cheap enough to be unmeasurable, frequent enough for a
/// once-a-second line.
const PROGRESS_EVERY: u64 = 1 << 16;

/// Run `s`, writing its outputs into `out_dir` (if given) and to its peer
/// output paths (if any).
///
/// The run directory is written in full into `<out_dir>.tmp-<pid>` and then
/// renamed into place, replacing an earlier run directory at `out_dir`, so
/// a directory at `out_dir` is always complete. A directory at `out_dir`
/// that holds anything but rdmasim's outputs is never replaced: that is an
/// input error, reported before the run starts.
///
/// Files: `flows.csv`, `summary.json`, `fct.txt` (peer format, completion
/// order), `pfc.txt` when PFC recording is on, and `config.toml` when
/// [`RunOptions::config_toml`] is set.
pub fn run_scenario(
    mut s: Scenario,
    out_dir: Option<&Path>,
    opts: &RunOptions,
) -> Result<RunReport, ExperimentError> {
    if let Some(dir) = out_dir {
        output::check_replaceable(dir)?;
        output::check_writable(dir)?;
    }
    if let Some(peer) = &s.peer_outputs {
        output::check_peer_outputs(peer)?;
    }
    let record_pfc = s.record_pfc || s.peer_outputs.as_ref().is_some_and(|p| p.pfc.is_some());
    let n_flows = s.flows.len();
    let map = match &opts.engine {
        Some(spec) => Some(crate::threads::partition(spec, &s.topo, &s.name)?),
        None => None,
    };
    let parts = map.as_ref().map_or(1, |m| m.parts());
    // The replicas of the other partitions are built from a copy.
    let flows_copy = (parts > 1).then(|| s.flows.clone());
    let flows = std::mem::take(&mut s.flows);
    let announce = opts.progress && !opts.quiet;
    let (mut sim, notes) = build_simulation(&s, flows, opts.timeseries.as_ref(), announce)?;
    if let Some(c) = &opts.capture {
        sim.capture(c.clone()).map_err(|e| {
            ExperimentError::Input(InputError::at(s.name.as_str(), None, "capture", e))
        })?;
    }
    sim.record_pfc(record_pfc);
    let map = map.filter(|m| m.parts() > 1);
    let print_notes = |notes: &[String]| {
        if opts.print_notes {
            for n in notes {
                eprintln!("rdmasim: note: {n}");
            }
        }
    };
    print_notes(&opts.config_notes);
    print_notes(&notes);
    // The config's notes (the defaults a run relies on) are the run's
    // first notes, in summary.json too.
    let mut notes: Vec<String> = opts.config_notes.iter().cloned().chain(notes).collect();
    let notes_before_run = notes.len();

    let show = opts.progress && !opts.quiet && std::io::stderr().is_terminal();
    let cpu0 = procstat::cpu_seconds();
    let wall0 = Instant::now();
    let mut progress = Progress::new(show, wall0, s.net.stop_time);
    let (mut sim, par) = match (map, flows_copy) {
        (Some(map), Some(flows)) => {
            let build = || {
                let (mut sim, _) =
                    build_simulation(&s, flows.clone(), opts.timeseries.as_ref(), false)
                        .expect("the same network built before");
                if let Some(c) = &opts.capture {
                    sim.capture(c.clone())
                        .expect("the same capture set up before");
                }
                sim.record_pfc(record_pfc);
                sim
            };
            let replicas = crate::threads::replicas(sim, map.parts(), &build);
            Simulation::run_parallel(replicas, &map, PROGRESS_EVERY, |p| progress.update(p))
        }
        _ => {
            sim.run_with_progress(PROGRESS_EVERY, |p| progress.update(p));
            let one = ParallelStats {
                threads: 1,
                ..ParallelStats::default()
            };
            (sim, one)
        }
    };
    progress.finish();
    let wall = wall0.elapsed();
    let cpu_s = match (cpu0, procstat::cpu_seconds()) {
        (Some(a), Some(b)) => b - a,
        _ => wall.as_secs_f64(),
    };
    let results = sim.results();
    let timeseries = sim.take_timeseries();
    let capture = sim.take_capture();
    let mut bifrost_csv = String::new();
    for (node, port, h, trace) in sim.bifrost_traces() {
        output::append_bifrost_trace(&mut bifrost_csv, node, port, h, trace);
    }
    drop(sim);
    if let Some(t) = timeseries.as_ref().and_then(|ts| ts.truncated_at) {
        notes.push(format!(
            "the time series stopped at {} on reaching [timeseries] max_mb",
            fmt_time(t)
        ));
    }
    if let Some(t) = capture.as_ref().and_then(|c| c.truncated_at) {
        notes.push(format!(
            "the packet capture stopped at {} on reaching [capture] max_frames",
            fmt_time(t)
        ));
    }
    print_notes(&notes[notes_before_run..]);

    let records = flow_records(&results);
    let mut summary = summarize(&s.name, &s.net, &results, &records, wall, cpu_s, &notes);
    engine_parallel(&mut summary.engine, &par);
    let messages = crate::messages::message_records(&s.messages, &records);
    summary.messages = crate::messages::message_summary(&messages);
    let invariant_failures = invariants(&s.net, &results, &summary, n_flows);

    if let Some(dir) = out_dir {
        let files = output::RunFiles {
            records: &records,
            summary: &summary,
            completion_order: &results.completion_order,
            pfc_log: record_pfc.then_some(results.pfc_log.as_slice()),
            config_toml: opts.config_toml.as_deref(),
            timeseries: timeseries.as_ref(),
            ports: &results.ports,
            bifrost_trace: (!bifrost_csv.is_empty()).then_some(bifrost_csv.as_str()),
            watchdog: s.net.pfc.watchdog.is_some(),
            sonic: s.net.sonic.is_some(),
            capture: capture.as_ref(),
            hosts: &results.host_cpu,
            sim_ns: results.end_time.ns(),
            messages: (!messages.is_empty()).then_some(messages.as_slice()),
        };
        output::write_run_dir(dir, &files)?;
    }
    if let Some(peer) = &s.peer_outputs {
        output::write_peer_outputs(peer, &records, &results)?;
    }
    Ok(RunReport {
        records,
        summary,
        invariant_failures,
        out_dir: out_dir.map(Path::to_path_buf),
        notes,
    })
}

/// The simulation of `s` with `flows` (the scenario's, taken out of it),
/// built and with its time series set up, and the notes known before it
/// runs: the scenario's, the network's, and IRN over PFC.
/// Switch·host pairs from which building a network announces itself: a
/// k = 32 fat tree, 8,192 hosts and 1,280 switches, is about 10^7 pairs.
/// Routes are computed from every switch to every group of hosts (a ToR),
/// not to every host, so the build takes less than a second of CPU at that
/// size, and about 5 s and 1.1 GB at k = 64 (65,536 hosts, 5,120
/// switches; docs/performance.md, "A fabric of ten thousand hosts"), during
/// which a run would otherwise be silent.
const LARGE_FABRIC_PAIRS: usize = 10_000_000;

/// Whether a network of `hosts` and `switches` is large enough to say that
/// it is being built, and how long that took.
fn is_large_fabric(hosts: usize, switches: usize) -> bool {
    hosts.saturating_mul(switches) >= LARGE_FABRIC_PAIRS
}

fn build_simulation(
    s: &Scenario,
    flows: Vec<workload::FlowSpec>,
    timeseries: Option<&net::monitor::MonitorConfig>,
    announce: bool,
) -> Result<(Simulation, Vec<String>), ExperimentError> {
    let hosts = s
        .topo
        .kinds
        .iter()
        .filter(|k| **k == topo::NodeKind::Host)
        .count();
    let switches = s.topo.kinds.len() - hosts;
    let large = is_large_fabric(hosts, switches);
    let built0 = Instant::now();
    if announce && large {
        eprintln!(
            "rdmasim: building the network: {hosts} hosts, {switches} switches, {} links \
             (its routes and ports take a moment at this size)",
            s.topo.links.len()
        );
    }
    let sim = Simulation::new(&s.topo, flows, s.net.clone());
    if announce && large {
        eprintln!(
            "rdmasim: network built in {:.1} s",
            built0.elapsed().as_secs_f64()
        );
    }
    let mut sim = sim.map_err(|e| {
        // The section of the config that the error is about.
        let field = match e {
            net::BuildError::BadPortRule { .. } => "ports",
            net::BuildError::NoSuchLink(..) => "link_down",
            net::BuildError::NoStormLink(..) => "pfc_storm",
            net::BuildError::BadFlow { .. } | net::BuildError::Unsorted(_) => "workload",
        };
        ExperimentError::Input(InputError::at(s.name.as_str(), None, field, e.to_string()))
    })?;
    if let Some(m) = timeseries {
        sim.monitor(m.clone()).map_err(|e| {
            ExperimentError::Input(InputError::at(s.name.as_str(), None, "timeseries", e))
        })?;
    }
    let mut notes = s.notes.clone();
    notes.extend_from_slice(sim.warnings());
    if s.net.pfc.enabled && matches!(s.net.nic.transport, net::Transport::Irn(_)) {
        // Allowed (an experiment may want it), but IRN is designed to make
        // PFC unnecessary (IRN; Swing §4.2).
        notes.push(
            "IRN ran over PFC ([pfc] enabled = true); IRN is meant for a lossy fabric, \
             set enabled = false or leave it out"
                .to_string(),
        );
    }
    Ok((sim, notes))
}

/// Whether a flow due at `start` never starts in a run stopped at `stop`:
/// a run handles the events due at the stop time, and none after it.
fn never_starts(start: Time, stop: Option<Time>) -> bool {
    stop.is_some_and(|stop| start > stop)
}

/// What `rdmasim check` says of a scenario built (its network included)
/// but not run.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckReport {
    /// The scenario's name.
    pub name: String,
    /// Seed of every random stream.
    pub seed: u64,
    /// Hosts in the topology.
    pub hosts: usize,
    /// Switches in the topology.
    pub switches: usize,
    /// Links (each joins two nodes, both ways).
    pub links: usize,
    /// Flows in the workload.
    pub flows: usize,
    /// Start of the first flow and of the last, if there are flows.
    pub starts: Option<(Time, Time)>,
    /// The stop time, if any.
    pub stop: Option<Time>,
    /// Flows that start after the stop time: a run would never start them.
    pub after_stop: usize,
    /// Congestion control, as `summary.json` names it.
    pub cc: String,
    /// PFC mode, as `summary.json` names it.
    pub pfc: String,
    /// Reliability, as `summary.json` names it.
    pub transport: String,
    /// Whether switches mark ECN.
    pub ecn: bool,
    /// Ports with settings of their own (`[ports]`, Swing relays).
    pub ports_with_own_settings: usize,
    /// What a run would note before it starts.
    pub notes: Vec<String>,
}

/// Build `s`'s network, as a run would, without running it: every error a
/// run would give before it starts, and what it would run.
pub fn check_scenario(
    mut s: Scenario,
    timeseries: Option<&net::monitor::MonitorConfig>,
) -> Result<CheckReport, ExperimentError> {
    let flows = std::mem::take(&mut s.flows);
    let starts = flows
        .first()
        .zip(flows.last())
        .map(|(a, b)| (a.start, b.start));
    let n_flows = flows.len();
    let after_stop = flows
        .iter()
        .filter(|f| never_starts(f.start, s.net.stop_time))
        .count();
    let (_, notes) = build_simulation(&s, flows, timeseries, true)?;
    let hosts = s
        .topo
        .kinds
        .iter()
        .filter(|k| **k == topo::NodeKind::Host)
        .count();
    let mut own: Vec<(u32, bool)> = s.net.ports.iter().map(|r| (r.link, r.at_b)).collect();
    own.sort_unstable();
    own.dedup();
    Ok(CheckReport {
        name: s.name.clone(),
        seed: s.net.seed,
        hosts,
        switches: s.topo.kinds.len() - hosts,
        links: s.topo.links.len(),
        flows: n_flows,
        starts,
        stop: s.net.stop_time,
        after_stop,
        cc: s.net.cc.name().to_string(),
        pfc: pfc_name(&s.net).to_string(),
        transport: TransportKind::of(&s.net.nic.transport).name().to_string(),
        ecn: s.net.ecn.enabled,
        ports_with_own_settings: own.len(),
        notes,
    })
}

/// One [`FlowRecord`] per flow outcome, in the order of `results.flows`.
pub fn flow_records(results: &RunResults) -> Vec<FlowRecord> {
    results
        .flows
        .iter()
        .map(|f| {
            let start_ns = f.start.ns();
            let end_ns = f.end.map(Time::ns);
            let fct_ns = f.end.map(|e| e.since(f.start).ns());
            let slowdown = fct_ns.map(|fct| fct as f64 / f.ideal_fct_ns.max(1) as f64);
            FlowRecord {
                id: f.id,
                src: f.src,
                dst: f.dst,
                size: f.size,
                start_ns,
                end_ns,
                fct_ns,
                ideal_fct_ns: f.ideal_fct_ns,
                slowdown,
                pg: f.pg,
                dport: f.dport,
                sport: f.sport,
                retransmitted_bytes: f.retransmitted,
                paused_ns: 0,
            }
        })
        .collect()
}

fn pfc_name(net: &NetConfig) -> &'static str {
    match (net.pfc.enabled, net.pfc.mode) {
        (false, _) => "off",
        (true, mode) => PfcModeKey::of(&mode).name(),
    }
}

fn per_second(n: u64, wall: Duration) -> f64 {
    let s = wall.as_secs_f64();
    if s > 0.0 {
        n as f64 / s
    } else {
        0.0
    }
}

fn summarize(
    name: &str,
    net: &NetConfig,
    results: &RunResults,
    records: &[FlowRecord],
    wall: Duration,
    cpu_s: f64,
    notes: &[String],
) -> Summary {
    let total = records.len() as u64;
    let finished = records.iter().filter(|r| r.is_finished()).count() as u64;
    let endless = records
        .iter()
        .filter(|r| !r.is_finished() && r.size == workload::ENDLESS)
        .count() as u64;
    let drops = results.drops();
    Summary {
        name: name.to_string(),
        seed: net.seed,
        cc: net.cc.name().to_string(),
        pfc: pfc_name(net).to_string(),
        transport: TransportKind::of(&net.nic.transport).name().to_string(),
        flows: FlowCounts {
            total,
            finished,
            unfinished: total - finished - endless,
            not_started: results
                .flows
                .iter()
                .filter(|f| f.end.is_none() && f.size != workload::ENDLESS)
                .filter(|f| never_starts(f.start, net.stop_time))
                .count() as u64,
            endless,
        },
        slowdown: size_buckets(records, &DEFAULT_SIZE_EDGES),
        counters: Counters {
            drops,
            // Drops at ports under flow control: a port given `fc =
            // "lossy"` (or a fabric with PFC off) may drop by design, and
            // so may a SONiC switch's lossy classes.
            lossless_drops: results
                .ports
                .iter()
                .filter(|p| p.lossless)
                .map(|p| lossless_class_drops(net, p))
                .sum(),
            pause_frames: results.pause_frames(),
            resume_frames: results.resume_frames(),
            paused_ns: results.paused_ps() / 1_000,
            host_paused_ns: results
                .ports
                .iter()
                .filter(|p| !p.is_switch)
                .map(|p| p.fc.paused_ps.iter().sum::<u64>())
                .sum::<u64>()
                / 1_000,
            ecn_marks: results.ecn_marks(),
            corrupted: results.corrupted(),
            retransmitted_bytes: results.flows.iter().map(|f| f.retransmitted).sum(),
            timeouts: results.flows.iter().map(|f| u64::from(f.timeouts)).sum(),
        },
        watchdog: net
            .pfc
            .watchdog
            .is_some()
            .then(|| WatchdogSummary::of(&results.ports)),
        pfc_free: results
            .pfc_free
            .as_ref()
            .map(|t| PfcFreeSummary::of(t, results.end_time.ns())),
        sonic_buffer: crate::summary::SonicSwitchSummary::of(results),
        host_cpu: crate::summary::HostCpuSummary::of(&results.host_cpu, results.end_time.ns()),
        messages: None,
        engine: EngineStats {
            events: results.events,
            packet_hops: results.packet_hops,
            sim_time_ns: results.end_time.ns(),
            wall_s: wall.as_secs_f64(),
            cpu_s,
            events_per_s: per_second(results.events, wall),
            packet_hops_per_s: per_second(results.packet_hops, wall),
            peak_rss_mb: procstat::peak_rss_mb(),
            threads: 1,
            windows: 0,
            end_windows: 0,
            cut_frames: 0,
            barrier_wait_s: 0.0,
            imbalance: 1.0,
        },
        notes: notes.to_vec(),
    }
}

/// What the parallel engine did, in the summary's engine section.
fn engine_parallel(e: &mut EngineStats, par: &ParallelStats) {
    e.threads = par.threads;
    e.windows = par.windows;
    e.end_windows = par.end_windows;
    e.cut_frames = par.cut_frames.iter().sum();
    e.barrier_wait_s = par
        .barrier_wait
        .iter()
        .map(Duration::as_secs_f64)
        .fold(0.0, f64::max);
    e.imbalance = imbalance(&par.events);
}

/// Events of the busiest partition over the mean (1 = balanced).
fn imbalance(events: &[u64]) -> f64 {
    let total: u64 = events.iter().sum();
    let max = events.iter().copied().max().unwrap_or(0);
    if total == 0 {
        return 1.0;
    }
    max as f64 * events.len() as f64 / total as f64
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The checked invariants of a finished run (rdmasim's own rule): no
/// drop in a lossless fabric, every flow finished.
fn invariants(
    net: &NetConfig,
    results: &RunResults,
    summary: &Summary,
    n_flows: usize,
) -> Vec<String> {
    let mut out = Vec::new();
    if n_flows == 0 {
        out.push(
            "the workload has no flows, so nothing was simulated (too low a load or too \
             short a duration for one arrival?)"
                .to_string(),
        );
    }
    let lossless = summary.counters.lossless_drops;
    if lossless > 0 {
        out.push(format!(
            "{} dropped at ports under hop-by-hop flow control (a lossless fabric); the \
             headroom is too small or the buffer too shallow for this load",
            plural(lossless, "packet", "packets")
        ));
    }
    let unfinished = summary.flows.unfinished;
    if unfinished > 0 {
        let of = plural(n_flows as u64 - summary.flows.endless, "flow", "flows");
        let last = fmt_time(results.end_time);
        let (started, never) = (
            summary.flows.started_unfinished(),
            summary.flows.not_started,
        );
        out.push(match net.stop_time {
            // Flows due after the stop never started: told apart from those
            // cut off, which were still going (or waiting on a timer due
            // after the stop).
            Some(t) if never > 0 && started == 0 => format!(
                "{never} of {of} never started: they start after the stop time {}",
                fmt_time(t)
            ),
            Some(t) if never > 0 => format!(
                "{started} of {of} started but did not finish by the stop time {} (the last \
                 event before it ran at {last}), and {never} more never started: they start \
                 after it",
                fmt_time(t)
            ),
            Some(t) if results.events_pending => format!(
                "{unfinished} of {of} did not finish by the stop time {} (the last event \
                 before it ran at {last})",
                fmt_time(t)
            ),
            // Stalled: they wait on something that will never happen.
            _ => format!(
                "{unfinished} of {of} did not finish and nothing was left to happen after \
                 {last}: they stalled (a loss with no retransmission timeout, or a pause \
                 never resumed?)"
            ),
        });
    }
    if let Some(first) = results.delivery_failures.first() {
        out.push(format!(
            "{} not delivered exactly once to the receiving application (the first: {first})",
            plural(
                results.delivery_failures.len() as u64,
                "flow was",
                "flows were"
            )
        ));
    }
    out
}

/// The once-a-second progress line on stderr: simulated time (and the
/// stop time, which the run reaches at the latest), flows done and their
/// share, an estimate of the wall time left, events and their rate.
fn progress_line(
    p: &ProgressInfo,
    stop: Option<Time>,
    events_per_s: f64,
    elapsed: Duration,
) -> String {
    let until = stop.map_or(String::new(), |t| format!(" (stop {})", fmt_time(t)));
    let share = if p.flows_total > 0 {
        p.flows_finished as f64 / p.flows_total as f64
    } else {
        0.0
    };
    format!(
        "[rdmasim] t={}{until}  flows {}/{} done ({:.0}%)  ETA {}  events {}  ({} ev/s)",
        fmt_time(p.now),
        p.flows_finished,
        p.flows_total,
        share * 100.0,
        eta(share, elapsed),
        fmt_count(p.events as f64),
        fmt_count(events_per_s),
    )
}

/// The wall time left if the rest of the flows finish at the pace of
/// those finished in `elapsed` (`share` of them): a rough guide, as flows
/// that start later or wait longer break the pace. `-` before any flow
/// has finished.
fn eta(share: f64, elapsed: Duration) -> String {
    if share <= 0.0 {
        return "-".to_string();
    }
    let left = (elapsed.as_secs_f64() * (1.0 - share) / share).round() as u64;
    match left {
        0..=59 => format!("{left}s"),
        60..=3599 => format!("{}m{:02}s", left / 60, left % 60),
        _ => format!("{}h{:02}m", left / 3600, left % 3600 / 60),
    }
}

struct Progress {
    /// The run's stop time, if any.
    stop: Option<Time>,
    show: bool,
    start: Instant,
    last: Instant,
    shown: bool,
}

impl Progress {
    fn new(show: bool, start: Instant, stop: Option<Time>) -> Progress {
        Progress {
            stop,
            show,
            start,
            last: start,
            shown: false,
        }
    }

    fn update(&mut self, p: &ProgressInfo) {
        if !self.show {
            return;
        }
        let now = Instant::now();
        if now.duration_since(self.last) < Duration::from_secs(1) {
            return;
        }
        self.last = now;
        let elapsed = now.duration_since(self.start);
        let line = progress_line(p, self.stop, per_second(p.events, elapsed), elapsed);
        let mut err = std::io::stderr().lock();
        // \r returns to the start of the line, ESC[K clears what is left.
        let _ = write!(err, "\r{line}\x1b[K");
        let _ = err.flush();
        self.shown = true;
    }

    fn finish(&mut self) {
        if self.shown {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[K");
            let _ = err.flush();
        }
    }
}

/// Drops at port `p` (under flow control) in its lossless classes: every
/// class, except at a switch with SONiC's buffer model, whose lossy PGs
/// (profiles without headroom) drop by design (Azure App. A).
fn lossless_class_drops(net: &NetConfig, p: &net::PortReport) -> u64 {
    let profiles = net.sonic.as_ref().and_then(|s| {
        Some((
            &s.config,
            s.switches.get(&p.node)?.get(usize::from(p.port))?,
        ))
    });
    match profiles {
        // A class `[pfc] classes` leaves out is lossy on every port.
        None => (0..p.counters.drops.len())
            .filter(|&c| c == 0 || net.pfc.classes >> c & 1 == 1)
            .map(|c| p.counters.drops[c])
            .sum(),
        Some((cfg, pp)) => (0..p.counters.drops.len())
            .filter(|&c| pp.pg[c].is_some_and(|i| cfg.profiles[i].lossless()))
            .map(|c| p.counters.drops[c])
            .sum(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The progress line says how far the run is, where it stops, and how
    /// long it may take yet.
    #[test]
    fn the_progress_line_shows_the_stop_time_and_what_is_left() {
        let p = ProgressInfo {
            now: Time::from_ns(1_500_000),
            events: 2_000_000,
            flows_started: 40,
            flows_finished: 30,
            flows_total: 50,
        };
        let ten_s = Duration::from_secs(10);
        let line = progress_line(&p, Some(Time::from_ns(5_000_000)), 3e6, ten_s);
        assert!(
            line.starts_with(
                "[rdmasim] t=1.50ms (stop 5.00ms)  flows 30/50 done (60%)  ETA 7s  events "
            ),
            "{line}"
        );
        let line = progress_line(&p, None, 3e6, ten_s);
        assert!(
            line.starts_with("[rdmasim] t=1.50ms  flows 30/50 done (60%)  ETA 7s"),
            "{line}"
        );
        let none_done = ProgressInfo {
            flows_finished: 0,
            ..p
        };
        let line = progress_line(&none_done, None, 3e6, ten_s);
        assert!(line.contains("flows 0/50 done (0%)  ETA -  "), "{line}");
    }

    #[test]
    fn the_time_left_is_at_the_pace_so_far() {
        let secs = Duration::from_secs;
        assert_eq!(eta(0.0, secs(10)), "-");
        assert_eq!(eta(1.0, secs(10)), "0s");
        assert_eq!(eta(0.5, secs(10)), "10s");
        assert_eq!(eta(0.25, secs(100)), "5m00s");
        assert_eq!(eta(0.1, secs(1000)), "2h30m");
    }
}
