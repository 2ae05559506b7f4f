//! What every device (switch or NIC) does with a port of its own: decide
//! whether it may start a frame, apply what its flow control emitted, hear
//! a control frame, flush a queue. The devices (`switch.rs`, `nic.rs`)
//! call these from their handlers; a port's link is `link.rs`.

use crate::cache;
use crate::context::Ctx;
use crate::event::Event;
use crate::fc::FlowControl;
use crate::port::Port;
use crate::results::PfcLogEntry;
use crate::wire::{Packet, PacketKind, QueueKey};
use engine::{EventQueue, Time};

/// Whether port `p` (global id `id`) may start a frame now: not
/// transmitting (once the end of a transmission that was not scheduled
/// has passed, the port is idle), up and not held. A port still
/// transmitting whose end was not scheduled gets its `TxDone` now, which
/// pops where it would have if `transmit` had pushed it: someone has
/// something to send when it ends.
#[inline]
pub(crate) fn may_start(p: &mut Port, q: &mut EventQueue<Event>, now: Time, id: u32) -> bool {
    if p.busy {
        let at = p.unscheduled_end;
        if at == Time::MAX {
            return false;
        }
        p.unscheduled_end = Time::MAX;
        // Would the TxDone that `transmit` skipped have popped already?
        // Then it found nothing to send (nothing was queued since, or we
        // would have scheduled it then): the port is idle.
        let passed = at < now || q.has_passed(at, &Event::TxDone { port: id });
        if !passed {
            // Someone wants to send while the frame is on the wire:
            // the TxDone is needed, in its original place.
            push_late_done(q, id, at);
            return false;
        }
        p.busy = false;
    }
    p.up && !p.held
}

/// `may_start`'s push of a skipped `TxDone`, out of line: the queue's
/// insertion inlined there made every call to it (several per frame)
/// save and restore registers it rarely needs.
#[inline(never)]
fn push_late_done(q: &mut EventQueue<Event>, port: u32, at: Time) {
    q.push(at, Event::TxDone { port });
}

/// Ask the cache for the lines of local port `local` (of the ports at
/// `ports`) that a frame's enqueue or pass and its transmission read: the
/// first line, the link's (frames on the wire) and the counters'.
#[inline(always)]
pub(crate) fn prefetch_egress(ports: *const Port, local: usize) {
    let p = ports.wrapping_add(local).cast::<u8>();
    cache::prefetch(p);
    cache::prefetch(p.wrapping_add(std::mem::offset_of!(Port, line1)));
    cache::prefetch(p.wrapping_add(std::mem::offset_of!(Port, line2)));
}

/// Apply what a flow-control hook of local port `local` (of a device
/// whose ports, from global id `first`, are `ports`) put in the outbox:
/// frames to send here or out of another port of the device, a timer to
/// arm, a wake-up. Returns the queues it asked to flush, which need the
/// device (a switch releases their frames from its buffer).
pub(crate) fn take_fc_outbox(
    ports: &mut [Port],
    first: u32,
    local: usize,
    cx: &mut Ctx,
) -> Vec<QueueKey> {
    let now = cx.now;
    let mut out = std::mem::take(&mut cx.outbox);
    // Frames relayed out of another port go first (a Swing relay sends on
    // what it receives before it acts on it).
    for (to, f) in out.forward.drain(..) {
        ports[(to - first) as usize].ctrl.push_back(f);
        cx.kick.push(to);
    }
    let flush = std::mem::take(&mut out.flush);
    let port = first + local as u32;
    let p = &mut ports[local];
    let mut kick = out.wake;
    for f in out.frames.drain(..) {
        p.ctrl.push_back(f);
        kick = true;
    }
    if let Some(t) = out.timer.take() {
        p.fc_version = p.fc_version.wrapping_add(1);
        let version = p.fc_version;
        cx.q.push(t.max(now), Event::FcTimer { port, version });
    }
    out.wake = false;
    cx.outbox = out;
    if kick {
        cx.kick.push(port);
    }
    flush
}

/// A control frame arrives at port `p`: log it if asked, and let the
/// port's flow control and egress act on it (they govern what `p` may
/// send). The device then applies the outbox and tries to send.
pub(crate) fn hear_ctrl(p: &mut Port, pkt: &Packet, cx: &mut Ctx) {
    let now = cx.now;
    if cx.record_pfc && pkt.kind == PacketKind::Pfc {
        cx.pfc_log.push(PfcLogEntry {
            time: now,
            node: p.node,
            is_switch: !p.is_host,
            // The peer's device index: port 0 is its loopback.
            if_index: u32::from(p.local) + 1,
            pause: pkt.pfc_quanta() > 0,
        });
    }
    let rate = p.rate;
    p.fc.on_ctrl(now, pkt, rate, &mut cx.outbox);
    p.egress.on_ctrl(&p.egress_head, now, pkt);
}

/// Empty the queue `key` of port `p`'s (global id `id`) egress, counting
/// its frames in `flushed`; returns them, for the device to release.
pub(crate) fn flush_port(p: &mut Port, id: u32, key: QueueKey, cx: &mut Ctx) -> Vec<Packet> {
    let mut gone = Vec::new();
    p.egress.flush(&mut p.egress_head, key, &mut gone);
    if gone.is_empty() {
        return gone;
    }
    cx.before_queue_change(id, p.queue_bytes);
    p.queue_bytes -= gone.iter().map(|f| u64::from(f.size)).sum::<u64>();
    p.c.flushed += gone.len() as u64;
    gone
}
