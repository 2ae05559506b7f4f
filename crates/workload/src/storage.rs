//! Storage traffic (Azure §2.2, §4.1): messages of several flows each.
//!
//! Three kinds of message arrive, each kind at Poisson times over the
//! whole set of hosts:
//! - **frontend I/O** between a compute host and a storage host: a read
//!   (storage to compute) or a write (compute to storage), one flow;
//! - **replication**: a storage host writes one extent to `replicas`
//!   other storage hosts at once (fan-out), done when the last replica is
//!   (fan-in: the writer answers only after every replica has);
//! - **reconstruction** of an erasure-coded fragment: `degree` storage
//!   hosts send a fragment each to one storage host at once (incast), done
//!   when the last fragment is in.
//!
//! Every flow of a message starts at the message's arrival time at its own
//! sender: nothing one host does starts a flow at another. A message's
//! completion time is its last flow's end less its arrival.

use crate::generate::MAX_FLOWS;
use crate::{FlowSpec, SizeCdf};
use engine::{Delta, Rate, Rng, Time};

/// The [`Rng`] stream kind of storage messages ([`storage`]); the stream
/// id is the message kind's index in [`MessageKind::ALL`].
pub const STORAGE_STREAM_KIND: u32 = 4;

/// What a message is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum MessageKind {
    /// Frontend read: storage host to compute host.
    Read,
    /// Frontend write: compute host to storage host.
    Write,
    /// Replication fan-out: one storage host to `replicas` others.
    Replication,
    /// Erasure-coding reconstruction: `degree` storage hosts to one.
    Reconstruction,
}

impl MessageKind {
    /// Every kind, in the order of their random streams.
    pub const ALL: [MessageKind; 4] = [
        MessageKind::Read,
        MessageKind::Write,
        MessageKind::Replication,
        MessageKind::Reconstruction,
    ];

    /// Its name in `messages.csv` and `summary.json`.
    pub fn name(self) -> &'static str {
        match self {
            MessageKind::Read => "read",
            MessageKind::Write => "write",
            MessageKind::Replication => "replication",
            MessageKind::Reconstruction => "reconstruction",
        }
    }
}

/// One message: its flows (indices into the generator's flow list until
/// the flows are numbered, then flow ids).
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    /// Dense id, in arrival order.
    pub id: u32,
    /// Its kind.
    pub kind: MessageKind,
    /// Arrival time: every flow of it starts then.
    pub start: Time,
    /// Its flows.
    pub flows: Vec<u32>,
}

/// The storage generator's settings.
#[derive(Clone, Debug)]
pub struct StorageSpec {
    /// Compute hosts (frontend I/O's one end).
    pub compute: Vec<u32>,
    /// Storage hosts (frontend I/O's other end; replication and
    /// reconstruction among them).
    pub storage: Vec<u32>,
    /// The rate loads are fractions of, per host.
    pub host_rate: Rate,
    /// Frontend I/O's offered load, replication's, reconstruction's: each
    /// its bytes per second as a fraction of every host's (compute and
    /// storage, counted once) `host_rate` together; each in `[0, 1]`.
    pub loads: [f64; 3],
    /// Share of frontend I/O that is writes, in `[0, 1]`.
    pub write_fraction: f64,
    /// Copies a replication writes (to other storage hosts).
    pub replicas: u32,
    /// Fragments a reconstruction reads (from other storage hosts).
    pub degree: u32,
    /// Message size (per flow): frontend I/O, each replica, each fragment.
    pub sizes: SizeCdf,
    /// Start of the arrival window.
    pub start: Time,
    /// Length of the arrival window.
    pub duration: Delta,
    /// Run seed.
    pub seed: u64,
    /// Priority class of every flow.
    pub pg: u8,
    /// Destination port of every flow.
    pub dport: u16,
}

/// Distinct hosts of `pool`, `n` of them, none equal to `not`.
fn pick(rng: &mut Rng, pool: &[u32], n: u32, not: u32, out: &mut Vec<u32>) {
    out.clear();
    while out.len() < n as usize {
        let h = pool[rng.below(pool.len() as u64) as usize];
        if h != not && !out.contains(&h) {
            out.push(h);
        }
    }
}

