//! The DOM layer (wasm32 only): performs the [`crate::app::Effect`]s of the page's
//! `update` and turns browser events into [`crate::app::Msg`]s. Nothing here decides
//! anything; it reads and writes the page.
//!
//! * [`elements`]: every element the page uses, looked up once at start into typed handles.
//! * [`controls`]: the option controls, built from `posgeo::options`, read into a `Form`.
//! * [`runtime`]: the owned model, `dispatch`, and the effects performed.
//! * [`bridge`]: the Web Worker (spawn, post, receive, its death).
//! * [`files`]: reading uploads, the column and tensor pickers.
//! * [`render`]: summary, table, charts on canvases, hover read-outs, downloads.
//! * [`lecture`]: the lecture view (its steps, keys and controls).
//! * [`learn`], [`learn_bridge`]: the Learn panel and its training worker.
//! * [`wire`]: event listeners.
//!
//! Text is always inserted with `set_text_content`, never as HTML.

pub mod bridge;
pub mod controls;
pub mod download;
pub mod elements;
pub mod files;
pub mod learn;
pub mod learn_bridge;
pub mod lecture;
pub mod render;
pub mod runtime;
pub mod theme;
pub mod wire;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element};

/// The page's document.
pub fn document() -> Option<Document> {
    web_sys::window().and_then(|w| w.document())
}

/// The page clock, ms.
pub fn now() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// Runs `f` in a task of its own (after the current one yields to the browser).
pub fn later(f: impl FnOnce() + 'static) {
    let cb = Closure::once_into_js(f);
    if let Some(w) = web_sys::window() {
        w.set_timeout_with_callback(cb.unchecked_ref()).ok();
    }
}

/// Adds an event listener that lives as long as the page.
pub fn on<E: JsCast + wasm_bindgen::convert::FromWasmAbi + 'static>(
    target: &web_sys::EventTarget,
    event: &str,
    f: impl FnMut(E) + 'static,
) {
    let cb = Closure::<dyn FnMut(E)>::new(f);
    target.add_event_listener_with_callback(event, cb.as_ref().unchecked_ref()).ok();
    cb.forget();
}

/// Creates an element with text content (never markup).
pub fn make(tag: &str, text: &str) -> Option<Element> {
    let e = document()?.create_element(tag).ok()?;
    e.set_text_content(Some(text));
    Some(e)
}

/// Offers bytes as a download.
pub fn download(name: &str, mime: &str, data: &[u8]) {
    let arr = js_sys::Uint8Array::from(data);
    let parts = js_sys::Array::of1(&arr);
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let Ok(blob) = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &opts) else { return };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else { return };
    download_url(name, &url);
    web_sys::Url::revoke_object_url(&url).ok();
}

/// Offers a URL (data: or blob:) as a download.
pub fn download_url(name: &str, url: &str) {
    let Some(doc) = document() else { return };
    let Some(a) = doc.create_element("a").ok().and_then(|a| a.dyn_into::<web_sys::HtmlAnchorElement>().ok()) else {
        return;
    };
    a.set_href(url);
    a.set_download(name);
    doc.body().map(|b| b.append_child(&a).ok());
    a.click();
    a.remove();
}

/// Entry point of the page: elements, controls, link state; then, in a task of its own,
/// the first run (which starts the worker) and the service worker.
pub fn start() {
    console_error_panic_hook::set_once();
    let els = match elements::Elements::find() {
        Ok(e) => e,
        Err(missing) => return runtime::fatal(&missing),
    };
    // Every chart's text alternative says what it shows.
    for kind in crate::view::charts::ChartKind::ALL {
        if let Some(c) = els.chart(kind) {
            c.canvas.set_attribute("aria-label", kind.description()).ok();
        }
    }
    runtime::install(els);
    wire::wire();
    theme::watch();
    let state = crate::url::PageState::from_pairs(query_pairs().iter().map(|(k, v)| (k.as_str(), v.as_str())));
    runtime::dispatch(crate::app::Msg::Start(Box::new(state)));
    runtime::dispatch(crate::app::Msg::Lecture(lecture::current_hash()));
    later(|| {
        // The first run starts the worker (at once, or after the shipped results are drawn).
        runtime::dispatch(crate::app::Msg::Run { form: controls::read_form(), at: now() });
        // The Learn panel's charts say what they wait for; its estimate reads the options.
        learn::perform(crate::app::learn::LearnEffect::Draw);
        learn::reestimate();
        register_service_worker();
    });
}

/// The page's query string as pairs.
fn query_pairs() -> Vec<(String, String)> {
    let search = web_sys::window().and_then(|w| w.location().search().ok()).unwrap_or_default();
    let Ok(params) = web_sys::UrlSearchParams::new_with_str(&search) else { return Vec::new() };
    let mut pairs = Vec::new();
    for entry in js_sys::try_iter(&params.entries()).ok().flatten().into_iter().flatten().flatten() {
        let arr: js_sys::Array = entry.unchecked_into();
        pairs.push((arr.get(0).as_string().unwrap_or_default(), arr.get(1).as_string().unwrap_or_default()));
    }
    pairs
}

/// Registers `sw.js` (www/sw.js), which keeps the explorer working offline once loaded.
/// Service workers exist only in secure contexts (https, localhost).
fn register_service_worker() {
    let Some(window) = web_sys::window() else { return };
    let navigator = window.navigator();
    if !window.is_secure_context() || !crate::js::has_service_worker(&navigator) {
        return;
    }
    // A rejection (e.g. a host that refuses the script) only costs offline use.
    let promise = navigator.service_worker().register("./sw.js");
    let ignore = Closure::<dyn FnMut(JsValue)>::new(|_: JsValue| {});
    let _ = promise.catch(&ignore);
    ignore.forget();
}
