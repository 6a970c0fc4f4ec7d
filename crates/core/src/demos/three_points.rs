//! **What classical MDS does not optimise**: the three-point example (the lecture's last step).
//!
//! Classical MDS (the paper's Algorithm 1, docs/MATH.md §4) minimises the error of the Gram matrix
//! B = −½ J D∘D J ("strain"), not the stress σ of the paper's Eq. 4 (docs/MATH.md §6). The smallest
//! case shows the difference: three points at mutual distance 1 (an equilateral triangle)
//! placed on a line.
//!
//! * B has eigenvalues ½, ½, 0; v = (1, 0, −1)/√2 is a unit eigenvector of the top
//!   eigenvalue, so X_1 = v·√½ = (½, 0, −½) is a rank-1 classical MDS configuration. Its
//!   distances are ½, ½, 1 and σ = (¼ + ¼ + 0)/3 = **1/6**.
//! * Points at (a, 0, −a) have distances a, a, 2a and
//!   σ(a) = (2(a − 1)² + (2a − 1)²)/3, smallest at a = ⅔: σ = (⅑ + ⅑ + ⅑)/3 = **1/9** — the
//!   best any three points on a line can do. One Guttman transform (SMACOF) from X_1 lands
//!   there exactly.
//!
//! Everything below is computed with the pipeline's own functions (double centring,
//! [`crate::measures::stress::stress`], [`crate::smacof`]), so the lecture's numbers are the
//! engine's, not typed in.

use crate::error::Result;
use crate::mds::double_centre;
use crate::measures::stress::stress;
use crate::metric::DistanceMatrix;
use crate::points::Points;
use crate::smacof::smacof;

/// The example's numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct ThreePoints {
    /// The rank-1 classical MDS coordinates (½, 0, −½).
    pub mds: Vec<f64>,
    /// Their raw stress (1/6).
    pub mds_stress: f64,
    /// ‖B v − λ v‖ for the eigenpair used (≈ 0: the configuration is a true MDS solution).
    pub eigen_residual: f64,
    /// The eigenvalue λ used (½, the largest).
    pub eigenvalue: f64,
    /// Coordinates after SMACOF from the MDS start.
    pub smacof: Vec<f64>,
    /// Their raw stress (1/9).
    pub smacof_stress: f64,
    /// Guttman transforms SMACOF ran.
    pub smacof_iterations: usize,
}

/// Computes the three-point example.
pub fn three_points() -> Result<ThreePoints> {
    let d = DistanceMatrix::from_fn(3, |i, j| if i == j { 0.0 } else { 1.0 });
    let b = double_centre(&d);
    let v = [std::f64::consts::FRAC_1_SQRT_2, 0.0, -std::f64::consts::FRAC_1_SQRT_2];
    let bv: Vec<f64> = (0..3).map(|i| (0..3).map(|j| b[(i, j)] * v[j]).sum()).collect();
    // Rayleigh quotient: v is a unit vector.
    let eigenvalue: f64 = bv.iter().zip(&v).map(|(x, y)| x * y).sum();
    let eigen_residual = bv.iter().zip(&v).map(|(x, y)| (x - eigenvalue * y).powi(2)).sum::<f64>().sqrt();
    let mds = Points::from_fn(3, 1, |i, _| v[i] * eigenvalue.max(0.0).sqrt());
    let mds_stress = stress(&mds.distances(), &d)?.raw_stress;
    let fit = smacof(&mds, &d, 100, 1e-12, &mut |_| {});
    let (best, smacof_iterations) = (fit.points, fit.iterations);
    let smacof_stress = stress(&best.distances(), &d)?.raw_stress;
    Ok(ThreePoints {
        mds: mds.data,
        mds_stress,
        eigen_residual,
        eigenvalue,
        smacof: best.data,
        smacof_stress,
        smacof_iterations,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classical_mds_gives_one_sixth_and_smacof_one_ninth() {
        let t = three_points().unwrap();
        assert!(t.eigen_residual < 1e-12, "not an eigenvector: {}", t.eigen_residual);
        assert!((t.eigenvalue - 0.5).abs() < 1e-12);
        // The top eigenvalue of B: nothing larger exists.
        let d = DistanceMatrix::from_fn(3, |i, j| if i == j { 0.0 } else { 1.0 });
        let top = crate::mds::Spectrum::of_distances(&d).unwrap().eigenvalues[0];
        assert!((top - t.eigenvalue).abs() < 1e-12, "top eigenvalue {top}");
        assert!((t.mds_stress - 1.0 / 6.0).abs() < 1e-12, "{}", t.mds_stress);
        assert!((t.smacof_stress - 1.0 / 9.0).abs() < 1e-12, "{}", t.smacof_stress);
        let spread = t.smacof[0] - t.smacof[2];
        assert!((spread.abs() - 4.0 / 3.0).abs() < 1e-12, "{:?}", t.smacof);
    }

    #[test]
    fn no_line_configuration_beats_one_ninth() {
        // Brute force over gaps (u, v) of three ordered points: σ ≥ 1/9 everywhere.
        let d = DistanceMatrix::from_fn(3, |i, j| if i == j { 0.0 } else { 1.0 });
        let mut best = f64::INFINITY;
        for a in 0..=60 {
            for b in 0..=60 {
                let (u, v) = (f64::from(a) / 30.0, f64::from(b) / 30.0);
                let p = Points::from_fn(3, 1, |i, _| [0.0, u, u + v][i]);
                best = best.min(stress(&p.distances(), &d).unwrap().raw_stress);
            }
        }
        assert!((1.0 / 9.0 - 1e-12..1.0 / 9.0 + 1e-9).contains(&best), "{best}");
    }
}
