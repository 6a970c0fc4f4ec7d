//! The canvas backend with text measured by the canvas itself. plotters-canvas draws, but on
//! wasm plotters sizes every label by appending a `<span>` to the page and reading its
//! `offsetHeight` — a forced layout of the whole page per tick label (about a fifth of the
//! first dashboard's time). Here `estimate_text_size` asks the 2-D context's `measureText`
//! instead (same font string as plotters-canvas draws with; no page layout). Everything else
//! is passed through.

use plotters::prelude::DrawingBackend;
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

type Error = DrawingErrorKind<<CanvasBackend as DrawingBackend>::ErrorType>;

/// [`CanvasBackend`] whose text sizes come from `measureText`.
pub struct MeasuredCanvas {
    inner: CanvasBackend,
    ctx: CanvasRenderingContext2d,
}

impl MeasuredCanvas {
    /// The backend for `canvas`, or `None` without a 2-D context.
    pub fn new(canvas: &HtmlCanvasElement) -> Option<Self> {
        let ctx = canvas.get_context("2d").ok()??.dyn_into::<CanvasRenderingContext2d>().ok()?;
        Some(Self { inner: CanvasBackend::with_canvas_object(canvas.clone())?, ctx })
    }
}

impl DrawingBackend for MeasuredCanvas {
    type ErrorType = <CanvasBackend as DrawingBackend>::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }
    fn ensure_prepared(&mut self) -> Result<(), Error> {
        self.inner.ensure_prepared()
    }
    fn present(&mut self) -> Result<(), Error> {
        self.inner.present()
    }
    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Result<(), Error> {
        self.inner.draw_pixel(point, color)
    }
    fn draw_line<S: BackendStyle>(&mut self, from: BackendCoord, to: BackendCoord, style: &S) -> Result<(), Error> {
        self.inner.draw_line(from, to, style)
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        a: BackendCoord,
        b: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), Error> {
        self.inner.draw_rect(a, b, style, fill)
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), Error> {
        self.inner.draw_path(path, style)
    }
    fn draw_circle<S: BackendStyle>(&mut self, c: BackendCoord, r: u32, style: &S, fill: bool) -> Result<(), Error> {
        self.inner.draw_circle(c, r, style, fill)
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), Error> {
        self.inner.fill_polygon(vert, style)
    }
    fn draw_text<T: BackendTextStyle>(&mut self, text: &str, style: &T, pos: BackendCoord) -> Result<(), Error> {
        self.inner.draw_text(text, style, pos)
    }
    fn blit_bitmap(&mut self, pos: BackendCoord, size: (u32, u32), src: &[u8]) -> Result<(), Error> {
        self.inner.blit_bitmap(pos, size, src)
    }

    /// Width from `measureText`; height the font's line box (ascent + descent), as the
    /// span plotters would have measured. The box is the unrotated one, as plotters' own.
    fn estimate_text_size<T: BackendTextStyle>(&self, text: &str, style: &T) -> Result<(u32, u32), Error> {
        self.ctx.set_font(&format!("{} {}px {}", style.style().as_str(), style.size(), style.family().as_str()));
        // A context that cannot measure (none known) gets plotters' usual proportions.
        let (width, height) = match self.ctx.measure_text(text) {
            Ok(m) => (m.width(), m.font_bounding_box_ascent() + m.font_bounding_box_descent()),
            Err(_) => (0.6 * style.size() * text.chars().count() as f64, 0.0),
        };
        let height = if height > 0.0 { height } else { style.size() * 1.15 };
        Ok((width.ceil() as u32, height.ceil() as u32))
    }
}
