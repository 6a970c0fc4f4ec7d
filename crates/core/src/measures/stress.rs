//! Stage 6 — **stress**: how faithfully an encoding's distances δ reproduce the corpus
//! metric D (`docs/MATH.md` §6; the paper's Eq. 4). All sums run over pairs i < j.
//!
//! * Raw stress σ(P) = Σ (δ_ij − D_ij)² / Σ D_ij².
//! * Scale-optimal stress σ*(P) = min_{a≥0} Σ (a·δ_ij − D_ij)² / Σ D_ij²
//!   = 1 − (Σ δD)² / (Σ δ² · Σ D²), attained at a* = Σ δD / Σ δ². It is evaluated as
//!   Σ (a*·δ − D)² / Σ D² (the same value without the cancellation of "1 − x"); σ* = 1 and
//!   a* = 0 when δ ≡ 0.
//! * Spearman ρ between δ and D over the pairs: the Pearson correlation of average ranks.
//!   Values within 1e-12·max|v| of their sorted neighbour count as tied (the same ε as the
//!   monotonicity test), so that distances equal in exact arithmetic — RoPE's and the
//!   sinusoids' depend only on |i − j| — tie whatever their last bits; `None` when either
//!   side is constant.
//! * The monotonicity violation rate of δ (see [`crate::measures::monotonicity`]).

use super::ranks::{doubled_pair_ranks, doubled_ranks_of};
pub use super::ranks::{doubled_ranks, pair_ranks, ranks, TIE_TOLERANCE};
use crate::error::{PosgeoError, Result};
use crate::measures::monotonicity;
use crate::metric::DistanceMatrix;
use serde::{Deserialize, Serialize};

/// How one encoding's distances compare with the corpus metric.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StressReport {
    /// σ(P).
    pub raw_stress: f64,
    /// σ*(P).
    pub scaled_stress: f64,
    /// a*.
    pub scale: f64,
    /// Spearman ρ(δ, D); `None` when undefined.
    pub spearman: Option<f64>,
    /// Monotonicity violation rate of δ; `None` when n < 3.
    pub monotonicity_violation_rate: Option<f64>,
}

/// The corpus side of every comparison, computed once per analysis: D over the pairs
/// i < j, Σ D², and D's ranks (doubled, see [`doubled_ranks`]). It is all that measuring an
/// encoding needs of D (the page's helper workers receive it instead of D).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Target {
    upper: Vec<f64>,
    sum_sq: f64,
    ranks: Vec<u32>,
}

impl Target {
    /// Prepares D; an all-zero D has no geometry to compare with.
    pub fn new(target: &DistanceMatrix) -> Result<Self> {
        if target.n() > 65_536 {
            // Doubled ranks are u32: at most 2³¹ − 1 pairs (n ≤ 65,536).
            return Err(PosgeoError::TooLarge(format!(
                "{} positions have more than 2^31 pairs, more than the ranks of Spearman's rho are kept for",
                target.n()
            )));
        }
        let sum_sq: f64 = target.upper_values().map(|y| y * y).sum();
        if sum_sq <= 0.0 {
            return Err(PosgeoError::NoGeometry);
        }
        // The ranks first, their sort read from D itself: the pairs' copy is made once the
        // sort is gone, so the two never sit side by side.
        let ranks = doubled_ranks_of(target.upper_values());
        Ok(Target { upper: target.upper(), sum_sq, ranks })
    }

    /// D over the pairs i < j, row order.
    pub fn upper(&self) -> &[f64] {
        &self.upper
    }

    /// Σ D² over the pairs.
    pub fn sum_sq(&self) -> f64 {
        self.sum_sq
    }

    /// D's ranks over the pairs, doubled (see [`doubled_ranks`]).
    pub fn doubled_ranks(&self) -> &[u32] {
        &self.ranks
    }

    /// A target from its parts as [`Target::upper`], [`Target::sum_sq`] and
    /// [`Target::doubled_ranks`] gave them (one that travelled as arrays); `None` unless there
    /// are as many ranks as pairs and Σ D² is positive.
    pub fn from_parts(upper: Vec<f64>, sum_sq: f64, ranks: Vec<u32>) -> Option<Self> {
        (upper.len() == ranks.len() && sum_sq > 0.0).then_some(Target { upper, sum_sq, ranks })
    }

