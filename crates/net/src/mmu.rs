//! The switch's shared-buffer MMU, Broadcom-style ingress accounting, as the
//! peer's `SwitchMmu` (HPCC sim `switch-mmu.cc`).
//!
//! Each (ingress port, class) first fills its `reserve`, then the shared pool
//! up to the dynamic threshold `free >> shift`, then its port's headroom. A
//! packet is dropped only if it fits in neither headroom nor threshold.
//! Free shared = buffer − Σ headroom − Σ reserve − shared used.
//!
//! A port may instead own a static buffer ([`Mmu::set_static`], the long-haul
//! ports of Swing §6.1, "Native PFC Settings"): it holds up to `xoff` bytes,
//! then up to `headroom` more, and drops beyond; it pauses once over `xoff` and
//! resumes at or below `xon`. Its bytes and headroom are outside the shared
//! pool, so they do not move the other ports' thresholds.

use crate::config::BufferConfig;
use crate::wire::N_CLASSES;

pub use crate::fc::IngressState;

/// A frame that [`Mmu::admit_or_pass`] admitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Admitted {
    /// Bytes held for its ingress's class with it ([`Mmu::ingress_bytes`]
    /// after the admission).
    pub held: u64,
    /// Its ingress's state with it ([`Mmu::ingress_state`] after the
    /// admission).
    pub state: IngressState,
    /// It fits in its class's reserve, with no headroom in use, and is not
    /// counted yet: queued, it needs [`Mmu::count_in_reserve`]; sent at
    /// once, nothing (its release then leaves the bytes as they are, with
    /// the state above and the egress's bytes as they were before it).
    pub in_reserve: bool,
}

/// What a frame's admission and release read and write of one (ingress
/// port, class): its bytes, with copies of its port's settings, in 32
/// bytes aligned to 32, so in one cache line (the port's settings in a
/// header beside the classes made it two lines for most classes;
/// docs/performance.md, "Seventh pass"). The setters keep the copies of
/// the port's eight classes equal.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(32))]
struct ClassState {
    /// Counted against reserve + shared.
    ingress: u64,
    /// Counted against headroom.
    hdrm: u64,
    /// The port's headroom.
    headroom: u64,
    /// The port's dynamic-threshold shift.
    shift: u8,
    /// The port has a static buffer (`Mmu::fixed`), outside the shared pool.
    fixed: bool,
}

/// One switch's buffer accounting. (`repr(C)`: what a frame's admission
/// reads first, so that with `Switch`'s first fields it fills two cache
/// lines; see `Switch`.)
#[derive(Clone, Debug)]
#[repr(C)]
pub struct Mmu {
    /// Per local port, per class: the ingress's bytes and settings.
    classes: Vec<[ClassState; N_CLASSES]>,
    reserve: u64,
    /// [`Mmu::free_shared`], kept up to date by whatever changes the
    /// headroom, reserve or shared use (the setters and the paths past the
    /// short ones), so that a frame's admission reads one field, not four.
    free: u64,
    used: u64,
    /// Highest total occupancy seen.
    pub peak_bytes: u64,
    /// Per local port, per class: bytes queued for egress.
    egress: Vec<[u64; N_CLASSES]>,
    buffer: u64,
    resume_offset: u64,
    /// Σ headroom + Σ reserve of the ports in the shared pool (one sum:
    /// nothing needs them apart).
    set_aside: u64,
    shared_used: u64,
    /// Per local port: static (xoff, xon), or `None` in the shared pool.
    fixed: Vec<Option<(u64, u64)>>,
}

