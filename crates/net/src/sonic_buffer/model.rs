//! SONiC's shared-buffer admission (Azure §6.2, App. A), counter by
//! counter. Each rule cites the paper, or says where the paper is silent
//! and whose rule is followed instead (SAI's); the table in
//! docs/sonic-buffer.md lists them.
//!
//! One physical buffer; pools, PGs and queues are counters that go up by a
//! frame's bytes when it is admitted and down when it leaves (App. A).
//! A frame of class p from port s to port d updates the ingress PG (s, p),
//! the egress queue (d, p), the PG's ingress pool and the queue's egress
//! pool, and is admitted only if it passes both the ingress and the egress
//! check. Each side's bytes fill the profile's reserve (`size`) first;
//! the rest is shared, and is admitted if the PG's or queue's shared bytes
//! stay within its threshold: static, or dynamic, α × (pool size − the
//! pool's shared bytes).
//!
//! A lossless PG (a profile with `xoff`) that reaches its threshold is
//! paused and puts what arrives after in headroom: up to `xoff` of its
//! profile, in a headroom pool of its ingress pool's `xoff` that all PGs
//! share; past either it drops. A lossy PG has no headroom and drops at
//! its threshold. An egress queue drops at its threshold.
//!
//! SONiC makes lossless traffic bypass egress admission, and lossy
//! traffic ingress admission, by configuration, not by a rule: a static
//! threshold as large as the buffer (App. A). The model has no such
//! special case; with Listing 1 it follows (the tests check it).

use super::config::{dt_limit, PortProfiles, Profile, SonicBufferConfig, Threshold};
use crate::fc::IngressState;
use crate::wire::N_CLASSES;

/// What an ingress PG holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PgUsage {
    /// Bytes in its reserve (profile `size`).
    pub reserved: u64,
    /// Bytes counted against its ingress pool's shared space.
    pub shared: u64,
    /// Bytes in its ingress pool's headroom.
    pub headroom: u64,
    /// Paused: PFC pause asked of the upstream, arrivals go to headroom.
    pub paused: bool,
}

impl PgUsage {
    /// All the bytes it holds.
    pub fn total(&self) -> u64 {
        self.reserved + self.shared + self.headroom
    }
}

/// What an egress queue holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueUsage {
    /// Bytes in its reserve (profile `size`).
    pub reserved: u64,
    /// Bytes counted against its egress pool's shared space.
    pub shared: u64,
}

impl QueueUsage {
    /// All the bytes it holds.
    pub fn total(&self) -> u64 {
        self.reserved + self.shared
    }
}

/// Which check refused a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropSide {
    /// The ingress PG: a lossy PG over its threshold, or a lossless one
    /// out of headroom (its own cap or the pool's).
    Ingress,
    /// The egress queue, over its threshold.
    Egress,
}

/// A frame that [`SonicMmu::admit`] admitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Admitted {
    /// Bytes its ingress PG holds with it.
    pub held: u64,
    /// Its ingress PG's pause state with it: over XOFF while paused,
    /// below XON once resumed (the model keeps the hysteresis itself).
    pub state: IngressState,
    /// Some of its bytes went to headroom.
    pub in_headroom: bool,
}

/// Where in the buffer something first happened in a run
/// ([`SonicMmu::first_pause`] and the first drops): the local port and
/// class of the PG or queue, and its bytes then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferEvent {
    /// Local port of the PG (a pause, an ingress drop) or the queue (an
    /// egress drop).
    pub port: usize,
    /// Its class.
    pub class: usize,
    /// Its shared bytes then: of the PG when it paused or refused the
    /// frame, of the queue when it refused the frame. Reserves and
    /// headroom are not in it, as App. A's 2 MB and 4.67 MB do not count
    /// them.
    pub shared: u64,
}

/// Where one frame's bytes go at ingress: (reserve, shared, headroom).
type Split = (u64, u64, u64);

