//! Switch egress queueing, one object per port ([`AnyEgress`]): which
//! queues a port keeps, where an arriving frame waits, and which frame
//! leaves next.
//!
//! The egress owns its queues (htsim's queue classes): a scheme that
//! queues differently — one queue per flow, a few physical queues shared
//! by many flows — is a new [`Egress`] implementation, not a change to the
//! port or the switch. Flow control ([`crate::fc`]) gates what may leave:
//! `dequeue` asks it, by [`QueueKey`], before it takes a frame.
//!
//! What stays with the port: the strict-priority control queue (PFC and
//! credit frames of every scheme, never paused), the link, and the total
//! bytes queued here (`Port::queue_bytes`, read by every hop: it is zero
//! exactly when the egress holds nothing, so the port can tell without
//! asking, and an idle egress with nothing queued lets a frame pass
//! straight to the wire, see `Egress::pass`).
//!
//! Adding a queueing scheme: a file here with a type that implements
//! [`Egress`], and its registration below: a variant of [`AnyEgress`]
//! (boxed, so that a port's lines stay as they are) with its arm in
//! `each!`, and a variant of [`EgressChoice`] with its name and its arm in
//! [`EgressChoice::build`] (docs/architecture.md).

mod classes;
mod hooks;
mod per_flow;

pub use classes::ClassEgress;
pub use hooks::Egress;
pub use per_flow::PerFlowEgress;

use crate::fc::AnyFc;
use crate::wire::{Packet, QueueKey};
use engine::Time;

/// A port's egress of any kind.
// The class scheduler is stored inline in each port (every switch port
// has one, and a hop reads it); other kinds are boxed so that they do not
// grow every port.
// `repr(u8)`: a plain tag byte first, then the variant at offset 8 (see
// `ClassEgress`'s layout).
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
#[repr(u8)]
pub enum AnyEgress {
    /// Eight priority classes: class 0 first, round robin over the rest
    /// (the peer's `DequeueRR`).
    Classes(ClassEgress),
    /// One queue per flow, round robin over flows; drops nothing.
    PerFlow(Box<PerFlowEgress>),
}

/// Which egress a switch port runs: a port rule's `egress` key.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EgressChoice {
    /// [`ClassEgress`]: eight priority classes (the default).
    #[default]
    Classes,
    /// [`PerFlowEgress`]: one queue per flow, round robin.
    PerFlow,
}

impl EgressChoice {
    /// Every choice with its name in configs, the default first.
    pub const ALL: &'static [(&'static str, EgressChoice)] = &[
        ("classes", EgressChoice::Classes),
        ("per_flow", EgressChoice::PerFlow),
    ];

    /// The choice named `name`, if there is one.
    pub fn from_name(name: &str) -> Option<EgressChoice> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|&(_, c)| c)
    }

    /// Its name in configs.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|&&(_, c)| c == self)
            .map(|&(n, _)| n)
            .expect("every choice is listed")
    }

    /// A new, empty egress of this kind.
    pub fn build(self) -> AnyEgress {
        match self {
            EgressChoice::Classes => AnyEgress::Classes(ClassEgress::default()),
            EgressChoice::PerFlow => AnyEgress::PerFlow(Box::default()),
        }
    }
}

impl Default for AnyEgress {
    fn default() -> Self {
        AnyEgress::Classes(ClassEgress::default())
    }
}

macro_rules! each {
    ($self:ident, $e:ident => $body:expr) => {
        match $self {
            AnyEgress::Classes($e) => $body,
            AnyEgress::PerFlow($e) => $body,
        }
    };
}

impl Egress for AnyEgress {
    // `enqueue` and `pass` hand the boxed kinds a copy of the frame: the
    // hop's frame then never has its address taken on the class path, so
    // the compiler keeps it in registers there instead of copying it to
    // the stack on every hop.
    #[inline]
    fn enqueue(&mut self, pkt: &Packet) -> QueueKey {
        match self {
            AnyEgress::Classes(e) => e.enqueue(pkt),
            AnyEgress::PerFlow(e) => e.enqueue(&{ *pkt }),
        }
    }
    #[inline]
    fn dequeue(&mut self, now: Time, fc: &AnyFc) -> Option<Packet> {
        each!(self, e => e.dequeue(now, fc))
    }
    #[inline]
    fn pass(&mut self, now: Time, pkt: &Packet, fc: &AnyFc) -> bool {
        match self {
            AnyEgress::Classes(e) => e.pass(now, pkt, fc),
            AnyEgress::PerFlow(e) => e.pass(now, &{ *pkt }, fc),
        }
    }
    #[inline]
    fn has_backlog(&self) -> bool {
        each!(self, e => e.has_backlog())
    }
    fn class_bytes(&self, class: usize) -> u64 {
        each!(self, e => e.class_bytes(class))
    }
    fn class_head(&self, class: usize) -> Option<u32> {
        each!(self, e => e.class_head(class))
    }
    fn flush(&mut self, key: QueueKey, out: &mut Vec<Packet>) {
        each!(self, e => e.flush(key, out))
    }
    fn on_ctrl(&mut self, now: Time, frame: &Packet) {
        each!(self, e => e.on_ctrl(now, frame))
    }
    fn on_timer(&mut self, now: Time) {
        each!(self, e => e.on_timer(now))
    }
}

const _: () = assert!(std::mem::size_of::<AnyEgress>() == 32 + 32 * crate::wire::N_CLASSES);
