//! **The experiment's summary and its finding** (docs/MATH.md §16): per signal, the final
//! held-out loss and accuracy (mean and spread over the seeds that finished), its σ* (the
//! fixed geometry's, or the final table's for trainable signals), the final separation and
//! monotonicity of trainable tables; and Spearman's ρ between held-out loss and σ* over the
//! signals, with the sentence that reads it.

use super::{Context, LearnParams, Run, Signal};
use posgeo::error::Result;
use serde::{Deserialize, Serialize};

/// One signal over its finished seeds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SignalSummary {
    /// The signal.
    pub signal: Signal,
    /// Seeds that ran every step.
    pub seeds: usize,
    /// Mean final held-out loss.
    pub held_loss: f64,
    /// Smallest and largest final held-out loss over the seeds.
    pub held_loss_range: [f64; 2],
    /// Mean final held-out accuracy.
    pub held_accuracy: f64,
    /// σ* (mean over seeds).
    pub scaled_stress: Option<f64>,
    /// Trainable tables: mean final separation.
    pub separation: Option<f64>,
    /// Trainable tables: mean final monotonicity violation rate.
    pub monotonicity: Option<f64>,
    /// Trainable tables: mean monotonicity violation rate at step 0.
    pub initial_monotonicity: Option<f64>,
}

/// Spearman's ρ between held-out loss and σ* over the signals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// ρ over the signals' seed means (`None` with fewer than 3 signals or a constant side).
    pub rho: Option<f64>,
    /// Signals it is computed over.
    pub signals: usize,
    /// Seeds per signal.
    pub seeds: usize,
    /// ρ computed seed by seed: smallest and largest.
    pub rho_range: Option<[f64; 2]>,
    /// ρ's exact permutation p-value over the signals ([`super::significance`]).
    #[serde(default)]
    pub p_value: Option<f64>,
    /// Whether ρ stands out: p ≤ 0.05 and its range over seeds on one side of 0.
    #[serde(default)]
    pub determined: bool,
    /// What it means on this corpus.
    pub sentence: String,
}

/// The whole experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Experiment {
    /// The options.
    pub params: LearnParams,
    /// Positions n.
    pub n: usize,
    /// |V| with the specials.
    pub vocab: usize,
    /// Training sequences.
    pub train_sequences: usize,
    /// Held-out sequences.
    pub held_sequences: usize,
    /// r of `lowrank`'s table A·Bᵀ (its parameters: r(n + d), against `learned`'s n·d).
    #[serde(default)]
    pub lowrank_rank: usize,
    /// Every run, finished or not.
    pub runs: Vec<Run>,
    /// Per signal.
    pub signals: Vec<SignalSummary>,
    /// The finding.
    pub finding: Finding,
}

fn mean(v: impl Iterator<Item = f64>) -> Option<f64> {
    let (s, c) = v.fold((0.0, 0usize), |(s, c), x| (s + x, c + 1));
    (c > 0).then(|| s / c as f64)
}

/// A run that did every step.
pub fn finished(run: &Run, steps: usize) -> bool {
    run.error.is_none() && run.records.last().is_some_and(|r| r.step == steps)
}

/// σ* of a finished run's signal: the final table's, or the fixed geometry's.
fn run_stress(ctx: &Context, run: &Run) -> Result<Option<f64>> {
    if run.signal.trainable() {
        return Ok(run.records.last().and_then(|r| r.table.as_ref()).map(|t| t.scaled_stress));
    }
    ctx.fixed_stress(run.signal, run.seed)
}

