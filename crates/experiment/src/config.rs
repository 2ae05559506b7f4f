//! rdmasim's own TOML config, in two stages (ripgrep's low/high args):
//! [`load_config`] parses the file into [`ConfigDoc`], plain data as close
//! to the file as possible, rejecting unknown keys; [`build_scenario`]
//! checks every value and builds the [`Scenario`]. Every error names the
//! file, the line and the key's full path.
//!
//! Units are written out as strings (`"100Gbps"`, `"1us"`, `"32MiB"`,
//! `"80km"`). Every key but the topology's and workload's shape has a
//! default, taken from [`NetConfig::default`] and friends; `rdmasim config
//! --defaults` ([`crate::defaults_toml`]) prints them all with their
//! sources.

use crate::fmt::{fmt_bytes, fmt_delta, fmt_time};
use crate::locate::{self, At, FileKind};
use crate::{ExperimentError, Scenario};
use engine::units::{parse_bytes, parse_delay_or_length, parse_rate, parse_time};
use engine::{Delta, InputError, Rate, Time};
use net::cc::{
    CcConfig, DcqcnConfig, DctcpConfig, HpccConfig, PintConfig, SwiftConfig, TimelyConfig,
};
use net::{EcnThreshold, Headroom, IrnConfig, NetConfig, PfcMode, Transport};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use topo::{ClosSpec, Topology};
use workload::{FlowSpec, PoissonSpec, SizeCdf};

/// Default PFC pause time in quanta for `mode = "quanta"`: the largest the
/// 16-bit field holds (rdmasim's choice).
pub const DEFAULT_PFC_QUANTA: u16 = 65535;
/// Default refresh point of a quanta-mode pause, as a fraction of the pause
/// time (rdmasim's choice).
pub const DEFAULT_PFC_REFRESH: f64 = 0.5;
/// Default link rate of generated topologies (the peer's hosts run at
/// 100 Gb/s, `specs/peer-hpcc-ns3.md` §2.4).
pub const DEFAULT_LINK_RATE: &str = "100Gbps";
/// Default link delay of generated topologies (the peer's fat tree: 1 µs).
pub const DEFAULT_LINK_DELAY: &str = "1us";
/// Default priority class of generated flows (the peer's `pg`, §3.2).
pub const DEFAULT_PG: u8 = 3;
/// Default destination port of Poisson flows (the peer's "normal", §3.2).
pub const DEFAULT_DPORT: u16 = 100;
/// Default destination port of incast flows (the peer's incast, §3.2).
pub const DEFAULT_INCAST_DPORT: u16 = 200;
/// Default CDF of Poisson workloads.
pub const DEFAULT_CDF: &str = "websearch";
/// How long past the last flow's start a run goes on by default, s.
pub const DEFAULT_STOP_AFTER_LAST_START_S: u64 = 1;

/// A parsed config file: the file's name (as given, for messages), its text
/// (to find lines in) and its contents.
#[derive(Clone, Debug)]
pub struct Config {
    /// The file as named on the command line; errors begin with it.
    pub file: String,
    /// The file's text.
    pub text: String,
    /// What it says.
    pub doc: ConfigDoc,
}

impl Config {
    /// Replace `run.seed` (the CLI's `--seed`).
    pub fn set_seed(&mut self, seed: u64) {
        self.doc.run.seed = Some(seed);
    }
}

/// The whole file. Sections left out take their defaults; `[topology]` and
/// `[workload]` are required.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigDoc {
    /// `[run]`.
    #[serde(default)]
    pub run: RunSection,
    /// `[topology]`.
    pub topology: Option<TopologySection>,
    /// `[workload]`.
    pub workload: Option<WorkloadSection>,
    /// `[cc]`.
    #[serde(default)]
    pub cc: CcSection,
    /// `[pfc]`.
    #[serde(default)]
    pub pfc: PfcSection,
    /// `[buffer]`.
    #[serde(default)]
    pub buffer: BufferSection,
    /// `[ecn]`.
    #[serde(default)]
    pub ecn: EcnSection,
    /// `[nic]`.
    #[serde(default)]
    pub nic: NicSection,
    /// `[transport]`.
    #[serde(default)]
    pub transport: TransportSection,
    /// `[output]`.
    #[serde(default)]
    pub output: OutputSection,
    /// `[timeseries]`: present means on ([`crate::timeseries`]).
    pub timeseries: Option<crate::timeseries::TimeseriesSection>,
    /// `[[link_down]]`: link failures.
    pub link_down: Option<Vec<LinkDownSection>>,
    /// `[ports.*]`: per-port buffer and flow-control settings.
    #[serde(default)]
    pub ports: PortsSection,
}

/// `[ports.<class>]` and `[[ports.at]]`: settings of groups of switch
/// ports that replace the switch-wide `[buffer]`, `[ecn]` and `[pfc]`
/// ones. Applied in this order, later ones winning.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PortsSection {
    /// Every port of every switch that is not a DCI switch or a relay.
    pub fabric: Option<PortSection>,
    /// cross_dc: the DCI switches' ports towards their DC's cores.
    pub dci: Option<PortSection>,
    /// cross_dc with relays: both ends of every DCI–relay link.
    pub relay_access: Option<PortSection>,
    /// cross_dc: the switch ports at both ends of every long link.
    pub long_haul: Option<PortSection>,
    /// The hosts' NIC ports (only `fc` applies: how they obey the ToR).
    pub hosts: Option<PortSection>,
    /// Single ports: `node` and `port` (its local index), any topology.
    pub at: Option<Vec<PortSection>>,
}

/// The settings of one `[ports.*]` group.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PortSection {
    /// `[[ports.at]]` only: the switch.
    pub node: Option<u32>,
    /// `[[ports.at]]` only: its local port.
    pub port: Option<u16>,
    /// Static XOFF threshold (the port then owns xoff + headroom bytes).
    pub xoff: Option<String>,
    /// Static XON threshold; default xoff.
    pub xon: Option<String>,
    /// Headroom.
    pub headroom: Option<String>,
    /// Dynamic-threshold shift (ports in the shared pool).
    pub alpha_shift: Option<u8>,
    /// ECN marking at this egress.
    pub ecn: Option<bool>,
    /// `"pfc"` | `"lossy"` | `"obey_only"` | `"cbfc"` | `"cbfc_ideal"` |
    /// `"bifrost"`.
    pub fc: Option<String>,
    /// cbfc: buffer advertised per class; default xoff + headroom.
    pub cbfc_buffer: Option<String>,
    /// cbfc: send a credit update after this many freed 64 B blocks.
    pub cbfc_update_blocks: Option<u64>,
    /// cbfc: flush smaller credit advances after this long.
    pub cbfc_update_period: Option<String>,
    /// bifrost: time slot T.
    pub bifrost_t: Option<String>,
    /// bifrost: reserved buffer H; default Δ + 2·R_s·T + k·MTU.
    pub bifrost_h: Option<String>,
    /// bifrost: leak-check period k, in slots.
    pub bifrost_k: Option<u32>,
    /// bifrost: Δ; default the link's propagation BDP in whole slots.
    pub bifrost_delta: Option<String>,
    /// bifrost: `"ledger"` | `"clamped"` | `"literal"`.
    pub bifrost_reading: Option<String>,
    /// bifrost: write the per-slot trace (`bifrost_trace.csv`).
    pub bifrost_trace: Option<bool>,
}

/// `[[link_down]]`: at `at`, the link between nodes `a` and `b` goes down
/// for good and routes are recomputed (the peer's `LINK_DOWN`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkDownSection {
    /// When (absolute simulated time).
    pub at: String,
    /// One end.
    pub a: u32,
    /// The other end.
    pub b: u32,
}

/// `[run]`: name, seed, stop time.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSection {
    /// Run name; default: the config file's stem.
    pub name: Option<String>,
    /// Seed of every random stream; default 1.
    pub seed: Option<u64>,
    /// Absolute stop time; default: the last flow's start + 1 s.
    pub stop: Option<String>,
}

/// The shapes `[topology]` can take.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TopologyKind {
    /// k-ary fat tree.
    FatTree,
    /// Three-tier Clos (pods, ToRs, aggs, cores).
    Clos,
    /// The peer's reference fat tree (320 hosts).
    PeerFatTree,
    /// Two-tier leaf–spine.
    LeafSpine,
    /// Hosts on one switch.
    Star,
    /// Two switches and a bottleneck.
    Dumbbell,
    /// Datacenters (k-ary fat trees, each with a DCI switch on every core)
    /// joined by long-haul links ([`topo::crossdc`]); the defaults are the
    /// Swing/Bifrost setup.
    CrossDc,
    /// Nodes and links listed in the config: `hosts` hosts (ids 0..),
    /// `switches` switches (the ids after them), `links`. Parallel links
    /// between two switches are allowed (ECMP spreads flows over them).
    Links,
    /// A peer topology file.
    File,
}

/// One link of a `kind = "links"` topology.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkEntry {
    /// One end (node id).
    pub a: u32,
    /// The other end.
    pub b: u32,
    /// Rate; default 100Gbps.
    pub rate: Option<String>,
    /// One-way delay, a duration or a fibre length (5 us/km); default 1us.
    pub delay: Option<String>,
}

impl TopologyKind {
    fn name(self) -> &'static str {
        match self {
            TopologyKind::FatTree => "fat_tree",
            TopologyKind::Clos => "clos",
            TopologyKind::PeerFatTree => "peer_fat_tree",
            TopologyKind::LeafSpine => "leaf_spine",
            TopologyKind::Star => "star",
            TopologyKind::Dumbbell => "dumbbell",
            TopologyKind::CrossDc => "cross_dc",
            TopologyKind::Links => "links",
            TopologyKind::File => "file",
        }
    }
    /// The keys this kind takes besides `kind` and `error_rate_per_link`.
    fn keys(self) -> &'static [&'static str] {
        match self {
            TopologyKind::FatTree => &["k", "host_rate", "fabric_rate", "delay"],
            TopologyKind::Clos => &[
                "pods",
                "tors_per_pod",
                "aggs_per_pod",
                "hosts_per_tor",
                "cores",
                "host_rate",
                "fabric_rate",
                "delay",
            ],
            TopologyKind::PeerFatTree => &[],
            TopologyKind::LeafSpine => &[
                "leaves",
                "spines",
                "hosts_per_leaf",
                "host_rate",
                "oversubscription",
                "delay",
            ],
            TopologyKind::Star => &["hosts", "rate", "delay"],
            TopologyKind::Dumbbell => &["left", "right", "host_rate", "bottleneck_rate", "delay"],
            TopologyKind::CrossDc => &[
                "dcs",
                "k",
                "hosts_per_tor",
                "host_rate",
                "fabric_rate",
                "delay",
                "long_links",
                "long_rate",
                "long_length",
                "long_delay",
                "relays",
            ],
            TopologyKind::Links => &["hosts", "switches", "links"],
            TopologyKind::File => &["path"],
        }
    }
}

/// `[topology]`: `kind` and that kind's keys (see [`TopologyKind`]).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopologySection {
    /// Which shape.
    pub kind: Option<TopologyKind>,
    /// fat_tree: k (even).
    pub k: Option<u32>,
    /// clos: pods.
    pub pods: Option<u32>,
    /// clos: ToRs per pod.
    pub tors_per_pod: Option<u32>,
    /// clos: aggregation switches per pod.
    pub aggs_per_pod: Option<u32>,
    /// clos: hosts per ToR.
    pub hosts_per_tor: Option<u32>,
    /// clos: core switches.
    pub cores: Option<u32>,
    /// leaf_spine: leaves.
    pub leaves: Option<u32>,
    /// leaf_spine: spines.
    pub spines: Option<u32>,
    /// leaf_spine: hosts per leaf.
    pub hosts_per_leaf: Option<u32>,
    /// leaf_spine: host bandwidth over uplink bandwidth per leaf.
    pub oversubscription: Option<f64>,
    /// star, links: hosts.
    pub hosts: Option<u32>,
    /// links: switches (numbered after the hosts).
    pub switches: Option<u32>,
    /// links: the links, `{ a, b, rate, delay }` each.
    pub links: Option<Vec<LinkEntry>>,
    /// star: link rate.
    pub rate: Option<String>,
    /// dumbbell: hosts on the left switch.
    pub left: Option<u32>,
    /// dumbbell: hosts on the right switch.
    pub right: Option<u32>,
    /// dumbbell: rate of the switch–switch link.
    pub bottleneck_rate: Option<String>,
    /// cross_dc: number of datacenters; default 2.
    pub dcs: Option<u32>,
    /// cross_dc: parallel long links between each pair of DCI switches;
    /// default 1.
    pub long_links: Option<u32>,
    /// cross_dc: rate of each long link; default 400 Gb/s.
    pub long_rate: Option<String>,
    /// cross_dc: fibre length of each long link (5 µs/km); default 80 km.
    pub long_length: Option<String>,
    /// cross_dc: or its one-way delay.
    pub long_delay: Option<String>,
    /// cross_dc: a Swing PFC relay at each end of every long link; default
    /// false.
    pub relays: Option<bool>,
    /// Host link rate.
    pub host_rate: Option<String>,
    /// Switch–switch link rate.
    pub fabric_rate: Option<String>,
    /// Link delay, as a duration or a fibre length (5 µs/km).
    pub delay: Option<String>,
    /// file: the peer topology file, relative to the config's directory.
    pub path: Option<String>,
    /// Packet error rate on links whose own error rate is 0 (the peer's
    /// `ERROR_RATE_PER_LINK`).
    pub error_rate_per_link: Option<f64>,
}

