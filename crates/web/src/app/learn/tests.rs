//! The Learn panel's rules without a browser, driven through `update` as the DOM layer drives
//! it (the worker's side is the real job, `protocol::learn::run`).

use super::super::{update, Msg, SourceKind};
use super::*;
use crate::protocol::Files;
use crate::url::PageState;
use posgeo::learn::Signal;

fn corpus_text() -> String {
    let p = posgeo::demos::synth::SynthParams { positions: 10, vocab: 30, sequences: 150, ..Default::default() };
    posgeo::demos::synth::generate(&p).unwrap().join("\n")
}

/// The page with a pasted corpus and small options (nope, sinusoidal, learned; 4 steps).
fn form() -> Form {
    let mut f = Form::from_state(&PageState::default());
    f.source = SourceKind::Paste;
    f.paste = corpus_text();
    for (id, v) in [
        ("learn-signals", "nope,sinusoidal,learned"),
        ("learn-steps", "4"),
        ("learn-every", "2"),
        ("learn-d_model", "8"),
        ("learn-heads", "2"),
        ("learn-batch", "8"),
    ] {
        f.values.insert(id, v.into());
    }
    f
}

fn started() -> Model {
    let mut m = Model::default();
    update(&mut m, Msg::Start(Box::default()));
    m
}

fn learn(m: &mut Model, msg: LearnMsg) -> Vec<LearnEffect> {
    update(m, Msg::Learn(msg))
        .into_iter()
        .filter_map(|e| if let Effect::Learn(l) = e { Some(l) } else { None })
        .collect()
}

fn status(fx: &[LearnEffect]) -> Option<(Status, String)> {
    fx.iter().rev().find_map(|e| if let LearnEffect::Status(s, t) = e { Some((*s, t.clone())) } else { None })
}

fn train(m: &mut Model, at: f64) -> LearnJob {
    let fx = learn(m, LearnMsg::Train { form: form(), at });
    assert!(fx.contains(&LearnEffect::StartWorker) && fx.contains(&LearnEffect::CancelEnabled(true)), "{fx:?}");
    assert_eq!(status(&fx).map(|s| s.0), Some(Status::Running));
    let fx = learn(m, LearnMsg::WorkerReady);
    match &fx[..] {
        [LearnEffect::Post(job)] => (**job).clone(),
        other => panic!("the job is posted once its worker is up: {other:?}"),
    }
}

/// Runs the job for real and hands every message to the page, as the worker would.
fn answer(m: &mut Model, job: &LearnJob) -> Vec<LearnEffect> {
    let CorpusData::Text(text) = &job.corpus else { panic!("the pasted text travels") };
    let mut messages = Vec::new();
    let files = Files { corpus: text.as_bytes(), ..Files::default() };
    let e = crate::protocol::learn::run(&job.request, files, &mut |r| messages.push(r)).unwrap();
    messages.push(LearnResponse::Done { id: job.request.id, experiment: Box::new(e) });
    let mut all = Vec::new();
    for (k, response) in messages.into_iter().enumerate() {
        all.extend(learn(m, LearnMsg::Worker { response, at: 1000.0 + k as f64 }));
    }
    all
}

#[test]
fn train_posts_the_forms_corpus_shows_each_run_as_it_ends_then_the_results() {
    let mut m = started();
    let job = train(&mut m, 0.0);
    assert_eq!(job.corpus, CorpusData::Text(corpus_text()));
    assert_eq!(job.request.learn.signals, [Signal::Nope, Signal::Sinusoidal, Signal::Learned]);
    assert_eq!((job.request.learn.steps, job.request.corpus.params.max_len), (4, 512));
    assert!(!job.tokenizer && !job.model && job.request.corpus.learned.is_none());
    assert!(m.link().contains("learn_steps=4"), "the panel's options are in the link: {}", m.link());
    assert!(m.learning.shown().training && m.learning.shown().runs.is_empty());
    let fx = answer(&mut m, &job);
    let draws = fx.iter().filter(|e| **e == LearnEffect::Draw).count();
    assert!(draws > 3, "the charts follow each run as it learns ({draws} draws for 3 runs)");
    assert!(fx.contains(&LearnEffect::Render) && fx.contains(&LearnEffect::StopWorker));
    let (state, text) = status(&fx).unwrap();
    assert_eq!(state, Status::Done);
    assert!(text.contains("trained in") && text.contains("3 runs of 4 steps"), "{text}");
    let e = m.learning.results.clone().unwrap();
    assert_eq!(e.runs.len(), 3);
    let shown = m.learning.shown();
    assert!(!shown.training && shown.runs == e.runs && shown.experiment.is_some());
    assert!(!m.learning.is_running());
}

#[test]
fn cancel_keeps_the_last_results_and_a_late_answer_changes_nothing() {
    let mut m = started();
    let first = train(&mut m, 0.0);
    answer(&mut m, &first);
    let kept = m.learning.results.clone();
    let second = train(&mut m, 5000.0);
    let fx = learn(&mut m, LearnMsg::Cancel);
    assert!(fx.contains(&LearnEffect::StopWorker) && fx.contains(&LearnEffect::CancelEnabled(false)));
    assert_eq!(status(&fx), Some((Status::Idle, "cancelled — the last results are kept".into())));
    assert!(fx.contains(&LearnEffect::Draw), "the charts go back to the last results");
    assert_eq!(m.learning.results, kept);
    assert!(!m.learning.shown().training);
    // The cancelled worker's messages, should any arrive, are ignored.
    assert!(answer(&mut m, &second).is_empty());
    assert_eq!(m.learning.results, kept);
    assert_eq!(learn(&mut m, LearnMsg::Cancel), [LearnEffect::CancelEnabled(false)], "nothing to cancel");
}