/// Reads `runs` into per-signal summaries and the finding.
pub fn summarise(ctx: &Context, runs: Vec<Run>) -> Result<Experiment> {
    let p = &ctx.params;
    let mut signals = Vec::new();
    let mut per_seed: Vec<Vec<(f64, f64)>> = vec![Vec::new(); p.seeds];
    for &signal in &p.signals {
        let done: Vec<&Run> = runs.iter().filter(|r| r.signal == signal && finished(r, p.steps)).collect();
        if done.is_empty() {
            continue;
        }
        let last = |r: &Run| r.records.last().cloned();
        let finals: Vec<_> = done.iter().filter_map(|r| last(r)).collect();
        let losses: Vec<f64> = finals.iter().map(|r| r.held_loss).collect();
        let mut stresses = Vec::new();
        for r in &done {
            if let Some(s) = run_stress(ctx, r)? {
                stresses.push(s);
                if let Some(slot) = per_seed.get_mut(r.seed as usize - 1) {
                    slot.push((last(r).map_or(f64::NAN, |x| x.held_loss), s));
                }
            }
        }
        let table = |f: fn(&super::TableMeasures) -> Option<f64>, at_start: bool| {
            mean(done.iter().filter_map(|r| {
                let rec = if at_start { r.records.first() } else { r.records.last() };
                rec.and_then(|x| x.table.as_ref()).and_then(f)
            }))
        };
        signals.push(SignalSummary {
            signal,
            seeds: done.len(),
            held_loss: mean(losses.iter().copied()).unwrap_or(f64::NAN),
            held_loss_range: [
                losses.iter().copied().fold(f64::INFINITY, f64::min),
                losses.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            ],
            held_accuracy: mean(finals.iter().map(|r| r.held_accuracy)).unwrap_or(f64::NAN),
            scaled_stress: mean(stresses.into_iter()),
            separation: table(|t| Some(t.separation), false),
            monotonicity: table(|t| t.monotonicity, false),
            initial_monotonicity: table(|t| t.monotonicity, true),
        });
    }
    let finding = finding(&signals, &per_seed, p.seeds);
    Ok(Experiment {
        params: p.clone(),
        n: ctx.data.n,
        vocab: ctx.data.vocab.len(),
        train_sequences: ctx.data.train.len(),
        held_sequences: ctx.data.held.len(),
        lowrank_rank: ctx.lowrank_rank,
        runs,
        signals,
        finding,
    })
}

/// ρ between held-out loss and σ*, with its p-value, the seed-by-seed range and the sentence.
fn finding(signals: &[SignalSummary], per_seed: &[Vec<(f64, f64)>], seeds: usize) -> Finding {
    let pairs: Vec<(f64, f64)> = signals.iter().filter_map(|s| s.scaled_stress.map(|st| (s.held_loss, st))).collect();
    let rho = |pairs: &[(f64, f64)]| -> Option<(f64, f64)> {
        let (loss, stress): (Vec<f64>, Vec<f64>) = pairs.iter().copied().unzip();
        super::significance::spearman_p_value(&loss, &stress)
    };
    let overall = rho(&pairs);
    let by_seed: Vec<f64> = per_seed.iter().filter_map(|p| rho(p).map(|r| r.0)).collect();
    let rho_range = (!by_seed.is_empty()).then(|| {
        [
            by_seed.iter().copied().fold(f64::INFINITY, f64::min),
            by_seed.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        ]
    });
    let k = pairs.len();
    let Some((r, p)) = overall else {
        let sentence = format!("Not enough signals finished to relate stress and loss ({k} with a σ*; 3 are needed).");
        return Finding { rho: None, signals: k, seeds, rho_range, p_value: None, determined: false, sentence };
    };
    let straddles = rho_range.is_some_and(|[lo, hi]| lo <= 0.0 && hi >= 0.0);
    let determined = p <= 0.05 && !straddles;
    let numbers = format!("ρ = {r:.2}, p = {p:.3} over {k} signals");
    let sentence = if !determined {
        let why = if straddles { "the seeds disagree on its sign" } else { "it is within what chance gives" };
        let remedy = if seeds < 3 {
            "train more seeds (seeds 3 or more), then more steps or a larger held-out share"
        } else {
            "train more steps, or hold out a larger share, or more seeds"
        };
        format!("On this corpus the link between stress and held-out loss is undetermined ({numbers}): {why}. To settle it, {remedy}.")
    } else if r >= 0.5 {
        format!("On this corpus, lower stress goes with lower held-out loss ({numbers}): an encoding closer to the corpus geometry trained a better model.")
    } else if r <= -0.5 {
        format!("On this corpus, lower stress goes with higher held-out loss ({numbers}): stress did not predict which encoding trains better.")
    } else {
        format!("On this corpus, stress and held-out loss show a weak link ({numbers}).")
    };
    Finding { rho: Some(r), signals: k, seeds, rho_range, p_value: Some(p), determined, sentence }
}
