//! **One layer's positions** (docs/MATH.md §14b): the positional centroids of layer ℓ on their
//! first two principal axes, positions skip..n_L coloured by position as the PMDS map colours
//! them and joined in sequence order.

use super::palette::{font, theme, Themed};
use super::{err, frame, span, viridis, ChartResult, STYLE};
use plotters::coord::Shift;
use plotters::prelude::*;
use posgeo::report::Report;

/// Layer `layer`'s kept positions and their first two principal coordinates (a missing
/// second coordinate is 0); None without a model or past the last layer.
pub fn layer_points(r: &Report, layer: usize) -> Option<Vec<(usize, (f64, f64))>> {
    let layers = r.layers.as_ref()?;
    let m = layers.measures.iter().find(|m| m.layer == layer)?;
    let pt = |c: &Vec<f64>| (c.first().copied().unwrap_or(0.0), c.get(1).copied().unwrap_or(0.0));
    Some(m.principal.iter().enumerate().map(|(k, c)| (layers.skip + k, pt(c))).collect())
}

/// Draws layer `layer`'s map (a message when the report has no model).
pub fn layer_map<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, r: &Report, layer: usize) -> ChartResult {
    area.fill(&theme().background).map_err(err)?;
    let Some(points) = layer_points(r, layer).filter(|p| !p.is_empty()) else {
        let text = "no model's layers: choose a model under “Inside the model” and run";
        area.draw(&Text::new(text, (20, 40), font(STYLE.label + 2))).map_err(err)?;
        return Ok(super::Frame::default());
    };
    let pts: Vec<(f64, f64)> = points.iter().map(|&(_, p)| p).collect();
    let ((x0, x1), (y0, y1)) = (span(pts.iter().map(|p| p.0)), span(pts.iter().map(|p| p.1)));
    let caption = format!("layer {layer}: positional centroids on principal axes 1–2 (colour = position)");
    let mut chart = ChartBuilder::on(area)
        .margin(STYLE.margin)
        .x_label_area_size(STYLE.x_labels)
        .y_label_area_size(STYLE.y_labels)
        .caption(caption, font(STYLE.caption))
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(err)?;
    chart.configure_mesh().themed().x_desc("PC₁").y_desc("PC₂").draw().map_err(err)?;
    chart.draw_series(LineSeries::new(pts.clone(), theme().text.mix(0.25))).map_err(err)?;
    // Coloured as the PMDS map colours position i of its n.
    let n = r.n.max(2) as f64 - 1.0;
    chart.draw_series(points.iter().map(|&(i, p)| Circle::new(p, 4, viridis(i as f64 / n).filled()))).map_err(err)?;
    Ok(frame(&chart, (x0, x1), (y0, y1), false))
}
