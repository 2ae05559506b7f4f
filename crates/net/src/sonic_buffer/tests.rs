//! The numbers Azure App. A gives or implies for Listing 1, each driven
//! frame by frame through the model until the pause or drop, and the
//! reader's errors.
//!
//! Listing 1 maps no classes to its profiles (it has no `BUFFER_PG` or
//! `BUFFER_QUEUE`) and the paper gives no priority numbers, so these
//! tests put the lossless profiles on class [`LOSSLESS`] and the lossy
//! ones on class [`LOSSY`] of every port: rdmasim's choice.

use super::config::{dt_fixed_point, PortProfiles, SonicBufferConfig, Threshold};
use super::json::{parse, read};
use super::model::{DropSide, SonicMmu};
use std::path::PathBuf;

const LOSSLESS: usize = 3;
const LOSSY: usize = 0;
/// The frame the tests drive with: it divides Listing 1's 2 MB pause point.
const FRAME: u64 = 1000;

fn listing1_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../experiments/azure/listing1.json")
}

fn listing1() -> SonicBufferConfig {
    read(&listing1_path()).unwrap()
}

fn profile(cfg: &SonicBufferConfig, name: &str) -> usize {
    cfg.profile(name).unwrap()
}

/// Listing 1 on a switch of `n` ports, each with the class map above.
fn switch(n: usize) -> SonicMmu {
    let mut cfg = listing1();
    let mut p = PortProfiles::default();
    p.pg[LOSSLESS] = Some(profile(&cfg, "ingress_lossless_profile"));
    p.queue[LOSSLESS] = Some(profile(&cfg, "egress_lossless_profile"));
    p.pg[LOSSY] = Some(profile(&cfg, "ingress_lossy_profile"));
    p.queue[LOSSY] = Some(profile(&cfg, "egress_lossy_profile"));
    for i in 0..n {
        cfg.ports.insert(format!("Ethernet{}", 4 * i), p);
    }
    SonicMmu::new(cfg, vec![p; n])
}

fn pool(m: &SonicMmu, name: &str) -> usize {
    m.config().pool(name).unwrap()
}

fn dynamic_th(m: &SonicMmu, profile_name: &str) -> i8 {
    let p = &m.config().profiles[profile(m.config(), profile_name)];
    match p.threshold {
        Threshold::Dynamic(th) => th,
        Threshold::Static(_) => panic!("{profile_name} has a static threshold"),
    }
}

/// Fill the reserve of lossless PG `port` with one frame, then send
/// `frame`-byte frames to `out` until the PG pauses; the frame that paused
/// it is admitted. Returns the PG's shared bytes just before that frame.
fn pause(m: &mut SonicMmu, port: usize, out: usize, frame: u64) -> u64 {
    let reserve = m.config().profiles[profile(m.config(), "ingress_lossless_profile")].size;
    m.admit(port, out, LOSSLESS, reserve).unwrap();
    loop {
        let before = m.pg(port, LOSSLESS).shared;
        let a = m.admit(port, out, LOSSLESS, frame).unwrap();
        if a.state.over_xoff {
            return before;
        }
    }
}

#[test]
fn listing1_reads_as_the_paper_gives_it() {
    let cfg = listing1();
    let p = |n: &str| cfg.pools[cfg.pool(n).unwrap()].clone();
    assert_eq!(p("ingress_pool").size, 18_000_000);
    assert_eq!(p("ingress_pool").xoff, 6_000_000);
    assert_eq!(p("egress_lossy_pool").size, 14_000_000);
    assert_eq!(p("egress_lossless_pool").size, 24_000_000);
    let ll = &cfg.profiles[profile(&cfg, "ingress_lossless_profile")];
    assert_eq!(
        (ll.size, ll.threshold, ll.xoff, ll.xon, ll.xon_offset),
        (1248, Threshold::Dynamic(-3), 96_928, 1248, 2496)
    );
    let lossy = &cfg.profiles[profile(&cfg, "egress_lossy_profile")];
    assert_eq!(
        (lossy.size, lossy.threshold),
        (1664, Threshold::Dynamic(-1))
    );
    for name in ["ingress_lossy_profile", "egress_lossless_profile"] {
        assert_eq!(
            cfg.profiles[profile(&cfg, name)].threshold,
            Threshold::Static(24_000_000)
        );
    }
}

