//! **How long a training takes, said before it starts** (docs/MATH.md §16, "Memory and
//! time"): a step's arithmetic follows from the model's sizes
//! ([`super::fused::clock::stage_flops`]: the products 72·L·B·n·d², the attention 12·L·B·n²·d,
//! the output layer 6·C·|V|·d with C = mask_rate·B·n chosen positions), so a run's is `steps`
//! times that, and its time that over a speed. The held-out evaluations (a forward pass every
//! `every` steps) and the preparation are left out, so the estimate is a lower bound of the
//! order of the real time; the page says which speed it assumed.

use super::data::SPECIALS;
use super::fused::clock::stage_flops;
use super::net::Shape;
use super::LearnParams;

/// The training speed of one worker of the browser tab on a core of its own, FLOP/s, as
/// measured on the development machine (docs/PERFORMANCE.md, "learning in the tab"). The page
/// uses it until a training in the tab measures its own.
pub const TAB_FLOPS: f64 = 16e9;

/// The arithmetic (floating-point operations) of one run (one signal, one seed) of `p` on
/// sequences of `t` positions (already cut at `p.positions`) over `types` distinct tokens
/// (the corpus's; the model keeps at most `p.vocab` of them, and three specials).
pub fn run_flops(p: &LearnParams, t: usize, types: usize) -> f64 {
    let shape = Shape {
        vocab: types.min(p.vocab) + SPECIALS.len(),
        n: t,
        d: p.d_model,
        layers: p.layers,
        heads: p.heads.max(1),
        rank: 0,
    };
    let chosen = (p.mask_rate * (p.batch * t) as f64).round() as usize;
    stage_flops(shape, p.batch, t, chosen).iter().sum::<f64>() * p.steps as f64
}

/// Seconds for `runs` runs of `flops` each spread over `workers` workers sharing `cores`
/// cores, each worker at `speed` FLOP/s on a core of its own: the busiest worker's runs
/// (⌈runs / workers⌉) at the speed its share of the cores gives it.
pub fn seconds(flops: f64, runs: usize, workers: usize, cores: usize, speed: f64) -> f64 {
    let workers = workers.max(1);
    let share = (cores.max(1) as f64 / workers as f64).min(1.0);
    runs.div_ceil(workers) as f64 * flops / (speed * share)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_runs_arithmetic_follows_the_model_sizes() {
        let p = LearnParams::default();
        let one = run_flops(&p, 64, 2000);
        // The default shape's step is 1.64 GFLOP at |V| = 2,003 (docs/PERFORMANCE.md).
        assert!((one / p.steps as f64 / 1.64e9 - 1.0).abs() < 0.01, "{one}");
        let twice = LearnParams { steps: 2 * p.steps, ..p.clone() };
        assert!((run_flops(&twice, 64, 2000) / one - 2.0).abs() < 1e-12);
        // The model keeps at most `vocab` types: a larger corpus costs no more.
        assert_eq!(run_flops(&p, 64, 50_000), one);
        assert!(run_flops(&p, 64, 200) < one);
        assert!(run_flops(&p, 128, 2000) > 2.0 * one, "the attention grows as n²");
    }

    #[test]
    fn the_busiest_worker_sets_the_time() {
        assert_eq!(seconds(1e9, 4, 1, 2, 1e9), 4.0);
        assert_eq!(seconds(1e9, 4, 2, 2, 1e9), 2.0);
        assert_eq!(seconds(1e9, 5, 2, 2, 1e9), 3.0);
        // Four workers on two cores run at half speed each.
        assert_eq!(seconds(1e9, 4, 4, 2, 1e9), 2.0);
    }
}
