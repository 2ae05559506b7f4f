//! Which switches of a run use SONiC's buffer model instead of the peer's
//! MMU ([`crate::NetConfig::sonic`]), and what a run reports of it.

use super::config::{PortProfiles, SonicBufferConfig};
use super::model::{BufferEvent, SonicMmu};
use std::collections::BTreeMap;

/// SONiC's buffer model on some switches of a run: one configuration
/// (a config_db file), and per switch node the profiles of its local
/// ports, in local port (link) order. Switches not listed keep the peer's
/// MMU.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SonicSetup {
    /// The pools and profiles every listed switch uses.
    pub config: SonicBufferConfig,
    /// Switch node → one entry per local port.
    pub switches: BTreeMap<u32, Vec<PortProfiles>>,
}

impl SonicSetup {
    /// The MMU of switch `node` with `n_ports` local ports, if it is one
    /// of the listed switches; `Err` says why its port list does not fit.
    pub fn mmu_for(&self, node: u32, n_ports: usize) -> Result<Option<SonicMmu>, String> {
        let Some(ports) = self.switches.get(&node) else {
            return Ok(None);
        };
        if ports.len() != n_ports {
            return Err(format!(
                "switch {node} has {n_ports} ports, but its SONiC buffer setup maps {}",
                ports.len()
            ));
        }
        Ok(Some(SonicMmu::new(self.config.clone(), ports.clone())))
    }
}

/// What one SONiC switch's buffer did in a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SonicReport {
    /// The switch's node.
    pub node: u32,
    /// Most bytes in its buffer at once.
    pub peak_bytes: u64,
    /// Per ingress pool with headroom: its name, and the most headroom
    /// bytes it held at once.
    pub peak_headroom: Vec<(String, u64)>,
    /// The first PG to pause.
    pub first_pause: Option<BufferEvent>,
    /// The first frame refused at ingress.
    pub first_ingress_drop: Option<BufferEvent>,
    /// The first frame refused at egress.
    pub first_egress_drop: Option<BufferEvent>,
}

impl SonicReport {
    /// The report of switch `node`'s MMU.
    pub fn of(node: u32, mmu: &SonicMmu) -> SonicReport {
        let cfg = mmu.config();
        SonicReport {
            node,
            peak_bytes: mmu.peak_bytes,
            peak_headroom: cfg
                .pools
                .iter()
                .enumerate()
                .filter(|(_, p)| p.xoff > 0)
                .map(|(i, p)| (p.name.clone(), mmu.peak_headroom(i)))
                .collect(),
            first_pause: mmu.first_pause,
            first_ingress_drop: mmu.first_ingress_drop,
            first_egress_drop: mmu.first_egress_drop,
        }
    }
}
