//! Eight priority classes per port: class 0 (control, high-priority ACKs)
//! in strict priority, then round robin over classes 1–7 whose flow
//! control lets them send (the peer's `DequeueRR`). Every switch port has
//! one unless its rule chooses another egress.

use super::hooks::Egress;
use crate::fc::{AnyFc, FlowControl};
use crate::fifo::Fifo;
use crate::wire::{Packet, QueueKey, N_CLASSES};
use engine::Time;

/// The class scheduler's state. (`repr(C)`: the bitmask and round-robin
/// position first, padded so that, after [`super::AnyEgress`]'s tag, the
/// 32-byte queues start 32 bytes into the egress: with the egress at the
/// start of a cache line, the tag, this head and class 0 share its first
/// line, and every other class shares a line with one neighbour, so a hop
/// touches the head's line and its own class's.)
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct ClassEgress {
    /// Bit `c` set iff `queues[c]` is not empty.
    backlog: u8,
    /// The class the round robin served last.
    rr_last: u8,
    _pad: [u8; 22],
    queues: [Fifo<Packet>; N_CLASSES],
}

impl ClassEgress {
    /// The frames queued in `class`, oldest first.
    pub fn class_queue(&self, class: usize) -> impl Iterator<Item = &Packet> {
        self.queues[class].iter()
    }
}

impl Egress for ClassEgress {
    #[inline(always)]
    fn enqueue(&mut self, pkt: &Packet) -> QueueKey {
        let class = pkt.class;
        self.queues[usize::from(class)].push_back(*pkt);
        self.backlog |= 1 << class;
        QueueKey::of_class(class)
    }

    #[inline(always)]
    fn dequeue(&mut self, now: Time, fc: &AnyFc) -> Option<Packet> {
        let class = if self.backlog & 1 != 0 {
            0
        } else {
            // Round robin from rr_last + 1 over the non-empty classes: a
            // bitmask rotated so that bit i is class rr_last + 1 + i; ask
            // flow control only about classes with frames.
            let backlog = u32::from(self.backlog);
            let shift = (usize::from(self.rr_last) + 1) % N_CLASSES;
            let both = backlog | (backlog << N_CLASSES);
            let mut rot = (both >> shift) & ((1 << N_CLASSES) - 1);
            let mut found = None;
            while rot != 0 {
                let c = (shift + rot.trailing_zeros() as usize) % N_CLASSES;
                let head = self.queues[c].front().expect("a backlogged class");
                if fc.may_send(now, QueueKey::of(head), head.size) {
                    found = Some(c);
                    break;
                }
                rot &= rot - 1;
            }
            let c = found?;
            self.rr_last = c as u8;
            c
        };
        let queue = &mut self.queues[class];
        let pkt = queue.pop_front().expect("non-empty");
        if queue.is_empty() {
            self.backlog &= !(1 << class);
        }
        Some(pkt)
    }

    #[inline(always)]
    fn pass(&mut self, now: Time, pkt: &Packet, fc: &AnyFc) -> bool {
        // Class 0 is never gated, and its dequeue leaves the round robin
        // where it was.
        if pkt.class != 0 {
            if !fc.may_send(now, QueueKey::of(pkt), pkt.size) {
                return false;
            }
            self.rr_last = pkt.class;
        }
        true
    }

    #[inline(always)]
    fn has_backlog(&self) -> bool {
        self.backlog != 0
    }

    fn class_bytes(&self, class: usize) -> u64 {
        self.queues[class].iter().map(|p| u64::from(p.size)).sum()
    }

    fn class_head(&self, class: usize) -> Option<u32> {
        self.queues[class].front().map(|p| p.size)
    }

    fn flush(&mut self, key: QueueKey, out: &mut Vec<Packet>) {
        let class = key.class();
        let queue = &mut self.queues[class];
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
        if self.queues[class].is_empty() {
            self.backlog &= !(1 << class);
        }
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
            assert_eq!(e.enqueue(&frame(c, f)), QueueKey::of_class(c));
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
        e.enqueue(&frame(3, 1));
        e.enqueue(&frame(4, 2));
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
        e.enqueue(&frame(5, 1));
        e.enqueue(&frame(7, 2));
        let p = e.dequeue(Time::ZERO, &lossy).unwrap();
        assert_eq!(p.flow, 2);
    }

    #[test]
    fn flush_removes_a_class_or_one_flow_of_it() {
        let mut e = ClassEgress::default();
        for f in [1, 2, 1, 3] {
            e.enqueue(&frame(3, f));
        }
        e.enqueue(&frame(4, 7));
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
