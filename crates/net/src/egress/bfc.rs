//! BFC's switch egress (Goyal et al., "Backpressure Flow Control",
//! NSDI '22, §3), as FlowSail describes its baseline (FlowSail §II-B,
//! §VI): K physical queues; an active flow (one with frames queued here)
//! is mapped to an empty queue by a bitmap, or to a random queue when none
//! is empty, and shares that queue's fate.
//!
//! One object plays both roles of its port:
//! - **congested port** (downstream): a data frame that joins a queue
//!   longer than Th = HRTT · μ / N_active pauses its flow: PAUSE(flow) out
//!   of the port it came in by, once, and the flow is listed with the
//!   queue. When that queue drains to Th or below, every flow listed with
//!   it is resumed. So every flow that sends into a queue above the
//!   threshold is paused, the innocent ones beside the culprit too;
//! - **upstream port**: a PAUSE for this port's link pauses the queue that
//!   holds its flow (a count per queue, as BFC's pause counter per
//!   upstream queue), and the flow stays mapped to that queue while it is
//!   paused, frames or none; the RESUME takes the count down. Every other
//!   flow mapped to that queue waits too.
//!
//! BFC's frames name the upstream queue, which every packet carries from
//! hop to hop; rdmasim's PAUSE and RESUME name the flow, and the upstream
//! looks its queue up, which is the same queue (docs/flowsail.md).

use super::hooks::Egress;
use super::kqueues::{data_key, dec, flow_key, sub, FlowMap, KQueues, Slot};
use crate::fc::{AnyFc, BfcConfig, QueueMapping};
use crate::wire::{Packet, PacketKind, QueueKey};
use engine::{Delta, Rate, Rng, Time};

/// An active flow's entry.
#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    /// Its queue.
    q: u8,
    /// Its bytes there.
    size: u64,
    /// PAUSEs less RESUMEs the far end sent for it: it stays in `q` while
    /// above 0.
    paused: u32,
}

/// A flow this (congested) port paused: where its RESUME goes.
#[derive(Clone, Copy, Debug)]
struct Paused {
    ingress: u16,
    class: u8,
}

/// What a BFC port did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BfcStats {
    /// Flows paused by this (congested) port.
    pub pauses: u64,
    /// Most flows paused by this port at once.
    pub peak_paused: u64,
}

/// BFC's egress of one switch port.
#[derive(Clone, Debug)]
pub struct BfcEgress {
    k: KQueues,
    mapping: QueueMapping,
    flows: FlowMap<Entry>,
    /// Flows this port paused, and with which queue (`listed`).
    down: FlowMap<Paused>,
    listed: Vec<Vec<u32>>,
    stats: BfcStats,
}

impl BfcEgress {
    /// The egress of a port of `rate` whose link has `delay`, drawing its
    /// random mappings from `rng` (`cfg` as [`BfcConfig::check`] accepts).
    pub fn new(cfg: &BfcConfig, rate: Rate, delay: Delta, rng: Rng) -> BfcEgress {
        let k = KQueues::new(cfg.queues, rate, cfg.hrtt_at(delay), cfg.th_hbdp, rng);
        BfcEgress {
            listed: vec![Vec::new(); k.k()],
            k,
            mapping: cfg.mapping,
            flows: FlowMap::default(),
            down: FlowMap::default(),
            stats: BfcStats::default(),
        }
    }

    /// What it did.
    pub fn stats(&self) -> &BfcStats {
        &self.stats
    }

    /// Bytes queued in queue `q`.
    pub fn queue_bytes(&self, q: usize) -> u64 {
        self.k.bytes[q]
    }

    /// Queue `q`'s pause counter.
    pub fn cf_num(&self, q: usize) -> u32 {
        self.k.cf_num[q]
    }

    /// The queue data flow `flow` is mapped to, if it is active or paused.
    pub fn queue_of(&self, flow: u32) -> Option<usize> {
        self.flows.get(&data_key(flow)).map(|e| usize::from(e.q))
    }

    /// Flows this port has paused, ascending.
    pub fn paused_here(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self.down.keys().map(|&k| k as u32).collect();
        v.sort_unstable();
        v
    }

    /// Every counter at rest (an idle port once every flow finished).
    pub fn check_idle(&self) -> Result<(), String> {
        self.k.check_idle()?;
        if !self.flows.is_empty() || !self.down.is_empty() {
            return Err(format!(
                "{} flows mapped, {} paused here",
                self.flows.len(),
                self.down.len()
            ));
        }
        Ok(())
    }

    /// Queue `q` is at or below its threshold: resume the flows listed
    /// with it.
    fn maybe_resume(&mut self, q: usize) {
        if self.listed[q].is_empty() || self.k.bytes[q] > self.k.th[self.k.n_active()] {
            return;
        }
        let mut listed = std::mem::take(&mut self.listed[q]);
        for flow in listed.drain(..) {
            let p = self
                .down
                .remove(&data_key(flow))
                .expect("a listed flow is paused");
            self.k.signal(p.ingress, p.class, flow, false);
        }
        // Keep the list's allocation for the next time.
        self.listed[q] = listed;
    }

