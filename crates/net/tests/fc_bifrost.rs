//! Bifrost on a 400 Gb/s × 600 km link (Bifrost §VI-B): Theorem 1 under a
//! stalled drain, reaction time, pause-frame leaking, and the printed
//! algorithm's defect (Bifrost §IV-C1, §IV-C2, §IV-D; `docs/bifrost.md`).
//!
//! The network: sender host 0 — A ══ 600 km ══ B — receiver host 1.
//! A is node 2 (port 0 to the sender, port 1 on the long link); B is node 3
//! (port 0 on the long link, port 1 to the receiver). B's long-haul ingress
//! runs Bifrost; A's long-haul egress is a plain PFC port with 802.1Qbb
//! pause timers. No congestion control: the sender is always backlogged.

use engine::{Delta, Rate, Time};
use rdmasim_net::cc::CcConfig;
use rdmasim_net::fc::{
    AnyFc, BifrostConfig, BifrostParams, BifrostReading, BifrostSlot, PauseDelay,
};
use rdmasim_net::wire::PacketKind;
use rdmasim_net::{FcChoice, NetConfig, PfcMode, PortRule, PortSettings, Simulation};
use topo::{LinkSpec, NodeKind, Topology};
use workload::FlowSpec;

const A: u32 = 2;
const B: u32 = 3;
const T_US: u64 = 10;

fn topology(drain: Rate) -> Topology {
    let d = Delta::from_us(1);
    Topology {
        kinds: vec![
            NodeKind::Host,
            NodeKind::Host,
            NodeKind::Switch,
            NodeKind::Switch,
        ],
        links: vec![
            LinkSpec::new(0, A, Rate::gbps(400), d),
            LinkSpec::new(A, B, Rate::gbps(400), Delta::from_ms(3)),
            LinkSpec::new(B, 1, drain, d),
        ],
    }
}

#[derive(Clone)]
struct Setup {
    bifrost: BifrostConfig,
    /// B's long-haul ingress buffer; default H.
    buffer: Option<u64>,
    /// B's egress to the receiver.
    drain: Rate,
    /// Stall B's drain over this interval.
    hold: Option<(Time, Time)>,
    until: Time,
    trace_b: bool,
    /// Data payload per frame; `None`: the default (1000 B).
    payload: Option<u32>,
}

impl Setup {
    fn new(bifrost: BifrostConfig, until_ms: u64) -> Setup {
        Setup {
            bifrost: BifrostConfig {
                trace: true,
                ..bifrost
            },
            buffer: None,
            drain: Rate::gbps(400),
            hold: None,
            until: Time::from_ns(until_ms * 1_000_000),
            trace_b: false,
            payload: None,
        }
    }

    fn run(&self) -> Simulation {
        let topo = topology(self.drain);
        let mut cfg = NetConfig {
            cc: CcConfig::None,
            ..NetConfig::default()
        };
        if let Some(p) = self.payload {
            cfg.nic.mtu_payload = p;
        }
        cfg.ports.push(PortRule {
            link: 1,
            at_b: true,
            settings: PortSettings {
                fc: Some(FcChoice::Bifrost(self.bifrost.clone())),
                xoff: self.buffer,
                ..PortSettings::default()
            },
        });
        cfg.ports.push(PortRule {
            link: 1,
            at_b: false,
            settings: PortSettings {
                fc: Some(FcChoice::PfcObeyOnly(PfcMode::Quanta {
                    quanta: 0xFFFF,
                    refresh_fraction: 0.5,
                })),
                // No data comes in here: without this, the default 3·R·D
                // headroom of a 600 km port (450 MB) would eat A's whole
                // shared buffer and leave the sender's ingress a threshold
                // of 0, so A could hold only ~100 kB for the long link.
                headroom: Some(0),
                ..PortSettings::default()
            },
        });
        let flows = vec![FlowSpec {
            id: 0,
            src: 0,
            dst: 1,
            size: 10_000_000_000,
            start: Time::ZERO,
            pg: 3,
            dport: 100,
        }];
        let mut sim = Simulation::new(&topo, flows, cfg).unwrap();
        if self.trace_b {
            sim.trace_tx(B);
        }

        if let Some((from, to)) = self.hold {
            sim.run_until(from);
            sim.hold_egress(B, 1, true);
            sim.run_until(to);
            sim.hold_egress(B, 1, false);
        }
        sim.run_until(self.until);
        sim
    }
}

