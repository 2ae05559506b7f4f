//! What generators' keys name and every generator checks the same way:
//! hosts, their link rates, size CDFs.

use super::ctx::{Ctx, R};
use engine::Rate;
use topo::Topology;
use workload::SizeCdf;

/// Each host's link rate.
pub(super) fn host_rates(topo: &Topology) -> Vec<Option<Rate>> {
    let mut r = vec![None; topo.n_nodes()];
    for l in &topo.links {
        for n in [l.a, l.b] {
            if topo.is_host(n) {
                r[n as usize] = Some(l.rate);
            }
        }
    }
    r
}

pub(super) fn check_node(cx: &Ctx<'_>, path: &str, topo: &Topology, node: u32) -> R<()> {
    let n = topo.n_nodes() as u32;
    if node >= n {
        return Err(cx.err(
            path,
            format!(
                "node {node} does not exist (the topology has {n} nodes, 0-{})",
                n.saturating_sub(1)
            ),
        ));
    }
    if !topo.is_host(node) {
        return Err(cx.err(path, format!("node {node} is a switch, not a host")));
    }
    Ok(())
}

pub(super) fn build_cdf(cx: &Ctx<'_>, path: &str, v: &str) -> R<SizeCdf> {
    if let Some(c) = SizeCdf::builtin(v) {
        return Ok(c);
    }
    let p = cx.resolve(v);
    if !p.is_file() {
        return Err(cx.err(
            path,
            format!(
                "'{v}' is neither a built-in CDF ({}) nor a CDF file ('{}' does not exist)",
                SizeCdf::BUILTIN_NAMES.join(", "),
                p.display()
            ),
        ));
    }
    Ok(workload::load_cdf(&p)?)
}
