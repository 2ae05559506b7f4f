//! The side table of INT stacks (HPCC): a packet carries a handle
//! ([`Packet::int`](crate::wire::Packet::int)), its records live here.
//!
//! The handle holds the stack's index and, in its low bits, the number of
//! hops recorded. A switch recording a hop then only writes the table:
//! with the count in the stack, each record read it first, and the stack,
//! last touched one hop earlier, was an L1 miss at nearly every switch
//! egress. For the same reason a fresh stack is not cleared: its handle
//! counts no hops, whatever an earlier packet left in the records.

use crate::wire::{IntHop, MAX_INT_HOPS, NO_INT};

/// Low bits of a handle that count the hops recorded.
const COUNT_BITS: u32 = 3;
const COUNT_MASK: u32 = (1 << COUNT_BITS) - 1;
const _: () = assert!(MAX_INT_HOPS <= COUNT_MASK as usize);

/// The INT records of one packet, first hop first. Aligned to 32 bytes,
/// the size of a record, so that no record straddles two cache lines.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(32))]
struct IntStack {
    hops: [IntHop; MAX_INT_HOPS],
}

/// INT stacks of the packets in flight, indexed by their handles.
#[derive(Debug, Default)]
pub(crate) struct IntPool {
    stacks: Vec<IntStack>,
    /// Indices of the stacks no packet holds; the last freed is reused
    /// first, while it may still be in cache.
    free: Vec<u32>,
}

impl IntPool {
    /// A handle to a stack with no hops recorded.
    pub(crate) fn alloc(&mut self) -> u32 {
        let index = match self.free.pop() {
            Some(index) => index,
            None => {
                // Index and count must fit the handle, below `NO_INT`.
                assert!(self.stacks.len() < (NO_INT >> COUNT_BITS) as usize);
                self.stacks.push(IntStack::default());
                (self.stacks.len() - 1) as u32
            }
        };
        index << COUNT_BITS
    }

    /// Return a packet's stack, if it has one.
    pub(crate) fn release(&mut self, handle: u32) {
        if handle != NO_INT {
            self.free.push(handle >> COUNT_BITS);
        }
    }

    /// Record one more hop in the stack of `*handle` (not [`NO_INT`]) and
    /// count it in the handle; beyond [`MAX_INT_HOPS`] the peer stops
    /// recording.
    #[inline]
    pub(crate) fn push(&mut self, handle: &mut u32, hop: IntHop) {
        let n = (*handle & COUNT_MASK) as usize;
        if n < MAX_INT_HOPS {
            self.stacks[(*handle >> COUNT_BITS) as usize].hops[n] = hop;
            *handle += 1;
        }
    }

    /// Ask the cache for the records of `handle` (no effect on them): up
    /// to 160 bytes from a 32-byte boundary, so at most three lines.
    #[inline(always)]
    pub(crate) fn prefetch(&self, handle: u32) {
        if handle != NO_INT {
            let s = self
                .stacks
                .as_ptr()
                .wrapping_add((handle >> COUNT_BITS) as usize)
                .cast::<u8>();
            let bytes = (handle & COUNT_MASK) as usize * std::mem::size_of::<IntHop>();
            crate::cache::prefetch(s);
            crate::cache::prefetch(s.wrapping_add(64));
            crate::cache::prefetch(s.wrapping_add(bytes.saturating_sub(1)));
        }
    }

    /// Take the stack of `handle` out of this pool (freeing it here), to
    /// [`IntPool::put`] it into another: a frame crossing from one
    /// partition to another carries its records by value.
    pub(crate) fn take(&mut self, handle: u32) -> Option<([IntHop; MAX_INT_HOPS], u32)> {
        if handle == NO_INT {
            return None;
        }
        let hops = self.stacks[(handle >> COUNT_BITS) as usize].hops;
        self.release(handle);
        Some((hops, handle & COUNT_MASK))
    }

    /// A handle in this pool to a copy of a stack [`IntPool::take`]n from
    /// another.
    pub(crate) fn put(&mut self, hops: [IntHop; MAX_INT_HOPS], count: u32) -> u32 {
        let handle = self.alloc();
        self.stacks[(handle >> COUNT_BITS) as usize].hops = hops;
        handle + count
    }

    /// The hops recorded in the stack of `handle`; none for [`NO_INT`].
    #[inline]
    pub(crate) fn hops(&self, handle: u32) -> &[IntHop] {
        if handle == NO_INT {
            return &[];
        }
        let n = (handle & COUNT_MASK) as usize;
        &self.stacks[(handle >> COUNT_BITS) as usize].hops[..n]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hop(ts_ns: u64) -> IntHop {
        IntHop {
            ts_ns,
            ..IntHop::default()
        }
    }

    #[test]
    fn a_reused_stack_starts_empty_and_stops_at_the_maximum() {
        let mut pool = IntPool::default();
        let mut a = pool.alloc();
        for t in 0..MAX_INT_HOPS as u64 + 2 {
            pool.push(&mut a, hop(t));
        }
        let all: Vec<u64> = pool.hops(a).iter().map(|h| h.ts_ns).collect();
        assert_eq!(all, (0..MAX_INT_HOPS as u64).collect::<Vec<_>>());
        pool.release(a);
        let mut b = pool.alloc();
        assert!(pool.hops(b).is_empty());
        pool.push(&mut b, hop(7));
        assert_eq!(pool.hops(b), &[hop(7)]);
        assert!(pool.hops(NO_INT).is_empty());
        pool.release(NO_INT);
        assert_ne!(pool.alloc() >> COUNT_BITS, b >> COUNT_BITS);
    }
}
