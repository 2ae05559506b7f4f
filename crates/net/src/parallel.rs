//! The conservative parallel engine (`docs/parallel.md`): one run on
//! several threads, with the same outputs, byte for byte, as on one.
//!
//! **Replicas.** Every partition of a [`PartitionMap`] gets a whole
//! [`Simulation`], built like the others (building is deterministic, so
//! they start identical), and handles only the events of the nodes it
//! owns: their ports' ends of transmission and flow-control timers, the
//! deliveries *to* them, their NICs' wake-ups and QP timers, and the
//! receive timers of flows they receive. The handlers are unchanged: a
//! switch's or NIC's handler touches its own node only, so a replica's
//! copy of a node it owns evolves exactly as in one sequential run, and
//! the copies of the nodes it does not own are never touched (they keep
//! their state from the build).
//!
//! Events of the whole run: every replica handles each flow's arrival
//! (each opens every QP and receiver, so that flow ids index the same
//! vectors everywhere) but only the partition of the flow's source starts
//! it; every replica applies each link failure (routes change everywhere)
//! and writes each queue-length dump (of the ports it owns, merged at the
//! end). Such an event is counted once, by the partition that owns it.
//!
//! **Cut links.** A frame sent on a link whose far end another partition
//! owns stays on the sender's copy of the wire until the end of the
//! window; then it moves, with its INT records by value, to the receiver's
//! copy of that wire, and the receiver schedules the delivery of the head
//! as the sender's own link would. The sender's copy of a cut wire holds
//! a placeholder at its head from the start, so that sending never
//! schedules a delivery there. A delivery touches the sending port's wire
//! and random stream (link errors) and the receiving port's counters:
//! all of them on the receiving side's copies, never the sender's.
//!
//! **Windows.** With the lookahead L (the smallest delay of a cut link),
//! every partition runs its events in `[T, T + L)`, then all meet at a
//! barrier (it spins, then sleeps), take the frames sent to them, and start the next
//! window at the earliest pending event of all (an empty stretch is
//! skipped). A frame sent in a window arrives at least L after it was
//! sent, so in a later window: no partition receives an event in its past.
//!
//! **The end.** A sequential run stops right after the event that
//! finishes the last flow. A partition is *done* once every flow of its
//! source hosts has arrived and finished; done never reverts, so the
//! run's last event is the latest of the events at which each partition
//! became done, in `(time, event)` order. A window in which the run may
//! end (see [`may_end`]) runs in two phases: each partition stops right
//! after the event that makes it done (or at the window's end); at a
//! barrier all see whether every partition is done; if so, each runs its
//! events up to and including the latest of those events and the run
//! ends, else each finishes the window. Nothing runs past the last event,
//! and nothing crosses partitions within a window, so every partition
//! handles exactly the events the sequential run handles.
//!
//! **Merge.** Each port, switch and NIC comes from the partition that
//! owns its node, each flow's QP from its source's and its receiver from
//! its destination's; completions, the PFC log and the transmit log from
//! all, in `(time, event)` order of the events that wrote them (the order
//! one queue gives); the queue-length dumps line by line from the owner of
//! each line's port; event and frame counts summed. A time series's
//! samples (every replica takes each, of its own ports and its own flows'
//! QPs) and a capture's frames (each recorded by the partition whose
//! port sent it) are merged the same way, and the rules of either that
//! need the whole network (a sample or frame limit, the end of sampling
//! when nothing else is left) are applied to the merged records
//! (`docs/parallel.md`, "Samples, captures and software ACKs").

use crate::event::Event;
use crate::monitor::{MergedMonitor, Monitor};
use crate::partition::PartitionMap;
use crate::results::ProgressInfo;
use crate::sim::Simulation;
use crate::transport::AckBody;
use crate::wire::{InFlight, IntHop, Packet, PacketKind, MAX_INT_HOPS, NO_INT};
use engine::{Delta, EventQueue, Time};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// How a parallel run went: what limits its speed-up.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParallelStats {
    /// Partitions (threads).
    pub threads: u32,
    /// The lookahead: the length of a window.
    pub lookahead: Delta,
    /// Windows run.
    pub windows: u64,
    /// Windows in which the run might have ended, run in two phases.
    pub end_windows: u64,
    /// Per partition: events handled (counted as a sequential run counts
    /// them).
    pub events: Vec<u64>,
    /// Per partition: frames it sent across a cut.
    pub cut_frames: Vec<u64>,
    /// Per partition: wall time spent waiting at barriers.
    pub barrier_wait: Vec<Duration>,
    /// Wall time of the whole parallel loop.
    pub wall: Duration,
}