impl Mmu {
    /// An MMU for a switch whose ports have the given headroom and
    /// dynamic-threshold shift.
    pub fn new(cfg: &BufferConfig, headroom: Vec<u64>, shift: Vec<u8>) -> Mmu {
        let n = headroom.len();
        debug_assert_eq!(n, shift.len());
        let mut mmu = Mmu {
            buffer: cfg.size,
            reserve: cfg.reserve,
            free: 0,
            resume_offset: cfg.resume_offset,
            // The peer reserves per port (ConfigNPort), one class in use.
            set_aside: headroom.iter().sum::<u64>() + cfg.reserve * n as u64,
            shared_used: 0,
            classes: headroom
                .iter()
                .zip(&shift)
                .map(|(&headroom, &shift)| {
                    [ClassState {
                        headroom,
                        shift,
                        ..ClassState::default()
                    }; N_CLASSES]
                })
                .collect(),
            egress: vec![[0; N_CLASSES]; n],
            fixed: vec![None; n],
            peak_bytes: 0,
            used: 0,
        };
        mmu.recount_free();
        mmu
    }

    /// The buffer's size and what its shared-pool ports set aside from it
    /// (Σ headroom + Σ reserve): the shared pool is what is left.
    pub fn size_and_set_aside(&self) -> (u64, u64) {
        (self.buffer, self.set_aside)
    }

    /// Give `port` a static buffer of `xoff` + `headroom` bytes outside the
    /// shared pool, pausing over `xoff` and resuming at or below `xon`.
    pub fn set_static(&mut self, port: usize, xoff: u64, xon: u64, headroom: u64) {
        if self.fixed[port].is_none() {
            self.set_aside -= self.reserve + self.classes[port][0].headroom;
        }
        self.fixed[port] = Some((xoff, xon.min(xoff)));
        for c in &mut self.classes[port] {
            c.headroom = headroom;
            c.fixed = true;
        }
        self.recount_free();
    }

    /// Set the headroom of a port in the shared pool.
    pub fn set_headroom(&mut self, port: usize, headroom: u64) {
        if self.fixed[port].is_none() {
            self.set_aside = self.set_aside - self.classes[port][0].headroom + headroom;
        }
        for c in &mut self.classes[port] {
            c.headroom = headroom;
        }
        self.recount_free();
    }

    /// Make `class` of `port` lossy: no headroom, so a frame over its
    /// share drops (the port's PFC does not pause the class). The port's
    /// headroom stays set aside for its other classes. Not class 0, whose
    /// headroom is the port's in the set-aside sum.
    pub fn set_lossy(&mut self, port: usize, class: usize) {
        debug_assert!(class != 0);
        self.classes[port][class].headroom = 0;
    }

    /// Set the dynamic-threshold shift of a port in the shared pool.
    pub fn set_shift(&mut self, port: usize, shift: u8) {
        for c in &mut self.classes[port] {
            c.shift = shift;
        }
    }

    /// Free shared bytes (buffer − Σ headroom − Σ reserve − shared used).
    #[inline]
    fn free_shared(&self) -> u64 {
        self.free
    }

    /// Recompute `free` after a change of the headroom, reserve or shared
    /// use.
    #[inline]
    fn recount_free(&mut self) {
        self.free = self
            .buffer
            .saturating_sub(self.set_aside + self.shared_used);
    }

    /// Dynamic PFC threshold of `port` (peer `GetPfcThreshold`).
    #[inline]
    pub fn threshold(&self, port: usize) -> u64 {
        self.free_shared() >> self.classes[port][0].shift
    }

    #[cfg(test)]
    fn shared_of(&self, port: usize, class: usize) -> u64 {
        self.classes[port][class]
            .ingress
            .saturating_sub(self.reserve)
    }

    /// Admit `bytes` arriving on `port` in `class`, or refuse (drop) them
    /// (peer `CheckIngressAdmission` + `UpdateIngressAdmission`).
    #[inline]
    pub fn admit(&mut self, port: usize, class: usize, bytes: u64) -> bool {
        let free = self.free_shared();
        let fixed = self.fixed[port];
        let c = &mut self.classes[port][class];
        let Some(shared) = admit_port(c, fixed, bytes, free, self.reserve) else {
            return false;
        };
        self.count_admitted(bytes, shared);
        true
    }

