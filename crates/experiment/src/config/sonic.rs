//! `[buffer] model = "sonic"`: SONiC's buffer model (Azure §6.2, App. A)
//! as the MMU of some or all switches, from a config_db JSON file
//! (`net::sonic_buffer`; docs/sonic-buffer.md, "In a run").

use super::ctx::{Ctx, R};
use super::fabric::BufferSection;
use crate::error::ExperimentError;
use net::sonic_buffer::setup::SonicSetup;
use net::sonic_buffer::{PoolType, PortProfiles, SonicBufferConfig};
use net::wire::N_CLASSES;
use net::NetConfig;
use std::collections::{BTreeMap, BTreeSet};
use topo::{NodeKind, Topology};
use workload::FlowSpec;

/// The `[buffer]` keys that only `model = "sonic"` reads.
const SONIC_KEYS: &[&str] = &[
    "sonic",
    "sonic_switches",
    "sonic_ports",
    "sonic_pg",
    "sonic_queue",
];

/// Read `[buffer] model` and, for `"sonic"`, the file and its mapping onto
/// the switches' ports; `flows` are checked to find a profile for their
/// class on every port of every SONiC switch.
pub(super) fn build_sonic(
    cx: &Ctx<'_>,
    s: &BufferSection,
    topo: &Topology,
    flows: &[FlowSpec],
    net: &mut NetConfig,
) -> R<()> {
    let set = set_sonic_keys(s);
    match s.model.as_deref() {
        None | Some("peer") => {
            if let Some(k) = set.first() {
                return Err(cx.err(&format!("buffer.{k}"), "only used with model = \"sonic\""));
            }
            return Ok(());
        }
        Some("sonic") => {}
        Some(m) => {
            return Err(cx.err(
                "buffer.model",
                format!("'{m}' is neither \"peer\" (the default) nor \"sonic\""),
            ))
        }
    }
    let rel = cx.required(&s.sonic, "buffer.sonic", "model = \"sonic\"")?;
    let path = cx.resolve(&rel);
    if !path.is_file() {
        return Err(cx.err(
            "buffer.sonic",
            format!(
                "cannot read the SONiC buffer configuration '{}'",
                path.display()
            ),
        ));
    }
    let file = path.display().to_string();
    let config = net::sonic_buffer::read(&path).map_err(ExperimentError::Input)?;

    let switches: Vec<u32> = match &s.sonic_switches {
        None => topo.switches(),
        Some(list) => {
            for &n in list {
                if n as usize >= topo.kinds.len() || topo.kinds[n as usize] == NodeKind::Host {
                    return Err(cx.err(
                        "buffer.sonic_switches",
                        format!("node {n} is not a switch of the topology"),
                    ));
                }
            }
            list.clone()
        }
    };
    let pg = class_map(
        cx,
        "sonic_pg",
        &s.sonic_pg,
        &config,
        PoolType::Ingress,
        &file,
    )?;
    let queue = class_map(
        cx,
        "sonic_queue",
        &s.sonic_queue,
        &config,
        PoolType::Egress,
        &file,
    )?;
    let names = port_names(cx, s, &config, &file)?;
    let used: BTreeSet<u8> = flows.iter().map(|f| f.pg).collect();

    let mut degree = vec![0usize; topo.kinds.len()];
    for l in &topo.links {
        degree[l.a as usize] += 1;
        degree[l.b as usize] += 1;
    }
    let mut setup = SonicSetup {
        config,
        switches: BTreeMap::new(),
    };
    for &node in &switches {
        let n = degree[node as usize];
        if !names.is_empty() && names.len() < n {
            return Err(cx.err(
                if s.sonic_ports.is_some() {
                    "buffer.sonic_ports"
                } else {
                    "buffer.sonic"
                },
                format!(
                    "switch {node} has {n} ports, but only {} port names are given ({}); name \
                     one per port in sonic_ports, in link order",
                    names.len(),
                    if s.sonic_ports.is_some() {
                        "sonic_ports".to_string()
                    } else {
                        format!("those of BUFFER_PG and BUFFER_QUEUE in {file}")
                    }
                ),
            ));
        }
        let mut ports = Vec::with_capacity(n);
        for local in 0..n {
            let mut p = match names.get(local) {
                Some(name) => setup.config.port_profiles(name),
                None => PortProfiles::default(),
            };
            for c in 0..N_CLASSES {
                if let Some(i) = pg[c] {
                    p.pg[c] = Some(i);
                }
                if let Some(i) = queue[c] {
                    p.queue[c] = Some(i);
                }
            }
            for &c in &used {
                let c = usize::from(c);
                let port = names.get(local).map_or_else(
                    || format!("port {local}"),
                    |n| format!("port {local} ({n})"),
                );
                for (side, table, key, have) in [
                    ("ingress", "BUFFER_PG", "sonic_pg", p.pg[c]),
                    ("egress", "BUFFER_QUEUE", "sonic_queue", p.queue[c]),
                ] {
                    if have.is_none() {
                        return Err(cx.err(
                            &format!("buffer.{key}"),
                            format!(
                                "flows use class {c}, but switch {node}'s {port} has no {side} \
                                 profile for it: map it in {table} of {file} or in {key}"
                            ),
                        ));
                    }
                }
            }
            ports.push(p);
        }
        setup.switches.insert(node, ports);
    }
    net.sonic = Some(setup);
    Ok(())
}

