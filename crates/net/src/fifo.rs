//! A first-in first-out queue of `Copy` values in a power-of-two ring: the
//! ports' class and control queues, their link FIFOs and the NICs' ACK
//! queues.
//!
//! `VecDeque` did the same, but its `push_back` was not inlined on the
//! per-frame path and its index wrap-around is a compare and subtract; here
//! an index wraps with a mask, and growing (rare: the rings keep their
//! largest size) is out of line (docs/performance.md, "Second pass").

/// A FIFO of `T` (module doc). 32 bytes, like a `VecDeque`.
#[derive(Clone, Debug)]
pub struct Fifo<T> {
    /// The ring; its length is zero or a power of two.
    buf: Box<[T]>,
    /// Index of the oldest value.
    head: usize,
    /// Values held.
    len: usize,
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
            buf: Box::new([]),
            head: 0,
            len: 0,
        }
    }

    /// Values held.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds nothing.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Append `v` at the back.
    #[inline]
    pub fn push_back(&mut self, v: T) {
        if self.len == self.buf.len() {
            self.grow(v);
        }
        let mask = self.buf.len() - 1;
        self.buf[(self.head + self.len) & mask] = v;
        self.len += 1;
    }

    /// Remove and return the oldest value.
    #[inline]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let v = self.buf[self.head];
        self.head = (self.head + 1) & (self.buf.len() - 1);
        self.len -= 1;
        Some(v)
    }

    /// The oldest value.
    #[inline]
    pub fn front(&self) -> Option<&T> {
        if self.len == 0 {
            None
        } else {
            Some(&self.buf[self.head])
        }
    }

    /// The values, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        let mask = self.buf.len().wrapping_sub(1);
        (0..self.len).map(move |i| &self.buf[(self.head + i) & mask])
    }

    /// Double the ring (at least 4 slots), the values moved to its start in
    /// order; `fill` fills the new free slots (they are written before they
    /// are read).
    #[cold]
    #[inline(never)]
    fn grow(&mut self, fill: T) {
        let cap = (self.buf.len() * 2).max(4);
        let mut v = Vec::with_capacity(cap);
        v.extend(self.iter().copied());
        v.resize(cap, fill);
        self.buf = v.into_boxed_slice();
        self.head = 0;
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
