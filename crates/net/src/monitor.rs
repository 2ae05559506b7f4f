//! Time series: a periodic, read-only sample of ports and QPs.
//!
//! [`Simulation::monitor`] arms one `Monitor` event at the configured start;
//! each one samples, for every chosen port, the egress queue bytes of each
//! chosen class (switch ports), whether the port may send each class (PFC
//! pause state, any port), and the bytes it sent since the previous sample
//! (link throughput); with `qp_rates`, the congestion-control rate of every
//! QP that has started and not finished. Then it re-arms itself one interval
//! later, unless the stop time is reached or nothing else is left to happen
//! (so monitoring never keeps a finished or stalled run alive).
//!
//! Sampling reads state only: no random draw, no counter and no timer of the
//! model changes, so a run's flows are the same with or without it. A
//! sample at time t sees every other event at t (`Event::Monitor` is the
//! last kind in the order of ties).

use crate::cc::CongestionControl;
use crate::fc::FlowControl;
use crate::port::Port;
use crate::qp::Qp;
use crate::wire::N_CLASSES;
use engine::{Delta, Rate, Time};
use workload::FlowSpec;

/// Which ports a [`MonitorConfig`] samples.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MonitorPorts {
    /// Every port of every switch.
    AllSwitch,
    /// Every port, hosts' too.
    All,
    /// These (node, local port) pairs; local ports are numbered per node in
    /// link order from 0, as in [`crate::PortReport`].
    List(Vec<(u32, u16)>),
}

/// What to record and how often.
#[derive(Clone, Debug, PartialEq)]
pub struct MonitorConfig {
    /// Time between samples; must be positive.
    pub interval: Delta,
    /// First sample.
    pub start: Time,
    /// No sample after this time (`None`: until the run ends).
    pub stop: Option<Time>,
    /// The ports to sample.
    pub ports: MonitorPorts,
    /// The priority classes whose queue and pause state are recorded.
    pub classes: Vec<u8>,
    /// Also record every active QP's rate.
    pub qp_rates: bool,
    /// Stop sampling once this many values (rows of the long format: one
    /// per port and metric, per class where it has one, and one per QP
    /// rate) are recorded; `None`: no limit.
    pub max_rows: Option<u64>,
}

/// One sampled port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MonitoredPort {
    /// Its node.
    pub node: u32,
    /// Local port index (link order, from 0).
    pub port: u16,
    /// Whether the node is a switch (hosts have no egress queues).
    pub is_switch: bool,
}

/// One QP's rate at one sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QpSample {
    /// Sample time.
    pub time: Time,
    /// Flow id.
    pub flow: u32,
    /// Sending host.
    pub src: u32,
    /// Receiving host.
    pub dst: u32,
    /// The congestion controller's rate.
    pub rate: Rate,
}

/// Everything a monitor recorded, column-major: sample `i`, port `p`, class
/// index `c` is at `queue[(i * ports + p) * classes + c]`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TimeSeries {
    /// The sampling interval.
    pub interval: Delta,
    /// The sampled ports.
    pub ports: Vec<MonitoredPort>,
    /// The sampled classes.
    pub classes: Vec<u8>,
    /// Sample times.
    pub times: Vec<Time>,
    /// Time since the previous sample (the first: since the baseline), per
    /// sample; throughput is `tx_bytes / elapsed`.
    pub elapsed: Vec<Delta>,
    /// Egress queue bytes per (sample, port, class); 0 for host ports.
    pub queue: Vec<u64>,
    /// Paused (may not send) per (sample, port, class).
    pub paused: Vec<bool>,
    /// Bytes sent per (sample, port) since the previous sample.
    pub tx_bytes: Vec<u64>,
    /// Whether QP rates were recorded.
    pub qp_rates: bool,
    /// QP rates, in time order, flows in id order within a sample.
    pub qp: Vec<QpSample>,
    /// Values recorded (see [`MonitorConfig::max_rows`]).
    pub rows: u64,
    /// When sampling stopped early because `max_rows` was reached.
    pub truncated_at: Option<Time>,
}

impl TimeSeries {
    /// Index of (sample, port) into `tx_bytes`.
    pub fn port_index(&self, sample: usize, port: usize) -> usize {
        sample * self.ports.len() + port
    }
    /// Index of (sample, port, class index) into `queue` and `paused`.
    pub fn class_index(&self, sample: usize, port: usize, class: usize) -> usize {
        self.port_index(sample, port) * self.classes.len() + class
    }
}

/// The monitor's state inside a running simulation.
#[derive(Debug)]
pub(crate) struct Monitor {
    start: Time,
    stop: Time,
    qp_rates: bool,
    max_rows: u64,
    /// Global port ids, parallel to `series.ports`.
    port_ids: Vec<u32>,
    last_tx: Vec<u64>,
    last_time: Time,
    series: TimeSeries,
    /// In a parallel run: the flows whose QPs this replica samples (those
    /// its partition sends); `None`: every flow.
    own: Option<Vec<bool>>,
    /// In a parallel run, each sample's QP rows' flow indices (the merge
    /// puts them in index order).
    qp_index: Vec<u32>,
    /// When the sample before the first (a baseline) was taken, if it was.
    baseline_at: Option<Time>,
    /// The rows of the ports' values so far (the same in every replica).
    port_rows: u64,
}

