#![allow(clippy::print_stdout)]
use faer::linalg::matmul::triangular::{self, BlockStructure};
use faer::{Accum, Mat, MatMut, MatRef};
use std::time::Instant;
fn main() {
    let n: usize = std::env::var("N").ok().and_then(|s| s.parse().ok()).unwrap_or(4096);
    let d: usize = std::env::var("D").ok().and_then(|s| s.parse().ok()).unwrap_or(768);
    let unit = |k: usize| ((k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 11) as f64 / (1u64 << 53) as f64;
    let x: Vec<f64> = (0..n * d).map(|k| unit(k) - 0.5).collect();
    let target: Vec<f64> = (0..n * n).map(|k| 0.5 + unit(k + 7)).collect();
    let mut data = vec![0.0; n * n];
    for _ in 0..3 {
        let t = Instant::now();
        let a = MatRef::from_row_major_slice(&x, n, d);
        triangular::matmul(
            MatMut::from_row_major_slice_mut(&mut data, n, n),
            BlockStructure::TriangularUpper,
            Accum::Replace,
            a,
            BlockStructure::Rectangular,
            a.transpose(),
            BlockStructure::Rectangular,
            1.0,
            faer::get_global_parallelism(),
        );
        let t1 = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let norms: Vec<f64> = (0..n).map(|i| data[i * n + i]).collect();
        for i in 0..n {
            data[i * n + i] = 0.0;
            for j in i + 1..n {
                let scale = norms[i] + norms[j];
                let sq = scale - 2.0 * data[i * n + j];
                let v = sq.max(0.0).sqrt();
                data[i * n + j] = v;
                data[j * n + i] = v;
            }
        }
        let t2 = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let mut b = Mat::<f64>::zeros(n, n);
        for j in 0..n {
            let (dr, tr) = (&data[j * n..(j + 1) * n], &target[j * n..(j + 1) * n]);
            let col = b.col_as_slice_mut(j);
            let mut s = 0.0;
            for i in 0..n {
                let v = if i != j && dr[i] > 0.0 { -tr[i] / dr[i] } else { 0.0 };
                col[i] = v;
                s += v;
            }
            col[j] = -s;
        }
        let t3 = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let xm = Mat::from_fn(n, d, |i, k| x[i * d + k]);
        let next = &b * &xm;
        let t4 = t.elapsed().as_secs_f64();
        println!("gram {t1:.3} fixup {t2:.3} guttman_b {t3:.3} bx {t4:.3} ({})", next[(0, 0)]);
    }
}