fn set_sonic_keys(s: &BufferSection) -> Vec<&'static str> {
    let set = [
        s.sonic.is_some(),
        s.sonic_switches.is_some(),
        s.sonic_ports.is_some(),
        s.sonic_pg.is_some(),
        s.sonic_queue.is_some(),
    ];
    SONIC_KEYS
        .iter()
        .zip(set)
        .filter(|(_, on)| *on)
        .map(|(k, _)| *k)
        .collect()
}

/// `sonic_pg` or `sonic_queue`: class → profile name, every class a data
/// class, every profile in the file and in a pool of the side's type.
fn class_map(
    cx: &Ctx<'_>,
    key: &str,
    map: &Option<BTreeMap<String, String>>,
    cfg: &SonicBufferConfig,
    side: PoolType,
    file: &str,
) -> R<[Option<usize>; N_CLASSES]> {
    let mut out = [None; N_CLASSES];
    for (class, profile) in map.iter().flatten() {
        let path = format!("buffer.{key}.{class}");
        let c: usize = class
            .parse()
            .ok()
            .filter(|c| (1..N_CLASSES).contains(c))
            .ok_or_else(|| {
                cx.err(
                    &path,
                    format!(
                        "'{class}' is not a data class (1 to {}; 0 is for control)",
                        N_CLASSES - 1
                    ),
                )
            })?;
        let i = cfg
            .profile(profile)
            .ok_or_else(|| cx.err(&path, format!("{file} has no profile \"{profile}\"")))?;
        if cfg.pools[cfg.profiles[i].pool].kind != side {
            let want = match side {
                PoolType::Ingress => "an ingress",
                PoolType::Egress => "an egress",
            };
            return Err(cx.err(
                &path,
                format!("profile \"{profile}\" of {file} is not in {want} pool"),
            ));
        }
        out[c] = Some(i);
    }
    Ok(out)
}

/// The file's port names, one per local port: `sonic_ports` as given
/// (each must be mapped in the file, if it maps any), or else the ports
/// the file's `BUFFER_PG` and `BUFFER_QUEUE` name, by their number
/// (`Ethernet0`, `Ethernet4`, ...); none if the file maps none.
fn port_names(
    cx: &Ctx<'_>,
    s: &BufferSection,
    cfg: &SonicBufferConfig,
    file: &str,
) -> R<Vec<String>> {
    if let Some(list) = &s.sonic_ports {
        for (i, n) in list.iter().enumerate() {
            if !cfg.ports.is_empty() && !cfg.ports.contains_key(n) {
                return Err(cx.err(
                    &format!("buffer.sonic_ports[{i}]"),
                    format!("{file} maps no port \"{n}\" in BUFFER_PG or BUFFER_QUEUE"),
                ));
            }
        }
        return Ok(list.clone());
    }
    let mut names: Vec<String> = cfg.ports.keys().cloned().collect();
    names.sort_by_key(|n| {
        let digits = n.trim_start_matches(|c: char| !c.is_ascii_digit());
        (
            n[..n.len() - digits.len()].to_string(),
            digits.parse::<u64>().unwrap_or(u64::MAX),
            n.clone(),
        )
    });
    Ok(names)
}
