//! **The jobs** of the helper workers: the messages between the worker and its helpers, and the helper's side as plain Rust
//! ([`Helper::serve`]), so that every job runs natively in tests as in the browser.
//!
//! Worker → helper: a JS array `[job, …beside]`: `job` is a [`Job`] in postcard bytes (one
//! `Uint8Array`), `beside` the bulky inputs that travel as they lie (the uploaded `File`, D or
//! its rows and pairs as transferred typed arrays, a model's bundle), so that neither side's
//! wasm memory holds them twice; each [`Job`] variant says what its `beside` holds, and the
//! helper reads them through [`Beside`]. Helper → worker: `[answer]`, an [`Answer`] in
//! postcard bytes (postcard keeps every f64's bits: NaN and ±∞ travel). Every failure in a
//! helper is an [`Answer::Failed`] with its message; the worker then does the job itself (as
//! before these messages were typed) and tells the page what failed.

use posgeo::analysis::{AnalysisParams, Measure};
use posgeo::corpus::InputFormat;
use posgeo::encodings::Encoding;
use posgeo::points::Points;
use posgeo::smacof::rows;
use posgeo::smacof::RowPlan;
use posgeo_model::{LayerSums, Model, Plan};
use serde::{Deserialize, Serialize};
use std::io::Read;
use std::ops::Range;

/// A part of an upload to count: bytes `start..end` of the file (cut at line boundaries).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CountPart {
    /// The first byte of the range.
    pub start: u64,
    /// One past its last byte.
    pub end: u64,
    /// How the file is parsed.
    pub format: InputFormat,
    /// Whether invalid UTF-8 is replaced rather than an error.
    pub lossy: bool,
    /// The run's parameters.
    pub params: AnalysisParams,
    /// The model tokenizer's name, when the corpus is counted by one.
    pub tokenizer: Option<String>,
    /// The first sequences kept as text ([`crate::protocol::kept`]).
    pub keep: usize,
    /// The end-to-end tests' faults: a helper whose part starts with `#posgeo:helper-hang`
    /// never answers, one whose part starts with `#posgeo:helper-trap` traps.
    pub faults: bool,
}

/// A helper's job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Job {
    /// Count a part of the upload; beside: the `File`.
    Count {
        /// The part.
        part: CountPart,
        /// The model tokenizer's `tokenizer.json` (empty without one).
        tokenizer: Vec<u8>,
    },
    /// The spectrum of D for a run under `params`; beside: D's n×n f64s.
    Spectrum {
        /// Positions.
        n: usize,
        /// The run's parameters (which eigenvectors it reads).
        params: AnalysisParams,
    },
    /// Keep the rows of D of `blocks` for SMACOF's rounds (no answer); beside: those rows.
    SmacofShare {
        /// Positions.
        n: usize,
        /// The configuration's dimension.
        dim: usize,
        /// The blocks of [`RowPlan`] this helper computes.
        blocks: Range<usize>,
    },
    /// One SMACOF round from X (its σ share, and the Guttman step's sums with `step`).
    SmacofRound {
        /// X, row-major n×dim.
        x: Vec<f64>,
        /// Whether to compute the step's sums too.
        step: bool,
    },
    /// Drop the kept rows of D (no answer).
    SmacofEnd,
    /// Measure encodings against D; beside: D's pairs (f64s), their doubled ranks (u32s),
    /// the PMDS coordinates (f64s), then each encoding's coordinates (f64s).
    Measure {
        /// Positions.
        n: usize,
        /// Σ D² over the pairs.
        sum_sq: f64,
        /// The PMDS coordinates' width (0: no Procrustes target).
        x_dim: usize,
        /// The encodings, their coordinates left out.
        encodings: Vec<Encoding>,
    },
    /// Run these batches of a model's pass; beside: the model's bundle. Answers
    /// [`Answer::LayerProgress`] after each batch, then [`Answer::LayerSums`].
    Layers {
        /// The pass's plan.
        plan: Plan,
        /// The batches this helper runs.
        batches: Vec<Vec<usize>>,
    },
}

