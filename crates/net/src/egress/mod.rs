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
//! The class scheduler, which every switch port runs unless its rule
//! chooses another, is stored split: its two bytes of scheduling state in
//! the port's first line ([`EgressHead`]), its queues in the egress. Other
//! kinds are boxed trait objects, so that they do not grow every port.
//!
//! Adding a queueing scheme: a file here with a type that implements
//! [`Egress`], and its registration below: a variant of [`EgressChoice`]
//! with its name and its arm in [`EgressChoice::build`]
//! (docs/architecture.md).

mod bfc;
mod classes;
mod flowsail;
mod hooks;
mod kqueues;
mod per_flow;

pub use bfc::BfcEgress;
pub use classes::{ClassEgress, ClassHead, ClassQueues};
pub use flowsail::FlowSailEgress;
pub use hooks::Egress;
pub use per_flow::PerFlowEgress;

use crate::fc::AnyFc;
use crate::wire::{Packet, QueueKey};
use engine::Time;

/// What a port keeps of its egress in its first line: whether the egress
/// is a boxed kind, and the class scheduler's state.
#[derive(Clone, Copy, Debug, Default)]
pub struct EgressHead {
    boxed: bool,
    classes: ClassHead,
}

/// A port's egress: the class scheduler's queues, or another kind, boxed.
/// Each call takes the port's [`EgressHead`], which says which.
#[derive(Debug, Default)]
pub struct AnyEgress {
    queues: ClassQueues,
    other: Option<Box<dyn Egress>>,
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

    /// A new, empty egress of this kind, and the head its port keeps.
    pub fn build(self) -> (EgressHead, AnyEgress) {
        match self {
            EgressChoice::Classes => (EgressHead::default(), AnyEgress::default()),
            EgressChoice::PerFlow => AnyEgress::boxed(PerFlowEgress::default()),
        }
    }
}

impl EgressHead {
    /// Whether the egress is a boxed kind (not the class scheduler).
    #[inline(always)]
    pub fn is_boxed(&self) -> bool {
        self.boxed
    }
}

impl AnyEgress {
    /// An egress of another kind than the class scheduler, and its head.
    pub fn boxed(e: impl Egress + 'static) -> (EgressHead, AnyEgress) {
        let head = EgressHead {
            boxed: true,
            ..EgressHead::default()
        };
        let egress = AnyEgress {
            queues: Default::default(),
            other: Some(Box::new(e)),
        };
        (head, egress)
    }

    /// The boxed kind (cold: called only when the head says so).
    #[cold]
    fn other(&mut self) -> &mut dyn Egress {
        self.other.as_deref_mut().expect("a boxed egress")
    }

    fn other_ref(&self) -> &dyn Egress {
        self.other.as_deref().expect("a boxed egress")
    }

    // `enqueue` and `pass` hand the boxed kinds a copy of the frame: the
    // hop's frame then never has its address taken on the class path, so
    // the compiler keeps it in registers there instead of copying it to
    // the stack on every hop.
    /// [`Egress::enqueue`].
    #[inline(always)]
    pub fn enqueue(&mut self, head: &mut EgressHead, now: Time, pkt: &Packet) -> QueueKey {
        if head.boxed {
            return self.other().enqueue(now, &{ *pkt });
        }
        classes::enqueue(&mut head.classes, &mut self.queues, pkt)
    }

    /// [`Egress::dequeue`].
    #[inline(always)]
    pub fn dequeue(&mut self, head: &mut EgressHead, now: Time, fc: &AnyFc) -> Option<Packet> {
        if head.boxed {
            return self.other().dequeue(now, fc);
        }
        classes::dequeue(&mut head.classes, &mut self.queues, now, fc)
    }

    /// [`Egress::pass`].
    #[inline(always)]
    pub fn pass(&mut self, head: &mut EgressHead, now: Time, pkt: &Packet, fc: &AnyFc) -> bool {
        if head.boxed {
            return self.other().pass(now, &{ *pkt }, fc);
        }
        classes::pass(&mut head.classes, now, pkt, fc)
    }

    /// [`Egress::has_backlog`].
    #[inline]
    pub fn has_backlog(&self, head: &EgressHead) -> bool {
        if head.boxed {
            return self.other_ref().has_backlog();
        }
        classes::has_backlog(&head.classes)
    }

    /// [`Egress::class_bytes`].
    pub fn class_bytes(&self, head: &EgressHead, class: usize) -> u64 {
        if head.boxed {
            return self.other_ref().class_bytes(class);
        }
        classes::class_bytes(&self.queues, class)
    }

    /// [`Egress::class_head`].
    pub fn class_head(&self, head: &EgressHead, class: usize) -> Option<u32> {
        if head.boxed {
            return self.other_ref().class_head(class);
        }
        self.queues[class].front().map(|p| p.size)
    }

    /// [`Egress::flush`].
    pub fn flush(&mut self, head: &mut EgressHead, key: QueueKey, out: &mut Vec<Packet>) {
        if head.boxed {
            return self.other().flush(key, out);
        }
        classes::flush(&mut head.classes, &mut self.queues, key, out)
    }

    /// [`Egress::on_ctrl`].
    pub fn on_ctrl(&mut self, head: &EgressHead, now: Time, frame: &Packet) {
        if head.boxed {
            self.other().on_ctrl(now, frame);
        }
    }

    /// [`Egress::pop_upstream`] (boxed kinds only: the class scheduler
    /// sends nothing upstream).
    pub fn pop_upstream(&mut self, head: &EgressHead) -> Option<(u16, Packet)> {
        if head.boxed {
            return self.other().pop_upstream();
        }
        None
    }

    /// The boxed egress of a BFC or FlowSail port, for tests and tools.
    pub fn as_any(&self) -> Option<&dyn std::any::Any> {
        self.other.as_deref().and_then(|e| e.as_any())
    }

    /// [`Egress::on_timer`].
    pub fn on_timer(&mut self, head: &EgressHead, now: Time) {
        if head.boxed {
            self.other().on_timer(now);
        }
    }
}

const _: () = assert!(std::mem::size_of::<EgressHead>() == 3);
