//! SMACOF spread over helper workers (wasm32 only). A long context's SMACOF is the page's
//! longest step: each iteration is two n×n×d products, one thread in wasm. The worker that
//! runs the job leaves it for last ([`posgeo::analysis::stage`] with `smacof_later`), then
//! cuts the iteration into the blocks of rows of [`posgeo::smacof::rows`] and deals
//! [`crate::pool::cores`] helpers a contiguous share of them, of about the same
//! number of pairs ([`RowPlan::shares`]: each block computes the upper triangle's pairs of
//! its rows):
//!
//! 1. [`Job::SmacofShare`]: once, n, d and the helper's blocks, with their rows of D beside
//!    (f64s, transferred; no reply);
//! 2. [`Job::SmacofRound`]: per iteration, the configuration X; the helper answers
//!    [`Answer::SmacofPart`]: its blocks' shares of σ, then its sums over the pairs
//!    of its blocks (Σ B_ij and Σ B_ij·x_j for the rows from its first on, [`rows::Part`]).
//!    The first round evaluates the start alone (no step), as natively, so a start that is
//!    already exact (d ≥ r_τ) costs no step;
//! 3. [`Job::SmacofEnd`]: the helper drops its rows of D.
//!
//! The worker adds the shares in order and applies the stopping rule
//! ([`posgeo::smacof::SmacofRun`]): σ does not depend on how many helpers there were, the
//! configuration only in its last bits ([`rows::combine`]).
//! A helper that fails or answers out of shape is dropped; its blocks are computed by the
//! worker from then on. Without helpers the worker fits SMACOF itself, as natively.

use super::courier::post_job;
use super::pool::{cores, failed, helpers, pooled, release};
use super::protocol::jobs::{Answer, Job, JobError};
use posgeo::analysis::Staged;
use posgeo::metric::DistanceMatrix;
use posgeo::points::Points;
use posgeo::smacof::rows::{self, Part};
use posgeo::smacof::{smacof, target_sum, RowPlan, SmacofFit, SmacofRun, SMACOF_TOL};
use std::ops::Range;
use web_sys::Worker;

/// From this many positions helpers are started for SMACOF.
const START_FROM_N: usize = 1024;
/// From this many positions helpers already up are used.
const USE_FROM_N: usize = 256;

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
            let answer = super::courier::reply(reply).await;
            match decode(answer, &self.plan, self.shares[h].clone(), (n, dim), step) {
                Ok(given) => parts[h] = Some(given),
                Err(e) => {
                    failed(format!("SMACOF in helpers: {e}"));
                    self.alive[h] = false;
                }
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
        // A helper that cannot be told to drop its share still answers no more rounds: its
        // share goes with it when the pool is ended.
        if let Err(e) = post_job(w, &Job::SmacofEnd, &[], &[]) {
            failed(format!("SMACOF in helpers: {e}"));
        }
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
    let job = Job::SmacofShare { n, dim, blocks };
    post_job(w, &job, &[arr.clone().into()], &[arr.buffer().into()])
        .map_err(|e| failed(format!("SMACOF in helpers: {e}")))
        .is_ok()
}

/// Sends helper `w` a round; the future of its answer.
fn send_round(w: &Worker, x: &Points, step: bool) -> Option<super::courier::Pending> {
    let reply = super::courier::expect(w, super::courier::SILENCE_MS, None);
    let job = Job::SmacofRound { x: x.data.clone(), step };
    post_job(w, &job, &[], &[]).map_err(|e| failed(format!("SMACOF in helpers: {e}"))).ok()?;
    Some(reply)
}

/// A helper's answer for `blocks`: their part, or why it is not one of that shape.
fn decode(
    answer: Answer,
    plan: &RowPlan,
    blocks: Range<usize>,
    (n, dim): (usize, usize),
    step: bool,
) -> Result<Part, JobError> {
    let values = match answer {
        Answer::SmacofPart { values } => values,
        Answer::Failed { message } => return Err(JobError::Helper(message)),
        _ => return Err(JobError::mismatch("a SMACOF helper gave another answer")),
    };
    let (m, from) = (blocks.len(), plan.span(blocks).start);
    let rows = if step { n - from } else { 0 };
    if values.len() != m + rows * (dim + 1) {
        return Err(JobError::mismatch(format!("a SMACOF helper answered {} numbers for {m} blocks", values.len())));
    }
    let (stresses, rest) = values.split_at(m);
    let (row_sums, sums) = rest.split_at(rows);
    Ok(Part { from, stresses: stresses.to_vec(), sums: sums.to_vec(), row_sums: row_sums.to_vec() })
}
