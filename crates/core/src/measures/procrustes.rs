//! **Orthogonal Procrustes with scale**: how an encoding's positions line up with the PMDS
//! configuration once rotation, reflection, scale and translation are factored out — where a
//! learned table bends away from the corpus geometry.
//!
//! Target X: the first k = min(d_pmds, [`PROCRUSTES_DIMS`]) PMDS coordinates (the paper's
//! Algorithm 1; the map shows the first two or three of them). Source Y: an encoding's n
//! positions in q dimensions. With both centred (X_c, Y_c) and M = Y_cᵀ X_c (q×k) = U Σ Vᵀ,
//! the best map is Ŷ = s·Y_c·R + x̄ with R = U Vᵀ (orthonormal columns; Y's extra dimensions
//! are projected out) and s = tr Σ / ‖Y_c‖²_F, and the residual
//!
//!   ρ = min ‖X_c − s·Y_c·R‖²_F / ‖X_c‖²_F = 1 − (tr Σ)² / (‖Y_c‖²_F · ‖X_c‖²_F) ∈ [0, 1]
//!
//! (0: the same shape; 1: nothing in common, e.g. `nope`). The singular pairs of M come from
//! the eigenpairs of the smaller of MᵀM (k×k) and MMᵀ (q×q): U = M V Σ⁻¹ or V = Mᵀ U Σ⁻¹ on
//! the non-zero singular values (the larger Gram matrix of a rank-deficient M would turn
//! round-off zeros into √ε-sized singular values).

use crate::mds::Spectrum;
use crate::points::Points;
use faer::Mat;

/// Dimensions of the PMDS target (the leading ones carry most of the energy; a fixed small k
/// keeps the alignment cheap enough to redo on every live update).
pub const PROCRUSTES_DIMS: usize = 16;

/// One encoding aligned onto the PMDS coordinates.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Alignment {
    /// ρ, the share of the target's spread the aligned encoding leaves unexplained.
    pub residual: f64,
    /// Ŷ, n × k, in the target's coordinates (its first two are the map's).
    pub aligned: Points,
}

fn centred(p: &Points) -> (Mat<f64>, Vec<f64>) {
    // Column sums in row order, one pass over the rows.
    let mut mean = vec![0.0; p.dim];
    for row in p.rows() {
        mean.iter_mut().zip(row).for_each(|(m, v)| *m += v);
    }
    mean.iter_mut().for_each(|m| *m /= p.n.max(1) as f64);
    (Mat::from_fn(p.n, p.dim, |i, k| p.row(i)[k] - mean[k]), mean)
}

/// ‖P − 1·meanᵀ‖²_F, summed row by row (the order of the centred matrix's entries).
fn sum_sq(p: &Points, mean: &[f64]) -> f64 {
    p.rows().flat_map(|r| r.iter().zip(mean).map(|(v, m)| (v - m) * (v - m))).sum()
}

