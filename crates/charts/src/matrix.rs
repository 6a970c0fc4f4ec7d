//! The corpus geometry's charts: the distance heatmap, the spectrum of B, and stress against
//! the rank of low-rank PMDS.

use super::palette::{color_of, NEUTRAL};
use super::palette::{font, theme, Themed};
use super::{err, frame, viridis, ChartResult, FLOOR, STYLE};
use plotters::coord::Shift;
use plotters::prelude::*;
use posgeo::report::Report;

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
    area.fill(&theme().background).map_err(err)?;
    let n = matrix.len();
    let max = matrix.iter().flatten().copied().fold(0.0f64, f64::max).max(1e-300);
    let (plot, bar) = area.split_horizontally(area.dim_in_pixel().0.saturating_sub(70));
    let mut chart = ChartBuilder::on(&plot)
        .margin(STYLE.margin)
        .x_label_area_size(30)
        .y_label_area_size(40)
        .caption(format!("{label} distance D_ij"), font(STYLE.caption))
        .build_cartesian_2d(0f64..n as f64, n as f64..0f64)
        .map_err(err)?;
    chart.configure_mesh().themed().disable_mesh().x_desc("j").y_desc("i").draw().map_err(err)?;
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
    cb.configure_mesh().themed().disable_mesh().disable_x_axis().y_labels(5).draw().map_err(err)?;
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
    area.fill(&theme().background).map_err(err)?;
    let ev = &r.eigenvalues;
    let shown = ev.len().min((r.effective_rank + 5).max(10)).min(ev.len());
    let top = ev.first().copied().unwrap_or(1.0).max(1e-300) * 1.05;
    let bottom = ev[..shown].iter().copied().fold(0.0f64, f64::min);
    let x1 = shown as f64 + 0.5;
    let mut chart = ChartBuilder::on(area)
        .margin(STYLE.margin)
        .x_label_area_size(STYLE.x_labels)
        .y_label_area_size(STYLE.y_labels)
        .right_y_label_area_size(45)
        .caption(format!("spectrum of B: r_τ = {}, r_E = {}", r.effective_rank, r.energy_rank), font(STYLE.caption))
        .build_cartesian_2d(0.5f64..x1, bottom..top)
        .map_err(err)?
        .set_secondary_coord(0.5f64..x1, 0f64..1.02f64);
    chart.configure_mesh().themed().disable_x_mesh().x_desc("k").y_desc("λ_k").draw().map_err(err)?;
    chart.configure_secondary_axes().y_desc("cumulative energy").draw().map_err(err)?;
    chart
        .draw_series(ev[..shown].iter().enumerate().map(|(k, &l)| {
            let x = k as f64 + 1.0;
            Rectangle::new([(x - 0.35, 0.0), (x + 0.35, l)], NEUTRAL.mix(0.9).filled())
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
    chart.draw_secondary_series(LineSeries::new(cum, theme().text.stroke_width(2))).map_err(err)?;
    for (rank, color) in [(r.effective_rank, theme().text.to_rgba()), (r.energy_rank, NEUTRAL.to_rgba())] {
        let x = rank as f64 + 0.5;
        chart.draw_secondary_series(LineSeries::new([(x, 0.0), (x, 1.02)], color.stroke_width(1))).map_err(err)?;
    }
    Ok(frame(&chart, (0.5, x1), (bottom, top), false))
}

/// Scaled stress of low-rank PMDS against r, with the fixed encodings as reference lines.
pub fn rank_curve<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, r: &Report) -> ChartResult {
    area.fill(&theme().background).map_err(err)?;
    let pts = &r.rank_curve;
    let x1 = pts.last().map_or(1, |p| p.rank) as f64 + 0.5;
    let table = r.n as u64 * r.params.encodings.d as u64;
    let mut chart = ChartBuilder::on(area)
        .margin(STYLE.margin)
        .x_label_area_size(STYLE.x_labels)
        .y_label_area_size(STYLE.y_labels)
        .caption(format!("stress of rank-r PMDS; r(n+d) parameters vs n·d = {table}"), font(STYLE.caption))
        .build_cartesian_2d(0.5f64..x1, (FLOOR..2.0).log_scale())
        .map_err(err)?;
    chart
        .configure_mesh()
        .themed()
        .x_desc("rank r")
        .y_desc("stress (log)")
        .y_label_formatter(&|v| format!("{v:.0e}"))
        .draw()
        .map_err(err)?;
    let line = |f: fn(&posgeo::report::RankPoint) -> f64| pts.iter().map(move |p| (p.rank as f64, f(p).max(FLOOR)));
    // X_r is low-rank PMDS: PMDS's colour, σ* solid and raw σ faded.
    let pmds = color_of("pmds");
    chart
        .draw_series(LineSeries::new(line(|p| p.raw_stress), pmds.mix(0.45).stroke_width(2)))
        .map_err(err)?
        .label("X_r σ")
        .legend(move |(x, y)| PathElement::new([(x, y), (x + 15, y)], pmds.mix(0.45)));
    chart
        .draw_series(LineSeries::new(line(|p| p.scaled_stress), pmds.stroke_width(2)))
        .map_err(err)?
        .label("X_r σ*")
        .legend(move |(x, y)| PathElement::new([(x, y), (x + 15, y)], pmds));
    for name in ["sinusoidal", "rope", "alibi", "random"] {
        if let Some(e) = r.encodings.get(name) {
            let y = e.scaled_stress.max(FLOOR);
            let color = color_of(name);
            chart
                .draw_series(LineSeries::new([(0.5, y), (x1, y)], color.stroke_width(1)))
                .map_err(err)?
                .label(format!("{name} σ*"))
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 15, y)], color));
        }
    }
    let t = theme();
    chart
        .configure_series_labels()
        .background_style(t.background.mix(0.85))
        .border_style(t.text)
        .label_font(font(STYLE.label))
        .draw()
        .map_err(err)?;
    Ok(frame(&chart, (0.5, x1), (FLOOR, 2.0), true))
}

