//! A first-in first-out queue of `Copy` values in a power-of-two ring: the
//! ports' class and control queues, their link FIFOs and the NICs' ACK
//! queues.
//!
//! `VecDeque` did the same, but its `push_back` was not inlined on the
//! per-frame path and its index wrap-around is a compare and subtract; here
//! an index wraps with a mask, and growing (rare: the rings keep their
//! largest size) is out of line (docs/performance.md, "Second pass").
//! No unsafe: slots are initialised in ring order (see [`Fifo`]).

/// A FIFO of `T` (module doc). 32 bytes, like a `VecDeque`.
///
/// The ring is `buf`'s allocation: its capacity is zero or a power of two
/// (`Vec::with_capacity` gives exactly the capacity asked for). Slots are
/// written in ring order, so the initialised ones are always a prefix
/// `0..buf.len()` and the next write is either inside it or at its end: a
/// ring that grew but never filled its new half keeps that half untouched
/// (not resident), as `VecDeque` does.
#[derive(Clone, Debug)]
pub struct Fifo<T> {
    buf: Vec<T>,
    /// Index of the oldest value.
    head: u32,
    /// Values held.
    len: u32,
}

impl<T: Copy> Default for Fifo<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Copy> Fifo<T> {
    /// An empty FIFO (it allocates on the first push).
    pub fn new() -> Self {
        Fifo {
            buf: Vec::new(),
            head: 0,
            len: 0,
        }
    }

    /// Values held.
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether it holds nothing.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Append `v` at the back.
    #[inline]
    pub fn push_back(&mut self, v: T) {
        if self.len() == self.buf.capacity() {
            self.grow();
        }
        let i = (self.head as usize + self.len()) & (self.buf.capacity() - 1);
        if i < self.buf.len() {
            self.buf[i] = v;
        } else {
            // The first write of this slot (i == buf.len() < capacity).
            self.buf.push(v);
        }
        self.len += 1;
    }

    /// Remove and return the oldest value.
    #[inline]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let v = self.buf[self.head as usize];
        self.head = (self.head + 1) & (self.buf.capacity() as u32 - 1);
        self.len -= 1;
        Some(v)
    }

    /// The oldest value.
    #[inline]
    pub fn front(&self) -> Option<&T> {
        if self.len == 0 {
            None
        } else {
            Some(&self.buf[self.head as usize])
        }
    }

    /// Ask the cache for the first line of the second oldest value (no
    /// effect on the values). A link's delivery pops the oldest frame and
    /// reads the next one's arrival time: its line is the one that misses.
    #[inline(always)]
    pub fn prefetch_second(&self) {
        let mask = self.buf.capacity().wrapping_sub(1);
        let base = self.buf.as_ptr();
        crate::cache::prefetch(
            base.wrapping_add((self.head as usize + 1) & mask)
                .cast::<u8>(),
        );
    }

    /// The values, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        let mask = self.buf.capacity().wrapping_sub(1);
        (0..self.len()).map(move |i| &self.buf[(self.head as usize + i) & mask])
    }

    /// Double the ring (at least 4 slots). It is full: every slot is
    /// initialised, the values run from `head` to the end, then from 0 to
    /// `head`. The allocation grows in place where the allocator can (as
    /// `VecDeque`'s does, so peak memory is the same), and the values
    /// before `head` are copied to just after the old end, where the
    /// doubled mask puts them.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let old = self.buf.capacity();
        debug_assert_eq!(self.buf.len(), old);
        let cap = (old * 2).max(4);
        assert!(cap <= 1 << 31, "Fifo: too many values");
        self.buf.reserve_exact(cap - old);
        if self.buf.capacity() == cap {
            self.buf.extend_from_within(..self.head as usize);
        } else {
            // The allocator gave more than asked: an exact copy, in order.
            let mut v = Vec::with_capacity(cap);
            v.extend(self.iter().copied());
            self.buf = v;
            self.head = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// The same pushes and pops as a `VecDeque`, across wrap-arounds and
    /// growth.
    #[test]
    fn behaves_as_a_vecdeque() {
        let mut f = Fifo::new();
        let mut d = VecDeque::new();
        assert!(f.iter().next().is_none() && f.front().is_none());
        let mut x = 12345u64;
        for i in 0..20_000u64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            if !(x >> 33).is_multiple_of(3) || d.is_empty() {
                f.push_back(i);
                d.push_back(i);
            } else {
                assert_eq!(f.pop_front(), d.pop_front());
            }
            assert_eq!(f.len(), d.len());
            assert_eq!(f.front(), d.front());
            if i.is_multiple_of(997) {
                assert!(f.iter().eq(d.iter()));
            }
        }
        while let Some(v) = d.pop_front() {
            assert_eq!(f.pop_front(), Some(v));
        }
        assert!(f.is_empty());
        assert_eq!(f.pop_front(), None);
    }
}
