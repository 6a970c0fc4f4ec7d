//! Positions as points: the PMDS map (2-D and rotatable 3-D) and the Shepard diagram.

use super::palette::color_of;
use super::palette::{font, theme, Themed};
use super::{err, frame, span, viridis, ChartResult, STYLE};
use plotters::coord::Shift;
use plotters::prelude::*;

/// Positions in the first two PMDS coordinates, coloured and connected in sequence order.
pub fn pmds_map<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    coords: &[Vec<f64>],
    overlay: Option<Overlay<'_>>,
) -> ChartResult {
    area.fill(&theme().background).map_err(err)?;
    let pt = |c: &Vec<f64>| (c.first().copied().unwrap_or(0.0), c.get(1).copied().unwrap_or(0.0));
    let pts: Vec<(f64, f64)> = coords.iter().map(pt).collect();
    let over: Vec<(f64, f64)> =
        overlay.map(|o| o.points.iter().map(|&(x, y)| (f64::from(x), f64::from(y))).collect()).unwrap_or_default();
    let all = || pts.iter().chain(&over);
    let ((x0, x1), (y0, y1)) = (span(all().map(|p| p.0)), span(all().map(|p| p.1)));
    let caption = match overlay {
        Some(o) => format!("PMDS map (dots) and {} aligned by Procrustes (rings, its colour)", o.name),
        None => "PMDS map: positions in MDS coordinates 1–2 (colour = position)".into(),
    };
    let mut chart = ChartBuilder::on(area)
        .margin(STYLE.margin)
        .x_label_area_size(STYLE.x_labels)
        .y_label_area_size(STYLE.y_labels)
        .caption(caption, font(STYLE.caption))
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(err)?;
    chart.configure_mesh().themed().x_desc("x₁").y_desc("x₂").draw().map_err(err)?;
    chart.draw_series(LineSeries::new(pts.clone(), theme().text.mix(0.25))).map_err(err)?;
    let n = pts.len().max(2) as f64 - 1.0;
    let ring = overlay.map_or(theme().text, |o| color_of(o.name));
    // Each position's displacement, then the aligned encoding's positions as rings.
    chart
        .draw_series(pts.iter().zip(&over).map(|(&a, &b)| PathElement::new(vec![a, b], ring.mix(0.45))))
        .map_err(err)?;
    chart
        .draw_series(pts.iter().enumerate().map(|(i, &p)| Circle::new(p, 4, viridis(i as f64 / n).filled())))
        .map_err(err)?;
    chart.draw_series(over.iter().map(|&p| Circle::new(p, 4, ring.stroke_width(2)))).map_err(err)?;
    Ok(frame(&chart, (x0, x1), (y0, y1), false))
}

/// An encoding's positions after Procrustes alignment onto the PMDS coordinates (1–2).
#[derive(Debug, Clone, Copy)]
pub struct Overlay<'a> {
    /// The encoding.
    pub name: &'a str,
    /// Its aligned positions.
    pub points: &'a [(f32, f32)],
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
    area.fill(&theme().background).map_err(err)?;
    let at = |c: &Vec<f64>, k: usize| c.get(k).copied().unwrap_or(0.0);
    // Plotters' 3-D y axis is the vertical one: show x₁ across, x₂ up, x₃ in depth.
    let pts: Vec<(f64, f64, f64)> = coords.iter().map(|c| (at(c, 0), at(c, 1), at(c, 2))).collect();
    let ((x0, x1), (y0, y1), (z0, z1)) =
        (span(pts.iter().map(|p| p.0)), span(pts.iter().map(|p| p.1)), span(pts.iter().map(|p| p.2)));
    let mut chart = ChartBuilder::on(area)
        .margin(STYLE.margin)
        .caption("PMDS map: positions in MDS coordinates 1–3 (colour = position)", font(STYLE.caption))
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
        .light_grid_style(theme().grid)
        .max_light_lines(4)
        .x_labels(4)
        .y_labels(5)
        .z_labels(4)
        .label_style(font(STYLE.small))
        .x_formatter(&|v| format!("{v:.2}"))
        .y_formatter(&|v| format!("{v:.2}"))
        .z_formatter(&|v| format!("{v:.2}"))
        .draw()
        .map_err(err)?;
    chart.draw_series(LineSeries::new(pts.clone(), theme().text.mix(0.25))).map_err(err)?;
    let n = pts.len().max(2) as f64 - 1.0;
    chart
        .draw_series(pts.iter().enumerate().map(|(i, &p)| Circle::new(p, 4, viridis(i as f64 / n).filled())))
        .map_err(err)?;
    let spec = chart.as_coord_spec();
    Ok(pts.iter().map(|p| spec.translate(p)).collect())
}

/// Shepard diagram: a*·δ_ij against D_ij for sampled pairs, with the diagonal.
pub fn shepard<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, name: &str, pairs: &[(f32, f32)]) -> ChartResult {
    area.fill(&theme().background).map_err(err)?;
    let hi = pairs.iter().map(|&(a, b)| a.max(b) as f64).fold(1e-9, f64::max) * 1.05;
    let mut chart = ChartBuilder::on(area)
        .margin(STYLE.margin)
        .x_label_area_size(STYLE.x_labels)
        .y_label_area_size(STYLE.y_labels)
        .caption(format!("Shepard diagram: {name} (a*·δ against D)"), font(STYLE.caption))
        .build_cartesian_2d(0f64..hi, 0f64..hi)
        .map_err(err)?;
    chart.configure_mesh().themed().x_desc("D_ij").y_desc("a*·δ_ij").draw().map_err(err)?;
    chart.draw_series(LineSeries::new([(0.0, 0.0), (hi, hi)], theme().text.stroke_width(1))).map_err(err)?;
    chart
        .draw_series(
            pairs.iter().map(|&(d, e)| Circle::new((d as f64, e as f64), 2, color_of(name).mix(0.45).filled())),
        )
        .map_err(err)?;
    Ok(frame(&chart, (0.0, hi), (0.0, hi), false))
}
