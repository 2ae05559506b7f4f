//! What the performance figures' examples (`scaling`, `threads`) draw
//! alike: the bundled font and the legend box.

use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::FontStyle;

const FONT: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");

/// Make "sans-serif" the bundled font, so the figure looks the same on
/// every machine.
pub fn register_font() {
    let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT);
}

/// The legend, upper left, on a light box.
pub fn draw_legend<'a, 'b>(
    chart: &mut ChartContext<'a, BitMapBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
) -> Result<(), Box<dyn std::error::Error + 'static>>
where
    'b: 'a,
{
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK.mix(0.3))
        .label_font(("sans-serif", 14))
        .draw()?;
    Ok(())
}