/// The generators `[workload]` can use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkloadKind {
    /// Open-loop Poisson arrivals over a size CDF.
    Poisson,
    /// N-to-1 incast.
    Incast,
    /// Long-lived bandwidth flows (perftest's bandwidth test).
    Bulk,
    /// Fixed-size latency probes at Poisson times (perftest's latency test).
    Probes,
    /// A peer flow file.
    File,
}

impl WorkloadKind {
    fn name(self) -> &'static str {
        match self {
            WorkloadKind::Poisson => "poisson",
            WorkloadKind::Incast => "incast",
            WorkloadKind::Bulk => "bulk",
            WorkloadKind::Probes => "probes",
            WorkloadKind::File => "file",
        }
    }
    fn keys(self) -> &'static [&'static str] {
        match self {
            WorkloadKind::Poisson => &[
                "load",
                "cdf",
                "duration",
                "start",
                "hosts",
                "dsts",
                "host_rate",
                "pg",
                "dport",
            ],
            WorkloadKind::Incast => &[
                "senders",
                "senders_count",
                "receiver",
                "size",
                "start",
                "pg",
                "dport",
            ],
            WorkloadKind::Bulk => &["hosts", "dsts", "flows", "size", "start", "pg", "dport"],
            WorkloadKind::Probes => &[
                "hosts", "dsts", "size", "interval", "start", "duration", "pg", "dport",
            ],
            WorkloadKind::File => &["path"],
        }
    }
}

/// `[workload]` and each `[[workload.extra]]`: `kind` and that kind's keys.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSection {
    /// Which generator.
    pub kind: Option<WorkloadKind>,
    /// poisson: offered load per host, in (0, 1].
    pub load: Option<f64>,
    /// poisson: `websearch`, `fb_hadoop`, or a CDF file relative to the config.
    pub cdf: Option<String>,
    /// poisson, probes: length of the arrival window.
    pub duration: Option<String>,
    /// poisson, incast, bulk, probes: start time; default `0s`.
    pub start: Option<String>,
    /// poisson: the hosts that take part; default all. bulk, probes: the
    /// senders (required).
    pub hosts: Option<Vec<u32>>,
    /// poisson: with it, `hosts` only send and every flow goes to one of
    /// these (not its source); default: the other hosts of `hosts`.
    pub dsts: Option<Vec<u32>>,
    /// poisson: the rate load is a fraction of; default the hosts' link rate.
    pub host_rate: Option<String>,
    /// incast: the senders.
    pub senders: Option<Vec<u32>>,
    /// incast: or this many senders, the lowest host ids but the receiver.
    pub senders_count: Option<u32>,
    /// incast: the receiver.
    pub receiver: Option<u32>,
    /// incast: bytes per sender; probes: bytes per flow; bulk: bytes per
    /// flow, default `"endless"` (until the stop time).
    pub size: Option<String>,
    /// bulk: how many flows, spread over `hosts` in turn; default 1.
    pub flows: Option<u32>,
    /// probes: mean time between one sender's probes (Poisson).
    pub interval: Option<String>,
    /// file: the peer flow file, relative to the config's directory.
    pub path: Option<String>,
    /// Priority class; default 3.
    pub pg: Option<u8>,
    /// Destination port; default 100 (poisson), 200 (incast).
    pub dport: Option<u16>,
    /// More generators whose flows are merged in (top level only).
    pub extra: Option<Vec<WorkloadSection>>,
}

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
    fn name(self) -> &'static str {
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

/// `pfc.mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PfcModeKey {
    /// Pause until an explicit resume (the peer).
    UntilResume,
    /// IEEE 802.1Qbb pause quanta.
    Quanta,
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

/// `[nic]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NicSection {
    /// Payload bytes per data packet.
    pub mtu: Option<String>,
    /// Header bytes per data packet.
    pub data_header: Option<String>,
    /// ACK/NACK frame bytes.
    pub ack_bytes: Option<String>,
    /// ACKs in the never-paused class 0.
    pub ack_high_prio: Option<bool>,
    /// Switches carry high-priority ACKs in class 0 too.
    pub switch_ack_high_prio: Option<bool>,
    /// Pace at the CC rate.
    pub rate_bound: Option<bool>,
    /// Fixed window; default none.
    pub window: Option<String>,
    /// NACK spacing.
    pub nack_interval: Option<String>,
    /// ACK every this many bytes.
    pub ack_interval: Option<String>,
    /// Forced ACK boundary.
    pub chunk: Option<String>,
    /// Go back to the chunk boundary on loss.
    pub back_to_zero: Option<bool>,
    /// Window = the BDP (the peer's HAS_WIN).
    pub bdp_window: Option<bool>,
    /// Base RTT and BDP are the maxima over all host pairs (GLOBAL_T).
    pub global_t: Option<bool>,
    /// Scale the window by rate / line rate (VAR_WIN).
    pub var_win: Option<bool>,
    /// Retransmission timeout, a duration or "off".
    pub rto: Option<String>,
}

/// `transport.kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TransportKind {
    /// Go-back-N (the peer).
    GoBackN,
    /// IRN's selective repeat.
    Irn,
}

/// `[transport]`: how QPs recover lost packets.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransportSection {
    /// Scheme; default `go_back_n`.
    pub kind: Option<TransportKind>,
    /// IRN: bitmap size in packets (the in-flight cap).
    pub bitmap: Option<u32>,
    /// IRN: timeout while few packets are in flight.
    pub rto_low: Option<String>,
    /// IRN: timeout otherwise.
    pub rto_high: Option<String>,
    /// IRN: RTO_low applies below this many packets in flight (IRN's N).
    pub rto_low_threshold: Option<u32>,
}

/// `[output]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSection {
    /// Log PFC frames and write `pfc.txt`.
    pub record_pfc: Option<bool>,
}

// ---------------------------------------------------------------------------
// Stage 1: text → ConfigDoc.

/// Read and parse a config file. Errors name `path` as written.
pub fn load_config(path: &Path) -> Result<Config, ExperimentError> {
    let text = engine::input::read_text(path).map_err(|e| ExperimentError::io(path, e))?;
    parse_config(&text, &path.display().to_string())
}

/// Parse config text; `file` names it in errors. An error in a file that
/// looks like a sweep file or the peer's config ends with the command that
/// reads it.
pub fn parse_config(text: &str, file: &str) -> Result<Config, ExperimentError> {
    parse_config_text(text, file)
        .map_err(|e| locate::hint_wrong_kind(e, text, file, &[FileKind::Sweep, FileKind::Peer]))
}

fn parse_config_text(text: &str, file: &str) -> Result<Config, ExperimentError> {
    if let Err(e) = text.parse::<toml::Table>() {
        return Err(toml_error(text, file, &e, true).into());
    }
    let doc: ConfigDoc = toml::from_str(text).map_err(|e| toml_error(text, file, &e, false))?;
    Ok(Config {
        file: file.to_string(),
        text: text.to_string(),
        doc,
    })
}

/// The text between the first pair of backticks after `prefix` in `msg`.
fn quoted_after<'a>(msg: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = msg.strip_prefix(prefix)?;
    let rest = rest.strip_prefix('`')?;
    Some(&rest[..rest.find('`')?])
}

/// `expected one of `a`, `b`` → `expected one of a, b`.
fn expected_list(msg: &str) -> String {
    match msg.find("expected") {
        Some(i) => format!("; {}", msg[i..].replace('`', "")),
        None => String::new(),
    }
}

/// Path of the key `name` named by an error at `line`: the key on that line
/// (or the header) cut after its last `name` segment.
fn path_of_named(text: &str, line: usize, name: &str) -> String {
    let (base, on_line) = match locate::at_line(text, line) {
        At::Header(h) => (h, true),
        At::Key(k) => (k, true),
        At::Table(t) => (t, false),
    };
    if on_line {
        let segs: Vec<&str> = base.split('.').collect();
        // An array of tables' header names its entry (`x[0]`): the unknown
        // name is `x`, not a key inside it.
        let unindexed = |s: &str| s.split_once('[').map_or(s, |(n, _)| n).to_string();
        if let Some(i) = segs.iter().rposition(|s| unindexed(s) == name) {
            let mut path = segs[..i].join(".");
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(name);
            return path;
        }
    }
    if base.is_empty() {
        name.to_string()
    } else {
        format!("{base}.{name}")
    }
}

/// Turn a TOML error into `file:line: key.path: message`.
fn toml_error(text: &str, file: &str, e: &toml::de::Error, syntax: bool) -> InputError {
    let line = e.span().map(|s| locate::line_of_offset(text, s.start));
    let raw = locate::toml_message(e.message(), text, e.span().map(|s| s.start));
    let key_at_line = |l: usize| match locate::at_line(text, l) {
        At::Key(k) => k,
        At::Header(h) | At::Table(h) => h,
    };
    if syntax {
        let field = line.map(key_at_line).unwrap_or_default();
        return InputError::at(
            file,
            line,
            field,
            format!("invalid TOML: {}", raw.replace('`', "'")),
        );
    }
    if let Some(name) = quoted_after(&raw, "unknown field ") {
        let path = match line {
            Some(l) => path_of_named(text, l, name),
            None => name.to_string(),
        };
        let line = locate::key_line(text, &path).or(line);
        let what = if path.contains('.') { "key" } else { "section" };
        return InputError::at(
            file,
            line,
            path,
            format!("unknown {what}{}", expected_list(&raw)),
        );
    }
    if let Some(name) = quoted_after(&raw, "missing field ") {
        let table = match line.map(|l| locate::at_line(text, l)) {
            Some(At::Header(h)) | Some(At::Table(h)) => h,
            Some(At::Key(k)) => locate_parent(&k).to_string(),
            None => String::new(),
        };
        let path = if table.is_empty() {
            name.to_string()
        } else {
            format!("{table}.{name}")
        };
        return InputError::at(file, line, path, "missing (this key is required)");
    }
    let field = line.map(key_at_line).unwrap_or_default();
    let mut msg = raw.replace('`', "\"");
    if let Some(v) = quoted_after(&raw, "unknown variant ") {
        msg = format!("unknown value \"{v}\"{}", expected_list(&raw));
    } else if raw.contains("expected a string") {
        msg.push_str("; write values with units as strings, e.g. \"100Gbps\", \"1us\", \"32MiB\"");
    }
    InputError::at(file, line, field, msg)
}

fn locate_parent(path: &str) -> &str {
    match path.rfind('.') {
        Some(i) => &path[..i],
        None => "",
    }
}

// ---------------------------------------------------------------------------
// Stage 2: ConfigDoc → Scenario.

/// Where values come from, for error messages.
struct Ctx<'a> {
    file: &'a str,
    text: &'a str,
    base: &'a Path,
}

type R<T> = Result<T, ExperimentError>;

