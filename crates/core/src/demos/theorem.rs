//! **Theorem 1, live**: without a positional signal, self-attention is permutation
//! equivariant — permuting the tokens permutes the outputs the same way, so any
//! permutation-invariant readout (here the mean over tokens) cannot tell "dog bites man" from
//! "man bites dog". With a positional encoding both break. (Cirrincione, Theorem 1.)
//!
//! One seeded attention layer of width [`WIDTH`]: token x_i = e(w_i) (+ the sinusoidal row
//! p_i), q_i = W_Q x_i, k_i = W_K x_i, v_i = W_V x_i, and
//! y_i = Σ_j softmax_j(⟨q_i, k_j⟩/√d + b_ij) v_j, where RoPE rotates q_i and k_j by their
//! positions (angle i·θ_k, θ_k = 10000^(−2k/d) on coordinate pairs) and ALiBi adds
//! b_ij = −m·|i − j|. The token embedding e(w) is a Gaussian vector seeded by the token's
//! FNV-1a hash; the weights are Gaussian, ChaCha8-seeded: the same on every platform.
//!
//! One exception is worth showing: ALiBi's bias depends on |i − j| only, which reversing the
//! sequence (i → n−1−i) keeps, so one ALiBi layer stays equivariant under reversal — it
//! cannot tell a sequence from its reverse. Any other permutation breaks it.

use rand::SeedableRng;
use rand_distr::{Distribution, StandardNormal};

/// Width of the demonstration layer.
pub const WIDTH: usize = 8;
/// The ALiBi slope of the demonstration.
pub const ALIBI_SLOPE: f64 = 0.5;

/// The positional signal added to the layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// None: the layer sees a set.
    None,
    /// Sinusoidal rows added to the token vectors.
    Sinusoidal,
    /// Rotary: q and k rotated by their positions.
    Rope,
    /// Linear distance bias on the attention logits.
    Alibi,
}

impl Signal {
    /// Every signal, as the page lists them.
    pub const ALL: [Signal; 4] = [Signal::None, Signal::Sinusoidal, Signal::Rope, Signal::Alibi];

    /// Its name (the page's values).
    pub fn name(self) -> &'static str {
        match self {
            Signal::None => "none",
            Signal::Sinusoidal => "sinusoidal",
            Signal::Rope => "rope",
            Signal::Alibi => "alibi",
        }
    }

    /// Parses [`Signal::name`].
    pub fn parse(s: &str) -> Option<Signal> {
        Self::ALL.into_iter().find(|x| x.name() == s)
    }
}

type Matrix = [[f64; WIDTH]; WIDTH];

/// The seeded layer.
#[derive(Debug, Clone)]
pub struct Layer {
    q: Matrix,
    k: Matrix,
    v: Matrix,
}

fn gaussian_vector(rng: &mut rand_chacha::ChaCha8Rng) -> [f64; WIDTH] {
    let sd = 1.0 / (WIDTH as f64).sqrt();
    std::array::from_fn(|_| sd * Distribution::<f64>::sample(&StandardNormal, rng))
}

impl Layer {
    /// The layer of seed `seed`.
    pub fn seeded(seed: u64) -> Layer {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut m = || std::array::from_fn(|_| gaussian_vector(&mut rng));
        Layer { q: m(), k: m(), v: m() }
    }
}

/// The token's embedding: Gaussian, seeded by its FNV-1a hash.
pub fn embed(token: &str) -> [f64; WIDTH] {
    let hash = token.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    gaussian_vector(&mut rand_chacha::ChaCha8Rng::seed_from_u64(hash))
}

fn apply(m: &Matrix, x: &[f64; WIDTH]) -> [f64; WIDTH] {
    std::array::from_fn(|r| m[r].iter().zip(x).map(|(a, b)| a * b).sum())
}

fn angle(i: usize, k: usize) -> f64 {
    i as f64 * 10000f64.powf(-2.0 * k as f64 / WIDTH as f64)
}

fn rotate(x: &mut [f64; WIDTH], i: usize) {
    for k in 0..WIDTH / 2 {
        let (s, c) = angle(i, k).sin_cos();
        let (a, b) = (x[2 * k], x[2 * k + 1]);
        x[2 * k] = a * c - b * s;
        x[2 * k + 1] = a * s + b * c;
    }
}

