//! Packet capture: the frames that chosen ports send or receive, kept
//! while the run goes and written afterwards as a pcapng file that
//! Wireshark and `tshark` read (`docs/capture.md`).
//!
//! [`Simulation::capture`](crate::Simulation::capture) marks the chosen ports (and, for what they
//! receive, the ports at the other end of their links) with
//! `TRACE_CAPTURE`; `Port::transmit` already tests one byte of trace bits
//! on every frame, so a run without a capture pays nothing more. A marked
//! port hands each frame it starts to [`Capture::record`], which keeps
//! those inside the window that pass the filters, with the time it left
//! (sent) or arrived whole (received). Recording reads the frame only, so
//! a run's flows are the same with or without it.
//!
//! [`Simulation::take_capture`](crate::Simulation::take_capture) hands the frames over as a
//! [`CaptureFile`], in time order; [`CaptureFile::write_pcapng`] writes
//! them, each frame given the RoCEv2 headers it stands for (`frame.rs`),
//! and [`pcapng::read`] reads such a file back.

mod frame;
pub mod pcapng;

pub use frame::{decode, Decoded, Frame, QPN_BASE, ROCE_UDP_PORT};
pub use pcapng::Interface;

use crate::monitor::{port_ids, MonitorPorts};
use crate::port::{Port, TRACE_CAPTURE};
use crate::wire::{Packet, PacketKind, N_CLASSES};
use engine::Time;
use std::io::{self, Write};
use workload::FlowSpec;

/// Which way of a captured port's link a capture records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// What the port sends (timestamp: the frame's first bit leaves).
    Tx,
    /// What the port receives (timestamp: the frame's last bit arrives).
    Rx,
    /// Both.
    Both,
}

/// What to capture.
#[derive(Clone, Debug, PartialEq)]
pub struct CaptureConfig {
    /// The ports, one pcapng interface each.
    pub ports: MonitorPorts,
    /// Which way of their links.
    pub direction: Direction,
    /// No frame before this time.
    pub start: Time,
    /// No frame at or after this time (`None`: until the run ends).
    pub stop: Option<Time>,
    /// Bytes kept of each frame (the rest is counted in its length only).
    pub snaplen: u32,
    /// Keep only the frames of these flows (ids as in `flows.csv`), and
    /// every class-wide control frame (PFC, credits), which pause or credit
    /// them too; `None`: every flow.
    pub flows: Option<Vec<u32>>,
    /// Keep only the frames of these priority classes (a control frame's
    /// class is the one it pauses, resumes or credits); `None`: all.
    pub classes: Option<Vec<u8>>,
    /// Stop recording after this many frames.
    pub max_frames: u64,
}

/// The capture's state inside a running simulation.
#[derive(Debug)]
pub(crate) struct Capture {
    start: Time,
    stop: Time,
    /// Bit c set: class c is kept.
    classes: u8,
    /// Per flow index: kept; empty: every flow.
    flows: Vec<bool>,
    max_frames: u64,
    /// The configured `max_frames` (a partition of a parallel run records
    /// one more).
    limit: u64,
    /// Per global port id: the interface whose port sends (`[0]`) or
    /// receives (`[1]`) what this port sends, or `NONE`.
    iface_of: Vec<[u32; 2]>,
    frames: Vec<Frame>,
    truncated_at: Option<Time>,
    interfaces: Vec<Interface>,
    snaplen: u32,
}

const NONE: u32 = u32::MAX;

impl Capture {
    /// `pkt`, which port `port` starts to send at `now` and which arrives
    /// whole at its peer at `arrive`: keep it where the capture wants it.
    pub(crate) fn record(&mut self, port: u32, now: Time, arrive: Time, pkt: &Packet) {
        let class = if pkt.kind.is_control() {
            pkt.pfc_class()
        } else {
            pkt.class
        };
        if usize::from(class) >= N_CLASSES || self.classes & (1 << class) == 0 {
            return;
        }
        let flow_specific = !matches!(pkt.kind, PacketKind::Pfc | PacketKind::Credit);
        if flow_specific
            && !self.flows.is_empty()
            && !self.flows.get(pkt.flow as usize).copied().unwrap_or(false)
        {
            return;
        }
        let [tx, rx] = self.iface_of[port as usize];
        for (iface, time, inbound) in [(tx, now, false), (rx, arrive, true)] {
            if iface == NONE || time < self.start || time >= self.stop {
                continue;
            }
            if self.frames.len() as u64 >= self.max_frames {
                self.truncated_at.get_or_insert(time);
                return;
            }
            self.frames.push(Frame {
                time,
                iface,
                inbound,
                sender: port,
                pkt: *pkt,
            });
        }
    }
}

impl Capture {
    /// Frames recorded so far.
    pub(crate) fn recorded(&self) -> usize {
        self.frames.len()
    }

    /// The frames recorded so far, in the order they were.
    pub(crate) fn frames(&self) -> &[Frame] {
        &self.frames
    }

    /// Record as one partition of a parallel run (`parallel.rs`): one
    /// frame more than the limit, whose time is the one
    /// [`CaptureFile::truncated_at`] reports if it is the first over the
    /// limit of the whole run ([`Capture::merge`]).
    pub(crate) fn partition(&mut self) {
        self.max_frames = self.max_frames.saturating_add(1);
    }

