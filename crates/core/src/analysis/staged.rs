//! The pipeline after counting in two steps, so that a caller can have the encodings'
//! measures (docs/MATH.md §6–§7: δ, stress, Spearman, monotonicity, Procrustes) made elsewhere —
//! the page hands them to its helper workers — while it computes the corpus's own
//! monotonicity and rank curve. [`stage`] runs counts → D → spectrum → encodings;
//! [`Staged::finish`] measures whatever was not measured elsewhere and completes the
//! [`Analysis`]. [`super::analyze_table`] is `stage` then `finish` with nothing given, so
//! both routes give the same numbers.

use super::compare::{build, measure_all, Build, Built, Measure};
use super::{reporter, Analysis, AnalysisParams, Compared, LearnedTables, Progress, Stage};
use crate::counts::{CountsTable, PositionalCounts};
use crate::encodings::Encoding;
use crate::error::{PosgeoError, Result};
use crate::mds::Spectrum;
use crate::measures::stress::Target;
use crate::metric::{self, DistanceMatrix};
use crate::points::Points;

/// An analysis whose encodings are built but not yet measured.
pub struct Staged {
    analysis: Analysis,
    built: Built,
    corpus_side: bool,
}

/// A run part-way: counts and D, its spectrum still to compute (stages "counting" and
/// "distances"). The page has a helper worker decompose B for it at large n
/// ([`Geometry::stage`] then takes the spectrum it returns), so that the eigen-step's
/// n×n matrices are never in the worker's own memory.
pub struct Geometry {
    params: AnalysisParams,
    skipped_lines: usize,
    counts: PositionalCounts,
    distances: DistanceMatrix,
    examples: Vec<Vec<String>>,
    /// D prepared as the measures read it, once made ([`Geometry::target`]).
    target: Option<Target>,
    /// Encodings measured while the spectrum was computed ([`Geometry::give_measured`]).
    measured: Vec<Compared>,
}

/// Counts → D (stages "counting" and "distances").
pub fn geometry(
    table: &CountsTable,
    examples: Vec<Vec<String>>,
    params: &AnalysisParams,
    progress: &mut dyn FnMut(Progress) -> bool,
) -> Result<Geometry> {
    params.validate()?;
    let mut report = reporter(progress);
    report(Stage::Counting, 1.0)?;
    let counts = PositionalCounts::from_table(table, &params.count_params().table())?;
    crate::limits::check_positions(counts.n, params.encodings.d)?;
    report(Stage::Distances, 0.0)?;
    let distances = metric::distances(&counts, params.alpha, params.metric)?;
    if distances.max() <= 0.0 {
        return Err(PosgeoError::NoGeometry);
    }
    let skipped_lines = table.text.as_ref().map_or(0, |t| t.skipped_lines as usize);
    Ok(Geometry {
        params: params.clone(),
        skipped_lines,
        counts,
        distances,
        examples,
        target: None,
        measured: Vec::new(),
    })
}

impl Geometry {
    /// The run's parameters.
    pub fn params(&self) -> &AnalysisParams {
        &self.params
    }

    /// D.
    pub fn distances(&self) -> &DistanceMatrix {
        &self.distances
    }

    /// D prepared as the measures read it (its pairs and their ranks), made once and kept for
    /// [`Geometry::stage`].
    pub fn target(&mut self) -> Result<&Target> {
        let target = match self.target.take() {
            Some(t) => t,
            None => Target::new(&self.distances)?,
        };
        Ok(self.target.insert(target))
    }

    /// The spectrum-free encodings ([`super::compare::spectrum_free`]) of this run, to measure
    /// while the spectrum is computed.
    pub fn spectrum_free(&self) -> Result<Vec<(String, Encoding)>> {
        super::compare::spectrum_free(self.distances.n(), &self.params.encodings)
    }

    /// The spectrum of D as this run reads it (the eigenvectors it needs kept): what
    /// [`Geometry::stage`] computes when it is given none. The page's worker computes it
    /// before `stage` while a helper measures the spectrum-free encodings.
    pub fn spectrum(&self) -> Result<Spectrum> {
        Spectrum::of_distances_keeping(&self.distances, |values| spectrum_keeps(&self.params, values))
    }

    /// Encodings of [`Geometry::spectrum_free`] measured elsewhere, their Procrustes alignment
    /// left for [`Geometry::stage`] (which aligns them once the PMDS coordinates exist):
    /// `stage` takes them instead of building and measuring them again.
    pub fn give_measured(&mut self, measured: Vec<Compared>) {
        self.measured = measured;
    }

    /// Spectrum → encodings (stages "mds" and "encodings"), with the spectrum of D when it
    /// was computed elsewhere ([`Spectrum::of_distances`] of [`Geometry::distances`]: it
    /// must be that one) or computed here. With `smacof_later`, SMACOF is left at its start
    /// for the caller to fit ([`Staged::smacof`], [`Staged::set_smacof`]; the page spreads
    /// it over its helper workers); [`Staged::finish`] fits it otherwise.
    pub fn stage(
        self,
        spectrum: Option<Spectrum>,
        learned: &LearnedTables,
        smacof_later: bool,
        progress: &mut dyn FnMut(Progress) -> bool,
    ) -> Result<Staged> {
        let mut report = reporter(progress);
        report(Stage::Mds, 0.0)?;
        let spectrum = match spectrum {
            Some(s) if s.n() == self.distances.n() && s.kept() >= spectrum_keeps(&self.params, &s.eigenvalues) => s,
            _ => self.spectrum()?,
        };
        let Geometry { params, skipped_lines, counts, distances, examples, target, measured } = self;
        let (effective_rank, energy_rank) = ranks(&params, &spectrum.eigenvalues);
        // (The encodings measured already are kept as a live update keeps unchanged ones.)
        let how = if smacof_later {
            Build::DeferSmacof(&measured, &params.encodings)
        } else {
            Build::Kept(&measured, &params.encodings)
        };
        let built =
            build(&distances, &spectrum, (effective_rank, energy_rank), &params, learned, (how, target), &mut report)?;
        drop(measured);
        let analysis = Analysis {
            params,
            skipped_lines,
            counts_table: None,
            counts,
            distances,
            spectrum,
            effective_rank,
            energy_rank,
            corpus_monotonicity: None,
            compared: Vec::new(),
            rank_curve: Vec::new(),
            examples,
            layers: None,
            random_band: None,
        };
        Ok(Staged { analysis, built, corpus_side: false })
    }
}