/// A helper's answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Answer {
    /// A counted part: its table ([`posgeo::counts::CountsTable::to_bytes`]) and first sequences.
    Counted {
        /// The table's binary form.
        table: Vec<u8>,
        /// Its first sequences, as text.
        first: Vec<String>,
    },
    /// The spectrum: eigenvalues and the eigenvectors kept.
    Spectrum {
        /// Every eigenvalue.
        eigenvalues: Vec<f64>,
        /// The kept eigenvectors, as [`posgeo::mds::Spectrum::vectors`].
        eigenvectors: Vec<f64>,
    },
    /// The eigensolver failed (it would in the worker too: the run fails).
    EigenFailed {
        /// Its message.
        message: String,
    },
    /// A SMACOF round's part: the blocks' σ shares, then the row sums and sums of the step.
    SmacofPart {
        /// The values, as the worker's `decode` reads them.
        values: Vec<f64>,
    },
    /// Each encoding's sketch, stress and alignment.
    Measured {
        /// In the job's order.
        measures: Vec<Measure>,
    },
    /// The job is still going (a heartbeat: a helper silent for too long counts as hung).
    Alive,
    /// Batches of a layer job done so far.
    LayerProgress {
        /// How many.
        done: usize,
    },
    /// A layer job's sums.
    LayerSums {
        /// Over its batches.
        sums: LayerSums,
    },
    /// The job failed.
    Failed {
        /// Why.
        message: String,
    },
}

/// A message's postcard bytes.
pub fn encode<T: Serialize>(message: &T) -> Result<Vec<u8>, JobError> {
    postcard::to_allocvec(message).map_err(|e| JobError::Wire { writing: true, why: e.to_string() })
}

/// A message from its postcard bytes.
pub fn decode<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Result<T, JobError> {
    postcard::from_bytes(bytes).map_err(|e| JobError::Wire { writing: false, why: e.to_string() })
}

/// What travels beside a job, read where it lies (JS values in the browser, vectors in
/// tests), and the way back for progress.
pub trait Beside {
    /// How many numbers (or bytes) item `i` holds, `None` when it is absent or not an array.
    fn len(&self, i: usize) -> Option<usize>;
    /// Item `i`'s f64s from `at` on, into `out`.
    fn f64s_into(&self, i: usize, at: usize, out: &mut [f64]) -> Result<(), JobError>;
    /// Item `i` as u32s.
    fn u32s(&self, i: usize) -> Result<Vec<u32>, JobError>;
    /// Item `i` as bytes.
    fn bytes(&self, i: usize) -> Result<Vec<u8>, JobError>;
    /// A cheap identity of item `i`'s bytes (its length and a digest), read in place.
    fn identity(&self, i: usize) -> Result<(usize, u64), JobError>;
    /// Item `i`, a file, read from byte `from` on.
    fn file_from(&self, i: usize, from: u64) -> Result<Box<dyn Read + '_>, JobError>;
    /// Posts an answer before the last (progress).
    fn post(&self, answer: &Answer);
    /// Posts [`Answer::Alive`] unless one went out a moment ago.
    fn alive(&self);
    /// Item `i`'s f64s.
    fn f64s(&self, i: usize) -> Result<Vec<f64>, JobError> {
        let mut v = vec![0.0; self.len(i).ok_or(JobError::Beside { item: i, flaw: Flaw::Absent })?];
        self.f64s_into(i, 0, &mut v)?;
        Ok(v)
    }
}

/// The FNV-1a digest of 4,096 of a bundle's bytes (at `get(i)` for i < len), with its length.
pub fn identity(len: usize, get: impl Fn(usize) -> u8) -> (usize, u64) {
    let step = (len / 4096).max(1);
    let digest = (0..len)
        .step_by(step)
        .fold(0xcbf2_9ce4_8422_2325u64, |h, i| (h ^ u64::from(get(i))).wrapping_mul(0x100_0000_01b3));
    (len, digest)
}

