//! The encodings stage (docs/MATH.md §5–§6): every built-in encoding and each learned table, its
//! distances δ, its stress against D (the paper's Eq. 4) and its Procrustes alignment onto
//! the PMDS coordinates; live updates reuse the configurations whose parameters did not change.

use super::{Compared, LearnedTables, Stage};
use crate::analysis::AnalysisParams;
use crate::encodings::{self, Encoding, EncodingKind};
use crate::error::{PosgeoError, Result};
use crate::mds::Spectrum;
use crate::measures::sketch::Sketch;
use crate::measures::stress;
use crate::metric::DistanceMatrix;
use crate::points::Points;

/// The report key of learned table k of `count`: `learned` alone, else `learned:<name>`.
pub fn learned_key(name: &str, count: usize) -> String {
    if count == 1 {
        "learned".into()
    } else {
        format!("learned:{name}")
    }
}

/// Builds every encoding and its stress against D (stages "encodings", "stress").
pub(super) fn compare(
    distances: &DistanceMatrix,
    spectrum: &Spectrum,
    ranks: (usize, usize),
    params: &AnalysisParams,
    learned: &LearnedTables,
    kept: Option<(&[Compared], &encodings::EncodingParams)>,
    report: &mut dyn FnMut(Stage, f64) -> Result<()>,
) -> Result<Vec<Compared>> {
    let how = kept.map_or(Build::Fresh, |(c, p)| Build::Kept(c, p));
    let built = build(distances, spectrum, ranks, params, learned, (how, None), report)?;
    measure_all(built, Vec::new(), report)
}

/// How [`build`] builds: every encoding, reusing none or those of a last run whose
/// parameters did not change (live updates), or every one but SMACOF, left with its start for
/// the caller to fit ([`Built::deferred`]).
#[derive(Clone, Copy)]
pub(super) enum Build<'a> {
    Fresh,
    Kept(&'a [Compared], &'a encodings::EncodingParams),
    /// SMACOF left at its start, and the encodings measured already (under these parameters).
    DeferSmacof(&'a [Compared], &'a encodings::EncodingParams),
}

/// The encodings built (stage "encodings"), before their measures.
pub(super) struct Built {
    slots: Vec<Slot>,
    targets: Targets,
    /// SMACOF left to fit: its slot (holding the start) and its cap.
    deferred: Option<(usize, usize)>,
}

impl Built {
    /// The encodings still to measure, in order.
    pub(super) fn pending(&self) -> impl Iterator<Item = &Encoding> {
        self.slots.iter().filter_map(|s| match s {
            Slot::Pending(_, e) => Some(e),
            Slot::Ready(_) => None,
        })
    }

    /// The PMDS coordinates Procrustes aligns onto.
    pub(super) fn target_x(&self) -> &Points {
        &self.targets.x
    }

    /// D as the measures read it.
    pub(super) fn target_d(&self) -> &stress::Target {
        &self.targets.d
    }

    /// SMACOF's start and cap, while it is left to fit, with the part of the encodings stage
    /// it spans (its slot of the built encodings).
    pub(super) fn deferred(&self) -> Option<(&Points, usize, (f64, f64))> {
        let (slot, cap) = self.deferred?;
        let Slot::Pending(_, e) = &self.slots[slot] else { return None };
        let total = self.slots.len() as f64;
        Some((&e.points, cap, (slot as f64 / total, (slot + 1) as f64 / total)))
    }

    /// Puts SMACOF's fit in its slot.
    pub(super) fn set_smacof(&mut self, fit: crate::smacof::SmacofFit) {
        if let Some((slot, _)) = self.deferred.take() {
            if let Slot::Pending(_, e) = &mut self.slots[slot] {
                (e.points, e.iterations, e.stop) = (fit.points, fit.iterations, Some(fit.stop));
            }
        }
    }
}

/// The built-in encodings that do not read the spectrum ([`encodings::build_free`]), built
/// for n positions under `params`, with their report keys.
pub fn spectrum_free(n: usize, params: &encodings::EncodingParams) -> Result<Vec<(String, Encoding)>> {
    let built = EncodingKind::BUILT_IN.iter().filter_map(|&kind| encodings::build_free(kind, n, params));
    built.map(|e| e.map(|e| (e.kind.name().to_string(), e))).collect()
}

