//! Stage 3 — **distances between positions** (`docs/MATH.md` §3; the paper's
//! Eq. 3).
//!
//! * Hellinger chord (default): D_ij = ‖√μ_i − √μ_j‖₂ = sqrt(max(0, 2 − 2·BC_ij)) with the
//!   Bhattacharyya coefficient BC_ij = Σ_w sqrt(μ_i(w) μ_j(w)); 0 ≤ D ≤ √2, no 1/√2 factor.
//! * Fisher–Rao arc: 2·arccos(min(1, BC)), evaluated as 4·arcsin(D/2) (the same number,
//!   without arccos's cancellation near BC = 1).
//! * Total variation: ½ Σ_w |μ_i(w) − μ_j(w)| ∈ [0, 1].
//! * Jensen–Shannon: the square root of the base-2 JS divergence, ∈ [0, 1].
//!
//! **How the chord is computed.** With Z_i = N_i + α|V|, s = √α and the sparse vector
//! a_i(w) = sqrt(c_i(w) + α) − s (zero off the support of row i),
//! sqrt(c_i(w)+α) = a_i(w) + s for *every* w, hence
//! BC_ij·sqrt(Z_i Z_j) = G_ij + s·(R_i + R_j) + |V|·α, with G = A·Aᵀ (one sparse Gram
//! product) and R_i = Σ_w a_i(w). Exact for α = 0 and α > 0 alike. Tokens present at many
//! positions go through a dense GEMM, the rest through sparse outer products; only the
//! upper triangle of G is formed (G is symmetric and its diagonal is not needed).
//! Where 2 − 2·BC < 1e-4 the subtraction would lose digits, so D is recomputed directly as
//! sqrt(Σ_w (√μ_i(w) − √μ_j(w))²) by merging the two sparse rows (the common smoothing
//! mass added back in closed form); both agree with the direct formula to 1e-9.

use crate::counts::PositionalCounts;
use crate::error::{PosgeoError, Result};
use serde::{Deserialize, Serialize};

mod chord;
use chord::hellinger;
pub(crate) use chord::{upper_gram, upper_gram_with};

/// Which distance between positional distributions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Hellinger chord ‖√μ_i − √μ_j‖₂ (the paper's Eq. 3).
    #[default]
    Hellinger,
    /// Fisher–Rao arc 2·arccos(BC).
    FisherRao,
    /// Total variation ½‖μ_i − μ_j‖₁.
    TotalVariation,
    /// √(JS divergence, base 2).
    JensenShannon,
}

impl Metric {
    /// Parses a CLI/URL name.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "hellinger" => Some(Self::Hellinger),
            "fisher_rao" | "fisher-rao" => Some(Self::FisherRao),
            "total_variation" | "total-variation" | "tv" => Some(Self::TotalVariation),
            "jensen_shannon" | "jensen-shannon" | "js" => Some(Self::JensenShannon),
            _ => None,
        }
    }

    /// The name used in reports and URLs.
    pub fn name(self) -> &'static str {
        match self {
            Self::Hellinger => "hellinger",
            Self::FisherRao => "fisher_rao",
            Self::TotalVariation => "total_variation",
            Self::JensenShannon => "jensen_shannon",
        }
    }
}

/// A symmetric n×n matrix of distances with zero diagonal, stored row-major.
#[derive(Debug, Clone, PartialEq)]
pub struct DistanceMatrix {
    n: usize,
    data: Vec<f64>,
}

impl DistanceMatrix {
    /// Builds a matrix from a function of the pair (i < j); mirrors it and zeroes the
    /// diagonal.
    pub fn from_fn(n: usize, mut f: impl FnMut(usize, usize) -> f64) -> Self {
        let mut data = vec![0.0; n * n];
        for i in 0..n {
            for j in i + 1..n {
                let v = f(i, j);
                data[i * n + j] = v;
                data[j * n + i] = v;
            }
        }
        DistanceMatrix { n, data }
    }

    /// Builds a matrix in `data`, the row-major n×n buffer whose strict upper triangle holds
    /// some g_ij (the rest may hold anything): each D_ij = `f(i, j, g_ij)` (i < j) replaces
    /// g_ij, row by row (natively on every core), then the lower triangle is mirrored from
    /// it and the diagonal zeroed. No second n×n buffer; the same numbers as
    /// [`DistanceMatrix::from_fn`] of `f` over g.
    pub fn from_upper_in_place(n: usize, mut data: Vec<f64>, f: impl Fn(usize, usize, f64) -> f64 + Sync) -> Self {
        assert_eq!(data.len(), n * n, "distance buffer must be n×n");
        fill_upper_then_mirror(&mut data, n, f);
        DistanceMatrix { n, data }
    }

