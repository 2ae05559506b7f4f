//! `rdmasim config --defaults`: every config key with its default and,
//! in a comment, where that default comes from. The values are read from
//! [`NetConfig::default`] and friends, so this text cannot drift from what
//! a run uses; the text is itself a valid config.

use super::build::DEFAULT_STOP_AFTER_LAST_START_S;
use super::fabric::{PfcModeKey, DEFAULT_PFC_QUANTA, DEFAULT_PFC_REFRESH};
use super::nic::TransportKind;
use super::timeseries::{DEFAULT_INTERVAL, DEFAULT_MAX_MB, DEFAULT_PORTS};
use super::topology::{DEFAULT_LINK_DELAY, DEFAULT_LINK_RATE};
use super::workload::{DEFAULT_CDF, DEFAULT_DPORT, DEFAULT_INCAST_DPORT, DEFAULT_PG};
use super::{cc, ports};
use crate::fmt::{fmt_bytes, fmt_delta};
use net::{Headroom, NetConfig};
use std::fmt::Write as _;

const PEER: &str = "HPCC sim";

/// Every config key with its default, as a TOML file. Keys without a
/// default (the shape of the topology and the workload) are shown with the
/// values of `experiments/quickstart.toml`, and the other kinds are listed
/// in comments.
pub fn defaults_toml() -> String {
    let n = NetConfig::default();
    let wd = net::fc::WatchdogConfig::default();
    let mut s = String::new();
    let (headroom, factor) = match n.buffer.headroom {
        Headroom::RateDelay { factor } => ("auto".to_string(), factor),
        Headroom::Bytes(b) => (fmt_bytes(b), 3.0),
    };
    let pfc_mode = PfcModeKey::of(&n.pfc.mode).name();
    let b = &n.buffer;
    let c = &n.nic;
    let irn = net::IrnConfig::default();
    let pf = net::transport::pfc_free::PfcFreeConfig::default();
    let _ = write!(
        s,
        r#"# rdmasim configuration: every key with its default.
# Units are written out as strings: rates "100Gbps" (bits; "12.5GBps" is
# bytes per second, as in ns-3), durations "1us",
# sizes "32MiB" ("KB"/"MB" are decimal, "KiB"/"MiB" binary), and link
# delays either as durations or as fibre lengths ("80km", 5 us/km).
# Comments give each default's source: the peer ({PEER}: file, function
# or key; docs/sources.md), a paper, or rdmasim's own choice.

[run]
name = "defaults"                 # default: the config file's name; names runs/<name>
seed = {seed}                          # rdmasim's choice; every random stream derives from it
# stop = "10ms"                   # absolute stop time; default: last flow start + {stop_s} s (rdmasim's choice)

[topology]
# kind = "fat_tree" | "clos" | "peer_fat_tree" | "flowsail_fat_tree" | "leaf_spine" | "pods"
#        | "star" | "dumbbell" | "cross_dc" | "links" | "file"
#   fat_tree:      k (required, even), host_rate, fabric_rate (default: host_rate), delay
#   clos:          pods, tors_per_pod, aggs_per_pod, hosts_per_tor, cores, host_rate,
#                  fabric_rate, delay (defaults: the peer's fat tree, {PEER} `mix/fat.txt`)
#   peer_fat_tree: no keys (320 hosts, 100/400 Gb/s, 1 us; {PEER} `mix/fat.txt`)
#   flowsail_fat_tree: pods (default 8), oversubscription (default 2), host_rate,
#                  fabric_rate (default: host_rate), delay: pods pods of pods ToRs and aggs,
#                  pods^2 cores, oversubscription x pods hosts per ToR; the defaults are
#                  FlowSail §VI-B's 1024 hosts, 2:1 at the ToR (pods = 4: 128 hosts)
#   leaf_spine:    leaves, spines, hosts_per_leaf (required), host_rate,
#                  oversubscription (default 1.0), delay
#   pods:          pod_hosts, hosts_per_tor, leaves_per_pod, spines, host_rate, fabric_rate,
#                  delay: ToR / Leaf / Spine pods of their own sizes under shared Spines
#                  (defaults: pods of 10 and 90 hosts, 10 per ToR, 4 Leaves per pod,
#                  4 Spines, hosts at 50 Gb/s (two bonded 25G ports), fabric 100 Gb/s;
#                  Bifröst §4.3's clusters A and B; docs/pfc-free.md)
#   star:          hosts (required), rate, delay
#   dumbbell:      left, right (required), host_rate, bottleneck_rate (default: host_rate), delay
#   cross_dc:      dcs, k, hosts_per_tor, host_rate, fabric_rate, delay, long_links,
#                  long_rate, long_length or long_delay, relays (defaults: two k = 4 fat trees,
#                  2 hosts per ToR, 100 Gb/s, one 400 Gb/s x 80 km link, no relays;
#                  Swing §6.1; relays = true puts a Swing PFC relay at each
#                  end of every long link, Swing §5.1)
#   links:         hosts, switches, links (required): nodes 0.. are the hosts, then the
#                  switches; links = [{{ a, b, rate, delay }}, ...] (rate default 100Gbps,
#                  delay default 1us, or a length); parallel switch links allowed
#   file:          path (a peer topology file, relative to this file;
#                  {PEER} `third.cc` TOPOLOGY_FILE)
kind = "fat_tree"
k = 4
host_rate = "{rate}"             # rdmasim's choice (the peer's host rate, {PEER} `mix/fat.txt`)
fabric_rate = "{rate}"
delay = "{delay}"                     # rdmasim's choice (the peer's fat tree, {PEER} `mix/fat.txt`); or "80km"
error_rate_per_link = {err:?}       # {PEER} ERROR_RATE_PER_LINK
next_hop_order = "ascending"    # rdmasim's choice; "descending" is the peer's order on its fat tree (rdmasim hpcc)

[workload]
# kind = "poisson" | "incast" | "bulk" | "probes" | "rpc" | "file" | "incast_background"
#   poisson: load (required, in (0, 1]), duration (required), cdf, start, hosts
#            (default all), dsts (default: the other hosts; with it, hosts only send),
#            host_rate (default: the hosts' link rate), pg, dport, load_on: "hosts"
#            (default: load is a fraction of each host's rate) | "core" (of the core
#            links' capacity, FlowSail §VI-B; docs/reproduce-flowsail.md)
#   incast:  receiver, size (required), senders (a list) or senders_count,
#            start, pg, dport (default {incast_dport}: the peer's incast, {PEER} `fct_analysis.py`)
#   bulk:    hosts, dsts (required), flows (default 1, spread over hosts in turn), size
#            (default "endless": until the stop time, not counted as unfinished), start,
#            pg, dport (perftest's bandwidth test; Bifrost §VI-A)
#   probes:  hosts, dsts, size, interval, duration (required), start, pg, dport: flows of
#            size at Poisson times with mean gap interval (perftest's latency test)
#   rpc:     server, clients (a list) or clients_count (required), qps (QPs per client,
#            default 1), size (default "endless"), start, start_spread (default "0s": each
#            QP starts a uniform random time in [0, start_spread) after start), pg, dport
#            (default 200): each client's QPs into the server, one flow each; with
#            [transport] kind = "pfc_free", closed-loop requests of `message` bytes,
#            `io_depth` per QP (Bifröst §4.4)
#   incast_background: load (or, in [[workload.extra]], share: a share of [workload]'s
#            load on its base), duration (required), load_on, degree (default 50), min_size
#            (default 50KB), max_size (default 200KB), hosts, host_rate, start, pg, dport
#            (default {incast_dport}): degree-to-1 incast events at Poisson times, a random
#            receiver and degree random senders each, sizes uniform (FlowSail §VI-B)
#   file:    path (a peer flow file, relative to this file; {PEER} `third.cc` FLOW_FILE),
#            start_times: "exact" (default: the decimals as written) | "as_peer" (through
#            a double and truncated to the ns, as the peer reads them: 2.000000149 is
#            2000000148 ns)
# More generators, merged in: [[workload.extra]] tables with the same keys.
kind = "poisson"
load = 0.3
duration = "1ms"
cdf = "{cdf}"                # or "fb_hadoop", "fb_webserver", or a CDF file ("size cumulative" lines)
start = "0s"
pg = {pg}                            # {PEER} (pg 3 in every peer flow file)
dport = {dport}                        # {PEER} `fct_analysis.py` ("normal" traffic)

{cc}
[pfc]
enabled = {pfc_on}                    # {PEER} `switch-mmu.cc`
mode = "{pfc_mode}"           # "until_resume" ({PEER} `QbbNetDevice::Receive`) | "quanta" (IEEE 802.1Qbb)
# quanta = {quanta}                # mode = "quanta" only; rdmasim's choice (the largest pause)
# refresh_fraction = {refresh}        # mode = "quanta" only; rdmasim's choice
# classes = [1, 2, 3, 4, 5, 6, 7]    # the classes PFC pauses; any other data class is lossy (no pause, no headroom)

[buffer]
size = "{bsize}"                   # {PEER} BUFFER_SIZE (32 MB at 100G)
reserve = "{reserve}"                 # {PEER} `switch-mmu.cc` (4 KB per ingress port and class)
headroom = "{headroom}"                 # "auto" = factor x rate x delay, or a size per port; {PEER} `third.cc`
headroom_factor = {factor:?}           # {PEER} `third.cc` (3 x rate x delay)
alpha_shift = {shift}                 # {PEER} `third.cc` (alpha 1/8 at NIC speed)
resume_offset = "{resume}"           # {PEER} `switch-mmu.cc` (resume at threshold - 3 KB)
# model = "peer"                     # or "sonic": SONiC's buffer model (Azure App. A) from a
#                                      config_db JSON file; docs/sonic-buffer.md, "In a run":
# sonic = "listing1.json"            # the file, relative to this config
# sonic_switches = [4, 5]            # the switches that use it (default all)
# sonic_ports = ["Ethernet0", ...]   # the file's port per local port (default its ports by number)
# sonic_pg = {{ 3 = "ingress_lossless_profile" }}   # class -> ingress profile, every port
# sonic_queue = {{ 3 = "egress_lossless_profile" }} # class -> egress profile, every port

# Per-port settings that replace the switch-wide [buffer], [ecn] and [pfc]
# ones (none by default), by class, applied in this order, later winning:
#   [ports.hosts]         the hosts' NIC ports (fc only)
#   [ports.fabric]        every port of the switches that are not DCI switches or relays
#   [ports.spine_links]   both ends of each link between two switches without hosts
#                         (in three tiers, the links to the top one: fc = "lossy" there
#                         is PFC on ToR and Leaf but not Spine, Bifröst §4.3)
#   [ports.dci]           cross_dc: DCI switch ports towards the cores
#   [ports.relay_access]  cross_dc with relays: both ends of each DCI-relay link
#   [ports.long_haul]     cross_dc: both switch ends of each long link
#   [[ports.at]]          node = 20, port = 1: one port, any topology
{ports}# [ports.long_haul]
# xoff = "1MB"
# headroom = "40MB"
# ecn = false

# Link failures (the peer's LINK_DOWN, {PEER} `third.cc` `TakeDownLink`):
# at `at`, the link between nodes a and b goes down for good and routes are
# recomputed. None by default.
# [[link_down]]
# at = "1ms"
# a = 0
# b = 16

# PFC storm watchdog on every PFC port (Azure §3.1; docs/pfc-watchdog.md).
# Off by default.
# [pfc.watchdog]
# detect = "{wd_detect}"               # rdmasim's choice (the paper: "hundreds of ms")
# restore = "{wd_restore}"              # rdmasim's choice (SONiC's rule: no pause frame for this long)
# action = "{wd_action}"                # or "forward"
# drop_interval = "{wd_drop}"           # rdmasim's choice
# on = "all"                     # or "switches", "hosts"

# Injected PFC storms: node pauses its neighbour peer without end (Azure
# §3.1). None by default.
# [[pfc_storm]]
# node = 0
# peer = 16
# class = {pg}
# start = "0s"
# interval = "{storm_interval}"             # rdmasim's choice

# DCQCN per NIC generation on the hosts listed (Azure §7.2;
# docs/dcqcn-generations.md). Off by default.
# [dcqcn_fleet]
# gen1 = [0, 1]
# gen2 = [2]
# gen1_cnp_interval = "{gen1_cnp}"    # DCQCN §3, the NP algorithm (the paper gives none)
# interop_fix = false
# gen1_burst = 1                  # packets per rate-limiter burst; 1 = per packet
#                                 # (Gen1 is per burst, Azure §7.2; no size given)
# gen2_burst = 1                  # and gen3_burst: 1, or gen1_burst with the fix
# gen1_loss_recovery = "{gen1_rec}"   # go-back-N after a NACK (Azure §2.4: hundreds of us)
# congestion_leaking = []         # generations with the head-of-line bug (Azure §8.3),
#                                 # e.g. ["gen2"]: every QP of the NIC at the slowest's rate

[ecn]
enabled = {ecn_on}                    # {PEER} ENABLE_QCN
# Thresholds per port speed (a [[ecn.thresholds]] list replaces all of these);
# a port of another speed scales the nearest entry. {PEER} run.py
# KMIN_MAP/KMAX_MAP/PMAX_MAP, mix/config.txt.
"#,
        seed = n.seed,
        cc = cc::defaults_text(),
        ports = ports::defaults_text(),
        stop_s = DEFAULT_STOP_AFTER_LAST_START_S,
        rate = DEFAULT_LINK_RATE,
        delay = DEFAULT_LINK_DELAY,
        err = n.error_rate_per_link,
        incast_dport = DEFAULT_INCAST_DPORT,
        cdf = DEFAULT_CDF,
        pg = DEFAULT_PG,
        dport = DEFAULT_DPORT,
        pfc_on = n.pfc.enabled,
        quanta = DEFAULT_PFC_QUANTA,
        refresh = DEFAULT_PFC_REFRESH,
        bsize = fmt_bytes(b.size),
        reserve = fmt_bytes(b.reserve),
        shift = b.alpha_shift,
        resume = fmt_bytes(b.resume_offset),
        ecn_on = n.ecn.enabled,
        wd_detect = fmt_delta(wd.detect),
        wd_restore = fmt_delta(wd.restore),
        wd_action = wd.action.name(),
        wd_drop = fmt_delta(wd.drop_interval),
        storm_interval = super::build::DEFAULT_STORM_INTERVAL,
        gen1_cnp = fmt_delta(super::fleet::DEFAULT_GEN1_CNP_INTERVAL),
        gen1_rec = fmt_delta(super::fleet::DEFAULT_GEN1_LOSS_RECOVERY),
    );
    for t in &n.ecn.thresholds {
        let _ = write!(
            s,
            "\n[[ecn.thresholds]]\nrate = \"{}\"\nkmin = \"{}KB\"\nkmax = \"{}KB\"\npmax = {:?}\n",
            t.rate,
            t.kmin / 1000,
            t.kmax / 1000,
            t.pmax
        );
    }
    let window = match c.window {
        Some(w) => format!("window = \"{}\"", fmt_bytes(w)),
        None => "# window = \"150KB\"".to_string(),
    };
    let _ = write!(
        s,
        r#"
[nic]
mtu = "{mtu}B"                     # payload per packet; {PEER} PACKET_PAYLOAD_SIZE
data_header = "{hdr}B"               # {PEER} `CustomHeader` (14 + 20 + 8 + 6)
ack_bytes = "{ack}B"                 # {PEER} `RdmaHw::ReceiveUdp` (padded to 60 B)
ack_high_prio = {ahp}              # {PEER} ACK_HIGH_PRIO
switch_ack_high_prio = {sahp}       # switches carry those ACKs in class 0 too; rdmasim's choice (the peer: false; `third.cc` sets it on hosts only)
rate_bound = {rb}                 # {PEER} RATE_BOUND
{window}             # fixed in-flight window; default none ({PEER} run.py: HAS_WIN 0 for DCQCN)
nack_interval = "{nack}"          # {PEER} `RdmaHw` (NACK generation interval)
ack_interval = "{acki}B"              # {PEER} L2_ACK_INTERVAL
chunk = "{chunk}B"                  # {PEER} L2_CHUNK_SIZE
back_to_zero = {btz}              # {PEER} L2_BACK_TO_ZERO
bdp_window = {bdpw}               # window = BDP; {PEER} HAS_WIN (1 for HPCC/DCTCP in run.py)
global_t = {gt}                  # base RTT/BDP = maxima over all pairs; {PEER} GLOBAL_T
var_win = {vw}                   # window x rate / line rate; {PEER} VAR_WIN
# one_chunk_in_flight = "64KB"    # a QP's next chunk waits for the last one's ACK (Azure §4.1); default off
rto = "{rto}"                       # go-back-N's retransmission timeout or "off"; rdmasim's choice (the peer has none)

[transport]
kind = "{tr_kind}"                # "go_back_n" ({PEER} `RdmaHw`) | "irn" (selective repeat; IRN, Swing §2.1) | "pfc_free" (Bifröst's UC + software control path; not fc "bifrost")
# Used with kind = "irn": Swing's IRN-intra (Swing §6.1). IRN runs
# on a lossy fabric: choosing it turns PFC off unless [pfc] enabled is given, so
# remove "enabled" above (or set it to false). [nic] rto, nack_interval,
# ack_interval, chunk and back_to_zero are go-back-N's and do not apply.
# bitmap = {irn_bitmap}                    # packets outstanding beyond the cumulative ACK (BDP-FC): one BDP of a 12.72 us, 100G path in 1500 B packets
# rto_low = "{irn_low}"                # timeout while fewer than rto_low_threshold packets are in flight (about the base RTT)
# rto_high = "{irn_high}"              # timeout otherwise
# rto_low_threshold = {irn_n}           # IRN's N (IRN's rule; Swing §2.1 says flows "less than three MTU" long)
# IRN-inter (Swing §6.1): bitmap = 6809, rto_low = "817us", rto_high = "1875us".
# Bifrost's IRN (Bifrost §VI-B): bitmap = 50134,
# rto_low = "6017us", rto_high = "7075us".
# Used with kind = "pfc_free" (Bifröst; docs/pfc-free.md). A flow is one
# connection whose bytes go as messages of `message` bytes. Its queue "lossy"
# turns PFC off unless [pfc] enabled is given (and refuses it given as true);
# "lossless" runs beside PFC and [cc]'s hardware control. [nic] rto and
# go-back-N's keys do not apply.
# unit = "{pf_unit}"                      # UNIT_SIZE, the minimum chunk and the size of each resent SEND (Bifröst §4.1; §4.4 runs 1KiB)
# max_chunk = "{pf_max}"                # largest chunk (Bifröst §4.1)
# send_max = "{pf_send}"                 # messages up to this go by SEND, larger by WRITE_WITH_IMM (Bifröst §3.2)
# message = "0"                          # bytes per message; "0" = unit x 1024, the largest a WRITE's 10-bit offset addresses (Bifröst App. A.1.1)
# io_depth = {pf_depth}                       # messages outstanding per connection (Bifröst §4.2's I/O depth)
# ack_count = {pf_count}                     # ACK after this many WQEs (Bifröst §3.4.2, §4.1); 1 to 32
# ack_bytes = "{pf_bytes}"                # ... or this many bytes (Bifröst §4.1)
# ack_timer = "{pf_timer}"                # ... or this long after the first pending WQE (Bifröst §4.1)
# ack_class = {pf_class}                      # the ACKs' priority class (the high-priority UD QP, Bifröst §3.4.3); 0 = strict priority
# base_rtt = "{pf_base}"                  # the window's target and chunking's zero-queueing RTT (Bifröst §4.1)
# chunk_shrink_delay = "{pf_shrink}"        # queueing delay at which a chunk is one unit, linearly; rdmasim's choice
# sw_cc = {pf_cc}                       # the software RTT window (Swift-like, [cc] kind = "swift"'s formula)
# rto_min = "{pf_rto}"                  # lowest timeout: max(SRTT + 4 RTTVAR, rto_min) + ack_timer; rdmasim's choice
# rto_init = "{pf_rto_init}"               # timeout before the first RTT sample (RFC 6298 §2.1); rdmasim's choice
# rto_max = "{pf_rto_max}"                # each timeout in a row doubles the timeout, up to this (RFC 6298 back-off); rdmasim's choice
# init_window = "{pf_unit}"               # the window a connection starts with; default one unit, the minimum window; rdmasim's choice
# backups = {pf_backups}                        # backup QPs; a timeout moves to the next on a new source port (Bifröst §3.4.2, App. A.3); at most 3
# qp_switch = "{pf_switch}"                # time to move to a backup QP (Bifröst §3.4.2)
# queue = "{pf_queue}"                   # "lossy" (no PFC) | "lossless" (beside PFC and DCQCN, Bifröst §4.3)
# class = 4                             # only flows of this class use it, the rest go-back-N; "lossy" then leaves PFC on the others (Bifröst §4.3)
# qp_type = "{pf_qp}"                    # "uc" (software reliability) | "rc" (the NIC's go-back-N with software help, Bifröst §3.4.2)
# rc_retry = {pf_retry}                       # RC: the NIC's retries after a NAK or ACK timeout before the error state (Bifröst §3.4.2); 0 to 7
# rc_ack_timeout = "{pf_ack_to}"         # RC: the NIC's local ACK timeout (4.096us x 2^4); rdmasim's choice
# rc_recover = "{pf_recover}"                # RC: time to bring a QP back from the error state (Bifröst §3.4.2)

# The hosts' CPU, for the PFC-free transport's software path
# (docs/pfc-free.md, "The host's CPU"): cores per host, and what each
# operation costs a core (rdmasim's constants, calibrated against Bifröst
# Fig. 6b). Outputs: summary.json's host_cpu, hosts.csv.
[host]
cores = {host_cores}                         # cores per host; 0: no CPU model
post_wqe = "{host_post}"               # posting one WQE
poll_cqe = "{host_poll}"                # polling one completion (send or receive)
build_ack = "{host_build}"              # building one software ACK (receiver)
parse_ack = "{host_parse}"              # parsing one software ACK (sender)

[output]
record_pfc = false                # write pfc.txt ({PEER} `third.cc` `get_pfc`, PFC file); rdmasim's choice

# Time series (timeseries.csv, qp_rates.csv): off unless this section is
# present; rdmasim's choices.
# [timeseries]
# interval = "{ts_interval}"               # one sample per interval
# ports = "{ts_ports}"            # "all-switch" | "all" | [{{node = 20, port = 1}}, ...]
# classes = [3]                   # default: the classes of the workload's flows
# qp_rates = false                # also every active QP's rate
# start = "0s"                    # first sample
# stop = "5ms"                    # default: until the run ends
# max_mb = {ts_max_mb:?}                  # stop sampling once the files reach about this size

# Packet capture (capture.pcapng, for Wireshark and tshark; docs/capture.md):
# off unless this section is present; rdmasim's choices.
# [capture]
# ports = [{{node = 20, port = 1}}]   # required: "all-switch" | "all" | a list
# direction = "{cap_dir}"               # "tx" (sent) | "rx" (received) | "both"
# start = "0s"                      # window start
# stop = "1ms"                      # window end (excluded); default: until the run ends
# snaplen = {cap_snap}                     # bytes kept of each frame
# flows = [0]                       # only these flows (and PFC and credit frames)
# classes = [3]                     # only these priority classes
# max_frames = {cap_max}              # stop recording after this many frames

# One run on several threads (docs/parallel.md): the same outputs, byte
# for byte, on any count; --threads N replaces threads.
# [engine]
# threads = 2                       # default: the machine's cores, capped by the partitions
# partitions = [[0, 1, 16], [2, 3, 17]]  # default: cut automatically; else every node once
# long_link_factor = {llf}              # links this many times the shortest are cut first
"#,
        llf = net::partition::LONG_LINK_FACTOR,
        mtu = c.mtu_payload,
        hdr = c.data_header,
        ack = c.ack_bytes,
        ahp = c.ack_high_prio,
        rb = c.rate_bound,
        sahp = c.switch_ack_high_prio,
        nack = fmt_delta(c.nack_interval),
        acki = c.ack_interval,
        chunk = c.chunk,
        btz = c.back_to_zero,
        ts_interval = DEFAULT_INTERVAL,
        ts_ports = DEFAULT_PORTS,
        ts_max_mb = DEFAULT_MAX_MB,
        cap_dir = super::capture::DEFAULT_DIRECTION,
        cap_snap = super::capture::DEFAULT_SNAPLEN,
        cap_max = super::capture::DEFAULT_MAX_FRAMES,
        bdpw = c.bdp_window,
        gt = c.global_t,
        vw = c.var_win,
        rto = c.rto.map_or("off".to_string(), fmt_delta),
        tr_kind = TransportKind::of(&c.transport).name(),
        irn_bitmap = irn.bitmap_packets,
        irn_low = fmt_delta(irn.rto_low),
        irn_high = fmt_delta(irn.rto_high),
        irn_n = irn.rto_low_threshold_packets,
        pf_unit = fmt_bytes(pf.unit),
        pf_max = fmt_bytes(pf.max_chunk),
        pf_send = fmt_bytes(pf.send_max),
        pf_depth = pf.io_depth,
        pf_count = pf.ack_count,
        pf_bytes = fmt_bytes(pf.ack_bytes),
        pf_timer = fmt_delta(pf.ack_timer),
        pf_class = pf.ack_class,
        pf_base = fmt_delta(pf.base_rtt),
        pf_shrink = fmt_delta(pf.chunk_shrink_delay),
        pf_cc = pf.sw_cc,
        pf_rto = fmt_delta(pf.rto_min),
        pf_rto_init = fmt_delta(pf.rto_init),
        pf_rto_max = fmt_delta(pf.rto_max),
        pf_backups = pf.backups,
        pf_switch = fmt_delta(pf.qp_switch),
        pf_queue = pf.queue.name(),
        pf_qp = pf.qp_type.name(),
        pf_retry = pf.rc_retry,
        pf_ack_to = fmt_delta(pf.rc_ack_timeout),
        pf_recover = fmt_delta(pf.rc_recover),
        host_cores = n.host.cores,
        host_post = fmt_delta(n.host.post_wqe),
        host_poll = fmt_delta(n.host.poll_cqe),
        host_build = fmt_delta(n.host.build_ack),
        host_parse = fmt_delta(n.host.parse_ack),
    );
    align_comments(&s)
}

