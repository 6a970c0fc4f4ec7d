//! **Matrix products** of the fused trainer through the `gemm` crate (the blocked SIMD kernels
//! that candle and faer use: AVX2/FMA or AVX-512 chosen at run time natively, 128-bit SIMD in
//! wasm), one thread per product (runs go side by side, one a thread), so the numbers do not
//! depend on the machine's thread count. Operands are strided views into flat f32 buffers, so
//! transposes and per-head slices cost nothing. This module holds the project's only `unsafe`
//! call, behind bounds checks that make it sound.
#![allow(unsafe_code)]

/// A strided matrix inside a flat buffer: element (i, j) is at `off + i·rs + j·cs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct View {
    /// Where (0, 0) is.
    pub off: usize,
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
    /// Row stride.
    pub rs: usize,
    /// Column stride.
    pub cs: usize,
}

impl View {
    /// A row-major `rows`×`cols` block at `off`.
    pub fn rm(off: usize, rows: usize, cols: usize) -> View {
        View { off, rows, cols, rs: cols, cs: 1 }
    }

    /// `rows`×`cols` at `off`, rows `rs` apart (a column slice of a wider row-major matrix).
    pub fn strided(off: usize, rows: usize, cols: usize, rs: usize) -> View {
        View { off, rows, cols, rs, cs: 1 }
    }

    /// The transpose (the same elements).
    pub fn t(self) -> View {
        View { off: self.off, rows: self.cols, cols: self.rows, rs: self.cs, cs: self.rs }
    }

    /// The largest index the view reaches (for a non-empty view).
    fn last(&self) -> usize {
        self.off + (self.rows - 1) * self.rs + (self.cols - 1) * self.cs
    }

    fn within(&self, len: usize) -> bool {
        self.rows == 0 || self.cols == 0 || self.last() < len
    }
}

/// dst ← scale·(a·b), or dst ← dst + scale·(a·b) with `acc`.
///
/// # Panics
/// When the shapes disagree or a view reaches past its buffer (a bug in the caller, never a
/// property of the user's data: every shape comes from the model's own sizes).
#[allow(clippy::too_many_arguments)]
pub fn mm(dst: &mut [f32], dv: View, a: &[f32], av: View, b: &[f32], bv: View, acc: bool, scale: f32) {
    assert!(av.rows == dv.rows && bv.cols == dv.cols && av.cols == bv.rows, "matmul shapes {dv:?} {av:?} {bv:?}");
    assert!(dv.within(dst.len()) && av.within(a.len()) && bv.within(b.len()), "matmul view out of bounds");
    let (m, n, k) = (dv.rows, dv.cols, av.cols);
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        if !acc {
            for i in 0..m {
                for j in 0..n {
                    dst[dv.off + i * dv.rs + j * dv.cs] = 0.0;
                }
            }
        }
        return;
    }
    // SAFETY: the asserts above keep every element the three views address inside its slice;
    // `dst` is a unique borrow, so it overlaps neither `a` nor `b`.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.as_mut_ptr().add(dv.off),
            dv.cs as isize,
            dv.rs as isize,
            acc,
            a.as_ptr().add(av.off),
            av.cs as isize,
            av.rs as isize,
            b.as_ptr().add(bv.off),
            bv.cs as isize,
            bv.rs as isize,
            1.0,
            scale,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every layout against the definition, with accumulation and scale.
    #[test]
    fn products_match_the_definition_in_every_layout() {
        let (m, n, k) = (5, 7, 3);
        let a: Vec<f32> = (0..m * k).map(|i| (i as f32 * 0.37).sin()).collect();
        let b: Vec<f32> = (0..k * n).map(|i| (i as f32 * 0.11).cos()).collect();
        let want = |i: usize, j: usize| (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum::<f32>();
        let mut dst = vec![1.0; m * n];
        mm(&mut dst, View::rm(0, m, n), &a, View::rm(0, m, k), &b, View::rm(0, k, n), true, 2.0);
        for i in 0..m {
            for j in 0..n {
                assert!((dst[i * n + j] - (1.0 + 2.0 * want(i, j))).abs() < 1e-5);
            }
        }
        // (a·b)ᵀ = bᵀ·aᵀ, written column-major into a row-major buffer.
        let mut t = vec![0.0; n * m];
        mm(&mut t, View::rm(0, m, n).t().t(), &a, View::rm(0, m, k), &b, View::rm(0, k, n), false, 1.0);
        let mut u = vec![0.0; n * m];
        mm(&mut u, View::rm(0, n, m), &b, View::rm(0, k, n).t(), &a, View::rm(0, m, k).t(), false, 1.0);
        for i in 0..m {
            for j in 0..n {
                assert!((t[i * n + j] - want(i, j)).abs() < 1e-5);
                assert!((u[j * m + i] - want(i, j)).abs() < 1e-5);
            }
        }
    }

    #[test]
    #[should_panic(expected = "out of bounds")]
    fn a_view_past_its_buffer_is_refused() {
        let mut dst = vec![0.0; 4];
        mm(&mut dst, View::rm(0, 2, 2), &[1.0; 3], View::rm(0, 2, 2), &[1.0; 4], View::rm(0, 2, 2), false, 1.0);
    }
}
