//! What BFC's and FlowSail's egresses share (`bfc.rs`, `flowsail.rs`): K
//! physical FIFO queues per port (K ≤ 128), served round robin one frame
//! at a time among those that hold frames and are not paused; class 0 in
//! strict priority ahead of them; the bitmap of empty queues a new active
//! flow is mapped by; the per-queue pause counters; the control frames
//! the egress decided to send upstream; and the thresholds per number of
//! active queues, computed once when the port is built (the switch's
//! match-action table indexed by N_active, FlowSail §IV-B).
//!
//! Every per-queue state is a word or a bit: the masks are `u128`, one bit
//! per queue, so "which queue is empty", "how many queues are active" and
//! "which queue is next" are a few instructions each, and a packet's hop
//! allocates nothing once the queues and tables have grown to their
//! working size.

use crate::fc::QueueMapping;
use crate::fifo::Fifo;
use crate::wire::{Packet, PacketKind};
use engine::{Rate, Rng};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A multiplicative hash of a flow key: the tables are keyed by small
/// integers, for which SipHash costs more than the rest of a lookup.
#[derive(Clone, Copy, Debug, Default)]
pub struct FlowHasher(u64);

impl Hasher for FlowHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0 ^ x)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(29);
    }
}

/// A table keyed by flow ([`flow_key`]).
pub type FlowMap<V> = HashMap<u64, V, BuildHasherDefault<FlowHasher>>;

/// The key of `pkt`'s flow in the tables: its flow id, and apart from the
/// data frames of that id the other frames that travel under it in a data
/// class (a NIC's ACKs without `ack_high_prio`).
#[inline]
pub fn flow_key(pkt: &Packet) -> u64 {
    u64::from(pkt.flow) | (u64::from(pkt.kind != PacketKind::Data) << 32)
}

/// The key of data flow `flow`.
#[inline]
pub fn data_key(flow: u32) -> u64 {
    u64::from(flow)
}

/// What a queue holds: a frame with its `ifCongested` mark (FlowSail
/// Alg. 1 l. 19, 23: set at enqueue, read at dequeue), or an Order Mark
/// (FlowSail §IV-C), which takes no bytes and never leaves on the wire.
#[derive(Clone, Copy, Debug)]
pub enum Slot {
    /// A frame.
    Frame {
        /// The frame.
        pkt: Packet,
        /// Marked at enqueue (it paused its flow upstream).
        marked: bool,
    },
    /// An Order Mark of `flow`'s isolation number `epoch`.
    Mark {
        /// The flow.
        flow: u32,
        /// Which isolation of the flow it belongs to.
        epoch: u32,
    },
}

/// Take one from a counter that must be above 0 (debug builds check it:
/// a counter that went below 0 would be a leaked pause).
#[inline]
pub fn dec(x: &mut u32, what: &str) {
    debug_assert!(*x > 0, "{what} would go below 0");
    *x = x.saturating_sub(1);
}

/// Take `n` from a byte count that must hold it (checked in debug builds).
#[inline]
pub fn sub(x: &mut u64, n: u64, what: &str) {
    debug_assert!(*x >= n, "{what}: {n} B out of {x} B");
    *x = x.saturating_sub(n);
}

/// `⌈log2 n⌉` for n ≥ 1 (FlowSail Eq. 1: counting significant bits).
#[inline]
pub fn ceil_log2(n: u32) -> u32 {
    debug_assert!(n >= 1);
    32 - (n.max(1) - 1).leading_zeros()
}

/// K queues and their per-queue state.
#[derive(Clone, Debug)]
pub struct KQueues {
    /// The queues.
    pub q: Vec<Fifo<Slot>>,
    /// Bytes of frames in each queue (Order Marks take none).
    pub bytes: Vec<u64>,
    /// Active flows mapped to each queue (FlowSail's QT.flowNum).
    pub flow_num: Vec<u32>,
    /// Pause counter of each queue (FlowSail's QT.cfNum; BFC's paused
    /// flows per queue): paused while above 0.
    pub cf_num: Vec<u32>,
    /// Queues holding frames.
    pub nonempty: u128,
    /// Queues with flows mapped (`flow_num > 0`).
    pub has_flows: u128,
    /// Queues that may not send: paused, or (rsvQ) held by an Order Mark.
    pub blocked: u128,
    /// The queue the round robin looks at first.
    rr: u32,
    /// Class 0, in strict priority.
    pub urgent: Fifo<Packet>,
    /// Control frames to send upstream: (ingress local port, frame).
    pub up: Fifo<(u16, Packet)>,
    /// The mapping's random draws.
    pub rng: Rng,
    /// A threshold in bytes per number of active queues (index 1..=K).
    pub th: Vec<u64>,
}

