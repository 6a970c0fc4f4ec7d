//! **The courier** between the worker and its helpers (wasm32 only): how a job and its answer
//! travel, and how the worker watches for the answer ([`expect`], [`reply`]: a silence limit,
//! heartbeats, the helper ended when it runs out). A [`Job`] or [`Answer`] travels as
//! postcard bytes in one `Uint8Array`, first in a JS array whose other items are what
//! travels beside a job ([`crate::protocol::jobs`]). The worker posts jobs ([`post_job`])
//! and reads answers ([`answer_of`]); a helper reads jobs and posts answers ([`serve`], which
//! hands the job to [`Helper::serve`]). No message key is probed: a helper message is an array.

use crate::protocol::jobs::{decode, encode, Answer, Beside, Flaw, Helper, Job, JobError};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent, Worker};

thread_local! {
    /// A helper's state between jobs (its SMACOF share, its model).
    static HELPER: RefCell<Helper> = RefCell::new(Helper::default());
}

/// Posts `job` to helper `w`, with `beside` after it and `transfer`'s buffers moved.
pub(crate) fn post_job(w: &Worker, job: &Job, beside: &[JsValue], transfer: &[JsValue]) -> Result<(), JobError> {
    let bytes = js_sys::Uint8Array::from(&encode(job)?[..]);
    let msg = js_sys::Array::of1(&bytes);
    beside.iter().for_each(|b| {
        msg.push(b);
    });
    let moved = js_sys::Array::of1(&bytes.buffer());
    transfer.iter().for_each(|t| {
        moved.push(t);
    });
    w.post_message_with_transfer(&msg, &moved)
        .map_err(|e| JobError::Browser(format!("a helper could not be sent its job: {e:?}")))
}

/// A helper's answer from a message's data (`null`: the helper stopped on an error).
pub(crate) fn answer_of(data: &JsValue) -> Answer {
    if data.is_null() {
        return Answer::Failed { message: "a helper worker stopped on an error".into() };
    }
    match data.dyn_ref::<js_sys::Array>().map(|a| a.get(0)).and_then(|b| b.dyn_into::<js_sys::Uint8Array>().ok()) {
        Some(bytes) => decode(&bytes.to_vec()).unwrap_or_else(|e| Answer::Failed { message: e.to_string() }),
        None => Answer::Failed { message: "a helper's answer is not a helper message".into() },
    }
}

/// How long a helper may stay silent on a job before it counts as hung and is ended: jobs
/// that take long post [`Answer::Alive`] (or their progress) as they go, at most every
/// [`HEARTBEAT_MS`]; the spectrum, which cannot, gets more ([`spectrum_silence_ms`]).
pub(crate) const SILENCE_MS: f64 = 60_000.0;
/// The silence limit of the end-to-end tests' faults (a page marked `data-faults="1"`).
pub(crate) const FAULT_SILENCE_MS: f64 = 3_000.0;
/// A helper posts a heartbeat at most this often.
const HEARTBEAT_MS: f64 = 250.0;

/// The silence limit of the spectrum of an n×n D: one eigensolver call with no heartbeat,
/// given [`SILENCE_MS`] and 2 ms per million multiply-adds of n³ (several times what the
/// tab takes).
pub(crate) fn spectrum_silence_ms(n: usize) -> f64 {
    SILENCE_MS + (n as f64).powi(3) * 2e-6
}

/// What a helper's job has said so far, and its silence timer.
struct Watch {
    answer: RefCell<Option<Answer>>,
    timer: Cell<Option<i32>>,
    silence_ms: f64,
}

impl Watch {
    fn scope() -> DedicatedWorkerGlobalScope {
        js_sys::global().unchecked_into()
    }

    fn disarm(&self) {
        if let Some(t) = self.timer.take() {
            Self::scope().clear_timeout_with_handle(t);
        }
    }

    /// Restarts the silence timer, which calls `on_silence` when it runs out.
    fn arm(&self, on_silence: &js_sys::Function) {
        self.disarm();
        let t = Self::scope().set_timeout_with_callback_and_timeout_and_arguments_0(on_silence, self.silence_ms as i32);
        self.timer.set(t.ok());
    }
}

/// A helper's answer to come: its handlers are installed before its job is posted
/// ([`expect`]) and stay until the answer ([`reply`]). Heartbeats and progress restart the
/// silence timer; a helper that stays silent past it is ended and its job fails.
pub(crate) struct Pending {
    worker: Worker,
    watch: Rc<Watch>,
    settled: wasm_bindgen_futures::JsFuture,
    handlers: Vec<Closure<dyn FnMut(JsValue)>>,
}

