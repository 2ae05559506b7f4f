//! The per-flow PAUSE and RESUME frames of one port, as BFC and FlowSail
//! send and obey them ([`FlowPauseCounts`]): the flow-control object of a
//! port whose switch egress runs one of those schemes, or of a NIC beside
//! such a switch.
//!
//! Both schemes decide at a switch egress: the egress (`egress/bfc.rs`,
//! `egress/flowsail.rs`) marks the frames that cross its thresholds and
//! hands a PAUSE or RESUME for the frame's flow to the port the frame came
//! in by ([`FlowControl::send_upstream`]), which sends it to its peer. The
//! upstream acts on it: a switch egress in its own queues (it pauses a
//! physical queue), a NIC here, by holding the flow back.
//!
//! Counter semantics everywhere (FlowSail §IV-B, §IV-C): a flow may be
//! paused several times over (FlowSail's congested switch pauses it once
//! for its normal queue and once for its isolation queue), and it is held
//! back while the PAUSEs it got outnumber its RESUMEs. The counts of both
//! directions are what the end-of-run check reads (`held_flows`): a flow
//! still paused, or a PAUSE sent without its RESUME, once every flow
//! finished, is a leak.

use super::hooks::{FcCounters, FcOutbox, FlowControl};
use crate::wire::{Packet, PacketKind, QueueKey};
use engine::{Delta, Rate, Time};
use std::collections::HashMap;

/// How a BFC or FlowSail egress gives a new active flow its queue.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum QueueMapping {
    /// An empty queue if there is one, else one drawn uniformly at random
    /// (BFC §3, FlowSail §IV-A, Alg. 1 l. 9–13): the papers' mapping.
    #[default]
    Dynamic,
    /// Every flow in the first (normal) queue: the micro-benchmark's
    /// forced sharing (FlowSail §VI-A forces chosen flows into one queue
    /// at each port of its testbed).
    Shared,
}

impl QueueMapping {
    /// Every mapping with its name in configs, the default first.
    pub const ALL: [(&'static str, QueueMapping); 2] = [
        ("dynamic", QueueMapping::Dynamic),
        ("shared", QueueMapping::Shared),
    ];
}

/// The hop round trip at a port whose link has `delay`, where the settings
/// name none: twice the link delay (rdmasim's choice for BFC and FlowSail
/// alike, docs/flowsail.md).
pub fn default_hrtt(delay: Delta) -> Delta {
    Delta(delay.0 * 2)
}

/// Why a BFC or FlowSail port with `queues` queues per port, a hop round
/// trip `hrtt` and a first threshold of `first` hop BDPs (at one active
/// queue) cannot run on a link of `rate`, where a data frame is `frame`
/// bytes; the threshold in bytes if it can. `min_queues`: the scheme's
/// least.
pub fn check_port(
    queues: u32,
    min_queues: u32,
    first: f64,
    hrtt: engine::Delta,
    rate: Rate,
    frame: u64,
) -> Result<u64, String> {
    if !(min_queues..=MAX_QUEUES).contains(&queues) {
        return Err(format!(
            "{queues} queues per port: it takes {min_queues} to {MAX_QUEUES}"
        ));
    }
    let bytes = (first * rate.bytes_in(hrtt) as f64) as u64;
    if bytes < frame {
        return Err(format!(
            "the threshold is {bytes} B at this port ({first} hop BDP of {} B: a hop \
             round trip of {} ns at {} Gb/s), below one {frame} B data frame",
            rate.bytes_in(hrtt),
            hrtt.ns(),
            rate.bps() as f64 / 1e9
        ));
    }
    Ok(bytes)
}

/// Most physical queues per port a BFC or FlowSail egress keeps (FlowSail
/// §VI-C, Fig. 15, sweeps 2 to 128).
pub const MAX_QUEUES: u32 = 128;

/// One port's per-flow PAUSE/RESUME counts: those it sent (downstream
/// half) and those it received (upstream half).
#[derive(Clone, Debug, Default)]
pub struct FlowPauseCounts {
    /// Hold back the flows the far end paused in `may_send` (a NIC). A
    /// switch port leaves this to its egress, which pauses queues.
    gate: bool,
    /// Upstream half: PAUSEs less RESUMEs received, per flow (> 0 only).
    paused: HashMap<u32, u32>,
    /// Downstream half: PAUSEs less RESUMEs sent, per flow (> 0 only).
    sent: HashMap<u32, u32>,
    c: FcCounters,
}

impl FlowPauseCounts {
    /// A port's counts; `gate`: it holds paused flows back itself (a NIC).
    pub fn new(gate: bool) -> FlowPauseCounts {
        FlowPauseCounts {
            gate,
            ..FlowPauseCounts::default()
        }
    }

    /// Flows the far end has paused more often than resumed, ascending.
    pub fn paused_at_this_port(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self.paused.keys().copied().collect();
        v.sort_unstable();
        v
    }

