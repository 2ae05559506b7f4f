//! A scenario: everything one run needs (topology, flows, network
//! settings), where the peer's own output files go, and how to run it.

use net::NetConfig;
use std::path::PathBuf;
use topo::Topology;
use workload::FlowSpec;

/// Everything one run needs.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// Name of the run (the config's `run.name`); names the output directory
    /// by default and appears in `summary.json`.
    pub name: String,
    /// The network.
    pub topo: Topology,
    /// The flows, sorted by start time.
    pub flows: Vec<FlowSpec>,
    /// Buffers, ECN, PFC, NICs, congestion control, seed and stop time.
    pub net: NetConfig,
    /// Keep a log of PFC frames and write `pfc.txt`.
    pub record_pfc: bool,
    /// Peer-format outputs to write at the paths the peer's config names.
    pub peer_outputs: Option<PeerOutputs>,
    /// Notes found while building the scenario (a flow file's lines past
    /// its count): the first of the run's notes ([`crate::run::RunReport::notes`]),
    /// printed before it starts when [`RunOptions::print_notes`] is set.
    pub notes: Vec<String>,
    /// Messages of several flows each (a storage workload's), by flow id;
    /// empty when the workload has none. Their completion times go to
    /// `messages.csv` and `summary.json`.
    pub messages: Vec<workload::Message>,
}

/// Where to write the peer's own output files (its `FCT_OUTPUT_FILE` and
/// `PFC_OUTPUT_FILE`), besides the run directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeerOutputs {
    /// The FCT file (the peer's format, `third.cc` `qp_finish`).
    pub fct: PathBuf,
    /// The PFC file, if wanted; setting it turns PFC recording on.
    pub pfc: Option<PathBuf>,
    /// The queue-length monitor file (`QLEN_MON_FILE`), written when the
    /// scenario's `net.qlen_monitor` is set.
    pub qlen: Option<PathBuf>,
    /// The config that names them, as its errors name it.
    pub config: String,
    /// The lines of `config` that name the FCT, PFC and queue-length
    /// files (0 for one it does not name).
    pub lines: [usize; 3],
}

/// How to run: what to show while running, and what to copy into the run
/// directory.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Show a progress line on stderr, updated about once a second, when
    /// stderr is a terminal.
    pub progress: bool,
    /// Print nothing while running (overrides `progress`).
    pub quiet: bool,
    /// Print each note on stderr (`rdmasim: note: …`) as soon as it is
    /// known: those found while building (a flow file's unread lines, a
    /// timeout shorter than a round trip, a Bifrost headroom below its
    /// bound) before the run starts, so that a long run can be stopped and
    /// fixed at once, and the rest at its end. All of them are in [`crate::run::RunReport::notes`] either way.
    pub print_notes: bool,
    /// Notes on the defaults the config relies on
    /// ([`crate::config::default_notes`]), printed with the notes known
    /// before the run when [`RunOptions::print_notes`] is set. They are
    /// about the config as written, which the run directory's
    /// `config.toml` shows, so `summary.json` does not repeat them.
    pub config_notes: Vec<String>,
    /// Text of the TOML config the scenario came from, written to the run
    /// directory as `config.toml`.
    pub config_toml: Option<String>,
    /// Record a time series ([`crate::config::timeseries`]) and write
    /// `timeseries.csv` (and `qp_rates.csv`) into the run directory.
    pub timeseries: Option<net::monitor::MonitorConfig>,
    /// Capture frames ([`crate::config::capture`]) and write
    /// `capture.pcapng` into the run directory.
    pub capture: Option<net::capture::CaptureConfig>,
    /// How many threads, and the partitions they run (`[engine]`,
    /// `--threads`); `None`: one thread.
    pub engine: Option<crate::threads::EngineSpec>,
}
