//! Link failures, as the peer's `LINK_DOWN` (HPCC sim `third.cc`
//! `TakeDownLink`): the link's two ports stop sending (frames queued there
//! stay), routes are recomputed over the links still up, and a switch with
//! no route left for a packet drops it. Frames already on the wire still
//! arrive.

use crate::build::install_routes;
use crate::sim::Simulation;

impl Simulation {
    pub(crate) fn link_down(&mut self, k: usize) {
        let li = self.failures[k] as usize;
        if !self.link_up[li] {
            return;
        }
        self.link_up[li] = false;
        for end in 0..2 {
            self.ports[self.link_port[li][end] as usize].up = false;
        }
        // Recompute shortest paths over the links still up.
        let up: Vec<u32> = (0..self.topo.links.len() as u32)
            .filter(|&l| self.link_up[l as usize])
            .collect();
        let mut sub = self.topo.clone();
        sub.links = up
            .iter()
            .map(|&l| self.topo.links[l as usize].clone())
            .collect();
        let routes = topo::Routes::compute_ordered(&sub, self.cfg.next_hop_order);
        self.dst_route = install_routes(
            &mut self.switches,
            &self.node_switch,
            &self.topo,
            &routes,
            Some(&up),
            &self.link_port,
            &self.hosts,
        );
    }
}
