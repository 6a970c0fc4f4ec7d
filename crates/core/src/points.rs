//! **Points**: n positions in `dim` dimensions, row-major — the one matrix type of every
//! configuration in the pipeline (the PMDS coordinates X = V·diag(√λ) of [`crate::mds`],
//! every encoding of [`crate::encodings`], a learned table), and their Euclidean distances
//! δ_ij = ‖p_i − p_j‖₂ (docs/MATH.md §5).

use crate::metric::{upper_gram, upper_gram_with, DistanceMatrix};
use faer::{MatMut, MatRef};
use serde::{Deserialize, Serialize};

/// n points in `dim` dimensions, row-major.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Points {
    /// Number of points.
    pub n: usize,
    /// Coordinates per point.
    pub dim: usize,
    /// Row-major n×dim.
    pub data: Vec<f64>,
}

impl Points {
    /// From rows (all of the same length).
    pub fn from_rows(rows: &[Vec<f64>]) -> Self {
        let dim = rows.first().map_or(0, Vec::len);
        Points { n: rows.len(), dim, data: rows.iter().flatten().copied().collect() }
    }

    /// Builds from a function of (i, k).
    pub fn from_fn(n: usize, dim: usize, f: impl Fn(usize, usize) -> f64) -> Self {
        Points { n, dim, data: (0..n * dim).map(|x| f(x / dim.max(1), x % dim.max(1))).collect() }
    }

    /// The rows, as slices.
    pub fn rows(&self) -> impl Iterator<Item = &[f64]> {
        self.data.chunks(self.dim.max(1)).take(self.n)
    }

    /// The rows as vectors (for JSON, whose schema has nested arrays).
    pub fn to_rows(&self) -> Vec<Vec<f64>> {
        (0..self.n).map(|i| self.row(i).to_vec()).collect()
    }

    /// Row i.
    pub fn row(&self, i: usize) -> &[f64] {
        &self.data[i * self.dim..(i + 1) * self.dim]
    }

    /// δ_ij = ‖p_i − p_j‖₂ for every pair. Uses the Gram identity
    /// δ² = ‖p_i‖² + ‖p_j‖² − 2⟨p_i, p_j⟩ (one GEMM, upper triangle only, written into δ's own
    /// buffer: one n×n matrix, no second one for the Gram matrix) and recomputes directly the
    /// pairs where that subtraction would lose digits.
    pub fn distances(&self) -> DistanceMatrix {
        let mut data = vec![0.0; self.n * self.n];
        self.distances_into(&mut data);
        DistanceMatrix::from_row_major(self.n, data)
    }

    /// [`Points::distances`] written into `data` (row-major, resized to n×n; what it held
    /// does not matter, since every entry is written): a loop that measures many
    /// configurations reuses one buffer.
    pub(crate) fn distances_into(&self, data: &mut Vec<f64>) {
        let (n, dim) = (self.n, self.dim);
        data.resize(n * n, 0.0);
        if dim == 0 {
            data.fill(0.0);
            return;
        }
        let a = MatRef::from_row_major_slice(&self.data, n, dim);
        upper_gram(a, MatMut::from_row_major_slice_mut(data, n, n), true);
        let norms: Vec<f64> = (0..n).map(|i| data[i * n + i]).collect();
        // The upper triangle row by row (natively on every core: each row its own), then
        // the lower one copied from it tile by tile.
        crate::metric::fill_upper_then_mirror(data, n, |i, j, g| self.distance_from_gram(&norms, i, j, g));
    }

    /// δ_ij for the pairs i < j, row by row (the order of [`crate::measures::stress::Target`]'s
    /// pairs), by the same Gram identity and guard as [`Points::distances`], on one thread:
    /// for a caller that measures many configurations side by side. `gram` is scratch (n×n).
    pub fn pair_distances_into(&self, gram: &mut Vec<f64>, pairs: &mut Vec<f64>) {
        let (n, dim) = (self.n, self.dim);
        pairs.clear();
        if dim == 0 {
            pairs.resize(n * n.saturating_sub(1) / 2, 0.0);
            return;
        }
        gram.resize(n * n, 0.0);
        let a = MatRef::from_row_major_slice(&self.data, n, dim);
        upper_gram_with(a, MatMut::from_row_major_slice_mut(gram, n, n), true, faer::Par::Seq);
        let norms: Vec<f64> = (0..n).map(|i| gram[i * n + i]).collect();
        for i in 0..n {
            pairs.extend((i + 1..n).map(|j| self.distance_from_gram(&norms, i, j, gram[i * n + j])));
        }
    }

