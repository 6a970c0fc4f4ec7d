//! The Web Worker's side (wasm32 only): receives a [`Request`] with its bytes, runs
//! [`protocol::run`] and posts [`Response`]s back as JSON strings — except `Done`, posted as
//! `{ json, header, matrix, coords, shepard }` with its bulky numbers in transferred typed
//! arrays ([`protocol::Bulk`]). An uploaded corpus arrives as its `File` and is read here in
//! slices ([`BlobReader`], `FileReaderSync`), so the text never has to fit in memory.

use super::js::{self, Key};
use super::protocol::{self, Request, Response, Task, WorkerError};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

/// A `Blob` read as a stream: 4 MB slices through `FileReaderSync` (workers only).
pub struct BlobReader {
    blob: web_sys::Blob,
    reader: web_sys::FileReaderSync,
    pos: f64,
    chunk: Vec<u8>,
    at: usize,
}

impl BlobReader {
    /// A reader over `blob` from its start.
    pub fn new(blob: web_sys::Blob) -> Option<Self> {
        let reader = web_sys::FileReaderSync::new().ok()?;
        Some(BlobReader { blob, reader, pos: 0.0, chunk: Vec::new(), at: 0 })
    }
}

impl std::io::Read for BlobReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        const SLICE: f64 = 4.0 * 1024.0 * 1024.0;
        if self.at == self.chunk.len() {
            let size = self.blob.size();
            if self.pos >= size {
                return Ok(0);
            }
            let end = (self.pos + SLICE).min(size);
            let other = |what: &str| std::io::Error::other(format!("the browser could not read the file ({what})"));
            let slice = self.blob.slice_with_f64_and_f64(self.pos, end).map_err(|_| other("slice"))?;
            let buffer = self.reader.read_as_array_buffer(&slice).map_err(|_| other("read"))?;
            // Into the same buffer each time (no new 4 MB allocation per slice).
            let bytes = js_sys::Uint8Array::new(&buffer);
            self.chunk.resize(bytes.length() as usize, 0);
            bytes.copy_to(&mut self.chunk);
            self.at = 0;
            self.pos = end;
        }
        let k = buf.len().min(self.chunk.len() - self.at);
        buf[..k].copy_from_slice(&self.chunk[self.at..self.at + k]);
        self.at += k;
        Ok(k)
    }
}

/// Posts an answer as JSON text. A `Response` always serialises (serde_json writes NaN as
/// null), and a string always posts; should the post still throw, the worker throws too, and
/// the page's `onerror` reports the run as failed with the message.
fn post(scope: &DedicatedWorkerGlobalScope, r: &Response) {
    if let Ok(s) = serde_json::to_string(r) {
        if let Err(e) = scope.post_message(&JsValue::from_str(&s)) {
            wasm_bindgen::throw_str(&format!("the worker could not post its answer ({})", crate::js::describe(&e)));
        }
    }
}

/// Posts a run's result: `Done` with its bulky numbers transferred, or the error.
fn finish(scope: &DedicatedWorkerGlobalScope, id: u32, result: posgeo::error::Result<protocol::Payload>) {
    match result {
        Ok(mut payload) => {
            // The bulky numbers travel as transferred typed arrays, not as JSON text.
            // D's rows go straight into the typed array (no flat copy in this worker's memory).
            let rows = payload.take_matrix();
            let bulk = payload.take_bulk();
            let json = serde_json::to_string(&Response::Done { id, payload: Box::new(payload) }).unwrap_or_default();
            let header = serde_json::to_string(&bulk.header).unwrap_or_default();
            let n = rows.len();
            let matrix = js_sys::Float64Array::new_with_length((n * n) as u32);
            for (i, row) in rows.into_iter().enumerate().filter(|(_, r)| r.len() == n) {
                matrix.subarray((i * n) as u32, ((i + 1) * n) as u32).copy_from(&row);
            }
            let coords = js_sys::Float64Array::from(&bulk.coords[..]);
            let shepard = js_sys::Float32Array::from(&bulk.shepard[..]);
            let msg = crate::js::message(&[
                (Key::Json, JsValue::from_str(&json)),
                (Key::Header, JsValue::from_str(&header)),
                (Key::Matrix, matrix.clone().into()),
                (Key::Coords, coords.clone().into()),
                (Key::Shepard, shepard.clone().into()),
            ]);
            let transfer = js_sys::Array::of3(&matrix.buffer(), &coords.buffer(), &shepard.buffer());
            if let Err(e) = scope.post_message_with_transfer(&msg, &transfer) {
                let why = crate::js::describe(&e);
                post(scope, &WorkerError::Unposted { task: Task::Run, why }.response(id));
            }
        }
        Err(e) => post(scope, &WorkerError::from(e).response(id)),
    }
}

