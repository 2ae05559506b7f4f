//! The event queue: a calendar of 256 ps buckets over the next ~4.2 µs, and
//! a binary heap for events further ahead.
//!
//! Events pop in order of `(time, event)`: ties between events at the same
//! picosecond are broken by the events' own order (`E: Ord`), a key that
//! depends only on what the event is, not on when or by whom it was
//! pushed. A simulation cut into partitions, each with a queue of its own,
//! pops every partition's events in the same relative order as one queue
//! holding them all would: the order of ties does not depend on the
//! partitioning (`docs/parallel.md`, "The tie key"). Two pending events
//! that are equal in time and value are interchangeable, so their order
//! does not matter.
//!
//! # Structure
//!
//! * **Near**: [`SLOTS`] buckets of `2^SHIFT` ps form a ring covering
//!   `[cur, cur + SLOTS)` in bucket units, where `cur` is the bucket of the
//!   last event popped that emptied its bucket (it may lag the bucket being
//!   popped; events it does not cover yet wait in the heap, which changes
//!   nothing in the order). A bucket is a linked list of nodes (in one slab)
//!   sorted by `(time, event)`. A bitmap marks the non-empty buckets, and
//!   `head` is the bucket of the earliest event, so `peek_time` and `pop`
//!   cost O(1); when a bucket empties, the bitmap finds the next one.
//! * **Far**: events at or beyond the window's end wait in a binary heap
//!   keyed on `(time, event)`. Whenever `cur` advances, the heap's events
//!   that the window now covers move into their buckets.
//!
//! Wherever an event waits, it pops in `(time, event)` order: a bucket's
//! list is sorted by it and the heap is keyed on it. A push compares times
//! first; only an equal time compares the events.
//!
//! A packet simulation keeps its events within a few microseconds of now
//! (serialisation: tens of ns; propagation: ~1 µs in a datacenter), so most
//! events never touch the heap; the bucket width is about one event per
//! bucket at the reference run's density (~5 events per ns). Long timers
//! and long-haul links use the heap, which costs what a binary heap does.
//!
//! Events must not be scheduled before the time of the last event popped
//! (checked in debug builds; a push into a bucket before the current one
//! panics in every build). An event pushed at the current time that is
//! lower than the event being handled is allowed: it pops next, before
//! every pending event above it.
//!
//! # Events not pushed
//!
//! A caller may skip pushing an event that usually turns out to do
//! nothing (a switch port's end of transmission when nothing waits behind
//! the frame) and push it later only if it is needed after all: since the
//! key is the event itself, a late push pops exactly where an early one
//! would have. [`EventQueue::has_passed`] says whether that place has been
//! passed already (the event would have popped by now).

use crate::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Bucket width: `2^SHIFT` picoseconds.
const SHIFT: u32 = 8;
/// Buckets in the near window (a power of two): 16,384 × 256 ps ≈ 4.19 µs.
const SLOTS: usize = 1 << 14;
const WORDS: usize = SLOTS / 64;
/// No node.
const NIL: u32 = u32::MAX;

/// An event of the far heap, ordered earliest first.
#[derive(Debug)]
struct Far<E> {
    time: u64,
    ev: E,
}

