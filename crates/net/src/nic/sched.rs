//! The NIC's choice of the next QP to send, in time that does not grow
//! with the number of its active QPs.
//!
//! The choice is the peer's round robin (`GetNextQindex`, HPCC sim): over
//! the NIC's active QPs in the order they started, from the one after the
//! QP chosen last, the first that has something to send, is not held by
//! its window, its transport or flow control, and whose pacing allows it
//! now; with none, the NIC wakes when the earliest paced one (that flow
//! control lets send) may go. A NIC with few active QPs scans them so, as
//! it always did: a handful of QPs cost less to scan than to keep sorted.
//! Above [`TREE_ABOVE`] active QPs it keeps each QP in one of three
//! places instead, by what was true of it the last time it changed:
//!
//! - *ready*: it could send now, flow control aside (ordered by start);
//! - *paced*: it could send but for its pacing, which allows it at a
//!   known time (ordered by that time);
//! - neither: nothing to send, or held by its window or transport.
//!
//! A QP's place changes only when its own state does: it is sent from,
//! or an ACK, a software ACK or a timer of its own arrives. Each of these
//! marks it; marked QPs are placed again before the next choice. At a
//! choice, paced QPs whose time has come move to ready; the ready QP after
//! the last chosen one (cyclically) that flow control lets send is the
//! choice: O(log n). Flow control is asked at the choice, as the scan asks
//! it (its answer depends on the port's state, which a QP does not see
//! change): a QP it holds is passed over, so a choice also costs one look
//! per ready QP that flow control holds ahead of the one chosen. (Under
//! PFC a paused class holds all of a NIC's QPs of that class; the NIC
//! then still looks at each ready one per choice, as the scan did: flow
//! control's answer is per QP in general, and asking it for each is what
//! keeps the order exact.)
//!
//! Where the scan's index moves when a QP ends is kept exactly: the
//! cursor is the start rank of the QP chosen last (or of one that has
//! ended since, which continues the scan at its successor); `None` stands
//! for "the first active QP", where the scan's index 0 points. The NIC
//! moves between the two forms (at [`TREE_ABOVE`] and [`SCAN_BELOW`]
//! active QPs) with the cursor carried over, so the choices are the
//! scan's throughout.
//!
//! A NIC with the congestion-leaking bug (Azure §8.3; `cc/dcqcn_gen.rs`)
//! keeps the scan at any count and does not pass over a QP that waits for
//! its pacing: the first QP in rotation that has something to send and
//! that flow control lets send is the choice, and if its pacing allows it
//! only later the NIC waits for it. Each QP then sends once per round,
//! and the round lasts as long as the slowest QP's gap: every QP runs at
//! about the slowest one's rate. (Only the pacing blocks: a QP held by its
//! window, its transport or flow control is passed over, rdmasim's
//! choice.)

use engine::Time;
use std::collections::{BTreeMap, BTreeSet};

/// Above this many active QPs a NIC keeps them placed (a tree); it scans
/// them at or below it. (The scan's look at one QP costs a few ns, a
/// choice from the tree some 100 ns.)
pub(crate) const TREE_ABOVE: usize = 32;

/// Below this many active QPs a NIC that keeps a tree goes back to the
/// scan (apart from [`TREE_ABOVE`], so that a count going up and down by
/// one does not rebuild the tree each time).
pub(crate) const SCAN_BELOW: usize = 16;

/// What holds a [`QpSlot`]: a QP (a plain slot in tests).
pub(crate) trait Slotted {
    fn slot(&mut self) -> &mut QpSlot;
}

/// What the NIC knows of its QPs at a choice.
pub(crate) trait Judge<Q> {
    /// What QP `q` may send, flow control aside.
    fn sendable(&self, q: &Q) -> Sendable;
    /// Whether it has bytes to send or resend (`sendable` is not
    /// `Nothing`), which may be cheaper to ask.
    fn has_data(&self, q: &Q) -> bool;
    /// Whether flow control lets QP `id` (`q`) send its next frame now.
    fn may(&self, id: u32, q: &Q) -> bool;
}