/// What a request brought: its bytes, learned table, tokenizer and uploaded file.
#[derive(Default)]
struct Inputs {
    bytes: Vec<u8>,
    learned: Vec<u8>,
    tokenizer: Vec<u8>,
    model: Vec<u8>,
    file: Option<web_sys::Blob>,
    /// The end-to-end tests asked for faults (the page is marked `data-faults="1"`).
    faults: bool,
}

/// The request as its helpers count it, with the tokenizer's bytes
/// ([`protocol::counting_tokenizer`], the rule the run reads the corpus by), so the helpers'
/// table is the one the run would count.
fn counting_request<'a>(req: &Request, inputs: &'a Inputs) -> (Request, std::borrow::Cow<'a, [u8]>) {
    match protocol::counting_tokenizer(req, &inputs.model) {
        Some((name, bytes)) => {
            let mut counting = req.clone();
            counting.params.tokenizer = posgeo::corpus::tokenize::TokenizerKind::Model;
            counting.tokenizer = Some(name);
            (counting, std::borrow::Cow::Owned(bytes))
        }
        None => (req.clone(), std::borrow::Cow::Borrowed(&inputs.tokenizer[..])),
    }
}

/// Runs a request: an upload large enough is counted by helper workers ([`super::pool`];
/// if they cannot, this worker reads the file itself), and a full run's encodings may be
/// measured by them ([`super::measure`]).
async fn run(scope: DedicatedWorkerGlobalScope, session: Rc<RefCell<protocol::Session>>, req: Request, inputs: Inputs) {
    let id = req.id;
    super::pool::take_failures(); // a run's estimate tells its own
    let k = inputs.file.as_ref().map_or(0, |f| super::pool::helpers_for(&req, f));
    let counted = match &inputs.file {
        Some(f) if k > 1 => {
            let (counting, tokenizer) = counting_request(&req, &inputs);
            super::pool::count(&counting, f, &tokenizer, k, inputs.faults, &mut |f| {
                post(&scope, &Response::Progress { id, stage: posgeo::analysis::Stage::Counting, fraction: f });
            })
            .await
        }
        _ => None,
    };
    let stream = match counted {
        Some(_) => None,
        None => inputs.file.clone().and_then(BlobReader::new).map(|r| Box::new(r) as Box<dyn std::io::Read>),
    };
    let files = protocol::Files {
        corpus: &inputs.bytes,
        corpus_stream: stream,
        corpus_size: inputs.file.as_ref().map_or(0.0, |f| f.size()) as u64,
        precounted: counted.map(|s| (s, k)),
        learned: &inputs.learned,
        tokenizer: &inputs.tokenizer,
        model: &inputs.model,
    };
    let mut estimate = None; // posted again when helpers measured
    let begun = session.borrow_mut().begin(&req, files, &mut |mut r| {
        if let Response::Estimate { helper_failures, .. } = &mut r {
            *helper_failures = super::pool::failures();
            estimate = Some(r.clone());
        }
        post(&scope, &r)
    });
    let result = match begun {
        Ok(protocol::Begun::Geometry(unbuilt)) => {
            complete(&scope, &session, &req, *unbuilt, estimate, &inputs.model).await
        }
        Ok(protocol::Begun::Done(payload)) => Ok(*payload),
        Err(e) => Err(e),
    };
    finish(&scope, id, result);
}