/// The largest value of the two panels of [`geometry_pair`] (their one colour scale).
pub(super) fn pair_max(corpus: &[f32], encoding: &[f32]) -> f64 {
    corpus.iter().chain(encoding).map(|&v| f64::from(v)).fold(0.0f64, f64::max).max(1e-300)
}

/// Two block heatmaps side by side on one colour scale: the corpus's D (left) and an
/// encoding's a*·δ (right), each `side` × `side` row-major. The frame's x runs over both
/// panels: the left over 0..side, the right over side + 1 .. 2·side + 1. With `cells` =
/// false only the axes are drawn (the canvas paints [`super::bitmap::geometry_pair`] into
/// the frame).
pub fn geometry_pair<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    side: usize,
    (corpus, encoding): (&[f32], &[f32]),
    name: &str,
    cells: bool,
) -> ChartResult {
    area.fill(&theme().background).map_err(err)?;
    let s = side as f64;
    let max = pair_max(corpus, encoding);
    let x1 = 2.0 * s + 1.0;
    let mut chart = ChartBuilder::on(area)
        .margin(STYLE.margin)
        .x_label_area_size(STYLE.x_labels)
        .y_label_area_size(STYLE.y_labels)
        .caption(format!("corpus D (left) and a*·δ of {name} (right), one colour scale"), font(STYLE.caption))
        .build_cartesian_2d(0f64..x1, s..0f64)
        .map_err(err)?;
    chart.configure_mesh().themed().disable_mesh().x_labels(0).y_desc("block of positions").draw().map_err(err)?;
    for (offset, values) in [(0.0, corpus), (s + 1.0, encoding)].into_iter().filter(|_| cells) {
        chart
            .draw_series(values.iter().enumerate().take(side * side).filter(|(_, v)| !v.is_nan()).map(|(k, &v)| {
                let (i, j) = ((k / side) as f64, (k % side) as f64);
                let colour = viridis(f64::from(v) / max);
                Rectangle::new([(offset + j, i), (offset + j + 1.0, i + 1.0)], colour.filled())
            }))
            .map_err(err)?;
    }
    Ok(frame(&chart, (0.0, x1), (s, 0.0), false))
}
