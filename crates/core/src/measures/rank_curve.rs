//! The **rank curve**: how the stress of the low-rank PMDS configuration X_r (the first r
//! columns of X = V·diag(√λ), the paper's Algorithm 1 and the low-rank factorisation
//! P ≈ U_r·W_r with r(n+d) parameters) falls with r — raw stress σ and scale-optimal σ*
//! (docs/MATH.md §6, the paper's Eq. 4) of X_r for r = 1, 2, … (the ranks of [`rank_grid`]).
//!
//! Incremental in r: δ²_ij(r) = δ²_ij(r−1) + (x_ir − x_jr)², so every rank costs O(n²).
//! Two passes over the pairs: the first sums Σδ², ΣδD and Σ(δ − D)² at each rank, which give
//! a*_r = ΣδD/Σδ²; the second sums Σ(a*_r·δ − D)² (no cancellation of "1 − x"). Each row i
//! of pairs (i, j > i) is one piece of [`crate::par::map`]; rows are summed in order, so the
//! numbers do not depend on the number of threads.
//!
//! **The ranks measured** ([`rank_grid`]): every r ≤ 64, then a geometric grid (each rank
//! ⌈2^{1/4}·the last⌉) up to R = min(r_τ, 128), R included. The sums (a square root and three
//! products a pair) are taken at those ranks only; δ² still grows through every rank.

use crate::metric::DistanceMatrix;
use crate::points::Points;

/// Stress of low-rank PMDS X_r for one r (a row of the report's `rank_curve`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RankPoint {
    /// r.
    pub rank: usize,
    /// σ(X_r).
    pub raw_stress: f64,
    /// σ*(X_r).
    pub scaled_stress: f64,
    /// r·(n + d).
    pub parameters: u64,
}

/// Lanes of the inner loops (independent partial sums the compiler vectorises).
const LANES: usize = 4;

/// Per-rank sums over the pairs of the configuration `x` (n × R) against `target`:
/// (Σδ², ΣδD, Σ(δ − D)², Σ(a_r·δ − D)²) at each rank measured, the last with `a` = a*_r.
pub struct RankSums {
    /// Σ δ².
    pub dd: Vec<f64>,
    /// Σ δ·D.
    pub dt: Vec<f64>,
    /// Σ (δ − D)².
    pub raw: Vec<f64>,
    /// Σ (a*_r·δ − D)².
    pub scaled: Vec<f64>,
}

/// Ranks measured one by one; above it the grid is geometric.
pub const EVERY_RANK_UP_TO: usize = 64;

/// The ranks the curve measures up to `rmax` (see the module docs), ascending.
pub fn rank_grid(rmax: usize) -> Vec<usize> {
    let mut grid: Vec<usize> = (1..=rmax.min(EVERY_RANK_UP_TO)).collect();
    let mut r = EVERY_RANK_UP_TO;
    while r < rmax {
        r = ((r as f64 * 2f64.powf(0.25)).ceil() as usize).min(rmax);
        grid.push(r);
    }
    grid
}

/// The four sums of [`RankSums`] at each rank of `ranks` (ascending, 1-based, at most
/// `x.dim`), in that order.
pub fn rank_sums(x: &Points, target: &DistanceMatrix, ranks: &[usize]) -> RankSums {
    let (n, rmax) = (x.n, x.dim);
    // Column-major copy: rank r's coordinates contiguous.
    let cols: Vec<f64> =
        (0..rmax).flat_map(|r| (0..n).map(move |i| (r, i))).map(|(r, i)| x.data[i * rmax + r]).collect();
    let first = crate::par::map(n, |i| row_pass(&cols, n, i, target, ranks, None));
    let add = |rows: &[Vec<[f64; 3]>], k: usize| -> Vec<f64> {
        (0..ranks.len()).map(|g| rows.iter().fold(0.0, |acc, row| acc + row[g][k])).collect()
    };
    let (dd, dt, raw) = (add(&first, 0), add(&first, 1), add(&first, 2));
    let a: Vec<f64> = dd.iter().zip(&dt).map(|(&dd, &dt)| if dd > 0.0 { dt / dd } else { 0.0 }).collect();
    let second = crate::par::map(n, |i| row_pass(&cols, n, i, target, ranks, Some(&a)));
    let scaled = add(&second, 0);
    RankSums { dd, dt, raw, scaled }
}

