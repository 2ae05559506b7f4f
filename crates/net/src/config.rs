//! Parameters of the network model, each with its default and the source of
//! that default (the peer = HPCC sim; references in `docs/sources.md`).

use crate::cc::CcConfig;
use engine::{Delta, Rate};

pub use crate::fc::PfcMode;

/// PFC settings.
#[derive(Clone, Debug, PartialEq)]
pub struct PfcConfig {
    /// Whether switches send PFC at all (off = lossy fabric).
    pub enabled: bool,
    /// The classes PFC protects, bit `c` for class `c`: a switch pauses
    /// only these, and a class left out (other than 0, the control class)
    /// is lossy on every port: no pause, no headroom, a full share drops.
    /// Default every class (class 0 is never paused).
    pub classes: u8,
    /// Pause semantics.
    pub mode: PfcMode,
    /// A PFC storm watchdog on every PFC port it names (Azure §3.1); none
    /// by default.
    pub watchdog: Option<crate::fc::WatchdogConfig>,
}

impl Default for PfcConfig {
    fn default() -> Self {
        PfcConfig {
            enabled: true,
            classes: u8::MAX,
            mode: PfcMode::UntilResume,
            watchdog: None,
        }
    }
}

/// Headroom reserved per switch ingress port.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Headroom {
    /// `factor` × rate × link delay (the peer: factor 3, `third.cc`).
    RateDelay {
        /// Multiple of the link's rate × one-way delay.
        factor: f64,
    },
    /// A fixed number of bytes on every port.
    Bytes(u64),
}

/// The shared-buffer MMU of every switch (the peer's `SwitchMmu`).
#[derive(Clone, Debug, PartialEq)]
pub struct BufferConfig {
    /// Total buffer per switch. Peer: `BUFFER_SIZE` 32 MB (MiB), run.py 16·bw/50.
    pub size: u64,
    /// Reserved bytes per (ingress port, class). Peer: 4 KiB.
    pub reserve: u64,
    /// Headroom per ingress port. Peer: 3 × rate × delay.
    pub headroom: Headroom,
    /// Dynamic-threshold shift at NIC speed: threshold = free >> shift
    /// (alpha = 1/2^shift). Peer: 3 (alpha 1/8), one less per doubling of
    /// port speed above the NIC's.
    pub alpha_shift: u8,
    /// XON hysteresis: resume when shared use + this ≤ threshold. Peer: 3 KiB.
    pub resume_offset: u64,
}

impl Default for BufferConfig {
    fn default() -> Self {
        BufferConfig {
            size: 32 * 1024 * 1024,
            reserve: 4 * 1024,
            headroom: Headroom::RateDelay { factor: 3.0 },
            alpha_shift: 3,
            resume_offset: 3 * 1024,
        }
    }
}

/// RED/ECN thresholds for ports of one speed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EcnThreshold {
    /// Link speed these apply to.
    pub rate: Rate,
    /// Below this (bytes queued in the class), never mark.
    pub kmin: u64,
    /// Above this, always mark.
    pub kmax: u64,
    /// Marking probability at `kmax`.
    pub pmax: f64,
}

/// ECN marking at switch egress.
#[derive(Clone, Debug, PartialEq)]
pub struct EcnConfig {
    /// The peer's `ENABLE_QCN`.
    pub enabled: bool,
    /// Per link speed. A port whose speed is not listed uses the entry with
    /// the nearest speed, scaled linearly (the peer would silently use 0).
    pub thresholds: Vec<EcnThreshold>,
}

impl Default for EcnConfig {
    /// run.py at bw = 100: 100G 400/1600 KB, 400G 1600/6400 KB, Pmax 0.2;
    /// 25G and 50G from the shipped config.txt.
    fn default() -> Self {
        let t = |g: u64, kmin_kb: u64, kmax_kb: u64| EcnThreshold {
            rate: Rate::gbps(g),
            kmin: kmin_kb * 1000,
            kmax: kmax_kb * 1000,
            pmax: 0.2,
        };
        EcnConfig {
            enabled: true,
            thresholds: vec![
                t(25, 100, 400),
                t(50, 200, 800),
                t(100, 400, 1600),
                t(200, 800, 3200),
                t(400, 1600, 6400),
            ],
        }
    }
}

impl EcnConfig {
    /// Thresholds for a port of speed `rate`.
    pub fn for_rate(&self, rate: Rate) -> EcnThreshold {
        if let Some(t) = self.thresholds.iter().find(|t| t.rate == rate) {
            return *t;
        }
        let nearest = self
            .thresholds
            .iter()
            .min_by_key(|t| t.rate.0.abs_diff(rate.0))
            .copied()
            .unwrap_or(EcnThreshold {
                rate: Rate::gbps(100),
                kmin: 400_000,
                kmax: 1_600_000,
                pmax: 0.2,
            });
        let scale = rate.0 as f64 / nearest.rate.0 as f64;
        EcnThreshold {
            rate,
            kmin: (nearest.kmin as f64 * scale) as u64,
            kmax: (nearest.kmax as f64 * scale) as u64,
            pmax: nearest.pmax,
        }
    }
}

