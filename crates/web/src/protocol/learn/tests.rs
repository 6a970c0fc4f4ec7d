use super::*;
use posgeo::analysis::analyze_table;
use posgeo::analysis::AnalysisParams;
use posgeo::demos::synth::{generate, SynthParams};
use posgeo_learn::{Record, Signal, TableMeasures};

/// `posgeo synth --positions 12 --vocab 40 --sequences 300`, as text.
fn corpus() -> String {
    let p = SynthParams { positions: 12, vocab: 40, sequences: 300, ..Default::default() };
    generate(&p).unwrap().join("\n") + "\n"
}

/// The options of the end-to-end test: 20 steps, d 16, 2 heads, batch 8, three signals.
fn small() -> LearnParams {
    LearnParams {
        signals: vec![Signal::Nope, Signal::Sinusoidal, Signal::Learned],
        steps: 20,
        every: 10,
        d_model: 16,
        heads: 2,
        batch: 8,
        ..LearnParams::default()
    }
}

fn pasted(id: u32, learn: LearnParams) -> LearnRequest {
    let source = Source::Bytes { name: String::new(), format: InputFormat::Text, lossy: false };
    let corpus = Request {
        id,
        source,
        params: AnalysisParams::default(),
        learned: None,
        tokenizer: None,
        model: None,
        reuse_geometry: false,
    };
    LearnRequest { id, corpus, learn, jobs: Vec::new(), diverge: None }
}

/// What `posgeo train` does (crates/cli/src/train.rs), step for step, on the same text.
fn as_the_cli_trains(text: &str, learn: &LearnParams) -> Experiment {
    let mut params = AnalysisParams::default();
    params.encodings.smacof_max_iter = 0;
    let mut stream = SequenceStream::new(text.as_bytes(), &InputFormat::Text, false).unwrap();
    let s = count_stream(&mut stream, &params.tokenizer(), params.max_len, usize::MAX, &mut || true).unwrap();
    let analysis = analyze_table(&s.table, Vec::new(), &params, &[], &mut |_| true).unwrap();
    let tokenizer = params.tokenizer();
    let seqs: Vec<Vec<String>> = s.first.iter().map(|l| tokenizer.tokens(l, params.max_len)).collect();
    let ctx = Context::new(&seqs, &analysis, learn).unwrap();
    let runs = learn::run_all(&ctx, false, &|_| true).into_iter().map(|(r, _)| r).collect();
    learn::summarise(&ctx, runs).unwrap()
}

#[test]
fn the_page_job_gives_the_experiment_of_posgeo_train_and_posts_each_run() {
    let text = corpus();
    let files = Files { corpus: text.as_bytes(), ..Files::default() };
    let (mut fractions, mut posted) = (Vec::new(), Vec::new());
    let page = run(&pasted(4, small()), files, &mut |r| match r {
        LearnResponse::Progress { id, fraction, runs, .. } => {
            assert_eq!(id, 4);
            fractions.push(fraction);
            posted.extend(runs);
        }
        other => panic!("only progress is posted on the way: {other:?}"),
    })
    .unwrap();
    assert_eq!(page, as_the_cli_trains(&text, &small()), "the same numbers, bit for bit");
    // Each run is posted after each of its records (the live curves), then once done: its last
    // post is the run, and every earlier one holds a prefix of its records.
    let mut last: Vec<Run> = Vec::new();
    for run in &posted {
        match last.iter_mut().find(|r| (r.signal, r.seed) == (run.signal, run.seed)) {
            Some(shown) => {
                assert!(run.records.starts_with(&shown.records[..shown.records.len().min(run.records.len())]));
                *shown = run.clone();
            }
            None => last.push(run.clone()),
        }
    }
    assert_eq!(last, page.runs, "every run is posted with all its records, in order");
    assert!(posted.len() > page.runs.len(), "runs are posted as they learn, not only when done");
    assert!(fractions.windows(2).all(|w| w[0] <= w[1]), "progress only grows");
    assert!(fractions.first() == Some(&0.0) && (fractions.last().unwrap() - 1.0).abs() < 1e-12);
    assert_eq!(page.signals.len(), 3);
    assert!(page.runs.iter().all(|r| r.error.is_none() && r.records.len() == 3), "steps 0, 10, 20");
}

