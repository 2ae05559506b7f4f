//! Message completion times: a message of several flows (a storage
//! workload's, `workload::storage`) completes when its last flow does;
//! its completion time is that less its arrival. `messages.csv` has one
//! row per message, `summary.json`'s `messages` their percentiles by kind
//! (Azure §7.3 tunes on the p99 message completion time).

use serde::Serialize;
use stats::FlowRecord;
use std::io::{self, Write};
use workload::{Message, MessageKind};

/// One message's outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct MessageRecord {
    /// Message id (arrival order).
    pub id: u32,
    /// Its kind.
    pub kind: MessageKind,
    /// Its flows.
    pub flows: usize,
    /// Payload bytes of all its flows.
    pub bytes: u64,
    /// Arrival, ns.
    pub start_ns: u64,
    /// When its last flow completed, ns; `None` if one did not.
    pub end_ns: Option<u64>,
}

impl MessageRecord {
    /// Message completion time, ns, if it completed.
    pub fn mct_ns(&self) -> Option<u64> {
        self.end_ns.map(|e| e - self.start_ns)
    }
}

/// The outcome of each message, from its flows' records (`records` in flow
/// id order, as [`crate::run::flow_records`] gives them).
pub fn message_records(messages: &[Message], records: &[FlowRecord]) -> Vec<MessageRecord> {
    messages
        .iter()
        .map(|m| {
            let fl = m.flows.iter().map(|&f| &records[f as usize]);
            let end_ns = fl
                .clone()
                .map(|r| r.end_ns)
                .try_fold(0u64, |acc, e| e.map(|e| acc.max(e)));
            MessageRecord {
                id: m.id,
                kind: m.kind,
                flows: m.flows.len(),
                bytes: fl.map(|r| r.size).sum(),
                start_ns: m.start.ns(),
                end_ns,
            }
        })
        .collect()
}

/// The header of `messages.csv`.
pub const MESSAGES_CSV_HEADER: &str = "id,kind,flows,bytes,start_ns,end_ns,mct_ns";

/// `messages.csv`: a header, then one row per message. An unfinished
/// message has empty `end_ns` and `mct_ns` (NaN in pandas).
pub fn write_messages_csv(recs: &[MessageRecord], w: &mut impl Write) -> io::Result<()> {
    writeln!(w, "{MESSAGES_CSV_HEADER}")?;
    for r in recs {
        let opt = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or_default();
        writeln!(
            w,
            "{},{},{},{},{},{},{}",
            r.id,
            r.kind.name(),
            r.flows,
            r.bytes,
            r.start_ns,
            opt(r.end_ns),
            opt(r.mct_ns())
        )?;
    }
    Ok(())
}

/// Completion-time statistics of one kind of message (or `all`), µs, by
/// the percentile of every table rdmasim writes
/// ([`stats::percentile_sorted`]); NaN (`null`) when none finished.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MessageStats {
    /// `read`, `write`, `replication`, `reconstruction` or `all`.
    pub kind: String,
    /// Messages.
    pub count: u64,
    /// Messages whose every flow completed.
    pub finished: u64,
    /// Mean completion time, µs.
    pub mct_avg_us: f64,
    /// Median completion time, µs.
    pub mct_p50_us: f64,
    /// 99th-percentile completion time, µs.
    pub mct_p99_us: f64,
}

fn stats_of(kind: &str, recs: &[&MessageRecord]) -> MessageStats {
    let mut mct: Vec<f64> = recs
        .iter()
        .filter_map(|r| r.mct_ns())
        .map(|n| n as f64 / 1e3)
        .collect();
    mct.sort_by(f64::total_cmp);
    let avg = if mct.is_empty() {
        f64::NAN
    } else {
        mct.iter().sum::<f64>() / mct.len() as f64
    };
    MessageStats {
        kind: kind.to_string(),
        count: recs.len() as u64,
        finished: mct.len() as u64,
        mct_avg_us: avg,
        mct_p50_us: stats::percentile_sorted(&mct, 0.50),
        mct_p99_us: stats::percentile_sorted(&mct, 0.99),
    }
}

