//! Eight priority classes per port: class 0 (control, high-priority ACKs)
//! in strict priority, then round robin over classes 1–7 whose flow
//! control lets them send (the peer's `DequeueRR`). Every switch port has
//! one unless its rule chooses another egress.

use super::hooks::Egress;
use crate::fc::{AnyFc, FlowControl};
use crate::fifo::Fifo;
use crate::wire::{Packet, QueueKey, N_CLASSES};
use engine::Time;

/// The class scheduler's two bytes of scheduling state. The port keeps
/// them in its first line ([`super::EgressHead`]), which every hop reads
/// anyway, rather than beside the queues: a frame that passes an idle
/// egress then touches no line of the egress at all, and one that is
/// queued only its own class's (docs/performance.md, "The architecture
/// step").
#[derive(Clone, Copy, Debug, Default)]
pub struct ClassHead {
    /// Bit `c` set iff `queues[c]` is not empty.
    backlog: u8,
    /// The class the round robin served last.
    rr_last: u8,
}

/// The class scheduler's queues, one 32-byte FIFO per class: with them at
/// the start of a cache line, two classes share a line.
pub type ClassQueues = [Fifo<Packet>; N_CLASSES];

/// Queue `pkt` in its class.
#[inline(always)]
pub(super) fn enqueue(head: &mut ClassHead, queues: &mut ClassQueues, pkt: &Packet) -> QueueKey {
    let class = pkt.class;
    queues[usize::from(class)].push_back(*pkt);
    head.backlog |= 1 << class;
    QueueKey::of_class(class)
}

/// Class 0 first, then round robin from the class after the last served
/// over the classes with frames that flow control lets send.
#[inline(always)]
pub(super) fn dequeue(
    head: &mut ClassHead,
    queues: &mut ClassQueues,
    now: Time,
    fc: &AnyFc,
) -> Option<Packet> {
    let class = if head.backlog & 1 != 0 {
        0
    } else {
        // Round robin from rr_last + 1 over the non-empty classes: a
        // bitmask rotated so that bit i is class rr_last + 1 + i; ask flow
        // control only about classes with frames.
        let backlog = u32::from(head.backlog);
        let shift = (usize::from(head.rr_last) + 1) % N_CLASSES;
        let both = backlog | (backlog << N_CLASSES);
        let mut rot = (both >> shift) & ((1 << N_CLASSES) - 1);
        let mut found = None;
        while rot != 0 {
            let c = (shift + rot.trailing_zeros() as usize) % N_CLASSES;
            let front = queues[c].front().expect("a backlogged class");
            if fc.may_send(now, QueueKey::of(front), front.size) {
                found = Some(c);
                break;
            }
            rot &= rot - 1;
        }
        let c = found?;
        head.rr_last = c as u8;
        c
    };
    let queue = &mut queues[class];
    let pkt = queue.pop_front().expect("non-empty");
    if queue.is_empty() {
        head.backlog &= !(1 << class);
    }
    Some(pkt)
}

/// May `pkt` leave an idle, empty egress at once? Class 0 is never gated,
/// and its dequeue leaves the round robin where it was.
#[inline(always)]
pub(super) fn pass(head: &mut ClassHead, now: Time, pkt: &Packet, fc: &AnyFc) -> bool {
    if pkt.class != 0 {
        if !fc.may_send(now, QueueKey::of(pkt), pkt.size) {
            return false;
        }
        head.rr_last = pkt.class;
    }
    true
}

/// Whether any class has frames.
#[inline(always)]
pub(super) fn has_backlog(head: &ClassHead) -> bool {
    head.backlog != 0
}

/// Bytes queued in `class`.
pub(super) fn class_bytes(queues: &ClassQueues, class: usize) -> u64 {
    queues[class].iter().map(|p| u64::from(p.size)).sum()
}

/// Remove the frames of `key` (a class, or one flow of it), in order.
pub(super) fn flush(
    head: &mut ClassHead,
    queues: &mut ClassQueues,
    key: QueueKey,
    out: &mut Vec<Packet>,
) {
    let class = key.class();
    let queue = &mut queues[class];
    match key.flow() {
        None => {
            while let Some(p) = queue.pop_front() {
                out.push(p);
            }
        }
        Some(flow) => {
            // Keep the class's other flows, in order.
            let mut kept = Fifo::new();
            while let Some(p) = queue.pop_front() {
                if p.flow == flow {
                    out.push(p);
                } else {
                    kept.push_back(p);
                }
            }
            *queue = kept;
        }
    }
    if queues[class].is_empty() {
        head.backlog &= !(1 << class);
    }
}

/// The class scheduler as one value: what a port runs split between its
/// first line (the head) and its egress (the queues), whole here for use
/// on its own.
#[derive(Clone, Debug, Default)]
pub struct ClassEgress {
    head: ClassHead,
    queues: ClassQueues,
}