/// The frames one partition sends another across cuts in one window, in
/// buffers that keep their capacity from window to window (no allocation
/// once the largest window has been seen). Each frame is the sending port
/// and the frame with its arrival time; a frame with INT records carries,
/// in place of its handle in the sender's pool, the index of its records
/// in `int` (by value: the receiver's pool gives them a slot). A software
/// ACK's body (`transport::pfc_free::AckBodies`) travels in `bodies`, one
/// entry per software ACK in `frames`' order.
#[derive(Debug, Default)]
struct Mailbox {
    frames: Vec<(u32, InFlight)>,
    int: Vec<([IntHop; MAX_INT_HOPS], u32)>,
    bodies: Vec<Option<AckBody>>,
}

/// Where a partition stands at the end of the first phase of a window in
/// which the run may end.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
enum Done {
    /// Some flow of its hosts has not arrived or not finished.
    #[default]
    No,
    /// Done before this window.
    Before,
    /// Done at this event of the window.
    At(Time, Event),
}

/// What a partition tells the others at a barrier.
#[derive(Clone, Copy, Debug, Default)]
struct Published {
    /// Its earliest pending event, or the earliest arrival it sent across
    /// a cut, if earlier (`Time::MAX`: none).
    next: Option<Time>,
    /// Some flow of its hosts cannot finish within the next window.
    survives: bool,
    done: Done,
    events: u64,
    completed: usize,
    /// It has an event pending other than a sample (`Event::Monitor`), or
    /// sent a frame across a cut: something can still change.
    real: bool,
}

/// A barrier that spins (a window is about a microsecond of simulated
/// time and a few thousand events; a futex wake-up per window costs more
/// than the window), then yields the core for a while, then sleeps.
///
/// Why it sleeps: a long-haul run's windows are milliseconds of simulated
/// time and tens of milliseconds of work, so a thread may wait that long
/// for the other. A thread that only yields stays runnable at the back of
/// its core's queue, and where another process wants that core it can
/// wait out that process's whole time slice (milliseconds) after the
/// barrier opens: measured on a 2-core VM, both threads of a long-haul
/// run together lost about 1.6 s of 5.7 that way. A sleeping thread is
/// woken by the thread that opens the barrier, and the kernel runs a
/// woken thread ahead of a process that has been using the core.
#[derive(Debug)]
struct SpinBarrier {
    n: usize,
    count: AtomicUsize,
    gen: AtomicUsize,
    /// Threads asleep (or about to sleep) in [`SpinBarrier::wait`].
    sleepers: AtomicUsize,
    lock: Mutex<()>,
    woken: Condvar,
}

/// Spins before a waiting thread starts yielding its core.
const SPINS_BEFORE_YIELD: u32 = 4_000;

/// How long a waiting thread yields before it sleeps: longer than a
/// window of a datacenter run takes to run (about half a millisecond on
/// the peer's tree on 2 threads), so those rarely sleep; at 200 µs that
/// run was 7% slower (median of 5 pairs), at 1 ms not measurably.
const YIELD_BEFORE_SLEEP: Duration = Duration::from_millis(1);

impl SpinBarrier {
    fn new(n: usize) -> SpinBarrier {
        SpinBarrier {
            n,
            count: AtomicUsize::new(0),
            gen: AtomicUsize::new(0),
            sleepers: AtomicUsize::new(0),
            lock: Mutex::new(()),
            woken: Condvar::new(),
        }
    }

    fn wait(&self) {
        let gen = self.gen.load(Ordering::Acquire);
        if self.count.fetch_add(1, Ordering::AcqRel) + 1 == self.n {
            self.count.store(0, Ordering::Relaxed);
            // SeqCst with the sleeper's count below: either this sees a
            // sleeper, or the sleeper sees the new generation.
            self.gen.store(gen.wrapping_add(1), Ordering::SeqCst);
            if self.sleepers.load(Ordering::SeqCst) > 0 {
                let _held = self.lock.lock().expect("no thread panicked");
                self.woken.notify_all();
            }
            return;
        }
        let mut spins = 0u32;
        let mut yielding_since = None;
        while self.gen.load(Ordering::Acquire) == gen {
            if spins < SPINS_BEFORE_YIELD {
                std::hint::spin_loop();
                spins += 1;
                continue;
            }
            let since = *yielding_since.get_or_insert_with(Instant::now);
            if since.elapsed() < YIELD_BEFORE_SLEEP {
                std::thread::yield_now();
                continue;
            }
            self.sleepers.fetch_add(1, Ordering::SeqCst);
            let mut held = self.lock.lock().expect("no thread panicked");
            while self.gen.load(Ordering::SeqCst) == gen {
                held = self.woken.wait(held).expect("no thread panicked");
            }
            drop(held);
            self.sleepers.fetch_sub(1, Ordering::SeqCst);
            return;
        }
    }
}

