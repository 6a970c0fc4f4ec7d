//! The Web Worker bridge: starts the worker, posts jobs with their bytes, and turns what the
//! worker says (or its death) into messages. The wire format is `web::protocol`'s.

use super::{now, runtime};
use crate::app::{CorpusData, Job, Msg};
use crate::protocol::{Bulk, Response};
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
            let msg = Msg::Worker {
                response: Response::Error { id: 0, message: format!("cannot start the worker: {e:?}") },
                at: now(),
            };
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
    let msg = js_sys::Object::new();
    if js_sys::Reflect::set(&msg, &"warm".into(), &JsValue::TRUE).is_ok() {
        w.post_message(&msg).ok();
    }
}

/// A worker message: a JSON string, or a `Done` with its bulky numbers beside it.
fn received(data: &JsValue) {
    let (json, bulk) = match data.as_string() {
        Some(s) => (s, None),
        None => match js_sys::Reflect::get(data, &"json".into()).ok().and_then(|v| v.as_string()) {
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
            Response::Error {
                id: u32::try_from(id).unwrap_or(0),
                message: format!("the worker's answer could not be read ({e}); the results shown are the last run's"),
            }
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
    let get = |key: &str| js_sys::Reflect::get(data, &key.into()).ok();
    let f64s = |key: &str| get(key).and_then(|v| v.dyn_into::<js_sys::Float64Array>().ok()).map(|a| a.to_vec());
    let header = get("header").and_then(|v| v.as_string()).and_then(|h| serde_json::from_str(&h).ok());
    Bulk {
        header: header.unwrap_or_default(),
        matrix: Vec::new(), // see restore_matrix
        coords: f64s("coords").unwrap_or_default(),
        shepard: get("shepard")
            .and_then(|v| v.dyn_into::<js_sys::Float32Array>().ok())
            .map(|a| a.to_vec())
            .unwrap_or_default(),
    }
}

/// Puts the transferred distance matrix into the report row by row, straight from the typed
/// array: a flat copy beside the rows would double the tab's largest array (134 MB at n = 4096).
fn restore_matrix(data: &JsValue, payload: &mut crate::protocol::Payload) {
    let Some(arr) =
        js_sys::Reflect::get(data, &"matrix".into()).ok().and_then(|v| v.dyn_into::<js_sys::Float64Array>().ok())
    else {
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
/// it; the worker then traps on a corpus starting with `#posgeo:trap`).
pub(super) fn faults_asked() -> bool {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
        .and_then(|e| e.get_attribute("data-faults"))
        .is_some_and(|v| v == "1")
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
    let msg = js_sys::Object::new();
    let json = serde_json::to_string(&job.request).unwrap_or_default();
    js_sys::Reflect::set(&msg, &"request".into(), &JsValue::from_str(&json)).ok();
    match (&job.corpus, corpus) {
        (CorpusData::Text(t), _) => {
            js_sys::Reflect::set(&msg, &"bytes".into(), &js_sys::Uint8Array::from(t.as_bytes())).ok();
        }
        // The file itself: the worker reads it in slices (structured clone copies no data).
        (CorpusData::File, Some(file)) => {
            js_sys::Reflect::set(&msg, &"file".into(), &file).ok();
        }
        _ => {}
    }
    if let (true, Some(b)) = (job.learned, learned) {
        js_sys::Reflect::set(&msg, &"learned_bytes".into(), &b).ok();
    }
    if let (true, Some(b)) = (job.tokenizer, tokenizer) {
        js_sys::Reflect::set(&msg, &"tokenizer_bytes".into(), &b).ok();
    }
    if let (true, Some(b)) = (job.model, model) {
        js_sys::Reflect::set(&msg, &"model_bytes".into(), &b).ok();
    }
    if faults_asked() {
        js_sys::Reflect::set(&msg, &"trap".into(), &JsValue::TRUE).ok();
    }
    worker.post_message(&msg).ok();
}
