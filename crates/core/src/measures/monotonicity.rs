//! Stage 7 — **monotonicity in sequence order** (`docs/MATH.md` §7): does the
//! distance between positions grow with their separation?
//!
//! Over all triples (i, j, k) of distinct positions with |i − j| < |i − k|, a violation is
//! δ_ij > δ_ik + ε with ε = 1e-12·max δ. The rate is violations / number of such triples.
//!
//! Computed exactly in O(n² log n): for each anchor i, the other positions are visited in
//! order of |i − j| (at most two share a separation and are never compared with each
//! other); a Fenwick tree over the ranks of the δ values already visited counts those that
//! exceed δ_ik + ε.

use crate::metric::DistanceMatrix;

/// Violation rate of a distance matrix, or `None` when there is no triple (n < 3).
pub fn violation_rate(delta: &DistanceMatrix) -> Option<f64> {
    let (violations, triples) = count(delta);
    (triples > 0).then(|| violations as f64 / triples as f64)
}

/// Anchors per piece of [`crate::par::map`] (counts are integers: any order gives the
/// same totals).
const ANCHORS_PER_PIECE: usize = 32;

/// (violations, triples) of the pieces, added.
fn sum_pairs(pieces: &[(u64, u64)]) -> (u64, u64) {
    pieces.iter().fold((0, 0), |(v, t), &(pv, pt)| (v + pv, t + pt))
}

/// (violations, triples).
pub fn count(delta: &DistanceMatrix) -> (u64, u64) {
    let n = delta.n();
    let eps = 1e-12 * delta.max();
    if let Some(f) = delta.lags() {
        return count_lags(f, eps);
    }
    let pieces = crate::par::map(n.div_ceil(ANCHORS_PER_PIECE), |p| {
        let anchors = p * ANCHORS_PER_PIECE..((p + 1) * ANCHORS_PER_PIECE).min(n);
        count_anchors(delta, eps, anchors)
    });
    sum_pairs(&pieces)
}

/// (violations, triples) of a matrix that is a function of the lag, δ_ij = f(|i − j|), in
/// O(n²): a triple is a pair of separations s < t seen from an anchor i that has
/// c_i(s) = [s ≤ i] + [s ≤ n−1−i] positions at each; summed over the anchors,
/// W(s, t) = Σ_i c_i(s)·c_i(t) = 2(n − t) + 2·max(0, n − s − t), and the triple is a
/// violation when f(s) > f(t) + ε — the same count as [`count_anchors`] gives.
fn count_lags(f: &[f64], eps: f64) -> (u64, u64) {
    let n = f.len();
    let pieces = crate::par::map(n, |s| {
        let (mut violations, mut triples) = (0u64, 0u64);
        for t in (s + 1..n).filter(|_| s > 0) {
            let w = (2 * (n - t) + 2 * n.saturating_sub(s + t)) as u64;
            triples += w;
            if f[s] > f[t] + eps {
                violations += w;
            }
        }
        (violations, triples)
    });
    sum_pairs(&pieces)
}

