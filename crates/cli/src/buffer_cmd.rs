//! `rdmasim buffer`: argument parsing and printing; the arithmetic is in
//! `experiment::buffer`.

use crate::Failure;
use clap::Args;
use experiment::buffer::{self, LongLink, Scheme};
use std::io::Write;

/// `rdmasim buffer`.
#[derive(Debug, Args)]
pub(crate) struct BufferArgs {
    /// Line rate of the long link, e.g. 400Gbps.
    #[arg(
        long,
        value_name = "RATE",
        allow_hyphen_values = true,
        required_unless_present = "sonic"
    )]
    rate: Option<String>,
    /// Fibre length of the long link, e.g. 80km (5 us of one-way delay per km).
    #[arg(
        long,
        value_name = "LENGTH",
        allow_hyphen_values = true,
        required_unless_present = "sonic"
    )]
    distance: Option<String>,
    /// Instead, describe a switch's SONiC buffer configuration (config_db JSON).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["rate", "distance"])]
    sonic: Option<std::path::PathBuf>,
    /// Largest frame on the link: bytes, bare or with a unit (1500, 1500B, 9KB).
    #[arg(long, value_name = "BYTES", default_value_t = buffer::DEFAULT_MTU.to_string(), allow_hyphen_values = true)]
    mtu: String,
    /// Which scheme: pfc, swing, bifrost, cbfc or all.
    #[arg(long, value_name = "NAME", default_value = "all")]
    scheme: String,
    /// Bifrost's time slot T.
    #[arg(long, value_name = "DURATION", default_value_t = buffer::DEFAULT_SLOT.to_string())]
    slot: String,
    /// Bifrost's leak-check period k, in slots.
    #[arg(long, value_name = "N", default_value_t = buffer::DEFAULT_K)]
    k: u32,
}

pub(crate) fn buffer(a: BufferArgs) -> Result<u8, Failure> {
    if let Some(path) = &a.sonic {
        let report = experiment::sonic::report_file(path)?;
        let mut o = std::io::stdout().lock();
        o.write_all(report.as_bytes())?;
        o.flush()?;
        return Ok(0);
    }
    let (Some(rate), Some(distance)) = (&a.rate, &a.distance) else {
        unreachable!("clap requires --rate and --distance without --sonic");
    };
    let mtu = buffer::parse_mtu(&a.mtu)?;
    let link = LongLink::parse(rate, distance, mtu)?;
    let schemes: Vec<Scheme> = Scheme::parse(&a.scheme)?;
    let slot = buffer::parse_slot(&a.slot)?;
    let mut o = std::io::stdout().lock();
    o.write_all(buffer::report(&link, &schemes, slot, a.k).as_bytes())?;
    o.flush()?;
    Ok(0)
}
