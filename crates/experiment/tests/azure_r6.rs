//! Azure R6 (§7.1), as `experiments/azure/r6-headroom-cable.toml` ships
//! it: a lone lossless PG over an 80 km cable. Listing 1's 96,928 B
//! per-PG headroom cap is a short cable's: the PG's frames are dropped.
//! With the cap and the headroom pool at the 80 km need
//! (`listing1-80km.json`) nothing is lost, and the headroom used stays
//! below that need.

mod shipped;

/// (frames dropped, peak headroom in bytes at switch 2) with every link
/// `delay` long and the switches running `sonic`.
fn run(delay: &str, sonic: &str) -> (u64, u64) {
    let r = shipped::run(
        "azure",
        "r6-headroom-cable.toml",
        &[
            ("delay = \"1us\"", format!("delay = \"{delay}\"")),
            ("sonic = \"listing1.json\"", format!("sonic = \"{sonic}\"")),
        ],
    );
    let sw = r.sonic.iter().find(|s| s.node == 2).unwrap();
    assert!(sw.first_pause.is_some(), "the PG paused");
    assert_eq!(
        sw.first_ingress_drop.is_some(),
        r.drops() > 0,
        "every drop is at switch 2's ingress"
    );
    (r.drops(), sw.peak_headroom[0].1)
}

#[test]
fn listing1s_headroom_cap_loses_frames_at_80_km_and_the_80_km_cap_does_not() {
    let (short_drops, short_hdrm) = run("1us", "listing1.json");
    assert_eq!(short_drops, 0, "200 m: Listing 1 covers it");
    assert!(short_hdrm < 96_928, "{short_hdrm}");
    let (drops, hdrm) = run("400us", "listing1.json");
    assert!(drops > 0, "80 km: Listing 1's cap overflows");
    assert!(hdrm <= 96_928, "the cap holds: {hdrm}");
    let (drops, hdrm) = run("400us", "listing1-80km.json");
    eprintln!("80 km with the 80 km cap: peak headroom {hdrm} B, {drops} drops");
    assert_eq!(drops, 0, "80 km: the cap at the need loses nothing");
    // 2·R·D + 2·MTU + 64 B = 10,003,064 B assumes the egress drains
    // nothing; here it drains at 25 of the 100 Gb/s.
    assert!(
        (7_000_000..=10_003_064).contains(&hdrm),
        "headroom used {hdrm} B"
    );
}
