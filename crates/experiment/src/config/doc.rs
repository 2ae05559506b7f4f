//! The config file as plain data ([`ConfigDoc`]), as close to the file as
//! possible: every section optional, every key an `Option`, unknown keys
//! rejected. Each section's type is declared by the module that builds it.

use super::capture::CaptureSection;
use super::cc::CcSection;
use super::fabric::{BufferSection, EcnSection, PfcSection};
use super::nic::{NicSection, TransportSection};
use super::ports::PortsSection;
use super::timeseries::TimeseriesSection;
use super::topology::TopologySection;
use super::workload::WorkloadSection;
use serde::Deserialize;

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
    /// `[host]`: the hosts' CPU.
    #[serde(default)]
    pub host: super::host::HostSection,
    /// `[output]`.
    #[serde(default)]
    pub output: OutputSection,
    /// `[timeseries]`: present means on ([`super::timeseries`]).
    pub timeseries: Option<TimeseriesSection>,
    /// `[capture]`: present means on ([`super::capture`]).
    pub capture: Option<CaptureSection>,
    /// `[engine]`: threads and partitions ([`super::engine`]).
    pub engine: Option<super::engine::EngineSection>,
    /// `[[link_down]]`: link failures.
    pub link_down: Option<Vec<LinkDownSection>>,
    /// `[[pfc_storm]]`: ports that pause without end.
    pub pfc_storm: Option<Vec<PfcStormSection>>,
    /// `[dcqcn_fleet]`: DCQCN per NIC generation.
    pub dcqcn_fleet: Option<super::fleet::DcqcnFleetSection>,
    /// `[ports.*]`: per-port buffer and flow-control settings.
    #[serde(default)]
    pub ports: PortsSection,
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

/// `[[pfc_storm]]`: from `start` to `stop`, node `node` sends a pause
/// frame of class `class` to its neighbour `peer` every `interval` (an
/// injected PFC storm, Azure §3.1).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PfcStormSection {
    /// The storming node (a host or a switch).
    pub node: u32,
    /// The neighbour it pauses.
    pub peer: u32,
    /// The class it pauses; default the workload's default class.
    pub class: Option<u8>,
    /// First pause frame; default 0.
    pub start: Option<String>,
    /// A resume, and the end; default never.
    pub stop: Option<String>,
    /// Between pause frames; default 10 µs.
    pub interval: Option<String>,
}

/// `[output]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSection {
    /// Log PFC frames and write `pfc.txt`.
    pub record_pfc: Option<bool>,
}
