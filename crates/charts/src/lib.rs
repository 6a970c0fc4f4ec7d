//! **Charts**, written once and generic over plotters' [`DrawingBackend`]: the page draws
//! them on a `<canvas>` (plotters-canvas), the PNG/SVG downloads and the native tests draw
//! them with the SVG backend. Each function returns the [`Frame`] of its plotting area, so
//! the web layer can turn a mouse position into data coordinates for hover read-outs.

use plotters::prelude::*;
use plotters::style::colors::colormaps::ViridisRGB;

mod bars;
pub mod bitmap;
mod layer_map;
mod layers;
mod learn;
mod map;
mod matrix;
pub mod palette;

pub use bars::{monotonicity, stress_bars, support};
pub use layer_map::{layer_map, layer_points};
pub use layers::{layer_measure, layer_stress, LayerCurves, LayerMeasure};
pub use learn::{learn_loss, learn_map, learn_scatter, learn_tables, signal_color};
pub use map::{pmds_map, pmds_map_3d, shepard, Overlay, View3d};
pub use matrix::{geometry_pair, heatmap, rank_curve, spectrum};

/// Result of a chart function.
pub type ChartResult = Result<Frame, String>;

/// Where the data landed: the plotting area in pixels and the data range it shows.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Frame {
    /// Pixel x range of the plotting area.
    pub px: (i32, i32),
    /// Pixel y range (top, bottom).
    pub py: (i32, i32),
    /// Data x range.
    pub x: (f64, f64),
    /// Data y range (bottom, top).
    pub y: (f64, f64),
    /// Whether y is on a log10 axis.
    pub log_y: bool,
}

impl Frame {
    /// Data coordinates of a pixel, or `None` outside the plotting area.
    pub fn to_data(&self, px: i32, py: i32) -> Option<(f64, f64)> {
        if px < self.px.0 || px > self.px.1 || py < self.py.0 || py > self.py.1 {
            return None;
        }
        let fx = (px - self.px.0) as f64 / (self.px.1 - self.px.0).max(1) as f64;
        let fy = (self.py.1 - py) as f64 / (self.py.1 - self.py.0).max(1) as f64;
        let x = self.x.0 + fx * (self.x.1 - self.x.0);
        let y = if self.log_y {
            10f64.powf(self.y.0.log10() + fy * (self.y.1.log10() - self.y.0.log10()))
        } else {
            self.y.0 + fy * (self.y.1 - self.y.0)
        };
        Some((x, y))
    }
}

pub(crate) fn err<E: std::fmt::Debug>(e: E) -> String {
    format!("drawing failed: {e:?}")
}

pub(crate) fn frame<DB: DrawingBackend, X: Ranged, Y: Ranged>(
    chart: &ChartContext<DB, Cartesian2d<X, Y>>,
    x: (f64, f64),
    y: (f64, f64),
    log_y: bool,
) -> Frame {
    let (rx, ry) = chart.plotting_area().get_pixel_range();
    Frame { px: (rx.start, rx.end), py: (ry.start, ry.end), x, y, log_y }
}

/// The viridis colour of t ∈ [0, 1].
pub fn viridis(t: f64) -> RGBColor {
    ViridisRGB::get_color(t.clamp(0.0, 1.0))
}

/// Category names centred under bars i + 0.5 (plotters' numeric ticks would skip some).
pub(crate) fn category_labels<DB: DrawingBackend, Y: Ranged<ValueType = f64>>(
    chart: &mut ChartContext<DB, Cartesian2d<plotters::coord::types::RangedCoordf64, Y>>,
    names: &[String],
    y: f64,
) -> Result<(), String> {
    use plotters::style::text_anchor::{HPos, Pos, VPos};
    let style = palette::font(STYLE.label).pos(Pos::new(HPos::Center, VPos::Top));
    // Names wider than their slot (a narrow chart) alternate between two rows.
    let (xs, _) = chart.plotting_area().get_pixel_range();
    let slot = f64::from(xs.end - xs.start) / names.len().max(1) as f64;
    let widest = names.iter().map(|n| n.chars().count()).max().unwrap_or(0) as f64 * 0.6 * f64::from(STYLE.label);
    let row = |i: usize| if widest > slot && i % 2 == 1 { STYLE.label as i32 + 4 } else { 2 };
    chart
        .draw_series(
            names
                .iter()
                .enumerate()
                .map(|(i, n)| EmptyElement::at((i as f64 + 0.5, y)) + Text::new(n.clone(), (0, row(i)), style.clone())),
        )
        .map_err(err)?;
    Ok(())
}

/// Margins, label areas and fonts of every chart, in one value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Style {
    /// Font family.
    pub font: &'static str,
    /// Caption size (px).
    pub caption: u32,
    /// Category label size (px).
    pub label: u32,
    /// Axis label size of the 3-D map (px).
    pub small: u32,
    /// Margin around the chart (px).
    pub margin: u32,
    /// Height of the x label area (px).
    pub x_labels: u32,
    /// Width of the y label area (px).
    pub y_labels: u32,
}

/// The style of every chart.
pub const STYLE: Style =
    Style { font: "sans-serif", caption: 16, label: 12, small: 11, margin: 10, x_labels: 35, y_labels: 60 };

/// The floor of log axes: values below are drawn here (PMDS's round-off zero among them).
pub(crate) const FLOOR: f64 = 1e-6;

pub(crate) fn padded(lo: f64, hi: f64) -> (f64, f64) {
    let pad = ((hi - lo) * 0.05).max(1e-9);
    (lo - pad, hi + pad)
}

/// The padded range of some values.
pub(crate) fn span(values: impl Iterator<Item = f64> + Clone) -> (f64, f64) {
    padded(values.clone().fold(f64::INFINITY, f64::min), values.fold(f64::NEG_INFINITY, f64::max))
}

#[cfg(test)]
pub(crate) mod tests;
