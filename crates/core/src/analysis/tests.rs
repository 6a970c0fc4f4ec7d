//! Live updates (`Analysis::reencode`) against full runs.

use super::*;
use crate::demos::synth::{generate, SynthParams};

/// Re-encoding the kept geometry gives exactly the numbers of a whole new run.
#[test]
fn reencoding_equals_a_full_run() {
    let corpus =
        Corpus::from_sequences(generate(&SynthParams { sequences: 300, positions: 24, ..Default::default() }).unwrap());
    let mut p = AnalysisParams::default();
    p.encodings.d = 12;
    let first = analyze(&corpus, &p, &[], &mut |_| true).unwrap();
    p.encodings.slope = 0.125;
    p.encodings.base = 77.0;
    p.encodings.rank = Some(2);
    p.encodings.seed = 5;
    let table: Vec<Vec<f64>> = (0..30).map(|i| vec![i as f64, (i as f64).sqrt()]).collect();
    let live = first.reencode(&p, &[("t".to_string(), table.clone())], &mut |_| true).unwrap().report(true);
    let full = analyze(&corpus, &p, &[("t".to_string(), table.clone())], &mut |_| true).unwrap().report(true);
    assert_eq!(live, full);
    assert_ne!(live.encodings["alibi"], first.report(false).encodings["alibi"]);
    p.max_len = 10;
    assert!(first.reencode(&p, &[], &mut |_| true).is_err(), "a geometry option needs a full run");
}

/// Each encoding-only option alone: the live update (which reuses every encoding the
/// change does not touch) equals a full run.
#[test]
fn each_encoding_option_alone_reencodes_like_a_full_run() {
    use crate::options::{Affects, ANALYSIS};
    let corpus =
        Corpus::from_sequences(generate(&SynthParams { sequences: 200, positions: 20, ..Default::default() }).unwrap());
    let base = AnalysisParams {
        encodings: crate::encodings::EncodingParams { d: 6, ..Default::default() },
        ..Default::default()
    };
    let first = analyze(&corpus, &base, &[], &mut |_| true).unwrap();
    let values = [
        ("d", "9"),
        ("base", "50"),
        ("head_dim", "4"),
        ("slope", "2"),
        ("sigma", "0.3"),
        ("seed", "3"),
        ("smacof_iter", "2"),
        ("rank", "3"),
    ];
    let live: Vec<&str> = ANALYSIS.iter().filter(|o| o.affects == Affects::Encodings).map(|o| o.name).collect();
    assert_eq!(live, values.map(|v| v.0), "every encoding option is exercised");
    for (name, value) in values {
        let mut p = base.clone();
        ANALYSIS.iter().find(|o| o.name == name).unwrap().apply(&mut p, value).unwrap();
        let updated = first.reencode(&p, &[], &mut |_| true).unwrap().report(false);
        let full = analyze(&corpus, &p, &[], &mut |_| true).unwrap().report(false);
        assert_eq!(updated, full, "{name} = {value}");
    }
}

/// Encodings measured elsewhere (as the page's helper workers do, from what travels to
/// them) and the corpus side computed first give exactly the numbers of one run.
#[test]
fn measures_made_elsewhere_equal_the_pipelines() {
    let corpus =
        Corpus::from_sequences(generate(&SynthParams { sequences: 300, positions: 24, ..Default::default() }).unwrap());
    let mut p = AnalysisParams::default();
    p.encodings.d = 12;
    let table: Vec<Vec<f64>> = (0..30).map(|i| vec![i as f64, (i as f64).sqrt()]).collect();
    let learned = [("t".to_string(), table)];
    let whole_analysis = analyze(&corpus, &p, &learned, &mut |_| true).unwrap();
    let whole = whole_analysis.report(true);
    let counted = count_corpus(&corpus, &p, &mut |_| true).unwrap();
    for share in [0, 3, 100] {
        let mut staged = stage(&counted, p.examples(&corpus.sequences), &p, &learned, false, &mut |_| true).unwrap();
        assert_eq!(
            staged.pending().len(),
            crate::encodings::EncodingKind::BUILT_IN.len() + 1,
            "every encoding, the learned one too"
        );
        let (d, x) = staged.targets();
        let mine: Vec<Encoding> = staged.pending().into_iter().take(share).cloned().collect();
        // The trip: a copy of D's buffer, of x and of the encodings.
        let d = DistanceMatrix::from_row_major(d.n(), d.as_slice().to_vec());
        let given = measure_encodings(&d, &x.clone(), d.n(), &mine).unwrap();
        staged.corpus_side().unwrap();
        let finished = staged.finish(given, &mut |_| true).unwrap();
        assert_eq!(finished.report(true), whole, "{share} measured elsewhere");
        // The charts' sketches of δ too.
        let sketches = |a: &Analysis| a.compared.iter().map(|c| c.sketch.clone()).collect::<Vec<_>>();
        assert_eq!(sketches(&finished), sketches(&whole_analysis), "{share} measured elsewhere");
    }
}

