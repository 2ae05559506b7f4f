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
//! sample at time t sees the events ordered before it at t (ties run in
//! insertion order).

use crate::cc::CongestionControl;
use crate::egress::Egress;
use crate::fc::FlowControl;
use crate::sim::{Event, Simulation};
use crate::wire::N_CLASSES;
use engine::{Delta, Rate, Time};

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
}

impl Simulation {
    /// Record a time series as `cfg` says; read it with
    /// [`Simulation::take_timeseries`] after the run. Call before running.
    /// Fails, saying why, on a zero interval, a port that does not exist or
    /// a class out of range.
    pub fn monitor(&mut self, cfg: MonitorConfig) -> Result<(), String> {
        if cfg.interval == Delta::ZERO {
            return Err("the sampling interval must be greater than zero".into());
        }
        if let Some(&c) = cfg.classes.iter().find(|&&c| usize::from(c) >= N_CLASSES) {
            return Err(format!(
                "class {c} does not exist (classes are 0 to {})",
                N_CLASSES - 1
            ));
        }
        let port_ids: Vec<u32> = match &cfg.ports {
            MonitorPorts::AllSwitch => (0..self.ports.len() as u32)
                .filter(|&p| !self.ports[p as usize].is_host)
                .collect(),
            MonitorPorts::All => (0..self.ports.len() as u32).collect(),
            MonitorPorts::List(list) => {
                let mut ids = Vec::with_capacity(list.len());
                for &(node, local) in list {
                    let id = self
                        .ports
                        .iter()
                        .position(|p| p.node == node && p.local == local)
                        .ok_or_else(|| {
                            let n = self.ports.iter().filter(|p| p.node == node).count();
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
        };
        let ports = port_ids
            .iter()
            .map(|&id| {
                let p = &self.ports[id as usize];
                MonitoredPort {
                    node: p.node,
                    port: p.local,
                    is_switch: !p.is_host,
                }
            })
            .collect();
        let last_tx = port_ids
            .iter()
            .map(|&id| self.ports[id as usize].c.tx_bytes)
            .collect();
        // A baseline one interval before the first sample, so the first
        // throughput covers a whole interval where it can.
        let baseline = Time(cfg.start.ps().saturating_sub(cfg.interval.ps()));
        self.monitor = Some(Box::new(Monitor {
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
        }));
        if baseline <= self.monitor.as_ref().map_or(Time::MAX, |m| m.stop) {
            self.q.push(baseline.max(self.now), Event::Monitor);
        }
        Ok(())
    }

    /// The time series recorded so far, if [`Simulation::monitor`] was
    /// called; monitoring stops.
    pub fn take_timeseries(&mut self) -> Option<TimeSeries> {
        self.monitor.take().map(|m| m.series)
    }

    /// The `Monitor` event: sample, then re-arm.
    pub(crate) fn monitor_tick(&mut self) {
        let now = self.now;
        let Some(mut m) = self.monitor.take() else {
            return;
        };
        if now >= m.start {
            let s = &mut m.series;
            s.times.push(now);
            s.elapsed.push(now.since(m.last_time));
            for (k, &id) in m.port_ids.iter().enumerate() {
                let p = &self.ports[id as usize];
                let per_class = if p.is_host { 1 } else { 2 };
                s.rows += 1 + per_class * s.classes.len() as u64;
                s.tx_bytes.push(p.c.tx_bytes - m.last_tx[k]);
                m.last_tx[k] = p.c.tx_bytes;
                for &c in &s.classes {
                    s.queue.push(p.egress.class_bytes(c as usize));
                    let head = p.egress.class_head(c as usize).unwrap_or(1);
                    let key = crate::wire::QueueKey::of_class(c);
                    s.paused.push(!p.fc.may_send(now, key, head));
                }
            }
            if m.qp_rates {
                for (i, qp) in self.qps.iter().enumerate() {
                    if qp.end.is_none() {
                        s.rows += 1;
                        s.qp.push(QpSample {
                            time: now,
                            flow: self.flows[i].id,
                            src: qp.src,
                            dst: qp.dst,
                            rate: qp.cc.rate(),
                        });
                    }
                }
            }
        } else {
            for (k, &id) in m.port_ids.iter().enumerate() {
                m.last_tx[k] = self.ports[id as usize].c.tx_bytes;
            }
        }
        m.last_time = now;
        let next = if now < m.start {
            m.start
        } else {
            now + m.series.interval
        };
        if m.series.rows >= m.max_rows {
            m.series.truncated_at = Some(now);
        }
        // Nothing else pending: nothing can change any more, stop sampling.
        if next <= m.stop && !self.q.is_empty() && m.series.truncated_at.is_none() {
            self.q.push(next, Event::Monitor);
        }
        self.monitor = Some(m);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NetConfig;
    use engine::Rate;
    use workload::FlowSpec;

    fn flow(id: u32, src: u32, dst: u32, size: u64) -> FlowSpec {
        FlowSpec {
            id,
            src,
            dst,
            size,
            start: Time::ZERO,
            pg: 3,
            dport: 100,
        }
    }

    fn star_sim(flows: Vec<FlowSpec>) -> Simulation {
        let topo = topo::star(4, Rate::gbps(100), Delta::from_us(1)).unwrap();
        Simulation::new(&topo, flows, NetConfig::default()).unwrap()
    }

    fn cfg(ports: MonitorPorts) -> MonitorConfig {
        MonitorConfig {
            interval: Delta::from_us(1),
            start: Time::ZERO,
            stop: None,
            ports,
            classes: vec![3],
            qp_rates: true,
            max_rows: None,
        }
    }

    #[test]
    fn samples_queues_throughput_and_rates_without_changing_the_run() {
        // 3-to-1 incast on a star: the switch port towards host 3 queues.
        let flows = vec![
            flow(0, 0, 3, 200_000),
            flow(1, 1, 3, 200_000),
            flow(2, 2, 3, 200_000),
        ];
        let mut plain = star_sim(flows.clone());
        plain.run();
        let mut sim = star_sim(flows);
        sim.monitor(cfg(MonitorPorts::AllSwitch)).unwrap();
        sim.run();
        let a = plain.results();
        let b = sim.results();
        assert_eq!(a.flows, b.flows);
        assert_eq!(a.completion_order, b.completion_order);

        let ts = sim.take_timeseries().unwrap();
        assert_eq!(ts.ports.len(), 4);
        assert!(ts.ports.iter().all(|p| p.is_switch && p.node == 4));
        let n = ts.times.len();
        assert!(n > 10, "{n} samples");
        assert_eq!(ts.times[0], Time::ZERO);
        assert!(ts
            .times
            .windows(2)
            .all(|w| w[1] - w[0] == Delta::from_us(1)));
        assert_eq!(ts.queue.len(), n * 4);
        assert_eq!(ts.tx_bytes.len(), n * 4);
        // The port to host 3 is the one that queues and carries the data.
        let to3 = ts.ports.iter().position(|p| p.port == 3).unwrap();
        let peak = (0..n)
            .map(|i| ts.queue[ts.class_index(i, to3, 0)])
            .max()
            .unwrap();
        assert!(peak > 50_000, "peak queue {peak}");
        let sent: u64 = (0..n).map(|i| ts.tx_bytes[ts.port_index(i, to3)]).sum();
        assert!(sent >= 600_000, "{sent} bytes");
        // No sample shows more than line rate over an interval.
        for i in 1..n {
            let bytes = ts.tx_bytes[ts.port_index(i, to3)];
            assert!(bytes <= Rate::gbps(100).bytes_in(ts.elapsed[i]) + 1100);
        }
        // QP rates: line rate (cc none), only while a flow is active.
        assert!(!ts.qp.is_empty());
        assert!(ts
            .qp
            .iter()
            .all(|q| q.rate == Rate::gbps(100) && q.dst == 3));
        let last = b.flows.iter().filter_map(|f| f.end).max().unwrap();
        assert!(*ts.times.last().unwrap() <= last);
        assert_eq!(ts.rows, (n * 4 * 3 + ts.qp.len()) as u64);
        assert_eq!(ts.truncated_at, None);
    }

    #[test]
    fn a_port_list_is_checked_and_a_late_start_has_a_baseline() {
        let mut sim = star_sim(vec![flow(0, 0, 1, 100_000)]);
        let e = sim
            .monitor(cfg(MonitorPorts::List(vec![(4, 9)])))
            .unwrap_err();
        assert!(e.contains("node 4 has no port 9"), "{e}");
        let e = sim
            .monitor(cfg(MonitorPorts::List(vec![(9, 0)])))
            .unwrap_err();
        assert!(e.contains("node 9 does not exist"), "{e}");
        let mut c = cfg(MonitorPorts::List(vec![(0, 0), (4, 1)]));
        c.start = Time::from_ns(3_500);
        c.stop = Some(Time::from_ns(6_000));
        sim.monitor(c).unwrap();
        sim.run();
        let ts = sim.take_timeseries().unwrap();
        assert_eq!(ts.ports.len(), 2);
        assert!(!ts.ports[0].is_switch);
        let times: Vec<u64> = ts.times.iter().map(|t| t.ns()).collect();
        assert_eq!(times, vec![3_500, 4_500, 5_500]);
        assert_eq!(ts.elapsed[0], Delta::from_us(1));
        // Host 0 sends at line rate all along: 12.5 kB per microsecond.
        let b = ts.tx_bytes[ts.port_index(1, 0)];
        assert!((11_000..=13_000).contains(&b), "{b}");

        // A row limit stops sampling: 2 ports x 3 rows + 1 QP = 6 per sample
        // (the host port has no queue row).
        let mut sim = star_sim(vec![flow(0, 0, 1, 100_000)]);
        let mut c = cfg(MonitorPorts::List(vec![(0, 0), (4, 1)]));
        c.max_rows = Some(13);
        sim.monitor(c).unwrap();
        sim.run();
        let ts = sim.take_timeseries().unwrap();
        assert_eq!(ts.times.len(), 3);
        assert_eq!(ts.rows, 3 * 6);
        assert_eq!(ts.truncated_at, Some(Time::from_ns(2_000)));
    }
}