/// The fault the end-to-end tests ask for: the learned table's run diverges after
/// [`DIVERGE_AT`] steps and keeps its records and losses up to there; the other signals
/// finish as they would have, and the finding leaves the diverged run out.
#[test]
fn a_run_asked_to_diverge_keeps_its_curve_and_the_others_finish() {
    let text = corpus();
    let files = || Files { corpus: text.as_bytes(), ..Files::default() };
    let whole = run(&pasted(1, small()), files(), &mut |_| {}).unwrap();
    let req = LearnRequest { diverge: Some(Signal::Learned), ..pasted(1, small()) };
    let e = run(&req, files(), &mut |_| {}).unwrap();
    assert_eq!(e.runs.len(), 3);
    for (run, full) in e.runs.iter().zip(&whole.runs) {
        if run.signal != Signal::Learned {
            assert_eq!(run, full, "{} finishes as without the fault", run.signal.name());
            continue;
        }
        let error = run.error.as_deref().unwrap_or("");
        assert!(error.contains(&format!("learned (seed 1) diverged at step {DIVERGE_AT}")), "{error}");
        assert_eq!(run.train_loss.len(), DIVERGE_AT + 1);
        assert_eq!(run.train_loss[..DIVERGE_AT], full.train_loss[..DIVERGE_AT], "the curve up to the failure");
        assert!(run.train_loss[DIVERGE_AT].is_nan());
        assert_eq!(run.records, full.records[..2], "steps 0 and 10 kept");
    }
    let kept: Vec<Signal> = e.signals.iter().map(|s| s.signal).collect();
    assert_eq!(kept, [Signal::Nope, Signal::Sinusoidal]);
}

#[test]
fn the_built_in_corpora_train_too() {
    let synth = SynthParams { positions: 10, vocab: 30, sequences: 120, ..Default::default() };
    let mut req = pasted(1, LearnParams { steps: 2, every: 1, signals: vec![Signal::Alibi], ..small() });
    req.corpus.source = Source::Synthetic(synth.clone());
    let e = run(&req, Files::default(), &mut |_| {}).unwrap();
    let text = generate(&synth).unwrap().join("\n");
    assert_eq!(e, as_the_cli_trains(&text, &req.learn), "as `posgeo synth | posgeo train -`");
    req.corpus.source = Source::Genesis;
    req.corpus.params.max_len = 8;
    assert_eq!(run(&req, Files::default(), &mut |_| {}).unwrap().n, 8);
}

#[test]
fn bad_options_and_a_counts_table_are_refused_with_a_message() {
    let text = corpus();
    let files = || Files { corpus: text.as_bytes(), ..Files::default() };
    let bad = LearnParams { d_model: 18, heads: 4, ..small() };
    let e = run(&pasted(1, bad), files(), &mut |_| {}).unwrap_err().to_string();
    assert!(e.contains("d_model") && e.contains("heads"), "{e}");
    let mut req = pasted(2, small());
    req.corpus.params.alpha = -1.0;
    assert!(run(&req, files(), &mut |_| {}).unwrap_err().to_string().contains("alpha"));
    let table = "position,token,count\n0,a,3\n1,b,2\n";
    let e = run(&pasted(3, small()), Files { corpus: table.as_bytes(), ..Files::default() }, &mut |_| {});
    assert!(e.unwrap_err().to_string().contains("counts table has none"));
    let e = run(&pasted(4, small()), Files { corpus: b"one line\n", ..Files::default() }, &mut |_| {});
    assert!(e.is_err(), "too few sequences to hold any out");
}