/// Aligns `source` onto `target` (same number of rows).
pub fn align(target: &Points, source: &Points) -> Alignment {
    let (n, k) = (target.n, target.dim);
    let (xc, mean) = centred(target);
    let (yc, source_mean) = centred(source);
    let (sx, sy) = (sum_sq(target, &mean), sum_sq(source, &source_mean));
    let at_mean = || Points::from_fn(n, k, |_, c| mean[c]);
    if sx <= 0.0 || sy <= 0.0 || source.n != n {
        return Alignment { residual: 1.0, aligned: at_mean() };
    }
    let m = yc.transpose() * &xc; // q × k
    let q = m.nrows();
    // The singular pairs of M from the smaller of its two Gram matrices (a rank-deficient
    // larger one would turn round-off zeros into √ε-sized singular values).
    let small_left = q < k;
    let gram = if small_left { &m * m.transpose() } else { m.transpose() * &m };
    let Ok(eig) = Spectrum::of_symmetric(&gram) else {
        return Alignment { residual: 1.0, aligned: at_mean() };
    };
    let sigma: Vec<f64> = eig.eigenvalues.iter().map(|&l| l.max(0.0).sqrt()).collect();
    let top = sigma.first().copied().unwrap_or(0.0);
    let trace: f64 = sigma.iter().sum();
    let scale = trace / sy;
    // Ŷ = s·Y_c·R + x̄, R = Σ_j u_j v_jᵀ over the non-zero singular values.
    let mut aligned = at_mean();
    for (j, &s) in sigma.iter().enumerate().filter(|&(_, &s)| s > 1e-12 * top) {
        let w = eig.vector(j);
        let (u, v): (Vec<f64>, Vec<f64>) = if small_left {
            (w.to_vec(), (0..k).map(|c| (0..q).map(|a| m[(a, c)] * w[a]).sum::<f64>() / s).collect())
        } else {
            ((0..q).map(|a| (0..k).map(|c| m[(a, c)] * w[c]).sum::<f64>() / s).collect(), w.to_vec())
        };
        for i in 0..n {
            // (Y_c)_ia = y_ia − ȳ_a, read along the row-major source.
            let yu: f64 = source.row(i).iter().zip(&source_mean).zip(&u).map(|((y, m), u)| (y - m) * u).sum();
            for (out, vc) in aligned.data[i * k..(i + 1) * k].iter_mut().zip(&v) {
                *out += scale * yu * vc;
            }
        }
    }
    let residual = (1.0 - trace * trace / (sy * sx)).clamp(0.0, 1.0);
    Alignment { residual, aligned }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pts(rows: &[[f64; 2]]) -> Points {
        Points::from_rows(&rows.iter().map(|r| r.to_vec()).collect::<Vec<_>>())
    }

    #[test]
    fn a_rotated_scaled_shifted_copy_aligns_exactly() {
        let x = pts(&[[0.0, 0.0], [1.0, 0.0], [1.0, 2.0], [-1.0, 0.5], [0.3, -0.7]]);
        let (c, s) = (0.6f64, 0.8f64);
        // Rotate by θ (cos 0.6, sin 0.8), reflect, scale by 3, shift, and add a zero third axis.
        let y = Points::from_fn(5, 3, |i, k| {
            let r = x.row(i);
            match k {
                0 => 3.0 * (c * r[0] - s * r[1]) + 7.0,
                1 => -3.0 * (s * r[0] + c * r[1]) - 2.0,
                _ => 0.0,
            }
        });
        let a = align(&x, &y);
        assert!(a.residual < 1e-12, "{}", a.residual);
        for (p, q) in a.aligned.data.iter().zip(&x.data) {
            assert!((p - q).abs() < 1e-9, "{:?} vs {:?}", a.aligned.data, x.data);
        }
    }

    #[test]
    fn the_residual_is_one_minus_the_squared_nuclear_norm_ratio() {
        // One-dimensional source onto a 2-D target: the best line through the points.
        let x = pts(&[[0.0, 0.0], [2.0, 1.0], [4.0, -1.0], [6.0, 0.0]]);
        let y = Points::from_fn(4, 1, |i, _| i as f64);
        let a = align(&x, &y);
        // Independent: X_c, Y_c by hand; M = Y_cᵀX_c is 1×2, its one singular value ‖M‖.
        let (xs, ys) = ([-3.0, -1.0, 1.0, 3.0], [-1.5, -0.5, 0.5, 1.5]);
        let xy = [0.0, 1.0, -1.0, 0.0];
        let m0: f64 = ys.iter().zip(xs).map(|(a, b)| a * b).sum();
        let m1: f64 = ys.iter().zip(xy).map(|(a, b)| a * b).sum();
        let sx: f64 = xs.iter().chain(&xy).map(|v| v * v).sum();
        let sy: f64 = ys.iter().map(|v| v * v).sum();
        let want = 1.0 - (m0 * m0 + m1 * m1) / (sy * sx);
        assert!((a.residual - want).abs() < 1e-12, "{} vs {want}", a.residual);
        // The aligned points minimise the squared error: it equals ρ·‖X_c‖².
        let err: f64 = a.aligned.data.iter().zip(&x.data).map(|(p, q)| (p - q) * (p - q)).sum();
        assert!((err - a.residual * sx).abs() < 1e-9, "{err} vs {}", a.residual * sx);
    }

    #[test]
    fn a_constant_encoding_explains_nothing() {
        let x = pts(&[[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]);
        let a = align(&x, &Points::from_fn(3, 1, |_, _| 0.0));
        assert_eq!(a.residual, 1.0);
    }
}
