//! # posgeo-learn — what training does with position
//!
//! **Learning: what training does with position** (docs/MATH.md §16; the paper's Theorem 4
//! and its monotonicity conjecture): the layer above the numeric core (`posgeo`), whose
//! analysis, stress and monotonicity it measures the trained tables with. A small transformer encoder ([`net`]) is trained by
//! masked-token prediction on the corpus's own sequences ([`data`]), once per position
//! signal and run seed ([`train`]); trainable position tables are measured against the
//! corpus metric D as they learn (σ*, Spearman, monotonicity, separation
//! min‖p_i − p_j‖ / median‖p_i − p_j‖), and [`summary`] reads the finding: Spearman's ρ
//! between each signal's held-out loss and its σ*. [`dump`] writes a run's initial weights,
//! batches and losses for an independent replay (`tests/reference/train_ref.py`).
//!
//! [`fused`] does the training: one forward and one backward pass written for this model over
//! buffers allocated once, the matrix products through `gemm` ([`init`] gives its starting
//! weights). The same model over candle's tensors and autodiff ([`net`], candle-nn's AdamW in
//! [`oracle`]) is its test oracle: any implementation gives the same numbers (docs/MATH.md §16).
//!
//! Params → checked params → fit, as everywhere: [`LearnParams`] (declared once in
//! [`crate::options::LEARN`]) → [`Context::new`] (checks them against the corpus) →
//! [`train::run`] per (signal, seed) → [`summary::summarise`].

pub mod claims;
mod context;
pub mod data;
pub mod dump;
pub mod estimate;
pub mod fault;
pub mod fused;
pub mod init;
pub mod net;
pub mod options;
pub mod oracle;
pub mod preset;
pub mod significance;
pub mod summary;
pub mod train;

/// Fixtures the tests of this crate and of the crates above it share (feature `test-support`).
#[cfg(any(test, feature = "test-support"))]
#[doc(hidden)]
pub mod test_support;

use posgeo::error::{PosgeoError, Result};
use serde::{Deserialize, Serialize};

pub use context::Context;
pub use summary::{summarise, Experiment, Finding, SignalSummary};
pub use train::{Record, Run, TableMeasures};

/// A position signal: one model each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Signal {
    /// No position at all (permutation equivariant: Theorem 1).
    Nope,
    /// The fixed sinusoidal table.
    Sinusoidal,
    /// A fixed Gaussian table.
    Random,
    /// The fixed PMDS table X_d.
    Pmds,
    /// The fixed low-rank PMDS table X_r.
    PmdsR,
    /// A trainable table from N(0, 0.02²).
    Learned,
    /// A trainable table started from PMDS.
    LearnedPmds,
    /// Rotary positions on q and k.
    Rope,
    /// ALiBi's distance bias.
    Alibi,
    /// A trainable low-rank table P = A·Bᵀ (A n×r, B d×r; r = r_E or `learn_rank`).
    LowRank,
}

impl Signal {
    /// Every signal, in the report's order.
    pub const ALL: [Signal; 10] = [
        Signal::Nope,
        Signal::Sinusoidal,
        Signal::Random,
        Signal::Pmds,
        Signal::PmdsR,
        Signal::Learned,
        Signal::LearnedPmds,
        Signal::Rope,
        Signal::Alibi,
        Signal::LowRank,
    ];

    /// The signal's name.
    pub fn name(self) -> &'static str {
        match self {
            Signal::Nope => "nope",
            Signal::Sinusoidal => "sinusoidal",
            Signal::Random => "random",
            Signal::Pmds => "pmds",
            Signal::PmdsR => "pmds_r",
            Signal::Learned => "learned",
            Signal::LearnedPmds => "learned_pmds",
            Signal::Rope => "rope",
            Signal::Alibi => "alibi",
            Signal::LowRank => "lowrank",
        }
    }

    /// The signal of a name.
    pub fn parse(name: &str) -> Option<Signal> {
        Signal::ALL.into_iter().find(|s| s.name() == name)
    }

    /// Added to the token embedding as a table p_i.
    pub fn additive(self) -> bool {
        !matches!(self, Signal::Nope | Signal::Rope | Signal::Alibi)
    }

    /// A table the optimiser trains.
    pub fn trainable(self) -> bool {
        matches!(self, Signal::Learned | Signal::LearnedPmds | Signal::LowRank)
    }
}

/// Every option of the experiment (docs/MATH.md §16), declared in [`crate::options::LEARN`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LearnParams {
    /// The signals, one model each (a bit per [`Signal::ALL`] entry).
    pub signals: Vec<Signal>,
    /// Optimiser steps (400).
    pub steps: usize,
    /// Seeds 1..=S (1).
    pub seeds: usize,
    /// Model width d (64).
    pub d_model: usize,
    /// Blocks L (2).
    pub layers: usize,
    /// Attention heads H (4).
    pub heads: usize,
    /// The most frequent types kept (2,000).
    pub vocab: usize,
    /// Probability of choosing a position (0.15).
    pub mask_rate: f64,
    /// Peak learning rate (3e-3).
    pub lr: f64,
    /// Sequences per batch (32).
    pub batch: usize,
    /// Record every this many steps (20).
    pub every: usize,
    /// Training positions n_t: sequences are cut there and D restricted to them (128).
    pub positions: usize,
    /// The share of the sequences held out (0.1).
    pub held: f64,
    /// r of `lowrank`'s table (none: the energy rank r_E of the training positions' D).
    pub rank: Option<usize>,
}

