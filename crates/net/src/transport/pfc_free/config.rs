//! The PFC-free transport's settings and their defaults, each from the
//! Bifröst paper where it gives one (Bifröst §3.2, §3.4, §4.1, App. A) and
//! rdmasim's choice where it is silent (`docs/pfc-free.md`).

use engine::Delta;

/// Which of the paper's two switch queues the data QPs use (Bifröst
/// §4.1): the RDMA priority with PFC and ECN ("lossless"), or a reserved
/// priority without PFC ("lossy").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PfcFreeQueue {
    /// No PFC: a full buffer drops (the paper's default).
    #[default]
    Lossy,
    /// PFC on; the software control path runs beside PFC and the
    /// hardware congestion control (Bifröst §4.3, upgrade step 2 of §4.6.1).
    Lossless,
}

impl PfcFreeQueue {
    /// Its name in a config.
    pub fn name(self) -> &'static str {
        match self {
            PfcFreeQueue::Lossy => "lossy",
            PfcFreeQueue::Lossless => "lossless",
        }
    }
}

/// The QP type that carries the data (Bifröst §3.3, §3.4.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum QpType {
    /// Unreliable Connection: a WQE with a lost packet is dropped whole,
    /// the software resends it (the paper's default).
    #[default]
    Uc,
    /// Reliable Connection with software help: the NIC's go-back-N with a
    /// small retry count; the software window, chunking, timeout and
    /// backup QPs stay (`transport/pfc_free/rc.rs`).
    Rc,
}

impl QpType {
    /// Its name in a config.
    pub fn name(self) -> &'static str {
        match self {
            QpType::Uc => "uc",
            QpType::Rc => "rc",
        }
    }
}

/// The PFC-free transport: UC data QPs, software ACKs on a high-priority
/// class, selective retransmission per chunk, chunking and an RTT-based
/// window (Bifröst §3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PfcFreeConfig {
    /// UNIT_SIZE, the minimum chunk, in bytes: every chunk is a multiple of
    /// it and every retransmission SEND is one unit. 4 KB (Bifröst §4.1,
    /// App. A.1.1); §4.4 also runs 1 KB.
    pub unit: u64,
    /// The largest chunk, bytes. 64 KB (Bifröst §4.1).
    pub max_chunk: u64,
    /// Messages of at most this many bytes go by SEND, larger ones by
    /// WRITE_WITH_IMM. 32 KB (Bifröst §3.2: "small messages (e.g., ≤
    /// 32KB)").
    pub send_max: u64,
    /// Bytes per message (the application's request size); a flow is a
    /// connection carrying its bytes as messages of this size, the last one
    /// shorter. 0: messages of the largest size a WRITE's 10-bit chunk
    /// offset can address, `unit` × 1024 (Bifröst App. A.1.1).
    pub message: u64,
    /// Messages a connection has outstanding (posted, not yet acknowledged
    /// in full) at most: the RPC benchmark's I/O depth, 8 (Bifröst §4.2).
    pub io_depth: u32,
    /// The receiver ACKs once this many WQEs are pending. 32 (Bifröst
    /// §3.4.2, §4.1; also the ACK bitmap's width, App. A.1.2).
    pub ack_count: u32,
    /// ... or once this many bytes are pending. 32 KB (Bifröst §4.1).
    pub ack_bytes: u64,
    /// ... or this long after the first pending WQE arrived. 120 µs
    /// (Bifröst §4.1). The paper does not say whether the timer restarts
    /// with each arrival; rdmasim's runs from the first (a bounded delay).
    pub ack_timer: Delta,
    /// Priority class of the ACK frames (the high-priority UD QP, Bifröst
    /// §3.4.3). 0: rdmasim's strict-priority class, as its NIC's ACKs.
    pub ack_class: u8,
    /// base_RTT: the software window's target delay and the chunking's
    /// zero-queueing RTT. 50 µs (Bifröst §4.1).
    pub base_rtt: Delta,
    /// Queueing delay (RTT − base_RTT) at which the chunk shrinks to one
    /// unit; it shrinks linearly up to it. The paper says only that a
    /// smaller chunk is used as queueing grows (Bifröst §3.4.1): rdmasim's
    /// choice, 50 µs.
    pub chunk_shrink_delay: Delta,
    /// The software congestion control (RTT AIMD, Bifröst §3.4.3); off,
    /// only the hardware congestion control (`[cc]`) and the minimum
    /// window of one unit per QP hold the sender.
    pub sw_cc: bool,
    /// The lowest retransmission timeout. The paper sets the timeout from
    /// the RTT without a formula (Bifröst §3.1): rdmasim takes RFC 6298's
    /// SRTT + 4·RTTVAR, at least this, plus the ACK timer (an ACK may wait
    /// that long at the receiver). 200 µs, rdmasim's choice.
    pub rto_min: Delta,
    /// The timeout before the first RTT is measured (RFC 6298 §2.1; the
    /// paper gives none). 10 ms, rdmasim's choice: longer than the first
    /// round trip of thousands of connections opening together into one
    /// server (Bifröst §4.4: a minimum window each, queued at its ToR port),
    /// which a shorter one would declare lost and resend.
    pub rto_init: Delta,
    /// The longest retransmission timeout: each timeout in a row doubles
    /// the timeout (RFC 6298 §5.5's back-off; the paper gives no rule), up
    /// to this, and an RTT sample ends the back-off. 100 ms, rdmasim's
    /// choice.
    pub rto_max: Delta,
    /// The window a connection starts with, bytes; `None`: one unit, the
    /// minimum window. The paper does not give it
    /// (Bifröst §3.4.3): rdmasim starts at one unit, the minimum window,
    /// and grows from there (one unit per round trip below `base_rtt`), so
    /// that thousands of connections opening together into one server
    /// (Bifröst §4.4) do not each burst a full window.
    pub init_window: Option<u64>,
    /// Backup QPs per connection; a timeout moves the connection to the
    /// next, on a new UDP source port (a new ECMP path). 2 (Bifröst
    /// §3.4.2, App. A.3).
    pub backups: u32,
    /// Time to move to a backup QP, during which nothing is resent. About
    /// 60 µs (Bifröst §3.4.2).
    pub qp_switch: Delta,
    /// The switch queue the data uses.
    pub queue: PfcFreeQueue,
    /// The one priority class whose flows use this transport, the others
    /// going by go-back-N (hardware RC) beside it, with PFC on the classes
    /// `[pfc] classes` protects (Bifröst §4.3, §4.6.1). `None` (the
    /// default): every flow uses this transport.
    pub class: Option<u8>,
    /// UC (the default) or RC data QPs.
    pub qp_type: QpType,
    /// RC: times the NIC resends after a NAK or its ACK timeout before the
    /// QP goes to the error state. 2 (Bifröst §3.4.2).
    pub rc_retry: u32,
    /// RC: the NIC's local ACK timeout. The paper gives none: rdmasim's
    /// choice, 4.096 µs × 2^4 ≈ 65.5 µs (the verbs encode the timeout
    /// as 4.096 µs × 2^n): the first send and both retries (3 × 65.5 µs)
    /// fit within the lowest software timeout (`rto_min`, 200 µs).
    pub rc_ack_timeout: Delta,
    /// RC: time to bring a QP back from the error state (it reconnects in
    /// the background and serves again as a backup only then). About
    /// 5 ms (Bifröst §3.4.2).
    pub rc_recover: Delta,
}

