//! **Charts**, written once and generic over plotters' [`DrawingBackend`]: the page draws
//! them on a `<canvas>` (plotters-canvas), the PNG/SVG downloads and the native tests draw
//! them with the SVG backend. Each function returns the [`Frame`] of its plotting area, so
//! the web layer can turn a mouse position into data coordinates for hover read-outs.

use crate::report::Report;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::colors::colormaps::ViridisRGB;

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

fn err<E: std::fmt::Debug>(e: E) -> String {
    format!("drawing failed: {e:?}")
}

fn frame<DB: DrawingBackend, X: Ranged, Y: Ranged>(
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
fn category_labels<DB: DrawingBackend, Y: Ranged<ValueType = f64>>(
    chart: &mut ChartContext<DB, Cartesian2d<plotters::coord::types::RangedCoordf64, Y>>,
    names: &[String],
    y: f64,
) -> Result<(), String> {
    use plotters::style::text_anchor::{HPos, Pos, VPos};
    let style = TextStyle::from(("sans-serif", 12).into_font()).pos(Pos::new(HPos::Center, VPos::Top));
    chart
        .draw_series(names.iter().enumerate().map(|(i, n)| Text::new(n.clone(), (i as f64 + 0.5, y), style.clone())))
        .map_err(err)?;
    Ok(())
}

const RAW: RGBColor = RGBColor(230, 120, 40);
const SCALED: RGBColor = RGBColor(40, 110, 200);
const FLOOR: f64 = 1e-6;

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
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .caption("stress per encoding (raw σ orange, scaled σ* blue)", ("sans-serif", 16))
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

/// The distance matrix as a heatmap with a colour bar. With `cells` = false only the axes
/// and the colour bar are drawn (the caller paints the bitmap itself into the frame); with
/// `cells` = true the matrix is drawn as at most `resolution`² rectangles (block means).
pub fn heatmap<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    matrix: &[Vec<f64>],
    label: &str,
    cells: bool,
    resolution: usize,
) -> ChartResult {
    area.fill(&WHITE).map_err(err)?;
    let n = matrix.len();
    let max = matrix.iter().flatten().copied().fold(0.0f64, f64::max).max(1e-300);
    let (plot, bar) = area.split_horizontally(area.dim_in_pixel().0.saturating_sub(70));
    let mut chart = ChartBuilder::on(&plot)
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(40)
        .caption(format!("{label} distance D_ij"), ("sans-serif", 16))
        .build_cartesian_2d(0f64..n as f64, n as f64..0f64)
        .map_err(err)?;
    chart.configure_mesh().disable_mesh().x_desc("j").y_desc("i").draw().map_err(err)?;
    if cells && n > 0 {
        let res = resolution.clamp(1, n);
        let block = n as f64 / res as f64;
        let mut rects = Vec::with_capacity(res * res);
        for bi in 0..res {
            for bj in 0..res {
                let (i0, i1) = ((bi as f64 * block) as usize, (((bi + 1) as f64 * block) as usize).max(bi + 1).min(n));
                let (j0, j1) = ((bj as f64 * block) as usize, (((bj + 1) as f64 * block) as usize).max(bj + 1).min(n));
                let mut s = 0.0;
                for row in &matrix[i0..i1] {
                    s += row[j0..j1].iter().sum::<f64>();
                }
                let v = s / ((i1 - i0) * (j1 - j0)) as f64;
                rects.push(Rectangle::new([(j0 as f64, i0 as f64), (j1 as f64, i1 as f64)], viridis(v / max).filled()));
            }
        }
        chart.draw_series(rects).map_err(err)?;
    }
    let f = frame(&chart, (0.0, n as f64), (n as f64, 0.0), false);
    let mut cb = ChartBuilder::on(&bar)
        .margin_top(40)
        .margin_bottom(40)
        .margin_right(5)
        .y_label_area_size(45)
        .build_cartesian_2d(0f64..1f64, 0f64..max)
        .map_err(err)?;
    cb.configure_mesh().disable_mesh().disable_x_axis().y_labels(5).draw().map_err(err)?;
    let steps = 64;
    cb.draw_series((0..steps).map(|s| {
        let (a, b) = (s as f64 / steps as f64 * max, (s + 1) as f64 / steps as f64 * max);
        Rectangle::new([(0.0, a), (1.0, b)], viridis(a / max).filled())
    }))
    .map_err(err)?;
    Ok(f)
}

