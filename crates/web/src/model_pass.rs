//! A model's pass spread over helper workers (wasm32 only). The batches of the plan are dealt
//! round-robin to [`super::helpers::cores`] helpers; each loads the model from the bundle once
//! (kept while the same bundle comes back), runs its batches one by one — posting
//! [`Answer::LayerProgress`] after each, so the page's bar moves batch by batch — and answers
//! its [`LayerSums`] ([`Job::Layers`], [`crate::protocol::helper::Helper::serve`]). Sums add, so the coordinator merges them into
//! the sums of the whole pass. If any helper fails, the coordinator runs the pass itself.

use super::helper_io::{answer_of, post_job};
use super::helpers::{cores, failed, helpers, release};
use super::protocol::helper::{Answer, Job};
use posgeo_model::{LayerSums, Plan};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::MessageEvent;

/// Below this many batches the worker runs the pass alone.
const USE_FROM_BATCHES: usize = 2;

/// The final answer of helper `w`, counting its [`Answer::LayerProgress`] messages into
/// `done` on the way (and telling `tick`): one handler stays installed for the whole job, so
/// no message arrives while none is. The handlers are installed at once (before the job is
/// posted); the future waits.
fn answer(
    w: &web_sys::Worker,
    done: Rc<Cell<usize>>,
    tick: Rc<dyn Fn(usize)>,
) -> impl std::future::Future<Output = Answer> {
    let last: Rc<RefCell<Option<Answer>>> = Rc::default();
    let kept = last.clone();
    let p = js_sys::Promise::new(&mut |resolve, _| {
        let (ok, kept) = (resolve.clone(), kept.clone());
        let (done, tick) = (done.clone(), tick.clone());
        let on_msg = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            match answer_of(&e.data()) {
                Answer::LayerProgress { .. } => {
                    done.set(done.get() + 1);
                    tick(done.get());
                    return;
                }
                other => *kept.borrow_mut() = Some(other),
            }
            // Calling a promise's own resolve function does not throw.
            let _ = ok.call0(&JsValue::NULL);
        });
        let on_err = Closure::once_into_js(move |e: web_sys::ErrorEvent| {
            e.prevent_default();
            let _ = resolve.call0(&JsValue::NULL);
        });
        w.set_onmessage(Some(on_msg.as_ref().unchecked_ref()));
        w.set_onerror(Some(on_err.unchecked_ref()));
        // It lives as long as the helper may call it (the next job installs its own).
        on_msg.forget();
    });
    let settled = wasm_bindgen_futures::JsFuture::from(p);
    async move {
        let settled = settled.await;
        let message = match (last.borrow_mut().take(), settled) {
            (Some(answer), _) => return answer,
            (None, Ok(_)) => "a layer helper stopped on an error".to_string(),
            (None, Err(e)) => format!("no answer from a layer helper: {e:?}"),
        };
        Answer::Failed { message }
    }
}

/// Runs the plan's batches in helpers, reporting the fraction done; `None` when they could
/// not (too few batches, no helpers, a failure): the caller runs the pass itself.
pub async fn run(plan: &Plan, bundle: &[u8], progress: Rc<dyn Fn(f64)>) -> Option<LayerSums> {
    let batches = posgeo_model::batches(plan);
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
        answers.push(answer(w, done.clone(), tick.clone()));
        let job = Job::Layers { plan: plan.clone(), batches: mine };
        if let Err(e) = post_job(w, &job, &[bundle_js.clone().into()], &[]) {
            failed(format!("a model's layers in helpers: {e}"));
            release(workers, false);
            return None;
        }
    }
    let mut all: Option<LayerSums> = None;
    let mut ok = true;
    for a in answers {
        let problem = match (a.await, all.as_mut()) {
            (Answer::LayerSums { sums }, Some(a)) => {
                a.merge(sums);
                continue;
            }
            (Answer::LayerSums { sums }, None) => {
                all = Some(sums);
                continue;
            }
            (Answer::Failed { message }, _) => message,
            _ => "a layer helper gave another answer".into(),
        };
        failed(format!("a model's layers in helpers: {problem}"));
        ok = false;
        break;
    }
    release(workers, ok);
    all.filter(|_| ok)
}
