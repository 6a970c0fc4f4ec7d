//! SMACOF spread over helper workers (wasm32 only). A long context's SMACOF is the page's
//! longest step: each iteration is two n×n×d products, one thread in wasm. The worker that
//! runs the job leaves it for last ([`posgeo::analysis::stage`] with `smacof_later`), then
//! cuts the iteration into the blocks of rows of [`posgeo::smacof::rows`] and deals
//! [`crate::helpers::cores`] helpers a contiguous share of them, of about the same
//! number of pairs ([`RowPlan::shares`]: each block computes the upper triangle's pairs of
//! its rows):
//!
//! 1. `{ smacof_share, shape }`: once, the helper's rows of D (f64s, transferred) with n, d
//!    and its blocks (no reply);
//! 2. `{ smacof_round, step }`: per iteration, the configuration X (f64s, transferred); the
//!    helper answers `{ smacof_part }`: its blocks' shares of σ, then its sums over the pairs
//!    of its blocks (Σ B_ij and Σ B_ij·x_j for the rows from its first on, [`rows::Part`]).
//!    The first round evaluates the start alone (no step), as natively, so a start that is
//!    already exact (d ≥ r_τ) costs no step;
//! 3. `{ smacof_end }`: the helper drops its rows of D.
//!
//! The worker adds the shares in order and applies the stopping rule
//! ([`posgeo::smacof::SmacofRun`]): σ does not depend on how many helpers there were, the
//! configuration only in its last bits ([`rows::combine`]).
//! A helper that fails or answers out of shape is dropped; its blocks are computed by the
//! worker from then on. Without helpers the worker fits SMACOF itself, as natively.

use super::helpers::{cores, helpers, next_message, pooled, release};
use posgeo::analysis::Staged;
use posgeo::metric::DistanceMatrix;
use posgeo::points::Points;
use posgeo::smacof::rows::{self, Part};
use posgeo::smacof::{smacof, target_sum, RowPlan, SmacofFit, SmacofRun, SMACOF_TOL};
use std::cell::RefCell;
use std::ops::Range;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, Worker};

/// From this many positions helpers are started for SMACOF.
const START_FROM_N: usize = 1024;
/// From this many positions helpers already up are used.
const USE_FROM_N: usize = 256;

/// A helper's share: its blocks and their rows of D (row-major).
struct Share {
    n: usize,
    dim: usize,
    blocks: Range<usize>,
    d_rows: Vec<f64>,
}

thread_local! {
    /// The share a helper holds between rounds.
    static SHARE: RefCell<Option<Share>> = const { RefCell::new(None) };
}

/// Fits SMACOF if the run left it to fit, in helpers when n is large enough (module docs):
/// how many helpers shared it to the end (0: the worker alone). `progress` receives the
/// encodings stage's fraction.
pub async fn fit(staged: &mut Staged, progress: &dyn Fn(f64)) -> usize {
    let Some((start, d, cap, (from, to))) = staged.smacof() else { return 0 };
    let (n, plan) = (start.n, RowPlan::new(start.n));
    let wanted = (n >= START_FROM_N || (n >= USE_FROM_N && pooled() > 0)) && start.dim > 0 && cap > 0;
    let k = if wanted { cores().min(plan.len()) } else { 0 };
    let report = |f: f64| progress(from + f * (to - from));
    let (fit, by) = match if k >= 2 { helpers(k).await } else { None } {
        Some(workers) => in_helpers(start, d, cap, &workers, &report).await,
        None => (smacof(start, d, cap, SMACOF_TOL, &mut |f| report(f)), 0),
    };
    staged.set_smacof(fit);
    by
}

/// The helpers sharing a run's blocks, and which of them still answer.
struct Sharing<'a> {
    workers: &'a [Worker],
    alive: Vec<bool>,
    shares: Vec<Range<usize>>,
    plan: RowPlan,
    d: &'a DistanceMatrix,
}

