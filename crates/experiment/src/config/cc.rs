//! `[cc]`: the congestion control every QP runs.

use super::ctx::{Ctx, R};
use net::cc::{
    CcConfig, DcqcnConfig, DctcpConfig, HpccConfig, PintConfig, SwiftConfig, TimelyConfig,
};
use serde::Deserialize;

/// `cc.kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CcKind {
    /// Line rate, no reaction.
    None,
    /// DCQCN (the peer's Mellanox flavour).
    Dcqcn,
    /// HPCC (the peer's `CC_MODE 3`).
    Hpcc,
    /// HPCC-PINT (the peer's `CC_MODE 10`).
    HpccPint,
    /// TIMELY (the peer's `CC_MODE 7`).
    Timely,
    /// The peer's rate-based DCTCP (`CC_MODE 8`).
    Dctcp,
    /// Swift-like RTT AIMD on a window (Bifröst's CC).
    Swift,
}

impl CcKind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            CcKind::None => "none",
            CcKind::Dcqcn => "dcqcn",
            CcKind::Hpcc => "hpcc",
            CcKind::HpccPint => "hpcc_pint",
            CcKind::Timely => "timely",
            CcKind::Dctcp => "dctcp",
            CcKind::Swift => "swift",
        }
    }
}

/// `[cc]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CcSection {
    /// Scheme; default `none` (as [`CcConfig::default`]).
    pub kind: Option<CcKind>,
    /// `[cc.dcqcn]`, with `kind = "dcqcn"` only.
    pub dcqcn: Option<DcqcnSection>,
    /// `[cc.hpcc]`, with `kind = "hpcc"` only.
    pub hpcc: Option<HpccSection>,
    /// `[cc.hpcc_pint]`, with `kind = "hpcc_pint"` only.
    pub hpcc_pint: Option<PintSection>,
    /// `[cc.timely]`, with `kind = "timely"` only.
    pub timely: Option<TimelySection>,
    /// `[cc.dctcp]`, with `kind = "dctcp"` only.
    pub dctcp: Option<DctcpSection>,
    /// `[cc.swift]`, with `kind = "swift"` only.
    pub swift: Option<SwiftSection>,
}

/// `[cc.hpcc]`: every [`HpccConfig`] field, optional.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HpccSection {
    /// Target utilisation η.
    pub eta: Option<f64>,
    /// Additive-increase stages before a multiplicative step (MI_THRESH).
    pub max_stage: Option<u32>,
    /// Additive increase W_AI.
    pub rate_ai: Option<String>,
    /// Rate floor.
    pub min_rate: Option<String>,
    /// React on every ACK.
    pub fast_react: Option<bool>,
    /// Skip fast-react hops with an empty queue.
    pub sample_feedback: Option<bool>,
    /// One reference rate per hop (MULTI_RATE).
    pub multi_rate: Option<bool>,
}

/// `[cc.hpcc_pint]`: every [`PintConfig`] field, optional.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PintSection {
    /// Target utilisation η.
    pub eta: Option<f64>,
    /// Additive-increase stages before a multiplicative step.
    pub max_stage: Option<u32>,
    /// Additive increase.
    pub rate_ai: Option<String>,
    /// Rate floor.
    pub min_rate: Option<String>,
    /// Base of the utilisation encoding (> 1).
    pub log_base: Option<f64>,
    /// Fraction of ACKs used.
    pub prob: Option<f64>,
}

/// `[cc.timely]`: every [`TimelyConfig`] field, optional.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimelySection {
    /// EWMA weight of the newest RTT difference.
    pub alpha: Option<f64>,
    /// Multiplicative decrease factor.
    pub beta: Option<f64>,
    /// Always increase below this RTT.
    pub t_low: Option<String>,
    /// Always decrease above this RTT.
    pub t_high: Option<String>,
    /// Gradient normaliser.
    pub min_rtt: Option<String>,
    /// Additive increase.
    pub rate_ai: Option<String>,
    /// Hyper-active increase.
    pub rate_hai: Option<String>,
    /// Rate floor.
    pub min_rate: Option<String>,
}

/// `[cc.dctcp]`: every [`DctcpConfig`] field, optional.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DctcpSection {
    /// Alpha gain.
    pub g: Option<f64>,
    /// Additive increase per window.
    pub rate_ai: Option<String>,
    /// Rate floor.
    pub min_rate: Option<String>,
}

/// `[cc.swift]`: every [`SwiftConfig`] field, optional.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwiftSection {
    /// Target delay.
    pub target: Option<String>,
    /// Additive increase per RTT.
    pub ai: Option<String>,
    /// Multiplicative decrease scale.
    pub beta: Option<f64>,
    /// Largest decrease per RTT.
    pub max_mdf: Option<f64>,
    /// Window floor.
    pub cwnd_min: Option<String>,
    /// Window ceiling and initial window.
    pub cwnd_max: Option<String>,
}

