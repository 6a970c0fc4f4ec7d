//! **One visual language**: the colour of every encoding (the same in every chart, legend
//! and table row) and the light and dark themes of every chart.
//!
//! Encodings take the Okabe–Ito palette (Okabe & Ito 2008; distinguishable with every common
//! colour-vision deficiency): sinusoidal blue, RoPE sky blue, ALiBi vermillion, random black
//! (white on the dark theme), PMDS bluish green, PMDS r_E yellow, SMACOF reddish purple,
//! learned tables orange; NoPE neutral grey. A model's rows, beyond those eight, take two
//! colours of Paul Tol's muted scheme (also colour-blind safe): `layer:ℓ` wine,
//! `layer-residual:ℓ` teal; the learning experiment's `learned_pmds` table takes Tol's olive
//! and its `lowrank` table Tol's rose.
//!
//! The theme is set by the shell before it draws ([`set_theme`]; the page follows
//! `prefers-color-scheme`), and read by every chart through [`theme`] and [`font`].

use super::STYLE;
use plotters::prelude::*;
use std::cell::Cell;

/// The Okabe–Ito colours: black, orange, sky blue, bluish green, yellow, blue, vermillion,
/// reddish purple.
pub const OKABE_ITO: [RGBColor; 8] = [
    RGBColor(0, 0, 0),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 158, 115),
    RGBColor(240, 228, 66),
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(204, 121, 167),
];

/// NoPE's neutral grey.
pub const NEUTRAL: RGBColor = RGBColor(153, 153, 153);
/// `layer:ℓ` (Tol's wine).
pub const LAYER: RGBColor = RGBColor(136, 34, 85);
/// `layer-residual:ℓ` (Tol's teal).
pub const RESIDUAL: RGBColor = RGBColor(68, 170, 153);
/// The learning experiment's `learned_pmds` table, beside `learned`'s orange (Tol's olive).
pub const LEARNED_PMDS: RGBColor = RGBColor(153, 153, 51);
/// The learning experiment's `lowrank` table A·Bᵀ (Tol's rose).
pub const LOWRANK: RGBColor = RGBColor(204, 102, 119);

/// The colour of an encoding (by its report key).
pub fn color_of(name: &str) -> RGBColor {
    match name {
        "sinusoidal" => OKABE_ITO[5],
        "rope" => OKABE_ITO[2],
        "alibi" => OKABE_ITO[6],
        "random" => theme().text,
        "pmds" => OKABE_ITO[3],
        "pmds_r" => OKABE_ITO[4],
        "smacof" => OKABE_ITO[7],
        "learned_pmds" => LEARNED_PMDS,
        "lowrank" => LOWRANK,
        n if n.starts_with("learned") => OKABE_ITO[1],
        n if n.starts_with("layer-residual:") => RESIDUAL,
        n if n.starts_with("layer:") => LAYER,
        _ => NEUTRAL,
    }
}

/// [`color_of`] as CSS (`#rrggbb`), for the page's table and legends.
pub fn css_of(name: &str) -> String {
    let RGBColor(r, g, b) = color_of(name);
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// The colours of a chart's frame: background, text, grid lines.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Theme {
    /// The plot's background.
    pub background: RGBColor,
    /// Captions, labels, axes, and lines that stand for "the corpus".
    pub text: RGBColor,
    /// Fine grid lines (light: almost invisible).
    pub grid: RGBColor,
    /// Major grid lines.
    pub bold_grid: RGBColor,
    /// Whether this is the dark theme.
    pub dark: bool,
}

/// Dark text on white, with light grids.
pub const LIGHT: Theme = Theme {
    background: RGBColor(255, 255, 255),
    text: RGBColor(27, 27, 27),
    grid: RGBColor(245, 245, 245),
    bold_grid: RGBColor(228, 228, 228),
    dark: false,
};

/// Light text on near-black (the page's dark background), with faint grids.
pub const DARK: Theme = Theme {
    background: RGBColor(30, 30, 32),
    text: RGBColor(230, 230, 230),
    grid: RGBColor(44, 44, 48),
    bold_grid: RGBColor(62, 62, 68),
    dark: true,
};

thread_local! {
    static THEME: Cell<Theme> = const { Cell::new(LIGHT) };
}

/// Sets the theme the charts drawn next use (on this thread).
pub fn set_theme(t: Theme) {
    THEME.with(|c| c.set(t));
}

/// The current theme.
pub fn theme() -> Theme {
    THEME.with(Cell::get)
}

/// Chart text of `size` px in the theme's colour.
pub fn font(size: u32) -> TextStyle<'static> {
    (STYLE.font, size).into_font().color(&theme().text)
}

/// The theme's mesh: light grids, axis and labels in the text colour.
pub(crate) trait Themed {
    /// Applies the theme.
    fn themed(&mut self) -> &mut Self;
}

impl<X: plotters::coord::ranged1d::Ranged, Y: plotters::coord::ranged1d::Ranged, DB: DrawingBackend> Themed
    for plotters::chart::MeshStyle<'_, '_, X, Y, DB>
{
    fn themed(&mut self) -> &mut Self {
        let t = theme();
        self.light_line_style(t.grid)
            .bold_line_style(t.bold_grid)
            .axis_style(t.text)
            .label_style(font(STYLE.label))
            .axis_desc_style(font(STYLE.label + 1))
    }
}
