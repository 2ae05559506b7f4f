//! Stage 2: [`ConfigDoc`] → [`Scenario`], every value checked, each
//! section by the module that declares it.

use super::capture::capture;
use super::cc::build_cc;
use super::ctx::{Ctx, R};
use super::doc::{Config, ConfigDoc};
use super::fabric::{build_buffer, build_ecn, build_pfc};
use super::nic::{build_nic, build_transport, frame_above_buffer, TransportKind};
use super::ports::build_ports;
use super::timeseries::monitor;
use super::topology::build_topology;
use super::workload::build_workload;
use crate::error::ExperimentError;
use crate::fmt::fmt_time;
use crate::scenario::Scenario;
use engine::{InputError, Time};
use net::capture::CaptureConfig;
use net::cc::CcConfig;
use net::monitor::MonitorConfig;
use net::NetConfig;
use std::path::{Path, PathBuf};

/// How long past the last flow's start a run goes on by default, s.
pub const DEFAULT_STOP_AFTER_LAST_START_S: u64 = 1;

/// The directory a config's relative paths start from: the directory of
/// `config_path` (`""`, i.e. the current directory, for a bare file name).
pub fn base_dir(config_path: &Path) -> PathBuf {
    config_path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// Check every value of `cfg` and build the scenario. Relative paths in the
/// config (topology, flow and CDF files) are taken from `base_dir`, normally
/// [`base_dir`]`(config path)`.
pub fn build_scenario(cfg: &Config, base_dir: &Path) -> Result<Scenario, ExperimentError> {
    let cx = Ctx {
        file: &cfg.file,
        text: &cfg.text,
        base: base_dir,
    };
    let doc = &cfg.doc;
    let name = run_name(&cx, doc)?;
    let seed = doc.run.seed.unwrap_or(NetConfig::default().seed);

    let Some(ts) = &doc.topology else {
        return Err(ExperimentError::Input(InputError::at(
            cx.file,
            None,
            "topology",
            "missing; add a [topology] section (e.g. kind = \"fat_tree\", k = 4)",
        )));
    };
    let (topo, layout) = build_topology(&cx, ts)?;

    let Some(ws) = &doc.workload else {
        return Err(ExperimentError::Input(InputError::at(
            cx.file,
            None,
            "workload",
            "missing; add a [workload] section (e.g. kind = \"poisson\", load = 0.3, \
             duration = \"1ms\")",
        )));
    };
    let mut notes = Vec::new();
    let (flows, messages) = build_workload(&cx, ws, &topo, seed, &mut notes)?;

    let mut net = NetConfig {
        seed,
        ..NetConfig::default()
    };
    if let Some(e) = ts.error_rate_per_link {
        net.error_rate_per_link = cx.fraction("topology.error_rate_per_link", e, true)?;
    }
    if let Some(o) = ts.next_hop_order {
        net.next_hop_order = o.into();
    }
    for (i, f) in doc.link_down.iter().flatten().enumerate() {
        let path = format!("link_down[{i}]");
        let at = Time(cx.time(&format!("{path}.at"), &f.at)?.ps());
        let linked = topo
            .links
            .iter()
            .any(|l| (l.a, l.b) == (f.a, f.b) || (l.a, l.b) == (f.b, f.a));
        if !linked {
            return Err(cx.err(
                &format!("{path}.b"),
                format!("nodes {} and {} share no link", f.a, f.b),
            ));
        }
        net.link_down.push((at, f.a, f.b));
    }
    for (i, s) in doc.pfc_storm.iter().flatten().enumerate() {
        net.pfc_storms.push(build_storm(&cx, &topo, i, s)?);
    }
    net.stop_time = Some(match &doc.run.stop {
        Some(s) => {
            let stop = Time(cx.positive_time("run.stop", s)?.ps());
            // A stop at or before every flow's start runs nothing at all;
            // run, it would only report every flow unfinished at 0 ns, which
            // reads like a stall rather than the typo it is.
            if let Some(first) = flows.iter().map(|f| f.start).min() {
                if stop <= first {
                    return Err(cx.err("run.stop", stop_before_flows(s, stop, first, "")));
                }
            }
            stop
        }
        None => {
            let last = flows.last().map(|f| f.start).unwrap_or(Time::ZERO);
            Time(
                last.ps()
                    .saturating_add(DEFAULT_STOP_AFTER_LAST_START_S * 1_000_000_000_000),
            )
        }
    });
    net.cc = build_cc(&cx, &doc.cc)?;
    if let Some(f) = &doc.dcqcn_fleet {
        super::fleet::build_fleet(&cx, f, &topo, &mut net)?;
    }
    build_pfc(&cx, &doc.pfc, &mut net)?;
    build_buffer(&cx, &doc.buffer, &mut net)?;
    super::sonic::build_sonic(&cx, &doc.buffer, &topo, &flows, &mut net)?;
    build_ecn(&cx, &doc.ecn, &mut net)?;
    build_nic(&cx, &doc.nic, &mut net)?;
    if let Some(msg) = frame_above_buffer(&net) {
        let path = if doc.nic.mtu.is_some() {
            "nic.mtu"
        } else {
            "buffer.size"
        };
        return Err(cx.err(path, msg));
    }
    build_transport(
        &cx,
        &doc.transport,
        (doc.pfc.enabled.is_some(), doc.pfc.classes.is_some()),
        &mut net,
    )?;
    super::host::build_host(&cx, &doc.host, &mut net)?;
    build_ports(&cx, &doc.ports, &topo, layout.as_ref(), &mut net)?;
    // HPCC and DCTCP run with a BDP window scaled by rate, as the peer's
    // run.py sets them (HAS_WIN 1, VAR_WIN 1), unless the config says.
    if matches!(net.cc, CcConfig::Hpcc(_) | CcConfig::Dctcp(_)) {
        if doc.nic.bdp_window.is_none() {
            net.nic.bdp_window = true;
        }
        if doc.nic.var_win.is_none() {
            net.nic.var_win = true;
        }
    }

    Ok(Scenario {
        name,
        topo,
        flows,
        net,
        record_pfc: doc.output.record_pfc.unwrap_or(false),
        peer_outputs: None,
        notes,
        messages,
    })
}

/// The defaults a run of `cfg` relies on that change what it measures
/// and that a user may not expect, one sentence each: no congestion
/// control when `[cc] kind` is not given, and go-back-N's retransmission
/// timeout (which the peer does not have) when `[nic] rto` is not given.
/// `rdmasim run` and `rdmasim check` print them as notes before the run.
pub fn default_notes(cfg: &Config) -> Vec<String> {
    let doc = &cfg.doc;
    let mut notes = Vec::new();
    if doc.cc.kind.is_none() {
        notes.push(
            "no congestion control: the config sets no [cc] kind, whose default is \"none\" \
             (every QP sends at line rate); set kind = \"none\" to say so, or name a scheme"
                .to_string(),
        );
    }
    let go_back_n = matches!(doc.transport.kind, None | Some(TransportKind::GoBackN));
    if let (true, None, Some(rto)) = (go_back_n, &doc.nic.rto, NetConfig::default().nic.rto) {
        notes.push(format!(
            "go-back-N's retransmission timeout is on at its default of {} ([nic] rto; the \
             peer has none, and recovers a loss by NACK only); set rto = \"off\" to run as \
             the peer does, or set it to say so",
            crate::fmt::fmt_delta(rto)
        ));
    }
    notes
}

/// Why a stop time `written` (at `stop`) at or before the `first` flow's
/// start is refused; shared with the peer's config, which also says where
/// the flow is (`from`, e.g. `, flows.txt:2`).
pub(crate) fn stop_before_flows(written: &str, stop: Time, first: Time, from: &str) -> String {
    let when = if stop < first {
        "is before"
    } else {
        "is the time"
    };
    format!(
        "{written} {when} the first flow starts ({}{from}), so no flow would run; \
         set a later stop time",
        fmt_time(first)
    )
}

fn run_name(cx: &Ctx<'_>, doc: &ConfigDoc) -> R<String> {
    let name = match &doc.run.name {
        Some(n) => n.clone(),
        None => Path::new(cx.file)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "run".to_string()),
    };
    let bad = name.is_empty()
        || name == "."
        || name == ".."
        || name.contains(['/', '\\'])
        || name.chars().any(char::is_control);
    if bad {
        return Err(cx.err(
            "run.name",
            format!("'{name}' cannot name a run directory (use letters, digits, '-', '_', '.')"),
        ));
    }
    Ok(name)
}

