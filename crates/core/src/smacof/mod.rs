//! Metric MDS by **SMACOF** — the `smacof` encoding of docs/MATH.md §5, minimising raw stress σ
//! (docs/MATH.md §6, the paper's Eq. 4) from the PMDS start X_d.
//!
//! Iteration (unit weights): X ← (1/n)·B(X)·X with B_ij = −D_ij/δ_ij (i ≠ j, δ_ij > 0, else 0)
//! and B_ii = −Σ_{j≠i} B_ij. Each step never raises σ (the majorisation inequality).
//!
//! **Stopping rule** (docs/MATH.md §5, the rule of R's `smacof`, the reference implementation): stop
//! after the first iteration that lowers σ by less than [`SMACOF_TOL`] = 1e-6, absolute (σ is
//! already normalised by Σ D²), keeping that iteration's configuration
//! ([`SmacofStop::Tolerance`]); stop when σ no longer decreases, keeping the better
//! configuration before the step ([`SmacofStop::NoDecrease`]); or stop after `smacof_max_iter`
//! iterations (default 500, [`SmacofStop::Cap`]). A start already at round-off stress
//! (σ ≤ 1e-24: PMDS exact, d ≥ r_τ under the chord) runs no iteration and counts as stopped by
//! the tolerance, since any step would lower σ by less than it. σ is then within about the
//! tolerance of the local minimum, so the page shows SMACOF's digits below 1e-5 as not
//! significant. Each iteration costs about 3n²d flops (δ by the upper triangle's Gram product,
//! then B(X)·X).
//!
//! The rule lives in one place, [`SmacofRun`], a state machine that is told σ of each
//! configuration and asked for the next. [`smacof`], the pipeline's form, computes an
//! iteration by blocks of rows ([`rows`]): σ, B(X) and B(X)·X in one pass over the pairs,
//! a fixed number of shares of the blocks side by side natively (the page spreads the same
//! blocks over its helper workers). [`smacof_one_worker`] computes it as the whole n×n
//! matrices (δ, then B, then one B·X product); the tests hold the two forms to each other.
//! Both read only the upper triangle of the pairs: 3n²d flops an iteration.

pub mod rows;
mod run;

use crate::metric::DistanceMatrix;
use crate::points::Points;
use faer::Mat;
pub use rows::RowPlan;
pub use run::{Round, SmacofRun};
use serde::{Deserialize, Serialize};

/// Raw stress numerator Σ_{i<j} (δ_ij − D_ij)², δ row-major n×n.
fn raw_sum(delta: &[f64], target: &DistanceMatrix) -> f64 {
    let n = target.n();
    let mut s = 0.0;
    for i in 0..n {
        for (a, b) in delta[i * n + i + 1..(i + 1) * n].iter().zip(&target.row(i)[i + 1..]) {
            let e = a - b;
            s += e * e;
        }
    }
    s
}

/// The absolute decrease of σ below which SMACOF stops (module docs; R `smacof`'s `eps`).
pub const SMACOF_TOL: f64 = 1e-6;

/// The shares of the blocks [`smacof`] computes side by side: a fixed number, so its bits
/// do not depend on the machine's cores ([`crate::par`]'s rule), enough for eight of them.
const SHARES: usize = 8;

/// The σ digits below this are not significant in SMACOF's numbers (ten times the tolerance).
pub const SMACOF_SIGNIFICANT: f64 = 1e-5;

/// Why SMACOF stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SmacofStop {
    /// An iteration lowered σ by less than the tolerance (or the start was exact).
    Tolerance,
    /// σ did not decrease (round-off): the configuration before the step is kept.
    NoDecrease,
    /// The iteration cap was reached.
    Cap,
}

impl SmacofStop {
    /// What the summary says.
    pub fn text(self) -> &'static str {
        match self {
            SmacofStop::Tolerance => "σ fell by less than 1e-6 in an iteration",
            SmacofStop::NoDecrease => "σ stopped decreasing",
            SmacofStop::Cap => "the iteration cap was reached",
        }
    }
}

/// The result of [`smacof`].
#[derive(Debug, Clone, PartialEq)]
pub struct SmacofFit {
    /// The configuration.
    pub points: Points,
    /// Iterations run.
    pub iterations: usize,
    /// Why it stopped.
    pub stop: SmacofStop,
}