/// One switch's SONiC buffer accounting.
#[derive(Clone, Debug)]
pub struct SonicMmu {
    cfg: SonicBufferConfig,
    /// Per local port: its classes' profiles.
    ports: Vec<PortProfiles>,
    /// Per local port, per class: the ingress PG.
    pg: Vec<[PgUsage; N_CLASSES]>,
    /// Per local port, per class: the egress queue.
    queue: Vec<[QueueUsage; N_CLASSES]>,
    /// Per pool: shared bytes counted against it.
    pool_shared: Vec<u64>,
    /// Per pool: headroom bytes in use (ingress pools only).
    pool_headroom: Vec<u64>,
    used: u64,
    /// Highest total occupancy seen.
    pub peak_bytes: u64,
    /// Per pool: the most headroom bytes it held at once.
    peak_headroom: Vec<u64>,
    /// The first PG that paused, at the moment it did.
    pub first_pause: Option<BufferEvent>,
    /// The first frame refused at ingress (a lossy PG over its threshold,
    /// or a lossless one out of headroom).
    pub first_ingress_drop: Option<BufferEvent>,
    /// The first frame refused at egress (a queue over its threshold).
    pub first_egress_drop: Option<BufferEvent>,
}

impl SonicMmu {
    /// An MMU for a switch whose local ports use `ports`' profiles, in
    /// local port order.
    pub fn new(cfg: SonicBufferConfig, ports: Vec<PortProfiles>) -> SonicMmu {
        let n = ports.len();
        let pools = cfg.pools.len();
        SonicMmu {
            cfg,
            ports,
            pg: vec![[PgUsage::default(); N_CLASSES]; n],
            queue: vec![[QueueUsage::default(); N_CLASSES]; n],
            pool_shared: vec![0; pools],
            pool_headroom: vec![0; pools],
            used: 0,
            peak_bytes: 0,
            peak_headroom: vec![0; pools],
            first_pause: None,
            first_ingress_drop: None,
            first_egress_drop: None,
        }
    }

    /// Its configuration.
    pub fn config(&self) -> &SonicBufferConfig {
        &self.cfg
    }

    /// The limit on the shared bytes of a PG or queue using `p`, now: its
    /// static threshold, or α × what its pool has left (App. A, "α×
    /// remaining buffer"; App. A). Left is the pool's size less its shared bytes;
    /// reserves and headroom are outside it.
    fn limit(&self, p: &Profile) -> u64 {
        match p.threshold {
            Threshold::Static(b) => b,
            Threshold::Dynamic(th) => dt_limit(
                th,
                self.cfg.pools[p.pool]
                    .size
                    .saturating_sub(self.pool_shared[p.pool]),
            ),
        }
    }

    /// The shared-byte limit of ingress PG (`port`, `class`) now, if it has
    /// a profile.
    pub fn pg_limit(&self, port: usize, class: usize) -> Option<u64> {
        let p = self.ports[port].pg[class]?;
        Some(self.limit(&self.cfg.profiles[p]))
    }

    /// The shared-byte limit of egress queue (`port`, `class`) now, if it
    /// has a profile.
    pub fn queue_limit(&self, port: usize, class: usize) -> Option<u64> {
        let p = self.ports[port].queue[class]?;
        Some(self.limit(&self.cfg.profiles[p]))
    }

    /// Where `bytes` more would go at ingress PG (`port`, `class`), or
    /// `None` if it refuses them. Reserve first; then shared, unless the
    /// PG is paused or over its threshold (App. A: "Once the ingress
    /// lossless queue hits the dynamic threshold … it will enter the
    /// paused state … and start to use PFC headroom"); then, for a
    /// lossless PG, headroom within its profile's `xoff` and the pool's
    /// (App. A: "Each ingress lossless queue can use up to 96928 bytes …
    /// in the PFC headroom pool"; App. A). A lossy PG has no
    /// headroom and refuses (App. A).
    fn ingress_split(&self, port: usize, class: usize, bytes: u64) -> Option<Split> {
        let Some(pi) = self.ports[port].pg[class] else {
            return Some((0, 0, 0));
        };
        let p = &self.cfg.profiles[pi];
        let pg = &self.pg[port][class];
        let reserve = p.size.saturating_sub(pg.reserved).min(bytes);
        let rest = bytes - reserve;
        if rest == 0 || (!pg.paused && pg.shared + rest <= self.limit(p)) {
            return Some((reserve, rest, 0));
        }
        let pool_headroom = self.cfg.pools[p.pool].xoff;
        (p.lossless()
            && pg.headroom + rest <= p.xoff
            && self.pool_headroom[p.pool] + rest <= pool_headroom)
            .then_some((reserve, 0, rest))
    }

