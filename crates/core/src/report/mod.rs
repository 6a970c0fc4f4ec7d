//! The **report**: the serialisable summary of an [`Analysis`] (the `posgeo analyze --json`
//! schema, docs/MATH.md §9), and the text both front-ends show for it — the summary lines,
//! number formatting and the stress table as CSV (in `text`) — so the CLI and the page say
//! the same.

use crate::analysis::{Analysis, AnalysisParams};
use crate::corpus::tokenize::TokenizerKind;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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
    /// Procrustes residual ρ against the PMDS coordinates ([`crate::measures::procrustes`]).
    #[serde(default)]
    pub procrustes_residual: Option<f64>,
    /// SMACOF iterations used (`smacof` only; its stopping rule is in [`crate::smacof`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iterations: Option<usize>,
    /// Why SMACOF stopped: `tolerance`, `no_decrease` or `cap` (`smacof` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<crate::smacof::SmacofStop>,
}

pub use crate::measures::rank_curve::RankPoint;

/// The serialisable summary (the `--json` schema).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Number of sequences read (null when analysed from a counts table that cannot tell:
    /// mode `condition`, where sequences without tokens leave no row).
    pub sequences: Option<usize>,
    /// The counts table analysed (`posgeo analyze --counts`, the page's counts upload):
    /// fields that need the raw text are then null or empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counts_table: Option<String>,
    /// The model tokenizer used (`tokenizer = model`): "file (type, types)".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokenizer_file: Option<String>,
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
    /// Stress of X_r at every r ≤ 64, then on a geometric grid up to min(r_τ, 128)
    /// ([`crate::measures::rank_curve::rank_grid`]).
    pub rank_curve: Vec<RankPoint>,
    /// The five most frequent tokens per position.
    pub top_tokens: Vec<Vec<(String, u64)>>,
    /// First (up to) three PMDS coordinates per position.
    pub pmds_coordinates: Vec<Vec<f64>>,
    /// Options used.
    pub params: AnalysisParams,
    /// The model whose layers are rows `layer:ℓ` and `layer-residual:ℓ` (docs/MATH.md §14).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layers: Option<crate::analysis::LayersInfo>,
    /// What K random tables score at this d (docs/MATH.md §17).
    #[serde(default)]
    pub random_band: Option<crate::measures::band::RandomBand>,
    /// The verdict: the best fixed encoding by σ* and by order, held against the band.
    #[serde(default)]
    pub verdict: Verdict,
    /// The distance matrix, under the metric's name (`hellinger`, …), with `--matrix`.
    #[serde(flatten)]
    pub matrix: BTreeMap<String, Vec<Vec<f64>>>,
}

impl Analysis {
    /// Raw and scaled stress of X_r at the ranks of [`crate::measures::rank_curve::rank_grid`] up to
    /// `max_rank` ([`crate::measures::rank_curve`]).
    pub fn rank_curve(&self, max_rank: usize) -> Vec<RankPoint> {
        let n = self.counts.n;
        let x = self.spectrum.coordinates(max_rank.min(n));
        let tt: f64 = self.distances.upper().iter().map(|v| v * v).sum();
        let ranks = crate::measures::rank_curve::rank_grid(x.dim);
        let sums = crate::measures::rank_curve::rank_sums(&x, &self.distances, &ranks);
        ranks
            .iter()
            .enumerate()
            .map(|(g, &r)| RankPoint {
                rank: r,
                raw_stress: sums.raw[g] / tt,
                scaled_stress: sums.scaled[g] / tt,
                parameters: (r * (n + self.params.encodings.d)) as u64,
            })
            .collect()
    }