/// The monitor settings of `cfg`'s `[timeseries]` section, checked against
/// the scenario built from it; `None` when the section is absent.
pub fn build_timeseries(
    cfg: &Config,
    s: &Scenario,
) -> Result<Option<MonitorConfig>, ExperimentError> {
    let cx = Ctx {
        file: &cfg.file,
        text: &cfg.text,
        base: Path::new(""),
    };
    match &cfg.doc.timeseries {
        Some(t) => monitor(&cx, t, s).map(Some),
        None => Ok(None),
    }
}

/// Default time between an injected storm's pause frames (rdmasim's
/// choice: the paper's storms are "continuous").
pub(super) const DEFAULT_STORM_INTERVAL: &str = "10us";

/// `[[pfc_storm]]` number `i`.
fn build_storm(
    cx: &Ctx<'_>,
    topo: &topo::Topology,
    i: usize,
    s: &super::doc::PfcStormSection,
) -> R<net::fc::StormConfig> {
    let path = format!("pfc_storm[{i}]");
    let linked = topo
        .links
        .iter()
        .any(|l| (l.a, l.b) == (s.node, s.peer) || (l.a, l.b) == (s.peer, s.node));
    if !linked {
        return Err(cx.err(
            &format!("{path}.peer"),
            format!("nodes {} and {} share no link", s.node, s.peer),
        ));
    }
    let class = s.class.unwrap_or(super::workload::DEFAULT_PG);
    if class == 0 || usize::from(class) >= net::wire::N_CLASSES {
        return Err(cx.err(
            &format!("{path}.class"),
            format!(
                "{class}: a storm pauses a class from 1 to {} (class 0 is never paused)",
                net::wire::N_CLASSES - 1
            ),
        ));
    }
    let at = |key: &str, v: &Option<String>| -> R<Option<Time>> {
        v.as_ref()
            .map(|v| Ok(Time(cx.time(&format!("{path}.{key}"), v)?.ps())))
            .transpose()
    };
    let start = at("start", &s.start)?.unwrap_or(Time::ZERO);
    let stop = at("stop", &s.stop)?.unwrap_or(Time::MAX);
    if stop <= start {
        return Err(cx.err(&format!("{path}.stop"), "must be after start"));
    }
    let interval = cx.positive_time(
        &format!("{path}.interval"),
        s.interval.as_deref().unwrap_or(DEFAULT_STORM_INTERVAL),
    )?;
    Ok(net::fc::StormConfig {
        node: s.node,
        peer: s.peer,
        class,
        start,
        stop,
        interval,
    })
}

/// The capture settings of `cfg`'s `[capture]` section, checked against
/// the scenario built from it; `None` when the section is absent.
pub fn build_capture(cfg: &Config, s: &Scenario) -> Result<Option<CaptureConfig>, ExperimentError> {
    let cx = Ctx {
        file: &cfg.file,
        text: &cfg.text,
        base: Path::new(""),
    };
    match &cfg.doc.capture {
        Some(c) => capture(&cx, c, s).map(Some),
        None => Ok(None),
    }
}

/// The engine settings of `cfg`'s `[engine]` section (threads and
/// partitions, `crate::threads`), all defaults when it is absent.
pub fn build_engine(cfg: &Config) -> Result<crate::threads::EngineSpec, ExperimentError> {
    let cx = Ctx {
        file: &cfg.file,
        text: &cfg.text,
        base: Path::new(""),
    };
    super::engine::engine(&cx, cfg.doc.engine.as_ref())
}
