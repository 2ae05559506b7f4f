//! A config from text to scenario: what builds, and the one error each
//! mistake gives.

use super::build::{build_scenario, build_timeseries};
use super::defaults::defaults_toml;
use super::doc::ConfigDoc;
use super::fabric::PfcModeKey;
use super::nic::TransportKind;
use super::parse::parse_config;
use super::timeseries::{DEFAULT_INTERVAL, DEFAULT_MAX_MB, ROW_BYTES};
use super::workload::{unread_flows_warning, DEFAULT_DPORT, DEFAULT_INCAST_DPORT};
use crate::error::ExperimentError;
use crate::scenario::Scenario;
use engine::units::parse_time;
use engine::{Delta, Rate, Time};
use net::cc::CcConfig;
use net::monitor::{MonitorConfig, MonitorPorts};
use net::{IrnConfig, Transport};
use std::path::Path;

const SMALL: &str = r#"
[run]
name = "small"

[topology]
kind = "star"
hosts = 4

[workload]
kind = "incast"
senders = [0, 1, 2]
receiver = 3
size = "10KB"
"#;

fn err_of(text: &str) -> String {
    match parse_config(text, "t.toml").and_then(|c| build_scenario(&c, Path::new(""))) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn builds_a_small_scenario() {
    let cfg = parse_config(SMALL, "t.toml").unwrap();
    let s = build_scenario(&cfg, Path::new("")).unwrap();
    assert_eq!(s.name, "small");
    assert_eq!(s.topo.hosts().len(), 4);
    assert_eq!(s.flows.len(), 3);
    assert_eq!(s.flows[0].dport, DEFAULT_INCAST_DPORT);
    assert_eq!(s.net.cc, CcConfig::None);
    assert_eq!(s.net.stop_time, Some(Time::from_ns(1_000_000_000)));
}

const LINKS: &str = r#"
[topology]
kind = "links"
hosts = 3
switches = 2
links = [
{ a = 0, b = 3 },
{ a = 1, b = 3 },
{ a = 2, b = 4, rate = "40Gbps" },
{ a = 3, b = 4, delay = "80km" },
{ a = 3, b = 4, delay = "80km" },
]

[workload]
kind = "bulk"
hosts = [0, 1]
dsts = [2]
flows = 5
size = "1MB"
start = "1us"

[[workload.extra]]
kind = "probes"
hosts = [0]
dsts = [2]
size = "8KB"
interval = "10us"
start = "1ms"
duration = "1ms"
dport = 300
"#;

#[test]
fn a_link_list_topology_with_bulk_flows_and_probes() {
    let s = build_scenario(&parse_config(LINKS, "t.toml").unwrap(), Path::new("")).unwrap();
    assert_eq!(s.topo.hosts(), vec![0, 1, 2]);
    assert_eq!(s.topo.links.len(), 5);
    assert_eq!(s.topo.links[2].rate, Rate::gbps(40));
    // 80 km of fibre at 5 us/km; the default delay elsewhere.
    assert_eq!(s.topo.links[3].delay, Delta::from_us(400));
    assert_eq!(s.topo.links[0].delay, Delta::from_us(1));
    let bulk: Vec<_> = s
        .flows
        .iter()
        .filter(|f| f.dport == DEFAULT_DPORT)
        .collect();
    assert_eq!(bulk.len(), 5);
    assert_eq!(bulk.iter().filter(|f| f.src == 0).count(), 3);
    assert!(bulk.iter().all(|f| f.dst == 2 && f.size == 1_000_000));
    let probes: Vec<_> = s.flows.iter().filter(|f| f.dport == 300).collect();
    // ~100 probes at a 10 us mean gap over 1 ms.
    assert!((60..140).contains(&probes.len()), "{}", probes.len());
    assert!(probes.iter().all(|f| f.src == 0 && f.size == 8_000));
}

#[test]
fn a_bad_link_list_names_the_link_and_field() {
    let text = LINKS.replace("{ a = 2, b = 4, rate", "{ a = 2, b = 9, rate");
    let e = err_of(&text);
    // The line of the entry, not of `links = [`.
    let line = text
        .lines()
        .position(|l| l.contains("{ a = 2, b = 9"))
        .unwrap()
        + 1;
    assert!(
        e.starts_with(&format!("t.toml:{line}: topology.links[2].b: "))
            && e.contains("does not exist"),
        "{e}"
    );
    let e = err_of(&LINKS.replace("rate = \"40Gbps\"", "rate = \"40Gbs\""));
    assert!(e.contains("topology.links[2].rate"), "{e}");
    let e = err_of(&LINKS.replace("switches = 2\n", ""));
    assert!(
        e.contains("topology.switches") && e.contains("missing"),
        "{e}"
    );
    let e = err_of(&LINKS.replace("flows = 5", "flows = 0"));
    assert!(
        e.contains("workload.flows") && e.contains("at least 1"),
        "{e}"
    );
    let e = err_of(&LINKS.replace("interval = \"10us\"\n", ""));
    assert!(e.contains("workload.extra[0].interval"), "{e}");
    let e = err_of(&LINKS.replace("dsts = [2]\nflows", "dsts = [3]\nflows"));
    assert!(e.contains("workload.dsts") && e.contains("switch"), "{e}");
}

#[test]
fn unknown_nested_key_names_its_path_and_line() {
    let text =
        format!("{SMALL}\n[cc]\nkind = \"dcqcn\"\n\n[cc.dcqcn]\ng = 0.5\nrp_timr = \"1us\"\n");
    let e = err_of(&text);
    let line = text.lines().position(|l| l.starts_with("rp_timr")).unwrap() + 1;
    assert_eq!(
        e,
        format!("t.toml:{line}: cc.dcqcn.rp_timr: unknown key; did you mean rp_timer?")
    );
    // Nothing close: every key of the table, as that is all there is to say.
    let text = text.replace("rp_timr", "zzzzzz");
    let e = err_of(&text);
    assert!(
        e.starts_with(&format!(
            "t.toml:{line}: cc.dcqcn.zzzzzz: unknown key; expected one of alpha_interval, "
        )) && e.contains("rp_timer"),
        "{e}"
    );
    let e = err_of(&format!("{SMALL}\n[ccc]\nkind = \"dcqcn\"\n"));
    assert!(
        e.ends_with(": ccc: unknown section; did you mean cc?"),
        "{e}"
    );
}

#[test]
fn unknown_section_and_dotted_keys() {
    let e = err_of(&format!("{SMALL}\n[bogus]\nx = 1\n"));
    assert!(e.contains(": bogus: unknown section"), "{e}");
    // An unknown array of tables is a section too, named once.
    let e = err_of(&format!("{SMALL}\n[[workload_extra]]\nkind = \"incast\"\n"));
    assert!(
        e.contains(": workload_extra: unknown section; expected one of run, "),
        "{e}"
    );
    let e = err_of(&format!("{SMALL}\n[cc]\ndcqcn.bad = 1\n"));
    assert!(e.contains(": cc.dcqcn.bad: unknown key"), "{e}");
}

#[test]
fn a_key_of_another_kind_is_rejected() {
    let e = err_of(&SMALL.replace("hosts = 4", "hosts = 4\nk = 4"));
    assert!(
        e.starts_with("t.toml:8: topology.k: not a key of kind = \"star\""),
        "{e}"
    );
}

#[test]
fn values_are_checked_with_their_line() {
    let e = err_of(&SMALL.replace("hosts = 4", "hosts = 4\nrate = \"0Gbps\""));
    assert!(e.starts_with("t.toml:8: topology.rate: "), "{e}");
    let e = err_of(&SMALL.replace("hosts = 4", "hosts = -4"));
    assert!(e.starts_with("t.toml:7: topology.hosts: "), "{e}");
    let e = err_of(&SMALL.replace("receiver = 3", "receiver = 4"));
    assert!(e.contains("workload.receiver: node 4 is a switch"), "{e}");
    let e = err_of(&SMALL.replace("size = \"10KB\"", "size = 10"));
    assert!(
        e.contains("workload.size: invalid type") && e.contains("as strings"),
        "{e}"
    );
    // Beyond the switches a port's 16-bit index can count.
    let e = err_of(&SMALL.replace(
        "kind = \"star\"\nhosts = 4",
        "kind = \"leaf_spine\"\nleaves = 1\nspines = 65536\nhosts_per_leaf = 4",
    ));
    assert_eq!(
        e,
        "t.toml:7: topology.leaves: 65537 switches is too many (at most 65534); \
         lower leaves or spines"
    );
    // Trees whose size errors name k, the key to lower, and come before
    // anything is built (a fat tree of k = 400 has 16 million hosts).
    let e = err_of(&SMALL.replace("kind = \"star\"\nhosts = 4", "kind = \"fat_tree\"\nk = 400"));
    assert_eq!(
        e,
        "t.toml:7: topology.k: 200000 switches is too many (at most 65534); lower k"
    );
    let e = err_of(&SMALL.replace("kind = \"star\"\nhosts = 4", "kind = \"cross_dc\"\nk = 400"));
    assert_eq!(
        e,
        "t.toml:7: topology.k: 400002 switches is too many (at most 65534); lower k \
         or dcs"
    );
    // k has one rule, whatever breaks it: 0 is not told apart from 1 or 3.
    for kind in ["fat_tree", "cross_dc"] {
        for k in [0, 1, 3] {
            let e = err_of(&SMALL.replace(
                "kind = \"star\"\nhosts = 4",
                &format!("kind = \"{kind}\"\nk = {k}"),
            ));
            assert_eq!(
                e,
                format!("t.toml:7: topology.k: k must be even and at least 2 (got {k})")
            );
        }
    }
    // So has a cross_dc's number of datacenters.
    for dcs in [0, 1] {
        let e = err_of(&SMALL.replace(
            "kind = \"star\"\nhosts = 4",
            &format!("kind = \"cross_dc\"\ndcs = {dcs}"),
        ));
        assert_eq!(
            e,
            format!(
                "t.toml:7: topology.dcs: dcs must be at least 2 (got {dcs}); for one DC use \
                 kind = \"fat_tree\""
            )
        );
    }
    // Too many nodes: the error names the size key to lower.
    let e = err_of(&SMALL.replace(
        "kind = \"star\"\nhosts = 4",
        "kind = \"fat_tree\"\nk = 2000",
    ));
    assert!(
        e.starts_with("t.toml:7: topology.k: 2005000000 nodes is too many")
            && e.ends_with("lower k"),
        "{e}"
    );
    let e = err_of(&SMALL.replace("hosts = 4", "hosts = 20000000"));
    assert!(e.starts_with("t.toml:7: topology.hosts: "), "{e}");
    let e = err_of(&SMALL.replace("kind = \"star\"", "kind = \"ring\""));
    assert!(
        e.starts_with("t.toml:6: topology.kind: unknown value \"ring\""),
        "{e}"
    );
    let e = err_of(&SMALL.replace("name = \"small\"", "name = \"small"));
    assert!(e.starts_with("t.toml:3: run.name: invalid TOML"), "{e}");
    // A workload that would fill the memory, at the key that asks for it.
    let e = err_of(&SMALL.replace(
        "kind = \"incast\"\nsenders = [0, 1, 2]\nreceiver = 3\nsize = \"10KB\"",
        "kind = \"poisson\"\nload = 0.3\nduration = \"1000000s\"",
    ));
    assert_eq!(
        e,
        "t.toml:12: workload.duration: too many flows: about 8765522279, at most 33554432; \
         shorten the duration or lower the load"
    );
    let e = err_of(&format!(
        "{SMALL}[[workload.extra]]\nkind = \"bulk\"\nhosts = [0]\ndsts = [1]\n\
         flows = 4000000000\n"
    ));
    assert!(
        e.starts_with("t.toml:18: workload.extra[0].flows: too many flows: about 4000000000"),
        "{e}"
    );
    // The TOML parser says nothing of these; the error names them.
    let e = err_of(&format!("{SMALL}\r\n\t\r"));
    assert!(
        e.ends_with(": invalid TOML: unexpected character '\\r'"),
        "{e}"
    );
    let e = err_of(&format!("{SMALL}\"a\" = {{ b = "));
    assert!(e.ends_with(": invalid TOML: unexpected end of file"), "{e}");
    let e = err_of(&format!(
        "{SMALL}[cc]\nkind = \"swift\"\n[cc.swift]\ncwnd_min = \"20KB\"\ncwnd_max = \"10KB\"\n"
    ));
    assert!(
        e.starts_with("t.toml:17: cc.swift.cwnd_min: cwnd_min (20000 B) is above cwnd_max"),
        "{e}"
    );
}

#[test]
fn missing_sections_and_keys() {
    let e = err_of("[run]\nname = \"x\"\n");
    assert!(e.starts_with("t.toml: topology: missing"), "{e}");
    let e = err_of(&SMALL.replace("receiver = 3\n", ""));
    assert!(e.contains(": workload.receiver: missing"), "{e}");
    let e = err_of(&format!(
        "{SMALL}\n[[ecn.thresholds]]\nrate = \"100Gbps\"\nkmin = \"1KB\"\n"
    ));
    assert!(e.contains(": ecn.thresholds[0].kmax: missing"), "{e}");
}

#[test]
fn the_seed_can_be_overridden() {
    let mut cfg = parse_config(SMALL, "t.toml").unwrap();
    cfg.set_seed(42);
    assert_eq!(build_scenario(&cfg, Path::new("")).unwrap().net.seed, 42);
}

#[test]
fn transport_irn_keys_defaults_and_errors() {
    let build = |extra: &str| {
        build_scenario(
            &parse_config(&format!("{SMALL}\n{extra}"), "t.toml").unwrap(),
            Path::new(""),
        )
        .unwrap_or_else(|e| panic!("{e}"))
        .net
    };
    // The default: go-back-N with PFC on.
    let n = build("");
    assert_eq!(n.nic.transport, Transport::GoBackN);
    assert!(n.pfc.enabled);
    // IRN with its defaults turns PFC off, unless [pfc] says.
    let n = build("[transport]\nkind = \"irn\"\n");
    assert_eq!(n.nic.transport, Transport::Irn(IrnConfig::default()));
    assert!(!n.pfc.enabled);
    let n = build("[transport]\nkind = \"irn\"\n[pfc]\nenabled = true\n");
    assert!(n.pfc.enabled);
    // Swing's IRN-inter (Swing §6.1).
    let n = build(
        "[transport]\nkind = \"irn\"\nbitmap = 6809\nrto_low = \"817us\"\n\
         rto_high = \"1875us\"\nrto_low_threshold = 2\n",
    );
    assert_eq!(
        n.nic.transport,
        Transport::Irn(IrnConfig {
            bitmap_packets: 6809,
            rto_low: Delta::from_us(817),
            rto_high: Delta::from_us(1875),
            rto_low_threshold_packets: 2,
        })
    );

    let irn = |extra: &str| err_of(&format!("{SMALL}\n[transport]\nkind = \"irn\"\n{extra}"));
    // SMALL has 13 lines; [transport] is line 15, kind 16, the key 17.
    let e = irn("bitmap = 0\n");
    assert!(
        e.starts_with("t.toml:17: transport.bitmap: must be at least 1"),
        "{e}"
    );
    let e = irn("bitmap = -5\n");
    assert!(e.starts_with("t.toml:17: transport.bitmap: "), "{e}");
    let e = irn("bitmap = \"106\"\n");
    assert!(
        e.starts_with("t.toml:17: transport.bitmap: invalid type"),
        "{e}"
    );
    let e = irn("rto_low = \"fast\"\n");
    assert!(e.starts_with("t.toml:17: transport.rto_low: "), "{e}");
    let e = irn("rto_high = \"0us\"\n");
    assert!(
        e.starts_with("t.toml:17: transport.rto_high: duration '0us' must be"),
        "{e}"
    );
    let e = irn("rto_low = \"200us\"\n");
    assert!(
        e.starts_with(
            "t.toml:17: transport.rto_low: rto_low (200us) is longer than rto_high (140us)"
        ),
        "{e}"
    );
    let e = irn("window = 4\n");
    assert!(
        e.starts_with("t.toml:17: transport.window: unknown key"),
        "{e}"
    );
    let e = err_of(&format!("{SMALL}\n[transport]\nkind = \"sr\"\n"));
    assert!(
        e.starts_with("t.toml:16: transport.kind: unknown value \"sr\""),
        "{e}"
    );
    let e = err_of(&format!("{SMALL}\n[transport]\nbitmap = 100\n"));
    assert!(
        e.starts_with("t.toml:16: transport.bitmap: not a key of kind = \"go_back_n\""),
        "{e}"
    );
}

const CROSS_DC: &str = r#"
[topology]
kind = "cross_dc"

[workload]
kind = "incast"
senders = [0, 1]
receiver = 20
size = "10KB"
"#;

#[test]
fn cross_dc_defaults_to_the_swing_setup() {
    let build = |text: &str| {
        build_scenario(&parse_config(text, "t.toml").unwrap(), Path::new(""))
            .unwrap_or_else(|e| panic!("{e}"))
            .topo
    };
    // One line: two k = 4 fat trees, 2 hosts per ToR, 100G, 1 us; one
    // 400G long link of 80 km.
    let t = build(CROSS_DC);
    assert_eq!(t, topo::cross_dc(topo::CrossDcSpec::SWING).unwrap());
    assert_eq!((t.hosts().len(), t.n_nodes(), t.links.len()), (32, 74, 105));
    let long = t.links.last().unwrap();
    assert_eq!(
        (long.rate, long.delay),
        (Rate::gbps(400), Delta::from_us(400))
    );

    let with = |extra: &str| {
        CROSS_DC.replace(
            "kind = \"cross_dc\"\n",
            &format!("kind = \"cross_dc\"\n{extra}\n"),
        )
    };
    // Bifrost: 600 km, by length or by delay.
    let t = build(&with("long_length = \"600km\""));
    assert_eq!(t, topo::cross_dc(topo::CrossDcSpec::BIFROST).unwrap());
    assert_eq!(build(&with("long_delay = \"3ms\"")), t);
    // Every key.
    let t = build(&with(
        "dcs = 3\nk = 6\nhosts_per_tor = 1\nhost_rate = \"25Gbps\"\nfabric_rate = \"100Gbps\"\n\
         delay = \"2us\"\nlong_links = 2\nlong_rate = \"100Gbps\"\nlong_length = \"120km\"",
    ));
    let lay = topo::CrossDcSpec {
        dcs: 3,
        k: 6,
        hosts_per_tor: 1,
        host_rate: Rate::gbps(25),
        fabric_rate: Rate::gbps(100),
        delay: Delta::from_us(2),
        long_links: 2,
        long_rate: Rate::gbps(100),
        long_delay: Delta::from_us(600),
        relays: false,
    }
    .layout()
    .unwrap();
    assert_eq!(t, lay.build());
    assert_eq!(lay.long_link_range().len(), 3 * 2);

    let e = err_of(&with("long_length = \"80km\"\nlong_delay = \"400us\""));
    assert!(
        e.starts_with("t.toml:5: topology.long_delay: give the long link's"),
        "{e}"
    );
    let e = err_of(&with("long_length = \"400us\""));
    assert!(
        e.starts_with("t.toml:4: topology.long_length: '400us' is not a length"),
        "{e}"
    );
    let e = err_of(&with("long_rate = \"fast\""));
    assert!(e.starts_with("t.toml:4: topology.long_rate: "), "{e}");
    let e = err_of(&with("dcs = 1"));
    assert!(
        e.starts_with("t.toml:4: topology.dcs: dcs must be at least 2"),
        "{e}"
    );
    let e = err_of(&with("long_links = 0"));
    assert!(
        e.starts_with("t.toml:4: topology.long_links: must be at least 1"),
        "{e}"
    );
    let e = err_of(&with("k = 3"));
    assert!(e.starts_with("t.toml:4: topology.k: k must be even"), "{e}");
    let e = err_of(&with("pods = 3"));
    assert!(
        e.contains("topology.pods: not a key of kind = \"cross_dc\""),
        "{e}"
    );
    let e = err_of(&SMALL.replace("hosts = 4", "hosts = 4\nlong_links = 2"));
    assert!(
        e.contains("topology.long_links: not a key of kind = \"star\""),
        "{e}"
    );
}

const CROSS: &str = r#"
[topology]
kind = "cross_dc"

[workload]
kind = "poisson"
hosts = [0, 1, 2, 3]
dsts = [16, 17]
load = 0.1
duration = "100us"
"#;

fn scenario(text: &str) -> Scenario {
    let c = parse_config(text, "t.toml").unwrap();
    build_scenario(&c, Path::new("")).unwrap()
}

#[test]
fn port_classes_select_the_long_haul_dci_and_relay_ports() {
    let s = scenario(&format!(
        "{CROSS}\n[ports.dci]\nxoff = \"288KB\"\nheadroom = \"30KB\"\n\
         [ports.long_haul]\nxoff = \"1MB\"\nheadroom = \"40MB\"\necn = false\n"
    ));
    let lay = topo::CrossDcSpec::SWING.layout().unwrap();
    let long = lay.long_link_range().start as u32;
    let rules: Vec<_> = s.net.ports.iter().filter(|r| r.link == long).collect();
    assert_eq!(rules.len(), 2, "both ends of the long link");
    for r in rules {
        assert_eq!(r.settings.xoff, Some(1_000_000));
        assert_eq!(r.settings.headroom, Some(40_000_000));
        assert_eq!(r.settings.ecn, Some(false));
    }
    // 4 core links per DCI switch, 2 DCs, the DCI end only.
    let dci: Vec<_> = s
        .net
        .ports
        .iter()
        .filter(|r| r.settings.xoff == Some(288_000))
        .collect();
    assert_eq!(dci.len(), 8);
    for r in dci {
        let l = &s.topo.links[r.link as usize];
        let node = if r.at_b { l.b } else { l.a };
        assert!(node == lay.dci(0) || node == lay.dci(1));
    }
    // Flows go only to the listed destinations.
    assert!(s.flows.iter().all(|f| f.dst == 16 || f.dst == 17));
}

#[test]
fn relays_relay_pfc_on_the_local_port_and_only_obey_on_the_long_one() {
    let text = CROSS.replace("kind = \"cross_dc\"", "kind = \"cross_dc\"\nrelays = true");
    let s = scenario(&text);
    let lay = topo::CrossDcSpec {
        relays: true,
        ..topo::CrossDcSpec::SWING
    }
    .layout()
    .unwrap();
    let (ra, rb) = lay.relays_of(0).unwrap();
    let at = |node: u32, link: usize| {
        s.net.ports.iter().find(|r| {
            let l = &s.topo.links[r.link as usize];
            r.link as usize == link && (if r.at_b { l.b } else { l.a }) == node
        })
    };
    let long = lay.long_link_range().start;
    let access = lay.relay_link_range().start;
    for (relay, access) in [(ra, access), (rb, access + 1)] {
        let l = at(relay, access).expect("L port rule");
        assert!(l.settings.relay_pfc);
        let r = at(relay, long).expect("R port rule");
        assert!(!r.settings.relay_pfc);
        assert!(matches!(r.settings.fc, Some(net::FcChoice::PfcObeyOnly(_))));
    }
    assert!(
        at(lay.dci(0), access).is_none(),
        "the DCI switch is unchanged"
    );
}

#[test]
fn port_settings_errors_name_the_key() {
    let e = err_of(&format!("{SMALL}\n[ports.long_haul]\nxoff = \"1MB\"\n"));
    assert!(
        e.contains("ports.long_haul") && e.contains("cross_dc"),
        "{e}"
    );
    let e = err_of(&format!("{CROSS}\n[ports.long_haul]\nfc = \"credits\"\n"));
    assert!(
        e.contains("ports.long_haul.fc") && e.contains("'credits'"),
        "{e}"
    );
    let e = err_of(&format!(
        "{CROSS}\n[ports.dci]\nxoff = \"1MB\"\nxon = \"2MB\"\n"
    ));
    assert!(e.contains("ports.dci.xon"), "{e}");
    let e = err_of(&format!("{CROSS}\n[ports.dci]\nxon = \"2MB\"\n"));
    assert!(e.contains("needs xoff"), "{e}");
    let e = err_of(&format!("{SMALL}\n[[ports.at]]\nnode = 0\nport = 0\n"));
    assert!(
        e.contains("ports.at[0].node") && e.contains("is a host"),
        "{e}"
    );
    let e = err_of(&format!("{SMALL}\n[[ports.at]]\nnode = 4\nport = 9\n"));
    assert!(
        e.contains("ports.at[0].port") && e.contains("no port 9"),
        "{e}"
    );
    let e = err_of(&CROSS.replace("dsts = [16, 17]", "dsts = [16, 99]"));
    assert!(e.contains("workload.dsts"), "{e}");
    let s = scenario(&format!(
        "{SMALL}\n[[ports.at]]\nnode = 4\nport = 2\nheadroom = \"1MB\"\n"
    ));
    assert_eq!(s.net.ports.len(), 1);
    assert_eq!(s.net.ports[0].settings.headroom, Some(1_000_000));
}

#[test]
fn a_port_rule_chooses_the_egress_by_name() {
    let s = scenario(&format!(
        "{SMALL}\n[[ports.at]]\nnode = 4\nport = 2\negress = \"per_flow\"\n"
    ));
    assert_eq!(
        s.net.ports[0].settings.egress,
        Some(net::egress::EgressChoice::PerFlow)
    );
    let e = err_of(&format!(
        "{SMALL}\n[[ports.at]]\nnode = 4\nport = 2\negress = \"fifo\"\n"
    ));
    assert!(
        e.contains("ports.at[0].egress")
            && e.contains("'fifo' is not an egress")
            && e.contains("\"per_flow\""),
        "{e}"
    );
    let e = err_of(&format!("{SMALL}\n[ports.hosts]\negress = \"per_flow\"\n"));
    assert!(e.contains("ports.hosts.egress"), "{e}");
}

#[test]
fn ideal_per_flow_port_keys() {
    let ideal = |keys: &str| format!("{SMALL}\n[ports.fabric]\nfc = \"ideal_per_flow\"\n{keys}");
    let s = scenario(&ideal("ideal_pause = \"20KB\"\nideal_resume = \"10KB\"\n"));
    match &s.net.ports[0].settings.fc {
        Some(net::FcChoice::IdealPerFlow(c)) => {
            assert_eq!((c.pause, c.resume), (20_000, 10_000));
        }
        other => panic!("{other:?}"),
    }
    let s = scenario(&ideal(""));
    assert_eq!(
        s.net.ports[0].settings.fc,
        Some(net::FcChoice::IdealPerFlow(Default::default()))
    );
    // A resume threshold not below the pause one, whichever was set.
    let e = err_of(&ideal("ideal_resume = \"1MB\"\n"));
    assert!(
        e.contains("ports.fabric.ideal_resume") && e.contains("must be below ideal_pause"),
        "{e}"
    );
    let e = err_of(&ideal("ideal_pause = \"1KB\"\n"));
    assert!(e.contains("ports.fabric.ideal_pause"), "{e}");
    let e = err_of(&ideal("ideal_pause = \"0B\"\n"));
    assert!(e.contains("ports.fabric.ideal_pause"), "{e}");
    let e = err_of(&format!(
        "{SMALL}\n[ports.fabric]\nfc = \"pfc\"\nideal_pause = \"1KB\"\n"
    ));
    assert!(
        e.contains("ports.fabric.ideal_pause") && e.contains("only with fc = \"ideal_per_flow\""),
        "{e}"
    );
}

#[test]
fn cbfc_and_bifrost_port_keys() {
    let s = scenario(&format!(
        "{CROSS}\n[ports.long_haul]\nfc = \"bifrost\"\nbifrost_t = \"5us\"\nbifrost_k = 2\n\
         bifrost_reading = \"literal\"\n[ports.fabric]\nfc = \"cbfc_ideal\"\n\
         xoff = \"288KB\"\nheadroom = \"30KB\"\n"
    ));
    let lay = topo::CrossDcSpec::SWING.layout().unwrap();
    let long = s
        .net
        .ports
        .iter()
        .find(|r| r.link as usize == lay.long_link_range().start)
        .unwrap();
    match &long.settings.fc {
        Some(net::FcChoice::Bifrost(b)) => {
            assert_eq!(b.t_slot, Delta::from_us(5));
            assert_eq!(b.k, 2);
            assert_eq!(b.reading, net::fc::BifrostReading::Literal);
        }
        other => panic!("{other:?}"),
    }
    let fabric = s
        .net
        .ports
        .iter()
        .find(|r| r.settings.xoff == Some(288_000))
        .unwrap();
    match &fabric.settings.fc {
        Some(net::FcChoice::Cbfc(c)) => {
            assert_eq!(c.buffer, 318_000, "xoff + headroom");
            assert_eq!(c.field_bits, None, "ideal");
        }
        other => panic!("{other:?}"),
    }
    let e = err_of(&format!(
        "{CROSS}\n[ports.long_haul]\nbifrost_t = \"5us\"\n"
    ));
    assert!(
        e.contains("ports.long_haul.bifrost_t") && e.contains("only with"),
        "{e}"
    );
    let e = err_of(&format!("{CROSS}\n[ports.long_haul]\nfc = \"cbfc\"\n"));
    assert!(
        e.contains("ports.long_haul.cbfc_buffer") && e.contains("missing"),
        "{e}"
    );
    let e = err_of(&format!(
        "{CROSS}\n[ports.long_haul]\nfc = \"bifrost\"\nbifrost_reading = \"other\"\n"
    ));
    assert!(e.contains("ports.long_haul.bifrost_reading"), "{e}");
    // More slots per round trip than a ledger holds: at the section
    // that chose Bifrost, before the network is built.
    let long = |t: &str| format!("[ports.long_haul]\nfc = \"bifrost\"\nbifrost_t = \"{t}\"\n");
    let e = err_of(&format!("{CROSS}\n{}", long("100ps")));
    assert_eq!(
        e,
        "t.toml:14: ports.long_haul.bifrost_t: link 104 (nodes 52-73): Bifrost T = 100ps \
         over a one-way delay D = 400us gives N = ⌈2D/T⌉ = 8000000 slots per round trip; \
         at most 4194304: raise bifrost_t or shorten the link"
    );
    // A slot so long that its bytes pass 2^53 (2·R_s·T would wrap a
    // u64 at 100 Tb/s): refused, not run with a wrapped H.
    let e = err_of(&format!(
        "{}\n{}",
        CROSS.replace(
            "kind = \"cross_dc\"",
            "kind = \"cross_dc\"\nlong_rate = \"100Tbps\""
        ),
        long("1000000s")
    ));
    assert_eq!(
        e,
        "t.toml:15: ports.long_haul.bifrost_t: link 104 (nodes 52-73): Bifrost T = 1000000s \
         at 100000Gbps gives R_s·T = 12500000000000000000 B a slot, and its buffer H = Δ + \
         2·R_s·T + k·MTU passes the 2^53 bytes rdmasim counts: lower bifrost_t"
    );
    assert!(
        scenario(&format!("{CROSS}\n{}", long("10ns")))
            .net
            .ports
            .len()
            > 1
    );
    let e = err_of(&format!(
        "{}\n{}",
        CROSS.replace(
            "kind = \"cross_dc\"",
            "kind = \"cross_dc\"\nlong_length = \"100000km\""
        ),
        long("10ns")
    ));
    assert!(e.contains("N = ⌈2D/T⌉ = 100000000 slots"), "{e}");
    let e = err_of(&format!("{CROSS}\n[ports.hosts]\nxoff = \"1MB\"\n"));
    assert!(e.contains("ports.hosts.xoff"), "{e}");
}

/// A stop time at or before every flow's start is refused at run.stop's
/// line; one that cuts off only later flows is not.
#[test]
fn a_stop_before_the_first_flow_is_refused() {
    let incast = |stop: &str| {
        SMALL
            .replace(
                "name = \"small\"",
                &format!("name = \"small\"\nstop = \"{stop}\""),
            )
            .replace("size = \"10KB\"", "size = \"10KB\"\nstart = \"5ms\"")
    };
    let e = err_of(&incast("3ms"));
    assert_eq!(
        e,
        "t.toml:4: run.stop: 3ms is before the first flow starts (5.00ms), so no flow \
         would run; set a later stop time"
    );
    let e = err_of(&incast("5ms"));
    assert!(
        e.starts_with("t.toml:4: run.stop: 5ms is the time the first flow starts"),
        "{e}"
    );
    let cfg = parse_config(&incast("6ms"), "t.toml").unwrap();
    assert!(build_scenario(&cfg, Path::new("")).is_ok());
    // A second generator starting after the stop: its flows simply
    // do not run.
    let later = format!(
        "{}\n[[workload.extra]]\nkind = \"incast\"\nsenders = [0, 1]\nreceiver = 2\n\
         size = \"1KB\"\nstart = \"9ms\"\n",
        incast("6ms")
    );
    let s = build_scenario(&parse_config(&later, "t.toml").unwrap(), Path::new("")).unwrap();
    assert_eq!(s.flows.len(), 5);
    assert_eq!(s.net.stop_time, Some(Time::from_ns(6_000_000)));
}

/// An incast whose senders list the receiver runs one flow fewer and
/// says so at the `senders` line; one that does not says nothing.
#[test]
fn an_incast_sender_that_is_the_receiver_is_noted() {
    let cfg = SMALL.replace("senders = [0, 1, 2]", "senders = [0, 1, 2, 3]");
    let s = build_scenario(&parse_config(&cfg, "t.toml").unwrap(), Path::new("")).unwrap();
    assert_eq!(s.flows.len(), 3);
    assert_eq!(
        s.notes,
        vec![
            "t.toml:11: workload.senders: lists the receiver 3, which sends no flow to \
             itself: the incast has 3 flows"
                .to_string()
        ]
    );
    let s = build_scenario(&parse_config(SMALL, "t.toml").unwrap(), Path::new("")).unwrap();
    assert!(s.notes.is_empty(), "{:?}", s.notes);
}

/// A flow file whose header counts fewer flows than it has: the first
/// `count` flows run and the rest are noted, in the words `rdmasim
/// hpcc` warns with, naming the file, the header's line and the count.
#[test]
fn flow_lines_past_a_flow_files_count_are_noted() {
    let dir = std::env::temp_dir().join(format!("rdmasim-flow-count-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cfg = SMALL.replace(
        "kind = \"incast\"\nsenders = [0, 1, 2]\nreceiver = 3\nsize = \"10KB\"",
        "kind = \"file\"\npath = \"flows.txt\"",
    );
    let cfg = parse_config(&cfg, "t.toml").unwrap();
    let flows = "# src dst pg dport size start\n1\n0 1 3 100 1000 0.000001\n\
                 1 2 3 100 1000 0.000002\n";
    std::fs::write(dir.join("flows.txt"), flows).unwrap();
    let s = build_scenario(&cfg, &dir).unwrap();
    let file = dir.join("flows.txt").display().to_string();
    assert_eq!(s.flows.len(), 1);
    assert_eq!(
        s.notes,
        vec![format!(
            "{file}:2: flow_count: the header says 1 flow, but line 4 follows them and is \
             not read, as the peer reads only the number of flows the header gives"
        )]
    );
    // The peer's config says the same of the same file.
    assert_eq!(s.notes[0], unread_flows_warning(flows, &file, 1).unwrap());
    // All flows counted: nothing to say.
    std::fs::write(dir.join("flows.txt"), flows.replace("\n1\n", "\n2\n")).unwrap();
    let s = build_scenario(&cfg, &dir).unwrap();
    assert_eq!(s.flows.len(), 2);
    assert!(s.notes.is_empty(), "{:?}", s.notes);
    std::fs::remove_dir_all(&dir).unwrap();
}

// [timeseries]

const TS_BASE: &str = r#"
[topology]
kind = "star"
hosts = 4

[workload]
kind = "incast"
senders = [0, 1, 2]
receiver = 3
size = "100KB"
"#;

fn timeseries(extra: &str) -> Result<Option<MonitorConfig>, ExperimentError> {
    let cfg = parse_config(&format!("{TS_BASE}\n{extra}"), "t.toml")?;
    let s = build_scenario(&cfg, Path::new(""))?;
    build_timeseries(&cfg, &s)
}

#[test]
fn the_section_is_optional_and_has_defaults() {
    assert_eq!(timeseries("").unwrap(), None);
    let m = timeseries("[timeseries]\n").unwrap().unwrap();
    assert_eq!(m.interval, Delta::from_us(10));
    assert_eq!(m.ports, MonitorPorts::AllSwitch);
    assert_eq!(m.classes, vec![3]);
    assert!(!m.qp_rates);
    let m = timeseries(
        "[timeseries]\ninterval = \"1us\"\nports = [{node = 4, port = 3}]\nqp_rates = true\n\
         classes = [3, 1, 3]\nstart = \"2us\"\nstop = \"5ms\"\n",
    )
    .unwrap()
    .unwrap();
    assert_eq!(m.ports, MonitorPorts::List(vec![(4, 3)]));
    assert_eq!(m.classes, vec![1, 3]);
    assert_eq!(m.start, Time::from_ns(2_000));
    assert_eq!(m.stop, Some(Time::from_ns(5_000_000)));
}

#[test]
fn the_printed_defaults_section_is_valid() {
    // `rdmasim config --defaults` shows the section commented out;
    // uncommented, it is a config giving the defaults.
    let text = defaults_toml();
    let i = text.find("# [timeseries]").unwrap();
    let section: String = text[i..]
        .lines()
        .take_while(|l| l.starts_with('#'))
        .map(|l| format!("{}\n", l.trim_start_matches("# ")))
        .collect();
    let m = timeseries(&section).unwrap().unwrap();
    assert_eq!(m.interval, parse_time(DEFAULT_INTERVAL).unwrap());
    assert_eq!(m.ports, MonitorPorts::AllSwitch);
    assert_eq!(m.classes, vec![3]);
    assert!(!m.qp_rates);
    assert_eq!(m.max_rows, Some((DEFAULT_MAX_MB * 1e6) as u64 / ROW_BYTES));
}

#[test]
fn bad_values_name_the_key_and_line() {
    let extra = "[timeseries]\nports = [{node = 4, port = 7}]\n";
    let line = format!("{TS_BASE}\n{extra}")
        .lines()
        .position(|l| l.starts_with("ports"))
        .unwrap()
        + 1;
    let e = timeseries(extra).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!(
            "t.toml:{line}: timeseries.ports: the entry at index 0: node 4 has no port 7"
        )),
        "{e}"
    );
    // The field is named once; the entry by its index.
    let e = timeseries("[timeseries]\nports = [{node = 0, port = 0}, {node = 1, prot = 0}]\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.ends_with(
            "timeseries.ports: the entry at index 1: unknown key \"prot\"; did you mean port?"
        ),
        "{e}"
    );
    let e = timeseries("[timeseries]\nports = [{node = 1, queue = 0}]\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.ends_with("the entry at index 0: unknown key \"queue\"; expected node, port"),
        "{e}"
    );
    let e = timeseries("[timeseries]\nports = [{node = \"a\", port = 0}]\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.ends_with("timeseries.ports: the entry at index 0: node: expected an integer"),
        "{e}"
    );
    let e = timeseries("[timeseries]\nports = \"every\"\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("timeseries.ports: unknown value \"every\""),
        "{e}"
    );
    let e = timeseries("[timeseries]\ninterval = \"0us\"\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("timeseries.interval: must be at least 1ns"),
        "{e}"
    );
    let e = timeseries("[timeseries]\ninterval = \"999ps\"\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("timeseries.interval: must be at least 1ns"),
        "{e}"
    );
    assert!(timeseries("[timeseries]\ninterval = \"1ns\"\n").is_ok());
    let e = timeseries("[timeseries]\nintervall = \"1us\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("timeseries.intervall: unknown key"), "{e}");
    let e = timeseries("[timeseries]\nclasses = [9]\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("class 9 does not exist"), "{e}");
}

/// The names of `pfc.mode` and `transport.kind` are the ones the file
/// takes.
#[test]
fn pfc_modes_and_transports_are_named_as_written() {
    for k in [PfcModeKey::UntilResume, PfcModeKey::Quanta] {
        let doc: ConfigDoc = toml::from_str(&format!("[pfc]\nmode = \"{}\"", k.name())).unwrap();
        assert_eq!(doc.pfc.mode, Some(k));
    }
    for k in [TransportKind::GoBackN, TransportKind::Irn] {
        let doc: ConfigDoc =
            toml::from_str(&format!("[transport]\nkind = \"{}\"", k.name())).unwrap();
        assert_eq!(doc.transport.kind, Some(k));
    }
}

#[test]
fn bfc_and_flowsail_port_keys() {
    let with = |fc: &str, keys: &str| format!("{SMALL}\n[ports.fabric]\nfc = \"{fc}\"\n{keys}");
    let s = scenario(&with(
        "flowsail",
        "flowsail_queues = 4\nflowsail_ql = 0.5\nflowsail_mapping = \"shared\"\n",
    ));
    match &s.net.ports[0].settings.fc {
        Some(net::FcChoice::FlowSail(c)) => {
            assert_eq!((c.queues, c.ql_hbdp, c.qh_hbdp), (4, 0.5, 3.0));
            assert_eq!(c.mapping, net::fc::QueueMapping::Shared);
        }
        other => panic!("{other:?}"),
    }
    let s = scenario(&with("bfc", "bfc_queues = 8\n"));
    match &s.net.ports[0].settings.fc {
        Some(net::FcChoice::Bfc(c)) => assert_eq!(c.queues, 8),
        other => panic!("{other:?}"),
    }
    // The shared queue count sets either scheme's K (one sweep axis for
    // both); the paper's q1 pause is on unless turned off.
    let s = scenario(&with("bfc", "queues = 16\n"));
    match &s.net.ports[0].settings.fc {
        Some(net::FcChoice::Bfc(c)) => assert_eq!(c.queues, 16),
        other => panic!("{other:?}"),
    }
    let s = scenario(&with("flowsail", "queues = 2\nflowsail_pause_q1 = false\n"));
    match &s.net.ports[0].settings.fc {
        Some(net::FcChoice::FlowSail(c)) => assert_eq!((c.queues, c.pause_q1), (2, false)),
        other => panic!("{other:?}"),
    }
    let s = scenario(&with("flowsail", ""));
    match &s.net.ports[0].settings.fc {
        Some(net::FcChoice::FlowSail(c)) => assert!(c.pause_q1),
        other => panic!("{other:?}"),
    }
    // Each malformed setting: one error naming its key.
    for (fc, keys, key, says) in [
        (
            "flowsail",
            "flowsail_queues = 1\n",
            "flowsail_queues",
            "2 to 128",
        ),
        (
            "flowsail",
            "flowsail_queues = 129\n",
            "flowsail_queues",
            "2 to 128",
        ),
        ("bfc", "bfc_queues = 1\n", "bfc_queues", "2 to 128"),
        ("bfc", "bfc_queues = 200\n", "bfc_queues", "2 to 128"),
        (
            "flowsail",
            "flowsail_ql = 0.01\n",
            "flowsail_ql",
            "below one",
        ),
        (
            "bfc",
            "bfc_threshold = 0.01\n",
            "bfc_threshold",
            "below one",
        ),
        (
            "flowsail",
            "flowsail_qh = 0.5\n",
            "flowsail_qh",
            "at least flowsail_ql",
        ),
        (
            "flowsail",
            "flowsail_mapping = \"hash\"\n",
            "flowsail_mapping",
            "is not",
        ),
        ("bfc", "bfc_hrtt = \"0us\"\n", "bfc_hrtt", ""),
        ("bfc", "queues = 1\n", "queues", "2 to 128"),
        ("flowsail", "queues = 129\n", "queues", "2 to 128"),
        (
            "flowsail",
            "queues = 4\nflowsail_queues = 4\n",
            "queues",
            "once: queues or flowsail_queues",
        ),
    ] {
        let e = err_of(&with(fc, keys));
        assert!(
            e.contains(&format!("ports.fabric.{key}")) && e.contains(says),
            "{keys}: {e}"
        );
    }
    let e = err_of(&with("pfc", "bfc_queues = 8\n"));
    assert!(e.contains("only with fc = \"bfc\""), "{e}");
    let e = err_of(&with("pfc", "queues = 8\n"));
    assert!(e.contains("only with fc = \"bfc\" or \"flowsail\""), "{e}");
}

/// `[pfc.watchdog]` and `[[pfc_storm]]` build what they say, and each bad
/// value is one error naming its key.
#[test]
fn watchdog_and_storm_keys() {
    let text = format!(
        "{SMALL}\n[pfc.watchdog]\ndetect = \"300us\"\non = \"switches\"\n\n\
         [[pfc_storm]]\nnode = 3\npeer = 4\nstop = \"1ms\"\n"
    );
    let s = build_scenario(&parse_config(&text, "t.toml").unwrap(), Path::new("")).unwrap();
    let w = s.net.pfc.watchdog.expect("watchdog on");
    assert_eq!(w.detect, Delta::from_us(300));
    assert!(w.switches && !w.hosts);
    assert_eq!(s.net.pfc_storms.len(), 1);
    let st = s.net.pfc_storms[0];
    assert_eq!((st.node, st.peer, st.class), (3, 4, 3));
    assert_eq!(st.stop, Time::from_ns(1_000_000));
    assert_eq!(st.interval, Delta::from_us(10));
    // Without the tables, neither is on.
    let s = build_scenario(&parse_config(SMALL, "t.toml").unwrap(), Path::new("")).unwrap();
    assert!(s.net.pfc.watchdog.is_none() && s.net.pfc_storms.is_empty());
    for (bad, key, says) in [
        ("action = \"stop\"", "pfc.watchdog.action", "not an action"),
        (
            "detect = \"0s\"",
            "pfc.watchdog.detect",
            "greater than zero",
        ),
        ("on = \"nics\"", "pfc.watchdog.on", "not one of"),
    ] {
        let e = err_of(&format!("{SMALL}\n[pfc.watchdog]\n{bad}\n"));
        assert!(e.contains(key) && e.contains(says), "{e}");
        assert!(e.starts_with("t.toml:"), "{e}");
    }
    for (bad, key, says) in [
        ("node = 0\npeer = 1", "pfc_storm[0].peer", "share no link"),
        (
            "node = 0\npeer = 4\nclass = 0",
            "pfc_storm[0].class",
            "class 0",
        ),
        (
            "node = 0\npeer = 4\nstart = \"2ms\"\nstop = \"1ms\"",
            "pfc_storm[0].stop",
            "after start",
        ),
    ] {
        let e = err_of(&format!("{SMALL}\n[[pfc_storm]]\n{bad}\n"));
        assert!(e.contains(key) && e.contains(says), "{e}");
    }
}

/// `[transport] kind = "pfc_free"`: its defaults, its queue's PFC rule,
/// and each bad setting named at its key.
#[test]
fn transport_pfc_free_keys_defaults_and_errors() {
    use net::transport::pfc_free::{PfcFreeConfig, PfcFreeQueue};
    let build = |extra: &str| {
        build_scenario(
            &parse_config(&format!("{SMALL}\n{extra}"), "t.toml").unwrap(),
            Path::new(""),
        )
        .unwrap_or_else(|e| panic!("{e}"))
        .net
    };
    let n = build("[transport]\nkind = \"pfc_free\"\n");
    assert_eq!(
        n.nic.transport,
        Transport::PfcFree(PfcFreeConfig::default())
    );
    assert!(!n.pfc.enabled, "the lossy queue turns PFC off");
    let n = build("[transport]\nkind = \"pfc_free\"\nqueue = \"lossless\"\nunit = \"1KiB\"\n");
    assert!(n.pfc.enabled, "the lossless queue runs beside PFC");
    let Transport::PfcFree(c) = n.nic.transport else {
        panic!("pfc_free")
    };
    assert_eq!((c.unit, c.queue), (1024, PfcFreeQueue::Lossless));

    let pf = |extra: &str| {
        err_of(&format!(
            "{SMALL}\n[transport]\nkind = \"pfc_free\"\n{extra}"
        ))
    };
    // SMALL has 13 lines; [transport] is line 15, kind 16, the key 17.
    for (extra, want) in [
        (
            "unit = \"128KiB\"\n",
            "t.toml:17: transport.unit: the minimum chunk (unit = 128KiB) is above the maximum \
             chunk (max_chunk = 64KiB)",
        ),
        (
            "max_chunk = \"2KiB\"\n",
            "t.toml:17: transport.max_chunk: the minimum chunk (unit = 4KiB) is above",
        ),
        (
            "max_chunk = \"6KiB\"\n",
            "t.toml:17: transport.max_chunk: must be a whole number of units",
        ),
        (
            "ack_count = 0\n",
            "t.toml:17: transport.ack_count: 0 WQEs: must be 1 to 32",
        ),
        (
            "ack_count = 33\n",
            "t.toml:17: transport.ack_count: 33 WQEs",
        ),
        (
            "io_depth = 0\n",
            "t.toml:17: transport.io_depth: must be at least 1",
        ),
        (
            "message = \"8MiB\"\n",
            "t.toml:17: transport.message: 8MiB is above",
        ),
        (
            "backups = 4\n",
            "t.toml:17: transport.backups: 4: at most 3",
        ),
        (
            "ack_class = 8\n",
            "t.toml:17: transport.ack_class: 8: a class is 0 to 7",
        ),
        ("queue = \"pfc\"\n", "t.toml:17: transport.queue: \"pfc\""),
        (
            "rto_max = \"100us\"\n",
            "t.toml:17: transport.rto_max: the longest timeout (rto_max = 100us) is below the \
             lowest (rto_min = 200us)",
        ),
        (
            "init_window = \"1KiB\"\n",
            "t.toml:17: transport.init_window: 1KiB is below one unit (unit = 4KiB)",
        ),
        ("ack_timer = \"0us\"\n", "t.toml:17: transport.ack_timer: "),
        (
            "bitmap = 106\n",
            "t.toml:17: transport.bitmap: not a key of kind = \"pfc_free\"",
        ),
    ] {
        let e = pf(extra);
        assert!(e.starts_with(want), "{extra}: {e}");
    }
    // The lossy queue on a class PFC makes lossless.
    let e = pf("queue = \"lossy\"\n[pfc]\nenabled = true\n");
    assert!(
        e.contains(
            "transport.queue: \"lossy\", but [pfc] enabled = true makes the data's class lossless"
        ),
        "{e}"
    );
    let e = pf("queue = \"lossless\"\n[pfc]\nenabled = false\n");
    assert!(
        e.contains("transport.queue: \"lossless\", but [pfc] enabled = false"),
        "{e}"
    );
    let n =
        build("[transport]\nkind = \"pfc_free\"\ninit_window = \"64KiB\"\nrto_init = \"1ms\"\n");
    let Transport::PfcFree(c) = n.nic.transport else {
        panic!("pfc_free")
    };
    assert_eq!(c.init_window, Some(64 * 1024));
    assert_eq!(c.rto_init, engine::Delta::from_ms(1));
    // IRN does not take the PFC-free transport's keys.
    let e = err_of(&format!(
        "{SMALL}\n[transport]\nkind = \"irn\"\nunit = \"1KiB\"\n"
    ));
    assert!(
        e.starts_with("t.toml:17: transport.unit: not a key of kind = \"irn\""),
        "{e}"
    );
}

/// `[topology] next_hop_order`: ascending by default, descending when
/// asked (the peer's order, which `rdmasim convert` writes), and a value
/// of neither kind is one error at its key.
#[test]
fn next_hop_order_key() {
    let build = |text: &str| {
        build_scenario(&parse_config(text, "t.toml").unwrap(), Path::new(""))
            .unwrap()
            .net
            .next_hop_order
    };
    assert_eq!(build(SMALL), topo::NextHopOrder::Ascending);
    let with = |v: &str| {
        SMALL.replace(
            "[topology]\n",
            &format!("[topology]\nnext_hop_order = {v}\n"),
        )
    };
    assert_eq!(
        build(&with("\"descending\"")),
        topo::NextHopOrder::Descending
    );
    assert_eq!(build(&with("\"ascending\"")), topo::NextHopOrder::Ascending);
    let e = err_of(&with("\"sideways\""));
    assert!(
        e.starts_with("t.toml:") && e.contains("next_hop_order"),
        "{e}"
    );
}

#[test]
fn rpc_workload_flows_and_errors() {
    let rpc = |keys: &str| {
        SMALL.replace(
            "kind = \"incast\"\nsenders = [0, 1, 2]\nreceiver = 3\nsize = \"10KB\"",
            &format!("kind = \"rpc\"\n{keys}"),
        )
    };
    let s = build_scenario(
        &parse_config(&rpc("clients_count = 2\nserver = 3\nqps = 4"), "t.toml").unwrap(),
        Path::new(""),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.flows.len(), 8);
    assert!(s
        .flows
        .iter()
        .all(|f| f.dst == 3 && f.size == workload::ENDLESS));
    assert_eq!(s.flows.iter().filter(|f| f.src == 1).count(), 4);
    // Line 9 is [workload], 10 its kind; the keys follow.
    for (keys, want) in [
        (
            "clients = [0]\nclients_count = 1\nserver = 3",
            "t.toml:12: workload.clients_count: give clients or clients_count, not both",
        ),
        (
            "server = 3",
            "t.toml:9: workload.clients: missing; kind = \"rpc\" needs clients (a list) or \
             clients_count",
        ),
        (
            "clients_count = 4\nserver = 3",
            "t.toml:11: workload.clients_count: 4 clients asked for, but only 3 hosts besides \
             the server",
        ),
        (
            "clients_count = 1\nserver = 3\nqps = 0",
            "t.toml:13: workload.qps: must be at least 1 QP per client",
        ),
        (
            "clients = [3]\nserver = 3",
            "t.toml:11: workload.clients: no client besides the server",
        ),
        (
            "clients = [0]\nserver = 3\nreceiver = 3",
            "t.toml:13: workload.receiver: not a key of kind = \"rpc\"",
        ),
    ] {
        let e = err_of(&rpc(keys));
        assert!(e.starts_with(want), "{keys}: {e}");
    }
}

/// `[host]`: off by default; its keys set the host CPU model; a bad value
/// or the model without the PFC-free transport is an error naming the key
/// and its line.
#[test]
fn host_cpu_keys_defaults_and_errors() {
    let build = |extra: &str| {
        let c = parse_config(&format!("{SMALL}{extra}"), "t.toml").unwrap();
        build_scenario(&c, Path::new("")).unwrap().net.host
    };
    let pf = "\n[transport]\nkind = \"pfc_free\"\n";
    assert_eq!(build(""), net::host_cpu::HostCpuConfig::default());
    assert_eq!(build("").cores, 0, "no CPU model unless asked");
    let h = build(&format!(
        "{pf}[host]\ncores = 8\npost_wqe = \"2us\"\npoll_cqe = \"100ns\"\n\
         build_ack = \"1us\"\nparse_ack = \"3us\"\n"
    ));
    assert_eq!(h.cores, 8);
    assert_eq!(h.post_wqe, engine::Delta::from_us(2));
    assert_eq!(h.poll_cqe, engine::Delta::from_ns(100));
    assert_eq!(h.build_ack, engine::Delta::from_us(1));
    assert_eq!(h.parse_ack, engine::Delta::from_us(3));
    // SMALL has 13 lines; [host] is line 15 without [transport].
    let e = err_of(&format!("{SMALL}\n[host]\ncores = 2\n"));
    assert!(
        e.starts_with("t.toml:16: host.cores: the host CPU model costs the PFC-free"),
        "{e}"
    );
    let e = err_of(&format!(
        "{SMALL}{pf}[host]\ncores = 1\npost_wqe = \"fast\"\n"
    ));
    assert!(e.contains("t.toml:19: host.post_wqe"), "{e}");
    let e = err_of(&format!("{SMALL}{pf}[host]\ncores = 1\nthreads = 2\n"));
    assert!(e.contains("threads"), "{e}");
}
