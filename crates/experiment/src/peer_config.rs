//! The peer's `config.txt` ("KEY value" lines), so its users can run their
//! experiments unchanged: `rdmasim hpcc CONFIG.txt`.
//!
//! Keys and meanings: HPCC sim's `third.cc` and `mix/config_doc.txt`.
//! Paths inside are resolved from the current directory, as the peer does.
//! A key rdmasim does not model yet is listed in one warning, never
//! silently ignored; keys the peer itself reads but does not use in the
//! chosen mode are accepted. A key the peer does not have either is most
//! likely a typo: it gets a warning of its own at its line, naming the key
//! meant when one is close. A key on two lines is refused: the peer would
//! take the last without a word.

use crate::config::{
    cc_from_peer, check_peer_value, frame_above_buffer, stop_before_flows, unread_flows_warning,
    CcKind, PEER_CC_KEYS,
};
use crate::error::ExperimentError;
use crate::locate::{self, FileKind};
use crate::run::{run_scenario, RunReport};
use crate::scenario::{PeerOutputs, RunOptions, Scenario};
use crate::suggest::{self, close_enough, edit_distance};
use engine::units::{input_ps, parse_rate_or_bps, MAX_BYTES, MAX_INPUT_PS, MAX_INPUT_TIME};
use engine::{Delta, InputError, Rate, Time};
use net::{EcnThreshold, NetConfig, PfcConfig, PfcMode};
use std::path::{Path, PathBuf};

/// A parsed peer config: the scenario to run plus what the user should be
/// told about keys rdmasim does not act on.
#[derive(Debug)]
pub struct PeerConfig {
    /// The scenario.
    pub scenario: Scenario,
    /// Keys of the peer's config that rdmasim does not model, with the
    /// reason (one warning).
    pub unsupported: Vec<String>,
    /// Other things the user should know before the run, each one warning
    /// naming file, line and field: keys the peer does not have either
    /// (with the key meant, when one is close), flow lines past the flow
    /// file's count.
    pub warnings: Vec<String>,
}

/// Every key of the peer's config (`third.cc`). A key not in this list is one the
/// peer does not know either: most likely a typo, and told apart from the
/// keys rdmasim does not model.
const PEER_KEYS: &[&str] = &[
    "ENABLE_QCN",
    "USE_DYNAMIC_PFC_THRESHOLD",
    "PACKET_PAYLOAD_SIZE",
    "TOPOLOGY_FILE",
    "FLOW_FILE",
    "TRACE_FILE",
    "TRACE_OUTPUT_FILE",
    "FCT_OUTPUT_FILE",
    "PFC_OUTPUT_FILE",
    "QLEN_MON_FILE",
    "SIMULATOR_STOP_TIME",
    "CC_MODE",
    "ALPHA_RESUME_INTERVAL",
    "RATE_DECREASE_INTERVAL",
    "RP_TIMER",
    "CLAMP_TARGET_RATE",
    "FAST_RECOVERY_TIMES",
    "EWMA_GAIN",
    "RATE_AI",
    "RATE_HAI",
    "MIN_RATE",
    "DCTCP_RATE_AI",
    "ERROR_RATE_PER_LINK",
    "L2_CHUNK_SIZE",
    "L2_ACK_INTERVAL",
    "L2_BACK_TO_ZERO",
    "HAS_WIN",
    "GLOBAL_T",
    "VAR_WIN",
    "FAST_REACT",
    "U_TARGET",
    "MI_THRESH",
    "INT_MULTI",
    "MULTI_RATE",
    "SAMPLE_FEEDBACK",
    "PINT_LOG_BASE",
    "PINT_PROB",
    "RATE_BOUND",
    "ACK_HIGH_PRIO",
    "LINK_DOWN",
    "ENABLE_TRACE",
    "KMAX_MAP",
    "KMIN_MAP",
    "PMAX_MAP",
    "BUFFER_SIZE",
    "QLEN_MON_START",
    "QLEN_MON_END",
    "PAUSE_TIME",
    "DATA_RATE",
    "LINK_DELAY",
];

/// Keys the peer reads (`third.cc`) that only matter for CC modes other than the
/// one chosen, or that it parses without using.
const INERT_KEYS: &[&str] = &[
    "USE_DYNAMIC_PFC_THRESHOLD",
    "TRACE_FILE",
    "TRACE_OUTPUT_FILE",
    // rdmasim carries exact INT values; the peer's unit only quantises them.
    "INT_MULTI",
    "PINT_PROB",
    "PAUSE_TIME",
    "DATA_RATE",
    "LINK_DELAY",
];

struct Line<'a> {
    no: usize,
    key: &'a str,
    vals: Vec<&'a str>,
}

