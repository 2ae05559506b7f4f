//! SONiC's buffer model as a switch's MMU: what the switch's hop calls
//! instead of the peer's MMU when the switch has one
//! ([`Switch::sonic`], set from [`crate::NetConfig::sonic`]). Out of line,
//! so that the peer's MMU's path keeps its shape (docs/sonic-buffer.md).

use super::model::DropSide;
use crate::context::Ctx;
use crate::port::Port;
use crate::switch::Switch;
use crate::wire::{Packet, QueueKey};

impl Switch {
    /// Admit `pkt`, arrived at local port `in_local` for `out_local`, to
    /// the SONiC buffer; false if it is dropped (counted at the ingress in
    /// `drops`, and at the egress in `egress_drops` when the egress queue
    /// refused it). An admitted frame's pause state goes to the ingress's
    /// flow control, as the peer's MMU's does.
    #[cold]
    #[inline(never)]
    pub(crate) fn sonic_admit(
        &mut self,
        ports: &mut [Port],
        in_local: usize,
        out_local: usize,
        pkt: &Packet,
        cx: &mut Ctx,
    ) -> bool {
        let class = usize::from(pkt.class);
        let Some(mmu) = self.sonic.as_mut() else {
            unreachable!("sonic_admit on a switch with the peer's MMU");
        };
        match mmu.admit(in_local, out_local, class, u64::from(pkt.size)) {
            Err(side) => {
                ports[in_local].c.drops[class] += 1;
                if side == DropSide::Egress {
                    ports[out_local].c.egress_drops += 1;
                }
                cx.int_pool.release(pkt.int);
                false
            }
            Ok(a) => {
                let ip = &mut ports[in_local];
                ip.peak_ingress = ip.peak_ingress.max(a.held);
                if ip.fc.after_admit_emits(
                    cx.now,
                    QueueKey::of(pkt),
                    pkt.size,
                    a.state,
                    &mut cx.outbox,
                ) {
                    self.apply_fc_outbox(ports, in_local, cx);
                }
                true
            }
        }
    }
}
