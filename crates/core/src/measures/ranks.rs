//! **Ranks** for Spearman's ρ (docs/MATH.md §6): average ranks, 1-based, where a run of
//! sorted values each within ε = 1e-12·max|v| of the previous one shares its mean rank (kept
//! doubled, so integers); for a matrix that is a function of the lag, from its n − 1 lags
//! without sorting the n(n−1)/2 pairs. The sort is a radix sort of the values' bits in
//! `f64::total_cmp`'s order (a comparison sort past a size where its scratch would cost).

use crate::metric::DistanceMatrix;

/// Relative tolerance under which two values count as tied.
pub const TIE_TOLERANCE: f64 = 1e-12;

/// Average ranks (1-based): a run of sorted values each within ε = 1e-12·max|v| of the
/// previous one shares its mean rank.
pub fn ranks(v: &[f64]) -> Vec<f64> {
    doubled_ranks(v).into_iter().map(|r| 0.5 * r as f64).collect()
}

/// Twice the average ranks of [`ranks`]: a run of sorted places start+1 ..= end shares the
/// average (start + end + 1)/2, so twice it is an integer — 4 bytes a pair instead of 8
/// (exact while there are fewer than 2³¹ pairs, n ≤ 65,536: [`crate::measures::stress::Target::new`] refuses more, and
/// the memory budget keeps n far below). Halving gives the ranks back exactly.
pub fn doubled_ranks(v: &[f64]) -> Vec<u32> {
    doubled_ranks_of(v.iter().copied())
}

/// [`doubled_ranks`] of the values an iterator gives (read twice: their largest magnitude,
/// then the sort).
pub(crate) fn doubled_ranks_of(v: impl Iterator<Item = f64> + Clone) -> Vec<u32> {
    let (sorted, eps) = to_sort(v);
    sorted_doubled_ranks(sorted, eps)
}

/// The values as (value, index) pairs to sort, and the tie tolerance ε = 1e-12·max|v|.
/// (Pairs sort contiguously, faster than an index sort.)
fn to_sort(v: impl Iterator<Item = f64> + Clone) -> (Vec<Pair>, f64) {
    let eps = tie_tolerance(v.clone());
    (v.enumerate().map(|(k, value)| Pair { value, index: k as u32 }).collect(), eps)
}

/// The tie tolerance ε = 1e-12·max|v| of the values `v`.
fn tie_tolerance(v: impl Iterator<Item = f64>) -> f64 {
    TIE_TOLERANCE * v.fold(0.0f64, |m, x| m.max(x.abs()))
}

/// A value and its index, 12 bytes (unpadded: the sort's buffer is a quarter smaller than
/// a `(f64, u32)`'s 16 bytes, and sorts as fast).
#[derive(Clone, Copy)]
#[repr(C, packed(4))]
struct Pair {
    value: f64,
    index: u32,
}

/// [`doubled_ranks`] of (value, index) pairs, sorted here.
fn sorted_doubled_ranks(mut sorted: Vec<Pair>, eps: f64) -> Vec<u32> {
    sort_pairs(&mut sorted);
    let mut r = vec![0u32; sorted.len()];
    let mut start = 0;
    while start < sorted.len() {
        let mut end = start + 1;
        while end < sorted.len() && { sorted[end].value } - { sorted[end - 1].value } <= eps {
            end += 1;
        }
        let doubled = (start + end + 1) as u32;
        for p in &sorted[start..end] {
            r[{ p.index } as usize] = doubled;
        }
        start = end;
    }
    r
}

/// Up to this many values are sorted by radix (its scratch is a copy of them: 48 MB here);
/// more, in place by comparison, so that the sort of a large n's pairs adds no memory.
const RADIX_SORT_MAX: usize = 1 << 22;

