//! The canvas backend with text measured by the canvas itself. plotters-canvas draws, but on
//! wasm plotters sizes every label by appending a `<span>` to the page and reading its
//! `offsetHeight` — a forced layout of the whole page per tick label (about a fifth of the
//! first dashboard's time). Here `estimate_text_size` asks the 2-D context's `measureText`
//! instead (same font string as plotters-canvas draws with; no page layout).
//!
//! **Colours set once**: lines, filled rectangles and circles are drawn here as
//! plotters-canvas draws them, but the fill and stroke colours are set only when they change
//! (the canvas parses every colour string it is given, and a Shepard diagram sets the same
//! one 4,000 times). Everything else is passed through, and forgets the colours set.
//!
//! **Sharp at every size**: a chart is laid out at its nominal size (the canvas's declared
//! `width` × `height`, kept in `data-width`/`data-height`), so its fonts and margins are the
//! style's; the canvas's pixels are its displayed size × `devicePixelRatio`, and the context's
//! transform maps the one onto the other. Nothing is stretched as a bitmap.

use plotters::prelude::DrawingBackend;
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

type Error = DrawingErrorKind<<CanvasBackend as DrawingBackend>::ErrorType>;

/// [`CanvasBackend`] whose text sizes come from `measureText`, drawn at the display's
/// resolution.
pub struct MeasuredCanvas {
    inner: CanvasBackend,
    ctx: CanvasRenderingContext2d,
    nominal: (u32, u32),
    scale: (f64, f64),
    /// The fill and stroke styles last set here (`None` once the inner backend may have
    /// changed them): a chart sets the same colour thousands of times, and the canvas
    /// parses every colour string it is given.
    fill: Option<ColorKey>,
    stroke: Option<(ColorKey, u32)>,
}

/// A canvas's nominal size: its declared size, recorded on first use.
pub fn nominal(canvas: &HtmlCanvasElement) -> (u32, u32) {
    let read = |k: &str| canvas.get_attribute(k).and_then(|v| v.parse::<u32>().ok());
    if let (Some(w), Some(h)) = (read("data-width"), read("data-height")) {
        return (w, h);
    }
    let (w, h) = (canvas.width().max(1), canvas.height().max(1));
    canvas.set_attribute("data-width", &w.to_string()).ok();
    canvas.set_attribute("data-height", &h.to_string()).ok();
    (w, h)
}

/// The backing store for a chart of nominal size `(w, h)` shown at `(cw, ch)` CSS px (0 when
/// not laid out) on a display of `dpr`: the nominal aspect, as many pixels as the display
/// shows (object-fit: contain shows the smaller ratio).
pub fn backing((w, h): (u32, u32), (cw, ch): (f64, f64), dpr: f64) -> (u32, u32) {
    let (w, h) = (f64::from(w), f64::from(h));
    let shown = match (cw > 0.0, ch > 0.0) {
        (true, true) => (cw / w).min(ch / h),
        (true, false) => cw / w,
        _ => 1.0,
    };
    let k = (shown * dpr.max(1.0)).clamp(0.25, 8.0);
    ((w * k).round().max(1.0) as u32, (h * k).round().max(1.0) as u32)
}

/// The CSS size a canvas is shown at: as [`remember_shown`] read it (all canvases in one
/// layout), else read now.
fn shown(canvas: &HtmlCanvasElement) -> (f64, f64) {
    let kept = canvas.get_attribute("data-shown").and_then(|v| {
        let (w, h) = v.split_once(' ')?;
        Some((w.parse().ok()?, h.parse().ok()?))
    });
    kept.unwrap_or_else(|| (f64::from(canvas.client_width()), f64::from(canvas.client_height())))
}

/// Reads the displayed size of every canvas in `canvases` first, then keeps it on each
/// (`data-shown`): one page layout for all of them, instead of one per chart drawn.
pub fn remember_shown(canvases: &[HtmlCanvasElement]) {
    let sizes: Vec<(i32, i32)> = canvases.iter().map(|c| (c.client_width(), c.client_height())).collect();
    for (c, (w, h)) in canvases.iter().zip(sizes) {
        c.set_attribute("data-shown", &format!("{w} {h}")).ok();
    }
}