impl<E: Ord> PartialEq for Far<E> {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl<E: Ord> Eq for Far<E> {}
impl<E: Ord> PartialOrd for Far<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E: Ord> Ord for Far<E> {
    fn cmp(&self, o: &Self) -> Ordering {
        // Reversed: BinaryHeap is a max-heap, we want the earliest first.
        (o.time, &o.ev).cmp(&(self.time, &self.ev))
    }
}

/// A near event: a node of its bucket's list, or of the free list.
///
/// Aligned to 32 bytes, so that no node straddles two cache lines: a pop
/// reads the time and the event of a node that is usually out of the
/// cache, and with the slab's 8-byte alignment some nodes would cost two
/// misses.
#[derive(Debug)]
#[repr(align(32))]
struct Node<E> {
    time: u64,
    next: u32,
    /// The event; a free node keeps the last one it held (events are
    /// `Copy`, so `pop` copies it out instead of taking an `Option`).
    ev: E,
}

/// A min-queue of events ordered by time, then by the events' own order.
/// Events are `Copy` (small ids; see the module doc).
#[derive(Debug)]
pub struct EventQueue<E> {
    /// Nodes of the near events and free nodes.
    nodes: Vec<Node<E>>,
    /// First free node, `NIL` if none.
    free: u32,
    /// Per slot: first and last node of its bucket, `NIL` if empty.
    ends: Box<[(u32, u32); SLOTS]>,
    /// One bit per slot: the bucket is not empty.
    bits: Box<[u64; WORDS]>,
    /// Bucket of the last event popped that emptied its bucket (or of the
    /// far event the window jumped to): the window is `[cur, cur + SLOTS)`.
    cur: u64,
    /// Bucket of the earliest near event, `u64::MAX` when `near == 0`: a
    /// push then only compares its bucket with it.
    head: u64,
    /// Events in the near buckets.
    near: usize,
    /// Events beyond the window.
    far: BinaryHeap<Far<E>>,
    /// Time of `far`'s earliest event, `u64::MAX` if it is empty: when the
    /// window advances, an inline comparison with it says whether
    /// [`EventQueue::migrate`] has anything to move.
    far_top: u64,
    /// The highest `(time, event)` popped so far (`None` before the first
    /// pop): the queue's place in the order. An event pushed at the
    /// current time below it pops without moving it.
    passed: Option<(u64, E)>,
    /// Time of the last event popped (debug check of the caller).
    #[cfg(debug_assertions)]
    last: u64,
}

impl<E: Copy + Ord> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy + Ord> EventQueue<E> {
    /// An empty queue.
    pub fn new() -> Self {
        EventQueue {
            nodes: Vec::new(),
            free: NIL,
            // Arrays of their fixed sizes, not `Vec`s: a slot masked with
            // `SLOTS - 1` indexes them with no bounds check.
            ends: vec![(NIL, NIL); SLOTS]
                .into_boxed_slice()
                .try_into()
                .expect("SLOTS slots"),
            bits: vec![0; WORDS]
                .into_boxed_slice()
                .try_into()
                .expect("WORDS words"),
            cur: 0,
            head: u64::MAX,
            near: 0,
            far: BinaryHeap::new(),
            far_top: u64::MAX,
            passed: None,
            #[cfg(debug_assertions)]
            last: 0,
        }
    }

    /// Schedule `ev` at `at`, which must not be before the time of the last
    /// event popped.
    #[inline(always)]
    pub fn push(&mut self, at: Time, ev: E) {
        #[cfg(debug_assertions)]
        debug_assert!(at.0 >= self.last, "event scheduled in the past");
        let bucket = at.0 >> SHIFT;
        if bucket.wrapping_sub(self.cur) < SLOTS as u64 {
            self.insert_near(at.0, bucket, ev);
        } else {
            assert!(bucket >= self.cur, "event scheduled in the past");
            self.far.push(Far { time: at.0, ev });
            self.far_top = self.far_top.min(at.0);
        }
    }

    /// Whether an event `ev` at `at`, had it been pushed, would have
    /// popped by now: `(at, ev)` is not above the highest `(time, event)`
    /// popped (module doc, "Events not pushed"). Meaningful for an event
    /// that was above it when it was skipped (a later time, for instance).
    #[inline]
    pub fn has_passed(&self, at: Time, ev: &E) -> bool {
        match &self.passed {
            None => false,
            Some((t, e)) => at.0 < *t || (at.0 == *t && ev <= e),
        }
    }

    /// Remove and return the earliest event.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        self.pop_not_after(Time(u64::MAX))
    }

    /// Remove and return the earliest event if it is not later than
    /// `until`; `None` (nothing removed) if the queue is empty or its
    /// earliest event is later. (A simulation's loop does this with one
    /// look at the bucket instead of a `peek_time` and a `pop`.)
    #[inline(always)]
    pub fn pop_not_after(&mut self, until: Time) -> Option<(Time, E)> {
        if self.near == 0 {
            // Everything is far ahead: jump the window to the earliest.
            let t = self.far.peek()?.time;
            if t > until.0 {
                return None;
            }
            self.cur = t >> SHIFT;
            self.migrate();
        }
        let slot = (self.head as usize) & (SLOTS - 1);
        let idx = self.ends[slot].0;
        let n = &mut self.nodes[idx as usize];
        let t = n.time;
        if t > until.0 {
            return None;
        }
        let ev = n.ev;
        let next = n.next;
        n.next = self.free;
        self.free = idx;
        self.near -= 1;
        // Most pops are later than every earlier one: one comparison.
        let advance = match &self.passed {
            Some((pt, pe)) => t > *pt || (t == *pt && ev > *pe),
            None => true,
        };
        if advance {
            self.passed = Some((t, ev));
        }
        if next == NIL {
            self.ends[slot] = (NIL, NIL);
            self.bits[slot / 64] &= !(1u64 << (slot % 64));
            if self.near > 0 {
                // The buckets after `head` in ring order are later ones.
                let s = self.next_slot(slot);
                self.head += ((s + SLOTS - slot) % SLOTS) as u64;
            } else {
                self.head = u64::MAX;
            }
            // The window advances only here, when a bucket empties, not
            // on the first pop from each bucket: that saves a comparison
            // on every pop. Between the two, `cur` lags the bucket being
            // popped; every pending event is still at or after it, and
            // the far heap holds events a little longer (module doc).
            self.cur = t >> SHIFT;
            if self.far_top >> SHIFT < self.cur + SLOTS as u64 {
                self.migrate();
            }
        } else {
            self.ends[slot].0 = next;
        }
        #[cfg(debug_assertions)]
        {
            self.last = t;
        }
        Some((Time(t), ev))
    }

