//! Bar charts: stress per encoding, monotonicity per encoding, support per position.

use super::{category_labels, err, frame, ChartResult, FLOOR, RAW, SCALED, STYLE};
use crate::report::Report;
use plotters::coord::Shift;
use plotters::prelude::*;

/// Raw σ and scale-optimal σ* of every encoding, side by side, on a log axis (values below
/// 1e-6, PMDS's round-off zero among them, are drawn at the floor).
pub fn stress_bars<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, r: &Report) -> ChartResult {
    area.fill(&WHITE).map_err(err)?;
    let names = &r.encoding_order;
    let top =
        names.iter().flat_map(|n| [r.encodings[n].raw_stress, r.encodings[n].scaled_stress]).fold(1.0f64, f64::max)
            * 3.0;
    let k = names.len() as f64;
    let mut chart = ChartBuilder::on(area)
        .margin(STYLE.margin)
        .x_label_area_size(40)
        .y_label_area_size(STYLE.y_labels)
        .caption("stress per encoding (raw σ orange, scaled σ* blue)", (STYLE.font, STYLE.caption))
        .build_cartesian_2d(0f64..k, (FLOOR..top).log_scale())
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_label_formatter(&|v| format!("{v:.0e}"))
        .y_desc("stress (log)")
        .draw()
        .map_err(err)?;
    category_labels(&mut chart, names, FLOOR)?;
    for (i, n) in names.iter().enumerate() {
        let e = &r.encodings[n];
        let x = i as f64;
        let bar =
            |v: f64, l: f64, c: RGBColor| Rectangle::new([(x + l, FLOOR), (x + l + 0.35, v.max(FLOOR))], c.filled());
        chart.draw_series([bar(e.raw_stress, 0.12, RAW), bar(e.scaled_stress, 0.5, SCALED)]).map_err(err)?;
    }
    Ok(frame(&chart, (0.0, k), (FLOOR, top), true))
}

/// Monotonicity violation rate per encoding and for the corpus metric itself.
pub fn monotonicity<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, r: &Report) -> ChartResult {
    area.fill(&WHITE).map_err(err)?;
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
        .caption("monotonicity violation rate (sequence order)", (STYLE.font, STYLE.caption))
        .build_cartesian_2d(0f64..k, 0f64..top)
        .map_err(err)?;
    chart.configure_mesh().disable_x_mesh().x_labels(0).y_desc("violations / triples").draw().map_err(err)?;
    let names: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
    category_labels(&mut chart, &names, 0.0)?;
    chart
        .draw_series(rows.iter().enumerate().map(|(i, (_, v))| {
            let c = if i == 0 { BLACK } else { SCALED };
            Rectangle::new([(i as f64 + 0.15, 0.0), (i as f64 + 0.85, *v)], c.filled())
        }))
        .map_err(err)?;
    Ok(frame(&chart, (0.0, k), (0.0, top), false))
}

/// Support N_i per position: kept positions, dropped ones, and the min_support line.
pub fn support<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, r: &Report) -> ChartResult {
    area.fill(&WHITE).map_err(err)?;
    let all = &r.support_all;
    let x1 = all.len().max(1) as f64;
    let top = all.iter().copied().max().unwrap_or(1).max(1) as f64 * 1.1;
    let mut chart = ChartBuilder::on(area)
        .margin(STYLE.margin)
        .x_label_area_size(STYLE.x_labels)
        .y_label_area_size(STYLE.y_labels)
        .caption(format!("support N_i: {} positions kept (blue), dropped grey", r.n), (STYLE.font, STYLE.caption))
        .build_cartesian_2d(0f64..x1, 0f64..top)
        .map_err(err)?;
    chart.configure_mesh().disable_x_mesh().x_desc("position i").y_desc("N_i").draw().map_err(err)?;
    chart
        .draw_series(all.iter().enumerate().map(|(i, &s)| {
            let c = if i < r.n { SCALED } else { RGBColor(170, 170, 170) };
            Rectangle::new([(i as f64, 0.0), (i as f64 + 0.9, s as f64)], c.filled())
        }))
        .map_err(err)?;
    let ms = r.params.min_support as f64;
    chart.draw_series(LineSeries::new([(0.0, ms), (x1, ms)], RED.stroke_width(1))).map_err(err)?;
    Ok(frame(&chart, (0.0, x1), (0.0, top), false))
}