impl MeasuredCanvas {
    /// The backend for `canvas`, or `None` without a 2-D context.
    pub fn new(canvas: &HtmlCanvasElement) -> Option<Self> {
        let nominal = nominal(canvas);
        let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio());
        let shown = shown(canvas);
        let (bw, bh) = backing(nominal, shown, dpr);
        if (canvas.width(), canvas.height()) != (bw, bh) {
            canvas.set_width(bw);
            canvas.set_height(bh);
        }
        let ctx = canvas.get_context("2d").ok()??.dyn_into::<CanvasRenderingContext2d>().ok()?;
        let scale = (f64::from(bw) / f64::from(nominal.0), f64::from(bh) / f64::from(nominal.1));
        ctx.set_transform(scale.0, 0.0, 0.0, scale.1, 0.0, 0.0).ok()?;
        Some(Self {
            inner: CanvasBackend::with_canvas_object(canvas.clone())?,
            ctx,
            nominal,
            scale,
            fill: None,
            stroke: None,
        })
    }

    /// Canvas pixels per nominal pixel (x, y).
    pub fn scale(&self) -> (f64, f64) {
        self.scale
    }

    /// Sets the fill colour unless it is already set.
    fn fill_with(&mut self, c: BackendColor) {
        if self.fill != Some(key(c)) {
            self.ctx.set_fill_style_str(&css_color(c));
            self.fill = Some(key(c));
        }
    }

    /// Sets the stroke colour and width unless they are already set.
    fn stroke_with<S: BackendStyle>(&mut self, style: &S) {
        let (c, width) = (style.color(), style.stroke_width());
        if self.stroke != Some((key(c), width)) {
            self.ctx.set_stroke_style_str(&css_color(c));
            self.ctx.set_line_width(f64::from(width));
            self.stroke = Some((key(c), width));
        }
    }

    /// Runs a drawing of the inner backend, which may set either style.
    fn inner<R>(&mut self, f: impl FnOnce(&mut CanvasBackend) -> R) -> R {
        self.fill = None;
        self.stroke = None;
        f(&mut self.inner)
    }
}

/// A colour, comparable: its RGB and its alpha's bits.
type ColorKey = ((u8, u8, u8), u64);

fn key(c: BackendColor) -> ColorKey {
    (c.rgb, c.alpha.to_bits())
}

/// A colour as the canvas reads it (as plotters-canvas writes it).
fn css_color(c: BackendColor) -> String {
    let (r, g, b) = c.rgb;
    format!("rgba({r},{g},{b},{})", c.alpha)
}

impl DrawingBackend for MeasuredCanvas {
    type ErrorType = <CanvasBackend as DrawingBackend>::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.nominal
    }
    fn ensure_prepared(&mut self) -> Result<(), Error> {
        self.inner.ensure_prepared()
    }
    fn present(&mut self) -> Result<(), Error> {
        self.inner.present()
    }
    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Result<(), Error> {
        self.inner(|b| b.draw_pixel(point, color))
    }
    /// As plotters-canvas draws a line (half a pixel in on horizontal and vertical lines),
    /// with the style set only when it changes.
    fn draw_line<S: BackendStyle>(&mut self, from: BackendCoord, to: BackendCoord, style: &S) -> Result<(), Error> {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        let nudge = |same: bool| if same { 0.5 } else { 0.0 };
        let (dx, dy) = (nudge(from.0 == to.0), nudge(from.1 == to.1));
        self.stroke_with(style);
        self.ctx.begin_path();
        self.ctx.move_to(f64::from(from.0) - dx, f64::from(from.1) - dy);
        self.ctx.line_to(f64::from(to.0) - dx, f64::from(to.1) - dy);
        self.ctx.stroke();
        Ok(())
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        a: BackendCoord,
        b: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), Error> {
        if !fill || style.color().alpha == 0.0 {
            return self.inner(|back| back.draw_rect(a, b, style, fill));
        }
        self.fill_with(style.color());
        self.ctx.fill_rect(f64::from(a.0), f64::from(a.1), f64::from(b.0 - a.0), f64::from(b.1 - a.1));
        Ok(())
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), Error> {
        self.inner(|b| b.draw_path(path, style))
    }
    /// As plotters-canvas draws a circle, with the style set only when it changes.
    fn draw_circle<S: BackendStyle>(&mut self, c: BackendCoord, r: u32, style: &S, fill: bool) -> Result<(), Error> {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        if fill {
            self.fill_with(style.color());
        } else {
            self.stroke_with(style);
        }
        self.ctx.begin_path();
        self.ctx.arc(f64::from(c.0), f64::from(c.1), f64::from(r), 0.0, std::f64::consts::TAU).ok();
        if fill {
            self.ctx.fill();
        } else {
            self.ctx.stroke();
        }
        Ok(())
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), Error> {
        self.inner(|b| b.fill_polygon(vert, style))
    }
    fn draw_text<T: BackendTextStyle>(&mut self, text: &str, style: &T, pos: BackendCoord) -> Result<(), Error> {
        self.inner(|b| b.draw_text(text, style, pos))
    }
    fn blit_bitmap(&mut self, pos: BackendCoord, size: (u32, u32), src: &[u8]) -> Result<(), Error> {
        self.inner(|b| b.blit_bitmap(pos, size, src))
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