/// A SMACOF share kept between rounds: its blocks and their rows of D (row-major).
struct Share {
    n: usize,
    dim: usize,
    blocks: Range<usize>,
    d_rows: Vec<f64>,
}

/// A helper's state between jobs: its SMACOF share (or why it has none) and its model.
#[derive(Default)]
pub struct Helper {
    share: Option<Result<Share, JobError>>,
    model: Option<((usize, u64), Model)>,
}

impl Helper {
    /// Does `job`: its answer, `None` for the jobs that have none (SMACOF's share and end).
    pub fn serve(&mut self, job: Job, beside: &dyn Beside) -> Option<Answer> {
        let answer = match job {
            Job::Count { part, tokenizer } => count(part, &tokenizer, beside),
            Job::Spectrum { n, params } => Ok(spectrum(n, &params, beside)),
            Job::SmacofShare { n, dim, blocks } => {
                self.share = Some(share(n, dim, blocks, beside));
                return None;
            }
            Job::SmacofEnd => {
                self.share = None;
                return None;
            }
            Job::SmacofRound { x, step } => self.round(x, step),
            Job::Measure { n, sum_sq, x_dim, encodings } => measure(n, sum_sq, x_dim, encodings, beside),
            Job::Layers { plan, batches } => self.layers(&plan, &batches, beside),
        };
        Some(answer.unwrap_or_else(|e| Answer::Failed { message: e.to_string() }))
    }

    /// A SMACOF round on the kept share: its blocks' shares of σ, then (with a step) its
    /// part's Σ B_ij and Σ B_ij·x_j for the rows from its first on.
    fn round(&self, data: Vec<f64>, step: bool) -> Result<Answer, JobError> {
        let share = match &self.share {
            Some(Ok(share)) => share,
            Some(Err(e)) => return Err(e.clone()),
            None => return Err(JobError::mismatch("no share of D for this round")),
        };
        let (n, dim) = (share.n, share.dim);
        let plan = RowPlan::new(n);
        if data.len() != n * dim {
            return Err(JobError::mismatch(format!("X holds {} numbers, not {n}×{dim}", data.len())));
        }
        let x = Points { n, dim, data };
        let norms = rows::norms(&x);
        let part = rows::part(&x, &norms, &share.d_rows, &plan, share.blocks.clone(), step);
        let mut values = part.stresses;
        values.extend_from_slice(&part.row_sums);
        values.extend_from_slice(&part.sums);
        Ok(Answer::SmacofPart { values })
    }

    /// A layer job: the model (loaded once per bundle), its batches, an
    /// [`Answer::LayerProgress`] after each, the sums.
    fn layers(&mut self, plan: &Plan, batches: &[Vec<usize>], beside: &dyn Beside) -> Result<Answer, JobError> {
        let id = beside.identity(0)?;
        if self.model.as_ref().is_none_or(|(k, _)| *k != id) {
            self.model = None; // the old model goes before the new one is built
                               // The bundle enters wasm memory only when the model is (re)built.
            let (model, _) = Model::from_bundle(&beside.bytes(0)?)?;
            self.model = Some((id, model));
        }
        let model = &self.model.as_ref().ok_or(JobError::mismatch("no model"))?.1;
        let (mut last, total) = (0usize, batches.len().max(1));
        let sums = posgeo_model::run(model, plan, batches, &mut |f| {
            let k = (f * total as f64).round() as usize;
            while last < k {
                last += 1;
                beside.post(&Answer::LayerProgress { done: last });
            }
            true
        })?;
        Ok(Answer::LayerSums { sums })
    }
}

/// An encoding without its coordinates (they travel beside the job).
pub fn bare(e: &Encoding) -> Encoding {
    Encoding {
        kind: e.kind,
        points: Points { n: e.points.n, dim: e.points.dim, data: Vec::new() },
        parameters: e.parameters,
        iterations: e.iterations,
        stop: e.stop,
    }
}

mod error;
#[cfg(test)]
mod tests;
mod work;
pub use error::{Flaw, JobError};
use work::{count, measure, share, spectrum};
