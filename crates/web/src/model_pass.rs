//! A model's pass spread over helper workers (wasm32 only). The batches of the plan are dealt
//! round-robin to [`super::pool::cores`] helpers; each loads the model from the bundle once
//! (kept while the same bundle comes back), runs its batches one by one — posting
//! [`Answer::LayerProgress`] after each, so the page's bar moves batch by batch — and answers
//! its [`LayerSums`] ([`Job::Layers`], [`crate::protocol::jobs::Helper::serve`]); each
//! progress message restarts the helper's silence limit ([`super::courier::expect`]). Sums
//! add, so the coordinator merges them into the sums of the whole pass. If any helper fails,
//! the coordinator runs the pass itself.

use super::courier::{expect, post_job, reply, SILENCE_MS};
use super::pool::{cores, failed, helpers, release};
use super::protocol::jobs::{Answer, Job};
use posgeo_model::{LayerSums, Plan};
use std::cell::Cell;
use std::rc::Rc;

/// Below this many batches the worker runs the pass alone.
const USE_FROM_BATCHES: usize = 2;

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
        let (done, tick) = (done.clone(), tick.clone());
        let on_batch: Rc<dyn Fn()> = Rc::new(move || {
            done.set(done.get() + 1);
            tick(done.get());
        });
        answers.push(expect(w, SILENCE_MS, Some(on_batch)));
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
        let problem = match (reply(a).await, all.as_mut()) {
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