impl Ctx<'_> {
    fn err(&self, path: &str, msg: impl Into<String>) -> ExperimentError {
        ExperimentError::Input(InputError::at(
            self.file,
            locate::key_line(self.text, path),
            path,
            msg,
        ))
    }
    fn rate(&self, path: &str, v: &str) -> R<Rate> {
        parse_rate(v).map_err(|m| self.err(path, m))
    }
    /// A duration; `parse_time` bounds it (`engine::units::MAX_INPUT_PS`),
    /// so that sums of times never overflow the clock.
    fn time(&self, path: &str, v: &str) -> R<Delta> {
        parse_time(v).map_err(|m| self.err(path, m))
    }
    fn positive_time(&self, path: &str, v: &str) -> R<Delta> {
        let d = self.time(path, v)?;
        if d == Delta::ZERO {
            return Err(self.err(path, format!("duration '{v}' must be greater than zero")));
        }
        Ok(d)
    }
    fn bytes(&self, path: &str, v: &str) -> R<u64> {
        parse_bytes(v).map_err(|m| self.err(path, m))
    }
    fn positive_bytes(&self, path: &str, v: &str) -> R<u64> {
        let b = self.bytes(path, v)?;
        if b == 0 {
            return Err(self.err(path, format!("size '{v}' must be greater than zero")));
        }
        Ok(b)
    }
    fn bytes_u32(&self, path: &str, v: &str, positive: bool) -> R<u32> {
        let b = if positive {
            self.positive_bytes(path, v)?
        } else {
            self.bytes(path, v)?
        };
        u32::try_from(b).map_err(|_| self.err(path, format!("size '{v}' is too large")))
    }
    fn delay(&self, path: &str, v: &str) -> R<Delta> {
        parse_delay_or_length(v).map_err(|m| self.err(path, m))
    }
    fn fraction(&self, path: &str, v: f64, zero_ok: bool) -> R<f64> {
        let ok = v.is_finite() && v <= 1.0 && (v > 0.0 || (zero_ok && v == 0.0));
        if !ok {
            let range = if zero_ok { "[0, 1]" } else { "(0, 1]" };
            return Err(self.err(path, format!("{v} must be in {range}")));
        }
        Ok(v)
    }
    /// The file `rel` names, relative to the config's directory.
    fn resolve(&self, rel: &str) -> PathBuf {
        self.base.join(rel)
    }
    /// Read `rel` (relative to the config), or say at `path` why not.
    fn read(&self, path: &str, rel: &str, what: &str) -> R<(String, String)> {
        let p = self.resolve(rel);
        let name = p.display().to_string();
        engine::input::read_text(&p)
            .map(|t| (t, name.clone()))
            .map_err(|e| self.err(path, format!("cannot read the {what} '{name}': {e}")))
    }
    fn required<T: Clone>(&self, v: &Option<T>, path: &str, why: &str) -> R<T> {
        v.clone()
            .ok_or_else(|| self.err(path, format!("missing; {why} needs it")))
    }
    /// Reject keys set but not used by `kind`.
    fn only_keys(
        &self,
        section: &str,
        kind: &str,
        set: &[&'static str],
        allowed: &[&str],
    ) -> R<()> {
        for key in set {
            if !allowed.contains(key) {
                let takes = if allowed.is_empty() {
                    "takes no other keys".to_string()
                } else {
                    format!("takes {}", allowed.join(", "))
                };
                return Err(self.err(
                    &format!("{section}.{key}"),
                    format!("not a key of kind = \"{kind}\" (which {takes})"),
                ));
            }
        }
        Ok(())
    }
}

macro_rules! set_keys {
    ($s:expr; $($f:ident),* $(,)?) => {{
        let mut v: Vec<&'static str> = Vec::new();
        $( if $s.$f.is_some() { v.push(stringify!($f)); } )*
        v
    }};
}

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
    let flows = build_workload(&cx, ws, &topo, seed, &mut notes)?;

    let mut net = NetConfig {
        seed,
        ..NetConfig::default()
    };
    if let Some(e) = ts.error_rate_per_link {
        net.error_rate_per_link = cx.fraction("topology.error_rate_per_link", e, true)?;
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
    build_pfc(&cx, &doc.pfc, &mut net)?;
    build_buffer(&cx, &doc.buffer, &mut net)?;
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
    build_transport(&cx, doc, &mut net)?;
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
    })
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

fn build_topology(cx: &Ctx<'_>, t: &TopologySection) -> R<(Topology, Option<topo::CrossDcLayout>)> {
    let kind = cx.required(&t.kind, "topology.kind", "[topology]")?;
    let set = set_keys!(t; k, pods, tors_per_pod, aggs_per_pod, hosts_per_tor, cores, leaves,
        spines, hosts_per_leaf, oversubscription, hosts, rate, left, right, bottleneck_rate,
        host_rate, fabric_rate, delay, path, dcs, long_links, long_rate, long_length, long_delay,
        relays, switches, links);
    cx.only_keys("topology", kind.name(), &set, kind.keys())?;
    let why = format!("kind = \"{}\"", kind.name());
    let rate = |key: &str, v: &Option<String>, default: &str| -> R<Rate> {
        cx.rate(&format!("topology.{key}"), v.as_deref().unwrap_or(default))
    };
    let delay = || {
        cx.delay(
            "topology.delay",
            t.delay.as_deref().unwrap_or(DEFAULT_LINK_DELAY),
        )
    };
    let count = |key: &str, v: &Option<u32>| -> R<u32> {
        let path = format!("topology.{key}");
        let n = cx.required(v, &path, &why)?;
        if n == 0 {
            return Err(cx.err(&path, "must be at least 1"));
        }
        Ok(n)
    };
    let mut layout = None;
    let built: Result<Topology, String> = match kind {
        TopologyKind::FatTree => {
            let host = rate("host_rate", &t.host_rate, DEFAULT_LINK_RATE)?;
            let fabric = match &t.fabric_rate {
                Some(v) => cx.rate("topology.fabric_rate", v)?,
                None => host,
            };
            topo::fat_tree(count("k", &t.k)?, host, fabric, delay()?)
        }
        TopologyKind::Clos => {
            let p = ClosSpec::PEER;
            let or = |v: &Option<u32>, d: u32, key: &str| -> R<u32> {
                match v {
                    Some(_) => count(key, v),
                    None => Ok(d),
                }
            };
            topo::clos(ClosSpec {
                pods: or(&t.pods, p.pods, "pods")?,
                tors_per_pod: or(&t.tors_per_pod, p.tors_per_pod, "tors_per_pod")?,
                aggs_per_pod: or(&t.aggs_per_pod, p.aggs_per_pod, "aggs_per_pod")?,
                hosts_per_tor: or(&t.hosts_per_tor, p.hosts_per_tor, "hosts_per_tor")?,
                cores: or(&t.cores, p.cores, "cores")?,
                host_rate: match &t.host_rate {
                    Some(v) => cx.rate("topology.host_rate", v)?,
                    None => p.host_rate,
                },
                fabric_rate: match &t.fabric_rate {
                    Some(v) => cx.rate("topology.fabric_rate", v)?,
                    None => p.fabric_rate,
                },
                delay: match &t.delay {
                    Some(v) => cx.delay("topology.delay", v)?,
                    None => p.delay,
                },
            })
        }
        TopologyKind::PeerFatTree => Ok(topo::peer_fat_tree()),
        TopologyKind::LeafSpine => topo::leaf_spine(
            count("leaves", &t.leaves)?,
            count("spines", &t.spines)?,
            count("hosts_per_leaf", &t.hosts_per_leaf)?,
            rate("host_rate", &t.host_rate, DEFAULT_LINK_RATE)?,
            t.oversubscription.unwrap_or(1.0),
            delay()?,
        ),
        TopologyKind::Star => topo::star(
            count("hosts", &t.hosts)?,
            rate("rate", &t.rate, DEFAULT_LINK_RATE)?,
            delay()?,
        ),
        TopologyKind::Dumbbell => {
            let host = rate("host_rate", &t.host_rate, DEFAULT_LINK_RATE)?;
            let bottleneck = match &t.bottleneck_rate {
                Some(v) => cx.rate("topology.bottleneck_rate", v)?,
                None => host,
            };
            topo::dumbbell(
                count("left", &t.left)?,
                count("right", &t.right)?,
                host,
                bottleneck,
                delay()?,
            )
        }
        TopologyKind::CrossDc => {
            // Every key defaults to the Swing/Bifrost setup (seed-001 §5.2).
            let d = topo::CrossDcSpec::SWING;
            let or = |v: &Option<u32>, d: u32, key: &str| -> R<u32> {
                match v {
                    Some(_) => count(key, v),
                    None => Ok(d),
                }
            };
            let host_rate = match &t.host_rate {
                Some(v) => cx.rate("topology.host_rate", v)?,
                None => d.host_rate,
            };
            let long_delay = match (&t.long_length, &t.long_delay) {
                (Some(_), Some(_)) => {
                    return Err(cx.err(
                        "topology.long_delay",
                        "give the long link's long_length or its long_delay, not both",
                    ))
                }
                (Some(v), None) => {
                    let path = "topology.long_length";
                    let v = v.trim();
                    if !(v.ends_with("km") || v.ends_with('m')) {
                        return Err(cx.err(
                            path,
                            format!(
                                "'{v}' is not a length; write it in km or m, e.g. \"80km\" \
                                 (5 us/km), or give a one-way delay as long_delay"
                            ),
                        ));
                    }
                    cx.delay(path, v)?
                }
                (None, Some(v)) => cx.delay("topology.long_delay", v)?,
                (None, None) => d.long_delay,
            };
            topo::CrossDcSpec {
                dcs: or(&t.dcs, d.dcs, "dcs")?,
                k: or(&t.k, d.k, "k")?,
                hosts_per_tor: or(&t.hosts_per_tor, d.hosts_per_tor, "hosts_per_tor")?,
                host_rate,
                fabric_rate: match &t.fabric_rate {
                    Some(v) => cx.rate("topology.fabric_rate", v)?,
                    None => host_rate,
                },
                delay: match &t.delay {
                    Some(v) => cx.delay("topology.delay", v)?,
                    None => d.delay,
                },
                long_links: or(&t.long_links, d.long_links, "long_links")?,
                long_rate: match &t.long_rate {
                    Some(v) => cx.rate("topology.long_rate", v)?,
                    None => d.long_rate,
                },
                long_delay,
                relays: t.relays.unwrap_or(false),
            }
            .layout()
            .map(|l| {
                layout = Some(l);
                l.build()
            })
        }
        TopologyKind::Links => return build_link_list(cx, t, &why).map(|topo| (topo, None)),
        TopologyKind::File => {
            let rel = cx.required(&t.path, "topology.path", &why)?;
            let (text, name) = cx.read("topology.path", &rel, "topology file")?;
            return Ok((topo::parse_peer_topology(&text, &name)?, None));
        }
    };
    // A built topology is valid by construction except for its size
    // (`Topology::validate`'s limits); its errors go where the builder's do.
    let built = built.and_then(|topo| match topo.validate(cx.file, None) {
        Ok(()) => Ok(topo),
        Err(e) => Err(e.msg),
    });
    let topo = built.map_err(|msg| {
        // Point at the key the builder complains about, if it names one:
        // the first one it says to lower, else the first one it names.
        let msg = msg
            .split_once(": ")
            .map(|(_, m)| m.to_string())
            .unwrap_or(msg);
        let words = |m: &str| {
            m.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        let lowered = msg
            .split_once("lower ")
            .and_then(|(_, rest)| words(rest).into_iter().next());
        let key = kind
            .keys()
            .iter()
            .find(|k| lowered.as_deref() == Some(**k))
            .or_else(|| {
                kind.keys()
                    .iter()
                    .find(|k| words(&msg).iter().any(|w| w == **k))
            });
        let path = match key {
            Some(k) => format!("topology.{k}"),
            None => "topology.kind".to_string(),
        };
        cx.err(&path, msg)
    })?;
    Ok((topo, layout))
}

/// A `kind = "links"` topology: every error names `topology.links[i].<field>`.
fn build_link_list(cx: &Ctx<'_>, t: &TopologySection, why: &str) -> R<Topology> {
    let hosts = cx.required(&t.hosts, "topology.hosts", why)?;
    let switches = cx.required(&t.switches, "topology.switches", why)?;
    let entries = cx.required(&t.links, "topology.links", why)?;
    let n = hosts + switches;
    let mut kinds = vec![topo::NodeKind::Host; hosts as usize];
    kinds.resize(n as usize, topo::NodeKind::Switch);
    let mut links = Vec::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        let at = |f: &str| format!("topology.links[{i}].{f}");
        for (f, x) in [("a", e.a), ("b", e.b)] {
            if x >= n {
                return Err(cx.err(
                    &at(f),
                    format!(
                        "node {x} does not exist ({hosts} hosts and {switches} switches: 0-{})",
                        n.saturating_sub(1)
                    ),
                ));
            }
        }
        let rate = cx.rate(&at("rate"), e.rate.as_deref().unwrap_or(DEFAULT_LINK_RATE))?;
        let delay = cx.delay(
            &at("delay"),
            e.delay.as_deref().unwrap_or(DEFAULT_LINK_DELAY),
        )?;
        links.push(topo::LinkSpec::new(e.a, e.b, rate, delay));
    }
    let topo = Topology { kinds, links };
    topo.validate(cx.file, None).map_err(|e| {
        let field = match e.field.strip_prefix("link ") {
            Some(i) => format!("topology.links[{i}]"),
            None => format!("topology.{}", e.field),
        };
        cx.err(&field, e.msg)
    })?;
    Ok(topo)
}

