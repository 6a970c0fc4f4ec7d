//! Small DOM helpers for the page (wasm32 only). Text is always inserted with
//! `set_text_content`, never as HTML.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element, HtmlElement, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};

pub fn document() -> Document {
    web_sys::window().and_then(|w| w.document()).expect("a page has a document")
}

/// The element with this id (the page's HTML defines every id the code uses).
pub fn el(id: &str) -> Element {
    document().get_element_by_id(id).unwrap_or_else(|| panic!("missing #{id} in index.html"))
}

pub fn html(id: &str) -> HtmlElement {
    el(id).unchecked_into()
}

pub fn set_text(id: &str, text: &str) {
    el(id).set_text_content(Some(text));
}

/// The value of an input, select or textarea.
pub fn value(id: &str) -> String {
    let e = el(id);
    if let Some(i) = e.dyn_ref::<HtmlInputElement>() {
        i.value()
    } else if let Some(s) = e.dyn_ref::<HtmlSelectElement>() {
        s.value()
    } else if let Some(t) = e.dyn_ref::<HtmlTextAreaElement>() {
        t.value()
    } else {
        String::new()
    }
}

pub fn set_value(id: &str, v: &str) {
    let e = el(id);
    if let Some(i) = e.dyn_ref::<HtmlInputElement>() {
        i.set_value(v)
    } else if let Some(s) = e.dyn_ref::<HtmlSelectElement>() {
        s.set_value(v)
    } else if let Some(t) = e.dyn_ref::<HtmlTextAreaElement>() {
        t.set_value(v)
    }
}

pub fn checked(id: &str) -> bool {
    el(id).dyn_ref::<HtmlInputElement>().is_some_and(|i| i.checked())
}

pub fn set_checked(id: &str, on: bool) {
    if let Some(i) = el(id).dyn_ref::<HtmlInputElement>() {
        i.set_checked(on)
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

pub fn on_id<E: JsCast + wasm_bindgen::convert::FromWasmAbi + 'static>(
    id: &str,
    event: &str,
    f: impl FnMut(E) + 'static,
) {
    on(&el(id), event, f);
}

/// Creates an element with text content.
pub fn make(tag: &str, text: &str) -> Element {
    let e = document().create_element(tag).expect("create element");
    e.set_text_content(Some(text));
    e
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

pub fn download_url(name: &str, url: &str) {
    let a: web_sys::HtmlAnchorElement = document().create_element("a").expect("anchor").unchecked_into();
    a.set_href(url);
    a.set_download(name);
    document().body().map(|b| b.append_child(&a).ok());
    a.click();
    a.remove();
}