    /// Whether it holds the n(n−1)/2 pairs of n positions (a check on one that travelled).
    pub fn holds_pairs_of(&self, n: usize) -> bool {
        let pairs = n * n.saturating_sub(1) / 2;
        self.upper.len() == pairs && self.ranks.len() == pairs
    }
}

/// Compares δ with D (convenience for one comparison; see [`stress_against`]).
pub fn stress(delta: &DistanceMatrix, target: &DistanceMatrix) -> Result<StressReport> {
    Ok(stress_against(delta, &Target::new(target)?))
}

/// Compares δ with a prepared D.
pub fn stress_against(delta: &DistanceMatrix, target: &Target) -> StressReport {
    let sums = Sums::of(delta.upper_values(), target);
    let monotonicity = monotonicity::violation_rate(delta);
    sums.finish(monotonicity, delta.lags(), delta.upper(), target)
}

/// Compares δ with a prepared D, taking δ: `sketch` reads δ with its scale a* before δ is
/// turned into its pairs in its own buffer ([`DistanceMatrix::into_upper`]), and only then
/// are they sorted for Spearman's ρ — so neither the pairs nor their sort ever sit beside
/// the n×n δ. The same numbers as [`stress_against`].
pub fn stress_consuming<S>(
    delta: DistanceMatrix,
    target: &Target,
    sketch: impl FnOnce(&DistanceMatrix, f64) -> S,
) -> (StressReport, S) {
    let sums = Sums::of(delta.upper_values(), target);
    let sketched = sketch(&delta, sums.scale);
    let monotonicity = monotonicity::violation_rate(&delta);
    let lags = delta.lags().map(<[f64]>::to_vec);
    let upper = delta.into_upper();
    (sums.finish(monotonicity, lags.as_deref(), upper, target), sketched)
}

/// σ, σ* and a* of δ's pairs against D's.
struct Sums {
    raw: f64,
    scaled: f64,
    scale: f64,
}

impl Sums {
    /// Of δ's pairs `d`, in row order.
    fn of(d: impl Iterator<Item = f64> + Clone, target: &Target) -> Sums {
        let (t, tt) = (&target.upper, target.sum_sq);
        let (mut dd, mut dt) = (0.0, 0.0);
        for (x, &y) in d.clone().zip(t) {
            dd += x * x;
            dt += x * y;
        }
        let raw: f64 = d.clone().zip(t).map(|(x, y)| (x - y) * (x - y)).sum::<f64>() / tt;
        let scale = if dd > 0.0 { dt / dd } else { 0.0 };
        let scaled: f64 = d.zip(t).map(|(x, y)| (scale * x - y).powi(2)).sum::<f64>() / tt;
        Sums { raw, scaled, scale }
    }

    /// The report, with Spearman's ρ from δ's pairs `upper` (taken: their sort replaces them).
    fn finish(self, monotonicity: Option<f64>, lags: Option<&[f64]>, upper: Vec<f64>, target: &Target) -> StressReport {
        StressReport {
            raw_stress: self.raw,
            scaled_stress: self.scaled,
            scale: self.scale,
            spearman: pearson(&doubled_pair_ranks(lags, upper), &target.ranks),
            monotonicity_violation_rate: monotonicity,
        }
    }
}

/// Spearman's ρ: Pearson correlation of average ranks; `None` if either side is constant.
pub fn spearman(x: &[f64], y: &[f64]) -> Option<f64> {
    pearson(&doubled_ranks(x), &doubled_ranks(y))
}

/// Spearman's ρ of δ's pairs (row order) against a prepared D.
pub fn spearman_of_pairs(pairs: &[f64], target: &Target) -> Option<f64> {
    pearson(&doubled_ranks(pairs), &target.ranks)
}

