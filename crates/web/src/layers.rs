//! A model's pass spread over helper workers (wasm32 only). The batches of the plan are dealt
//! round-robin to [`super::helpers::cores`] helpers; each loads the model from the bundle once
//! (kept while the same bundle comes back), runs its batches one by one — posting
//! `{ layer_progress }` after each, so the page's bar moves batch by batch — and answers its
//! [`LayerSums`] (postcard bytes, transferred). Sums add, so the coordinator merges them into
//! the sums of the whole pass. If any helper fails, the coordinator runs the pass itself.

use super::helpers::{cores, helpers, release};
use posgeo::model::{LayerSums, Model, Plan};
use serde::{Deserialize, Serialize};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

/// Below this many batches the worker runs the pass alone.
const USE_FROM_BATCHES: usize = 2;

/// One helper's share: the plan and the batches it runs.
#[derive(Serialize, Deserialize)]
struct LayerJob {
    plan: Plan,
    batches: Vec<Vec<usize>>,
}

thread_local! {
    /// The model a helper loaded, with the length and a digest of its bundle.
    static LOADED: RefCell<Option<((usize, u64), Model)>> = const { RefCell::new(None) };
}

/// A cheap identity of a bundle, read in place (no copy of its 91 MB): its length and an
/// FNV-1a digest of 4,096 of its bytes.
fn identity(bytes: &js_sys::Uint8Array) -> (usize, u64) {
    let len = bytes.length();
    let step = (len / 4096).max(1);
    let digest = (0..len)
        .step_by(step as usize)
        .fold(0xcbf2_9ce4_8422_2325u64, |h, i| (h ^ u64::from(bytes.get_index(i))).wrapping_mul(0x100_0000_01b3));
    (len as usize, digest)
}

/// The final answer of helper `w` (its data, `null` after an error), counting its
/// `{ layer_progress }` messages into `done` on the way (and telling `tick`): one handler
/// stays installed for the whole job, so no message arrives while none is.
fn answer(w: &web_sys::Worker, done: Rc<Cell<usize>>, tick: Rc<dyn Fn(usize)>) -> wasm_bindgen_futures::JsFuture {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        let ok = resolve.clone();
        let (done, tick) = (done.clone(), tick.clone());
        let on_msg = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            let data = e.data();
            if js_sys::Reflect::get(&data, &"layer_progress".into()).is_ok_and(|v| !v.is_undefined()) {
                done.set(done.get() + 1);
                tick(done.get());
                return;
            }
            ok.call1(&JsValue::NULL, &data).ok();
        });
        let on_err = Closure::once_into_js(move |e: web_sys::ErrorEvent| {
            e.prevent_default();
            resolve.call1(&JsValue::NULL, &JsValue::NULL).ok();
        });
        w.set_onmessage(Some(on_msg.as_ref().unchecked_ref()));
        w.set_onerror(Some(on_err.unchecked_ref()));
        // It lives as long as the helper may call it (the next job installs its own).
        on_msg.forget();
    });
    wasm_bindgen_futures::JsFuture::from(p)
}

