//! RPC clients into one server: each client opens `qps` connections (QPs)
//! to the server, each one flow (Bifröst §4.4's incast: N clients of 64
//! QPs each into one server). What runs on a connection (requests of a
//! size, so many outstanding) is its transport's (`[transport]
//! kind = "pfc_free"`: `message`, `io_depth`).

use crate::FlowSpec;
use engine::Time;

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

#[cfg(test)]
mod tests {
    use super::*;

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
