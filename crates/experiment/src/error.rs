//! The one error type of this crate: bad input, or a file that cannot be
//! read or written.

use engine::InputError;
use std::path::PathBuf;

/// Why an experiment could not be loaded or run.
///
/// `Display` is a one-line message written for users, meant to be printed
/// as `rdmasim: {error}`: bad input reads `file:line: field: what is wrong`.
#[derive(Debug, thiserror::Error)]
pub enum ExperimentError {
    /// A config, topology, flow or CDF file (or a command-line value) that
    /// does not parse or does not make sense.
    #[error("{0}")]
    Input(#[from] InputError),
    /// A file or directory that could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
    /// Something this binary was built without.
    #[error("{0}")]
    Unsupported(String),
}

impl ExperimentError {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> ExperimentError {
        ExperimentError::Io {
            path: path.into(),
            source,
        }
    }

    /// The process exit code for this error: 2 for every kind (bad input or
    /// I/O), as ripgrep does. 1 is kept for a run whose invariants failed,
    /// 0 for a clean run.
    pub fn exit_code(&self) -> i32 {
        match self {
            ExperimentError::Input(_) | ExperimentError::Io { .. } => 2,
            ExperimentError::Unsupported(_) => 2,
        }
    }

    /// `input`, `io` or `unsupported`.
    pub fn kind(&self) -> &'static str {
        match self {
            ExperimentError::Input(_) => "input",
            ExperimentError::Io { .. } => "io",
            ExperimentError::Unsupported(_) => "unsupported",
        }
    }
}
