//! The scaling figure of `docs/performance.md`: CPU seconds against
//! packet·hops, one series per study (load, fat-tree size, simulated time).
//!
//! ```sh
//! cargo run -p rdmasim-plot --example scaling -- results.csv docs/img/scaling.png
//! ```
//!
//! `results.csv` has the header
//! `study,name,k,hosts,load,duration_ms,events,packet_hops,cpu_s`; the row
//! whose `k` is `peer` (the peer's 320-host tree) is labelled.

use plotters::prelude::*;

mod common;

struct Row {
    study: String,
    k: String,
    label: String,
    hops_m: f64,
    cpu: f64,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (input, out) = match args.as_slice() {
        [_, i, o] => (i, o),
        _ => return Err("usage: scaling RESULTS.csv OUT.png".into()),
    };
    let text = std::fs::read_to_string(input)?;
    let mut rows = Vec::new();
    for line in text.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split(',').collect();
        if f.len() < 9 {
            return Err(format!("short line: {line}").into());
        }
        let label = match f[0] {
            "load" => format!("{:.0}%", f[4].parse::<f64>()? * 100.0),
            "size" if f[2] == "peer" => "peer 320".to_string(),
            "size" => format!("k={}", f[2]),
            _ => format!("{} ms", f[5]),
        };
        rows.push(Row {
            study: f[0].to_string(),
            k: f[2].to_string(),
            label,
            hops_m: f[7].parse::<f64>()? / 1e6,
            cpu: f[8].parse()?,
        });
    }
    common::register_font();
    let xmax = rows.iter().map(|r| r.hops_m).fold(0.0, f64::max) * 1.1;
    let ymax = rows.iter().map(|r| r.cpu).fold(0.0, f64::max) * 1.15;
    // Reference line: the cost per packet·hop on the peer's tree, where
    // linear scaling from that point would put every run.
    let peer = rows
        .iter()
        .find(|r| r.k == "peer")
        .ok_or("no row with k = peer")?;
    let slope = peer.cpu / peer.hops_m;

    let root = BitMapBackend::new(out, (900, 600)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "CPU time against packet·hops (DCQCN, PFC, WebSearch)",
            ("sans-serif", 20),
        )
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..xmax, 0.0..ymax)?;
    chart
        .configure_mesh()
        .x_desc("packet·hops (millions)")
        .y_desc("CPU seconds")
        .label_style(("sans-serif", 14))
        .draw()?;
    chart
        .draw_series(LineSeries::new(
            [(0.0, 0.0), (xmax, slope * xmax)],
            BLACK.mix(0.4),
        ))?
        .label(format!(
            "{:.3} s per million packet·hops (the peer's tree)",
            slope
        ))
        .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], BLACK.mix(0.4)));
    let studies = [
        ("load", "load 10–70%, k = 8, 0.5 ms", RGBColor(31, 119, 180)),
        (
            "size",
            "fat tree k = 4…16 and the peer's tree, 30%, 0.2 ms",
            RGBColor(214, 39, 40),
        ),
        (
            "time",
            "arrivals over 0.25–2 ms, k = 8, 30%",
            RGBColor(44, 160, 44),
        ),
    ];
    for (study, name, color) in studies {
        let pts: Vec<&Row> = rows.iter().filter(|r| r.study == study).collect();
        chart
            .draw_series(pts.iter().map(|r| {
                let style = if r.k == "peer" {
                    color.stroke_width(3)
                } else {
                    color.filled()
                };
                Circle::new((r.hops_m, r.cpu), 5, style)
            }))?
            .label(name)
            .legend(move |(x, y)| Circle::new((x + 10, y), 5, color.filled()));
        // Labels up and to the right of their points, clear of the markers.
        chart.draw_series(pts.iter().map(|r| {
            EmptyElement::at((r.hops_m, r.cpu))
                + Text::new(
                    r.label.clone(),
                    (8, -16),
                    ("sans-serif", 13).into_font().color(&color),
                )
        }))?;
    }
    common::draw_legend(&mut chart)?;
    root.present()?;
    println!(
        "{:.4} CPU s per million packet·hops on the peer's tree",
        slope
    );
    Ok(())
}
