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

use super::courier::Pending;
use super::courier::{post_job, reply};
use super::pool::{cores, end_pooled, failed, helpers, pooled, release};
use super::protocol::jobs::{bare, Answer, Job};
use posgeo::analysis::{Compared, Geometry, Measure, Staged};
use posgeo::encodings::Encoding;
use posgeo::measures::stress::Target;
use posgeo::points::Points;
use wasm_bindgen::prelude::*;

/// From this many positions the helpers are started for measuring alone (below it, only
/// helpers already up are used: starting one costs about as much as it would save).
const START_FROM_N: usize = 1024;
/// Below this many positions the worker measures alone.
const USE_FROM_N: usize = 256;
/// From this many positions one helper measures (see [`helpers_for`]), and it and the idle
/// helpers are then ended (their memory leaves the tab with them).
const ONE_FROM_N: usize = super::mds::FROM_N;

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
        let Some(reply) = send(w, n, d, x, share) else { break };
        replies.push((reply, share.len()));
    }
    let wanted = pending.len();
    // On an error the corpus side is left undone: `finish` does it again and reports the error.
    let _ = staged.corpus_side();
    let mut given = Vec::with_capacity(wanted);
    let mut ok = replies.len() == k;
    for (future, count) in replies {
        let answer = match ok {
            true => decode(reply(future).await, n, count),
            false => None,
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
    reply: Pending,
    n: usize,
}

/// Sends the spectrum-free encodings to a helper to measure (their sketches and stress; the
/// Procrustes alignment is left for the PMDS coordinates, which stage "encodings" makes).
/// D's prepared pairs are made here and kept by `geometry` for the run. `None` when no
/// helper could take them (they are then measured with the others).
pub async fn spectrum_free(geometry: &mut Geometry) -> Option<Meanwhile> {
    let n = geometry.distances().n();
    // Encodings that cannot be built here are built (and their error given) with the others.
    let encodings = geometry.spectrum_free().ok()?;
    let share: Vec<&Encoding> = encodings.iter().map(|(_, e)| e).collect();
    let no_target = Points { n, dim: 0, data: Vec::new() };
    let d = geometry.target().map_err(|e| failed(format!("measuring in a helper: {e}"))).ok()?;
    let workers = helpers(1).await?;
    let Some(reply) = send(&workers[0], n, d, &no_target, &share) else {
        release(workers, false);
        return None;
    };
    Some(Meanwhile { encodings, workers, reply, n })
}

impl Meanwhile {
    /// The measured encodings, empty when the helper failed. From [`ONE_FROM_N`] positions
    /// the helper is then ended, so that the memory its measures took leaves the tab;
    /// below, it goes back to the pool for the measures that follow.
    pub async fn finish(self) -> Vec<Compared> {
        let Meanwhile { encodings, workers, reply, n } = self;
        let answer = decode(super::courier::reply(reply).await, n, encodings.len());
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

/// Sends a share to helper `w`: the job, with D's pairs, their ranks, the PMDS coordinates
/// and each encoding's coordinates beside it (transferred); the future of its answer.
fn send(w: &web_sys::Worker, n: usize, d: &Target, x: &Points, share: &[&Encoding]) -> Option<Pending> {
    let encodings = share.iter().map(|e| bare(e)).collect();
    let job = Job::Measure { n, sum_sq: d.sum_sq(), x_dim: x.dim, encodings };
    let pairs = js_sys::Float64Array::from(d.upper());
    let ranks = js_sys::Uint32Array::from(d.doubled_ranks());
    let coords = js_sys::Float64Array::from(&x.data[..]);
    let mut beside: Vec<JsValue> = vec![pairs.clone().into(), ranks.clone().into(), coords.clone().into()];
    let mut transfer: Vec<JsValue> = vec![pairs.buffer().into(), ranks.buffer().into(), coords.buffer().into()];
    for e in share {
        let a = js_sys::Float64Array::from(&e.points.data[..]);
        transfer.push(a.buffer().into());
        beside.push(a.into());
    }
    let reply = super::courier::expect(w, super::courier::SILENCE_MS, None);
    match post_job(w, &job, &beside, &transfer) {
        Ok(()) => Some(reply),
        Err(e) => {
            failed(format!("measuring in helpers: {e}"));
            None
        }
    }
}

/// A helper's answer as measures: `count` of them, each sketched on the grid of n positions;
/// `None` (the failure noted for the page) otherwise.
fn decode(answer: Answer, n: usize, count: usize) -> Option<Vec<Measure>> {
    let side = posgeo::measures::sketch::side(n);
    let problem = match answer {
        Answer::Measured { measures }
            if measures.len() == count && measures.iter().all(|(sketch, ..)| sketch.blocks.len() == side * side) =>
        {
            return Some(measures);
        }
        Answer::Measured { measures } => format!("{} measures for {count} encodings", measures.len()),
        Answer::Failed { message } => message,
        _ => "a measuring helper gave another answer".into(),
    };
    failed(format!("measuring in helpers: {problem}"));
    None
}