/// Eigenvalues of B (bars) and cumulative energy (line, right axis), r_τ and r_E marked.
pub fn spectrum<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, r: &Report) -> ChartResult {
    area.fill(&WHITE).map_err(err)?;
    let ev = &r.eigenvalues;
    let shown = ev.len().min((r.effective_rank + 5).max(10)).min(ev.len());
    let top = ev.first().copied().unwrap_or(1.0).max(1e-300) * 1.05;
    let bottom = ev[..shown].iter().copied().fold(0.0f64, f64::min);
    let x1 = shown as f64 + 0.5;
    let mut chart = ChartBuilder::on(area)
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(60)
        .right_y_label_area_size(45)
        .caption(format!("spectrum of B: r_τ = {}, r_E = {}", r.effective_rank, r.energy_rank), ("sans-serif", 16))
        .build_cartesian_2d(0.5f64..x1, bottom..top)
        .map_err(err)?
        .set_secondary_coord(0.5f64..x1, 0f64..1.02f64);
    chart.configure_mesh().disable_x_mesh().x_desc("k").y_desc("λ_k").draw().map_err(err)?;
    chart.configure_secondary_axes().y_desc("cumulative energy").draw().map_err(err)?;
    chart
        .draw_series(ev[..shown].iter().enumerate().map(|(k, &l)| {
            let x = k as f64 + 1.0;
            Rectangle::new([(x - 0.35, 0.0), (x + 0.35, l)], SCALED.mix(0.8).filled())
        }))
        .map_err(err)?;
    let pos_total: f64 = ev.iter().map(|l| l.max(0.0)).sum::<f64>().max(1e-300);
    let mut acc = 0.0;
    let cum: Vec<(f64, f64)> = ev[..shown]
        .iter()
        .enumerate()
        .map(|(k, l)| {
            acc += l.max(0.0);
            (k as f64 + 1.0, acc / pos_total)
        })
        .collect();
    chart.draw_secondary_series(LineSeries::new(cum, RAW.stroke_width(2))).map_err(err)?;
    for (rank, color) in [(r.effective_rank, BLACK), (r.energy_rank, RED)] {
        let x = rank as f64 + 0.5;
        chart.draw_secondary_series(LineSeries::new([(x, 0.0), (x, 1.02)], color.stroke_width(1))).map_err(err)?;
    }
    Ok(frame(&chart, (0.5, x1), (bottom, top), false))
}

fn padded(lo: f64, hi: f64) -> (f64, f64) {
    let pad = ((hi - lo) * 0.05).max(1e-9);
    (lo - pad, hi + pad)
}

/// The padded range of some values.
fn span(values: impl Iterator<Item = f64> + Clone) -> (f64, f64) {
    padded(values.clone().fold(f64::INFINITY, f64::min), values.fold(f64::NEG_INFINITY, f64::max))
}

/// Positions in the first two PMDS coordinates, coloured and connected in sequence order.
pub fn pmds_map<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, coords: &[Vec<f64>]) -> ChartResult {
    area.fill(&WHITE).map_err(err)?;
    let pt = |c: &Vec<f64>| (c.first().copied().unwrap_or(0.0), c.get(1).copied().unwrap_or(0.0));
    let pts: Vec<(f64, f64)> = coords.iter().map(pt).collect();
    let ((x0, x1), (y0, y1)) = (span(pts.iter().map(|p| p.0)), span(pts.iter().map(|p| p.1)));
    let mut chart = ChartBuilder::on(area)
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(60)
        .caption("PMDS map: positions in MDS coordinates 1–2 (colour = position)", ("sans-serif", 16))
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(err)?;
    chart.configure_mesh().x_desc("x₁").y_desc("x₂").draw().map_err(err)?;
    chart.draw_series(LineSeries::new(pts.clone(), BLACK.mix(0.25))).map_err(err)?;
    let n = pts.len().max(2) as f64 - 1.0;
    chart
        .draw_series(pts.iter().enumerate().map(|(i, &p)| Circle::new(p, 4, viridis(i as f64 / n).filled())))
        .map_err(err)?;
    Ok(frame(&chart, (x0, x1), (y0, y1), false))
}

/// Viewing angles of the 3-D PMDS map, in radians (plotters' projection: yaw turns about
/// the vertical axis, pitch tilts towards the viewer).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct View3d {
    /// Rotation about the vertical axis.
    pub yaw: f64,
    /// Tilt.
    pub pitch: f64,
}

impl Default for View3d {
    fn default() -> Self {
        View3d { yaw: 0.6, pitch: 0.35 }
    }
}