/// The answers travel as postcard: every f64 comes back with its bits, NaN and ±∞ included
/// (JSON would turn them into `null` and fail to read them back).
#[test]
fn answers_round_trip_bit_for_bit_with_nan_and_infinities() {
    let table = TableMeasures {
        scaled_stress: f64::NAN,
        spearman: Some(f64::NEG_INFINITY),
        monotonicity: None,
        separation: 0.1 + 0.2,
        map: vec![[f64::NAN, -0.0], [1e-308, f64::INFINITY]],
    };
    let record = Record {
        step: 3,
        train_loss: Some(f64::NAN),
        held_loss: f64::INFINITY,
        held_accuracy: 0.5,
        table: Some(table),
    };
    let run = Run {
        signal: Signal::LearnedPmds,
        seed: 2,
        records: vec![record],
        train_loss: vec![f64::NAN, 1.0 / 3.0],
        lr: vec![3e-3],
        error: Some("diverged".into()),
        table: None,
    };
    let text = corpus();
    let files = Files { corpus: text.as_bytes(), ..Files::default() };
    let mut experiment = run_small(files);
    experiment.finding.rho = Some(f64::NAN);
    experiment.signals[0].held_loss_range = [f64::INFINITY, f64::NEG_INFINITY];
    experiment.runs.push(run.clone());
    // The final position table stays in the worker (`#[serde(skip)]`).
    experiment.runs.iter_mut().for_each(|r| r.table = None);
    let bits = |r: &LearnResponse| r.to_bytes().unwrap();
    for message in [
        LearnResponse::Progress { id: 1, fraction: 0.25, text: "training".into(), runs: vec![run] },
        LearnResponse::Done { id: 2, experiment: Box::new(experiment) },
        LearnResponse::Error { id: 3, message: "no".into() },
    ] {
        let back = LearnResponse::from_bytes(&message.to_bytes().unwrap()).unwrap();
        assert_eq!(bits(&back), bits(&message));
        assert_eq!(format!("{back:?}"), format!("{message:?}"), "NaN, -0.0 and ±∞ as they were");
    }
    assert!(LearnResponse::from_bytes(&[0xff, 0xff]).is_err());
}

fn run_small(files: Files<'_>) -> Experiment {
    run(&pasted(1, LearnParams { steps: 2, every: 1, ..small() }), files, &mut |_| {}).unwrap()
}

#[test]
fn a_training_spread_over_workers_gives_one_workers_experiment() {
    let text = corpus();
    let whole = run(&pasted(2, small()), Files { corpus: text.as_bytes(), ..Files::default() }, &mut |_| {}).unwrap();
    // Two workers: one signal for one, two for the other (a signal each where possible).
    let parts = [vec![(Signal::Learned, 1)], vec![(Signal::Nope, 1), (Signal::Sinusoidal, 1)]];
    let (mut runs, mut ctx) = (Vec::new(), None);
    for jobs in parts {
        let req = LearnRequest { jobs: jobs.clone(), ..pasted(2, small()) };
        let mut trained = Vec::new();
        let files = Files { corpus: text.as_bytes(), ..Files::default() };
        ctx = Some(
            run_part(&req, files, &mut |r| {
                if let LearnResponse::Trained { id, runs } = r {
                    assert_eq!(id, 2);
                    trained = runs;
                }
            })
            .unwrap(),
        );
        let order: Vec<_> = trained.iter().map(|r| (r.signal, r.seed)).collect();
        assert_eq!(order, jobs, "a worker answers the runs it was asked, in order");
        runs.extend(trained);
    }
    let merged = summarise(&ctx.unwrap(), runs).unwrap();
    assert_eq!(merged, whole, "the same experiment, runs in posgeo train's order, bit for bit");
}

/// A run that records at every step posts at most one record a [`RECORD_EVERY`] of the
/// training (and its first and last), so a fast trainer does not flood the page.
#[test]
fn records_reach_the_page_at_a_bounded_rate() {
    let text = corpus();
    let files = Files { corpus: text.as_bytes(), ..Files::default() };
    let learn = LearnParams { steps: 1200, every: 1, signals: vec![Signal::Nope], ..small() };
    let mut with_runs = 0;
    let page = run(&pasted(2, learn), files, &mut |r| {
        if let LearnResponse::Progress { runs, .. } = r {
            with_runs += usize::from(!runs.is_empty());
        }
    })
    .unwrap();
    assert_eq!(page.runs[0].records.len(), 1201, "every step recorded");
    let most = (1.0 / super::RECORD_EVERY) as usize + 2;
    assert!(with_runs >= 10 && with_runs <= most, "{with_runs} posts with a run, at most {most}");
}

/// A training request travels as postcard bytes and comes back equal, its options, parts and
/// fault included; one cut short is refused with its id.
#[test]
fn a_training_request_round_trips() {
    let req = LearnRequest {
        jobs: vec![(Signal::Learned, 2), (Signal::Nope, 1)],
        diverge: Some(Signal::Learned),
        ..pasted(9, LearnParams { seeds: 3, lr: 2.5e-3, ..small() })
    };
    let bytes = crate::protocol::encode_request(&req);
    assert_eq!(crate::protocol::decode_request::<LearnRequest>(&bytes), Ok(req));
    assert_eq!(crate::protocol::decode_request::<LearnRequest>(&bytes[..bytes.len() / 2]).unwrap_err().id, 9);
}
