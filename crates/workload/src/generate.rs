//! Flow generators: Poisson arrivals over a size CDF, N-to-1 incast,
//! long-lived bandwidth flows, latency probes, and merging of flow lists.

use crate::{FlowSpec, SizeCdf};
use engine::{Delta, Rate, Rng, Time};

/// The [`Rng`] stream kind of a host's Poisson arrival process.
pub const POISSON_STREAM_KIND: u32 = 1;

/// Most flows one generator may make: 2^25 (33,554,432), about 2 GiB once a
/// simulation is built (rdmasim's choice). A duration, load or count that
/// asks for more is refused before the flows are made, rather than filling
/// the memory.
pub const MAX_FLOWS: usize = 1 << 25;

/// How an error about more flows than [`MAX_FLOWS`] begins.
pub const TOO_MANY_FLOWS: &str = "too many flows";

/// The error of a generator that would make about `n` flows, `fix` saying
/// how to make fewer.
fn too_many_flows(n: f64, fix: &str) -> String {
    let n = if n < 1e15 {
        format!("{n:.0}")
    } else {
        format!("{n:.2e}")
    };
    format!("{TOO_MANY_FLOWS}: about {n}, at most {MAX_FLOWS}; {fix}")
}

/// Open-loop Poisson traffic between a set of hosts.
#[derive(Clone, Debug)]
pub struct PoissonSpec {
    /// The hosts that send and receive; at least 2, all distinct.
    pub hosts: Vec<u32>,
    /// Each host's link rate.
    pub host_rate: Rate,
    /// Offered load per host as a fraction of `host_rate`, in `(0, 1]`.
    pub load: f64,
    /// Flow-size distribution.
    pub cdf: SizeCdf,
    /// Start of the arrival window.
    pub start: Time,
    /// Length of the arrival window `[start, start + duration)`.
    pub duration: Delta,
    /// Run seed; host `h` draws from `Rng::stream(seed, 1, h)`.
    pub seed: u64,
    /// Priority class of every flow.
    pub pg: u8,
    /// Destination port of every flow.
    pub dport: u16,
}

impl PoissonSpec {
    /// Mean time between one host's flow arrivals, in seconds:
    /// `mean_size * 8 / (load * host_rate)`.
    pub fn mean_interarrival_s(&self) -> f64 {
        self.cdf.mean() * 8.0 / (self.load * self.host_rate.bps() as f64)
    }

    fn validate(&self) -> Result<(), String> {
        if self.load.is_nan() || self.load <= 0.0 || self.load > 1.0 {
            return Err(format!("load {} must be in (0, 1]", self.load));
        }
        if self.hosts.len() < 2 {
            return Err(format!(
                "Poisson traffic needs at least 2 hosts, got {}",
                self.hosts.len()
            ));
        }
        let mut sorted = self.hosts.clone();
        sorted.sort_unstable();
        if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
            return Err(format!("host {} is listed twice", w[0]));
        }
        if self.host_rate.bps() == 0 {
            return Err("host rate must be greater than zero".to_string());
        }
        let mean = self.cdf.mean();
        if !(mean.is_finite() && mean > 0.0) {
            return Err(format!(
                "the size CDF's mean is {mean} bytes; it must be positive"
            ));
        }
        Ok(())
    }
}

/// The hosts of `dsts` that `src` may send to: all but itself, at least one.
fn destinations_of(src: u32, dsts: &[u32]) -> Result<Vec<u32>, String> {
    let own: Vec<u32> = dsts.iter().copied().filter(|&d| d != src).collect();
    if own.is_empty() {
        return Err(format!("host {src} has no destination but itself"));
    }
    Ok(own)
}

/// Generate Poisson traffic: each host runs an independent Poisson process
/// (its own stream, `Rng::stream(seed, 1, host)`) with mean inter-arrival
/// [`PoissonSpec::mean_interarrival_s`]; the first arrival comes one gap
/// after `start`. Each arrival in `[start, start + duration)` is a flow to a
/// uniformly random *other* host of the list with a size drawn from the CDF.
///
/// Arrival offsets are rounded to whole nanoseconds (the peer's flow-file
/// resolution), so a generated list survives [`crate::write_peer_flows`]
/// unchanged. Flows are sorted by `(start, src)` and numbered from 0.
///
/// Per arrival the stream draws, in order: the gap, the destination, the size.
pub fn poisson(p: &PoissonSpec) -> Result<Vec<FlowSpec>, String> {
    poisson_to(p, &[])
}

