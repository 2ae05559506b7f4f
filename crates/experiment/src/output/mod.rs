//! Writing a run's files: the run directory (written aside, then renamed
//! into place) and the peer-format files at their own paths; the time
//! series files in [`timeseries`].

pub mod timeseries;

use crate::error::ExperimentError;
use crate::scenario::PeerOutputs;
use crate::summary::Summary;
use engine::InputError;
use net::{PfcLogEntry, RunResults};
use stats::{write_flows_csv, write_peer_fct, FlowRecord};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// The files a run directory may hold. Only a directory holding nothing
/// else is ever replaced.
pub const RUN_FILES: [&str; 12] = [
    "flows.csv",
    "hosts.csv",
    "messages.csv",
    "bifrost_trace.csv",
    "ports.csv",
    "summary.json",
    "fct.txt",
    "pfc.txt",
    "config.toml",
    "timeseries.csv",
    "qp_rates.csv",
    "capture.pcapng",
];

/// What goes into a run directory.
pub(crate) struct RunFiles<'a> {
    pub(crate) records: &'a [FlowRecord],
    pub(crate) summary: &'a Summary,
    pub(crate) completion_order: &'a [u32],
    pub(crate) pfc_log: Option<&'a [PfcLogEntry]>,
    pub(crate) config_toml: Option<&'a str>,
    pub(crate) timeseries: Option<&'a net::monitor::TimeSeries>,
    pub(crate) ports: &'a [net::PortReport],
    pub(crate) bifrost_trace: Option<&'a str>,
    /// Whether the run had a PFC storm watchdog: `ports.csv` then has its
    /// columns ([`PORTS_CSV_WATCHDOG_COLUMNS`]).
    pub(crate) watchdog: bool,
    /// Whether the run had switches with SONiC's buffer model: `ports.csv`
    /// then has [`PORTS_CSV_SONIC_COLUMNS`].
    pub(crate) sonic: bool,
    pub(crate) capture: Option<&'a net::capture::CaptureFile>,
    /// Per host with a CPU model (`hosts.csv`; none without one).
    pub(crate) hosts: &'a [net::HostCpuRow],
    pub(crate) sim_ns: u64,
    /// Message outcomes, when the workload has messages.
    pub(crate) messages: Option<&'a [crate::messages::MessageRecord]>,
}

/// The header of `bifrost_trace.csv`: per Bifrost port and slot, the
/// symbols of Bifrost's Algorithm 1 and Table I after the slot's
/// update, and L + F − H (Theorem 1: at most 0).
pub const BIFROST_TRACE_HEADER: &str =
    "node,port,n,time_ns,L,F,r,c,c_hat,p_quanta,L_plus_F_minus_H";

/// Add one port's slots to a `bifrost_trace.csv` text (header first).
pub fn append_bifrost_trace(
    out: &mut String,
    node: u32,
    port: u16,
    h: u64,
    trace: &[net::fc::BifrostSlot],
) {
    if out.is_empty() {
        out.push_str(BIFROST_TRACE_HEADER);
        out.push('\n');
    }
    for s in trace {
        let _ = writeln!(
            out,
            "{node},{port},{},{},{},{},{},{},{},{},{}",
            s.n,
            s.time.ps() / 1000,
            s.l,
            s.f,
            s.r,
            s.c,
            s.c_hat,
            s.quanta,
            s.l as i64 + s.f - h as i64
        );
    }
}

/// The header of `ports.csv`.
pub const PORTS_CSV_HEADER: &str = "node,port,is_switch,tx_bytes,tx_data,drops,corrupted,\
                                    ecn_marks,peak_queue,peak_ingress,pause_tx,resume_tx,\
                                    pause_rx,resume_rx,paused_ns";

/// The columns `ports.csv` adds when the run has a PFC storm watchdog
/// (`[pfc.watchdog]`): storms detected and restored at the port's egress,
/// and frames it dropped while they lasted. Runs without one keep the
/// file as it was.
pub const PORTS_CSV_WATCHDOG_COLUMNS: &str = ",pfc_storms,pfc_restores,storm_dropped";

/// The column `ports.csv` adds when the run has switches with SONiC's
/// buffer model (`[buffer] model = "sonic"`): frames refused at the port's
/// egress queue (also counted in `drops` at the port they came in by).
/// Runs without keep the file as it was.
pub const PORTS_CSV_SONIC_COLUMNS: &str = ",egress_drops";

/// `ports.csv`: one row per port (every node, link order): traffic, drops
/// at its ingress, marks, queue peaks and flow-control counters summed
/// over classes; with `watchdog`, the watchdog's counters too.
pub fn write_ports_csv(
    ports: &[net::PortReport],
    watchdog: bool,
    w: &mut impl Write,
) -> io::Result<()> {
    write_ports_csv_with(ports, watchdog, false, w)
}

