//! Stage 4 — **classical MDS** of the distance matrix: the paper's Algorithm 1, "PMDS"
//! (`docs/MATH.md` §4).
//!
//! * B = −½ J (D∘D) J, J = I − 11ᵀ/n (double centring). For the Hellinger chord, B is the
//!   centred Gram matrix of the rows √μ_i, so it is positive semi-definite up to round-off.
//! * Eigenpairs of B sorted by eigenvalue, descending: λ_1 ≥ … ≥ λ_n. Every eigenvalue is
//!   kept, and the eigenvectors of the first k, where a caller chooses k from the eigenvalues
//!   ([`Spectrum::of_distances_keeping`]: a run keeps those its encodings, rank curve and
//!   alignments read; [`eigen`] says what that saves).
//! * Coordinates X_d = V_d · diag(sqrt(max(λ_k, 0))), k = 1..d. Each eigenvector is flipped
//!   so that its largest-magnitude entry (the first one, on ties) is positive.
//! * Effective rank r_τ = #{k : λ_k > τ·λ_1} (τ = 1e-8 by default).
//! * Energy rank r_E = the smallest r with Σ_{k≤r} λ_k⁺ ≥ E·Σ_k λ_k⁺ (E = 0.99 by default).
//! * Negative mass = Σ_{λ_k<0} |λ_k| / Σ_k |λ_k|.
//!
//! The symmetric eigensolver is faer's, in its three steps ([`eigen`]); `posgeo-bench`
//! compares faer's `self_adjoint_eigen` with nalgebra's `SymmetricEigen`.

pub mod eigen;

use crate::error::Result;
use crate::metric::DistanceMatrix;
use crate::points::Points;
use faer::Mat;

/// The eigen-decomposition of B: eigenvalues descending, the first k eigenvectors as columns.
#[derive(Debug, Clone, PartialEq)]
pub struct Spectrum {
    /// λ_1 ≥ … ≥ λ_n.
    pub eigenvalues: Vec<f64>,
    /// Column k (entries k·n .. (k+1)·n) is the unit eigenvector of λ_{k+1}, sign-fixed;
    /// [`Spectrum::kept`] columns.
    vectors: Vec<f64>,
    n: usize,
}

/// B = −½ J (D∘D) J.
pub fn double_centre(d: &DistanceMatrix) -> Mat<f64> {
    double_centre_rows(d.n(), |i, row| row.copy_from_slice(d.row(i)))
}

/// [`double_centre`] of the n×n symmetric D whose row i `fill_row(i, buf)` writes into
/// `buf`, read twice, one row at a time: D need not be in this memory (the page's spectrum
/// helper reads it from the message that brought it). Row i of D is column i of D, so it
/// fills B's column i (contiguous: B is column-major). The same numbers as [`double_centre`].
pub fn double_centre_rows(n: usize, mut fill_row: impl FnMut(usize, &mut [f64])) -> Mat<f64> {
    let mut row = vec![0.0; n];
    let mut row_mean = Vec::with_capacity(n);
    for i in 0..n {
        fill_row(i, &mut row);
        row_mean.push(row.iter().map(|v| v * v).sum::<f64>() / n as f64);
    }
    let grand = row_mean.iter().sum::<f64>() / n as f64;
    let mut b = Mat::<f64>::zeros(n, n);
    for j in 0..n {
        fill_row(j, &mut row);
        for (i, (v, b)) in row.iter().zip(b.col_mut(j).iter_mut()).enumerate() {
            *b = -0.5 * (v * v - row_mean[i] - row_mean[j] + grand); // D_ij = D_ji
        }
    }
    b
}

impl Spectrum {
    /// Classical MDS of a distance matrix, every eigenvector kept.
    pub fn of_distances(d: &DistanceMatrix) -> Result<Self> {
        Self::of_double_centred(double_centre(d))
    }

    /// Classical MDS of a distance matrix keeping the eigenvectors of the first
    /// `keep(eigenvalues)` eigenvalues (descending; at least one, at most n).
    pub fn of_distances_keeping(d: &DistanceMatrix, keep: impl FnOnce(&[f64]) -> usize) -> Result<Self> {
        Self::of_double_centred_keeping(double_centre(d), keep)
    }

