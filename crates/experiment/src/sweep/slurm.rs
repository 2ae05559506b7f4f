//! `rdmasim sweep FILE --emit slurm`: a sweep as a Slurm job array. Task
//! *i* of the array runs the sweep's run *i* (`--only i`, grid order, as
//! `index.csv` lists the runs) into the shared sweep directory, skipping
//! it if it is done, so that a resubmitted array, or a task requeued,
//! runs only what is missing. Once every task has ended, one plain start
//! of the sweep (the script's comment gives the `sbatch` line that waits
//! for the array) reruns whatever failed and writes `index.csv` and the
//! report.

use super::parse::{load_sweep, plan};
use crate::error::ExperimentError;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

/// The script's name in the sweep directory.
pub const SLURM_SCRIPT: &str = "sweep.slurm";

/// What [`write_slurm_script`] wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlurmScript {
    /// The script.
    pub path: PathBuf,
    /// Runs of the sweep: tasks of the array (0 to `runs - 1`).
    pub runs: usize,
    /// The command that writes `index.csv` once every task has ended.
    pub collect: String,
}

/// `s` quoted for a POSIX shell.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// An absolute form of `p` (from the current directory), for a script that
/// runs elsewhere.
fn absolute(p: &Path) -> Result<PathBuf, ExperimentError> {
    std::path::absolute(p).map_err(|e| ExperimentError::io(p, e))
}

/// Check the sweep file at `path` and plan its runs, as a start would,
/// then write [`SLURM_SCRIPT`] into its directory (`out`, default
/// `runs/<name>`), whose tasks run `exe` (the rdmasim binary). Nothing is
/// run.
pub fn write_slurm_script(
    path: &Path,
    out: Option<&Path>,
    exe: &Path,
) -> Result<SlurmScript, ExperimentError> {
    let sweep = load_sweep(path)?;
    let runs = plan(&sweep)?;
    let dir = out
        .map(Path::to_path_buf)
        .unwrap_or_else(|| Path::new("runs").join(&sweep.name));
    fs::create_dir_all(&dir).map_err(|e| ExperimentError::io(&dir, e))?;
    let (file, dir, exe) = (absolute(path)?, absolute(&dir)?, absolute(exe)?);
    let sweep_cmd = format!(
        "{} sweep {} --out {}",
        quote(&exe.display().to_string()),
        quote(&file.display().to_string()),
        quote(&dir.display().to_string())
    );
    let collect = format!("{sweep_cmd} --quiet");
    let script_path = dir.join(SLURM_SCRIPT);
    let mut s = String::from("#!/bin/bash\n");
    let _ = writeln!(
        s,
        "# The sweep {} as a Slurm job array, written by `rdmasim sweep --emit slurm`:\n\
         # task i runs the sweep's run i ({} runs, 0 to {}, in the order of index.csv)\n\
         # into {}, skipping it if it is done.\n\
         #\n\
         # Submit the array, then the start that waits for it, reruns any run that\n\
         # failed and writes index.csv (and the report):\n\
         #   job=$(sbatch --parsable {})\n\
         #   sbatch --dependency=afterany:$job --wrap {}\n\
         #",
        file.display(),
        runs.len(),
        runs.len() - 1,
        dir.display(),
        quote(&script_path.display().to_string()),
        quote(&collect),
    );
    let _ = writeln!(s, "#SBATCH --job-name={}", sweep.name.replace(' ', "_"));
    let _ = writeln!(s, "#SBATCH --array=0-{}", runs.len() - 1);
    s.push_str("#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n");
    let _ = writeln!(s, "#SBATCH --output={}/slurm-%A_%a.out", dir.display());
    s.push_str("set -euo pipefail\n");
    let _ = writeln!(
        s,
        "exec {sweep_cmd} --only \"${{SLURM_ARRAY_TASK_ID:?run by a Slurm job array}}\" --quiet"
    );
    fs::write(&script_path, s).map_err(|e| ExperimentError::io(&script_path, e))?;
    Ok(SlurmScript {
        path: script_path,
        runs: runs.len(),
        collect,
    })
}
