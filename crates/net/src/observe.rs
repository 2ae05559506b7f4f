//! What users and observers read of a simulation, and what tests and tools
//! set on it: results, traces and time series, per-port counters, holds
//! and planned losses. The observers themselves (`monitor.rs`, `qlen.rs`,
//! `results.rs`) read ports and QPs and never the simulation; this module
//! hands them what they read.

use crate::capture::{Capture, CaptureConfig, CaptureFile};
use crate::event::Event;
use crate::fc::{AnyFc, BifrostSlot, FlowControl};
use crate::monitor::{Monitor, MonitorConfig, TimeSeries};
use crate::port::{PortCounters, TxLogEntry};
use crate::results::{FlowOutcome, PortReport, RunResults};
use crate::sim::Simulation;
use engine::Time;

impl Simulation {
    /// Configuration warnings found while building, one line each (e.g. a
    /// Bifrost reserved buffer H below Theorem 1's bound). Empty if none.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The flow-control object of `node`'s port `port` (tests, tools).
    pub fn fc_of(&self, node: u32, port: u16) -> Option<&AnyFc> {
        self.ports
            .iter()
            .find(|p| p.node == node && p.local == port)
            .map(|p| &p.fc)
    }

    /// The boxed egress of `node`'s port `port` (a BFC or FlowSail port's),
    /// to downcast to its type (tests, tools); `None` for the class
    /// scheduler.
    pub fn egress_of(&self, node: u32, port: u16) -> Option<&dyn std::any::Any> {
        self.ports
            .iter()
            .find(|p| p.node == node && p.local == port)
            .and_then(|p| p.egress.as_any())
    }

    /// The per-slot trace of the Bifrost ingress at `node`'s port `port`
    /// (Bifrost Alg. 1's L, F, r, c, ĉ and p), if that port runs Bifrost with
    /// `trace` on. Write it with [`crate::fc::write_trace_csv`].
    pub fn bifrost_trace(&self, node: u32, port: u16) -> Option<&[BifrostSlot]> {
        match self.fc_of(node, port)? {
            AnyFc::Bifrost(b) => Some(b.trace()),
            _ => None,
        }
    }

    /// Every Bifrost port with a trace: node, local port, H and its slots.
    pub fn bifrost_traces(&self) -> Vec<(u32, u16, u64, &[BifrostSlot])> {
        self.ports
            .iter()
            .filter_map(|p| match &p.fc {
                AnyFc::Bifrost(b) if !b.trace().is_empty() => {
                    Some((p.node, p.local, b.params().h, b.trace()))
                }
                _ => None,
            })
            .collect()
    }

    /// Keep a log of every PFC frame received (the peer's PFC output file).
    pub fn record_pfc(&mut self, on: bool) {
        self.cx.record_pfc = on;
    }

    /// Log every frame that node `node` starts to transmit.
    pub fn trace_tx(&mut self, node: u32) {
        for p in self.ports.iter_mut().filter(|p| p.node == node) {
            p.trace |= crate::port::TRACE_LOG;
        }
    }

    /// Frames started by traced nodes, in time order.
    pub fn tx_log(&self) -> &[TxLogEntry] {
        &self.cx.tx_log
    }

    /// Stop (`true`) or restart (`false`) every transmission of `node`'s
    /// port `port`, control frames included: a drain that stalls, for tests
    /// and microbenchmarks of hop-by-hop flow control. A frame already on
    /// the wire completes.
    pub fn hold_egress(&mut self, node: u32, port: u16, held: bool) {
        let id = self
            .ports
            .iter()
            .position(|p| p.node == node && p.local == port)
            .expect("hold_egress: no such port") as u32;
        self.ports[id as usize].held = held;
        if !held {
            self.try_send(id);
        }
    }

    /// Lose the next data frame of flow `flow` at byte offset `seq` when it
    /// next crosses a link, once, counted as corrupted (tests of loss
    /// recovery).
    pub fn drop_once(&mut self, flow: u32, seq: u64) {
        self.drop_once.push((flow, seq));
        self.lossy = true;
    }

