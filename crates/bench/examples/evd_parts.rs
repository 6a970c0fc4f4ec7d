//! Classical MDS's eigen-step timed three ways in one run, on the double-centred distances of
//! random points (n = `N`, 2048 by default): faer's `self_adjoint_eigen` (every eigenvector;
//! what `Spectrum` used before it kept only the vectors a run reads), `Spectrum::of_distances`
//! (every vector, through `posgeo::mds`'s three steps) and `Spectrum::of_distances_keeping`
//! the first `K` (768 by default), each from the same B, with the largest differences between
//! them.
//! `RAYON_NUM_THREADS=1 cargo run --release --example evd_parts`
#![allow(clippy::print_stdout)]

use faer::Side;
use posgeo::mds::{double_centre, Spectrum};

use posgeo::metric::DistanceMatrix;
use std::time::Instant;

fn main() {
    let env = |key: &str, default: usize| std::env::var(key).ok().and_then(|s| s.parse().ok()).unwrap_or(default);
    let (n, k) = (env("N", 2048), env("K", 768));
    let unit = |q: usize| ((q as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 11) as f64 / (1u64 << 53) as f64;
    let dim = 40;
    let pts: Vec<f64> = (0..n * dim).map(|q| (unit(q) - 0.5) / (1.0 + (q % dim) as f64)).collect();
    let target = DistanceMatrix::from_fn(n, |i, j| {
        let s: f64 = (0..dim).map(|c| (pts[i * dim + c] - pts[j * dim + c]).powi(2)).sum();
        s.sqrt() + 0.01 * unit(7 + i.min(j) * n + i.max(j))
    });
    let b = double_centre(&target);
    let t = Instant::now();
    let faer_all = b.self_adjoint_eigen(Side::Lower).expect("faer");
    let t_faer = t.elapsed().as_secs_f64();
    // (B taken by value: its copy is made before the clock starts.)
    let copy = b.clone();
    let t = Instant::now();
    let all = Spectrum::of_double_centred(copy).expect("all");
    let t_all = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let some = Spectrum::of_double_centred_keeping(b, |_| k).expect("some");
    let t_some = t.elapsed().as_secs_f64();
    let dl = (0..n).map(|j| (faer_all.S()[n - 1 - j] - some.eigenvalues[j]).abs()).fold(0.0, f64::max);
    let dv = (0..k.min(n)).map(|c| {
        let (f, v) = (faer_all.U().col(n - 1 - c), some.vector(c));
        let sign = if (0..n).map(|i| f[i] * v[i]).sum::<f64>() < 0.0 { -1.0 } else { 1.0 };
        (0..n).map(|i| (f[i] - sign * v[i]).abs()).fold(0.0, f64::max)
    });
    let dv = dv.fold(0.0, f64::max);
    let same = all.vectors()[..some.vectors().len()] == *some.vectors();
    println!("n = {n}: faer self_adjoint_eigen {t_faer:.3} s; Spectrum, every vector {t_all:.3} s; keeping {k}: {t_some:.3} s ({:.2}× faer's)", t_some / t_faer);
    println!("largest |Δλ| {dl:.1e}, |Δv| {dv:.1e} against faer's; the first {k} vectors equal every-vector's bit for bit: {same}");
}
