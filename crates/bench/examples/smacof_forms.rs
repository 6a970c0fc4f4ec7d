//! SMACOF's two ways of computing an iteration, timed in one run: as whole n×n matrices
//! (`smacof_one_worker`, the tests' second form) and by blocks of rows (`smacof`, what every
//! front-end runs; the page's helper workers share the blocks). A random configuration against a
//! random target, `IT` iterations (default 3) at n = `N` (2048), d = `D` (768).
//! `RAYON_NUM_THREADS=1 cargo run --release --example smacof_forms`
#![allow(clippy::print_stdout)]

use posgeo::metric::DistanceMatrix;
use posgeo::points::Points;
use posgeo::smacof::{smacof, smacof_one_worker};
use std::time::Instant;
fn main() {
    let n: usize = std::env::var("N").ok().and_then(|s| s.parse().ok()).unwrap_or(2048);
    let d: usize = std::env::var("D").ok().and_then(|s| s.parse().ok()).unwrap_or(768);
    let it: usize = std::env::var("IT").ok().and_then(|s| s.parse().ok()).unwrap_or(3);
    let unit = |k: usize| ((k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 11) as f64 / (1u64 << 53) as f64;
    let x = Points::from_fn(n, d, |i, k| unit(i * d + k) - 0.5);
    let target = DistanceMatrix::from_fn(n, |i, j| 0.5 + unit(7 + i.min(j) * n + i.max(j)));
    for _ in 0..2 {
        let t = Instant::now();
        let a = smacof_one_worker(&x, &target, it, 0.0, &mut |_| {});
        let ta = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let b = smacof(&x, &target, it, 0.0, &mut |_| {});
        let tb = t.elapsed().as_secs_f64();
        println!(
            "n = {n}, d = {d}, {}/{} iterations: whole matrices {ta:.3} s, by rows {tb:.3} s ({:.2}×)",
            a.iterations,
            b.iterations,
            tb / ta
        );
    }
}