/// What the threads share: the barrier, and two of each slot (what is
/// written before a barrier is read after it, while the next is written
/// into the other).
struct Shared {
    p: usize,
    barrier: SpinBarrier,
    published: [Vec<Mutex<Published>>; 2],
    /// Index `from * p + to`.
    mail: [Vec<Mutex<Mailbox>>; 2],
}

impl Shared {
    fn read(&self, slot: usize) -> Vec<Published> {
        self.published[slot]
            .iter()
            .map(|m| *m.lock().expect("no thread panicked"))
            .collect()
    }
}

/// The progress callback, called by one partition's thread.
type Report<'a> = &'a mut dyn FnMut(&ProgressInfo);

/// The event that wrote each entry of a log (a key of the event queue).
type Key = (Time, Event);

/// What every partition knows of the run.
struct Plan<'a> {
    part_of: &'a [u32],
    lookahead: Delta,
    stop: Time,
}

/// One partition: its replica and what it owns.
struct Part {
    id: u32,
    sim: Simulation,
    /// Per partition: the ports it sends on across a cut towards it.
    cut_out: Vec<Vec<u32>>,
    /// Its NICs (by index in `Simulation::nics`).
    nics: Vec<u32>,
    /// Flows whose source it owns, and the last of them.
    own_flows: usize,
    last_own: Option<usize>,
    /// The events that appended each completion, PFC log entry and
    /// transmit log entry, in the same order.
    completed_by: Vec<(Time, Event)>,
    pfc_by: Vec<(Time, Event)>,
    tx_by: Vec<(Time, Event)>,
    /// The same for the frames the capture recorded.
    capture_by: Vec<(Time, Event)>,
    /// The time of the last event other than a sample.
    last_real: Time,
    /// Samples (`Event::Monitor`) handled.
    samples: u64,
    /// The run ended with nothing but samples left.
    idle: bool,
    /// Events handled here that another partition counts.
    dup: u64,
    cut_frames: u64,
    barrier_wait: Duration,
}

impl Part {
    fn new(id: u32, mut sim: Simulation, part_of: &[u32], parts: usize) -> Part {
        let owns = |node: u32| part_of[node as usize] == id;
        let mut cut_out = vec![Vec::new(); parts];
        // The placeholder at the head of the sender's copy of a cut wire.
        let placeholder = InFlight {
            arrive: Time::ZERO,
            pkt: Packet::pfc(0, 0),
        };
        for port in 0..sim.ports.len() {
            let p = &sim.ports[port];
            let to = part_of[sim.ports[p.peer as usize].node as usize];
            if owns(p.node) && to != id {
                cut_out[to as usize].push(port as u32);
                let p = &mut sim.ports[port];
                // What the build sent on it is delivered by the receiver's
                // copy.
                while let Some(f) = p.flight.pop_front() {
                    sim.cx.int_pool.release(f.pkt.int);
                }
                p.flight.push_back(placeholder);
            }
        }
        // Keep the events of the nodes this partition owns, and those of
        // the whole run.
        let old = std::mem::replace(&mut sim.cx.q, EventQueue::new());
        let mut old = old;
        while let Some((t, ev)) = old.pop() {
            if owner(&sim, part_of, ev).is_none_or(|o| o == id) {
                sim.cx.q.push(t, ev);
            }
        }
        let nics = (0..sim.nics.len() as u32)
            .filter(|&n| owns(sim.ports[sim.nics[n as usize].port as usize].node))
            .collect();
        let own: Vec<usize> = (0..sim.flows.len())
            .filter(|&f| owns(sim.flows[f].src))
            .collect();
        // Samples of the whole network: each replica samples what it
        // owns, merged at the end.
        if let Some(m) = sim.monitor.as_mut() {
            m.partition(sim.flows.iter().map(|f| owns(f.src)).collect());
        }
        if let Some(c) = sim.cx.capture.as_mut() {
            c.partition();
        }
        Part {
            id,
            sim,
            cut_out,
            nics,
            own_flows: own.len(),
            last_own: own.last().copied(),
            completed_by: Vec::new(),
            pfc_by: Vec::new(),
            tx_by: Vec::new(),
            capture_by: Vec::new(),
            last_real: Time::ZERO,
            samples: 0,
            idle: false,
            dup: 0,
            cut_frames: 0,
            barrier_wait: Duration::ZERO,
        }
    }

    /// It has an event pending other than a sample (of which at most one
    /// is pending).
    fn real_pending(&self) -> bool {
        let q = &self.sim.cx.q;
        q.len() > 1 || q.peek().is_some_and(|(_, ev)| ev != Event::Monitor)
    }

    /// Every flow of its hosts arrived and finished.
    #[inline]
    fn done(&self) -> bool {
        self.sim.cx.completed.len() == self.own_flows
            && self.last_own.is_none_or(|l| self.sim.next_flow > l)
    }

