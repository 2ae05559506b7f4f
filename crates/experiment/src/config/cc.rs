//! `[cc]`: the congestion control every QP runs. Each scheme is declared
//! once, in the table at the end of this file ([`congestion_controls!`]),
//! and everything else follows from it: the value of `cc.kind`, the
//! `[cc.<scheme>]` table and the checks of its keys, the scheme's block
//! in `rdmasim config --defaults`, and how the peer's `config.txt` picks
//! it (`CC_MODE`) and sets its parameters (`RATE_AI`, `EWMA_GAIN`, ...).
//!
//! A scheme's entry names its variant of [`CcKind`] and of [`CcConfig`],
//! its parameters' struct in `net::cc`, its peer `CC_MODE` if it has one,
//! and the source of its defaults; then each parameter: a field of that
//! struct, its kind of value ([`super::values`]), the peer's key that sets
//! it, and, if `--defaults` shows it, its comment there (after the peer's
//! key, when there is one).

use super::ctx::{Ctx, R};
use super::values::{set, AboveOne, Bytes, Count, Duration, Flag, Fraction, LinkRate, Param};
use net::cc::{
    CcConfig, DcqcnConfig, DctcpConfig, HpccConfig, PintConfig, SwiftConfig, TimelyConfig,
};
use serde::Deserialize;
use std::fmt::Write as _;

/// The peer (`docs/sources.md`), where most defaults come from.
const PEER: &str = "HPCC sim";

