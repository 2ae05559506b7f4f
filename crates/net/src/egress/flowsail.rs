//! FlowSail's switch egress (FlowSail §IV, Alg. 1 and 2): K physical
//! queues, one of them the reserved isolation queue rsvQ (the last), the
//! normal-flow table NFT, the congested-flow table CFT and the queue table
//! QT, the hierarchical congested-flow identification and Order Mark
//! Matching.
//!
//! One object plays both roles of its port:
//! - **congested port** (downstream): each frame that joins a queue is
//!   checked against Q_l and Q_h of that queue (Alg. 1 l. 17–27) and, when
//!   the queue is between them, the flow's buffered bytes against the fair
//!   share `Q >> ⌈log2 flowNum⌉` (Eq. 1); a marked frame counts in its
//!   flow's `pauseNum`, and the 0→1 step sends PAUSE(flow) out of the port
//!   the frame came in by. The frame's departure takes the count down, and
//!   1→0 sends RESUME (Alg. 2 l. 1–14);
//! - **upstream port**: a PAUSE for this port's link puts its flow in the
//!   CFT; from then on its frames join rsvQ, which is paused while any of
//!   its flows is (`cfNum`); the flow's older frames still in a normal
//!   queue q1 keep their place, q1 is paused until the flow's first
//!   RESUME, and an Order Mark in q1 and one in rsvQ keep the flow in order
//!   (Alg. 2 l. 15–34, §IV-C).
//!
//! Where the paper is ambiguous rdmasim reads it as docs/flowsail.md
//! says: sizes and thresholds in bytes; Q is the queue's length before the
//! frame joins, the flow's `size` includes it; PAUSE only when this frame
//! made `pauseNum` 1; rsvQ's `flowNum` counts the flows with frames in it;
//! q1's pause is a count, taken back once by the flow's first RESUME; a
//! CFT entry leaves once resumed, empty, its Order Mark matched and idle
//! for `release_hrtts` HRTTs, checked when the flow next shows up (the
//! same outcome as a timer, as nothing reads the entry in between).

use super::hooks::Egress;
use super::kqueues::{ceil_log2, data_key, dec, flow_key, per_active, sub, FlowMap, KQueues, Slot};
use crate::fc::{AnyFc, FlowSailConfig, QueueMapping};
use crate::wire::{Packet, PacketKind, QueueKey};
use engine::{Delta, Rate, Rng, Time};

/// A normal flow's entry (NFT).
#[derive(Clone, Copy, Debug, Default)]
struct Nft {
    /// Its normal queue.
    q: u8,
    /// Its bytes in that queue.
    size: u64,
    /// Its frames there marked `ifCongested`.
    pause_num: u32,
}

/// A congested flow's entry (CFT).
#[derive(Clone, Copy, Debug)]
struct Cft {
    /// Its bytes in rsvQ.
    size: u64,
    /// PAUSEs less RESUMEs received: `status == paused` while above 0.
    net: u32,
    /// Its frames in rsvQ marked `ifCongested`.
    pause_num: u32,
    /// Last enqueue or dequeue of its frames (or its entry).
    stamp: Time,
    /// The normal queue its first PAUSE paused (it had frames there), until
    /// its first RESUME.
    q1: Option<u8>,
    /// Its Order Mark in q1 has not left yet.
    om_pending: bool,
    /// Which isolation of the flow this entry is (its Order Marks carry it).
    epoch: u32,
}

/// What a FlowSail port did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FlowSailStats {
    /// Frames marked `ifCongested` at this (congested) port.
    pub marked: u64,
    /// Of those, marked because the queue was above Q_h.
    pub marked_above_qh: u64,
    /// Flows put in the CFT (isolated in rsvQ) at this (upstream) port.
    pub isolated: u64,
    /// Order Mark pairs placed.
    pub order_marks: u64,
    /// Times rsvQ waited for an Order Mark's match.
    pub om_holds: u64,
    /// Most flows in the CFT at once.
    pub peak_cft: u64,
}

/// FlowSail's egress of one switch port.
#[derive(Clone, Debug)]
pub struct FlowSailEgress {
    k: KQueues,
    /// rsvQ's index: the last queue.
    rsv: usize,
    mapping: QueueMapping,
    /// Pause q1 on a flow's isolation (`FlowSailConfig::pause_q1`).
    pause_q1: bool,
    /// Q_h per number of active queues (Q_l is `k.th`).
    qh: Vec<u64>,
    /// How long a resumed, empty CFT entry stays.
    release: Delta,
    nft: FlowMap<Nft>,
    cft: FlowMap<Cft>,
    /// rsvQ waits at the Order Mark of (flow, epoch).
    hold: Option<(u32, u32)>,
    next_epoch: u32,
    stats: FlowSailStats,
}