    /// Classical MDS from B = [`double_centre`] of D, taken (so that a caller can release D
    /// first): the same numbers as [`Spectrum::of_distances`].
    pub fn of_double_centred(b: Mat<f64>) -> Result<Self> {
        Self::of_double_centred_keeping(b, |values| values.len())
    }

    /// [`Spectrum::of_distances_keeping`] from B, taken (B becomes the eigensolver's
    /// workspace).
    pub fn of_double_centred_keeping(b: Mat<f64>, keep: impl FnOnce(&[f64]) -> usize) -> Result<Self> {
        let n = b.nrows();
        let (eigenvalues, v) = eigen::top_eigen(b, keep)?;
        let k = v.ncols();
        let mut vectors = Vec::with_capacity(n * k);
        for c in (0..k).rev() {
            // Sign-fixed: the largest-magnitude entry (the first, on ties) is positive.
            let col = v.col(c);
            let mut lead = 0;
            for i in 0..n {
                if col[i].abs() > col[lead].abs() {
                    lead = i;
                }
            }
            let sign = if n > 0 && col[lead] < 0.0 { -1.0 } else { 1.0 };
            vectors.extend((0..n).map(|i| col[i] * sign));
        }
        Ok(Spectrum { eigenvalues, vectors, n })
    }

    /// Eigen-decomposition of a symmetric matrix (only the lower triangle is read).
    pub fn of_symmetric(b: &Mat<f64>) -> Result<Self> {
        Self::of_double_centred(b.clone())
    }

    /// The eigenvectors as [`Spectrum::vector`] reads them: column k at k·n .. (k+1)·n.
    pub fn vectors(&self) -> &[f64] {
        &self.vectors
    }

    /// A spectrum from its parts as [`Spectrum::eigenvalues`] and [`Spectrum::vectors`]
    /// gave them (one that travelled between workers); `None` unless there are n eigenvalues
    /// and between 1 and n vectors of n entries (none when n = 0).
    pub fn from_parts(eigenvalues: Vec<f64>, vectors: Vec<f64>) -> Option<Self> {
        let n = eigenvalues.len();
        let whole = if n == 0 { vectors.is_empty() } else { vectors.len() % n == 0 && vectors.len() / n >= 1 };
        (whole && vectors.len() <= n * n).then_some(Spectrum { eigenvalues, vectors, n })
    }

    /// How many eigenvectors are kept (those of λ_1 … λ_k).
    pub fn kept(&self) -> usize {
        self.vectors.len().checked_div(self.n).unwrap_or(0)
    }

    /// Number of points.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The unit eigenvector of λ_{k+1}.
    pub fn vector(&self, k: usize) -> &[f64] {
        &self.vectors[k * self.n..(k + 1) * self.n]
    }

    /// X_d, row-major n×d: X\[i\]\[k\] = v_k(i)·sqrt(max(λ_k, 0)) (d at most [`Spectrum::kept`]).
    pub fn coordinates(&self, d: usize) -> Points {
        debug_assert!(d.min(self.n) <= self.kept(), "{d} coordinates of {} kept", self.kept());
        let d = d.min(self.kept());
        let scale: Vec<f64> = self.eigenvalues[..d].iter().map(|&l| l.max(0.0).sqrt()).collect();
        Points::from_fn(self.n, d, |i, k| self.vector(k)[i] * scale[k])
    }

    /// r_τ = #{k : λ_k > τ·λ_1} ([`effective_rank`]).
    pub fn effective_rank(&self, tau: f64) -> usize {
        effective_rank(&self.eigenvalues, tau)
    }