#[test]
fn listing1_lossless_only_share_is_4_mb_and_lossy_cannot_take_it() {
    const PORTS: usize = 8;
    let mut m = switch(PORTS);
    let ingress = pool(&m, "ingress_pool");
    assert_eq!(m.config().lossless_only_share(ingress), 4_000_000);
    // Lossy traffic to every port's lossy queue until each drops.
    for port in 0..PORTS {
        loop {
            match m.admit(port, port, LOSSY, FRAME) {
                Ok(_) => {}
                Err(side) => {
                    assert_eq!(side, DropSide::Egress);
                    break;
                }
            }
        }
    }
    // Lossy bytes in ingress_pool: bounded by egress_lossy_pool, plus the
    // lossy queues' reserves, which that pool does not count.
    let reserves: u64 = (0..PORTS).map(|p| m.queue(p, LOSSY).reserved).sum();
    let lossy_pool = m.config().pools[pool(&m, "egress_lossy_pool")].size;
    assert!(m.pool_shared(ingress) <= lossy_pool + reserves);
    let left = m.config().pools[ingress].size - m.pool_shared(ingress);
    assert!(left + reserves >= m.config().lossless_only_share(ingress));
    // A lossless PG still gets its dynamic share of what lossy left.
    let th = dynamic_th(&m, "ingress_lossless_profile");
    let at = pause(&mut m, 0, 1, FRAME);
    let expected = dt_fixed_point(th, left, 1);
    assert!(
        (at as f64 - expected).abs() <= FRAME as f64,
        "paused at {at}, expected {expected}"
    );
}

#[test]
fn listing1_a_lone_lossless_queue_pauses_at_2_mb() {
    let mut m = switch(2);
    let before = pause(&mut m, 0, 1, FRAME);
    let pg = m.pg(0, LOSSLESS);
    assert!(before < 2_000_000);
    assert_eq!(pg.shared, 2_000_000);
    assert_eq!(pg.headroom, 0, "the pausing frame is still in shared");
    let th = dynamic_th(&m, "ingress_lossless_profile");
    let ingress = &m.config().pools[pool(&m, "ingress_pool")];
    assert_eq!(pg.shared as f64, dt_fixed_point(th, ingress.size, 1));
    // What arrives after goes to headroom.
    let a = m.admit(0, 1, LOSSLESS, FRAME).unwrap();
    assert!(a.in_headroom && a.state.over_xoff);
    assert_eq!(m.pg(0, LOSSLESS).shared, 2_000_000);
}

#[test]
fn equally_congested_lossless_queues_pause_at_18_mb_over_8_plus_n() {
    for n in [2usize, 10] {
        let mut m = switch(n + 1);
        let reserve = m.config().profiles[profile(m.config(), "ingress_lossless_profile")].size;
        for p in 0..n {
            m.admit(p, n, LOSSLESS, reserve).unwrap();
        }
        // Round robin over the PGs not yet paused.
        while (0..n).any(|p| !m.pg(p, LOSSLESS).paused) {
            for p in 0..n {
                if !m.pg(p, LOSSLESS).paused {
                    m.admit(p, n, LOSSLESS, FRAME).unwrap();
                }
            }
        }
        let expected = 18_000_000.0 / (8 + n) as f64;
        for p in 0..n {
            let at = m.pg(p, LOSSLESS).shared as f64;
            assert!(
                (at - expected).abs() <= (n as u64 * FRAME) as f64,
                "n = {n}: PG {p} paused at {at}, expected {expected}"
            );
        }
    }
}

#[test]
fn listing1_a_lone_lossy_queue_drops_at_about_4_67_mb() {
    let mut m = switch(2);
    let reserve = m.config().profiles[profile(m.config(), "egress_lossy_profile")].size;
    m.admit(0, 1, LOSSY, reserve).unwrap();
    let side = loop {
        if let Err(side) = m.admit(0, 1, LOSSY, FRAME) {
            break side;
        }
    };
    assert_eq!(side, DropSide::Egress);
    let at = m.queue(1, LOSSY).shared;
    let th = dynamic_th(&m, "egress_lossy_profile");
    let lossy_pool = m.config().pools[pool(&m, "egress_lossy_pool")].size;
    assert!((at as f64 - dt_fixed_point(th, lossy_pool, 1)).abs() <= FRAME as f64);
    // ≈ 4.67 MB, to the paper's two decimals.
    assert_eq!((at as f64 / 1e4).round(), 467.0, "dropped at {at}");
}