/// Host NIC and transport settings (the peer's `RdmaHw`).
#[derive(Clone, Debug, PartialEq)]
pub struct NicConfig {
    /// Payload bytes per data packet. Peer: `PACKET_PAYLOAD_SIZE` 1000.
    pub mtu_payload: u32,
    /// Header bytes added to each data packet. Peer: 48.
    pub data_header: u32,
    /// ACK/NACK frame bytes. Peer: 60.
    pub ack_bytes: u32,
    /// ACKs in class 0, never paused (the peer's `ACK_HIGH_PRIO 1`); else in
    /// the flow's class. Affects the NIC only, as in the peer.
    pub ack_high_prio: bool,
    /// With `ack_high_prio`, switches also carry ACKs in class 0 (strict
    /// priority, outside lossless accounting). The peer's switches ignore
    /// `ACK_HIGH_PRIO` (`third.cc` sets it on hosts only): ACKs the NIC sends
    /// while paused then fill the ingress headroom of class 3 and, under long
    /// pauses, overflow it. `rdmasim hpcc` keeps that behaviour (false);
    /// rdmasim's default is consistent end to end (true).
    pub switch_ack_high_prio: bool,
    /// Pace each QP at its CC rate (`RATE_BOUND 1`); else at line rate.
    pub rate_bound: bool,
    /// ACK every this many bytes (`L2_ACK_INTERVAL`; 1 = every packet).
    pub ack_interval: u64,
    /// An ACK is also forced at every multiple of this (`L2_CHUNK_SIZE` 4000).
    pub chunk: u64,
    /// Go back to the chunk boundary on loss (`L2_BACK_TO_ZERO`).
    pub back_to_zero: bool,
    /// At most one NACK per expected sequence per this interval. Peer: 500 µs.
    pub nack_interval: Delta,
    /// Fixed in-flight window in bytes; `None` = unbounded unless
    /// `bdp_window`.
    pub window: Option<u64>,
    /// Window = the BDP (`HAS_WIN 1`): the largest over all host pairs with
    /// `global_t`, else the pair's.
    pub bdp_window: bool,
    /// Base RTT and BDP are the maxima over all host pairs (`GLOBAL_T 1`,
    /// the peer's default) rather than the flow's own pair.
    pub global_t: bool,
    /// Scale the window by rate / line rate (`VAR_WIN`).
    pub var_win: bool,
    /// One chunk in flight per connection (Azure §4.1, the storage
    /// protocol's static flow control): a message is cut into chunks of
    /// this many bytes, and a QP sends a chunk's first byte only once every
    /// byte of the chunk before is acknowledged. `None` = off.
    pub one_chunk_in_flight: Option<u64>,
    /// Retransmission timeout: with no ACK progress for this long, go back
    /// to the first unacked byte. `None` = no timeout, as the peer (a lost
    /// tail packet then stalls its flow). Default 1 ms (rdmasim's choice).
    pub rto: Option<Delta>,
    /// How QPs recover lost packets: go-back-N (the peer, the default) or
    /// IRN's selective repeat.
    pub transport: Transport,
}

/// The reliability scheme of every QP (a plug point of rdmasim): which
/// [`crate::transport::Reliability`] sends and which receiver answers.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Transport {
    /// RoCEv2 go-back-N as the peer (HPCC sim `RdmaHw`), with
    /// rdmasim's optional retransmission timeout [`NicConfig::rto`].
    #[default]
    GoBackN,
    /// IRN: selective repeat with a SACK bitmap, a static in-flight cap of
    /// `bitmap_packets` (BDP-FC) and two timeouts (IRN; Swing §2.1, §6.1;
    /// Bifrost §VI-B). It runs on a lossy fabric: turn PFC off.
    /// [`NicConfig::rto`], `nack_interval`, `ack_interval`, `chunk` and
    /// `back_to_zero` do not apply to it.
    Irn(IrnConfig),
    /// The PFC-free transport (Bifröst): UC data QPs under a software
    /// control path with coalesced ACKs, selective retransmission by
    /// chunk and an RTT window (`transport/pfc_free/`). Not the Bifrost
    /// flow control of `fc/bifrost.rs`. [`NicConfig::rto`] and go-back-N's
    /// keys do not apply to it.
    PfcFree(crate::transport::pfc_free::config::PfcFreeConfig),
}