/// How many eigenvectors a run under `params` keeps, given the eigenvalues (descending):
/// those it reads ([`super::compare::vectors_needed`]).
pub fn spectrum_keeps(params: &AnalysisParams, eigenvalues: &[f64]) -> usize {
    super::compare::vectors_needed(params, ranks(params, eigenvalues), eigenvalues.len())
}

/// (r_τ, r_E) of eigenvalues in descending order under `params` (r_E at least 1).
fn ranks(params: &AnalysisParams, eigenvalues: &[f64]) -> (usize, usize) {
    (crate::mds::effective_rank(eigenvalues, params.tau), crate::mds::energy_rank(eigenvalues, params.energy).max(1))
}

/// Counts → D → spectrum → encodings ([`geometry`] then [`Geometry::stage`], the spectrum
/// computed here).
pub fn stage(
    table: &CountsTable,
    examples: Vec<Vec<String>>,
    params: &AnalysisParams,
    learned: &LearnedTables,
    smacof_later: bool,
    progress: &mut dyn FnMut(Progress) -> bool,
) -> Result<Staged> {
    geometry(table, examples, params, progress)?.stage(None, learned, smacof_later, progress)
}

impl Staged {
    /// SMACOF left to fit (see [`stage`]): its start, D, its iteration cap, and the part of
    /// the encodings stage's progress it spans.
    pub fn smacof(&self) -> Option<(&Points, &DistanceMatrix, usize, (f64, f64))> {
        let (start, cap, span) = self.built.deferred()?;
        Some((start, &self.analysis.distances, cap, span))
    }

    /// Puts SMACOF's fit in its place (the encodings are then all built).
    pub fn set_smacof(&mut self, fit: crate::smacof::SmacofFit) {
        self.built.set_smacof(fit);
    }

    /// The encodings still to measure, in report order (SMACOF's start while it is left to
    /// fit: fit it first).
    pub fn pending(&self) -> Vec<&Encoding> {
        self.built.pending().collect()
    }

    /// What they are measured against: D, and the PMDS coordinates Procrustes aligns onto
    /// (the arguments of [`super::measure_encodings`]).
    pub fn targets(&self) -> (&DistanceMatrix, &Points) {
        (&self.analysis.distances, self.built.target_x())
    }

    /// The same targets with D prepared as the measures read it (the arguments of
    /// [`super::measure_against`]: D's pairs and ranks, about 3/4 of D's size).
    pub fn prepared_targets(&self) -> (&crate::measures::stress::Target, &Points) {
        (self.built.target_d(), self.built.target_x())
    }

    /// The corpus's own numbers: the monotonicity of D and the rank curve (the work a caller
    /// does while the encodings are measured elsewhere; [`Staged::finish`] does it otherwise).
    pub fn corpus_side(&mut self) -> Result<()> {
        if !self.corpus_side {
            corpus_side(&mut self.analysis, self.built.target_d())?;
            self.corpus_side = true;
        }
        Ok(())
    }

    /// Measures the encodings not in `given` (the measures of the first pending ones, made by
    /// [`super::measure_encodings`]) and completes the analysis (stage "stress").
    pub fn finish(self, given: Vec<Measure>, progress: &mut dyn FnMut(Progress) -> bool) -> Result<Analysis> {
        let Staged { mut analysis, mut built, corpus_side: done } = self;
        let mut report = reporter(progress);
        if let Some((start, cap, (from, to))) = built.deferred() {
            let mut cancelled = false;
            let mut inner = |f: f64| cancelled |= report(Stage::Encodings, from + f * (to - from)).is_err();
            let fit = crate::smacof::smacof(start, &analysis.distances, cap, crate::smacof::SMACOF_TOL, &mut inner);
            if cancelled {
                return Err(PosgeoError::Cancelled);
            }
            built.set_smacof(fit);
        }
        if !done {
            corpus_side(&mut analysis, built.target_d())?;
        }
        analysis.compared = measure_all(built, given, &mut report)?;
        report(Stage::Stress, 0.5)?;
        report(Stage::Stress, 1.0)?;
        Ok(analysis)
    }
}

/// The monotonicity of D, the rank curve of low-rank PMDS (r ≤ min(r_τ, 128)) and the random
/// band at the run's d.
fn corpus_side(a: &mut Analysis, target: &crate::measures::stress::Target) -> Result<()> {
    a.corpus_monotonicity = crate::measures::monotonicity::violation_rate(&a.distances);
    a.rank_curve = a.rank_curve(a.effective_rank.clamp(1, 128));
    a.random_band = Some(band(&a.distances, target, &a.params)?);
    Ok(())
}

/// The random band of [`crate::measures::band`] under `params` (d, σ).
pub(super) fn band(
    distances: &DistanceMatrix,
    target: &crate::measures::stress::Target,
    params: &AnalysisParams,
) -> Result<crate::measures::band::RandomBand> {
    let e = &params.encodings;
    crate::measures::band::random_band(distances, target, e.d, e.sigma, crate::measures::band::BAND_TABLES)
}
