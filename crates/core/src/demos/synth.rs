//! The **synthetic corpus** (`docs/MATH.md` §8), the explorer's built-in default.
//!
//! K latent regimes, each a Dirichlet(β) distribution over a vocabulary of V tokens
//! `w0 … w{V−1}` (drawn as normalised Gamma(β, 1) variates). Position i draws its token from
//! the mixture Σ_k w_k(i)·regime_k with w_k(i) ∝ exp(−(i − c_k)² / (2s²)), the centres c_k
//! spread evenly over 0..n−1 (c_k = k·(n−1)/(K−1); the middle when K = 1). Every sequence
//! has n tokens. The generator is a ChaCha8 stream seeded with `seed`, so the corpus is the
//! same on every platform (native and wasm).

use crate::error::{PosgeoError, Result};
use rand::distr::weighted::WeightedIndex;
use rand::SeedableRng;
use rand_distr::{Distribution, Gamma};
use serde::{Deserialize, Serialize};

/// Parameters of the generator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SynthParams {
    /// Vocabulary size V.
    pub vocab: usize,
    /// Positions (tokens per sequence) n.
    pub positions: usize,
    /// Latent regimes K.
    pub regimes: usize,
    /// Dirichlet concentration β.
    pub beta: f64,
    /// Width s of the Gaussian bumps, in positions.
    pub width: f64,
    /// Number of sequences.
    pub sequences: usize,
    /// Seed.
    pub seed: u64,
}

impl Default for SynthParams {
    fn default() -> Self {
        SynthParams { vocab: 200, positions: 64, regimes: 4, beta: 0.3, width: 8.0, sequences: 2000, seed: 0 }
    }
}

impl SynthParams {
    /// Checks the ranges declared in [`crate::options::SYNTH`], and the corpus's total size.
    pub fn validate(&self) -> Result<()> {
        crate::options::check_all(crate::options::SYNTH, self)?;
        if self.positions.saturating_mul(self.sequences) > 200_000_000 {
            return Err(PosgeoError::option("sequences", "must be ≥ 1, with sequences × positions ≤ 200,000,000"));
        }
        Ok(())
    }
}

/// Generates the corpus: one sequence of n space-separated tokens per entry.
pub fn generate(p: &SynthParams) -> Result<Vec<String>> {
    p.validate()?;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(p.seed);
    let gamma = Gamma::new(p.beta, 1.0).map_err(|e| PosgeoError::option("beta", e.to_string()))?;
    let regimes: Vec<Vec<f64>> = (0..p.regimes)
        .map(|_| {
            let g: Vec<f64> = (0..p.vocab).map(|_| gamma.sample(&mut rng)).collect();
            let s: f64 = g.iter().sum();
            if s > 0.0 {
                g.iter().map(|x| x / s).collect()
            } else {
                vec![1.0 / p.vocab as f64; p.vocab]
            }
        })
        .collect();
    let centre = |k: usize| {
        if p.regimes == 1 {
            (p.positions - 1) as f64 / 2.0
        } else {
            k as f64 * (p.positions - 1) as f64 / (p.regimes - 1) as f64
        }
    };
    let samplers: Vec<WeightedIndex<f64>> = (0..p.positions)
        .map(|i| {
            // exp of log-weights shifted by their maximum: never all zero.
            let e: Vec<f64> =
                (0..p.regimes).map(|k| -(i as f64 - centre(k)).powi(2) / (2.0 * p.width * p.width)).collect();
            let top = e.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let w: Vec<f64> = e.iter().map(|x| (x - top).exp()).collect();
            let z: f64 = w.iter().sum();
            let mix: Vec<f64> =
                (0..p.vocab).map(|v| (0..p.regimes).map(|k| w[k] / z * regimes[k][v]).sum::<f64>()).collect();
            WeightedIndex::new(mix).map_err(|e| PosgeoError::option("synth", e.to_string()))
        })
        .collect::<Result<_>>()?;
    let mut out = Vec::with_capacity(p.sequences);
    let mut line = String::new();
    for _ in 0..p.sequences {
        line.clear();
        for (i, s) in samplers.iter().enumerate() {
            if i > 0 {
                line.push(' ');
            }
            line.push('w');
            line.push_str(&s.sample(&mut rng).to_string());
        }
        out.push(line.clone());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reproducible_and_shaped() {
        let p = SynthParams { sequences: 10, positions: 5, ..Default::default() };
        let a = generate(&p).unwrap();
        assert_eq!(a, generate(&p).unwrap());
        assert_eq!(a.len(), 10);
        assert!(a.iter().all(|l| l.split(' ').count() == 5));
        let b = generate(&SynthParams { seed: 1, ..p }).unwrap();
        assert_ne!(a, b);
    }
}