/// Pearson correlation of two rank vectors given doubled (mean (n+1)/2 once halved); `None`
/// if either is constant. Halving is exact, so the sums are those of the ranks themselves.
fn pearson(rx: &[u32], ry: &[u32]) -> Option<f64> {
    let n = rx.len() as f64;
    if n < 2.0 {
        return None;
    }
    let mean = (n + 1.0) / 2.0;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (&a, &b) in rx.iter().zip(ry) {
        let (a, b) = (0.5 * a as f64 - mean, 0.5 * b as f64 - mean);
        sxy += a * b;
        sxx += a * a;
        syy += b * b;
    }
    if sxx <= 0.0 || syy <= 0.0 {
        None
    } else {
        Some(sxy / (sxx * syy).sqrt())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perfect_and_scaled_matches() {
        let d = DistanceMatrix::from_fn(4, |i, j| (j - i) as f64);
        let r = stress(&d, &d).unwrap();
        assert_eq!((r.raw_stress, r.scaled_stress, r.scale), (0.0, 0.0, 1.0));
        let half = DistanceMatrix::from_fn(4, |i, j| 0.5 * (j - i) as f64);
        let r = stress(&half, &d).unwrap();
        assert!((r.raw_stress - 0.25).abs() < 1e-15);
        assert!(r.scaled_stress.abs() < 1e-15 && (r.scale - 2.0).abs() < 1e-15);
        assert!((r.spearman.unwrap() - 1.0).abs() < 1e-15);
    }

    #[test]
    fn zero_encoding_has_unit_stress_and_no_spearman() {
        let d = DistanceMatrix::from_fn(5, |i, j| ((i + j) % 3) as f64 + 0.5);
        let zero = DistanceMatrix::from_fn(5, |_, _| 0.0);
        let r = stress(&zero, &d).unwrap();
        assert_eq!((r.raw_stress, r.scaled_stress, r.scale, r.spearman), (1.0, 1.0, 0.0, None));
    }

    #[test]
    fn lag_ranks_equal_the_sorted_ranks() {
        for seed in 0..30usize {
            let n = 2 + seed % 17;
            // Ties, near-ties within ε and distinct values.
            let f: Vec<f64> =
                (0..n).map(|s| [0.0, 1.0, 1.0 + 1e-14, 2.0, 0.5][(s * 7 + seed) % 5] * (s > 0) as u8 as f64).collect();
            let d = DistanceMatrix::from_fn(n, |i, j| f[j - i]);
            assert_eq!(pair_ranks(&d, &d.upper()), ranks(&d.upper()), "seed {seed}");
        }
    }

    #[test]
    fn ranks_average_ties() {
        assert_eq!(ranks(&[3.0, 1.0, 3.0, 2.0]), vec![3.5, 1.0, 3.5, 2.0]);
        assert_eq!(doubled_ranks(&[3.0, 1.0, 3.0, 2.0]), vec![7, 2, 7, 4]);
    }

    #[test]
    fn taking_delta_gives_the_same_report() {
        let d = DistanceMatrix::from_fn(9, |i, j| ((i * 5 + j * 3) % 7) as f64 + 0.25);
        let target = Target::new(&d).unwrap();
        for delta in
            [DistanceMatrix::from_fn(9, |i, j| (j - i) as f64), DistanceMatrix::from_fn(9, |i, j| ((i + j) % 4) as f64)]
        {
            let want = stress_against(&delta, &target);
            let (got, scale) = stress_consuming(delta, &target, |_, a| a);
            assert_eq!(got, want);
            assert_eq!(scale, want.scale);
        }
    }

    #[test]
    fn a_target_rebuilt_from_its_parts_is_the_same() {
        let d = DistanceMatrix::from_fn(7, |i, j| ((i * 3 + j) % 5) as f64 + 0.5);
        let target = Target::new(&d).unwrap();
        let (upper, sum_sq, ranks) = (target.upper().to_vec(), target.sum_sq(), target.doubled_ranks().to_vec());
        assert_eq!(Target::from_parts(upper.clone(), sum_sq, ranks.clone()), Some(target.clone()));
        let delta = DistanceMatrix::from_fn(7, |i, j| (j - i) as f64);
        let rebuilt = Target::from_parts(upper.clone(), sum_sq, ranks.clone()).unwrap();
        assert_eq!(stress_against(&delta, &rebuilt), stress_against(&delta, &target));
        assert_eq!(Target::from_parts(upper.clone(), sum_sq, ranks[1..].to_vec()), None);
        assert_eq!(Target::from_parts(upper, 0.0, ranks), None);
    }
}
