//! Uploads: a chosen file is kept until the model asks to read it; once read, its bytes stay
//! here (they never enter a link) and the column or tensor picker is filled from its head.

use super::elements::Elements;
use super::{make, runtime};
use crate::app::{Msg, Slot};
use posgeo::corpus::{csv_headers, gunzip_head, is_gzip};
use posgeo::learned_tables::{format_of, header_matrices, pick_positional, TableFormat};
use web_sys::HtmlSelectElement;

/// The column picker reads this much of the (decompressed) file.
const HEAD_BYTES: usize = 1 << 16;
/// CSV columns preselected by name, in order of preference.
const TEXT_COLUMNS: [&str; 5] = ["text", "sentence", "review", "content", "body"];

/// A file was chosen in `slot` (button or drop).
pub fn choose(slot: Slot, file: web_sys::File) {
    let (name, size) = (file.name(), file.size());
    runtime::with(|rt| rt.file(slot).pending = Some(file));
    runtime::dispatch(Msg::FileChosen { slot, name, size });
}

/// Several files chosen as learned tables: one bundle ([`posgeo::learned_tables::BUNDLE_MAGIC`]) made
/// of a small header per file and the files themselves (the browser joins them; nothing is
/// read here). Each becomes its own row, `learned:<file>`, as `--learned` repeated does.
pub fn choose_bundle(slot: Slot, files: Vec<web_sys::File>) {
    let parts = js_sys::Array::new();
    parts.push(&js_sys::Uint8Array::from(&posgeo::learned_tables::BUNDLE_MAGIC[..]));
    let mut names = Vec::new();
    for f in files {
        let name = f.name();
        let mut head = (name.len() as u32).to_le_bytes().to_vec();
        head.extend(name.as_bytes());
        head.extend((f.size() as u64).to_le_bytes());
        parts.push(&js_sys::Uint8Array::from(&head[..]));
        parts.push(&f);
        names.push(name);
    }
    let name = names.join(" + ");
    match web_sys::File::new_with_blob_sequence(&parts, &name) {
        Ok(file) => choose(slot, file),
        Err(_) => runtime::dispatch(Msg::FileUnreadable { slot, name }),
    }
}

/// Reads the file chosen in `slot` (the browser reads; the page only awaits).
pub fn read(slot: Slot) {
    let Some(Some(file)) = runtime::with(|rt| rt.file(slot).pending.take()) else { return };
    let name = file.name();
    wasm_bindgen_futures::spawn_local(async move {
        // A corpus is streamed by the worker: the page reads only its head.
        let blob: web_sys::Blob = match slot {
            Slot::Corpus => file.slice_with_f64_and_f64(0.0, HEAD_BYTES as f64).unwrap_or_else(|_| file.clone().into()),
            _ => file.clone().into(),
        };
        let Ok(buf) = wasm_bindgen_futures::JsFuture::from(blob.array_buffer()).await else {
            return runtime::dispatch(Msg::FileUnreadable { slot, name });
        };
        let arr = js_sys::Uint8Array::new(&buf);
        let size = file.size();
        let Some(els) = runtime::els() else { return };
        let detail = match slot {
            Slot::Corpus if posgeo::counts::looks_like_table(&arr.to_vec()) => {
                els.file_column.set_text_content(None);
                "a counts table (position, token, count): analysed as the corpus it was counted from".to_string()
            }
            Slot::Corpus => {
                fill_columns(&els, &name, &arr);
                String::new()
            }
            Slot::Learned => fill_tensors(&els, &arr),
            Slot::Tokenizer => String::new(),
            // The bundle's name lists its files ([`choose_bundle`]): nothing to read here.
            Slot::Model => String::new(),
        };
        runtime::with(|rt| {
            let data = rt.file(slot);
            data.bytes = Some(arr);
            data.file = (slot == Slot::Corpus).then_some(file);
        });
        runtime::dispatch(Msg::FileLoaded { slot, name, size, detail });
    });
}

/// Forgets a file and resets its controls.
pub fn clear(els: &Elements, slot: Slot) {
    runtime::with(|rt| *rt.file(slot) = runtime::FileData::default());
    els.file(slot).input.set_value("");
    if slot == Slot::Learned {
        els.learned_tensor.set_text_content(None);
    }
}

