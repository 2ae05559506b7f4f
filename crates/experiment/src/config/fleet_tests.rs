//! `[dcqcn_fleet]`'s burst and recovery keys: defaults, the fix, errors.

use super::build::build_scenario;
use super::fleet::DEFAULT_GEN1_LOSS_RECOVERY;
use super::parse::parse_config;
use engine::Delta;
use net::cc::DcqcnFleet;
use std::path::Path;

fn fleet_of(section: &str) -> Result<DcqcnFleet, String> {
    let text = format!(
        "[topology]\nkind = \"star\"\nhosts = 4\n\n[workload]\nkind = \"incast\"\n\
         senders = [0, 1]\nreceiver = 2\nsize = \"10KB\"\n\n[cc]\nkind = \"dcqcn\"\n\n\
         [dcqcn_fleet]\ngen1 = [0]\ngen2 = [1]\n{section}"
    );
    parse_config(&text, "t.toml")
        .and_then(|c| build_scenario(&c, Path::new("")))
        .map(|s| s.net.dcqcn_fleet.unwrap())
        .map_err(|e| e.to_string())
}

#[test]
fn bursts_and_recovery_default_and_follow_the_fix() {
    let f = fleet_of("").unwrap();
    assert_eq!(f.burst_packets, [1, 1, 1], "per packet unless set");
    assert_eq!(f.gen1_loss_recovery, DEFAULT_GEN1_LOSS_RECOVERY);
    let f = fleet_of("gen1_burst = 16\n").unwrap();
    assert_eq!(f.burst_packets, [16, 1, 1]);
    let f = fleet_of("gen1_burst = 16\ninterop_fix = true\n").unwrap();
    assert_eq!(f.burst_packets, [16, 16, 16], "the fix bursts at Gen2/3");
    let f = fleet_of("gen1_burst = 16\ninterop_fix = true\ngen3_burst = 4\n").unwrap();
    assert_eq!(f.burst_packets, [16, 16, 4]);
    let f = fleet_of("gen1_loss_recovery = \"0us\"\n").unwrap();
    assert_eq!(f.gen1_loss_recovery, Delta::ZERO);
}

#[test]
fn congestion_leaking_is_off_unless_a_generation_is_listed() {
    let f = fleet_of("").unwrap();
    assert_eq!(f.congestion_leaking, [false; 3]);
    assert!(!f.leaks_congestion(1));
    let f = fleet_of("congestion_leaking = [\"gen2\", \"gen3\"]\n").unwrap();
    assert_eq!(f.congestion_leaking, [false, true, true]);
    assert!(f.leaks_congestion(1), "host 1 is Gen2");
    assert!(!f.leaks_congestion(0), "host 0 is Gen1");
    let e = fleet_of("congestion_leaking = [\"gen4\"]\n").unwrap_err();
    assert!(
        e.starts_with("t.toml:17: dcqcn_fleet.congestion_leaking: "),
        "{e}"
    );
    assert!(e.contains("gen4"), "{e}");
}

#[test]
fn bad_bursts_and_recovery_name_their_key() {
    let e = fleet_of("gen2_burst = 0\n").unwrap_err();
    assert!(e.starts_with("t.toml:17: dcqcn_fleet.gen2_burst: "), "{e}");
    let e = fleet_of("gen1_burst = -3\n").unwrap_err();
    assert!(e.contains("dcqcn_fleet.gen1_burst"), "{e}");
    let e = fleet_of("gen1_loss_recovery = \"soon\"\n").unwrap_err();
    assert!(e.contains("dcqcn_fleet.gen1_loss_recovery"), "{e}");
}
