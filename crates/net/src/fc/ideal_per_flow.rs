//! Ideal per-flow flow control: every flow has a queue of its own, and a
//! flow is paused hop by hop when its own queue grows too long, without
//! touching any other flow (FlowSail §I, §VI-A: the "Ideal FC" baseline
//! of Fig. 9, after its reference [20]).
//!
//! Both halves of a port, as every scheme here:
//! - the **downstream ingress** counts the bytes it holds per flow (admitted
//!   and not yet released; a flow enters a switch by one ingress, so this
//!   is the flow's own queue at this switch), sends PAUSE for a flow once
//!   they exceed `pause` and RESUME once they are back at or below
//!   `resume`;
//! - the **upstream egress** keeps the set of flows it was told to pause
//!   and refuses them in `may_send`; every other flow keeps sending. A
//!   switch egress must hold each flow in a queue of its own for that to
//!   help (the `per_flow` egress, which the config pairs with this scheme);
//!   a NIC asks by flow already.
//!
//! The paper gives no threshold ("a predetermined threshold"); the
//! defaults are rdmasim's choice, see [`IdealPerFlowConfig`]. The
//! hysteresis (`resume` below `pause`) is rdmasim's too: it bounds how
//! many control frames a flow draining at about its arrival rate costs.
//!
//! Control frames are [`PacketKind::FlowPause`] frames, 64 B, sent and
//! obeyed as PFC frames are: strict priority, never paused, never lost
//! short of a link error model. There is no refresh: under an error model
//! a lost RESUME leaves its flow paused for good, as a lost XON does under
//! PFC's `until_resume`. Class 0 (control, high-priority ACKs) is
//! never counted or gated. A frame in a data class whose key names no flow
//! (a NIC's ACK without `ack_high_prio`) is never gated either: the scheme
//! pauses flows, and such a key names none.

use super::hooks::{FcCounters, FcOutbox, FlowControl, IngressState};
use crate::wire::{Packet, PacketKind, QueueKey};
use engine::{Rate, Time};
use std::collections::{HashMap, HashSet};

/// Settings of one ideal per-flow port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdealPerFlowConfig {
    /// Pause a flow once this ingress holds more than this many of its
    /// bytes. Default 40 KiB: rdmasim's choice, `resume` plus eight
    /// 1 KiB frames, so that a paused flow's queue drains a few frames
    /// before it is resumed (the peer's 1000 B payloads).
    pub pause: u64,
    /// Resume it once the ingress holds at most this many. Default 32 KiB:
    /// rdmasim's choice, above one hop's bandwidth-delay product of a
    /// 100 Gb/s, 1 µs link (25 kB, FlowSail §VI-B's links), so that a
    /// resumed flow's queue does not run dry before its frames come back.
    /// Must be below `pause`.
    pub resume: u64,
}

impl Default for IdealPerFlowConfig {
    fn default() -> Self {
        IdealPerFlowConfig {
            pause: 40 * 1024,
            resume: 32 * 1024,
        }
    }
}

impl IdealPerFlowConfig {
    /// Why these settings cannot run, if they cannot.
    pub fn check(&self) -> Result<(), String> {
        if self.pause == 0 {
            return Err("the pause threshold must be above 0 B".into());
        }
        if self.resume >= self.pause {
            return Err(format!(
                "the resume threshold ({} B) must be below the pause threshold ({} B)",
                self.resume, self.pause
            ));
        }
        Ok(())
    }
}

/// What one ideal per-flow port did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IdealPerFlowStats {
    /// Most bytes of one flow held at this ingress at once.
    pub peak_flow_bytes: u64,
    /// Most flows paused by this ingress at once.
    pub peak_paused_flows: u64,
}

/// A flow this ingress holds bytes of, or has paused.
#[derive(Clone, Copy, Debug, Default)]
struct Held {
    bytes: u64,
    /// PAUSE sent and no RESUME since.
    paused: bool,
}

/// Ideal per-flow flow control of one port: both halves.
#[derive(Clone, Debug)]
pub struct IdealPerFlow {
    cfg: IdealPerFlowConfig,
    // Downstream half: by flow id; a flow leaves when it holds nothing
    // here (and so is not paused).
    held: HashMap<u32, Held>,
    /// Flows this ingress has paused now.
    paused_here: u64,
    // Upstream half: the flows the far end paused.
    paused: HashSet<u32>,
    c: FcCounters,
    stats: IdealPerFlowStats,
}

