//! The **pipeline**: corpus → counts → distances → spectrum → encodings → stress, in the
//! linfa style: [`AnalysisParams`] (validated options with docs/MATH.md §10's defaults) →
//! [`analyze`] → [`Analysis`] (every intermediate, typed) → [`crate::report::Report`] (the serialisable
//! summary shared by `posgeo analyze --json` and the browser's JSON export, in
//! [`crate::report`]).
//!
//! Progress is reported per [`Stage`] through a callback; a callback that returns
//! `false` cancels the run ([`PosgeoError::Cancelled`]).

use crate::corpus::tokenize::{Tokenizer, TokenizerKind};
use crate::corpus::Corpus;
use crate::counts::{CountParams, CountsTable, Mode, PositionalCounts};
use crate::encodings::{Encoding, EncodingParams};
use crate::error::{PosgeoError, Result};
use crate::mds::Spectrum;
use crate::measures::stress::StressReport;
use crate::metric::{DistanceMatrix, Metric};
use serde::{Deserialize, Serialize};

/// Every option of an analysis, with docs/MATH.md §10's defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AnalysisParams {
    /// Tokenizer (default `words`).
    pub tokenizer: TokenizerKind,
    /// Lowercase tokens; `None` → on for `whitespace`/`words`, off for `chars`.
    pub lowercase: Option<bool>,
    /// Prefix each sequence with `<bos>`.
    pub bos: bool,
    /// k of the `kmer` tokenizer (3: codons).
    #[serde(default = "default_kmer")]
    pub kmer: usize,
    /// Model tokenizers: add the special tokens of its post-processor (default on).
    pub special_tokens: bool,
    /// The model tokenizer of `tokenizer = model` (a file: not part of a link or the JSON
    /// options; the report names it in `tokenizer_file`).
    #[serde(skip)]
    pub model: Option<crate::corpus::hf_tokenizer::ModelTokenizer>,
    /// `condition` (default) or `pad`.
    pub mode: Mode,
    /// Cap on positions (512).
    pub max_len: usize,
    /// Minimum sequences per position (5).
    pub min_support: usize,
    /// Additive smoothing α (0).
    pub alpha: f64,
    /// Keep the k most frequent types.
    pub top_k: Option<usize>,
    /// Corpus metric (Hellinger chord).
    pub metric: Metric,
    /// τ of the effective rank (1e-8).
    pub tau: f64,
    /// E of the energy rank (0.99).
    pub energy: f64,
    /// Encoding parameters.
    pub encodings: EncodingParams,
    /// With a model: the first S sequences its layers read (docs/MATH.md §14; 256).
    pub layer_sequences: usize,
    /// With a model: the first positions its per-layer measures leave out (docs/MATH.md §14b).
    pub layer_skip: usize,
}

fn default_kmer() -> usize {
    3
}

impl Default for AnalysisParams {
    fn default() -> Self {
        AnalysisParams {
            tokenizer: TokenizerKind::Words,
            lowercase: None,
            bos: false,
            kmer: 3,
            special_tokens: true,
            model: None,
            mode: Mode::Condition,
            max_len: 512,
            min_support: 5,
            alpha: 0.0,
            top_k: None,
            metric: Metric::Hellinger,
            tau: 1e-8,
            energy: 0.99,
            encodings: EncodingParams::default(),
            layer_sequences: 256,
            layer_skip: 0,
        }
    }
}

impl AnalysisParams {
    /// The tokenizer these options describe.
    pub fn tokenizer(&self) -> Tokenizer {
        let model = self.tokenizer == TokenizerKind::Model;
        Tokenizer {
            kind: self.tokenizer,
            // A model's normaliser decides case (docs/MATH.md §1).
            lowercase: !model && self.lowercase.unwrap_or(self.tokenizer.lowercase_by_default()),
            bos: self.bos,
            model: self.model.clone().filter(|_| model),
            special_tokens: self.special_tokens,
            kmer: self.kmer,
        }
    }

    /// Checks every option's range (the ranges declared in [`crate::options::ANALYSIS`]).
    pub fn validate(&self) -> Result<()> {
        if self.tokenizer == TokenizerKind::Model && self.model.is_none() {
            return Err(PosgeoError::NeedsTokenizerFile);
        }
        crate::options::check_all(crate::options::ANALYSIS, self)
    }
}

/// The stages, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// Reading and decoding the input.
    Reading,
    /// Tokenizing and counting.
    Counting,
    /// The distance matrix.
    Distances,
    /// Classical MDS.
    Mds,
    /// Building the encodings.
    Encodings,
    /// Stress and monotonicity.
    Stress,
    /// A model's forward pass over its sequences (docs/MATH.md §14; only with a model).
    Layers,
}

impl Stage {
    /// Every stage, in order.
    pub const ALL: [Stage; 6] =
        [Stage::Reading, Stage::Counting, Stage::Distances, Stage::Mds, Stage::Encodings, Stage::Stress];

    /// A label for progress bars.
    pub fn label(self) -> &'static str {
        match self {
            Stage::Reading => "reading",
            Stage::Counting => "counting",
            Stage::Distances => "distances",
            Stage::Mds => "MDS",
            Stage::Encodings => "encodings",
            Stage::Stress => "stress",
            Stage::Layers => "model layers",
        }
    }
}

