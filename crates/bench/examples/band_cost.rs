//! What the random band costs (docs/MATH.md §17): a whole analysis of a corpus at its options,
//! beside the band alone on the same D and d (K random tables' σ* and Spearman, no MDS), best
//! of `REPS` runs each; the band's share of the analysis.
//! `cargo run --release -p posgeo-bench --example band_cost -- FILE [chars]` (env REPS, D)
#![allow(clippy::print_stdout, clippy::unwrap_used)]

use posgeo::analysis::{analyze, AnalysisParams};
use posgeo::measures::band::{random_band, BAND_TABLES};
use posgeo::measures::stress::{spearman_of_pairs, Target};
use std::time::Instant;

fn best<T>(reps: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut out = None;
    let mut best = f64::INFINITY;
    for _ in 0..reps {
        let t = Instant::now();
        let v = f();
        best = best.min(t.elapsed().as_secs_f64());
        out = Some(v);
    }
    (best, out.unwrap())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().expect("a corpus file");
    let bytes = std::fs::read(path).unwrap();
    let format = posgeo::corpus::FileKind::from_file_name(path).input_format(None, true, "text");
    let corpus = posgeo::Corpus::read(&bytes, &format, false).unwrap();
    let mut params = AnalysisParams::default();
    if args.get(1).map(String::as_str) == Some("chars") {
        posgeo::demos::preset::proteins(&mut params);
    }
    if let Some(d) = std::env::var("D").ok().and_then(|s| s.parse().ok()) {
        params.encodings.d = d;
    }
    let reps = std::env::var("REPS").ok().and_then(|s| s.parse().ok()).unwrap_or(3);
    let (whole, analysis) = best(reps, || analyze(&corpus, &params, &[], &mut |_| true).unwrap());
    let target = Target::new(&analysis.distances).unwrap();
    let e = &params.encodings;
    let (band, _) = best(reps, || random_band(&analysis.distances, &target, e.d, e.sigma, BAND_TABLES).unwrap());
    let n = analysis.counts.n;
    let (gen, tables) = best(reps, || {
        (1..=BAND_TABLES as u64).map(|s| posgeo::encodings::random(n, e.d, e.sigma, s).unwrap()).collect::<Vec<_>>()
    });
    let (dist, _) = best(reps, || tables.iter().map(|t| t.distances().n()).sum::<usize>());
    let (pairs, _) = best(reps, || {
        let (mut gram, mut pairs) = (Vec::new(), Vec::new());
        for t in &tables {
            t.pair_distances_into(&mut gram, &mut pairs);
        }
    });
    let all: Vec<Vec<f64>> = tables
        .iter()
        .map(|t| {
            let (mut gram, mut pairs) = (Vec::new(), Vec::new());
            t.pair_distances_into(&mut gram, &mut pairs);
            pairs
        })
        .collect();
    let (ranks, _) = best(reps, || all.iter().filter(|p| spearman_of_pairs(p, &target).is_some()).count());
    println!(
        "  one table after another: the tables drawn {gen:.3} s; their distances as n×n matrices \
         (each on every core) {dist:.3} s, as pairs on one thread {pairs:.3} s; Spearman {ranks:.3} s"
    );
    println!(
        "{path}: n = {}, d = {}: analysis {:.3} s (band included), band alone {:.3} s = {:.1} % of it",
        analysis.counts.n,
        e.d,
        whole,
        band,
        100.0 * band / whole
    );
}
