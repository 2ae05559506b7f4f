//! The switches' shared settings: `[pfc]`, `[buffer]` and `[ecn]`.

use super::ctx::{Ctx, R};
use net::fc::{WatchdogAction, WatchdogConfig};
use net::{EcnThreshold, Headroom, NetConfig, PfcMode};
use serde::Deserialize;

/// Default PFC pause time in quanta for `mode = "quanta"`: the largest the
/// 16-bit field holds (rdmasim's choice).
pub const DEFAULT_PFC_QUANTA: u16 = 65535;

/// Default refresh point of a quanta-mode pause, as a fraction of the pause
/// time (rdmasim's choice).
pub const DEFAULT_PFC_REFRESH: f64 = 0.5;

/// `pfc.mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PfcModeKey {
    /// Pause until an explicit resume (the peer).
    UntilResume,
    /// IEEE 802.1Qbb pause quanta.
    Quanta,
}

impl PfcModeKey {
    /// The value `pfc.mode` takes (and `summary.json`'s `pfc` with PFC on).
    pub fn name(self) -> &'static str {
        match self {
            PfcModeKey::UntilResume => "until_resume",
            PfcModeKey::Quanta => "quanta",
        }
    }

    /// The key of `mode`.
    pub fn of(mode: &PfcMode) -> PfcModeKey {
        match mode {
            PfcMode::UntilResume => PfcModeKey::UntilResume,
            PfcMode::Quanta { .. } => PfcModeKey::Quanta,
        }
    }
}

/// `[pfc]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PfcSection {
    /// PFC on (lossless) or off (lossy).
    pub enabled: Option<bool>,
    /// Pause semantics.
    pub mode: Option<PfcModeKey>,
    /// `quanta` mode: pause time in quanta (512 bit-times).
    pub quanta: Option<u16>,
    /// `quanta` mode: refresh after this fraction of the pause time.
    pub refresh_fraction: Option<f64>,
    /// `[pfc.watchdog]`: present means on.
    pub watchdog: Option<WatchdogSection>,
    /// The classes PFC protects; the other data classes are lossy.
    pub classes: Option<Vec<u8>>,
}

/// `[pfc.watchdog]`: the PFC storm watchdog (Azure §3.1).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WatchdogSection {
    /// A class paused this long without a break is a storm.
    pub detect: Option<String>,
    /// Restored once no pause frame came for this long.
    pub restore: Option<String>,
    /// `"drop"` or `"forward"`.
    pub action: Option<String>,
    /// How often a storming class's queue is emptied (`drop`).
    pub drop_interval: Option<String>,
    /// `"all"`, `"switches"` or `"hosts"`.
    pub on: Option<String>,
}

/// `[buffer]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BufferSection {
    /// Buffer per switch.
    pub size: Option<String>,
    /// Reserved per (ingress port, class).
    pub reserve: Option<String>,
    /// `"auto"` (factor × rate × delay) or a size per port.
    pub headroom: Option<String>,
    /// The factor of `"auto"` headroom.
    pub headroom_factor: Option<f64>,
    /// Dynamic-threshold shift (alpha = 1/2^shift).
    pub alpha_shift: Option<u8>,
    /// XON hysteresis.
    pub resume_offset: Option<String>,
    /// `"peer"` (the default) or `"sonic"`: SONiC's buffer model on the
    /// switches of `sonic_switches` (`config::sonic`).
    pub model: Option<String>,
    /// The config_db JSON file, relative to the config.
    pub sonic: Option<String>,
    /// The switches that use it; default all.
    pub sonic_switches: Option<Vec<u32>>,
    /// The file's port name of each local port, in link order.
    pub sonic_ports: Option<Vec<String>>,
    /// Class → ingress profile, on every port.
    pub sonic_pg: Option<std::collections::BTreeMap<String, String>>,
    /// Class → egress profile, on every port.
    pub sonic_queue: Option<std::collections::BTreeMap<String, String>>,
}