/// A model's layers, its batches over helpers; then, if their helpers failed (beyond the
/// `failed_before` already told), the estimate once more with the failures.
async fn run_layers(
    scope: &DedicatedWorkerGlobalScope,
    id: u32,
    pending: &mut protocol::Pending,
    model: &[u8],
    estimate: Option<Response>,
    failed_before: usize,
) {
    if let Some(l) = &pending.layers {
        let to = scope.clone();
        let layer_progress: Rc<dyn Fn(f64)> = Rc::new(move |f: f64| {
            post(&to, &Response::Progress { id, stage: posgeo::analysis::Stage::Layers, fraction: f });
        });
        pending.layer_sums = super::model_pass::run(&l.plan, model, layer_progress).await;
    }
    let failures = super::pool::take_failures();
    if let Some(mut e) = estimate.filter(|_| failures.len() > failed_before) {
        if let Response::Estimate { helper_failures, .. } = &mut e {
            *helper_failures = failures;
        }
        post(scope, &e);
    }
}

/// Writes into the estimate which helpers did what — (encodings measured, SMACOF shares, the
/// spectrum by a helper, encodings measured meanwhile) — and every helper failure so far.
fn note_helpers(estimate: &mut Option<Response>, (measured, smacof, spectrum, meanwhile): (usize, usize, bool, usize)) {
    if let Some(Response::Estimate {
        measured_by: m,
        smacof_by: s,
        spectrum_by_helper: h,
        measured_meanwhile: w,
        helper_failures: f,
        ..
    }) = estimate.as_mut()
    {
        (*m, *s, *h, *w, *f) = (measured, smacof, spectrum, meanwhile, super::pool::failures());
    }
}

/// A full run after D: the spectrum (in a helper at large n, [`super::mds`]), the encodings,
/// SMACOF and their measures shared with helpers, a model's layers, then the payload.
async fn complete(
    scope: &DedicatedWorkerGlobalScope,
    session: &RefCell<protocol::Session>,
    req: &Request,
    unbuilt: protocol::Unbuilt,
    mut estimate: Option<Response>,
    model: &[u8],
) -> posgeo::error::Result<protocol::Payload> {
    let (id, mut unbuilt) = (req.id, unbuilt);
    let n = unbuilt.geometry.distances().n();
    // The stage while the spectrum is computed before `build` (which says it again).
    let mds = || post(scope, &Response::Progress { id, stage: posgeo::analysis::Stage::Mds, fraction: 0.0 });
    if n >= super::mds::FROM_N {
        mds();
    }
    let started = super::mds::start(unbuilt.geometry.distances(), unbuilt.geometry.params()).await;
    // A helper measures what does not need the spectrum while it is computed: beside the
    // spectrum's helper, or while this worker computes it.
    let free = match started.is_some() || super::measure::meanwhile_here(n) {
        true => super::measure::spectrum_free(&mut unbuilt.geometry).await,
        false => None,
    };
    // Without the spectrum's helper, this worker computes the spectrum meanwhile (an error
    // waits for the measuring helper, which is then put back or ended as usual).
    let here = match (&started, &free) {
        (None, Some(_)) => {
            mds();
            Some(unbuilt.geometry.spectrum())
        }
        _ => None,
    };
    // The measuring helper first: from FROM_N it is ended as soon as it answers, before the
    // spectrum's helper (the longer job) does, so that their memory does not add up.
    let mut meanwhile = 0;
    if let Some(free) = free {
        let measured = free.finish().await;
        meanwhile = measured.len();
        unbuilt.geometry.give_measured(measured);
    }
    let (spectrum, spectrum_by_helper) = match started {
        Some(s) => {
            let s = s.finish().await?;
            let by = s.is_some();
            (s, by)
        }
        None => (here.transpose()?, false),
    };
    let mut pending = unbuilt.build(spectrum, &mut |r| post(scope, &r))?;
    let to = scope.clone();
    let smacof_progress = move |f: f64| {
        post(&to, &Response::Progress { id, stage: posgeo::analysis::Stage::Encodings, fraction: f });
    };
    let smacof_by = super::smacof::fit(&mut pending.staged, &smacof_progress).await;
    let (given, measured_by) = super::measure::measure(&mut pending.staged).await;
    // The estimate again, now saying which helpers worked and which failed.
    let helped = measured_by > 0 || smacof_by > 0 || spectrum_by_helper || meanwhile > 0;
    note_helpers(&mut estimate, (measured_by, smacof_by, spectrum_by_helper, meanwhile));
    let failed_before = super::pool::failures().len();
    if let Some(e) = estimate.as_ref().filter(|_| helped || failed_before > 0) {
        post(scope, e);
    }
    run_layers(scope, id, &mut pending, model, estimate, failed_before).await;
    if pending.staged.targets().0.n() >= super::mds::FROM_N {
        // A long context's helpers hold hundreds of MB each (D's rows and pairs, δ's sorts):
        // ended before the report is built, not kept for a later run.
        super::pool::end_pooled();
    }
    session.borrow_mut().complete(req, pending, given, &mut |r| post(scope, &r))
}