impl KQueues {
    /// `k` empty queues; `th_hbdp`: the threshold in hop BDPs (HRTT at
    /// `rate`), divided by N_active for each entry of [`KQueues::th`].
    pub fn new(k: u32, rate: Rate, hrtt: engine::Delta, th_hbdp: f64, rng: Rng) -> KQueues {
        debug_assert!((1..=128).contains(&k));
        let k = k as usize;
        KQueues {
            q: (0..k).map(|_| Fifo::new()).collect(),
            bytes: vec![0; k],
            flow_num: vec![0; k],
            cf_num: vec![0; k],
            nonempty: 0,
            has_flows: 0,
            blocked: 0,
            rr: 0,
            urgent: Fifo::new(),
            up: Fifo::new(),
            rng,
            th: per_active(k, rate, hrtt, th_hbdp),
        }
    }

    /// Queues.
    #[inline]
    pub fn k(&self) -> usize {
        self.q.len()
    }

    /// N_active: queues that hold frames and are not paused, at least 1
    /// (BFC §3; FlowSail §IV-B, read as BFC defines it).
    #[inline]
    pub fn n_active(&self) -> usize {
        ((self.nonempty & !self.blocked).count_ones() as usize).max(1)
    }

    /// The queue a new active flow gets among the first `normal` queues:
    /// an empty one (no flow mapped, not paused), the lowest first, else
    /// one drawn uniformly (BFC §3; FlowSail Alg. 1 l. 9–13).
    pub fn assign(&mut self, normal: u32, mapping: QueueMapping) -> usize {
        match mapping {
            QueueMapping::Shared => 0,
            QueueMapping::Dynamic => match self.empty_queue(normal) {
                Some(q) => q,
                None => self.rng.below(u64::from(normal)) as usize,
            },
        }
    }

    /// The empty queue [`KQueues::assign`] would take, if there is one
    /// (draws nothing).
    #[inline]
    pub fn empty_queue(&self, normal: u32) -> Option<usize> {
        let m = low_bits(normal) & !self.has_flows & !self.blocked;
        (m != 0).then(|| m.trailing_zeros() as usize)
    }

    /// One more active flow in queue `q`.
    #[inline]
    pub fn flow_in(&mut self, q: usize) {
        self.flow_num[q] += 1;
        self.has_flows |= 1 << q;
    }

    /// One active flow fewer in queue `q`.
    #[inline]
    pub fn flow_out(&mut self, q: usize) {
        dec(&mut self.flow_num[q], "a queue's flowNum");
        if self.flow_num[q] == 0 {
            self.has_flows &= !(1 << q);
        }
    }

    /// Queue `q`'s pause counter up (`up`) or down by one; `extra`: a
    /// block of its own besides the counter (rsvQ's Order Mark hold).
    pub fn pause(&mut self, q: usize, up: bool, extra: bool) {
        if up {
            self.cf_num[q] += 1;
        } else {
            dec(&mut self.cf_num[q], "a queue's pause counter (cfNum)");
        }
        self.set_blocked(q, self.cf_num[q] > 0 || extra);
    }

    /// Mark queue `q` as blocked or not.
    #[inline]
    pub fn set_blocked(&mut self, q: usize, blocked: bool) {
        if blocked {
            self.blocked |= 1 << q;
        } else {
            self.blocked &= !(1 << q);
        }
    }

    /// Append `slot` to queue `q`.
    #[inline]
    pub fn push(&mut self, q: usize, slot: Slot) {
        if let Slot::Frame { pkt, .. } = slot {
            self.bytes[q] += u64::from(pkt.size);
            self.nonempty |= 1 << q;
        }
        self.q[q].push_back(slot);
    }

    /// Take the head of queue `q`.
    #[inline]
    pub fn pop(&mut self, q: usize) -> Option<Slot> {
        let s = self.q[q].pop_front()?;
        if let Slot::Frame { pkt, .. } = s {
            sub(&mut self.bytes[q], u64::from(pkt.size), "a queue's length");
            if self.bytes[q] == 0 {
                self.nonempty &= !(1 << q);
            }
        }
        Some(s)
    }

    /// The next queue the round robin serves, if any may send; it moves
    /// past it.
    #[inline]
    pub fn pick(&mut self) -> Option<usize> {
        let m = self.nonempty & !self.blocked;
        if m == 0 {
            return None;
        }
        let later = m & (!0u128 << self.rr);
        let q = if later != 0 { later } else { m }.trailing_zeros();
        self.rr = (q + 1) % self.k() as u32;
        Some(q as usize)
    }

    /// The round robin as if queue `q` had just been served (a frame that
    /// passes an idle port).
    #[inline]
    pub fn served(&mut self, q: usize) {
        self.rr = (q as u32 + 1) % self.k() as u32;
    }

    /// Ask for `frame` to be sent out of local port `ingress`.
    #[inline]
    pub fn signal(&mut self, ingress: u16, class: u8, flow: u32, pause: bool) {
        self.up
            .push_back((ingress, Packet::flow_pause(class, flow, pause)));
    }

    /// Whether any frame is queued.
    pub fn has_backlog(&self) -> bool {
        !self.urgent.is_empty() || self.nonempty != 0
    }

    /// Bytes of `class` queued.
    pub fn class_bytes(&self, class: usize) -> u64 {
        if class == 0 {
            return self.urgent.iter().map(|p| u64::from(p.size)).sum();
        }
        self.frames()
            .filter(|p| usize::from(p.class) == class)
            .map(|p| u64::from(p.size))
            .sum()
    }

