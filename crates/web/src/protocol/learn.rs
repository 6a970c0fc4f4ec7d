//! The **Learn panel's job** (docs/MATH.md §16), as the worker runs it: the page's corpus read
//! again with every sequence kept, its geometry (D and the spectrum), the sequences as tokens,
//! then one training run per (signal, seed) and the summary — the steps of `posgeo train`, so
//! the same numbers.
//!
//! Page → worker: `{ learn_request: <postcard bytes of [`LearnRequest`]>, bytes | file, tokenizer_bytes,
//! model_bytes }` (the corpus travels as for a run, [`super::Request`]). Worker → page:
//! `{ learn: Uint8Array }`, the postcard bytes of a [`LearnResponse`] — binary, so that every
//! number (NaN and infinities too) arrives bit for bit. The training runs in a worker of its
//! own, so that cancelling it (terminating that worker) leaves the analysis worker and its
//! kept geometry alone.

use super::{counting_tokenizer, Files, Request, Source, GENESIS};
use posgeo::analysis::AnalysisParams;
use posgeo::corpus::hf_tokenizer::ModelTokenizer;
use posgeo::corpus::tokenize::TokenizerKind;
use posgeo::corpus::{InputFormat, ReadCounter, SequenceStream};
use posgeo::counts::{count_stream, looks_like_table, Streamed};
use posgeo::error::{PosgeoError, Result};
use posgeo_learn::train::Tick;
use posgeo_learn::{self as learn, Context, Experiment, LearnParams, Run, Signal};
use serde::{Deserialize, Serialize};
use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A training request: the corpus as a run names it, and the experiment's options.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LearnRequest {
    /// Training id; answers carry it so that the page ignores superseded ones.
    pub id: u32,
    /// The corpus, its analysis options and the tokenizer or model files that count it (a
    /// learned table, if named, is not used).
    pub corpus: Request,
    /// The experiment's options.
    pub learn: LearnParams,
    /// The (signal, seed) runs this worker trains, when the training is spread over several
    /// workers (each prepares the same context, so each run is the one a single worker would
    /// train); it answers [`LearnResponse::Trained`] and keeps its context for
    /// [`summarise`]. Empty: every run, answered with [`LearnResponse::Done`].
    #[serde(default)]
    pub jobs: Vec<(Signal, u64)>,
    /// The end-to-end tests' fault: this signal's runs diverge, their loss NaN after
    /// [`DIVERGE_AT`] steps ([`learn::fault::DivergesAfter`]). The page sets it only when a
    /// test asked for faults.
    #[serde(default)]
    pub diverge: Option<Signal>,
}

/// The steps a run asked to diverge ([`LearnRequest::diverge`]) takes before its loss is NaN.
pub const DIVERGE_AT: usize = 12;

/// Worker → page, for a training.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum LearnResponse {
    /// How far it is, and the runs finished since the last message (each with all its
    /// records: the loss curves grow run by run). A run posted again — with more records —
    /// replaces the one the page shows.
    Progress {
        /// Training id.
        id: u32,
        /// Share of the whole job done, in [0, 1].
        fraction: f64,
        /// What it is doing, in words.
        text: String,
        /// Runs finished since the last message.
        runs: Vec<Run>,
    },
    /// The finished experiment (what `posgeo train --json` prints).
    Done {
        /// Training id.
        id: u32,
        /// The experiment.
        experiment: Box<Experiment>,
    },
    /// A worker's share of the runs is trained ([`LearnRequest::jobs`]): its runs, in the
    /// order asked.
    Trained {
        /// Training id.
        id: u32,
        /// The runs.
        runs: Vec<Run>,
    },
    /// A failed training: the message for the user.
    Error {
        /// Training id.
        id: u32,
        /// What went wrong.
        message: String,
    },
}

impl LearnResponse {
    /// The training the answer belongs to.
    pub fn id(&self) -> u32 {
        match self {
            LearnResponse::Progress { id, .. }
            | LearnResponse::Done { id, .. }
            | LearnResponse::Trained { id, .. }
            | LearnResponse::Error { id, .. } => *id,
        }
    }

    /// The postcard bytes that travel.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        postcard::to_allocvec(self).map_err(|e| PosgeoError::Learn(format!("cannot encode the answer: {e}")))
    }

    /// Reads [`LearnResponse::to_bytes`].
    pub fn from_bytes(bytes: &[u8]) -> Result<LearnResponse> {
        postcard::from_bytes(bytes).map_err(|e| PosgeoError::Learn(format!("cannot read the worker's answer: {e}")))
    }
}