    /// Wraps a row-major n×n buffer (must be symmetric with zero diagonal).
    pub fn from_row_major(n: usize, data: Vec<f64>) -> Self {
        assert_eq!(data.len(), n * n, "distance buffer must be n×n");
        DistanceMatrix { n, data }
    }

    /// Number of positions.
    pub fn n(&self) -> usize {
        self.n
    }

    /// D_ij.
    #[inline]
    pub fn get(&self, i: usize, j: usize) -> f64 {
        self.data[i * self.n + j]
    }

    /// Row i.
    pub fn row(&self, i: usize) -> &[f64] {
        &self.data[i * self.n..(i + 1) * self.n]
    }

    /// The row-major buffer.
    pub fn as_slice(&self) -> &[f64] {
        &self.data
    }

    /// Upper-triangle values (i < j) in row order: the "pairs" every statistic sums over.
    pub fn upper(&self) -> Vec<f64> {
        let n = self.n;
        let mut out = Vec::with_capacity(n * (n.saturating_sub(1)) / 2);
        for i in 0..n {
            out.extend_from_slice(&self.data[i * n + i + 1..(i + 1) * n]);
        }
        out
    }

    /// The same values as [`DistanceMatrix::upper`], read in place.
    pub fn upper_values(&self) -> impl Iterator<Item = f64> + Clone + '_ {
        (0..self.n).flat_map(move |i| self.row(i)[i + 1..].iter().copied())
    }

    /// [`DistanceMatrix::upper`], made in the matrix's own buffer: the pairs moved to its
    /// front row by row, the rest given back (`shrink_to_fit`; the allocators of both targets
    /// shrink such a block where it is), so no n×n matrix sits beside them.
    pub fn into_upper(self) -> Vec<f64> {
        let (n, mut data) = (self.n, self.data);
        let mut at = 0;
        for i in 0..n {
            let row = i * n + i + 1..(i + 1) * n;
            let len = row.len();
            data.copy_within(row, at);
            at += len;
        }
        data.truncate(at);
        data.shrink_to_fit();
        data
    }

    /// f(0..n) when δ_ij = f(|i − j|) bit for bit (the shift-invariant encodings), else `None`.
    pub fn lags(&self) -> Option<&[f64]> {
        let first = self.data.get(..self.n).filter(|_| self.n > 0)?;
        (1..self.n).all(|i| self.row(i)[i..] == first[..self.n - i]).then_some(first)
    }

    /// Largest entry.
    pub fn max(&self) -> f64 {
        self.data.iter().copied().fold(0.0, f64::max)
    }

    /// Rows as nested vectors (for JSON export).
    pub fn to_rows(&self) -> Vec<Vec<f64>> {
        self.data.chunks(self.n.max(1)).map(<[f64]>::to_vec).collect()
    }
}

/// Computes the chosen metric between every pair of positions.
pub fn distances(counts: &PositionalCounts, alpha: f64, metric: Metric) -> Result<DistanceMatrix> {
    if !(alpha >= 0.0 && alpha.is_finite()) {
        return Err(PosgeoError::option("alpha", "must be a finite number ≥ 0"));
    }
    let rows = SqrtRows::new(counts, alpha);
    Ok(match metric {
        Metric::Hellinger => hellinger(&rows),
        Metric::FisherRao => {
            let mut d = hellinger(&rows);
            d.data.iter_mut().for_each(|x| *x = 4.0 * (*x / 2.0).min(1.0).asin());
            d
        }
        Metric::TotalVariation => DistanceMatrix::from_fn(rows.n, |i, j| 0.5 * rows.merge(i, j, |p, q| (p - q).abs())),
        Metric::JensenShannon => DistanceMatrix::from_fn(rows.n, |i, j| rows.merge(i, j, js_term).max(0.0).sqrt()),
    })
}

/// ½[p·log2(2p/(p+q)) + q·log2(2q/(p+q))], the per-type JS divergence term.
fn js_term(p: f64, q: f64) -> f64 {
    let m = p + q;
    let t = |x: f64| if x > 0.0 { x * (2.0 * x / m).log2() } else { 0.0 };
    0.5 * (t(p) + t(q))
}