/// `[ecn]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EcnSection {
    /// Marking on or off.
    pub enabled: Option<bool>,
    /// `[[ecn.thresholds]]`, replacing the default list.
    pub thresholds: Option<Vec<EcnThresholdSection>>,
}

/// One `[[ecn.thresholds]]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EcnThresholdSection {
    /// Port speed.
    pub rate: Option<String>,
    /// Never mark below.
    pub kmin: Option<String>,
    /// Always mark above.
    pub kmax: Option<String>,
    /// Probability at kmax; default 0.2.
    pub pmax: Option<f64>,
}

pub(super) fn build_pfc(cx: &Ctx<'_>, s: &PfcSection, net: &mut NetConfig) -> R<()> {
    if let Some(e) = s.enabled {
        net.pfc.enabled = e;
    }
    match s.mode {
        Some(PfcModeKey::Quanta) => {
            let quanta = s.quanta.unwrap_or(DEFAULT_PFC_QUANTA);
            if quanta == 0 {
                return Err(cx.err("pfc.quanta", "must be at least 1 (0 means resume)"));
            }
            let refresh = match s.refresh_fraction {
                Some(f) => cx.fraction("pfc.refresh_fraction", f, false)?,
                None => DEFAULT_PFC_REFRESH,
            };
            net.pfc.mode = PfcMode::Quanta {
                quanta,
                refresh_fraction: refresh,
            };
        }
        Some(PfcModeKey::UntilResume) | None => {
            for (key, set) in [
                ("quanta", s.quanta.is_some()),
                ("refresh_fraction", s.refresh_fraction.is_some()),
            ] {
                if set && !matches!(net.pfc.mode, PfcMode::Quanta { .. }) {
                    return Err(cx.err(&format!("pfc.{key}"), "only used with mode = \"quanta\""));
                }
            }
            if s.mode.is_some() {
                net.pfc.mode = PfcMode::UntilResume;
            }
        }
    }
    if let Some(w) = &s.watchdog {
        net.pfc.watchdog = Some(build_watchdog(cx, w)?);
    }
    if let Some(list) = &s.classes {
        let mut mask = 0u8;
        for &k in list {
            if k == 0 || usize::from(k) >= net::wire::N_CLASSES {
                return Err(cx.err(
                    "pfc.classes",
                    format!(
                        "{k}: a data class is 1 to {} (class 0, the control class, is never \
                         paused)",
                        net::wire::N_CLASSES - 1
                    ),
                ));
            }
            mask |= 1 << k;
        }
        net.pfc.classes = mask;
    }
    Ok(())
}

/// `pfc.watchdog.on`'s values: (name, switches, hosts).
const WATCHDOG_ON: [(&str, bool, bool); 3] = [
    ("all", true, true),
    ("switches", true, false),
    ("hosts", false, true),
];

fn build_watchdog(cx: &Ctx<'_>, s: &WatchdogSection) -> R<WatchdogConfig> {
    let mut w = WatchdogConfig::default();
    if let Some(v) = &s.detect {
        w.detect = cx.positive_time("pfc.watchdog.detect", v)?;
    }
    if let Some(v) = &s.restore {
        w.restore = cx.positive_time("pfc.watchdog.restore", v)?;
    }
    if let Some(v) = &s.drop_interval {
        w.drop_interval = cx.positive_time("pfc.watchdog.drop_interval", v)?;
    }
    if let Some(v) = &s.action {
        w.action = WatchdogAction::ALL
            .iter()
            .find(|(n, _)| n == v)
            .map(|&(_, a)| a)
            .ok_or_else(|| {
                cx.err(
                    "pfc.watchdog.action",
                    format!("'{v}' is not an action (\"drop\" or \"forward\")"),
                )
            })?;
    }
    if let Some(v) = &s.on {
        let &(_, switches, hosts) =
            WATCHDOG_ON.iter().find(|(n, _, _)| n == v).ok_or_else(|| {
                cx.err(
                    "pfc.watchdog.on",
                    format!("'{v}' is not one of \"all\", \"switches\", \"hosts\""),
                )
            })?;
        w.switches = switches;
        w.hosts = hosts;
    }
    Ok(w)
}

