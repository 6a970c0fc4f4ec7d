//! Mathematical properties of the pipeline, on random corpora (proptest) and known cases.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used)] // tests may unwrap: a failure is the test failing

use posgeo::analysis::{analyze, Analysis, AnalysisParams};
use posgeo::corpus::tokenize::TokenizerKind;
use posgeo::encodings::{EncodingKind, EncodingParams};
use posgeo::mds::{double_centre, Spectrum};
use posgeo::{Corpus, Metric};
use proptest::prelude::*;

fn params(alpha: f64) -> AnalysisParams {
    AnalysisParams {
        tokenizer: TokenizerKind::Whitespace,
        min_support: 2,
        alpha,
        encodings: EncodingParams { d: 64, ..Default::default() },
        ..Default::default()
    }
}

fn run(lines: &[String], p: &AnalysisParams) -> Option<Analysis> {
    analyze(&Corpus::from_sequences(lines.iter().cloned()), p, &[], &mut |_| true).ok()
}

fn get(a: &Analysis, kind: EncodingKind) -> &posgeo::analysis::Compared {
    a.compared.iter().find(|c| c.encoding.kind == kind).expect("encoding present")
}

/// Random corpora: 4–40 lines of 1–12 tokens over a vocabulary of 2–9 types.
fn corpus() -> impl Strategy<Value = Vec<String>> {
    (2usize..10).prop_flat_map(|v| {
        prop::collection::vec(
            prop::collection::vec(0..v, 1..12)
                .prop_map(|toks| toks.iter().map(|t| format!("t{t}")).collect::<Vec<_>>().join(" ")),
            4..40,
        )
    })
}