impl ClassEgress {
    /// The frames queued in `class`, oldest first.
    pub fn class_queue(&self, class: usize) -> impl Iterator<Item = &Packet> {
        self.queues[class].iter()
    }
}

impl Egress for ClassEgress {
    fn enqueue(&mut self, _now: Time, pkt: &Packet) -> QueueKey {
        enqueue(&mut self.head, &mut self.queues, pkt)
    }
    fn dequeue(&mut self, now: Time, fc: &AnyFc) -> Option<Packet> {
        dequeue(&mut self.head, &mut self.queues, now, fc)
    }
    fn pass(&mut self, now: Time, pkt: &Packet, fc: &AnyFc) -> bool {
        pass(&mut self.head, now, pkt, fc)
    }
    fn has_backlog(&self) -> bool {
        has_backlog(&self.head)
    }
    fn class_bytes(&self, class: usize) -> u64 {
        class_bytes(&self.queues, class)
    }
    fn class_head(&self, class: usize) -> Option<u32> {
        self.queues[class].front().map(|p| p.size)
    }
    fn flush(&mut self, key: QueueKey, out: &mut Vec<Packet>) {
        flush(&mut self.head, &mut self.queues, key, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fc::{Lossy, Pfc};
    use crate::wire::PacketKind;
    use engine::Rate;

    fn frame(class: u8, flow: u32) -> Packet {
        let mut p = Packet::pfc(0, 0);
        p.kind = PacketKind::Data;
        p.class = class;
        p.flow = flow;
        p.size = 1000 + flow;
        p
    }

    #[test]
    fn class_zero_first_then_round_robin_over_the_others() {
        let mut e = ClassEgress::default();
        let fc = AnyFc::Lossy(Lossy);
        for (c, f) in [(3, 1), (3, 2), (5, 3), (0, 4), (1, 5)] {
            assert_eq!(e.enqueue(Time::ZERO, &frame(c, f)), QueueKey::of_class(c));
        }
        let order: Vec<u32> = std::iter::from_fn(|| e.dequeue(Time::ZERO, &fc))
            .map(|p| p.flow)
            .collect();
        // 0 first; then from class 1 on: 1, 3, 5, and 3 again.
        assert_eq!(order, [4, 5, 1, 3, 2]);
        assert!(!e.has_backlog());
    }

    #[test]
    fn a_paused_class_is_skipped_and_a_pass_moves_the_round_robin() {
        let mut e = ClassEgress::default();
        let mut pfc = Pfc::new(crate::fc::PfcMode::UntilResume, Rate::gbps(100), false);
        let mut out = crate::fc::FcOutbox::default();
        pfc.on_ctrl(Time::ZERO, &Packet::pfc(3, 5), Rate::gbps(100), &mut out);
        let fc = AnyFc::Pfc(pfc);
        e.enqueue(Time::ZERO, &frame(3, 1));
        e.enqueue(Time::ZERO, &frame(4, 2));
        let p = e.dequeue(Time::ZERO, &fc).unwrap();
        assert_eq!(p.flow, 2);
        assert!(e.dequeue(Time::ZERO, &fc).is_none(), "class 3 is paused");
        assert!(e.has_backlog());
        // A frame of class 6 passing an idle egress: the round robin then
        // starts after 6.
        let mut e = ClassEgress::default();
        let lossy = AnyFc::Lossy(Lossy);
        assert!(e.pass(Time::ZERO, &frame(6, 9), &lossy));
        assert!(!e.pass(Time::ZERO, &frame(3, 9), &fc), "class 3 is paused");
        e.enqueue(Time::ZERO, &frame(5, 1));
        e.enqueue(Time::ZERO, &frame(7, 2));
        let p = e.dequeue(Time::ZERO, &lossy).unwrap();
        assert_eq!(p.flow, 2);
    }

    #[test]
    fn flush_removes_a_class_or_one_flow_of_it() {
        let mut e = ClassEgress::default();
        for f in [1, 2, 1, 3] {
            e.enqueue(Time::ZERO, &frame(3, f));
        }
        e.enqueue(Time::ZERO, &frame(4, 7));
        let mut out = Vec::new();
        e.flush(QueueKey::of_flow(3, 1), &mut out);
        assert_eq!(out.iter().map(|p| p.flow).collect::<Vec<_>>(), [1, 1]);
        assert_eq!(e.class_queue(3).map(|p| p.flow).collect::<Vec<_>>(), [2, 3]);
        out.clear();
        e.flush(QueueKey::of_class(3), &mut out);
        assert_eq!(out.len(), 2);
        assert_eq!(e.class_bytes(3), 0);
        assert!(e.has_backlog(), "class 4 is still queued");
        e.flush(QueueKey::of_class(4), &mut out);
        assert!(!e.has_backlog());
    }
}