    /// Handle `ev` at `t`, as the sequential loop does, and note which
    /// event appended to the logs.
    #[inline(always)]
    fn step(&mut self, t: Time, ev: Event, part_of: &[u32]) {
        let sim = &mut self.sim;
        sim.cx.now = t;
        sim.cx.events += 1;
        if let Some(&next) = sim.cx.q.peek_near() {
            sim.prefetch_for(next);
        }
        let logs = (
            sim.cx.completed.len(),
            sim.cx.pfc_log.len(),
            sim.cx.tx_log.len(),
            sim.cx.capture.as_ref().map_or(0, |c| c.recorded()),
        );
        match ev {
            Event::FlowArrive { flow } => {
                let nic = sim.open_flow(flow);
                if part_of[sim.flows[flow as usize].src as usize] == self.id {
                    sim.start_flow(nic, flow);
                } else {
                    self.dup += 1;
                }
            }
            Event::LinkDown { .. } | Event::QlenDump | Event::Monitor => {
                if self.id != 0 {
                    self.dup += 1;
                }
                sim.dispatch(ev);
            }
            _ => sim.dispatch(ev),
        }
        let cx = &sim.cx;
        for _ in logs.0..cx.completed.len() {
            self.completed_by.push((t, ev));
        }
        for _ in logs.1..cx.pfc_log.len() {
            self.pfc_by.push((t, ev));
        }
        for _ in logs.2..cx.tx_log.len() {
            self.tx_by.push((t, ev));
        }
        if let Some(c) = &cx.capture {
            for _ in logs.3..c.recorded() {
                self.capture_by.push((t, ev));
            }
        }
        if ev == Event::Monitor {
            self.samples += 1;
        } else {
            self.last_real = t;
        }
    }

    /// Run every event at or before `until`.
    fn run_until(&mut self, until: Time, part_of: &[u32]) {
        while let Some((t, ev)) = self.sim.cx.q.pop_not_after(until) {
            self.step(t, ev, part_of);
        }
    }

    /// [`Part::run_until`], but stop right after the event that makes the
    /// partition done.
    fn run_until_done(&mut self, until: Time, part_of: &[u32]) -> Done {
        if self.done() {
            return Done::Before;
        }
        while let Some((t, ev)) = self.sim.cx.q.pop_not_after(until) {
            self.step(t, ev, part_of);
            if self.done() {
                return Done::At(t, ev);
            }
        }
        Done::No
    }

    /// Run every event up to and including `(t, ev)` in the queue's order.
    fn run_through(&mut self, last: (Time, Event), part_of: &[u32]) {
        while let Some(next) = self.sim.cx.q.peek() {
            if next > last {
                break;
            }
            self.sim.cx.q.pop();
            self.step(next.0, next.1, part_of);
        }
    }

    /// Whether some unfinished flow of its hosts cannot finish within a
    /// window of length `l`: it has more bytes never sent than its port
    /// can send in `l`, or it has bytes never sent and its receiver is in
    /// another partition. (Those bytes leave after the window starts, and
    /// on the way to the receiver they cross a cut link, whose delay is at
    /// least the lookahead `l`: the flow's last ACK comes after the
    /// window. Without this, every window of a long-haul run whose flows
    /// have all arrived may end the run, and such windows run in two
    /// phases, in which a partition that owns no unfinished flow waits for
    /// the others.)
    fn survives(&self, l: Delta, part_of: &[u32]) -> bool {
        let sim = &self.sim;
        self.nics.iter().any(|&n| {
            let nic = &sim.nics[n as usize];
            let rate = sim.ports[nic.port as usize].rate;
            nic.sched.active().any(|q| {
                let qp = &sim.qps[q as usize];
                let unsent = qp.size.saturating_sub(qp.snd.max_sent);
                let across = part_of[qp.dst as usize] != self.id;
                qp.end.is_none() && (rate.tx_time(unsent) > l || (unsent > 0 && across))
            })
        })
    }

