//! Hover read-outs: what the page says under a chart for the point under the mouse, given
//! in the chart's data coordinates (or pixels, for the 3-D map).

use super::charts::ChartKind;
use crate::protocol::Payload;
use crate::view::View;
use posgeo::report::{fmt_number, Report};

/// On the 3-D map, a position is read out when the mouse is this close (pixels).
pub const MAP_HOVER_RADIUS_PX: f64 = 12.0;

/// A read-out: the text, and the position whose top tokens the page should list.
#[derive(Debug, Clone, PartialEq)]
pub struct Readout {
    /// The read-out line.
    pub text: String,
    /// A position to detail in `#position-tokens`.
    pub position: Option<usize>,
}

fn text(text: String) -> Option<Readout> {
    Some(Readout { text, position: None })
}

fn at(text: String, i: usize) -> Option<Readout> {
    Some(Readout { text, position: Some(i) })
}

/// "position 3 (N = 200): "the" ×40, …" — the top tokens of position `i`.
pub fn position_tokens(r: &Report, i: usize) -> Option<String> {
    let top = r.top_tokens.get(i)?;
    let list: Vec<String> = top.iter().map(|(t, c)| format!("{t:?} ×{c}")).collect();
    Some(format!("position {i} (N = {}): {}", r.support.get(i)?, list.join(", ")))
}

/// The read-out at data point (x, y) of chart `kind` (`pixels`: the 3-D map's points).
pub fn readout(
    kind: ChartKind,
    p: &Payload,
    view: &View,
    (x, y): (f64, f64),
    pixels: &[(i32, i32)],
) -> Option<Readout> {
    let r = &p.report;
    let index = |v: f64| v.max(0.0) as usize;
    match kind {
        ChartKind::Stress => {
            let n = r.encoding_order.get(index(x))?;
            let s = r.encodings.get(n)?;
            let (raw, scaled, a) =
                (fmt_number(Some(s.raw_stress)), fmt_number(Some(s.scaled_stress)), fmt_number(Some(s.scale)));
            text(format!("{n}: raw σ = {raw}, scaled σ* = {scaled}, a* = {a}"))
        }
        ChartKind::Heatmap => {
            let (i, j) = (index(y), index(x));
            let d = r.matrix.values().next()?.get(i)?.get(j)?;
            at(format!("i = {i}, j = {j}, D_ij = {d:.6}"), i)
        }
        ChartKind::Geometry => geometry(p, view, (x, y)),
        ChartKind::Spectrum => {
            let k = x.round().max(1.0) as usize;
            text(format!("λ_{k} = {:.6e}", r.eigenvalues.get(k - 1)?))
        }
        ChartKind::Map if view.map.three_d => map_3d(r, (x, y), pixels),
        ChartKind::Map => map_2d(r, (x, y)),
        ChartKind::Shepard => text(format!("D = {x:.4}, a*·δ = {y:.4}")),
        ChartKind::Rank => {
            // The measured rank nearest the pointer (the grid is geometric above r = 64).
            let pt =
                r.rank_curve.iter().min_by(|a, b| (a.rank as f64 - x).abs().total_cmp(&(b.rank as f64 - x).abs()))?;
            let k = pt.rank;
            let (raw, scaled) = (fmt_number(Some(pt.raw_stress)), fmt_number(Some(pt.scaled_stress)));
            let full = r.n * r.params.encodings.d;
            text(format!("r = {k}: σ = {raw}, σ* = {scaled}, parameters r(n+d) = {} vs n·d = {full}", pt.parameters))
        }
        ChartKind::Monotonicity => match index(x) {
            0 => text(format!("corpus D: {}", fmt_number(r.corpus_monotonicity_violation_rate))),
            k => {
                let n = r.encoding_order.get(k - 1)?;
                text(format!("{n}: {}", fmt_number(r.encodings.get(n)?.monotonicity_violation_rate)))
            }
        },
        ChartKind::LayerMap => layer_map(r, view, (x, y)),
        ChartKind::Layers => layers(r, view, x),
        ChartKind::Support => {
            let i = index(x);
            let s = r.support_all.get(i)?;
            let kept = i < r.n;
            let t = format!("position {i}: N = {s} ({})", if kept { "kept" } else { "dropped" });
            Some(Readout { text: t, position: kept.then_some(i) })
        }
    }
}

