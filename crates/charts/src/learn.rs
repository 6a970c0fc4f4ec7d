//! **The learning experiment's charts** (docs/MATH.md §16), each signal in its colour
//! ([`signal_color`]): held-out loss against step (a line per run), held-out loss against σ*
//! (a point per signal, the finding's ρ in the caption), the trainable tables' σ* and
//! separation against step, and their Procrustes-aligned maps at the start and the end.

use super::palette::{color_of, font, theme, Themed};
use super::{err, frame, span, ChartResult, Frame, STYLE};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use posgeo_learn::{Experiment, Run, Signal};

/// A signal's colour: its encoding's (`learned_pmds` has one of its own).
pub fn signal_color(s: Signal) -> RGBColor {
    color_of(s.name())
}

/// A message in place of a chart (nothing to draw yet).
fn empty<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, text: &str) -> ChartResult {
    area.draw(&Text::new(text.to_string(), (20, 40), font(STYLE.label + 2))).map_err(err)?;
    Ok(Frame::default())
}

/// One legend entry per signal (the first run of each), in the chart's corner.
fn legend<'a, DB: DrawingBackend + 'a, X: Ranged, Y: Ranged>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
) -> Result<(), String> {
    let t = theme();
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(t.background.mix(0.85))
        .border_style(t.text)
        .label_font(font(STYLE.label))
        .draw()
        .map_err(err)
}

/// The runs' curves of one measure against step (`None`: not recorded at that step).
type Curves = Vec<(Signal, Vec<(f64, f64)>)>;

fn curves(runs: &[Run], f: impl Fn(&posgeo_learn::Record) -> Option<f64>) -> Curves {
    let point = |r: &posgeo_learn::Record| f(r).filter(|v| v.is_finite()).map(|v| (r.step as f64, v));
    runs.iter().map(|run| (run.signal, run.records.iter().filter_map(point).collect::<Vec<_>>())).collect()
}

/// Draws `curves` (solid, or dashed), labelling each signal's first curve when `label`.
fn draw_curves<'a, DB: DrawingBackend + 'a>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    curves: &Curves,
    dashed: bool,
    label: &str,
) -> Result<(), String> {
    let mut named = Vec::new();
    for (signal, pts) in curves {
        let colour = signal_color(*signal);
        let style = colour.stroke_width(2);
        let drawn = if dashed {
            chart.draw_series(DashedLineSeries::new(pts.clone(), 6, 4, style)).map_err(err)?
        } else {
            chart.draw_series(LineSeries::new(pts.clone(), style)).map_err(err)?
        };
        if !label.is_empty() && !named.contains(signal) {
            named.push(*signal);
            drawn
                .label(format!("{}{label}", signal.name()))
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 15, y)], colour.stroke_width(2)));
        }
        chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, colour.filled()))).map_err(err)?;
    }
    Ok(())
}

/// Held-out loss against step, a line per run in its signal's colour; `note` is shown when
/// there is no run yet.
pub fn learn_loss<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, runs: &[Run], note: &str) -> ChartResult {
    area.fill(&theme().background).map_err(err)?;
    let c = curves(runs, |r| Some(r.held_loss));
    if c.iter().all(|(_, p)| p.is_empty()) {
        return empty(area, note);
    }
    let all = || c.iter().flat_map(|(_, p)| p.iter());
    let x1 = all().map(|p| p.0).fold(1.0, f64::max);
    let (y0, y1) = span(all().map(|p| p.1));
    let mut chart = ChartBuilder::on(area)
        .margin(STYLE.margin)
        .x_label_area_size(STYLE.x_labels)
        .y_label_area_size(STYLE.y_labels)
        .caption("held-out loss against step (a line per signal and seed)", font(STYLE.caption))
        .build_cartesian_2d(0f64..x1, y0..y1)
        .map_err(err)?;
    chart.configure_mesh().themed().x_desc("step").y_desc("held-out loss").draw().map_err(err)?;
    draw_curves(&mut chart, &c, false, " ")?;
    legend(&mut chart)?;
    Ok(frame(&chart, (0.0, x1), (y0, y1), false))
}

/// Held-out loss against σ*, a point per signal (the experiment's summary), named; the
/// caption gives the finding's ρ.
pub fn learn_scatter<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    e: Option<&Experiment>,
    note: &str,
) -> ChartResult {
    area.fill(&theme().background).map_err(err)?;
    let pts: Vec<(Signal, f64, f64)> = e
        .map(|e| e.signals.iter().filter_map(|s| Some((s.signal, s.scaled_stress?, s.held_loss))).collect())
        .unwrap_or_default();
    let pts: Vec<_> = pts.into_iter().filter(|p| p.1.is_finite() && p.2.is_finite()).collect();
    let Some(e) = e.filter(|_| !pts.is_empty()) else { return empty(area, note) };
    let x1 = pts.iter().map(|p| p.1).fold(0.0, f64::max) * 1.15 + 1e-9;
    let (y0, y1) = span(pts.iter().map(|p| p.2));
    let rho = e.finding.rho.map_or("—".into(), |r| format!("{r:.2}"));
    let mut chart = ChartBuilder::on(area)
        .margin(STYLE.margin)
        .x_label_area_size(STYLE.x_labels)
        .y_label_area_size(STYLE.y_labels)
        .caption(format!("held-out loss against σ* (Spearman ρ = {rho})"), font(STYLE.caption))
        .build_cartesian_2d(0f64..x1, y0..y1)
        .map_err(err)?;
    chart.configure_mesh().themed().x_desc("σ* of the signal").y_desc("final held-out loss").draw().map_err(err)?;
    for &(signal, x, y) in &pts {
        let colour = signal_color(signal);
        let label = Text::new(signal.name().to_string(), (6, -14), font(STYLE.label).color(&colour));
        chart.draw_series([EmptyElement::at((x, y)) + Circle::new((0, 0), 5, colour.filled()) + label]).map_err(err)?;
    }
    Ok(frame(&chart, (0.0, x1), (y0, y1), false))
}