/// Declares the congestion controls: see the module's documentation.
macro_rules! congestion_controls {
    ($(
        $(#[doc = $doc:literal])*
        $Kind:ident ($Variant:ident) $key:ident: $Config:ident, $Section:ident,
        $(peer mode $mode:literal,)?
        defaults $source:literal,
        $(check $check:path,)?
        $(note $note:literal,)?
        {$(
            $(#[doc = $fdoc:literal])*
            $field:ident: $Toml:ty as $P:ident $(, peer $peer:literal)? $(, shown $shown:literal)?;
        )*}
    )*) => {
        /// `cc.kind`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum CcKind {
            /// Line rate, no reaction.
            None,
            $($(#[doc = $doc])* $Kind,)*
        }

        impl CcKind {
            /// Every scheme, in the order of `rdmasim config --defaults`.
            pub const ALL: &'static [CcKind] = &[CcKind::None, $(CcKind::$Kind),*];

            /// The name `cc.kind` takes (and `summary.json`'s `cc`).
            pub fn name(self) -> &'static str {
                match self {
                    CcKind::None => "none",
                    $(CcKind::$Kind => stringify!($key),)*
                }
            }

            /// The scheme of `cc`.
            pub fn of(cc: &CcConfig) -> CcKind {
                match cc {
                    CcConfig::None => CcKind::None,
                    $(CcConfig::$Variant(_) => CcKind::$Kind,)*
                }
            }

            /// The peer's `CC_MODE` for this scheme, if the peer has it.
            pub fn peer_mode(self) -> Option<u32> {
                match self {
                    CcKind::None => None,
                    $(CcKind::$Kind => None$(.or(Some($mode)))?,)*
                }
            }
        }

        /// `[cc]`.
        #[derive(Clone, Debug, Default, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct CcSection {
            /// Scheme; default `none` (as [`CcConfig::default`]).
            pub kind: Option<CcKind>,
            $(
                #[doc = concat!("`[cc.", stringify!($key), "]`, with `kind = \"",
                    stringify!($key), "\"` only.")]
                pub $key: Option<$Section>,
            )*
        }

        $(
            #[doc = concat!("`[cc.", stringify!($key), "]`: every [`", stringify!($Config),
                "`] field, optional.")]
            #[derive(Clone, Debug, Default, Deserialize)]
            #[serde(deny_unknown_fields)]
            pub struct $Section {
                $($(#[doc = $fdoc])* pub $field: Option<$Toml>,)*
            }
        )*

        /// `[cc]` → the scheme and its parameters. A parameter table of
        /// another scheme than `kind` is a mistake worth naming.
        pub(super) fn build_cc(cx: &Ctx<'_>, c: &CcSection) -> R<CcConfig> {
            let kind = c.kind.unwrap_or(CcKind::of(&CcConfig::default()));
            $(
                if c.$key.is_some() && kind != CcKind::$Kind {
                    let table = stringify!($key);
                    return Err(cx.err(
                        &format!("cc.{table}"),
                        format!(
                            "[cc.{table}] is set but cc.kind is \"{}\"; set kind = \"{table}\" \
                             or remove it",
                            kind.name()
                        ),
                    ));
                }
            )*
            match kind {
                CcKind::None => Ok(CcConfig::None),
                $(CcKind::$Kind => {
                    let mut cfg = $Config::default();
                    let s = c.$key.clone().unwrap_or_default();
                    $(if let Some(v) = &s.$field {
                        let path = concat!("cc.", stringify!($key), ".", stringify!($field));
                        set(&mut cfg.$field, $P::from_toml(cx, path, v)?);
                    })*
                    $($check(cx, &cfg)?;)?
                    Ok(CcConfig::$Variant(cfg))
                })*
            }
        }

        /// The `[cc]` part of `rdmasim config --defaults`: the default
        /// scheme, then each other scheme's table, commented out, with its
        /// defaults and their sources.
        pub(super) fn defaults_text() -> String {
            let names: Vec<String> =
                CcKind::ALL.iter().map(|k| format!("\"{}\"", k.name())).collect();
            let mut s = format!(
                "[cc]\nkind = \"{}\" # {}; rdmasim's choice\n",
                CcKind::of(&CcConfig::default()).name(),
                names.join(" | ")
            );
            $(
                let d = $Config::default();
                let _ = write!(
                    s,
                    "\n# Used with kind = \"{}\"; {}\n# [cc.{}]\n",
                    stringify!($key),
                    $source.replace("{PEER}", PEER),
                    stringify!($key),
                );
                $(
                    let peer: Option<&str> = None$(.or(Some($peer)))?;
                    $(
                        let comment = match peer {
                            Some(p) if $shown.is_empty() => p.to_string(),
                            Some(p) => format!("{p} {}", $shown),
                            None => $shown.to_string(),
                        };
                        let _ = writeln!(
                            s,
                            "# {} = {} # {comment}",
                            stringify!($field),
                            $P::show(&d.$field)
                        );
                    )?
                    let _ = peer;
                )*
                $(let _ = writeln!(s, "# {}", $note);)?
            )*
            s
        }

        /// `[cc]` and the scheme's table as rdmasim's TOML writes them,
        /// every parameter given (`rdmasim convert`): a config that
        /// builds `cc` again.
        pub(crate) fn cc_toml(cc: &CcConfig) -> String {
            match cc {
                CcConfig::None => "[cc]\nkind = \"none\"\n".to_string(),
                $(CcConfig::$Variant(c) => {
                    let key = stringify!($key);
                    let mut s = format!("[cc]\nkind = \"{key}\"\n\n[cc.{key}]\n");
                    $(
                        let slot = <_ as Slot<<$P as Param>::Value>>::get(&c.$field);
                        if let Some(v) = slot {
                            let _ = writeln!(s, "{} = {}", stringify!($field), $P::show(v));
                        }
                    )*
                    s
                })*
            }
        }

        impl CcKind {
            /// The keys of the peer's config that set a parameter of this
            /// scheme.
            pub(crate) fn peer_keys(self) -> &'static [&'static str] {
                match self {
                    CcKind::None => &[],
                    $(CcKind::$Kind => &[$($($peer,)?)*],)*
                }
            }
        }

        /// The keys of the peer's config that set a parameter of a
        /// congestion control (some, like `RATE_AI`, of several).
        pub(crate) const PEER_CC_KEYS: &[&str] = &[$($($($peer,)?)*)*];

        /// Whether `key` is a congestion-control key of the peer's config
        /// (`None` if not) and, if it is, whether `v` is a value it takes.
        pub(crate) fn check_peer_value(key: &str, v: &str) -> Option<Result<(), String>> {
            $($($(
                if key == $peer {
                    return Some($P::from_peer(v).map(|_| ()));
                }
            )?)*)*
            None
        }

        /// Scheme `kind` as the peer's config sets it: its defaults, with
        /// each parameter whose key the config gives (`value(key)`: the
        /// value of its last line) set to that, as checked when read
        /// ([`check_peer_value`]).
        pub(crate) fn from_peer<'v>(
            kind: CcKind,
            value: &dyn Fn(&str) -> Option<&'v str>,
        ) -> CcConfig {
            match kind {
                CcKind::None => CcConfig::None,
                $(CcKind::$Kind => {
                    #[allow(unused_mut)]
                    let mut cfg = $Config::default();
                    $($(
                        if let Some(v) = value($peer).and_then(|v| $P::from_peer(v).ok()) {
                            set(&mut cfg.$field, v);
                        }
                    )?)*
                    CcConfig::$Variant(cfg)
                })*
            }
        }
    };
}

