//! RPC clients into one server: each client opens `qps` connections (QPs)
//! to the server, each one flow (Bifröst §4.4's incast: N clients of 64
//! QPs each into one server). What runs on a connection (requests of a
//! size, so many outstanding) is its transport's (`[transport]
//! kind = "pfc_free"`: `message`, `io_depth`).

use crate::FlowSpec;
use engine::{Delta, Rng, Time};

/// The [`Rng`] stream kind of the RPC connections' start times
/// ([`spread_starts`]).
pub const RPC_STREAM_KIND: u32 = 26;

/// `qps` flows of `size` bytes from each client to `server`, all starting
/// at `start`, numbered from 0 client by client (a client's QPs in turn).
/// A client equal to `server` is skipped.
pub fn rpc_clients(
    clients: &[u32],
    server: u32,
    qps: u32,
    size: u64,
    start: Time,
    pg: u8,
    dport: u16,
) -> Vec<FlowSpec> {
    let mut out = Vec::with_capacity(clients.len() * qps as usize);
    for &src in clients.iter().filter(|&&c| c != server) {
        for _ in 0..qps {
            out.push(FlowSpec {
                id: out.len() as u32,
                src,
                dst: server,
                size,
                start,
                pg,
                dport,
            });
        }
    }
    out
}

/// Start each flow of `flows` (made by [`rpc_clients`]) a time drawn
/// uniformly from [0, `spread`) after its start, client `c`'s connections
/// from `Rng::stream(seed, RPC_STREAM_KIND, c)`, then order them by start
/// and number them again: connections that a client sets up one after
/// another do not all start in the same instant. `spread` zero changes
/// nothing.
pub fn spread_starts(flows: &mut [FlowSpec], spread: Delta, seed: u64) {
    if spread == Delta::ZERO {
        return;
    }
    let mut rng: Option<(u32, Rng)> = None;
    for f in flows.iter_mut() {
        if rng.as_ref().is_none_or(|(c, _)| *c != f.src) {
            rng = Some((f.src, Rng::stream(seed, RPC_STREAM_KIND, u64::from(f.src))));
        }
        let (_, r) = rng.as_mut().expect("set above");
        f.start += Delta(r.below(spread.ps()));
    }
    flows.sort_by_key(|f| f.start);
    for (i, f) in flows.iter_mut().enumerate() {
        f.id = i as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_starts_fall_within_the_spread_in_order() {
        let mut f = rpc_clients(&[0, 1, 2], 3, 50, 1000, Time::from_ns(10), 3, 200);
        spread_starts(&mut f, Delta::from_us(100), 7);
        assert!(f.windows(2).all(|w| w[0].start <= w[1].start));
        assert!(f.iter().enumerate().all(|(i, f)| f.id == i as u32));
        let (lo, hi) = (Time::from_ns(10), Time::from_ns(100_010));
        assert!(f.iter().all(|f| f.start >= lo && f.start < hi));
        // Spread, not all in one instant; every client keeps its 50.
        assert!(f[149].start.since(f[0].start) > Delta::from_us(90));
        for c in 0..3 {
            assert_eq!(f.iter().filter(|f| f.src == c).count(), 50);
        }
        let mut g = rpc_clients(&[0, 1, 2], 3, 50, 1000, Time::from_ns(10), 3, 200);
        spread_starts(&mut g, Delta::ZERO, 7);
        assert!(g.iter().all(|f| f.start == Time::from_ns(10)));
    }

    #[test]
    fn each_client_opens_its_qps_to_the_server_and_none_to_itself() {
        let f = rpc_clients(&[0, 1, 2], 2, 3, 1000, Time::ZERO, 3, 200);
        assert_eq!(f.len(), 6);
        assert!(f.iter().all(|x| x.dst == 2 && x.src != 2));
        let ids: Vec<u32> = f.iter().map(|x| x.id).collect();
        assert_eq!(ids, vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(f.iter().filter(|x| x.src == 1).count(), 3);
    }
}
