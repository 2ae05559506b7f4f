//! The hosts' CPU (`[host]`): the cores that run the PFC-free transport's
//! software control path, and what each of its operations costs them.
//!
//! Bifröst's software path (Bifröst §3.2, §4.2.1) spends host CPU per
//! operation: it posts each WQE, polls each completion, builds each ACK
//! at the receiver and parses it at the sender. The paper gives only
//! aggregate figures (single-core throughput, Table 2; CPU share per
//! request size, Fig. 6b): the cost of each operation is rdmasim's,
//! calibrated against them (`docs/pfc-free.md`, "The host's CPU").
//!
//! A host has `cores` cores, each free from a time on; an operation runs
//! on the core free first, from the later of now and that time. Work
//! queued on busy cores holds back what follows it: the WQE the host
//! posts next waits for its post to be done, so a core busy building or
//! parsing ACKs delays the next post, and a host whose cores cannot keep
//! up posts (and so sends) at the rate they allow. The state is the
//! host's own (its NIC's), touched only by its NIC's handlers.

use engine::{Delta, Time};

/// `[host]`: the cores of every host and the cost of each operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostCpuConfig {
    /// Cores per host that run the software path (its worker threads,
    /// one per core). 0: no CPU model (operations are free and instant).
    pub cores: u32,
    /// Posting one WQE (the software's work for a chunk: register it,
    /// number it, ring the doorbell).
    pub post_wqe: Delta,
    /// Polling one completion (a send completion at the sender, a receive
    /// completion at the receiver).
    pub poll_cqe: Delta,
    /// Building and posting one software ACK at the receiver.
    pub build_ack: Delta,
    /// Parsing one software ACK at the sender (marking its WQEs, the RTT
    /// and the window's update).
    pub parse_ack: Delta,
}

impl Default for HostCpuConfig {
    /// No CPU model; when a run gives `cores`, rdmasim's costs calibrated
    /// against Bifröst Fig. 6b at 1 MB (`docs/pfc-free.md`).
    fn default() -> Self {
        HostCpuConfig {
            cores: 0,
            post_wqe: Delta::from_ns(1250),
            poll_cqe: Delta::from_ns(500),
            build_ack: Delta::from_ns(1600),
            parse_ack: Delta::from_ns(1600),
        }
    }
}

/// What one host's cores did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostCpuTotals {
    /// Core time spent, in picoseconds (all cores together).
    pub busy_ps: u64,
    /// WQEs posted.
    pub posts: u64,
    /// Completions polled.
    pub cqes: u64,
    /// ACKs built.
    pub acks_built: u64,
    /// ACKs parsed.
    pub acks_parsed: u64,
}

/// One host's cores.
#[derive(Clone, Debug)]
pub(crate) struct HostCpu {
    /// When each core is free.
    free_at: Vec<Time>,
    pub totals: HostCpuTotals,
}

impl HostCpu {
    /// A host's cores, if the model is on.
    pub fn new(cfg: &HostCpuConfig) -> Option<Box<HostCpu>> {
        (cfg.cores > 0).then(|| {
            Box::new(HostCpu {
                free_at: vec![Time::ZERO; cfg.cores as usize],
                totals: HostCpuTotals::default(),
            })
        })
    }

    /// Run work of `cost` from `now` on the core free first (the lowest
    /// index among equals): when it is done.
    pub fn run(&mut self, now: Time, cost: Delta) -> Time {
        let (i, &free) = self
            .free_at
            .iter()
            .enumerate()
            .min_by_key(|&(i, &t)| (t, i))
            .expect("at least one core");
        let done = free.max(now) + cost;
        self.free_at[i] = done;
        self.totals.busy_ps += cost.ps();
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_queues_on_the_core_free_first() {
        let cfg = HostCpuConfig {
            cores: 2,
            ..HostCpuConfig::default()
        };
        let mut cpu = HostCpu::new(&cfg).unwrap();
        let (us, two) = (Delta::from_us(1), Delta::from_us(2));
        let t0 = Time::ZERO + Delta::from_us(10);
        // Two cores: two jobs at once run side by side, a third waits.
        assert_eq!(cpu.run(t0, us), t0 + us);
        assert_eq!(cpu.run(t0, two), t0 + two);
        assert_eq!(cpu.run(t0, us), t0 + two);
        // Later work on an idle core starts when it comes.
        let t1 = t0 + Delta::from_us(5);
        assert_eq!(cpu.run(t1, us), t1 + us);
        assert_eq!(cpu.totals.busy_ps, Delta::from_us(5).ps());
        assert!(HostCpu::new(&HostCpuConfig::default()).is_none());
    }
}
