//! A link direction: the port that sends puts a frame on the wire, where
//! it stays, in a FIFO, until it reaches the far end (htsim's pipe). Only
//! the FIFO's head has a pending `LinkDeliver`; a port has at most one
//! pending `TxDone`.

use crate::context::Ctx;
use crate::event::Event;
use crate::port::{Port, TxLogEntry, TRACE_CAPTURE, TRACE_LOG};
use crate::wire::{InFlight, Packet, PacketKind};
use engine::Delta;

impl Port {
    /// Put `pkt` on the wire of this port (global id `id`), which is idle.
    /// `device_idle`: whether its device has nothing else to send from it
    /// when the frame ends (a NIC with nothing to send; always for a
    /// switch, whose queues the port holds). Inlined into its callers: a
    /// frame's start is on every hop's path.
    #[inline(always)]
    pub(crate) fn transmit(&mut self, id: u32, pkt: &Packet, device_idle: bool, cx: &mut Ctx) {
        let now = cx.now;
        debug_assert!(!self.busy);
        self.busy = true;
        let tx = if self.ps_per_byte != 0 {
            Delta(u64::from(pkt.size) * u64::from(self.ps_per_byte))
        } else {
            self.rate.tx_time(u64::from(pkt.size))
        };
        self.c.tx_bytes += u64::from(pkt.size);
        let arrive = now + tx + self.delay;
        self.flight.push_back(InFlight { arrive, pkt: *pkt });
        let first_in_flight = self.flight.len() == 1;
        // With nothing else to send, the end of this frame usually finds
        // the port still empty and only clears `busy`. Do not schedule it;
        // schedule it only if a frame comes (whatever gives the port
        // something to send calls `try_send`, which does it:
        // `device::may_start`). Ties pop in the events' own order, so a
        // late push pops where an early one would have. A
        // `try_send` after its time treats the port as idle. Results are
        // unchanged; about a third fewer events. A host's NIC says whether
        // it has nothing at all to send (no ACK queued, every active QP
        // sent all its bytes and has nothing to resend), where its dequeue
        // would return nothing and arm no pacing wake-up.
        let end = now + tx;
        // `queue_bytes` is 0 exactly when the egress has no backlog.
        debug_assert!(
            self.is_host || (self.queue_bytes == 0) != self.egress.has_backlog(&self.egress_head)
        );
        if device_idle && self.ctrl.is_empty() && self.queue_bytes == 0 {
            self.unscheduled_end = end;
        } else {
            cx.q.push(end, Event::TxDone { port: id });
        }
        if first_in_flight {
            cx.q.push(arrive, Event::LinkDeliver { port: id });
        }
        if self.trace != 0 {
            self.log_tx(id, pkt, arrive, cx);
        }
    }

    /// Log `pkt`, which this port (global id `id`) starts to send now and
    /// which reaches the far end at `arrive`: into the log of a traced
    /// node, and into the packet capture.
    #[inline(never)]
    fn log_tx(&self, id: u32, pkt: &Packet, arrive: engine::Time, cx: &mut Ctx) {
        if self.trace & TRACE_CAPTURE != 0 {
            if let Some(c) = cx.capture.as_mut() {
                c.record(id, cx.now, arrive, pkt);
            }
        }
        if self.trace & TRACE_LOG == 0 {
            return;
        }
        cx.tx_log.push(TxLogEntry {
            time: cx.now,
            node: self.node,
            port: self.local,
            kind: pkt.kind,
            flow: pkt.flow,
            // A PFC frame carries its quanta in `seq`; the log keeps 0.
            seq: if pkt.kind == PacketKind::Pfc {
                0
            } else {
                pkt.seq
            },
        });
    }

    /// The frame at the head of the wire of this port (global id `id`)
    /// reaches the far end now: take it off, and schedule the next one's
    /// arrival.
    #[inline(always)]
    pub(crate) fn deliver(&mut self, id: u32, cx: &mut Ctx) -> Packet {
        let InFlight { arrive: at, pkt } = self
            .flight
            .pop_front()
            .expect("a pending delivery has a frame");
        debug_assert_eq!(at, cx.now);
        if let Some(&InFlight { arrive: next, .. }) = self.flight.front() {
            cx.q.push(next, Event::LinkDeliver { port: id });
        }
        cx.packet_hops += 1;
        pkt
    }

    /// Whether the link's error model corrupts the frame just delivered.
    #[inline]
    pub(crate) fn corrupts(&mut self) -> bool {
        self.error_rate > 0.0 && self.rng.uniform() < self.error_rate
    }
}
