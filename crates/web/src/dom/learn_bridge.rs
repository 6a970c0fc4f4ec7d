//! The training worker (docs/MATH.md §16): a Web Worker of its own (the same script as the
//! analysis worker), started fresh for each training and terminated when it ends or is
//! cancelled, so that the analysis worker and its kept geometry are never touched. Its
//! messages become [`LearnMsg`]s; those of a worker already ended are dropped.

use super::{now, runtime};
use crate::app::learn::{LearnJob, LearnMsg};
use crate::app::{CorpusData, Msg};
use crate::protocol::learn::LearnResponse;
use crate::protocol::Response;
use std::cell::Cell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{MessageEvent, Worker, WorkerOptions, WorkerType};

thread_local! {
    /// The current training worker's number: messages of an older one are ignored.
    static GENERATION: Cell<u32> = const { Cell::new(0) };
}

fn dispatch(msg: LearnMsg) {
    runtime::dispatch(Msg::Learn(msg));
}

/// Terminates the training worker, if any.
pub fn stop() {
    GENERATION.with(|g| g.set(g.get().wrapping_add(1)));
    if let Some(Some(w)) = runtime::with(|rt| rt.learn_worker.take()) {
        w.terminate();
    }
}

/// Terminates the training worker (if any) and starts a fresh one; it says `Ready` when up.
pub fn start() {
    stop();
    let generation = GENERATION.with(Cell::get);
    let current = move || GENERATION.with(Cell::get) == generation;
    let opts = WorkerOptions::new();
    opts.set_type(WorkerType::Module);
    let worker = match Worker::new_with_options("./worker_loader.js", &opts) {
        Ok(w) => w,
        Err(e) => return dispatch(LearnMsg::WorkerDied(format!("cannot start the training worker: {e:?}"))),
    };
    let onmessage = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
        if current() {
            received(&e.data());
        }
    });
    worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    onmessage.forget();
    let onerror = Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |e: web_sys::ErrorEvent| {
        e.prevent_default();
        if current() {
            dispatch(LearnMsg::WorkerDied(e.message()));
        }
    });
    worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
    onerror.forget();
    runtime::with(|rt| rt.learn_worker = Some(worker));
}

/// A message of the training worker: `Ready` (a JSON string, as every worker says it) or an
/// answer (`{ learn: Uint8Array }`).
fn received(data: &JsValue) {
    if let Some(json) = data.as_string() {
        match serde_json::from_str::<Response>(&json) {
            Ok(Response::Ready) => dispatch(LearnMsg::WorkerReady),
            Ok(Response::Error { message, .. }) => {
                let response = LearnResponse::Error { id: 0, message };
                dispatch(LearnMsg::Worker { response, at: now() });
            }
            _ => {}
        }
        return;
    }
    let Some(bytes) =
        js_sys::Reflect::get(data, &"learn".into()).ok().and_then(|v| v.dyn_into::<js_sys::Uint8Array>().ok())
    else {
        return;
    };
    // An answer that cannot be read ends the training with a message (id 0: the current one).
    let response = LearnResponse::from_bytes(&bytes.to_vec())
        .unwrap_or_else(|e| LearnResponse::Error { id: 0, message: e.message_for(posgeo::error::Frontend::Page) });
    dispatch(LearnMsg::Worker { response, at: now() });
}

/// Posts a training: `{ learn_request, bytes | file, tokenizer_bytes, model_bytes }`.
pub fn post(job: &LearnJob) {
    let Some((worker, file, tokenizer, model)) = runtime::with(|rt| {
        (rt.learn_worker.clone(), rt.corpus.file.clone(), rt.tokenizer.bytes.clone(), rt.model_files.bytes.clone())
    }) else {
        return;
    };
    let Some(worker) = worker else { return };
    let msg = js_sys::Object::new();
    let set = |key: &str, value: &JsValue| js_sys::Reflect::set(&msg, &key.into(), value).ok();
    let json = serde_json::to_string(&job.request).unwrap_or_default();
    set("learn_request", &JsValue::from_str(&json));
    match (&job.corpus, file) {
        (CorpusData::Text(t), _) => {
            set("bytes", &js_sys::Uint8Array::from(t.as_bytes()).into());
        }
        // The file itself: the worker reads it in slices.
        (CorpusData::File, Some(file)) => {
            set("file", &file.into());
        }
        _ => {}
    }
    if let (true, Some(b)) = (job.tokenizer, tokenizer) {
        set("tokenizer_bytes", &b.into());
    }
    if let (true, Some(b)) = (job.model, model) {
        set("model_bytes", &b.into());
    }
    if super::bridge::faults_asked() {
        set("trap", &JsValue::TRUE);
    }
    worker.post_message(&msg).ok();
}