impl Default for PfcFreeConfig {
    fn default() -> Self {
        PfcFreeConfig {
            unit: 4096,
            max_chunk: 64 * 1024,
            send_max: 32 * 1024,
            message: 0,
            io_depth: 8,
            ack_count: 32,
            ack_bytes: 32 * 1024,
            ack_timer: Delta::from_us(120),
            ack_class: 0,
            base_rtt: Delta::from_us(50),
            chunk_shrink_delay: Delta::from_us(50),
            sw_cc: true,
            rto_min: Delta::from_us(200),
            rto_init: Delta::from_ms(10),
            rto_max: Delta::from_ms(100),
            init_window: None,
            backups: 2,
            qp_switch: Delta::from_us(60),
            queue: PfcFreeQueue::Lossy,
            class: None,
            qp_type: QpType::Uc,
            rc_retry: 2,
            rc_ack_timeout: Delta::from_ns(65_536),
            rc_recover: Delta::from_ms(5),
        }
    }
}

/// QPs a connection can use: the primary and at most three backups.
pub const MAX_PATHS: u32 = 4;

/// Offsets a WRITE's chunk-offset field can hold: 10 bits (Bifröst
/// App. A.1.1), so a message is at most `unit` × 1024 bytes.
pub const OFFSET_UNITS: u64 = 1 << 10;

/// Message ids a WRITE's RN can hold: 21 bits (Bifröst App. A.1.1).
pub const MID_BITS: u32 = 21;

/// Bytes of an ACK's fixed part and of each acknowledged number (Bifröst
/// App. A.1.2, Fig. 15).
pub const ACK_FIXED_BYTES: u32 = 24;
/// Bytes per acknowledged number in an ACK.
pub const ACK_ENTRY_BYTES: u32 = 4;

impl PfcFreeConfig {
    /// The message size in use: `message`, or the largest a WRITE can
    /// address.
    pub fn message_bytes(&self) -> u64 {
        if self.message == 0 {
            self.max_message()
        } else {
            self.message
        }
    }

    /// The largest message a WRITE's RN can address.
    pub fn max_message(&self) -> u64 {
        self.unit * OFFSET_UNITS
    }
}
