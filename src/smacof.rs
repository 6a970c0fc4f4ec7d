//! Metric MDS by **SMACOF** — the `smacof` encoding of SPEC §5, minimising raw stress σ
//! (SPEC §6, the paper's Eq. 4) from the PMDS start X_d.
//!
//! Iteration (unit weights): X ← (1/n)·B(X)·X with B_ij = −D_ij/δ_ij (i ≠ j, δ_ij > 0, else 0)
//! and B_ii = −Σ_{j≠i} B_ij. Stopping rule (SPEC §5 leaves it to us; it must not change a
//! digit users read, i.e. 4 significant figures of σ): SMACOF's stress decreases
//! monotonically and, near convergence, linearly — each decrease Δ_k ≈ ρ·Δ_{k−1}. The
//! stress still to come off is then about Δ_k·ρ/(1−ρ); iterations stop once that projection
//! (with ρ estimated as Δ_k/Δ_{k−1}) is below [`SMACOF_REL_TOL`] = 1e-6 of σ — twenty times
//! below half a unit of the 4th significant figure (≥ 5e-5 of σ). They also stop when the
//! stress reaches round-off (σ ≤ 1e-24), stops decreasing, or after `smacof_max_iter` (500).
//! The iterations used are reported with the encoding. Each iteration
//! costs two n×n×d products; it only iterates when PMDS is not already exact (d < r_τ, or
//! a non-Euclidean metric).

use crate::metric::DistanceMatrix;
use crate::points::Points;
use faer::Mat;

/// Raw stress numerator Σ_{i<j} (δ_ij − D_ij)².
fn raw_sum(delta: &DistanceMatrix, target: &DistanceMatrix) -> f64 {
    let n = target.n();
    let mut s = 0.0;
    for i in 0..n {
        for (a, b) in delta.row(i)[i + 1..].iter().zip(&target.row(i)[i + 1..]) {
            let e = a - b;
            s += e * e;
        }
    }
    s
}

/// The projected remaining relative decrease of σ at which SMACOF stops (module docs).
pub const SMACOF_REL_TOL: f64 = 1e-6;

/// Whether SMACOF stops after a step from `before` to `now` whose previous step decreased
/// the stress by `last` (None on the first step): the rule of the module docs, `tol` being
/// the projected remaining relative decrease allowed.
fn converged(before: f64, now: f64, last: Option<f64>, tol: f64) -> bool {
    let step = before - now;
    if step <= 0.0 {
        return true; // no longer decreasing: round-off has the last word
    }
    let Some(last) = last else { return step <= tol * now };
    let rate = (step / last).min(1.0 - 1e-12);
    step * rate / (1.0 - rate) <= tol * now
}

/// B(X) of the Guttman transform. B is symmetric, so column j is built from row j of δ and
/// D (contiguous in both), B_jj = −Σ_{i≠j} B_ij summed in row order.
fn guttman_b(delta: &DistanceMatrix, target: &DistanceMatrix) -> Mat<f64> {
    let n = target.n();
    let mut b = Mat::<f64>::zeros(n, n);
    for j in 0..n {
        let (dr, tr) = (delta.row(j), target.row(j));
        let col = b.col_as_slice_mut(j);
        let mut s = 0.0;
        for i in 0..n {
            let v = if i != j && dr[i] > 0.0 { -tr[i] / dr[i] } else { 0.0 };
            col[i] = v;
            s += v;
        }
        col[j] = -s;
    }
    b
}

/// SMACOF from a start configuration; returns the configuration and the iterations run.
/// `tol` is the projected remaining relative decrease at which it stops
/// ([`SMACOF_REL_TOL`] in the pipeline). `progress` receives the fraction of `max_iter` done.
pub fn smacof(
    start: &Points,
    target: &DistanceMatrix,
    max_iter: usize,
    tol: f64,
    progress: &mut dyn FnMut(f64),
) -> (Points, usize) {
    let (n, dim) = (start.n, start.dim);
    let mut x = start.clone();
    if dim == 0 || n < 2 {
        return (x, 0);
    }
    let mut delta = x.distances();
    let mut stress = raw_sum(&delta, target);
    let floor = 1e-24 * target.upper().iter().map(|v| v * v).sum::<f64>();
    let mut it = 0;
    let mut last_step = None;
    while it < max_iter && stress > floor {
        let b = guttman_b(&delta, target);
        let xm = Mat::from_fn(n, dim, |i, k| x.data[i * dim + k]);
        let next = &b * &xm;
        let candidate = Points::from_fn(n, dim, |i, k| next[(i, k)] / n as f64);
        let cand_delta = candidate.distances();
        let new_stress = raw_sum(&cand_delta, target);
        it += 1;
        progress(it as f64 / max_iter as f64);
        if new_stress > stress {
            break; // round-off: keep the better configuration
        }
        let done = converged(stress, new_stress, last_step, tol);
        last_step = Some(stress - new_stress);
        (x, delta, stress) = (candidate, cand_delta, new_stress);
        if done {
            break;
        }
    }
    (x, it)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alibi(n: usize, m: f64) -> Points {
        Points::from_fn(n, 1, |i, _| m * i as f64)
    }

    #[test]
    fn smacof_never_increases_raw_stress() {
        // A non-Euclidean target: SMACOF from a poor 1-D start must improve it.
        let target = DistanceMatrix::from_fn(5, |i, j| 1.0 + ((i * 7 + j * 3) % 5) as f64 * 0.1);
        let start = alibi(5, 0.3);
        let before = raw_sum(&start.distances(), &target);
        let (x, it) = smacof(&start, &target, 500, 1e-12, &mut |_| {});
        let after = raw_sum(&x.distances(), &target);
        assert!(it > 0 && after < before, "{after} !< {before}");
    }

    #[test]
    fn the_stopping_rule_keeps_four_significant_figures() {
        // Non-Euclidean targets, started as the pipeline starts (classical MDS at d = 2, 3):
        // σ when the rule stops equals, to 4 significant figures, σ after 8 000 iterations (or round-off).
        for (n, seed, d) in [(12, 1usize, 2), (30, 2, 3), (60, 3, 2)] {
            let target = DistanceMatrix::from_fn(n, |i, j| 1.0 + ((i * 7 + j * 3 + seed * (i + j)) % 11) as f64 * 0.05);
            let tt: f64 = target.upper().iter().map(|v| v * v).sum();
            let start = crate::mds::Spectrum::of_distances(&target).expect("spectrum").coordinates(d);
            let (x, it) = smacof(&start, &target, 20_000, SMACOF_REL_TOL, &mut |_| {});
            let (y, long) = smacof(&start, &target, 8_000, 0.0, &mut |_| {});
            let (a, b) = (raw_sum(&x.distances(), &target) / tt, raw_sum(&y.distances(), &target) / tt);
            let sig4 = |v: f64| format!("{v:.3e}");
            assert_eq!(sig4(a), sig4(b), "n = {n}: {it} vs {long} iterations");
            assert!(it < long, "the rule stops early: {it} < {long}");
        }
    }
}
