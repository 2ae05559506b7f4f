//! `[capture]` from text to settings: defaults, and the one error each
//! mistake gives.

use super::build::{build_capture, build_scenario};
use super::capture::{DEFAULT_MAX_FRAMES, DEFAULT_SNAPLEN};
use super::defaults::defaults_toml;
use super::parse::parse_config;
use engine::Time;
use net::capture::{CaptureConfig, Direction};
use net::monitor::MonitorPorts;
use std::path::Path;

const BASE: &str = r#"
[topology]
kind = "star"
hosts = 4

[workload]
kind = "incast"
senders = [0, 1, 2]
receiver = 3
size = "100KB"
"#;

fn capture(extra: &str) -> Result<Option<CaptureConfig>, String> {
    let text = format!("{BASE}\n{extra}");
    parse_config(&text, "t.toml")
        .and_then(|cfg| {
            let s = build_scenario(&cfg, Path::new(""))?;
            build_capture(&cfg, &s)
        })
        .map_err(|e| e.to_string())
}

/// The line of `BASE` + `extra` that starts with `key`.
fn line_of(extra: &str, key: &str) -> usize {
    format!("{BASE}\n{extra}")
        .lines()
        .position(|l| l.starts_with(key))
        .unwrap()
        + 1
}

#[test]
fn the_section_is_optional_and_has_defaults() {
    assert_eq!(capture("").unwrap(), None);
    let c = capture("[capture]\nports = \"all\"\n").unwrap().unwrap();
    assert_eq!(c.ports, MonitorPorts::All);
    assert_eq!(c.direction, Direction::Both);
    assert_eq!((c.start, c.stop), (Time::ZERO, None));
    assert_eq!(c.snaplen, DEFAULT_SNAPLEN);
    assert_eq!(c.max_frames, DEFAULT_MAX_FRAMES);
    assert_eq!((c.flows, c.classes), (None, None));
    let c = capture(
        "[capture]\nports = [{node = 4, port = 3}]\ndirection = \"tx\"\nstart = \"1us\"\n\
         stop = \"2ms\"\nsnaplen = 96\nflows = [1]\nclasses = [3]\nmax_frames = 10\n",
    )
    .unwrap()
    .unwrap();
    assert_eq!(c.ports, MonitorPorts::List(vec![(4, 3)]));
    assert_eq!(c.direction, Direction::Tx);
    assert_eq!(c.start, Time::from_ns(1_000));
    assert_eq!(c.stop, Some(Time::from_ns(2_000_000)));
    assert_eq!((c.snaplen, c.max_frames), (96, 10));
    assert_eq!((c.flows, c.classes), (Some(vec![1]), Some(vec![3])));
}

#[test]
fn the_printed_defaults_section_is_valid() {
    let text = defaults_toml();
    let i = text.find("# [capture]").unwrap();
    let section: String = text[i..]
        .lines()
        .take_while(|l| l.starts_with('#'))
        .map(|l| format!("{}\n", l.trim_start_matches("# ")))
        .collect();
    let c = capture(&section.replace("node = 20", "node = 4"))
        .unwrap()
        .unwrap();
    assert_eq!(c.direction, Direction::Both);
    assert_eq!(c.snaplen, DEFAULT_SNAPLEN);
    assert_eq!(c.max_frames, DEFAULT_MAX_FRAMES);
}

#[test]
fn bad_values_name_the_file_line_and_key() {
    for (extra, key, says) in [
        (
            "[capture]\ndirection = \"tx\"\n",
            "[capture]",
            "capture.ports: missing",
        ),
        (
            "[capture]\nports = [{node = 4, port = 7}]\n",
            "ports",
            "capture.ports: the entry at index 0: node 4 has no port 7",
        ),
        (
            "[capture]\nports = []\n",
            "ports",
            "capture.ports: expected",
        ),
        (
            "[capture]\nports = \"all\"\ndirection = \"in\"\n",
            "direction",
            "capture.direction: unknown value \"in\"",
        ),
        (
            "[capture]\nports = \"all\"\nstart = \"2ms\"\nstop = \"1ms\"\n",
            "stop",
            "capture.stop: must be after capture.start",
        ),
        (
            "[capture]\nports = \"all\"\nsnaplen = 0\n",
            "snaplen",
            "capture.snaplen: 0 is out of range",
        ),
        (
            "[capture]\nports = \"all\"\nclasses = [9]\n",
            "classes",
            "capture.classes: class 9 does not exist",
        ),
        (
            "[capture]\nports = \"all\"\nflows = [7]\n",
            "flows",
            "capture.flows: no flow of the workload has id 7",
        ),
        (
            "[capture]\nports = \"all\"\nmax_frames = 0\n",
            "max_frames",
            "capture.max_frames: must be at least 1",
        ),
    ] {
        let e = capture(extra).unwrap_err();
        let at = format!("t.toml:{}: {says}", line_of(extra, key));
        assert!(e.starts_with(&at), "{e}\nexpected {at}");
        assert!(!e.contains('\n'), "{e}");
    }
    let e = capture("[capture]\nports = \"all\"\nsnap = 1\n").unwrap_err();
    assert!(e.contains("snap") && e.contains("snaplen"), "{e}");
}
