//! The pipeline's stages as divan benchmarks, each beside a straightforward baseline timed in
//! the same run (`cargo bench -p posgeo-bench --bench stages`; docs/PERFORMANCE.md):
//!
//! * `count`: a synthetic corpus counted into positional counts, against a `HashMap` of
//!   (position, token) pairs;
//! * `hellinger`: the chord D_ij = ‖√μ_i − √μ_j‖₂ (docs/MATH.md §3), posgeo's sparse Gram
//!   product against the dense double loop over the vocabulary;
//! * `eigen`: the spectrum of the double-centred B (§4), faer's as posgeo computes it against
//!   nalgebra's `SymmetricEigen`;
//! * `train_steps`: ten steps of the learning experiment's model (§16, one signal), whose
//!   baseline — the same model in JAX — is `bench/learn.sh`'s.
//!
//! Each ratio is a row of divan's table divided by its baseline's row in the same run.

use posgeo::analysis::AnalysisParams;
use posgeo::counts::PositionalCounts;
use posgeo::demos::synth::{generate, SynthParams};
use posgeo::mds::{double_centre, Spectrum};
use posgeo::{metric, Corpus, DistanceMatrix, InputFormat};
use std::collections::HashMap;
use std::hint::black_box;

fn main() {
    divan::main();
}

/// A synthetic corpus of `positions` tokens per line (the `posgeo synth` generator).
fn corpus(positions: usize) -> Corpus {
    let p = SynthParams { positions, vocab: 2000, sequences: 2000, ..SynthParams::default() };
    let text = generate(&p).expect("synthetic corpus").join("\n");
    Corpus::read(text.as_bytes(), &InputFormat::Text, false).expect("corpus")
}

fn counts(c: &Corpus, positions: usize) -> PositionalCounts {
    let params = AnalysisParams { max_len: positions, ..AnalysisParams::default() };
    PositionalCounts::count(c, &params.count_params(), &mut |_| {}).expect("counts")
}

const SIZES: [usize; 2] = [128, 512];

#[divan::bench(args = SIZES)]
fn count(bencher: divan::Bencher, positions: usize) {
    let c = corpus(positions);
    bencher.bench(|| counts(black_box(&c), positions));
}

#[divan::bench(args = SIZES)]
fn count_baseline_hashmap(bencher: divan::Bencher, positions: usize) {
    let c = corpus(positions);
    bencher.bench(|| {
        let mut cells: HashMap<(usize, &str), u64> = HashMap::new();
        for seq in &black_box(&c).sequences {
            for (i, w) in seq.split_whitespace().take(positions).enumerate() {
                *cells.entry((i, w)).or_default() += 1;
            }
        }
        cells
    });
}

#[divan::bench(args = SIZES)]
fn hellinger(bencher: divan::Bencher, positions: usize) {
    let k = counts(&corpus(positions), positions);
    bencher.bench(|| metric::distances(black_box(&k), 0.0, metric::Metric::Hellinger).expect("distances"));
}

/// The chord from its definition: the dense √μ rows, then every pair's sum over the vocabulary.
#[divan::bench(args = SIZES)]
fn hellinger_baseline_dense(bencher: divan::Bencher, positions: usize) {
    let k = counts(&corpus(positions), positions);
    bencher.bench(|| {
        let v = k.vocab.len();
        let roots: Vec<Vec<f64>> = black_box(&k)
            .rows
            .iter()
            .map(|row| {
                let total: u64 = row.iter().map(|&(_, c)| c).sum();
                let mut dense = vec![0.0; v];
                for &(w, c) in row {
                    dense[w as usize] = (c as f64 / total as f64).sqrt();
                }
                dense
            })
            .collect();
        DistanceMatrix::from_fn(k.n, |i, j| {
            roots[i].iter().zip(&roots[j]).map(|(a, b)| (a - b) * (a - b)).sum::<f64>().sqrt()
        })
    });
}

fn centred(positions: usize) -> faer::Mat<f64> {
    let k = counts(&corpus(positions), positions);
    double_centre(&metric::distances(&k, 0.0, metric::Metric::Hellinger).expect("distances"))
}

#[divan::bench(args = SIZES)]
fn eigen(bencher: divan::Bencher, positions: usize) {
    let b = centred(positions);
    bencher.bench(|| Spectrum::of_symmetric(black_box(&b)).expect("spectrum"));
}

#[divan::bench(args = SIZES)]
fn eigen_baseline_nalgebra(bencher: divan::Bencher, positions: usize) {
    let b = centred(positions);
    let nb = nalgebra::DMatrix::from_fn(b.nrows(), b.ncols(), |i, j| b[(i, j)]);
    bencher.bench(|| nalgebra::SymmetricEigen::new(black_box(nb.clone())));
}

/// Ten training steps of one signal at the experiment's default model (d = 64, 2 layers,
/// batches of 32 sequences of 64 tokens) on the built-in corpus (`posgeo synth`'s defaults), as
/// `bench/learn.sh` times it.
#[divan::bench(args = ["sinusoidal", "learned"], sample_count = 3)]
fn train_steps(bencher: divan::Bencher, signal: &str) {
    use posgeo_learn::{self as learn, LearnParams, Signal};
    let text = generate(&SynthParams::default()).expect("synthetic corpus").join("\n");
    let c = Corpus::read(text.as_bytes(), &InputFormat::Text, false).expect("corpus");
    let params = AnalysisParams { max_len: 64, ..AnalysisParams::default() };
    let signal = Signal::parse(signal).expect("signal");
    let learn_params = LearnParams { signals: vec![signal], steps: 10, every: 10, ..LearnParams::default() };
    let table = posgeo::counts::count_table(&c.sequences, &params.count_params().tokenizer, 64, &mut |_| {});
    let ctx = learn::prepare(&table, &c.sequences, &params, &learn_params, &mut |_| true).expect("context");
    bencher.bench(|| learn::train::run(black_box(&ctx), signal, 1, None, &mut |_| true).expect("run"));
}