impl CcKind {
    /// The scheme the peer's `CC_MODE` `m` names, or why it names none.
    pub fn of_peer_mode(m: &str) -> Result<CcKind, String> {
        let mut modes: Vec<(u32, CcKind)> = CcKind::ALL
            .iter()
            .filter_map(|&k| k.peer_mode().map(|p| (p, k)))
            .collect();
        modes.sort_unstable_by_key(|&(p, _)| p);
        match modes.iter().find(|(p, _)| p.to_string() == m) {
            Some(&(_, k)) => Ok(k),
            None => {
                let listed: Vec<String> = modes.iter().map(|(p, _)| p.to_string()).collect();
                Err(format!(
                    "unknown CC_MODE '{m}' (the peer has {})",
                    listed.join(", ")
                ))
            }
        }
    }
}

/// A parameter's place in a scheme's config: the value itself, or an
/// optional one (worked out when the QP starts if not given).
trait Slot<V> {
    fn get(&self) -> Option<&V>;
}

impl<V> Slot<V> for V {
    fn get(&self) -> Option<&V> {
        Some(self)
    }
}

impl<V> Slot<V> for Option<V> {
    fn get(&self) -> Option<&V> {
        self.as_ref()
    }
}

/// Swift's window floor must not be above its ceiling.
fn swift_window_order(cx: &Ctx<'_>, w: &SwiftConfig) -> R<()> {
    if let (Some(lo), Some(hi)) = (w.cwnd_min, w.cwnd_max) {
        if lo > hi {
            return Err(cx.err(
                "cc.swift.cwnd_min",
                format!("cwnd_min ({lo} B) is above cwnd_max ({hi} B)"),
            ));
        }
    }
    Ok(())
}