/// Each host's link rate.
fn host_rates(topo: &Topology) -> Vec<Option<Rate>> {
    let mut r = vec![None; topo.n_nodes()];
    for l in &topo.links {
        for n in [l.a, l.b] {
            if topo.is_host(n) {
                r[n as usize] = Some(l.rate);
            }
        }
    }
    r
}

fn check_node(cx: &Ctx<'_>, path: &str, topo: &Topology, node: u32) -> R<()> {
    let n = topo.n_nodes() as u32;
    if node >= n {
        return Err(cx.err(
            path,
            format!(
                "node {node} does not exist (the topology has {n} nodes, 0-{})",
                n.saturating_sub(1)
            ),
        ));
    }
    if !topo.is_host(node) {
        return Err(cx.err(path, format!("node {node} is a switch, not a host")));
    }
    Ok(())
}

fn check_switch(cx: &Ctx<'_>, path: &str, topo: &Topology, node: u32) -> R<()> {
    let n = topo.n_nodes() as u32;
    if node >= n {
        return Err(cx.err(
            path,
            format!("node {node} does not exist (the topology has {n} nodes)"),
        ));
    }
    if topo.is_host(node) {
        return Err(cx.err(
            path,
            format!("node {node} is a host; port settings are for switches"),
        ));
    }
    Ok(())
}