/// A progress report: the stage and the fraction of it done.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// Current stage.
    pub stage: Stage,
    /// Fraction of the stage done, in [0, 1].
    pub fraction: f64,
}

impl Progress {
    /// The fraction of the whole run done, in [0, 1]: every stage counts the same.
    pub fn overall(&self) -> f64 {
        // A model's pass comes after the analysis is complete: its bar runs on its own.
        if self.stage == Stage::Layers {
            return self.fraction.clamp(0.0, 1.0);
        }
        let k = Stage::ALL.iter().position(|&s| s == self.stage).unwrap_or(0);
        ((k as f64 + self.fraction.clamp(0.0, 1.0)) / Stage::ALL.len() as f64).min(1.0)
    }

    /// What a progress line says: "counting 40%".
    pub fn text(&self) -> String {
        format!("{} {:.0}%", self.stage.label(), self.fraction * 100.0)
    }
}

/// Learned position tables, each with its name (a tensor's or a file's).
pub type LearnedTables = [(String, crate::learned_tables::Table)];

mod compare;
pub mod extra;
pub mod layers;
mod staged;
use compare::compare;
pub use compare::{learned_key, measure_against, measure_encodings, Measure};
pub use layers::LayersInfo;
pub use staged::{geometry, spectrum_keeps, stage, Geometry, Staged};

/// One compared encoding with its stress.
#[derive(Debug, Clone, PartialEq)]
pub struct Compared {
    /// Its key in reports, tables and charts (`sinusoidal`, `learned`, `learned:wpe.weight`).
    pub name: String,
    /// The configuration.
    pub encoding: Encoding,
    /// What the charts draw of its distances δ (δ itself is not kept:
    /// `encoding.distances()` computes it again).
    pub sketch: crate::measures::sketch::Sketch,
    /// Its stress against D.
    pub stress: StressReport,
    /// Its Procrustes alignment onto the PMDS coordinates ([`crate::measures::procrustes`]).
    pub procrustes: crate::measures::procrustes::Alignment,
}

/// Every intermediate of one run.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// Options used.
    pub params: AnalysisParams,
    /// Lines skipped while reading.
    pub skipped_lines: usize,
    /// The counts table analysed, when the analysis was made from one read from a file (its
    /// name): fields that need the raw text (sequences in mode `condition`, examples,
    /// skipped lines) are then unknown.
    pub counts_table: Option<String>,
    /// c_i(w).
    pub counts: PositionalCounts,
    /// D.
    pub distances: DistanceMatrix,
    /// Spectrum of B.
    pub spectrum: Spectrum,
    /// r_τ.
    pub effective_rank: usize,
    /// r_E.
    pub energy_rank: usize,
    /// Violation rate of D itself.
    pub corpus_monotonicity: Option<f64>,
    /// Encodings in report order.
    pub compared: Vec<Compared>,
    /// Stress of low-rank PMDS X_r at the ranks of [`crate::measures::rank_curve::rank_grid`] up to
    /// min(r_τ, 128) (geometry only: kept by
    /// [`Analysis::reencode`], which only updates the parameter counts r(n+d)).
    pub rank_curve: Vec<crate::measures::rank_curve::RankPoint>,
    /// The first [`EXAMPLE_SEQUENCES`] sequences as the counted tokens (at most
    /// [`EXAMPLE_TOKENS`] each), for showing what stands at each position.
    pub examples: Vec<Vec<String>>,
    /// The model whose layers are among the encodings (docs/MATH.md §14), when one was run.
    pub layers: Option<LayersInfo>,
    /// What K random tables score at the run's d ([`crate::measures::band`]; depends on d).
    pub random_band: Option<crate::measures::band::RandomBand>,
}

/// Sequences kept in [`Analysis::examples`].
pub const EXAMPLE_SEQUENCES: usize = 6;
/// Tokens kept per example sequence.
pub const EXAMPLE_TOKENS: usize = 12;

/// Stage reports for a progress callback: a `false` answer becomes [`PosgeoError::Cancelled`].
fn reporter(progress: &mut dyn FnMut(Progress) -> bool) -> impl FnMut(Stage, f64) -> Result<()> + '_ {
    move |stage, fraction| if progress(Progress { stage, fraction }) { Ok(()) } else { Err(PosgeoError::Cancelled) }
}

/// Runs the whole pipeline. `learned` are position tables to compare (rows ≥ n each).
pub fn analyze(
    corpus: &Corpus,
    params: &AnalysisParams,
    learned: &LearnedTables,
    progress: &mut dyn FnMut(Progress) -> bool,
) -> Result<Analysis> {
    params.validate()?;
    let table = count_corpus(corpus, params, progress)?;
    let examples = params.examples(&corpus.sequences);
    analyze_table(&table, examples, params, learned, progress)
}