fn params(sim: &Simulation) -> BifrostParams {
    match sim.fc_of(B, 0) {
        Some(AnyFc::Bifrost(b)) => b.params(),
        _ => panic!("B's long-haul port runs Bifrost"),
    }
}

fn trace(sim: &Simulation) -> &[BifrostSlot] {
    sim.bifrost_trace(B, 0).expect("traced")
}

fn ms(t: u64) -> Time {
    Time::from_ns(t * 1_000_000)
}

/// Data frames on the wire in rdmasim's default (peer) header model.
const FRAME: i64 = 1048;
/// The MTU of H's k·MTU term (BifrostConfig's default).
const MTU: i64 = 1500;

/// Min and max of L_n + F_n over a trace, and the largest L_n.
fn extremes(tr: &[BifrostSlot]) -> (i64, i64, u64) {
    let (mut lo, mut hi, mut max_l) = (i64::MAX, i64::MIN, 0);
    for s in tr {
        let lf = s.l as i64 + s.f;
        lo = lo.min(lf);
        hi = hi.max(lf);
        max_l = max_l.max(s.l);
    }
    (lo, hi, max_l)
}

fn write_csv(name: &str, tr: &[BifrostSlot], h: u64) {
    // BIFROST_TRACE_DIR=dir keeps each test's per-slot trace for plotting.
    if let Ok(dir) = std::env::var("BIFROST_TRACE_DIR") {
        let mut f = std::fs::File::create(format!("{dir}/{name}.csv")).unwrap();
        rdmasim_net::fc::write_trace_csv(&mut f, tr, h).unwrap();
    }
}

/// The stalled-drain run of Theorem 1 (Bifrost §IV-C1; the worst cases of
/// Fig. 2a, then 2b): H = Δ + 2·R_s·T (Theorem 1's condition), B's drain
/// stops from 8 ms for five RTTs, then resumes at line rate. `payload` sets
/// the data frames' size (payload + 48 B), and B's buffer is H + `margin`.
fn stalled_drain(payload: u32, t_slot: Delta, margin: u64) -> (Simulation, Time, Time, Time) {
    let (hold, release) = (ms(8), ms(38));
    let mut s = Setup::new(
        BifrostConfig {
            t_slot,
            ..BifrostConfig::default()
        },
        56,
    );
    let (p0, _) = s.bifrost.resolve(Rate::gbps(400), Delta::from_ms(3));
    s.bifrost.h = Some(p0.delta + 2 * p0.r_s_t);
    s.buffer = Some(p0.delta + 2 * p0.r_s_t + margin);
    s.hold = Some((hold, release));
    s.trace_b = true;
    s.payload = Some(payload);
    let sim = s.run();
    (sim, hold, release, s.until)
}