/// The global ids of the ports `ports` selects, in its order; an error
/// names a node or port that does not exist. (The packet capture selects
/// its ports the same way.)
pub(crate) fn port_ids(ports: &MonitorPorts, all_ports: &[Port]) -> Result<Vec<u32>, String> {
    Ok(match ports {
        MonitorPorts::AllSwitch => (0..all_ports.len() as u32)
            .filter(|&p| !all_ports[p as usize].is_host)
            .collect(),
        MonitorPorts::All => (0..all_ports.len() as u32).collect(),
        MonitorPorts::List(list) => {
            let mut ids = Vec::with_capacity(list.len());
            for &(node, local) in list {
                let id = all_ports
                    .iter()
                    .position(|p| p.node == node && p.local == local)
                    .ok_or_else(|| {
                        let n = all_ports.iter().filter(|p| p.node == node).count();
                        if n == 0 {
                            format!("node {node} does not exist")
                        } else {
                            format!(
                                "node {node} has no port {local} (its ports are 0 to {})",
                                n - 1
                            )
                        }
                    })?;
                ids.push(id as u32);
            }
            ids
        }
    })
}

impl Monitor {
    pub(crate) fn new(cfg: MonitorConfig, all_ports: &[Port]) -> Result<Monitor, String> {
        if cfg.interval == Delta::ZERO {
            return Err("the sampling interval must be greater than zero".into());
        }
        if let Some(&c) = cfg.classes.iter().find(|&&c| usize::from(c) >= N_CLASSES) {
            return Err(format!(
                "class {c} does not exist (classes are 0 to {})",
                N_CLASSES - 1
            ));
        }
        let port_ids = port_ids(&cfg.ports, all_ports)?;
        let ports = port_ids
            .iter()
            .map(|&id| {
                let p = &all_ports[id as usize];
                MonitoredPort {
                    node: p.node,
                    port: p.local,
                    is_switch: !p.is_host,
                }
            })
            .collect();
        let last_tx = port_ids
            .iter()
            .map(|&id| all_ports[id as usize].c.tx_bytes)
            .collect();
        // A baseline one interval before the first sample, so the first
        // throughput covers a whole interval where it can.
        let baseline = Time(cfg.start.ps().saturating_sub(cfg.interval.ps()));
        Ok(Monitor {
            start: cfg.start,
            stop: cfg.stop.unwrap_or(Time::MAX),
            qp_rates: cfg.qp_rates,
            max_rows: cfg.max_rows.unwrap_or(u64::MAX),
            port_ids,
            last_tx,
            last_time: baseline,
            series: TimeSeries {
                interval: cfg.interval,
                ports,
                classes: cfg.classes,
                qp_rates: cfg.qp_rates,
                ..TimeSeries::default()
            },
            own: None,
            qp_index: Vec::new(),
            baseline_at: None,
            port_rows: 0,
        })
    }

    /// Sample as one partition of a parallel run (`parallel.rs`): the QPs
    /// of the flows `own` marks only, and every sample up to the stop
    /// (the limit on rows and the end of sampling when nothing else is
    /// left need the whole network: [`Monitor::merge`] applies them).
    pub(crate) fn partition(&mut self, own: Vec<bool>) {
        self.own = Some(own);
    }

    /// The time of the first sample, a baseline one interval before the
    /// configured start; `None` if that is after the stop.
    pub(crate) fn first_sample(&self) -> Option<Time> {
        (self.last_time <= self.stop).then_some(self.last_time)
    }

    /// The recorded series.
    pub(crate) fn into_series(self) -> TimeSeries {
        self.series
    }

    /// Take the sample of time `now` from `ports` and `qps` (`flows`
    /// names the QPs' flows); return when to take the next one, if
    /// sampling goes on (`more`: other events are pending, so something
    /// can still change).
    pub(crate) fn sample(
        &mut self,
        now: Time,
        ports: &[Port],
        qps: &[Qp],
        flows: &[FlowSpec],
        more: bool,
    ) -> Option<Time> {
        let m = self;
        if now >= m.start {
            let s = &mut m.series;
            s.times.push(now);
            s.elapsed.push(now.since(m.last_time));
            for (k, &id) in m.port_ids.iter().enumerate() {
                let p = &ports[id as usize];
                let per_class = if p.is_host { 1 } else { 2 };
                s.rows += 1 + per_class * s.classes.len() as u64;
                m.port_rows += 1 + per_class * s.classes.len() as u64;
                s.tx_bytes.push(p.c.tx_bytes - m.last_tx[k]);
                m.last_tx[k] = p.c.tx_bytes;
                for &c in &s.classes {
                    s.queue
                        .push(p.egress.class_bytes(&p.egress_head, c as usize));
                    let head = p.egress.class_head(&p.egress_head, c as usize).unwrap_or(1);
                    let key = crate::wire::QueueKey::of_class(c);
                    s.paused.push(!p.fc.may_send(now, key, head));
                }
            }
            if m.qp_rates {
                for (i, qp) in qps.iter().enumerate() {
                    let own = m.own.as_ref().is_none_or(|o| o[i]);
                    if qp.end.is_none() && own {
                        if m.own.is_some() {
                            m.qp_index.push(i as u32);
                        }
                        s.rows += 1;
                        s.qp.push(QpSample {
                            time: now,
                            flow: flows[i].id,
                            src: qp.src,
                            dst: qp.dst,
                            rate: qp.cc.rate(),
                        });
                    }
                }
            }
        } else {
            m.baseline_at = Some(now);
            for (k, &id) in m.port_ids.iter().enumerate() {
                m.last_tx[k] = ports[id as usize].c.tx_bytes;
            }
        }
        m.last_time = now;
        let next = if now < m.start {
            m.start
        } else {
            now + m.series.interval
        };
        if m.own.is_some() {
            // The ports' rows alone reached the limit: the whole run's did
            // at this sample or before.
            return (next <= m.stop && m.port_rows < m.max_rows).then_some(next);
        }
        if m.series.rows >= m.max_rows {
            m.series.truncated_at = Some(now);
        }
        // Nothing else pending: nothing can change any more, stop sampling.
        (next <= m.stop && more && m.series.truncated_at.is_none()).then_some(next)
    }
}