/// B(X) of the Guttman transform, written into `b` (every entry: what it held does not
/// matter). B is symmetric, so column j is built from row j of δ (row-major n×n) and of D
/// (contiguous in both), B_jj = −Σ_{i≠j} B_ij summed in row order.
fn guttman_b(delta: &[f64], target: &DistanceMatrix, b: &mut Mat<f64>) {
    let n = target.n();
    for j in 0..n {
        let (dr, tr) = (&delta[j * n..(j + 1) * n], target.row(j));
        let col = b.col_as_slice_mut(j);
        let mut s = 0.0;
        for i in 0..n {
            let v = if i != j && dr[i] > 0.0 { -tr[i] / dr[i] } else { 0.0 };
            col[i] = v;
            s += v;
        }
        col[j] = -s;
    }
}

/// Σ_{i<j} D_ij², σ's normaliser.
pub fn target_sum(target: &DistanceMatrix) -> f64 {
    let n = target.n();
    let mut s = 0.0;
    for i in 0..n {
        for v in &target.row(i)[i + 1..] {
            s += v * v;
        }
    }
    s
}

/// SMACOF as whole matrices, the tests' second form of [`smacof`] (the same rule and
/// arguments): δ by the upper-triangle Gram product, then B, then B·X (faer's products on
/// every core natively, the rest on one); two n×n buffers for the whole run.
pub fn smacof_one_worker(
    start: &Points,
    target: &DistanceMatrix,
    max_iter: usize,
    tol: f64,
    progress: &mut dyn FnMut(f64),
) -> SmacofFit {
    let n = start.n;
    let mut run = SmacofRun::new(start.clone(), target_sum(target), max_iter, tol);
    let (mut delta, mut b) = (Vec::new(), None::<Mat<f64>>);
    while let Some(x) = run.to_evaluate() {
        x.distances_into(&mut delta);
        let going = run.evaluated(raw_sum(&delta, target));
        progress(run.progress());
        if !going {
            break;
        }
        let Some(x) = run.step_from() else { break };
        let b = b.get_or_insert_with(|| Mat::<f64>::zeros(n, n));
        guttman_b(&delta, target, b);
        let xm = Mat::from_fn(n, x.dim, |i, k| x.data[i * x.dim + k]);
        let next = &*b * &xm;
        let next = Points::from_fn(n, x.dim, |i, k| next[(i, k)] / n as f64);
        run.stepped(next);
    }
    run.finish()
}

/// SMACOF from a start configuration, stopping by the rule of the module docs with `tol` the
/// absolute decrease of σ ([`SMACOF_TOL`] in the pipeline); `progress` receives the fraction
/// of `max_iter` done. Computed block by block ([`rows`]), the blocks cut into [`SHARES`]
/// shares of about the same number of pairs ([`RowPlan::shares`]) computed side by side, so
/// σ, B(X) and B(X)·X of an iteration are made in one pass over the pairs; the shares' sums
/// are added in share order, so the result is the same on any number of cores. The start is
/// evaluated alone first: it is often exact already (PMDS with d ≥ r_τ), and then no step is
/// computed.
pub fn smacof(
    start: &Points,
    target: &DistanceMatrix,
    max_iter: usize,
    tol: f64,
    progress: &mut dyn FnMut(f64),
) -> SmacofFit {
    let plan = RowPlan::new(start.n);
    let shares = plan.shares(SHARES);
    let pass = |x: &Points, step: bool| {
        let norms = rows::norms(x);
        let parts = crate::par::map(shares.len(), |h| rows::part_of(x, &norms, target, &plan, shares[h].clone(), step));
        rows::combine(x, &parts)
    };
    let mut run = SmacofRun::new(start.clone(), target_sum(target), max_iter, tol);
    while let Some(r) = run.round() {
        let evaluates = r.evaluates;
        let (stress, next) = pass(r.x, r.step);
        let going = run.took(evaluates, stress, next);
        if evaluates {
            progress(run.progress());
        }
        if !going {
            break;
        }
    }
    run.finish()
}

#[cfg(test)]
mod tests;
