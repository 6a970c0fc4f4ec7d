//! The Hellinger chord by one Gram product (see the parent module's docs): G = A·Aᵀ of the
//! sparse rows a_i(w) = sqrt(c_i(w) + α) − √α, the tokens present at many positions through
//! a dense GEMM and the rest through sparse outer products, natively on every core.

use super::{DistanceMatrix, SqrtRows};
use faer::linalg::matmul::triangular::{self, BlockStructure};
use faer::{Accum, MatMut, MatRef};

/// A token goes through the dense GEMM when it occurs at more than n / DENSE_DIVISOR
/// positions. The sparse path costs about occ²/2 scattered multiply-adds for a token, the
/// dense one n²/2 vectorised ones, so only tokens present at a large share of positions pay
/// for the GEMM. Chosen by measurement on the IMDB-sized benchmark (n = 512): natively
/// (`posgeo-bench`, AVX2 GEMM on two threads) 4 beat 2, 3, 8 and 16; in the browser
/// (`bench/browser.mjs`, 128-bit wasm SIMD, one thread) 2 beat 4.
#[cfg(not(target_arch = "wasm32"))]
const DENSE_DIVISOR: usize = 4;
#[cfg(target_arch = "wasm32")]
const DENSE_DIVISOR: usize = 2;
/// Below this value of 2 − 2·BC the chord is recomputed directly.
const CANCELLATION_GUARD: f64 = 1e-4;

/// Writes the upper triangle of A·Aᵀ into `dst` — with the diagonal or without — by faer's
/// triangular product (half the work of the full one); the rest of `dst` is left as it was.
pub(crate) fn upper_gram(a: MatRef<'_, f64>, dst: MatMut<'_, f64>, diagonal: bool) {
    upper_gram_with(a, dst, diagonal, faer::get_global_parallelism());
}

/// [`upper_gram`] on the threads `par` gives (one, where the caller already runs one product
/// per core).
pub(crate) fn upper_gram_with(a: MatRef<'_, f64>, dst: MatMut<'_, f64>, diagonal: bool, par: faer::Par) {
    let structure = if diagonal { BlockStructure::TriangularUpper } else { BlockStructure::StrictTriangularUpper };
    triangular::matmul(
        dst,
        structure,
        Accum::Replace,
        a,
        BlockStructure::Rectangular,
        a.transpose(),
        BlockStructure::Rectangular,
        1.0,
        par,
    );
}

/// The strict upper triangle (i < j) of G = A·Aᵀ as a row-major n×n buffer (the lower
/// triangle and the diagonal left at zero), and R_i = Σ_w a_i(w).
fn gram_upper(rows: &SqrtRows) -> (Vec<f64>, Vec<f64>) {
    let (n, counts) = (rows.n, rows.counts);
    let s = rows.alpha.sqrt();
    let nv = counts.vocab.len();
    // Columns of A: for each token, the positions where it occurs.
    let mut occurs = vec![0u32; nv];
    for row in &counts.rows {
        for &(w, _) in row {
            occurs[w as usize] += 1;
        }
    }
    let heavy_threshold = (n / DENSE_DIVISOR).max(4) as u32;
    let mut dense_col = vec![u32::MAX; nv];
    let mut n_dense = 0usize;
    for (w, &o) in occurs.iter().enumerate() {
        if o > heavy_threshold {
            dense_col[w] = n_dense as u32;
            n_dense += 1;
        }
    }
    // Row-major, so that each position's row is written in order.
    let mut heavy = vec![0.0; n * n_dense];
    // The light columns one after another (column w: entries[starts[w]..starts[w + 1]]).
    let mut starts = vec![0usize; nv + 1];
    for (w, (&o, &k)) in occurs.iter().zip(&dense_col).enumerate() {
        starts[w + 1] = starts[w] + if k == u32::MAX { o as usize } else { 0 };
    }
    let mut next = starts[..nv].to_vec();
    let mut entries = vec![(0u32, 0.0f64); starts[nv]];
    let mut r = vec![0.0; n];
    for (i, row) in counts.rows.iter().enumerate() {
        for &(w, c) in row {
            let a = (c as f64 + rows.alpha).sqrt() - s;
            r[i] += a;
            match dense_col[w as usize] {
                u32::MAX => {
                    entries[next[w as usize]] = (i as u32, a);
                    next[w as usize] += 1;
                }
                k => heavy[i * n_dense + k as usize] = a,
            }
        }
    }
    let light: Vec<&[(u32, f64)]> = starts.windows(2).filter(|s| s[1] > s[0]).map(|s| &entries[s[0]..s[1]]).collect();
    let mut g = vec![0.0; n * n];
    if n_dense > 0 {
        let heavy = MatRef::from_row_major_slice(&heavy, n, n_dense);
        upper_gram(heavy, MatMut::from_row_major_slice_mut(&mut g, n, n), false);
    }
    add_outer_products(&mut g, n, &light);
    (g, r)
}