/// [`write_ports_csv`], with `sonic`, [`PORTS_CSV_SONIC_COLUMNS`] too.
pub fn write_ports_csv_with(
    ports: &[net::PortReport],
    watchdog: bool,
    sonic: bool,
    w: &mut impl Write,
) -> io::Result<()> {
    write!(w, "{PORTS_CSV_HEADER}")?;
    if watchdog {
        write!(w, "{PORTS_CSV_WATCHDOG_COLUMNS}")?;
    }
    if sonic {
        write!(w, "{PORTS_CSV_SONIC_COLUMNS}")?;
    }
    writeln!(w)?;
    for p in ports {
        let c = &p.counters;
        let sum = |a: &[u64]| a.iter().sum::<u64>();
        write!(
            w,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            p.node,
            p.port,
            u8::from(p.is_switch),
            c.tx_bytes,
            c.tx_data,
            sum(&c.drops),
            c.corrupted,
            c.ecn_marks,
            c.peak_queue,
            c.peak_ingress,
            sum(&p.fc.pause_tx),
            sum(&p.fc.resume_tx),
            sum(&p.fc.pause_rx),
            sum(&p.fc.resume_rx),
            sum(&p.fc.paused_ps) / 1000,
        )?;
        if watchdog {
            write!(
                w,
                ",{},{},{}",
                sum(&p.fc.storms),
                sum(&p.fc.restores),
                c.flushed
            )?;
        }
        if sonic {
            write!(w, ",{}", c.egress_drops)?;
        }
        writeln!(w)?;
    }
    Ok(())
}

/// `dir` without a trailing separator or `.` parts, so a suffix lands
/// beside it, not inside it.
fn normalize(dir: &Path) -> PathBuf {
    dir.components().collect()
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// `<path>.tmp-<pid>`: where a file or run directory is written before its
/// rename into place, and what the checks before a run try to create.
fn temp_beside(path: &Path) -> PathBuf {
    with_suffix(path, &format!(".tmp-{}", std::process::id()))
}

/// Check that `dir` is absent, or is a directory that holds only files an
/// rdmasim run writes, so replacing it loses nothing else.
pub(crate) fn check_replaceable(dir: &Path) -> Result<(), ExperimentError> {
    let dir = &normalize(dir);
    if dir.file_name().is_none() {
        return Err(ExperimentError::Input(InputError::at(
            "<command line>",
            None,
            "--out",
            format!(
                "'{}' does not name a directory rdmasim can create",
                dir.display()
            ),
        )));
    }
    let meta = match fs::symlink_metadata(dir) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => {
            return Err(ExperimentError::Input(InputError::at(
                "<command line>",
                None,
                "--out",
                format!("cannot create the run directory {}: {e}", dir.display()),
            )))
        }
    };
    let refuse = |why: String| {
        ExperimentError::Input(InputError::at(
            "<command line>",
            None,
            "--out",
            format!(
                "{} {why}; rdmasim only replaces an earlier run directory, so choose another \
                 output directory",
                dir.display()
            ),
        ))
    };
    if !meta.is_dir() {
        return Err(refuse("exists and is not a directory".into()));
    }
    for entry in fs::read_dir(dir).map_err(|e| ExperimentError::io(dir, e))? {
        let entry = entry.map_err(|e| ExperimentError::io(dir, e))?;
        let name = entry.file_name();
        let known = name.to_str().is_some_and(|n| RUN_FILES.contains(&n));
        let is_file = entry.file_type().map(|t| t.is_file()).unwrap_or(false);
        if !known || !is_file {
            return Err(refuse(format!(
                "holds '{}', which is not an rdmasim output",
                name.to_string_lossy()
            )));
        }
    }
    Ok(())
}

/// Check, before a run, that its directory `dir` can be written where it
/// goes: create its parent if need be, and the temporary directory beside
/// it that [`write_run_dir`] fills (then remove that), so that a long run
/// does not end in an error about a path the user never typed.
pub(crate) fn check_writable(dir: &Path) -> Result<(), ExperimentError> {
    let dir = &normalize(dir);
    let cannot = |e: io::Error| {
        ExperimentError::Input(InputError::at(
            "<command line>",
            None,
            "--out",
            format!("cannot create the run directory {}: {e}", dir.display()),
        ))
    };
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent).map_err(cannot)?;
    }
    let tmp = temp_beside(dir);
    if tmp.exists() {
        fs::remove_dir_all(&tmp).map_err(cannot)?;
    }
    fs::create_dir(&tmp).map_err(cannot)?;
    fs::remove_dir(&tmp).map_err(cannot)
}