    /// Bytes queued for transmission at `node`'s port `port` (all classes).
    pub fn queue_bytes(&self, node: u32, port: u16) -> u64 {
        self.ports
            .iter()
            .find(|p| p.node == node && p.local == port)
            .map_or(0, |p| p.queue_bytes)
    }

    /// Data frames started so far by `node`'s port `port`.
    pub fn data_frames_sent(&self, node: u32, port: u16) -> u64 {
        self.ports
            .iter()
            .find(|p| p.node == node && p.local == port)
            .map_or(0, |p| p.c.tx_data)
    }

    /// The current pacing rate of flow `flow`'s QP, if it has started.
    pub fn qp_rate(&self, flow: u32) -> Option<engine::Rate> {
        use crate::cc::CongestionControl;
        self.qps.get(flow as usize).map(|q| q.cc.rate())
    }
}

impl Simulation {
    /// The results so far (normally called after [`Simulation::run`]).
    pub fn results(&self) -> RunResults {
        let now = self.cx.now;
        let flows = self
            .qps
            .iter()
            .enumerate()
            .map(|(i, q)| FlowOutcome {
                id: self.flows[i].id,
                src: q.src,
                dst: q.dst,
                size: q.size,
                start: q.start,
                end: q.end,
                ideal_fct_ns: self.ideal_fct_ns[i],
                pg: q.pg,
                sport: q.sport,
                dport: q.dport,
                retransmitted: q.retransmitted,
                timeouts: q.timeouts,
            })
            .chain(
                self.flows[self.qps.len()..]
                    .iter()
                    .enumerate()
                    .map(|(k, f)| FlowOutcome {
                        id: f.id,
                        src: f.src,
                        dst: f.dst,
                        size: f.size,
                        start: f.start,
                        end: None,
                        ideal_fct_ns: self.ideal_fct_ns[self.qps.len() + k],
                        pg: f.pg,
                        sport: 0,
                        dport: f.dport,
                        retransmitted: 0,
                        timeouts: 0,
                    }),
            )
            .collect();
        let ports = self
            .ports
            .iter()
            .map(|p| PortReport {
                node: p.node,
                port: p.local,
                is_switch: !p.is_host,
                counters: PortCounters {
                    peak_ingress: p.peak_ingress,
                    ..p.c.clone()
                },
                fc: p.fc.counters(now),
                lossless: !p.fc.is_lossy(),
            })
            .collect();
        let switch_peak_bytes = self
            .node_switch
            .iter()
            .enumerate()
            .filter(|(_, &s)| s != u32::MAX)
            .map(|(n, &s)| {
                let sw = &self.switches[s as usize];
                let peak = sw
                    .sonic
                    .as_ref()
                    .map_or(sw.mmu.peak_bytes, |m| m.peak_bytes);
                (n as u32, peak)
            })
            .collect();
        let sonic = self
            .node_switch
            .iter()
            .enumerate()
            .filter(|(_, &s)| s != u32::MAX)
            .filter_map(|(n, &s)| {
                let m = self.switches[s as usize].sonic.as_ref()?;
                Some(crate::sonic_buffer::setup::SonicReport::of(n as u32, m))
            })
            .collect();
        RunResults {
            flows,
            completion_order: self
                .cx
                .completed
                .iter()
                .map(|&q| self.flows[q as usize].id)
                .collect(),
            ports,
            switch_peak_bytes,
            sonic,
            events: self.cx.events,
            packet_hops: self.cx.packet_hops,
            end_time: now,
            events_pending: !self.cx.q.is_empty(),
            pfc_log: self.cx.pfc_log.clone(),
            qlen_text: self.qlen_text().map(str::to_string),
            delivery_failures: self
                .qps
                .iter()
                .zip(&self.rx)
                .enumerate()
                .filter(|(_, (q, _))| q.end.is_some())
                .filter_map(|(i, (q, rx))| {
                    rx.check_delivered(q.size)
                        .err()
                        .map(|e| format!("flow {}: {e}", self.flows[i].id))
                })
                .collect(),
            pfc_free: crate::transport::pfc_free::PfcFreeTotals::sum(
                self.qps.iter().map(|q| &q.rel).zip(&self.rx),
            ),
            host_cpu: self.host_cpu_rows(),
        }
    }
}