/// Fetches the shipped file of `slot` (all-MiniLM-L6-v2's, served beside the page).
pub fn fetch_shipped(slot: Slot) {
    let Some((url, name)) = slot.shipped() else { return };
    wasm_bindgen_futures::spawn_local(async move {
        let Some(bytes) = fetch_bytes(&url).await else {
            return runtime::dispatch(Msg::FileUnreadable { slot, name });
        };
        let size = f64::from(bytes.length());
        if slot == Slot::Learned {
            if let Some(els) = runtime::els() {
                els.learned_tensor.set_text_content(None);
            }
        }
        let detail = "shipped with posgeo (Apache-2.0; see models/all-MiniLM-L6-v2/NOTICE)".to_string();
        runtime::with(|rt| rt.file(slot).bytes = Some(bytes));
        runtime::dispatch(Msg::FileLoaded { slot, name, size, detail });
    });
}

async fn fetch_bytes(url: &str) -> Option<js_sys::Uint8Array> {
    use wasm_bindgen::JsCast;
    use wasm_bindgen_futures::JsFuture;
    let window = web_sys::window()?;
    let response: web_sys::Response = JsFuture::from(window.fetch_with_str(url)).await.ok()?.dyn_into().ok()?;
    if !response.ok() {
        return None;
    }
    let buf = JsFuture::from(response.array_buffer().ok()?).await.ok()?;
    Some(js_sys::Uint8Array::new(&buf))
}

/// Refills the column picker for the loaded corpus file (after a format change).
pub fn refill_columns() {
    let loaded = runtime::with(|rt| match (&rt.model.corpus_file, &rt.corpus.bytes) {
        (crate::app::FileSlot::Loaded(name), Some(arr)) => Some((rt.els.clone(), name.clone(), arr.clone())),
        _ => None,
    });
    if let Some(Some((els, name, arr))) = loaded {
        fill_columns(&els, &name, &arr);
    }
}

fn add_option(select: &HtmlSelectElement, value: &str, label: &str, selected: bool) {
    let Some(o) = make("option", label) else { return };
    o.set_attribute("value", value).ok();
    if selected {
        o.set_attribute("selected", "").ok();
    }
    select.append_child(&o).ok();
}

/// The first [`HEAD_BYTES`] of the (decompressed) file (a gzip head decompresses partly).
fn head(arr: &js_sys::Uint8Array) -> Vec<u8> {
    let raw = arr.subarray(0, arr.length().min(HEAD_BYTES as u32)).to_vec();
    if is_gzip(&raw) {
        gunzip_head(&raw, HEAD_BYTES)
    } else {
        raw
    }
}

fn fill_columns(els: &Elements, name: &str, arr: &js_sys::Uint8Array) {
    let select = &els.file_column;
    select.set_text_content(None);
    let options = crate::app::FileOptions { format: els.file_format.value(), ..Default::default() };
    let Some(delimiter) = options.kind(name).delimiter() else { return };
    let Ok(headers) = csv_headers(&head(arr), delimiter) else { return };
    let pick = headers.iter().position(|h| TEXT_COLUMNS.contains(&h.to_lowercase().as_str())).unwrap_or(0);
    for (k, h) in headers.iter().enumerate() {
        add_option(select, h, h, k == pick);
    }
}

/// Fills the tensor picker from a safetensors header; says what the file is.
fn fill_tensors(els: &Elements, arr: &js_sys::Uint8Array) -> String {
    let len = arr.length();
    let magic = posgeo::learned_tables::BUNDLE_MAGIC.len() as u32;
    if arr.subarray(0, magic.min(len)).to_vec() == posgeo::learned_tables::BUNDLE_MAGIC[..] {
        els.learned_tensor.set_text_content(None);
        let bytes = arr.to_vec();
        let names: Vec<String> = posgeo::learned_tables::bundle_members(&bytes)
            .map(|m| m.into_iter().map(|(n, _)| n).collect())
            .unwrap_or_default();
        return format!("{} tables, each compared as learned:<file>", names.len());
    }
    let (matrices, what) = match format_of(&arr.subarray(0, 9.min(len)).to_vec(), len as usize) {
        TableFormat::Safetensors { header_len } => {
            let header = arr.subarray(8, 8 + header_len as u32).to_vec();
            let m = header_matrices(&header).unwrap_or_default();
            let what = format!("safetensors, {} matrices", m.len());
            (m, what)
        }
        TableFormat::Npy => (Vec::new(), "NumPy array".to_string()),
        TableFormat::Npz => (Vec::new(), "NumPy .npz archive".to_string()),
        TableFormat::Text if is_gzip(&arr.subarray(0, 2.min(len)).to_vec()) => {
            (Vec::new(), "gzip-compressed".to_string())
        }
        TableFormat::Text => (Vec::new(), "text/CSV".to_string()),
    };
    let select = &els.learned_tensor;
    select.set_text_content(None);
    let found = pick_positional(&matrices);
    for (k, m) in matrices.iter().enumerate().filter(|(_, m)| m.float) {
        add_option(select, &m.name, &m.label(), Some(k) == found);
    }
    what
}
