//! The Learn panel's rules without a browser, driven through `update` as the DOM layer drives
//! it (the worker's side is the real job, `protocol::learn::run`).

use super::super::{update, Msg, SourceKind};
use super::*;
use crate::protocol::Files;
use crate::url::PageState;
use posgeo_learn::Signal;

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
    let fx = learn(m, LearnMsg::Train { form: form(), at, cores: 1 });
    assert!(fx.contains(&LearnEffect::StartWorkers(1)) && fx.contains(&LearnEffect::CancelEnabled(true)), "{fx:?}");
    assert_eq!(status(&fx).map(|s| s.0), Some(Status::Running));
    let fx = learn(m, LearnMsg::WorkerReady(0));
    match &fx[..] {
        [LearnEffect::Post(0, job)] => (**job).clone(),
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
        all.extend(learn(m, LearnMsg::Worker { worker: 0, response, at: 1000.0 + k as f64 }));
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
    assert!(fx.contains(&LearnEffect::Render) && fx.contains(&LearnEffect::StopWorkers));
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
    assert!(fx.contains(&LearnEffect::StopWorkers) && fx.contains(&LearnEffect::CancelEnabled(false)));
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
        assert!(learn(&mut m, LearnMsg::Worker { worker: 0, response, at: 1.0 }).contains(&LearnEffect::Draw));
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
    let fx = learn(
        &mut m,
        LearnMsg::Worker { worker: 0, response: LearnResponse::Error { id, message: "boom".into() }, at: 1.0 },
    );
    let (state, text) = status(&fx).unwrap();
    assert!(state == Status::Error && text.contains("boom") && text.contains("last results are kept"), "{text}");
    assert!(fx.contains(&LearnEffect::StopWorkers));
    assert_eq!(m.learning.results, kept);
    train(&mut m, 0.0);
    let fx = learn(&mut m, LearnMsg::WorkerDied("unreachable".into()));
    assert_eq!(status(&fx).map(|s| s.0), Some(Status::Error));
    assert!(status(&fx).unwrap().1.contains("unreachable"));
    assert_eq!(m.learning.results, kept);
    // With nothing running, a death or a stray error says nothing.
    assert_eq!(learn(&mut m, LearnMsg::WorkerDied("late".into())), [LearnEffect::StopWorkers]);
    let stray = LearnResponse::Error { id: 0, message: "malformed".into() };
    assert!(learn(&mut m, LearnMsg::Worker { worker: 0, response: stray, at: 2.0 }).is_empty());
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
        let fx = learn(&mut m, LearnMsg::Train { form: f, at: 0.0, cores: 1 });
        let (state, text) = status(&fx).unwrap();
        assert!(state == Status::Error && text.contains(named), "{id}: {text}");
        assert!(!fx.contains(&LearnEffect::StartWorkers(1)));
    }
    let mut f = form();
    f.paste.clear();
    let fx = learn(&mut m, LearnMsg::Train { form: f, at: 0.0, cores: 1 });
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

#[test]
fn runs_are_spread_a_signal_per_worker_where_possible() {
    let names = |p: &[Vec<(Signal, u64)>]| -> Vec<Vec<String>> {
        p.iter().map(|w| w.iter().map(|(s, k)| format!("{}/{k}", s.name())).collect()).collect()
    };
    let three = LearnParams {
        signals: vec![Signal::Nope, Signal::Sinusoidal, Signal::Learned],
        seeds: 2,
        ..LearnParams::default()
    };
    assert_eq!(
        names(&shares(&three, 2)),
        [vec!["nope/1", "nope/2", "learned/1", "learned/2"], vec!["sinusoidal/1", "sinusoidal/2"]]
    );
    assert_eq!(shares(&three, 16).len(), 4, "six runs, at most four workers: runs in turn");
    let single = LearnParams { seeds: 1, ..three.clone() };
    assert_eq!(
        names(&shares(&single, 16)),
        [vec!["nope/1"], vec!["sinusoidal/1"], vec!["learned/1"]],
        "a signal per worker"
    );
    assert_eq!(shares(&three, 1).len(), 1);
    assert_eq!(shares(&three, 0).len(), 1, "no core reported: one worker");
    let one = LearnParams { signals: vec![Signal::Learned], seeds: 3, ..LearnParams::default() };
    assert_eq!(
        names(&shares(&one, 8)),
        [vec!["learned/1"], vec!["learned/2"], vec!["learned/3"]],
        "fewer signals than workers: runs in turn"
    );
    let all = LearnParams { signals: Signal::ALL.to_vec(), seeds: 1, ..LearnParams::default() };
    assert_eq!(shares(&all, 64).len(), MAX_WORKERS);
    assert_eq!(shares(&all, 64).concat().len(), Signal::ALL.len(), "every run once");
}

