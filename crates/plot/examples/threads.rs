//! The two-thread figure of `docs/performance.md`: one run's wall time on
//! one and two threads, as a speed-up over one thread, one line per input.
//!
//! ```sh
//! cargo run -p rdmasim-plot --example threads -- docs/img/threads.csv docs/img/threads.png
//! ```
//!
//! `threads.csv` has the header `input,threads,wall_s`: one row per
//! measured (input, thread count), the wall time a median where several
//! runs were made; every input needs a row on one thread.

use plotters::prelude::*;

mod common;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (input, out) = match args.as_slice() {
        [_, i, o] => (i, o),
        _ => return Err("usage: threads THREADS.csv OUT.png".into()),
    };
    let text = std::fs::read_to_string(input)?;
    // (input, threads, wall seconds), in the file's order.
    let mut rows: Vec<(String, u32, f64)> = Vec::new();
    for line in text.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split(',').collect();
        if f.len() < 3 {
            return Err(format!("short line: {line}").into());
        }
        rows.push((f[0].to_string(), f[1].parse()?, f[2].parse()?));
    }
    let mut inputs: Vec<&str> = Vec::new();
    for (name, _, _) in &rows {
        if !inputs.contains(&name.as_str()) {
            inputs.push(name);
        }
    }
    let max_threads = rows.iter().map(|r| r.1).max().ok_or("no rows")?;
    let mut series = Vec::new();
    for name in &inputs {
        let one = rows
            .iter()
            .find(|r| r.0 == *name && r.1 == 1)
            .ok_or(format!("no row on one thread for {name}"))?
            .2;
        let pts: Vec<(f64, f64)> = rows
            .iter()
            .filter(|r| r.0 == *name)
            .map(|r| (f64::from(r.1), one / r.2))
            .collect();
        series.push((*name, pts));
    }
    let ymax = series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|q| q.1))
        .fold(f64::from(max_threads), f64::max)
        * 1.15;
    let xmax = f64::from(max_threads) + 0.2;

    common::register_font();
    let root = BitMapBackend::new(out, (800, 560)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "One run on several threads: speed-up in wall time",
            ("sans-serif", 20),
        )
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(0.8..xmax, 0.0..ymax)?;
    chart
        .configure_mesh()
        .x_desc("threads")
        .y_desc("speed-up over one thread")
        .x_labels(max_threads as usize + 1)
        .label_style(("sans-serif", 14))
        .draw()?;
    chart
        .draw_series(LineSeries::new(
            [(1.0, 1.0), (f64::from(max_threads), f64::from(max_threads))],
            BLACK.mix(0.4),
        ))?
        .label("ideal (speed-up = threads)")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], BLACK.mix(0.4)));
    for (i, (name, pts)) in series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        chart
            .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))?
            .label(*name)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2)));
        chart.draw_series(pts.iter().map(|&p| Circle::new(p, 5, color.filled())))?;
        // Label the speed-ups, not the one-thread points (all 1.00×).
        chart.draw_series(pts.iter().filter(|p| p.0 > 1.0).map(|&(x, y)| {
            EmptyElement::at((x, y))
                + Text::new(
                    format!("{y:.2}×"),
                    (8, -16),
                    ("sans-serif", 13).into_font().color(&color),
                )
        }))?;
    }
    common::draw_legend(&mut chart)?;
    root.present()?;
    Ok(())
}