/// [`poisson`], but each flow goes to a uniformly random host of `dsts`
/// other than its source (the hosts of `p` only send). An empty `dsts` is
/// [`poisson`]: every host of `p` sends to the others. For traffic from
/// one group of hosts to another, e.g. 16 senders in one datacenter to 4
/// receivers in another (Swing §6.2).
pub fn poisson_to(p: &PoissonSpec, dsts: &[u32]) -> Result<Vec<FlowSpec>, String> {
    p.validate()?;
    let mut sorted = dsts.to_vec();
    sorted.sort_unstable();
    if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!("destination host {} is listed twice", w[0]));
    }
    let mean_gap_ns = p.mean_interarrival_s() * 1e9;
    const FIX_POISSON: &str = "shorten the duration or lower the load";
    let expected = p.hosts.len() as f64 * (p.duration.ps() as f64 / 1e3) / mean_gap_ns;
    if expected > MAX_FLOWS as f64 {
        return Err(too_many_flows(expected, FIX_POISSON));
    }
    let others = p.hosts.len() as u64 - 1;
    let mut flows = Vec::new();
    for (i, &src) in p.hosts.iter().enumerate() {
        // Destinations of this source: `dsts` without itself.
        let own = if dsts.is_empty() {
            Vec::new()
        } else {
            destinations_of(src, dsts)?
        };
        let mut rng = Rng::stream(p.seed, POISSON_STREAM_KIND, u64::from(src));
        let mut t_ns = 0.0f64;
        loop {
            t_ns += rng.exponential(mean_gap_ns);
            let off_ps = t_ns.round() * 1e3;
            if off_ps >= p.duration.ps() as f64 {
                break;
            }
            let dst = if dsts.is_empty() {
                let mut j = rng.below(others) as usize;
                if j >= i {
                    j += 1;
                }
                p.hosts[j]
            } else {
                own[rng.below(own.len() as u64) as usize]
            };
            let size = p.cdf.sample(&mut rng);
            if flows.len() == MAX_FLOWS {
                return Err(too_many_flows(expected, FIX_POISSON));
            }
            flows.push(FlowSpec {
                id: 0,
                src,
                dst,
                size,
                start: p.start + Delta::from_ps(off_ps as u64),
                pg: p.pg,
                dport: p.dport,
            });
        }
    }
    sort_and_number(&mut flows);
    Ok(flows)
}

/// N-to-1 incast: one flow of `size` bytes from each sender to `receiver`,
/// all starting at `start`, numbered from 0 in `senders` order. A sender
/// equal to `receiver` is skipped (no self-flows).
pub fn incast(
    senders: &[u32],
    receiver: u32,
    size: u64,
    start: Time,
    pg: u8,
    dport: u16,
) -> Vec<FlowSpec> {
    senders
        .iter()
        .filter(|&&s| s != receiver)
        .enumerate()
        .map(|(i, &src)| FlowSpec {
            id: i as u32,
            src,
            dst: receiver,
            size,
            start,
            pg,
            dport,
        })
        .collect()
}

/// The [`Rng`] stream kind of the incast background's events
/// ([`incast_background`]).
pub const INCAST_STREAM_KIND: u32 = 3;

/// A background of N-to-1 incast events at Poisson times (FlowSail §VI-B:
/// "50-to-1 incast", each flow uniform in 50–200 KB, total load 0.1·X %).
#[derive(Clone, Debug)]
pub struct IncastBackgroundSpec {
    /// The hosts receivers and senders are drawn from; at least
    /// `degree + 1`, all distinct.
    pub hosts: Vec<u32>,
    /// Senders per event.
    pub degree: u32,
    /// Smallest flow, bytes.
    pub min_size: u64,
    /// Largest flow, bytes (at least `min_size`).
    pub max_size: u64,
    /// Offered load of all incast flows together, as an average fraction of
    /// each host's `host_rate`, in `(0, 1]`.
    pub load: f64,
    /// Each host's link rate.
    pub host_rate: Rate,
    /// Start of the event window.
    pub start: Time,
    /// Length of the window `[start, start + duration)`.
    pub duration: Delta,
    /// Run seed; the events draw from `Rng::stream(seed, 3, 0)`.
    pub seed: u64,
    /// Priority class of every flow.
    pub pg: u8,
    /// Destination port of every flow.
    pub dport: u16,
}

