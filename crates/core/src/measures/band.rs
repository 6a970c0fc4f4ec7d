//! **The random band** (docs/MATH.md §17): what chance scores on this corpus. K random tables
//! (the `random` encoding of docs/MATH.md §5 at the run's d and σ, seeds 1..K, default
//! K = [`BAND_TABLES`]) are measured against D, and the band is the minimum, median and maximum
//! of their scale-optimal stress σ* and of their Spearman ρ.
//!
//! An encoding **fits better than random tables** when its σ* is below the band's minimum, and
//! **follows the corpus's order better than random tables** when its ρ is above the band's
//! maximum. Both are needed: a random table in high dimension is nearly equidistant, and σ*,
//! being scale-free, rewards that on a corpus whose distances saturate after the first
//! positions, while its ρ stays near 0.
//!
//! Only σ* and ρ are computed for the tables (no MDS, no Procrustes, no monotonicity): the band
//! costs K draws of n×d Gaussian tables, K products of them and K sorts of the n(n−1)/2 pairs,
//! one table a piece of [`crate::par::map`] (natively on every core; the numbers do not depend
//! on the threads).

use super::stress::{spearman_of_pairs, Target};
use crate::error::Result;
use crate::metric::DistanceMatrix;
use serde::{Deserialize, Serialize};

/// K, the random tables of the band.
pub const BAND_TABLES: usize = 32;

/// Minimum, median and maximum of K values (the median of an even count is the mean of the
/// two middle ones).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// The smallest value.
    pub min: f64,
    /// The median.
    pub median: f64,
    /// The largest value.
    pub max: f64,
}

impl Spread {
    /// Of `values` (`None` when there are none).
    pub fn of(mut values: Vec<f64>) -> Option<Spread> {
        values.retain(|v| v.is_finite());
        values.sort_by(f64::total_cmp);
        let k = values.len();
        let (&min, &max) = (values.first()?, values.last()?);
        let median = if k % 2 == 1 { values[k / 2] } else { 0.5 * (values[k / 2 - 1] + values[k / 2]) };
        Some(Spread { min, median, max })
    }

    /// max − min.
    pub fn width(&self) -> f64 {
        self.max - self.min
    }
}

/// The band of K random tables on one corpus (the report's `random_band`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RandomBand {
    /// K.
    pub k: usize,
    /// Their σ*.
    pub scaled_stress: Spread,
    /// Their Spearman ρ (null when it is undefined for every table: n < 3 or D constant).
    pub spearman: Option<Spread>,
}

/// The band of `k` random n×`d` tables (σ = `sigma`, seeds 1..=k) against D.
pub fn random_band(distances: &DistanceMatrix, target: &Target, d: usize, sigma: f64, k: usize) -> Result<RandomBand> {
    let n = distances.n();
    // One piece per table (natively in parallel, each table's product on its own thread; each
    // the same whatever the threads).
    let measured = crate::par::map(k, |t| -> Result<(f64, Option<f64>)> {
        let table = crate::encodings::random(n, d, sigma, t as u64 + 1)?;
        let (mut gram, mut pairs) = (Vec::new(), Vec::new());
        table.pair_distances_into(&mut gram, &mut pairs);
        drop(gram);
        Ok((scaled_stress(&pairs, target), spearman_of_pairs(&pairs, target)))
    });
    let mut scaled = Vec::with_capacity(k);
    let mut rho = Vec::with_capacity(k);
    for m in measured {
        let (s, r) = m?;
        scaled.push(s);
        rho.extend(r);
    }
    let scaled_stress = Spread::of(scaled).unwrap_or(Spread { min: 1.0, median: 1.0, max: 1.0 });
    Ok(RandomBand { k, scaled_stress, spearman: Spread::of(rho) })
}

/// σ* of δ's pairs against D's (docs/MATH.md §6): Σ (a*·δ − D)² / Σ D², a* = Σ δD / Σ δ².
fn scaled_stress(pairs: &[f64], target: &Target) -> f64 {
    let t = target.upper();
    let (mut dd, mut dt) = (0.0, 0.0);
    for (x, y) in pairs.iter().zip(t) {
        dd += x * x;
        dt += x * y;
    }
    let a = if dd > 0.0 { dt / dd } else { 0.0 };
    pairs.iter().zip(t).map(|(x, y)| (a * x - y).powi(2)).sum::<f64>() / target.sum_sq()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::measures::stress::stress;

    #[test]
    fn each_table_of_the_band_is_the_random_encoding_measured() {
        let d = DistanceMatrix::from_fn(9, |i, j| ((j - i) as f64).sqrt().min(2.0));
        let band = random_band(&d, &Target::new(&d).unwrap(), 5, 0.02, 4).unwrap();
        let each: Vec<_> = (1..=4)
            .map(|s| stress(&crate::encodings::random(9, 5, 0.02, s).unwrap().distances(), &d).unwrap())
            .collect();
        let scaled = Spread::of(each.iter().map(|r| r.scaled_stress).collect()).unwrap();
        let rho = Spread::of(each.iter().filter_map(|r| r.spearman).collect()).unwrap();
        for (a, b) in [(band.scaled_stress, scaled), (band.spearman.unwrap(), rho)] {
            for (x, y) in [(a.min, b.min), (a.median, b.median), (a.max, b.max)] {
                assert!((x - y).abs() < 1e-12, "{a:?} {b:?}");
            }
        }
        assert_eq!(band.k, 4);
        assert!(band.scaled_stress.min < band.scaled_stress.max);
    }

    #[test]
    fn the_median_of_an_even_count_is_the_mean_of_the_middle_two() {
        let s = Spread::of(vec![4.0, 1.0, 3.0, 2.0]).unwrap();
        assert_eq!((s.min, s.median, s.max), (1.0, 2.5, 4.0));
        assert_eq!(Spread::of(vec![3.0, 1.0, 2.0]).unwrap().median, 2.0);
        assert_eq!(Spread::of(vec![f64::NAN]), None);
    }
}
