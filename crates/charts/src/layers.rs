//! **Stress across a model's layers** (the paper's BERT chart, docs/MATH.md §14): σ* (or raw σ) of the
//! positional centroid `layer:ℓ` and of the content-removed centroid `layer-residual:ℓ`
//! against ℓ = 0 … L, with the encodings a model is *given* as horizontal reference lines: the
//! fixed ones (sinusoidal, RoPE, ALiBi) and its own learned position table(s).

use super::palette::{color_of, LAYER, RESIDUAL};
use super::palette::{font, theme, Themed};
use super::{err, frame, ChartResult, STYLE};
use plotters::coord::Shift;
use plotters::prelude::*;
use posgeo::report::Report;

/// The chart's numbers, read from a report.
#[derive(Debug, Clone, PartialEq)]
pub struct LayerCurves {
    /// σ* (or σ) of `layer:ℓ`, ℓ = 0 … L.
    pub centroid: Vec<f64>,
    /// σ* (or σ) of `layer-residual:ℓ`.
    pub residual: Vec<f64>,
    /// Reference lines: (encoding, value).
    pub references: Vec<(String, f64)>,
    /// Raw σ rather than σ*.
    pub raw: bool,
    /// Each layer's positional share and effective dimension (docs/MATH.md §14b), when the
    /// report has them.
    pub measures: Vec<(f64, f64)>,
}

/// The encodings drawn as reference lines: the fixed ones and every learned table.
fn is_reference(name: &str) -> bool {
    matches!(name, "sinusoidal" | "rope" | "alibi") || name == "learned" || name.starts_with("learned:")
}

impl LayerCurves {
    /// The curves of a report's layer rows (None without a model).
    pub fn of(r: &Report, raw: bool) -> Option<LayerCurves> {
        let layers = r.layers.as_ref()?;
        let value = |name: &str| {
            r.encodings.get(name).map(|e| if raw { e.raw_stress } else { e.scaled_stress }).unwrap_or(f64::NAN)
        };
        let curve = |residual: bool| -> Vec<f64> {
            (0..=layers.num_layers).map(|l| value(&posgeo::analysis::layers::layer_key(l, residual))).collect()
        };
        let references = r.encoding_order.iter().filter(|n| is_reference(n)).map(|n| (n.clone(), value(n))).collect();
        let measures = layers.measures.iter().map(|m| (m.positional_share, m.effective_dimension)).collect();
        Some(LayerCurves { centroid: curve(false), residual: curve(true), references, raw, measures })
    }

    /// The layer whose centroid departs most from the corpus geometry (largest value), with it.
    pub fn worst(&self) -> Option<(usize, f64)> {
        self.centroid.iter().copied().enumerate().filter(|(_, v)| v.is_finite()).max_by(|a, b| a.1.total_cmp(&b.1))
    }

    /// The chart's data as CSV: one row per layer, then the reference lines.
    pub fn csv(&self) -> String {
        let what = if self.raw { "raw_stress" } else { "scaled_stress" };
        let mut s = format!("layer,centroid_{what},residual_{what},positional_share,effective_dimension\n");
        for (l, (c, r)) in self.centroid.iter().zip(&self.residual).enumerate() {
            let (share, dim) = match self.measures.get(l) {
                Some((a, b)) => (format!("{a:?}"), format!("{b:?}")),
                None => (String::new(), String::new()),
            };
            s.push_str(&format!("{l},{c:?},{r:?},{share},{dim}\n"));
        }
        for (name, v) in &self.references {
            s.push_str(&format!("{name},{v:?},,,\n"));
        }
        s
    }
}

/// Draws the curves (a message when the report has no model).
pub fn layer_stress<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, curves: Option<&LayerCurves>) -> ChartResult {
    area.fill(&theme().background).map_err(err)?;
    let Some(c) = curves else {
        let text = "no model: choose one under “Inside the model” (or the paper's setting) and run";
        area.draw(&Text::new(text, (20, 40), font(STYLE.label + 2))).map_err(err)?;
        return Ok(super::Frame::default());
    };
    let last = c.centroid.len().saturating_sub(1).max(1) as f64;
    let finite = c.centroid.iter().chain(&c.residual).chain(c.references.iter().map(|(_, v)| v)).copied();
    let top = finite.filter(|v| v.is_finite()).fold(0.0f64, f64::max).max(1e-9) * 1.15;
    let what = if c.raw { "raw σ" } else { "σ*" };
    let mut chart = ChartBuilder::on(area)
        .margin(STYLE.margin)
        .x_label_area_size(STYLE.x_labels)
        .y_label_area_size(STYLE.y_labels)
        .caption(format!("{what} across the model's layers (centroid wine, residual teal)"), font(STYLE.caption))
        .build_cartesian_2d(-0.3f64..last + 0.3, 0f64..top)
        .map_err(err)?;
    chart
        .configure_mesh()
        .themed()
        .x_labels(c.centroid.len().min(25))
        .x_label_formatter(&|v| format!("{v:.0}"))
        .x_desc("layer ℓ (0 = embeddings)")
        .y_desc(what)
        .draw()
        .map_err(err)?;
    let mut refs: Vec<&(String, f64)> = c.references.iter().filter(|(_, v)| v.is_finite()).collect();
    refs.sort_by(|a, b| a.1.total_cmp(&b.1));
    // Labels of nearby lines are stacked upwards so that they do not overlap.
    let (mut last_v, mut stack) = (f64::NEG_INFINITY, 0i32);
    for (name, v) in refs {
        let colour = color_of(name);
        let style = colour.stroke_width(1);
        chart.draw_series(DashedLineSeries::new([(-0.3, *v), (last + 0.3, *v)], 6, 4, style)).map_err(err)?;
        stack = if *v - last_v < 0.06 * top { stack + 1 } else { 0 };
        last_v = *v;
        let font = font(STYLE.small).color(&colour);
        let dy = -(STYLE.small as i32 + 1) * (stack + 1);
        let label = EmptyElement::at((-0.25, *v)) + Text::new(format!("{name} {v:.3}"), (0, dy), font);
        chart.draw_series([label]).map_err(err)?;
    }
    for (values, colour) in [(&c.centroid, LAYER), (&c.residual, RESIDUAL)] {
        let pts: Vec<(f64, f64)> =
            values.iter().enumerate().filter(|(_, v)| v.is_finite()).map(|(l, &v)| (l as f64, v)).collect();
        chart.draw_series(LineSeries::new(pts.clone(), colour.stroke_width(2))).map_err(err)?;
        chart.draw_series(pts.iter().map(|&p| Circle::new(p, 4, colour.filled()))).map_err(err)?;
    }
    Ok(frame(&chart, (-0.3, last + 0.3), (0.0, top), false))
}

