//! Charts on canvases: drawing (through `web::view::charts::draw_on`), the heatmap's bitmap,
//! and hover read-outs from the pixel under the mouse.

use super::super::runtime;
use crate::charts::{viridis, Frame};
use crate::web::app::View;
use crate::web::protocol::Payload;
use crate::web::view::charts::{draw_on, ChartKind};
use crate::web::view::hover::{position_tokens, readout};
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;
use web_sys::{HtmlCanvasElement, MouseEvent};

/// Draws one chart on its dashboard canvas and keeps what hover needs.
pub fn draw(kind: ChartKind) {
    let Some((els, p, view)) = runtime::shown() else { return };
    let Some(c) = els.chart(kind) else { return };
    match draw_into(kind, &c.canvas, &p, &view) {
        Ok(drawn) => {
            runtime::with(|rt| rt.drawn.insert(kind, drawn));
        }
        Err(e) => c.readout.set_text_content(Some(&e)),
    }
}

/// Draws one chart on any canvas (the dashboard's or a lecture step's).
pub fn draw_into(
    kind: ChartKind,
    canvas: &HtmlCanvasElement,
    p: &Payload,
    view: &View,
) -> Result<crate::web::view::charts::Drawn, String> {
    let backend = CanvasBackend::with_canvas_object(canvas.clone()).ok_or("no 2-D context for the chart")?;
    let root = backend.into_drawing_area();
    let result = draw_on(kind, &root, p, view, false);
    root.present().ok();
    let drawn = result?;
    if kind == ChartKind::Heatmap {
        let m = p.report.matrix.values().next().map(Vec::as_slice).unwrap_or(&[]);
        paint_heatmap(canvas, &drawn.frame, m);
    }
    Ok(drawn)
}

/// Paints the distance matrix as a bitmap into the heatmap's plotting area.
fn paint_heatmap(c: &HtmlCanvasElement, f: &Frame, m: &[Vec<f64>]) {
    let n = m.len();
    let (w, h) = ((f.px.1 - f.px.0).max(1) as usize, (f.py.1 - f.py.0).max(1) as usize);
    if n == 0 {
        return;
    }
    let max = m.iter().flatten().copied().fold(0.0f64, f64::max).max(1e-300);
    let lut: Vec<RGBColor> = (0..256).map(|k| viridis(k as f64 / 255.0)).collect();
    let mut data = vec![255u8; w * h * 4];
    for y in 0..h {
        let row = &m[(y * n / h).min(n - 1)];
        for x in 0..w {
            let v = row[(x * n / w).min(n - 1)];
            let RGBColor(r, g, b) = lut[((v / max) * 255.0).round().clamp(0.0, 255.0) as usize];
            let o = (y * w + x) * 4;
            data[o..o + 3].copy_from_slice(&[r, g, b]);
        }
    }
    let Ok(Some(ctx)) = c.get_context("2d") else { return };
    let ctx: web_sys::CanvasRenderingContext2d = ctx.unchecked_into();
    if let Ok(img) =
        web_sys::ImageData::new_with_u8_clamped_array_and_sh(wasm_bindgen::Clamped(&data), w as u32, h as u32)
    {
        ctx.put_image_data(&img, f64::from(f.px.0), f64::from(f.py.0)).ok();
    }
}

/// The read-out for the mouse over a chart.
pub fn hover(kind: ChartKind, e: &MouseEvent) {
    let Some(Some((els, p, view, drawn))) = runtime::with(|rt| {
        let drawn = rt.drawn.get(&kind)?.clone();
        Some((rt.els.clone(), rt.model.results.clone()?, rt.model.view.clone(), drawn))
    }) else {
        return;
    };
    let Some(c) = els.chart(kind) else { return };
    // The canvas may be scaled by CSS: from CSS pixels to canvas pixels.
    let sx = f64::from(c.canvas.width()) / f64::from(c.canvas.client_width().max(1));
    let sy = f64::from(c.canvas.height()) / f64::from(c.canvas.client_height().max(1));
    let px = (f64::from(e.offset_x()) * sx) as i32;
    let py = (f64::from(e.offset_y()) * sy) as i32;
    let Some(at) = drawn.frame.to_data(px, py) else { return };
    let Some(r) = readout(kind, &p, &view, at, &drawn.pixels) else { return };
    c.readout.set_text_content(Some(&r.text));
    if let Some(line) = r.position.and_then(|i| position_tokens(&p.report, i)) {
        els.position_tokens.set_text_content(Some(&line));
    }
}
