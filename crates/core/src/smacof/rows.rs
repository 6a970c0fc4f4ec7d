//! One SMACOF iteration **by blocks of rows**, so that several workers can share it (the
//! page's helper workers; natively, fixed shares side by side: [`super::smacof`]). Block R = a..a+m
//! of rows computes the pairs (i, j) with i ∈ R and j ≥ a — the upper triangle of B(X) in strips,
//! since B is symmetric:
//!
//! - δ_ij = ‖x_i − x_j‖ for j ≥ a, by the Gram identity δ² = ‖x_i‖² + ‖x_j‖² − 2⟨x_i, x_j⟩
//!   (one GEMM per block, X_{a..n}·X_Rᵀ), recomputed directly where the subtraction would
//!   lose digits ([`crate::points::Points::distance_from_gram`], as for every δ);
//! - the block's share of σ's numerator, Σ_{i∈R, j>i} (δ_ij − D_ij)², summed over j in order;
//! - B_ij = −D_ij/δ_ij (i ≠ j, δ_ij > 0, else 0), written over the Gram buffer, and the sums
//!   Σ_{j≠i} B_ij·x_j and Σ_{j≠i} B_ij it contributes to: its own rows' over j ≥ a (one GEMM,
//!   B_{R,a..n}·X_{a..n}) and, by symmetry, the later rows' over i ∈ R (a second GEMM,
//!   B_{R,a+m..n}ᵀ·X_R).
//!
//! A worker adds its blocks into one [`Part`] (rows from its first block's first row to n);
//! [`combine`] adds the parts and takes the next configuration row by row,
//! x_i ← (1/n)·(Σ_{j≠i} B_ij·x_j − (Σ_{j≠i} B_ij)·x_i), since B_ii = −Σ_{j≠i} B_ij.
//! An iteration costs 3n²d flops in all, as in the one-worker loop (against 4n²d when each
//! block computed its rows' whole Gram product and B·X); a block's buffer is (n − a)×m
//! numbers. σ's shares are added in block order, so σ does not depend on who computed which
//! block; the next configuration's sums are added part by part, so it may differ in its last
//! bits with the number of workers (each sum is the same set of products).

use crate::metric::DistanceMatrix;
use crate::points::Points;
use faer::{Accum, Mat, MatMut, MatRef, Par};
use std::ops::Range;

/// Numbers in one block's buffer, at most (about 16 MB of f64), unless a block would then
/// hold fewer than [`MIN_ROWS`] rows.
const BLOCK_NUMBERS: usize = 1 << 21;
/// The fewest rows in a block (except the last, and when n is smaller).
const MIN_ROWS: usize = 16;
/// Blocks an iteration is cut into when n allows it (room for every core).
const BLOCKS: usize = 16;

/// How an iteration's rows are cut into blocks: a function of n alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowPlan {
    n: usize,
    rows: usize,
}

impl RowPlan {
    /// The plan for n positions.
    pub fn new(n: usize) -> Self {
        let rows = n.div_ceil(BLOCKS).min((BLOCK_NUMBERS / n.max(1)).max(MIN_ROWS)).max(MIN_ROWS).min(n.max(1));
        RowPlan { n, rows }
    }

    /// A plan of blocks of `rows` rows (the last one shorter), for the tests.
    #[cfg(test)]
    pub fn with_rows(n: usize, rows: usize) -> Self {
        RowPlan { n, rows: rows.clamp(1, n.max(1)) }
    }

    /// The blocks cut into `k` contiguous shares (at most [`RowPlan::len`] of them), each
    /// non-empty, of about the same number of pairs: block R = a..a+m computes |R|·(n − a)
    /// of them.
    pub fn shares(&self, k: usize) -> Vec<Range<usize>> {
        let len = self.len();
        let k = k.clamp(1, len.max(1));
        let cost = |b: usize| {
            let r = self.block(b);
            r.len() * (self.n - r.start)
        };
        let total: usize = (0..len).map(cost).sum();
        let (mut shares, mut start, mut done) = (Vec::with_capacity(k), 0, 0);
        for h in 1..k {
            let goal = total * h / k;
            let mut end = start + 1; // at least one block
            done += cost(start);
            while end < len - (k - h) && done + cost(end) / 2 < goal {
                done += cost(end);
                end += 1;
            }
            shares.push(start..end);
            start = end;
        }
        shares.push(start..len);
        shares
    }

    /// Number of blocks.
    pub fn len(&self) -> usize {
        self.n.div_ceil(self.rows)
    }

    /// Whether there are none (n = 0).
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The rows of block `b`.
    pub fn block(&self, b: usize) -> Range<usize> {
        (b * self.rows).min(self.n)..((b + 1) * self.rows).min(self.n)
    }

    /// The rows of blocks `blocks` together.
    pub fn span(&self, blocks: Range<usize>) -> Range<usize> {
        let start = self.block(blocks.start).start;
        if blocks.is_empty() {
            return start..start;
        }
        start..self.block(blocks.end - 1).end
    }
}

/// ‖x_i‖² for every row.
pub fn norms(x: &Points) -> Vec<f64> {
    x.rows().map(|r| r.iter().map(|v| v * v).sum()).collect()
}

/// What a run of blocks contributes to an iteration.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    /// The first row of its first block, a: its sums are those of rows a..n.
    pub from: usize,
    /// Per block, in block order: Σ_{i∈R, j>i} (δ_ij − D_ij)².
    pub stresses: Vec<f64>,
    /// Σ B_ij·x_j over the pairs it computed, for rows a..n, row-major (n − a)×d (empty when
    /// no step was asked for).
    pub sums: Vec<f64>,
    /// Σ B_ij over the same pairs, for rows a..n (empty when no step was asked for).
    pub row_sums: Vec<f64>,
}

