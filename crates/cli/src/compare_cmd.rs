//! `rdmasim compare`: run a peer config through the HPCC ns-3 simulator
//! (the peer, a binary the user gives) and through `rdmasim hpcc`, and
//! write the two side by side (`experiment::compare`).
//!
//! Each simulator runs as a child process in a directory of its own under
//! `--out` (`peer/`, `rdmasim/`), holding a copy of the config and of the
//! files it reads at the same relative paths, so that the two write their
//! outputs apart. CPU time and peak memory are each child's own, from
//! `wait4` (Linux; elsewhere they are left out). Without `--peer` the
//! command says it skipped and exits 0: nothing needs the peer.

use crate::Failure;
use clap::Args;
use engine::InputError;
use experiment::compare::{self, Comparison, Side};
use experiment::ExperimentError;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// `rdmasim compare`.
#[derive(Debug, Args)]
pub(crate) struct CompareArgs {
    /// The peer's config file; the paths in it are relative to the current
    /// directory, as for `rdmasim hpcc`.
    #[arg(required_unless_present = "fct")]
    config: Option<PathBuf>,
    /// Compare two FCT files already written instead (e.g. two runs of one
    /// simulator): the slowdown and flow-by-flow tables, the first file as
    /// the reference.
    #[arg(long, num_args = 2, value_names = ["REF", "OTHER"], conflicts_with_all = ["config", "peer"])]
    fct: Vec<PathBuf>,
    /// The peer's binary (ns-3's `third`); without it, the comparison is skipped.
    #[arg(long, value_name = "BIN")]
    peer: Option<PathBuf>,
    /// Directory for both runs and the report [default: compare-<config name>].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

fn bad(what: &str, msg: impl Into<String>) -> ExperimentError {
    ExperimentError::Input(InputError::at("<command line>", None, what, msg))
}

pub(crate) fn compare(a: CompareArgs) -> Result<u8, Failure> {
    if let [r, o] = a.fct.as_slice() {
        return compare_fct(r, o, a.out.as_deref());
    }
    let config = a.config.expect("clap requires a config without --fct");
    let Some(peer_bin) = a.peer else {
        println!(
            "rdmasim compare: no peer binary given (--peer PATH to the HPCC simulator's `third`): skipped"
        );
        return Ok(0);
    };
    if !peer_bin.is_file() {
        return Err(bad(
            "--peer",
            format!("{} is not a file (the peer's binary)", peer_bin.display()),
        )
        .into());
    }
    let peer_bin = fs::canonicalize(&peer_bin).map_err(|e| ExperimentError::io(&peer_bin, e))?;
    // The config must be one rdmasim reads: its errors come now, not after
    // the peer's run.
    let loaded = experiment::load_peer_config(&config)?;
    let flows = loaded.scenario.flows.len() as u64;
    let name = config
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "config".into());
    let out = a
        .out
        .unwrap_or_else(|| PathBuf::from(format!("compare-{name}")));
    let text = fs::read_to_string(&config).map_err(|e| ExperimentError::io(&config, e))?;
    let keys = compare::file_keys(&text);
    let cfg_name = config.file_name().map(PathBuf::from).unwrap_or_default();
    let file = config.display().to_string();
    for (key, value, line) in &keys {
        if Path::new(value).is_absolute() && compare::OUTPUT_KEYS.contains(key) {
            return Err(ExperimentError::Input(InputError::at(
                file.as_str(),
                Some(*line),
                *key,
                format!(
                    "'{value}' is an absolute path: the two simulators would write the same \
                     file; give a path relative to the config's run directory"
                ),
            ))
            .into());
        }
    }
    let mut sides = Vec::new();
    for side in ["peer", "rdmasim"] {
        let dir = out.join(side);
        let _ = fs::remove_dir_all(&dir);
        mkdir(&dir)?;
        copy(&config, &dir.join(&cfg_name))?;
        for (key, value, _) in &keys {
            let p = Path::new(value);
            if p.is_absolute() {
                continue;
            }
            let to = dir.join(p);
            if let Some(parent) = to.parent() {
                mkdir(parent)?;
            }
            if compare::INPUT_KEYS.contains(key) {
                copy(p, &to)?;
            }
        }
        sides.push(dir);
    }
    let me = std::env::current_exe().map_err(|e| ExperimentError::io("rdmasim", e))?;
    eprintln!(
        "rdmasim compare: running the peer in {}",
        sides[0].display()
    );
    let peer_run = run_measured(Command::new(&peer_bin).arg(&cfg_name), &sides[0])?;
    eprintln!("rdmasim compare: running rdmasim in {}", sides[1].display());
    let ours_run = run_measured(
        Command::new(&me)
            .args(["hpcc", "-q", "--summary", "summary.json"])
            .arg(&cfg_name),
        &sides[1],
    )?;
    let value = |key: &str| {
        keys.iter()
            .find(|k| k.0 == key)
            .map(|k| PathBuf::from(&k.1))
    };
    let read_side = |dir: &Path, run: &Measured, drops: Option<u64>| -> Result<Side, Failure> {
        let at = |p: PathBuf| if p.is_absolute() { p } else { dir.join(p) };
        let finished = match value("FCT_OUTPUT_FILE") {
            Some(p) => compare::read_fct(&at(p))?,
            None => Vec::new(),
        };
        let (pauses, resumes) = match value("PFC_OUTPUT_FILE") {
            Some(p) => compare::count_pfc(&at(p))?,
            None => (0, 0),
        };
        Ok(Side {
            finished,
            flows: Some(flows),
            pauses: Some(pauses),
            resumes: Some(resumes),
            drops,
            cpu_s: run.cpu_s,
            peak_rss_mb: run.peak_rss_mb,
            exit_code: run.exit_code,
        })
    };
    let peer_stdout = fs::read_to_string(sides[0].join("stdout.txt")).unwrap_or_default();
    let peer = read_side(
        &sides[0],
        &peer_run,
        Some(compare::count_peer_drops(&peer_stdout)),
    )?;
    let ours_drops = fs::read_to_string(sides[1].join("summary.json"))
        .ok()
        .and_then(|t| compare::drops_of_summary(&t));
    let ours = read_side(&sides[1], &ours_run, ours_drops)?;
    let cmp = Comparison::new(&config.display().to_string(), peer, ours);
    let md = cmp.markdown();
    write(&out.join("compare.md"), md.as_bytes())?;
    write(&out.join("compare.csv"), cmp.csv().as_bytes())?;
    let mut o = std::io::stdout().lock();
    o.write_all(md.as_bytes())?;
    writeln!(
        o,
        "\noutput: {} (compare.md, compare.csv; each run's files in peer/ and rdmasim/)",
        out.display()
    )?;
    Ok(0)
}