    /// Where `bytes` more would go at egress queue (`port`, `class`), or
    /// `None` if it drops them: reserve first, then shared within the
    /// threshold (App. A: "Once the egress lossy queue hits the dynamic
    /// threshold, its arriving packets will be dropped"; App. A).
    fn egress_split(&self, port: usize, class: usize, bytes: u64) -> Option<(u64, u64)> {
        let Some(pi) = self.ports[port].queue[class] else {
            return Some((0, 0));
        };
        let p = &self.cfg.profiles[pi];
        let q = &self.queue[port][class];
        let reserve = p.size.saturating_sub(q.reserved).min(bytes);
        let rest = bytes - reserve;
        (rest == 0 || q.shared + rest <= self.limit(p)).then_some((reserve, rest))
    }

    /// Admit a frame of `bytes` arriving on `in_port` in `class` for
    /// `out_port`, or say which check drops it. Both checks read the
    /// counters before the frame; it is counted only if both pass
    /// (App. A: "A packet is accepted only if it passes both the
    /// ingress and the egress admission checks").
    pub fn admit(
        &mut self,
        in_port: usize,
        out_port: usize,
        class: usize,
        bytes: u64,
    ) -> Result<Admitted, DropSide> {
        let Some((in_res, in_shared, in_hdrm)) = self.ingress_split(in_port, class, bytes) else {
            let shared = self.pg[in_port][class].shared;
            self.first_ingress_drop.get_or_insert(BufferEvent {
                port: in_port,
                class,
                shared,
            });
            return Err(DropSide::Ingress);
        };
        let Some((out_res, out_shared)) = self.egress_split(out_port, class, bytes) else {
            let shared = self.queue[out_port][class].shared;
            self.first_egress_drop.get_or_insert(BufferEvent {
                port: out_port,
                class,
                shared,
            });
            return Err(DropSide::Egress);
        };
        if let Some(pi) = self.ports[in_port].pg[class] {
            let pool = self.cfg.profiles[pi].pool;
            let pg = &mut self.pg[in_port][class];
            pg.reserved += in_res;
            pg.shared += in_shared;
            pg.headroom += in_hdrm;
            self.pool_shared[pool] += in_shared;
            self.pool_headroom[pool] += in_hdrm;
            self.peak_headroom[pool] = self.peak_headroom[pool].max(self.pool_headroom[pool]);
        }
        if let Some(pi) = self.ports[out_port].queue[class] {
            let pool = self.cfg.profiles[pi].pool;
            let q = &mut self.queue[out_port][class];
            q.reserved += out_res;
            q.shared += out_shared;
            self.pool_shared[pool] += out_shared;
        }
        self.used += bytes;
        self.peak_bytes = self.peak_bytes.max(self.used);
        let state = self.update_pause(in_port, class);
        Ok(Admitted {
            held: self.pg[in_port][class].total(),
            state,
            in_headroom: in_hdrm > 0,
        })
    }

