//! The page's charts as an enum, and one drawing function for all of them, generic over the
//! backend: the canvas on the page, SVG for downloads and native tests.

use crate::protocol::Payload;
use crate::view::View;
use plotters::coord::Shift;
use plotters::prelude::*;
use posgeo_charts::{self as charts, Frame, View3d};

/// The heatmap's SVG export draws at most this many blocks per side (block means).
pub const SVG_HEATMAP_BLOCKS: usize = 128;

/// Every chart of the dashboard, in page order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChartKind {
    /// Stress per encoding.
    Stress,
    /// The distance matrix.
    Heatmap,
    /// D beside an encoding's a*·δ, block means on one colour scale.
    Geometry,
    /// Eigenvalues of B.
    Spectrum,
    /// The PMDS map (2-D or 3-D).
    Map,
    /// The Shepard diagram of one encoding.
    Shepard,
    /// Stress against the rank of low-rank PMDS.
    Rank,
    /// Monotonicity violation rates.
    Monotonicity,
    /// Support per position.
    Support,
    /// Stress across a model's layers (docs/MATH.md §14), or a per-layer measure.
    Layers,
    /// One layer's positional centroids on their first two principal axes.
    LayerMap,
}

impl ChartKind {
    /// Every chart, in page order (the order they are drawn in): the σ* chart and the PMDS
    /// map, above the fold, first.
    pub const ALL: [ChartKind; 11] = [
        ChartKind::Stress,
        ChartKind::Map,
        ChartKind::Layers,
        ChartKind::LayerMap,
        ChartKind::Heatmap,
        ChartKind::Geometry,
        ChartKind::Spectrum,
        ChartKind::Shepard,
        ChartKind::Rank,
        ChartKind::Monotonicity,
        ChartKind::Support,
    ];

    /// The name in element ids (`chart-<name>`, `readout-<name>`), buttons and file names.
    pub fn name(self) -> &'static str {
        match self {
            ChartKind::Stress => "stress",
            ChartKind::Heatmap => "heatmap",
            ChartKind::Geometry => "geometry",
            ChartKind::Spectrum => "spectrum",
            ChartKind::Map => "map",
            ChartKind::Shepard => "shepard",
            ChartKind::Rank => "rank",
            ChartKind::Monotonicity => "monotonicity",
            ChartKind::Support => "support",
            ChartKind::Layers => "layers",
            ChartKind::LayerMap => "layer-map",
        }
    }

    /// What the chart shows, in words: its canvas's text alternative (`aria-label`).
    pub fn description(self) -> &'static str {
        match self {
            ChartKind::Stress => "Bar chart: the scale-optimal stress σ* of every encoding (lower is more faithful to the corpus geometry)",
            ChartKind::Map => "Scatter plot: every position at its first two PMDS coordinates, joined in sequence order",
            ChartKind::Layers => "Line chart: σ* of each model layer's positional centroid and residual, with the given encodings as reference lines, or each layer's positional share or effective dimension",
            ChartKind::LayerMap => "Scatter plot: one model layer's positional centroids on their first two principal axes, coloured by position",
            ChartKind::Heatmap => "Heatmap: the corpus distance D between every two positions",
            ChartKind::Geometry => "Two heatmaps: the corpus distance D beside the picked encoding's rescaled distances",
            ChartKind::Spectrum => "Bar chart: the eigenvalues of the double-centred matrix B, with the cumulative energy",
            ChartKind::Shepard => "Scatter plot: the picked encoding's rescaled distances against the corpus distances, with the diagonal",
            ChartKind::Rank => "Line chart: the stress of low-rank PMDS against its rank r, with the fixed encodings as reference lines",
            ChartKind::Monotonicity => "Bar chart: the monotonicity violation rate of the corpus metric and of every encoding",
            ChartKind::Support => "Bar chart: the number of sequences counted at each position, with the min_support line",
        }
    }

    /// Parses [`ChartKind::name`].
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// The PMDS map's view: 2-D, or 3-D turned by `yaw` and tilted by `pitch` (degrees).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MapView {
    /// 3-D on.
    pub three_d: bool,
    /// Turn, −180..180.
    pub yaw: i32,
    /// Tilt, −90..90.
    pub pitch: i32,
}

impl Default for MapView {
    fn default() -> Self {
        MapView { three_d: false, yaw: 34, pitch: 20 }
    }
}

impl MapView {
    /// The projection angles.
    pub fn angles(self) -> View3d {
        View3d { yaw: f64::from(self.yaw).to_radians(), pitch: f64::from(self.pitch).to_radians() }
    }
}

impl View {
    /// The layer the layer map shows: the chosen one, capped at the last, which is the default.
    pub fn map_layer(&self, p: &posgeo::report::Report) -> usize {
        let last = p.layers.as_ref().map_or(0, |l| l.num_layers);
        self.layer_map.map_or(last, |l| l.min(last))
    }

