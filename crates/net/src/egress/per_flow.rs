//! One queue per flow, served round robin: an egress that never mixes two
//! flows in one FIFO and drops nothing (the switch's MMU still admits or
//! drops at the ingress). Class 0 (control and high-priority ACKs) keeps
//! strict priority in a queue of its own; the flows of every other class
//! take turns, one frame each, in the order they first arrived, each asked
//! of flow control by its flow key.
//!
//! It is the smallest per-flow scheme, the one docs/architecture.md adds as
//! its worked example, and a fair-queueing reference for the per-flow flow
//! controls to compare with.

use super::hooks::Egress;
use crate::fc::{AnyFc, FlowControl};
use crate::fifo::Fifo;
use crate::wire::{Packet, QueueKey};
use engine::Time;
use std::collections::{HashMap, VecDeque};

/// Per-flow queues and the round robin over them.
#[derive(Clone, Debug, Default)]
pub struct PerFlowEgress {
    /// Class 0, in strict priority.
    urgent: Fifo<Packet>,
    /// Each flow's frames, by flow id; a flow leaves the map when its
    /// queue empties.
    flows: HashMap<u32, Fifo<Packet>>,
    /// Flows with frames, in round-robin order: the next to serve first.
    turn: VecDeque<u32>,
}

impl PerFlowEgress {
    /// Flows with frames queued here.
    pub fn active_flows(&self) -> usize {
        self.turn.len()
    }
}

impl Egress for PerFlowEgress {
    fn enqueue(&mut self, _now: Time, pkt: &Packet) -> QueueKey {
        if pkt.class == 0 {
            self.urgent.push_back(*pkt);
            return QueueKey::of_class(0);
        }
        let q = self.flows.entry(pkt.flow).or_default();
        if q.is_empty() {
            self.turn.push_back(pkt.flow);
        }
        q.push_back(*pkt);
        QueueKey::of(pkt)
    }

    fn dequeue(&mut self, now: Time, fc: &AnyFc) -> Option<Packet> {
        if let Some(p) = self.urgent.pop_front() {
            return Some(p);
        }
        // The first flow in turn that flow control lets send; the ones
        // skipped keep their place.
        let at = self.turn.iter().position(|f| {
            let head = self.flows[f].front().expect("a flow in turn has frames");
            fc.may_send(now, QueueKey::of(head), head.size)
        })?;
        let flow = self.turn.remove(at).expect("found");
        let q = self
            .flows
            .get_mut(&flow)
            .expect("a flow in turn has a queue");
        let p = q.pop_front().expect("non-empty");
        if q.is_empty() {
            self.flows.remove(&flow);
        } else {
            self.turn.push_back(flow);
        }
        Some(p)
    }

    fn pass(&mut self, now: Time, pkt: &Packet, fc: &AnyFc) -> bool {
        pkt.class == 0 || fc.may_send(now, QueueKey::of(pkt), pkt.size)
    }

    fn has_backlog(&self) -> bool {
        !self.urgent.is_empty() || !self.turn.is_empty()
    }

    fn class_bytes(&self, class: usize) -> u64 {
        let bytes = |q: &Fifo<Packet>| q.iter().map(|p| u64::from(p.size)).sum::<u64>();
        if class == 0 {
            return bytes(&self.urgent);
        }
        self.flows
            .values()
            .filter(|q| q.front().is_some_and(|p| usize::from(p.class) == class))
            .map(bytes)
            .sum()
    }

    fn class_head(&self, class: usize) -> Option<u32> {
        if class == 0 {
            return self.urgent.front().map(|p| p.size);
        }
        self.turn
            .iter()
            .filter_map(|f| self.flows[f].front())
            .find(|p| usize::from(p.class) == class)
            .map(|p| p.size)
    }

    fn flush(&mut self, key: QueueKey, out: &mut Vec<Packet>) {
        let drain = |q: &mut Fifo<Packet>, out: &mut Vec<Packet>| {
            while let Some(p) = q.pop_front() {
                out.push(p);
            }
        };
        match (key.class(), key.flow()) {
            (0, _) => drain(&mut self.urgent, out),
            (_, Some(flow)) => {
                if let Some(mut q) = self.flows.remove(&flow) {
                    drain(&mut q, out);
                    self.turn.retain(|&f| f != flow);
                }
            }
            (class, None) => {
                let flows: Vec<u32> = self
                    .turn
                    .iter()
                    .copied()
                    .filter(|f| {
                        self.flows[f]
                            .front()
                            .is_some_and(|p| usize::from(p.class) == class)
                    })
                    .collect();
                for f in flows {
                    self.flush(QueueKey::of_flow(class as u8, f), out);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fc::{Lossy, Pfc, PfcMode};
    use crate::wire::PacketKind;
    use engine::Rate;

    fn frame(class: u8, flow: u32, seq: u64) -> Packet {
        let mut p = Packet::pfc(0, 0);
        p.kind = PacketKind::Data;
        p.class = class;
        p.flow = flow;
        p.seq = seq;
        p.size = 1000;
        p
    }

    fn drain(e: &mut PerFlowEgress, fc: &AnyFc) -> Vec<(u32, u64)> {
        std::iter::from_fn(|| e.dequeue(Time::ZERO, fc))
            .map(|p| (p.flow, p.seq))
            .collect()
    }

    #[test]
    fn flows_take_turns_one_frame_each_in_order_of_arrival() {
        let mut e = PerFlowEgress::default();
        // Flow 7 sends a burst of three before flows 8 and 9 arrive.
        for (f, s) in [(7, 0), (7, 1), (7, 2), (8, 0), (9, 0), (8, 1)] {
            e.enqueue(Time::ZERO, &frame(3, f, s));
        }
        e.enqueue(Time::ZERO, &frame(0, 99, 0));
        assert_eq!(e.active_flows(), 3);
        let order = drain(&mut e, &AnyFc::Lossy(Lossy));
        assert_eq!(
            order,
            [(99, 0), (7, 0), (8, 0), (9, 0), (7, 1), (8, 1), (7, 2)]
        );
        assert!(!e.has_backlog());
    }

    #[test]
    fn a_paused_class_keeps_its_flows_in_turn() {
        let mut pfc = Pfc::new(PfcMode::UntilResume, Rate::gbps(100), false);
        let mut out = crate::fc::FcOutbox::default();
        pfc.on_ctrl(Time::ZERO, &Packet::pfc(3, 5), Rate::gbps(100), &mut out);
        let fc = AnyFc::Pfc(pfc);
        let mut e = PerFlowEgress::default();
        e.enqueue(Time::ZERO, &frame(3, 1, 0));
        e.enqueue(Time::ZERO, &frame(4, 2, 0));
        e.enqueue(Time::ZERO, &frame(4, 2, 1));
        assert_eq!(drain(&mut e, &fc), [(2, 0), (2, 1)]);
        assert_eq!(e.class_head(3), Some(1000));
        assert_eq!(e.class_bytes(3), 1000);
        assert!(!e.pass(Time::ZERO, &frame(3, 5, 0), &fc));
        let mut gone = Vec::new();
        e.flush(QueueKey::of_class(3), &mut gone);
        assert_eq!(gone.len(), 1);
        assert!(!e.has_backlog());
    }
}
