//! The symmetric eigensolver behind [`super::Spectrum`], keeping only the eigenvectors a
//! run reads. faer's `self_adjoint_eigen` in three steps, each faer's own:
//!
//! 1. Householder tridiagonalisation, B = Q T Qᵀ (in place in B: Q's reflectors are stored
//!    below T's sub-diagonal);
//! 2. divide and conquer on the tridiagonal T = W Λ Wᵀ (all n eigenvalues, and W);
//! 3. the eigenvectors V = Q W, for the k columns of W that are kept only.
//!
//! Step 3 costs 2n²k flops instead of 2n³ (at n = 4096 and k = 768 about a fifth), the
//! eigenvectors take n·k numbers instead of n², and B itself is T's storage, so the step
//! holds four n×n matrices (B, W and divide and conquer's two) instead of five. The
//! eigenvalues are those of the full decomposition, bit for bit, and so are the kept columns
//! up to round-off: each column of Q W is Q applied to that column of W alone (the GEMMs may
//! round k columns otherwise than n; on the development machine, natively, they do not).

use crate::error::{PosgeoError, Result};
use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::{evd, householder, temp_mat_scratch};
use faer::{Conj, Mat};

/// Eigenvalues of the symmetric `b` (its lower triangle is read), descending, and the unit
/// eigenvectors of the first k = `keep(eigenvalues)` of them (clamped to 1..=n) as the columns
/// of an n×k matrix in faer's ascending order: column k − 1 − c is eigenvalue c's (signs as
/// faer gives them).
pub fn top_eigen(mut b: Mat<f64>, keep: impl FnOnce(&[f64]) -> usize) -> Result<(Vec<f64>, Mat<f64>)> {
    let n = b.nrows();
    if n == 0 || b.ncols() != n {
        return Ok((Vec::new(), Mat::zeros(n, 0)));
    }
    let par = faer::get_global_parallelism();
    let bs = faer::linalg::qr::no_pivoting::factor::recommended_block_size::<f64>(n, n);
    let mut reflectors = Mat::<f64>::zeros(bs, n - 1);
    let (eigenvalues, w) = {
        let req = StackReq::any_of(&[
            evd::tridiag::tridiag_in_place_scratch::<f64>(n, par, Default::default()),
            // The tridiagonal solver: its copies of T, then divide and conquer's workspace
            // (n usize × 4, six columns and two n×n matrices, as faer lays it out).
            StackReq::all_of(&[
                temp_mat_scratch::<f64>(n, 1).array(2),
                StackReq::new::<usize>(n).array(4),
                temp_mat_scratch::<f64>(n, 1).array(6),
                temp_mat_scratch::<f64>(n, n).array(2),
            ]),
        ]);
        let mut buffer = MemBuffer::try_new(req).map_err(|_| too_large(n))?;
        let stack = MemStack::new(&mut buffer);
        evd::tridiag::tridiag_in_place(b.as_mut(), reflectors.as_mut(), par, stack, Default::default());
        let diag: Vec<f64> = (0..n).map(|i| b[(i, i)]).collect();
        let offdiag: Vec<f64> = (0..n).map(|i| if i + 1 < n { b[(i + 1, i)] } else { 0.0 }).collect();
        let mut s = faer::diag::Diag::<f64>::zeros(n);
        let mut w = Mat::<f64>::zeros(n, n);
        evd::tridiagonal_self_adjoint_evd(
            faer::diag::DiagRef::from_slice(&diag),
            faer::diag::DiagRef::from_slice(&offdiag),
            s.as_mut(),
            Some(w.as_mut()),
            par,
            stack,
            Default::default(),
        )
        .map_err(|_| PosgeoError::Eigen)?;
        // faer's order is ascending.
        ((0..n).rev().map(|j| s[j]).collect::<Vec<f64>>(), w)
    };
    let k = keep(&eigenvalues).clamp(1, n);
    let mut v = w.subcols(n - k, k).to_owned();
    drop(w);
    if n > 1 {
        let req = householder::apply_block_householder_sequence_on_the_left_in_place_scratch::<f64>(n - 1, bs, k);
        let mut buffer = MemBuffer::try_new(req).map_err(|_| too_large(n))?;
        householder::apply_block_householder_sequence_on_the_left_in_place_with_conj(
            b.submatrix(1, 0, n - 1, n - 1),
            reflectors.as_ref(),
            Conj::No,
            v.as_mut().subrows_mut(1, n - 1),
            par,
            MemStack::new(&mut buffer),
        );
    }
    Ok((eigenvalues, v))
}

fn too_large(n: usize) -> PosgeoError {
    PosgeoError::TooLarge(format!("no memory for the eigensolver's workspace at n = {n}"))
}
