//! A host's NIC and its queue pairs: data only. What they do is the
//! NIC's (`nic.rs`) and their transports' (`transport/`).

use crate::cc::N_CC_TIMERS;
use crate::fifo::Fifo;
use crate::transport::{AnyReliability, SendSeq};
use crate::wire::Packet;
use engine::{Rate, Time};

#[derive(Debug)]
pub(crate) struct Nic {
    /// Its index in `Simulation::nics`.
    pub id: u32,
    pub port: u32,
    pub line_rate: Rate,
    pub acks: Fifo<Packet>,
    /// Its active QPs, placed for the choice of the next to send.
    pub sched: crate::nic::sched::QpSched,
    /// Pending pacing wake-up, `Time::MAX` if none.
    pub wake_at: Time,
    /// With a DCQCN fleet: when this NIC last sent a CNP, per flow it
    /// receives (its NP's coalescing).
    pub last_cnp: std::collections::HashMap<u32, Time>,
    /// The host's cores, with a CPU model (`[host] cores`).
    pub cpu: Option<Box<crate::host_cpu::HostCpu>>,
}

#[derive(Debug)]
pub(crate) struct Qp {
    pub src: u32,
    pub dst: u32,
    pub sport: u16,
    pub dport: u16,
    pub pg: u8,
    pub size: u64,
    pub start: Time,
    pub snd: SendSeq,
    pub next_avail: Time,
    pub cc: crate::cc::AnyCc,
    /// Versions of the CC timer slots, then the retransmission timer.
    pub timer_version: [u32; N_CC_TIMERS + 1],
    pub end: Option<Time>,
    pub retransmitted: u64,
    pub nic: u32,
    /// Frame bytes of the last data packet sent (for pacing shifts).
    pub last_size: u32,
    /// Window in bytes before rate scaling; 0 = none.
    pub base_win: u64,
    pub timeouts: u32,
    /// The transport's send state (transport/).
    pub rel: AnyReliability,
    /// With a host CPU model: when the host has posted the QP's next WQE
    /// (its first packet waits for it); `Time::ZERO` otherwise.
    pub post_at: Time,
    /// Where it stands in its NIC's scheduler.
    pub sched: crate::nic::sched::QpSlot,
    /// The rate limiter of a NIC generation that paces per burst
    /// (`cc/dcqcn_gen.rs`); none: per packet.
    pub pacer: Option<Box<crate::cc::BurstPacer>>,
    /// How long go-back-N waits after a NACK before resending (a Gen1
    /// NIC's firmware, `cc/dcqcn_gen.rs`); zero for every other NIC.
    pub loss_recovery: engine::Delta,
}

/// Timer slot of the retransmission timeout, after the CC's slots.
pub(crate) const RTO_SLOT: usize = N_CC_TIMERS;

/// The NIC's scheduler keeps a QP's place in its own slot (`nic/sched.rs`).
impl crate::nic::sched::Slotted for Qp {
    #[inline(always)]
    fn slot(&mut self) -> &mut crate::nic::sched::QpSlot {
        &mut self.sched
    }
}