impl IncastBackgroundSpec {
    /// Mean time between events, seconds: an event carries `degree` flows
    /// of mean `(min_size + max_size) / 2`, and the events together offer
    /// `load · hosts · host_rate`.
    pub fn mean_gap_s(&self) -> f64 {
        let event_bits = f64::from(self.degree) * (self.min_size + self.max_size) as f64 * 4.0;
        event_bits / (self.load * self.hosts.len() as f64 * self.host_rate.bps() as f64)
    }
}

/// Incast events at Poisson times over the whole network: each event
/// picks a uniformly random receiver among `hosts` and `degree` distinct
/// random senders among the others; each sender starts one flow to it at
/// the event's time, of a size drawn uniformly (whole bytes) from
/// `[min_size, max_size]` (FlowSail §VI-B leaves the event's structure
/// open; this is rdmasim's reading). The first event comes one gap after
/// `start`; times are rounded to whole nanoseconds. Sorted by
/// `(start, src)`, numbered from 0. Per event the stream draws, in order:
/// the gap, the receiver, the senders, then each flow's size.
pub fn incast_background(p: &IncastBackgroundSpec) -> Result<Vec<FlowSpec>, String> {
    if p.load.is_nan() || p.load <= 0.0 || p.load > 1.0 {
        return Err(format!("load {} must be in (0, 1]", p.load));
    }
    if p.degree == 0 {
        return Err("the incast degree must be at least 1".into());
    }
    if p.hosts.len() <= p.degree as usize {
        return Err(format!(
            "a {}-to-1 incast needs at least {} hosts, got {}",
            p.degree,
            p.degree + 1,
            p.hosts.len()
        ));
    }
    let mut sorted = p.hosts.clone();
    sorted.sort_unstable();
    if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!("host {} is listed twice", w[0]));
    }
    if p.min_size == 0 || p.max_size < p.min_size {
        return Err(format!(
            "flow sizes {}-{} B: the smallest must be at least 1 and at most the largest",
            p.min_size, p.max_size
        ));
    }
    if p.host_rate.bps() == 0 {
        return Err("host rate must be greater than zero".to_string());
    }
    let mean_gap_ns = p.mean_gap_s() * 1e9;
    const FIX: &str = "shorten the duration or lower the load";
    let expected = f64::from(p.degree) * (p.duration.ps() as f64 / 1e3) / mean_gap_ns;
    if expected > MAX_FLOWS as f64 {
        return Err(too_many_flows(expected, FIX));
    }
    let n = p.hosts.len() as u64;
    let span = p.max_size - p.min_size + 1;
    let mut rng = Rng::stream(p.seed, INCAST_STREAM_KIND, 0);
    let mut flows = Vec::new();
    let mut t_ns = 0.0f64;
    let mut picked: Vec<usize> = Vec::with_capacity(p.degree as usize);
    loop {
        t_ns += rng.exponential(mean_gap_ns);
        let off_ps = t_ns.round() * 1e3;
        if off_ps >= p.duration.ps() as f64 {
            break;
        }
        let rx = rng.below(n) as usize;
        // Distinct senders other than the receiver: redraw repeats (degree
        // is below the host count, so this ends).
        picked.clear();
        while picked.len() < p.degree as usize {
            let s = rng.below(n) as usize;
            if s != rx && !picked.contains(&s) {
                picked.push(s);
            }
        }
        for &s in &picked {
            if flows.len() == MAX_FLOWS {
                return Err(too_many_flows(expected, FIX));
            }
            flows.push(FlowSpec {
                id: 0,
                src: p.hosts[s],
                dst: p.hosts[rx],
                size: p.min_size + rng.below(span),
                start: p.start + Delta::from_ps(off_ps as u64),
                pg: p.pg,
                dport: p.dport,
            });
        }
    }
    sort_and_number(&mut flows);
    Ok(flows)
}

/// The size of a bandwidth flow meant to run until the stop time: 1 PB,
/// which no simulated run carries (80,000 s at 100 Gb/s). A run does not
/// count such flows as unfinished.
pub const ENDLESS: u64 = 1_000_000_000_000_000;