/// Writes `f(i, j, data[i·n + j])` over each entry of the strict upper triangle of the
/// row-major n×n `data` (rows side by side natively: each entry its own, so the bits do not
/// depend on the threads), zeroes the diagonal and mirrors the upper triangle onto the lower.
pub(crate) fn fill_upper_then_mirror(data: &mut [f64], n: usize, f: impl Fn(usize, usize, f64) -> f64 + Sync) {
    let rows: Vec<(usize, &mut [f64])> = data.chunks_mut(n.max(1)).enumerate().collect();
    crate::par::for_each(rows, |(i, row)| {
        row[i] = 0.0;
        for (j, v) in row.iter_mut().enumerate().skip(i + 1) {
            *v = f(i, j, *v);
        }
    });
    mirror_upper(data, n);
}

/// Copies the strict upper triangle of the row-major n×n `data` onto the lower one, by
/// 64×64 tiles (each tile's reads and writes stay in cache).
pub(crate) fn mirror_upper(data: &mut [f64], n: usize) {
    const TILE: usize = 64;
    for bi in (0..n).step_by(TILE) {
        for bj in (0..=bi).step_by(TILE) {
            for i in bi..(bi + TILE).min(n) {
                for j in bj..(bj + TILE).min(i) {
                    data[i * n + j] = data[j * n + i];
                }
            }
        }
    }
}

/// The smoothed probabilities of every row, kept sparse.
struct SqrtRows<'a> {
    counts: &'a PositionalCounts,
    n: usize,
    alpha: f64,
    vocab: f64,
    /// Z_i = N_i + α|V|.
    z: Vec<f64>,
}

impl<'a> SqrtRows<'a> {
    fn new(counts: &'a PositionalCounts, alpha: f64) -> Self {
        let vocab = counts.vocab.len() as f64;
        let z = counts.support().iter().map(|&s| s as f64 + alpha * vocab).collect();
        SqrtRows { counts, n: counts.n, alpha, vocab, z }
    }

    /// Σ_w f(μ_i(w), μ_j(w)) over the whole vocabulary, f(0,0) = 0 assumed only when α = 0:
    /// the types outside both supports share one value, added in closed form.
    fn merge(&self, i: usize, j: usize, f: impl Fn(f64, f64) -> f64) -> f64 {
        let (ri, rj) = (&self.counts.rows[i], &self.counts.rows[j]);
        let (zi, zj, a) = (self.z[i], self.z[j], self.alpha);
        let p = |c: u64| (c as f64 + a) / zi;
        let q = |c: u64| (c as f64 + a) / zj;
        let (mut x, mut y, mut sum, mut union) = (0, 0, 0.0, 0usize);
        while x < ri.len() || y < rj.len() {
            let wi = ri.get(x).map_or(u32::MAX, |e| e.0);
            let wj = rj.get(y).map_or(u32::MAX, |e| e.0);
            if wi == wj {
                sum += f(p(ri[x].1), q(rj[y].1));
                x += 1;
                y += 1;
            } else if wi < wj {
                sum += f(p(ri[x].1), a / zj);
                x += 1;
            } else {
                sum += f(a / zi, q(rj[y].1));
                y += 1;
            }
            union += 1;
        }
        let outside = self.vocab - union as f64;
        if a > 0.0 && outside > 0.0 {
            sum += outside * f(a / zi, a / zj);
        }
        sum
    }