/// Train on `cores` cores: each worker's job, in worker order (posted as each says it is up).
fn train_on(m: &mut Model, cores: usize) -> Vec<LearnJob> {
    let fx = learn(m, LearnMsg::Train { form: form(), at: 0.0, cores });
    let Some(&LearnEffect::StartWorkers(count)) = fx.iter().find(|e| matches!(e, LearnEffect::StartWorkers(_))) else {
        panic!("{fx:?}")
    };
    // The workers come up in any order.
    let mut jobs: Vec<Option<LearnJob>> = vec![None; count];
    for k in (0..count).rev() {
        match &learn(m, LearnMsg::WorkerReady(k))[..] {
            [LearnEffect::Post(at, job)] if *at == k => jobs[k] = Some((**job).clone()),
            other => panic!("worker {k}'s part is posted once it is up: {other:?}"),
        }
    }
    jobs.into_iter().flatten().collect()
}

/// Worker k's part run for real: its messages, and the context it keeps.
fn part(job: &LearnJob) -> (Vec<LearnResponse>, posgeo_learn::Context) {
    let CorpusData::Text(text) = &job.corpus else { panic!("the pasted text travels") };
    let mut messages = Vec::new();
    let files = Files { corpus: text.as_bytes(), ..Files::default() };
    let ctx = crate::protocol::learn::run_part(&job.request, files, &mut |r| messages.push(r)).unwrap();
    (messages, ctx)
}

#[test]
fn two_workers_runs_are_merged_and_summarised_once_all_are_done_as_one_worker_would() {
    let mut one = started();
    let job = train(&mut one, 0.0);
    answer(&mut one, &job);
    let alone = one.learning.results.clone().unwrap();

    let mut m = started();
    let jobs = train_on(&mut m, 2);
    assert_eq!(jobs.len(), 2);
    assert_eq!(jobs[1].request.jobs, [(Signal::Sinusoidal, 1)]);
    assert_eq!(jobs[0].request.jobs, [(Signal::Nope, 1), (Signal::Learned, 1)]);
    let (first, ctx) = part(&jobs[0]);
    let (second, _) = part(&jobs[1]);
    // Worker 1 ends first; nothing is summarised until worker 0 has ended too.
    let mut summarise = None;
    for (k, r) in second.into_iter().map(|r| (1, r)).chain(first.into_iter().map(|r| (0, r))) {
        let fx = learn(&mut m, LearnMsg::Worker { worker: k, response: r, at: 10.0 });
        for e in fx {
            if let LearnEffect::Summarise(to, s) = e {
                assert!(summarise.is_none(), "summarised once");
                summarise = Some((to, s));
            }
        }
        if summarise.is_none() {
            assert!(m.learning.is_running() && m.learning.results.is_none());
        }
    }
    let (to, s) = summarise.expect("summarised once both workers are done");
    assert_eq!(to, 0);
    assert_eq!(s.runs.len(), 3, "every worker's runs");
    assert_eq!(m.learning.shown().runs.len(), 3, "the charts show both workers' runs");
    let experiment = crate::protocol::learn::summarise(&ctx, s.runs).unwrap();
    let fx = learn(
        &mut m,
        LearnMsg::Worker {
            worker: 0,
            response: LearnResponse::Done { id: s.id, experiment: Box::new(experiment) },
            at: 2000.0,
        },
    );
    assert!(fx.contains(&LearnEffect::Render) && fx.contains(&LearnEffect::StopWorkers));
    assert!(status(&fx).unwrap().1.contains("on 2 workers"), "{fx:?}");
    assert_eq!(*m.learning.results.clone().unwrap(), *alone, "the experiment of one worker, bit for bit");
}