/// Dense μ_i(w) for every token id, straight from the definition.
fn dense_mu(a: &Analysis) -> Vec<Vec<f64>> {
    let c = &a.counts;
    (0..c.n).map(|i| (0..c.vocab.len() as u32).map(|w| c.prob(i, w, a.params.alpha)).collect()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn hellinger_is_a_bounded_symmetric_matrix_equal_to_the_direct_formula(
        lines in corpus(), alpha in prop_oneof![Just(0.0), 0.01f64..2.0]
    ) {
        let Some(a) = run(&lines, &params(alpha)) else { return Ok(()) };
        let d = &a.distances;
        let mu = dense_mu(&a);
        for i in 0..d.n() {
            prop_assert_eq!(d.get(i, i), 0.0);
            for j in 0..d.n() {
                prop_assert_eq!(d.get(i, j), d.get(j, i));
                prop_assert!(d.get(i, j) >= 0.0 && d.get(i, j) <= 2f64.sqrt() + 1e-15);
                let direct: f64 = mu[i].iter().zip(&mu[j])
                    .map(|(p, q)| (p.sqrt() - q.sqrt()).powi(2)).sum::<f64>().sqrt();
                prop_assert!((d.get(i, j) - direct).abs() < 1e-9, "({}, {}) {} vs {}", i, j, d.get(i, j), direct);
            }
        }
    }

    #[test]
    fn chord_gram_is_psd_and_full_rank_pmds_has_zero_stress(lines in corpus()) {
        let Some(a) = run(&lines, &params(0.0)) else { return Ok(()) };
        let top = a.spectrum.eigenvalues[0];
        for &l in &a.spectrum.eigenvalues {
            prop_assert!(l >= -1e-10 * top.max(1.0), "negative eigenvalue {}", l);
        }
        let pmds = get(&a, EncodingKind::Pmds);
        if a.effective_rank <= a.params.encodings.d {
            prop_assert!(pmds.stress.raw_stress < 1e-10, "{}", pmds.stress.raw_stress);
        }
        let nope = get(&a, EncodingKind::Nope);
        prop_assert_eq!(nope.stress.raw_stress, 1.0);
        prop_assert_eq!(nope.stress.scaled_stress, 1.0);
        prop_assert_eq!(get(&a, EncodingKind::Alibi).stress.monotonicity_violation_rate.unwrap_or(0.0), 0.0);
        // SMACOF starts from PMDS and never makes raw stress worse.
        prop_assert!(get(&a, EncodingKind::Smacof).stress.raw_stress <= pmds.stress.raw_stress + 1e-12);
        // σ* ≤ σ always (a = 1 is a candidate).
        for c in &a.compared {
            prop_assert!(c.stress.scaled_stress <= c.stress.raw_stress + 1e-12);
        }
    }

    #[test]
    fn permuting_lines_changes_nothing(lines in corpus(), seed in 0u64..1000) {
        let p = params(0.0);
        let Some(a) = run(&lines, &p) else { return Ok(()) };
        let mut shuffled = lines.clone();
        // A deterministic permutation from the seed.
        let len = shuffled.len();
        for i in (1..len).rev() {
            let j = ((seed.wrapping_mul(6364136223846793005).wrapping_add((i as u64).wrapping_mul(1442695040888963407))) >> 33) as usize % (i + 1);
            shuffled.swap(i, j);
        }
        let b = run(&shuffled, &p).expect("same corpus, permuted");
        let (ra, rb) = (a.report(true), b.report(true));
        prop_assert_eq!(ra.n, rb.n);
        prop_assert_eq!(ra.vocab_size, rb.vocab_size);
        prop_assert_eq!(&ra.support, &rb.support);
        for (x, y) in a.distances.as_slice().iter().zip(b.distances.as_slice()) {
            prop_assert!((x - y).abs() < 1e-12);
        }
        for (x, y) in ra.eigenvalues.iter().zip(&rb.eigenvalues) {
            prop_assert!((x - y).abs() < 1e-10);
        }
        for (name, ea) in &ra.encodings {
            let eb = &rb.encodings[name];
            prop_assert!((ea.raw_stress - eb.raw_stress).abs() < 1e-8, "{} {} {}", name, ea.raw_stress, eb.raw_stress);
            prop_assert!((ea.scaled_stress - eb.scaled_stress).abs() < 1e-8);
        }
    }
}

#[test]
fn other_metrics_are_labelled_and_fisher_rao_is_an_arc() {
    let lines: Vec<String> = (0..30).map(|k| format!("a{} b{} c{}", k % 3, k % 4, k % 2)).collect();
    let mut p = params(0.0);
    let h = run(&lines, &p).unwrap();
    p.metric = Metric::FisherRao;
    let fr = run(&lines, &p).unwrap();
    for i in 0..h.distances.n() {
        for j in 0..h.distances.n() {
            let c = h.distances.get(i, j);
            // arc ≥ chord, and chord = 2 sin(arc/4)·2 … i.e. arc = 4 asin(c/2).
            assert!(fr.distances.get(i, j) >= c - 1e-15);
            assert!((fr.distances.get(i, j) - 4.0 * (c / 2.0).asin()).abs() < 1e-12);
        }
    }
    assert!(fr.report(true).matrix.contains_key("fisher_rao"));
}

#[test]
fn three_one_hot_distributions_at_d1() {
    // Positions 0, 1, 2 always hold a, b, c: μ_i are one-hot, D_ij = √2 for i ≠ j.
    let lines: Vec<String> = (0..5).map(|_| "a b c".to_string()).collect();
    let mut p = params(0.0);
    p.encodings.d = 1;
    let a = run(&lines, &p).unwrap();
    let pmds = get(&a, EncodingKind::Pmds);
    assert_eq!(pmds.encoding.points.dim, 1);
    assert!((pmds.stress.raw_stress - 1.0 / 6.0).abs() < 1e-12, "{}", pmds.stress.raw_stress);
    assert!((pmds.stress.scaled_stress - 1.0 / 9.0).abs() < 1e-12, "{}", pmds.stress.scaled_stress);
    assert!((pmds.stress.scale - 4.0 / 3.0).abs() < 1e-12);
}

#[test]
fn b_is_the_centred_gram_matrix_of_sqrt_mu() {
    let lines: Vec<String> = (0..40).map(|k| format!("x{} y{} z{} x{}", k % 5, k % 3, k % 7, k % 2)).collect();
    let a = run(&lines, &params(0.0)).unwrap();
    let mu = dense_mu(&a);
    let n = mu.len();
    let v = mu[0].len();
    let mean: Vec<f64> = (0..v).map(|w| mu.iter().map(|r| r[w].sqrt()).sum::<f64>() / n as f64).collect();
    let b = double_centre(&a.distances);
    for i in 0..n {
        for j in 0..n {
            let g: f64 = (0..v).map(|w| (mu[i][w].sqrt() - mean[w]) * (mu[j][w].sqrt() - mean[w])).sum();
            assert!((b[(i, j)] - g).abs() < 1e-12);
        }
    }
    let s = Spectrum::of_symmetric(&b).unwrap();
    assert!(s.eigenvalues.iter().all(|&l| l > -1e-12));
}

#[test]
fn degenerate_inputs_give_errors_not_panics() {
    let same: Vec<String> = (0..10).map(|_| "a a a".to_string()).collect();
    let e = run(&same, &params(0.0));
    assert!(e.is_none());
    let err = analyze(&Corpus::from_sequences(same), &params(0.0), &[], &mut |_| true).unwrap_err();
    assert_eq!(err, posgeo::PosgeoError::NoGeometry);
    let short: Vec<String> = (0..10).map(|_| "a".to_string()).collect();
    let err = analyze(&Corpus::from_sequences(short), &params(0.0), &[], &mut |_| true).unwrap_err();
    assert!(matches!(err, posgeo::PosgeoError::TooFewPositions { .. }));
    let lines: Vec<String> = (0..10).map(|k| format!("a{} b", k % 2)).collect();
    let err = analyze(&Corpus::from_sequences(lines), &params(0.0), &[], &mut |_| false).unwrap_err();
    assert_eq!(err, posgeo::PosgeoError::Cancelled);
}
