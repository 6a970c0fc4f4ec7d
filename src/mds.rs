//! Stage 4 — **classical MDS** of the distance matrix: the paper's Algorithm 1, "PMDS"
//! (SPEC §4 in `docs/MATH.md`).
//!
//! * B = −½ J (D∘D) J, J = I − 11ᵀ/n (double centring). For the Hellinger chord, B is the
//!   centred Gram matrix of the rows √μ_i, so it is positive semi-definite up to round-off.
//! * Eigenpairs of B sorted by eigenvalue, descending: λ_1 ≥ … ≥ λ_n (all of them are kept).
//! * Coordinates X_d = V_d · diag(sqrt(max(λ_k, 0))), k = 1..d. Each eigenvector is flipped
//!   so that its largest-magnitude entry (the first one, on ties) is positive.
//! * Effective rank r_τ = #{k : λ_k > τ·λ_1} (τ = 1e-8 by default).
//! * Energy rank r_E = the smallest r with Σ_{k≤r} λ_k⁺ ≥ E·Σ_k λ_k⁺ (E = 0.99 by default).
//! * Negative mass = Σ_{λ_k<0} |λ_k| / Σ_k |λ_k|.
//!
//! The symmetric eigensolver is faer's (`self_adjoint_eigen`); `posgeo-bench` compares it
//! with nalgebra's `SymmetricEigen`.

use crate::error::{PosgeoError, Result};
use crate::metric::DistanceMatrix;
use crate::points::Points;
use faer::{Mat, Side};

/// The eigen-decomposition of B: eigenvalues descending, eigenvectors as columns.
#[derive(Debug, Clone, PartialEq)]
pub struct Spectrum {
    /// λ_1 ≥ … ≥ λ_n.
    pub eigenvalues: Vec<f64>,
    /// Column k (entries k·n .. (k+1)·n) is the unit eigenvector of λ_{k+1}, sign-fixed.
    vectors: Vec<f64>,
    n: usize,
}

/// B = −½ J (D∘D) J, row-major.
pub fn double_centre(d: &DistanceMatrix) -> Mat<f64> {
    let n = d.n();
    let sq = |i: usize, j: usize| d.get(i, j) * d.get(i, j);
    let row_mean: Vec<f64> = (0..n).map(|i| (0..n).map(|j| sq(i, j)).sum::<f64>() / n as f64).collect();
    let grand = row_mean.iter().sum::<f64>() / n as f64;
    Mat::from_fn(n, n, |i, j| -0.5 * (sq(i, j) - row_mean[i] - row_mean[j] + grand))
}

impl Spectrum {
    /// Classical MDS of a distance matrix.
    pub fn of_distances(d: &DistanceMatrix) -> Result<Self> {
        Self::of_double_centred(double_centre(d))
    }

    /// Classical MDS from B = [`double_centre`] of D, taken (so that a caller can release D
    /// first): the same numbers as [`Spectrum::of_distances`].
    pub fn of_double_centred(b: Mat<f64>) -> Result<Self> {
        let evd = b.self_adjoint_eigen(Side::Lower).map_err(|_| PosgeoError::Eigen)?;
        drop(b); // (one n×n matrix fewer while the eigenvectors are copied out)
        Ok(Self::of_evd(&evd))
    }

    /// Eigen-decomposition of a symmetric matrix (only the lower triangle is read).
    pub fn of_symmetric(b: &Mat<f64>) -> Result<Self> {
        let evd = b.self_adjoint_eigen(Side::Lower).map_err(|_| PosgeoError::Eigen)?;
        Ok(Self::of_evd(&evd))
    }

    /// Eigenvalues descending and sign-fixed eigenvectors from faer's decomposition.
    fn of_evd(evd: &faer::linalg::solvers::SelfAdjointEigen<f64>) -> Self {
        let n = evd.U().nrows();
        let (s, u) = (evd.S(), evd.U());
        // faer returns ascending eigenvalues: reverse.
        let mut eigenvalues = Vec::with_capacity(n);
        let mut vectors = Vec::with_capacity(n * n);
        for k in (0..n).rev() {
            eigenvalues.push(s[k]);
            let col: Vec<f64> = (0..n).map(|i| u[(i, k)]).collect();
            let mut lead = 0;
            for (i, v) in col.iter().enumerate() {
                if v.abs() > col[lead].abs() {
                    lead = i;
                }
            }
            let sign = if col.get(lead).copied().unwrap_or(0.0) < 0.0 { -1.0 } else { 1.0 };
            vectors.extend(col.iter().map(|v| v * sign));
        }
        Spectrum { eigenvalues, vectors, n }
    }