/// The layer's outputs y_0 … y_{n−1} for a token sequence.
pub fn attend(layer: &Layer, tokens: &[&str], signal: Signal) -> Vec<[f64; WIDTH]> {
    let xs: Vec<[f64; WIDTH]> = tokens
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let mut x = embed(t);
            if signal == Signal::Sinusoidal {
                for (k, v) in x.iter_mut().enumerate() {
                    *v += if k % 2 == 0 { angle(i, k / 2).sin() } else { angle(i, k / 2).cos() };
                }
            }
            x
        })
        .collect();
    let (mut q, mut k): (Vec<_>, Vec<_>) = xs.iter().map(|x| (apply(&layer.q, x), apply(&layer.k, x))).unzip();
    if signal == Signal::Rope {
        for (i, (qi, ki)) in q.iter_mut().zip(k.iter_mut()).enumerate() {
            rotate(qi, i);
            rotate(ki, i);
        }
    }
    let v: Vec<[f64; WIDTH]> = xs.iter().map(|x| apply(&layer.v, x)).collect();
    let scale = 1.0 / (WIDTH as f64).sqrt();
    (0..xs.len())
        .map(|i| {
            let logits: Vec<f64> = (0..xs.len())
                .map(|j| {
                    let dot: f64 = q[i].iter().zip(&k[j]).map(|(a, b)| a * b).sum();
                    let bias = if signal == Signal::Alibi { -ALIBI_SLOPE * i.abs_diff(j) as f64 } else { 0.0 };
                    dot * scale + bias
                })
                .collect();
            let top = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let w: Vec<f64> = logits.iter().map(|l| (l - top).exp()).collect();
            let total: f64 = w.iter().sum();
            std::array::from_fn(|c| w.iter().zip(&v).map(|(wj, vj)| wj * vj[c]).sum::<f64>() / total)
        })
        .collect()
}

/// The mean of the outputs: a permutation-invariant readout.
pub fn pooled(ys: &[[f64; WIDTH]]) -> [f64; WIDTH] {
    let n = ys.len().max(1) as f64;
    std::array::from_fn(|c| ys.iter().map(|y| y[c]).sum::<f64>() / n)
}

/// What permuting the tokens did.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    /// max |y(πx)_i − y(x)_{π(i)}|: 0 means the outputs moved with their tokens.
    pub equivariance_error: f64,
    /// max |pool(πx) − pool(x)|: 0 means the readout cannot see the order.
    pub readout_change: f64,
    /// The readout before and after.
    pub readouts: ([f64; WIDTH], [f64; WIDTH]),
}

/// Runs the layer on `tokens` and on the permuted order (`perm[i]` = which original token
/// stands at position i) and compares.
pub fn check(layer: &Layer, tokens: &[&str], perm: &[usize], signal: Signal) -> Check {
    let permuted: Vec<&str> = perm.iter().filter_map(|&p| tokens.get(p).copied()).collect();
    let (before, after) = (attend(layer, tokens, signal), attend(layer, &permuted, signal));
    let mut err = 0.0f64;
    for (i, &p) in perm.iter().enumerate() {
        if let (Some(a), Some(b)) = (after.get(i), before.get(p)) {
            err = a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(err, f64::max);
        }
    }
    let (pa, pb) = (pooled(&before), pooled(&after));
    let change = pa.iter().zip(&pb).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
    Check { equivariance_error: err, readout_change: change, readouts: (pa, pb) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_signal_attention_is_permutation_equivariant() {
        let layer = Layer::seeded(7);
        let tokens = ["the", "dog", "bites", "the", "man", "today"];
        for perm in [vec![4, 1, 2, 3, 0, 5], vec![5, 4, 3, 2, 1, 0], vec![1, 2, 3, 4, 5, 0]] {
            let c = check(&layer, &tokens, &perm, Signal::None);
            assert!(c.equivariance_error < 1e-12, "{c:?}");
            assert!(c.readout_change < 1e-12, "the mean readout is invariant: {c:?}");
            let reversal = perm == [5, 4, 3, 2, 1, 0];
            for s in [Signal::Sinusoidal, Signal::Rope, Signal::Alibi] {
                let c = check(&layer, &tokens, &perm, s);
                if s == Signal::Alibi && reversal {
                    // |i − j| is symmetric under i → n−1−i: ALiBi cannot tell a sequence from
                    // its reverse (a true property, shown on the page).
                    assert!(c.equivariance_error < 1e-12, "{c:?}");
                } else {
                    assert!(c.equivariance_error > 1e-3 && c.readout_change > 1e-6, "{s:?} breaks both: {c:?}");
                }
            }
        }
    }

    #[test]
    fn dog_bites_man_is_man_bites_dog_without_positions() {
        let layer = Layer::seeded(0);
        let c = check(&layer, &["dog", "bites", "man"], &[2, 1, 0], Signal::None);
        assert!(c.readout_change < 1e-12);
        let c = check(&layer, &["dog", "bites", "man"], &[2, 1, 0], Signal::Rope);
        assert!(c.readout_change > 1e-4);
        let c = check(&layer, &["dog", "bites", "man"], &[1, 0, 2], Signal::Alibi);
        assert!(c.readout_change > 1e-4);
        // The identity permutation changes nothing, with any signal.
        for s in Signal::ALL {
            assert_eq!(check(&layer, &["a", "b"], &[0, 1], s).equivariance_error, 0.0);
        }
    }
}