/// How many eigenvectors (those of λ_1 … λ_k) a run under `params` reads, given its
/// effective and energy ranks (r_τ, r_E) and n: PMDS and SMACOF's start (d capped at r_τ,
/// and their first [`crate::measures::procrustes::PROCRUSTES_DIMS`] as the alignments' target), PMDS-R
/// (its rank), the rank curve (r ≤ min(r_τ, 128)) and the map's three PMDS coordinates.
pub fn vectors_needed(params: &AnalysisParams, ranks: (usize, usize), n: usize) -> usize {
    let (pmds_dim, rank) = dims(params, ranks, n);
    let effective_rank = ranks.0;
    let curve = effective_rank.clamp(1, 128);
    pmds_dim.max(rank).max(curve).max(3.min(effective_rank.max(1))).min(n)
}

/// The dimensions the corpus-derived encodings read: PMDS's and SMACOF's (d capped at r_τ) and
/// PMDS-R's rank (given, else r_E; at most n).
fn dims(params: &AnalysisParams, (effective_rank, energy_rank): (usize, usize), n: usize) -> (usize, usize) {
    (params.encodings.d.min(effective_rank).max(1), params.encodings.rank.unwrap_or(energy_rank).min(n))
}

/// Builds every encoding (stage "encodings"); kept ones (live updates) are reused.
pub(super) fn build(
    distances: &DistanceMatrix,
    spectrum: &Spectrum,
    ranks: (usize, usize),
    params: &AnalysisParams,
    learned: &LearnedTables,
    (how, target): (Build<'_>, Option<stress::Target>),
    report: &mut dyn FnMut(Stage, f64) -> Result<()>,
) -> Result<Built> {
    let n = distances.n();
    let (pmds_dim, rank) = dims(params, ranks, n);
    let target = match target {
        Some(t) => t,
        None => stress::Target::new(distances)?,
    };
    let geometry = encodings::CorpusGeometry { distances, spectrum, pmds_dim, rank };
    let target_x = spectrum.coordinates(pmds_dim.min(crate::measures::procrustes::PROCRUSTES_DIMS));
    let target = Targets { d: target, x: target_x, n };
    let total = EncodingKind::BUILT_IN.len() + learned.len();
    let mut compared: Vec<Slot> = Vec::with_capacity(total);
    let mut cancelled = false;
    let mut deferred = None;
    let kept = match how {
        Build::Kept(c, p) | Build::DeferSmacof(c, p) => Some((c, p)),
        Build::Fresh => None,
    };
    for (k, &kind) in EncodingKind::BUILT_IN.iter().enumerate() {
        report(Stage::Encodings, k as f64 / total as f64)?;
        // An encoding whose own parameters did not change is the same configuration.
        let unchanged = kept.and_then(|(cs, old)| {
            let same = kind.same_config(old, &params.encodings);
            cs.iter().find(|c| c.encoding.kind == kind).filter(|_| same)
        });
        if let Some(c) = unchanged {
            // The same configuration against the same spectrum: its alignment stands unless
            // the PMDS target has other dimensions (d changed below 16).
            let mut c = c.clone();
            if c.procrustes.aligned.dim != target.x.dim {
                c.procrustes = crate::measures::procrustes::align(&target.x, &c.encoding.points);
            }
            compared.push(Slot::Ready(Box::new(c)));
            continue;
        }
        if kind == EncodingKind::Smacof && matches!(how, Build::DeferSmacof(..)) {
            let (points, parameters) = (spectrum.coordinates(pmds_dim), (n * params.encodings.d) as u64);
            let start = Encoding { kind, points, parameters, iterations: 0, stop: None };
            deferred = Some((compared.len(), params.encodings.smacof_max_iter));
            compared.push(Slot::Pending(kind.name().to_string(), start));
            continue;
        }
        let step = |f: f64| (k as f64 + f) / total as f64;
        let mut inner = |f: f64| cancelled |= report(Stage::Encodings, step(f)).is_err();
        let encoding = encodings::build(kind, n, &params.encodings, geometry, &mut inner)?;
        if cancelled {
            return Err(PosgeoError::Cancelled);
        }
        compared.push(Slot::Pending(kind.name().to_string(), encoding));
    }
    for (name, table) in learned {
        report(Stage::Encodings, compared.len() as f64 / total as f64)?;
        let encoding = encodings::learned(n, table).map_err(|e| match e {
            PosgeoError::BadMatrix(m) if learned.len() > 1 => PosgeoError::BadMatrix(format!("{name}: {m}")),
            other => other,
        })?;
        compared.push(Slot::Pending(learned_key(name, learned.len()), encoding));
    }
    Ok(Built { slots: compared, targets: target, deferred })
}

/// An encoding kept from the last run, or one still to measure.
enum Slot {
    Ready(Box<Compared>),
    Pending(String, Encoding),
}

/// Measures the pending encodings, [`crate::par::threads`] at a time (each on its own core
/// natively; an encoding's numbers do not depend on which), reporting the "stress" stage.
/// `given` are the measures of the first pending encodings, made elsewhere (the page's
/// helper workers, by [`measure_encodings`]).
pub(super) fn measure_all(
    built: Built,
    given: Vec<Measure>,
    report: &mut dyn FnMut(Stage, f64) -> Result<()>,
) -> Result<Vec<Compared>> {
    let Built { slots, targets, .. } = built;
    let total = slots.len().max(1) as f64;
    let mut given = given.into_iter();
    // Each slot's result: known (kept, or measured elsewhere), or `None`: the next of `todo`.
    let mut known: Vec<Option<Compared>> = Vec::with_capacity(slots.len());
    let mut todo: Vec<(String, Encoding)> = Vec::new();
    for slot in slots {
        known.push(match slot {
            Slot::Ready(c) => Some(*c),
            Slot::Pending(name, encoding) => match given.next() {
                Some((sketch, stress, procrustes)) => Some(Compared { name, encoding, sketch, stress, procrustes }),
                None => {
                    todo.push((name, encoding));
                    None
                }
            },
        });
    }
    let mut measured: Vec<Measure> = Vec::with_capacity(todo.len());
    for batch in todo.chunks(crate::par::threads().max(1)) {
        report(Stage::Stress, 0.5 * measured.len() as f64 / total)?;
        measured.extend(crate::par::map(batch.len(), |k| measure(&batch[k].1, &targets)));
    }
    // `measured` follows `todo`, and the empty slots of `known` take them in order.
    let mut measured = todo.into_iter().zip(measured).map(|((name, encoding), (sketch, stress, procrustes))| {
        Compared { name, encoding, sketch, stress, procrustes }
    });
    Ok(known.into_iter().filter_map(|k| k.or_else(|| measured.next())).collect())
}

/// What an analysis keeps of an encoding's measures: the charts' sketch of its δ, its stress
/// against D and its Procrustes alignment.
pub type Measure = (Sketch, stress::StressReport, crate::measures::procrustes::Alignment);

/// Measures `encodings` against D and the PMDS coordinates `x` (both over the encodings'
/// positions), sketching δ on the grid of the corpus's `n` positions — what the page's helper
/// workers do with their share of [`super::Staged::pending`]; the same numbers as measuring
/// them in the pipeline.
pub fn measure_encodings(d: &DistanceMatrix, x: &Points, n: usize, encodings: &[Encoding]) -> Result<Vec<Measure>> {
    Ok(measure_against(stress::Target::new(d)?, x.clone(), n, encodings))
}

/// [`measure_encodings`] against D already prepared ([`stress::Target`], what the page sends
/// its helper workers instead of D); the encodings on every core natively, in order.
pub fn measure_against(d: stress::Target, x: Points, n: usize, encodings: &[Encoding]) -> Vec<Measure> {
    let targets = Targets { d, x, n };
    crate::par::map(encodings.len(), |k| measure(&encodings[k], &targets))
}

/// What every encoding is compared with: D, the PMDS coordinates for Procrustes, and the
/// corpus's number of positions (the sketch's grid).
struct Targets {
    d: stress::Target,
    x: Points,
    n: usize,
}

/// An encoding's stress and Procrustes alignment, and the sketch of its δ. δ itself (n×n)
/// lives only while it is read.
fn measure(encoding: &Encoding, target: &Targets) -> Measure {
    let sketch = |delta: &DistanceMatrix, scale| Sketch::of(delta, target.d.upper(), target.n, scale);
    let (stress, sketch) = stress::stress_consuming(encoding.distances(), &target.d, sketch);
    let procrustes = crate::measures::procrustes::align(&target.x, &encoding.points);
    (sketch, stress, procrustes)
}