/// What Theorem 1's run must show besides the bound itself: the stall
/// filled the buffer to about H (L_n ≤ H − F_n, F_n near 0); the first pause
/// after the stall began left within 2T with a grant of at most one frame,
/// and none before
/// it (c = R_s·T gives p = 0, Bifrost §IV-C3); and, while the sender is
/// backlogged, B's egress never idles once data has reached it, before and
/// after the stall (Bifrost §III-B, "no throughput-loss"). Returns
/// min L+F − (Δ+R_sT) and max L+F − H.
fn check_stalled_run(
    name: &str,
    (sim, hold, release, until): &(Simulation, Time, Time, Time),
    frame: u64,
    t_slot: Delta,
) -> (i64, i64) {
    let p = params(sim);
    let tr = trace(sim);
    write_csv(name, tr, p.h);
    let lower = (p.delta + p.r_s_t) as i64;
    let h = p.h as i64;
    let (lo, hi, max_l) = extremes(tr);
    eprintln!(
        "{name}: {} slots, min L+F − (Δ+R_sT) = {}, max L+F − H = {}, max L − H = {}, \
         pauses {}, drops {}",
        tr.len(),
        lo - lower,
        hi - h,
        max_l as i64 - h,
        tr.iter().filter(|s| s.quanta > 0).count(),
        sim.results().drops()
    );
    assert!(max_l as i64 > h - frame as i64, "max L {max_l}");

    let first = tr
        .iter()
        .find(|s| s.time > *hold && s.quanta > 0)
        .expect("a pause after the stall");
    let delay = first.time - *hold;
    eprintln!(
        "first pause {delay} after the stall: c = {}, {} quanta",
        first.c, first.quanta
    );
    assert!(delay.ps() <= 2 * t_slot.ps());
    // From the next slot on (a whole slot of the stall), a full-slot pause.
    let next = tr
        .iter()
        .find(|s| s.n == first.n + 1)
        .expect("a slot after the first pause");
    assert_eq!(next.c, 0, "a full stall is met with a full-slot pause");
    assert!(tr.iter().all(|s| s.time > *hold || s.quanta == 0));

    let frame_time = Rate::gbps(400).tx_time(frame);
    let starts: Vec<Time> = sim
        .tx_log()
        .iter()
        .filter(|e| e.port == 1 && e.kind == PacketKind::Data)
        .map(|e| e.time)
        .collect();
    let mut worst = (Delta::ZERO, Time::ZERO);
    for w in starts.windows(2) {
        let gap = w[1] - w[0];
        let in_stall = w[0] < *release && w[1] >= *hold;
        if !in_stall && gap > worst.0 {
            worst = (gap, w[0]);
        }
    }
    eprintln!("largest gap outside the stall: {} at {}", worst.0, worst.1);
    assert!(
        worst.0 <= frame_time,
        "B's egress idled {} at {}",
        worst.0,
        worst.1
    );
    assert!(*starts.last().unwrap() + Delta::from_us(1) > *until);
    (lo - lower, hi - h)
}

/// Theorem 1 (Bifrost §IV-C1 and its online appendix), exactly: with
/// H = Δ + 2·R_s·T and a buffer of exactly H, through a drain stalled for
/// five RTTs,
/// Δ + R_s·T ≤ L_n + F_n ≤ H at every slot n (F_n after the slot's update,
/// the appendix's recurrence (1c)), nothing is dropped, B's egress never
/// idles while the sender waits, and the first pause leaves within 2T.
///
/// The appendix's proof assumes that the bytes received in slot n are the
/// grant of N + 1 slots earlier: every grant must be sendable as whole
/// frames. Here a data frame is 1,000 B on the wire (952 B payload), so a
/// slot at line rate (R_s·T = 500,000 B) is exactly 500 frames, and Δ, H,
/// L, r and so every grant are whole frames too: the upstream sends what it
/// is granted, no more, and the bound holds to the byte.
#[test]
fn theorem_1_holds_exactly_through_a_stalled_drain() {
    let run = stalled_drain(912, Delta::from_ns(9_600), 0);
    assert_eq!(params(&run.0).h, 300_960_000);
    assert!(
        run.0.warnings().iter().any(|w| w.contains("k·MTU")),
        "{:?}",
        run.0.warnings()
    );
    assert_eq!(run.0.results().drops(), 0, "lossless with a buffer of H");
    let (below, above) = check_stalled_run("stall", &run, 960, Delta::from_ns(9_600));
    assert!(below >= 0, "lower bound broken by {} B", -below);
    assert!(above <= 0, "upper bound broken by {above} B");
}

