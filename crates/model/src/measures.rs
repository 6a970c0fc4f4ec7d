//! **Measures per layer** (docs/MATH.md §14b), over the positions skip..n_L − 1 of a layer's
//! states (attention-sink and anchor positions at the start dominate some models, and can be
//! left out):
//!
//! * positional share = Σ_i K_i ‖c_i − h̄‖² / Σ_{s,i} ‖h_{s,i} − h̄‖², with h̄ the mean of
//!   the states counted at those positions (the K-weighted mean of the centroids): the
//!   fraction of the hidden states' variance that position explains (Song & Zhong's relative
//!   norm, squared);
//! * effective dimension = exp(−Σ_k p_k ln p_k), p = λ / Σλ for the eigenvalues λ ≥ 0 of the
//!   centroids' covariance (centred by their unweighted mean);
//! * principal coordinates: the centred centroids on the first three principal axes, each
//!   axis's sign chosen so that its largest-magnitude coordinate is positive.
//!
//! The eigenvalues come from the Gram matrix C Cᵀ (m × m) or from Cᵀ C (H × H), whichever is
//! smaller; their non-zero eigenvalues are the same.

use super::centroids::{LayerSums, Plan};
use posgeo::points::Points;

pub use posgeo::analysis::layers::LayerMeasures;

/// The measures of every layer, over positions `skip`..n_L (`skip` is capped so that two
/// positions remain).
pub fn layer_measures(sums: &LayerSums, plan: &Plan, centroids: &[Points], skip: usize) -> Vec<LayerMeasures> {
    let (h, p) = (sums.hidden, sums.positions);
    let skip = skip.min(p.saturating_sub(2));
    centroids
        .iter()
        .enumerate()
        .map(|(l, c)| {
            let kept: Vec<usize> = (skip..p).collect();
            let n: f64 = kept.iter().map(|&i| plan.support[i] as f64).sum();
            let mut mean = vec![0.0; h];
            let mut squares = 0.0;
            for &i in &kept {
                let row = &sums.by_position[(l * p + i) * h..(l * p + i + 1) * h];
                for (m, v) in mean.iter_mut().zip(row) {
                    *m += v / n;
                }
                squares += sums.sq_by_position.get(l * p + i).copied().unwrap_or(0.0);
            }
            let total = squares - n * mean.iter().map(|m| m * m).sum::<f64>();
            let between: f64 = kept
                .iter()
                .map(|&i| {
                    plan.support[i] as f64 * c.row(i).iter().zip(&mean).map(|(a, b)| (a - b) * (a - b)).sum::<f64>()
                })
                .sum();
            let share = if total > 0.0 { (between / total).clamp(0.0, 1.0) } else { 0.0 };
            let rows: Vec<&[f64]> = kept.iter().map(|&i| c.row(i)).collect();
            let (effective_dimension, principal) = pca(&rows);
            LayerMeasures { layer: l, positional_share: share, effective_dimension, principal }
        })
        .collect()
}

/// Effective dimension and first three principal coordinates of `rows` (module docs).
pub fn pca(rows: &[&[f64]]) -> (f64, Vec<Vec<f64>>) {
    let m = rows.len();
    let h = rows.first().map_or(0, |r| r.len());
    if m == 0 || h == 0 {
        return (0.0, Vec::new());
    }
    let mut mean = vec![0.0; h];
    for r in rows {
        for (a, b) in mean.iter_mut().zip(r.iter()) {
            *a += b / m as f64;
        }
    }
    let centred: Vec<Vec<f64>> = rows.iter().map(|r| r.iter().zip(&mean).map(|(a, b)| a - b).collect()).collect();
    let gram = m <= h;
    let size = if gram { m } else { h };
    let b = faer::Mat::<f64>::from_fn(size, size, |i, j| {
        if gram {
            centred[i].iter().zip(&centred[j]).map(|(a, b)| a * b).sum()
        } else {
            centred.iter().map(|r| r[i] * r[j]).sum()
        }
    });
    let Ok((values, vectors)) = posgeo::mds::eigen::top_eigen(b, |_| 3) else { return (0.0, Vec::new()) };
    let positive: Vec<f64> = values.iter().map(|v| v.max(0.0)).collect();
    let sum: f64 = positive.iter().sum();
    let entropy: f64 = positive.iter().filter(|&&v| v > 0.0).map(|v| v / sum).map(|q| -q * q.ln()).sum();
    let effective = if sum > 0.0 { entropy.exp() } else { 0.0 };
    let k = vectors.ncols().min(3);
    let mut coords = vec![vec![0.0; k]; m];
    for c in 0..k {
        let col = vectors.ncols() - 1 - c;
        let axis: Vec<f64> = (0..m)
            .map(|i| {
                if gram {
                    vectors[(i, col)] * positive[c].sqrt()
                } else {
                    (0..h).map(|d| centred[i][d] * vectors[(d, col)]).sum()
                }
            })
            .collect();
        let largest = axis.iter().copied().fold(0.0f64, |a, v| if v.abs() > a.abs() { v } else { a });
        let sign = if largest < 0.0 { -1.0 } else { 1.0 };
        for (i, v) in axis.into_iter().enumerate() {
            coords[i][c] = sign * v;
        }
    }
    (effective, coords)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_on_a_line_have_dimension_one_and_their_own_coordinate() {
        let rows: Vec<Vec<f64>> = (0..5).map(|i| vec![i as f64, 2.0 * i as f64, 7.0]).collect();
        let refs: Vec<&[f64]> = rows.iter().map(Vec::as_slice).collect();
        let (e, pcs) = pca(&refs);
        assert!((e - 1.0).abs() < 1e-9, "{e}");
        let scale = 5f64.sqrt();
        for (i, p) in pcs.iter().enumerate() {
            assert!((p[0].abs() - ((i as f64 - 2.0) * scale).abs()).abs() < 1e-9, "{p:?}");
        }
        assert!(pcs.iter().map(|p| p[0]).fold(0.0f64, |a, v| if v.abs() > a.abs() { v } else { a }) > 0.0);
    }

    #[test]
    fn both_routes_give_the_same_spectrum() {
        // m > H takes Cᵀ C, m ≤ H the Gram matrix: the same rows padded with zero columns
        // switch the route without changing a number.
        let rows: Vec<Vec<f64>> =
            (0..6).map(|i| vec![(i * i) as f64 * 0.1, (i as f64).sin(), (3 * i % 5) as f64]).collect();
        let wide: Vec<Vec<f64>> = rows.iter().map(|r| r.iter().copied().chain([0.0; 5]).collect()).collect();
        let (a, pa) = pca(&rows.iter().map(Vec::as_slice).collect::<Vec<_>>());
        let (b, pb) = pca(&wide.iter().map(Vec::as_slice).collect::<Vec<_>>());
        assert!((a - b).abs() < 1e-9 && a > 1.0 && a < 3.0, "{a} {b}");
        for (x, y) in pa.iter().flatten().zip(pb.iter().flatten()) {
            assert!((x - y).abs() < 1e-9, "{x} {y}");
        }
    }
}