/// `[cc.dcqcn]`: every [`DcqcnConfig`] field, optional.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DcqcnSection {
    /// Alpha update period.
    pub alpha_interval: Option<String>,
    /// Rate-decrease check period.
    pub decrease_interval: Option<String>,
    /// Rate-increase timer.
    pub rp_timer: Option<String>,
    /// Alpha gain.
    pub g: Option<f64>,
    /// Additive increase.
    pub rate_ai: Option<String>,
    /// Hyper increase.
    pub rate_hai: Option<String>,
    /// Rate floor.
    pub min_rate: Option<String>,
    /// Fast-recovery stages.
    pub fast_recovery_times: Option<u32>,
    /// Always clamp the target rate.
    pub clamp_target_rate: Option<bool>,
    /// Rate multiplier on the first CNP.
    pub rate_on_first_cnp: Option<f64>,
}

pub(super) fn build_cc(cx: &Ctx<'_>, c: &CcSection) -> R<CcConfig> {
    let default_kind = match CcConfig::default() {
        CcConfig::None => CcKind::None,
        CcConfig::Dcqcn(_) => CcKind::Dcqcn,
        CcConfig::Hpcc(_) => CcKind::Hpcc,
        CcConfig::Pint(_) => CcKind::HpccPint,
        CcConfig::Timely(_) => CcKind::Timely,
        CcConfig::Dctcp(_) => CcKind::Dctcp,
        CcConfig::Swift(_) => CcKind::Swift,
    };
    let kind = c.kind.unwrap_or(default_kind);
    // A parameter table for another scheme is a mistake worth naming.
    for (table, k, set) in [
        ("dcqcn", CcKind::Dcqcn, c.dcqcn.is_some()),
        ("hpcc", CcKind::Hpcc, c.hpcc.is_some()),
        ("hpcc_pint", CcKind::HpccPint, c.hpcc_pint.is_some()),
        ("timely", CcKind::Timely, c.timely.is_some()),
        ("dctcp", CcKind::Dctcp, c.dctcp.is_some()),
        ("swift", CcKind::Swift, c.swift.is_some()),
    ] {
        if set && k != kind {
            return Err(cx.err(
                &format!("cc.{table}"),
                format!(
                    "[cc.{table}] is set but cc.kind is \"{}\"; set kind = \"{table}\" or remove it",
                    kind.name()
                ),
            ));
        }
    }
    match kind {
        CcKind::None => Ok(CcConfig::None),
        CcKind::Dcqcn => {
            let mut d = DcqcnConfig::default();
            let s = c.dcqcn.clone().unwrap_or_default();
            let p = |k: &str| format!("cc.dcqcn.{k}");
            if let Some(v) = &s.alpha_interval {
                d.alpha_interval = cx.positive_time(&p("alpha_interval"), v)?;
            }
            if let Some(v) = &s.decrease_interval {
                d.decrease_interval = cx.positive_time(&p("decrease_interval"), v)?;
            }
            if let Some(v) = &s.rp_timer {
                d.rp_timer = cx.positive_time(&p("rp_timer"), v)?;
            }
            if let Some(v) = s.g {
                d.g = cx.fraction(&p("g"), v, false)?;
            }
            if let Some(v) = &s.rate_ai {
                d.rate_ai = cx.rate(&p("rate_ai"), v)?;
            }
            if let Some(v) = &s.rate_hai {
                d.rate_hai = cx.rate(&p("rate_hai"), v)?;
            }
            if let Some(v) = &s.min_rate {
                d.min_rate = cx.rate(&p("min_rate"), v)?;
            }
            if let Some(v) = s.fast_recovery_times {
                d.fast_recovery_times = v;
            }
            if let Some(v) = s.clamp_target_rate {
                d.clamp_target_rate = v;
            }
            if let Some(v) = s.rate_on_first_cnp {
                d.rate_on_first_cnp = cx.fraction(&p("rate_on_first_cnp"), v, false)?;
            }
            Ok(CcConfig::Dcqcn(d))
        }
        CcKind::Hpcc => {
            let mut h = HpccConfig::default();
            let s = c.hpcc.clone().unwrap_or_default();
            let p = |k: &str| format!("cc.hpcc.{k}");
            if let Some(v) = s.eta {
                h.eta = cx.fraction(&p("eta"), v, false)?;
            }
            if let Some(v) = s.max_stage {
                h.max_stage = v;
            }
            if let Some(v) = &s.rate_ai {
                h.rate_ai = cx.rate(&p("rate_ai"), v)?;
            }
            if let Some(v) = &s.min_rate {
                h.min_rate = cx.rate(&p("min_rate"), v)?;
            }
            if let Some(v) = s.fast_react {
                h.fast_react = v;
            }
            if let Some(v) = s.sample_feedback {
                h.sample_feedback = v;
            }
            if let Some(v) = s.multi_rate {
                h.multi_rate = v;
            }
            Ok(CcConfig::Hpcc(h))
        }
        CcKind::HpccPint => {
            let mut h = PintConfig::default();
            let s = c.hpcc_pint.clone().unwrap_or_default();
            let p = |k: &str| format!("cc.hpcc_pint.{k}");
            if let Some(v) = s.eta {
                h.eta = cx.fraction(&p("eta"), v, false)?;
            }
            if let Some(v) = s.max_stage {
                h.max_stage = v;
            }
            if let Some(v) = &s.rate_ai {
                h.rate_ai = cx.rate(&p("rate_ai"), v)?;
            }
            if let Some(v) = &s.min_rate {
                h.min_rate = cx.rate(&p("min_rate"), v)?;
            }
            if let Some(v) = s.log_base {
                if !(v.is_finite() && v > 1.0) {
                    return Err(cx.err(&p("log_base"), format!("{v} must be greater than 1")));
                }
                h.log_base = v;
            }
            if let Some(v) = s.prob {
                h.prob = cx.fraction(&p("prob"), v, false)?;
            }
            Ok(CcConfig::Pint(h))
        }
        CcKind::Timely => {
            let mut t = TimelyConfig::default();
            let s = c.timely.clone().unwrap_or_default();
            let p = |k: &str| format!("cc.timely.{k}");
            if let Some(v) = s.alpha {
                t.alpha = cx.fraction(&p("alpha"), v, false)?;
            }
            if let Some(v) = s.beta {
                t.beta = cx.fraction(&p("beta"), v, false)?;
            }
            if let Some(v) = &s.t_low {
                t.t_low = cx.positive_time(&p("t_low"), v)?;
            }
            if let Some(v) = &s.t_high {
                t.t_high = cx.positive_time(&p("t_high"), v)?;
            }
            if let Some(v) = &s.min_rtt {
                t.min_rtt = cx.positive_time(&p("min_rtt"), v)?;
            }
            if let Some(v) = &s.rate_ai {
                t.rate_ai = cx.rate(&p("rate_ai"), v)?;
            }
            if let Some(v) = &s.rate_hai {
                t.rate_hai = cx.rate(&p("rate_hai"), v)?;
            }
            if let Some(v) = &s.min_rate {
                t.min_rate = cx.rate(&p("min_rate"), v)?;
            }
            Ok(CcConfig::Timely(t))
        }
        CcKind::Dctcp => {
            let mut d = DctcpConfig::default();
            let s = c.dctcp.clone().unwrap_or_default();
            let p = |k: &str| format!("cc.dctcp.{k}");
            if let Some(v) = s.g {
                d.g = cx.fraction(&p("g"), v, false)?;
            }
            if let Some(v) = &s.rate_ai {
                d.rate_ai = cx.rate(&p("rate_ai"), v)?;
            }
            if let Some(v) = &s.min_rate {
                d.min_rate = cx.rate(&p("min_rate"), v)?;
            }
            Ok(CcConfig::Dctcp(d))
        }
        CcKind::Swift => {
            let mut w = SwiftConfig::default();
            let s = c.swift.clone().unwrap_or_default();
            let p = |k: &str| format!("cc.swift.{k}");
            if let Some(v) = &s.target {
                w.target = cx.positive_time(&p("target"), v)?;
            }
            if let Some(v) = &s.ai {
                w.ai = Some(cx.positive_bytes(&p("ai"), v)?);
            }
            if let Some(v) = s.beta {
                w.beta = cx.fraction(&p("beta"), v, false)?;
            }
            if let Some(v) = s.max_mdf {
                w.max_mdf = cx.fraction(&p("max_mdf"), v, false)?;
            }
            if let Some(v) = &s.cwnd_min {
                w.cwnd_min = Some(cx.positive_bytes(&p("cwnd_min"), v)?);
            }
            if let Some(v) = &s.cwnd_max {
                w.cwnd_max = Some(cx.positive_bytes(&p("cwnd_max"), v)?);
            }
            if let (Some(lo), Some(hi)) = (w.cwnd_min, w.cwnd_max) {
                if lo > hi {
                    return Err(cx.err(
                        &p("cwnd_min"),
                        format!("cwnd_min ({lo} B) is above cwnd_max ({hi} B)"),
                    ));
                }
            }
            Ok(CcConfig::Swift(w))
        }
    }
}
