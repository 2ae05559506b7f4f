//! The go-back-N half of Bifröst Fig. 7 (T1), as
//! `experiments/pfc-free/loss-gbn.toml` ships it: one RC connection with
//! go-back-N in the NIC over the 25 Gb/s path that loses 1 frame in 1024
//! at the ToR port facing the server. A go-back-N that resends as soon as
//! the NACK arrives pays a round trip and the frames in flight per loss
//! and keeps nearly all its goodput; one that takes hundreds of
//! microseconds per loss (Azure §2.4's firmware go-back-N) loses about
//! half. docs/reproduce-pfc-free.md, T1, sets these beside the paper's
//! "nearly zero".

mod shipped;

/// The shipped file with `loss` and the NIC's recovery time per NACK
/// substituted: goodput in Gb/s of its 32 MiB flow, and frames lost.
fn goodput(loss: &str, recovery: &str) -> (f64, u64) {
    let r = shipped::run(
        "pfc-free",
        "loss-gbn.toml",
        &[
            ("loss = 0.0009765625", format!("loss = {loss}")),
            (
                "gen1_loss_recovery = \"0us\"",
                format!("gen1_loss_recovery = \"{recovery}\""),
            ),
        ],
    );
    assert_eq!(r.unfinished(), 0);
    let f = &r.flows[0];
    let secs = f.end.unwrap().since(f.start).secs_f64();
    (f.size as f64 * 8.0 / secs / 1e9, r.corrupted())
}

#[test]
fn go_back_n_loses_goodput_by_its_recovery_time_per_loss() {
    let (clean, none) = goodput("0.0", "0us");
    assert_eq!(none, 0);
    assert!(clean > 23.0, "{clean:.2} Gb/s without loss");
    let (at_once, lost) = goodput("0.0009765625", "0us");
    assert!(lost >= 10, "{lost} frames lost");
    let (fw200, _) = goodput("0.0009765625", "200us");
    let (fw500, _) = goodput("0.0009765625", "500us");
    let share = |g: f64| g / clean;
    eprintln!(
        "1/1024: resend at once {:.3}, 200 us {:.3}, 500 us {:.3} of {clean:.2} Gb/s",
        share(at_once),
        share(fw200),
        share(fw500)
    );
    // A NACK on a 2 µs path: nearly free.
    assert!(share(at_once) >= 0.95);
    // Hundreds of µs per loss, a loss every ~1 MB (335 µs at 25 Gb/s).
    assert!(share(fw200) < 0.8 && share(fw500) < 0.6);
    assert!(fw500 < fw200 && fw200 < at_once);
    // Fewer losses, less lost.
    let (rare, _) = goodput("0.000244140625", "500us");
    assert!(rare > fw500 && share(rare) < 0.95);
}