#[test]
fn a_run_posted_again_replaces_the_one_shown() {
    let mut m = started();
    let job = train(&mut m, 0.0);
    let e = crate::protocol::learn::run(
        &job.request,
        Files { corpus: corpus_text().as_bytes(), ..Files::default() },
        &mut |_| {},
    )
    .unwrap();
    let full = e.runs[0].clone();
    let partial = Run { records: full.records[..1].to_vec(), ..full.clone() };
    let id = job.request.id;
    for run in [partial, full.clone()] {
        let response = LearnResponse::Progress { id, fraction: 0.5, text: "training".into(), runs: vec![run] };
        assert!(learn(&mut m, LearnMsg::Worker { response, at: 1.0 }).contains(&LearnEffect::Draw));
    }
    assert_eq!(m.learning.shown().runs, [full]);
}

#[test]
fn a_new_train_supersedes_the_running_one() {
    let mut m = started();
    let old = train(&mut m, 0.0);
    let new = train(&mut m, 10.0);
    assert_eq!(new.request.id, old.request.id + 1);
    assert!(answer(&mut m, &old).is_empty(), "the superseded training's answers are ignored");
    assert!(m.learning.is_running());
    answer(&mut m, &new);
    assert!(m.learning.results.is_some() && !m.learning.is_running());
}

#[test]
fn errors_and_a_dead_worker_keep_the_last_results() {
    let mut m = started();
    let job = train(&mut m, 0.0);
    answer(&mut m, &job);
    let kept = m.learning.results.clone();
    let id = train(&mut m, 0.0).request.id;
    let fx = learn(&mut m, LearnMsg::Worker { response: LearnResponse::Error { id, message: "boom".into() }, at: 1.0 });
    let (state, text) = status(&fx).unwrap();
    assert!(state == Status::Error && text.contains("boom") && text.contains("last results are kept"), "{text}");
    assert!(fx.contains(&LearnEffect::StopWorker));
    assert_eq!(m.learning.results, kept);
    train(&mut m, 0.0);
    let fx = learn(&mut m, LearnMsg::WorkerDied("unreachable".into()));
    assert_eq!(status(&fx).map(|s| s.0), Some(Status::Error));
    assert!(status(&fx).unwrap().1.contains("unreachable"));
    assert_eq!(m.learning.results, kept);
    // With nothing running, a death or a stray error says nothing.
    assert_eq!(learn(&mut m, LearnMsg::WorkerDied("late".into())), [LearnEffect::StopWorker]);
    let stray = LearnResponse::Error { id: 0, message: "malformed".into() };
    assert!(learn(&mut m, LearnMsg::Worker { response: stray, at: 2.0 }).is_empty());
}

#[test]
fn bad_options_and_a_missing_corpus_are_messages_and_nothing_starts() {
    let mut m = started();
    let cases: [(&'static str, &str, &str); 4] = [
        ("learn-steps", "many", "steps"),
        ("learn-d_model", "18", "d_model"),
        ("learn-signals", "nope,bogus", "bogus"),
        ("opt-alpha", "x", "α"),
    ];
    for (id, value, named) in cases {
        let mut f = form();
        f.values.insert(id, value.into());
        let fx = learn(&mut m, LearnMsg::Train { form: f, at: 0.0 });
        let (state, text) = status(&fx).unwrap();
        assert!(state == Status::Error && text.contains(named), "{id}: {text}");
        assert!(!fx.contains(&LearnEffect::StartWorker));
    }
    let mut f = form();
    f.paste.clear();
    let fx = learn(&mut m, LearnMsg::Train { form: f, at: 0.0 });
    assert!(status(&fx).unwrap().1.contains("paste box is empty"));
    assert!(!m.learning.is_running());
}

#[test]
fn downloads_wait_for_results_and_a_run_keeps_the_learn_options_in_the_link() {
    let mut m = started();
    let csv = LearnMsg::Export(LearnExport::Csv);
    assert!(learn(&mut m, csv.clone()).is_empty(), "nothing trained yet");
    let job = train(&mut m, 0.0);
    answer(&mut m, &job);
    assert_eq!(learn(&mut m, csv), [LearnEffect::Download(LearnExport::Csv)]);
    let mut run_form = form();
    run_form.source = SourceKind::Synthetic;
    update(&mut m, Msg::Run { form: run_form, at: 0.0 });
    assert!(m.link().contains("learn_steps=4") && m.link().contains("learn_signals=nope%2Csinusoidal%2Clearned"));
    // A link with the panel's options opens with them in its controls.
    let st = PageState::from_pairs([("learn_steps", "7")]);
    let Effect::ShowForm(shown, _) = &update(&mut m, Msg::Start(Box::new(st)))[0] else { panic!("the form first") };
    assert_eq!(shown.values["learn-steps"], "7");
}