/// The flows and messages of `p`, both in arrival order (flows by
/// `(start, src)`, numbered from 0; each message's `flows` are those ids).
/// Per message the kind's stream draws: the gap, the hosts, then the
/// size(s).
pub fn storage(p: &StorageSpec) -> Result<(Vec<FlowSpec>, Vec<Message>), String> {
    let distinct = |v: &[u32], what: &str| {
        let mut s = v.to_vec();
        s.sort_unstable();
        match s.windows(2).find(|w| w[0] == w[1]) {
            Some(w) => Err(format!("{what} host {} is listed twice", w[0])),
            None => Ok(()),
        }
    };
    distinct(&p.compute, "compute")?;
    distinct(&p.storage, "storage")?;
    for (i, &l) in p.loads.iter().enumerate() {
        if !(0.0..=1.0).contains(&l) {
            return Err(format!(
                "load {l} of {} must be in [0, 1]",
                ["frontend", "replication", "reconstruction"][i]
            ));
        }
    }
    if p.loads[0] > 0.0
        && (p.compute.is_empty()
            || p.storage.is_empty()
            || (p.compute.len() == 1 && p.storage == p.compute))
    {
        return Err("frontend I/O needs a compute host and another storage host".into());
    }
    if p.loads[1] > 0.0 && (p.replicas == 0 || p.storage.len() <= p.replicas as usize) {
        return Err(format!(
            "{} replicas need {} storage hosts, got {}",
            p.replicas,
            p.replicas + 1,
            p.storage.len()
        ));
    }
    if p.loads[2] > 0.0 && (p.degree == 0 || p.storage.len() <= p.degree as usize) {
        return Err(format!(
            "a {}-to-1 reconstruction needs {} storage hosts, got {}",
            p.degree,
            p.degree + 1,
            p.storage.len()
        ));
    }
    if p.host_rate.bps() == 0 {
        return Err("host rate must be greater than zero".into());
    }
    let mut hosts: Vec<u32> = p.compute.iter().chain(&p.storage).copied().collect();
    hosts.sort_unstable();
    hosts.dedup();
    let capacity_bps = hosts.len() as f64 * p.host_rate.bps() as f64;
    let mean = p.sizes.mean();
    let per_msg = [1.0, f64::from(p.replicas), f64::from(p.degree)];
    // Flows: every class's bytes over the window, a mean size each.
    let span_s = p.duration.ps() as f64 / 1e12;
    let expected: f64 = p
        .loads
        .iter()
        .map(|l| l * capacity_bps * span_s / (mean * 8.0))
        .sum();
    if expected > MAX_FLOWS as f64 {
        return Err(format!(
            "{}: about {expected:.0}, at most {MAX_FLOWS}; shorten the duration or lower the loads",
            crate::TOO_MANY_FLOWS
        ));
    }
    // (arrival, kind, flows) of every message, before numbering.
    let mut msgs: Vec<(Time, MessageKind, Vec<FlowSpec>)> = Vec::new();
    let mut picked = Vec::new();
    for (stream, kind) in MessageKind::ALL.iter().enumerate() {
        let class = match kind {
            MessageKind::Read | MessageKind::Write => 0,
            MessageKind::Replication => 1,
            MessageKind::Reconstruction => 2,
        };
        let mut share = p.loads[class];
        if class == 0 {
            share *= match kind {
                MessageKind::Write => p.write_fraction,
                _ => 1.0 - p.write_fraction,
            };
        }
        if share <= 0.0 {
            continue;
        }
        let gap_ns = per_msg[class] * mean * 8.0 / (share * capacity_bps) * 1e9;
        let mut rng = Rng::stream(p.seed, STORAGE_STREAM_KIND, stream as u64);
        let mut t_ns = 0.0f64;
        loop {
            t_ns += rng.exponential(gap_ns);
            let off_ps = t_ns.round() * 1e3;
            if off_ps >= p.duration.ps() as f64 {
                break;
            }
            let at = p.start + Delta::from_ps(off_ps as u64);
            let flow = |src: u32, dst: u32, size: u64| FlowSpec {
                id: 0,
                src,
                dst,
                size,
                start: at,
                pg: p.pg,
                dport: p.dport,
            };
            let flows = match kind {
                MessageKind::Read | MessageKind::Write => {
                    let c = p.compute[rng.below(p.compute.len() as u64) as usize];
                    pick(&mut rng, &p.storage, 1, c, &mut picked);
                    let s = picked[0];
                    let size = p.sizes.sample(&mut rng);
                    if *kind == MessageKind::Read {
                        vec![flow(s, c, size)]
                    } else {
                        vec![flow(c, s, size)]
                    }
                }
                MessageKind::Replication => {
                    let w = p.storage[rng.below(p.storage.len() as u64) as usize];
                    pick(&mut rng, &p.storage, p.replicas, w, &mut picked);
                    let size = p.sizes.sample(&mut rng);
                    picked.iter().map(|&r| flow(w, r, size)).collect()
                }
                MessageKind::Reconstruction => {
                    let r = p.storage[rng.below(p.storage.len() as u64) as usize];
                    pick(&mut rng, &p.storage, p.degree, r, &mut picked);
                    picked
                        .iter()
                        .map(|&s| flow(s, r, p.sizes.sample(&mut rng)))
                        .collect()
                }
            };
            msgs.push((at, *kind, flows));
        }
    }
    // Arrival order; the kinds' order breaks ties.
    msgs.sort_by_key(|m| (m.0, m.1));
    let mut flows: Vec<(FlowSpec, u32)> = Vec::new();
    for (i, (_, _, fl)) in msgs.iter().enumerate() {
        flows.extend(fl.iter().map(|f| (f.clone(), i as u32)));
    }
    let (flows, owner) = crate::generate::sort_and_number_tagged(flows);
    let mut messages: Vec<Message> = msgs
        .iter()
        .enumerate()
        .map(|(i, m)| Message {
            id: i as u32,
            kind: m.1,
            start: m.0,
            flows: Vec::new(),
        })
        .collect();
    for (f, &m) in flows.iter().zip(&owner) {
        messages[m as usize].flows.push(f.id);
    }
    Ok((flows, messages))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(loads: [f64; 3]) -> StorageSpec {
        StorageSpec {
            compute: vec![0, 1, 2, 3],
            storage: vec![4, 5, 6, 7, 8, 9, 10, 11],
            host_rate: Rate::gbps(100),
            loads,
            write_fraction: 0.5,
            replicas: 3,
            degree: 6,
            sizes: SizeCdf::new(vec![(8192.0, 0.0), (1_048_576.0, 1.0)]).unwrap(),
            start: Time::from_ns(1000),
            duration: Delta::from_ms(20),
            seed: 7,
            pg: 3,
            dport: 120,
        }
    }

    #[test]
    fn messages_group_their_flows_and_offer_their_load() {
        let p = spec([0.2, 0.1, 0.1]);
        let (flows, msgs) = storage(&p).unwrap();
        assert!(flows
            .windows(2)
            .all(|w| (w[0].start, w[0].src) <= (w[1].start, w[1].src)));
        assert!(flows.iter().enumerate().all(|(i, f)| f.id == i as u32));
        assert!(msgs.windows(2).all(|w| w[0].start <= w[1].start));
        let mut seen = vec![0; flows.len()];
        let mut bytes = [0u64; 3];
        for m in &msgs {
            for &f in &m.flows {
                seen[f as usize] += 1;
                assert_eq!(
                    flows[f as usize].start, m.start,
                    "a message's flows start together"
                );
            }
            let fl: Vec<&FlowSpec> = m.flows.iter().map(|&f| &flows[f as usize]).collect();
            let storage = |h: u32| p.storage.contains(&h);
            let compute = |h: u32| p.compute.contains(&h);
            match m.kind {
                MessageKind::Read => {
                    assert!(fl.len() == 1 && storage(fl[0].src) && compute(fl[0].dst));
                }
                MessageKind::Write => {
                    assert!(fl.len() == 1 && compute(fl[0].src) && storage(fl[0].dst));
                }
                MessageKind::Replication => {
                    assert_eq!(fl.len(), 3);
                    let mut dsts: Vec<u32> = fl.iter().map(|f| f.dst).collect();
                    dsts.sort_unstable();
                    dsts.dedup();
                    assert_eq!(dsts.len(), 3, "three distinct replicas");
                    assert!(fl.iter().all(|f| f.src == fl[0].src && f.dst != f.src));
                    assert!(fl.iter().all(|f| f.size == fl[0].size));
                }
                MessageKind::Reconstruction => {
                    assert_eq!(fl.len(), 6);
                    let mut srcs: Vec<u32> = fl.iter().map(|f| f.src).collect();
                    srcs.sort_unstable();
                    srcs.dedup();
                    assert_eq!(srcs.len(), 6, "six distinct fragments");
                    assert!(fl.iter().all(|f| f.dst == fl[0].dst && storage(f.src)));
                }
            }
            let class = match m.kind {
                MessageKind::Read | MessageKind::Write => 0,
                MessageKind::Replication => 1,
                MessageKind::Reconstruction => 2,
            };
            bytes[class] += fl.iter().map(|f| f.size).sum::<u64>();
        }
        assert!(seen.iter().all(|&n| n == 1), "each flow in one message");
        // Offered load over 12 hosts x 100 Gb/s x 20 ms, within 15%.
        let capacity = 12.0 * 100e9 / 8.0 * 0.02;
        for (i, want) in p.loads.iter().enumerate() {
            let got = bytes[i] as f64 / capacity;
            assert!(
                (got - want).abs() <= 0.15 * want,
                "class {i}: {got} vs {want}"
            );
        }
        assert_eq!(
            storage(&p).unwrap(),
            (flows, msgs),
            "same seed, same messages"
        );
    }

    #[test]
    fn bad_settings_are_refused() {
        let mut p = spec([0.1, 0.1, 0.0]);
        p.replicas = 8;
        assert_eq!(
            storage(&p).unwrap_err(),
            "8 replicas need 9 storage hosts, got 8"
        );
        let mut p = spec([0.0, 0.0, 0.1]);
        p.degree = 8;
        assert!(storage(&p).unwrap_err().contains("8-to-1 reconstruction"));
        let mut p = spec([0.1, 0.0, 0.0]);
        p.storage = vec![4, 4];
        assert!(storage(&p).unwrap_err().contains("listed twice"));
        let p = spec([1.5, 0.0, 0.0]);
        assert!(storage(&p).unwrap_err().contains("[0, 1]"));
    }
}
