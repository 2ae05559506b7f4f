//! Deterministic random streams, one per entity (rdmasim's own rule:
//! results must not depend on the order of events).
//!
//! Each stream is seeded from `(run seed, stream kind, entity id)` through
//! SplitMix64, then runs xoshiro256**. Results therefore do not depend on the
//! order in which entities happen to draw, only on the seed.

/// A small, fast, seedable generator (xoshiro256**).
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

fn splitmix64(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rng {
    /// The stream for entity `id` of kind `kind` (e.g. a switch, a host's
    /// arrival process) in a run with `seed`.
    pub fn stream(seed: u64, kind: u32, id: u64) -> Rng {
        let mut x = seed ^ (u64::from(kind) << 48) ^ id.wrapping_mul(0xD1B5_4A32_D192_ED03);
        // Mix twice so nearby (kind, id) pairs land far apart.
        splitmix64(&mut x);
        let s = [
            splitmix64(&mut x),
            splitmix64(&mut x),
            splitmix64(&mut x),
            splitmix64(&mut x),
        ];
        Rng { s }
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1), 53 bits of precision.
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform integer in `0..n` (n > 0), without modulo bias worth noting
    /// (Lemire's multiply-shift).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Exponentially distributed with the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        // 1 - U is in (0, 1], so the log is finite.
        -(1.0 - self.uniform()).ln() * mean
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let a: Vec<u64> = (0..4).map(|_| Rng::stream(1, 0, 7).next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        assert_ne!(
            Rng::stream(1, 0, 7).next_u64(),
            Rng::stream(1, 0, 8).next_u64()
        );
        assert_ne!(
            Rng::stream(1, 0, 7).next_u64(),
            Rng::stream(2, 0, 7).next_u64()
        );
        assert_ne!(
            Rng::stream(1, 1, 7).next_u64(),
            Rng::stream(1, 0, 7).next_u64()
        );
    }

    #[test]
    fn uniform_and_exponential_have_the_right_mean() {
        let mut r = Rng::stream(42, 0, 0);
        let n = 200_000;
        let u: f64 = (0..n).map(|_| r.uniform()).sum::<f64>() / n as f64;
        assert!((u - 0.5).abs() < 0.01, "{u}");
        let e: f64 = (0..n).map(|_| r.exponential(3.0)).sum::<f64>() / n as f64;
        assert!((e - 3.0).abs() < 0.05, "{e}");
        assert!((0..1000).all(|_| r.below(6) < 6));
    }
}