impl IdealPerFlow {
    /// A port with `cfg` (which [`IdealPerFlowConfig::check`] accepts).
    pub fn new(cfg: IdealPerFlowConfig) -> IdealPerFlow {
        debug_assert!(cfg.check().is_ok(), "{:?}", cfg.check());
        IdealPerFlow {
            cfg,
            held: HashMap::new(),
            paused_here: 0,
            paused: HashSet::new(),
            c: FcCounters::default(),
            stats: IdealPerFlowStats::default(),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &IdealPerFlowConfig {
        &self.cfg
    }

    /// Counters so far.
    pub fn stats(&self) -> &IdealPerFlowStats {
        &self.stats
    }

    /// Bytes of `flow` held at this ingress.
    pub fn held_bytes(&self, flow: u32) -> u64 {
        self.held.get(&flow).map_or(0, |h| h.bytes)
    }

    /// Flows this ingress has paused and not resumed, ascending.
    pub fn paused_by_this_port(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self
            .held
            .iter()
            .filter(|(_, h)| h.paused)
            .map(|(&f, _)| f)
            .collect();
        v.sort_unstable();
        v
    }

    /// Flows the far end has paused and not resumed (this port's egress
    /// holds them back), ascending.
    pub fn paused_at_this_port(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self.paused.iter().copied().collect();
        v.sort_unstable();
        v
    }

    fn emit(&mut self, class: usize, flow: u32, pause: bool, out: &mut FcOutbox) {
        out.frames
            .push(Packet::flow_pause(class as u8, flow, pause));
        if pause {
            self.c.pause_tx[class] += 1;
        } else {
            self.c.resume_tx[class] += 1;
        }
    }
}

/// The class and flow of a frame this scheme counts: one that names its
/// flow, in a class other than 0 (control and high-priority traffic,
/// never paused).
fn counted(key: QueueKey) -> Option<(usize, u32)> {
    let (class, flow) = (key.class(), key.flow()?);
    (class != 0).then_some((class, flow))
}

impl FlowControl for IdealPerFlow {
    /// Each flow this ingress holds bytes of or has paused, in no order.
    fn held_flows(&self) -> Vec<(u32, u64, bool)> {
        self.held
            .iter()
            .map(|(&f, h)| (f, h.bytes, h.paused))
            .collect()
    }
    #[inline]
    fn may_send(&self, _now: Time, key: QueueKey, _bytes: u32) -> bool {
        if self.paused.is_empty() || key.class() == 0 {
            return true;
        }
        key.flow().is_none_or(|f| !self.paused.contains(&f))
    }

    fn on_ctrl(&mut self, _now: Time, frame: &Packet, _rate: Rate, out: &mut FcOutbox) {
        if frame.kind != PacketKind::FlowPause {
            return;
        }
        let class = frame.pfc_class() as usize;
        if frame.pauses_flow() {
            self.c.pause_rx[class] += 1;
            self.paused.insert(frame.flow);
        } else {
            self.c.resume_rx[class] += 1;
            // A RESUME follows its PAUSE on the same link, in order; under
            // a link error model the PAUSE may have been lost, and then
            // there is nothing to lift.
            self.paused.remove(&frame.flow);
            out.wake = true;
        }
    }

    fn after_admit(
        &mut self,
        _now: Time,
        key: QueueKey,
        bytes: u32,
        _s: IngressState,
        out: &mut FcOutbox,
    ) {
        let Some((class, flow)) = counted(key) else {
            return;
        };
        let h = self.held.entry(flow).or_default();
        h.bytes += u64::from(bytes);
        let (held, pause) = (h.bytes, !h.paused && h.bytes > self.cfg.pause);
        if pause {
            h.paused = true;
            self.paused_here += 1;
            self.stats.peak_paused_flows = self.stats.peak_paused_flows.max(self.paused_here);
            self.emit(class, flow, true, out);
        }
        self.stats.peak_flow_bytes = self.stats.peak_flow_bytes.max(held);
    }

    fn after_release(
        &mut self,
        _now: Time,
        key: QueueKey,
        bytes: u32,
        _s: IngressState,
        out: &mut FcOutbox,
    ) {
        let Some((class, flow)) = counted(key) else {
            return;
        };
        let Some(h) = self.held.get_mut(&flow) else {
            debug_assert!(false, "flow {flow} released bytes it never had here");
            return;
        };
        debug_assert!(
            h.bytes >= u64::from(bytes),
            "flow {flow} releases {bytes} B of the {} B it holds",
            h.bytes
        );
        h.bytes = h.bytes.saturating_sub(u64::from(bytes));
        let resume = h.paused && h.bytes <= self.cfg.resume;
        if resume {
            h.paused = false;
            self.paused_here -= 1;
        }
        // A flow that holds nothing here is not paused (the resume
        // threshold is at least 0): so a finished flow leaves no PAUSE
        // without its RESUME.
        debug_assert!(h.bytes > 0 || !h.paused);
        if h.bytes == 0 {
            self.held.remove(&flow);
        }
        if resume {
            self.emit(class, flow, false, out);
        }
    }

    fn counters(&self, _now: Time) -> FcCounters {
        // `paused_ps` stays 0: it counts a class's paused time, and this
        // scheme never pauses a class.
        self.c.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: IngressState = IngressState {
        over_xoff: false,
        below_xon: true,
    };

    fn cfg() -> IdealPerFlowConfig {
        IdealPerFlowConfig {
            pause: 3000,
            resume: 1000,
        }
    }

    /// Hand every frame in `out` to `u`, as the link would.
    fn deliver(out: &mut FcOutbox, u: &mut IdealPerFlow) -> Vec<(u32, bool)> {
        out.frames
            .drain(..)
            .map(|f| {
                assert_eq!(f.kind, PacketKind::FlowPause);
                assert!(f.kind.is_control());
                u.on_ctrl(Time::ZERO, &f, Rate::gbps(100), &mut FcOutbox::default());
                (f.flow, f.pauses_flow())
            })
            .collect()
    }

    #[test]
    fn a_flow_over_its_threshold_is_paused_alone_and_resumed_with_hysteresis() {
        let (mut d, mut u) = (IdealPerFlow::new(cfg()), IdealPerFlow::new(cfg()));
        let mut out = FcOutbox::default();
        let k = |f| QueueKey::of_flow(3, f);
        // Flow 1 builds up 4000 B; flow 2 holds 1000 B.
        for _ in 0..3 {
            d.after_admit(Time::ZERO, k(1), 1000, S, &mut out);
        }
        d.after_admit(Time::ZERO, k(2), 1000, S, &mut out);
        assert!(out.frames.is_empty(), "3000 B is not over 3000 B");
        d.after_admit(Time::ZERO, k(1), 1000, S, &mut out);
        assert_eq!(deliver(&mut out, &mut u), [(1, true)]);
        assert!(!u.may_send(Time::ZERO, k(1), 1000));
        assert!(u.may_send(Time::ZERO, k(2), 1000), "others keep sending");
        assert!(u.may_send(Time::ZERO, QueueKey::of_class(0), 64));
        assert!(u.may_send(Time::ZERO, QueueKey::of_class(3), 64));
        // More of flow 1 while paused: no second PAUSE.
        d.after_admit(Time::ZERO, k(1), 1000, S, &mut out);
        assert!(out.frames.is_empty());
        assert_eq!(d.paused_by_this_port(), [1]);
        // Down to 2000 B, between the thresholds: still paused.
        for _ in 0..3 {
            d.after_release(Time::ZERO, k(1), 1000, S, &mut out);
        }
        assert!(out.frames.is_empty());
        // At 1000 B, the resume threshold: RESUME.
        d.after_release(Time::ZERO, k(1), 1000, S, &mut out);
        assert_eq!(deliver(&mut out, &mut u), [(1, false)]);
        assert!(u.may_send(Time::ZERO, k(1), 1000));
        d.after_release(Time::ZERO, k(1), 1000, S, &mut out);
        d.after_release(Time::ZERO, k(2), 1000, S, &mut out);
        assert!(out.frames.is_empty());
        assert_eq!(d.held_bytes(1), 0);
        assert!(d.held.is_empty(), "flows that hold nothing are forgotten");
        assert!(u.paused_at_this_port().is_empty());
        let (dc, uc) = (d.counters(Time::ZERO), u.counters(Time::ZERO));
        assert_eq!((dc.pause_tx[3], dc.resume_tx[3]), (1, 1));
        assert_eq!((uc.pause_rx[3], uc.resume_rx[3]), (1, 1));
        assert_eq!(d.stats().peak_flow_bytes, 5000);
        assert_eq!(d.stats().peak_paused_flows, 1);
    }

    #[test]
    fn class_zero_is_never_counted_or_gated() {
        let mut d = IdealPerFlow::new(cfg());
        let mut out = FcOutbox::default();
        for _ in 0..10 {
            d.after_admit(Time::ZERO, QueueKey::of_flow(0, 1), 1000, S, &mut out);
        }
        assert!(out.frames.is_empty());
        assert_eq!(d.held_bytes(1), 0);
        let mut u = IdealPerFlow::new(cfg());
        u.on_ctrl(
            Time::ZERO,
            &Packet::flow_pause(3, 1, true),
            Rate::gbps(100),
            &mut out,
        );
        assert!(u.may_send(Time::ZERO, QueueKey::of_flow(0, 1), 64));
        assert!(!u.may_send(Time::ZERO, QueueKey::of_flow(3, 1), 64));
    }

    #[test]
    fn other_control_frames_are_ignored() {
        let mut u = IdealPerFlow::new(cfg());
        let mut out = FcOutbox::default();
        u.on_ctrl(Time::ZERO, &Packet::pfc(3, 100), Rate::gbps(100), &mut out);
        assert!(u.may_send(Time::ZERO, QueueKey::of_flow(3, 1), 64));
        assert!(out.is_empty());
    }

    #[test]
    fn thresholds_are_checked() {
        assert!(IdealPerFlowConfig::default().check().is_ok());
        let bad = IdealPerFlowConfig {
            pause: 1000,
            resume: 1000,
        };
        assert!(bad.check().unwrap_err().contains("below the pause"));
        let zero = IdealPerFlowConfig {
            pause: 0,
            resume: 0,
        };
        assert!(zero.check().is_err());
    }
}
