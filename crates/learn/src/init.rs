//! **The initial weights** of the learning experiment's model (docs/MATH.md §16), shared by
//! every implementation of the trainer: matrices N(0, 0.02²) drawn from one seeded stream in a
//! fixed order (so every signal gets the same token embedding and blocks), biases 0, layer-norm
//! weights 1; an additive signal's table is given, or for `learned` drawn N(0, 0.02²) from a
//! stream of its own; `lowrank`'s factors A (n×r) and B (d×r) are drawn N(0, s²) with
//! s = (0.02/√r)^½ from a third stream, so that A·Bᵀ starts with entries of standard deviation
//! 0.02 like `learned`'s. The order is the dump's (`init.safetensors`).

use super::net::Shape;
use super::Signal;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};

/// One initial tensor.
#[derive(Debug, Clone, PartialEq)]
pub struct Init {
    /// Its name in the dump (`blocks.0.wq`, …).
    pub name: String,
    /// Its dimensions (row-major).
    pub dims: Vec<usize>,
    /// Its values.
    pub data: Vec<f32>,
    /// Whether AdamW updates it.
    pub trainable: bool,
}

/// The standard deviation of every initial matrix.
pub const INIT_STD: f64 = 0.02;

/// `len` draws of N(0, std²) as f32.
pub fn gaussian(rng: &mut ChaCha8Rng, len: usize, std: f64) -> Vec<f32> {
    (0..len)
        .map(|_| -> f32 {
            let z: f64 = StandardNormal.sample(rng);
            (std * z) as f32
        })
        .collect()
}

/// Every initial tensor of a model of `shape` for `signal` and `seed`, in the dump's order;
/// `table` is an additive signal's position table (n×d, row-major; drawn for `learned`).
pub fn tensors(shape: Shape, signal: Signal, seed: u64, table: Option<Vec<f32>>) -> Vec<Init> {
    let (v, d) = (shape.vocab, shape.d);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    let mut add = |name: String, data: Vec<f32>, dims: &[usize], trainable: bool| {
        out.push(Init { name, dims: dims.to_vec(), data, trainable });
    };
    add("tok_emb".into(), gaussian(&mut rng, v * d, INIT_STD), &[v, d], true);
    if signal == Signal::LowRank {
        let (n, r) = (shape.n, shape.rank.max(1));
        let s = (INIT_STD / (r as f64).sqrt()).sqrt();
        let mut pos_rng = ChaCha8Rng::seed_from_u64(seed);
        pos_rng.set_stream(4);
        add("pos_a".into(), gaussian(&mut pos_rng, n * r, s), &[n, r], true);
        add("pos_b".into(), gaussian(&mut pos_rng, d * r, s), &[d, r], true);
    } else if signal.additive() {
        let table = table.unwrap_or_else(|| {
            let mut pos_rng = ChaCha8Rng::seed_from_u64(seed);
            pos_rng.set_stream(2);
            gaussian(&mut pos_rng, shape.n * d, INIT_STD)
        });
        add("pos".into(), table, &[shape.n, d], signal.trainable());
    }
    for l in 0..shape.layers {
        let p = |s: &str| format!("blocks.{l}.{s}");
        add(p("ln1.weight"), vec![1.0; d], &[d], true);
        add(p("ln1.bias"), vec![0.0; d], &[d], true);
        for w in ["wq", "wk", "wv", "wo"] {
            add(p(w), gaussian(&mut rng, d * d, INIT_STD), &[d, d], true);
        }
        add(p("ln2.weight"), vec![1.0; d], &[d], true);
        add(p("ln2.bias"), vec![0.0; d], &[d], true);
        add(p("w1"), gaussian(&mut rng, d * 4 * d, INIT_STD), &[d, 4 * d], true);
        add(p("b1"), vec![0.0; 4 * d], &[4 * d], true);
        add(p("w2"), gaussian(&mut rng, 4 * d * d, INIT_STD), &[4 * d, d], true);
        add(p("b2"), vec![0.0; d], &[d], true);
    }
    add("ln_f.weight".into(), vec![1.0; d], &[d], true);
    add("ln_f.bias".into(), vec![0.0; d], &[d], true);
    add("out_bias".into(), vec![0.0; v], &[v], true);
    out
}