/// The layers chart at layer x: its stress curves' values, or the measure shown.
fn layers(r: &Report, view: &View, x: f64) -> Option<Readout> {
    let l = x.round().max(0.0) as usize;
    let m = view.layers_measure;
    if m != posgeo_charts::LayerMeasure::Stress {
        return text(format!("layer {l}: {} = {}", m.label(), fmt_number(Some(*m.values(r)?.get(l)?))));
    }
    let c = posgeo_charts::LayerCurves::of(r, view.layers_raw)?;
    let (cv, rv) = (c.centroid.get(l)?, c.residual.get(l)?);
    let what = if c.raw { "σ" } else { "σ*" };
    text(format!("layer {l}: centroid {what} = {}, residual {what} = {}", fmt_number(Some(*cv)), fmt_number(Some(*rv))))
}

/// The layer map's position nearest (x, y), distances scaled by each axis's spread.
fn layer_map(r: &Report, view: &View, (x, y): (f64, f64)) -> Option<Readout> {
    let l = view.map_layer(r);
    let points = posgeo_charts::layer_points(r, l)?;
    let spread = |f: &dyn Fn(&(f64, f64)) -> f64| {
        let (lo, hi) = points
            .iter()
            .map(|(_, p)| f(p))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), t| (lo.min(t), hi.max(t)));
        (hi - lo).max(1e-300)
    };
    let (sx, sy) = (spread(&|p| p.0), spread(&|p| p.1));
    let d = |p: &(f64, f64)| ((p.0 - x) / sx).powi(2) + ((p.1 - y) / sy).powi(2);
    let (i, p) = points.iter().min_by(|a, b| d(&a.1).total_cmp(&d(&b.1)))?;
    at(format!("layer {l}, position {i}: PC₁ = {:.4}, PC₂ = {:.4}", p.0, p.1), *i)
}

/// A block of the geometry chart: its positions and both values.
fn geometry(p: &Payload, view: &View, (x, y): (f64, f64)) -> Option<Readout> {
    let h = &p.heat;
    let side = h.side;
    let (i, mut j) = (y.max(0.0) as usize, x.max(0.0) as usize);
    if j == side || i >= side {
        return None; // the gap between the panels
    }
    if j > side {
        j -= side + 1;
    }
    let name = view.shepard_for(p);
    let (d, e) = (h.corpus.get(i * side + j)?, h.encodings.get(name)?.get(i * side + j)?);
    let n = p.report.n;
    let span = |b: usize| format!("{}..{}", b * n / side, ((b + 1) * n / side).saturating_sub(1));
    let text = format!("positions {} × {}: D = {d:.4}, a*·δ ({name}) = {e:.4}", span(i), span(j));
    Some(Readout { text, position: Some(i * n / side) })
}

fn map_3d(r: &Report, (x, y): (f64, f64), pixels: &[(i32, i32)]) -> Option<Readout> {
    let d2 = |&(px, py): &(i32, i32)| (f64::from(px) - x).powi(2) + (f64::from(py) - y).powi(2);
    let (i, best) = pixels.iter().map(d2).enumerate().min_by(|a, b| a.1.total_cmp(&b.1))?;
    if best > MAP_HOVER_RADIUS_PX * MAP_HOVER_RADIUS_PX {
        return None;
    }
    let c = r.pmds_coordinates.get(i)?;
    let k = |k: usize| c.get(k).copied().unwrap_or(0.0);
    at(format!("position {i}: x₁ = {:.4}, x₂ = {:.4}, x₃ = {:.4}", k(0), k(1), k(2)), i)
}

fn map_2d(r: &Report, (x, y): (f64, f64)) -> Option<Readout> {
    // Nearest position in the chart's own proportions (data units scaled by the axes' spans).
    let xs = r.pmds_coordinates.iter().map(|c| c.first().copied().unwrap_or(0.0));
    let ys = r.pmds_coordinates.iter().map(|c| c.get(1).copied().unwrap_or(0.0));
    let spread = |v: &mut dyn Iterator<Item = f64>| {
        let (lo, hi) = v.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), t| (lo.min(t), hi.max(t)));
        (hi - lo).max(1e-300)
    };
    let (sx, sy) = (spread(&mut xs.clone()), spread(&mut ys.clone()));
    let d = |c: &Vec<f64>| {
        ((c.first().copied().unwrap_or(0.0) - x) / sx).powi(2) + ((c.get(1).copied().unwrap_or(0.0) - y) / sy).powi(2)
    };
    let (i, c) = r.pmds_coordinates.iter().enumerate().min_by(|a, b| d(a.1).total_cmp(&d(b.1)))?;
    let c2 = c.get(1).copied().unwrap_or(0.0);
    at(format!("position {i}: x₁ = {:.4}, x₂ = {c2:.4}", c.first().copied().unwrap_or(0.0)), i)
}