    /// Move what this partition sent across cuts into `mail`; the
    /// earliest arrival among them.
    fn post(&mut self, mail: &[Mutex<Mailbox>], p: usize) -> Option<Time> {
        let mut first: Option<Time> = None;
        let sim = &mut self.sim;
        for (to, ports) in self.cut_out.iter().enumerate() {
            if ports
                .iter()
                .all(|&port| sim.ports[port as usize].flight.len() <= 1)
            {
                continue;
            }
            let mut guard = mail[self.id as usize * p + to]
                .lock()
                .expect("no thread panicked");
            let out = &mut *guard;
            for &port in ports {
                let fl = &mut sim.ports[port as usize].flight;
                if fl.len() <= 1 {
                    continue;
                }
                let placeholder = fl.pop_front().expect("a placeholder");
                self.cut_frames += fl.len() as u64;
                while let Some(mut f) = fl.pop_front() {
                    first = Some(first.map_or(f.arrive, |t| t.min(f.arrive)));
                    if let Some(records) = sim.cx.int_pool.take(f.pkt.int) {
                        f.pkt.int = out.int.len() as u32;
                        out.int.push(records);
                    }
                    if f.pkt.kind == PacketKind::SoftAck {
                        out.bodies
                            .push(sim.cx.soft_acks.take_exact(f.pkt.flow, f.pkt.seq));
                    }
                    out.frames.push((port, f));
                }
                fl.push_back(placeholder);
            }
        }
        first
    }

    /// Put the frames sent to this partition on its copies of their wires.
    fn receive(&mut self, mail: &[Mutex<Mailbox>], p: usize) {
        for from in 0..p {
            if from == self.id as usize {
                continue;
            }
            let mut guard = mail[from * p + self.id as usize]
                .lock()
                .expect("no thread panicked");
            let Mailbox {
                frames,
                int,
                bodies,
            } = &mut *guard;
            let sim = &mut self.sim;
            let mut bodies_in = bodies.drain(..);
            for (port, mut f) in frames.drain(..) {
                if f.pkt.int != NO_INT {
                    let (hops, count) = int[f.pkt.int as usize];
                    f.pkt.int = sim.cx.int_pool.put(hops, count);
                }
                if f.pkt.kind == PacketKind::SoftAck {
                    if let Some(body) = bodies_in.next().expect("a body slot per ACK") {
                        sim.cx.soft_acks.put(f.pkt.flow, f.pkt.seq, body);
                    }
                }
                let wire = &mut sim.ports[port as usize].flight;
                let first = wire.is_empty();
                wire.push_back(f);
                if first {
                    sim.cx.q.push(f.arrive, Event::LinkDeliver { port });
                }
            }
            int.clear();
        }
    }

    fn publish(&self, sh: &Shared, slot: usize, posted: Option<Time>, plan: &Plan) {
        let sim = &self.sim;
        let next = match (sim.cx.q.peek_time(), posted) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let mut m = sh.published[slot][self.id as usize]
            .lock()
            .expect("no thread panicked");
        let real = posted.is_some() || self.real_pending();
        *m = Published {
            next,
            survives: self.survives(plan.lookahead, plan.part_of),
            done: Done::No,
            events: sim.cx.events - self.dup,
            completed: sim.cx.completed.len(),
            real,
        };
    }

    fn wait(&mut self, sh: &Shared) {
        let t = Instant::now();
        sh.barrier.wait();
        self.barrier_wait += t.elapsed();
    }