/// Long-lived "bandwidth" flows, like perftest's bandwidth test: `flows`
/// flows of `size` bytes, all starting at `start`. Flow i comes from
/// `senders[i % senders.len()]` and goes to the `i / senders.len()`-th
/// destination of `dsts` in turn (skipping the sender itself), so a count
/// that is not a multiple of the senders gives the first senders one flow
/// more. Numbered from 0 in that order.
pub fn bulk(
    senders: &[u32],
    dsts: &[u32],
    flows: u32,
    size: u64,
    start: Time,
    pg: u8,
    dport: u16,
) -> Result<Vec<FlowSpec>, String> {
    if senders.is_empty() {
        return Err("bandwidth flows need at least one sender".into());
    }
    if flows as usize > MAX_FLOWS {
        return Err(too_many_flows(f64::from(flows), "ask for fewer flows"));
    }
    let mut out = Vec::with_capacity(flows as usize);
    for i in 0..flows as usize {
        let src = senders[i % senders.len()];
        let own = destinations_of(src, dsts)?;
        let dst = own[(i / senders.len()) % own.len()];
        out.push(FlowSpec {
            id: i as u32,
            src,
            dst,
            size,
            start,
            pg,
            dport,
        });
    }
    Ok(out)
}

/// The [`Rng`] stream kind of a host's probe arrivals ([`probes`]).
pub const PROBE_STREAM_KIND: u32 = 2;

/// Latency probes, like perftest's latency test: each sender starts flows
/// of `size` bytes at Poisson times with mean gap `interval` (so the probes
/// see the network's time averages), from one gap after `start` until
/// `start + duration`, to the destinations of `dsts` in turn (skipping
/// itself). Sender `h` draws its gaps from `Rng::stream(seed, 2, h)`; times
/// are rounded to whole nanoseconds. Sorted by `(start, src)`, numbered
/// from 0.
#[allow(clippy::too_many_arguments)]
pub fn probes(
    senders: &[u32],
    dsts: &[u32],
    size: u64,
    interval: Delta,
    start: Time,
    duration: Delta,
    seed: u64,
    pg: u8,
    dport: u16,
) -> Result<Vec<FlowSpec>, String> {
    if interval == Delta::ZERO {
        return Err("the probe interval must be greater than zero".into());
    }
    let mean_gap_ns = interval.ps() as f64 / 1e3;
    const FIX_PROBES: &str = "shorten the duration or lengthen the interval";
    let expected = senders.len() as f64 * duration.ps() as f64 / interval.ps() as f64;
    if expected > MAX_FLOWS as f64 {
        return Err(too_many_flows(expected, FIX_PROBES));
    }
    let mut out = Vec::new();
    for &src in senders {
        let own = destinations_of(src, dsts)?;
        let mut rng = Rng::stream(seed, PROBE_STREAM_KIND, u64::from(src));
        let mut t_ns = 0.0f64;
        for k in 0.. {
            t_ns += rng.exponential(mean_gap_ns);
            let off_ps = t_ns.round() * 1e3;
            if off_ps >= duration.ps() as f64 {
                break;
            }
            if out.len() == MAX_FLOWS {
                return Err(too_many_flows(expected, FIX_PROBES));
            }
            out.push(FlowSpec {
                id: 0,
                src,
                dst: own[k % own.len()],
                size,
                start: start + Delta::from_ps(off_ps as u64),
                pg,
                dport,
            });
        }
    }
    sort_and_number(&mut out);
    Ok(out)
}

/// Merge flow lists into one: stable-sorted by `(start, src)` (ties keep
/// the order of the lists and of each list) and renumbered from 0.
pub fn merge<I>(lists: I) -> Vec<FlowSpec>
where
    I: IntoIterator<Item = Vec<FlowSpec>>,
{
    let mut all: Vec<FlowSpec> = lists.into_iter().flatten().collect();
    sort_and_number(&mut all);
    all
}

/// The order of every flow list: by start, then source.
fn order_key(f: &FlowSpec) -> (Time, u32) {
    (f.start, f.src)
}

/// Stable-sort `flows` by `(start, src)` and set their ids to 0, 1, ...
pub fn sort_and_number(flows: &mut [FlowSpec]) {
    flows.sort_by_key(order_key);
    for (i, f) in flows.iter_mut().enumerate() {
        f.id = i as u32;
    }
}

