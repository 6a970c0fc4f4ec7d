//! **The pool of helper workers** (wasm32 only): who the helpers are — started side by side
//! (or ahead of need, [`warm`]), kept between jobs, ended on failure — and the first job they
//! do, counting one file. For a large uncompressed text or
//! JSON Lines upload, the worker that runs the job (the *coordinator*) starts helper workers
//! (the same script; `navigator.hardwareConcurrency` of them, at most [`MAX_HELPERS`]), gives
//! each a byte range of the `File` cut at line boundaries ([`posgeo::corpus::LineRange`]), and
//! appends their counts tables in file order — the table one worker would count, byte for
//! byte (each part's first-occurrence keys are shifted by the sequences before it). No
//! SharedArrayBuffer: the `File` is structured-cloned (no data copied) and each helper reads its
//! range in slices, saying it is alive as it goes. Any helper failure — an error, a trap, or
//! silence past its limit ([`super::courier::expect`], which ends the helper) — falls back to
//! one worker, which counts the file again (the run's estimate names what failed); the failed
//! helpers are ended, and the next job starts new ones.

use super::courier::post_job;
use super::protocol::jobs::{Answer, CountPart, Job, JobError};
use super::protocol::Request;
use super::worker::BlobReader;
use posgeo::corpus::{is_gzip, InputFormat};
use posgeo::counts::{looks_like_table, CountsTable, Streamed};
use std::cell::RefCell;
use std::io::Read;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Blob, DedicatedWorkerGlobalScope, MessageEvent, Worker, WorkerOptions, WorkerType};

use super::protocol::PARALLEL_FROM;
/// At most this many helpers.
pub const MAX_HELPERS: usize = 4;