/// The same stall with rdmasim's default frames (1,048 B on the wire),
/// which do not divide a slot: a grant is then not a whole number of
/// frames, the upstream finishes a frame it started past its grant (the
/// Bifrost §IV-D leak the k·MTU headroom is for), and a slot's arrivals can
/// exceed R_s·T by part of a frame. Theorem 1 then holds to within one frame
/// (k·MTU, k = 1, MTU = 1500 B), and a buffer of H + k·MTU drops nothing.
/// Measured: −1048 B and +1320 B.
#[test]
fn theorem_1_holds_within_one_frame_when_frames_split_a_slot() {
    let run = stalled_drain(1000, Delta::from_us(T_US), MTU as u64);
    assert_eq!(params(&run.0).h, 301_000_000);
    assert_eq!(run.0.results().drops(), 0, "lossless with H + MTU");
    let (below, above) = check_stalled_run("stall_1048", &run, FRAME as u64, Delta::from_us(T_US));
    assert!(below >= -MTU, "lower bound broken by {} B", -below);
    assert!(above <= MTU, "upper bound broken by {above} B");
}

/// Max L − H (bytes, positive = over H) and drops of a run with `reading`
/// under `setup`, B's buffer `margin` bytes above H.
fn overshoot(mut s: Setup, reading: BifrostReading, name: &str, margin: u64) -> (i64, u64) {
    s.bifrost.reading = reading;
    let (p0, _) = s.bifrost.resolve(Rate::gbps(400), Delta::from_ms(3));
    let h = s.bifrost.h.unwrap_or(p0.h);
    s.buffer = Some(h + margin);
    let sim = s.run();
    let p = params(&sim);
    let tr = trace(&sim);
    write_csv(name, tr, p.h);
    let (_, hi, max_l) = extremes(tr);
    let r = sim.results();
    eprintln!(
        "{name} {reading:?}: max L − H = {}, max L+F − H = {}, drops {}, pauses {}",
        max_l as i64 - p.h as i64,
        hi - p.h as i64,
        r.drops(),
        tr.iter().filter(|s| s.quanta > 0).count()
    );
    (max_l as i64 - p.h as i64, r.drops())
}

/// Bifrost §IV-D: late pause frames. B drains at only 10 Gb/s, so every
/// slot grants a sliver of a slot and the upstream sends whole frames into
/// it; on top, every second pause frame is held back 25 ns (more than one
/// 1048 B frame at 400 Gb/s, "waits behind one MTU"). Both make the
/// upstream send more than granted: pause-frame leaking.
/// - Ledger (the default: F = the grants in flight): leaked bytes show up
///   in L but not in F, line 10 takes them back, and the queue stays
///   within H = Δ + 2·R_s·T + k·MTU.
/// - Clamped (F updated from the measured r, as printed): leaked bytes are
///   subtracted from F when they arrive, F drifts below the bytes really
///   in flight, and the queue creeps past H.
#[test]
fn leak_handling_keeps_the_queue_within_h() {
    let mut s = Setup::new(
        BifrostConfig {
            pause_delay: Some(PauseDelay {
                every: 2,
                by: Delta::from_ns(25),
            }),
            ..BifrostConfig::default()
        },
        250,
    );
    s.drain = Rate::gbps(10);
    // H already holds the k·MTU headroom; B's buffer is H.
    let (ledger, drops) = overshoot(s.clone(), BifrostReading::Ledger, "leak_ledger", 0);
    assert_eq!(drops, 0);
    assert!(ledger <= 0, "ledger: L over H by {ledger}");
    // Measured over a buffer 50 MB larger, to see how far it goes.
    let (clamped, _) = overshoot(
        s.clone(),
        BifrostReading::Clamped,
        "leak_clamped",
        50_000_000,
    );
    assert!(clamped > 1_000_000, "clamped: L over H by only {clamped}");
}