/// The counting stage on a corpus in memory: its counts table (every core natively), with the
/// lines skipped while reading. `progress` follows [`Stage::Counting`]; `false` cancels.
pub fn count_corpus(
    corpus: &Corpus,
    params: &AnalysisParams,
    progress: &mut dyn FnMut(Progress) -> bool,
) -> Result<CountsTable> {
    let count_params = params.count_params();
    count_params.table().validate()?;
    let mut report = reporter(progress);
    report(Stage::Counting, 0.0)?;
    let mut cancelled = false;
    let mut table = crate::counts::count_table(&corpus.sequences, &count_params.tokenizer, params.max_len, &mut |f| {
        cancelled |= report(Stage::Counting, f).is_err();
    });
    if cancelled {
        return Err(PosgeoError::Cancelled);
    }
    if let Some(t) = table.text.as_mut() {
        t.skipped_lines = corpus.skipped_lines as u64;
    }
    Ok(table)
}

/// The pipeline after counting: a counts table ([`CountsTable`], counted from text or read
/// from a file) under `params` (the tokenizer options do not apply to it). `examples` are
/// the first sequences' tokens when the text is at hand ([`AnalysisParams::examples`]).
pub fn analyze_table(
    table: &CountsTable,
    examples: Vec<Vec<String>>,
    params: &AnalysisParams,
    learned: &LearnedTables,
    progress: &mut dyn FnMut(Progress) -> bool,
) -> Result<Analysis> {
    stage(table, examples, params, learned, false, progress)?.finish(Vec::new(), progress)
}

impl AnalysisParams {
    /// The options of the counting stage.
    pub fn count_params(&self) -> CountParams {
        CountParams {
            tokenizer: self.tokenizer(),
            mode: self.mode,
            max_len: self.max_len,
            min_support: self.min_support,
            top_k: self.top_k,
        }
    }

    /// The first [`EXAMPLE_SEQUENCES`] sequences as counted tokens (for [`Analysis::examples`]).
    pub fn examples<S: AsRef<str>>(&self, seqs: &[S]) -> Vec<Vec<String>> {
        let t = self.tokenizer();
        seqs.iter().take(EXAMPLE_SEQUENCES).map(|s| t.tokens(s.as_ref(), EXAMPLE_TOKENS.min(self.max_len))).collect()
    }
}

impl AnalysisParams {
    /// Whether `other` describes the same corpus geometry: every option declared as
    /// changing it ([`crate::options::Affects::Geometry`]) is equal.
    pub fn same_geometry(&self, other: &AnalysisParams) -> bool {
        crate::options::ANALYSIS
            .iter()
            .filter(|o| o.affects == crate::options::Affects::Geometry)
            .all(|o| o.text(self) == o.text(other))
            && (self.tokenizer != TokenizerKind::Model || self.model == other.model)
    }
}

impl Analysis {
    /// The same corpus geometry compared under other encoding parameters: counts, D and the
    /// spectrum are reused, only the encodings and their stress are computed again (what the
    /// page's live parameters do). `params` must have the same geometry ([`AnalysisParams::same_geometry`]).
    pub fn reencode(
        &self,
        params: &AnalysisParams,
        learned: &LearnedTables,
        progress: &mut dyn FnMut(Progress) -> bool,
    ) -> Result<Analysis> {
        params.validate()?;
        if !self.params.same_geometry(params) {
            return Err(PosgeoError::option(
                "params",
                "these options change the corpus geometry: run the whole analysis",
            ));
        }
        let mut report = reporter(progress);
        let ranks = (self.effective_rank, self.energy_rank);
        // More eigenvectors than the run kept (a larger d or rank): the spectrum again.
        let needed = compare::vectors_needed(params, ranks, self.counts.n);
        let wider = if needed > self.spectrum.kept() {
            report(Stage::Mds, 0.0)?;
            Some(Spectrum::of_distances_keeping(&self.distances, |_| needed)?)
        } else {
            None
        };
        let spectrum = wider.as_ref().unwrap_or(&self.spectrum);
        let kept = Some((self.compared.as_slice(), &self.params.encodings));
        let mut compared = compare(&self.distances, spectrum, ranks, params, learned, kept, &mut report)?;
        // A model's layer rows depend on the corpus geometry alone.
        compared
            .extend(self.compared.iter().filter(|c| c.encoding.kind == crate::encodings::EncodingKind::Layer).cloned());
        let n = self.counts.n;
        let rank_curve = self
            .rank_curve
            .iter()
            .map(|p| crate::measures::rank_curve::RankPoint {
                parameters: (p.rank * (n + params.encodings.d)) as u64,
                ..p.clone()
            })
            .collect();
        let (e, was) = (&params.encodings, &self.params.encodings);
        let random_band = match (e.d, e.sigma) == (was.d, was.sigma) {
            true => self.random_band.clone(),
            false => {
                Some(staged::band(&self.distances, &crate::measures::stress::Target::new(&self.distances)?, params)?)
            }
        };
        report(Stage::Stress, 1.0)?;
        let spectrum = wider.unwrap_or_else(|| self.spectrum.clone());
        Ok(Analysis { params: params.clone(), compared, rank_curve, spectrum, random_band, ..self.clone() })
    }
}

#[cfg(test)]
mod tests;