#[test]
fn listing1_per_queue_headroom_is_capped_at_96928_bytes() {
    let mut m = switch(2);
    pause(&mut m, 0, 1, FRAME);
    while m.admit(0, 1, LOSSLESS, FRAME).is_ok() {}
    let cap = m.config().profiles[profile(m.config(), "ingress_lossless_profile")].xoff;
    // The last whole frame did not fit; the bytes left to the cap do.
    let left = cap - m.pg(0, LOSSLESS).headroom;
    assert!(left < FRAME);
    m.admit(0, 1, LOSSLESS, left).unwrap();
    assert_eq!(m.pg(0, LOSSLESS).headroom, 96_928);
    assert_eq!(m.admit(0, 1, LOSSLESS, 1), Err(DropSide::Ingress));
}

#[test]
fn listing1_the_headroom_pool_is_6_mb_shared_and_lossless_never_fails_egress() {
    // 32 bytes divides both the 6 MB pool and the 96,928 B cap, so both
    // fill exactly.
    const SMALL: u64 = 32;
    const PORTS: usize = 64;
    // Two egress queues: in one, 64 PGs' reserves (64 × 1,248 B) on top
    // of a full ingress_pool and headroom pool would pass the 24 MB of
    // its static threshold, which is the switch's whole buffer
    // (docs/sonic-buffer.md, "Listing 1's arithmetic").
    let mut m = switch(PORTS + 2);
    let out = |p: usize| PORTS + p % 2;
    for p in 0..PORTS {
        pause(&mut m, p, out(p), SMALL);
    }
    for p in 0..PORTS {
        loop {
            match m.admit(p, out(p), LOSSLESS, SMALL) {
                Ok(_) => {}
                Err(side) => {
                    assert_eq!(side, DropSide::Ingress, "lossless failed egress");
                    break;
                }
            }
        }
    }
    let ingress = pool(&m, "ingress_pool");
    let pool_xoff = m.config().pools[ingress].xoff;
    let cap = m.config().profiles[profile(m.config(), "ingress_lossless_profile")].xoff;
    assert_eq!(m.pool_headroom(ingress), 6_000_000);
    let full = (0..PORTS)
        .filter(|&p| m.pg(p, LOSSLESS).headroom == cap)
        .count() as u64;
    // ≈ 61.9 queues' worth: 61 full, one partly.
    assert_eq!((pool_xoff as f64 / cap as f64 * 10.0).round(), 619.0);
    assert_eq!(full, pool_xoff / cap);
    assert!((0..PORTS).all(|p| m.pg(p, LOSSLESS).headroom <= cap));
    // The egress queues took every frame the PGs did.
    let held: u64 = (0..PORTS).map(|p| m.pg(p, LOSSLESS).total()).sum();
    let queued = m.queue(PORTS, LOSSLESS).total() + m.queue(PORTS + 1, LOSSLESS).total();
    assert_eq!(queued, held);
}

#[test]
fn listing1_lossy_never_fails_ingress_even_with_ingress_pool_spent() {
    const PORTS: usize = 64;
    let mut m = switch(PORTS);
    // Lossless PGs pause one after another until ingress_pool has almost
    // nothing left for a dynamic threshold.
    for p in 0..PORTS {
        pause(&mut m, p, 0, FRAME);
    }
    let ingress = pool(&m, "ingress_pool");
    assert!(m.pg_limit(0, LOSSLESS).unwrap() < 2 * FRAME);
    // Lossy traffic from one port to every lossy queue: every drop is at
    // egress.
    for out in 0..PORTS {
        let side = loop {
            if let Err(side) = m.admit(0, out, LOSSY, FRAME) {
                break side;
            }
        };
        assert_eq!(side, DropSide::Egress);
    }
    assert!(m.pool_shared(ingress) > m.config().pools[ingress].size);
}

#[test]
fn a_paused_queue_resumes_at_its_xon_point_and_not_before() {
    let mut m = switch(2);
    let mut frames =
        vec![m.config().profiles[profile(m.config(), "ingress_lossless_profile")].size];
    pause(&mut m, 0, 1, FRAME);
    // Ten frames into headroom after the pause.
    const IN_HEADROOM: u64 = 10;
    for _ in 0..IN_HEADROOM {
        m.admit(0, 1, LOSSLESS, FRAME).unwrap();
    }
    frames.extend(std::iter::repeat_n(
        FRAME,
        (m.pg(0, LOSSLESS).shared / FRAME + IN_HEADROOM) as usize,
    ));
    let p = m.config().profiles[profile(m.config(), "ingress_lossless_profile")].clone();
    for b in frames {
        let was = m.pg(0, LOSSLESS);
        let state = m.release(0, 1, LOSSLESS, b);
        let now = m.pg(0, LOSSLESS);
        let xon = p.xon.max(
            m.pg_limit(0, LOSSLESS)
                .unwrap()
                .saturating_sub(p.xon_offset),
        );
        if state.below_xon {
            assert!(
                now.headroom == 0 && now.shared <= xon,
                "resumed early: {now:?}"
            );
            assert!(was.paused);
            assert!(was.headroom > 0 || was.shared > xon);
            return;
        }
    }
    panic!("never resumed");
}

