//! **Whether a training verdict stands out from chance and from the spread over seeds**
//! (docs/MATH.md §16, "Verdicts"):
//! - Spearman's ρ gets its exact permutation p-value over the signals: the share of the
//!   orderings of one side whose |ρ| is at least the observed |ρ| (two-sided, the observed
//!   ordering included): every ordering up to [`EXACT_UP_TO`] signals, otherwise
//!   [`SAMPLED`] seeded permutations, p = (hits + 1)/(permutations + 1). With ties, ρ is
//!   Pearson's on average ranks, so a permutation's ρ is a dot product of the fixed centred
//!   ranks.
//! - One signal is below another in held-out loss when their means differ by more than the
//!   larger of their ranges over seeds; with one seed, by more than 1 % of the other's loss.

use super::SignalSummary;
use posgeo::measures::stress::{doubled_ranks, spearman};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Up to this many signals every ordering is counted (9! = 362,880).
pub const EXACT_UP_TO: usize = 9;
/// Seeded permutations beyond [`EXACT_UP_TO`].
pub const SAMPLED: usize = 100_000;
const PERMUTATION_SEED: u64 = 0x5EED_0011;

/// ρ(x, y) and its two-sided permutation p-value (`None` with fewer than 3 pairs or a
/// constant side).
pub fn spearman_p_value(x: &[f64], y: &[f64]) -> Option<(f64, f64)> {
    if x.len() < 3 || x.len() != y.len() {
        return None;
    }
    let rho = spearman(x, y)?;
    let centred = |v: &[f64]| -> Vec<f64> {
        let mean = (v.len() as f64 + 1.0) / 2.0;
        doubled_ranks(v).into_iter().map(|r| 0.5 * r as f64 - mean).collect()
    };
    let (a, mut b) = (centred(x), centred(y));
    let norm = (a.iter().map(|v| v * v).sum::<f64>() * b.iter().map(|v| v * v).sum::<f64>()).sqrt();
    let bar = rho.abs() * norm - 1e-9 * norm.max(1.0);
    let hit = |b: &[f64]| a.iter().zip(b).map(|(p, q)| p * q).sum::<f64>().abs() >= bar;
    let p = if a.len() <= EXACT_UP_TO {
        let (mut hits, mut total) = (0u64, 0u64);
        every_ordering(&mut b, &mut |b| {
            total += 1;
            hits += u64::from(hit(b));
        });
        hits as f64 / total as f64
    } else {
        let mut rng = ChaCha8Rng::seed_from_u64(PERMUTATION_SEED);
        let hits = (0..SAMPLED).filter(|_| {
            b.shuffle(&mut rng);
            hit(&b)
        });
        (hits.count() as f64 + 1.0) / (SAMPLED as f64 + 1.0)
    };
    Some((rho, p))
}

/// Calls `visit` on every ordering of `v` (Heap's algorithm, iterative), the first as given.
fn every_ordering(v: &mut [f64], visit: &mut dyn FnMut(&[f64])) {
    let n = v.len();
    let mut c = vec![0usize; n];
    visit(v);
    let mut i = 1;
    while i < n {
        if c[i] < i {
            v.swap(if i % 2 == 0 { 0 } else { c[i] }, i);
            visit(v);
            c[i] += 1;
            i = 1;
        } else {
            c[i] = 0;
            i += 1;
        }
    }
}

/// Whether `a`'s held-out loss is below `b`'s by more than the spread: `Some(true)` when
/// b − a exceeds the margin, `Some(false)` when a − b does, `None` in between. The margin is
/// the larger of the two ranges over seeds, or with one seed 1 % of `b`'s loss.
pub fn below(a: &SignalSummary, b: &SignalSummary) -> Option<bool> {
    let range = |s: &SignalSummary| s.held_loss_range[1] - s.held_loss_range[0];
    let margin = if a.seeds <= 1 || b.seeds <= 1 { 0.01 * b.held_loss.abs() } else { range(a).max(range(b)) };
    let diff = b.held_loss - a.held_loss;
    if !(diff.is_finite() && margin.is_finite()) {
        None
    } else if diff > margin {
        Some(true)
    } else if -diff > margin {
        Some(false)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The exact p-values of small cases by hand: with 3 signals the orderings give ρ = 1, ½,
    /// ½, −½, −½, −1, so a perfect ρ has p = 2/6 and every |ρ| ≥ ½ has p = 1.
    #[test]
    fn exact_p_values_count_the_orderings() {
        let (rho, p) = spearman_p_value(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]).unwrap();
        assert_eq!(rho, 1.0);
        assert!((p - 2.0 / 6.0).abs() < 1e-12, "{p}");
        let (_, p) = spearman_p_value(&[1.0, 2.0, 3.0], &[10.0, 30.0, 20.0]).unwrap();
        assert!((p - 1.0).abs() < 1e-12, "{p}");
        // Five in order: 2 of the 120 orderings reach |ρ| = 1.
        let (_, p) = spearman_p_value(&[1.0, 2.0, 3.0, 4.0, 5.0], &[5.0, 4.0, 3.0, 2.0, 1.0]).unwrap();
        assert!((p - 2.0 / 120.0).abs() < 1e-12, "{p}");
        assert_eq!(spearman_p_value(&[1.0, 2.0], &[1.0, 2.0]), None);
    }

    #[test]
    fn every_ordering_is_visited_once() {
        let mut v = [1.0, 2.0, 3.0, 4.0];
        let mut seen = std::collections::BTreeSet::new();
        every_ordering(&mut v, &mut |o| {
            seen.insert(o.iter().map(|x| *x as u8).collect::<Vec<_>>());
        });
        assert_eq!(seen.len(), 24);
    }

    /// Beyond nine signals the sampled p-value is near the exact one of a perfect order:
    /// 2/n! is far below 1/(10⁵ + 1), so p is the floor 1/(10⁵ + 1).
    #[test]
    fn sampled_p_values_have_their_floor() {
        let x: Vec<f64> = (0..12).map(f64::from).collect();
        let (_, p) = spearman_p_value(&x, &x).unwrap();
        assert!((p - 1.0 / (SAMPLED as f64 + 1.0)).abs() < 1e-12, "{p}");
    }

    fn summary(loss: f64, range: [f64; 2], seeds: usize) -> SignalSummary {
        SignalSummary {
            signal: super::super::Signal::Nope,
            seeds,
            held_loss: loss,
            held_loss_range: range,
            held_accuracy: 0.0,
            scaled_stress: None,
            separation: None,
            monotonicity: None,
            initial_monotonicity: None,
        }
    }

    #[test]
    fn below_needs_the_difference_to_clear_the_spread() {
        let nope = summary(6.27, [6.25, 6.29], 2);
        assert_eq!(below(&summary(6.20, [6.19, 6.21], 2), &nope), Some(true));
        assert_eq!(below(&summary(6.26, [6.22, 6.30], 2), &nope), None);
        assert_eq!(below(&summary(6.40, [6.39, 6.41], 2), &nope), Some(false));
        // One seed: 1 % of nope's loss.
        let nope1 = summary(6.0, [6.0, 6.0], 1);
        assert_eq!(below(&summary(5.95, [5.95, 5.95], 1), &nope1), None);
        assert_eq!(below(&summary(5.9, [5.9, 5.9], 1), &nope1), Some(true));
    }
}
