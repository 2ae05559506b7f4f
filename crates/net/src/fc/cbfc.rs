//! Credit-based link flow control, InfiniBand style (CBFC).
//!
//! Heads up: read Bifrost §II-B (CBFC's FCCL and FCTBS), §III-A (the 12-bit
//! FCCL field and the reach it allows) and §VI-B (CBFC-ideal as the Bifrost
//! paper configures it), and the InfiniBand specification (IBTA).
//!
//! Per class (a virtual lane), in blocks of `block` bytes (64 B):
//! - the **downstream ingress** keeps ABR, the blocks it has received, and
//!   advertises FCCL = ABR + free blocks of its buffer (the *Flow Control
//!   Credit Limit*), in credit-update frames on the wire;
//! - the **upstream egress** keeps FCTBS, the blocks it has sent, and starts
//!   a frame only if FCCL − FCTBS covers the frame's blocks.
//!
//! Both counters are cumulative, so a lost or late update is repaired by the
//! next one. With a limited field (`field_bits = Some(12)`, real InfiniBand)
//! the FCCL is carried modulo 2^bits and the upstream computes
//! (FCCL − FCTBS) mod 2^bits, so at most 2^bits − 1 blocks may ever be
//! outstanding: the downstream never advertises more than that beyond ABR.
//! That is what limits CBFC's reach: at most (2^12 − 1) × 64 B per credit
//! round trip, 2.1 km at 100 Gb/s (`rdmasim buffer` rounds the limit to
//! 2^12 blocks). `field_bits = None` is CBFC-ideal: no limit.
//!
//! Update policy (Bifrost does not give CBFC-ideal's update period; rdmasim's
//! choice): an update goes out as soon as the FCCL has advanced `update_blocks`
//! beyond the last one sent, and any smaller advance is flushed `update_period`
//! after it happened. Each class speaks first with its whole buffer; the
//! simulation hands that first update to the upstream at time zero, as
//! InfiniBand exchanges credits while the link trains, before it carries data.
//! Until an upstream has heard it, it sends nothing in that class. Class 0
//! (control, high-priority ACKs) is never credit-limited.
//!
//! Simplifications: no FCTBS frames from the upstream (InfiniBand sends them
//! to resynchronise ABR after a loss; rdmasim's frames are lost only under a
//! link error model, and a corrupted data frame then leaks its blocks for
//! good), and the update frame is a 64 B Ethernet-size frame
//! ([`crate::wire::CREDIT_FRAME_BYTES`]).

use super::hooks::{FcCounters, FcOutbox, FlowControl, IngressState};
use crate::wire::{Packet, PacketKind, QueueKey, N_CLASSES};
use engine::{Delta, Rate, Time};

/// Settings of one CBFC port.
#[derive(Clone, Debug, PartialEq)]
pub struct CbfcConfig {
    /// Credit block, bytes. 64 (Bifrost §II-B: "one block is 64 bytes").
    pub block: u32,
    /// Width of the FCCL field in bits: `Some(12)` is InfiniBand's
    /// (Bifrost §III-A: "There are 12 bits in the CBFC message for the
    /// FCCL"); `None` is CBFC-ideal, without the limit (Bifrost §VI-B).
    pub field_bits: Option<u32>,
    /// Buffer this ingress advertises per class, bytes. At a switch the
    /// port's ingress owns exactly this much (a static buffer) unless the
    /// port's `xoff` says otherwise.
    pub buffer: u64,
    /// Send an update once the FCCL has advanced this many blocks since the
    /// last one. Default 32 blocks (2 KiB): rdmasim's choice, about one
    /// 1500 B frame plus change, 3% of the reverse bandwidth at most.
    pub update_blocks: u64,
    /// Flush a smaller advance after this long. Default 1 µs: rdmasim's
    /// choice (Bifrost's slot, 10 µs, would also do; 1 µs keeps small
    /// buffers on short links from idling).
    pub update_period: Delta,
    /// Classes (bit i = class i) under credit control; default classes
    /// 1–7. Others are neither limited nor advertised.
    pub classes: u8,
}