fn parse_err(text: &str) -> String {
    parse(text, "sw1.json").unwrap_err().to_string()
}

const POOL: &str =
    r#""BUFFER_POOL": {"ingress_pool": {"size": "100", "type": "ingress", "mode": "dynamic"}}"#;

#[test]
fn a_profile_naming_a_missing_pool_is_an_error_at_its_key() {
    let e = parse_err(&format!(
        r#"{{{POOL}, "BUFFER_PROFILE": {{"pg_lossless": {{"pool": "[BUFFER_POOL|ingress_lossless_pool]", "size": "0", "dynamic_th": "0"}}}}}}"#
    ));
    assert_eq!(
        e,
        r#"sw1.json: BUFFER_PROFILE.pg_lossless.pool: no pool "ingress_lossless_pool""#
    );
}

#[test]
fn a_pg_naming_an_unknown_profile_is_an_error_at_its_key() {
    let e = parse_err(&format!(
        r#"{{{POOL}, "BUFFER_PROFILE": {{}}, "BUFFER_PG": {{"Ethernet0|3-4": {{"profile": "pg_lossless"}}}}}}"#
    ));
    assert_eq!(
        e,
        r#"sw1.json: BUFFER_PG.Ethernet0|3-4.profile: no profile "pg_lossless""#
    );
}

#[test]
fn a_negative_size_is_an_error_at_its_key() {
    let e = parse_err(
        r#"{"BUFFER_POOL": {"ingress_pool": {"size": "-5", "type": "ingress", "mode": "dynamic"}}, "BUFFER_PROFILE": {}}"#,
    );
    assert_eq!(
        e,
        "sw1.json: BUFFER_POOL.ingress_pool.size: must not be negative: -5"
    );
}

#[test]
fn a_missing_table_a_typographic_minus_and_bad_json_are_named() {
    let e = parse_err(r#"{"BUFFER_PROFILE": {}}"#);
    assert!(e.starts_with("sw1.json: BUFFER_POOL: missing"), "{e}");
    let e = parse_err(&format!(
        r#"{{{POOL}, "BUFFER_PROFILE": {{"p": {{"pool": "ingress_pool", "size": "0", "dynamic_th": "−3"}}}}}}"#
    ));
    assert!(
        e.starts_with("sw1.json: BUFFER_PROFILE.p.dynamic_th: not a whole number"),
        "{e}"
    );
    assert!(e.contains("typographic minus"), "{e}");
    let e = parse_err("{\n\"BUFFER_POOL\": {\n\"x\" \"y\"}}");
    assert!(e.starts_with("sw1.json:3: not valid JSON"), "{e}");
}

#[test]
fn pg_and_queue_tables_map_ports_and_class_ranges() {
    let cfg = parse(
        &format!(
            r#"{{{POOL}, "BUFFER_PROFILE": {{"p": {{"pool": "ingress_pool", "size": "0", "dynamic_th": "0", "xoff": "10"}}}},
            "BUFFER_PG": {{"Ethernet0,Ethernet4|3-4": {{"profile": "[BUFFER_PROFILE|p]"}}}}}}"#
        ),
        "sw1.json",
    )
    .unwrap();
    for port in ["Ethernet0", "Ethernet4"] {
        let p = cfg.port_profiles(port);
        assert_eq!(p.pg[3], Some(0));
        assert_eq!(p.pg[4], Some(0));
        assert_eq!(p.pg[2], None);
    }
    let e = parse_err(&format!(
        r#"{{{POOL}, "BUFFER_PROFILE": {{"p": {{"pool": "ingress_pool", "size": "0", "dynamic_th": "0"}}}},
        "BUFFER_QUEUE": {{"Ethernet0|0": {{"profile": "p"}}}}}}"#
    ));
    assert!(e.contains("BUFFER_QUEUE.Ethernet0|0.profile"), "{e}");
    assert!(e.contains("not an egress pool"), "{e}");
}