fn write_file(
    path: &Path,
    body: impl FnOnce(&mut BufWriter<fs::File>) -> io::Result<()>,
) -> Result<(), ExperimentError> {
    let file = fs::File::create(path).map_err(|e| ExperimentError::io(path, e))?;
    let mut w = BufWriter::new(file);
    body(&mut w)
        .and_then(|_| w.flush())
        .map_err(|e| ExperimentError::io(path, e))?;
    w.get_ref()
        .sync_all()
        .map_err(|e| ExperimentError::io(path, e))
}

/// Write the run directory: everything into `<dir>.tmp-<pid>`, then move
/// an existing `dir` aside, rename the new one into place and delete the
/// old one. On failure the temporary directory is removed.
pub(crate) fn write_run_dir(dir: &Path, f: &RunFiles<'_>) -> Result<(), ExperimentError> {
    let dir = &normalize(dir);
    check_replaceable(dir)?;
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent).map_err(|e| ExperimentError::io(parent, e))?;
    }
    let pid = std::process::id();
    let tmp = temp_beside(dir);
    if tmp.exists() {
        fs::remove_dir_all(&tmp).map_err(|e| ExperimentError::io(&tmp, e))?;
    }
    fs::create_dir(&tmp).map_err(|e| ExperimentError::io(&tmp, e))?;
    let result = fill_dir(&tmp, f).and_then(|()| replace_dir(&tmp, dir, pid));
    if result.is_err() {
        let _ = fs::remove_dir_all(&tmp);
    }
    result
}

fn fill_dir(tmp: &Path, f: &RunFiles<'_>) -> Result<(), ExperimentError> {
    write_file(&tmp.join("flows.csv"), |w| write_flows_csv(f.records, w))?;
    if let Some(m) = f.messages {
        write_file(&tmp.join("messages.csv"), |w| {
            crate::messages::write_messages_csv(m, w)
        })?;
    }
    write_file(&tmp.join("ports.csv"), |w| {
        write_ports_csv_with(f.ports, f.watchdog, f.sonic, w)
    })?;
    if let Some(t) = f.bifrost_trace {
        write_file(&tmp.join("bifrost_trace.csv"), |w| {
            w.write_all(t.as_bytes())
        })?;
    }
    write_file(&tmp.join("summary.json"), |w| {
        serde_json::to_writer_pretty(&mut *w, f.summary)?;
        writeln!(w)
    })?;
    let ordered = in_completion_order(f.records, f.completion_order);
    write_file(&tmp.join("fct.txt"), |w| write_peer_fct(&ordered, w))?;
    if let Some(log) = f.pfc_log {
        write_file(&tmp.join("pfc.txt"), |w| {
            w.write_all(peer_pfc_text(log).as_bytes())
        })?;
    }
    if let Some(cfg) = f.config_toml {
        write_file(&tmp.join("config.toml"), |w| w.write_all(cfg.as_bytes()))?;
    }
    if let Some(c) = f.capture {
        write_file(&tmp.join("capture.pcapng"), |w| c.write_pcapng(w))?;
    }
    if !f.hosts.is_empty() {
        write_file(&tmp.join("hosts.csv"), |w| {
            crate::summary::write_hosts_csv(f.hosts, f.sim_ns, w)
        })?;
    }
    if let Some(ts) = f.timeseries {
        write_file(&tmp.join("timeseries.csv"), |w| {
            timeseries::write_ports_csv(ts, w)
        })?;
        if ts.qp_rates {
            write_file(&tmp.join("qp_rates.csv"), |w| {
                timeseries::write_qp_csv(ts, w)
            })?;
        }
    }
    Ok(())
}

fn replace_dir(tmp: &Path, dir: &Path, pid: u32) -> Result<(), ExperimentError> {
    let old = with_suffix(dir, &format!(".old-{pid}"));
    let had_old = dir.exists();
    if had_old {
        if old.exists() {
            fs::remove_dir_all(&old).map_err(|e| ExperimentError::io(&old, e))?;
        }
        fs::rename(dir, &old).map_err(|e| ExperimentError::io(dir, e))?;
    }
    if let Err(e) = fs::rename(tmp, dir) {
        if had_old {
            let _ = fs::rename(&old, dir);
        }
        return Err(ExperimentError::io(dir, e));
    }
    if had_old {
        fs::remove_dir_all(&old).map_err(|e| ExperimentError::io(&old, e))?;
    }
    Ok(())
}

/// The records of finished flows in completion order (the order of the
/// peer's `fct.txt`).
pub(crate) fn in_completion_order(records: &[FlowRecord], order: &[u32]) -> Vec<FlowRecord> {
    let by_id: HashMap<u32, &FlowRecord> = records.iter().map(|r| (r.id, r)).collect();
    order
        .iter()
        .filter_map(|id| by_id.get(id).map(|r| (*r).clone()))
        .collect()
}