    /// r_E = smallest r with Σ_{k≤r} λ_k⁺ ≥ E·Σ λ_k⁺ ([`energy_rank`]).
    pub fn energy_rank(&self, energy: f64) -> usize {
        energy_rank(&self.eigenvalues, energy)
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

/// r_τ = #{k : λ_k > τ·λ_1} of eigenvalues in descending order.
pub fn effective_rank(eigenvalues: &[f64], tau: f64) -> usize {
    let top = eigenvalues.first().copied().unwrap_or(0.0);
    eigenvalues.iter().filter(|&&l| l > tau * top).count()
}

/// r_E = smallest r with Σ_{k≤r} λ_k⁺ ≥ E·Σ λ_k⁺, of eigenvalues in descending order.
pub fn energy_rank(eigenvalues: &[f64], energy: f64) -> usize {
    let total: f64 = eigenvalues.iter().map(|l| l.max(0.0)).sum();
    let mut acc = 0.0;
    for (k, l) in eigenvalues.iter().enumerate() {
        if acc >= energy * total {
            return k;
        }
        acc += l.max(0.0);
    }
    eigenvalues.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn double_centring_row_by_row_is_the_definition_bit_for_bit() {
        // B_ij = −½ (D_ij² − r_i − r_j + g), r the row means of D∘D and g their mean, each
        // entry written out here as a formula over the whole matrix.
        let n = 23;
        let d = DistanceMatrix::from_fn(n, |i, j| 0.1 + ((i * 31 + j * 17) % 13) as f64 / 7.0);
        let sq = |i: usize, j: usize| d.get(i, j) * d.get(i, j);
        let r: Vec<f64> = (0..n).map(|i| (0..n).map(|j| sq(i, j)).sum::<f64>() / n as f64).collect();
        let g = r.iter().sum::<f64>() / n as f64;
        let b = double_centre(&d);
        for i in 0..n {
            for j in 0..n {
                assert_eq!(b[(i, j)].to_bits(), (-0.5 * (sq(i, j) - r[i] - r[j] + g)).to_bits(), "({i}, {j})");
            }
        }
    }

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

    /// Keeping the first k eigenvectors gives the whole decomposition's eigenvalues, bit for
    /// bit, and its first k vectors up to round-off (the back-transformation's GEMM may round
    /// k columns otherwise than n on some CPUs), each a unit eigenvector: ‖B v − λ v‖ small,
    /// orthonormal. n = 300 is above faer's
    /// divide-and-conquer threshold (128), so every step of [`eigen`] runs.
    #[test]
    fn keeping_k_vectors_gives_the_whole_decompositions_first_k() {
        let unit = |q: usize| ((q as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 11) as f64 / (1u64 << 53) as f64;
        let n = 300;
        let d = DistanceMatrix::from_fn(n, |i, j| 0.5 + unit(i.min(j) * n + i.max(j)));
        let all = Spectrum::of_distances(&d).unwrap();
        assert_eq!(all.kept(), n);
        let mut seen = Vec::new();
        let some = Spectrum::of_distances_keeping(&d, |values| {
            seen = values.to_vec();
            37
        })
        .unwrap();
        assert_eq!(
            (some.kept(), some.eigenvalues.clone(), seen),
            (37, all.eigenvalues.clone(), all.eigenvalues.clone())
        );
        for k in 0..37 {
            let dot: f64 = some.vector(k).iter().zip(all.vector(k)).map(|(a, b)| a * b).sum();
            assert!((dot - 1.0).abs() < 1e-12, "vector {k}: ⟨kept, whole⟩ = {dot}");
        }
        assert_eq!(some.coordinates(37).dim, 37);
        let b = double_centre(&d);
        for k in [0, 1, 35] {
            let v = some.vector(k);
            let residual: f64 = (0..n)
                .map(|i| ((0..n).map(|j| b[(i, j)] * v[j]).sum::<f64>() - some.eigenvalues[k] * v[i]).powi(2))
                .sum();
            assert!(residual.sqrt() < 1e-10, "λ_{k}: {residual}");
            assert!(((0..n).map(|i| v[i] * v[i]).sum::<f64>() - 1.0).abs() < 1e-12);
            assert!((0..n).map(|i| v[i] * some.vector(k + 1)[i]).sum::<f64>().abs() < 1e-12);
        }
        // At least one vector, at most n; parts of n·k entries travel.
        assert_eq!(Spectrum::of_distances_keeping(&d, |_| 0).unwrap().kept(), 1);
        assert_eq!(Spectrum::of_distances_keeping(&d, |_| 5 * n).unwrap().kept(), n);
        let parts = Spectrum::from_parts(some.eigenvalues.clone(), some.vectors().to_vec()).unwrap();
        assert_eq!(parts, some);
        assert!(Spectrum::from_parts(vec![1.0; 3], vec![0.0; 4]).is_none());
        assert!(Spectrum::from_parts(vec![1.0; 3], Vec::new()).is_none());
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