    /// The size of the first frame of `class` in queue order.
    pub fn class_head(&self, class: usize) -> Option<u32> {
        if class == 0 {
            return self.urgent.front().map(|p| p.size);
        }
        self.frames()
            .find(|p| usize::from(p.class) == class)
            .map(|p| p.size)
    }

    fn frames(&self) -> impl Iterator<Item = &Packet> + '_ {
        self.q
            .iter()
            .flat_map(|q| q.iter())
            .filter_map(|s| match s {
                Slot::Frame { pkt, .. } => Some(pkt),
                Slot::Mark { .. } => None,
            })
    }

    /// Every counter back at rest: no frame, flow, pause or signal left.
    /// What an idle port must show once every flow finished.
    pub fn check_idle(&self) -> Result<(), String> {
        for i in 0..self.k() {
            if self.bytes[i] != 0 || self.flow_num[i] != 0 || self.cf_num[i] != 0 {
                return Err(format!(
                    "queue {i}: {} B, flowNum {}, cfNum {}",
                    self.bytes[i], self.flow_num[i], self.cf_num[i]
                ));
            }
        }
        if self.blocked != 0 || !self.up.is_empty() {
            return Err("a queue is still blocked, or a signal unsent".into());
        }
        Ok(())
    }
}

/// The lowest `n` bits.
#[inline]
fn low_bits(n: u32) -> u128 {
    if n >= 128 {
        !0
    } else {
        (1u128 << n) - 1
    }
}

/// `hbdp` hop BDPs of `rate` over `hrtt`, divided by each number of active
/// queues 1..=k (index 0 unused, as 1).
pub fn per_active(k: usize, rate: Rate, hrtt: engine::Delta, hbdp: f64) -> Vec<u64> {
    let bytes = hbdp * rate.bytes_in(hrtt) as f64;
    (0..=k).map(|n| (bytes / n.max(1) as f64) as u64).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fair_share_shift_rounds_the_flow_count_up_to_a_power_of_two() {
        let shares: Vec<u64> = (1..=9).map(|n| 1000u64 >> ceil_log2(n)).collect();
        // 3 flows get a quarter each, not a third: stricter than Q / n.
        assert_eq!(shares, [1000, 500, 250, 250, 125, 125, 125, 125, 62]);
    }

    #[test]
    fn round_robin_serves_the_unblocked_queues_in_turn() {
        let mut k = KQueues::new(
            4,
            Rate::gbps(100),
            engine::Delta(2_000_000),
            1.0,
            Rng::stream(1, 1, 1),
        );
        let mut p = Packet::flow_pause(3, 0, true);
        p.kind = PacketKind::Data;
        p.size = 100;
        for q in [0, 1, 3] {
            k.push(
                q,
                Slot::Frame {
                    pkt: p,
                    marked: false,
                },
            );
            k.push(
                q,
                Slot::Frame {
                    pkt: p,
                    marked: false,
                },
            );
        }
        k.pause(1, true, false);
        assert_eq!(k.n_active(), 2);
        let mut order = Vec::new();
        while let Some(q) = k.pick() {
            k.pop(q);
            order.push(q);
        }
        assert_eq!(order, [0, 3, 0, 3]);
        k.pause(1, false, false);
        assert_eq!(k.pick(), Some(1));
        assert_eq!(k.th[1], 25_000);
        assert_eq!(k.th[4], 6_250);
    }

    #[test]
    fn a_new_flow_takes_the_lowest_empty_unpaused_queue_else_a_random_one() {
        let mut k = KQueues::new(
            4,
            Rate::gbps(100),
            engine::Delta(2_000_000),
            1.0,
            Rng::stream(1, 1, 1),
        );
        k.flow_in(0);
        k.pause(1, true, false);
        assert_eq!(k.assign(3, QueueMapping::Dynamic), 2);
        k.flow_in(2);
        // Queue 3 is not among the 3 normal ones: all taken or paused.
        let mut seen = [false; 3];
        for _ in 0..64 {
            seen[k.assign(3, QueueMapping::Dynamic)] = true;
        }
        assert_eq!(seen, [true; 3]);
        assert_eq!(k.assign(3, QueueMapping::Shared), 0);
        k.flow_out(0);
        assert_eq!(k.empty_queue(3), Some(0));
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "flowNum would go below 0")]
    fn a_flow_count_below_zero_is_caught() {
        let mut k = KQueues::new(
            2,
            Rate::gbps(100),
            engine::Delta(2_000_000),
            1.0,
            Rng::stream(1, 1, 1),
        );
        k.flow_out(0);
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "cfNum) would go below 0")]
    fn a_pause_count_below_zero_is_caught() {
        let mut k = KQueues::new(
            2,
            Rate::gbps(100),
            engine::Delta(2_000_000),
            1.0,
            Rng::stream(1, 1, 1),
        );
        k.pause(1, false, false);
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "a queue's length")]
    fn a_queue_length_below_zero_is_caught() {
        let mut q = 100u64;
        sub(&mut q, 200, "a queue's length");
    }
}
