//! The training workers (docs/MATH.md §16): Web Workers of their own (the same script as the
//! analysis worker), started fresh for each training and terminated when it ends or is
//! cancelled, so that the analysis worker and its kept geometry are never touched. Worker
//! k's messages become [`LearnMsg`]s naming k; those of workers already ended are dropped.

use super::{now, runtime};
use crate::app::learn::{LearnJob, LearnMsg};
use crate::app::Msg;
use crate::js::{self, Key};
use crate::protocol::learn::{LearnRequest, LearnResponse, Summarise};
use crate::protocol::{Response, Task, WorkerError};
use posgeo_learn::Signal;
use std::cell::Cell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{MessageEvent, Worker, WorkerOptions, WorkerType};

thread_local! {
    /// The current training workers' number: messages of older ones are ignored.
    static GENERATION: Cell<u32> = const { Cell::new(0) };
}

fn dispatch(msg: LearnMsg) {
    runtime::dispatch(Msg::Learn(msg));
}

/// Terminates the training workers, if any.
pub fn stop() {
    GENERATION.with(|g| g.set(g.get().wrapping_add(1)));
    for w in runtime::with(|rt| std::mem::take(&mut rt.learn_workers)).unwrap_or_default() {
        w.terminate();
    }
}

/// The number of cores the browser reports (at least 1).
pub fn cores() -> usize {
    web_sys::window().map_or(1.0, |w| w.navigator().hardware_concurrency()).max(1.0) as usize
}

/// Terminates the training workers (if any) and starts `count` fresh ones; each says
/// `Ready` when up.
pub fn start(count: usize) {
    stop();
    let generation = GENERATION.with(Cell::get);
    for k in 0..count {
        let Some(worker) = spawn(k, generation) else { return stop() };
        runtime::with(|rt| rt.learn_workers.push(worker));
    }
}

/// Starts training worker k of the current generation.
fn spawn(k: usize, generation: u32) -> Option<Worker> {
    let current = move || GENERATION.with(Cell::get) == generation;
    let opts = WorkerOptions::new();
    opts.set_type(WorkerType::Module);
    let worker = match Worker::new_with_options("./worker_loader.js", &opts) {
        Ok(w) => w,
        Err(e) => {
            dispatch(LearnMsg::WorkerDied(format!("cannot start a training worker: {e:?}")));
            return None;
        }
    };
    let onmessage = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
        if current() {
            received(k, &e.data());
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
    Some(worker)
}

/// A message of training worker k: `Ready` (a JSON string, as every worker says it) or an
/// answer (`{ learn: Uint8Array }`).
fn received(worker: usize, data: &JsValue) {
    if let Some(json) = data.as_string() {
        match serde_json::from_str::<Response>(&json) {
            Ok(Response::Ready) => dispatch(LearnMsg::WorkerReady(worker)),
            Ok(Response::Error { message, .. }) => {
                let response = LearnResponse::Error { id: 0, message };
                dispatch(LearnMsg::Worker { worker, response, at: now() });
            }
            _ => {}
        }
        return;
    }
    let Some(bytes) = js::typed::<js_sys::Uint8Array>(data, Key::Learn) else {
        return;
    };
    // An answer that cannot be read ends the training with a message (id 0: the current one).
    let response = LearnResponse::from_bytes(&bytes.to_vec())
        .unwrap_or_else(|e| WorkerError::Unread { task: Task::Training, why: e.to_string() }.learn_response(0));
    dispatch(LearnMsg::Worker { worker, response, at: now() });
}

/// Training worker k, if it runs.
fn worker(k: usize) -> Option<Worker> {
    runtime::with(|rt| rt.learn_workers.get(k).cloned()).flatten()
}

/// Sends every worker's runs to worker k to summarise: `{ learn_summarise: Uint8Array }`.
pub fn summarise(k: usize, s: &Summarise) {
    let Some(worker) = worker(k) else { return };
    let bytes = match s.to_bytes() {
        Ok(b) => b,
        Err(e) => {
            let response = WorkerError::from(e).learn_response(s.id);
            return dispatch(LearnMsg::Worker { worker: k, response, at: now() });
        }
    };
    let arr = js_sys::Uint8Array::from(&bytes[..]);
    let msg = js::message(&[(Key::LearnSummarise, arr.clone().into())]);
    if let Err(e) = worker.post_message_with_transfer(&msg, &js_sys::Array::of1(&arr.buffer())) {
        post_failed(k, s.id, &e);
    }
}

/// A post to training worker k that threw: the training `id` ends with a message naming it.
fn post_failed(k: usize, id: u32, e: &JsValue) {
    let failure = WorkerError::Unsent { task: Task::Training, worker: Some(k), why: crate::js::describe(e) };
    dispatch(LearnMsg::Worker { worker: k, response: failure.learn_response(id), at: now() });
}

/// Posts a training (or worker k's part of one): `{ learn_request, bytes | file,
/// tokenizer_bytes, model_bytes }`.
pub fn post(k: usize, job: &LearnJob) {
    let Some((file, tokenizer, model)) =
        runtime::with(|rt| (rt.corpus.file.clone(), rt.tokenizer.bytes.clone(), rt.model_files.bytes.clone()))
    else {
        return;
    };
    let Some(worker) = worker(k) else { return };
    let request = if super::bridge::fault(&job.corpus, "#posgeo:diverge") {
        // Fault injection: the learned table's runs diverge after `DIVERGE_AT` steps.
        crate::protocol::encode_request(&LearnRequest { diverge: Some(Signal::Learned), ..job.request.clone() })
    } else {
        crate::protocol::encode_request(&job.request)
    };
    let request = js_sys::Uint8Array::from(&request[..]).into();
    let files = [(job.tokenizer, Key::TokenizerBytes, tokenizer), (job.model, Key::ModelBytes, model)];
    let msg = super::bridge::inputs((Key::LearnRequest, request), &job.corpus, file, files);
    if let Err(e) = worker.post_message(&msg) {
        post_failed(k, job.request.id, &e);
    }
}