    /// The window loop of one partition's thread. Every thread takes the
    /// same decisions from the same published values.
    fn work(
        &mut self,
        sh: &Shared,
        plan: &Plan,
        mut progress: Option<(Report<'_>, u64)>,
    ) -> (u64, u64) {
        let p = sh.p;
        let l = plan.lookahead;
        let (mut windows, mut end_windows) = (0u64, 0u64);
        let mut next_report = progress.as_ref().map_or(u64::MAX, |(_, every)| *every);
        // `slot`: written before the next barrier; `slot ^ 1`: read after.
        let mut slot = 0;
        self.publish(sh, slot, None, plan);
        self.wait(sh);
        loop {
            slot ^= 1;
            self.receive(&sh.mail[slot ^ 1], p);
            let seen = sh.read(slot ^ 1);
            if let Some((report, every)) = progress.as_mut() {
                let events: u64 = seen.iter().map(|s| s.events).sum();
                if events >= next_report {
                    next_report = events + *every;
                    report(&ProgressInfo {
                        now: self.sim.cx.now,
                        events,
                        flows_started: self.sim.next_flow,
                        flows_finished: seen.iter().map(|s| s.completed).sum(),
                        flows_total: self.sim.flows.len(),
                    });
                }
            }
            let Some(start) = seen.iter().filter_map(|s| s.next).min() else {
                break;
            };
            if !seen.iter().any(|s| s.real) {
                // Nothing but samples left: one run takes the next, if
                // before the stop (it finds nothing pending, and is its
                // last), and ends; the merge keeps the samples up to that
                // one.
                if let Some((t, ev)) = self.sim.cx.q.pop_not_after(plan.stop) {
                    self.step(t, ev, plan.part_of);
                }
                self.idle = true;
                break;
            }
            if start > plan.stop {
                break;
            }
            windows += 1;
            // The window's last picosecond.
            let until = Time(start.ps().saturating_add(l.ps() - 1)).min(plan.stop);
            let mut finished = false;
            if !may_end(&self.sim, &seen, until) {
                self.run_until(until, plan.part_of);
            } else {
                end_windows += 1;
                let done = self.run_until_done(until, plan.part_of);
                *sh.published[slot][self.id as usize]
                    .lock()
                    .expect("no thread panicked") = Published { done, ..seen[0] };
                self.wait(sh);
                slot ^= 1;
                let seen = sh.read(slot ^ 1);
                if seen.iter().all(|s| s.done != Done::No) {
                    let last = seen
                        .iter()
                        .filter_map(|s| match s.done {
                            Done::At(t, ev) => Some((t, ev)),
                            _ => None,
                        })
                        .max();
                    if let Some(last) = last {
                        self.run_through(last, plan.part_of);
                    }
                    finished = true;
                } else {
                    self.run_until(until, plan.part_of);
                }
            }
            let posted = self.post(&sh.mail[slot], p);
            self.publish(sh, slot, posted, plan);
            self.wait(sh);
            if finished {
                self.receive(&sh.mail[slot], p);
                break;
            }
        }
        (windows, end_windows)
    }
}

/// Whether the run may end within the window that ends at `until`: no
/// flow arrives after it, and no partition has a flow that cannot finish
/// within it. (Otherwise some flow is unfinished at the window's end, and
/// the run goes on.)
fn may_end(sim: &Simulation, seen: &[Published], until: Time) -> bool {
    let later_arrival = sim
        .flows
        .get(sim.next_flow)
        .is_some_and(|f| f.start > until);
    !later_arrival && !seen.iter().any(|s| s.survives)
}

/// The partition whose replica handles `ev`; `None` for an event every
/// replica handles (arrivals, failures, samples).
fn owner(sim: &Simulation, part_of: &[u32], ev: Event) -> Option<u32> {
    let node_of_port = |port: u32| sim.ports[port as usize].node;
    let node = match ev {
        Event::FlowArrive { .. } | Event::LinkDown { .. } | Event::QlenDump | Event::Monitor => {
            return None
        }
        Event::LinkDeliver { port } => node_of_port(sim.ports[port as usize].peer),
        Event::TxDone { port } | Event::FcTimer { port, .. } => node_of_port(port),
        Event::NicWake { nic } => node_of_port(sim.nics[nic as usize].port),
        Event::QpTimer { qp, .. } => sim.qps[qp as usize].src,
        Event::RxTimer { flow, .. } => sim.qps[flow as usize].dst,
    };
    Some(part_of[node as usize])
}

impl Simulation {
    /// Start flow `flow`, just opened at NIC `nic`.
    pub(crate) fn start_flow(&mut self, nic: u32, flow: u32) {
        let port = self.nics[nic as usize].port;
        let (mut host, cx) = self.host_at(nic, port);
        host.start(flow, cx);
    }

