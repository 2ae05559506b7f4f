//! How many threads a run uses (`[engine]`, `--threads`), and the
//! partition map that gives them their work (`net::partition`,
//! `docs/parallel.md`).

use crate::error::ExperimentError;
use crate::locate;
use engine::InputError;
use net::partition::{PartitionError, PartitionMap, PartitionSpec, LONG_LINK_FACTOR};
use net::Simulation;
use topo::Topology;

/// Where the engine's keys were set, for errors.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum KeysFrom {
    /// Nowhere: all defaults.
    #[default]
    Defaults,
    /// An rdmasim config's `[engine]` section.
    Config {
        /// The file as named.
        file: String,
        /// Its text, to find lines in.
        text: String,
    },
}

/// What a run's engine was asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    /// Threads; `None`: the machine's cores, capped by the partitions the
    /// network can be cut into.
    pub threads: Option<u32>,
    /// The override: the nodes of each partition.
    pub partitions: Option<Vec<Vec<u32>>>,
    /// `long_link_factor`.
    pub long_link_factor: u64,
    /// Where these came from.
    pub from: KeysFrom,
    /// `threads` came from the command line (`--threads`).
    pub cli_threads: bool,
}

impl Default for EngineSpec {
    fn default() -> Self {
        EngineSpec {
            threads: None,
            partitions: None,
            long_link_factor: LONG_LINK_FACTOR,
            from: KeysFrom::Defaults,
            cli_threads: false,
        }
    }
}

impl EngineSpec {
    /// One thread: the sequential engine.
    pub fn sequential() -> EngineSpec {
        EngineSpec {
            threads: Some(1),
            ..EngineSpec::default()
        }
    }

    /// `--threads N` (from the command line) replaces `threads`.
    pub fn with_cli_threads(mut self, threads: Option<u32>) -> EngineSpec {
        if let Some(t) = threads {
            self.threads = Some(t);
            self.cli_threads = true;
        }
        self
    }
}

/// The partition map for `spec` on `topo` (one partition when one thread
/// is asked for or all the machine has), or the error naming the key at
/// fault: `--threads` on the command line, else the config's
/// `engine.<key>` with its file and line.
pub fn partition(
    spec: &EngineSpec,
    topo: &Topology,
    scenario: &str,
) -> Result<PartitionMap, ExperimentError> {
    let err = |e| key_error(spec, scenario, e);
    if let Some(groups) = &spec.partitions {
        // As many threads as the override lists partitions, or one.
        let t = spec.threads.unwrap_or(groups.len().max(1) as u32);
        let p = PartitionSpec {
            threads: t,
            groups: Some(groups.clone()),
            long_link_factor: spec.long_link_factor,
        };
        let map = PartitionMap::new(topo, &p).map_err(err)?;
        if t == 1 {
            return PartitionMap::new(topo, &PartitionSpec::auto(1)).map_err(err);
        }
        if t != map.parts() {
            return Err(err(PartitionError {
                key: "threads",
                message: format!(
                    "{t} threads, but `partitions` lists {} partitions: run one thread per \
                     partition, or one thread",
                    map.parts()
                ),
            }));
        }
        return Ok(map);
    }
    let threads = spec.threads.unwrap_or_else(|| {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
        cores
            .min(PartitionMap::most_parts(topo, spec.long_link_factor))
            .max(1)
    });
    let p = PartitionSpec {
        threads,
        groups: None,
        long_link_factor: spec.long_link_factor,
    };
    PartitionMap::new(topo, &p).map_err(err)
}

fn key_error(spec: &EngineSpec, scenario: &str, e: PartitionError) -> ExperimentError {
    if e.key == "threads" && spec.cli_threads {
        return ExperimentError::Input(InputError::at(
            "<command line>",
            None,
            "--threads",
            e.message,
        ));
    }
    let path = format!("engine.{}", e.key);
    match &spec.from {
        KeysFrom::Config { file, text } => ExperimentError::Input(InputError::at(
            file.as_str(),
            locate::key_line(text, &path),
            path,
            e.message,
        )),
        KeysFrom::Defaults => {
            ExperimentError::Input(InputError::at(scenario, None, path, e.message))
        }
    }
}

/// The build of one replica per partition, in parallel (building is
/// deterministic: every replica is the same network).
pub fn replicas(
    first: Simulation,
    parts: u32,
    build: &(dyn Fn() -> Simulation + Sync),
) -> Vec<Simulation> {
    let mut all = vec![first];
    std::thread::scope(|s| {
        let handles: Vec<_> = (1..parts).map(|_| s.spawn(build)).collect();
        all.extend(handles.into_iter().map(|h| h.join().expect("a build")));
    });
    all
}
