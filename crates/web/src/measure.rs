//! The encodings measured by helper workers (wasm32 only). After counting, a run's
//! stress stage — each encoding's δ, stress, Spearman ρ, monotonicity and Procrustes
//! alignment (docs/MATH.md §6–§7) — is the longest part the worker does alone. When helpers are
//! already up (they counted the upload) or n is large, the worker that runs the job sends
//! each helper a contiguous share of the pending encodings with D (its pairs and their ranks,
//! as the measures read it) and the PMDS coordinates (postcard bytes, transferred); helpers
//! answer with each encoding's measures and sketch, never its n×n δ. The worker computes the
//! corpus's own monotonicity and rank curve meanwhile, and hands the measures back to [`posgeo::analysis::Staged::finish`] — the same
//! function of the same numbers, so the results do not depend on who measured. A helper that
//! fails only costs its share, which the worker then measures itself.
//!
//! The five encodings that do not read the spectrum (nope, sinusoidal, RoPE, ALiBi, random)
//! are measured earlier, by one helper while the spectrum is computed ([`spectrum_free`]):
//! from [`super::mds::FROM_N`] positions another helper computes the spectrum; below, the
//! worker computes it itself, when a helper is up already ([`meanwhile_here`]). The others
//! (PMDS, PMDS-R, SMACOF, learned tables) are measured after, as above.

use super::helpers::{cores, end_pooled, helpers, next_message, pooled, release};
use posgeo::analysis::{measure_against, Compared, Geometry, Measure, Staged};
use posgeo::encodings::Encoding;
use posgeo::measures::stress::Target;
use posgeo::points::Points;
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::DedicatedWorkerGlobalScope;

/// From this many positions the helpers are started for measuring alone (below it, only
/// helpers already up are used: starting one costs about as much as it would save).
const START_FROM_N: usize = 1024;
/// Below this many positions the worker measures alone.
const USE_FROM_N: usize = 256;
/// From this many positions one helper measures (see [`helpers_for`]), and it and the idle
/// helpers are then ended (their memory leaves the tab with them).
const ONE_FROM_N: usize = super::mds::FROM_N;

/// A share's small part (postcard bytes): n, Σ D², the PMDS coordinates' width and the
/// encodings without their coordinates. The bulky numbers travel beside it as typed arrays
/// (D's pairs, their doubled ranks, the PMDS coordinates, each encoding's coordinates), so
/// neither side's wasm memory holds them twice: no serialised copy in the worker, no bytes
/// beside the decoded share in the helper.
#[derive(Serialize, Deserialize)]
struct Head {
    n: usize,
    sum_sq: f64,
    x_dim: usize,
    encodings: Vec<Encoding>,
}

/// An encoding without its coordinates (they travel as an array of their own).
fn bare(e: &Encoding) -> Encoding {
    Encoding {
        kind: e.kind,
        points: Points { n: e.points.n, dim: e.points.dim, data: Vec::new() },
        parameters: e.parameters,
        iterations: e.iterations,
        stop: e.stop,
    }
}

/// A helper's answer: per encoding, its sketch, its stress and its alignment.
type Answer = Vec<Measure>;

/// How many helpers measure `count` encodings of an n-position run (0: none). From
/// [`ONE_FROM_N`] positions, one: each measuring helper holds its own copy of D's pairs and
/// ranks and an encoding's δ and sort (about 450 MB at n = 4096), and two of them made the
/// tab's peak.
fn helpers_for(n: usize, count: usize) -> usize {
    let wanted = (n >= START_FROM_N || (n >= USE_FROM_N && pooled() > 0)) && count > 1;
    match wanted {
        true if n >= ONE_FROM_N => 1,
        true => cores().min(count),
        false => 0,
    }
}