/// The seed of generator `index` (0 = `[workload]`, i = `extra[i-1]`):
/// the run seed for the first, so its flows match a run without extras;
/// distinct, fixed derivations for the rest.
fn generator_seed(seed: u64, index: usize) -> u64 {
    if index == 0 {
        seed
    } else {
        seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
}

/// The flows of `[workload]` and its extras, sorted by start; what the user
/// should know about them goes to `notes`.
fn build_workload(
    cx: &Ctx<'_>,
    w: &WorkloadSection,
    topo: &Topology,
    seed: u64,
    notes: &mut Vec<String>,
) -> R<Vec<FlowSpec>> {
    let mut lists = vec![build_generator(
        cx,
        "workload",
        w,
        topo,
        generator_seed(seed, 0),
        notes,
    )?];
    let mut total = lists[0].len();
    for (i, e) in w.extra.iter().flatten().enumerate() {
        let path = format!("workload.extra[{i}]");
        if e.extra.is_some() {
            return Err(cx.err(
                &format!("{path}.extra"),
                "extra generators go in [[workload.extra]] only, not inside one",
            ));
        }
        lists.push(build_generator(
            cx,
            &path,
            e,
            topo,
            generator_seed(seed, i + 1),
            notes,
        )?);
        // Each generator is bounded; so is their sum.
        total += lists[i + 1].len();
        if total > workload::MAX_FLOWS {
            return Err(cx.err(
                &path,
                format!(
                    "{}: {total} with this generator's, at most {} in all",
                    workload::TOO_MANY_FLOWS,
                    workload::MAX_FLOWS
                ),
            ));
        }
    }
    let sorted = |l: &[FlowSpec]| l.windows(2).all(|w| w[0].start <= w[1].start);
    if lists.len() == 1 && sorted(&lists[0]) {
        return Ok(lists.pop().unwrap_or_default());
    }
    Ok(workload::merge(lists))
}

fn build_generator(
    cx: &Ctx<'_>,
    sec: &str,
    w: &WorkloadSection,
    topo: &Topology,
    seed: u64,
    notes: &mut Vec<String>,
) -> R<Vec<FlowSpec>> {
    let kind = cx.required(&w.kind, &format!("{sec}.kind"), &format!("[{sec}]"))?;
    let set = set_keys!(w; load, cdf, duration, start, hosts, dsts, host_rate, senders, senders_count,
        receiver, size, flows, interval, path, pg, dport);
    cx.only_keys(sec, kind.name(), &set, kind.keys())?;
    let key = |k: &str| format!("{sec}.{k}");
    let why = format!("kind = \"{}\"", kind.name());
    let start = match &w.start {
        Some(s) => Time(cx.time(&key("start"), s)?.ps()),
        None => Time::ZERO,
    };
    let pg = w.pg.unwrap_or(DEFAULT_PG);
    if usize::from(pg) >= net::wire::N_CLASSES || pg == 0 {
        return Err(cx.err(
            &key("pg"),
            format!(
                "priority class {pg} is not a data class (use 1 to {}; 0 is for control)",
                net::wire::N_CLASSES - 1
            ),
        ));
    }
    match kind {
        WorkloadKind::Poisson => {
            let load = cx.required(&w.load, &key("load"), &why)?;
            let load = cx.fraction(&key("load"), load, false)?;
            let duration = cx.required(&w.duration, &key("duration"), &why)?;
            let duration = cx.positive_time(&key("duration"), &duration)?;
            let cdf = build_cdf(cx, &key("cdf"), w.cdf.as_deref().unwrap_or(DEFAULT_CDF))?;
            let hosts = match &w.hosts {
                Some(h) => {
                    for &n in h {
                        check_node(cx, &key("hosts"), topo, n)?;
                    }
                    h.clone()
                }
                None => topo.hosts(),
            };
            let host_rate = match &w.host_rate {
                Some(r) => {
                    let r = cx.rate(&key("host_rate"), r)?;
                    // As `load` ≤ 1 says for the hosts' own links: no host
                    // is asked to send more than its link carries.
                    let offered = load * r.bps() as f64;
                    let rates = host_rates(topo);
                    let slowest = hosts
                        .iter()
                        .filter_map(|&h| rates[h as usize].map(|l| (h, l)))
                        .min_by_key(|&(_, l)| l.bps());
                    if let Some((h, link)) = slowest.filter(|&(_, l)| offered > l.bps() as f64) {
                        return Err(cx.err(
                            &key("host_rate"),
                            format!(
                                "load {load} of {r} is more than host {h}'s link carries \
                                 ({link}); lower the load or the host_rate"
                            ),
                        ));
                    }
                    r
                }
                None => {
                    let rates = host_rates(topo);
                    let mut it = hosts
                        .iter()
                        .filter_map(|&h| rates[h as usize].map(|r| (h, r)));
                    let first = it.next();
                    if let (Some((h0, r0)), Some((h1, r1))) =
                        (first, it.find(|&(_, r)| Some(r) != first.map(|f| f.1)))
                    {
                        return Err(cx.err(
                            &key("hosts"),
                            format!(
                                "host {h0}'s link runs at {r0} but host {h1}'s at {r1}; set \
                                 {sec}.host_rate to the rate the load is a fraction of"
                            ),
                        ));
                    }
                    first.map(|f| f.1).unwrap_or(Rate::gbps(100))
                }
            };
            let spec = PoissonSpec {
                hosts,
                host_rate,
                load,
                cdf,
                start,
                duration,
                seed,
                pg,
                dport: w.dport.unwrap_or(DEFAULT_DPORT),
            };
            let dsts = match &w.dsts {
                Some(d) => {
                    for &n in d {
                        check_node(cx, &key("dsts"), topo, n)?;
                    }
                    if d.is_empty() {
                        return Err(cx.err(
                            &key("dsts"),
                            "lists no host; leave it out to send to the other hosts",
                        ));
                    }
                    d.clone()
                }
                None => Vec::new(),
            };
            workload::poisson_to(&spec, &dsts).map_err(|m| {
                let field = if m.starts_with(workload::TOO_MANY_FLOWS) {
                    key("duration")
                } else if m.contains("destination") || m.contains("but itself") {
                    key("dsts")
                } else if m.contains("CDF") {
                    key("cdf")
                } else if m.contains("host") {
                    key("hosts")
                } else {
                    key("kind")
                };
                cx.err(&field, m)
            })
        }
        WorkloadKind::Incast => {
            let receiver = cx.required(&w.receiver, &key("receiver"), &why)?;
            check_node(cx, &key("receiver"), topo, receiver)?;
            let senders = match (&w.senders, w.senders_count) {
                (Some(_), Some(_)) => {
                    return Err(cx.err(
                        &key("senders_count"),
                        "give senders or senders_count, not both",
                    ))
                }
                (None, None) => {
                    return Err(cx.err(
                        &key("senders"),
                        format!("missing; {why} needs senders (a list) or senders_count"),
                    ))
                }
                (Some(list), None) => {
                    for &n in list {
                        check_node(cx, &key("senders"), topo, n)?;
                    }
                    list.clone()
                }
                (None, Some(n)) => {
                    let pool: Vec<u32> = topo
                        .hosts()
                        .into_iter()
                        .filter(|&h| h != receiver)
                        .collect();
                    if n as usize > pool.len() {
                        return Err(cx.err(
                            &key("senders_count"),
                            format!(
                                "{n} senders asked for, but only {} hosts besides the receiver",
                                pool.len()
                            ),
                        ));
                    }
                    pool[..n as usize].to_vec()
                }
            };
            let size = cx.required(&w.size, &key("size"), &why)?;
            let size = cx.positive_bytes(&key("size"), &size)?;
            let flows = workload::incast(
                &senders,
                receiver,
                size,
                start,
                pg,
                w.dport.unwrap_or(DEFAULT_INCAST_DPORT),
            );
            if flows.is_empty() {
                return Err(cx.err(
                    &key("senders"),
                    "the incast has no sender besides the receiver",
                ));
            }
            if flows.len() < senders.len() {
                // A host sends no flow to itself: say so, or the user counts
                // one flow more than the run has.
                notes.push(
                    cx.err(
                        &key("senders"),
                        format!(
                            "lists the receiver {receiver}, which sends no flow to itself: \
                             the incast has {} flows",
                            flows.len()
                        ),
                    )
                    .to_string(),
                );
            }
            Ok(flows)
        }
        WorkloadKind::Bulk | WorkloadKind::Probes => {
            let hosts = cx.required(&w.hosts, &key("hosts"), &why)?;
            let dsts = cx.required(&w.dsts, &key("dsts"), &why)?;
            for (field, list) in [("hosts", &hosts), ("dsts", &dsts)] {
                if list.is_empty() {
                    return Err(cx.err(&key(field), "lists no host"));
                }
                for &n in list {
                    check_node(cx, &key(field), topo, n)?;
                }
            }
            let dport = w.dport.unwrap_or(DEFAULT_DPORT);
            let made = if kind == WorkloadKind::Bulk {
                // Bandwidth flows run until the stop time unless sized.
                let size = match w.size.as_deref() {
                    None | Some("endless") => workload::ENDLESS,
                    Some(v) => cx.positive_bytes(&key("size"), v)?,
                };
                let flows = w.flows.unwrap_or(1);
                if flows == 0 {
                    return Err(cx.err(&key("flows"), "must be at least 1"));
                }
                workload::bulk(&hosts, &dsts, flows, size, start, pg, dport)
            } else {
                let size = cx.required(&w.size, &key("size"), &why)?;
                let size = cx.positive_bytes(&key("size"), &size)?;
                let interval = cx.required(&w.interval, &key("interval"), &why)?;
                let interval = cx.positive_time(&key("interval"), &interval)?;
                let duration = cx.required(&w.duration, &key("duration"), &why)?;
                let duration = cx.positive_time(&key("duration"), &duration)?;
                workload::probes(
                    &hosts, &dsts, size, interval, start, duration, seed, pg, dport,
                )
            };
            made.map_err(|m| {
                let field = match kind {
                    _ if !m.starts_with(workload::TOO_MANY_FLOWS) => "dsts",
                    WorkloadKind::Bulk => "flows",
                    _ => "duration",
                };
                cx.err(&key(field), m)
            })
        }
        WorkloadKind::File => {
            let rel = cx.required(&w.path, &key("path"), &why)?;
            let (text, name) = cx.read(&key("path"), &rel, "flow file")?;
            let (flows, lines) = workload::parse_peer_flows_with_lines(&text, &name)?;
            let n = topo.n_nodes() as u32;
            workload::validate_endpoints(&flows, &lines, &name, n, &|x| topo.is_host(x))?;
            for (i, f) in flows.iter().enumerate() {
                if f.src == f.dst {
                    return Err(ExperimentError::Input(InputError::at(
                        name.as_str(),
                        lines.get(i).copied(),
                        "dst",
                        format!(
                            "src and dst are both host {}; a flow needs two hosts",
                            f.src
                        ),
                    )));
                }
            }
            workload::validate_classes(&flows, &lines, &name, net::wire::N_CLASSES)?;
            // Flows past the count are not run, as in the peer (`rdmasim
            // hpcc` warns the same way): lowering the count runs the first
            // flows, but a count left behind when flows were added drops
            // them unseen.
            notes.extend(crate::peer_config::unread_flows_warning(
                &text,
                &name,
                flows.len(),
            ));
            Ok(flows)
        }
    }
}

fn build_cdf(cx: &Ctx<'_>, path: &str, v: &str) -> R<SizeCdf> {
    if let Some(c) = SizeCdf::builtin(v) {
        return Ok(c);
    }
    let p = cx.resolve(v);
    if !p.is_file() {
        return Err(cx.err(
            path,
            format!(
                "'{v}' is neither a built-in CDF ({}) nor a CDF file ('{}' does not exist)",
                SizeCdf::BUILTIN_NAMES.join(", "),
                p.display()
            ),
        ));
    }
    Ok(workload::load_cdf(&p)?)
}

fn build_cc(cx: &Ctx<'_>, c: &CcSection) -> R<CcConfig> {
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

fn build_pfc(cx: &Ctx<'_>, s: &PfcSection, net: &mut NetConfig) -> R<()> {
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
    Ok(())
}

fn build_buffer(cx: &Ctx<'_>, s: &BufferSection, net: &mut NetConfig) -> R<()> {
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

/// The (link, at_b) ends of switch ports in a class; see [`PortsSection`].
fn port_class(
    topo: &Topology,
    layout: Option<&topo::CrossDcLayout>,
    class: &str,
) -> Vec<(u32, bool)> {
    let special =
        |n: u32| layout.is_some_and(|l| l.is_relay(n) || (0..l.dcs()).any(|d| l.dci(d) == n));
    let mut out = Vec::new();
    for (i, l) in topo.links.iter().enumerate() {
        for (node, at_b) in [(l.a, false), (l.b, true)] {
            if topo.is_host(node) != (class == "hosts") {
                continue;
            }
            let take = match (class, layout) {
                ("hosts", _) => true,
                ("fabric", _) => !special(node),
                ("long_haul", Some(lay)) => lay.is_long_link(i),
                ("relay_access", Some(lay)) => lay.relay_link_range().contains(&i),
                ("dci", Some(lay)) => {
                    (0..lay.dcs()).any(|d| lay.dci(d) == node)
                        && !lay.is_long_link(i)
                        && !lay.relay_link_range().contains(&i)
                }
                _ => false,
            };
            if take {
                out.push((i as u32, at_b));
            }
        }
    }
    out
}

fn build_ports(
    cx: &Ctx<'_>,
    s: &PortsSection,
    topo: &Topology,
    layout: Option<&topo::CrossDcLayout>,
    net: &mut NetConfig,
) -> R<()> {
    use net::{FcChoice, PortRule, PortSettings};
    // Relays (seed-001 §3.2): the L port relays the PFC frames it receives;
    // the R port obeys them and never pauses its upstream.
    if let Some(lay) = layout {
        for i in 0..lay.long_link_range().len() {
            let Some((ra, rb)) = lay.relays_of(i) else {
                break;
            };
            for r in [ra, rb] {
                for (li, l) in topo.links.iter().enumerate() {
                    if l.a != r && l.b != r {
                        continue;
                    }
                    let settings = if lay.is_long_link(li) {
                        PortSettings {
                            fc: Some(FcChoice::PfcObeyOnly(net.pfc.mode)),
                            ..PortSettings::default()
                        }
                    } else {
                        PortSettings {
                            relay_pfc: true,
                            ..PortSettings::default()
                        }
                    };
                    net.ports.push(PortRule {
                        link: li as u32,
                        at_b: l.b == r,
                        settings,
                    });
                }
            }
        }
    }
    if let Some(h) = &s.hosts {
        let set = set_keys!(h; node, port, xoff, xon, headroom, alpha_shift, ecn);
        if let Some(k) = set.first() {
            return Err(cx.err(
                &format!("ports.hosts.{k}"),
                "hosts have no switch buffer; [ports.hosts] takes fc only",
            ));
        }
    }
    // The section each rule below comes from, by its index in net.ports.
    let mut paths: Vec<(usize, String)> = Vec::new();
    let groups = [
        ("hosts", &s.hosts),
        ("fabric", &s.fabric),
        ("dci", &s.dci),
        ("relay_access", &s.relay_access),
        ("long_haul", &s.long_haul),
    ];
    for (class, sec) in groups {
        let Some(sec) = sec else { continue };
        let path = format!("ports.{class}");
        if !["fabric", "hosts"].contains(&class) && layout.is_none() {
            return Err(cx.err(
                &path,
                "only for topology kind = \"cross_dc\"; use [[ports.at]] with node and port",
            ));
        }
        if sec.node.is_some() || sec.port.is_some() {
            return Err(cx.err(
                &format!("{path}.node"),
                "node and port are for [[ports.at]] only",
            ));
        }
        let settings = port_settings(cx, &path, sec, net.pfc.mode)?;
        let ends = port_class(topo, layout, class);
        if ends.is_empty() {
            return Err(cx.err(&path, format!("this topology has no {class} ports")));
        }
        for (link, at_b) in ends {
            paths.push((net.ports.len(), path.clone()));
            net.ports.push(PortRule {
                link,
                at_b,
                settings: settings.clone(),
            });
        }
    }
    for (i, sec) in s.at.iter().flatten().enumerate() {
        let path = format!("ports.at[{i}]");
        let node = cx.required(&sec.node, &format!("{path}.node"), "[[ports.at]]")?;
        let port = cx.required(&sec.port, &format!("{path}.port"), "[[ports.at]]")?;
        check_switch(cx, &format!("{path}.node"), topo, node)?;
        // Local port p of a node is its p-th link in link order.
        let end = topo
            .links
            .iter()
            .enumerate()
            .filter(|(_, l)| l.a == node || l.b == node)
            .nth(usize::from(port))
            .map(|(li, l)| (li as u32, l.b == node));
        let Some((link, at_b)) = end else {
            return Err(cx.err(
                &format!("{path}.port"),
                format!("node {node} has no port {port}"),
            ));
        };
        let settings = port_settings(cx, &path, sec, net.pfc.mode)?;
        paths.push((net.ports.len(), path));
        net.ports.push(PortRule {
            link,
            at_b,
            settings,
        });
    }
    // A Bifrost port keeps a grant per slot of its link's round trip, and
    // its byte counts grow with the slot: settings its link cannot take
    // (too many slots, or sizes past 2^53 bytes) are refused at the section
    // that chose Bifrost, not when the network is built. The last rule that
    // sets a port's fc is the one that holds.
    let mut seen = std::collections::HashSet::new();
    for (i, path) in paths.iter().rev() {
        let r = &net.ports[*i];
        if r.settings.fc.is_none() || !seen.insert((r.link, r.at_b)) {
            continue;
        }
        let Some(FcChoice::Bifrost(b)) = &r.settings.fc else {
            continue;
        };
        let l = &topo.links[r.link as usize];
        if let Err(e) = b.check(l.rate, l.delay) {
            return Err(cx.err(
                &format!("{path}.bifrost_t"),
                format!("link {} (nodes {}-{}): {e}", r.link, l.a, l.b),
            ));
        }
    }
    Ok(())
}

fn port_settings(cx: &Ctx<'_>, path: &str, s: &PortSection, mode: PfcMode) -> R<net::PortSettings> {
    use net::FcChoice;
    let key = |k: &str| format!("{path}.{k}");
    let bytes = |k: &str, v: &Option<String>| -> R<Option<u64>> {
        v.as_ref().map(|v| cx.bytes(&key(k), v)).transpose()
    };
    let xoff = bytes("xoff", &s.xoff)?;
    let xon = bytes("xon", &s.xon)?;
    match (xoff, xon) {
        (None, Some(_)) => return Err(cx.err(&key("xon"), "needs xoff (a static threshold)")),
        (Some(off), Some(on)) if on > off => {
            return Err(cx.err(&key("xon"), format!("{on} B is above xoff ({off} B)")))
        }
        _ => {}
    }
    if let Some(v) = s.alpha_shift {
        if v > 63 {
            return Err(cx.err(&key("alpha_shift"), format!("{v} must be at most 63")));
        }
    }
    let fc_name = s.fc.as_deref().unwrap_or("");
    let cbfc_keys = set_keys!(s; cbfc_buffer, cbfc_update_blocks, cbfc_update_period);
    let bifrost_keys = set_keys!(s; bifrost_t, bifrost_h, bifrost_k, bifrost_delta,
        bifrost_reading, bifrost_trace);
    if let Some(k) = cbfc_keys.first().filter(|_| !fc_name.starts_with("cbfc")) {
        return Err(cx.err(&key(k), "only with fc = \"cbfc\" or \"cbfc_ideal\""));
    }
    if let Some(k) = bifrost_keys.first().filter(|_| fc_name != "bifrost") {
        return Err(cx.err(&key(k), "only with fc = \"bifrost\""));
    }
    let fc = match s.fc.as_deref() {
        None => None,
        Some("pfc") => Some(FcChoice::Pfc(mode)),
        Some("lossy") => Some(FcChoice::Lossy),
        Some("obey_only") => Some(FcChoice::PfcObeyOnly(mode)),
        Some(v @ ("cbfc" | "cbfc_ideal")) => {
            let buffer = match &s.cbfc_buffer {
                Some(b) => cx.positive_bytes(&key("cbfc_buffer"), b)?,
                None => match xoff {
                    Some(x) => x + bytes("headroom", &s.headroom)?.unwrap_or(0),
                    None => {
                        return Err(cx.err(
                            &key("cbfc_buffer"),
                            "missing: the buffer this ingress advertises (or give xoff)",
                        ))
                    }
                },
            };
            let mut c = if v == "cbfc" {
                net::fc::CbfcConfig::real(buffer)
            } else {
                net::fc::CbfcConfig::ideal(buffer)
            };
            if let Some(b) = s.cbfc_update_blocks {
                if b == 0 {
                    return Err(cx.err(&key("cbfc_update_blocks"), "must be at least 1"));
                }
                c.update_blocks = b;
            }
            if let Some(t) = &s.cbfc_update_period {
                c.update_period = cx.positive_time(&key("cbfc_update_period"), t)?;
            }
            Some(FcChoice::Cbfc(c))
        }
        Some("bifrost") => {
            let mut b = net::fc::BifrostConfig::default();
            if let Some(t) = &s.bifrost_t {
                b.t_slot = cx.positive_time(&key("bifrost_t"), t)?;
            }
            if let Some(h) = &s.bifrost_h {
                b.h = Some(cx.positive_bytes(&key("bifrost_h"), h)?);
            }
            if let Some(d) = &s.bifrost_delta {
                b.delta = Some(cx.positive_bytes(&key("bifrost_delta"), d)?);
            }
            if let Some(k) = s.bifrost_k {
                b.k = k;
            }
            if let Some(r) = &s.bifrost_reading {
                b.reading = match r.as_str() {
                    "ledger" => net::fc::BifrostReading::Ledger,
                    "clamped" => net::fc::BifrostReading::Clamped,
                    "literal" => net::fc::BifrostReading::Literal,
                    _ => {
                        return Err(cx.err(
                            &key("bifrost_reading"),
                            format!("'{r}' is not \"ledger\", \"clamped\" or \"literal\""),
                        ))
                    }
                };
            }
            b.trace = s.bifrost_trace.unwrap_or(false);
            Some(FcChoice::Bifrost(b))
        }
        Some(v) => {
            return Err(cx.err(
                &key("fc"),
                format!(
                    "'{v}' is not a scheme; use \"pfc\", \"lossy\", \"obey_only\", \"cbfc\", \
                     \"cbfc_ideal\" or \"bifrost\""
                ),
            ))
        }
    };
    Ok(net::PortSettings {
        xoff,
        xon,
        headroom: bytes("headroom", &s.headroom)?,
        alpha_shift: s.alpha_shift,
        ecn: s.ecn,
        fc,
        relay_pfc: false,
    })
}

fn build_ecn(cx: &Ctx<'_>, s: &EcnSection, net: &mut NetConfig) -> R<()> {
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

/// Why a full-size data frame could never enter a switch, if it could
/// not: it is larger than the whole buffer, so the MMU would drop every
/// one (and a lossless run would report drops it cannot avoid).
pub(crate) fn frame_above_buffer(net: &NetConfig) -> Option<String> {
    let frame = u64::from(net.nic.mtu_payload) + u64::from(net.nic.data_header);
    (frame > net.buffer.size).then(|| {
        format!(
            "a full data frame ({} of payload + {} of headers) is larger than the whole switch \
             buffer ({}): every full-size packet would be dropped; lower the MTU or raise the \
             buffer",
            fmt_bytes(u64::from(net.nic.mtu_payload)),
            fmt_bytes(u64::from(net.nic.data_header)),
            fmt_bytes(net.buffer.size),
        )
    })
}

fn build_nic(cx: &Ctx<'_>, s: &NicSection, net: &mut NetConfig) -> R<()> {
    let n = &mut net.nic;
    if let Some(v) = &s.mtu {
        n.mtu_payload = cx.bytes_u32("nic.mtu", v, true)?;
    }
    if let Some(v) = &s.data_header {
        n.data_header = cx.bytes_u32("nic.data_header", v, false)?;
    }
    if let Some(v) = &s.ack_bytes {
        n.ack_bytes = cx.bytes_u32("nic.ack_bytes", v, true)?;
    }
    if let Some(v) = s.switch_ack_high_prio {
        n.switch_ack_high_prio = v;
    }
    if let Some(v) = s.ack_high_prio {
        n.ack_high_prio = v;
    }
    if let Some(v) = s.rate_bound {
        n.rate_bound = v;
    }
    if let Some(v) = &s.window {
        n.window = Some(cx.positive_bytes("nic.window", v)?);
    }
    if let Some(v) = &s.nack_interval {
        n.nack_interval = cx.time("nic.nack_interval", v)?;
    }
    if let Some(v) = &s.ack_interval {
        n.ack_interval = cx.positive_bytes("nic.ack_interval", v)?;
    }
    if let Some(v) = &s.chunk {
        n.chunk = cx.positive_bytes("nic.chunk", v)?;
    }
    if let Some(v) = s.back_to_zero {
        n.back_to_zero = v;
    }
    if let Some(v) = s.bdp_window {
        n.bdp_window = v;
    }
    if let Some(v) = s.global_t {
        n.global_t = v;
    }
    if let Some(v) = s.var_win {
        n.var_win = v;
    }
    if let Some(v) = &s.rto {
        n.rto = if v == "off" {
            None
        } else {
            Some(cx.positive_time("nic.rto", v)?)
        };
    }
    Ok(())
}

/// `[transport]`. IRN runs on a lossy fabric (`specs/seed-001-swing.md`
/// §2.2, §4.3: "PFC is disabled"), so choosing it turns PFC off unless
/// `[pfc] enabled` says otherwise; IRN over PFC stays possible, written out.
/// Go-back-N's keys in `[nic]` (`rto`, `nack_interval`, `ack_interval`,
/// `chunk`, `back_to_zero`) are accepted and do not apply to IRN, so a
/// config written from `rdmasim config --defaults` switches by one key.
fn build_transport(cx: &Ctx<'_>, doc: &ConfigDoc, net: &mut NetConfig) -> R<()> {
    let s = &doc.transport;
    let set = set_keys!(s; bitmap, rto_low, rto_high, rto_low_threshold);
    match s.kind.unwrap_or(TransportKind::GoBackN) {
        TransportKind::GoBackN => {
            cx.only_keys("transport", "go_back_n", &set, &[])?;
            net.nic.transport = Transport::GoBackN;
        }
        TransportKind::Irn => {
            let mut c = IrnConfig::default();
            if let Some(b) = s.bitmap {
                if b == 0 {
                    return Err(cx.err("transport.bitmap", "must be at least 1 packet"));
                }
                c.bitmap_packets = b;
            }
            if let Some(v) = &s.rto_low {
                c.rto_low = cx.positive_time("transport.rto_low", v)?;
            }
            if let Some(v) = &s.rto_high {
                c.rto_high = cx.positive_time("transport.rto_high", v)?;
            }
            if let Some(n) = s.rto_low_threshold {
                c.rto_low_threshold_packets = n;
            }
            if c.rto_low > c.rto_high {
                let key = if s.rto_low.is_some() {
                    "transport.rto_low"
                } else {
                    "transport.rto_high"
                };
                return Err(cx.err(
                    key,
                    format!(
                        "rto_low ({}) is longer than rto_high ({}); IRN's RTO_low is the shorter one",
                        fmt_delta(c.rto_low),
                        fmt_delta(c.rto_high)
                    ),
                ));
            }
            net.nic.transport = Transport::Irn(c);
            if doc.pfc.enabled.is_none() {
                net.pfc.enabled = false;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = r#"
[run]
name = "small"

[topology]
kind = "star"
hosts = 4

[workload]
kind = "incast"
senders = [0, 1, 2]
receiver = 3
size = "10KB"
"#;

    fn err_of(text: &str) -> String {
        match parse_config(text, "t.toml").and_then(|c| build_scenario(&c, Path::new(""))) {
            Ok(_) => panic!("expected an error"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn builds_a_small_scenario() {
        let cfg = parse_config(SMALL, "t.toml").unwrap();
        let s = build_scenario(&cfg, Path::new("")).unwrap();
        assert_eq!(s.name, "small");
        assert_eq!(s.topo.hosts().len(), 4);
        assert_eq!(s.flows.len(), 3);
        assert_eq!(s.flows[0].dport, DEFAULT_INCAST_DPORT);
        assert_eq!(s.net.cc, CcConfig::None);
        assert_eq!(s.net.stop_time, Some(Time::from_ns(1_000_000_000)));
    }

    const LINKS: &str = r#"
[topology]
kind = "links"
hosts = 3
switches = 2
links = [
    { a = 0, b = 3 },
    { a = 1, b = 3 },
    { a = 2, b = 4, rate = "40Gbps" },
    { a = 3, b = 4, delay = "80km" },
    { a = 3, b = 4, delay = "80km" },
]

[workload]
kind = "bulk"
hosts = [0, 1]
dsts = [2]
flows = 5
size = "1MB"
start = "1us"

[[workload.extra]]
kind = "probes"
hosts = [0]
dsts = [2]
size = "8KB"
interval = "10us"
start = "1ms"
duration = "1ms"
dport = 300
"#;

    #[test]
    fn a_link_list_topology_with_bulk_flows_and_probes() {
        let s = build_scenario(&parse_config(LINKS, "t.toml").unwrap(), Path::new("")).unwrap();
        assert_eq!(s.topo.hosts(), vec![0, 1, 2]);
        assert_eq!(s.topo.links.len(), 5);
        assert_eq!(s.topo.links[2].rate, Rate::gbps(40));
        // 80 km of fibre at 5 us/km; the default delay elsewhere.
        assert_eq!(s.topo.links[3].delay, Delta::from_us(400));
        assert_eq!(s.topo.links[0].delay, Delta::from_us(1));
        let bulk: Vec<_> = s
            .flows
            .iter()
            .filter(|f| f.dport == DEFAULT_DPORT)
            .collect();
        assert_eq!(bulk.len(), 5);
        assert_eq!(bulk.iter().filter(|f| f.src == 0).count(), 3);
        assert!(bulk.iter().all(|f| f.dst == 2 && f.size == 1_000_000));
        let probes: Vec<_> = s.flows.iter().filter(|f| f.dport == 300).collect();
        // ~100 probes at a 10 us mean gap over 1 ms.
        assert!((60..140).contains(&probes.len()), "{}", probes.len());
        assert!(probes.iter().all(|f| f.src == 0 && f.size == 8_000));
    }

    #[test]
    fn a_bad_link_list_names_the_link_and_field() {
        let text = LINKS.replace("{ a = 2, b = 4, rate", "{ a = 2, b = 9, rate");
        let e = err_of(&text);
        // The line of the entry, not of `links = [`.
        let line = text
            .lines()
            .position(|l| l.contains("{ a = 2, b = 9"))
            .unwrap()
            + 1;
        assert!(
            e.starts_with(&format!("t.toml:{line}: topology.links[2].b: "))
                && e.contains("does not exist"),
            "{e}"
        );
        let e = err_of(&LINKS.replace("rate = \"40Gbps\"", "rate = \"40Gbs\""));
        assert!(e.contains("topology.links[2].rate"), "{e}");
        let e = err_of(&LINKS.replace("switches = 2\n", ""));
        assert!(
            e.contains("topology.switches") && e.contains("missing"),
            "{e}"
        );
        let e = err_of(&LINKS.replace("flows = 5", "flows = 0"));
        assert!(
            e.contains("workload.flows") && e.contains("at least 1"),
            "{e}"
        );
        let e = err_of(&LINKS.replace("interval = \"10us\"\n", ""));
        assert!(e.contains("workload.extra[0].interval"), "{e}");
        let e = err_of(&LINKS.replace("dsts = [2]\nflows", "dsts = [3]\nflows"));
        assert!(e.contains("workload.dsts") && e.contains("switch"), "{e}");
    }

    #[test]
    fn unknown_nested_key_names_its_path_and_line() {
        let text =
            format!("{SMALL}\n[cc]\nkind = \"dcqcn\"\n\n[cc.dcqcn]\ng = 0.5\nrp_timr = \"1us\"\n");
        let e = err_of(&text);
        let line = text.lines().position(|l| l.starts_with("rp_timr")).unwrap() + 1;
        assert!(
            e.starts_with(&format!(
                "t.toml:{line}: cc.dcqcn.rp_timr: unknown key; expected one of"
            )),
            "{e}"
        );
        assert!(e.contains("rp_timer"), "{e}");
    }

    #[test]
    fn unknown_section_and_dotted_keys() {
        let e = err_of(&format!("{SMALL}\n[bogus]\nx = 1\n"));
        assert!(e.contains(": bogus: unknown section"), "{e}");
        // An unknown array of tables is a section too, named once.
        let e = err_of(&format!("{SMALL}\n[[workload_extra]]\nkind = \"incast\"\n"));
        assert!(
            e.contains(": workload_extra: unknown section; expected one of run, "),
            "{e}"
        );
        let e = err_of(&format!("{SMALL}\n[cc]\ndcqcn.bad = 1\n"));
        assert!(e.contains(": cc.dcqcn.bad: unknown key"), "{e}");
    }

    #[test]
    fn a_key_of_another_kind_is_rejected() {
        let e = err_of(&SMALL.replace("hosts = 4", "hosts = 4\nk = 4"));
        assert!(
            e.starts_with("t.toml:8: topology.k: not a key of kind = \"star\""),
            "{e}"
        );
    }

    #[test]
    fn values_are_checked_with_their_line() {
        let e = err_of(&SMALL.replace("hosts = 4", "hosts = 4\nrate = \"0Gbps\""));
        assert!(e.starts_with("t.toml:8: topology.rate: "), "{e}");
        let e = err_of(&SMALL.replace("hosts = 4", "hosts = -4"));
        assert!(e.starts_with("t.toml:7: topology.hosts: "), "{e}");
        let e = err_of(&SMALL.replace("receiver = 3", "receiver = 4"));
        assert!(e.contains("workload.receiver: node 4 is a switch"), "{e}");
        let e = err_of(&SMALL.replace("size = \"10KB\"", "size = 10"));
        assert!(
            e.contains("workload.size: invalid type") && e.contains("as strings"),
            "{e}"
        );
        // Beyond the switches a port's 16-bit index can count.
        let e = err_of(&SMALL.replace(
            "kind = \"star\"\nhosts = 4",
            "kind = \"leaf_spine\"\nleaves = 1\nspines = 65536\nhosts_per_leaf = 4",
        ));
        assert_eq!(
            e,
            "t.toml:7: topology.leaves: 65537 switches is too many (at most 65534); \
             lower leaves or spines"
        );
        // Trees whose size errors name k, the key to lower, and come before
        // anything is built (a fat tree of k = 400 has 16 million hosts).
        let e =
            err_of(&SMALL.replace("kind = \"star\"\nhosts = 4", "kind = \"fat_tree\"\nk = 400"));
        assert_eq!(
            e,
            "t.toml:7: topology.k: 200000 switches is too many (at most 65534); lower k"
        );
        let e =
            err_of(&SMALL.replace("kind = \"star\"\nhosts = 4", "kind = \"cross_dc\"\nk = 400"));
        assert_eq!(
            e,
            "t.toml:7: topology.k: 400002 switches is too many (at most 65534); lower k \
             or dcs"
        );
        // Too many nodes: the error names the size key to lower.
        let e = err_of(&SMALL.replace(
            "kind = \"star\"\nhosts = 4",
            "kind = \"fat_tree\"\nk = 2000",
        ));
        assert!(
            e.starts_with("t.toml:7: topology.k: 2005000000 nodes is too many")
                && e.ends_with("lower k"),
            "{e}"
        );
        let e = err_of(&SMALL.replace("hosts = 4", "hosts = 20000000"));
        assert!(e.starts_with("t.toml:7: topology.hosts: "), "{e}");
        let e = err_of(&SMALL.replace("kind = \"star\"", "kind = \"ring\""));
        assert!(
            e.starts_with("t.toml:6: topology.kind: unknown value \"ring\""),
            "{e}"
        );
        let e = err_of(&SMALL.replace("name = \"small\"", "name = \"small"));
        assert!(e.starts_with("t.toml:3: run.name: invalid TOML"), "{e}");
        // A workload that would fill the memory, at the key that asks for it.
        let e = err_of(&SMALL.replace(
            "kind = \"incast\"\nsenders = [0, 1, 2]\nreceiver = 3\nsize = \"10KB\"",
            "kind = \"poisson\"\nload = 0.3\nduration = \"1000000s\"",
        ));
        assert_eq!(
            e,
            "t.toml:12: workload.duration: too many flows: about 8765522279, at most 33554432; \
             shorten the duration or lower the load"
        );
        let e = err_of(&format!(
            "{SMALL}[[workload.extra]]\nkind = \"bulk\"\nhosts = [0]\ndsts = [1]\n\
             flows = 4000000000\n"
        ));
        assert!(
            e.starts_with("t.toml:18: workload.extra[0].flows: too many flows: about 4000000000"),
            "{e}"
        );
        // The TOML parser says nothing of these; the error names them.
        let e = err_of(&format!("{SMALL}\r\n\t\r"));
        assert!(
            e.ends_with(": invalid TOML: unexpected character '\\r'"),
            "{e}"
        );
        let e = err_of(&format!("{SMALL}\"a\" = {{ b = "));
        assert!(e.ends_with(": invalid TOML: unexpected end of file"), "{e}");
        let e = err_of(&format!(
            "{SMALL}[cc]\nkind = \"swift\"\n[cc.swift]\ncwnd_min = \"20KB\"\ncwnd_max = \"10KB\"\n"
        ));
        assert!(
            e.starts_with("t.toml:17: cc.swift.cwnd_min: cwnd_min (20000 B) is above cwnd_max"),
            "{e}"
        );
    }

    #[test]
    fn missing_sections_and_keys() {
        let e = err_of("[run]\nname = \"x\"\n");
        assert!(e.starts_with("t.toml: topology: missing"), "{e}");
        let e = err_of(&SMALL.replace("receiver = 3\n", ""));
        assert!(e.contains(": workload.receiver: missing"), "{e}");
        let e = err_of(&format!(
            "{SMALL}\n[[ecn.thresholds]]\nrate = \"100Gbps\"\nkmin = \"1KB\"\n"
        ));
        assert!(e.contains(": ecn.thresholds[0].kmax: missing"), "{e}");
    }

    #[test]
    fn the_seed_can_be_overridden() {
        let mut cfg = parse_config(SMALL, "t.toml").unwrap();
        cfg.set_seed(42);
        assert_eq!(build_scenario(&cfg, Path::new("")).unwrap().net.seed, 42);
    }

    #[test]
    fn transport_irn_keys_defaults_and_errors() {
        let build = |extra: &str| {
            build_scenario(
                &parse_config(&format!("{SMALL}\n{extra}"), "t.toml").unwrap(),
                Path::new(""),
            )
            .unwrap_or_else(|e| panic!("{e}"))
            .net
        };
        // The default: go-back-N with PFC on.
        let n = build("");
        assert_eq!(n.nic.transport, Transport::GoBackN);
        assert!(n.pfc.enabled);
        // IRN with its defaults turns PFC off, unless [pfc] says.
        let n = build("[transport]\nkind = \"irn\"\n");
        assert_eq!(n.nic.transport, Transport::Irn(IrnConfig::default()));
        assert!(!n.pfc.enabled);
        let n = build("[transport]\nkind = \"irn\"\n[pfc]\nenabled = true\n");
        assert!(n.pfc.enabled);
        // Swing's IRN-inter (seed-001 §4.3).
        let n = build(
            "[transport]\nkind = \"irn\"\nbitmap = 6809\nrto_low = \"817us\"\n\
             rto_high = \"1875us\"\nrto_low_threshold = 2\n",
        );
        assert_eq!(
            n.nic.transport,
            Transport::Irn(IrnConfig {
                bitmap_packets: 6809,
                rto_low: Delta::from_us(817),
                rto_high: Delta::from_us(1875),
                rto_low_threshold_packets: 2,
            })
        );

        let irn = |extra: &str| err_of(&format!("{SMALL}\n[transport]\nkind = \"irn\"\n{extra}"));
        // SMALL has 13 lines; [transport] is line 15, kind 16, the key 17.
        let e = irn("bitmap = 0\n");
        assert!(
            e.starts_with("t.toml:17: transport.bitmap: must be at least 1"),
            "{e}"
        );
        let e = irn("bitmap = -5\n");
        assert!(e.starts_with("t.toml:17: transport.bitmap: "), "{e}");
        let e = irn("bitmap = \"106\"\n");
        assert!(
            e.starts_with("t.toml:17: transport.bitmap: invalid type"),
            "{e}"
        );
        let e = irn("rto_low = \"fast\"\n");
        assert!(e.starts_with("t.toml:17: transport.rto_low: "), "{e}");
        let e = irn("rto_high = \"0us\"\n");
        assert!(
            e.starts_with("t.toml:17: transport.rto_high: duration '0us' must be"),
            "{e}"
        );
        let e = irn("rto_low = \"200us\"\n");
        assert!(
            e.starts_with(
                "t.toml:17: transport.rto_low: rto_low (200us) is longer than rto_high (140us)"
            ),
            "{e}"
        );
        let e = irn("window = 4\n");
        assert!(
            e.starts_with("t.toml:17: transport.window: unknown key"),
            "{e}"
        );
        let e = err_of(&format!("{SMALL}\n[transport]\nkind = \"sr\"\n"));
        assert!(
            e.starts_with("t.toml:16: transport.kind: unknown value \"sr\""),
            "{e}"
        );
        let e = err_of(&format!("{SMALL}\n[transport]\nbitmap = 100\n"));
        assert!(
            e.starts_with("t.toml:16: transport.bitmap: not a key of kind = \"go_back_n\""),
            "{e}"
        );
    }

    const CROSS_DC: &str = r#"
[topology]
kind = "cross_dc"

[workload]
kind = "incast"
senders = [0, 1]
receiver = 20
size = "10KB"
"#;

    #[test]
    fn cross_dc_defaults_to_the_swing_setup() {
        let build = |text: &str| {
            build_scenario(&parse_config(text, "t.toml").unwrap(), Path::new(""))
                .unwrap_or_else(|e| panic!("{e}"))
                .topo
        };
        // One line: two k = 4 fat trees, 2 hosts per ToR, 100G, 1 us; one
        // 400G long link of 80 km.
        let t = build(CROSS_DC);
        assert_eq!(t, topo::cross_dc(topo::CrossDcSpec::SWING).unwrap());
        assert_eq!((t.hosts().len(), t.n_nodes(), t.links.len()), (32, 74, 105));
        let long = t.links.last().unwrap();
        assert_eq!(
            (long.rate, long.delay),
            (Rate::gbps(400), Delta::from_us(400))
        );

        let with = |extra: &str| {
            CROSS_DC.replace(
                "kind = \"cross_dc\"\n",
                &format!("kind = \"cross_dc\"\n{extra}\n"),
            )
        };
        // Bifrost: 600 km, by length or by delay.
        let t = build(&with("long_length = \"600km\""));
        assert_eq!(t, topo::cross_dc(topo::CrossDcSpec::BIFROST).unwrap());
        assert_eq!(build(&with("long_delay = \"3ms\"")), t);
        // Every key.
        let t = build(&with(
            "dcs = 3\nk = 6\nhosts_per_tor = 1\nhost_rate = \"25Gbps\"\nfabric_rate = \"100Gbps\"\n\
             delay = \"2us\"\nlong_links = 2\nlong_rate = \"100Gbps\"\nlong_length = \"120km\"",
        ));
        let lay = topo::CrossDcSpec {
            dcs: 3,
            k: 6,
            hosts_per_tor: 1,
            host_rate: Rate::gbps(25),
            fabric_rate: Rate::gbps(100),
            delay: Delta::from_us(2),
            long_links: 2,
            long_rate: Rate::gbps(100),
            long_delay: Delta::from_us(600),
            relays: false,
        }
        .layout()
        .unwrap();
        assert_eq!(t, lay.build());
        assert_eq!(lay.long_link_range().len(), 3 * 2);

        let e = err_of(&with("long_length = \"80km\"\nlong_delay = \"400us\""));
        assert!(
            e.starts_with("t.toml:5: topology.long_delay: give the long link's"),
            "{e}"
        );
        let e = err_of(&with("long_length = \"400us\""));
        assert!(
            e.starts_with("t.toml:4: topology.long_length: '400us' is not a length"),
            "{e}"
        );
        let e = err_of(&with("long_rate = \"fast\""));
        assert!(e.starts_with("t.toml:4: topology.long_rate: "), "{e}");
        let e = err_of(&with("dcs = 1"));
        assert!(
            e.starts_with("t.toml:4: topology.dcs: dcs must be at least 2"),
            "{e}"
        );
        let e = err_of(&with("long_links = 0"));
        assert!(
            e.starts_with("t.toml:4: topology.long_links: must be at least 1"),
            "{e}"
        );
        let e = err_of(&with("k = 3"));
        assert!(e.starts_with("t.toml:4: topology.k: k must be even"), "{e}");
        let e = err_of(&with("pods = 3"));
        assert!(
            e.contains("topology.pods: not a key of kind = \"cross_dc\""),
            "{e}"
        );
        let e = err_of(&SMALL.replace("hosts = 4", "hosts = 4\nlong_links = 2"));
        assert!(
            e.contains("topology.long_links: not a key of kind = \"star\""),
            "{e}"
        );
    }

    const CROSS: &str = r#"
[topology]
kind = "cross_dc"

[workload]
kind = "poisson"
hosts = [0, 1, 2, 3]
dsts = [16, 17]
load = 0.1
duration = "100us"
"#;

    fn scenario(text: &str) -> Scenario {
        let c = parse_config(text, "t.toml").unwrap();
        build_scenario(&c, Path::new("")).unwrap()
    }

    #[test]
    fn port_classes_select_the_long_haul_dci_and_relay_ports() {
        let s = scenario(&format!(
            "{CROSS}\n[ports.dci]\nxoff = \"288KB\"\nheadroom = \"30KB\"\n\
             [ports.long_haul]\nxoff = \"1MB\"\nheadroom = \"40MB\"\necn = false\n"
        ));
        let lay = topo::CrossDcSpec::SWING.layout().unwrap();
        let long = lay.long_link_range().start as u32;
        let rules: Vec<_> = s.net.ports.iter().filter(|r| r.link == long).collect();
        assert_eq!(rules.len(), 2, "both ends of the long link");
        for r in rules {
            assert_eq!(r.settings.xoff, Some(1_000_000));
            assert_eq!(r.settings.headroom, Some(40_000_000));
            assert_eq!(r.settings.ecn, Some(false));
        }
        // 4 core links per DCI switch, 2 DCs, the DCI end only.
        let dci: Vec<_> = s
            .net
            .ports
            .iter()
            .filter(|r| r.settings.xoff == Some(288_000))
            .collect();
        assert_eq!(dci.len(), 8);
        for r in dci {
            let l = &s.topo.links[r.link as usize];
            let node = if r.at_b { l.b } else { l.a };
            assert!(node == lay.dci(0) || node == lay.dci(1));
        }
        // Flows go only to the listed destinations.
        assert!(s.flows.iter().all(|f| f.dst == 16 || f.dst == 17));
    }

    #[test]
    fn relays_relay_pfc_on_the_local_port_and_only_obey_on_the_long_one() {
        let text = CROSS.replace("kind = \"cross_dc\"", "kind = \"cross_dc\"\nrelays = true");
        let s = scenario(&text);
        let lay = topo::CrossDcSpec {
            relays: true,
            ..topo::CrossDcSpec::SWING
        }
        .layout()
        .unwrap();
        let (ra, rb) = lay.relays_of(0).unwrap();
        let at = |node: u32, link: usize| {
            s.net.ports.iter().find(|r| {
                let l = &s.topo.links[r.link as usize];
                r.link as usize == link && (if r.at_b { l.b } else { l.a }) == node
            })
        };
        let long = lay.long_link_range().start;
        let access = lay.relay_link_range().start;
        for (relay, access) in [(ra, access), (rb, access + 1)] {
            let l = at(relay, access).expect("L port rule");
            assert!(l.settings.relay_pfc);
            let r = at(relay, long).expect("R port rule");
            assert!(!r.settings.relay_pfc);
            assert!(matches!(r.settings.fc, Some(net::FcChoice::PfcObeyOnly(_))));
        }
        assert!(
            at(lay.dci(0), access).is_none(),
            "the DCI switch is unchanged"
        );
    }

    #[test]
    fn port_settings_errors_name_the_key() {
        let e = err_of(&format!("{SMALL}\n[ports.long_haul]\nxoff = \"1MB\"\n"));
        assert!(
            e.contains("ports.long_haul") && e.contains("cross_dc"),
            "{e}"
        );
        let e = err_of(&format!("{CROSS}\n[ports.long_haul]\nfc = \"credits\"\n"));
        assert!(
            e.contains("ports.long_haul.fc") && e.contains("'credits'"),
            "{e}"
        );
        let e = err_of(&format!(
            "{CROSS}\n[ports.dci]\nxoff = \"1MB\"\nxon = \"2MB\"\n"
        ));
        assert!(e.contains("ports.dci.xon"), "{e}");
        let e = err_of(&format!("{CROSS}\n[ports.dci]\nxon = \"2MB\"\n"));
        assert!(e.contains("needs xoff"), "{e}");
        let e = err_of(&format!("{SMALL}\n[[ports.at]]\nnode = 0\nport = 0\n"));
        assert!(
            e.contains("ports.at[0].node") && e.contains("is a host"),
            "{e}"
        );
        let e = err_of(&format!("{SMALL}\n[[ports.at]]\nnode = 4\nport = 9\n"));
        assert!(
            e.contains("ports.at[0].port") && e.contains("no port 9"),
            "{e}"
        );
        let e = err_of(&CROSS.replace("dsts = [16, 17]", "dsts = [16, 99]"));
        assert!(e.contains("workload.dsts"), "{e}");
        let s = scenario(&format!(
            "{SMALL}\n[[ports.at]]\nnode = 4\nport = 2\nheadroom = \"1MB\"\n"
        ));
        assert_eq!(s.net.ports.len(), 1);
        assert_eq!(s.net.ports[0].settings.headroom, Some(1_000_000));
    }

    #[test]
    fn cbfc_and_bifrost_port_keys() {
        let s = scenario(&format!(
            "{CROSS}\n[ports.long_haul]\nfc = \"bifrost\"\nbifrost_t = \"5us\"\nbifrost_k = 2\n\
             bifrost_reading = \"literal\"\n[ports.fabric]\nfc = \"cbfc_ideal\"\n\
             xoff = \"288KB\"\nheadroom = \"30KB\"\n"
        ));
        let lay = topo::CrossDcSpec::SWING.layout().unwrap();
        let long = s
            .net
            .ports
            .iter()
            .find(|r| r.link as usize == lay.long_link_range().start)
            .unwrap();
        match &long.settings.fc {
            Some(net::FcChoice::Bifrost(b)) => {
                assert_eq!(b.t_slot, Delta::from_us(5));
                assert_eq!(b.k, 2);
                assert_eq!(b.reading, net::fc::BifrostReading::Literal);
            }
            other => panic!("{other:?}"),
        }
        let fabric = s
            .net
            .ports
            .iter()
            .find(|r| r.settings.xoff == Some(288_000))
            .unwrap();
        match &fabric.settings.fc {
            Some(net::FcChoice::Cbfc(c)) => {
                assert_eq!(c.buffer, 318_000, "xoff + headroom");
                assert_eq!(c.field_bits, None, "ideal");
            }
            other => panic!("{other:?}"),
        }
        let e = err_of(&format!(
            "{CROSS}\n[ports.long_haul]\nbifrost_t = \"5us\"\n"
        ));
        assert!(
            e.contains("ports.long_haul.bifrost_t") && e.contains("only with"),
            "{e}"
        );
        let e = err_of(&format!("{CROSS}\n[ports.long_haul]\nfc = \"cbfc\"\n"));
        assert!(
            e.contains("ports.long_haul.cbfc_buffer") && e.contains("missing"),
            "{e}"
        );
        let e = err_of(&format!(
            "{CROSS}\n[ports.long_haul]\nfc = \"bifrost\"\nbifrost_reading = \"other\"\n"
        ));
        assert!(e.contains("ports.long_haul.bifrost_reading"), "{e}");
        // More slots per round trip than a ledger holds: at the section
        // that chose Bifrost, before the network is built.
        let long = |t: &str| format!("[ports.long_haul]\nfc = \"bifrost\"\nbifrost_t = \"{t}\"\n");
        let e = err_of(&format!("{CROSS}\n{}", long("100ps")));
        assert_eq!(
            e,
            "t.toml:14: ports.long_haul.bifrost_t: link 104 (nodes 52-73): Bifrost T = 100ps \
             over a one-way delay D = 400us gives N = ⌈2D/T⌉ = 8000000 slots per round trip; \
             at most 4194304: raise bifrost_t or shorten the link"
        );
        // A slot so long that its bytes pass 2^53 (2·R_s·T would wrap a
        // u64 at 100 Tb/s): refused, not run with a wrapped H.
        let e = err_of(&format!(
            "{}\n{}",
            CROSS.replace(
                "kind = \"cross_dc\"",
                "kind = \"cross_dc\"\nlong_rate = \"100Tbps\""
            ),
            long("1000000s")
        ));
        assert_eq!(
            e,
            "t.toml:15: ports.long_haul.bifrost_t: link 104 (nodes 52-73): Bifrost T = 1000000s \
             at 100000Gbps gives R_s·T = 12500000000000000000 B a slot, and its buffer H = Δ + \
             2·R_s·T + k·MTU passes the 2^53 bytes rdmasim counts: lower bifrost_t"
        );
        assert!(
            scenario(&format!("{CROSS}\n{}", long("10ns")))
                .net
                .ports
                .len()
                > 1
        );
        let e = err_of(&format!(
            "{}\n{}",
            CROSS.replace(
                "kind = \"cross_dc\"",
                "kind = \"cross_dc\"\nlong_length = \"100000km\""
            ),
            long("10ns")
        ));
        assert!(e.contains("N = ⌈2D/T⌉ = 100000000 slots"), "{e}");
        let e = err_of(&format!("{CROSS}\n[ports.hosts]\nxoff = \"1MB\"\n"));
        assert!(e.contains("ports.hosts.xoff"), "{e}");
    }

    /// A stop time at or before every flow's start is refused at run.stop's
    /// line; one that cuts off only later flows is not.
    #[test]
    fn a_stop_before_the_first_flow_is_refused() {
        let incast = |stop: &str| {
            SMALL
                .replace(
                    "name = \"small\"",
                    &format!("name = \"small\"\nstop = \"{stop}\""),
                )
                .replace("size = \"10KB\"", "size = \"10KB\"\nstart = \"5ms\"")
        };
        let e = err_of(&incast("3ms"));
        assert_eq!(
            e,
            "t.toml:4: run.stop: 3ms is before the first flow starts (5.00ms), so no flow \
             would run; set a later stop time"
        );
        let e = err_of(&incast("5ms"));
        assert!(
            e.starts_with("t.toml:4: run.stop: 5ms is the time the first flow starts"),
            "{e}"
        );
        let cfg = parse_config(&incast("6ms"), "t.toml").unwrap();
        assert!(build_scenario(&cfg, Path::new("")).is_ok());
        // A second generator starting after the stop: its flows simply
        // do not run.
        let later = format!(
            "{}\n[[workload.extra]]\nkind = \"incast\"\nsenders = [0, 1]\nreceiver = 2\n\
             size = \"1KB\"\nstart = \"9ms\"\n",
            incast("6ms")
        );
        let s = build_scenario(&parse_config(&later, "t.toml").unwrap(), Path::new("")).unwrap();
        assert_eq!(s.flows.len(), 5);
        assert_eq!(s.net.stop_time, Some(Time::from_ns(6_000_000)));
    }

    /// An incast whose senders list the receiver runs one flow fewer and
    /// says so at the `senders` line; one that does not says nothing.
    #[test]
    fn an_incast_sender_that_is_the_receiver_is_noted() {
        let cfg = SMALL.replace("senders = [0, 1, 2]", "senders = [0, 1, 2, 3]");
        let s = build_scenario(&parse_config(&cfg, "t.toml").unwrap(), Path::new("")).unwrap();
        assert_eq!(s.flows.len(), 3);
        assert_eq!(
            s.notes,
            vec![
                "t.toml:11: workload.senders: lists the receiver 3, which sends no flow to \
                 itself: the incast has 3 flows"
                    .to_string()
            ]
        );
        let s = build_scenario(&parse_config(SMALL, "t.toml").unwrap(), Path::new("")).unwrap();
        assert!(s.notes.is_empty(), "{:?}", s.notes);
    }

    /// A flow file whose header counts fewer flows than it has: the first
    /// `count` flows run and the rest are noted, in the words `rdmasim
    /// hpcc` warns with, naming the file, the header's line and the count.
    #[test]
    fn flow_lines_past_a_flow_files_count_are_noted() {
        let dir = std::env::temp_dir().join(format!("rdmasim-flow-count-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let cfg = SMALL.replace(
            "kind = \"incast\"\nsenders = [0, 1, 2]\nreceiver = 3\nsize = \"10KB\"",
            "kind = \"file\"\npath = \"flows.txt\"",
        );
        let cfg = parse_config(&cfg, "t.toml").unwrap();
        let flows = "# src dst pg dport size start\n1\n0 1 3 100 1000 0.000001\n\
                     1 2 3 100 1000 0.000002\n";
        std::fs::write(dir.join("flows.txt"), flows).unwrap();
        let s = build_scenario(&cfg, &dir).unwrap();
        let file = dir.join("flows.txt").display().to_string();
        assert_eq!(s.flows.len(), 1);
        assert_eq!(
            s.notes,
            vec![format!(
                "{file}:2: flow_count: the header says 1 flow, but line 4 follows them and is \
                 not read, as the peer reads only the number of flows the header gives"
            )]
        );
        // The peer's config says the same of the same file.
        assert_eq!(
            s.notes[0],
            crate::peer_config::unread_flows_warning(flows, &file, 1).unwrap()
        );
        // All flows counted: nothing to say.
        std::fs::write(dir.join("flows.txt"), flows.replace("\n1\n", "\n2\n")).unwrap();
        let s = build_scenario(&cfg, &dir).unwrap();
        assert_eq!(s.flows.len(), 2);
        assert!(s.notes.is_empty(), "{:?}", s.notes);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