/// Page → the first worker of a training spread over several: every worker's runs, to be
/// summarised with the context it kept (`{ learn_summarise: Uint8Array }`, postcard).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summarise {
    /// Training id.
    pub id: u32,
    /// Every worker's runs.
    pub runs: Vec<Run>,
}

impl Summarise {
    /// The postcard bytes that travel.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        postcard::to_allocvec(self).map_err(|e| PosgeoError::Learn(format!("cannot encode the runs: {e}")))
    }

    /// Reads [`Summarise::to_bytes`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Summarise> {
        postcard::from_bytes(bytes).map_err(|e| PosgeoError::Learn(format!("cannot read the runs: {e}")))
    }
}

/// Share of the progress bar taken by reading the corpus and its geometry.
const PREPARE: f64 = 0.1;

/// The analysis options as `posgeo train` uses them (with the tokenizer the corpus is counted
/// by), and the experiment's options, both checked.
fn checked(req: &LearnRequest, files: &Files<'_>) -> Result<(AnalysisParams, LearnParams)> {
    let r = &req.corpus;
    let mut params = r.params.clone();
    if let Some((name, bytes)) = counting_tokenizer(r, files.model) {
        params.tokenizer = TokenizerKind::Model;
        params.model = Some(ModelTokenizer::from_bytes(&name, &bytes)?);
    } else if let Some(name) = r.tokenizer.as_ref().filter(|_| params.tokenizer == TokenizerKind::Model) {
        params.model = Some(ModelTokenizer::from_bytes(name, files.tokenizer)?);
    }
    // The experiment needs D and the spectrum only (as `posgeo train`).
    params.encodings.smacof_max_iter = 0;
    params.validate()?;
    req.learn.validate()?;
    Ok((params, req.learn.clone()))
}

/// The corpus counted as `posgeo train` counts it: a stream of its text, every sequence kept.
fn count_all(
    source: &Source,
    files: Files<'_>,
    params: &AnalysisParams,
    progress: &mut dyn FnMut(f64),
) -> Result<Streamed> {
    let text = |lines: Vec<String>| -> Box<dyn Read> { Box::new(std::io::Cursor::new(lines.join("\n").into_bytes())) };
    let (reader, format, lossy): (Box<dyn Read + '_>, InputFormat, bool) = match (source, files.corpus_stream) {
        (Source::Bytes { format, lossy, .. }, Some(stream)) => (stream, format.clone(), *lossy),
        (Source::Bytes { format, lossy, .. }, None) => (Box::new(files.corpus), format.clone(), *lossy),
        (Source::Genesis, _) => (Box::new(GENESIS.as_bytes()), InputFormat::Text, false),
        (Source::Proteins, _) => (Box::new(super::PROTEINS.as_bytes()), InputFormat::Fasta, false),
        (Source::Synthetic(p), _) => (text(posgeo::demos::synth::generate(p)?), InputFormat::Text, false),
    };
    let read = Arc::new(AtomicU64::new(0));
    let mut reader = ReadCounter { inner: reader, read: read.clone() };
    let mut head = Vec::new();
    (&mut reader).take(1 << 16).read_to_end(&mut head).map_err(|e| PosgeoError::NoSequences(e.to_string()))?;
    if matches!(source, Source::Bytes { .. }) && looks_like_table(&head) {
        return Err(PosgeoError::Learn(
            "training needs the corpus's sequences, and a counts table has none: paste or upload the text itself"
                .into(),
        ));
    }
    let size = files.corpus_size.max(files.corpus.len() as u64).max(1) as f64;
    let mut stream = SequenceStream::new(std::io::Cursor::new(head).chain(reader), &format, lossy)?;
    count_stream(&mut stream, &params.tokenizer(), params.max_len, usize::MAX, &mut || {
        progress((read.load(Ordering::Relaxed) as f64 / size).min(1.0));
        true
    })
}

/// The runs of every worker merged (`runs`, any order): the experiment of the context `ctx`,
/// with its runs in `posgeo train`'s order — what one worker training them all gives.
pub fn summarise(ctx: &Context, mut runs: Vec<Run>) -> Result<Experiment> {
    let order = learn::jobs(ctx);
    let at = |r: &Run| order.iter().position(|&j| j == (r.signal, r.seed)).unwrap_or(usize::MAX);
    runs.sort_by_key(at);
    learn::summarise(ctx, runs)
}