impl CbfcConfig {
    /// InfiniBand's CBFC: 64 B blocks, 12-bit field, `buffer` per class.
    pub fn real(buffer: u64) -> CbfcConfig {
        CbfcConfig {
            block: 64,
            field_bits: Some(12),
            buffer,
            update_blocks: 32,
            update_period: Delta::from_us(1),
            classes: 0xFE,
        }
    }

    /// CBFC-ideal: as [`CbfcConfig::real`] without the field limit.
    pub fn ideal(buffer: u64) -> CbfcConfig {
        CbfcConfig {
            field_bits: None,
            ..CbfcConfig::real(buffer)
        }
    }
}

/// What one CBFC port did, per class.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CbfcStats {
    /// Credit updates sent (this port as downstream).
    pub updates_tx: [u64; N_CLASSES],
    /// Credit updates received (this port as upstream).
    pub updates_rx: [u64; N_CLASSES],
    /// Most bytes held at this ingress at once.
    pub peak_held: [u64; N_CLASSES],
    /// Most blocks held at this ingress at once.
    pub peak_held_blocks: [u64; N_CLASSES],
}

/// CBFC state of one port: both halves.
#[derive(Clone, Debug)]
pub struct Cbfc {
    cfg: CbfcConfig,
    /// 2^bits − 1 for a limited field, else `u64::MAX`.
    mask: u64,
    cap_blocks: u64,
    // Downstream half.
    /// ABR: blocks received, cumulative (full width).
    abr: [u64; N_CLASSES],
    held_blocks: [u64; N_CLASSES],
    held_bytes: [u64; N_CLASSES],
    /// FCCL last advertised (full width, before reduction).
    sent_fccl: [u64; N_CLASSES],
    /// When an unsent advance is due to be flushed, or `Time::MAX`.
    flush_at: [Time; N_CLASSES],
    // Upstream half.
    /// FCCL last received (as carried: reduced modulo 2^bits if limited).
    fccl: [u64; N_CLASSES],
    /// FCTBS: blocks sent, cumulative (full width).
    fctbs: [u64; N_CLASSES],
    heard: [bool; N_CLASSES],
    stats: CbfcStats,
}

