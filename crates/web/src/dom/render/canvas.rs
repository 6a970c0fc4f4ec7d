//! Charts on canvases: drawing (through `web::view::charts::draw_on`), the matrices' bitmaps,
//! and hover read-outs from the pixel under the mouse.

use super::super::runtime;
use super::measured::MeasuredCanvas;
use crate::app::View;
use crate::protocol::Payload;
use crate::view::charts::{cells_image, draw_on, ChartKind};
use crate::view::hover::{position_tokens, readout};
use plotters::prelude::IntoDrawingArea;
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
) -> Result<crate::view::charts::Drawn, String> {
    super::super::theme::apply();
    let backend = MeasuredCanvas::new(canvas).ok_or("no 2-D context for the chart")?;
    let scale = backend.scale();
    let root = backend.into_drawing_area();
    let result = draw_on(kind, &root, p, view, false);
    root.present().ok();
    let drawn = result?;
    let f = &drawn.frame;
    // The cells at the canvas's own resolution (putImageData ignores the transform).
    let at = |v: i32, k: f64| (f64::from(v) * k).round() as i32;
    let (x0, y0) = (at(f.px.0, scale.0), at(f.py.0, scale.1));
    let (w, h) = ((at(f.px.1, scale.0) - x0).max(1) as usize, (at(f.py.1, scale.1) - y0).max(1) as usize);
    if let Some(data) = cells_image(kind, p, view, (w, h)) {
        paint(canvas, (x0, y0), w, &data);
    }
    Ok(drawn)
}

/// Puts an RGBA image `w` pixels wide at canvas pixel `at` (the cells that
/// [`posgeo_charts::bitmap`] paints instead of one rectangle each).
fn paint(c: &HtmlCanvasElement, at: (i32, i32), w: usize, data: &[u8]) {
    let Ok(Some(ctx)) = c.get_context("2d") else { return };
    let ctx: web_sys::CanvasRenderingContext2d = ctx.unchecked_into();
    let h = data.len() / 4 / w.max(1);
    if let Ok(img) =
        web_sys::ImageData::new_with_u8_clamped_array_and_sh(wasm_bindgen::Clamped(data), w as u32, h as u32)
    {
        ctx.put_image_data(&img, f64::from(at.0), f64::from(at.1)).ok();
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
    // From CSS pixels to the chart's nominal pixels (its frame's).
    let (nw, nh) = super::measured::nominal(&c.canvas);
    let sx = f64::from(nw) / f64::from(c.canvas.client_width().max(1));
    let sy = f64::from(nh) / f64::from(c.canvas.client_height().max(1));
    let px = (f64::from(e.offset_x()) * sx) as i32;
    let py = (f64::from(e.offset_y()) * sy) as i32;
    let Some(at) = drawn.frame.to_data(px, py) else { return };
    let Some(r) = readout(kind, &p, &view, at, &drawn.pixels) else { return };
    c.readout.set_text_content(Some(&r.text));
    if let Some(line) = r.position.and_then(|i| position_tokens(&p.report, i)) {
        els.position_tokens.set_text_content(Some(&line));
    }
}
