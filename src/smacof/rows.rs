//! One SMACOF iteration **by blocks of rows**, so that several workers can share it (the
//! page's helper workers; natively, every core in the tests). Row i of the iteration needs
//! only X and row i of D:
//!
//! - δ_ij = ‖x_i − x_j‖ for every j, by the Gram identity δ² = ‖x_i‖² + ‖x_j‖² − 2⟨x_i, x_j⟩
//!   (one GEMM per block, G_R = X_R·Xᵀ), recomputed directly where the subtraction would
//!   lose digits — the rule of [`crate::points::Points::distances`];
//! - the block's share of σ's numerator, Σ_{i∈R, j>i} (δ_ij − D_ij)², summed over j in order;
//! - row i of B(X): B_ij = −D_ij/δ_ij (i ≠ j, δ_ij > 0, else 0), B_ii = −Σ_{j≠i} B_ij, written
//!   over the block's Gram buffer, and the rows (1/n)·B_R·X of the next configuration (a
//!   second GEMM).
//!
//! The blocks ([`RowPlan`]) depend on n alone, and their shares of σ are added in block
//! order, so the result does not depend on who computed which block. A block costs two
//! |R|×n×d products (the whole iteration 4n²d flops, against 3n²d for the one-worker loop,
//! whose Gram product reads only the upper triangle); its buffer is |R|×n numbers.

use crate::metric::DistanceMatrix;
use crate::points::Points;
use faer::{Accum, Mat, MatRef, Par};
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

/// What a block contributes to an iteration.
#[derive(Debug, Clone, PartialEq)]
pub struct BlockPart {
    /// Σ_{i∈R, j>i} (δ_ij − D_ij)² over the block's rows R.
    pub stress: f64,
    /// The rows R of the next configuration (1/n)·B(X)·X, row-major |R|×d (empty when no
    /// step was asked for).
    pub next: Vec<f64>,
}

/// Block `rows` of the iteration from X (with `norms` = [`norms`]`(x)`) against `d_rows`,
/// rows R of D (row-major |R|×n). `step`: also the rows of the next configuration.
pub fn block(x: &Points, norms: &[f64], d_rows: &[f64], rows: Range<usize>, step: bool) -> BlockPart {
    let (n, dim, a, m) = (x.n, x.dim, rows.start, rows.len());
    // X is row-major n×d, i.e. Xᵀ column-major d×n: no copy.
    let xt = MatRef::from_column_major_slice(&x.data, dim, n);
    // Column i of g: G row a+i over every j (Gᵀ_R = X·X_Rᵀ, column-major n×|R|).
    let mut g = Mat::<f64>::zeros(n, m);
    faer::linalg::matmul::matmul(g.as_mut(), Accum::Replace, xt.transpose(), xt.subcols(a, m), 1.0, Par::Seq);
    let mut stress = 0.0;
    for c in 0..m {
        let i = a + c;
        let (col, d) = (g.col_as_slice_mut(c), &d_rows[c * n..(c + 1) * n]);
        let mut s = 0.0;
        for j in 0..n {
            let delta = if j == i { 0.0 } else { distance(x, norms, i, j, col[j]) };
            if j > i {
                let e = delta - d[j];
                stress += e * e;
            }
            let v = if j != i && delta > 0.0 { -d[j] / delta } else { 0.0 };
            col[j] = v;
            s += v;
        }
        col[i] = -s;
    }
    if !step {
        return BlockPart { stress, next: Vec::new() };
    }
    // The next rows, (1/n)·B_R·X: column-major d×|R| = Xᵀ·B_Rᵀ, i.e. row-major |R|×d.
    let mut next = Mat::<f64>::zeros(dim, m);
    faer::linalg::matmul::matmul(next.as_mut(), Accum::Replace, xt, g.as_ref(), 1.0, Par::Seq);
    let scale = n as f64;
    let next = (0..m).flat_map(|c| next.col_as_slice(c).iter().map(move |v| v / scale).collect::<Vec<_>>()).collect();
    BlockPart { stress, next }
}

/// [`block`] with its rows of D read from the whole matrix D.
pub fn block_of(x: &Points, norms: &[f64], target: &DistanceMatrix, rows: Range<usize>, step: bool) -> BlockPart {
    let n = target.n();
    block(x, norms, &target.as_slice()[rows.start * n..rows.end * n], rows, step)
}

/// δ_ij from the Gram entry G_ij (module docs).
#[inline]
fn distance(x: &Points, norms: &[f64], i: usize, j: usize, gram: f64) -> f64 {
    let scale = norms[i] + norms[j];
    let sq = scale - 2.0 * gram;
    if sq > 0.1 * scale {
        sq.sqrt()
    } else {
        x.direct(i, j)
    }
}

/// The blocks' parts combined: σ's numerator (block order) and, if every part stepped, the
/// next configuration.
pub fn combine(n: usize, dim: usize, parts: &[BlockPart]) -> (f64, Option<Points>) {
    let stress = parts.iter().map(|p| p.stress).sum();
    let stepped = parts.iter().all(|p| !p.next.is_empty() || dim == 0);
    let next = stepped.then(|| Points { n, dim, data: parts.iter().flat_map(|p| p.next.iter().copied()).collect() });
    (stress, next)
}