/// The trainable tables' σ* (solid) and separation min/median ‖p_i − p_j‖ (dashed) against
/// step.
pub fn learn_tables<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, runs: &[Run], note: &str) -> ChartResult {
    area.fill(&theme().background).map_err(err)?;
    let table = |f: fn(&posgeo_learn::TableMeasures) -> f64| move |r: &posgeo_learn::Record| r.table.as_ref().map(f);
    let stress = curves(runs, table(|t| t.scaled_stress));
    let separation = curves(runs, table(|t| t.separation));
    let all = || stress.iter().chain(&separation).flat_map(|(_, p)| p.iter());
    if all().next().is_none() {
        return empty(area, note);
    }
    let x1 = all().map(|p| p.0).fold(1.0, f64::max);
    let y1 = all().map(|p| p.1).fold(0.0, f64::max) * 1.1 + 1e-9;
    let mut chart = ChartBuilder::on(area)
        .margin(STYLE.margin)
        .x_label_area_size(STYLE.x_labels)
        .y_label_area_size(STYLE.y_labels)
        .caption("trainable tables: σ* (solid) and separation (dashed)", font(STYLE.caption))
        .build_cartesian_2d(0f64..x1, 0f64..y1)
        .map_err(err)?;
    chart.configure_mesh().themed().x_desc("step").y_desc("σ*, separation").draw().map_err(err)?;
    let present = |c: &Curves| c.iter().filter(|(_, p)| !p.is_empty()).cloned().collect::<Curves>();
    draw_curves(&mut chart, &present(&stress), false, " σ*")?;
    draw_curves(&mut chart, &present(&separation), true, "")?;
    legend(&mut chart)?;
    Ok(frame(&chart, (0.0, x1), (0.0, y1), false))
}

/// Each trainable signal's table (its first run) aligned onto the PMDS map by Procrustes:
/// at step 0 (faded) and at the last record (solid), joined in position order.
pub fn learn_map<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, runs: &[Run], note: &str) -> ChartResult {
    area.fill(&theme().background).map_err(err)?;
    let mut seen = Vec::new();
    let mut maps = Vec::new();
    for run in runs.iter().filter(|r| r.signal.trainable()) {
        let map = |r: Option<&posgeo_learn::Record>| -> Vec<(f64, f64)> {
            r.and_then(|r| r.table.as_ref()).map_or(Vec::new(), |t| t.map.iter().map(|p| (p[0], p[1])).collect())
        };
        let (start, end) = (map(run.records.first()), map(run.records.last()));
        if !seen.contains(&run.signal) && !end.is_empty() {
            seen.push(run.signal);
            maps.push((run.signal, start, end));
        }
    }
    let all = || maps.iter().flat_map(|(_, a, b)| a.iter().chain(b)).filter(|p| p.0.is_finite() && p.1.is_finite());
    if all().next().is_none() {
        return empty(area, note);
    }
    let ((x0, x1), (y0, y1)) = (span(all().map(|p| p.0)), span(all().map(|p| p.1)));
    let mut chart = ChartBuilder::on(area)
        .margin(STYLE.margin)
        .x_label_area_size(STYLE.x_labels)
        .y_label_area_size(STYLE.y_labels)
        .caption("trainable tables on the PMDS map (Procrustes): start faded, end solid", font(STYLE.caption))
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(err)?;
    chart.configure_mesh().themed().x_desc("x₁").y_desc("x₂").draw().map_err(err)?;
    for (signal, start, end) in &maps {
        let colour = signal_color(*signal);
        chart.draw_series(LineSeries::new(start.clone(), colour.mix(0.3))).map_err(err)?;
        chart.draw_series(start.iter().map(|&p| Circle::new(p, 3, colour.mix(0.3).filled()))).map_err(err)?;
        chart
            .draw_series(LineSeries::new(end.clone(), colour.stroke_width(2)))
            .map_err(err)?
            .label(signal.name())
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 15, y)], colour.stroke_width(2)));
        chart.draw_series(end.iter().map(|&p| Circle::new(p, 4, colour.filled()))).map_err(err)?;
    }
    legend(&mut chart)?;
    Ok(frame(&chart, (x0, x1), (y0, y1), false))
}