/// Watches helper `w` for the answer to the job about to be posted: `progress` hears each
/// [`Answer::LayerProgress`]; `silence_ms` bounds the time between two messages.
pub(crate) fn expect(w: &Worker, silence_ms: f64, progress: Option<Rc<dyn Fn()>>) -> Pending {
    let watch = Rc::new(Watch { answer: RefCell::new(None), timer: Cell::new(None), silence_ms });
    let mut handlers = Vec::new();
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let settle = Rc::new(move |watch: &Watch, answer: Answer| {
            watch.disarm();
            watch.answer.borrow_mut().get_or_insert(answer);
            // Calling a promise's own resolve function does not throw.
            let _ = resolve.call0(&JsValue::NULL);
        });
        let (wt, st, worker) = (watch.clone(), settle.clone(), w.clone());
        let on_silence = Closure::<dyn FnMut(JsValue)>::new(move |_| {
            worker.terminate();
            let secs = wt.silence_ms / 1000.0;
            st(&wt, Answer::Failed { message: format!("a helper gave no sign of life for {secs} s and was ended") });
        });
        let silence: js_sys::Function = on_silence.as_ref().unchecked_ref::<js_sys::Function>().clone();
        let (wt, st, progress) = (watch.clone(), settle.clone(), progress.clone());
        let on_msg = Closure::<dyn FnMut(JsValue)>::new(move |e: JsValue| {
            let data = e.unchecked_into::<MessageEvent>().data();
            match answer_of(&data) {
                Answer::Alive => wt.arm(&silence),
                Answer::LayerProgress { .. } => {
                    wt.arm(&silence);
                    if let Some(p) = &progress {
                        p();
                    }
                }
                answer => st(&wt, answer),
            }
        });
        let wt = watch.clone();
        let on_err = Closure::<dyn FnMut(JsValue)>::new(move |e: JsValue| {
            let e = e.unchecked_into::<web_sys::ErrorEvent>();
            e.prevent_default();
            settle(&wt, Answer::Failed { message: format!("a helper stopped on an error ({})", e.message()) });
        });
        w.set_onmessage(Some(on_msg.as_ref().unchecked_ref()));
        w.set_onerror(Some(on_err.as_ref().unchecked_ref()));
        watch.arm(on_silence.as_ref().unchecked_ref());
        handlers.extend([on_silence, on_msg, on_err]);
    });
    Pending { worker: w.clone(), watch, settled: wasm_bindgen_futures::JsFuture::from(promise), handlers }
}

/// The answer a [`Pending`] job gives: the helper's, or [`Answer::Failed`] when it stopped on
/// an error or stayed silent too long (it is then ended). Its handlers are removed.
pub(crate) async fn reply(pending: Pending) -> Answer {
    let Pending { worker, watch, settled, handlers } = pending;
    let settled = settled.await;
    watch.disarm();
    worker.set_onmessage(None);
    worker.set_onerror(None);
    drop(handlers);
    let answer = watch.answer.borrow_mut().take();
    match (answer, settled) {
        (Some(answer), _) => answer,
        (None, Ok(_)) => Answer::Failed { message: "a helper stopped without an answer".into() },
        (None, Err(e)) => Answer::Failed { message: format!("no answer from a helper worker: {e:?}") },
    }
}

/// Posts an answer (its bytes transferred). A helper whose answer cannot be written posts
/// that failure instead.
fn post_answer(scope: &DedicatedWorkerGlobalScope, answer: &Answer) {
    let bytes = encode(answer).or_else(|e| encode(&Answer::Failed { message: e.to_string() }));
    let Ok(bytes) = bytes else { return }; // a Failed with a message always encodes
    let arr = js_sys::Uint8Array::from(&bytes[..]);
    // Posting fails only when the answer cannot be cloned, which a byte array always can; should
    // it fail, the helper throws, and its worker's `onerror` takes the job back.
    if let Err(e) = scope.post_message_with_transfer(&js_sys::Array::of1(&arr), &js_sys::Array::of1(&arr.buffer())) {
        wasm_bindgen::throw_str(&format!("a helper could not post its answer ({})", crate::js::describe(&e)));
    }
}

/// What travels beside a job, as it arrived (the message's items after the job).
struct JsBeside<'a> {
    items: js_sys::Array,
    scope: &'a DedicatedWorkerGlobalScope,
    /// When the last heartbeat went out (`performance.now()`, ms).
    beat: Cell<f64>,
}

impl JsBeside<'_> {
    fn item(&self, i: usize) -> JsValue {
        self.items.get(i as u32 + 1)
    }
    fn missing(i: usize, what: &'static str) -> JobError {
        JobError::Beside { item: i, flaw: Flaw::NotA(what) }
    }
}