    /// A frame's admission at a switch in one call: [`Mmu::admit`] of
    /// `bytes` on `in_port` in `class`, then (if admitted)
    /// [`Mmu::enqueue_egress`] at `out_port`, with what
    /// [`Mmu::ingress_bytes`] and [`Mmu::ingress_state`] of (`in_port`,
    /// `class`) would return after it; `None` if dropped. One lookup of
    /// the ingress's state instead of three.
    ///
    /// A frame within its class's reserve (most frames) is not counted
    /// yet ([`Admitted::in_reserve`]): the caller counts it with
    /// [`Mmu::count_in_reserve`] if it queues the frame. A frame that
    /// leaves at once is not counted at all: its release would take it out
    /// again with nothing else changed, so only the peak occupancy, which
    /// this counts at once, sees it (docs/performance.md, "Eighth pass").
    #[inline]
    pub fn admit_or_pass(
        &mut self,
        in_port: usize,
        out_port: usize,
        class: usize,
        bytes: u64,
    ) -> Option<Admitted> {
        let free = self.free_shared();
        let reserve = self.reserve;
        let c = &self.classes[in_port][class];
        if !c.fixed && c.hdrm == 0 && c.ingress + bytes <= reserve {
            // Within the class's reserve, no headroom in use. `admit_port`
            // and `state_of` reduce to this (nothing counts against the
            // shared pool, so `free` does not change, and the shared use is
            // 0 before and after).
            let thresh = free >> c.shift;
            if bytes > c.headroom && bytes > thresh {
                return None;
            }
            let held = c.ingress + bytes;
            self.peak_bytes = self.peak_bytes.max(self.used + bytes);
            return Some(Admitted {
                held,
                state: IngressState {
                    over_xoff: thresh == 0,
                    below_xon: true,
                },
                in_reserve: true,
            });
        }
        let (held, state) = self.admit_to_slow(in_port, out_port, class, bytes)?;
        Some(Admitted {
            held,
            state,
            in_reserve: false,
        })
    }

    /// Count a frame that [`Mmu::admit_or_pass`] admitted within its
    /// class's reserve and that is queued (same arguments): its ingress
    /// and egress bytes. (The peak occupancy counts it already.)
    #[inline]
    pub fn count_in_reserve(&mut self, in_port: usize, out_port: usize, class: usize, bytes: u64) {
        self.classes[in_port][class].ingress += bytes;
        self.used += bytes;
        self.egress[out_port][class] += bytes;
    }

    /// [`Mmu::admit_or_pass`] and, for a frame within its reserve,
    /// [`Mmu::count_in_reserve`]: the admission of a frame that is queued.
    #[cfg(test)]
    fn admit_to(
        &mut self,
        in_port: usize,
        out_port: usize,
        class: usize,
        bytes: u64,
    ) -> Option<(u64, IngressState)> {
        let a = self.admit_or_pass(in_port, out_port, class, bytes)?;
        if a.in_reserve {
            self.count_in_reserve(in_port, out_port, class, bytes);
        }
        Some((a.held, a.state))
    }

    /// [`Mmu::admit_or_pass`] past its short path, out of line: inlined, its
    /// values kept the short path's registers busy (spilled to the stack
    /// on every frame).
    #[inline(never)]
    fn admit_to_slow(
        &mut self,
        in_port: usize,
        out_port: usize,
        class: usize,
        bytes: u64,
    ) -> Option<(u64, IngressState)> {
        let free = self.free_shared();
        let (reserve, resume_offset) = (self.reserve, self.resume_offset);
        let fixed = self.fixed[in_port];
        let c = &mut self.classes[in_port][class];
        let shared = admit_port(c, fixed, bytes, free, reserve)?;
        let held = c.ingress + c.hdrm;
        // Free shared bytes after `shared` more are used: buffer − (Σ
        // headroom + Σ reserve + shared used + shared), saturating as
        // `free_shared` does.
        let state = state_of(
            c,
            fixed,
            free.saturating_sub(shared),
            reserve,
            resume_offset,
        );
        self.count_admitted(bytes, shared);
        self.egress[out_port][class] += bytes;
        Some((held, state))
    }

    #[inline]
    fn count_admitted(&mut self, bytes: u64, shared: u64) {
        self.shared_used += shared;
        self.recount_free();
        self.used += bytes;
        self.peak_bytes = self.peak_bytes.max(self.used);
    }