impl Simulation {
    /// Write the dumps the run still owes up to `until` (the peer runs to
    /// its stop time even when every flow finished early).
    pub(crate) fn qlen_finish(&mut self, until: Time) {
        if let Some(m) = self.cx.qlen.as_mut() {
            let ports = &self.ports;
            while let Some(d) = m.next_dump() {
                if d > until {
                    break;
                }
                m.dump(d, |p| ports[p as usize].queue_bytes);
            }
        }
    }

    /// The queue-length monitor's output, if it ran.
    pub fn qlen_text(&self) -> Option<&str> {
        self.cx.qlen.as_ref().map(|m| m.text.as_str())
    }
}

impl Simulation {
    /// Record a time series as `cfg` says; read it with
    /// [`Simulation::take_timeseries`] after the run. Call before running.
    /// Fails, saying why, on a zero interval, a port that does not exist or
    /// a class out of range.
    pub fn monitor(&mut self, cfg: MonitorConfig) -> Result<(), String> {
        let m = Monitor::new(cfg, &self.ports)?;
        if let Some(first) = m.first_sample() {
            self.cx.q.push(first.max(self.cx.now), Event::Monitor);
        }
        self.monitor = Some(Box::new(m));
        Ok(())
    }

    /// The time series recorded so far, if [`Simulation::monitor`] was
    /// called; monitoring stops.
    pub fn take_timeseries(&mut self) -> Option<TimeSeries> {
        self.monitor.take().map(|m| m.into_series())
    }

    /// The `Monitor` event: sample, then re-arm.
    pub(crate) fn monitor_tick(&mut self) {
        let Some(m) = self.monitor.as_mut() else {
            return;
        };
        let more = !self.cx.q.is_empty();
        if let Some(next) = m.sample(self.cx.now, &self.ports, &self.qps, &self.flows, more) {
            self.cx.q.push(next, Event::Monitor);
        }
    }
}

impl Simulation {
    /// Capture frames as `cfg` says (`capture/`); take them with
    /// [`Simulation::take_capture`] after the run. Call before running.
    /// Fails, saying why, on a port that does not exist, a class out of
    /// range, a flow id no flow has or a zero snap length.
    pub fn capture(&mut self, cfg: CaptureConfig) -> Result<(), String> {
        let c = Capture::new(&cfg, &mut self.ports, &self.flows)?;
        self.cx.capture = Some(Box::new(c));
        Ok(())
    }

    /// The frames captured so far, in time order, if
    /// [`Simulation::capture`] was called; capturing stops.
    pub fn take_capture(&mut self) -> Option<CaptureFile> {
        let c = self.cx.capture.take()?;
        Some(c.finish(&mut self.ports, &self.flows, self.cfg.nic.mtu_payload))
    }
}

impl Simulation {
    /// Per host with a CPU model, in node order: its cores' totals and the
    /// messages it received and sent (a message is sent once its receiver
    /// has it: the sender's count is the receiver's, by connection).
    fn host_cpu_rows(&self) -> Vec<crate::results::HostCpuRow> {
        if self.cfg.host.cores == 0 {
            return Vec::new();
        }
        let mut rows: Vec<crate::results::HostCpuRow> = self
            .nics
            .iter()
            .filter_map(|n| {
                let cpu = n.cpu.as_ref()?;
                Some(crate::results::HostCpuRow {
                    node: self.ports[n.port as usize].node,
                    cores: self.cfg.host.cores,
                    totals: cpu.totals,
                    messages_received: 0,
                    messages_sent: 0,
                })
            })
            .collect();
        rows.sort_by_key(|r| r.node);
        for (q, rx) in self.qps.iter().zip(&self.rx) {
            let m = rx.messages_received();
            if let Ok(i) = rows.binary_search_by_key(&q.dst, |r| r.node) {
                rows[i].messages_received += m;
            }
            if let Ok(i) = rows.binary_search_by_key(&q.src, |r| r.node) {
                rows[i].messages_sent += m;
            }
        }
        rows
    }
}

#[cfg(test)]
mod monitor_tests {
    use super::*;
    use crate::config::NetConfig;
    use crate::monitor::MonitorPorts;
    use engine::Delta;
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