/// [`sort_and_number`] for flows that carry a tag each (what they belong
/// to): the flows in the same order, and their tags in that order.
pub fn sort_and_number_tagged<T>(mut flows: Vec<(FlowSpec, T)>) -> (Vec<FlowSpec>, Vec<T>) {
    flows.sort_by_key(|(f, _)| order_key(f));
    flows
        .into_iter()
        .enumerate()
        .map(|(i, (mut f, t))| {
            f.id = i as u32;
            (f, t)
        })
        .unzip()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(hosts: u32, load: f64, duration: Delta, seed: u64) -> PoissonSpec {
        PoissonSpec {
            hosts: (0..hosts).map(|h| h * 2 + 10).collect(),
            host_rate: Rate::gbps(100),
            load,
            cdf: SizeCdf::websearch(),
            start: Time::from_ns(2_000_000_000),
            duration,
            seed,
            pg: 3,
            dport: 100,
        }
    }

    /// A workload that would fill the memory is refused before any flow
    /// is made: a long duration, a short probe interval, a huge count.
    #[test]
    fn more_flows_than_max_flows_are_refused_up_front() {
        let t0 = std::time::Instant::now();
        // 8 hosts at 30% of 100 Gb/s for 10^6 s: about 1.2e12 flows.
        let e = poisson(&spec(8, 0.3, Delta::from_ps(1_000_000_000_000_000_000), 1)).unwrap_err();
        assert!(e.starts_with("too many flows: about 1"), "{e}");
        assert!(
            e.ends_with("at most 33554432; shorten the duration or lower the load"),
            "{e}"
        );
        let e = probes(
            &[0],
            &[1],
            1000,
            Delta::from_ps(1),
            Time::ZERO,
            Delta::from_ms(1),
            1,
            3,
            100,
        )
        .unwrap_err();
        assert_eq!(
            e,
            "too many flows: about 1000000000, at most 33554432; shorten the duration or \
             lengthen the interval"
        );
        let e = bulk(&[0], &[1], u32::MAX, 1000, Time::ZERO, 3, 100).unwrap_err();
        assert!(
            e.starts_with("too many flows: about 4294967295, at most"),
            "{e}"
        );
        assert!(t0.elapsed() < std::time::Duration::from_secs(1));
        // At the limit itself, flows are made.
        let n = bulk(&[0], &[1], MAX_FLOWS as u32 / 64, 1000, Time::ZERO, 3, 100).unwrap();
        assert_eq!(n.len(), MAX_FLOWS / 64);
    }

    /// Each event is `degree` flows from distinct senders to one other
    /// host at one time, sizes within the bounds; the bytes offered over a
    /// long window match the load.
    #[test]
    fn incast_background_events_and_load() {
        let p = IncastBackgroundSpec {
            hosts: (0..64).collect(),
            degree: 50,
            min_size: 50_000,
            max_size: 200_000,
            load: 0.05,
            host_rate: Rate::gbps(100),
            start: Time::from_ns(1_000),
            duration: Delta::from_ms(200),
            seed: 9,
            pg: 3,
            dport: 200,
        };
        let flows = incast_background(&p).unwrap();
        let mut events: std::collections::BTreeMap<Time, Vec<&FlowSpec>> = Default::default();
        for f in &flows {
            assert!((50_000..=200_000).contains(&f.size), "{f:?}");
            assert!(f.start > p.start && f.dport == 200);
            events.entry(f.start).or_default().push(f);
        }
        assert!(events.len() > 1000, "{}", events.len());
        for ev in events.values() {
            assert_eq!(ev.len(), 50);
            let rx = ev[0].dst;
            let mut src: Vec<u32> = ev.iter().map(|f| f.src).collect();
            src.sort_unstable();
            src.dedup();
            assert_eq!(src.len(), 50, "distinct senders");
            assert!(ev.iter().all(|f| f.dst == rx && f.src != rx));
        }
        let bytes: u64 = flows.iter().map(|f| f.size).sum();
        // About 1,280 events: within 10% (3.5 standard deviations).
        let offered = bytes as f64 * 8.0 / 0.200 / (64.0 * 100e9);
        assert!((offered - 0.05).abs() < 0.005, "{offered}");
        assert_eq!(
            incast_background(&p).unwrap(),
            flows,
            "same seed, same flows"
        );
        let few = IncastBackgroundSpec {
            hosts: (0..50).collect(),
            ..p.clone()
        };
        assert_eq!(
            incast_background(&few).unwrap_err(),
            "a 50-to-1 incast needs at least 51 hosts, got 50"
        );
    }

    #[test]
    fn poisson_to_sends_only_from_hosts_to_dsts() {
        let p = spec(8, 0.5, Delta::from_ms(20), 3);
        let dsts = [6, 7, 20];
        let flows = poisson_to(&p, &dsts).unwrap();
        assert!(flows.len() > 50, "{}", flows.len());
        let mut seen = std::collections::BTreeSet::new();
        for f in &flows {
            assert!(p.hosts.contains(&f.src));
            assert!(dsts.contains(&f.dst), "{f:?}");
            assert_ne!(f.src, f.dst);
            seen.insert(f.dst);
        }
        assert_eq!(seen.len(), 3, "every destination is used");
        // Same seed, same flows; no dsts is plain poisson.
        assert_eq!(poisson_to(&p, &dsts).unwrap(), flows);
        assert_eq!(poisson_to(&p, &[]).unwrap(), poisson(&p).unwrap());
        assert!(poisson_to(&p, &[6, 6]).unwrap_err().contains("twice"));
        let mut q = p.clone();
        q.hosts = vec![6, 7];
        assert!(poisson_to(&q, &[6]).unwrap_err().contains("host 6"));
    }

    #[test]
    fn poisson_count_and_load_match_the_spec() {
        let p = spec(8, 0.5, Delta::from_ms(1000), 1);
        let flows = poisson(&p).unwrap();
        // Expected per host: load * rate * duration / (mean * 8) = 3652.3.
        let expect = p.load * 100e9 * 1.0 / (p.cdf.mean() * 8.0);
        assert!((expect - 3652.3).abs() < 0.1, "{expect}");
        for &h in &p.hosts {
            let n = flows.iter().filter(|f| f.src == h).count() as f64;
            // sd = sqrt(3653) = 60; allow about 4 sd.
            assert!((n / expect - 1.0).abs() < 0.07, "host {h}: {n} vs {expect}");
        }
        let total = flows.len() as f64;
        assert!((total / (8.0 * expect) - 1.0).abs() < 0.025, "{total}");
        // Offered bytes match the load (heavy tail: looser).
        let bytes: f64 = flows.iter().map(|f| f.size as f64).sum();
        let offered = bytes * 8.0 / (8.0 * 100e9 * 1.0);
        assert!((offered / 0.5 - 1.0).abs() < 0.08, "{offered}");
    }

    #[test]
    fn poisson_flows_are_well_formed() {
        let p = spec(5, 0.3, Delta::from_ms(50), 9);
        let flows = poisson(&p).unwrap();
        assert!(!flows.is_empty());
        let end = p.start + p.duration;
        for (i, f) in flows.iter().enumerate() {
            assert_eq!(f.id, i as u32);
            assert_ne!(f.src, f.dst, "self-flow {f:?}");
            assert!(p.hosts.contains(&f.src) && p.hosts.contains(&f.dst));
            assert!(f.start >= p.start && f.start < end);
            assert_eq!(f.start.ps() % 1_000, 0, "whole ns");
            assert!(f.size >= 1 && f.size <= 30_000_000);
            assert_eq!((f.pg, f.dport), (3, 100));
        }
        assert!(flows
            .windows(2)
            .all(|w| (w[0].start, w[0].src) <= (w[1].start, w[1].src)));
        // Every host talks to every other host at some point.
        for &a in &p.hosts {
            for &b in &p.hosts {
                if a != b {
                    assert!(flows.iter().any(|f| f.src == a && f.dst == b), "{a}->{b}");
                }
            }
        }
    }

    #[test]
    fn poisson_is_deterministic_per_seed() {
        let a = poisson(&spec(4, 0.7, Delta::from_ms(20), 5)).unwrap();
        let b = poisson(&spec(4, 0.7, Delta::from_ms(20), 5)).unwrap();
        let c = poisson(&spec(4, 0.7, Delta::from_ms(20), 6)).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        // A host's flows do not depend on which other hosts exist.
        let mut p = spec(4, 0.7, Delta::from_ms(20), 5);
        p.hosts.push(99);
        let d = poisson(&p).unwrap();
        let starts = |v: &[FlowSpec], h| -> Vec<Time> {
            v.iter().filter(|f| f.src == h).map(|f| f.start).collect()
        };
        assert_eq!(starts(&a, 10), starts(&d, 10));
    }

    #[test]
    fn poisson_validates() {
        assert!(poisson(&spec(4, 0.0, Delta::from_ms(1), 1)).is_err());
        assert!(poisson(&spec(4, 1.5, Delta::from_ms(1), 1)).is_err());
        assert!(poisson(&spec(4, f64::NAN, Delta::from_ms(1), 1)).is_err());
        assert!(poisson(&spec(1, 0.5, Delta::from_ms(1), 1)).is_err());
        let mut p = spec(3, 0.5, Delta::from_ms(1), 1);
        p.hosts.push(p.hosts[0]);
        assert!(poisson(&p).unwrap_err().contains("twice"));
        assert!(poisson(&spec(4, 1.0, Delta::ZERO, 1)).unwrap().is_empty());
    }

    #[test]
    fn incast_and_merge() {
        let t = Time::from_ns(1000);
        let inc = incast(&[1, 2, 3, 4], 3, 500_000, t, 3, 200);
        assert_eq!(inc.len(), 3);
        assert!(inc.iter().all(|f| f.dst == 3 && f.src != 3 && f.start == t));
        assert_eq!(inc.iter().map(|f| f.id).collect::<Vec<_>>(), vec![0, 1, 2]);

        let early = FlowSpec {
            id: 0,
            src: 9,
            dst: 1,
            size: 10,
            start: Time::from_ns(5),
            pg: 3,
            dport: 100,
        };
        let late = FlowSpec {
            start: Time::from_ns(5000),
            src: 0,
            ..early.clone()
        };
        let m = merge([inc.clone(), vec![late.clone(), early.clone()]]);
        assert_eq!(m.len(), 5);
        assert_eq!(m[0].src, 9);
        assert_eq!(m[4].src, 0);
        assert_eq!(
            m[1..4].iter().map(|f| f.src).collect::<Vec<_>>(),
            vec![1, 2, 4]
        );
        assert!(m.iter().enumerate().all(|(i, f)| f.id == i as u32));
    }

    #[test]
    fn bulk_spreads_flows_over_senders_and_destinations() {
        let f = bulk(&[0, 1, 2], &[5, 6], 7, 1_000, Time::from_ns(3), 3, 100).unwrap();
        let pairs: Vec<(u32, u32)> = f.iter().map(|f| (f.src, f.dst)).collect();
        // Round robin over senders; each sender's k-th flow to its k-th dst.
        assert_eq!(
            pairs,
            vec![(0, 5), (1, 5), (2, 5), (0, 6), (1, 6), (2, 6), (0, 5)]
        );
        assert!(f
            .iter()
            .all(|f| f.size == 1_000 && f.start == Time::from_ns(3)));
        assert!(f.iter().enumerate().all(|(i, f)| f.id == i as u32));
        // A sender is never its own destination.
        let g = bulk(&[5, 6], &[5, 6], 2, 1, Time::ZERO, 3, 100).unwrap();
        assert_eq!(g.iter().map(|f| f.dst).collect::<Vec<_>>(), vec![6, 5]);
        assert!(bulk(&[5], &[5], 1, 1, Time::ZERO, 3, 100).is_err());
        assert!(bulk(&[], &[5], 1, 1, Time::ZERO, 3, 100).is_err());
    }

    #[test]
    fn probes_arrive_at_the_mean_interval_within_the_window() {
        let start = Time::from_ns(1_000_000);
        let window = Delta::from_ms(100);
        let gap = Delta::from_us(50);
        let p = probes(&[1, 2], &[7], 8_192, gap, start, window, 4, 3, 300).unwrap();
        for src in [1, 2] {
            let n = p.iter().filter(|f| f.src == src).count() as f64;
            // 2,000 expected per sender; a Poisson count is within 4 sigma.
            assert!((n - 2_000.0).abs() < 4.0 * 2_000f64.sqrt(), "{src}: {n}");
        }
        assert!(p
            .iter()
            .all(|f| f.start > start && f.start < start + window));
        assert!(p
            .iter()
            .all(|f| f.dst == 7 && f.size == 8_192 && f.dport == 300));
        assert!(p.windows(2).all(|w| w[0].start <= w[1].start));
        // Same seed, same flows; another seed, other times.
        assert_eq!(
            p,
            probes(&[1, 2], &[7], 8_192, gap, start, window, 4, 3, 300).unwrap()
        );
        assert_ne!(
            p,
            probes(&[1, 2], &[7], 8_192, gap, start, window, 5, 3, 300).unwrap()
        );
        assert!(probes(&[7], &[7], 1, gap, start, window, 4, 3, 300).is_err());
        assert!(probes(&[1], &[7], 1, Delta::ZERO, start, window, 4, 3, 300).is_err());
    }
}