impl FlowSailEgress {
    /// The egress of a port of `rate` whose link has `delay`, drawing its
    /// random mappings from `rng` (`cfg` as [`FlowSailConfig::check`]
    /// accepts).
    pub fn new(cfg: &FlowSailConfig, rate: Rate, delay: Delta, rng: Rng) -> FlowSailEgress {
        let hrtt = cfg.hrtt_at(delay);
        let k = KQueues::new(cfg.queues, rate, hrtt, cfg.ql_hbdp, rng);
        FlowSailEgress {
            rsv: k.k() - 1,
            qh: per_active(k.k(), rate, hrtt, cfg.qh_hbdp),
            k,
            mapping: cfg.mapping,
            pause_q1: cfg.pause_q1,
            release: Delta((hrtt.0 as f64 * cfg.release_hrtts) as u64),
            nft: FlowMap::default(),
            cft: FlowMap::default(),
            hold: None,
            next_epoch: 0,
            stats: FlowSailStats::default(),
        }
    }

    /// What it did.
    pub fn stats(&self) -> &FlowSailStats {
        &self.stats
    }

    /// rsvQ's index.
    pub fn rsv_queue(&self) -> usize {
        self.rsv
    }

    /// Bytes queued in queue `q`.
    pub fn queue_bytes(&self, q: usize) -> u64 {
        self.k.bytes[q]
    }

    /// Queue `q`'s flowNum.
    pub fn flow_num(&self, q: usize) -> u32 {
        self.k.flow_num[q]
    }

    /// Queue `q`'s pause counter cfNum.
    pub fn cf_num(&self, q: usize) -> u32 {
        self.k.cf_num[q]
    }

    /// Whether queue `q` may not send (paused, or rsvQ held by an Order
    /// Mark).
    pub fn is_blocked(&self, q: usize) -> bool {
        self.k.blocked & (1 << q) != 0
    }

    /// Whether rsvQ waits for an Order Mark's match.
    pub fn om_hold(&self) -> bool {
        self.hold.is_some()
    }

    /// The normal queue data flow `flow` is mapped to, if it has frames in
    /// one.
    pub fn normal_queue_of(&self, flow: u32) -> Option<usize> {
        self.nft.get(&data_key(flow)).map(|e| usize::from(e.q))
    }

    /// Whether data flow `flow` is in the CFT (its frames join rsvQ).
    pub fn is_congested(&self, flow: u32) -> bool {
        self.cft.contains_key(&data_key(flow))
    }

    /// `pauseNum` of data flow `flow`: (normal queue, rsvQ).
    pub fn pause_num(&self, flow: u32) -> (u32, u32) {
        let k = data_key(flow);
        (
            self.nft.get(&k).map_or(0, |e| e.pause_num),
            self.cft.get(&k).map_or(0, |e| e.pause_num),
        )
    }

    /// The flows (by id, with their frames' seq) in queue `q`, head first,
    /// and `None` for an Order Mark.
    pub fn contents(&self, q: usize) -> Vec<Option<(u32, u64)>> {
        self.k.q[q]
            .iter()
            .map(|s| match s {
                Slot::Frame { pkt, .. } => Some((pkt.flow, pkt.seq)),
                Slot::Mark { .. } => None,
            })
            .collect()
    }

    /// Every counter at rest (an idle port once every flow finished): no
    /// frame, active flow, pause, Order Mark or unresumed flow left.
    pub fn check_idle(&self) -> Result<(), String> {
        self.k.check_idle()?;
        if !self.nft.is_empty() || self.hold.is_some() {
            return Err(format!("{} normal flows left", self.nft.len()));
        }
        if let Some((f, e)) = self.cft.iter().find(|(_, e)| e.net > 0 || e.size > 0) {
            return Err(format!("congested flow {f} left: {e:?}"));
        }
        Ok(())
    }

    /// Whether CFT entry `e` may leave at `now` (§IV-C).
    fn releasable(&self, e: &Cft, now: Time) -> bool {
        e.net == 0 && e.size == 0 && !e.om_pending && now.since(e.stamp) > self.release
    }

    /// Whether data flow `flow` is in the CFT at `now`, releasing its
    /// entry first if it may leave.
    fn congested_now(&mut self, flow: u32, now: Time) -> bool {
        let key = data_key(flow);
        let Some(e) = self.cft.get(&key) else {
            return false;
        };
        if self.releasable(e, now) {
            self.cft.remove(&key);
            return false;
        }
        true
    }

