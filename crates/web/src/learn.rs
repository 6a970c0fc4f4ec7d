//! The training worker's side (wasm32 only; docs/MATH.md §16): a worker of its own that the
//! page starts for each training (`web::dom::learn_bridge`) receives
//! `{ learn_request, bytes | file, tokenizer_bytes, model_bytes }`, runs
//! [`crate::protocol::learn::run`] and posts each [`LearnResponse`] as `{ learn: Uint8Array }`
//! (postcard, transferred). The training holds this worker until it ends; the page cancels
//! it by terminating the worker.
//!
//! A training spread over several workers names each one's runs ([`LearnRequest::jobs`]):
//! the worker answers `Trained` with them and keeps its context; the page then sends the
//! first worker every worker's runs, `{ learn_summarise: Uint8Array }` (postcard of
//! [`Summarise`]), and it answers `Done` with the experiment.

use super::js::{self, Key};
use super::protocol::learn::{self as job, LearnRequest, LearnResponse, Summarise};
use super::protocol::{Files, Task, WorkerError};
use super::worker::BlobReader;
use posgeo_learn::Context;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use web_sys::DedicatedWorkerGlobalScope;

/// Posts one answer as postcard bytes in a transferred array. An answer that cannot be posted
/// is replaced by an error naming its training; if even that cannot be posted, the worker
/// throws, and the page's `onerror` ends the training with the message.
fn post(scope: &DedicatedWorkerGlobalScope, r: &LearnResponse) {
    let bytes = match r.to_bytes() {
        Ok(b) => b,
        Err(e) => return post(scope, &WorkerError::from(e).learn_response(r.id())),
    };
    let arr = js_sys::Uint8Array::from(&bytes[..]);
    let msg = js::message(&[(Key::Learn, arr.clone().into())]);
    if let Err(e) = scope.post_message_with_transfer(&msg, &js_sys::Array::of1(&arr.buffer())) {
        let failure = WorkerError::Unposted { task: Task::Training, why: js::describe(&e) };
        if matches!(r, LearnResponse::Error { .. }) {
            wasm_bindgen::throw_str(&failure.message(r.id()));
        }
        post(scope, &failure.learn_response(r.id()));
    }
}

thread_local! {
    /// The context of this worker's part of a training, kept for the summary.
    static KEPT: RefCell<Option<(u32, Context)>> = const { RefCell::new(None) };
}

/// Every worker's runs merged into the experiment, with the context this worker kept; false
/// when the message is not a summary's.
fn summarise(scope: &DedicatedWorkerGlobalScope, data: &JsValue) -> bool {
    let Some(bytes) = js::typed::<js_sys::Uint8Array>(data, Key::LearnSummarise) else {
        return false;
    };
    let answer = match Summarise::from_bytes(&bytes.to_vec()) {
        Err(e) => WorkerError::from(e).learn_response(0),
        Ok(Summarise { id, runs }) => KEPT.with(|k| match k.borrow_mut().take() {
            Some((kept, ctx)) if kept == id => match job::summarise(&ctx, runs) {
                Ok(e) => LearnResponse::Done { id, experiment: Box::new(e) },
                Err(e) => WorkerError::from(e).learn_response(id),
            },
            _ => WorkerError::NothingToSummarise.learn_response(id),
        }),
    };
    post(scope, &answer);
    true
}

/// Runs a training request or summarises a training's runs ([`js::Inbound::Training`],
/// [`js::Inbound::Summarise`]).
pub fn serve(scope: &DedicatedWorkerGlobalScope, data: &JsValue) {
    if summarise(scope, data) {
        return;
    }
    let req: LearnRequest = match crate::protocol::decode_request(&js::bytes(data, Key::LearnRequest)) {
        Ok(r) => r,
        Err(crate::protocol::Unreadable { id, why }) => {
            return post(scope, &WorkerError::Unreadable { task: Task::Training, why }.learn_response(id));
        }
    };
    let (bytes, tokenizer, model) =
        (js::bytes(data, Key::Bytes), js::bytes(data, Key::TokenizerBytes), js::bytes(data, Key::ModelBytes));
    // Fault injection for the end-to-end tests, as the analysis worker's (`web::worker`).
    if js::flag(data, Key::Trap) && bytes.starts_with(b"#posgeo:trap") {
        core::arch::wasm32::unreachable();
    }
    let file = js::typed::<web_sys::Blob>(data, Key::File);
    let corpus_size = file.as_ref().map_or(0.0, web_sys::Blob::size) as u64;
    let corpus_stream = file.and_then(BlobReader::new).map(|r| Box::new(r) as Box<dyn std::io::Read>);
    let files = Files {
        corpus: &bytes,
        corpus_stream,
        corpus_size,
        precounted: None,
        learned: &[],
        tokenizer: &tokenizer,
        model: &model,
    };
    let id = req.id;
    if !req.jobs.is_empty() {
        match job::run_part(&req, files, &mut |r| post(scope, &r)) {
            Ok(ctx) => KEPT.with(|k| *k.borrow_mut() = Some((id, ctx))),
            Err(e) => post(scope, &WorkerError::from(e).learn_response(id)),
        }
        return;
    }
    let answer = match job::run(&req, files, &mut |r| post(scope, &r)) {
        Ok(e) => LearnResponse::Done { id, experiment: Box::new(e) },
        Err(e) => WorkerError::from(e).learn_response(id),
    };
    post(scope, &answer);
}
