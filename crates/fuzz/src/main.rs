//! `rdmasim-fuzz`: fuzz rdmasim's input parsers for a bounded time
//! (`docs/fuzzing.md`).
//!
//! ```sh
//! cargo run --release -p rdmasim-fuzz -- [--seconds S] [--iterations N] [--seed N] [--target NAME]... [--save DIR]
//! ```
//!
//! `--seconds` is the time for all targets together (default 60), shared
//! equally; `--iterations` caps the mutants per target. Exit code 0 when
//! every mutant passed, 1 with each failure printed (and, with `--save`,
//! written to DIR as `<target>-<n>` for a regression test), 2 on bad
//! arguments.

use rdmasim_fuzz::{fuzz, prepare, quiet_panics, Budget, Target};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

const USAGE: &str = "usage: rdmasim-fuzz [--seconds S] [--iterations N] [--seed N] \
                     [--target config|sweep|peer_config|topology|flows|cdf]... [--save DIR]";

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("rdmasim-fuzz: {msg}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<ExitCode, String> {
    let mut seconds = 60.0f64;
    let mut iterations = u64::MAX;
    let mut seed = 1u64;
    let mut targets = Vec::new();
    let mut save: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--seconds" => {
                let v = value()?;
                seconds = v
                    .parse()
                    .ok()
                    .filter(|s: &f64| s.is_finite() && *s >= 0.0 && *s < 1e9)
                    .ok_or(format!("--seconds {v}: expected a number of seconds"))?;
            }
            "--iterations" => {
                let v = value()?;
                iterations = v
                    .parse()
                    .map_err(|_| format!("--iterations {v}: expected a whole number"))?;
            }
            "--seed" => {
                let v = value()?;
                seed = v
                    .parse()
                    .map_err(|_| format!("--seed {v}: expected a whole number"))?;
            }
            "--target" => {
                let v = value()?;
                targets.push(Target::from_name(&v).ok_or(format!("--target {v}: no such target"))?);
            }
            "--save" => save = Some(PathBuf::from(value()?)),
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(ExitCode::SUCCESS);
            }
            _ => return Err(format!("unknown argument {a}")),
        }
    }
    if targets.is_empty() {
        targets = Target::ALL.to_vec();
    }
    let work = std::env::temp_dir().join(format!("rdmasim-fuzz-{}", std::process::id()));
    prepare(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    quiet_panics();
    let budget = Budget {
        seed,
        iterations,
        time: Duration::from_secs_f64(seconds / targets.len() as f64),
    };
    let t0 = Instant::now();
    let mut failed = 0;
    for t in targets {
        let r = fuzz(t, &budget, &work);
        println!(
            "{:<12} {:>8} mutants, {:>7} read, {:>7} refused with an error, {} failed",
            t.name(),
            r.mutants,
            r.accepted,
            r.mutants - r.accepted,
            r.failures.len()
        );
        for (i, f) in r.failures.iter().enumerate() {
            failed += 1;
            println!("{f}");
            if let Some(dir) = &save {
                std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
                let p = dir.join(format!("{}-{i}", t.name()));
                std::fs::write(&p, &f.input).map_err(|e| format!("{}: {e}", p.display()))?;
                println!("saved as {}", p.display());
            }
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    println!(
        "seed {seed}, {:.1} s: {}",
        t0.elapsed().as_secs_f64(),
        if failed == 0 {
            "every mutant was read or refused with one clear error".to_string()
        } else {
            format!("{failed} failure(s)")
        }
    );
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