/// Parse the peer config at `path` and the topology and flow files it names.
/// An error in a file that looks like rdmasim's TOML config or a sweep
/// file ends with the command that reads it.
pub fn load_peer_config(path: &Path) -> Result<PeerConfig, ExperimentError> {
    let file = path.display().to_string();
    let text = engine::input::read_text(path).map_err(|e| {
        ExperimentError::Input(match engine::input::not_utf8(&e) {
            // Named at its line, by the key that line sets.
            Some(bad) => {
                let text = locate::lossy_text(path);
                let key = text
                    .lines()
                    .nth(bad.line - 1)
                    .and_then(|l| l.split_whitespace().next())
                    .unwrap_or_default();
                InputError::at(&file, Some(bad.line), key, bad.in_line())
            }
            None => InputError::at(&file, None, "", format!("cannot read: {e}")),
        })
    })?;
    parse_peer_config(path, &file, &text)
        .map_err(|e| locate::hint_wrong_kind(e, &text, &file, &[FileKind::Sweep, FileKind::Config]))
}

/// [`load_peer_config`] of `text`, read from `path` (named `file`).
fn parse_peer_config(path: &Path, file: &str, text: &str) -> Result<PeerConfig, ExperimentError> {
    let file = file.to_string();
    let lines: Vec<Line> = text
        .lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let mut it = l.split_whitespace();
            let key = it.next()?;
            Some(Line {
                no: i + 1,
                key,
                vals: it.collect(),
            })
        })
        .collect();
    let err = |l: &Line, msg: String| {
        ExperimentError::Input(InputError::at(&file, Some(l.no), l.key, msg))
    };
    let one = |l: &Line| -> Result<String, ExperimentError> {
        match l.vals.as_slice() {
            [v] => Ok(v.to_string()),
            [] => Err(err(l, "missing value".into())),
            _ => Err(err(
                l,
                format!("expected one value, found {}", l.vals.len()),
            )),
        }
    };
    let num = |l: &Line| -> Result<f64, ExperimentError> {
        let v = one(l)?;
        v.parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| err(l, format!("'{v}' is not a number")))
    };
    let flag = |l: &Line| -> Result<bool, ExperimentError> {
        match one(l)?.as_str() {
            "0" => Ok(false),
            "1" => Ok(true),
            v => Err(err(l, format!("'{v}' must be 0 or 1"))),
        }
    };
    // QLEN_MON_START / QLEN_MON_END: nanoseconds (negative counts as 0).
    let qlen_ns = |l: &Line| -> Result<Time, ExperimentError> {
        let v = num(l)?.max(0.0);
        input_ps(v, 1e3)
            .map(Time)
            .ok_or_else(|| err(l, format!("must be at most 1e15 ns ({MAX_INPUT_TIME})")))
    };
    // A rate map: `n rate_bps value ...`.
    let map = |l: &Line| -> Result<Vec<(Rate, f64)>, ExperimentError> {
        let n: usize = l
            .vals
            .first()
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| err(l, "expected a count first: 'n rate value ...'".into()))?;
        // Compared as `(len - 1) / 2`: `1 + 2 * n` wraps for a huge count.
        let found = l.vals.len() - 1;
        if !found.is_multiple_of(2) || found / 2 != n {
            return Err(err(
                l,
                format!(
                    "count {n} needs {} values after it, found {found}",
                    n.saturating_mul(2)
                ),
            ));
        }
        (0..n)
            .map(|i| {
                let r = l.vals[1 + 2 * i];
                let v = l.vals[2 + 2 * i];
                let rate = parse_rate_or_bps(r).map_err(|m| err(l, m))?;
                let v: f64 = v
                    .parse()
                    .ok()
                    .filter(|x: &f64| x.is_finite())
                    .ok_or_else(|| err(l, format!("'{v}' is not a number")))?;
                Ok((rate, v))
            })
            .collect()
    };
    // A map of thresholds in KB, from 0 to MAX_BYTES.
    let kb_map = |l: &Line| -> Result<Vec<(Rate, f64)>, ExperimentError> {
        let m = map(l)?;
        if let Some((r, kb)) = m
            .iter()
            .find(|(_, kb)| !(0.0..=(MAX_BYTES / 1000) as f64).contains(kb))
        {
            return Err(err(
                l,
                format!(
                    "{kb} KB at rate {r} is not a threshold: from 0 to {} KB (2^53 bytes)",
                    MAX_BYTES / 1000
                ),
            ));
        }
        Ok(m)
    };

    let mut net = NetConfig {
        pfc: PfcConfig {
            enabled: true,
            mode: PfcMode::UntilResume,
            watchdog: None,
            ..PfcConfig::default()
        },
        ..NetConfig::default()
    };
    // The congestion control's keys, in file order, applied once the mode
    // is known: each may set a parameter of several modes (RATE_AI).
    let mut cc_values: Vec<(&str, String)> = Vec::new();
    let mut cc_mode = None;
    let mut topo_file = None;
    let mut flow_file = None;
    let mut fct_file = None;
    let mut pfc_file = None;
    let mut stop = None;
    let mut has_win = false;
    let mut kmin = None;
    let mut kmax = None;
    let mut pmax = None;
    let mut qlen = (None, None);
    let mut unsupported = Vec::new();
    let mut link_down = None;
    let mut qlen_file = None;
    // The lines of FCT_OUTPUT_FILE, PFC_OUTPUT_FILE and QLEN_MON_FILE.
    let mut output_lines = [0; 3];
    let mut unknown = Vec::new();
    // The peer takes a key's last line; a second line of a key is more
    // likely an edit that missed the first, so it is refused (once its
    // value is checked), not obeyed. A word that is not a key (a comment's
    // `#`, say) sets nothing and is warned about at each line instead.
    let mut first_line: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for l in &lines {
        let again = first_line
            .insert(l.key, l.no)
            .filter(|_| PEER_KEYS.contains(&l.key));
        match l.key {
            "ENABLE_QCN" => net.ecn.enabled = flag(l)?,
            "PACKET_PAYLOAD_SIZE" => {
                let v = num(l)?;
                if v < 1.0 || v.fract() != 0.0 || v > f64::from(u32::MAX) {
                    return Err(err(
                        l,
                        format!("must be a whole number of bytes from 1 to {}", u32::MAX),
                    ));
                }
                net.nic.mtu_payload = v as u32;
            }
            "TOPOLOGY_FILE" => topo_file = Some((PathBuf::from(one(l)?), l.no)),
            "FLOW_FILE" => flow_file = Some((PathBuf::from(one(l)?), l.no)),
            "FCT_OUTPUT_FILE" => {
                fct_file = Some(PathBuf::from(one(l)?));
                output_lines[0] = l.no;
            }
            "PFC_OUTPUT_FILE" => {
                pfc_file = Some(PathBuf::from(one(l)?));
                output_lines[1] = l.no;
            }
            "SIMULATOR_STOP_TIME" => {
                let s = num(l)?;
                if s <= 0.0 {
                    return Err(err(l, "must be a positive time in seconds".into()));
                }
                let ps = input_ps(s, 1e12)
                    .ok_or_else(|| err(l, format!("must be at most {MAX_INPUT_TIME}")))?;
                stop = Some((Time(ps), l.no, one(l)?));
            }
            "CC_MODE" => cc_mode = Some(CcKind::of_peer_mode(&one(l)?).map_err(|m| err(l, m))?),
            k if PEER_CC_KEYS.contains(&k) => {
                let v = one(l)?;
                if let Some(Err(m)) = check_peer_value(k, &v) {
                    return Err(err(l, m));
                }
                cc_values.push((l.key, v));
            }
            "GLOBAL_T" => net.nic.global_t = flag(l)?,
            "VAR_WIN" => net.nic.var_win = flag(l)?,
            "ERROR_RATE_PER_LINK" => {
                let e = num(l)?;
                if !(0.0..=1.0).contains(&e) {
                    return Err(err(l, "must be a probability in [0, 1]".into()));
                }
                net.error_rate_per_link = e;
            }
            "L2_CHUNK_SIZE" => {
                let v = num(l)?;
                if !(1.0..=MAX_BYTES as f64).contains(&v) {
                    return Err(err(l, "must be from 1 byte to 2^53 bytes".into()));
                }
                net.nic.chunk = v as u64;
            }
            "L2_ACK_INTERVAL" => {
                let v = num(l)?;
                if !(1.0..=MAX_BYTES as f64).contains(&v) {
                    return Err(err(l, "must be from 1 byte to 2^53 bytes".into()));
                }
                net.nic.ack_interval = v as u64;
            }
            "L2_BACK_TO_ZERO" => net.nic.back_to_zero = flag(l)?,
            "HAS_WIN" => has_win = flag(l)?,
            "RATE_BOUND" => net.nic.rate_bound = flag(l)?,
            "ACK_HIGH_PRIO" => net.nic.ack_high_prio = flag(l)?,
            "LINK_DOWN" => {
                // `t_us a b`: at 2 s + t µs the link a–b goes down (`third.cc` `TakeDownLink`).
                let v: Vec<u64> = l
                    .vals
                    .iter()
                    .map(|v| v.parse::<u64>())
                    .collect::<Result<_, _>>()
                    .map_err(|_| err(l, "expected 't_us a b' as three whole numbers".into()))?;
                if v.len() != 3 {
                    return Err(err(
                        l,
                        format!("expected 't_us a b', found {} values", v.len()),
                    ));
                }
                if v.iter().any(|&x| x != 0) {
                    if v[0] > MAX_INPUT_PS / 1_000_000 {
                        return Err(err(
                            l,
                            format!("t_us {} is too large: at most 1e12 microseconds ({MAX_INPUT_TIME})", v[0]),
                        ));
                    }
                    let node = |x: u64| {
                        u32::try_from(x).map_err(|_| err(l, format!("node {x} is not a node id")))
                    };
                    link_down = Some((v[0], node(v[1])?, node(v[2])?, l.no));
                }
            }
            "ENABLE_TRACE" => {
                if flag(l)? {
                    unsupported.push(format!(
                        "ENABLE_TRACE 1 (line {}): no binary packet trace is written",
                        l.no
                    ));
                }
            }
            // Kmin and Kmax in KB of 1000 bytes, Pmax a probability.
            "KMAX_MAP" => kmax = Some((kb_map(l)?, l.no)),
            "KMIN_MAP" => kmin = Some((kb_map(l)?, l.no)),
            "PMAX_MAP" => {
                let m = map(l)?;
                if let Some((r, p)) = m.iter().find(|(_, p)| !(0.0..=1.0).contains(p)) {
                    return Err(err(
                        l,
                        format!("{p} at rate {r} is not a probability in [0, 1]"),
                    ));
                }
                pmax = Some((m, l.no));
            }
            "BUFFER_SIZE" => {
                let mb = num(l)?;
                if mb <= 0.0 {
                    return Err(err(l, "must be a positive number of MB".into()));
                }
                if mb * 1024.0 * 1024.0 > MAX_BYTES as f64 {
                    return Err(err(l, "must be at most 2^33 MB (2^53 bytes)".into()));
                }
                net.buffer.size = (mb * 1024.0 * 1024.0) as u64;
            }
            "QLEN_MON_FILE" => {
                qlen_file = Some(PathBuf::from(one(l)?));
                output_lines[2] = l.no;
            }
            "QLEN_MON_START" => qlen.0 = Some(qlen_ns(l)?),
            "QLEN_MON_END" => qlen.1 = Some(qlen_ns(l)?),
            k if INERT_KEYS.contains(&k) => {}
            k => unknown.push((l.no, k)),
        }
        if let Some(first) = again {
            return Err(err(
                l,
                format!("given twice, first at line {first}; keep one of the two lines"),
            ));
        }
    }
    net.nic.bdp_window = has_win;
    // The peer's switches carry ACKs in the flow's class whatever
    // ACK_HIGH_PRIO says (`third.cc` sets it for hosts only).
    net.nic.switch_ack_high_prio = false;
    // ECMP picks among the next hops by index, and the peer's tables list
    // them in the order its route search reaches them: on its fat tree,
    // descending by port (docs/model.md, "ECMP next-hop order").
    net.next_hop_order = topo::NextHopOrder::Descending;
    // The peer has no retransmission timeout (`RdmaHw`).
    net.nic.rto = None;
    // The monitor samples every 100 ns from QLEN_MON_START while before
    // QLEN_MON_END (ns), dumping every 100 ms (third.cc `monitor_buffer`).
    if qlen_file.is_some() {
        let start = qlen.0.unwrap_or(Time::from_ns(2_000_000_000));
        let end = qlen.1.unwrap_or(start);
        net.qlen_monitor = Some(net::qlen::QlenMonitorConfig {
            start,
            end,
            interval: Delta::from_ns(100),
            dump_every: Delta::from_ms(100),
        });
    }
    let mut warnings: Vec<String> = unknown
        .iter()
        .map(|&(no, k)| {
            let hint = closest_key(k)
                .map(|c| format!("; did you mean {c}?"))
                .unwrap_or_default();
            format!("{file}:{no}: {k}: not a key of the peer's config, ignored{hint}")
        })
        .collect();
    if let Some(msg) = frame_above_buffer(&net) {
        // Named at the payload size, or else at the buffer size, that the
        // config gives (the other is the peer's default).
        let at = ["PACKET_PAYLOAD_SIZE", "BUFFER_SIZE"]
            .iter()
            .find_map(|k| lines.iter().rev().find(|l| l.key == *k));
        return Err(match at {
            Some(l) => err(l, msg),
            None => ExperimentError::Input(InputError::at(&file, None, "", msg)),
        });
    }
    // A required key that is missing may be misspelt on some line: say
    // which, rather than only that it is missing.
    let missing = |k: &str| {
        let typo = unknown
            .iter()
            .map(|&(no, u)| (edit_distance(&u.to_ascii_uppercase(), k), no, u))
            .filter(|&(d, _, u)| close_enough(d, u))
            .min_by_key(|&(d, no, _)| (d, no));
        ExperimentError::Input(match typo {
            Some((_, no, u)) => InputError::at(
                &file,
                Some(no),
                k,
                format!("missing (the peer requires it); line {no} has {u} — a typo?"),
            ),
            None => InputError::at(&file, None, k, "missing; the peer requires it"),
        })
    };
    let kind = cc_mode.ok_or_else(|| missing("CC_MODE"))?;
    // Each key is on one line at most (checked above).
    let value = |key: &str| -> Option<&str> {
        cc_values
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.as_str())
    };
    net.cc = cc_from_peer(kind, &value);
    if let (Some((kmin, _)), Some((kmax, line)), Some((pmax, _))) = (&kmin, &kmax, &pmax) {
        let mut th = Vec::new();
        for (rate, kx) in kmax {
            let kn = kmin.iter().find(|(r, _)| r == rate).map(|x| x.1);
            let p = pmax.iter().find(|(r, _)| r == rate).map(|x| x.1);
            let (Some(kn), Some(p)) = (kn, p) else {
                return Err(ExperimentError::Input(InputError::at(
                    &file,
                    Some(*line),
                    "KMAX_MAP",
                    format!("rate {rate} has no entry in KMIN_MAP or PMAX_MAP"),
                )));
            };
            if *kx < kn {
                return Err(ExperimentError::Input(InputError::at(
                    &file,
                    Some(*line),
                    "KMAX_MAP",
                    format!("rate {rate}: Kmax {kx} KB is below Kmin {kn} KB"),
                )));
            }
            // The peer's maps are in KB of 1000 bytes (SwitchMmu::ConfigEcn).
            th.push(EcnThreshold {
                rate: *rate,
                kmin: (kn * 1000.0) as u64,
                kmax: (kx * 1000.0) as u64,
                pmax: p,
            });
        }
        net.ecn.thresholds = th;
    }
    net.stop_time = stop.as_ref().map(|s| s.0);

    let (topo_path, topo_line) = topo_file.ok_or_else(|| missing("TOPOLOGY_FILE"))?;
    let (flow_path, flow_line) = flow_file.ok_or_else(|| missing("FLOW_FILE"))?;
    // A file that cannot be read is the config line's error: it names the
    // key that gave the path (relative to the working directory, as the
    // peer takes it).
    let read = |path: &Path, line: usize, key: &str| {
        engine::input::read_text(path).map_err(|e| {
            ExperimentError::Input(InputError::at(
                &file,
                Some(line),
                key,
                format!("cannot read {}: {e}", path.display()),
            ))
        })
    };
    let topo_text = read(&topo_path, topo_line, "TOPOLOGY_FILE")?;
    let flow_text = read(&flow_path, flow_line, "FLOW_FILE")?;
    let topo = topo::parse_peer_topology(&topo_text, &topo_path.display().to_string())
        .map_err(ExperimentError::Input)?;
    let (flows, flow_lines) = workload::parse_peer_flows_reading(
        &flow_text,
        &flow_path.display().to_string(),
        workload::StartTimes::AsPeer,
    )
    .map_err(ExperimentError::Input)?;
    let flow_name = flow_path.display().to_string();
    warnings.extend(unread_flows_warning(&flow_text, &flow_name, flows.len()));
    workload::validate_endpoints(
        &flows,
        &flow_lines,
        &flow_name,
        topo.kinds.len() as u32,
        &|n| topo.is_host(n),
    )
    .map_err(ExperimentError::Input)?;
    workload::validate_classes(&flows, &flow_lines, &flow_name, net::wire::N_CLASSES)
        .map_err(ExperimentError::Input)?;

    // A stop at or before every flow's start runs nothing (see
    // `config::stop_before_flows`); the flows are sorted by start.
    if let (Some((stop, line, written)), Some(first)) = (&stop, flows.first()) {
        if *stop <= first.start {
            let from = format!(", {flow_name}:{}", flow_lines[0]);
            let msg = stop_before_flows(&format!("{written} s"), *stop, first.start, &from);
            return Err(ExperimentError::Input(InputError::at(
                &file,
                Some(*line),
                "SIMULATOR_STOP_TIME",
                msg,
            )));
        }
    }
    if let Some((t_us, a, b, line)) = link_down {
        let linked = topo
            .links
            .iter()
            .any(|l| (l.a, l.b) == (a, b) || (l.a, l.b) == (b, a));
        if !linked {
            return Err(ExperimentError::Input(InputError::at(
                &file,
                Some(line),
                "LINK_DOWN",
                format!("nodes {a} and {b} share no link in {}", topo_path.display()),
            )));
        }
        // `t_us` is at most 10^12 (checked where it was read).
        net.link_down
            .push((Time(2_000_000_000_000 + t_us * 1_000_000), a, b));
    }
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "peer".into());
    let fct = fct_file.ok_or_else(|| missing("FCT_OUTPUT_FILE"))?;
    Ok(PeerConfig {
        scenario: Scenario {
            name,
            topo,
            flows,
            net,
            record_pfc: pfc_file.is_some(),
            peer_outputs: Some(PeerOutputs {
                fct,
                pfc: pfc_file,
                qlen: qlen_file,
                config: file.clone(),
                lines: output_lines,
            }),
            notes: Vec::new(),
            messages: Vec::new(),
        },
        unsupported,
        warnings,
    })
}