impl Beside for JsBeside<'_> {
    fn len(&self, i: usize) -> Option<usize> {
        let v = self.item(i);
        let len = if let Some(a) = v.dyn_ref::<js_sys::Float64Array>() {
            a.length()
        } else if let Some(a) = v.dyn_ref::<js_sys::Uint32Array>() {
            a.length()
        } else {
            v.dyn_ref::<js_sys::Uint8Array>()?.length()
        };
        Some(len as usize)
    }

    fn f64s_into(&self, i: usize, at: usize, out: &mut [f64]) -> Result<(), JobError> {
        let a = self.item(i).dyn_into::<js_sys::Float64Array>().map_err(|_| Self::missing(i, "f64s"))?;
        if at + out.len() > a.length() as usize {
            return Err(JobError::Beside { item: i, flaw: Flaw::Short });
        }
        a.subarray(at as u32, (at + out.len()) as u32).copy_to(out);
        Ok(())
    }

    fn u32s(&self, i: usize) -> Result<Vec<u32>, JobError> {
        let a = self.item(i).dyn_into::<js_sys::Uint32Array>().map_err(|_| Self::missing(i, "u32s"))?;
        Ok(a.to_vec())
    }

    fn bytes(&self, i: usize) -> Result<Vec<u8>, JobError> {
        let a = self.item(i).dyn_into::<js_sys::Uint8Array>().map_err(|_| Self::missing(i, "bytes"))?;
        Ok(a.to_vec())
    }

    fn identity(&self, i: usize) -> Result<(usize, u64), JobError> {
        let a = self.item(i).dyn_into::<js_sys::Uint8Array>().map_err(|_| Self::missing(i, "bytes"))?;
        Ok(crate::protocol::jobs::identity(a.length() as usize, |k| a.get_index(k as u32)))
    }

    fn file_from(&self, i: usize, from: u64) -> Result<Box<dyn std::io::Read + '_>, JobError> {
        let file = self.item(i).dyn_into::<web_sys::Blob>().map_err(|_| Self::missing(i, "a file"))?;
        let blob = file
            .slice_with_f64_and_f64(from as f64, file.size())
            .map_err(|e| JobError::Browser(format!("slice: {e:?}")))?;
        let reader =
            super::worker::BlobReader::new(blob).ok_or(JobError::Browser("no FileReaderSync in this worker".into()))?;
        Ok(Box::new(reader))
    }

    fn post(&self, answer: &Answer) {
        post_answer(self.scope, answer);
    }

    fn alive(&self) {
        let now = self.scope.performance().map_or(0.0, |p| p.now());
        if now - self.beat.get() >= HEARTBEAT_MS {
            self.beat.set(now);
            post_answer(self.scope, &Answer::Alive);
        }
    }
}

/// The end-to-end tests' helper faults ([`crate::protocol::jobs::CountPart::faults`]): the
/// helper counting the start of an upload that begins `#posgeo:helper-hang` never answers (it
/// spins until it is ended), and one whose upload begins `#posgeo:helper-trap` traps.
fn fault(job: &Job, beside: &JsBeside) {
    let Job::Count { part, .. } = job else { return };
    if !part.faults || part.start != 0 {
        return;
    }
    let mut head = Vec::new();
    if let Ok(r) = beside.file_from(0, 0) {
        let _ = std::io::Read::read_to_end(&mut std::io::Read::take(r, 32), &mut head);
    }
    if head.starts_with(b"#posgeo:helper-trap") {
        core::arch::wasm32::unreachable();
    }
    if head.starts_with(b"#posgeo:helper-hang") {
        loop {
            std::hint::spin_loop();
        }
    }
}

/// The helper's side: a helper message's job ([`crate::js::Inbound::HelperJob`]) done and
/// answered.
pub fn serve(scope: &DedicatedWorkerGlobalScope, data: &JsValue) {
    let items: js_sys::Array = data.clone().unchecked_into();
    let bytes: js_sys::Uint8Array = items.get(0).unchecked_into();
    let answer = match decode::<Job>(&bytes.to_vec()) {
        Ok(job) => {
            let beside = JsBeside { items: items.clone(), scope, beat: Cell::new(f64::NEG_INFINITY) };
            fault(&job, &beside);
            HELPER.with(|h| h.borrow_mut().serve(job, &beside))
        }
        Err(e) => Some(Answer::Failed { message: e.to_string() }),
    };
    if let Some(answer) = answer {
        post_answer(scope, &answer);
    }
}
