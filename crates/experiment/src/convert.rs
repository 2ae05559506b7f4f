//! `rdmasim convert CONFIG -o exp.toml`: the peer's `config.txt` (with
//! its topology and flow files) as rdmasim's TOML config, which `rdmasim
//! run` runs as `rdmasim hpcc` runs the peer's config: the same network,
//! flows (read as the peer reads their start times) and schemes, so the
//! same `fct.txt`.
//!
//! The TOML is written from what rdmasim built of the peer's config, each
//! setting spelled out, not from the peer's words, so that it cannot
//! drift from what `rdmasim hpcc` runs. Its last comment lists every line
//! of the peer's config and what became of it: the TOML key it set, or why
//! it has no TOML equivalent (an output file's path, the queue-length
//! monitor, a key of another congestion control), and any difference a
//! run of the TOML has.

use crate::config::{cc_toml, CcKind, PfcModeKey};
use crate::error::ExperimentError;
use crate::fmt::{fmt_bytes, fmt_delta};
use crate::peer_config::load_peer_config;
use engine::Delta;
use net::Headroom;
use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

/// The TOML config of the peer's config at `path`, its relative paths
/// taken from `out_dir` (the directory the TOML is written into).
pub fn convert_peer_config(path: &Path, out_dir: &Path) -> Result<String, ExperimentError> {
    let cfg = load_peer_config(path)?;
    let s = &cfg.scenario;
    let net = &s.net;
    let text = engine::input::read_text(path).map_err(|e| ExperimentError::io(path, e))?;
    let lines: Vec<(usize, &str, String)> = text
        .lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let mut it = l.split_whitespace();
            let key = it.next()?;
            Some((i + 1, key, it.collect::<Vec<_>>().join(" ")))
        })
        .collect();
    let value = |key: &str| lines.iter().find(|l| l.1 == key).map(|l| l.2.as_str());
    // The peer's paths are from the current directory; the TOML's from
    // its own.
    let rel = |key: &str| -> Result<String, ExperimentError> {
        let p = PathBuf::from(value(key).unwrap_or_default());
        let abs = std::path::absolute(&p).map_err(|e| ExperimentError::io(&p, e))?;
        let dir = if out_dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            out_dir
        };
        let base = std::path::absolute(dir).map_err(|e| ExperimentError::io(dir, e))?;
        Ok(relative(&abs, &base).display().to_string())
    };
    let cc_kind = CcKind::of(&net.cc);
    let mut differences = Vec::new();

    let mut t = String::new();
    let _ = writeln!(
        t,
        "# {}, the HPCC peer simulator's config, as rdmasim's TOML (`rdmasim convert`):\n\
         # `rdmasim run` of this file runs what `rdmasim hpcc` runs of that one. Every\n\
         # setting is written out; the comment at the end says what became of each\n\
         # line of the peer's config.\n",
        path.display()
    );
    let _ = writeln!(t, "[run]\nname = \"{}\"\nseed = {}", s.name, net.seed);
    match net.stop_time {
        Some(stop) => {
            let _ = writeln!(t, "stop = \"{}\"", fmt_delta(Delta(stop.ps())));
        }
        None => differences.push(
            "the peer's config has no SIMULATOR_STOP_TIME, so `rdmasim hpcc` runs until \
             every flow finishes; this config stops 1 s after the last flow's start, \
             rdmasim's default (set run.stop to change it)"
                .to_string(),
        ),
    }
    let _ = writeln!(
        t,
        "\n[topology]\nkind = \"file\"\npath = \"{}\"\nerror_rate_per_link = {:?}",
        rel("TOPOLOGY_FILE")?,
        net.error_rate_per_link
    );
    if net.next_hop_order == topo::NextHopOrder::Descending {
        let _ = writeln!(
            t,
            "next_hop_order = \"descending\"  # ECMP's next hops in the peer's order"
        );
    }
    let _ = writeln!(
        t,
        "\n[workload]\nkind = \"file\"\npath = \"{}\"\n\
         start_times = \"as_peer\"          # through a double, as the peer reads them",
        rel("FLOW_FILE")?
    );
    let _ = writeln!(t, "\n{}", cc_toml(&net.cc));
    // The peer's PFC pauses until a resume (`QbbNetDevice::Receive`).
    let pfc_mode = PfcModeKey::of(&net.pfc.mode).name();
    let _ = writeln!(
        t,
        "[pfc]\nenabled = {}\nmode = \"{pfc_mode}\"\n",
        net.pfc.enabled
    );
    let b = &net.buffer;
    let headroom = match b.headroom {
        Headroom::RateDelay { factor } => {
            format!("headroom = \"auto\"\nheadroom_factor = {factor:?}")
        }
        Headroom::Bytes(h) => format!("headroom = \"{}\"", fmt_bytes(h)),
    };
    let _ = writeln!(
        t,
        "[buffer]\nsize = \"{}\"\nreserve = \"{}\"\n{headroom}\nalpha_shift = {}\n\
         resume_offset = \"{}\"\n",
        fmt_bytes(b.size),
        fmt_bytes(b.reserve),
        b.alpha_shift,
        fmt_bytes(b.resume_offset)
    );
    let _ = writeln!(t, "[ecn]\nenabled = {}", net.ecn.enabled);
    for th in &net.ecn.thresholds {
        let _ = writeln!(
            t,
            "\n[[ecn.thresholds]]\nrate = \"{}\"\nkmin = \"{}B\"\nkmax = \"{}B\"\npmax = {:?}",
            th.rate, th.kmin, th.kmax, th.pmax
        );
    }
    let n = &net.nic;
    let _ = writeln!(
        t,
        "\n[nic]\nmtu = \"{}B\"\ndata_header = \"{}B\"\nack_bytes = \"{}B\"\n\
         ack_high_prio = {}\nswitch_ack_high_prio = {}\nrate_bound = {}\n\
         nack_interval = \"{}\"\nack_interval = \"{}B\"\nchunk = \"{}B\"\n\
         back_to_zero = {}\nbdp_window = {}\nglobal_t = {}\nvar_win = {}\nrto = {}",
        n.mtu_payload,
        n.data_header,
        n.ack_bytes,
        n.ack_high_prio,
        n.switch_ack_high_prio,
        n.rate_bound,
        fmt_delta(n.nack_interval),
        n.ack_interval,
        n.chunk,
        n.back_to_zero,
        n.bdp_window,
        n.global_t,
        n.var_win,
        match n.rto {
            None => "\"off\"".to_string(),
            Some(d) => format!("\"{}\"", fmt_delta(d)),
        }
    );
    if let Some(w) = n.window {
        let _ = writeln!(t, "window = \"{w}B\"");
    }
    let _ = writeln!(t, "\n[output]\nrecord_pfc = {}", s.record_pfc);
    for (at, a, b) in &net.link_down {
        let _ = writeln!(
            t,
            "\n[[link_down]]\nat = \"{}\"\na = {a}\nb = {b}",
            fmt_delta(Delta(at.ps()))
        );
    }

    // What became of each line of the peer's config.
    let cc_keys = cc_kind.peer_keys();
    let _ = writeln!(
        t,
        "\n# The lines of {}, and where each went:",
        path.display()
    );
    for (no, key, v) in &lines {
        let went = where_it_went(key, cc_kind, cc_keys);
        let _ = writeln!(t, "#   line {no}: {key} {v} -> {went}");
    }
    if !cfg.unsupported.is_empty() {
        differences.push(format!(
            "not modelled by rdmasim (nor by rdmasim hpcc): {}",
            cfg.unsupported.join("; ")
        ));
    }
    if differences.is_empty() {
        t.push_str("# A run of this config and rdmasim hpcc's run write the same fct.txt.\n");
    } else {
        t.push_str("# How a run of this config differs from rdmasim hpcc's run:\n");
        for d in &differences {
            let _ = writeln!(t, "#   {d}");
        }
    }
    Ok(t)
}

