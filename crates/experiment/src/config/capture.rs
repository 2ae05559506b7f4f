//! `[capture]`: a packet capture of chosen ports, written as
//! `capture.pcapng` in the run directory; off unless the section is
//! present (`docs/capture.md`).
//!
//! ```toml
//! [capture]
//! ports = [{node = 20, port = 1}]  # or "all-switch", "all"
//! direction = "both"               # "tx", "rx" or "both"
//! start = "0s"                     # window: from start
//! stop = "1ms"                     # to stop (default: the end of the run)
//! snaplen = 128                    # bytes kept of each frame (default: whole)
//! flows = [3, 4]                   # only these flows (and PFC, credits)
//! classes = [3]                    # only these classes
//! max_frames = 1000000             # stop recording after this many
//! ```
//!
//! Recording is done by the network (`net::capture`), which only reads the
//! frames, so the flows of a run are the same with or without it.

use super::ctx::{Ctx, R};
use super::timeseries::port_list;
use engine::Time;
use net::capture::{CaptureConfig, Direction};
use net::monitor::MonitorPorts;
use serde::Deserialize;

/// Default `direction`.
pub const DEFAULT_DIRECTION: &str = "both";
/// Default `snaplen`: whole frames (up to a 64 KiB payload), as
/// tcpdump keeps them; 128 keeps every header rdmasim writes (at most
/// 74 B) and makes files about eight times smaller, but Wireshark then
/// marks the cut data frames "Malformed".
pub const DEFAULT_SNAPLEN: u32 = 65_535;
/// Default `max_frames`: about 1 GB of file with whole 1000 B frames.
pub const DEFAULT_MAX_FRAMES: u64 = 1_000_000;
/// The largest `snaplen` (what Wireshark's readers accept everywhere).
pub const MAX_SNAPLEN: u32 = 262_144;

/// `[capture]`: present means on.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaptureSection {
    /// `"all-switch"`, `"all"` or a list of `{node, port}`; required.
    pub ports: Option<toml::Value>,
    /// `"tx"`, `"rx"` or `"both"` (default [`DEFAULT_DIRECTION`]).
    pub direction: Option<String>,
    /// Start of the window; default 0.
    pub start: Option<String>,
    /// End of the window (excluded); default: the end of the run.
    pub stop: Option<String>,
    /// Bytes kept of each frame; default [`DEFAULT_SNAPLEN`].
    pub snaplen: Option<u32>,
    /// Only the frames of these flows (ids), and class-wide control frames.
    pub flows: Option<Vec<u32>>,
    /// Only the frames of these classes.
    pub classes: Option<Vec<u8>>,
    /// Stop recording after this many frames; default [`DEFAULT_MAX_FRAMES`].
    pub max_frames: Option<u64>,
}

/// The capture settings of a `[capture]` section, checked against the
/// scenario built from its config.
pub(super) fn capture(
    cx: &Ctx<'_>,
    c: &CaptureSection,
    s: &crate::scenario::Scenario,
) -> R<CaptureConfig> {
    let ports = match &c.ports {
        None => {
            return Err(cx.err(
                "capture.ports",
                "missing; a capture needs its ports: \"all-switch\", \"all\" or a list \
                 like [{node = 20, port = 1}]",
            ))
        }
        Some(toml::Value::String(v)) if v == "all-switch" => MonitorPorts::AllSwitch,
        Some(toml::Value::String(v)) if v == "all" => MonitorPorts::All,
        Some(toml::Value::Array(list)) if !list.is_empty() => {
            MonitorPorts::List(port_list(cx, "capture.ports", list, &s.topo)?)
        }
        Some(_) => {
            return Err(cx.err(
                "capture.ports",
                "expected \"all-switch\", \"all\" or a list like [{node = 20, port = 1}]",
            ))
        }
    };
    let direction = match c.direction.as_deref().unwrap_or(DEFAULT_DIRECTION) {
        "tx" => Direction::Tx,
        "rx" => Direction::Rx,
        "both" => Direction::Both,
        v => {
            return Err(cx.err(
                "capture.direction",
                format!("unknown value \"{v}\"; expected \"tx\", \"rx\" or \"both\""),
            ))
        }
    };
    let start = match &c.start {
        Some(v) => Time(cx.time("capture.start", v)?.ps()),
        None => Time::ZERO,
    };
    let stop = match &c.stop {
        Some(v) => {
            let stop = Time(cx.time("capture.stop", v)?.ps());
            if stop <= start {
                return Err(cx.err("capture.stop", "must be after capture.start"));
            }
            Some(stop)
        }
        None => None,
    };
    let snaplen = c.snaplen.unwrap_or(DEFAULT_SNAPLEN);
    if !(1..=MAX_SNAPLEN).contains(&snaplen) {
        return Err(cx.err(
            "capture.snaplen",
            format!("{snaplen} is out of range (1 to {MAX_SNAPLEN} bytes)"),
        ));
    }
    if let Some(&bad) = c
        .classes
        .iter()
        .flatten()
        .find(|&&k| usize::from(k) >= net::wire::N_CLASSES)
    {
        return Err(cx.err(
            "capture.classes",
            format!(
                "class {bad} does not exist (classes are 0 to {})",
                net::wire::N_CLASSES - 1
            ),
        ));
    }
    if let Some(&bad) = c
        .flows
        .iter()
        .flatten()
        .find(|&&id| !s.flows.iter().any(|f| f.id == id))
    {
        return Err(cx.err(
            "capture.flows",
            format!("no flow of the workload has id {bad}"),
        ));
    }
    let max_frames = c.max_frames.unwrap_or(DEFAULT_MAX_FRAMES);
    if max_frames == 0 {
        return Err(cx.err("capture.max_frames", "must be at least 1"));
    }
    Ok(CaptureConfig {
        ports,
        direction,
        start,
        stop,
        snaplen,
        flows: c.flows.clone(),
        classes: c.classes.clone(),
        max_frames,
    })
}
