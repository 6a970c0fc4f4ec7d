//! Bar charts: stress per encoding, monotonicity per encoding, support per position.

use super::palette::{color_of, NEUTRAL, OKABE_ITO};
use super::palette::{font, theme, Themed};
use super::{category_labels, err, frame, ChartResult, FLOOR, STYLE};
use plotters::coord::Shift;
use plotters::prelude::*;
use posgeo::report::Report;

/// Scale-optimal σ* of every encoding (raw σ when `raw`), each bar in the encoding's
/// colour ([`super::palette`]), on a log axis (values below 1e-6, PMDS's round-off zero among
/// them, are drawn at the floor). Raw σ depends on each encoding's arbitrary scale, so σ* is
/// the headline.
pub fn stress_bars<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, r: &Report, raw: bool) -> ChartResult {
    area.fill(&theme().background).map_err(err)?;
    let names = &r.encoding_order;
    let value = |n: &String| if raw { r.encodings[n].raw_stress } else { r.encodings[n].scaled_stress };
    let top = names.iter().map(value).fold(1.0f64, f64::max) * 3.0;
    let k = names.len() as f64;
    let caption = if raw { "raw stress σ per encoding (scale-dependent)" } else { "scaled stress σ* per encoding" };
    let mut chart = ChartBuilder::on(area)
        .margin(STYLE.margin)
        .x_label_area_size(40)
        .y_label_area_size(STYLE.y_labels)
        .caption(caption, font(STYLE.caption))
        .build_cartesian_2d(0f64..k, (FLOOR..top).log_scale())
        .map_err(err)?;
    chart
        .configure_mesh()
        .themed()
        .disable_x_mesh()
        .x_labels(0)
        .y_label_formatter(&|v| format!("{v:.0e}"))
        .y_desc(if raw { "σ (log)" } else { "σ* (log)" })
        .draw()
        .map_err(err)?;
    category_labels(&mut chart, names, FLOOR)?;
    chart
        .draw_series(names.iter().enumerate().map(|(i, n)| {
            let x = i as f64;
            Rectangle::new([(x + 0.15, FLOOR), (x + 0.85, value(n).max(FLOOR))], color_of(n).filled())
        }))
        .map_err(err)?;
    if let Some(band) = r.random_band.as_ref().filter(|_| !raw) {
        random_band(&mut chart, band, k)?;
    }
    Ok(frame(&chart, (0.0, k), (FLOOR, top), true))
}

/// The band of K random tables' σ* across the bars (min to max, shaded, with the median as a
/// line and a label), over which a fixed encoding must fall below to beat chance.
fn random_band<DB: DrawingBackend>(
    chart: &mut ChartContext<
        '_,
        DB,
        Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::combinators::LogCoord<f64>>,
    >,
    band: &posgeo::measures::band::RandomBand,
    k: f64,
) -> Result<(), String> {
    let s = band.scaled_stress;
    let (lo, hi) = (s.min.max(FLOOR), s.max.max(FLOOR));
    let shade = NEUTRAL.mix(0.25);
    chart.draw_series(std::iter::once(Rectangle::new([(0.0, lo), (k, hi)], shade.filled()))).map_err(err)?;
    let median = s.median.max(FLOOR);
    chart
        .draw_series(std::iter::once(PathElement::new(vec![(0.0, median), (k, median)], NEUTRAL.stroke_width(1))))
        .map_err(err)?;
    let label = format!(
        "{} random tables: σ* {}–{}",
        band.k,
        posgeo::report::fmt_number(Some(s.min)),
        posgeo::report::fmt_number(Some(s.max))
    );
    chart.draw_series(std::iter::once(Text::new(label, (0.05 * k, hi * 1.15), font(STYLE.label)))).map_err(err)?;
    Ok(())
}

/// Monotonicity violation rate per encoding and for the corpus metric itself.
pub fn monotonicity<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, r: &Report) -> ChartResult {
    area.fill(&theme().background).map_err(err)?;
    let mut rows: Vec<(String, f64)> =
        vec![("corpus D".to_string(), r.corpus_monotonicity_violation_rate.unwrap_or(0.0))];
    rows.extend(
        r.encoding_order.iter().map(|n| (n.clone(), r.encodings[n].monotonicity_violation_rate.unwrap_or(0.0))),
    );
    let k = rows.len() as f64;
    let top = rows.iter().map(|r| r.1).fold(0.05, f64::max) * 1.1;
    let mut chart = ChartBuilder::on(area)
        .margin(STYLE.margin)
        .x_label_area_size(40)
        .y_label_area_size(STYLE.y_labels)
        .caption("monotonicity violation rate (sequence order)", font(STYLE.caption))
        .build_cartesian_2d(0f64..k, 0f64..top)
        .map_err(err)?;
    chart.configure_mesh().themed().disable_x_mesh().x_labels(0).y_desc("violations / triples").draw().map_err(err)?;
    let names: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
    category_labels(&mut chart, &names, 0.0)?;
    chart
        .draw_series(rows.iter().enumerate().map(|(i, (_, v))| {
            let c = if i == 0 { theme().text } else { color_of(&rows[i].0) };
            Rectangle::new([(i as f64 + 0.15, 0.0), (i as f64 + 0.85, *v)], c.filled())
        }))
        .map_err(err)?;
    Ok(frame(&chart, (0.0, k), (0.0, top), false))
}

/// Support N_i per position: kept positions, dropped ones, and the min_support line.
pub fn support<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, r: &Report) -> ChartResult {
    area.fill(&theme().background).map_err(err)?;
    let all = &r.support_all;
    let x1 = all.len().max(1) as f64;
    let top = all.iter().copied().max().unwrap_or(1).max(1) as f64 * 1.1;
    let mut chart = ChartBuilder::on(area)
        .margin(STYLE.margin)
        .x_label_area_size(STYLE.x_labels)
        .y_label_area_size(STYLE.y_labels)
        .caption(format!("support N_i: {} positions kept (dark), dropped grey", r.n), font(STYLE.caption))
        .build_cartesian_2d(0f64..x1, 0f64..top)
        .map_err(err)?;
    chart.configure_mesh().themed().disable_x_mesh().x_desc("position i").y_desc("N_i").draw().map_err(err)?;
    chart
        .draw_series(all.iter().enumerate().map(|(i, &s)| {
            let c = if i < r.n { theme().text.mix(0.7) } else { NEUTRAL.mix(0.5) };
            Rectangle::new([(i as f64, 0.0), (i as f64 + 0.9, s as f64)], c.filled())
        }))
        .map_err(err)?;
    let ms = r.params.min_support as f64;
    chart.draw_series(LineSeries::new([(0.0, ms), (x1, ms)], OKABE_ITO[6].stroke_width(1))).map_err(err)?;
    Ok(frame(&chart, (0.0, x1), (0.0, top), false))
}
