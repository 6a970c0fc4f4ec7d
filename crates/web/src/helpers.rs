//! Several Web Workers counting one file (wasm32 only). For a large uncompressed text or
//! JSON Lines upload, the worker that runs the job (the *coordinator*) starts helper workers
//! (the same script; `navigator.hardwareConcurrency` of them, at most [`MAX_HELPERS`]), gives
//! each a byte range of the `File` cut at line boundaries ([`posgeo::corpus::LineRange`]), and
//! appends their counts tables in file order — the table one worker would count, byte for
//! byte (each part's first-occurrence keys are shifted by the sequences before it). No
//! SharedArrayBuffer: the `File` is structured-cloned (no data copied) and each helper reads its
//! range in slices. Any helper failure falls back to one worker, whose messages name the line.

use super::protocol::Request;
use super::worker::BlobReader;
use posgeo::analysis::AnalysisParams;
use posgeo::corpus::{is_gzip, InputFormat, LineRange, SequenceStream};
use posgeo::counts::{count_stream, looks_like_table, CountsTable, Streamed};
use posgeo::error::{PosgeoError, Result};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::io::Read;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Blob, DedicatedWorkerGlobalScope, MessageEvent, Worker, WorkerOptions, WorkerType};

use super::protocol::PARALLEL_FROM;
/// At most this many helpers.
pub const MAX_HELPERS: usize = 4;

/// One helper's job.
#[derive(Serialize, Deserialize)]
struct SliceJob {
    start: u64,
    end: u64,
    format: InputFormat,
    lossy: bool,
    params: AnalysisParams,
    tokenizer: Option<String>,
    /// The first sequences kept as text ([`crate::protocol::kept`]): the examples', or
    /// a model's `layer_sequences` (docs/MATH.md §14).
    keep: usize,
}

thread_local! {
    /// Helpers kept between jobs (started once: each loads the wasm module).
    static POOL: RefCell<Vec<Worker>> = const { RefCell::new(Vec::new()) };
    /// The helpers being started ahead of need ([`warm`]), while they are.
    static WARMING: RefCell<Option<js_sys::Promise>> = const { RefCell::new(None) };
    /// How many times the pool was ended ([`end_pooled`]): helpers whose start began before
    /// the last time are ended too when they are ready, not pooled.
    static ENDED: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// How many helpers a request's upload gets (0: one worker counts it).
pub fn helpers_for(req: &Request, file: &Blob) -> usize {
    let crate::protocol::Source::Bytes { format, .. } = &req.source else { return 0 };
    if matches!(format, InputFormat::Csv { .. }) || file.size() < PARALLEL_FROM || req.reuse_geometry {
        return 0; // CSV fields may hold newlines; small files are not worth it
    }
    let head = BlobReader::new(file.clone()).and_then(|mut r| {
        let mut h = Vec::new();
        (&mut r).take(1 << 16).read_to_end(&mut h).ok().map(|_| h)
    });
    if head.as_ref().is_none_or(|h| is_gzip(h) || looks_like_table(h)) {
        return 0;
    }
    cores()
}

/// The next message (or error) of `w`, as a future of its data (`null` for an error).
pub(super) fn next_message(w: &Worker) -> wasm_bindgen_futures::JsFuture {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        let ok = resolve.clone();
        let on_msg = Closure::once_into_js(move |e: MessageEvent| {
            ok.call1(&JsValue::NULL, &e.data()).ok();
        });
        let on_err = Closure::once_into_js(move |e: web_sys::ErrorEvent| {
            e.prevent_default();
            resolve.call1(&JsValue::NULL, &JsValue::NULL).ok();
        });
        w.set_onmessage(Some(on_msg.unchecked_ref()));
        w.set_onerror(Some(on_err.unchecked_ref()));
    });
    wasm_bindgen_futures::JsFuture::from(p)
}

/// `k` started helpers (from the pool, else new ones, awaited until `Ready`); helpers of the
/// pool beyond `k` stay in it. Helpers being started ahead of need are waited for first.
pub(super) async fn helpers(k: usize) -> Option<Vec<Worker>> {
    if let Some(warming) = WARMING.with(|w| w.borrow().clone()) {
        wasm_bindgen_futures::JsFuture::from(warming).await.ok();
    }
    let mut ready: Vec<Worker> = POOL.with(|p| {
        let mut pool = p.borrow_mut();
        let take = pool.len().min(k);
        pool.drain(..take).collect()
    });
    match started(k - ready.len()).await {
        Some(new) => ready.extend(new),
        None => {
            ready.iter().for_each(Worker::terminate);
            return None;
        }
    }
    Some(ready)
}