/// Runs the plan's batches in helpers, reporting the fraction done; `None` when they could
/// not (too few batches, no helpers, a failure): the caller runs the pass itself.
pub async fn run(plan: &Plan, bundle: &[u8], progress: Rc<dyn Fn(f64)>) -> Option<LayerSums> {
    let batches = posgeo::model::batches(plan);
    let k = cores().min(batches.len());
    if batches.len() < USE_FROM_BATCHES || k < 2 {
        return None;
    }
    let workers = helpers(k).await?;
    let bundle_js = js_sys::Uint8Array::from(bundle);
    let done = Rc::new(Cell::new(0usize));
    let total = batches.len() as f64;
    let tick: Rc<dyn Fn(usize)> = Rc::new(move |k| progress(k as f64 / total));
    let mut answers = Vec::with_capacity(k);
    for (i, w) in workers.iter().enumerate() {
        let mine: Vec<Vec<usize>> = batches.iter().skip(i).step_by(k).cloned().collect();
        let job = postcard::to_allocvec(&LayerJob { plan: plan.clone(), batches: mine }).ok()?;
        let msg = js_sys::Object::new();
        js_sys::Reflect::set(&msg, &"layers".into(), &js_sys::Uint8Array::from(&job[..])).ok();
        js_sys::Reflect::set(&msg, &"model_bytes".into(), &bundle_js).ok();
        answers.push(answer(w, done.clone(), tick.clone()));
        if w.post_message(&msg).is_err() {
            release(workers, false);
            return None;
        }
    }
    let mut all: Option<LayerSums> = None;
    let mut ok = true;
    for a in answers {
        let data = a.await.ok().filter(|d| !d.is_null());
        let sums = data
            .and_then(|d| js_sys::Reflect::get(&d, &"layer_sums".into()).ok())
            .and_then(|v| v.dyn_into::<js_sys::Uint8Array>().ok())
            .and_then(|a| postcard::from_bytes::<LayerSums>(&a.to_vec()).ok());
        match (sums, all.as_mut()) {
            (Some(s), Some(a)) => a.merge(s),
            (Some(s), None) => all = Some(s),
            (None, _) => {
                ok = false;
                break;
            }
        }
    }
    release(workers, ok);
    all.filter(|_| ok)
}

/// The helper's side: runs its share and answers `{ layer_sums }` (or `{ error }`), posting
/// `{ layer_progress }` after each batch. Returns false when the message is not a layer job.
pub fn serve(scope: &DedicatedWorkerGlobalScope, data: &JsValue) -> bool {
    let Some(job) =
        js_sys::Reflect::get(data, &"layers".into()).ok().and_then(|v| v.dyn_into::<js_sys::Uint8Array>().ok())
    else {
        return false;
    };
    let bundle = js_sys::Reflect::get(data, &"model_bytes".into())
        .ok()
        .and_then(|v| v.dyn_into::<js_sys::Uint8Array>().ok())
        .unwrap_or_else(|| js_sys::Uint8Array::new_with_length(0));
    let msg = js_sys::Object::new();
    match share(scope, &job.to_vec(), &bundle) {
        Ok(bytes) => {
            let arr = js_sys::Uint8Array::from(&bytes[..]);
            js_sys::Reflect::set(&msg, &"layer_sums".into(), &arr).ok();
            scope.post_message_with_transfer(&msg, &js_sys::Array::of1(&arr.buffer())).ok();
        }
        Err(e) => {
            js_sys::Reflect::set(&msg, &"error".into(), &JsValue::from_str(&e)).ok();
            scope.post_message(&msg).ok();
        }
    }
    true
}

/// Runs one share: the model (loaded once per bundle), its batches, the postcard of the sums.
fn share(scope: &DedicatedWorkerGlobalScope, job: &[u8], bundle: &js_sys::Uint8Array) -> Result<Vec<u8>, String> {
    let job: LayerJob = postcard::from_bytes(job).map_err(|e| e.to_string())?;
    let id = identity(bundle);
    LOADED.with(|l| -> Result<Vec<u8>, String> {
        let mut l = l.borrow_mut();
        if l.as_ref().is_none_or(|(k, _)| *k != id) {
            *l = None; // the old model goes before the new one is built
                       // The bundle enters wasm memory only when the model is (re)built.
            let (model, _) = Model::from_bundle(&bundle.to_vec()).map_err(|e| e.to_string())?;
            *l = Some((id, model));
        }
        let model = &l.as_ref().ok_or("no model")?.1;
        let mut last = 0usize;
        let total = job.batches.len().max(1);
        let sums = posgeo::model::run(model, &job.plan, &job.batches, &mut |f| {
            let k = (f * total as f64).round() as usize;
            while last < k {
                last += 1;
                let m = js_sys::Object::new();
                js_sys::Reflect::set(&m, &"layer_progress".into(), &JsValue::from_f64(last as f64)).ok();
                scope.post_message(&m).ok();
            }
            true
        })
        .map_err(|e| e.to_string())?;
        postcard::to_allocvec(&sums).map_err(|e| e.to_string())
    })
}
