//! A shipped model ([`ShippedModel`]), fetched only when asked (its size is on its button):
//! its files (about 91 MB for all-MiniLM-L6-v2's three, 98 MB for SmolLM2's one GGUF) read
//! chunk by chunk with a progress bar (`#model-progress`), then joined into one bundle, as an
//! upload of the same files would be ([`posgeo::learned_tables::BUNDLE_MAGIC`]).

use super::runtime;
use crate::app::{shipped_model_name, Msg, Slot};
use posgeo::demos::preset::ShippedModel;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// Sets `#model-progress` to `fraction` (hidden when `None`).
fn show_progress(fraction: Option<f64>) {
    let Some(els) = runtime::els() else { return };
    let bar = &els.model_progress;
    match fraction {
        Some(f) => {
            bar.set_attribute("value", &format!("{:.4}", f.clamp(0.0, 1.0))).ok();
            bar.remove_attribute("hidden").ok();
        }
        None => {
            bar.set_attribute("hidden", "").ok();
        }
    }
}

/// The body of `url`, read chunk by chunk; `progress` gets the bytes read so far.
async fn fetch_counted(url: &str, progress: &mut dyn FnMut(f64)) -> Option<Vec<js_sys::Uint8Array>> {
    let window = web_sys::window()?;
    let response: web_sys::Response = JsFuture::from(window.fetch_with_str(url)).await.ok()?.dyn_into().ok()?;
    if !response.ok() {
        return None;
    }
    crate::js::read_body(&response, progress).await
}

/// One file's bundle entry: its name's length, name and size, then its chunks.
fn entry(parts: &js_sys::Array, name: &str, chunks: &[js_sys::Uint8Array]) {
    let size: u64 = chunks.iter().map(|c| u64::from(c.length())).sum();
    let mut head = (name.len() as u32).to_le_bytes().to_vec();
    head.extend(name.as_bytes());
    head.extend(size.to_le_bytes());
    parts.push(&js_sys::Uint8Array::from(&head[..]));
    for c in chunks {
        parts.push(c);
    }
}

/// Fetches a shipped model's files and keeps them as the model slot's bundle; then
/// [`Msg::FileLoaded`] (or [`Msg::FileUnreadable`]).
pub fn fetch_model(which: ShippedModel) {
    let (dir, name, total) = (which.dir(), shipped_model_name(which), which.bytes());
    wasm_bindgen_futures::spawn_local(async move {
        let slot = Slot::Model;
        let parts = js_sys::Array::new();
        parts.push(&js_sys::Uint8Array::from(&posgeo::learned_tables::BUNDLE_MAGIC[..]));
        let mut before = 0.0;
        show_progress(Some(0.0));
        for &file in which.files() {
            let url = format!("{dir}/{file}");
            let Some(chunks) = fetch_counted(&url, &mut |got| show_progress(Some((before + got) / total))).await else {
                show_progress(None);
                return runtime::dispatch(Msg::FileUnreadable { slot, name: format!("{name}: {url}") });
            };
            before += chunks.iter().map(|c| f64::from(c.length())).sum::<f64>();
            entry(&parts, file, &chunks);
        }
        let joined = web_sys::Blob::new_with_u8_array_sequence(&parts).ok();
        let buffer = match joined {
            Some(b) => JsFuture::from(b.array_buffer()).await.ok(),
            None => None,
        };
        show_progress(None);
        let Some(buffer) = buffer else { return runtime::dispatch(Msg::FileUnreadable { slot, name }) };
        let bytes = js_sys::Uint8Array::new(&buffer);
        let size = f64::from(bytes.length());
        runtime::with(|rt| rt.file(slot).bytes = Some(bytes));
        let detail = which.notice();
        runtime::dispatch(Msg::FileLoaded { slot, name, size, detail });
    });
}