/// Sorts (value, index) pairs by value in `f64::total_cmp`'s order, equal values by index:
/// by an LSB radix sort of the values (stable, and [`to_sort`] gives the pairs in index order) up to
/// [`RADIX_SORT_MAX`] — three to four times faster than a comparison sort on a few
/// thousand pairs and more (docs/PERFORMANCE.md) — else by comparison.
fn sort_pairs(pairs: &mut [Pair]) {
    if pairs.len() <= RADIX_SORT_MAX {
        radsort::sort_by_key(pairs, |p| total_order_key(p.value));
    } else {
        pairs.sort_unstable_by(|a, b| {
            let (av, ak, bv, bk) = (a.value, a.index, b.value, b.index);
            av.total_cmp(&bv).then(ak.cmp(&bk))
        });
    }
}

/// The u64 whose order is `f64::total_cmp`'s: the bits with the sign flipped for
/// non-negative values, all flipped for negative ones.
fn total_order_key(v: f64) -> u64 {
    let bits = v.to_bits();
    if bits >> 63 == 0 {
        bits | (1 << 63)
    } else {
        !bits
    }
}

/// [`ranks`] of the pairs `upper` of `delta` (its values over i < j in row order); for a
/// matrix that is a function of the lag (δ_ij = f(|i − j|)), from the n − 1 lags with their
/// n − s pairs each — the same ranks without sorting n(n−1)/2 values.
pub fn pair_ranks(delta: &DistanceMatrix, upper: &[f64]) -> Vec<f64> {
    doubled_pair_ranks(delta.lags(), upper.to_vec()).into_iter().map(|r| 0.5 * r as f64).collect()
}

/// Twice [`pair_ranks`], given the lag function `lags` when there is one; `upper` is taken
/// (its sort replaces it).
pub(crate) fn doubled_pair_ranks(lags: Option<&[f64]>, upper: Vec<f64>) -> Vec<u32> {
    let Some(f) = lags else {
        let (sorted, eps) = to_sort(upper.iter().copied());
        drop(upper);
        return sorted_doubled_ranks(sorted, eps);
    };
    let eps = tie_tolerance(upper.iter().copied());
    let n = f.len();
    let mut lag_order: Vec<usize> = (1..n).collect();
    lag_order.sort_unstable_by(|&a, &b| f[a].total_cmp(&f[b]));
    let mut rank_of = vec![0u32; n];
    let (mut start, mut k) = (0usize, 0usize); // pairs before the run; its first lag
    while k < lag_order.len() {
        let mut end = k + 1;
        let mut pairs = n - lag_order[k];
        while end < lag_order.len() && f[lag_order[end]] - f[lag_order[end - 1]] <= eps {
            pairs += n - lag_order[end];
            end += 1;
        }
        let doubled = (2 * start + pairs + 1) as u32;
        lag_order[k..end].iter().for_each(|&s| rank_of[s] = doubled);
        (start, k) = (start + pairs, end);
    }
    (0..n).flat_map(|i| (i + 1..n).map(move |j| j - i)).map(|s| rank_of[s]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_radix_sort_orders_pairs_as_the_comparison_sort_does() {
        let mut values: Vec<f64> = (0..5000u64).map(|k| ((k * 7919) % 613) as f64 * 0.37 - 40.0).collect();
        values.extend([f64::NAN, -0.0, 0.0, f64::INFINITY, f64::NEG_INFINITY, 1e-300, -1e-300, 3.0, 3.0]);
        let pairs = |v: &[f64]| -> Vec<Pair> {
            v.iter().enumerate().map(|(k, &value)| Pair { value, index: k as u32 }).collect()
        };
        let mut radix = pairs(&values);
        sort_pairs(&mut radix);
        let mut comparison = pairs(&values);
        comparison.sort_by(|a, b| {
            let (av, ak, bv, bk) = (a.value, a.index, b.value, b.index);
            av.total_cmp(&bv).then(ak.cmp(&bk))
        });
        let order = |p: &[Pair]| p.iter().map(|p| (p.value.to_bits(), p.index)).collect::<Vec<_>>();
        assert_eq!(order(&radix), order(&comparison));
    }
}