impl Cbfc {
    /// A CBFC port with `cfg`.
    pub fn new(cfg: CbfcConfig) -> Cbfc {
        assert!(cfg.block > 0, "CBFC block must be > 0");
        let mask = match cfg.field_bits {
            Some(b) if b < 64 => (1u64 << b) - 1,
            _ => u64::MAX,
        };
        Cbfc {
            cap_blocks: cfg.buffer / u64::from(cfg.block),
            cfg,
            mask,
            abr: [0; N_CLASSES],
            held_blocks: [0; N_CLASSES],
            held_bytes: [0; N_CLASSES],
            sent_fccl: [0; N_CLASSES],
            flush_at: [Time::MAX; N_CLASSES],
            fccl: [0; N_CLASSES],
            fctbs: [0; N_CLASSES],
            heard: [false; N_CLASSES],
            stats: CbfcStats::default(),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &CbfcConfig {
        &self.cfg
    }

    /// Counters so far.
    pub fn stats(&self) -> &CbfcStats {
        &self.stats
    }

    fn controlled(&self, class: usize) -> bool {
        class != 0 && self.cfg.classes & (1 << class) != 0
    }

    fn blocks(&self, bytes: u32) -> u64 {
        u64::from(bytes.div_ceil(self.cfg.block))
    }

    /// The FCCL to advertise now (full width): ABR + free blocks, the free
    /// part capped at 2^bits − 1 so the upstream's modular difference stays
    /// unambiguous (the 12-bit field of Bifrost §III-A).
    fn fccl_now(&self, class: usize) -> u64 {
        let free = self.cap_blocks - self.held_blocks[class];
        self.abr[class] + free.min(self.mask)
    }

    /// Credits the upstream holds, blocks.
    pub fn credits(&self, class: usize) -> u64 {
        if !self.heard[class] {
            return 0;
        }
        if self.mask == u64::MAX {
            self.fccl[class].saturating_sub(self.fctbs[class])
        } else {
            self.fccl[class].wrapping_sub(self.fctbs[class]) & self.mask
        }
    }

    fn send_update(&mut self, class: usize, out: &mut FcOutbox) {
        let f = self.fccl_now(class);
        self.sent_fccl[class] = f;
        self.flush_at[class] = Time::MAX;
        let carried = if self.mask == u64::MAX {
            f
        } else {
            f & self.mask
        };
        out.frames.push(Packet::credit(class as u8, carried));
        self.stats.updates_tx[class] += 1;
    }

    /// Send now if the FCCL moved far enough, else schedule a flush.
    fn maybe_update(&mut self, now: Time, class: usize, out: &mut FcOutbox) {
        let f = self.fccl_now(class);
        let advance = f - self.sent_fccl[class];
        if advance >= self.cfg.update_blocks.max(1) {
            self.send_update(class, out);
        } else if advance > 0 && self.flush_at[class] == Time::MAX {
            self.flush_at[class] = now + self.cfg.update_period;
            self.arm(out);
        }
    }

    fn arm(&self, out: &mut FcOutbox) {
        let next = self.flush_at.iter().copied().min().unwrap_or(Time::MAX);
        if next != Time::MAX {
            out.timer = Some(next);
        }
    }
}

impl FlowControl for Cbfc {
    fn on_start(&mut self, _now: Time, out: &mut FcOutbox) {
        for class in 1..N_CLASSES {
            if self.controlled(class) {
                self.send_update(class, out);
            }
        }
    }

    #[inline]
    fn may_send(&self, _now: Time, key: QueueKey, bytes: u32) -> bool {
        let class = key.class();
        !self.controlled(class) || self.credits(class) >= self.blocks(bytes)
    }

    fn on_send(&mut self, _now: Time, key: QueueKey, bytes: u32) {
        let class = key.class();
        if self.controlled(class) {
            debug_assert!(
                self.credits(class) >= self.blocks(bytes),
                "sent without credit"
            );
            self.fctbs[class] += self.blocks(bytes);
        }
    }

    fn on_ctrl(&mut self, _now: Time, frame: &Packet, _rate: Rate, out: &mut FcOutbox) {
        if frame.kind != PacketKind::Credit {
            return;
        }
        let class = frame.pfc_class() as usize;
        self.fccl[class] = frame.seq;
        self.heard[class] = true;
        self.stats.updates_rx[class] += 1;
        out.wake = true;
    }

    fn after_admit(
        &mut self,
        now: Time,
        key: QueueKey,
        bytes: u32,
        _s: IngressState,
        out: &mut FcOutbox,
    ) {
        let class = key.class();
        if !self.controlled(class) {
            return;
        }
        let b = self.blocks(bytes);
        self.abr[class] += b;
        self.held_blocks[class] += b;
        self.held_bytes[class] += u64::from(bytes);
        debug_assert!(
            self.held_blocks[class] <= self.cap_blocks,
            "CBFC ingress over its advertised buffer"
        );
        let st = &mut self.stats;
        st.peak_held[class] = st.peak_held[class].max(self.held_bytes[class]);
        st.peak_held_blocks[class] = st.peak_held_blocks[class].max(self.held_blocks[class]);
        // With a limited field and a large buffer the window slides as data
        // arrives (free > 2^bits − 1): tell the upstream.
        self.maybe_update(now, class, out);
    }

    fn after_release(
        &mut self,
        now: Time,
        key: QueueKey,
        bytes: u32,
        _s: IngressState,
        out: &mut FcOutbox,
    ) {
        let class = key.class();
        if !self.controlled(class) {
            return;
        }
        let b = self.blocks(bytes);
        self.held_blocks[class] -= b;
        self.held_bytes[class] -= u64::from(bytes);
        self.maybe_update(now, class, out);
    }

    fn on_timer(&mut self, now: Time, _s: &dyn Fn(usize) -> IngressState, out: &mut FcOutbox) {
        for class in 1..N_CLASSES {
            if self.flush_at[class] <= now {
                if self.fccl_now(class) > self.sent_fccl[class] {
                    self.send_update(class, out);
                } else {
                    self.flush_at[class] = Time::MAX;
                }
            }
        }
        self.arm(out);
    }

    fn counters(&self, _now: Time) -> FcCounters {
        FcCounters::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: IngressState = IngressState {
        over_xoff: false,
        below_xon: true,
    };

    /// Downstream `d` talks to upstream `u` with no delay.
    fn deliver(out: &mut FcOutbox, u: &mut Cbfc) {
        for f in out.frames.drain(..) {
            u.on_ctrl(Time::ZERO, &f, Rate::gbps(100), &mut FcOutbox::default());
        }
    }

    #[test]
    fn credits_cover_the_buffer_and_return_on_release() {
        let mut d = Cbfc::new(CbfcConfig::ideal(64 * 100));
        let mut u = Cbfc::new(CbfcConfig::ideal(64 * 100));
        assert!(
            !u.may_send(Time::ZERO, QueueKey::of_class(3), 64),
            "no credit before the first update"
        );
        assert!(
            u.may_send(Time::ZERO, QueueKey::of_class(0), 64),
            "class 0 is never limited"
        );
        let mut out = FcOutbox::default();
        d.on_start(Time::ZERO, &mut out);
        assert_eq!(out.frames.len(), 7);
        deliver(&mut out, &mut u);
        assert_eq!(u.credits(3), 100);
        // 1048 B = 17 blocks; five such frames use 85, a sixth does not fit.
        for _ in 0..5 {
            assert!(u.may_send(Time::ZERO, QueueKey::of_class(3), 1048));
            u.on_send(Time::ZERO, QueueKey::of_class(3), 1048);
            d.after_admit(Time::ZERO, QueueKey::of_class(3), 1048, S, &mut out);
        }
        assert_eq!(u.credits(3), 15);
        assert!(!u.may_send(Time::ZERO, QueueKey::of_class(3), 1048));
        assert!(out.frames.is_empty(), "admits do not move FCCL");
        // Two releases free 34 blocks ≥ 32: one update.
        d.after_release(Time::ZERO, QueueKey::of_class(3), 1048, S, &mut out);
        assert!(out.frames.is_empty());
        assert_eq!(out.timer, Some(Time::from_ns(1000)), "flush armed");
        d.after_release(Time::ZERO, QueueKey::of_class(3), 1048, S, &mut out);
        assert_eq!(out.frames.len(), 1);
        deliver(&mut out, &mut u);
        assert_eq!(u.credits(3), 15 + 34);
        // A third release is flushed by the timer.
        d.after_release(Time::ZERO, QueueKey::of_class(3), 1048, S, &mut out);
        assert!(out.frames.is_empty());
        d.on_timer(Time::from_ns(1000), &|_| S, &mut out);
        assert_eq!(out.frames.len(), 1);
        deliver(&mut out, &mut u);
        assert_eq!(u.credits(3), 15 + 51);
        assert_eq!(d.stats().peak_held_blocks[3], 85);
    }

    #[test]
    fn a_limited_field_wraps_and_caps_outstanding_credit() {
        // 4-bit field: at most 15 blocks outstanding though 100 are free.
        let mut cfg = CbfcConfig::real(64 * 100);
        cfg.field_bits = Some(4);
        cfg.update_blocks = 1;
        let mut d = Cbfc::new(cfg.clone());
        let mut u = Cbfc::new(cfg);
        let mut out = FcOutbox::default();
        d.on_start(Time::ZERO, &mut out);
        deliver(&mut out, &mut u);
        assert_eq!(u.credits(3), 15);
        // Send and release far past 2^4 blocks: credits stay right across
        // the wrap of both counters.
        for i in 0..100 {
            assert!(
                u.may_send(Time::ZERO, QueueKey::of_class(3), 64 * 5),
                "step {i}"
            );
            u.on_send(Time::ZERO, QueueKey::of_class(3), 64 * 5);
            d.after_admit(Time::ZERO, QueueKey::of_class(3), 64 * 5, S, &mut out);
            deliver(&mut out, &mut u);
            // Free stays ≥ 15, so each arrival slides the window by 5.
            assert_eq!(u.credits(3), 15, "step {i}");
            d.after_release(Time::ZERO, QueueKey::of_class(3), 64 * 5, S, &mut out);
            deliver(&mut out, &mut u);
        }
        assert!(u.fctbs[3] > 16 * 20);
    }
}