/// Line up the comments after `key = value` lines at one column.
fn align_comments(text: &str) -> String {
    const COLUMN: usize = 34;
    let mut out = String::with_capacity(text.len() + 1024);
    for line in text.lines() {
        // `key = value  # comment`, or the same commented out.
        let comment = line.find(" # ").filter(|&i| line[..i].contains(" = "));
        match comment {
            Some(i) => {
                let code = line[..i].trim_end();
                let _ = writeln!(out, "{code:<COLUMN$}{}", &line[i + 1..]);
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::build::build_scenario;
    use super::super::parse::parse_config;
    use super::*;
    use std::path::Path;

    #[test]
    fn the_defaults_are_a_config_that_builds_the_default_network() {
        let text = defaults_toml();
        let cfg = parse_config(&text, "defaults.toml").unwrap_or_else(|e| panic!("{e}\n{text}"));
        let s = build_scenario(&cfg, Path::new("")).unwrap();
        let expected = NetConfig {
            stop_time: s.net.stop_time,
            ..NetConfig::default()
        };
        assert_eq!(s.net, expected);
    }

    /// The commented `[[link_down]]` example, uncommented, is a failure the
    /// default network accepts.
    #[test]
    fn the_link_down_example_builds() {
        let text = defaults_toml();
        let start = text.find("# [[link_down]]").expect("an example");
        let example: String = text[start..]
            .lines()
            .take_while(|l| l.starts_with("# "))
            .map(|l| format!("{}\n", &l[2..]))
            .collect();
        assert_eq!(example.lines().count(), 4, "{example}");
        let cfg = parse_config(&format!("{text}\n{example}"), "d.toml").unwrap();
        let s = build_scenario(&cfg, Path::new("")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.net.link_down.len(), 1);
    }
}