/// The peer's PFC file (HPCC sim `third.cc` `get_pfc`): `time_ns node_id
/// node_type if_index type` per frame received; node type 1 = switch,
/// 0 = host; type 1 = pause, 0 = resume.
pub fn peer_pfc_text(log: &[PfcLogEntry]) -> String {
    let mut s = String::with_capacity(log.len() * 24);
    for e in log {
        let _ = writeln!(
            s,
            "{} {} {} {} {}",
            e.time.ns(),
            e.node,
            u8::from(e.is_switch),
            e.if_index,
            u8::from(e.pause)
        );
    }
    s
}

/// Write `text` to `path` through `<path>.tmp-<pid>` and a rename, creating
/// the parent directories.
fn write_atomically(path: &Path, text: &[u8]) -> Result<(), ExperimentError> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent).map_err(|e| ExperimentError::io(parent, e))?;
    }
    let tmp = temp_beside(path);
    let result = write_file(&tmp, |w| w.write_all(text))
        .and_then(|()| fs::rename(&tmp, path).map_err(|e| ExperimentError::io(path, e)));
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Check, before a run, that each of the peer's output files in `peer`
/// can be written where the config puts it, as [`write_atomically`] will:
/// create its directory if need be, and the temporary file beside it
/// (then remove that). A path that is a directory, or a name too long for
/// the file system, is the config's error at the key's line, not an I/O
/// error after the whole run.
pub(crate) fn check_peer_outputs(peer: &PeerOutputs) -> Result<(), ExperimentError> {
    let files = [
        ("FCT_OUTPUT_FILE", Some(&peer.fct)),
        ("PFC_OUTPUT_FILE", peer.pfc.as_ref()),
        ("QLEN_MON_FILE", peer.qlen.as_ref()),
    ];
    for ((key, path), line) in files.into_iter().zip(peer.lines) {
        let Some(path) = path else { continue };
        let cannot = |why: String| {
            ExperimentError::Input(InputError::at(
                &peer.config,
                (line > 0).then_some(line),
                key,
                format!("cannot write {}: {why}", path.display()),
            ))
        };
        if path.is_dir() {
            return Err(cannot("it is a directory".into()));
        }
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            fs::create_dir_all(parent).map_err(|e| cannot(e.to_string()))?;
        }
        let tmp = temp_beside(path);
        fs::File::create(&tmp).map_err(|e| cannot(e.to_string()))?;
        fs::remove_file(&tmp).map_err(|e| cannot(e.to_string()))?;
    }
    Ok(())
}

/// Write the peer-format FCT (and PFC) files to the paths in `peer`.
pub(crate) fn write_peer_outputs(
    peer: &PeerOutputs,
    records: &[FlowRecord],
    results: &RunResults,
) -> Result<(), ExperimentError> {
    let ordered = in_completion_order(records, &results.completion_order);
    let mut fct = Vec::with_capacity(ordered.len() * 64);
    write_peer_fct(&ordered, &mut fct).map_err(|e| ExperimentError::io(&peer.fct, e))?;
    write_atomically(&peer.fct, &fct)?;
    if let Some(pfc) = &peer.pfc {
        write_atomically(pfc, peer_pfc_text(&results.pfc_log).as_bytes())?;
    }
    if let Some(qlen) = &peer.qlen {
        let text = results.qlen_text.as_deref().unwrap_or("");
        write_atomically(qlen, text.as_bytes())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Time;

    #[test]
    fn pfc_lines() {
        let log = [
            PfcLogEntry {
                time: Time::from_ns(2_000_000_123),
                node: 321,
                is_switch: true,
                if_index: 3,
                pause: true,
            },
            PfcLogEntry {
                time: Time(2_000_000_500_999),
                node: 7,
                is_switch: false,
                if_index: 1,
                pause: false,
            },
        ];
        assert_eq!(
            peer_pfc_text(&log),
            "2000000123 321 1 3 1\n2000000500 7 0 1 0\n"
        );
    }

    #[test]
    fn replaces_only_run_directories() {
        let base = std::env::temp_dir().join(format!("rdmasim-out-{}", std::process::id()));
        let _ = fs::remove_dir_all(&base);
        fs::create_dir_all(&base).unwrap();
        let run = base.join("run");
        assert!(check_replaceable(&run).is_ok());
        fs::create_dir(&run).unwrap();
        fs::write(run.join("flows.csv"), "x").unwrap();
        assert!(check_replaceable(&run).is_ok());
        fs::write(run.join("notes.md"), "mine").unwrap();
        let e = check_replaceable(&run).unwrap_err().to_string();
        assert!(e.contains("notes.md"), "{e}");
        assert!(check_replaceable(&run.join("flows.csv")).is_err());
        assert!(check_replaceable(Path::new("..")).is_err());
        assert_eq!(normalize(Path::new("runs/q/")), PathBuf::from("runs/q"));
        fs::remove_dir_all(&base).unwrap();
    }
}