/// One row per kind present, then `all`; `None` without messages.
pub fn message_summary(recs: &[MessageRecord]) -> Option<Vec<MessageStats>> {
    if recs.is_empty() {
        return None;
    }
    let mut rows: Vec<MessageStats> = MessageKind::ALL
        .iter()
        .filter_map(|&k| {
            let of: Vec<&MessageRecord> = recs.iter().filter(|r| r.kind == k).collect();
            (!of.is_empty()).then(|| stats_of(k.name(), &of))
        })
        .collect();
    rows.push(stats_of("all", &recs.iter().collect::<Vec<_>>()));
    Some(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Time;

    fn rec(id: u32, size: u64, start: u64, end: Option<u64>) -> FlowRecord {
        FlowRecord {
            id,
            src: 0,
            dst: 1,
            size,
            start_ns: start,
            end_ns: end,
            fct_ns: end.map(|e| e - start),
            ideal_fct_ns: 1,
            slowdown: None,
            pg: 3,
            dport: 120,
            sport: 10_000,
            retransmitted_bytes: 0,
            paused_ns: 0,
        }
    }

    #[test]
    fn a_message_ends_with_its_last_flow() {
        let records = vec![
            rec(0, 100, 10, Some(50)),
            rec(1, 200, 10, Some(90)),
            rec(2, 300, 20, Some(30)),
            rec(3, 400, 20, None),
        ];
        let msg = |id, kind, start, flows: Vec<u32>| Message {
            id,
            kind,
            start: Time::from_ns(start),
            flows,
        };
        let msgs = vec![
            msg(0, MessageKind::Replication, 10, vec![0, 1]),
            msg(1, MessageKind::Reconstruction, 20, vec![2, 3]),
        ];
        let r = message_records(&msgs, &records);
        assert_eq!(
            (r[0].end_ns, r[0].mct_ns(), r[0].bytes),
            (Some(90), Some(80), 300)
        );
        assert_eq!(
            (r[1].end_ns, r[1].mct_ns()),
            (None, None),
            "one flow did not finish"
        );
        let mut csv = Vec::new();
        write_messages_csv(&r, &mut csv).unwrap();
        assert_eq!(
            String::from_utf8(csv).unwrap(),
            "id,kind,flows,bytes,start_ns,end_ns,mct_ns\n\
             0,replication,2,300,10,90,80\n\
             1,reconstruction,2,700,20,,\n"
        );
        let s = message_summary(&r).unwrap();
        assert_eq!(s.len(), 3);
        assert_eq!((s[0].kind.as_str(), s[0].finished), ("replication", 1));
        assert!(s[1].mct_p99_us.is_nan(), "none finished");
        assert_eq!(
            (s[2].kind.as_str(), s[2].count, s[2].finished),
            ("all", 2, 1)
        );
        assert_eq!(s[2].mct_p99_us, 0.08);
        assert!(message_summary(&[]).is_none());
    }

    #[test]
    fn the_p99_is_the_one_percentile_rule() {
        let records: Vec<FlowRecord> = (0..200)
            .map(|i| rec(i, 1, 0, Some(1000 * (u64::from(i) + 1))))
            .collect();
        let msgs: Vec<Message> = (0..200)
            .map(|i| Message {
                id: i,
                kind: MessageKind::Read,
                start: Time::ZERO,
                flows: vec![i],
            })
            .collect();
        let s = message_summary(&message_records(&msgs, &records)).unwrap();
        let mut v: Vec<f64> = (1..=200).map(f64::from).collect();
        v.sort_by(f64::total_cmp);
        assert_eq!(s[0].mct_p99_us, stats::percentile_sorted(&v, 0.99));
        assert_eq!(s[0].mct_p99_us, 199.0);
    }
}