    /// Count `bytes` queued at egress `port` in `class`.
    #[inline]
    pub fn enqueue_egress(&mut self, port: usize, class: usize, bytes: u64) {
        self.egress[port][class] += bytes;
    }

    /// Release a packet that leaves the switch (peer
    /// `RemoveFromIngressAdmission` + `RemoveFromEgressAdmission`).
    #[inline]
    pub fn release(&mut self, in_port: usize, out_port: usize, class: usize, bytes: u64) {
        self.release_state(in_port, out_port, class, bytes);
    }

    /// [`Mmu::release`], returning what [`Mmu::egress_bytes`] of
    /// (`out_port`, `class`) and [`Mmu::ingress_state`] of (`in_port`,
    /// `class`) would return after it (one lookup of each side).
    // Always inlined: its two callers (a departure, a flush) would
    // otherwise leave it a call on every hop.
    #[inline(always)]
    pub fn release_state(
        &mut self,
        in_port: usize,
        out_port: usize,
        class: usize,
        bytes: u64,
    ) -> (u64, IngressState) {
        let e = &mut self.egress[out_port][class];
        *e -= bytes;
        let egress = *e;
        self.used -= bytes;
        let (reserve, resume_offset) = (self.reserve, self.resume_offset);
        let c = &mut self.classes[in_port][class];
        if !c.fixed && c.hdrm == 0 && c.ingress <= reserve {
            // Most frames: their class held no more than its reserve (the
            // short path of `admit_to`). Nothing leaves the shared pool, so
            // the free shared bytes stand, and the shared use is 0 after.
            c.ingress -= bytes;
            // Read here, not before the branch: PFC reads only
            // `below_xon` after a release, and the compiler then drops this.
            let state = IngressState {
                over_xoff: self.free >> c.shift == 0,
                below_xon: true,
            };
            return (egress, state);
        }
        // Headroom drains first.
        let from_hdrm = c.hdrm.min(bytes);
        if !c.fixed {
            let from_shared = (bytes - from_hdrm).min(c.ingress.saturating_sub(reserve));
            self.shared_used -= from_shared;
        }
        c.hdrm -= from_hdrm;
        c.ingress -= bytes - from_hdrm;
        self.recount_free();
        let fixed = self.fixed[in_port];
        let c = &self.classes[in_port][class];
        (
            egress,
            state_of(c, fixed, self.free, reserve, resume_offset),
        )
    }

    /// Bytes queued for egress at `port` in `class` (ECN marks on this).
    #[inline]
    pub fn egress_bytes(&self, port: usize, class: usize) -> u64 {
        self.egress[port][class]
    }

    /// Pause/resume conditions of (port, class).
    #[inline]
    pub fn ingress_state(&self, port: usize, class: usize) -> IngressState {
        state_of(
            &self.classes[port][class],
            self.fixed[port],
            self.free_shared(),
            self.reserve,
            self.resume_offset,
        )
    }

    /// Bytes held for (port, class): reserve, shared and headroom.
    #[inline]
    pub fn ingress_bytes(&self, port: usize, class: usize) -> u64 {
        let c = &self.classes[port][class];
        c.ingress + c.hdrm
    }

    /// Headroom bytes in use at (port, class).
    pub fn headroom_used(&self, port: usize, class: usize) -> u64 {
        self.classes[port][class].hdrm
    }

    /// Total bytes held.
    pub fn used(&self) -> u64 {
        self.used
    }
}