/// Bifrost's Algorithm 1 as printed (`BifrostReading::Literal`) is not
/// lossless even without artificial leaks, where the corrected reading is. A
/// stall like `theorem_1_holds_within_one_frame_when_frames_split_a_slot`'s
/// (1,048 B frames, T = 10 µs), 8 to 26 ms (3 RTTs): H = Δ + 2·R_s·T, a buffer
/// of H + k·MTU. Measured: the literal reading drops 239 frames (with 50 MB
/// more buffer its queue peaks 252 kB over H); the ledger stays within
/// 1320 B of H and drops nothing; the clamped measured-r reading reaches
/// 1320 B over H and drops one.
#[test]
fn the_literal_algorithm_overflows_where_the_corrected_one_holds() {
    let stall = |reading, name| {
        let mut s = Setup::new(BifrostConfig::default(), 40);
        let (p0, _) = s.bifrost.resolve(Rate::gbps(400), Delta::from_ms(3));
        s.bifrost.h = Some(p0.delta + 2 * p0.r_s_t);
        s.hold = Some((ms(8), ms(26)));
        overshoot(s, reading, name, MTU as u64)
    };
    let (_, lit_drops) = stall(BifrostReading::Literal, "stall_literal");
    let (cor, cor_drops) = stall(BifrostReading::Ledger, "stall_ledger");
    let (cla, _) = stall(BifrostReading::Clamped, "stall_clamped");
    assert_eq!(cor_drops, 0);
    assert!(cor <= MTU, "corrected: L over H by {cor}");
    assert!(lit_drops > 100, "literal: {lit_drops} drops");
    assert!(cla < 10 * MTU, "clamped: L over H by {cla}");
}

/// Bifrost on both DCI ports of the paper's simulated network (Bifrost
/// §VI-B, Fig. 10: two k = 4 fat trees, 400 Gb/s × 600 km between the DCI
/// switches, PFC elsewhere, DCQCN): 16 hosts of DC 0 each send 5 MB to a host
/// of DC 1 at once. Everything arrives, nothing is dropped, and neither
/// Bifrost ingress goes past its H.
#[test]
fn bifrost_carries_a_cross_dc_burst() {
    let layout = topo::CrossDcSpec::BIFROST.layout().unwrap();
    let topo = layout.build();
    let mut cfg = NetConfig {
        stop_time: Some(ms(60)),
        ..NetConfig::default()
    };
    // Lossless, and the base round trip is 6 ms: no retransmission
    // timeout (the default 1 ms would fire before any ACK could come).
    cfg.nic.rto = None;
    for link in layout.long_link_range() {
        for at_b in [false, true] {
            cfg.ports.push(PortRule {
                link: link as u32,
                at_b,
                settings: PortSettings {
                    fc: Some(FcChoice::Bifrost(BifrostConfig::default())),
                    ..PortSettings::default()
                },
            });
        }
    }
    let n = layout.hosts_per_dc();
    let (src, dst) = (layout.hosts(0), layout.hosts(1));
    let flows = (0..n)
        .map(|i| FlowSpec {
            id: i,
            src: src.start + i,
            dst: dst.start + (i + 5) % n,
            size: 5_000_000,
            start: Time::ZERO,
            pg: 3,
            dport: 100,
        })
        .collect();
    let mut sim = Simulation::new(&topo, flows, cfg).unwrap();
    assert!(sim.warnings().is_empty(), "{:?}", sim.warnings());
    sim.run();
    let r = sim.results();
    assert_eq!(r.drops(), 0);
    assert_eq!(r.unfinished(), 0);
    let mut pauses = 0;
    for dc in 0..2 {
        let dci = layout.dci(dc);
        let long = layout.long_link_range().start as u32;
        let local = topo.ports(dci).iter().position(|&l| l == long).unwrap() as u16;
        let Some(AnyFc::Bifrost(b)) = sim.fc_of(dci, local) else {
            panic!("DCI {dc} runs Bifrost on its long port")
        };
        assert!(b.peak_l() <= b.params().h);
        pauses += b.pauses();
        eprintln!(
            "DCI {dc}: peak L {} of H {}, max L+F−H {}, {} pauses",
            b.peak_l(),
            b.params().h,
            b.peak_excess(),
            b.pauses()
        );
    }
    let end = r.flows.iter().map(|f| f.end.unwrap()).max().unwrap();
    eprintln!("cross-DC burst: last flow done at {end}, {pauses} Bifrost pauses");
}
