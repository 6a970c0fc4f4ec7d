//! The Web Worker bridge: starts the worker, posts jobs with their bytes, and turns what the
//! worker says (or its death) into messages. The wire format is `web::protocol`'s.

use super::{now, runtime};
use crate::app::{CorpusData, Job, Msg};
use crate::js::{self, Key};
use crate::protocol::{Bulk, Response, Task, WorkerError};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{MessageEvent, Worker, WorkerOptions, WorkerType};

/// Terminates the worker (if any) and starts a fresh one; it says `Ready` when it is up.
pub fn restart() {
    if let Some(Some(w)) = runtime::with(|rt| rt.worker.take()) {
        w.terminate();
    }
    let opts = WorkerOptions::new();
    opts.set_type(WorkerType::Module);
    let worker = match Worker::new_with_options("./worker_loader.js", &opts) {
        Ok(w) => w,
        Err(e) => {
            let msg = Msg::Worker { response: WorkerError::Unstarted { why: js::describe(&e) }.response(0), at: now() };
            return runtime::dispatch(msg);
        }
    };
    let onmessage = Closure::<dyn FnMut(MessageEvent)>::new(|e: MessageEvent| received(&e.data()));
    worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    onmessage.forget();
    let onerror = Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(|e: web_sys::ErrorEvent| {
        e.prevent_default();
        runtime::dispatch(Msg::WorkerDied(e.message()));
    });
    worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
    onerror.forget();
    runtime::with(|rt| rt.worker = Some(worker));
}

/// Asks the worker, if it is up, to start its helper workers now (`{ warm: true }`).
pub fn warm() {
    let Some(Some(w)) = runtime::with(|rt| rt.worker.clone()) else { return };
    if let Err(e) = w.post_message(&js::message(&[(Key::Warm, JsValue::TRUE)])) {
        runtime::dispatch(Msg::WorkerDied(format!("the page could not reach its worker: {}", js::describe(&e))));
    }
}

/// A worker message: a JSON string, or a `Done` with its bulky numbers beside it.
fn received(data: &JsValue) {
    let (json, bulk) = match data.as_string() {
        Some(s) => (s, None),
        None => match js::text(data, Key::Json) {
            Some(s) => (s, Some(bulk_of(data))),
            None => return,
        },
    };
    let mut response = match serde_json::from_str::<Response>(&json) {
        Ok(r) => r,
        Err(e) => {
            // A run's answer that cannot be read ends the run with a message, rather than
            // leaving the page waiting for it; other unreadable messages are dropped.
            let value = serde_json::from_str::<serde_json::Value>(&json).ok();
            let Some(id) = value.filter(|v| v["type"] == "done").and_then(|v| v["id"].as_u64()) else { return };
            WorkerError::Unread { task: Task::Run, why: e.to_string() }.response(u32::try_from(id).unwrap_or(0))
        }
    };
    if let (Response::Done { payload, .. }, Some(bulk)) = (&mut response, bulk) {
        payload.restore_bulk(bulk);
        restore_matrix(data, payload);
    }
    runtime::dispatch(Msg::Worker { response, at: now() });
}

/// The typed arrays transferred beside a `Done` (missing ones are left empty).
fn bulk_of(data: &JsValue) -> Bulk {
    let header = js::text(data, Key::Header).and_then(|h| serde_json::from_str(&h).ok());
    Bulk {
        header: header.unwrap_or_default(),
        matrix: Vec::new(), // see restore_matrix
        coords: js::typed::<js_sys::Float64Array>(data, Key::Coords).map(|a| a.to_vec()).unwrap_or_default(),
        shepard: js::typed::<js_sys::Float32Array>(data, Key::Shepard).map(|a| a.to_vec()).unwrap_or_default(),
    }
}

