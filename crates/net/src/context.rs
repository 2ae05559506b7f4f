//! What a device's handler reaches beyond its own state: the clock, the
//! event queue and an outbox (Parsimon's `minim` hands its entities the
//! same). A switch's or NIC's handler is given its own state (the switch
//! and its ports; the NIC, its port and the queue pairs of its flows),
//! the read-only configuration, and a `Ctx`; it reaches nothing else. A
//! parallel engine gives each partition of the network its own `Ctx`.

use crate::event::Event;
use crate::fc::FcOutbox;
use crate::int_pool::IntPool;
use crate::port::TxLogEntry;
use crate::qlen::QlenMonitor;
use crate::results::PfcLogEntry;
use engine::{EventQueue, Time};

/// The clock, the event queue, and what handlers leave for others.
#[derive(Debug)]
pub(crate) struct Ctx {
    /// The time of the event being handled.
    pub now: Time,
    pub q: EventQueue<Event>,
    /// What a flow-control hook asks for; its port's device applies it at
    /// once (`Switch::apply_fc_outbox`, `Host::apply_fc_outbox`).
    pub outbox: FcOutbox,
    /// Ports of the device at hand that may start a frame, last pushed
    /// first. The device empties it before its handler returns.
    pub kick: Vec<u32>,
    /// INT stacks of packets in flight (HPCC), by `Packet::int`.
    pub int_pool: IntPool,
    /// Bodies of the PFC-free transport's software ACK frames in flight.
    pub soft_acks: crate::transport::pfc_free::AckBodies,
    /// The peer's queue-length monitor, when configured: told of every
    /// change of an egress's queued bytes.
    pub qlen: Option<Box<QlenMonitor>>,
    /// Log each PFC frame received into `pfc_log`.
    pub record_pfc: bool,
    pub pfc_log: Vec<PfcLogEntry>,
    /// Frames started by ports of traced nodes.
    pub tx_log: Vec<TxLogEntry>,
    /// The packet capture, when configured (`capture/`): told of every
    /// frame a port with [`crate::port::TRACE_CAPTURE`] starts.
    pub capture: Option<Box<crate::capture::Capture>>,
    /// Flows whose last byte was acknowledged, in that order.
    pub completed: Vec<u32>,
    /// Events handled.
    pub events: u64,
    /// Frames delivered by a link.
    pub packet_hops: u64,
}

impl Ctx {
    /// A context at time zero with `q` and nothing logged.
    pub(crate) fn new(q: EventQueue<Event>, qlen: Option<Box<QlenMonitor>>, flows: usize) -> Ctx {
        Ctx {
            now: Time::ZERO,
            q,
            outbox: FcOutbox::default(),
            kick: Vec::new(),
            int_pool: IntPool::default(),
            soft_acks: Default::default(),
            qlen,
            record_pfc: false,
            pfc_log: Vec::new(),
            tx_log: Vec::new(),
            capture: None,
            completed: Vec::with_capacity(flows),
            events: 0,
            packet_hops: 0,
        }
    }

    /// Tell the queue-length monitor, if on, that the queued bytes of
    /// egress `port` are about to change from `old_bytes`.
    #[inline(always)]
    pub(crate) fn before_queue_change(&mut self, port: u32, old_bytes: u64) {
        if let Some(m) = self.qlen.as_mut() {
            m.before_change(port, self.now, old_bytes);
        }
    }
}