impl Sharing<'_> {
    /// One round from X: σ's numerator and (with `step`) the Guttman step, the shares of the
    /// helpers that answered added to those computed here for the others.
    async fn pass(&mut self, x: &Points, step: bool) -> (f64, Option<Points>) {
        let (n, dim, k) = (x.n, x.dim, self.workers.len());
        let mut replies = Vec::new();
        for (h, w) in self.workers.iter().enumerate() {
            if !self.alive[h] {
                continue;
            }
            match send_round(w, x, step) {
                Some(reply) => replies.push((h, reply)),
                None => self.alive[h] = false,
            }
        }
        let mut parts: Vec<Option<Part>> = vec![None; k];
        for (h, reply) in replies {
            let answer =
                reply.await.ok().and_then(|data| decode(&data, &self.plan, self.shares[h].clone(), (n, dim), step));
            match answer {
                Some(given) => parts[h] = Some(given),
                None => self.alive[h] = false,
            }
        }
        // The shares no helper answered for, here.
        let norms = parts.iter().any(Option::is_none).then(|| rows::norms(x));
        let (d, plan) = (self.d, &self.plan);
        let parts: Vec<Part> = parts
            .into_iter()
            .zip(&self.shares)
            .map(|(p, s)| {
                p.unwrap_or_else(|| rows::part_of(x, norms.as_deref().unwrap_or_default(), d, plan, s.clone(), step))
            })
            .collect();
        rows::combine(x, &parts)
    }
}

/// The run with `workers` sharing the blocks (module docs), and how many of them were still
/// sharing at the end; the rounds are [`SmacofRun::round`]'s, as natively ([`smacof`]).
async fn in_helpers(
    start: &Points,
    d: &DistanceMatrix,
    cap: usize,
    workers: &[Worker],
    report: &dyn Fn(f64),
) -> (SmacofFit, usize) {
    let (dim, plan) = (start.dim, RowPlan::new(start.n));
    let shares: Vec<Range<usize>> = plan.shares(workers.len());
    let alive = workers.iter().zip(&shares).map(|(w, s)| send_share(w, &plan, d, dim, s.clone())).collect();
    let mut sharing = Sharing { workers, alive, shares, plan, d };
    let mut run = SmacofRun::new(start.clone(), target_sum(d), cap, SMACOF_TOL);
    while let Some(r) = run.round() {
        let evaluates = r.evaluates;
        let (stress, next) = sharing.pass(r.x, r.step).await;
        let going = run.took(evaluates, stress, next);
        if evaluates {
            report(run.progress());
        }
        if !going {
            break;
        }
    }
    for (w, _) in workers.iter().zip(&sharing.alive).filter(|(_, a)| **a) {
        let msg = js_sys::Object::new();
        js_sys::Reflect::set(&msg, &"smacof_end".into(), &JsValue::TRUE).ok();
        w.post_message(&msg).ok();
    }
    let by = sharing.alive.iter().filter(|a| **a).count();
    release(workers.to_vec(), by == workers.len());
    (run.finish(), by)
}

/// Sends helper `w` its blocks' rows of D (f64s, transferred) with n, d and the blocks;
/// false when it could not be sent.
fn send_share(w: &Worker, plan: &RowPlan, d: &DistanceMatrix, dim: usize, blocks: Range<usize>) -> bool {
    let (n, rows) = (d.n(), plan.span(blocks.clone()));
    let arr = js_sys::Float64Array::from(&d.as_slice()[rows.start * n..rows.end * n]);
    let shape = js_sys::Float64Array::from(&[n as f64, dim as f64, blocks.start as f64, blocks.end as f64][..]);
    let msg = js_sys::Object::new();
    js_sys::Reflect::set(&msg, &"smacof_share".into(), &arr).ok();
    js_sys::Reflect::set(&msg, &"shape".into(), &shape).ok();
    w.post_message_with_transfer(&msg, &js_sys::Array::of1(&arr.buffer())).is_ok()
}