    /// Flows this port sent more PAUSEs than RESUMEs for, ascending.
    pub fn paused_by_this_port(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self.sent.keys().copied().collect();
        v.sort_unstable();
        v
    }
}

/// Add `up` (+1) or take one (−1) from `flow`'s count in `m`, forgetting
/// it at 0. A count never goes below 0: a RESUME follows its PAUSE on the
/// same link, in order.
fn step(m: &mut HashMap<u32, u32>, flow: u32, up: bool) {
    if up {
        *m.entry(flow).or_default() += 1;
        return;
    }
    match m.get_mut(&flow) {
        Some(n) if *n > 1 => *n -= 1,
        Some(_) => {
            m.remove(&flow);
        }
        None => debug_assert!(false, "flow {flow}: a RESUME without its PAUSE"),
    }
}

impl FlowControl for FlowPauseCounts {
    #[inline]
    fn may_send(&self, _now: Time, key: QueueKey, _bytes: u32) -> bool {
        if !self.gate || self.paused.is_empty() || key.class() == 0 {
            return true;
        }
        key.flow().is_none_or(|f| !self.paused.contains_key(&f))
    }

    fn on_ctrl(&mut self, _now: Time, frame: &Packet, _rate: Rate, out: &mut FcOutbox) {
        if frame.kind != PacketKind::FlowPause {
            return;
        }
        let class = frame.pfc_class() as usize;
        let pause = frame.pauses_flow();
        if pause {
            self.c.pause_rx[class] += 1;
        } else {
            self.c.resume_rx[class] += 1;
            out.wake = true;
        }
        step(&mut self.paused, frame.flow, pause);
    }

    fn send_upstream(&mut self, _now: Time, frame: &Packet, out: &mut FcOutbox) {
        debug_assert_eq!(frame.kind, PacketKind::FlowPause);
        let class = frame.pfc_class() as usize;
        let pause = frame.pauses_flow();
        if pause {
            self.c.pause_tx[class] += 1;
        } else {
            self.c.resume_tx[class] += 1;
        }
        step(&mut self.sent, frame.flow, pause);
        out.frames.push(*frame);
    }

    /// Each flow paused by or at this port, with no bytes (the bytes are
    /// the egress's).
    fn held_flows(&self) -> Vec<(u32, u64, bool)> {
        let mut v: Vec<u32> = self
            .sent
            .keys()
            .chain(self.paused.keys())
            .copied()
            .collect();
        v.sort_unstable();
        v.dedup();
        v.into_iter().map(|f| (f, 0, true)).collect()
    }

    fn counters(&self, _now: Time) -> FcCounters {
        // `paused_ps` stays 0: no class is ever paused.
        self.c.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctrl(u: &mut FlowPauseCounts, flow: u32, pause: bool) -> FcOutbox {
        let mut out = FcOutbox::default();
        let f = Packet::flow_pause(3, flow, pause);
        u.on_ctrl(Time::ZERO, &f, Rate::gbps(100), &mut out);
        out
    }

    #[test]
    fn a_nic_holds_a_flow_back_while_its_pauses_outnumber_its_resumes() {
        let mut u = FlowPauseCounts::new(true);
        let k = |f| QueueKey::of_flow(3, f);
        ctrl(&mut u, 1, true);
        ctrl(&mut u, 1, true);
        assert!(!u.may_send(Time::ZERO, k(1), 1000));
        assert!(u.may_send(Time::ZERO, k(2), 1000), "others keep sending");
        assert!(u.may_send(Time::ZERO, QueueKey::of_class(3), 60), "ACKs");
        assert!(u.may_send(Time::ZERO, QueueKey::of_flow(0, 1), 60));
        assert!(ctrl(&mut u, 1, false).wake);
        assert!(!u.may_send(Time::ZERO, k(1), 1000), "one PAUSE left");
        assert_eq!(u.held_flows(), [(1, 0, true)]);
        ctrl(&mut u, 1, false);
        assert!(u.may_send(Time::ZERO, k(1), 1000));
        assert!(u.held_flows().is_empty());
        let c = u.counters(Time::ZERO);
        assert_eq!((c.pause_rx[3], c.resume_rx[3]), (2, 2));
    }

    #[test]
    fn a_switch_port_counts_but_leaves_gating_to_its_egress() {
        let mut u = FlowPauseCounts::new(false);
        ctrl(&mut u, 1, true);
        assert!(u.may_send(Time::ZERO, QueueKey::of_flow(3, 1), 1000));
        assert_eq!(u.paused_at_this_port(), [1]);
        let mut out = FcOutbox::default();
        u.send_upstream(Time::ZERO, &Packet::flow_pause(3, 7, true), &mut out);
        assert_eq!(out.frames.len(), 1);
        assert_eq!(u.paused_by_this_port(), [7]);
        assert_eq!(u.held_flows(), [(1, 0, true), (7, 0, true)]);
        u.send_upstream(Time::ZERO, &Packet::flow_pause(3, 7, false), &mut out);
        ctrl(&mut u, 1, false);
        assert!(u.held_flows().is_empty());
        let c = u.counters(Time::ZERO);
        assert_eq!((c.pause_tx[3], c.resume_tx[3]), (1, 1));
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "a RESUME without its PAUSE")]
    fn a_resume_without_its_pause_is_caught() {
        let mut u = FlowPauseCounts::new(true);
        ctrl(&mut u, 1, false);
    }
}
