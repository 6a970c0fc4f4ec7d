use super::*;
use crate::protocol::{run, Request, Source};
use posgeo::analysis::AnalysisParams;

fn payload(text: &str) -> Payload {
    let params = AnalysisParams {
        min_support: 2,
        encodings: posgeo::encodings::EncodingParams { d: 16, ..Default::default() },
        ..Default::default()
    };
    let req = Request {
        id: 1,
        source: Source::Bytes { name: String::new(), format: posgeo::corpus::InputFormat::Text, lossy: false },
        params,
        learned: None,
        reuse_geometry: false,
        model: None,
        tokenizer: None,
    };
    run(&req, text.as_bytes(), &[], &mut |_| {}).expect("a small run succeeds")
}

fn corpus() -> String {
    let words = ["the", "a", "cat", "dog", "sat", "ran", "on", "mat", "far", "away", "and", "then"];
    (0..60)
        .map(|s| (0..9).map(|i| words[(i * 3 + s % (i + 2)) % words.len()]).collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n")
}

fn text(blocks: &[Block]) -> String {
    blocks
        .iter()
        .map(|b| match b {
            Block::Text(t) => t.clone(),
            Block::Grid(h, rows) => format!("{h:?} {rows:?}"),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn hashes_and_keys() {
    assert_eq!(parse_hash("#lecture"), Some(1));
    assert_eq!(parse_hash("#lecture/4"), Some(4));
    assert_eq!(parse_hash("lecture/99"), Some(STEPS.len()));
    assert_eq!(parse_hash("#lecture/0"), Some(1));
    assert_eq!(parse_hash("#lecture/x"), Some(1));
    assert_eq!(parse_hash("#lectures"), None);
    assert_eq!(parse_hash(""), None);
    assert_eq!(parse_hash("#top"), None);
    assert_eq!(parse_hash(&hash(7)), Some(7));
    assert_eq!(after_key(1, "ArrowRight"), Some(2));
    assert_eq!(after_key(1, "PageDown"), Some(2));
    assert_eq!(after_key(1, " "), Some(2));
    assert_eq!(after_key(STEPS.len(), "PageDown"), Some(STEPS.len()));
    assert_eq!(after_key(3, "ArrowLeft"), Some(2));
    assert_eq!(after_key(1, "PageUp"), Some(1));
    assert_eq!(after_key(5, "End"), Some(STEPS.len()));
    assert_eq!(after_key(5, "a"), None);
}

#[test]
fn at_least_eight_steps_each_with_a_title_and_content() {
    assert!(STEPS.len() >= 8);
    let p = payload(&corpus());
    for n in 1..=STEPS.len() {
        assert!(STEPS[n - 1].title.starts_with(&format!("{n}. ")));
        assert!(!text(&content(n, &p, &View::default(), None)).is_empty(), "step {n} is empty");
    }
}

#[test]
fn step_one_shows_the_first_sequences_token_by_token() {
    let c = corpus();
    let p = payload(&c);
    let Some(Block::Grid(head, rows)) = content(1, &p, &View::default(), None).into_iter().nth(1) else {
        panic!("no grid")
    };
    assert_eq!(head.len(), 9);
    for (row, line) in rows.iter().zip(c.lines()) {
        // The corpus is lowercase ASCII words separated by single spaces.
        let expected: Vec<String> = line.split(' ').map(str::to_string).collect();
        assert_eq!(row, &expected);
    }
    assert_eq!(rows.len(), posgeo::analysis::EXAMPLE_SEQUENCES);
}

#[test]
fn step_two_shares_are_counts_over_support() {
    let c = corpus();
    let p = payload(&c);
    let Some(Block::Grid(_, rows)) = content(2, &p, &View::default(), None).into_iter().nth(1) else {
        panic!("no grid")
    };
    // Position 0 counted independently: the most frequent first word and its share.
    let firsts: Vec<&str> = c.lines().filter_map(|l| l.split(' ').next()).collect();
    let mut best = ("", 0usize);
    for w in &firsts {
        let k = firsts.iter().filter(|x| *x == w).count();
        if k > best.1 {
            best = (w, k);
        }
    }
    let expected = format!("{} {:.1}%", best.0, 100.0 * best.1 as f64 / firsts.len() as f64);
    assert_eq!(rows[0][0], "position 0");
    assert_eq!(rows[0][1], expected);
    assert_eq!(shown_positions(10), vec![0, 1, 5, 9]);
    assert_eq!(shown_positions(2), vec![0, 1]);
    assert_eq!(shown_positions(1), vec![0]);
}

#[test]
fn the_low_rank_step_counts_parameters_as_r_times_n_plus_d() {
    let p = payload(&corpus());
    let r = &p.report;
    let rank = r.encodings["pmds_r"].dim;
    let t = text(&content(8, &p, &View::default(), None));
    let (n, d) = (r.n, r.params.encodings.d);
    assert!(t.contains(&format!("r = {rank}")), "{t}");
    assert!(t.contains(&format!("r(n + d) = {}", rank * (n + d))), "{t}");
    assert!(t.contains(&format!("n·d = {}", n * d)), "{t}");
    let spectrum = text(&content(4, &p, &View::default(), None));
    assert!(spectrum.contains(&format!("r_τ = {}", r.effective_rank)), "{spectrum}");
}

#[test]
fn the_last_step_shows_one_sixth_against_one_ninth_and_this_corpus_smacof() {
    let p = payload(&corpus());
    let t = text(&content(10, &p, &View::default(), None));
    assert!(t.contains("0.1667 = 1/6") && t.contains("0.1111 = 1/9"), "{t}");
    let smacof = fmt_number(Some(p.report.encodings["smacof"].raw_stress));
    assert!(t.contains(&format!("SMACOF σ = {smacof}")), "{t}");
}

#[test]
fn the_geometry_step_follows_the_picked_encoding() {
    let p = payload(&corpus());
    let view = View { shepard: Some("alibi".into()), ..View::default() };
    let t = text(&content(6, &p, &view, None));
    assert!(t.contains("alibi: scale-optimal stress σ* = "), "{t}");
    assert!(t.contains(&fmt_number(Some(p.report.encodings["alibi"].scaled_stress))), "{t}");
}

#[test]
fn step_twelve_reports_this_runs_per_layer_numbers() {
    let mut p = payload(&corpus());
    assert!(text(&content(12, &p, &View::default(), None)).contains("Choose a model"));
    let measures = [(0.2, 3.0), (0.45, 2.0), (0.3, 1.5)]
        .iter()
        .enumerate()
        .map(|(l, &(s, d))| posgeo::analysis::layers::LayerMeasures {
            layer: l,
            positional_share: s,
            effective_dimension: d,
            principal: vec![vec![0.0, 1.0], vec![1.0, 0.0]],
        })
        .collect();
    p.report.layers = Some(posgeo::analysis::LayersInfo {
        skip: 1,
        measures,
        model_type: "llama".into(),
        num_layers: 2,
        hidden_size: 8,
        sequences_used: 10,
        positions: 3,
        cut: 64,
    });
    let t = text(&content(12, &p, &View::default(), None));
    assert!(t.contains("This decoder (llama"), "{t}");
    assert!(t.contains("peaks at layer 1 (0.4500)"), "{t}");
    assert!(t.contains("shrinks with depth: 3.0000 at layer 0, 1.5000 at the last layer"), "{t}");
}

#[test]
fn the_training_steps_say_how_to_train_until_the_learn_panel_has() {
    let p = payload(&corpus());
    for n in [13, 14] {
        let t = text(&content(n, &p, &View::default(), None));
        assert!(t.contains("No training yet") && t.contains("press Train"), "step {n}: {t}");
    }
}

#[test]
fn the_training_steps_report_the_last_trainings_numbers() {
    let p = payload(&corpus());
    let e = crate::view::learn::tests::experiment();
    let t = text(&content(13, &p, &View::default(), Some(&e)));
    let learned: Vec<&posgeo_learn::Run> = e.runs.iter().filter(|r| r.signal.trainable()).collect();
    let at = |r: &posgeo_learn::Run, last: bool| {
        let rec = if last { r.records.last() } else { r.records.first() };
        rec.and_then(|x| x.table.clone()).unwrap()
    };
    let mean = |last: bool, f: fn(&posgeo_learn::TableMeasures) -> f64| {
        learned.iter().map(|r| f(&at(r, last))).sum::<f64>() / learned.len() as f64
    };
    for v in [mean(false, |t| t.separation), mean(true, |t| t.separation), mean(true, |t| t.scaled_stress)] {
        assert!(t.contains(&num(v)), "{} is reported: {t}", num(v));
    }
    assert!(t.contains("learned: the separation") && t.contains(&format!("step {}", e.params.steps)), "{t}");
    assert!(t.contains(&format!("{} training and {} held-out", e.train_sequences, e.held_sequences)), "{t}");
    let t = text(&content(14, &p, &View::default(), Some(&e)));
    let rho = e.finding.rho.expect("three signals give ρ");
    assert!(t.contains(&format!("over these 3 signals is {}", num(rho))), "{t}");
    assert!(t.contains(&e.finding.sentence), "{t}");
    for s in &e.signals {
        assert!(t.contains(&format!("{} σ* {}", s.signal.name(), num(s.scaled_stress.unwrap()))), "{t}");
    }
}

/// Each training claim links to the lecture step that explains it, by the step's own title.
#[test]
fn the_training_claims_link_to_the_steps_they_name() {
    use posgeo_learn::claims::{STEP_LOSS, STEP_SEPARATION};
    assert_eq!(STEPS[STEP_SEPARATION - 1].title, "13. Training separates positions");
    assert_eq!(STEPS[STEP_LOSS - 1].title, "14. Does lower stress mean lower loss?");
    assert_eq!(SCATTER_STEP.0, STEP_LOSS, "the scatter is drawn on the loss step");
    let step = STEPS[posgeo::report::STEP_BIOLOGY - 1].title;
    assert_eq!(step, "15. Language and biology: where the sinusoids stop fitting");
}

/// The biology step: each corpus's row once it has run, its numbers, and what is missing.
#[test]
fn the_biology_step_sets_the_two_corpora_side_by_side() {
    let mut view = View::default();
    let t = text(&content(15, &payload(&corpus()), &view, None));
    assert!(t.contains("No run on English yet") && t.contains("No run on the proteins yet"), "{t}");
    let p = std::rc::Rc::new(payload(&corpus()));
    view.corpora.proteins = Some(p.clone());
    let t = text(&content(15, &p, &view, None));
    let r = &p.report;
    let band = r.random_band.as_ref().unwrap().scaled_stress;
    for v in [r.encodings["sinusoidal"].scaled_stress, band.min, band.max] {
        assert!(t.contains(&num(v)), "{} shown: {t}", num(v));
    }
    assert!(t.contains("No run on English yet") && !t.contains("No run on the proteins"), "{t}");
    assert!(t.contains("Proteins: the sinusoids' σ*"), "{t}");
    assert_eq!(super::biology::payload_of(&view.corpora, 4), Some(&*p));
    assert_eq!(super::biology::payload_of(&view.corpora, 1), None);
}

/// README counts the lecture's steps as the code has them.
#[test]
fn the_readme_counts_the_steps() {
    let readme = include_str!("../../../../../README.md");
    let said = format!("{} steps tell the paper's argument", STEPS.len());
    assert!(readme.contains(&said), "README.md should say \"{said}\"");
}