impl Default for LearnParams {
    fn default() -> Self {
        LearnParams {
            signals: Signal::ALL.to_vec(),
            steps: 400,
            seeds: 1,
            d_model: 64,
            layers: 2,
            heads: 4,
            vocab: 2000,
            mask_rate: 0.15,
            lr: 3e-3,
            batch: 32,
            every: 20,
            positions: 128,
            held: 0.1,
            rank: None,
        }
    }
}

impl LearnParams {
    /// Checks every option's range, and the relations between them.
    pub fn validate(&self) -> Result<()> {
        posgeo::options::check_all(crate::options::LEARN, self)?;
        if self.d_model % self.heads != 0 || (self.d_model / self.heads) % 2 != 0 {
            return Err(PosgeoError::option(
                "d_model",
                format!(
                    "must split into {} heads of an even width (RoPE rotates pairs): {} is not a multiple of {}",
                    self.heads,
                    self.d_model,
                    2 * self.heads
                ),
            ));
        }
        Ok(())
    }

    /// The run seeds, 1..=S.
    pub fn seed_list(&self) -> Vec<u64> {
        (1..=self.seeds as u64).collect()
    }
}

/// The training context of a counted corpus: its geometry (D and the spectrum; SMACOF is not
/// run, the experiment does not read it) and the tokens of its first sequences, as `posgeo
/// train`, `posgeo.train` and the page's Learn panel all prepare it.
pub fn prepare(
    table: &posgeo::counts::CountsTable,
    first: &[String],
    params: &posgeo::analysis::AnalysisParams,
    learn: &LearnParams,
    progress: &mut dyn FnMut(posgeo::analysis::Progress) -> bool,
) -> Result<Context> {
    let mut params = params.clone();
    params.encodings.smacof_max_iter = 0;
    let analysis = posgeo::analysis::analyze_table(table, Vec::new(), &params, &[], progress)?;
    let tokenizer = params.tokenizer();
    let seqs: Vec<Vec<String>> = first.iter().map(|l| tokenizer.tokens(l, params.max_len)).collect();
    Context::new(&seqs, &analysis, learn)
}

/// Every (signal, seed) of `ctx`, in `posgeo train`'s order.
pub fn jobs(ctx: &Context) -> Vec<(Signal, u64)> {
    let seeds = ctx.params.seed_list();
    ctx.params.signals.iter().flat_map(|&s| seeds.iter().map(move |&seed| (s, seed))).collect()
}

/// One (signal, seed): its run, or a run that keeps no records and says why it failed.
pub fn run_job(
    ctx: &Context,
    job: (Signal, u64),
    trace: Option<&mut train::Trace>,
    tick: &mut dyn FnMut(train::Tick<'_>) -> bool,
) -> Run {
    run_job_with::<fused::Fused>(ctx, job, trace, tick)
}

/// [`run_job`] on any implementation of the model (a [`fault`] among them).
pub fn run_job_with<M: train::Model>(
    ctx: &Context,
    (signal, seed): (Signal, u64),
    trace: Option<&mut train::Trace>,
    tick: &mut dyn FnMut(train::Tick<'_>) -> bool,
) -> Run {
    train::run_with::<M>(ctx, signal, seed, trace, tick).unwrap_or_else(|e| Run {
        signal,
        seed,
        records: Vec::new(),
        train_loss: Vec::new(),
        lr: Vec::new(),
        error: Some(e.to_string()),
        table: None,
    })
}

/// Trains every (signal, seed) of `ctx` (in parallel natively), calling `progress` with the
/// fraction of all steps done (false cancels: the runs under way stop and the jobs not yet
/// started are not built). With `trace`, the first seed's runs keep their initial weights and
/// batches for the dump.
pub fn run_all(
    ctx: &Context,
    trace: bool,
    progress: &(dyn Fn(f64) -> bool + Sync),
) -> Vec<(Run, Option<train::Trace>)> {
    let jobs = jobs(ctx);
    let first_seed = ctx.params.seed_list().first().copied();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let total = (jobs.len() * ctx.params.steps).max(1) as f64;
    let cancelled = std::sync::atomic::AtomicBool::new(false);
    posgeo::par::map(jobs.len(), |k| {
        use std::sync::atomic::Ordering::Relaxed;
        let mut tick = |t: train::Tick<'_>| {
            if !matches!(t, train::Tick::Step(_)) {
                return true;
            }
            let d = done.fetch_add(1, Relaxed) + 1;
            if cancelled.load(Relaxed) || !progress(d as f64 / total) {
                cancelled.store(true, Relaxed);
                return false;
            }
            true
        };
        // A job not yet started when a cancel comes never builds its model.
        if cancelled.load(Relaxed) {
            let (signal, seed) = jobs[k];
            let error = Some(PosgeoError::Cancelled.to_string());
            return (
                Run { signal, seed, records: Vec::new(), train_loss: Vec::new(), lr: Vec::new(), error, table: None },
                None,
            );
        }
        let mut kept = (trace && Some(jobs[k].1) == first_seed).then(train::Trace::default);
        let run = run_job(ctx, jobs[k], kept.as_mut(), &mut tick);
        (run, kept)
    })
}

#[cfg(test)]
mod tests;