    /// Settle the heads of queue `q` (and, through it, rsvQ): an Order
    /// Mark at a normal queue's head has matched and goes, releasing rsvQ
    /// if it waits for it; one at rsvQ's head waits for its match, or goes
    /// if it has matched.
    fn settle(&mut self, q: usize) {
        if q != self.rsv {
            let mut matched = false;
            while let Some(&Slot::Mark { flow, epoch }) = self.k.q[q].front() {
                self.k.pop(q);
                if let Some(e) = self.cft.get_mut(&data_key(flow)) {
                    if e.epoch == epoch {
                        e.om_pending = false;
                    }
                }
                if self.hold == Some((flow, epoch)) {
                    self.hold = None;
                    matched = true;
                }
            }
            if !matched {
                return;
            }
        }
        if self.hold.is_some() {
            return;
        }
        while let Some(&Slot::Mark { flow, epoch }) = self.k.q[self.rsv].front() {
            let waits = self
                .cft
                .get(&data_key(flow))
                .is_some_and(|e| e.epoch == epoch && e.om_pending);
            if waits {
                self.hold = Some((flow, epoch));
                self.stats.om_holds += 1;
                break;
            }
            self.k.pop(self.rsv);
        }
        let rsv = self.rsv;
        self.k
            .set_blocked(rsv, self.k.cf_num[rsv] > 0 || self.hold.is_some());
    }

    /// The bookkeeping of `pkt`, marked or not, leaving queue `q` (Alg. 2
    /// l. 1–14).
    fn departed(&mut self, now: Time, q: usize, pkt: &Packet, marked: bool) {
        let key = flow_key(pkt);
        let size = u64::from(pkt.size);
        let resume = if q == self.rsv {
            let e = self
                .cft
                .get_mut(&key)
                .expect("a frame in rsvQ has its CFT entry");
            sub(&mut e.size, size, "a congested flow's size");
            e.stamp = now;
            if marked {
                dec(&mut e.pause_num, "a congested flow's pauseNum");
            }
            let (resume, gone) = (marked && e.pause_num == 0, e.size == 0);
            if gone {
                self.k.flow_out(q);
            }
            resume
        } else {
            let e = self
                .nft
                .get_mut(&key)
                .expect("a frame in a normal queue has its NFT entry");
            sub(&mut e.size, size, "a normal flow's size");
            if marked {
                dec(&mut e.pause_num, "a normal flow's pauseNum");
            }
            let resume = marked && e.pause_num == 0;
            if e.size == 0 {
                debug_assert_eq!(e.pause_num, 0);
                self.nft.remove(&key);
                self.k.flow_out(q);
            }
            resume
        };
        if resume {
            self.k.signal(pkt.ingress, pkt.class, pkt.flow, false);
        }
    }

    /// The PAUSE of Alg. 2 l. 16–26 for data flow `flow`.
    fn paused(&mut self, now: Time, flow: u32) {
        let key = data_key(flow);
        if self.cft.get(&key).is_some_and(|e| self.releasable(e, now)) {
            self.cft.remove(&key);
        }
        if !self.cft.contains_key(&key) {
            let epoch = self.next_epoch;
            self.next_epoch = self.next_epoch.wrapping_add(1);
            let mut e = Cft {
                size: 0,
                net: 0,
                pause_num: 0,
                stamp: now,
                q1: None,
                om_pending: false,
                epoch,
            };
            // Still frames in its normal queue q1: an Order Mark behind
            // them and one in rsvQ, and q1 paused (l. 21–24) unless the
            // settings leave that to the Order Marks alone.
            if let Some(n) = self.nft.get(&key) {
                let q1 = usize::from(n.q);
                e.om_pending = true;
                self.k.push(q1, Slot::Mark { flow, epoch });
                self.k.push(self.rsv, Slot::Mark { flow, epoch });
                if self.pause_q1 {
                    e.q1 = Some(n.q);
                    self.k.pause(q1, true, false);
                }
                self.stats.order_marks += 1;
            }
            self.cft.insert(key, e);
            self.stats.isolated += 1;
            self.stats.peak_cft = self.stats.peak_cft.max(self.cft.len() as u64);
        }
        self.cft.get_mut(&key).expect("just put").net += 1;
        let rsv = self.rsv;
        let hold = self.hold.is_some();
        self.k.pause(rsv, true, hold);
        self.settle(rsv);
    }

    /// The RESUME of Alg. 2 l. 27–34 for data flow `flow`.
    fn resumed(&mut self, flow: u32) {
        let Some(e) = self.cft.get_mut(&data_key(flow)) else {
            debug_assert!(false, "flow {flow}: a RESUME without its PAUSE");
            return;
        };
        dec(&mut e.net, "a congested flow's PAUSE count");
        let q1 = e.q1.take();
        let rsv = self.rsv;
        let hold = self.hold.is_some();
        self.k.pause(rsv, false, hold);
        if let Some(q1) = q1 {
            self.k.pause(usize::from(q1), false, false);
        }
    }
}