impl Part {
    /// A part of nothing yet, for blocks from row `from` on (sums for a step if `step`).
    pub fn new(x: &Points, from: usize, step: bool) -> Self {
        let rows = if step { x.n - from } else { 0 };
        Part { from, stresses: Vec::new(), sums: vec![0.0; rows * x.dim], row_sums: vec![0.0; rows] }
    }
}

/// Adds block `rows` of the iteration from X (with `norms` = [`norms`]`(x)`) against
/// `d_rows`, rows R of D (row-major |R|×n), to `part` (whose rows start at or before R).
pub fn add_block(part: &mut Part, x: &Points, norms: &[f64], d_rows: &[f64], rows: Range<usize>) {
    let (n, dim, a, m) = (x.n, x.dim, rows.start, rows.len());
    let tail = n - a;
    // X is row-major n×d, i.e. Xᵀ column-major d×n: no copy.
    let xt = MatRef::from_column_major_slice(&x.data, dim, n);
    // Column c of g: ⟨x_j, x_{a+c}⟩ for j = a..n.
    let mut g = Mat::<f64>::zeros(tail, m);
    faer::linalg::matmul::matmul(
        g.as_mut(),
        Accum::Replace,
        xt.subcols(a, tail).transpose(),
        xt.subcols(a, m),
        1.0,
        Par::Seq,
    );
    let step = !part.row_sums.is_empty();
    let (mut stress, off) = (0.0, a - part.from);
    for c in 0..m {
        let i = a + c;
        let (col, d) = (g.col_as_slice_mut(c), &d_rows[c * n + a..(c + 1) * n]);
        let mut s = 0.0;
        for (r, v) in col.iter_mut().enumerate() {
            let j = a + r;
            let delta = if j == i { 0.0 } else { x.distance_from_gram(norms, i, j, *v) };
            if j > i {
                let e = delta - d[r];
                stress += e * e;
            }
            *v = if j != i && delta > 0.0 { -d[r] / delta } else { 0.0 };
            s += *v;
        }
        if step {
            part.row_sums[off + c] += s;
            // By symmetry, B_ij is also B_ji of the later rows j ≥ a + m.
            for (r, v) in col[m..].iter().enumerate() {
                part.row_sums[off + m + r] += v;
            }
        }
    }
    part.stresses.push(stress);
    if !step {
        return;
    }
    // Σ B_ij·x_j, column-major d×rows: Xᵀ_{a..n}·B_{R,a..n}ᵀ for R, X_Rᵀ·B_{R,a+m..n} after it.
    let mut sums = MatMut::from_column_major_slice_mut(&mut part.sums, dim, n - part.from);
    let own = sums.as_mut().subcols_mut(off, m);
    faer::linalg::matmul::matmul(own, Accum::Add, xt.subcols(a, tail), g.as_ref(), 1.0, Par::Seq);
    let later = sums.subcols_mut(off + m, tail - m);
    faer::linalg::matmul::matmul(
        later,
        Accum::Add,
        xt.subcols(a, m),
        g.as_ref().subrows(m, tail - m).transpose(),
        1.0,
        Par::Seq,
    );
}

/// The part of blocks `blocks` of `plan`, with `d_rows` their rows of D (row-major).
pub fn part(x: &Points, norms: &[f64], d_rows: &[f64], plan: &RowPlan, blocks: Range<usize>, step: bool) -> Part {
    let (n, first) = (x.n, plan.span(blocks.clone()).start);
    let mut part = Part::new(x, first, step);
    for b in blocks {
        let r = plan.block(b);
        add_block(&mut part, x, norms, &d_rows[(r.start - first) * n..(r.end - first) * n], r);
    }
    part
}

/// [`part`] with its rows of D read from the whole matrix D.
pub fn part_of(
    x: &Points,
    norms: &[f64],
    target: &DistanceMatrix,
    plan: &RowPlan,
    blocks: Range<usize>,
    step: bool,
) -> Part {
    let (n, rows) = (target.n(), plan.span(blocks.clone()));
    part(x, norms, &target.as_slice()[rows.start * n..rows.end * n], plan, blocks, step)
}

/// The parts of every block, in block order, combined: σ's numerator (block order) and, if
/// every part stepped, the next configuration (module docs).
pub fn combine(x: &Points, parts: &[Part]) -> (f64, Option<Points>) {
    let (n, dim) = (x.n, x.dim);
    let stress = parts.iter().flat_map(|p| p.stresses.iter()).sum();
    let stepped = parts.iter().all(|p| p.row_sums.len() == n - p.from && p.sums.len() == (n - p.from) * dim);
    if !stepped || parts.is_empty() {
        return (stress, None);
    }
    let (mut sums, mut row_sums) = (vec![0.0; n * dim], vec![0.0; n]);
    for p in parts {
        sums[p.from * dim..].iter_mut().zip(&p.sums).for_each(|(s, v)| *s += v);
        row_sums[p.from..].iter_mut().zip(&p.row_sums).for_each(|(s, v)| *s += v);
    }
    let scale = n as f64;
    let next = Points::from_fn(n, dim, |i, k| (sums[i * dim + k] - row_sums[i] * x.row(i)[k]) / scale);
    (stress, Some(next))
}