/// What a QP may do, flow control aside.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sendable {
    /// Nothing to send or resend.
    Nothing,
    /// Data to send, held by its window or its transport.
    Held,
    /// May send at this time (now or later, by its pacing).
    At(Time),
}

/// Where a QP stands in its NIC's tree (state of the QP, touched only by
/// its NIC).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct QpSlot {
    /// Its start rank at the NIC (the round robin's order).
    rank: u32,
    place: Place,
    /// It has bytes left to send or resend.
    has_data: bool,
    /// Marked: its place is to be computed again before the next choice.
    marked: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Place {
    #[default]
    Out,
    Ready,
    Paced(Time),
}

/// A NIC's active QPs: a list it scans, or a tree.
#[derive(Debug)]
pub(crate) struct QpSched {
    /// With no tree: the active QPs in start order, and the index of the
    /// one chosen last.
    list: Vec<u32>,
    rr_last: usize,
    tree: Option<Box<Tree>>,
    /// [`TREE_ABOVE`] and [`SCAN_BELOW`] (other values in tests).
    above: usize,
    below: usize,
    /// The congestion-leaking bug: a paced QP blocks the rotation.
    head_of_line: bool,
}

impl Default for QpSched {
    fn default() -> Self {
        QpSched::with_limits(TREE_ABOVE, SCAN_BELOW)
    }
}

impl QpSched {
    fn with_limits(above: usize, below: usize) -> Self {
        QpSched {
            list: Vec::new(),
            rr_last: 0,
            tree: None,
            above,
            below,
            head_of_line: false,
        }
    }

    /// The scheduler of a NIC with the congestion-leaking bug: the scan
    /// at any count, blocked by a QP that waits for its pacing.
    pub fn head_of_line_blocking() -> Self {
        QpSched {
            head_of_line: true,
            ..QpSched::with_limits(usize::MAX, 0)
        }
    }

    /// The active QPs, in no promised order.
    pub fn active(&self) -> impl Iterator<Item = u32> + '_ {
        let tree = self.tree.iter().flat_map(|t| t.active.values().copied());
        self.list.iter().copied().chain(tree)
    }

    /// QP `id` starts: it goes last in the round robin.
    pub fn add(&mut self, id: u32, qp: &mut impl Slotted) {
        match &mut self.tree {
            Some(t) => t.add(id, qp),
            None => self.list.push(id),
        }
    }

    /// QP `id`'s state changed: with a tree, place it again before the
    /// next choice.
    #[inline(always)]
    pub fn mark(&mut self, id: u32, qp: &mut impl Slotted) {
        if let Some(t) = &mut self.tree {
            t.mark(id, qp);
        }
    }

    /// QP `id` finished: it leaves, and the round robin's index moves as it
    /// does when an entry before or at it goes.
    pub fn remove(&mut self, id: u32, qp: &mut impl Slotted) {
        if let Some(t) = &mut self.tree {
            t.remove(id, qp);
        } else if let Some(pos) = self.list.iter().position(|&q| q == id) {
            self.list.remove(pos);
            if pos <= self.rr_last && self.rr_last > 0 {
                self.rr_last -= 1;
            }
        }
    }

    /// Build or drop the tree by the number of active QPs.
    #[inline(always)]
    fn fit<Q: Slotted>(&mut self, qps: &mut [Q]) {
        match &self.tree {
            None if self.list.len() > self.above => self.build(qps),
            Some(t) if t.active.len() < self.below => self.unbuild(),
            _ => {}
        }
    }

    #[cold]
    fn build<Q: Slotted>(&mut self, qps: &mut [Q]) {
        let mut t = Tree::default();
        for (rank, &id) in self.list.iter().enumerate() {
            *qps[id as usize].slot() = QpSlot {
                rank: rank as u32,
                marked: true,
                ..QpSlot::default()
            };
            t.active.insert(rank as u32, id);
            t.marked.push(id);
        }
        t.next_rank = self.list.len() as u32;
        // The scan's index points at the QP of rank `rr_last`.
        t.cursor = Some(self.rr_last as u32);
        self.list.clear();
        self.tree = Some(Box::new(t));
    }

    #[cold]
    fn unbuild(&mut self) {
        let Some(t) = self.tree.take() else { return };
        self.list.extend(t.active.values());
        // The index of the cursor's QP, or of the last active one before
        // it if that has ended.
        self.rr_last = match t.cursor {
            None => 0,
            Some(c) => t.active.range(..=c).count().saturating_sub(1),
        };
    }

    /// Whether no active QP has bytes to send or resend.
    #[inline]
    pub fn nothing_to_send<Q: Slotted>(
        &mut self,
        qps: &mut [Q],
        now: Time,
        j: &impl Judge<Q>,
    ) -> bool {
        self.fit(qps);
        match &mut self.tree {
            Some(t) => {
                t.place_marked(qps, now, j);
                t.with_data == 0
            }
            None => self.list.iter().all(|&q| !j.has_data(&qps[q as usize])),
        }
    }

    /// The QP to send from now, or, with none, the earliest time one
    /// (paced now) may (`None`: no QP waits for its pacing).
    #[inline(always)]
    pub fn next<Q: Slotted>(
        &mut self,
        qps: &mut [Q],
        now: Time,
        j: &impl Judge<Q>,
    ) -> Result<u32, Option<Time>> {
        self.fit(qps);
        if let Some(t) = &mut self.tree {
            return t.next(qps, now, j);
        }
        let n = self.list.len();
        let mut earliest = Time::MAX;
        for i in 1..=n {
            let idx = (self.rr_last + i) % n;
            let id = self.list[idx];
            let q = &qps[id as usize];
            let Sendable::At(at) = j.sendable(q) else {
                continue;
            };
            if !j.may(id, q) {
                continue;
            }
            if at > now {
                if self.head_of_line {
                    return Err(Some(at));
                }
                earliest = earliest.min(at);
                continue;
            }
            self.rr_last = idx;
            return Ok(id);
        }
        Err((earliest != Time::MAX).then_some(earliest))
    }
}