impl Egress for FlowSailEgress {
    fn enqueue(&mut self, now: Time, pkt: &Packet) -> QueueKey {
        if pkt.class == 0 {
            self.k.urgent.push_back(*pkt);
            return QueueKey::of_class(0);
        }
        let data = pkt.kind == PacketKind::Data;
        let key = flow_key(pkt);
        let size = u64::from(pkt.size);
        // Alg. 1 l. 2–16: the flow's queue.
        let q = if data && self.congested_now(pkt.flow, now) {
            let e = self.cft.get_mut(&key).expect("congested");
            if e.size == 0 {
                self.k.flow_in(self.rsv);
            }
            e.size += size;
            e.stamp = now;
            self.rsv
        } else {
            let q = match self.nft.get(&key) {
                Some(e) => usize::from(e.q),
                None => {
                    let q = self.k.assign(self.rsv as u32, self.mapping);
                    self.k.flow_in(q);
                    self.nft.insert(
                        key,
                        Nft {
                            q: q as u8,
                            ..Nft::default()
                        },
                    );
                    q
                }
            };
            self.nft.get_mut(&key).expect("just put").size += size;
            q
        };
        // Alg. 1 l. 17–27: is this flow responsible for the congestion?
        let qlen = self.k.bytes[q];
        let n = self.k.n_active();
        let (ql, qh) = (self.k.th[n], self.qh[n]);
        let mut marked = false;
        if data && qlen > ql {
            let fsize = if q == self.rsv {
                self.cft[&key].size
            } else {
                self.nft[&key].size
            };
            let fair = qlen >> ceil_log2(self.k.flow_num[q]);
            marked = qlen > qh || fsize > fair;
            if marked && qlen > qh {
                self.stats.marked_above_qh += 1;
            }
        }
        if marked {
            self.stats.marked += 1;
            let pn = if q == self.rsv {
                &mut self.cft.get_mut(&key).expect("congested").pause_num
            } else {
                &mut self.nft.get_mut(&key).expect("normal").pause_num
            };
            *pn += 1;
            if *pn == 1 {
                self.k.signal(pkt.ingress, pkt.class, pkt.flow, true);
            }
        }
        self.k.push(q, Slot::Frame { pkt: *pkt, marked });
        QueueKey::of(pkt)
    }

    fn dequeue(&mut self, now: Time, _fc: &AnyFc) -> Option<Packet> {
        if let Some(p) = self.k.urgent.pop_front() {
            return Some(p);
        }
        let q = self.k.pick()?;
        let Some(Slot::Frame { pkt, marked }) = self.k.pop(q) else {
            unreachable!("a queue's head is a frame once settled");
        };
        self.departed(now, q, &pkt, marked);
        self.settle(q);
        Some(pkt)
    }

    fn pass(&mut self, now: Time, pkt: &Packet, _fc: &AnyFc) -> bool {
        if pkt.class == 0 {
            return true;
        }
        // Nothing is queued: the frame would join a queue at length 0,
        // be marked by nothing, and leave at once if that queue may send.
        let q = if pkt.kind == PacketKind::Data && self.congested_now(pkt.flow, now) {
            self.cft.get_mut(&flow_key(pkt)).expect("congested").stamp = now;
            self.rsv
        } else {
            match (self.mapping, self.k.empty_queue(self.rsv as u32)) {
                (QueueMapping::Shared, _) => 0,
                (QueueMapping::Dynamic, Some(q)) => q,
                // Every normal queue paused: a random one would be too.
                (QueueMapping::Dynamic, None) => return false,
            }
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

    /// Flow control never asks a FlowSail port to flush; if asked, it
    /// empties every queue, with the bookkeeping of each frame's
    /// departure (RESUMEs included).
    fn flush(&mut self, key: QueueKey, out: &mut Vec<Packet>) {
        while let Some(p) = self.k.urgent.pop_front() {
            out.push(p);
        }
        if key.class() == 0 {
            return;
        }
        for q in 0..self.k.k() {
            while let Some(s) = self.k.pop(q) {
                if let Slot::Frame { pkt, marked } = s {
                    self.departed(Time::ZERO, q, &pkt, marked);
                    out.push(pkt);
                }
            }
        }
        self.hold = None;
        for e in self.cft.values_mut() {
            e.om_pending = false;
        }
        let rsv = self.rsv;
        self.k.set_blocked(rsv, self.k.cf_num[rsv] > 0);
    }

    fn on_ctrl(&mut self, now: Time, frame: &Packet) {
        if frame.kind != PacketKind::FlowPause {
            return;
        }
        if frame.pauses_flow() {
            self.paused(now, frame.flow);
        } else {
            self.resumed(frame.flow);
        }
    }

    fn pop_upstream(&mut self) -> Option<(u16, Packet)> {
        self.k.up.pop_front()
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}