/// Puts the transferred distance matrix into the report row by row, straight from the typed
/// array: a flat copy beside the rows would double the tab's largest array (134 MB at n = 4096).
fn restore_matrix(data: &JsValue, payload: &mut crate::protocol::Payload) {
    let Some(arr) = js::typed::<js_sys::Float64Array>(data, Key::Matrix) else {
        return;
    };
    let n = payload.report.n;
    if n == 0 || arr.length() as usize != n * n {
        return;
    }
    let row = |i: usize| arr.subarray((i * n) as u32, ((i + 1) * n) as u32).to_vec();
    payload.report.matrix.insert(payload.report.metric.clone(), (0..n).map(row).collect());
}

/// Whether an end-to-end test asked for fault injection: `<html data-faults="1">` (a test sets
/// it; the worker then traps on a corpus starting with `#posgeo:trap`, and the page sends a
/// request cut short for one starting with `#posgeo:malformed`).
pub(super) fn faults_asked() -> bool {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
        .and_then(|e| e.get_attribute("data-faults"))
        .is_some_and(|v| v == "1")
}

/// Whether an end-to-end test asked for the fault `hook` ([`faults_asked`], and a pasted
/// corpus that starts with it).
pub(super) fn fault(corpus: &CorpusData, hook: &str) -> bool {
    matches!(corpus, CorpusData::Text(t) if t.starts_with(hook)) && faults_asked()
}

/// Posts a job: `{ request, bytes | file, learned_bytes, tokenizer_bytes }` (see `web::protocol`).
pub fn post(job: &Job) {
    let Some((worker, corpus, learned, tokenizer, model)) = runtime::with(|rt| {
        let model = rt.model_files.bytes.clone();
        (rt.worker.clone(), rt.corpus.file.clone(), rt.learned.bytes.clone(), rt.tokenizer.bytes.clone(), model)
    }) else {
        return;
    };
    let Some(worker) = worker else { return };
    let mut request = crate::protocol::encode_request(&job.request);
    if fault(&job.corpus, "#posgeo:malformed") {
        // Fault injection: a request cut short (its last bytes gone), which no worker reads.
        request.truncate(request.len().saturating_sub(8));
    }
    let request = js_sys::Uint8Array::from(&request[..]).into();
    let files = [
        (job.learned, Key::LearnedBytes, learned),
        (job.tokenizer, Key::TokenizerBytes, tokenizer),
        (job.model, Key::ModelBytes, model),
    ];
    let msg = inputs((Key::Request, request), &job.corpus, corpus, files);
    if fault(&job.corpus, "#posgeo:unpostable") {
        // Fault injection: a value no worker can receive (a function), so the post throws.
        js::insert(&msg, Key::Unpostable, &js_sys::Function::new_no_args(""));
    }
    if let Err(e) = worker.post_message(&msg) {
        let failure = WorkerError::Unsent { task: Task::Run, worker: None, why: js::describe(&e) };
        runtime::dispatch(Msg::Worker { response: failure.response(job.request.id), at: now() });
    }
}

/// A job's message: `first` (the request), the corpus (`bytes`, or the `file` itself: the
/// worker reads it in slices, and a structured clone copies no data), each input file asked
/// for, and `trap` when the end-to-end tests asked for faults.
pub(super) fn inputs<const K: usize>(
    first: (Key, JsValue),
    corpus: &CorpusData,
    file: Option<web_sys::File>,
    files: [(bool, Key, Option<js_sys::Uint8Array>); K],
) -> js_sys::Object {
    let mut entries: Vec<(Key, JsValue)> = vec![first];
    match (corpus, file) {
        (CorpusData::Text(t), _) => entries.push((Key::Bytes, js_sys::Uint8Array::from(t.as_bytes()).into())),
        (CorpusData::File, Some(file)) => entries.push((Key::File, file.into())),
        _ => {}
    }
    for (asked, key, bytes) in files {
        if let (true, Some(b)) = (asked, bytes) {
            entries.push((key, b.into()));
        }
    }
    if faults_asked() {
        entries.push((Key::Trap, JsValue::TRUE));
    }
    js::message(&entries)
}