impl Transport {
    /// The transport of a flow of priority class `pg`: this one, except
    /// that a PFC-free transport bound to one data class (its `class`)
    /// leaves the flows of every other class to go-back-N, the hardware RC
    /// beside it (Bifröst §4.3: ARDMA on the lossless class, the PFC-free
    /// transport on its own).
    pub fn for_class(&self, pg: u8) -> Transport {
        match self {
            Transport::PfcFree(c) if c.class.is_some_and(|k| k != pg) => Transport::GoBackN,
            t => t.clone(),
        }
    }
}

/// IRN's parameters (as Swing §6.1 configures them).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IrnConfig {
    /// Packets a QP may have outstanding beyond its cumulative ACK: the size
    /// of the receiver's bitmap and the sender's BDP-FC cap. Default 106,
    /// Swing's IRN-intra (one BDP of the 12.72 µs, 100 Gb/s intra-DC path
    /// in 1500 B packets).
    pub bitmap_packets: u32,
    /// Timeout while fewer than `rto_low_threshold_packets` packets are in
    /// flight. Default 13 µs (Swing's IRN-intra, ≈ the base RTT).
    pub rto_low: Delta,
    /// Timeout otherwise. Default 140 µs (Swing's IRN-intra).
    pub rto_high: Delta,
    /// IRN's N: `rto_low` applies while fewer than N packets are in flight
    /// (IRN's own rule, N = 3; Swing §2.1 words it as flows "less than three
    /// MTU" long, which this rule implies for such flows). Default 3.
    pub rto_low_threshold_packets: u32,
}

/// The flow-control scheme of one port, when it differs from the
/// network-wide `[pfc]` setting.
#[derive(Clone, Debug, PartialEq)]
pub enum FcChoice {
    /// No hop-by-hop flow control: the port neither sends nor obeys control
    /// frames, and its ingress drops on overflow.
    Lossy,
    /// PFC with these pause semantics (sends as a switch port, obeys).
    Pfc(PfcMode),
    /// Obeys PFC frames it receives but never sends any: the long-haul port
    /// of a Swing relay (Swing §5.2, Fig. 8, port R).
    PfcObeyOnly(PfcMode),
    /// InfiniBand-style credit-based flow control (IBTA; Bifrost §II-B): this
    /// port's ingress advertises its buffer as credits and its egress sends
    /// only against credits from the far end, which must run CBFC too. At a
    /// switch, the ingress owns a static buffer of `buffer` bytes unless `xoff`
    /// sets one.
    Cbfc(crate::fc::CbfcConfig),
    /// Bifrost's downstream slot loop on this ingress (Bifrost §IV-B, Alg. 1);
    /// the far end's egress must obey PFC pause times as 802.1Qbb timers
    /// (`Pfc(PfcMode::Quanta { .. })` or `PfcObeyOnly`). The ingress owns a
    /// static buffer of H bytes unless `xoff` sets one.
    Bifrost(crate::fc::BifrostConfig),
    /// Ideal per-flow flow control (FlowSail §I, §VI-A): this port's
    /// ingress pauses a flow alone when it holds more than `pause` bytes of
    /// it, and resumes it at `resume`; its egress holds back the flows the
    /// far end paused. The far end must run it too. A switch port running
    /// it queues each flow apart (`egress = "per_flow"`, its default here).
    IdealPerFlow(crate::fc::IdealPerFlowConfig),
    /// BFC (NSDI '22): a switch port runs BFC's egress (K queues, flows
    /// mapped to empty queues, a queue paused upstream while it holds a
    /// paused flow); a NIC holds back the flows its ToR paused. The far
    /// end must run it too.
    Bfc(crate::fc::BfcConfig),
    /// FlowSail: a switch port runs FlowSail's egress (K queues with the
    /// isolation queue rsvQ, congested flows identified per flow and
    /// isolated upstream); a NIC holds back the flows its ToR paused. The
    /// far end must run it too.
    FlowSail(crate::fc::FlowSailConfig),
}