/// Adds each light column's outer products a_p·a_q (p < q) to row p of the row-major n×n `g`.
/// A column's positions ascend, so (p, q) lands above the diagonal. Natively the rows are cut
/// into blocks of about equal numbers of upper-triangle pairs, four per thread, run in
/// parallel ([`crate::par`]). The blocks only split the rows: every cell adds the columns in
/// their order whatever the blocks, so the sums are those of one loop, bit for bit.
fn add_outer_products(g: &mut [f64], n: usize, light: &[&[(u32, f64)]]) {
    let pieces = if crate::par::threads() > 1 { 4 * crate::par::threads() } else { 1 };
    add_outer_products_in(g, n, light, pieces);
}

/// [`add_outer_products`] with the rows cut into `pieces` blocks.
fn add_outer_products_in(g: &mut [f64], n: usize, light: &[&[(u32, f64)]], pieces: usize) {
    let pieces = pieces.max(1);
    let mut blocks = Vec::with_capacity(pieces);
    let (mut rest, mut start) = (g, 0);
    for k in 1..=pieces {
        // Rows 0..b hold a share 1 − (1 − b/n)² of the pairs.
        let end = if k == pieces {
            n
        } else {
            let left = (1.0 - k as f64 / pieces as f64).sqrt();
            ((n as f64 * (1.0 - left)).round() as usize).clamp(start, n)
        };
        let (block, tail) = rest.split_at_mut((end - start) * n);
        blocks.push((start, block));
        (rest, start) = (tail, end);
    }
    crate::par::for_each(blocks, |(start, block)| {
        let end = start + block.len() / n.max(1);
        for &col in light {
            let from = col.partition_point(|&(p, _)| (p as usize) < start);
            let to = col.partition_point(|&(p, _)| (p as usize) < end);
            for (x, &(p, ap)) in col.iter().enumerate().take(to).skip(from) {
                let row = &mut block[(p as usize - start) * n..][..n];
                for &(q, aq) in &col[x + 1..] {
                    row[q as usize] += ap * aq;
                }
            }
        }
    });
}

pub(super) fn hellinger(rows: &SqrtRows) -> DistanceMatrix {
    let n = rows.n;
    let s = rows.alpha.sqrt();
    let (g, r) = gram_upper(rows);
    let constant = rows.vocab * rows.alpha;
    // D replaces G in its own buffer: no second n×n matrix (134 MB at n = 4096).
    DistanceMatrix::from_upper_in_place(n, g, |i, j, gij| {
        let bc = (gij + s * (r[i] + r[j]) + constant) / (rows.z[i] * rows.z[j]).sqrt();
        let x = 2.0 - 2.0 * bc;
        if x < CANCELLATION_GUARD {
            rows.direct_chord(i, j)
        } else {
            x.sqrt()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::add_outer_products_in;

    #[test]
    fn outer_products_by_blocks_are_one_loops_bit_for_bit() {
        // Columns of ascending positions with pseudo-random values, some long, some short.
        let n = 37;
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut cols: Vec<Vec<(u32, f64)>> = Vec::new();
        for _ in 0..60 {
            let mut c = Vec::new();
            for p in 0..n as u32 {
                if next() % 3 == 0 {
                    c.push((p, (next() % 1000) as f64 / 7.0));
                }
            }
            c.truncate((next() % 20) as usize);
            cols.push(c);
        }
        let light: Vec<&[(u32, f64)]> = cols.iter().map(|c| &c[..]).collect();
        let mut want = vec![0.5; n * n];
        for col in &light {
            for (x, &(p, ap)) in col.iter().enumerate() {
                for &(q, aq) in &col[x + 1..] {
                    want[p as usize * n + q as usize] += ap * aq;
                }
            }
        }
        for pieces in [1, 2, 3, 8, 50] {
            let mut g = vec![0.5; n * n];
            add_outer_products_in(&mut g, n, &light, pieces);
            assert!(g.iter().zip(&want).all(|(a, b)| a.to_bits() == b.to_bits()), "{pieces} pieces");
        }
    }
}
