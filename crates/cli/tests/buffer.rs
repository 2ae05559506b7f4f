//! `rdmasim buffer` end to end: the figures it prints against hand
//! arithmetic, and what bad input prints.

use std::process::{Command, Output};

fn rdmasim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rdmasim"))
        .arg("buffer")
        .args(args)
        .output()
        .expect("the rdmasim binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The output of a run that must succeed.
fn ok(args: &[&str]) -> String {
    let out = rdmasim(args);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert!(out.stderr.is_empty(), "stderr: {}", text(&out.stderr));
    text(&out.stdout)
}

/// The line of `out` that starts (after indentation) with `what`.
fn line<'a>(out: &'a str, what: &str) -> &'a str {
    out.lines()
        .find(|l| l.trim_start().starts_with(what))
        .unwrap_or_else(|| panic!("no line starting with {what:?} in\n{out}"))
}

/// The figure printed on the line that starts with `what`, e.g.
/// "10,003,064 B (10.003 MB, 9.540 MiB)".
fn figure<'a>(out: &'a str, what: &str) -> &'a str {
    line(out, what)[2 + what.len()..].trim()
}

#[test]
fn one_hundred_gbps_over_80_km() {
    let out = ok(&["--rate", "100Gbps", "--distance", "80km"]);
    // R = 100 Gb/s = 12.5e9 B/s; D = 80 km × 5 us/km = 400 us;
    // BDP Δ = 2·R·D = 12.5e9 B/s × 800e-6 s = 10,000,000 B
    //   = 10.000 MB = 10,000,000 / 1,048,576 = 9.537 MiB.
    assert!(out.starts_with(
        "long link: 100Gbps (R = 12.5 GB/s), 80 km of fibre, D = 400us one way (5 us/km), \
         MTU 1500 B\nBDP Δ = 2·R·D = 10,000,000 B (10.000 MB, 9.537 MiB)\n"
    ));
    // PFC headroom = XON = 2·R·D + 2·MTU + 64 = 10,000,000 + 3,000 + 64
    //   = 10,003,064 B; / 1,048,576 = 9.5396 MiB.
    assert_eq!(
        figure(&out, "lossless headroom (above XOFF)"),
        "10,003,064 B (10.003 MB, 9.540 MiB)"
    );
    assert_eq!(
        figure(&out, "XON, for no throughput-loss"),
        "10,003,064 B (10.003 MB, 9.540 MiB)"
    );
    assert!(out.contains("= 2·R·D + 2·MTU + 64 B = 10,000,000 + 2 × 1,500 + 64\n"));
    // Total (XOFF = XON) = 2 × 10,003,064 = 20,006,128 B = 19.079 MiB.
    assert_eq!(
        figure(&out, "total, XOFF = XON"),
        "20,006,128 B (20.006 MB, 19.079 MiB)"
    );
    // The peer's default headroom 3·R·D = 3 × 5,000,000 = 15,000,000 B.
    assert_eq!(
        figure(&out, "rdmasim's default headroom, 3·R·D"),
        "15,000,000 B (15.000 MB, 14.305 MiB)"
    );
    // Swing relay = 1 BDP + 2·MTU + 64 = 10,003,064 B.
    assert_eq!(
        figure(&out, "relay R-port buffer"),
        "10,003,064 B (10.003 MB, 9.540 MiB)"
    );
    // Bifrost H = Δ + 2·R·T + k·MTU, T = 10 us, k = 1:
    //   R·T = 12.5e9 × 10e-6 = 125,000; 10,000,000 + 250,000 + 1,500
    //   = 10,251,500 B = 9.777 MiB.
    assert_eq!(
        figure(&out, "reserved buffer H"),
        "10,251,500 B (10.252 MB, 9.777 MiB)"
    );
    assert!(out.contains(
        "= Δ + 2·R·T + k·MTU = 10,000,000 + 2 × 125,000 + 1 × 1,500   (T = 10us, k = 1)\n"
    ));
    // CBFC: 10,000,000 / 64 = 156,250 blocks = 10,000,000 B; the 12-bit
    // field grants 4096 × 64 = 262,144 B = 0.250 MiB; reach at 100 Gb/s =
    // 262,144 / (2 × 12.5e9) s = 10.48576 us one way = 2.097 km; at 80 km the
    // field allows 262,144 × 8 bit / 800 us = 2.621 Gb/s; 156,250 blocks
    // need 18 bits (2^17 = 131,072 < 156,250 ≤ 2^18).
    assert_eq!(
        figure(&out, "credits for full rate (CBFC-ideal)"),
        "10,000,000 B (10.000 MB, 9.537 MiB)"
    );
    assert_eq!(
        figure(&out, "12-bit FCCL field limit"),
        "262,144 B (0.262 MB, 0.250 MiB)"
    );
    assert!(
        line(&out, "12-bit FCCL:").starts_with(
            "  12-bit FCCL: full rate up to 2.097 km at 100Gbps (D ≤ 2^12 × 64 B / (2·R)); \
             this link needs 156,250 blocks (18 bits of FCCL); with 12 bits it runs at most at \
             2.621 Gbps"
        ),
        "{out}"
    );
    // Every figure names its source.
    assert_eq!(out.matches("      source: ").count(), 8, "{out}");
    // Swing's relay bound and Bifrost's Theorem 1 are cited by the papers'
    // own sections, with their words.
    assert!(
        out.contains("Swing §5.2, Fig. 11 \"the maximum queue length is exactly one BDP"),
        "{out}"
    );
    assert!(
        out.contains("Bifrost §IV-C1 Theorem 1: \"H should be larger than Δ + 2R_sT\""),
        "{out}"
    );
    // No source names a note outside the repository.
    assert!(!out.contains("seed-"), "{out}");
}