/// Settings of one switch port that override the switch-wide ones (Swing §6.1:
/// long-haul ports have their own buffer and thresholds). `None` keeps the
/// switch-wide value.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PortSettings {
    /// Static XOFF threshold of this ingress in bytes. With it the port
    /// leaves the shared pool: it owns `xoff + headroom` bytes, pauses its
    /// upstream once more than `xoff` are held and drops what exceeds both.
    pub xoff: Option<u64>,
    /// Static XON threshold (bytes held at or below which the pause is
    /// lifted); default `xoff` (no hysteresis, Swing §4.1). Needs `xoff`.
    pub xon: Option<u64>,
    /// Headroom of this ingress in bytes.
    pub headroom: Option<u64>,
    /// Dynamic-threshold shift of this ingress (alpha = 1/2^shift), for
    /// ports in the shared pool.
    pub alpha_shift: Option<u8>,
    /// ECN marking at this egress.
    pub ecn: Option<bool>,
    /// Flow control of this port.
    pub fc: Option<FcChoice>,
    /// Every PFC frame this port receives is also sent, unchanged, out of the
    /// node's other port (a Swing relay's local port L, Swing §5.2). Only for
    /// two-port switches.
    pub relay_pfc: bool,
    /// How this switch port queues what it sends (default: eight priority
    /// classes). Hosts schedule their own QPs and take no choice.
    pub egress: Option<crate::egress::EgressChoice>,
    /// Random loss of the frames this port sends (a probability), in
    /// place of its link's error rate.
    pub loss: Option<f64>,
}

impl PortSettings {
    /// Take every field `other` sets.
    pub fn merge(&mut self, other: &PortSettings) {
        self.xoff = other.xoff.or(self.xoff);
        self.xon = other.xon.or(self.xon);
        self.headroom = other.headroom.or(self.headroom);
        self.alpha_shift = other.alpha_shift.or(self.alpha_shift);
        self.ecn = other.ecn.or(self.ecn);
        self.loss = other.loss.or(self.loss);
        if other.fc.is_some() {
            self.fc = other.fc.clone();
        }
        self.relay_pfc |= other.relay_pfc;
        self.egress = other.egress.or(self.egress);
    }
}

/// Settings for the port at one end of one link.
#[derive(Clone, Debug, PartialEq)]
pub struct PortRule {
    /// Index into the topology's links.
    pub link: u32,
    /// The port at node `links[link].a` (false) or `.b` (true).
    pub at_b: bool,
    /// What to set.
    pub settings: PortSettings,
}

/// Everything the network model needs besides topology and flows.
#[derive(Clone, Debug, PartialEq)]
pub struct NetConfig {
    /// Seed of every random stream in the run.
    pub seed: u64,
    /// Switch buffers.
    pub buffer: BufferConfig,
    /// ECN marking.
    pub ecn: EcnConfig,
    /// PFC.
    pub pfc: PfcConfig,
    /// NICs and transport.
    pub nic: NicConfig,
    /// Congestion control of every QP.
    pub cc: CcConfig,
    /// Stop the run at this time even if flows are unfinished.
    pub stop_time: Option<engine::Time>,
    /// Packet error rate on links whose own error rate is 0
    /// (the peer's `ERROR_RATE_PER_LINK`).
    pub error_rate_per_link: f64,
    /// Link failures: at this time the link between these two nodes goes
    /// down for good and routes are recomputed (the peer's `LINK_DOWN`).
    pub link_down: Vec<(engine::Time, u32, u32)>,
    /// The peer's queue-length monitor (`QLEN_MON_*`), off by default.
    pub qlen_monitor: Option<crate::qlen::QlenMonitorConfig>,
    /// Per-port overrides; a later rule for the same port replaces the
    /// fields it sets.
    pub ports: Vec<PortRule>,
    /// Ports that send pause frames without end (injected PFC storms).
    pub pfc_storms: Vec<crate::fc::StormConfig>,
    /// DCQCN per NIC generation on the hosts it lists (Azure §7.2); none
    /// by default.
    pub dcqcn_fleet: Option<crate::cc::DcqcnFleet>,
    /// Order of each switch's equal-cost next hops, among which ECMP picks
    /// by index: ascending port (rdmasim's), or descending, as the peer's
    /// tables are on its fat tree (`rdmasim hpcc`).
    pub next_hop_order: topo::NextHopOrder,
    /// SONiC's buffer model instead of the peer's MMU on the switches it
    /// lists (Azure §6.2, App. A); none by default.
    pub sonic: Option<crate::sonic_buffer::setup::SonicSetup>,
    /// The hosts' CPU (`[host]`): off unless it gives cores.
    pub host: crate::host_cpu::HostCpuConfig,
}

impl Default for NetConfig {
    fn default() -> Self {
        NetConfig {
            seed: 1,
            buffer: BufferConfig::default(),
            ecn: EcnConfig::default(),
            pfc: PfcConfig::default(),
            nic: NicConfig::default(),
            cc: CcConfig::default(),
            stop_time: None,
            error_rate_per_link: 0.0,
            link_down: Vec::new(),
            qlen_monitor: None,
            ports: Vec::new(),
            pfc_storms: Vec::new(),
            dcqcn_fleet: None,
            next_hop_order: topo::NextHopOrder::Ascending,
            sonic: None,
            host: crate::host_cpu::HostCpuConfig::default(),
        }
    }
}