/// Row i's pairs (i, j > i) at each rank of `ranks`: [Σδ², ΣδD, Σ(δ−D)²], or, given the
/// scales `a` (one per rank of `ranks`), [Σ(a_r·δ − D)², 0, 0].
fn row_pass(
    cols: &[f64],
    n: usize,
    i: usize,
    target: &DistanceMatrix,
    ranks: &[usize],
    a: Option<&[f64]>,
) -> Vec<[f64; 3]> {
    let rmax = ranks.last().copied().unwrap_or(0).min(cols.len() / n.max(1));
    let t = &target.row(i)[i + 1..];
    let mut sq = vec![0.0; t.len()];
    let mut out = Vec::with_capacity(ranks.len());
    let mut next = ranks.iter().peekable();
    for r in 0..rmax {
        let c = &cols[r * n..(r + 1) * n];
        let xi = c[i];
        for (s, &xj) in sq.iter_mut().zip(&c[i + 1..]) {
            let e = xi - xj;
            *s += e * e;
        }
        if next.next_if(|&&k| k == r + 1).is_none() {
            continue;
        }
        out.push(match a {
            None => first_sums(&sq, t),
            Some(a) => [scaled_sum(&sq, t, a[out.len()]), 0.0, 0.0],
        });
    }
    out
}

/// [Σδ², ΣδD, Σ(δ−D)²] with δ = √sq, in [`LANES`] independent partial sums.
fn first_sums(sq: &[f64], t: &[f64]) -> [f64; 3] {
    let (mut dd, mut dt, mut raw) = ([0.0; LANES], [0.0; LANES], [0.0; LANES]);
    let mut tail = [0.0; 3];
    let (sc, tc) = (sq.chunks_exact(LANES), t.chunks_exact(LANES));
    for (s, y) in sq[sc.len() * LANES..].iter().zip(&t[tc.len() * LANES..]) {
        let d = s.sqrt();
        tail[0] += d * d;
        tail[1] += d * y;
        tail[2] += (d - y) * (d - y);
    }
    for (s, y) in sc.zip(tc) {
        for l in 0..LANES {
            let d = s[l].sqrt();
            dd[l] += d * d;
            dt[l] += d * y[l];
            raw[l] += (d - y[l]) * (d - y[l]);
        }
    }
    let fold = |v: [f64; LANES], t: f64| v.iter().sum::<f64>() + t;
    [fold(dd, tail[0]), fold(dt, tail[1]), fold(raw, tail[2])]
}

/// Σ (a·√sq − D)², in [`LANES`] independent partial sums.
fn scaled_sum(sq: &[f64], t: &[f64], a: f64) -> f64 {
    let mut acc = [0.0; LANES];
    let (sc, tc) = (sq.chunks_exact(LANES), t.chunks_exact(LANES));
    let tail: f64 =
        sq[sc.len() * LANES..].iter().zip(&t[tc.len() * LANES..]).map(|(s, y)| (a * s.sqrt() - y).powi(2)).sum();
    for (s, y) in sc.zip(tc) {
        for l in 0..LANES {
            let e = a * s[l].sqrt() - y[l];
            acc[l] += e * e;
        }
    }
    acc.iter().sum::<f64>() + tail
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_equal_the_direct_computation_at_every_rank_measured() {
        let n = 23;
        let x = Points::from_fn(n, 5, |i, k| ((i * 7 + k * 13) % 11) as f64 * 0.3 - (k as f64) * 0.1);
        let target = DistanceMatrix::from_fn(n, |i, j| 1.0 + ((i + 2 * j) % 5) as f64 * 0.2);
        for ranks in [vec![1, 2, 3, 4, 5], vec![2, 5], vec![4]] {
            let sums = rank_sums(&x, &target, &ranks);
            for (g, &r) in ranks.iter().enumerate() {
                let xr = Points::from_fn(n, r, |i, k| x.row(i)[k]);
                let s = crate::measures::stress::stress(&xr.distances(), &target).expect("stress");
                let tt: f64 = target.upper().iter().map(|v| v * v).sum();
                let a = sums.dt[g] / sums.dd[g];
                assert!((sums.raw[g] / tt - s.raw_stress).abs() < 1e-12, "raw, r = {r}");
                assert!((a - s.scale).abs() < 1e-12, "a*, r = {r}");
                assert!((sums.scaled[g] / tt - s.scaled_stress).abs() < 1e-12, "σ*, r = {r}");
            }
        }
    }

    #[test]
    fn the_grid_takes_every_rank_to_64_then_grows_geometrically() {
        assert_eq!(rank_grid(5), vec![1, 2, 3, 4, 5]);
        assert_eq!(rank_grid(64), (1..=64).collect::<Vec<_>>());
        let g = rank_grid(128);
        assert_eq!(&g[64..], &[77, 92, 110, 128]);
        assert!(g.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(rank_grid(65).last(), Some(&65));
    }
}