/// `k` new helpers, started side by side (each loads and compiles the module), once every
/// one has said `Ready`; `None` if one could not start (those that did are ended).
async fn started(k: usize) -> Option<Vec<Worker>> {
    if k == 0 {
        return Some(Vec::new());
    }
    let href = js_sys::Reflect::get(&js_sys::global(), &"location".into())
        .ok()
        .and_then(|l| js_sys::Reflect::get(&l, &"href".into()).ok())
        .and_then(|h| h.as_string())?;
    let mut new = Vec::with_capacity(k);
    for _ in 0..k {
        let opts = WorkerOptions::new();
        opts.set_type(WorkerType::Module);
        let Ok(w) = Worker::new_with_options(&href, &opts) else { break };
        let hello = next_message(&w);
        new.push((w, hello));
    }
    let mut ready = Vec::with_capacity(k);
    for (w, hello) in new {
        if hello.await.ok().is_some_and(|v| !v.is_null()) {
            ready.push(w);
        } else {
            w.terminate();
        }
    }
    if ready.len() < k {
        ready.iter().for_each(Worker::terminate);
        return None;
    }
    Some(ready)
}

/// The page's `{ warm: true }` (a file for the helpers was chosen): [`warm`]. Returns false
/// for any other message.
pub fn serve_warm(data: &JsValue) -> bool {
    let asked = js_sys::Reflect::get(data, &"warm".into()).ok().is_some_and(|v| v.is_truthy());
    if asked {
        warm();
    }
    asked
}

/// Starts a helper per core into the pool, in the background, unless the pool holds some
/// or they are being started: the page asks for it when a file the helpers will count is
/// chosen, so that its run finds them loaded instead of waiting for the module to load in
/// each (about 0.2 s of a first IMDB-sized upload here).
fn warm() {
    let k = cores();
    if k < 2 || pooled() > 0 || WARMING.with(|w| w.borrow().is_some()) {
        return;
    }
    let ended = ENDED.get();
    // The future first runs in a later microtask, so WARMING is set (below) before it can
    // be cleared.
    let promise = wasm_bindgen_futures::future_to_promise(async move {
        if let Some(ready) = started(k).await {
            release(ready, ENDED.get() == ended);
        }
        WARMING.with(|w| w.borrow_mut().take());
        Ok(JsValue::UNDEFINED)
    });
    WARMING.with(|w| *w.borrow_mut() = Some(promise));
}

/// Ends the helpers waiting in the pool (and those being started, once they are): what
/// their jobs left in their wasm memory (which never shrinks) leaves the tab with them.
pub(super) fn end_pooled() {
    ENDED.set(ENDED.get().wrapping_add(1));
    POOL.with(|p| p.borrow_mut().drain(..).for_each(|w| w.terminate()));
}

/// Helpers waiting in the pool (started by an earlier job).
pub(super) fn pooled() -> usize {
    POOL.with(|p| p.borrow().len())
}

/// Puts helpers back in the pool (their job went well), or ends them; the pool keeps at
/// most one per core (helpers started ahead of need while a job had others out would make
/// more), ending the rest.
pub(super) fn release(workers: Vec<Worker>, ok: bool) {
    let room = if ok { cores().saturating_sub(pooled()) } else { 0 };
    let mut workers = workers.into_iter();
    POOL.with(|p| p.borrow_mut().extend(workers.by_ref().take(room)));
    workers.for_each(|w| w.terminate());
}

/// The helper count for this machine: `navigator.hardwareConcurrency`, at most [`MAX_HELPERS`].
pub(super) fn cores() -> usize {
    let scope = js_sys::global().unchecked_into::<DedicatedWorkerGlobalScope>();
    (scope.navigator().hardware_concurrency() as usize).clamp(1, MAX_HELPERS)
}

/// Counts the upload in `k` helpers, or `None` when they could not (the caller counts it).
/// `progress` receives the fraction of parts done.
pub async fn count(
    req: &Request,
    file: &Blob,
    tokenizer: &[u8],
    k: usize,
    progress: &mut dyn FnMut(f64),
) -> Option<Streamed> {
    let workers = helpers(k).await?;
    let parts = run_parts(req, file, tokenizer, &workers, progress).await;
    release(workers, parts.is_some());
    let mut all = CountsTable::empty_text(req.params.max_len);
    let (mut first, keep) = (Vec::new(), super::protocol::kept(req));
    for (table, f) in parts? {
        first.extend(f.into_iter().take(keep.saturating_sub(first.len())));
        all.append(table);
    }
    // Nothing counted (an empty file, only blank lines): one worker gives the message.
    all.text.as_ref().is_some_and(|t| t.sequences > 0).then_some(Streamed { table: all, first })
}