    /// sqrt(Σ_w (√μ_i − √μ_j)²), the chord by its definition.
    fn direct_chord(&self, i: usize, j: usize) -> f64 {
        self.merge(i, j, |p, q| {
            let d = p.sqrt() - q.sqrt();
            d * d
        })
        .sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::tokenize::{Tokenizer, TokenizerKind};
    use crate::corpus::Corpus;
    use crate::counts::{CountParams, Mode};

    #[test]
    fn a_matrix_built_in_place_over_g_is_the_one_built_beside_it() {
        // Sizes around the mirror's 64×64 tiles; the lower triangle and diagonal of g hold
        // garbage, which must not leak in.
        for n in [1, 2, 63, 64, 65, 130] {
            let g: Vec<f64> = (0..n * n).map(|k| ((k * 7919) % 101) as f64 - 50.0).collect();
            let f = |i: usize, j: usize, x: f64| (x * x + (i * 3 + j) as f64).sqrt();
            let want = DistanceMatrix::from_fn(n, |i, j| f(i, j, g[i * n + j]));
            let got = DistanceMatrix::from_upper_in_place(n, g.clone(), f);
            assert_eq!(got, want, "n = {n}");
        }
    }

    #[test]
    fn the_pairs_made_in_place_are_the_pairs_copied() {
        for n in [0, 1, 2, 3, 7, 64] {
            let m = DistanceMatrix::from_fn(n, |i, j| (i * 31 + j * 7) as f64 + 0.5);
            let copied = m.upper();
            assert_eq!(m.upper_values().collect::<Vec<_>>(), copied, "n = {n}");
            let moved = m.into_upper();
            assert_eq!(moved, copied, "n = {n}");
            assert_eq!(moved.len(), n * n.saturating_sub(1) / 2);
        }
    }

    fn counts(text: &str) -> PositionalCounts {
        let p = CountParams {
            tokenizer: Tokenizer {
                kind: TokenizerKind::Whitespace,
                lowercase: false,
                bos: false,
                model: None,
                special_tokens: true,
                kmer: 1,
            },
            mode: Mode::Condition,
            max_len: 512,
            min_support: 1,
            top_k: None,
        };
        PositionalCounts::count(&Corpus::from_text(text), &p, &mut |_| {}).unwrap()
    }

    /// Dense μ matrix, the naive way.
    fn dense(c: &PositionalCounts, alpha: f64) -> Vec<Vec<f64>> {
        (0..c.n).map(|i| (0..c.vocab.len() as u32).map(|w| c.prob(i, w, alpha)).collect()).collect()
    }

    #[test]
    fn chord_matches_dense_definition_with_and_without_smoothing() {
        let c = counts("a b c d\nb a c\na a d d\nc b a d\nd d d a\n");
        for alpha in [0.0, 0.5, 3.0] {
            let mu = dense(&c, alpha);
            let d = distances(&c, alpha, Metric::Hellinger).unwrap();
            for i in 0..c.n {
                for j in 0..c.n {
                    let direct: f64 =
                        mu[i].iter().zip(&mu[j]).map(|(p, q)| (p.sqrt() - q.sqrt()).powi(2)).sum::<f64>().sqrt();
                    assert!((d.get(i, j) - direct).abs() < 1e-12, "α={alpha} ({i},{j})");
                }
            }
            let tv = distances(&c, alpha, Metric::TotalVariation).unwrap();
            let js = distances(&c, alpha, Metric::JensenShannon).unwrap();
            let fr = distances(&c, alpha, Metric::FisherRao).unwrap();
            for i in 0..c.n {
                for j in i + 1..c.n {
                    let t: f64 = 0.5 * mu[i].iter().zip(&mu[j]).map(|(p, q)| (p - q).abs()).sum::<f64>();
                    assert!((tv.get(i, j) - t).abs() < 1e-12);
                    let jsd: f64 = mu[i].iter().zip(&mu[j]).map(|(&p, &q)| js_term(p, q)).sum();
                    assert!((js.get(i, j) - jsd.max(0.0).sqrt()).abs() < 1e-12);
                    let bc: f64 = mu[i].iter().zip(&mu[j]).map(|(p, q)| (p * q).sqrt()).sum();
                    assert!((fr.get(i, j) - 2.0 * bc.min(1.0).acos()).abs() < 1e-6);
                }
            }
        }
    }

    #[test]
    fn nearly_equal_distributions_keep_their_digits() {
        // Two positions differing by one count in a million.
        let mut text = String::new();
        for k in 0..2000 {
            let w = k % 7;
            text.push_str(&format!("t{w} t{w}\n"));
        }
        text.push_str("t1 t2\n");
        let c = counts(&text);
        let d = distances(&c, 0.0, Metric::Hellinger).unwrap();
        let mu = dense(&c, 0.0);
        let direct: f64 = mu[0].iter().zip(&mu[1]).map(|(p, q)| (p.sqrt() - q.sqrt()).powi(2)).sum::<f64>().sqrt();
        assert!(direct > 0.0);
        assert!((d.get(0, 1) - direct).abs() < 1e-15, "{} vs {direct}", d.get(0, 1));
    }
}