    /// The encoding the Shepard diagram shows: the chosen one if the results have it.
    pub fn shepard_for<'a>(&'a self, p: &'a Payload) -> &'a str {
        match &self.shepard {
            Some(s) if p.report.encodings.contains_key(s) => s,
            _ => "sinusoidal",
        }
    }
}

/// What drawing a chart leaves for hover read-outs: its frame, and for the 3-D map the pixel
/// of every position.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Drawn {
    /// Pixel ↔ data mapping of the plotting area.
    pub frame: Frame,
    /// The 3-D map's points in pixels (empty otherwise).
    pub pixels: Vec<(i32, i32)>,
}

/// Draws one chart. On canvas (`svg` = false) the cells of the heatmap and of the geometry
/// pair are left to the caller's bitmap ([`charts::bitmap`]); for SVG they are rectangles
/// (the heatmap's at most [`SVG_HEATMAP_BLOCKS`]² block means).
pub fn draw_on<DB: DrawingBackend>(
    kind: ChartKind,
    root: &DrawingArea<DB, Shift>,
    p: &Payload,
    view: &View,
    svg: bool,
) -> Result<Drawn, String> {
    let r = &p.report;
    let frame = match kind {
        ChartKind::Stress => charts::stress_bars(root, r, view.stress_raw)?,
        ChartKind::Heatmap => charts::heatmap(root, heat_matrix(p), &r.metric, svg, SVG_HEATMAP_BLOCKS)?,
        ChartKind::Geometry => {
            let (name, panels) = geometry_panels(p, view);
            charts::geometry_pair(root, p.heat.side, panels, name, svg)?
        }
        ChartKind::Spectrum => charts::spectrum(root, r)?,
        ChartKind::Map if view.map.three_d => {
            let pixels = charts::pmds_map_3d(root, &r.pmds_coordinates, view.map.angles())?;
            // Hover on the 3-D map works in pixels: an identity frame over the whole area.
            let (w, h) = root.dim_in_pixel();
            let (w, h) = (w as i32, h as i32);
            let frame = Frame { px: (0, w), py: (0, h), x: (0.0, f64::from(w)), y: (f64::from(h), 0.0), log_y: false };
            return Ok(Drawn { frame, pixels });
        }
        ChartKind::Map => {
            let overlay = view
                .overlay
                .as_deref()
                .and_then(|name| p.overlay.get(name).map(|points| charts::Overlay { name, points: points.as_slice() }));
            charts::pmds_map(root, &r.pmds_coordinates, overlay)?
        }
        ChartKind::Shepard => {
            let name = view.shepard_for(p);
            charts::shepard(root, name, p.shepard.get(name).map(Vec::as_slice).unwrap_or(&[]))?
        }
        ChartKind::Rank => charts::rank_curve(root, r)?,
        ChartKind::Monotonicity => charts::monotonicity(root, r)?,
        ChartKind::Support => charts::support(root, r)?,
        ChartKind::Layers => match view.layers_measure {
            charts::LayerMeasure::Stress => {
                charts::layer_stress(root, charts::LayerCurves::of(r, view.layers_raw).as_ref())?
            }
            measure => charts::layer_measure(root, r, measure)?,
        },
        ChartKind::LayerMap => charts::layer_map(root, r, view.map_layer(r))?,
    };
    Ok(Drawn { frame, pixels: Vec::new() })
}

/// The distance matrix the heatmap shows.
fn heat_matrix(p: &Payload) -> &[Vec<f64>] {
    p.report.matrix.values().next().map_or(&[], Vec::as_slice)
}

/// The geometry pair's encoding (the Shepard picker's) and its two panels, D and a*·δ.
fn geometry_panels<'a>(p: &'a Payload, view: &'a View) -> (&'a str, (&'a [f32], &'a [f32])) {
    let name = view.shepard_for(p);
    let delta = p.heat.encodings.get(name).map_or(&[][..], Vec::as_slice);
    (name, (&p.heat.corpus, delta))
}

/// The cells that [`draw_on`] leaves to the canvas, as a `w` × `h` RGBA image for the chart's
/// plotting area ([`charts::bitmap`]); `None` for charts without such cells.
pub fn cells_image(kind: ChartKind, p: &Payload, view: &View, (w, h): (usize, usize)) -> Option<Vec<u8>> {
    match kind {
        ChartKind::Heatmap => Some(charts::bitmap::heatmap(w, h, heat_matrix(p))),
        ChartKind::Geometry => {
            let (_, (corpus, delta)) = geometry_panels(p, view);
            Some(charts::bitmap::geometry_pair(w, h, p.heat.side, corpus, delta))
        }
        _ => None,
    }
}

/// A chart as an SVG document of `size` pixels.
pub fn svg(kind: ChartKind, p: &Payload, view: &View, size: (u32, u32)) -> Result<String, String> {
    let mut s = String::new();
    {
        let root = SVGBackend::with_string(&mut s, size).into_drawing_area();
        draw_on(kind, &root, p, view, true)?;
        root.present().map_err(|e| format!("drawing failed: {e:?}"))?;
    }
    Ok(s)
}