/// Positions in the first three PMDS coordinates seen from `view`, coloured and connected in
/// sequence order (a missing third coordinate, r_τ < 3, is drawn as 0). Returns each
/// position's pixel, for hover read-outs.
pub fn pmds_map_3d<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    coords: &[Vec<f64>],
    view: View3d,
) -> Result<Vec<(i32, i32)>, String> {
    area.fill(&WHITE).map_err(err)?;
    let at = |c: &Vec<f64>, k: usize| c.get(k).copied().unwrap_or(0.0);
    // Plotters' 3-D y axis is the vertical one: show x₁ across, x₂ up, x₃ in depth.
    let pts: Vec<(f64, f64, f64)> = coords.iter().map(|c| (at(c, 0), at(c, 1), at(c, 2))).collect();
    let ((x0, x1), (y0, y1), (z0, z1)) =
        (span(pts.iter().map(|p| p.0)), span(pts.iter().map(|p| p.1)), span(pts.iter().map(|p| p.2)));
    let mut chart = ChartBuilder::on(area)
        .margin(10)
        .caption("PMDS map: positions in MDS coordinates 1–3 (colour = position)", ("sans-serif", 16))
        .build_cartesian_3d(x0..x1, y0..y1, z0..z1)
        .map_err(err)?;
    chart.with_projection(|mut p| {
        p.yaw = view.yaw;
        p.pitch = view.pitch;
        p.scale = 0.75;
        p.into_matrix()
    });
    chart
        .configure_axes()
        .light_grid_style(BLACK.mix(0.08))
        .max_light_lines(4)
        .x_labels(4)
        .y_labels(5)
        .z_labels(4)
        .label_style(("sans-serif", 11))
        .x_formatter(&|v| format!("{v:.2}"))
        .y_formatter(&|v| format!("{v:.2}"))
        .z_formatter(&|v| format!("{v:.2}"))
        .draw()
        .map_err(err)?;
    chart.draw_series(LineSeries::new(pts.clone(), BLACK.mix(0.25))).map_err(err)?;
    let n = pts.len().max(2) as f64 - 1.0;
    chart
        .draw_series(pts.iter().enumerate().map(|(i, &p)| Circle::new(p, 4, viridis(i as f64 / n).filled())))
        .map_err(err)?;
    let spec = chart.as_coord_spec();
    Ok(pts.iter().map(|p| spec.translate(p)).collect())
}

/// Shepard diagram: a*·δ_ij against D_ij for sampled pairs, with the diagonal.
pub fn shepard<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, name: &str, pairs: &[(f32, f32)]) -> ChartResult {
    area.fill(&WHITE).map_err(err)?;
    let hi = pairs.iter().map(|&(a, b)| a.max(b) as f64).fold(1e-9, f64::max) * 1.05;
    let mut chart = ChartBuilder::on(area)
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(60)
        .caption(format!("Shepard diagram: {name} (a*·δ against D)"), ("sans-serif", 16))
        .build_cartesian_2d(0f64..hi, 0f64..hi)
        .map_err(err)?;
    chart.configure_mesh().x_desc("D_ij").y_desc("a*·δ_ij").draw().map_err(err)?;
    chart.draw_series(LineSeries::new([(0.0, 0.0), (hi, hi)], BLACK.stroke_width(1))).map_err(err)?;
    chart
        .draw_series(pairs.iter().map(|&(d, e)| Circle::new((d as f64, e as f64), 2, SCALED.mix(0.35).filled())))
        .map_err(err)?;
    Ok(frame(&chart, (0.0, hi), (0.0, hi), false))
}