/// A worker's part of a training spread over several ([`LearnRequest::jobs`]): the context
/// prepared as one worker prepares it, then its runs; the context is returned for
/// [`summarise`].
pub fn run_part(req: &LearnRequest, files: Files<'_>, post: &mut dyn FnMut(LearnResponse)) -> Result<Context> {
    let ctx = context(req, files, post)?;
    let runs = train_jobs(&ctx, req, &req.jobs, post);
    post(LearnResponse::Trained { id: req.id, runs });
    Ok(ctx)
}

/// Runs a training request to its experiment; `post` receives the progress messages.
pub fn run(req: &LearnRequest, files: Files<'_>, post: &mut dyn FnMut(LearnResponse)) -> Result<Experiment> {
    let ctx = context(req, files, post)?;
    let runs = train_jobs(&ctx, req, &learn::jobs(&ctx), post);
    learn::summarise(&ctx, runs)
}

/// The corpus read and its training context prepared, as `posgeo train` prepares it.
fn context(req: &LearnRequest, files: Files<'_>, post: &mut dyn FnMut(LearnResponse)) -> Result<Context> {
    let id = req.id;
    let (params, learn_params) = checked(req, &files)?;
    let mut say = |fraction: f64, text: &str| {
        post(LearnResponse::Progress { id, fraction, text: text.to_string(), runs: Vec::new() });
    };
    say(0.0, "reading the corpus");
    let mut last = -1.0;
    let streamed = count_all(&req.corpus.source, files, &params, &mut |f| {
        if f - last >= 0.05 {
            last = f;
            say(0.5 * PREPARE * f, "reading the corpus");
        }
    })?;
    say(0.5 * PREPARE, "the corpus geometry (D and its spectrum)");
    learn::prepare(&streamed.table, &streamed.first, &params, &learn_params, &mut |_| true)
}

/// The least share of the whole training between two records posted (the live curves).
const RECORD_EVERY: f64 = 0.002;

/// The (signal, seed) runs `jobs` in order, one after the other ([`learn::run_job`]); each run
/// is posted after its records (the live curves; at most one a [`RECORD_EVERY`] of the
/// training) and once done.
fn train_jobs(
    ctx: &Context,
    req: &LearnRequest,
    jobs: &[(Signal, u64)],
    post: &mut dyn FnMut(LearnResponse),
) -> Vec<Run> {
    let (p, id) = (&ctx.params, req.id);
    let total = (jobs.len() * p.steps).max(1) as f64;
    let at = |done: usize| PREPARE + (1.0 - PREPARE) * done as f64 / total;
    let mut runs = Vec::with_capacity(jobs.len());
    for (k, &(signal, seed)) in jobs.iter().enumerate() {
        let name = signal.name();
        let (mut last, mut last_record) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
        let mut step = 0;
        let mut tick = |t: Tick<'_>| {
            match t {
                Tick::Step(t) => {
                    step = t;
                    let f = at(k * p.steps + t);
                    if f - last >= 0.005 {
                        last = f;
                        let text = format!("training {name} (seed {seed}): step {t} of {}", p.steps);
                        post(LearnResponse::Progress { id, fraction: f, text, runs: Vec::new() });
                    }
                }
                Tick::Recorded(run) => {
                    // At most one record a 0.2 % of the whole training reaches the page (and the
                    // first): a fast trainer records hundreds of times a second, and each post
                    // carries the run so far, which the page draws.
                    let fraction = at(k * p.steps + step);
                    if run.records.len() == 1 || fraction - last_record >= RECORD_EVERY {
                        last_record = fraction;
                        let text = format!("training {name} (seed {seed}): step {} of {}", step + 1, p.steps);
                        post(LearnResponse::Progress { id, fraction, text, runs: vec![run.clone()] });
                    }
                }
            }
            true
        };
        let run = if req.diverge == Some(signal) {
            learn::run_job_with::<learn::fault::DivergesAfter<DIVERGE_AT>>(ctx, (signal, seed), None, &mut tick)
        } else {
            learn::run_job(ctx, (signal, seed), None, &mut tick)
        };
        let text = format!("trained {name} (seed {seed}), {} of {}", k + 1, jobs.len());
        post(LearnResponse::Progress { id, fraction: at((k + 1) * p.steps), text, runs: vec![run.clone()] });
        runs.push(run);
    }
    runs
}

#[cfg(test)]
mod tests;
