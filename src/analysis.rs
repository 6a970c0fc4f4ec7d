//! The **pipeline**: corpus → counts → distances → spectrum → encodings → stress, in the
//! linfa style: [`AnalysisParams`] (validated options with SPEC defaults) →
//! [`analyze`] → [`Analysis`] (every intermediate, typed) → [`Report`] (the serialisable
//! summary shared by `posgeo analyze --json` and the browser's JSON export).
//!
//! Progress is reported per [`Stage`] through a callback; a callback that returns
//! `false` cancels the run ([`PosgeoError::Cancelled`]).

use crate::corpus::tokenize::{Tokenizer, TokenizerKind};
use crate::corpus::Corpus;
use crate::counts::{CountParams, Mode, PositionalCounts};
use crate::encodings::{self, Encoding, EncodingKind, EncodingParams};
use crate::error::{PosgeoError, Result};
use crate::mds::Spectrum;
use crate::metric::{self, DistanceMatrix, Metric};
use crate::monotonicity;
use crate::stress::{self, StressReport};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Every option of an analysis, with SPEC defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AnalysisParams {
    /// Tokenizer (default `words`).
    pub tokenizer: TokenizerKind,
    /// Lowercase tokens; `None` → on for `whitespace`/`words`, off for `chars`.
    pub lowercase: Option<bool>,
    /// Prefix each sequence with `<bos>`.
    pub bos: bool,
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
}

impl Default for AnalysisParams {
    fn default() -> Self {
        AnalysisParams {
            tokenizer: TokenizerKind::Words,
            lowercase: None,
            bos: false,
            mode: Mode::Condition,
            max_len: 512,
            min_support: 5,
            alpha: 0.0,
            top_k: None,
            metric: Metric::Hellinger,
            tau: 1e-8,
            energy: 0.99,
            encodings: EncodingParams::default(),
        }
    }
}

impl AnalysisParams {
    /// The tokenizer these options describe.
    pub fn tokenizer(&self) -> Tokenizer {
        Tokenizer {
            kind: self.tokenizer,
            lowercase: self.lowercase.unwrap_or(self.tokenizer.lowercase_by_default()),
            bos: self.bos,
        }
    }