    /// The earliest event in the near window, without removing it (`None`
    /// if the window is empty). A caller may prefetch what that event will
    /// touch while it handles the one it just popped; an event pushed in
    /// between may still pop first.
    #[inline(always)]
    pub fn peek_near(&self) -> Option<&E> {
        if self.near == 0 {
            return None;
        }
        let idx = self.ends[(self.head as usize) & (SLOTS - 1)].0;
        Some(&self.nodes[idx as usize].ev)
    }

    /// The earliest event and its time, without removing it (`None` if
    /// the queue is empty). Events in the near window are all earlier than
    /// those in the far heap.
    pub fn peek(&self) -> Option<(Time, E)> {
        if self.near > 0 {
            let first = &self.nodes[self.ends[(self.head as usize) & (SLOTS - 1)].0 as usize];
            Some((Time(first.time), first.ev))
        } else {
            self.far.peek().map(|f| (Time(f.time), f.ev))
        }
    }

    /// The time of the earliest event.
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        if self.near > 0 {
            let first = self.ends[(self.head as usize) & (SLOTS - 1)].0;
            Some(Time(self.nodes[first as usize].time))
        } else {
            self.far.peek().map(|f| Time(f.time))
        }
    }

    /// Events pending.
    pub fn len(&self) -> usize {
        self.near + self.far.len()
    }

    /// Whether nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Put an event into its near bucket, in `(time, event)` order (after
    /// the equal ones).
    #[inline(always)]
    fn insert_near(&mut self, t: u64, bucket: u64, ev: E) {
        let idx = if self.free != NIL {
            let i = self.free;
            let n = &mut self.nodes[i as usize];
            self.free = n.next;
            *n = Node {
                time: t,
                next: NIL,
                ev,
            };
            i
        } else {
            assert!(self.nodes.len() < NIL as usize, "too many pending events");
            self.nodes.push(Node {
                time: t,
                next: NIL,
                ev,
            });
            (self.nodes.len() - 1) as u32
        };
        let slot = (bucket as usize) & (SLOTS - 1);
        let (first, last) = self.ends[slot];
        if first == NIL {
            self.ends[slot] = (idx, idx);
            self.bits[slot / 64] |= 1u64 << (slot % 64);
        } else if not_after(&self.nodes[last as usize], t, &ev) {
            self.nodes[last as usize].next = idx;
            self.ends[slot].1 = idx;
        } else if !not_after(&self.nodes[first as usize], t, &ev) {
            // Before the bucket's first event (about half the insertions
            // that are not at the end): no walk, no call.
            self.nodes[idx as usize].next = first;
            self.ends[slot].0 = idx;
        } else {
            self.insert_before_later(first, t, idx);
        }
        // `head` is `u64::MAX` when the near buckets are empty.
        self.head = self.head.min(bucket);
        self.near += 1;
    }

    /// Link node `idx` (time `t`) before the first node of the bucket that
    /// is later in `(time, event)`; the bucket's last node is, its first
    /// is not.
    #[cold]
    fn insert_before_later(&mut self, first: u32, t: u64, idx: u32) {
        let ev = self.nodes[idx as usize].ev;
        let mut prev = first;
        let mut cur = self.nodes[first as usize].next;
        while not_after(&self.nodes[cur as usize], t, &ev) {
            prev = cur;
            cur = self.nodes[cur as usize].next;
        }
        self.nodes[idx as usize].next = cur;
        self.nodes[prev as usize].next = idx;
    }

    /// Move the far events the window now covers into their buckets.
    #[inline]
    fn migrate(&mut self) {
        let end = self.cur + SLOTS as u64;
        while let Some(top) = self.far.peek() {
            let t = top.time;
            if t >> SHIFT >= end {
                break;
            }
            let f = self.far.pop().expect("peeked");
            self.insert_near(t, t >> SHIFT, f.ev);
        }
        self.far_top = self.far.peek().map_or(u64::MAX, |f| f.time);
    }

    /// The first non-empty slot at or after `from` in ring order; there must
    /// be one.
    #[inline]
    fn next_slot(&self, from: usize) -> usize {
        let mut w = from / 64;
        let mut word = self.bits[w] & (!0u64 << (from % 64));
        loop {
            if word != 0 {
                return w * 64 + word.trailing_zeros() as usize;
            }
            w = (w + 1) % WORDS;
            word = self.bits[w];
        }
    }
}