pub(super) fn build_buffer(cx: &Ctx<'_>, s: &BufferSection, net: &mut NetConfig) -> R<()> {
    let b = &mut net.buffer;
    if let Some(v) = &s.size {
        b.size = cx.positive_bytes("buffer.size", v)?;
    }
    if let Some(v) = &s.reserve {
        b.reserve = cx.bytes("buffer.reserve", v)?;
    }
    if let Some(v) = &s.resume_offset {
        b.resume_offset = cx.bytes("buffer.resume_offset", v)?;
    }
    if let Some(v) = s.alpha_shift {
        if v > 63 {
            return Err(cx.err("buffer.alpha_shift", format!("{v} must be at most 63")));
        }
        b.alpha_shift = v;
    }
    let auto = match s.headroom.as_deref() {
        None => matches!(b.headroom, Headroom::RateDelay { .. }),
        Some("auto") => true,
        Some(v) => {
            b.headroom = Headroom::Bytes(cx.bytes("buffer.headroom", v).map_err(|_| {
                cx.err(
                    "buffer.headroom",
                    format!("'{v}' is neither \"auto\" nor a size like \"64KiB\""),
                )
            })?);
            false
        }
    };
    if auto {
        let factor = match (s.headroom_factor, b.headroom) {
            (Some(f), _) => f,
            (None, Headroom::RateDelay { factor }) => factor,
            (None, Headroom::Bytes(_)) => 3.0,
        };
        if !(factor.is_finite() && factor >= 0.0) {
            return Err(cx.err(
                "buffer.headroom_factor",
                format!("{factor} must be a non-negative number"),
            ));
        }
        b.headroom = Headroom::RateDelay { factor };
    } else if s.headroom_factor.is_some() {
        return Err(cx.err(
            "buffer.headroom_factor",
            "only used with headroom = \"auto\"",
        ));
    }
    Ok(())
}

pub(super) fn build_ecn(cx: &Ctx<'_>, s: &EcnSection, net: &mut NetConfig) -> R<()> {
    if let Some(e) = s.enabled {
        net.ecn.enabled = e;
    }
    let Some(list) = &s.thresholds else {
        return Ok(());
    };
    if list.is_empty() {
        return Err(cx.err("ecn.thresholds", "give at least one [[ecn.thresholds]]"));
    }
    let mut out: Vec<EcnThreshold> = Vec::with_capacity(list.len());
    for (i, t) in list.iter().enumerate() {
        let p = |k: &str| format!("ecn.thresholds[{i}].{k}");
        let why = "[[ecn.thresholds]]";
        let rate = cx.rate(&p("rate"), &cx.required(&t.rate, &p("rate"), why)?)?;
        let kmin = cx.bytes(&p("kmin"), &cx.required(&t.kmin, &p("kmin"), why)?)?;
        let kmax = cx.bytes(&p("kmax"), &cx.required(&t.kmax, &p("kmax"), why)?)?;
        if kmax < kmin {
            return Err(cx.err(
                &p("kmax"),
                format!("kmax ({kmax} B) is below kmin ({kmin} B)"),
            ));
        }
        let pmax = match t.pmax {
            Some(v) => cx.fraction(&p("pmax"), v, true)?,
            None => 0.2,
        };
        if out.iter().any(|o| o.rate == rate) {
            return Err(cx.err(&p("rate"), format!("thresholds for {rate} are given twice")));
        }
        out.push(EcnThreshold {
            rate,
            kmin,
            kmax,
            pmax,
        });
    }
    net.ecn.thresholds = out;
    Ok(())
}