/// `rdmasim compare --fct REF OTHER`.
fn compare_fct(r: &Path, o: &Path, out: Option<&Path>) -> Result<u8, Failure> {
    let side = |p: &Path| -> Result<Side, ExperimentError> {
        Ok(Side {
            finished: compare::read_fct(p)?,
            ..Side::default()
        })
    };
    let (rn, on) = (r.display().to_string(), o.display().to_string());
    let cmp = Comparison::named("FCT files", [&rn, &on], side(r)?, side(o)?);
    let md = cmp.markdown();
    if let Some(out) = out {
        mkdir(out)?;
        write(&out.join("compare.md"), md.as_bytes())?;
        write(&out.join("compare.csv"), cmp.csv().as_bytes())?;
    }
    std::io::stdout().lock().write_all(md.as_bytes())?;
    Ok(0)
}

fn mkdir(d: &Path) -> Result<(), ExperimentError> {
    fs::create_dir_all(d).map_err(|e| ExperimentError::io(d, e))
}

fn copy(from: &Path, to: &Path) -> Result<(), ExperimentError> {
    fs::copy(from, to)
        .map(|_| ())
        .map_err(|e| ExperimentError::io(from, e))
}

fn write(p: &Path, bytes: &[u8]) -> Result<(), ExperimentError> {
    fs::write(p, bytes).map_err(|e| ExperimentError::io(p, e))
}

/// What a child process cost, and how it ended.
struct Measured {
    exit_code: Option<i32>,
    cpu_s: Option<f64>,
    peak_rss_mb: Option<f64>,
}

/// Run `cmd` in `dir`, its stdout and stderr into `stdout.txt` and
/// `stderr.txt` there; its exit code, CPU time and peak memory.
fn run_measured(cmd: &mut Command, dir: &Path) -> Result<Measured, ExperimentError> {
    let f = |n: &str| {
        let p = dir.join(n);
        fs::File::create(&p).map_err(|e| ExperimentError::io(&p, e))
    };
    let program = cmd.get_program().to_owned();
    let child = cmd
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(f("stdout.txt")?)
        .stderr(f("stderr.txt")?)
        .spawn()
        .map_err(|e| ExperimentError::io(PathBuf::from(&program), e))?;
    wait_measured(child).map_err(|e| ExperimentError::io(PathBuf::from(&program), e))
}

#[cfg(target_os = "linux")]
fn wait_measured(child: std::process::Child) -> std::io::Result<Measured> {
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero `rusage` is a valid value of the plain C struct.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: `pid` is our own child, not yet reaped (`child` is never
        // waited on); `status` and `ru` are valid for writes.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
        if r == pid {
            break;
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Ok(Measured {
        exit_code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        cpu_s: Some(secs(ru.ru_utime) + secs(ru.ru_stime)),
        // Linux gives ru_maxrss in KiB.
        peak_rss_mb: Some(ru.ru_maxrss as f64 / 1024.0),
    })
}

#[cfg(not(target_os = "linux"))]
fn wait_measured(mut child: std::process::Child) -> std::io::Result<Measured> {
    let status = child.wait()?;
    Ok(Measured {
        exit_code: status.code(),
        cpu_s: None,
        peak_rss_mb: None,
    })
}