    /// The summary; `with_matrix` adds the n×n distance matrix.
    pub fn report(&self, with_matrix: bool) -> Report {
        let c = &self.counts;
        let mut encodings = BTreeMap::new();
        for cmp in &self.compared {
            let s = &cmp.stress;
            encodings.insert(
                cmp.name.clone(),
                EncodingReport {
                    raw_stress: s.raw_stress,
                    scaled_stress: s.scaled_stress,
                    scale: s.scale,
                    spearman: s.spearman,
                    monotonicity_violation_rate: s.monotonicity_violation_rate,
                    dim: cmp.encoding.points.dim,
                    parameters: cmp.encoding.parameters,
                    procrustes_residual: Some(cmp.procrustes.residual),
                    iterations: (cmp.encoding.kind == crate::encodings::EncodingKind::Smacof)
                        .then_some(cmp.encoding.iterations),
                    stopped: cmp.encoding.stop,
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
        let mut report = Report {
            sequences: c.sequences,
            counts_table: self.counts_table.clone(),
            tokenizer_file: self.params.model.as_ref().filter(|_| self.params.tokenizer == TokenizerKind::Model).map(
                |m| {
                    let special = if self.params.special_tokens { "with" } else { "without" };
                    format!("{}, {special} special tokens", m.describe())
                },
            ),
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
            encoding_order: self.compared.iter().map(|c| c.name.clone()).collect(),
            rank_curve: self.rank_curve.clone(),
            top_tokens: (0..c.n).map(|i| c.top_tokens(i, 5)).collect(),
            pmds_coordinates: self.spectrum.coordinates(3.min(self.effective_rank.max(1))).to_rows(),
            params: self.params.clone(),
            layers: self.layers.clone(),
            random_band: self.random_band.clone(),
            verdict: Verdict::default(),
            matrix,
        };
        report.verdict = report.judge();
        report
    }
}

mod chance;
mod claims;
mod text;

pub use chance::{Verdict, FIXED};
pub use claims::{Claim, STEP_BIOLOGY};
pub use text::{band_line, csv_rows, fmt_number, STRESS_COLUMNS};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_switch_to_scientific_outside_the_readable_range() {
        assert_eq!(fmt_number(None), "—");
        assert_eq!(fmt_number(Some(0.0)), "0.0000");
        assert_eq!(fmt_number(Some(0.12345)), "0.1235");
        assert_eq!(fmt_number(Some(0.0001234)), "1.234e-4");
        assert_eq!(fmt_number(Some(12345.0)), "1.234e4");
        assert_eq!(fmt_number(Some(-2.5)), "-2.5000");
    }

    #[test]
    fn the_verdict_ranks_the_fixed_encodings() {
        use crate::measures::band::Spread;
        let mut r = crate::test_support::report();
        for (n, v, rho) in [("sinusoidal", 0.3, 0.5), ("rope", 0.049, 0.4), ("alibi", 0.102, 0.1)] {
            let e = r.encodings.get_mut(n).unwrap();
            (e.scaled_stress, e.spearman) = (v, Some(rho));
        }
        r.random_band = None;
        assert_eq!(
            r.verdict(),
            "On this corpus rope fits best among the fixed encodings (σ* = 0.0490); alibi 0.1020, sinusoidal 0.3000; by order, sinusoidal follows it best (Spearman 0.5000)"
        );
        // Against a band: rope clears it only when it is below the band and the runner-up
        // (alibi) is more than the band's width above it.
        let band = |min: f64, max: f64, rho_max: f64| {
            Some(crate::measures::band::RandomBand {
                k: 32,
                scaled_stress: Spread { min, median: 0.5 * (min + max), max },
                spearman: Some(Spread { min: -rho_max, median: 0.0, max: rho_max }),
            })
        };
        r.random_band = band(0.06, 0.09, 0.2);
        let v = r.judge();
        assert_eq!((v.best_by_stress.as_deref(), v.best_by_order.as_deref()), (Some("rope"), Some("sinusoidal")));
        r.random_band = band(0.04, 0.09, 0.6);
        let v = r.judge();
        assert_eq!((v.best_by_stress, v.best_by_order), (None, None));
        assert!(
            v.sentence.starts_with(
                "No fixed encoding fits this corpus better than random tables: rope, alibi and sinusoidal tie"
            ),
            "{}",
            v.sentence
        );
        assert!(v.sentence.contains("none follows it better than random tables"), "{}", v.sentence);
        // Below the band but within its width of the runner-up: no best either.
        r.random_band = band(0.11, 0.17, 0.2);
        let v = r.judge();
        assert_eq!(v.best_by_stress, None);
        assert!(
            v.sentence.starts_with("rope and alibi fit this corpus better than random tables, but too close"),
            "{}",
            v.sentence
        );
    }

    #[test]
    fn csv_rows_round_trip() {
        let rows = [vec![0.1, 1.0 / 3.0], vec![-2.0, 1e-300]];
        let s = csv_rows(rows.iter().map(Vec::as_slice));
        let back: Vec<Vec<f64>> = s.lines().map(|l| l.split(',').map(|c| c.parse().unwrap()).collect()).collect();
        assert_eq!(back, rows);
    }
}
