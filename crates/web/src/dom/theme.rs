//! The charts' theme and resolution follow the display: dark when the system asks for it
//! (`prefers-color-scheme: dark`, as the page's style), and every canvas redrawn at its
//! displayed size when that changes ([`crate::app::Msg::Restyle`] after a resize or a
//! theme change, debounced).

use super::{on, runtime};
use crate::app::Msg;
use posgeo_charts::palette::{set_theme, DARK, LIGHT};
use std::cell::Cell;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

const QUERY: &str = "(prefers-color-scheme: dark)";

/// Whether the system asks for dark pages.
fn dark() -> bool {
    web_sys::window().and_then(|w| w.match_media(QUERY).ok().flatten()).is_some_and(|m| m.matches())
}

/// Sets the charts' theme to the display's (called before every drawing).
pub fn apply() {
    set_theme(if dark() { DARK } else { LIGHT });
}

thread_local! {
    static PENDING: Cell<bool> = const { Cell::new(false) };
}

/// One [`Msg::Restyle`] 150 ms after the last of a burst of changes.
fn restyle_soon() {
    if PENDING.with(|p| p.replace(true)) {
        return;
    }
    let cb = Closure::once_into_js(|| {
        PENDING.with(|p| p.set(false));
        super::render::remember_shown();
        runtime::dispatch(Msg::Restyle);
    });
    if let Some(w) = web_sys::window() {
        w.set_timeout_with_callback_and_timeout_and_arguments_0(cb.unchecked_ref(), 150).ok();
    }
}

/// Listens for theme changes and resizes.
pub fn watch() {
    let Some(w) = web_sys::window() else { return };
    if let Ok(Some(m)) = w.match_media(QUERY) {
        on(m.as_ref(), "change", |_: web_sys::Event| restyle_soon());
    }
    on(w.as_ref(), "resize", |_: web_sys::Event| restyle_soon());
}
