//! The encodings measured by helper workers (wasm32 only). After counting, a run's
//! stress stage — each encoding's δ, stress, Spearman ρ, monotonicity and Procrustes
//! alignment (SPEC §6–§7) — is the longest part the worker does alone. When helpers are
//! already up (they counted the upload) or n is large, the worker that runs the job sends
//! each helper a contiguous share of the pending encodings with D (its pairs and their ranks,
//! as the measures read it) and the PMDS coordinates (postcard bytes, transferred); helpers
//! answer with each encoding's measures and sketch, never its n×n δ. The worker computes the
//! corpus's own monotonicity and rank curve meanwhile, and hands the measures back to [`crate::analysis::Staged::finish`] — the same
//! function of the same numbers, so the results do not depend on who measured. A helper that
//! fails only costs its share, which the worker then measures itself.

use super::helpers::{cores, helpers, next_message, pooled, release};
use crate::analysis::{measure_against, Measure, Staged};
use crate::encodings::Encoding;
use crate::points::Points;
use crate::stress::Target;
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::DedicatedWorkerGlobalScope;

/// From this many positions the helpers are started for measuring alone (below it, only
/// helpers already up are used: starting one costs about as much as it would save).
const START_FROM_N: usize = 1024;
/// Below this many positions the worker measures alone.
const USE_FROM_N: usize = 256;

/// A helper's share as it arrives: D (its pairs and their ranks), the PMDS coordinates and its encodings.
#[derive(Deserialize)]
struct MeasureJob {
    n: usize,
    d: Target,
    x: Points,
    encodings: Vec<Encoding>,
}

/// A share as it is sent: the same fields, borrowed from the run (nothing copied but into
/// the message's bytes).
#[derive(Serialize)]
struct MeasureJobRef<'a> {
    n: usize,
    d: &'a Target,
    x: &'a Points,
    encodings: &'a [&'a Encoding],
}

/// A helper's answer: per encoding, its sketch, its stress and its alignment.
type Answer = Vec<Measure>;

/// How many helpers measure `count` encodings of an n-position run (0: none).
fn helpers_for(n: usize, count: usize) -> usize {
    let wanted = (n >= START_FROM_N || (n >= USE_FROM_N && pooled() > 0)) && count > 1;
    if wanted {
        cores().min(count)
    } else {
        0
    }
}

/// Measures the pending encodings in helpers, computing the corpus side meanwhile: the
/// measures of the first pending encodings (all of them, or fewer if a helper failed), and
/// how many helpers made them.
pub async fn measure(staged: &mut Staged) -> (Vec<Measure>, usize) {
    let (d, x) = staged.prepared_targets();
    let (n, pending) = (staged.targets().0.n(), staged.pending());
    let k = helpers_for(n, pending.len());
    if k == 0 {
        return (Vec::new(), 0);
    }
    let Some(workers) = helpers(k).await else { return (Vec::new(), 0) };
    let mut replies = Vec::new();
    for (i, w) in workers.iter().enumerate() {
        let share = &pending[pending.len() * i / k..pending.len() * (i + 1) / k];
        let job = MeasureJobRef { n, d, x, encodings: share };
        let Ok(bytes) = postcard::to_allocvec(&job) else { break };
        let arr = js_sys::Uint8Array::from(&bytes[..]);
        let msg = js_sys::Object::new();
        js_sys::Reflect::set(&msg, &"measure".into(), &arr).ok();
        replies.push((next_message(w), share.len()));
        if w.post_message_with_transfer(&msg, &js_sys::Array::of1(&arr.buffer())).is_err() {
            replies.pop();
            break;
        }
    }
    let wanted = pending.len();
    staged.corpus_side();
    let mut given = Vec::with_capacity(wanted);
    let mut ok = replies.len() == k;
    for (reply, count) in replies {
        let answer = match reply.await {
            Ok(data) if ok => decode(&data, n, count),
            _ => None,
        };
        match answer {
            Some(m) => given.extend(m),
            None => ok = false, // later shares are measured by the worker, in order
        }
    }
    release(workers, ok);
    let by = if given.is_empty() { 0 } else { k };
    (given, by)
}

/// A helper's answer as measures: `count` of them, each sketched on the grid of n positions.
fn decode(data: &JsValue, n: usize, count: usize) -> Option<Vec<Measure>> {
    let bytes = js_sys::Reflect::get(data, &"measured".into()).ok()?.dyn_into::<js_sys::Uint8Array>().ok()?;
    let answer: Answer = postcard::from_bytes(&bytes.to_vec()).ok()?;
    let side = crate::sketch::side(n);
    (answer.len() == count && answer.iter().all(|(sketch, ..)| sketch.blocks.len() == side * side)).then_some(answer)
}

/// The helper's side: measures its share and answers `{ measured }` (or `{ error }`).
/// Returns false when the message is not a measuring job.
pub fn serve(scope: &DedicatedWorkerGlobalScope, data: &JsValue) -> bool {
    let Some(bytes) =
        js_sys::Reflect::get(data, &"measure".into()).ok().and_then(|v| v.dyn_into::<js_sys::Uint8Array>().ok())
    else {
        return false;
    };
    let msg = js_sys::Object::new();
    let answer = postcard::from_bytes::<MeasureJob>(&bytes.to_vec())
        .map_err(|e| e.to_string())
        .and_then(|job| {
            if !job.d.holds_pairs_of(job.n) {
                return Err("D's pairs are not those of n positions".to_string());
            }
            Ok(measure_against(job.d, job.x, job.n, &job.encodings))
        })
        .and_then(|measures| postcard::to_allocvec(&measures).map_err(|e| e.to_string()));
    match answer {
        Ok(bytes) => {
            let arr = js_sys::Uint8Array::from(&bytes[..]);
            js_sys::Reflect::set(&msg, &"measured".into(), &arr).ok();
            scope.post_message_with_transfer(&msg, &js_sys::Array::of1(&arr.buffer())).ok();
        }
        Err(e) => {
            js_sys::Reflect::set(&msg, &"error".into(), &JsValue::from_str(&e)).ok();
            scope.post_message(&msg).ok();
        }
    }
    true
}
