//! Azure R5 end to end (App. A), as `experiments/azure/r5-*.toml` ship
//! it: a switch running SONiC's buffer model with Listing 1, one 100 Gb/s
//! sender into a 25 Gb/s link. A lone congested lossless PG pauses at
//! 2 MB of shared bytes, and a lone lossy egress queue drops at
//! ≈ 4.67 MB (14 MB / 3), each measured at the first pause or drop, within
//! one frame.

use rdmasim_experiment::config::{build_scenario, load_config};
use std::path::Path;

/// A full data frame (1,000 B payload + 48 B of headers): the step the
/// buffer fills by.
const FRAME: u64 = 1_048;

fn run(file: &str) -> net::RunResults {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../experiments/azure")
        .join(file);
    let c = load_config(&path).unwrap();
    let s = build_scenario(&c, path.parent().unwrap()).unwrap();
    assert!(s.net.sonic.is_some(), "{file} runs SONiC's buffer model");
    let mut sim = net::Simulation::new(&s.topo, s.flows, s.net).unwrap();
    sim.run();
    sim.results()
}

#[test]
fn a_lone_lossless_pg_pauses_at_2_mb_in_a_run() {
    let r = run("r5-lossless-pause.toml");
    // Switch 2 is the congested one (host 0's side of the dumbbell).
    let sw = r.sonic.iter().find(|s| s.node == 2).unwrap();
    let pause = sw.first_pause.expect("the PG paused");
    eprintln!("first pause: {pause:?}");
    assert_eq!((pause.port, pause.class), (0, 3), "host 0's PG, class 3");
    assert!(
        pause.shared <= 2_000_000 && pause.shared + FRAME > 2_000_000,
        "paused at {} shared bytes",
        pause.shared
    );
    assert_eq!(r.drops(), 0, "lossless: nothing dropped");
    assert!(sw.first_egress_drop.is_none() && sw.first_ingress_drop.is_none());
    // The pause reached host 0: its NIC was paused.
    let host = r.ports.iter().find(|p| p.node == 0).unwrap();
    assert!(host.fc.pause_rx.iter().sum::<u64>() > 0);
    // Headroom took what was in flight, far below the 96,928 B cap.
    let (_, hdrm) = &sw.peak_headroom[0];
    assert!(*hdrm > 0 && *hdrm <= 96_928, "headroom {hdrm}");
}

#[test]
fn a_lone_lossy_queue_drops_at_about_4_67_mb_in_a_run() {
    let r = run("r5-lossy-drop.toml");
    let sw = r.sonic.iter().find(|s| s.node == 2).unwrap();
    let drop = sw.first_egress_drop.expect("the queue dropped");
    eprintln!("first egress drop: {drop:?}");
    // Port 1 of switch 2 is the 25 Gb/s link.
    assert_eq!((drop.port, drop.class), (1, 1));
    let fixed_point = 14_000_000.0 / 3.0;
    assert!(
        (drop.shared as f64 - fixed_point).abs() < FRAME as f64,
        "dropped at {} shared bytes",
        drop.shared
    );
    assert_eq!(format!("{:.2}", drop.shared as f64 / 1e6), "4.67");
    // Every drop is at that egress, none at ingress, and none paused.
    assert!(sw.first_pause.is_none() && sw.first_ingress_drop.is_none());
    let egress = r.ports.iter().find(|p| p.node == 2 && p.port == 1).unwrap();
    assert!(egress.counters.egress_drops > 0);
    assert_eq!(egress.counters.egress_drops, r.drops());
    assert_eq!(r.pause_frames(), 0);
}