    /// δ_ij from the Gram entry ⟨p_i, p_j⟩, with `norms` the ‖p_k‖²:
    /// √(‖p_i‖² + ‖p_j‖² − 2⟨p_i, p_j⟩), or [`Points::direct`] where that subtraction would
    /// lose digits (it keeps less than a tenth of ‖p_i‖² + ‖p_j‖²).
    #[inline]
    pub(crate) fn distance_from_gram(&self, norms: &[f64], i: usize, j: usize, gram: f64) -> f64 {
        let scale = norms[i] + norms[j];
        let sq = scale - 2.0 * gram;
        if sq > 0.1 * scale {
            sq.sqrt()
        } else {
            self.direct(i, j)
        }
    }

    /// ‖p_i − p_j‖₂ by its definition.
    pub(crate) fn direct(&self, i: usize, j: usize) -> f64 {
        self.row(i).iter().zip(self.row(j)).map(|(a, b)| (a - b) * (a - b)).sum::<f64>().sqrt()
    }

    /// δ for a shift-invariant configuration (δ_ij a function of |i − j| alone):
    /// δ_ij = ‖p_{|i−j|} − p_0‖₂, n direct distances instead of a GEMM.
    pub(crate) fn distances_by_lag(&self) -> DistanceMatrix {
        let by_lag: Vec<f64> = (0..self.n).map(|l| self.direct(l, 0)).collect();
        DistanceMatrix::from_fn(self.n, |i, j| by_lag[j - i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_written_into_a_used_buffer_are_the_distances() {
        let p = Points::from_fn(37, 5, |i, k| ((i * 7 + k * 3) % 11) as f64 * 0.3 - k as f64);
        let fresh = p.distances();
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for mut buf in [vec![f64::NAN; 10], vec![f64::NAN; 37 * 37], vec![7.0; 50 * 50]] {
            p.distances_into(&mut buf);
            assert_eq!(bits(&buf), bits(fresh.as_slice()));
        }
        let flat = Points::from_fn(4, 0, |_, _| 0.0);
        let mut buf = vec![3.0; 16];
        flat.distances_into(&mut buf);
        assert!(buf.iter().all(|&v| v == 0.0));
    }

    #[test]
    fn every_pair_is_its_distance_on_both_sides_of_the_diagonal_across_tile_edges() {
        for n in [1, 2, 63, 64, 65, 130, 200] {
            let p = Points::from_fn(n, 3, |i, k| ((i * 37 + k * 11) % 17) as f64 * 0.25 - (i % 5) as f64);
            let d = p.distances();
            for i in 0..n {
                assert_eq!(d.get(i, i), 0.0, "n = {n}: diagonal {i}");
                for j in 0..i {
                    assert_eq!(d.get(i, j).to_bits(), d.get(j, i).to_bits(), "n = {n}: ({i}, {j}) mirrored");
                    assert!(
                        (d.get(i, j) - p.direct(i, j)).abs() <= 1e-12 * (1.0 + p.direct(i, j)),
                        "n = {n}: ({i}, {j})"
                    );
                }
            }
        }
    }

    #[test]
    fn the_pairs_on_one_thread_are_the_upper_triangle_of_the_distances() {
        for (n, dim) in [(1, 3), (2, 0), (40, 7), (130, 96)] {
            let p = Points::from_fn(n, dim, |i, k| ((i * 29 + k * 13) % 23) as f64 * 0.1 - (k % 3) as f64);
            let d = p.distances();
            let (mut gram, mut pairs) = (vec![f64::NAN; 5], vec![1.0; 3]);
            p.pair_distances_into(&mut gram, &mut pairs);
            let upper: Vec<f64> =
                (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))).map(|(i, j)| d.get(i, j)).collect();
            assert_eq!(pairs.len(), upper.len(), "n = {n}");
            for (a, b) in pairs.iter().zip(&upper) {
                assert!((a - b).abs() <= 1e-12 * (1.0 + b), "n = {n}: {a} against {b}");
            }
        }
    }
}
