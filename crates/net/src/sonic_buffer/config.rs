//! A switch's SONiC buffer configuration: pools, profiles, and which
//! profile each (port, class) uses at ingress (its priority group, PG) and
//! at egress (its queue). The rules that read it are in
//! [`super::model`]; Azure §6.2 and App. A describe the model.

use crate::wire::N_CLASSES;
use std::collections::BTreeMap;

/// Whether a pool counts ingress (PG) or egress (queue) bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoolType {
    /// Counts the bytes of the ingress PGs whose profiles name it.
    Ingress,
    /// Counts the bytes of the egress queues whose profiles name it.
    Egress,
}

/// A pool's `mode`. Recorded, not enforced: Listing 1 puts a
/// static-threshold profile (`ingress_lossy_profile`) in a dynamic pool,
/// so a profile's own threshold decides how it is admitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoolMode {
    /// Profiles in it use dynamic thresholds.
    Dynamic,
    /// Profiles in it use static thresholds.
    Static,
}

/// A `BUFFER_POOL` entry. Pools are counters for admission, not
/// partitions of the buffer: their sizes may add up to more than the
/// buffer (Azure App. A: 18 + 14 + 24 MB on a 24 MB switch).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pool {
    /// Its key in `BUFFER_POOL`.
    pub name: String,
    /// Ingress or egress.
    pub kind: PoolType,
    /// Dynamic or static.
    pub mode: PoolMode,
    /// Shared bytes its dynamic thresholds divide (`size`).
    pub size: u64,
    /// Shared PFC headroom of an ingress pool (`xoff`), used only by
    /// paused lossless PGs (Azure App. A); 0 if none.
    pub xoff: u64,
}

/// How a profile limits the shared bytes of one PG or queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Threshold {
    /// `dynamic_th`: α = 2^dynamic_th of the pool's remaining shared
    /// bytes (Choudhury–Hahne dynamic threshold, Azure App. A).
    Dynamic(i8),
    /// `static_th`: a fixed number of bytes.
    Static(u64),
}

/// A `BUFFER_PROFILE` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Profile {
    /// Its key in `BUFFER_PROFILE`.
    pub name: String,
    /// Index of its pool in [`SonicBufferConfig::pools`].
    pub pool: usize,
    /// Reserved bytes of each PG or queue using it (`size`), filled before
    /// the shared pool and not counted in it. The paper does not explain
    /// `size`; this is SAI's meaning (a guaranteed minimum).
    pub size: u64,
    /// Its limit on shared bytes.
    pub threshold: Threshold,
    /// Per-PG cap in its pool's shared headroom (`xoff`); a profile with
    /// an `xoff` above 0 is lossless.
    pub xoff: u64,
    /// `xon`: a paused PG may resume once its shared bytes are at most
    /// this (or at most its threshold less `xon_offset`).
    pub xon: u64,
    /// `xon_offset`: see `xon`.
    pub xon_offset: u64,
}

impl Profile {
    /// A lossless PG profile: one with headroom, so one that pauses
    /// instead of dropping (Azure App. A).
    pub fn lossless(&self) -> bool {
        self.xoff > 0
    }
}

/// Which profile each class of one port uses: `pg` at ingress, `queue` at
/// egress, as indices into [`SonicBufferConfig::profiles`]. A class with
/// no profile on a side is not counted on that side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PortProfiles {
    /// `BUFFER_PG`: per class, the ingress profile.
    pub pg: [Option<usize>; N_CLASSES],
    /// `BUFFER_QUEUE`: per class, the egress profile.
    pub queue: [Option<usize>; N_CLASSES],
}

/// A switch's buffer configuration as SONiC's config_db gives it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SonicBufferConfig {
    /// `BUFFER_POOL`, in key order.
    pub pools: Vec<Pool>,
    /// `BUFFER_PROFILE`, in key order.
    pub profiles: Vec<Profile>,
    /// `BUFFER_PG` and `BUFFER_QUEUE`, by SONiC port name (`Ethernet0`).
    pub ports: BTreeMap<String, PortProfiles>,
}

impl SonicBufferConfig {
    /// Index of the pool named `name`.
    pub fn pool(&self, name: &str) -> Option<usize> {
        self.pools.iter().position(|p| p.name == name)
    }

    /// Index of the profile named `name`.
    pub fn profile(&self, name: &str) -> Option<usize> {
        self.profiles.iter().position(|p| p.name == name)
    }

    /// The classes of a port named `name`; none mapped if the tables do
    /// not name it.
    pub fn port_profiles(&self, name: &str) -> PortProfiles {
        self.ports.get(name).copied().unwrap_or_default()
    }

    /// The part of ingress pool `pool` that lossless PGs can always use
    /// before pausing (Azure App. A: ingress_pool size − egress_lossy_pool
    /// size, 18 − 14 = 4 MB in Listing 1). Lossy bytes pass ingress
    /// admission, so only their egress pools bound them: this is the
    /// pool's size less the sizes of the egress pools of the lossy classes
    /// that enter through it (a class is lossy on a port whose PG profile,
    /// in `pool`, has no headroom). Each such egress pool counts once.
    pub fn lossless_only_share(&self, pool: usize) -> u64 {
        let mut lossy_egress = vec![false; self.pools.len()];
        for ports in self.ports.values() {
            for c in 0..N_CLASSES {
                if let (Some(pg), Some(q)) = (ports.pg[c], ports.queue[c]) {
                    let pg = &self.profiles[pg];
                    if pg.pool == pool && !pg.lossless() {
                        lossy_egress[self.profiles[q].pool] = true;
                    }
                }
            }
        }
        let lossy: u64 = self
            .pools
            .iter()
            .zip(&lossy_egress)
            .filter(|(_, &l)| l)
            .map(|(p, _)| p.size)
            .sum();
        self.pools[pool].size.saturating_sub(lossy)
    }
}

/// A dynamic threshold: α × `remaining` with α = 2^`dynamic_th`, in whole
/// bytes (Azure App. A: "α× remaining buffer"). The one definition every
/// admission and pause decision uses.
pub fn dt_limit(dynamic_th: i8, remaining: u64) -> u64 {
    if dynamic_th >= 0 {
        remaining.saturating_mul(1u64 << dynamic_th)
    } else {
        remaining >> -dynamic_th
    }
}

/// Where `n` equally loaded PGs or queues under a dynamic threshold of
/// `dynamic_th` on a pool of `pool` bytes stop: q = α·pool / (1 + n·α),
/// from q = α(pool − n·q). The closed form of [`dt_limit`] at its fixed
/// point, for documents and checks (Azure App. A's 2 MB pause and
/// ≈ 4.67 MB drop are n = 1).
pub fn dt_fixed_point(dynamic_th: i8, pool: u64, n: u32) -> f64 {
    let alpha = 2f64.powi(dynamic_th.into());
    alpha * pool as f64 / (1.0 + f64::from(n) * alpha)
}