/// SMACOF left for the caller (the page's helper workers fit it by blocks of rows): finishing
/// without fitting it gives the one run's report; fitting it by rows gives the same
/// iterations and stop, and the same numbers up to round-off, every other encoding unchanged.
#[test]
fn smacof_fitted_later_equals_the_pipelines() {
    let corpus =
        Corpus::from_sequences(generate(&SynthParams { sequences: 300, positions: 40, ..Default::default() }).unwrap());
    let mut p = AnalysisParams::default();
    p.encodings.d = 6;
    let whole = analyze(&corpus, &p, &[], &mut |_| true).unwrap();
    let counted = count_corpus(&corpus, &p, &mut |_| true).unwrap();
    let later = || stage(&counted, p.examples(&corpus.sequences), &p, &[], true, &mut |_| true).unwrap();
    let finished = later().finish(Vec::new(), &mut |_| true).unwrap();
    assert_eq!(finished.report(true), whole.report(true), "fitted by finish");
    let mut staged = later();
    let (start, d, cap, (from, to)) = staged.smacof().expect("SMACOF left to fit");
    assert!(from < to && to <= 1.0 && cap == p.encodings.smacof_max_iter);
    let fit = crate::smacof::smacof(start, d, cap, crate::smacof::SMACOF_TOL, &mut |_| {});
    staged.set_smacof(fit);
    assert!(staged.smacof().is_none(), "fitted once");
    let by_rows = staged.finish(Vec::new(), &mut |_| true).unwrap();
    for (a, b) in by_rows.compared.iter().zip(&whole.compared) {
        assert_eq!((a.encoding.iterations, a.encoding.stop), (b.encoding.iterations, b.encoding.stop), "{}", a.name);
        let gap = (a.stress.raw_stress - b.stress.raw_stress).abs();
        if a.name == "smacof" {
            assert!(a.encoding.iterations > 0 && gap < 1e-12, "smacof: σ differs by {gap}");
        } else {
            assert_eq!(a.stress, b.stress, "{}", a.name);
        }
    }
}

/// A 30-position synthetic corpus at d = 8: the corpus, its parameters, the one run's
/// analysis and its counts (what the tests of a run in parts compare with).
fn small_run() -> (Corpus, AnalysisParams, Analysis, CountsTable) {
    let corpus =
        Corpus::from_sequences(generate(&SynthParams { sequences: 200, positions: 30, ..Default::default() }).unwrap());
    let mut p = AnalysisParams::default();
    p.encodings.d = 8;
    let whole = analyze(&corpus, &p, &[], &mut |_| true).unwrap();
    let counted = count_corpus(&corpus, &p, &mut |_| true).unwrap();
    (corpus, p, whole, counted)
}

/// A spectrum computed elsewhere (the page's helper worker) and rebuilt from its parts gives
/// the one run's analysis; a spectrum of other positions is not taken.
#[test]
fn a_spectrum_given_from_elsewhere_equals_the_pipelines() {
    let (corpus, p, whole, counted) = small_run();
    let whole = whole.report(true);
    let geometry = || geometry(&counted, p.examples(&corpus.sequences), &p, &mut |_| true).unwrap();
    let g = geometry();
    let s = Spectrum::of_distances_keeping(g.distances(), |values| spectrum_keeps(&p, values)).unwrap();
    let travelled = Spectrum::from_parts(s.eigenvalues.clone(), s.vectors().to_vec()).expect("n values, n·k entries");
    assert_eq!(travelled, s);
    let given = g.stage(Some(travelled), &[], false, &mut |_| true).unwrap();
    assert_eq!(given.finish(Vec::new(), &mut |_| true).unwrap().report(true), whole, "spectrum given");
    let other = Spectrum::from_parts(vec![2.0, 1.0], vec![1.0, 0.0, 0.0, 1.0]).unwrap();
    let ignored = geometry().stage(Some(other), &[], false, &mut |_| true).unwrap();
    assert_eq!(ignored.finish(Vec::new(), &mut |_| true).unwrap().report(true), whole, "other n: computed here");
    assert!(Spectrum::from_parts(vec![1.0, 2.0], vec![1.0; 3]).is_none());
}

