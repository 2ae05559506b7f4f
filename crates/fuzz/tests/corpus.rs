//! The fuzzer on its corpus: every seed is read (a regression input is
//! refused with one clear error), the inputs that once failed stay
//! fixed, a short deterministic run finds nothing, and the judge fails
//! what it should.

use rdmasim_fuzz::{check, corpus, fuzz, judge, prepare, Budget, Target};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A fresh, prepared work directory for one test.
fn work(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rdmasim-fuzz-test-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    prepare(&dir).unwrap();
    dir
}

#[test]
fn every_seed_is_read_and_every_regression_input_refused_cleanly() {
    let dir = work("seeds");
    for t in Target::ALL {
        let files = corpus(t);
        assert!(files.len() >= 2, "{}: {} seeds", t.name(), files.len());
        for (name, bytes) in files {
            let read = check(t, &bytes, &dir)
                .unwrap_or_else(|v| panic!("{} corpus file {name}: {v}", t.name()));
            let regression = name.starts_with("regress-");
            assert_eq!(read, !regression, "{} corpus file {name}", t.name());
        }
    }
}

/// Sweep keys the fuzzer found that gave an error at a line of the
/// generated config (`base.toml:17`, past the end of base.toml) instead
/// of the sweep's own line: a tab in a quoted key (the config's key
/// locator did not read the escapes and characters of quoted keys), and
/// an `=` in one (it split a key line at the first `=`, quoted or not);
/// and an `=` in the table part of one, which the config's parser names
/// as another key on a line the sweep added past the base file's end.
#[test]
fn sweep_keys_with_odd_characters_are_blamed_at_their_own_line() {
    let dir = work("odd-keys");
    for (file, key) in [
        ("regress-tab-in-set-key.toml", "cc.ki\td"),
        ("regress-equals-in-set-key.toml", "timeseries.i~=/nterval"),
        (
            "regress-equals-in-set-table.toml",
            "timeseri=Z=`Les.interval",
        ),
    ] {
        let (_, bytes) = corpus(Target::Sweep)
            .into_iter()
            .find(|(n, _)| n == file)
            .unwrap();
        let path = dir.join(file);
        std::fs::write(&path, bytes).unwrap();
        let e = experiment::sweep::load_sweep(&path)
            .and_then(|s| experiment::sweep::plan(&s).map(drop))
            .unwrap_err()
            .to_string();
        let at = format!("{}:5: set.\"{key}\": unknown key", path.display());
        assert!(e.starts_with(&at), "{e}");
    }
}

#[test]
fn a_short_run_of_every_target_finds_nothing() {
    let dir = work("short");
    let budget = Budget {
        seed: 7,
        iterations: 150,
        time: Duration::from_secs(30),
    };
    for t in Target::ALL {
        let r = fuzz(t, &budget, &dir);
        assert!(r.failures.is_empty(), "{}", r.failures[0]);
        assert!(r.mutants > 0, "{}: no mutant in time", t.name());
        assert!(r.accepted < r.mutants, "{}: no mutant refused", t.name());
    }
}

#[test]
fn the_judge_fails_panics_and_unclear_errors() {
    let dir = Path::new("/d");
    let path = Path::new("/w/m.toml");
    let input = b"a\nb\nc\n";
    let err = |m: &str| judge(&Ok(Err(m.to_string())), path, input, dir);
    assert_eq!(judge(&Ok(Ok(())), path, input, dir), None);
    assert_eq!(err("/w/m.toml:3: a.b: bad"), None);
    assert_eq!(err("/w/m.toml:4: end of file"), None);
    assert_eq!(err("/w/m.toml: cannot read"), None);
    assert!(err("/w/m.toml:5: a.b: bad").unwrap().contains("not a line"));
    assert!(err("/w/m.toml:0: a.b: bad").unwrap().contains("not a line"));
    assert!(err("m.toml:3: bad")
        .unwrap()
        .contains("names no input file"));
    assert!(err("/w/m.toml:3: bad\nmore")
        .unwrap()
        .contains("more than one line"));
    let panicked: std::thread::Result<Result<(), String>> = Err(Box::new("boom"));
    assert!(judge(&panicked, path, input, dir).unwrap().contains("boom"));
}