    /// Checks every option's range.
    pub fn validate(&self) -> Result<()> {
        if !(self.tau >= 0.0 && self.tau < 1.0) {
            return Err(PosgeoError::option("tau", "must be in [0, 1)"));
        }
        if !(self.energy > 0.0 && self.energy <= 1.0) {
            return Err(PosgeoError::option("energy", "must be in (0, 1]"));
        }
        if !(self.alpha >= 0.0 && self.alpha.is_finite()) {
            return Err(PosgeoError::option("alpha", "must be a finite number ≥ 0"));
        }
        self.encodings.validate()
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
}

impl Stage {
    /// A label for progress bars.
    pub fn label(self) -> &'static str {
        match self {
            Stage::Reading => "reading",
            Stage::Counting => "counting",
            Stage::Distances => "distances",
            Stage::Mds => "MDS",
            Stage::Encodings => "encodings",
            Stage::Stress => "stress",
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

/// One compared encoding with its stress.
#[derive(Debug, Clone, PartialEq)]
pub struct Compared {
    /// The configuration.
    pub encoding: Encoding,
    /// Its distances δ.
    pub delta: DistanceMatrix,
    /// Its stress against D.
    pub stress: StressReport,
}

/// Every intermediate of one run.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// Options used.
    pub params: AnalysisParams,
    /// Lines skipped while reading.
    pub skipped_lines: usize,
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
}

/// Runs the whole pipeline. `learned` is an optional position table (rows ≥ n).
pub fn analyze(
    corpus: &Corpus,
    params: &AnalysisParams,
    learned: Option<&[Vec<f64>]>,
    progress: &mut dyn FnMut(Progress) -> bool,
) -> Result<Analysis> {
    params.validate()?;
    let mut report = |stage, fraction| {
        if progress(Progress { stage, fraction }) {
            Ok(())
        } else {
            Err(PosgeoError::Cancelled)
        }
    };
    report(Stage::Counting, 0.0)?;
    let count_params = CountParams {
        tokenizer: params.tokenizer(),
        mode: params.mode,
        max_len: params.max_len,
        min_support: params.min_support,
        top_k: params.top_k,
    };
    let mut cancelled = false;
    let counts = PositionalCounts::count(corpus, &count_params, &mut |f| {
        cancelled |= report(Stage::Counting, f).is_err();
    })?;
    if cancelled {
        return Err(PosgeoError::Cancelled);
    }
    report(Stage::Distances, 0.0)?;
    let distances = metric::distances(&counts, params.alpha, params.metric)?;
    if distances.max() <= 0.0 {
        return Err(PosgeoError::NoGeometry);
    }
    report(Stage::Mds, 0.0)?;
    let spectrum = Spectrum::of_distances(&distances)?;
    let effective_rank = spectrum.effective_rank(params.tau);
    let energy_rank = spectrum.energy_rank(params.energy).max(1);
    let n = counts.n;
    let pmds_dim = params.encodings.d.min(effective_rank).max(1);
    let rank = params.encodings.rank.unwrap_or(energy_rank).min(n);

    let target = stress::Target::new(&distances)?;
    let geometry = encodings::CorpusGeometry { distances: &distances, spectrum: &spectrum, pmds_dim, rank };
    let mut kinds: Vec<EncodingKind> = EncodingKind::BUILT_IN.to_vec();
    if learned.is_some() {
        kinds.push(EncodingKind::Learned);
    }
    let mut compared = Vec::with_capacity(kinds.len());
    for (k, &kind) in kinds.iter().enumerate() {
        report(Stage::Encodings, k as f64 / kinds.len() as f64)?;
        let encoding = match (kind, learned) {
            (EncodingKind::Learned, Some(table)) => encodings::learned(n, table)?,
            _ => {
                let step = |f: f64| (k as f64 + f) / kinds.len() as f64;
                let mut inner = |f: f64| cancelled |= report(Stage::Encodings, step(f)).is_err();
                encodings::build(kind, n, &params.encodings, geometry, &mut inner)?
            }
        };
        let delta = encoding.distances();
        if cancelled {
            return Err(PosgeoError::Cancelled);
        }
        let stress = stress::stress_against(&delta, &target);
        compared.push(Compared { encoding, delta, stress });
    }
    report(Stage::Stress, 0.5)?;
    let corpus_monotonicity = monotonicity::violation_rate(&distances);
    report(Stage::Stress, 1.0)?;
    Ok(Analysis {
        params: params.clone(),
        skipped_lines: corpus.skipped_lines,
        counts,
        distances,
        spectrum,
        effective_rank,
        energy_rank,
        corpus_monotonicity,
        compared,
    })
}

/// One encoding's line of the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EncodingReport {
    /// σ.
    pub raw_stress: f64,
    /// σ*.
    pub scaled_stress: f64,
    /// a*.
    pub scale: f64,
    /// Spearman ρ (null when undefined).
    pub spearman: Option<f64>,
    /// Monotonicity violation rate (null when n < 3).
    pub monotonicity_violation_rate: Option<f64>,
    /// Dimension of the configuration.
    pub dim: usize,
    /// Parameters to learn or store.
    pub parameters: u64,
}

/// Stress of low-rank PMDS X_r for one r.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankPoint {
    /// r.
    pub rank: usize,
    /// σ(X_r).
    pub raw_stress: f64,
    /// σ*(X_r).
    pub scaled_stress: f64,
    /// r·(n + d).
    pub parameters: u64,
}

/// The serialisable summary (the `--json` schema).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Number of sequences read.
    pub sequences: usize,
    /// Lines skipped as invalid UTF-8 (`--lossy`).
    pub skipped_lines: usize,
    /// Positions kept.
    pub n: usize,
    /// |V|.
    pub vocab_size: usize,
    /// Tokens counted at kept positions.
    pub tokens: u64,
    /// N_i for i < n.
    pub support: Vec<u64>,
    /// N_i for every position below the cap, dropped ones included.
    pub support_all: Vec<u64>,
    /// Why positions beyond n were dropped (None when none were).
    pub dropped_reason: Option<String>,
    /// Metric name.
    pub metric: String,
    /// All eigenvalues of B, descending.
    pub eigenvalues: Vec<f64>,
    /// r_τ.
    pub effective_rank: usize,
    /// r_E.
    pub energy_rank: usize,
    /// Negative mass of the spectrum.
    pub negative_mass: f64,
    /// Violation rate of D.
    pub corpus_monotonicity_violation_rate: Option<f64>,
    /// Per encoding, keyed by name.
    pub encodings: BTreeMap<String, EncodingReport>,
    /// Encoding names in display order.
    pub encoding_order: Vec<String>,
    /// Stress of X_r for r = 1..min(r_τ, 128).
    pub rank_curve: Vec<RankPoint>,
    /// The five most frequent tokens per position.
    pub top_tokens: Vec<Vec<(String, u64)>>,
    /// First (up to) three PMDS coordinates per position.
    pub pmds_coordinates: Vec<Vec<f64>>,
    /// Options used.
    pub params: AnalysisParams,
    /// The distance matrix, under the metric's name (`hellinger`, …), with `--matrix`.
    #[serde(flatten)]
    pub matrix: BTreeMap<String, Vec<Vec<f64>>>,
}

