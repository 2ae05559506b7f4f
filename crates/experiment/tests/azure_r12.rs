//! Azure R12 (§2.4), as `experiments/azure/r12-go-back-n-loss.toml` ships
//! it: one Gen1 flow over a port that loses 1 frame in 1024. Each loss
//! costs the FCT Gen1's recovery time (hundreds of µs) on top of what a
//! go-back-N that resends at once pays (an RTT and the frames in flight,
//! a few µs); the same flow on a lossless path pays nothing.

mod shipped;

/// The shipped file with `loss` and `recovery` substituted: (FCT in ns,
/// frames lost).
fn run(loss: &str, recovery: &str) -> (u64, u64) {
    let r = shipped::run(
        "azure",
        "r12-go-back-n-loss.toml",
        &[
            ("loss = 0.0009765625", format!("loss = {loss}")),
            (
                "gen1_loss_recovery = \"200us\"",
                format!("gen1_loss_recovery = \"{recovery}\""),
            ),
        ],
    );
    assert_eq!(r.unfinished(), 0);
    let f = &r.flows[0];
    (f.end.unwrap().since(f.start).ns(), r.corrupted())
}

#[test]
fn each_loss_costs_gen1_its_recovery_time() {
    let (clean, none) = run("0.0", "200us");
    assert_eq!(none, 0);
    let (fast, lost) = run("0.0009765625", "0us");
    let (gen1, lost_gen1) = run("0.0009765625", "200us");
    assert!(lost >= 5, "{lost} frames lost");
    assert_eq!(lost, lost_gen1, "the same frames are lost");
    let per_loss = |fct: u64| (fct - clean) as f64 / lost as f64 / 1000.0;
    let (fast_us, gen1_us) = (per_loss(fast), per_loss(gen1));
    eprintln!(
        "{lost} losses: lossless {clean} ns; per loss {fast_us:.1} us resending at once, \
         {gen1_us:.1} us with Gen1's 200 us"
    );
    assert!(
        fast_us < 20.0,
        "an immediate go-back-N: {fast_us} us a loss"
    );
    assert!(
        (gen1_us - fast_us - 200.0).abs() < 10.0,
        "Gen1: {gen1_us} us a loss, its recovery time above {fast_us}"
    );
}
