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
        required_unless_present_any = ["sonic", "plan"]
    )]
    rate: Option<String>,
    /// Fibre length of the long link, e.g. 80km (5 us of one-way delay per km).
    #[arg(
        long,
        value_name = "LENGTH",
        allow_hyphen_values = true,
        required_unless_present_any = ["sonic", "plan"]
    )]
    distance: Option<String>,
    /// Instead, describe and check a switch's SONiC buffer configuration
    /// (config_db JSON); with --rate and --distance, against the cable its
    /// lossless ingresses face. Exit code 1 when a check fails.
    #[arg(long, value_name = "FILE", conflicts_with = "plan")]
    sonic: Option<std::path::PathBuf>,
    /// With --sonic or --plan: the switch's physical buffer (default with
    /// --sonic: its largest pool).
    #[arg(long, value_name = "BYTES", allow_hyphen_values = true)]
    buffer: Option<String>,
    /// With --sonic: also report pause and drop points for these numbers
    /// of equally congested queues (and the PFC-before-ECN lint for them).
    #[arg(long, value_name = "N,...", value_delimiter = ',', requires = "sonic")]
    congested: Vec<u32>,
    /// With --sonic: ECN Kmin of the egress queue; checks that ECN marks
    /// before PFC pauses under 1 and --congested N-way incast.
    #[arg(
        long,
        value_name = "BYTES",
        requires = "sonic",
        allow_hyphen_values = true
    )]
    kmin: Option<String>,
    /// Instead, plan a shared headroom pool for a port mix:
    /// COUNTxRATE@LENGTH,... (e.g. 32x100Gbps@3m,8x100Gbps@80km).
    /// Exit code 1 when the plan is unsafe.
    #[arg(long, value_name = "PORTS", conflicts_with_all = ["rate", "distance"])]
    plan: Option<String>,
    /// With --plan: lossless priorities per port.
    #[arg(long, value_name = "N", default_value_t = 2, requires = "plan")]
    priorities: u32,
    /// With --plan: reserved headroom ÷ pool size (Azure's is not given).
    #[arg(long, value_name = "RATIO", requires = "plan")]
    oversubscription: Option<f64>,
    /// With --plan: the peer's response time to a pause.
    #[arg(
        long,
        value_name = "DURATION",
        default_value = "0us",
        requires = "plan"
    )]
    response: String,
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
    let bytes = |arg: &str, v: &Option<String>| -> Result<Option<u64>, Failure> {
        v.as_deref()
            .map(|v| {
                engine::units::parse_bytes(v).map_err(|m| {
                    Failure::Experiment(
                        engine::InputError::at("<command line>", None, arg, m).into(),
                    )
                })
            })
            .transpose()
    };
    let physical = bytes("--buffer", &a.buffer)?;
    if let Some(path) = &a.sonic {
        let cfg = net::sonic_buffer::read(path).map_err(experiment::ExperimentError::from)?;
        let cable = match (&a.rate, &a.distance) {
            (Some(r), Some(d)) => Some(LongLink::parse(r, d, buffer::parse_mtu(&a.mtu)?)?),
            _ => None,
        };
        let input = experiment::sonic_check::CheckInput {
            buffer: physical,
            cable,
            congested: a.congested.clone(),
            kmin: bytes("--kmin", &a.kmin)?,
        };
        let checked = experiment::sonic_check::check(&cfg, &input);
        let mut o = std::io::stdout().lock();
        o.write_all(experiment::sonic::report(&cfg).as_bytes())?;
        o.write_all(checked.text.as_bytes())?;
        o.flush()?;
        return Ok(u8::from(!checked.failures.is_empty()));
    }
    if let Some(ports) = &a.plan {
        let mtu = buffer::parse_mtu(&a.mtu)?;
        let groups = experiment::headroom_plan::parse_ports(ports, mtu)?;
        let response = engine::units::parse_time(&a.response).map_err(|m| {
            Failure::Experiment(
                engine::InputError::at("<command line>", None, "--response", m).into(),
            )
        })?;
        let Some(oversubscription) = a.oversubscription else {
            return Err(Failure::Experiment(
                engine::InputError::at(
                    "<command line>",
                    None,
                    "--oversubscription",
                    "missing; --plan needs the pool's oversubscription ratio (the paper gives none)",
                )
                .into(),
            ));
        };
        let input = experiment::headroom_plan::PlanInput {
            priorities: a.priorities,
            oversubscription,
            response,
            buffer: physical,
        };
        let p = experiment::headroom_plan::plan(&groups, &input)?;
        let mut o = std::io::stdout().lock();
        o.write_all(p.text.as_bytes())?;
        o.flush()?;
        return Ok(u8::from(!p.failures.is_empty()));
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