impl Analysis {
    /// Raw and scaled stress of X_r for r = 1..=max_rank, incrementally (δ²_r = δ²_{r−1} +
    /// (x_ir − x_jr)²), O(n²) per rank.
    #[allow(clippy::needless_range_loop)] // r indexes columns of the row-major x
    pub fn rank_curve(&self, max_rank: usize) -> Vec<RankPoint> {
        let n = self.counts.n;
        let x = self.spectrum.coordinates(max_rank.min(n));
        let target = self.distances.upper();
        let tt: f64 = target.iter().map(|v| v * v).sum();
        let mut sq = vec![0.0; target.len()];
        let mut out = Vec::new();
        for r in 0..max_rank.min(n) {
            let mut p = 0;
            for i in 0..n {
                for j in i + 1..n {
                    let e = x[i][r] - x[j][r];
                    sq[p] += e * e;
                    p += 1;
                }
            }
            let (mut dd, mut dt, mut raw) = (0.0, 0.0, 0.0);
            for (s, t) in sq.iter().zip(&target) {
                let d = s.sqrt();
                dd += d * d;
                dt += d * t;
                raw += (d - t) * (d - t);
            }
            let a = if dd > 0.0 { dt / dd } else { 0.0 };
            let scaled: f64 = sq.iter().zip(&target).map(|(s, t)| (a * s.sqrt() - t).powi(2)).sum();
            out.push(RankPoint {
                rank: r + 1,
                raw_stress: raw / tt,
                scaled_stress: scaled / tt,
                parameters: ((r + 1) * (n + self.params.encodings.d)) as u64,
            });
        }
        out
    }

    /// The summary; `with_matrix` adds the n×n distance matrix.
    pub fn report(&self, with_matrix: bool) -> Report {
        let c = &self.counts;
        let mut encodings = BTreeMap::new();
        for cmp in &self.compared {
            let s = &cmp.stress;
            encodings.insert(
                cmp.encoding.kind.name().to_string(),
                EncodingReport {
                    raw_stress: s.raw_stress,
                    scaled_stress: s.scaled_stress,
                    scale: s.scale,
                    spearman: s.spearman,
                    monotonicity_violation_rate: s.monotonicity_violation_rate,
                    dim: cmp.encoding.points.dim,
                    parameters: cmp.encoding.parameters,
                },
            );
        }
        let dropped_reason = (c.n < c.support_all.len()).then(|| {
            format!(
                "positions {}..{} were dropped: position {} has N = {} < min_support = {}",
                c.n,
                c.support_all.len() - 1,
                c.n,
                c.support_all[c.n],
                self.params.min_support
            )
        });
        let mut matrix = BTreeMap::new();
        if with_matrix {
            matrix.insert(self.params.metric.name().to_string(), self.distances.to_rows());
        }
        Report {
            sequences: c.sequences,
            skipped_lines: self.skipped_lines,
            n: c.n,
            vocab_size: c.vocab.len(),
            tokens: c.tokens,
            support: c.support().to_vec(),
            support_all: c.support_all.clone(),
            dropped_reason,
            metric: self.params.metric.name().to_string(),
            eigenvalues: self.spectrum.eigenvalues.clone(),
            effective_rank: self.effective_rank,
            energy_rank: self.energy_rank,
            negative_mass: self.spectrum.negative_mass(),
            corpus_monotonicity_violation_rate: self.corpus_monotonicity,
            encodings,
            encoding_order: self.compared.iter().map(|c| c.encoding.kind.name().to_string()).collect(),
            rank_curve: self.rank_curve(self.effective_rank.clamp(1, 128)),
            top_tokens: (0..c.n).map(|i| c.top_tokens(i, 5)).collect(),
            pmds_coordinates: self.spectrum.coordinates(3.min(self.effective_rank.max(1))),
            params: self.params.clone(),
            matrix,
        }
    }
}