/// Sends helper `w` a round; the future of its answer.
fn send_round(w: &Worker, x: &Points, step: bool) -> Option<wasm_bindgen_futures::JsFuture> {
    let arr = js_sys::Float64Array::from(&x.data[..]);
    let msg = js_sys::Object::new();
    js_sys::Reflect::set(&msg, &"smacof_round".into(), &arr).ok();
    js_sys::Reflect::set(&msg, &"step".into(), &JsValue::from_bool(step)).ok();
    let reply = next_message(w);
    w.post_message_with_transfer(&msg, &js_sys::Array::of1(&arr.buffer())).ok()?;
    Some(reply)
}

/// A helper's answer for `blocks`: their part, or `None` when it is not one of that shape.
fn decode(data: &JsValue, plan: &RowPlan, blocks: Range<usize>, (n, dim): (usize, usize), step: bool) -> Option<Part> {
    let values = js_sys::Reflect::get(data, &"smacof_part".into()).ok()?.dyn_into::<js_sys::Float64Array>().ok()?;
    let values = values.to_vec();
    let (m, from) = (blocks.len(), plan.span(blocks).start);
    let rows = if step { n - from } else { 0 };
    if values.len() != m + rows * (dim + 1) {
        return None;
    }
    let (stresses, rest) = values.split_at(m);
    let (row_sums, sums) = rest.split_at(rows);
    Some(Part { from, stresses: stresses.to_vec(), sums: sums.to_vec(), row_sums: row_sums.to_vec() })
}

/// The helper's side: keeps its share, answers a round, or drops its share. Returns false
/// when the message is not one of SMACOF's.
pub fn serve(scope: &DedicatedWorkerGlobalScope, data: &JsValue) -> bool {
    let get = |key: &str| js_sys::Reflect::get(data, &key.into()).ok().filter(|v| !v.is_undefined());
    if let Some(rows) = get("smacof_share").and_then(|v| v.dyn_into::<js_sys::Float64Array>().ok()) {
        let shape = get("shape").and_then(|v| v.dyn_into::<js_sys::Float64Array>().ok()).map(|a| a.to_vec());
        let share = match shape.as_deref() {
            Some(&[n, dim, from, to]) => Some(Share {
                n: n as usize,
                dim: dim as usize,
                blocks: from as usize..to as usize,
                d_rows: rows.to_vec(),
            }),
            _ => None,
        };
        SHARE.with(|s| *s.borrow_mut() = share);
        return true;
    }
    if get("smacof_end").is_some() {
        SHARE.with(|s| *s.borrow_mut() = None);
        return true;
    }
    let Some(x) = get("smacof_round").and_then(|v| v.dyn_into::<js_sys::Float64Array>().ok()) else { return false };
    let step = get("step").and_then(|v| v.as_bool()).unwrap_or(false);
    let msg = js_sys::Object::new();
    match SHARE.with(|s| s.borrow().as_ref().and_then(|share| round(share, x.to_vec(), step))) {
        Some(values) => {
            let arr = js_sys::Float64Array::from(&values[..]);
            js_sys::Reflect::set(&msg, &"smacof_part".into(), &arr).ok();
            scope.post_message_with_transfer(&msg, &js_sys::Array::of1(&arr.buffer())).ok();
        }
        None => {
            let e = JsValue::from_str("no share of D for this round");
            js_sys::Reflect::set(&msg, &"error".into(), &e).ok();
            scope.post_message(&msg).ok();
        }
    }
    true
}

/// A helper's round: its blocks' shares of σ, then (with a step) its part's Σ B_ij and
/// Σ B_ij·x_j for the rows from its first on.
fn round(share: &Share, data: Vec<f64>, step: bool) -> Option<Vec<f64>> {
    let (n, dim) = (share.n, share.dim);
    let plan = RowPlan::new(n);
    let span = plan.span(share.blocks.clone());
    if data.len() != n * dim || share.d_rows.len() != span.len() * n {
        return None;
    }
    let x = Points { n, dim, data };
    let norms = rows::norms(&x);
    let part = rows::part(&x, &norms, &share.d_rows, &plan, share.blocks.clone(), step);
    let mut values = part.stresses;
    values.extend_from_slice(&part.row_sums);
    values.extend_from_slice(&part.sums);
    Some(values)
}