/// Where a key of the peer's config went in the TOML, or why nowhere.
fn where_it_went(key: &str, cc: CcKind, cc_keys: &[&str]) -> String {
    let to = |k: &str| k.to_string();
    match key {
        "ENABLE_QCN" => to("ecn.enabled"),
        "PACKET_PAYLOAD_SIZE" => to("nic.mtu"),
        "TOPOLOGY_FILE" => to("topology.path"),
        "FLOW_FILE" => to("workload.path (start_times = \"as_peer\")"),
        "SIMULATOR_STOP_TIME" => to("run.stop"),
        "CC_MODE" => format!("cc.kind = \"{}\"", cc.name()),
        "ERROR_RATE_PER_LINK" => to("topology.error_rate_per_link"),
        "L2_CHUNK_SIZE" => to("nic.chunk"),
        "L2_ACK_INTERVAL" => to("nic.ack_interval"),
        "L2_BACK_TO_ZERO" => to("nic.back_to_zero"),
        "HAS_WIN" => to("nic.bdp_window"),
        "GLOBAL_T" => to("nic.global_t"),
        "VAR_WIN" => to("nic.var_win"),
        "RATE_BOUND" => to("nic.rate_bound"),
        "ACK_HIGH_PRIO" => to("nic.ack_high_prio (the peer's switches carry ACKs in the flow's class: nic.switch_ack_high_prio = false)"),
        "LINK_DOWN" => to("[[link_down]] (none when '0 0 0')"),
        "KMAX_MAP" | "KMIN_MAP" | "PMAX_MAP" => to("[[ecn.thresholds]]"),
        "BUFFER_SIZE" => to("buffer.size"),
        "FCT_OUTPUT_FILE" => to(
            "no TOML equivalent: rdmasim run writes fct.txt (the same format) into the run \
             directory",
        ),
        "PFC_OUTPUT_FILE" => to(
            "output.record_pfc = true: rdmasim run writes pfc.txt into the run directory",
        ),
        "QLEN_MON_FILE" | "QLEN_MON_START" | "QLEN_MON_END" => to(
            "no TOML equivalent: the peer's queue-length monitor file is written by rdmasim \
             hpcc only; a [timeseries] section records every switch queue instead",
        ),
        "TRACE_FILE" | "TRACE_OUTPUT_FILE" | "ENABLE_TRACE" => {
            to("no TOML equivalent: rdmasim writes no binary packet trace")
        }
        "USE_DYNAMIC_PFC_THRESHOLD" | "PAUSE_TIME" | "DATA_RATE" | "LINK_DELAY" | "INT_MULTI" => {
            to("no TOML equivalent: the peer reads it but does not use it")
        }
        k if cc_keys.contains(&k) => format!("[cc.{}]", cc.name()),
        k if crate::config::PEER_CC_KEYS.contains(&k) => format!(
            "no TOML equivalent: a parameter of another congestion control than CC_MODE's \
             ({} does not use it)",
            cc.name()
        ),
        _ => to("no TOML equivalent: not a key of the peer's config (rdmasim hpcc warns)"),
    }
}

/// `path` relative to the directory `base` (both absolute), or `path`
/// itself if they share no root.
fn relative(path: &Path, base: &Path) -> PathBuf {
    fn norm(p: &Path) -> Vec<Component<'_>> {
        let mut out: Vec<Component<'_>> = Vec::new();
        for c in p.components() {
            match c {
                Component::CurDir => {}
                Component::ParentDir if matches!(out.last(), Some(Component::Normal(_))) => {
                    out.pop();
                }
                c => out.push(c),
            }
        }
        out
    }
    let (p, b) = (norm(path), norm(base));
    if p.first() != b.first() {
        return path.to_path_buf();
    }
    let common = p.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &p[common..] {
        out.push(c.as_os_str());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths() {
        let r = |p: &str, b: &str| relative(Path::new(p), Path::new(b)).display().to_string();
        assert_eq!(r("/a/b/fat.txt", "/a/b"), "fat.txt");
        assert_eq!(r("/a/b/fat.txt", "/a/c/d"), "../../b/fat.txt");
        assert_eq!(r("/a/./b/../fat.txt", "/a"), "fat.txt");
    }
}