/// Requests waiting for the one that runs (which stays at the front until it is done).
type Queue = Rc<RefCell<std::collections::VecDeque<(Request, Inputs)>>>;

/// Runs the queued requests in order until none is left.
async fn drain(scope: DedicatedWorkerGlobalScope, session: Rc<RefCell<protocol::Session>>, queue: Queue) {
    loop {
        let Some((req, inputs)) = queue.borrow_mut().front_mut().map(|(r, i)| (r.clone(), std::mem::take(i))) else {
            return;
        };
        run(scope.clone(), session.clone(), req, inputs).await;
        queue.borrow_mut().pop_front();
    }
}

/// Installs the message handler and announces `Ready`.
pub fn start() {
    console_error_panic_hook::set_once();
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let s2 = scope.clone();
    // The analysis kept between requests, for live parameters.
    let session = Rc::new(RefCell::new(protocol::Session::default()));
    let queue: Queue = Rc::default();
    let handler = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
        let data = e.data();
        match js::inbound(&data) {
            js::Inbound::Warm => super::pool::warm(),
            js::Inbound::HelperJob => super::courier::serve(&s2, &data),
            js::Inbound::Summarise | js::Inbound::Training => super::learn::serve(&s2, &data),
            js::Inbound::Analysis => analysis(&s2, &data, &session, &queue),
            js::Inbound::Unknown(properties) => post(&s2, &WorkerError::Unknown { properties }.response(0)),
        }
    });
    scope.set_onmessage(Some(handler.as_ref().unchecked_ref()));
    handler.forget();
    post(&scope, &Response::Ready);
}

/// An analysis request: queued behind the one under way. A request that cannot be read is
/// answered with an error carrying its id when its bytes start with one.
fn analysis(
    scope: &DedicatedWorkerGlobalScope,
    data: &JsValue,
    session: &Rc<RefCell<protocol::Session>>,
    queue: &Queue,
) {
    let (bytes, learned, tokenizer) =
        (js::bytes(data, Key::Bytes), js::bytes(data, Key::LearnedBytes), js::bytes(data, Key::TokenizerBytes));
    let req: Request = match protocol::decode_request(&js::bytes(data, Key::Request)) {
        Ok(r) => r,
        Err(protocol::Unreadable { id, why }) => {
            return post(scope, &WorkerError::Unreadable { task: Task::Run, why }.response(id));
        }
    };
    // The end-to-end tests' worker death: only a page whose root element carries
    // `data-faults="1"` (set by the test) asks for it, with a corpus that starts so.
    let faults = js::flag(data, Key::Trap);
    if faults && bytes.starts_with(b"#posgeo:trap") {
        core::arch::wasm32::unreachable();
    }
    let file = js::typed::<web_sys::Blob>(data, Key::File);
    let inputs = Inputs { bytes, learned, tokenizer, model: js::bytes(data, Key::ModelBytes), file, faults };
    // Requests run one after another, in order: a run may wait for helpers, and a request
    // arriving meanwhile (a live update) needs the geometry that run keeps.
    let idle = queue.borrow().is_empty();
    queue.borrow_mut().push_back((req, inputs));
    if idle {
        wasm_bindgen_futures::spawn_local(drain(scope.clone(), session.clone(), queue.clone()));
    }
}