thread_local! {
    /// Helpers kept between jobs (started once: each loads the wasm module).
    static POOL: RefCell<Vec<Worker>> = const { RefCell::new(Vec::new()) };
    /// The helpers being started ahead of need ([`warm`]), while they are.
    static WARMING: RefCell<Option<js_sys::Promise>> = const { RefCell::new(None) };
    /// How many times the pool was ended ([`end_pooled`]): helpers whose start began before
    /// the last time are ended too when they are ready, not pooled.
    static ENDED: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    /// What went wrong in helpers during the current run (the worker did their jobs itself);
    /// the page is told in the run's estimate ([`take_failures`]).
    static FAILURES: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// Notes a helper's failure for the page (the worker then does the job itself).
pub(super) fn failed(message: impl Into<String>) {
    let message = message.into();
    FAILURES.with(|f| {
        let mut f = f.borrow_mut();
        if !f.contains(&message) {
            f.push(message);
        }
    });
}

/// The helper failures noted since the last call.
pub(super) fn take_failures() -> Vec<String> {
    FAILURES.with(|f| std::mem::take(&mut *f.borrow_mut()))
}

/// The helper failures noted so far in this run.
pub(super) fn failures() -> Vec<String> {
    FAILURES.with(|f| f.borrow().clone())
}

/// How many helpers a request's upload gets (0: one worker counts it).
pub fn helpers_for(req: &Request, file: &Blob) -> usize {
    let crate::protocol::Source::Bytes { format, .. } = &req.source else { return 0 };
    if matches!(format, InputFormat::Csv { .. } | InputFormat::Fasta)
        || file.size() < PARALLEL_FROM
        || req.reuse_geometry
    {
        return 0; // CSV fields and FASTA records span lines; small files are not worth it
    }
    // A file whose head cannot be read is left to one worker, whose read gives the message.
    let head = BlobReader::new(file.clone()).and_then(|mut r| {
        let mut h = Vec::new();
        (&mut r).take(1 << 16).read_to_end(&mut h).ok().map(|_| h)
    });
    if head.as_ref().is_none_or(|h| is_gzip(h) || looks_like_table(h) || posgeo::corpus::fasta::looks_like_fasta(h)) {
        return 0;
    }
    cores()
}

/// The next message (or error) of a starting helper `w` (its `Ready`), as a future of its
/// data (`null` for an error). A job's answer is watched by [`super::courier::expect`].
pub(super) fn next_message(w: &Worker) -> wasm_bindgen_futures::JsFuture {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        let ok = resolve.clone();
        // Calling a promise's own resolve function does not throw: its result is ignored.
        let on_msg = Closure::once_into_js(move |e: MessageEvent| {
            let _ = ok.call1(&JsValue::NULL, &e.data());
        });
        let on_err = Closure::once_into_js(move |e: web_sys::ErrorEvent| {
            e.prevent_default();
            let _ = resolve.call1(&JsValue::NULL, &JsValue::NULL);
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
        // Only awaited for its end: it resolves (never rejects) once the helpers are pooled.
        let _ = wasm_bindgen_futures::JsFuture::from(warming).await;
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
    let Some(href) = crate::js::location_href() else {
        failed("this worker has no address to start helper workers from");
        return None;
    };
    let mut new = Vec::with_capacity(k);
    for _ in 0..k {
        let opts = WorkerOptions::new();
        opts.set_type(WorkerType::Module);
        match Worker::new_with_options(&href, &opts) {
            Ok(w) => {
                let hello = next_message(&w);
                new.push((w, hello));
            }
            Err(e) => {
                failed(format!("a helper worker could not start: {e:?}"));
                break;
            }
        }
    }
    let mut ready = Vec::with_capacity(k);
    for (w, hello) in new {
        match hello.await {
            Ok(v) if !v.is_null() => ready.push(w),
            _ => {
                failed("a helper worker stopped while starting");
                w.terminate();
            }
        }
    }
    if ready.len() < k {
        ready.iter().for_each(Worker::terminate);
        return None;
    }
    Some(ready)
}

/// Starts a helper per core into the pool, in the background, unless the pool holds some
/// or they are being started: the page asks for it when a file the helpers will count is
/// chosen, so that its run finds them loaded instead of waiting for the module to load in
/// each (about 0.2 s of a first IMDB-sized upload here).
pub fn warm() {
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
/// `progress` receives the fraction of parts done; `faults`: the end-to-end tests' (a helper
/// that hangs or traps, [`CountPart::faults`], and a short silence limit).
pub async fn count(
    req: &Request,
    file: &Blob,
    tokenizer: &[u8],
    k: usize,
    faults: bool,
    progress: &mut dyn FnMut(f64),
) -> Option<Streamed> {
    let workers = helpers(k).await?;
    let parts = run_parts(req, file, (tokenizer, faults), &workers, progress).await;
    release(workers, parts.is_ok());
    let parts = parts.map_err(|e| failed(format!("counting in helpers: {e}"))).ok()?;
    let mut all = CountsTable::empty_text(req.params.max_len);
    let (mut first, keep) = (Vec::new(), super::protocol::kept(req));
    for (table, f) in parts {
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
    (tokenizer, faults): (&[u8], bool),
    workers: &[Worker],
    progress: &mut dyn FnMut(f64),
) -> Result<Vec<(CountsTable, Vec<String>)>, JobError> {
    let silence = if faults { super::courier::FAULT_SILENCE_MS } else { super::courier::SILENCE_MS };
    let crate::protocol::Source::Bytes { format, lossy, .. } = &req.source else {
        return Err(JobError::mismatch("only a file is counted by helpers"));
    };
    let (k, size) = (workers.len(), file.size() as u64);
    let mut replies = Vec::new();
    for (i, w) in workers.iter().enumerate() {
        let part = CountPart {
            start: size * i as u64 / k as u64,
            end: size * (i as u64 + 1) / k as u64,
            format: format.clone(),
            lossy: *lossy,
            params: req.params.clone(),
            tokenizer: req.tokenizer.clone(),
            keep: super::protocol::kept(req),
            faults,
        };
        replies.push(super::courier::expect(w, silence, None));
        post_job(w, &Job::Count { part, tokenizer: tokenizer.to_vec() }, &[file.into()], &[])?;
    }
    let mut parts = Vec::new();
    for (i, reply) in replies.into_iter().enumerate() {
        match super::courier::reply(reply).await {
            Answer::Counted { table, first } => {
                parts.push((CountsTable::from_bytes(&table)?, first));
            }
            Answer::Failed { message } => return Err(JobError::Helper(message)),
            _ => return Err(JobError::mismatch("a counting helper gave another answer")),
        }
        progress((i + 1) as f64 / k as f64);
    }
    Ok(parts)
}