/// Measures the pending encodings in helpers, computing the corpus side meanwhile: the
/// measures of the first pending encodings (all of them, or fewer if a helper failed), and
/// how many helpers made them.
pub async fn measure(staged: &mut Staged) -> (Vec<Measure>, usize) {
    let (d, x) = staged.prepared_targets();
    let (n, pending) = (staged.targets().0.n(), staged.pending());
    let k = helpers_for(n, pending.len());
    let workers = if k == 0 { None } else { helpers(k).await };
    if n >= ONE_FROM_N {
        end_pooled(); // SMACOF's other helpers: what their shares left goes with them
    }
    let Some(workers) = workers else { return (Vec::new(), 0) };
    let mut replies = Vec::new();
    for (i, w) in workers.iter().enumerate() {
        let share = &pending[pending.len() * i / k..pending.len() * (i + 1) / k];
        let Some((msg, transfer)) = job_message(n, d, x, share) else { break };
        replies.push((next_message(w), share.len()));
        if w.post_message_with_transfer(&msg, &transfer).is_err() {
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
    release(workers, ok && n < ONE_FROM_N);
    let by = if given.is_empty() { 0 } else { k };
    (given, by)
}

/// Whether a helper measures the spectrum-free encodings while this worker computes the
/// spectrum itself (when no helper computes it: below [`super::mds::FROM_N`], or if that
/// helper could not start): when one is up already (it counted the upload) and the encodings
/// would be measured by helpers anyway.
pub fn meanwhile_here(n: usize) -> bool {
    n >= USE_FROM_N && pooled() > 0 && cores() > 1
}

/// The spectrum-free encodings of a run ([`posgeo::analysis::Geometry::spectrum_free`]),
/// being measured by a helper while the spectrum is computed (by another helper, or by this
/// worker): [`spectrum_free`] sends them, [`Meanwhile::finish`] waits for their measures.
pub struct Meanwhile {
    encodings: Vec<(String, Encoding)>,
    workers: Vec<web_sys::Worker>,
    reply: wasm_bindgen_futures::JsFuture,
    n: usize,
}

/// Sends the spectrum-free encodings to a helper to measure (their sketches and stress; the
/// Procrustes alignment is left for the PMDS coordinates, which stage "encodings" makes).
/// D's prepared pairs are made here and kept by `geometry` for the run. `None` when no
/// helper could take them (they are then measured with the others).
pub async fn spectrum_free(geometry: &mut Geometry) -> Option<Meanwhile> {
    let n = geometry.distances().n();
    let encodings = geometry.spectrum_free().ok()?;
    let share: Vec<&Encoding> = encodings.iter().map(|(_, e)| e).collect();
    let no_target = Points { n, dim: 0, data: Vec::new() };
    let (msg, transfer) = geometry.target().ok().and_then(|d| job_message(n, d, &no_target, &share))?;
    let workers = helpers(1).await?;
    let reply = next_message(&workers[0]);
    if workers[0].post_message_with_transfer(&msg, &transfer).is_err() {
        release(workers, false);
        return None;
    }
    Some(Meanwhile { encodings, workers, reply, n })
}

impl Meanwhile {
    /// The measured encodings, empty when the helper failed. From [`ONE_FROM_N`] positions
    /// the helper is then ended, so that the memory its measures took leaves the tab;
    /// below, it goes back to the pool for the measures that follow.
    pub async fn finish(self) -> Vec<Compared> {
        let Meanwhile { encodings, workers, reply, n } = self;
        let answer = reply.await.ok().and_then(|data| decode(&data, n, encodings.len()));
        release(workers, answer.is_some() && n < ONE_FROM_N);
        let Some(measures) = answer else { return Vec::new() };
        let procrustes = posgeo::measures::procrustes::Alignment::default();
        let measured = encodings.into_iter().zip(measures);
        measured
            .map(|((name, encoding), (sketch, stress, _))| Compared {
                name,
                encoding,
                sketch,
                stress,
                procrustes: procrustes.clone(),
            })
            .collect()
    }
}

/// A share as a message: `{ measure: head, pairs, ranks, x, points: [..] }`, with the
/// arrays' buffers to transfer.
fn job_message(n: usize, d: &Target, x: &Points, share: &[&Encoding]) -> Option<(js_sys::Object, js_sys::Array)> {
    let head = Head { n, sum_sq: d.sum_sq(), x_dim: x.dim, encodings: share.iter().map(|e| bare(e)).collect() };
    let head = js_sys::Uint8Array::from(&postcard::to_allocvec(&head).ok()?[..]);
    let pairs = js_sys::Float64Array::from(d.upper());
    let ranks = js_sys::Uint32Array::from(d.doubled_ranks());
    let coords = js_sys::Float64Array::from(&x.data[..]);
    let points = js_sys::Array::new();
    let transfer = js_sys::Array::of4(&head.buffer(), &pairs.buffer(), &ranks.buffer(), &coords.buffer());
    for e in share {
        let a = js_sys::Float64Array::from(&e.points.data[..]);
        transfer.push(&a.buffer());
        points.push(&a);
    }
    let msg = js_sys::Object::new();
    for (key, value) in [
        ("measure", JsValue::from(head)),
        ("pairs", pairs.into()),
        ("ranks", ranks.into()),
        ("x", coords.into()),
        ("points", points.into()),
    ] {
        js_sys::Reflect::set(&msg, &key.into(), &value).ok()?;
    }
    Some((msg, transfer))
}

/// A share from its message (see [`job_message`]), each array copied once into this
/// worker's memory; an error when a part is missing or of the wrong size.
fn job_of(data: &JsValue, head: &js_sys::Uint8Array) -> Result<(usize, Target, Points, Vec<Encoding>), String> {
    let get = |key: &str| js_sys::Reflect::get(data, &key.into()).map_err(|_| format!("no {key} in the job"));
    let f64s =
        |v: JsValue| v.dyn_into::<js_sys::Float64Array>().map(|a| a.to_vec()).map_err(|_| "not f64s".to_string());
    let Head { n, sum_sq, x_dim, mut encodings } = postcard::from_bytes(&head.to_vec()).map_err(|e| e.to_string())?;
    let ranks = get("ranks")?.dyn_into::<js_sys::Uint32Array>().map_err(|_| "ranks are not u32s".to_string())?;
    let d = Target::from_parts(f64s(get("pairs")?)?, sum_sq, ranks.to_vec()).ok_or("D's pairs and ranks differ")?;
    if !d.holds_pairs_of(n) {
        return Err("D's pairs are not those of n positions".to_string());
    }
    let x = Points { n, dim: x_dim, data: f64s(get("x")?)? };
    let points = get("points")?.dyn_into::<js_sys::Array>().map_err(|_| "no coordinates".to_string())?;
    if x.data.len() != n * x_dim || points.length() as usize != encodings.len() {
        return Err("the coordinates do not match the job".to_string());
    }
    for (i, e) in encodings.iter_mut().enumerate() {
        e.points.data = f64s(points.get(i as u32))?;
        if e.points.n != n || e.points.data.len() != n * e.points.dim {
            return Err(format!("encoding {i}'s coordinates do not match n = {n}"));
        }
    }
    Ok((n, d, x, encodings))
}

/// A helper's answer as measures: `count` of them, each sketched on the grid of n positions.
fn decode(data: &JsValue, n: usize, count: usize) -> Option<Vec<Measure>> {
    let bytes = js_sys::Reflect::get(data, &"measured".into()).ok()?.dyn_into::<js_sys::Uint8Array>().ok()?;
    let answer: Answer = postcard::from_bytes(&bytes.to_vec()).ok()?;
    let side = posgeo::measures::sketch::side(n);
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
    let answer = job_of(data, &bytes)
        .map(|(n, d, x, encodings)| measure_against(d, x, n, &encodings))
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
