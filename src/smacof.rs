//! Metric MDS by **SMACOF** — the `smacof` encoding of SPEC §5, minimising raw stress σ
//! (SPEC §6, the paper's Eq. 4) from the PMDS start X_d.
//!
//! Iteration (unit weights): X ← (1/n)·B(X)·X with B_ij = −D_ij/δ_ij (i ≠ j, δ_ij > 0, else 0)
//! and B_ii = −Σ_{j≠i} B_ij. Each step never raises σ (the majorisation inequality).
//!
//! **Stopping rule** (SPEC §5, the rule of R's `smacof`, the reference implementation): stop
//! after the first iteration that lowers σ by less than [`SMACOF_TOL`] = 1e-6, absolute (σ is
//! already normalised by Σ D²), keeping that iteration's configuration
//! ([`SmacofStop::Tolerance`]); stop when σ no longer decreases, keeping the better
//! configuration before the step ([`SmacofStop::NoDecrease`]); or stop after `smacof_max_iter`
//! iterations (default 500, [`SmacofStop::Cap`]). A start already at round-off stress
//! (σ ≤ 1e-24: PMDS exact, d ≥ r_τ under the chord) runs no iteration and counts as stopped by
//! the tolerance, since any step would lower σ by less than it. σ is then within about the
//! tolerance of the local minimum, so the page shows SMACOF's digits below 1e-5 as not
//! significant. Each iteration costs two n×n×d products.

use crate::metric::DistanceMatrix;
use crate::points::Points;
use faer::Mat;
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

/// SMACOF from a start configuration, stopping by the rule of the module docs with `tol` the
/// absolute decrease of σ ([`SMACOF_TOL`] in the pipeline). `progress` receives the fraction
/// of `max_iter` done.
pub fn smacof(
    start: &Points,
    target: &DistanceMatrix,
    max_iter: usize,
    tol: f64,
    progress: &mut dyn FnMut(f64),
) -> SmacofFit {
    let (n, dim) = (start.n, start.dim);
    let mut x = start.clone();
    if dim == 0 || n < 2 {
        return SmacofFit { points: x, iterations: 0, stop: SmacofStop::Tolerance };
    }
    let tt: f64 = target.upper().iter().map(|v| v * v).sum();
    // δ of X and of the candidate, and B: three n×n buffers for the whole run.
    let (mut delta, mut cand_delta) = (Vec::new(), Vec::new());
    x.distances_into(&mut delta);
    let mut b = Mat::<f64>::zeros(n, n);
    let mut stress = raw_sum(&delta, target);
    let floor = 1e-24 * tt;
    let mut it = 0;
    let mut stop = SmacofStop::Tolerance;
    while stress > floor {
        if it >= max_iter {
            stop = SmacofStop::Cap;
            break;
        }
        guttman_b(&delta, target, &mut b);
        let xm = Mat::from_fn(n, dim, |i, k| x.data[i * dim + k]);
        let next = &b * &xm;
        let candidate = Points::from_fn(n, dim, |i, k| next[(i, k)] / n as f64);
        candidate.distances_into(&mut cand_delta);
        let new_stress = raw_sum(&cand_delta, target);
        it += 1;
        progress(it as f64 / max_iter.max(1) as f64);
        if new_stress >= stress {
            stop = SmacofStop::NoDecrease; // round-off: keep the better configuration
            break;
        }
        let small = stress / tt - new_stress / tt < tol;
        (x, stress) = (candidate, new_stress);
        std::mem::swap(&mut delta, &mut cand_delta);
        if small {
            break;
        }
    }
    SmacofFit { points: x, iterations: it, stop }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alibi(n: usize, m: f64) -> Points {
        Points::from_fn(n, 1, |i, _| m * i as f64)
    }

    fn sigma(x: &Points, target: &DistanceMatrix) -> f64 {
        raw_sum(x.distances().as_slice(), target) / target.upper().iter().map(|v| v * v).sum::<f64>()
    }

    #[test]
    fn smacof_never_increases_raw_stress() {
        // A non-Euclidean target: SMACOF from a poor 1-D start must improve it.
        let target = DistanceMatrix::from_fn(5, |i, j| 1.0 + ((i * 7 + j * 3) % 5) as f64 * 0.1);
        let start = alibi(5, 0.3);
        let fit = smacof(&start, &target, 500, 1e-12, &mut |_| {});
        assert!(fit.iterations > 0 && sigma(&fit.points, &target) < sigma(&start, &target));
    }

    #[test]
    fn it_stops_after_the_first_step_below_the_tolerance() {
        // Replaying the iterations one cap at a time: the run stops at the first k whose step
        // lowered σ by less than 1e-6, and every earlier step lowered it by at least that.
        for (n, seed, d) in [(12, 1usize, 2), (30, 2, 3)] {
            let target = DistanceMatrix::from_fn(n, |i, j| 1.0 + ((i * 7 + j * 3 + seed * (i + j)) % 11) as f64 * 0.05);
            let start = crate::mds::Spectrum::of_distances(&target).expect("spectrum").coordinates(d);
            let fit = smacof(&start, &target, 20_000, SMACOF_TOL, &mut |_| {});
            assert_eq!(fit.stop, SmacofStop::Tolerance, "n = {n}");
            // The iteration depends on X alone, so single steps chained replay the run.
            let mut xs = vec![start.clone()];
            for _ in 0..fit.iterations {
                let next = smacof(&xs[xs.len() - 1], &target, 1, 0.0, &mut |_| {}).points;
                xs.push(next);
            }
            let at: Vec<f64> = xs.iter().map(|x| sigma(x, &target)).collect();
            let k = fit.iterations;
            assert!(k >= 2, "n = {n}: {k} iterations");
            assert!(at[k - 1] - at[k] < SMACOF_TOL, "n = {n}: the last step is below the tolerance");
            for j in 1..k {
                assert!(at[j - 1] - at[j] >= SMACOF_TOL, "n = {n}: step {j} was already below it");
            }
            assert_eq!(sigma(&fit.points, &target), at[k]);
        }
    }

    #[test]
    fn the_cap_and_an_exact_start_are_reported() {
        let target = DistanceMatrix::from_fn(12, |i, j| 1.0 + ((i * 7 + j * 3 + i + j) % 11) as f64 * 0.05);
        let start = crate::mds::Spectrum::of_distances(&target).expect("spectrum").coordinates(2);
        let capped = smacof(&start, &target, 1, SMACOF_TOL, &mut |_| {});
        assert_eq!((capped.iterations, capped.stop), (1, SmacofStop::Cap));
        // Points on a line are their own exact configuration: nothing to iterate.
        let line = alibi(6, 1.0);
        let exact = smacof(&line, &line.distances(), 500, SMACOF_TOL, &mut |_| {});
        assert_eq!((exact.iterations, exact.stop), (0, SmacofStop::Tolerance));
    }
}