/// The key of the peer's config closest to `key`, if close enough to be
/// what was meant.
fn closest_key(key: &str) -> Option<&'static str> {
    suggest::closest(key, PEER_KEYS.iter().copied())
}

/// Parse and run a peer config, writing its `FCT_OUTPUT_FILE` and
/// `PFC_OUTPUT_FILE`, and, with `out_dir`, a complete run directory there
/// too (`flows.csv`, `summary.json`, `ports.csv`, ... as `rdmasim run`
/// writes it), so that `rdmasim analyze` and `rdmasim plot` read the run.
/// `timeseries` (`--timeseries INTERVAL`) records every switch port from
/// the first flow's start ([`crate::config::timeseries::for_peer_config`]).
/// `seed` (if given) replaces the seed of every random stream (the ECN
/// marking draws; ECMP hashes by node id whatever the seed), 1 by default:
/// another seed gives another run of the same config, as the peer's
/// `RngRun` does, and how far two such runs differ is the scenario's own
/// spread (docs/validation.md, "Side by side with the peer").
/// Unsupported keys are reported in one warning on stderr, each of
/// [`PeerConfig::warnings`] in one more.
pub fn run_peer_config(
    path: &Path,
    out_dir: Option<&Path>,
    timeseries: Option<&str>,
    seed: Option<u64>,
    opts: &RunOptions,
) -> Result<RunReport, ExperimentError> {
    let mut cfg = load_peer_config(path)?;
    if let Some(seed) = seed {
        cfg.scenario.net.seed = seed;
    }
    if !cfg.unsupported.is_empty() {
        eprintln!(
            "rdmasim: warning: {} has settings rdmasim does not model yet: {}",
            path.display(),
            cfg.unsupported.join("; ")
        );
    }
    for w in &cfg.warnings {
        eprintln!("rdmasim: warning: {w}");
    }
    let mut opts = opts.clone();
    if let Some(interval) = timeseries {
        opts.timeseries = Some(crate::config::timeseries::for_peer_config(
            interval,
            &cfg.scenario,
        )?);
    }
    run_scenario(cfg.scenario, out_dir, &opts)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every key the congestion controls take from the peer's config is a
    /// key of the peer's (so a typo of one is told apart from it).
    #[test]
    fn the_congestion_controls_keys_are_the_peers() {
        for k in PEER_CC_KEYS {
            assert!(PEER_KEYS.contains(k), "{k}");
        }
    }

    #[test]
    fn flow_lines_past_the_count_are_warned_about() {
        let w = |text: &str, count| unread_flows_warning(text, "f.txt", count);
        assert_eq!(w("2\n0 1 3 100 10 2\n1 0 3 100 10 2\n", 2), None);
        // Blank lines and comments after the flows are not flows.
        assert_eq!(w("1\n0 1 3 100 10 2\n\n# end\n", 1), None);
        assert_eq!(
            w("# flows\n1\n0 1 3 100 10 2\n1 0 3 100 10 2\n", 1).unwrap(),
            "f.txt:2: flow_count: the header says 1 flow, but line 4 follows them and is \
             not read, as the peer reads only the number of flows the header gives"
        );
        let msg = w("0\n0 1 3 100 10 2\n\n1 0 3 100 10 2\n", 0).unwrap();
        assert!(
            msg.starts_with("f.txt:1: flow_count: the header says 0 flows, but 2 lines follow them (from line 2) and are not read"),
            "{msg}"
        );
    }

    #[test]
    fn typos_are_told_from_keys_rdmasim_does_not_model() {
        assert_eq!(closest_key("RATE_AII"), Some("RATE_AI"));
        assert_eq!(closest_key("rate_hai"), Some("RATE_HAI"));
        assert_eq!(closest_key("CC_MDOE"), Some("CC_MODE"));
        assert_eq!(closest_key("BUFER_SIZE"), Some("BUFFER_SIZE"));
        // Two edits in a short key, or a key nothing like the peer's.
        assert_eq!(closest_key("HAS_WXY"), None);
        assert_eq!(closest_key("ENABLE_IRN_FAST_PATH"), None);
    }

    /// An output file that cannot be written (a name longer than the file
    /// system takes, a directory) is the config's error at its key's line
    /// before the run, not an I/O error once the run is over.
    #[test]
    fn output_files_that_cannot_be_written_are_refused_before_the_run() {
        let dir = std::env::temp_dir().join(format!("rdmasim-peer-out-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("a-dir")).unwrap();
        std::fs::write(
            dir.join("topo.txt"),
            "3 1 2\n2\n0 2 100Gbps 1000ns 0\n1 2 100Gbps 1000ns 0\n",
        )
        .unwrap();
        std::fs::write(dir.join("flows.txt"), "1\n0 1 3 100 1000 2.0\n").unwrap();
        let cfg = dir.join("config.txt");
        let name = cfg.display().to_string();
        let long = "x".repeat(300);
        let run = |fct: &str, pfc: &str| {
            let d = dir.display();
            std::fs::write(
                &cfg,
                format!(
                    "TOPOLOGY_FILE {d}/topo.txt\nFLOW_FILE {d}/flows.txt\n\
                     FCT_OUTPUT_FILE {d}/{fct}\nPFC_OUTPUT_FILE {d}/{pfc}\n\
                     CC_MODE 1\nSIMULATOR_STOP_TIME 2.01\n"
                ),
            )
            .unwrap();
            let opts = RunOptions {
                quiet: true,
                ..RunOptions::default()
            };
            run_peer_config(&cfg, None, None, None, &opts)
                .map(drop)
                .map_err(|e| e.to_string())
        };
        let e = run(&long, "pfc.txt").unwrap_err();
        assert!(
            e.starts_with(&format!(
                "{name}:3: FCT_OUTPUT_FILE: cannot write {}/{long}: ",
                dir.display()
            )),
            "{e}"
        );
        let e = run("fct.txt", "a-dir").unwrap_err();
        assert!(
            e.starts_with(&format!(
                "{name}:4: PFC_OUTPUT_FILE: cannot write {}/a-dir: it is a directory",
                dir.display()
            )),
            "{e}"
        );
        // Nothing was run or written.
        assert!(!dir.join("fct.txt").exists());
        assert_eq!(run("fct.txt", "pfc.txt"), Ok(()));
        assert!(dir.join("fct.txt").exists() && dir.join("pfc.txt").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A directory `rdmasim-peer-<name>-<pid>` holding a peer topology of
    /// two hosts on one switch and a flow file of one flow between them;
    /// returns it and the two files' paths.
    fn two_hosts_and_a_flow(name: &str) -> (PathBuf, PathBuf, PathBuf) {
        let dir = std::env::temp_dir().join(format!("rdmasim-peer-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let topo = dir.join("topo.txt");
        std::fs::write(
            &topo,
            "3 1 2\n2\n0 2 100Gbps 1000ns 0\n1 2 100Gbps 1000ns 0\n",
        )
        .unwrap();
        let flows = dir.join("flows.txt");
        std::fs::write(&flows, "1\n0 1 3 100 1000 2.0\n").unwrap();
        (dir, topo, flows)
    }

    /// The ECN maps hold thresholds and probabilities: a Pmax outside
    /// [0, 1], a negative or oversized Kmin or Kmax, or a Kmax below Kmin
    /// is an error at its line, not a marking rule that cannot be. So is a
    /// number too large for its key, which was clamped.
    #[test]
    fn ecn_maps_and_numbers_are_checked() {
        let (dir, topo, flows) = two_hosts_and_a_flow("ecn");
        let cfg = dir.join("config.txt");
        let load = |kmin: &str, kmax: &str, pmax: &str| {
            let text = format!(
                "TOPOLOGY_FILE {}\nFLOW_FILE {}\nFCT_OUTPUT_FILE fct.txt\nCC_MODE 1\n\
                 KMAX_MAP 1 100000000000 {kmax}\nKMIN_MAP 1 100000000000 {kmin}\n\
                 PMAX_MAP 1 100000000000 {pmax}\n",
                topo.display(),
                flows.display()
            );
            std::fs::write(&cfg, text).unwrap();
            load_peer_config(&cfg)
                .map(|_| ())
                .map_err(|e| e.to_string())
        };
        let name = cfg.display().to_string();
        assert_eq!(load("400", "1600", "0.2"), Ok(()));
        // Numbers beyond what their key holds are refused, not clamped.
        for (key, value, msg) in [
            (
                "PACKET_PAYLOAD_SIZE",
                "4294967296",
                "must be a whole number of bytes from 1 to 4294967295",
            ),
            (
                "FAST_RECOVERY_TIMES",
                "4294967296",
                "must be a whole number from 0 to 4294967295",
            ),
            (
                "MI_THRESH",
                "18446744073709551616",
                "must be a whole number from 0 to 4294967295",
            ),
            (
                "L2_CHUNK_SIZE",
                "18446744073709551616",
                "must be from 1 byte to 2^53 bytes",
            ),
            (
                "L2_ACK_INTERVAL",
                "1e17",
                "must be from 1 byte to 2^53 bytes",
            ),
            (
                "BUFFER_SIZE",
                "18446744073709551616",
                "must be at most 2^33 MB (2^53 bytes)",
            ),
        ] {
            assert_eq!(load("400", "1600", "0.2"), Ok(()));
            let text = std::fs::read_to_string(&cfg).unwrap();
            std::fs::write(&cfg, format!("{text}{key} {value}\n")).unwrap();
            let e = load_peer_config(&cfg).unwrap_err().to_string();
            assert_eq!(e, format!("{name}:8: {key}: {msg}"));
        }
        assert_eq!(
            load("400", "1600", "65536"),
            Err(format!(
                "{name}:7: PMAX_MAP: 65536 at rate 100Gbps is not a probability in [0, 1]"
            ))
        );
        assert_eq!(
            load("-1", "1600", "0.2"),
            Err(format!(
                "{name}:6: KMIN_MAP: -1 KB at rate 100Gbps is not a threshold: from 0 to \
                 9007199254740 KB (2^53 bytes)"
            ))
        );
        assert!(load("400", "18446744073709551616", "0.2")
            .unwrap_err()
            .starts_with(&format!("{name}:5: KMAX_MAP: 18446744073709552000 KB")));
        assert_eq!(
            load("1600", "400", "0.2"),
            Err(format!(
                "{name}:5: KMAX_MAP: rate 100Gbps: Kmax 400 KB is below Kmin 1600 KB"
            ))
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Every key of the peer's config is read (or knowingly accepted):
    /// none is reported as unknown, none as not modelled.
    #[test]
    fn every_peer_key_is_known() {
        let (dir, topo, flows) = two_hosts_and_a_flow("keys");
        let text = format!(
            "ENABLE_QCN 1\nUSE_DYNAMIC_PFC_THRESHOLD 1\nPACKET_PAYLOAD_SIZE 1000\n\
             TOPOLOGY_FILE {}\nFLOW_FILE {}\nTRACE_FILE trace.txt\nTRACE_OUTPUT_FILE mix.tr\n\
             FCT_OUTPUT_FILE fct.txt\nPFC_OUTPUT_FILE pfc.txt\nQLEN_MON_FILE qlen.txt\n\
             SIMULATOR_STOP_TIME 3\nCC_MODE 1\nALPHA_RESUME_INTERVAL 1\n\
             RATE_DECREASE_INTERVAL 4\nRP_TIMER 300\nCLAMP_TARGET_RATE 0\n\
             FAST_RECOVERY_TIMES 1\nEWMA_GAIN 0.00390625\nRATE_AI 5Mb/s\nRATE_HAI 50Mb/s\n\
             MIN_RATE 100Mb/s\nDCTCP_RATE_AI 1000Mb/s\nERROR_RATE_PER_LINK 0\n\
             L2_CHUNK_SIZE 4000\nL2_ACK_INTERVAL 1\nL2_BACK_TO_ZERO 0\nHAS_WIN 0\n\
             GLOBAL_T 1\nVAR_WIN 0\nFAST_REACT 1\nU_TARGET 0.95\nMI_THRESH 5\n\
             INT_MULTI 1\nMULTI_RATE 0\nSAMPLE_FEEDBACK 0\nPINT_LOG_BASE 1.01\n\
             PINT_PROB 1.0\nRATE_BOUND 1\nACK_HIGH_PRIO 0\nLINK_DOWN 0 0 0\nENABLE_TRACE 0\n\
             KMAX_MAP 1 100000000000 1600\nKMIN_MAP 1 100000000000 400\n\
             PMAX_MAP 1 100000000000 0.2\nBUFFER_SIZE 32\nQLEN_MON_START 2000000000\n\
             QLEN_MON_END 2000000000\nPAUSE_TIME 5\nDATA_RATE 100Gb/s\nLINK_DELAY 1us\n",
            topo.display(),
            flows.display()
        );
        let cfg = dir.join("config.txt");
        std::fs::write(&cfg, &text).unwrap();
        let keys: Vec<&str> = text.lines().filter_map(|l| l.split(' ').next()).collect();
        for k in PEER_KEYS {
            assert!(keys.contains(k), "{k} is not in the test's config");
        }
        let c = load_peer_config(&cfg).unwrap();
        assert!(c.unsupported.is_empty(), "{:?}", c.unsupported);
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
