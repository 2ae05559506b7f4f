//! One chunk in flight per connection (Azure §4.1, `[nic]
//! one_chunk_in_flight`): a QP sends a chunk's first byte only once the
//! chunk before is acknowledged.

use engine::{Delta, Rate, Time};
use rdmasim_net::{NetConfig, Simulation};
use workload::FlowSpec;

/// Host 0 sends 1 MB to host 1 through switch 2, whose port to host 1 is
/// held for 100 µs (nothing is delivered, nothing acknowledged). Returns
/// the data frames host 0 sent by then, and the flow's FCT once released.
fn held_run(chunk: Option<u64>) -> (u64, u64) {
    let topo = topo::star(2, Rate::gbps(100), Delta::from_us(1)).unwrap();
    let flows = vec![FlowSpec {
        id: 0,
        src: 0,
        dst: 1,
        size: 1_000_000,
        start: Time::ZERO,
        pg: 3,
        dport: 100,
    }];
    let mut cfg = NetConfig::default();
    cfg.nic.one_chunk_in_flight = chunk;
    let mut sim = Simulation::new(&topo, flows, cfg).unwrap();
    sim.hold_egress(2, 1, true);
    sim.run_until(Time::from_ns(100_000));
    let sent = sim.data_frames_sent(0, 0);
    sim.hold_egress(2, 1, false);
    sim.run();
    let r = sim.results();
    assert_eq!(r.unfinished(), 0);
    (sent, r.flows[0].end.unwrap().ns())
}

#[test]
fn a_qp_sends_one_chunk_then_waits_for_its_acks() {
    let (free, free_fct) = held_run(None);
    let (chunked, chunked_fct) = held_run(Some(65_536));
    eprintln!("sent while held: {free} frames free, {chunked} chunked; FCT {free_fct} vs {chunked_fct} ns");
    // 65,536 B in 1,000 B frames: the frame that crosses the chunk's end
    // is sent whole, so 66 frames, and not one more until ACKs come.
    assert_eq!(chunked, 66);
    assert!(free > 500, "without chunks the sender keeps going ({free})");
    // Sixteen chunks, each waiting a round trip for the one before.
    assert!(chunked_fct > free_fct, "{chunked_fct} vs {free_fct}");
}