congestion_controls! {
    /// DCQCN (the peer's Mellanox flavour).
    Dcqcn(Dcqcn) dcqcn: DcqcnConfig, DcqcnSection,
    peer mode 1,
    defaults "{PEER} `rdma-hw.cc` (the `…Mlx` functions), run.py \"dcqcn\" at 100 Gb/s.",
    {
        /// Alpha update period.
        alpha_interval: String as Duration, peer "ALPHA_RESUME_INTERVAL", shown "";
        /// Rate-decrease check period.
        decrease_interval: String as Duration, peer "RATE_DECREASE_INTERVAL", shown "";
        /// Rate-increase timer.
        rp_timer: String as Duration, peer "RP_TIMER", shown "";
        /// Alpha gain.
        g: f64 as Fraction, peer "EWMA_GAIN", shown "(1/256)";
        /// Additive increase.
        rate_ai: String as LinkRate, peer "RATE_AI", shown "";
        /// Hyper increase.
        rate_hai: String as LinkRate, peer "RATE_HAI", shown "";
        /// Rate floor.
        min_rate: String as LinkRate, peer "MIN_RATE", shown "";
        /// Fast-recovery stages.
        fast_recovery_times: u32 as Count, peer "FAST_RECOVERY_TIMES", shown "";
        /// Always clamp the target rate.
        clamp_target_rate: bool as Flag, peer "CLAMP_TARGET_RATE", shown "";
        /// Rate multiplier on the first CNP.
        rate_on_first_cnp: f64 as Fraction, shown "RateOnFirstCnp";
    }

    /// HPCC (the peer's `CC_MODE 3`).
    Hpcc(Hpcc) hpcc: HpccConfig, HpccSection,
    peer mode 3,
    defaults "{PEER} `RdmaHw::UpdateRateHp`, run.py \"hp\" (AI from the HPCC paper's figures).",
    {
        /// Target utilisation η.
        eta: f64 as Fraction, peer "U_TARGET", shown "";
        /// Additive-increase stages before a multiplicative step (MI_THRESH).
        max_stage: u32 as Count, peer "MI_THRESH", shown "";
        /// Additive increase W_AI.
        rate_ai: String as LinkRate, peer "RATE_AI", shown "(the HPCC paper: 50 Mb/s)";
        /// Rate floor.
        min_rate: String as LinkRate, peer "MIN_RATE", shown "(the shipped config)";
        /// React on every ACK.
        fast_react: bool as Flag, peer "FAST_REACT", shown "";
        /// Skip fast-react hops with an empty queue.
        sample_feedback: bool as Flag, peer "SAMPLE_FEEDBACK", shown "";
        /// One reference rate per hop (MULTI_RATE).
        multi_rate: bool as Flag, peer "MULTI_RATE", shown "";
    }

    /// HPCC-PINT (the peer's `CC_MODE 10`).
    HpccPint(Pint) hpcc_pint: PintConfig, PintSection,
    peer mode 10,
    defaults "{PEER} `RdmaHw::UpdateRateHpPint` (CC_MODE 10).",
    {
        /// Target utilisation η.
        eta: f64 as Fraction, peer "U_TARGET", shown "";
        /// Additive-increase stages before a multiplicative step.
        max_stage: u32 as Count, peer "MI_THRESH";
        /// Additive increase.
        rate_ai: String as LinkRate, peer "RATE_AI", shown "";
        /// Rate floor.
        min_rate: String as LinkRate, peer "MIN_RATE";
        /// Base of the utilisation encoding (> 1).
        log_base: f64 as AboveOne, peer "PINT_LOG_BASE", shown "(the shipped config: 1.05)";
        /// Fraction of ACKs used.
        prob: f64 as Fraction, peer "PINT_PROB", shown "";
    }

    /// TIMELY (the peer's `CC_MODE 7`).
    Timely(Timely) timely: TimelyConfig, TimelySection,
    peer mode 7,
    defaults "{PEER} `RdmaHw::UpdateRateTimely` (attributes of the peer, not keys).",
    {
        /// EWMA weight of the newest RTT difference.
        alpha: f64 as Fraction, shown "EWMA weight of the newest RTT difference";
        /// Multiplicative decrease factor.
        beta: f64 as Fraction, shown "multiplicative decrease";
        /// Always increase below this RTT.
        t_low: String as Duration, shown "always increase below";
        /// Always decrease above this RTT.
        t_high: String as Duration, shown "always decrease above";
        /// Gradient normaliser.
        min_rtt: String as Duration, shown "gradient normaliser";
        /// Additive increase.
        rate_ai: String as LinkRate, peer "RATE_AI", shown "(run.py: 100 Mb/s at 100G)";
        /// Hyper-active increase.
        rate_hai: String as LinkRate, peer "RATE_HAI", shown "(5 x AI)";
        /// Rate floor.
        min_rate: String as LinkRate, peer "MIN_RATE", shown "";
    }

    /// The peer's rate-based DCTCP (`CC_MODE 8`).
    Dctcp(Dctcp) dctcp: DctcpConfig, DctcpSection,
    peer mode 8,
    defaults "{PEER} `RdmaHw::HandleAckDctcp`, run.py \"dctcp\".",
    {
        /// Alpha gain.
        g: f64 as Fraction, peer "EWMA_GAIN", shown "(1/16)";
        /// Additive increase per window.
        rate_ai: String as LinkRate, peer "DCTCP_RATE_AI", shown "";
        /// Rate floor.
        min_rate: String as LinkRate, peer "MIN_RATE", shown "";
    }

    /// Swift-like RTT AIMD on a window (Bifröst's CC).
    Swift(Swift) swift: SwiftConfig, SwiftSection,
    defaults "Bifröst (PFC-free) §3.4.3 (values are rdmasim's choice after Swift).",
    check swift_window_order,
    note "ai, cwnd_min: default one MTU; cwnd_max (and initial window): line rate x target",
    {
        /// Target delay.
        target: String as Duration, shown "Bifröst's base_RTT";
        /// Additive increase per RTT.
        ai: String as Bytes;
        /// Multiplicative decrease scale.
        beta: f64 as Fraction, shown "Swift";
        /// Largest decrease per RTT.
        max_mdf: f64 as Fraction, shown "Swift";
        /// Window floor.
        cwnd_min: String as Bytes;
        /// Window ceiling and initial window.
        cwnd_max: String as Bytes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `cc.kind` reads each scheme's name back, and it is the name the
    /// network gives the scheme (`summary.json`'s `cc`).
    #[test]
    fn every_scheme_is_named_alike_everywhere() {
        for &k in CcKind::ALL {
            let s: CcSection = toml::from_str(&format!("kind = \"{}\"", k.name())).unwrap();
            assert_eq!(s.kind, Some(k));
            let cfg = from_peer(k, &|_| None);
            assert_eq!(CcKind::of(&cfg), k);
            assert_eq!(cfg.name(), k.name());
        }
    }

    /// The peer's modes are distinct, and each names the scheme it is.
    #[test]
    fn peer_modes() {
        let modes: Vec<(u32, CcKind)> = CcKind::ALL
            .iter()
            .filter_map(|&k| k.peer_mode().map(|m| (m, k)))
            .collect();
        assert_eq!(
            modes,
            [
                (1, CcKind::Dcqcn),
                (3, CcKind::Hpcc),
                (10, CcKind::HpccPint),
                (7, CcKind::Timely),
                (8, CcKind::Dctcp)
            ]
        );
        assert_eq!(CcKind::of_peer_mode("10"), Ok(CcKind::HpccPint));
        assert_eq!(
            CcKind::of_peer_mode("01"),
            Err("unknown CC_MODE '01' (the peer has 1, 3, 7, 8, 10)".to_string())
        );
        assert_eq!(check_peer_value("RATE_AI", "50Mb/s"), Some(Ok(())));
        assert_eq!(
            check_peer_value("EWMA_GAIN", "2"),
            Some(Err("must be in (0, 1]".to_string()))
        );
        assert_eq!(check_peer_value("BUFFER_SIZE", "32"), None);
        let cc = from_peer(CcKind::Dctcp, &|k| match k {
            "EWMA_GAIN" => Some("0.5"),
            "RATE_AI" => Some("7Mb/s"),
            _ => None,
        });
        let d = DctcpConfig {
            g: 0.5,
            ..DctcpConfig::default()
        };
        assert_eq!(cc, CcConfig::Dctcp(d));
    }
}