/// What the layers chart shows (`#layers-measure`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LayerMeasure {
    /// σ* (or raw σ) of the layer rows, with the given encodings as reference lines.
    #[default]
    Stress,
    /// Each layer's positional share (docs/MATH.md §14b).
    PositionalShare,
    /// Each layer's effective dimension.
    EffectiveDimension,
}

impl LayerMeasure {
    /// Every choice, in the select's order.
    pub const ALL: [LayerMeasure; 3] =
        [LayerMeasure::Stress, LayerMeasure::PositionalShare, LayerMeasure::EffectiveDimension];

    /// The name in the select's values, the report's field and the table's `data-metric`.
    pub fn name(self) -> &'static str {
        match self {
            LayerMeasure::Stress => "stress",
            LayerMeasure::PositionalShare => "positional_share",
            LayerMeasure::EffectiveDimension => "effective_dimension",
        }
    }

    /// Parses [`LayerMeasure::name`].
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.name() == name)
    }

    /// In words (axis and read-outs).
    pub fn label(self) -> &'static str {
        match self {
            LayerMeasure::Stress => "stress",
            LayerMeasure::PositionalShare => "positional share",
            LayerMeasure::EffectiveDimension => "effective dimension",
        }
    }

    /// Each layer's value of this per-layer measure, ℓ = 0 … L (None for stress, or without
    /// a model).
    pub fn values(self, r: &Report) -> Option<Vec<f64>> {
        let layers = r.layers.as_ref()?;
        let pick = |m: &posgeo::analysis::layers::LayerMeasures| match self {
            LayerMeasure::PositionalShare => Some(m.positional_share),
            LayerMeasure::EffectiveDimension => Some(m.effective_dimension),
            LayerMeasure::Stress => None,
        };
        let values: Option<Vec<f64>> = layers.measures.iter().map(pick).collect();
        values.filter(|v| !v.is_empty())
    }
}

/// Draws a per-layer measure against ℓ (a message when the report has none).
pub fn layer_measure<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, r: &Report, m: LayerMeasure) -> ChartResult {
    area.fill(&theme().background).map_err(err)?;
    let Some(values) = m.values(r) else {
        let text = "no per-layer measures: choose a model under “Inside the model” and run";
        area.draw(&Text::new(text, (20, 40), font(STYLE.label + 2))).map_err(err)?;
        return Ok(super::Frame::default());
    };
    let skip = r.layers.as_ref().map_or(0, |l| l.skip);
    let last = values.len().saturating_sub(1).max(1) as f64;
    let finite = values.iter().copied().filter(|v| v.is_finite());
    let top = match m {
        LayerMeasure::PositionalShare => 1.0,
        _ => finite.fold(0.0f64, f64::max).max(1e-9) * 1.15,
    };
    let caption = format!("{} of each layer (positions {skip}… of the model's pass)", m.label());
    let mut chart = ChartBuilder::on(area)
        .margin(STYLE.margin)
        .x_label_area_size(STYLE.x_labels)
        .y_label_area_size(STYLE.y_labels)
        .caption(caption, font(STYLE.caption))
        .build_cartesian_2d(-0.3f64..last + 0.3, 0f64..top)
        .map_err(err)?;
    chart
        .configure_mesh()
        .themed()
        .x_labels(values.len().min(25))
        .x_label_formatter(&|v| format!("{v:.0}"))
        .x_desc("layer ℓ (0 = embeddings)")
        .y_desc(m.label())
        .draw()
        .map_err(err)?;
    let pts: Vec<(f64, f64)> =
        values.iter().enumerate().filter(|(_, v)| v.is_finite()).map(|(l, &v)| (l as f64, v)).collect();
    chart.draw_series(LineSeries::new(pts.clone(), LAYER.stroke_width(2))).map_err(err)?;
    chart.draw_series(pts.iter().map(|&p| Circle::new(p, 4, LAYER.filled()))).map_err(err)?;
    Ok(frame(&chart, (-0.3, last + 0.3), (0.0, top), false))
}