    /// The capture of a parallel run from its partitions': `frames`, all
    /// of them, in the order one run records them (by the event that
    /// recorded each), and the limit applied to them.
    pub(crate) fn merge(mut self, frames: Vec<Frame>) -> Capture {
        self.max_frames = self.limit;
        self.frames = frames;
        self.truncated_at = None;
        if self.frames.len() as u64 > self.limit {
            self.truncated_at = Some(self.frames[self.limit as usize].time);
            self.frames.truncate(self.limit as usize);
        }
        self
    }
}

/// Everything a capture recorded, in time order, with what writing it
/// needs.
#[derive(Clone, Debug)]
pub struct CaptureFile {
    /// The captured ports, in the order of the configuration.
    pub interfaces: Vec<Interface>,
    /// The frames, in time order (ties: in the order they were recorded).
    pub frames: Vec<Frame>,
    /// Bytes kept of each frame.
    pub snaplen: u32,
    /// When recording stopped because `max_frames` was reached.
    pub truncated_at: Option<Time>,
    /// What the headers are made of.
    pub(crate) ctx: frame::HeaderCtx,
}

impl CaptureFile {
    /// Write the capture as a pcapng file (one interface per captured
    /// port, nanosecond timestamps).
    pub fn write_pcapng(&self, w: &mut impl Write) -> io::Result<()> {
        pcapng::write_header(w, &self.interfaces, self.snaplen)?;
        for f in &self.frames {
            for (data, len) in frame::encode(f, &self.ctx, self.snaplen) {
                pcapng::write_packet(w, f.iface, f.time.ps() / 1000, f.inbound, &data, len)?;
            }
        }
        Ok(())
    }
}

impl Capture {
    /// A capture as `cfg` says, of a network with `ports` (whose trace
    /// bits it sets) and `flows`; fails, saying why, on a port that does
    /// not exist, a class out of range, a flow id no flow has or a zero
    /// snap length.
    pub(crate) fn new(
        cfg: &CaptureConfig,
        ports: &mut [Port],
        flows: &[FlowSpec],
    ) -> Result<Capture, String> {
        if cfg.snaplen == 0 {
            return Err("the snap length must be at least 1 byte".into());
        }
        let ids = port_ids(&cfg.ports, ports)?;
        let classes = match &cfg.classes {
            None => u8::MAX,
            Some(list) => {
                let mut m = 0u8;
                for &c in list {
                    if usize::from(c) >= N_CLASSES {
                        return Err(format!(
                            "class {c} does not exist (classes are 0 to {})",
                            N_CLASSES - 1
                        ));
                    }
                    m |= 1 << c;
                }
                m
            }
        };
        let flows = match &cfg.flows {
            None => Vec::new(),
            Some(list) => {
                let mut keep = vec![false; flows.len()];
                for &id in list {
                    let i = flows
                        .iter()
                        .position(|f| f.id == id)
                        .ok_or_else(|| format!("no flow has id {id}"))?;
                    keep[i] = true;
                }
                keep
            }
        };
        let mut iface_of = vec![[NONE; 2]; ports.len()];
        let mut interfaces = Vec::with_capacity(ids.len());
        for (i, &id) in ids.iter().enumerate() {
            let p = &ports[id as usize];
            interfaces.push(Interface {
                node: p.node,
                port: p.local,
                is_switch: !p.is_host,
                rate_bps: p.rate.0,
            });
            if cfg.direction != Direction::Rx {
                iface_of[id as usize][0] = i as u32;
            }
            if cfg.direction != Direction::Tx {
                iface_of[p.peer as usize][1] = i as u32;
            }
        }
        for (p, of) in ports.iter_mut().zip(&iface_of) {
            if *of != [NONE; 2] {
                p.trace |= TRACE_CAPTURE;
            }
        }
        Ok(Capture {
            start: cfg.start,
            stop: cfg.stop.unwrap_or(Time::MAX),
            classes,
            flows,
            max_frames: cfg.max_frames,
            limit: cfg.max_frames,
            iface_of,
            frames: Vec::new(),
            truncated_at: None,
            interfaces,
            snaplen: cfg.snaplen,
        })
    }

    /// What was captured, in time order, with what writing it needs;
    /// `ports` no longer hand their frames over.
    pub(crate) fn finish(self, ports: &mut [Port], flows: &[FlowSpec], mtu: u32) -> CaptureFile {
        for p in ports.iter_mut() {
            p.trace &= !TRACE_CAPTURE;
        }
        let mut frames = self.frames;
        // Sent frames are recorded in time order, received ones at their
        // (later) arrival: one stable sort puts them in order.
        frames.sort_by_key(|f| f.time);
        let ctx = frame::HeaderCtx {
            ends: ports
                .iter()
                .map(|p| {
                    let peer = &ports[p.peer as usize];
                    [(p.node, p.local), (peer.node, peer.local)]
                })
                .collect(),
            flow_ids: flows.iter().map(|f| f.id).collect(),
            flow_sizes: flows.iter().map(|f| f.size).collect(),
            mtu: mtu.max(1),
        };
        CaptureFile {
            interfaces: self.interfaces,
            frames,
            snaplen: self.snaplen,
            truncated_at: self.truncated_at,
            ctx,
        }
    }
}