#[test]
fn four_hundred_gbps_over_600_km() {
    let out = ok(&["--rate", "400Gbps", "--distance", "600km", "--mtu", "1500"]);
    // R = 50e9 B/s; D = 600 × 5 us = 3 ms; Δ = 50e9 × 6e-3 = 300,000,000 B
    //   = 286.102 MiB (the paper's "286 MB").
    assert!(out.contains("D = 3ms one way"), "{out}");
    assert!(out.contains("BDP Δ = 2·R·D = 300,000,000 B (300.000 MB, 286.102 MiB)\n"));
    // PFC headroom = 300,000,000 + 3,064 = 300,003,064 B = 286.105 MiB;
    // total = 600,006,128 B = 572.210 MiB.
    assert_eq!(
        figure(&out, "lossless headroom (above XOFF)"),
        "300,003,064 B (300.003 MB, 286.105 MiB)"
    );
    assert_eq!(
        figure(&out, "total, XOFF = XON"),
        "600,006,128 B (600.006 MB, 572.210 MiB)"
    );
    assert_eq!(
        figure(&out, "relay R-port buffer"),
        "300,003,064 B (300.003 MB, 286.105 MiB)"
    );
    // Bifrost: R·T = 50e9 × 10e-6 = 500,000; H = 300,000,000 + 1,000,000
    //   + 1,500 = 301,001,500 B = 287.057 MiB (the paper's H = 287 MiB).
    assert_eq!(
        figure(&out, "reserved buffer H"),
        "301,001,500 B (301.002 MB, 287.057 MiB)"
    );
    // CBFC: 300,000,000 / 64 = 4,687,500 blocks, 23 bits (2^22 = 4,194,304
    // < 4,687,500); reach 262,144 / (2 × 50e9) s = 2.62144 us = 0.524 km;
    // at 600 km: 262,144 × 8 / 6 ms = 0.350 Gb/s.
    assert!(line(&out, "12-bit FCCL:").starts_with(
        "  12-bit FCCL: full rate up to 0.524 km at 400Gbps (D ≤ 2^12 × 64 B / (2·R)); \
         this link needs 4,687,500 blocks (23 bits of FCCL); with 12 bits it runs at most at \
         0.350 Gbps"
    ));
}

#[test]
fn one_scheme_and_its_options() {
    let out = ok(&[
        "--rate",
        "100Gbps",
        "--distance",
        "80km",
        "--scheme",
        "bifrost",
        "--slot",
        "20us",
        "--k",
        "3",
    ]);
    assert!(!out.contains("PFC (") && !out.contains("CBFC ("), "{out}");
    // 10,000,000 + 2 × 250,000 + 3 × 1,500 = 10,504,500.
    assert!(figure(&out, "reserved buffer H").starts_with("10,504,500 B "));
    // T ≥ D is flagged.
    let out = ok(&[
        "--rate",
        "100Gbps",
        "--distance",
        "1km",
        "--scheme",
        "bifrost",
    ]);
    assert!(
        out.contains("warning: T = 10us is not below D = 5us"),
        "{out}"
    );
}