    fn departed(&mut self, q: usize, pkt: &Packet) {
        let key = flow_key(pkt);
        let e = self
            .flows
            .get_mut(&key)
            .expect("a queued frame's flow is mapped");
        sub(&mut e.size, u64::from(pkt.size), "a flow's size");
        if e.size == 0 && e.paused == 0 {
            self.flows.remove(&key);
            self.k.flow_out(q);
        }
    }
}

impl Egress for BfcEgress {
    fn enqueue(&mut self, _now: Time, pkt: &Packet) -> QueueKey {
        if pkt.class == 0 {
            self.k.urgent.push_back(*pkt);
            return QueueKey::of_class(0);
        }
        let key = flow_key(pkt);
        let q = match self.flows.get(&key) {
            Some(e) => usize::from(e.q),
            None => {
                let q = self.k.assign(self.k.k() as u32, self.mapping);
                self.k.flow_in(q);
                self.flows.insert(
                    key,
                    Entry {
                        q: q as u8,
                        ..Entry::default()
                    },
                );
                q
            }
        };
        self.flows.get_mut(&key).expect("just put").size += u64::from(pkt.size);
        let over = self.k.bytes[q] > self.k.th[self.k.n_active()];
        if over && pkt.kind == PacketKind::Data && !self.down.contains_key(&key) {
            self.down.insert(
                key,
                Paused {
                    ingress: pkt.ingress,
                    class: pkt.class,
                },
            );
            self.listed[q].push(pkt.flow);
            self.k.signal(pkt.ingress, pkt.class, pkt.flow, true);
            self.stats.pauses += 1;
            self.stats.peak_paused = self.stats.peak_paused.max(self.down.len() as u64);
        }
        self.k.push(
            q,
            Slot::Frame {
                pkt: *pkt,
                marked: false,
            },
        );
        QueueKey::of(pkt)
    }

    fn dequeue(&mut self, _now: Time, _fc: &AnyFc) -> Option<Packet> {
        if let Some(p) = self.k.urgent.pop_front() {
            return Some(p);
        }
        let q = self.k.pick()?;
        let Some(Slot::Frame { pkt, .. }) = self.k.pop(q) else {
            unreachable!("BFC queues hold frames only");
        };
        self.departed(q, &pkt);
        self.maybe_resume(q);
        Some(pkt)
    }

    fn pass(&mut self, _now: Time, pkt: &Packet, _fc: &AnyFc) -> bool {
        if pkt.class == 0 {
            return true;
        }
        let q = match (self.flows.get(&flow_key(pkt)), self.mapping) {
            (Some(e), _) => usize::from(e.q),
            (None, QueueMapping::Shared) => 0,
            (None, QueueMapping::Dynamic) => match self.k.empty_queue(self.k.k() as u32) {
                Some(q) => q,
                // No empty queue: the random one's fate is for enqueue.
                None => return false,
            },
        };
        if self.k.blocked & (1 << q) != 0 {
            return false;
        }
        self.k.served(q);
        true
    }

    fn has_backlog(&self) -> bool {
        self.k.has_backlog()
    }

    fn class_bytes(&self, class: usize) -> u64 {
        self.k.class_bytes(class)
    }

    fn class_head(&self, class: usize) -> Option<u32> {
        self.k.class_head(class)
    }

    /// Flow control never asks a BFC port to flush; if asked, it empties
    /// every queue, with each frame's departure bookkeeping.
    fn flush(&mut self, key: QueueKey, out: &mut Vec<Packet>) {
        while let Some(p) = self.k.urgent.pop_front() {
            out.push(p);
        }
        if key.class() == 0 {
            return;
        }
        for q in 0..self.k.k() {
            while let Some(Slot::Frame { pkt, .. }) = self.k.pop(q) {
                self.departed(q, &pkt);
                out.push(pkt);
            }
            self.maybe_resume(q);
        }
    }

    fn on_ctrl(&mut self, _now: Time, frame: &Packet) {
        if frame.kind != PacketKind::FlowPause {
            return;
        }
        let key = data_key(frame.flow);
        if frame.pauses_flow() {
            // The queue that holds the flow; a flow with nothing here is
            // given its queue now and kept there while paused.
            let q = match self.flows.get(&key) {
                Some(e) => usize::from(e.q),
                None => {
                    let q = self.k.assign(self.k.k() as u32, self.mapping);
                    self.k.flow_in(q);
                    self.flows.insert(
                        key,
                        Entry {
                            q: q as u8,
                            ..Entry::default()
                        },
                    );
                    q
                }
            };
            self.flows.get_mut(&key).expect("mapped").paused += 1;
            self.k.pause(q, true, false);
        } else {
            let Some(e) = self.flows.get_mut(&key) else {
                debug_assert!(false, "flow {}: a RESUME without its PAUSE", frame.flow);
                return;
            };
            dec(&mut e.paused, "a flow's PAUSE count");
            let (q, gone) = (usize::from(e.q), e.paused == 0 && e.size == 0);
            if gone {
                self.flows.remove(&key);
                self.k.flow_out(q);
            }
            self.k.pause(q, false, false);
        }
    }

    fn pop_upstream(&mut self) -> Option<(u16, Packet)> {
        self.k.up.pop_front()
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}