    /// Release a frame that [`SonicMmu::admit`] admitted with the same
    /// arguments, as it leaves the switch; its ingress PG's pause state
    /// after. At ingress, headroom drains first, then shared, then the
    /// reserve, so that a PG leaves headroom as soon as it can; at egress,
    /// shared before the reserve.
    pub fn release(
        &mut self,
        in_port: usize,
        out_port: usize,
        class: usize,
        bytes: u64,
    ) -> IngressState {
        if let Some(pi) = self.ports[in_port].pg[class] {
            let pool = self.cfg.profiles[pi].pool;
            let pg = &mut self.pg[in_port][class];
            let hdrm = pg.headroom.min(bytes);
            let shared = pg.shared.min(bytes - hdrm);
            let reserved = bytes - hdrm - shared;
            debug_assert!(reserved <= pg.reserved, "release of bytes never admitted");
            pg.headroom -= hdrm;
            pg.shared -= shared;
            pg.reserved -= reserved;
            self.pool_headroom[pool] -= hdrm;
            self.pool_shared[pool] -= shared;
        }
        if let Some(pi) = self.ports[out_port].queue[class] {
            let pool = self.cfg.profiles[pi].pool;
            let q = &mut self.queue[out_port][class];
            let shared = q.shared.min(bytes);
            debug_assert!(
                bytes - shared <= q.reserved,
                "release of bytes never admitted"
            );
            q.shared -= shared;
            q.reserved -= bytes - shared;
            self.pool_shared[pool] -= shared;
        }
        self.used -= bytes;
        self.update_pause(in_port, class)
    }

    /// Bring ingress PG (`port`, `class`)'s pause state up to date and
    /// return it. A lossless PG pauses when it uses headroom or its shared
    /// bytes reach its threshold (App. A), and resumes when its headroom
    /// is empty and its shared bytes are at most max(`xon`, threshold −
    /// `xon_offset`): SAI's XON rule; the paper
    /// gives only the values. A lossy PG never pauses (App. A).
    fn update_pause(&mut self, port: usize, class: usize) -> IngressState {
        let running = IngressState {
            over_xoff: false,
            below_xon: true,
        };
        let Some(pi) = self.ports[port].pg[class] else {
            return running;
        };
        let p = &self.cfg.profiles[pi];
        if !p.lossless() {
            return running;
        }
        let limit = self.limit(p);
        let xon = p.xon.max(limit.saturating_sub(p.xon_offset));
        let pg = &mut self.pg[port][class];
        if pg.headroom > 0 || pg.shared >= limit {
            if !pg.paused && self.first_pause.is_none() {
                self.first_pause = Some(BufferEvent {
                    port,
                    class,
                    shared: pg.shared,
                });
            }
            pg.paused = true;
        } else if pg.paused && pg.shared <= xon {
            pg.paused = false;
        }
        IngressState {
            over_xoff: pg.paused,
            below_xon: !pg.paused,
        }
    }

    /// [`SonicMmu::release`], returning also the bytes left in egress
    /// queue (`out_port`, `class`), which RED/ECN reads at dequeue.
    pub fn release_queued(
        &mut self,
        in_port: usize,
        out_port: usize,
        class: usize,
        bytes: u64,
    ) -> (u64, IngressState) {
        let state = self.release(in_port, out_port, class, bytes);
        (self.queue[out_port][class].total(), state)
    }

    /// Ingress PG (`port`, `class`)'s pause state, as its last admission
    /// or release left it.
    pub fn ingress_state(&self, port: usize, class: usize) -> IngressState {
        let paused = self.pg[port][class].paused;
        IngressState {
            over_xoff: paused,
            below_xon: !paused,
        }
    }

    /// The most headroom bytes ingress pool `pool` held at once.
    pub fn peak_headroom(&self, pool: usize) -> u64 {
        self.peak_headroom[pool]
    }

    /// Ingress PG (`port`, `class`).
    pub fn pg(&self, port: usize, class: usize) -> PgUsage {
        self.pg[port][class]
    }

    /// Egress queue (`port`, `class`).
    pub fn queue(&self, port: usize, class: usize) -> QueueUsage {
        self.queue[port][class]
    }

    /// Shared bytes counted against pool `pool`.
    pub fn pool_shared(&self, pool: usize) -> u64 {
        self.pool_shared[pool]
    }

    /// Headroom bytes in use in ingress pool `pool`.
    pub fn pool_headroom(&self, pool: usize) -> u64 {
        self.pool_headroom[pool]
    }

    /// Bytes in the buffer now.
    pub fn used(&self) -> u64 {
        self.used
    }
}