    /// Run on one thread per partition of `map`: `replicas` are the same
    /// network built once per partition (in partition order), and the
    /// result is one simulation holding what a sequential run would, as if
    /// [`Simulation::run_with_progress`] had run. With one partition, that
    /// is what runs. `progress` is called from the calling thread about
    /// every `every` events.
    ///
    /// # Panics
    /// If the number of replicas is not the number of partitions.
    pub fn run_parallel(
        mut replicas: Vec<Simulation>,
        map: &PartitionMap,
        every: u64,
        mut progress: impl FnMut(&ProgressInfo),
    ) -> (Simulation, ParallelStats) {
        let p = map.parts() as usize;
        assert_eq!(replicas.len(), p, "one replica per partition");
        let wall0 = Instant::now();
        if p == 1 {
            let mut sim = replicas.pop().expect("one replica");
            sim.run_with_progress(every, progress);
            let stats = ParallelStats {
                threads: 1,
                events: vec![sim.cx.events],
                cut_frames: vec![0],
                barrier_wait: vec![Duration::ZERO],
                wall: wall0.elapsed(),
                ..ParallelStats::default()
            };
            return (sim, stats);
        }
        let part_of: Vec<u32> = (0..replicas[0].topo.kinds.len() as u32)
            .map(|n| map.partition_of(n))
            .collect();
        let mut parts: Vec<Part> = replicas
            .into_iter()
            .enumerate()
            .map(|(i, sim)| Part::new(i as u32, sim, &part_of, p))
            .collect();
        // The lookahead: the shortest delay of a port on a cut link (the
        // map's, unless port settings changed a delay).
        let lookahead = parts
            .iter()
            .flat_map(|pt| {
                pt.cut_out
                    .iter()
                    .flatten()
                    .map(|&q| pt.sim.ports[q as usize].delay)
            })
            .min()
            .unwrap_or(Delta(u64::MAX));
        assert!(
            lookahead.ps() > 0,
            "the partition map cuts no link without delay"
        );
        let plan = Plan {
            part_of: &part_of,
            lookahead,
            stop: parts[0].sim.cfg.stop_time.unwrap_or(Time::MAX),
        };
        let n_flows = parts[0].sim.flows.len();
        let mut windows = (0, 0);
        if n_flows > 0 {
            let sh = Shared {
                p,
                barrier: SpinBarrier::new(p),
                published: [0, 1].map(|_| (0..p).map(|_| Mutex::default()).collect()),
                mail: [0, 1].map(|_| (0..p * p).map(|_| Mutex::default()).collect()),
            };
            let (first, rest) = parts.split_first_mut().expect("two partitions or more");
            std::thread::scope(|s| {
                for part in rest.iter_mut() {
                    let (sh, plan) = (&sh, &plan);
                    s.spawn(move || part.work(sh, plan, None));
                }
                windows = first.work(&sh, &plan, Some((&mut progress, every)));
            });
        }
        // The samples of the whole network, and the end: the last event
        // one run handles, its last sample included.
        let last_real = parts
            .iter()
            .map(|pt| pt.last_real)
            .max()
            .unwrap_or(Time::ZERO);
        let monitor = merge_monitors(&mut parts, &part_of, last_real);
        let now = match &monitor {
            Some((_, m)) => last_real.max(m.last.unwrap_or(Time::ZERO)),
            None => parts
                .iter()
                .map(|pt| pt.sim.cx.now)
                .max()
                .unwrap_or(Time::ZERO),
        };
        // The dumps owed up to the end, by every partition (each of its
        // own ports), as the sequential loop writes them.
        let until = if plan.stop == Time::MAX {
            now
        } else {
            plan.stop
        };
        for pt in &mut parts {
            pt.sim.qlen_finish(until);
        }
        let stats = ParallelStats {
            threads: p as u32,
            lookahead,
            windows: windows.0,
            end_windows: windows.1,
            events: parts.iter().map(|pt| pt.sim.cx.events - pt.dup).collect(),
            cut_frames: parts.iter().map(|pt| pt.cut_frames).collect(),
            barrier_wait: parts.iter().map(|pt| pt.barrier_wait).collect(),
            wall: wall0.elapsed(),
        };
        let sim = merge(parts, &part_of, now, monitor);
        (sim, stats)
    }
}

/// Entries of several partitions' logs, each tagged with the event that
/// wrote it, in the order one queue would have written them.
fn merge_log<T: Clone>(logs: Vec<(&[T], &[Key])>) -> Vec<T> {
    let mut all: Vec<((Time, Event), usize, usize)> = Vec::new();
    for (i, (entries, by)) in logs.iter().enumerate() {
        debug_assert_eq!(entries.len(), by.len());
        all.extend(by.iter().enumerate().map(|(k, &key)| (key, i, k)));
    }
    // Entries of one event keep their order (the sort is stable, and one
    // event is handled by one partition).
    all.sort_by_key(|&(key, i, _)| (key, i));
    all.into_iter()
        .map(|(_, i, k)| logs[i].0[k].clone())
        .collect()
}

/// The replicas' time series as one run's, with the `Monitor` events
/// one run handles (`None` without a time series).
fn merge_monitors(
    parts: &mut [Part],
    part_of: &[u32],
    last_real: Time,
) -> Option<(Box<Monitor>, MergedMonitor)> {
    let monitors: Vec<Monitor> = parts
        .iter_mut()
        .map(|pt| pt.sim.monitor.take().map(|m| *m))
        .collect::<Option<_>>()?;
    let sim = &parts[0].sim;
    let owner: Vec<u32> = monitors[0]
        .port_ids()
        .iter()
        .map(|&id| part_of[sim.ports[id as usize].node as usize])
        .collect();
    let idle = parts[0].idle.then_some(last_real);
    let (m, merged) = Monitor::merge(monitors, &owner, idle);
    Some((Box::new(m), merged))
}

/// One simulation holding each node's state from its owner (module doc),
/// which ended at `now`, with the merged time series.
fn merge(
    mut parts: Vec<Part>,
    part_of: &[u32],
    now: Time,
    monitor: Option<(Box<Monitor>, MergedMonitor)>,
) -> Simulation {
    let completed = merge_log(
        parts
            .iter()
            .map(|pt| (pt.sim.cx.completed.as_slice(), pt.completed_by.as_slice()))
            .collect(),
    );
    let pfc_log = merge_log(
        parts
            .iter()
            .map(|pt| (pt.sim.cx.pfc_log.as_slice(), pt.pfc_by.as_slice()))
            .collect(),
    );
    let tx_log = merge_log(
        parts
            .iter()
            .map(|pt| (pt.sim.cx.tx_log.as_slice(), pt.tx_by.as_slice()))
            .collect(),
    );
    let capture = merge_log(
        parts
            .iter()
            .filter_map(|pt| {
                let c = pt.sim.cx.capture.as_ref()?;
                Some((c.frames(), pt.capture_by.as_slice()))
            })
            .collect(),
    );
    let mut events: u64 = parts.iter().map(|pt| pt.sim.cx.events - pt.dup).sum();
    if let Some((_, m)) = &monitor {
        // Samples are counted by the first partition; it may have taken
        // some after the last one one run takes.
        events -= parts[0].samples - m.events;
    }
    let hops: u64 = parts.iter().map(|pt| pt.sim.cx.packet_hops).sum();
    // What one queue would still hold: a sample only while one run would
    // still be sampling.
    let sampling = monitor.as_ref().is_some_and(|(_, m)| !m.ended);
    let pending = parts.iter().position(Part::real_pending).or_else(|| {
        sampling
            .then(|| parts.iter().position(|pt| !pt.sim.cx.q.is_empty()))
            .flatten()
    });
    let qlen = merge_qlen(&parts, part_of);
    // Placeholders off the cut wires.
    for pt in &mut parts {
        for &port in pt.cut_out.iter().flatten() {
            pt.sim.ports[port as usize].flight.pop_front();
        }
    }
    let mut sims = parts.into_iter().map(|pt| pt.sim);
    let mut sim = sims.next().expect("two partitions or more");
    let mut rest: Vec<Simulation> = sims.collect();
    for i in 0..sim.ports.len() {
        let o = part_of[sim.ports[i].node as usize];
        if o != 0 {
            std::mem::swap(&mut sim.ports[i], &mut rest[o as usize - 1].ports[i]);
        }
    }
    for (node, &o) in part_of.iter().enumerate() {
        if o == 0 {
            continue;
        }
        let s = sim.node_switch[node];
        if s != u32::MAX {
            std::mem::swap(
                &mut sim.switches[s as usize],
                &mut rest[o as usize - 1].switches[s as usize],
            );
        }
        let n = sim.node_nic[node];
        if n != u32::MAX {
            std::mem::swap(
                &mut sim.nics[n as usize],
                &mut rest[o as usize - 1].nics[n as usize],
            );
        }
    }
    for f in 0..sim.qps.len() {
        let (src, dst) = (sim.qps[f].src, sim.qps[f].dst);
        let o = part_of[src as usize];
        if o != 0 {
            std::mem::swap(&mut sim.qps[f], &mut rest[o as usize - 1].qps[f]);
        }
        let o = part_of[dst as usize];
        if o != 0 {
            std::mem::swap(&mut sim.rx[f], &mut rest[o as usize - 1].rx[f]);
        }
    }
    match pending {
        Some(0) => {}
        Some(i) => std::mem::swap(&mut sim.cx.q, &mut rest[i - 1].cx.q),
        None => sim.cx.q = EventQueue::new(),
    }
    if let Some(c) = sim.cx.capture.take() {
        sim.cx.capture = Some(Box::new(c.merge(capture)));
    }
    if let Some((m, _)) = monitor {
        sim.monitor = Some(m);
    }
    sim.cx.completed = completed;
    sim.cx.pfc_log = pfc_log;
    sim.cx.tx_log = tx_log;
    sim.cx.events = events;
    sim.cx.packet_hops = hops;
    sim.cx.now = now;
    if let (Some(m), Some(text)) = (sim.cx.qlen.as_mut(), qlen) {
        m.text = text;
    }
    sim
}

/// The queue-length dumps, each port's line from the partition that owns
/// its switch (every partition writes every dump, the same lines in the
/// same order; only the owner's numbers are right).
fn merge_qlen(parts: &[Part], part_of: &[u32]) -> Option<String> {
    let texts: Vec<&str> = parts
        .iter()
        .map(|pt| pt.sim.cx.qlen.as_ref().map(|m| m.text.as_str()))
        .collect::<Option<_>>()?;
    let mut lines: Vec<std::str::Lines> = texts.iter().map(|t| t.lines()).collect();
    let mut out = String::with_capacity(texts[0].len());
    while let Some(first) = lines[0].next() {
        let rest: Vec<&str> = lines[1..]
            .iter_mut()
            .map(|l| l.next().expect("the same dumps"))
            .collect();
        let line = if first.starts_with("time:") {
            first
        } else {
            let node: usize = first
                .split(' ')
                .next()
                .and_then(|n| n.parse().ok())
                .expect("a dump line starts with its node");
            match part_of[node] {
                0 => first,
                o => rest[o as usize - 1],
            }
        };
        out.push_str(line);
        out.push('\n');
    }
    Some(out)
}