/// A NIC's active QPs, by place.
#[derive(Debug, Default)]
struct Tree {
    next_rank: u32,
    /// Every active QP (started, not finished), by start rank.
    active: BTreeMap<u32, u32>,
    ready: BTreeMap<u32, u32>,
    /// (time, rank, QP).
    paced: BTreeSet<(Time, u32, u32)>,
    marked: Vec<u32>,
    /// Active QPs with bytes to send or resend.
    with_data: u32,
    cursor: Option<u32>,
}

impl Tree {
    fn add(&mut self, id: u32, qp: &mut impl Slotted) {
        let rank = self.next_rank;
        *qp.slot() = QpSlot {
            rank,
            ..QpSlot::default()
        };
        self.next_rank += 1;
        self.active.insert(rank, id);
        self.mark(id, qp);
    }

    #[inline]
    fn mark(&mut self, id: u32, qp: &mut impl Slotted) {
        let slot = qp.slot();
        if !slot.marked {
            slot.marked = true;
            self.marked.push(id);
        }
    }

    /// Place each marked QP by what `j` says of it now.
    fn place_marked<Q: Slotted>(&mut self, qps: &mut [Q], now: Time, j: &impl Judge<Q>) {
        while let Some(id) = self.marked.pop() {
            let qp = &mut qps[id as usize];
            if !qp.slot().marked {
                continue;
            }
            qp.slot().marked = false;
            let s = j.sendable(qp);
            self.place(id, qp.slot(), s, now);
        }
    }

    fn place(&mut self, id: u32, slot: &mut QpSlot, s: Sendable, now: Time) {
        let has_data = s != Sendable::Nothing;
        if has_data != slot.has_data {
            if has_data {
                self.with_data += 1;
            } else {
                self.with_data -= 1;
            }
            slot.has_data = has_data;
        }
        let place = match s {
            Sendable::At(t) if t > now => Place::Paced(t),
            Sendable::At(_) => Place::Ready,
            _ => Place::Out,
        };
        if place == slot.place {
            return;
        }
        self.unplace(id, slot);
        match place {
            Place::Ready => {
                self.ready.insert(slot.rank, id);
            }
            Place::Paced(t) => {
                self.paced.insert((t, slot.rank, id));
            }
            Place::Out => {}
        }
        slot.place = place;
    }

