//! The bodies of software ACK frames on their way: what a `SoftAck`
//! frame carries (its numbers and the reference WQE's residence), kept
//! out of the small [`Packet`](crate::wire::Packet) as INT records are
//! (`int_pool.rs`), and found by the frame's flow and serial number.
//!
//! The receiving host's software puts a body here when it sends the
//! frame; the sending host's software takes it when the frame arrives.
//! A frame lost on the way leaves its body until a later serial of the
//! same flow is taken. A frame crossing from one partition of a parallel
//! run to another (`parallel.rs`) takes its body along by value
//! ([`AckBodies::take_exact`], [`AckBodies::put`]), so each partition's
//! table holds the bodies of the frames on its side only.

use super::headers::AckBody;
use std::collections::{HashMap, VecDeque};

/// One flow's bodies, by serial.
#[derive(Debug, Default)]
struct FlowBodies {
    /// Bodies of frames not yet read, by increasing serial.
    waiting: VecDeque<(u64, AckBody)>,
    /// Serials below this were read or passed over: a body of one that
    /// comes later is not kept.
    read_below: u64,
}

/// The bodies of the software ACK frames in flight, by flow.
#[derive(Debug, Default)]
pub struct AckBodies {
    flows: HashMap<u32, FlowBodies>,
}

impl AckBodies {
    /// Keep the body of flow `flow`'s ACK `serial`.
    pub fn put(&mut self, flow: u32, serial: u64, body: AckBody) {
        let f = self.flows.entry(flow).or_default();
        if serial < f.read_below {
            return;
        }
        // In order of serials (a frame that crossed partitions may come
        // after a later one).
        let at = f.waiting.partition_point(|&(s, _)| s < serial);
        f.waiting.insert(at, (serial, body));
    }

    /// The body of flow `flow`'s ACK `serial`, whose frame just reached
    /// the sender; the bodies of earlier serials (frames lost or
    /// overtaken) are dropped, and so is a body of such a serial that
    /// comes later.
    pub fn take(&mut self, flow: u32, serial: u64) -> Option<AckBody> {
        let f = self.flows.get_mut(&flow)?;
        f.read_below = f.read_below.max(serial + 1);
        while f.waiting.front().is_some_and(|&(s, _)| s < serial) {
            f.waiting.pop_front();
        }
        match f.waiting.front() {
            Some(&(s, _)) if s == serial => f.waiting.pop_front().map(|(_, b)| b),
            _ => None,
        }
    }

    /// Remove the body of flow `flow`'s ACK `serial` alone, if here: its
    /// frame leaves for another partition.
    pub fn take_exact(&mut self, flow: u32, serial: u64) -> Option<AckBody> {
        let f = self.flows.get_mut(&flow)?;
        let at = f.waiting.iter().position(|&(s, _)| s == serial)?;
        f.waiting.remove(at).map(|(_, b)| b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::pfc_free::headers::AckEntry;
    use engine::Delta;

    fn body(gn: u64) -> AckBody {
        AckBody {
            entries: vec![AckEntry::Send(gn)],
            residence: Delta::ZERO,
            hw: None,
        }
    }

    #[test]
    fn a_later_serial_drops_the_earlier_ones_even_those_that_come_after_it() {
        let mut t = AckBodies::default();
        t.put(7, 0, body(0));
        t.put(7, 1, body(1));
        t.put(8, 0, body(10));
        assert_eq!(t.take(7, 1), Some(body(1)));
        assert_eq!(t.take(7, 0), None, "serial 0 was passed over");
        // Serial 3's frame overtook serial 2's, which then crossed.
        t.put(7, 3, body(3));
        assert_eq!(t.take(7, 3), Some(body(3)));
        t.put(7, 2, body(2));
        assert_eq!(t.take(7, 2), None);
        assert_eq!(t.take(8, 0), Some(body(10)), "flows are apart");
    }

    #[test]
    fn bodies_moved_out_of_order_are_read_in_order() {
        let mut t = AckBodies::default();
        t.put(1, 5, body(5));
        t.put(1, 4, body(4));
        assert_eq!(t.take_exact(1, 5), Some(body(5)));
        assert_eq!(t.take_exact(1, 5), None);
        t.put(1, 5, body(5));
        assert_eq!(t.take(1, 4), Some(body(4)));
        assert_eq!(t.take(1, 5), Some(body(5)));
    }
}
