//! What a finished run reports: per flow, per port, and run-wide counts.

use crate::fc::FcCounters;
use crate::port::PortCounters;
use engine::Time;

/// Progress of a running simulation, for progress bars.
#[derive(Clone, Copy, Debug)]
pub struct ProgressInfo {
    /// Simulated time reached.
    pub now: Time,
    /// Events processed.
    pub events: u64,
    /// Flows whose QP exists.
    pub flows_started: usize,
    /// Flows completed.
    pub flows_finished: usize,
    /// Flows in the workload.
    pub flows_total: usize,
}

/// One PFC frame received (the peer's PFC output file, `third.cc` `get_pfc`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PfcLogEntry {
    /// Arrival time.
    pub time: Time,
    /// Receiving node.
    pub node: u32,
    /// Whether that node is a switch.
    pub is_switch: bool,
    /// The peer's interface index (local port + 1; 0 is its loopback).
    pub if_index: u32,
    /// Pause (true) or resume.
    pub pause: bool,
}

/// How one flow went.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowOutcome {
    /// Flow id.
    pub id: u32,
    /// Sender.
    pub src: u32,
    /// Receiver.
    pub dst: u32,
    /// Bytes.
    pub size: u64,
    /// QP creation.
    pub start: Time,
    /// When the sender got the ACK of the last byte; `None` if unfinished.
    pub end: Option<Time>,
    /// The peer's standalone FCT (`third.cc` `qp_finish`), ns.
    pub ideal_fct_ns: u64,
    /// Priority class.
    pub pg: u8,
    /// Source transport port.
    pub sport: u16,
    /// Destination transport port.
    pub dport: u16,
    /// Payload bytes sent more than once.
    pub retransmitted: u64,
    /// Retransmission timeouts that expired.
    pub timeouts: u32,
}

/// Counters of one port.
#[derive(Clone, Debug, PartialEq)]
pub struct PortReport {
    /// Node the port belongs to.
    pub node: u32,
    /// Port index at that node (link order).
    pub port: u16,
    /// Whether the node is a switch.
    pub is_switch: bool,
    /// Traffic, drops, marks, queue peak.
    pub counters: PortCounters,
    /// Flow-control frames and paused time.
    pub fc: FcCounters,
    /// Whether this port's ingress is under hop-by-hop flow control (a
    /// drop there breaks a lossless promise); false for `Lossy` ports.
    pub lossless: bool,
}

/// Everything a run reports.
#[derive(Clone, Debug)]
pub struct RunResults {
    /// Per flow, in id order.
    pub flows: Vec<FlowOutcome>,
    /// Flow ids in completion order (the order of the peer's fct.txt).
    pub completion_order: Vec<u32>,
    /// Per port.
    pub ports: Vec<PortReport>,
    /// Peak buffer occupancy per switch (bytes), in node order of switches.
    pub switch_peak_bytes: Vec<(u32, u64)>,
    /// Events processed.
    pub events: u64,
    /// Frames delivered across a link (packet·hops).
    pub packet_hops: u64,
    /// Simulated time at the end of the run: of its last event.
    pub end_time: Time,
    /// Whether events were still pending at the end (the run stopped at
    /// its stop time); false when nothing was left to happen.
    pub events_pending: bool,
    /// PFC frames received, if recording was on.
    pub pfc_log: Vec<PfcLogEntry>,
    /// The queue-length monitor's file (the peer's `QLEN_MON_FILE`), if on.
    pub qlen_text: Option<String>,
    /// Finished flows whose receiver did not hand the application every
    /// message exactly once, or a byte count other than the sender's: one
    /// sentence each (a software transport's end-of-run check; empty for
    /// the others).
    pub delivery_failures: Vec<String>,
    /// The PFC-free transport's counters over all flows, if it ran.
    pub pfc_free: Option<crate::transport::pfc_free::PfcFreeTotals>,
    /// Per switch with SONiC's buffer model, in node order: what its
    /// buffer did (empty when no switch has it).
    pub sonic: Vec<crate::sonic_buffer::setup::SonicReport>,
    /// Per host, in node order, with a host CPU model (`[host] cores`):
    /// what its cores did (empty without one).
    pub host_cpu: Vec<HostCpuRow>,
}

/// One host's CPU over a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostCpuRow {
    /// The host's node.
    pub node: u32,
    /// Its cores.
    pub cores: u32,
    /// What they did.
    pub totals: crate::host_cpu::HostCpuTotals,
    /// Messages (requests) its receivers handed to the application.
    pub messages_received: u64,
    /// Messages its connections had acknowledged in full (sent).
    pub messages_sent: u64,
}

impl RunResults {
    /// Frames dropped at switch admission, all ports and classes.
    pub fn drops(&self) -> u64 {
        self.ports
            .iter()
            .map(|p| p.counters.drops.iter().sum::<u64>())
            .sum()
    }
    /// Frames lost to link errors.
    pub fn corrupted(&self) -> u64 {
        self.ports.iter().map(|p| p.counters.corrupted).sum()
    }
    /// Data frames ECN-marked.
    pub fn ecn_marks(&self) -> u64 {
        self.ports.iter().map(|p| p.counters.ecn_marks).sum()
    }
    /// XOFF frames sent.
    pub fn pause_frames(&self) -> u64 {
        self.ports
            .iter()
            .map(|p| p.fc.pause_tx.iter().sum::<u64>())
            .sum()
    }
    /// XON frames sent.
    pub fn resume_frames(&self) -> u64 {
        self.ports
            .iter()
            .map(|p| p.fc.resume_tx.iter().sum::<u64>())
            .sum()
    }
    /// Total paused time over all ports and classes, ps.
    pub fn paused_ps(&self) -> u64 {
        self.ports
            .iter()
            .map(|p| p.fc.paused_ps.iter().sum::<u64>())
            .sum()
    }
    /// Flows that did not finish.
    pub fn unfinished(&self) -> usize {
        self.flows.iter().filter(|f| f.end.is_none()).count()
    }
}