/// What the merge of a parallel run's monitors found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MergedMonitor {
    /// `Monitor` events one queue would have handled.
    pub events: u64,
    /// The last of them.
    pub last: Option<Time>,
    /// One run's sampling ended at that one (the row limit, or nothing
    /// else left): it left no sample pending.
    pub ended: bool,
}

impl Monitor {
    /// The global ids of the sampled ports.
    pub(crate) fn port_ids(&self) -> &[u32] {
        &self.port_ids
    }

    /// One monitor holding what a sequential run's would, from the
    /// replicas' of a parallel run (in partition order; every replica took
    /// the same samples): each port's values from `port_owner[k]`, the
    /// partition that owns the `k`-th sampled port, each QP's rate from
    /// the partition that sampled it, in flow order. Then the rules that
    /// need the whole network, as one run applies them sample by sample:
    /// sampling stops at the sample that reaches `max_rows`, or at the
    /// first one at or after `idle_from`, the time of the run's last
    /// other event when nothing was left after it.
    pub(crate) fn merge(
        mut monitors: Vec<Monitor>,
        port_owner: &[u32],
        idle_from: Option<Time>,
    ) -> (Monitor, MergedMonitor) {
        let first = &monitors[0];
        let (np, nc) = (first.port_ids.len(), first.series.classes.len());
        let times = first.series.times.clone();
        let mut cursor = vec![0usize; monitors.len()];
        let mut s = TimeSeries {
            interval: first.series.interval,
            ports: first.series.ports.clone(),
            classes: first.series.classes.clone(),
            qp_rates: first.series.qp_rates,
            ..TimeSeries::default()
        };
        let port_rows: u64 = s
            .ports
            .iter()
            .map(|p| 1 + if p.is_switch { 2 } else { 1 } * nc as u64)
            .sum();
        let (max_rows, stop_after) = (first.max_rows, idle_from);
        let mut calls = 0;
        let mut last = None;
        let mut go_on = true;
        if let Some(b) = first.baseline_at {
            calls += 1;
            last = Some(b);
            if max_rows == 0 {
                s.truncated_at = Some(b);
                go_on = false;
            } else if stop_after.is_some_and(|t| b >= t) {
                go_on = false;
            }
        }
        for (i, &t) in times.iter().enumerate() {
            if !go_on {
                break;
            }
            calls += 1;
            last = Some(t);
            s.times.push(t);
            s.elapsed.push(monitors[0].series.elapsed[i]);
            s.rows += port_rows;
            for k in 0..np {
                let m = &monitors[port_owner[k] as usize].series;
                s.tx_bytes.push(m.tx_bytes[i * np + k]);
                let c = (i * np + k) * nc..(i * np + k + 1) * nc;
                s.queue.extend_from_slice(&m.queue[c.clone()]);
                s.paused.extend_from_slice(&m.paused[c]);
            }
            // This sample's QP rows of every partition, in flow order.
            let mut rows: Vec<(u32, QpSample)> = Vec::new();
            for (m, at) in monitors.iter().zip(cursor.iter_mut()) {
                while m.series.qp.get(*at).is_some_and(|q| q.time == t) {
                    rows.push((m.qp_index[*at], m.series.qp[*at]));
                    *at += 1;
                }
            }
            rows.sort_by_key(|&(i, _)| i);
            s.rows += rows.len() as u64;
            s.qp.extend(rows.into_iter().map(|(_, q)| q));
            if s.rows >= max_rows {
                s.truncated_at = Some(t);
                go_on = false;
            } else if stop_after.is_some_and(|after| t >= after) {
                go_on = false;
            }
        }
        let mut m = monitors.swap_remove(0);
        m.series = s;
        m.own = None;
        m.qp_index = Vec::new();
        (
            m,
            MergedMonitor {
                events: calls,
                last,
                ended: !go_on,
            },
        )
    }
}