/// A run keeps the eigenvectors its encodings, rank curve and alignments read, fewer than n
/// when d and the ranks are small; a live update that reads more (a larger d, or PMDS-R's
/// rank) decomposes B again and equals a whole new run.
#[test]
fn a_run_keeps_the_eigenvectors_it_reads_and_a_wider_update_computes_more() {
    let corpus = Corpus::from_sequences(
        generate(&SynthParams { sequences: 300, positions: 200, ..Default::default() }).unwrap(),
    );
    let mut p = AnalysisParams::default();
    p.encodings.d = 4;
    p.encodings.rank = Some(3); // the rank curve reads min(r_τ, 128) vectors
    let first = analyze(&corpus, &p, &[], &mut |_| true).unwrap();
    let n = first.counts.n;
    let expected = compare::vectors_needed(&p, (first.effective_rank, first.energy_rank), n);
    assert_eq!(first.spectrum.kept(), expected);
    assert!(expected < n, "{expected} of {n}");
    assert!(expected >= 4.min(first.effective_rank).max(3.min(first.effective_rank)));
    assert!(first.effective_rank > expected + 10, "r_τ = {}", first.effective_rank);
    for (d, rank) in [(expected + 5, Some(3)), (4, Some(expected + 10))] {
        let mut wider = p.clone();
        wider.encodings.d = d;
        wider.encodings.rank = rank;
        let live = first.reencode(&wider, &[], &mut |_| true).unwrap();
        assert!(live.spectrum.kept() > first.spectrum.kept());
        let full = analyze(&corpus, &wider, &[], &mut |_| true).unwrap();
        assert_eq!(live.report(true), full.report(true), "d = {d}, rank = {rank:?}");
    }
}

/// The spectrum-free encodings measured before the spectrum exists (against no PMDS target,
/// as the page's helper does while another computes the spectrum) and given to the run: the
/// run aligns them and gives the one run's numbers, bit for bit, with SMACOF fitted here or
/// left for later, and with the spectrum computed by `stage` or before it (as the page's
/// worker does while a helper measures).
#[test]
fn encodings_measured_before_the_spectrum_give_the_one_runs_analysis() {
    let (corpus, p, whole, counted) = small_run();
    let whole = whole.report(true);
    for (later, before) in [(false, false), (true, false), (false, true), (true, true)] {
        let mut g = geometry(&counted, p.examples(&corpus.sequences), &p, &mut |_| true).unwrap();
        let free = g.spectrum_free().unwrap();
        let kinds: Vec<&str> = free.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(kinds, ["nope", "sinusoidal", "rope", "alibi", "random"]);
        let n = g.distances().n();
        let encodings: Vec<Encoding> = free.iter().map(|(_, e)| e.clone()).collect();
        let no_target = crate::points::Points { n, dim: 0, data: Vec::new() };
        let target = g.target().unwrap().clone();
        let measures = measure_against(target, no_target, n, &encodings);
        let measured = free
            .into_iter()
            .zip(measures)
            .map(|((name, encoding), (sketch, stress, procrustes))| {
                assert_eq!(procrustes.aligned.dim, 0);
                Compared { name, encoding, sketch, stress, procrustes }
            })
            .collect();
        g.give_measured(measured);
        let spectrum = before.then(|| g.spectrum().unwrap());
        let mut staged = g.stage(spectrum, &[], later, &mut |_| true).unwrap();
        assert_eq!(staged.pending().len(), 3, "pmds, pmds_r and smacof are left");
        if later {
            let (start, d, cap, _) = staged.smacof().unwrap();
            let fit = crate::smacof::smacof(start, d, cap, crate::smacof::SMACOF_TOL, &mut |_| {});
            staged.set_smacof(fit);
        }
        let report = staged.finish(Vec::new(), &mut |_| true).unwrap().report(true);
        assert_eq!(report, whole, "SMACOF later: {later}, spectrum before: {before}");
    }
}