/// `--mtu` takes a size as a config writes it (`1500B`, `9KB`) as well as
/// a bare number of bytes.
#[test]
fn mtu_with_a_unit() {
    let bare = ok(&["--rate", "100Gbps", "--distance", "80km", "--mtu", "1500"]);
    let unit = ok(&["--rate", "100Gbps", "--distance", "80km", "--mtu", "1500B"]);
    assert_eq!(bare, unit);
    let jumbo = ok(&["--rate", "100Gbps", "--distance", "80km", "--mtu", "9KB"]);
    assert!(jumbo.contains(", MTU 9000 B\n"), "{jumbo}");
}

#[test]
fn bad_input_is_one_error_and_exit_2() {
    for (args, want) in [
        (
            &["--rate", "400Gbs", "--distance", "80km"][..],
            "rdmasim: <command line>: --rate: unknown rate unit in '400Gbs'",
        ),
        (
            &["--rate", "0Gbps", "--distance", "80km"][..],
            "rdmasim: <command line>: --rate: rate '0Gbps' must be greater than zero",
        ),
        (
            &["--rate", "400Gbps", "--distance", "80"][..],
            "rdmasim: <command line>: --distance: '80' is not a length",
        ),
        (
            &["--rate", "400Gbps", "--distance", "-3km"][..],
            "rdmasim: <command line>: --distance: the distance must be greater than zero",
        ),
        (
            &["--rate", "400Gbps", "--distance", "80km", "--scheme", "irn"][..],
            "rdmasim: <command line>: --scheme: 'irn' is not one of",
        ),
        (
            &["--rate", "400Gbps", "--distance", "80km", "--slot", "0us"][..],
            "rdmasim: <command line>: --slot: ",
        ),
        (
            &["--rate", "400Gbps", "--distance", "80km", "--mtu", "-1"][..],
            "rdmasim: <command line>: --mtu: size '-1' must not be negative",
        ),
        (
            &["--rate", "400Gbps", "--distance", "80km", "--mtu", "1500b"][..],
            "rdmasim: <command line>: --mtu: unknown size unit in '1500b'",
        ),
    ] {
        let out = rdmasim(args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with(want), "{args:?}: {err}");
    }
    // A missing argument is clap's usage error, also exit 2.
    let out = rdmasim(&["--rate", "400Gbps"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--distance"));
}

/// Azure's Listing 1, as shipped.
fn listing1() -> String {
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../experiments/azure/listing1.json"
    )
    .to_string()
}

#[test]
fn a_sonic_configuration_is_described() {
    let out = ok(&["--sonic", &listing1()]);
    // α·size/(1 + α): 18 MB/8 / (9/8) = 2 MB; 14 MB/2 / (3/2) = 4.67 MB.
    assert!(
        out.contains("    a lone PG pauses at 2,000,000 B (2.000 MB, 1.907 MiB)"),
        "{out}"
    );
    assert!(
        out.contains("    a lone queue drops at 4,666,667 B (4.667 MB, 4.450 MiB)"),
        "{out}"
    );
    // 6,000,000 / 96,928 = 61.90.
    assert!(
        out.contains("    the headroom pool holds 61.9 PGs at their cap\n"),
        "{out}"
    );
}

#[test]
fn a_malformed_sonic_configuration_is_one_error_naming_file_and_key_and_exit_2() {
    let dir = std::env::temp_dir().join(format!("rdmasim-sonic-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pool =
        r#""BUFFER_POOL": {"ingress_pool": {"size": "100", "type": "ingress", "mode": "dynamic"}}"#;
    for (name, body, want) in [
        (
            "missing-pool.json",
            format!(
                r#"{{{pool}, "BUFFER_PROFILE": {{"pg_lossless": {{"pool": "[BUFFER_POOL|ingress_lossless_pool]", "size": "0", "dynamic_th": "-3"}}}}}}"#
            ),
            r#"BUFFER_PROFILE.pg_lossless.pool: no pool "ingress_lossless_pool""#,
        ),
        (
            "unknown-profile.json",
            format!(
                r#"{{{pool}, "BUFFER_PROFILE": {{}}, "BUFFER_QUEUE": {{"Ethernet0|0": {{"profile": "[BUFFER_PROFILE|q_lossy]"}}}}}}"#
            ),
            r#"BUFFER_QUEUE.Ethernet0|0.profile: no profile "q_lossy""#,
        ),
        (
            "negative.json",
            format!(
                r#"{{{pool}, "BUFFER_PROFILE": {{"p": {{"pool": "ingress_pool", "size": "-1248", "dynamic_th": "-3"}}}}}}"#
            ),
            "BUFFER_PROFILE.p.size: must not be negative: -1248",
        ),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, body).unwrap();
        let out = rdmasim(&["--sonic", path.to_str().unwrap()]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert!(out.stdout.is_empty(), "{name}");
        assert_eq!(
            err,
            format!("rdmasim: {}: {want}\n", path.display()),
            "{name}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Listing 1 passes every check, with the buffer, a short cable, N-way
/// incast and App. B's Kmin of 1 MB; exit code 0.
#[test]
fn listing1_passes_the_checks() {
    let out = ok(&[
        "--sonic",
        &listing1(),
        "--buffer",
        "24MB",
        "--rate",
        "40Gbps",
        "--distance",
        "300m",
        "--congested",
        "2,10",
        "--kmin",
        "1MB",
    ]);
    assert!(out.ends_with("verdict: safe\n"), "{out}");
    assert!(!out.contains("FAIL"), "{out}");
}

/// Listing 1 made unsafe: each way fails with exit code 1, a verdict, and
/// the config_db field to change.
#[test]
fn unsafe_listing1_variants_fail_naming_the_field() {
    let dir = std::env::temp_dir().join(format!("rdmasim-sonic-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let listing = std::fs::read_to_string(listing1()).unwrap();
    let lossy_above = dir.join("lossy-above.json");
    std::fs::write(
        &lossy_above,
        listing.replace("\"14000000\"", "\"19000000\""),
    )
    .unwrap();
    let lossy_above = lossy_above.to_str().unwrap().to_string();
    let l1 = listing1();
    for (args, field) in [
        (
            vec!["--sonic", lossy_above.as_str()],
            "change BUFFER_POOL.egress_lossy_pool.size",
        ),
        (
            vec![
                "--sonic",
                l1.as_str(),
                "--rate",
                "40Gbps",
                "--distance",
                "80km",
            ],
            "change BUFFER_PROFILE.ingress_lossless_profile.xoff",
        ),
        (
            vec!["--sonic", l1.as_str(), "--kmin", "3MB"],
            "change BUFFER_PROFILE.ingress_lossless_profile.dynamic_th (or lower Kmin)",
        ),
    ] {
        let out = rdmasim(&args);
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stdout}");
        assert!(stdout.contains(field), "{args:?}: {stdout}");
        assert!(
            stdout.ends_with("verdict: UNSAFE (1 failed check)\n"),
            "{stdout}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The headroom-pool planner: its figures, and exit code 1 when the pool
/// does not fit the buffer; 2 without a ratio.
#[test]
fn the_headroom_pool_planner() {
    let out = ok(&[
        "--plan",
        "32x100Gbps@3m,8x100Gbps@80km",
        "--oversubscription",
        "4",
    ]);
    // 80 km at 100 Gb/s: 2 × 12.5 GB/s × 400 µs = 10,000,000 + 3,064.
    assert!(out.contains("10,003,064 B (10.003 MB"), "{out}");
    assert!(out.contains("long-haul (T2–RH class"), "{out}");
    assert!(out.ends_with("verdict: safe\n"), "{out}");
    let out = rdmasim(&[
        "--plan",
        "32x100Gbps@3m,8x100Gbps@80km",
        "--oversubscription",
        "4",
        "--buffer",
        "32MB",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("FAIL  the pool (40,067,280) exceeds the buffer"));
    let out = rdmasim(&["--plan", "8x100Gbps@80km"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--oversubscription: missing"),
        "{}",
        text(&out.stderr)
    );
}
