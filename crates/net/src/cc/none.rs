//! No congestion control: every QP sends at its NIC's line rate.

use super::hooks::CongestionControl;
use engine::Rate;

/// Always line rate.
#[derive(Clone, Debug)]
pub struct LineRate {
    rate: Rate,
}

impl LineRate {
    /// A controller fixed at `line_rate`.
    pub fn new(line_rate: Rate) -> LineRate {
        LineRate { rate: line_rate }
    }
}

impl CongestionControl for LineRate {
    fn rate(&self) -> Rate {
        self.rate
    }
}