    /// The eigenvectors as [`Spectrum::vector`] reads them: column k at k·n .. (k+1)·n.
    pub fn vectors(&self) -> &[f64] {
        &self.vectors
    }

    /// A spectrum from its parts as [`Spectrum::eigenvalues`] and [`Spectrum::vectors`]
    /// gave them (one that travelled between workers); `None` unless there are n eigenvalues
    /// and n vectors of n entries.
    pub fn from_parts(eigenvalues: Vec<f64>, vectors: Vec<f64>) -> Option<Self> {
        let n = eigenvalues.len();
        (vectors.len() == n * n).then_some(Spectrum { eigenvalues, vectors, n })
    }

    /// Number of points.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The unit eigenvector of λ_{k+1}.
    pub fn vector(&self, k: usize) -> &[f64] {
        &self.vectors[k * self.n..(k + 1) * self.n]
    }

    /// X_d, row-major n×d: X[i][k] = v_k(i)·sqrt(max(λ_k, 0)).
    pub fn coordinates(&self, d: usize) -> Points {
        let d = d.min(self.n);
        let scale: Vec<f64> = self.eigenvalues[..d].iter().map(|&l| l.max(0.0).sqrt()).collect();
        Points::from_fn(self.n, d, |i, k| self.vector(k)[i] * scale[k])
    }

    /// r_τ = #{k : λ_k > τ·λ_1}.
    pub fn effective_rank(&self, tau: f64) -> usize {
        let top = self.eigenvalues.first().copied().unwrap_or(0.0);
        self.eigenvalues.iter().filter(|&&l| l > tau * top).count()
    }

    /// r_E = smallest r with Σ_{k≤r} λ_k⁺ ≥ E·Σ λ_k⁺.
    pub fn energy_rank(&self, energy: f64) -> usize {
        let total: f64 = self.eigenvalues.iter().map(|l| l.max(0.0)).sum();
        let mut acc = 0.0;
        for (k, l) in self.eigenvalues.iter().enumerate() {
            if acc >= energy * total {
                return k;
            }
            acc += l.max(0.0);
        }
        self.eigenvalues.len()
    }

    /// Cumulative energy Σ_{k≤r} λ_k⁺ / Σ λ_k⁺ for r = 1..n.
    pub fn cumulative_energy(&self) -> Vec<f64> {
        let total: f64 = self.eigenvalues.iter().map(|l| l.max(0.0)).sum();
        let mut acc = 0.0;
        self.eigenvalues
            .iter()
            .map(|l| {
                acc += l.max(0.0);
                if total > 0.0 {
                    acc / total
                } else {
                    0.0
                }
            })
            .collect()
    }

    /// Σ_{λ<0} |λ| / Σ |λ|.
    pub fn negative_mass(&self) -> f64 {
        let abs: f64 = self.eigenvalues.iter().map(|l| l.abs()).sum();
        let neg = self.eigenvalues.iter().filter(|&&l| l < 0.0).fold(0.0, |acc, l| acc - l);
        if abs > 0.0 {
            neg / abs
        } else {
            0.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovers_a_known_configuration() {
        // Four points on a line at 0, 1, 3, 6: B has rank 1, λ_1 = Σ (x_i − x̄)².
        let x: [f64; 4] = [0.0, 1.0, 3.0, 6.0];
        let d = DistanceMatrix::from_fn(4, |i, j| (x[i] - x[j]).abs());
        let s = Spectrum::of_distances(&d).unwrap();
        let mean = 2.5;
        let var: f64 = x.iter().map(|v| (v - mean) * (v - mean)).sum();
        assert!((s.eigenvalues[0] - var).abs() < 1e-9);
        assert!(s.eigenvalues[1..].iter().all(|l| l.abs() < 1e-9));
        assert_eq!(s.effective_rank(1e-8), 1);
        assert_eq!(s.energy_rank(0.99), 1);
        let c = s.coordinates(1);
        // Sign convention: largest-magnitude entry positive (x = 6 → +3.5).
        assert!((c.row(3)[0] - 3.5).abs() < 1e-9 && (c.row(0)[0] + 2.5).abs() < 1e-9);
    }

    #[test]
    fn eigenvalues_descend_and_negative_mass_counts_negatives() {
        // A non-Euclidean "distance": a 4-cycle with unit edges and diagonals 2... plus noise.
        let d = DistanceMatrix::from_fn(4, |i, j| if (j - i) % 2 == 1 { 1.0 } else { 1.9 });
        let s = Spectrum::of_distances(&d).unwrap();
        assert!(s.eigenvalues.windows(2).all(|w| w[0] >= w[1]));
        let m = s.negative_mass();
        assert!(m > 0.0 && m < 1.0, "{m}");
    }
}