    fn unplace(&mut self, id: u32, slot: &QpSlot) {
        match slot.place {
            Place::Ready => {
                self.ready.remove(&slot.rank);
            }
            Place::Paced(t) => {
                self.paced.remove(&(t, slot.rank, id));
            }
            Place::Out => {}
        }
    }

    fn remove(&mut self, id: u32, qp: &mut impl Slotted) {
        let slot = *qp.slot();
        if self.active.get(&slot.rank) != Some(&id) {
            return;
        }
        self.unplace(id, &slot);
        if slot.has_data {
            self.with_data -= 1;
        }
        // The scan's index points at the cursor's QP, or at the last
        // active one before it if that has ended; it stays put when that
        // entry is the first and goes (pointing at the new first).
        let first = self.active.keys().next().copied();
        let at = match self.cursor {
            None => first,
            Some(c) => self.active.range(..=c).next_back().map(|(&r, _)| r),
        };
        if at == Some(slot.rank) && first == Some(slot.rank) {
            self.cursor = None;
        }
        self.active.remove(&slot.rank);
        *qp.slot() = QpSlot {
            rank: slot.rank,
            ..QpSlot::default()
        };
    }

    fn next<Q: Slotted>(
        &mut self,
        qps: &mut [Q],
        now: Time,
        j: &impl Judge<Q>,
    ) -> Result<u32, Option<Time>> {
        self.place_marked(qps, now, j);
        // Paced QPs whose time has come are ready.
        while let Some(&(t, rank, id)) = self.paced.first() {
            if t > now {
                break;
            }
            self.paced.pop_first();
            self.ready.insert(rank, id);
            qps[id as usize].slot().place = Place::Ready;
        }
        let Some(c) = self.cursor.or_else(|| self.active.keys().next().copied()) else {
            return Err(None);
        };
        let qps = &*qps;
        let found = self
            .ready
            .range(c + 1..)
            .chain(self.ready.range(..=c))
            .find(|&(_, &id)| j.may(id, &qps[id as usize]));
        if let Some((&rank, &id)) = found {
            self.cursor = Some(rank);
            return Ok(id);
        }
        Err(self
            .paced
            .iter()
            .find(|&&(_, _, id)| j.may(id, &qps[id as usize]))
            .map(|&(t, _, _)| t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Rng;

    /// A QP as the scheduler sees it: what it may send, and whether flow
    /// control lets it.
    struct TestQp {
        slot: QpSlot,
        s: Sendable,
        fc: bool,
    }

    impl Slotted for TestQp {
        fn slot(&mut self) -> &mut QpSlot {
            &mut self.slot
        }
    }

    struct TestJudge;

    impl Judge<TestQp> for TestJudge {
        fn sendable(&self, q: &TestQp) -> Sendable {
            q.s
        }
        fn has_data(&self, q: &TestQp) -> bool {
            q.s != Sendable::Nothing
        }
        fn may(&self, _: u32, q: &TestQp) -> bool {
            q.fc
        }
    }

    /// The round robin as the NIC ran it before it kept a tree: a scan of
    /// the active QPs from the one after the last chosen, and the index's
    /// move when a QP ends.
    #[derive(Default)]
    struct Scan {
        active: Vec<u32>,
        rr_last: usize,
    }

    impl Scan {
        fn choose(&mut self, qps: &[TestQp], now: Time) -> Result<u32, Option<Time>> {
            let n = self.active.len();
            let mut earliest = None::<Time>;
            for i in 1..=n {
                let idx = (self.rr_last + i) % n;
                let q = &qps[self.active[idx] as usize];
                if !q.fc {
                    continue;
                }
                let Sendable::At(t) = q.s else { continue };
                if t > now {
                    earliest = Some(earliest.map_or(t, |e| e.min(t)));
                    continue;
                }
                self.rr_last = idx;
                return Ok(self.active[idx]);
            }
            Err(earliest)
        }

        fn remove(&mut self, id: u32) {
            let pos = self.active.iter().position(|&q| q == id).unwrap();
            self.active.remove(pos);
            if pos <= self.rr_last && self.rr_last > 0 {
                self.rr_last -= 1;
            }
        }
    }

    fn random_state(rng: &mut Rng, now: Time) -> Sendable {
        match rng.below(8) {
            0 | 1 => Sendable::Nothing,
            2 => Sendable::Held,
            k => Sendable::At(Time(now.0.saturating_sub(2) + k + rng.below(4))),
        }
    }

    /// Random starts, ends, state and flow-control changes, the clock's
    /// advance and choices, with the tree always, never, by the NIC's
    /// limits and by small ones (many moves between the forms): the
    /// scheduler chooses what the scan chooses, wakes when it would, and
    /// knows when no QP has data, every time.
    #[test]
    fn chooses_as_the_round_robin_scan_does() {
        let limits = [(0, 0), (usize::MAX, 0), (TREE_ABOVE, SCAN_BELOW), (6, 3)];
        for (seed, &(above, below)) in (0..24).zip(limits.iter().cycle()) {
            let mut rng = Rng::stream(seed, 0, 0);
            let mut qps: Vec<TestQp> = Vec::new();
            let mut sched = QpSched::with_limits(above, below);
            let mut scan = Scan::default();
            let mut now = Time(10);
            let (mut chosen, mut idle, mut builds) = (0, 0, 0);
            for step in 0..20_000 {
                let pick = |rng: &mut Rng, scan: &Scan| {
                    (!scan.active.is_empty())
                        .then(|| scan.active[rng.below(scan.active.len() as u64) as usize])
                };
                // The active count wanders over a range around the limits.
                let most = if (step / 2000) % 2 == 0 { 48 } else { 8 };
                match rng.below(12) {
                    0 | 1 if scan.active.len() < most => {
                        let id = qps.len() as u32;
                        let s = random_state(&mut rng, now);
                        qps.push(TestQp {
                            slot: QpSlot::default(),
                            s,
                            fc: rng.below(6) != 0,
                        });
                        sched.add(id, &mut qps[id as usize]);
                        scan.active.push(id);
                    }
                    0..=2 => {
                        if let Some(id) = pick(&mut rng, &scan) {
                            sched.remove(id, &mut qps[id as usize]);
                            scan.remove(id);
                        }
                    }
                    3 | 4 => {
                        if let Some(id) = pick(&mut rng, &scan) {
                            qps[id as usize].s = random_state(&mut rng, now);
                            sched.mark(id, &mut qps[id as usize]);
                        }
                    }
                    // Flow control changes without the QP's knowledge.
                    5 => {
                        if let Some(id) = pick(&mut rng, &scan) {
                            qps[id as usize].fc = rng.below(4) != 0;
                        }
                    }
                    6 => now = Time(now.0 + rng.below(3)),
                    _ => {
                        let had_tree = sched.tree.is_some();
                        let nothing = scan
                            .active
                            .iter()
                            .all(|&q| qps[q as usize].s == Sendable::Nothing);
                        assert_eq!(sched.nothing_to_send(&mut qps, now, &TestJudge), nothing);
                        let got = sched.next(&mut qps, now, &TestJudge);
                        builds += usize::from(sched.tree.is_some() != had_tree);
                        assert_eq!(got, scan.choose(&qps, now), "seed {seed} step {step}");
                        match got {
                            Ok(id) => {
                                chosen += 1;
                                // Sending changes the chosen QP's state.
                                qps[id as usize].s = random_state(&mut rng, now);
                                sched.mark(id, &mut qps[id as usize]);
                            }
                            Err(_) => idle += 1,
                        }
                    }
                }
            }
            assert!(chosen > 1000 && idle > 100, "{chosen} {idle}");
            if (above, below) == (6, 3) {
                assert!(builds > 10, "{builds}");
            }
        }
    }
}