/// (violations, triples) of the triples anchored at `anchors`.
fn count_anchors(delta: &DistanceMatrix, eps: f64, anchors: std::ops::Range<usize>) -> (u64, u64) {
    let n = delta.n();
    let (mut violations, mut triples) = (0u64, 0u64);
    let mut tree = vec![0u32; n + 1];
    let mut sorted: Vec<(f64, u32)> = Vec::with_capacity(n);
    // Per position k: its 0-based rank among the anchor's values, and the number of values
    // ≤ δ_ik + ε (a two-pointer scan over the sorted values, no binary search).
    let mut rank = vec![0usize; n];
    let mut bound = vec![0usize; n];
    for i in anchors {
        let row = delta.row(i);
        sorted.clear();
        sorted.extend((0..n).filter(|&j| j != i).map(|j| (row[j], j as u32)));
        sorted.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
        let mut hi = 0;
        let mut lo = 0;
        for (p, &(v, k)) in sorted.iter().enumerate() {
            while hi < sorted.len() && sorted[hi].0 <= v + eps {
                hi += 1;
            }
            while sorted[lo].0 < v {
                lo += 1;
            }
            bound[k as usize] = hi;
            // Equal values share the rank of the first of them.
            rank[k as usize] = if p > 0 && sorted[p - 1].0 == v { rank[sorted[p - 1].1 as usize] } else { lo };
        }
        tree.iter_mut().for_each(|t| *t = 0);
        let mut inserted = 0u64;
        for sep in 1..n {
            let group = [i.checked_sub(sep), Some(i + sep).filter(|&k| k < n)];
            // Query every member of the group against strictly closer positions.
            for k in group.into_iter().flatten() {
                triples += inserted;
                // Inserted values > δ_ik + ε = inserted − #(inserted values ≤ δ_ik + ε).
                violations += inserted - prefix(&tree, bound[k]) as u64;
            }
            for k in group.into_iter().flatten() {
                add(&mut tree, rank[k] + 1);
                inserted += 1;
            }
        }
    }
    (violations, triples)
}

fn add(tree: &mut [u32], mut i: usize) {
    while i < tree.len() {
        tree[i] += 1;
        i += i & i.wrapping_neg();
    }
}

/// Number of inserted values whose rank is < `bound`.
fn prefix(tree: &[u32], mut i: usize) -> u32 {
    let mut s = 0;
    while i > 0 {
        s += tree[i];
        i -= i & i.wrapping_neg();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition, O(n³).
    fn brute(d: &DistanceMatrix) -> (u64, u64) {
        let n = d.n();
        let eps = 1e-12 * d.max();
        let (mut v, mut t) = (0, 0);
        for i in 0..n {
            for j in 0..n {
                for k in 0..n {
                    if i == j || i == k || j == k || i.abs_diff(j) >= i.abs_diff(k) {
                        continue;
                    }
                    t += 1;
                    if d.get(i, j) > d.get(i, k) + eps {
                        v += 1;
                    }
                }
            }
        }
        (v, t)
    }

    #[test]
    fn matches_brute_force_on_pseudo_random_matrices() {
        for seed in 0..20u64 {
            let n = 3 + (seed as usize % 9);
            let d = DistanceMatrix::from_fn(n, |i, j| {
                let h = ((i as u64 * 2654435761) ^ (j as u64 * 40503) ^ (seed * 97)).wrapping_mul(0x9E3779B97F4A7C15);
                // Few distinct values so that ties occur.
                ((h >> 60) % 5) as f64
            });
            assert_eq!(count(&d), brute(&d), "seed {seed}");
        }
    }

    #[test]
    fn lag_matrices_count_as_the_general_algorithm_and_the_definition() {
        for seed in 0..30u64 {
            let n = 3 + (seed as usize % 14);
            // Few distinct values so that ties and near-ties occur.
            let f: Vec<f64> = (0..n)
                .map(|s| {
                    if s == 0 {
                        0.0
                    } else {
                        (((s as u64 * 2654435761) ^ (seed * 97)).wrapping_mul(0x9E3779B97F4A7C15) >> 61) as f64
                    }
                })
                .collect();
            let d = DistanceMatrix::from_fn(n, |i, j| f[j - i]);
            assert!(d.lags().is_some());
            let eps = 1e-12 * d.max();
            assert_eq!(count_lags(d.lags().expect("lags"), eps), count_anchors(&d, eps, 0..n), "seed {seed}");
            assert_eq!(count(&d), brute(&d), "seed {seed}");
        }
    }

    #[test]
    fn linear_configuration_has_no_violation() {
        let d = DistanceMatrix::from_fn(30, |i, j| 0.5 * (j - i) as f64);
        assert_eq!(violation_rate(&d), Some(0.0));
    }
}