/// Scaled stress of low-rank PMDS against r, with the fixed encodings as reference lines.
pub fn rank_curve<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, r: &Report) -> ChartResult {
    area.fill(&WHITE).map_err(err)?;
    let pts = &r.rank_curve;
    let x1 = pts.len().max(1) as f64 + 0.5;
    let table = r.n as u64 * r.params.encodings.d as u64;
    let mut chart = ChartBuilder::on(area)
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(60)
        .caption(format!("stress of rank-r PMDS; r(n+d) parameters vs n·d = {table}"), ("sans-serif", 16))
        .build_cartesian_2d(0.5f64..x1, (FLOOR..2.0).log_scale())
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("rank r")
        .y_desc("stress (log)")
        .y_label_formatter(&|v| format!("{v:.0e}"))
        .draw()
        .map_err(err)?;
    let line = |f: fn(&crate::report::RankPoint) -> f64| pts.iter().map(move |p| (p.rank as f64, f(p).max(FLOOR)));
    chart.draw_series(LineSeries::new(line(|p| p.raw_stress), RAW.stroke_width(2))).map_err(err)?;
    chart.draw_series(LineSeries::new(line(|p| p.scaled_stress), SCALED.stroke_width(2))).map_err(err)?;
    for (k, name) in ["sinusoidal", "rope", "alibi", "random"].iter().enumerate() {
        if let Some(e) = r.encodings.get(*name) {
            let y = e.scaled_stress.max(FLOOR);
            let color = Palette99::pick(k + 2).to_rgba();
            chart
                .draw_series(LineSeries::new([(0.5, y), (x1, y)], color.stroke_width(1)))
                .map_err(err)?
                .label(format!("{name} σ*"))
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 15, y)], color));
        }
    }
    chart.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw().map_err(err)?;
    Ok(frame(&chart, (0.5, x1), (FLOOR, 2.0), true))
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
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .caption("monotonicity violation rate (sequence order)", ("sans-serif", 16))
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
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(60)
        .caption(format!("support N_i: {} positions kept (blue), dropped grey", r.n), ("sans-serif", 16))
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::analysis::{analyze, AnalysisParams};
    use crate::synth::{generate, SynthParams};
    use crate::Corpus;

    pub(super) fn report() -> Report {
        let lines = generate(&SynthParams { sequences: 200, positions: 20, ..Default::default() }).unwrap();
        let p = AnalysisParams {
            encodings: crate::encodings::EncodingParams { d: 16, ..Default::default() },
            ..Default::default()
        };
        analyze(&Corpus::from_sequences(lines), &p, None, &mut |_| true).unwrap().report(true)
    }

    fn svg(f: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> ChartResult) -> (String, Frame) {
        let mut s = String::new();
        let frame = {
            let root = SVGBackend::with_string(&mut s, (640, 400)).into_drawing_area();
            let fr = f(&root).unwrap();
            root.present().unwrap();
            fr
        };
        (s, frame)
    }

    #[test]
    fn every_chart_draws_to_svg_with_its_data() {
        let r = report();
        let (s, f) = svg(|a| stress_bars(a, &r));
        assert!(s.contains("sinusoidal") && s.contains("pmds_r"));
        assert!(f.log_y && f.px.0 < f.px.1);
        let (s, _) = svg(|a| heatmap(a, &r.matrix["hellinger"], "hellinger", true, 10));
        assert!(s.matches("<rect").count() >= 100, "10×10 cells");
        let (s, _) = svg(|a| spectrum(a, &r));
        assert!(s.contains(&format!("r_τ = {}", r.effective_rank)));
        let (s, _) = svg(|a| pmds_map(a, &r.pmds_coordinates));
        assert!(s.matches("<circle").count() >= r.n);
        let (s, _) = svg(|a| pmds_map_3d(a, &r.pmds_coordinates, View3d::default()).map(|_| Frame::default()));
        assert!(s.matches("<circle").count() >= r.n);
        let pairs: Vec<(f32, f32)> = vec![(0.1, 0.2), (0.5, 0.4)];
        let (s, _) = svg(|a| shepard(a, "rope", &pairs));
        assert!(s.contains("rope") && s.matches("<circle").count() >= 2);
        for (s, _) in [svg(|a| rank_curve(a, &r)), svg(|a| monotonicity(a, &r)), svg(|a| support(a, &r))] {
            assert!(s.starts_with("<svg") && s.len() > 1000);
        }
    }

    #[test]
    fn the_3d_map_turns_with_its_view() {
        let r = report();
        let area_pixels = |view: View3d| {
            let mut out = String::new();
            let area = SVGBackend::with_string(&mut out, (640, 420)).into_drawing_area();
            pmds_map_3d(&area, &r.pmds_coordinates, view).unwrap()
        };
        let a = area_pixels(View3d::default());
        assert_eq!(a.len(), r.n);
        assert!(a.iter().all(|&(x, y)| (0..640).contains(&x) && (0..420).contains(&y)), "{a:?}");
        // A quarter turn moves the points; a full turn brings them back.
        let quarter = area_pixels(View3d { yaw: 0.6 + std::f64::consts::FRAC_PI_2, pitch: 0.35 });
        let full = area_pixels(View3d { yaw: 0.6 + 2.0 * std::f64::consts::PI, pitch: 0.35 });
        assert_ne!(a, quarter);
        assert!(a.iter().zip(&full).all(|(p, q)| (p.0 - q.0).abs() <= 1 && (p.1 - q.1).abs() <= 1));
    }

    #[test]
    fn frames_invert_pixels_to_data() {
        let f = Frame { px: (100, 300), py: (50, 250), x: (0.0, 10.0), y: (1e-6, 1.0), log_y: true };
        let (x, y) = f.to_data(200, 150).unwrap();
        assert!((x - 5.0).abs() < 1e-12 && (y.log10() + 3.0).abs() < 1e-9);
        assert_eq!(f.to_data(10, 10), None);
    }
}