#[test]
fn cancel_stops_every_worker_and_keeps_the_last_results() {
    let mut m = started();
    let job = train(&mut m, 0.0);
    answer(&mut m, &job);
    let kept = m.learning.results.clone().unwrap();
    let jobs = train_on(&mut m, 4);
    assert_eq!(jobs.len(), 3, "three signals, three workers");
    let (messages, _) = part(&jobs[2]);
    for r in messages {
        learn(&mut m, LearnMsg::Worker { worker: 2, response: r, at: 1.0 });
    }
    let fx = learn(&mut m, LearnMsg::Cancel);
    assert!(fx.contains(&LearnEffect::StopWorkers), "{fx:?}");
    assert_eq!(status(&fx).map(|s| s.0), Some(Status::Idle));
    assert!(Rc::ptr_eq(&m.learning.results.clone().unwrap(), &kept));
    // A late part of the cancelled training changes nothing.
    let (late, _) = part(&jobs[0]);
    for r in late {
        assert!(learn(&mut m, LearnMsg::Worker { worker: 0, response: r, at: 2.0 }).is_empty());
    }
    assert!(!m.learning.is_running() && m.learning.shown().runs == kept.runs);
}

/// Before Train the estimate is the options' arithmetic (counted here by hand from the model's
/// sizes) over the tab's measured speed; a training says the time left as it goes, and then the
/// estimate uses the speed that training measured.
#[test]
fn the_estimate_is_the_options_arithmetic_over_a_measured_speed() {
    let mut m = started();
    let estimate = |m: &mut Model, cores| match &learn(m, LearnMsg::Options { form: form(), cores })[..] {
        [LearnEffect::Estimate(t)] => t.clone(),
        other => panic!("{other:?}"),
    };
    let text = estimate(&mut m, 1);
    // No results yet: n = min(positions 128, max_len 512), |V| = vocab 2,000 + 3 specials.
    let (n, d, l, b, v) = (128.0f64, 8.0f64, 2.0, 8.0, 2003.0);
    let chosen = (0.15 * b * n).round();
    let step = 3.0 * l * 24.0 * b * n * d * d + 3.0 * l * 4.0 * b * n * n * d + 6.0 * chosen * v * d;
    assert!(4.0 * step < 1e9, "a small run's arithmetic is said in MFLOP");
    let mflop = format!("3 runs of {:.0} MFLOP each on one worker", 4.0 * step / 1e6);
    assert!(text.contains(&mflop) && text.contains("at 16 GFLOP/s a worker (posgeo's measured"), "{text}");
    assert!(estimate(&mut m, 2).contains("on 2 workers"), "three runs spread over two cores");
    let job = train(&mut m, 0.0);
    let fx = answer(&mut m, &job);
    let left = fx.iter().filter(|e| matches!(e, LearnEffect::Status(Status::Running, t) if t.contains("left"))).count();
    assert!(left > 0, "the time left while it trains: {fx:?}");
    assert!(fx.contains(&LearnEffect::Reestimate));
    let speed = m.learning.speed.expect("the training measured its speed");
    let text = estimate(&mut m, 1);
    assert!(text.contains("as fast as your last training here"), "{text}");
    assert!(text.contains(&format!("at {:.0} GFLOP/s", speed / 1e9)), "{text}");
}

/// Cancel pressed before the worker is up: its job is dropped, nothing is posted once it is
/// up, and the last results stay.
#[test]
fn cancel_before_the_job_starts_posts_nothing() {
    let mut m = started();
    let fx = learn(&mut m, LearnMsg::Train { form: form(), at: 0.0, cores: 1 });
    assert!(fx.contains(&LearnEffect::StartWorkers(1)));
    let fx = learn(&mut m, LearnMsg::Cancel);
    assert!(fx.contains(&LearnEffect::StopWorkers) && !m.learning.is_running(), "{fx:?}");
    assert_eq!(learn(&mut m, LearnMsg::WorkerReady(0)), vec![], "the dropped job is not posted");
    assert!(m.learning.results.is_none() && m.learning.shown().runs.is_empty());
}