/// Admit `bytes` into the (port, class) `c` (the body of [`Mmu::admit`])
/// given its port's static buffer `fixed` and the free shared bytes
/// `free`: `None` if they are dropped, else the bytes newly counted
/// against the shared pool.
#[inline]
fn admit_port(
    c: &mut ClassState,
    fixed: Option<(u64, u64)>,
    bytes: u64,
    free: u64,
    reserve: u64,
) -> Option<u64> {
    let headroom = c.headroom;
    if let Some((xoff, _)) = fixed {
        if c.ingress + bytes <= xoff && c.hdrm == 0 {
            c.ingress += bytes;
        } else if c.hdrm + bytes <= headroom {
            c.hdrm += bytes;
        } else {
            return None;
        }
        return Some(0);
    }
    let thresh = free >> c.shift;
    if bytes + c.hdrm > headroom && bytes + c.ingress.saturating_sub(reserve) > thresh {
        return None;
    }
    let new_bytes = c.ingress + bytes;
    if new_bytes <= reserve {
        c.ingress += bytes;
        Some(0)
    } else if new_bytes - reserve > thresh {
        c.hdrm += bytes;
        Some(0)
    } else {
        c.ingress += bytes;
        Some(bytes.min(new_bytes - reserve))
    }
}

/// Pause/resume conditions of the (port, class) `c` (the body of
/// [`Mmu::ingress_state`]) given its port's static buffer `fixed` and the
/// free shared bytes `free`.
#[inline]
fn state_of(
    c: &ClassState,
    fixed: Option<(u64, u64)>,
    free: u64,
    reserve: u64,
    resume_offset: u64,
) -> IngressState {
    if let Some((xoff, xon)) = fixed {
        let held = c.ingress + c.hdrm;
        return IngressState {
            over_xoff: held > xoff,
            below_xon: held <= xon,
        };
    }
    let shared = c.ingress.saturating_sub(reserve);
    let thresh = free >> c.shift;
    IngressState {
        over_xoff: c.hdrm > 0 || shared >= thresh,
        below_xon: c.hdrm == 0 && (shared == 0 || shared + resume_offset <= thresh),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mmu() -> Mmu {
        let cfg = BufferConfig {
            size: 100_000,
            reserve: 1000,
            ..BufferConfig::default()
        };
        // Two ports, 10 kB headroom each, alpha 1/8.
        Mmu::new(&cfg, vec![10_000, 10_000], vec![3, 3])
    }

    #[test]
    fn reserve_then_shared_then_headroom_then_drop() {
        let mut m = mmu();
        // free = 100000 - 20000 - 2000 = 78000; threshold = 9750.
        assert_eq!(m.threshold(0), 9750);
        assert!(m.admit(0, 3, 1000)); // fills the reserve
        assert!(!m.ingress_state(0, 3).over_xoff);
        let mut admitted = 1000;
        while !m.ingress_state(0, 3).over_xoff {
            assert!(m.admit(0, 3, 1000));
            admitted += 1000;
        }
        // XOFF once shared use reaches the (shrinking) threshold or the
        // packet spilled into headroom.
        assert!(m.headroom_used(0, 3) > 0 || m.shared_of(0, 3) >= m.threshold(0));
        // Headroom absorbs packets up to its 10 kB, then drops.
        while m.admit(0, 3, 1000) {
            admitted += 1000;
        }
        assert_eq!(m.headroom_used(0, 3), 10_000);
        // Release everything: accounting returns to zero.
        for _ in 0..admitted / 1000 {
            m.enqueue_egress(1, 3, 1000);
            m.release(0, 1, 3, 1000);
        }
        assert_eq!(m.used(), 0);
        assert_eq!(m.shared_used, 0);
        assert!(m.ingress_state(0, 3).below_xon);
    }

    #[test]
    fn a_static_port_pauses_over_xoff_and_drops_beyond_its_headroom() {
        let mut m = mmu();
        let before = m.threshold(1);
        m.set_static(0, 5000, 5000, 3000);
        // Port 0 left the pool: its reserve and headroom no longer count.
        assert_eq!(m.threshold(1), (100_000 - 10_000 - 1000) >> 3);
        assert!(m.threshold(1) > before);
        for _ in 0..5 {
            assert!(m.admit(0, 3, 1000));
            assert!(!m.ingress_state(0, 3).over_xoff);
        }
        // Shared use of port 1 is untouched by port 0's bytes.
        assert_eq!(m.threshold(1), (100_000 - 10_000 - 1000) >> 3);
        assert!(m.admit(0, 3, 1000));
        assert!(m.ingress_state(0, 3).over_xoff);
        assert!(!m.ingress_state(0, 3).below_xon);
        assert!(m.admit(0, 3, 1000));
        assert!(m.admit(0, 3, 1000));
        assert!(!m.admit(0, 3, 1000), "xoff 5000 + headroom 3000 is full");
        assert_eq!(m.ingress_bytes(0, 3), 8000);
        for _ in 0..3 {
            m.enqueue_egress(1, 3, 1000);
            m.release(0, 1, 3, 1000);
        }
        // XON = XOFF: back at 5000 bytes the pause lifts.
        assert!(m.ingress_state(0, 3).below_xon);
        assert!(!m.ingress_state(0, 3).over_xoff);
    }

    #[test]
    fn combined_calls_match_the_separate_ones() {
        // The same frames through `admit_to` (`admit_or_pass` and
        // `count_in_reserve`) / `release_state`, or `admit_or_pass` of a
        // frame that leaves at once, and through `admit`, `enqueue_egress`,
        // `ingress_bytes`, `ingress_state`, `release`, `egress_bytes`: same
        // answers, same accounting.
        for reserve in [1000, 20_000] {
            combined_calls_match(reserve);
        }
    }

    fn combined_calls_match(reserve: u64) {
        let cfg = BufferConfig {
            size: 100_000,
            reserve,
            ..BufferConfig::default()
        };
        let mut a = Mmu::new(&cfg, vec![10_000, 10_000], vec![3, 3]);
        let mut b = Mmu::new(&cfg, vec![10_000, 10_000], vec![3, 3]);
        for m in [&mut a, &mut b] {
            m.set_static(1, 6000, 3000, 4000);
        }
        let mut held: Vec<(usize, usize, usize, u64)> = Vec::new();
        let mut x = 7u64;
        for step in 0..20_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            // Filling and draining phases, so that the classes cross their
            // reserve, threshold and headroom both ways, many times.
            let admit_in_5 = if (step / 1500) % 2 == 0 { 4 } else { 1 };
            let (i, o, class) = (
                (x >> 40) as usize % 2,
                (x >> 42) as usize % 2,
                1 + (x >> 44) as usize % 3,
            );
            let bytes = 64 + (x >> 50) % 1000;
            if (x >> 33) % 5 < admit_in_5 && (x >> 30).is_multiple_of(4) {
                // A frame that leaves at once: `admit_or_pass`, then the
                // release only if it was counted.
                let got = a.admit_or_pass(i, o, class, bytes).map(|adm| {
                    let released = if adm.in_reserve {
                        (a.egress_bytes(o, class), adm.state)
                    } else {
                        a.release_state(i, o, class, bytes)
                    };
                    (adm.held, adm.state, released)
                });
                let want = b.admit(i, class, bytes).then(|| {
                    b.enqueue_egress(o, class, bytes);
                    let admitted = (b.ingress_bytes(i, class), b.ingress_state(i, class));
                    b.release(i, o, class, bytes);
                    let released = (b.egress_bytes(o, class), b.ingress_state(i, class));
                    (admitted.0, admitted.1, released)
                });
                assert_eq!(got, want);
            } else if (x >> 33) % 5 < admit_in_5 {
                let got = a.admit_to(i, o, class, bytes);
                let want = b.admit(i, class, bytes).then(|| {
                    b.enqueue_egress(o, class, bytes);
                    (b.ingress_bytes(i, class), b.ingress_state(i, class))
                });
                assert_eq!(got, want);
                if got.is_some() {
                    held.push((i, o, class, bytes));
                }
            } else if !held.is_empty() {
                let (i, o, class, bytes) = held.swap_remove((x >> 20) as usize % held.len());
                let got = a.release_state(i, o, class, bytes);
                b.release(i, o, class, bytes);
                assert_eq!(got, (b.egress_bytes(o, class), b.ingress_state(i, class)));
            }
            assert_eq!(
                (a.used(), a.shared_used, a.peak_bytes),
                (b.used(), b.shared_used, b.peak_bytes)
            );
            for m in [&a, &b] {
                assert_eq!(m.free, m.buffer.saturating_sub(m.set_aside + m.shared_used));
            }
        }
    }
}