/// Whether pending node `n` pops no later than a new event `ev` at `t`
/// (an equal one goes after it). The times decide unless they are equal.
#[inline(always)]
fn not_after<E: Ord>(n: &Node<E>, t: u64, ev: &E) -> bool {
    n.time < t || (n.time == t && n.ev <= *ev)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rng;

    /// The reference: a binary heap keyed on (time, event).
    struct Reference {
        heap: BinaryHeap<std::cmp::Reverse<(u64, u32)>>,
    }

    impl Reference {
        fn new() -> Self {
            Reference {
                heap: BinaryHeap::new(),
            }
        }
        fn push(&mut self, t: u64, ev: u32) {
            self.heap.push(std::cmp::Reverse((t, ev)));
        }
        fn pop(&mut self) -> Option<(u64, u32)> {
            self.heap.pop().map(|std::cmp::Reverse(x)| x)
        }
        fn peek_time(&self) -> Option<u64> {
            self.heap.peek().map(|std::cmp::Reverse((t, _))| *t)
        }
    }

    fn drain(q: &mut EventQueue<u32>) -> Vec<(u64, u32)> {
        std::iter::from_fn(|| q.pop().map(|(t, e)| (t.0, e))).collect()
    }

    #[test]
    fn pops_by_time_then_event_order() {
        let mut q = EventQueue::new();
        q.push(Time(5), 'c');
        q.push(Time(1), 'd');
        q.push(Time(5), 'a');
        q.push(Time(1), 'b');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['b', 'd', 'a', 'c']);
        assert!(q.is_empty());
        assert_eq!(q.pop(), None);
        assert_eq!(q.peek_time(), None);
    }

    #[test]
    fn out_of_order_pushes_within_one_bucket() {
        // All in one 256 ps bucket, pushed in scrambled time order.
        let mut q = EventQueue::new();
        for (i, t) in [200u64, 100, 250, 100, 0, 200, 255, 1].iter().enumerate() {
            q.push(Time(*t), i as u32);
        }
        assert_eq!(
            drain(&mut q),
            vec![
                (0, 4),
                (1, 7),
                (100, 1),
                (100, 3),
                (200, 0),
                (200, 5),
                (250, 2),
                (255, 6)
            ]
        );
    }

    #[test]
    fn many_equal_times_pop_in_event_order() {
        let mut q = EventQueue::new();
        for i in (0..100_000u32).rev() {
            q.push(Time(1_000_000), i);
        }
        // Pushed while popping at the same time, above every pending
        // event: after all the others.
        let mut out = Vec::new();
        for i in 0..100_000u32 {
            let (t, e) = q.pop().unwrap();
            assert_eq!(t, Time(1_000_000));
            out.push(e);
            if i % 2 == 0 {
                q.push(Time(1_000_000), 100_000 + i);
            }
        }
        out.extend(drain(&mut q).into_iter().map(|(_, e)| e));
        let expected: Vec<u32> = (0..100_000)
            .chain((0..100_000).step_by(2).map(|i| 100_000 + i))
            .collect();
        assert_eq!(out, expected);
    }

    #[test]
    fn equal_times_keep_event_order_across_the_far_heap() {
        // Events at T go to the far heap while T is beyond the window;
        // ones at T pushed once the window covers T go in among them by
        // their order.
        let far_t = 1_000_000_000u64; // 1 ms, far beyond the ~4 µs window
        let mut q = EventQueue::new();
        q.push(Time(far_t), 0);
        q.push(Time(far_t), 3);
        q.push(Time(far_t - 1_000), 2);
        assert_eq!(q.pop(), Some((Time(far_t - 1_000), 2)));
        q.push(Time(far_t), 1); // now within the window
        q.push(Time(far_t - 10), 4);
        assert_eq!(
            drain(&mut q),
            vec![(far_t - 10, 4), (far_t, 0), (far_t, 1), (far_t, 3)]
        );
    }

    #[test]
    fn window_lags_until_a_bucket_empties() {
        // Bucket 100 keeps events after its first pop, so the window still
        // starts at bucket 0: an event SLOTS + 50 buckets ahead waits in
        // the heap, and one pushed at its time after bucket 100 empties
        // (window moved) goes near and must pop in event order with it.
        let b = 256u64;
        let ahead = (SLOTS as u64 + 50) * b;
        let mut q = EventQueue::new();
        q.push(Time(0), 0);
        q.push(Time(100 * b), 1);
        q.push(Time(100 * b + 1), 2);
        assert_eq!(q.pop(), Some((Time(0), 0)));
        assert_eq!(q.pop(), Some((Time(100 * b), 1)));
        q.push(Time(ahead), 5);
        q.push(Time(100 * b + 2), 4);
        assert_eq!(q.pop(), Some((Time(100 * b + 1), 2)));
        assert_eq!(q.pop(), Some((Time(100 * b + 2), 4)));
        q.push(Time(ahead), 3);
        q.push(Time(ahead - 1), 6);
        assert_eq!(drain(&mut q), vec![(ahead - 1, 6), (ahead, 3), (ahead, 5)]);
    }

    #[test]
    fn large_time_gaps() {
        let mut q = EventQueue::new();
        let times = [
            u64::MAX,
            0,
            1 << 40,
            3_000_000_000, // 3 ms
            1,
            (1 << 40) + 1,
            1 << 62,
            u64::MAX,
            4_194_303,
            4_194_304, // the window's end at cur = 0
            1 << 40,
        ];
        let mut r = Reference::new();
        for (i, &t) in times.iter().enumerate() {
            q.push(Time(t), i as u32);
            r.push(t, i as u32);
        }
        assert_eq!(q.len(), times.len());
        let expected: Vec<_> = std::iter::from_fn(|| r.pop()).collect();
        assert_eq!(drain(&mut q), expected);
    }

    #[test]
    fn interleaved_pushes_and_pops_match_a_binary_heap() {
        // Delays at every scale: same time, ps, ns (serialisation), µs
        // (propagation), ms (timers, long links); pops interleaved; event
        // values from a small range, so that ties meet equal and unequal
        // events in every order.
        for seed in 0..8 {
            let mut rng = Rng::stream(seed, 99, 0);
            let mut q = EventQueue::new();
            let mut r = Reference::new();
            let mut now = 0u64;
            for _ in 0..200_000 {
                if rng.below(100) < 52 {
                    let d = match rng.below(6) {
                        0 => 0,
                        1 => rng.below(300),
                        2 => rng.below(100_000),
                        3 => 1_000_000 + rng.below(50_000),
                        4 => rng.below(5_000_000),
                        _ => rng.below(3_000_000_000),
                    };
                    let ev = rng.below(40) as u32;
                    q.push(Time(now + d), ev);
                    r.push(now + d, ev);
                } else if rng.below(2) == 0 {
                    let got = q.pop().map(|(t, e)| (t.0, e));
                    assert_eq!(got, r.pop(), "seed {seed}");
                    if let Some((t, _)) = got {
                        now = t;
                    }
                } else {
                    // A bound before, at or after the earliest event, near
                    // or far: nothing is removed when it is later.
                    let until = now + rng.below(2) * rng.below(5_000_000);
                    let got = q.pop_not_after(Time(until)).map(|(t, e)| (t.0, e));
                    let want = match r.peek_time() {
                        Some(t) if t <= until => r.pop(),
                        _ => None,
                    };
                    assert_eq!(got, want, "seed {seed}");
                    if let Some((t, _)) = got {
                        now = t;
                    }
                }
                assert_eq!(q.peek_time().map(|t| t.0), r.peek_time());
                assert_eq!(q.len(), r.heap.len());
            }
            let rest: Vec<_> = std::iter::from_fn(|| r.pop()).collect();
            assert_eq!(drain(&mut q), rest, "seed {seed}");
        }
    }

    #[test]
    fn late_pushes_pop_where_early_ones_would() {
        // The reference pushes every event when it is made; the queue
        // pushes some later, at the latest just before the next pop, and
        // only if `has_passed` says their place is still ahead (it always
        // is: each is above the last pop when made).
        for seed in 0..4 {
            let mut rng = Rng::stream(seed, 98, 0);
            let mut q = EventQueue::new();
            let mut r = Reference::new();
            let mut pending: Vec<(u64, u32)> = Vec::new();
            let mut now = 0u64;
            for _ in 0..100_000u32 {
                let t = now
                    + match rng.below(4) {
                        0 => 0,
                        1 => rng.below(512),
                        2 => rng.below(100_000),
                        _ => rng.below(10_000_000),
                    };
                let ev = rng.below(1000) as u32;
                match rng.below(10) {
                    0..=3 => {
                        q.push(Time(t), ev);
                        r.push(t, ev);
                    }
                    4..=6 if t > now => {
                        r.push(t, ev);
                        pending.push((t, ev));
                    }
                    4..=6 => {}
                    _ => {
                        for (t, ev) in pending.drain(..) {
                            assert!(!q.has_passed(Time(t), &ev), "seed {seed}");
                            q.push(Time(t), ev);
                        }
                        let got = q.pop().map(|(t, e)| (t.0, e));
                        assert_eq!(got, r.pop(), "seed {seed}");
                        if let Some((t, e)) = got {
                            now = t;
                            assert!(q.has_passed(Time(t), &e));
                        }
                    }
                }
            }
            for (t, ev) in pending.drain(..) {
                q.push(Time(t), ev);
            }
            let rest: Vec<_> = std::iter::from_fn(|| r.pop()).collect();
            assert_eq!(drain(&mut q), rest, "seed {seed}");
        }
    }

    #[test]
    fn pop_order_does_not_depend_on_push_order() {
        // The same events, with many ties, pushed in two different orders
        // (and with pops in between at different moments) pop the same.
        let mut rng = Rng::stream(3, 97, 0);
        let events: Vec<(u64, u32)> = (0..50_000)
            .map(|_| (rng.below(20) * 1_000 + rng.below(3), rng.below(200) as u32))
            .collect();
        let mut shuffled = events.clone();
        for i in (1..shuffled.len()).rev() {
            shuffled.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let mut a = EventQueue::new();
        let mut b = EventQueue::new();
        for (&(ta, ea), &(tb, eb)) in events.iter().zip(&shuffled) {
            a.push(Time(ta), ea);
            b.push(Time(tb), eb);
        }
        let (pa, pb) = (drain(&mut a), drain(&mut b));
        assert_eq!(pa, pb);
        assert!(pa.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(pa.len(), events.len());
    }

    #[test]
    fn an_event_pushed_below_the_current_one_pops_next() {
        let mut q = EventQueue::new();
        for ev in [5u32, 6, 9] {
            q.push(Time(10), ev);
        }
        q.push(Time(11), 0);
        assert_eq!(q.pop(), Some((Time(10), 5)));
        // Pushed at the current time below the event just popped: next,
        // before the pending events above it; the place stays at 5.
        q.push(Time(10), 2);
        q.push(Time(10), 7);
        assert!(q.has_passed(Time(10), &3));
        assert!(!q.has_passed(Time(10), &6));
        assert_eq!(q.pop(), Some((Time(10), 2)));
        assert!(q.has_passed(Time(10), &5));
        assert!(!q.has_passed(Time(10), &6));
        assert_eq!(drain(&mut q), vec![(10, 6), (10, 7), (10, 9), (11, 0)]);
        assert!(q.has_passed(Time(10), &u32::MAX));
        assert!(!q.has_passed(Time(11), &1));
    }

    #[test]
    fn peek_near_shows_the_next_pop() {
        let mut q = EventQueue::new();
        assert!(q.peek_near().is_none());
        for (t, ev) in [(700u64, 1u32), (300, 2), (300, 3), (9_000_000_000, 4)] {
            q.push(Time(t), ev);
        }
        for want in [2, 3, 1] {
            assert_eq!(q.peek_near(), Some(&want));
            assert_eq!(q.pop().map(|(_, e)| e), Some(want));
        }
        // The last event is beyond the near window: nothing to peek at
        // until the window jumps to it.
        assert!(q.peek_near().is_none());
        assert_eq!(q.pop().map(|(_, e)| e), Some(4));
    }

    #[test]
    #[should_panic(expected = "in the past")]
    fn scheduling_before_the_last_pop_panics() {
        let mut q = EventQueue::new();
        q.push(Time(10_000_000), 0);
        q.pop();
        q.push(Time(1_000), 1);
    }
}