/// Each helper counts its part; their tables and first sequences in file order.
async fn run_parts(
    req: &Request,
    file: &Blob,
    tokenizer: &[u8],
    workers: &[Worker],
    progress: &mut dyn FnMut(f64),
) -> Option<Vec<(CountsTable, Vec<String>)>> {
    let crate::protocol::Source::Bytes { format, lossy, .. } = &req.source else { return None };
    let (k, size) = (workers.len(), file.size() as u64);
    let mut replies = Vec::new();
    for (i, w) in workers.iter().enumerate() {
        let job = SliceJob {
            start: size * i as u64 / k as u64,
            end: size * (i as u64 + 1) / k as u64,
            format: format.clone(),
            lossy: *lossy,
            params: req.params.clone(),
            tokenizer: req.tokenizer.clone(),
            keep: super::protocol::kept(req),
        };
        let msg = js_sys::Object::new();
        let set = |key: &str, v: &JsValue| js_sys::Reflect::set(&msg, &key.into(), v).ok();
        set("slice", &JsValue::from_str(&serde_json::to_string(&job).ok()?));
        set("file", file);
        set("tokenizer_bytes", &js_sys::Uint8Array::from(tokenizer));
        replies.push(next_message(w));
        w.post_message(&msg).ok()?;
    }
    let mut parts = Vec::new();
    for (i, reply) in replies.into_iter().enumerate() {
        let data = reply.await.ok()?;
        let table = js_sys::Reflect::get(&data, &"table".into()).ok()?.dyn_into::<js_sys::Uint8Array>().ok()?;
        let first: Vec<String> =
            serde_json::from_str(&js_sys::Reflect::get(&data, &"first".into()).ok()?.as_string()?).ok()?;
        parts.push((CountsTable::from_bytes(&table.to_vec()).ok()?, first));
        progress((i + 1) as f64 / k as f64);
    }
    Some(parts)
}

/// The helper's side: counts its range and answers `{ table, first }` (or `{ error }`).
/// Returns false when the message is not a helper job.
pub fn serve(scope: &DedicatedWorkerGlobalScope, data: &JsValue) -> bool {
    let Some(spec) = js_sys::Reflect::get(data, &"slice".into()).ok().and_then(|v| v.as_string()) else {
        return false;
    };
    let file = js_sys::Reflect::get(data, &"file".into()).ok().and_then(|v| v.dyn_into::<Blob>().ok());
    let tokenizer = js_sys::Reflect::get(data, &"tokenizer_bytes".into())
        .ok()
        .and_then(|v| v.dyn_into::<js_sys::Uint8Array>().ok())
        .map(|a| a.to_vec())
        .unwrap_or_default();
    let msg = js_sys::Object::new();
    match count_slice(&spec, file, &tokenizer) {
        Ok(s) => {
            let table = js_sys::Uint8Array::from(&s.table.to_bytes()[..]);
            js_sys::Reflect::set(&msg, &"table".into(), &table).ok();
            let first = serde_json::to_string(&s.first).unwrap_or_default();
            js_sys::Reflect::set(&msg, &"first".into(), &JsValue::from_str(&first)).ok();
            scope.post_message_with_transfer(&msg, &js_sys::Array::of1(&table.buffer())).ok();
        }
        Err(e) => {
            js_sys::Reflect::set(&msg, &"error".into(), &JsValue::from_str(&e.to_string())).ok();
            scope.post_message(&msg).ok();
        }
    }
    true
}

fn count_slice(spec: &str, file: Option<Blob>, tokenizer: &[u8]) -> Result<Streamed> {
    let job: SliceJob = serde_json::from_str(spec).map_err(|e| PosgeoError::option("slice", e.to_string()))?;
    let file = file.ok_or_else(|| PosgeoError::option("slice", "no file"))?;
    let mut params = job.params;
    if let Some(name) =
        job.tokenizer.as_ref().filter(|_| params.tokenizer == posgeo::corpus::tokenize::TokenizerKind::Model)
    {
        params.model = Some(posgeo::corpus::hf_tokenizer::ModelTokenizer::from_bytes(name, tokenizer)?);
    }
    let from = LineRange::<&[u8]>::read_from(job.start) as f64;
    let blob = file.slice_with_f64_and_f64(from, file.size()).map_err(|_| PosgeoError::option("slice", "slice"))?;
    let reader = BlobReader::new(blob).ok_or_else(|| PosgeoError::option("slice", "no FileReaderSync"))?;
    let mut stream = SequenceStream::new(LineRange::new(reader, job.start, job.end), &job.format, job.lossy)?;
    match count_stream(&mut stream, &params.tokenizer(), params.max_len, job.keep, &mut || true) {
        // A part without sequences (blank lines only) counts nothing.
        Err(PosgeoError::EmptyInput) => {
            Ok(Streamed { table: CountsTable::empty_text(params.max_len), first: Vec::new() })
        }
        Err(PosgeoError::NoSequences(m)) if stream.sequences == 0 && !m.contains("could not be read") => {
            Ok(Streamed { table: CountsTable::empty_text(params.max_len), first: Vec::new() })
        }
        other => other,
    }
}
