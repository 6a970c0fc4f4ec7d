//! The **Learn panel's logic** (docs/MATH.md §16): Train, its progress and results, cancel,
//! errors and downloads, as messages to [`Learning`] answered with effects.
//!
//! A training runs in a Web Worker of its own, started fresh for each training and ended
//! when it is done: cancelling (or a new Train) terminates it — the page's cancel mechanism —
//! without touching the analysis worker, whose kept geometry the live parameters use. The
//! last finished experiment stays on screen through cancels and errors; while a training
//! runs, the charts follow its runs as they finish.

use super::run::{corpus, tokenizer_file};
use super::slots::model_file;
use super::{CorpusData, Effect, Form, Model, Status};
use crate::protocol::learn::{LearnRequest, LearnResponse};
use crate::protocol::Request;
pub use crate::view::learn::{LearnChart, LearnData, LearnExport};
use posgeo::learn::{Experiment, Run};
use std::rc::Rc;

/// The panel's state.
#[derive(Debug, Default)]
pub struct Learning {
    /// The last finished experiment (kept through cancels and errors).
    pub results: Option<Rc<Experiment>>,
    /// The runs of the training under way, as they finish.
    pub live: Vec<Run>,
    running: Option<u32>,
    last_id: u32,
    /// The job waiting for its worker to start.
    queued: Option<LearnJob>,
    started: f64,
}

/// A training for the worker, with what travels beside it.
#[derive(Debug, Clone, PartialEq)]
pub struct LearnJob {
    /// The request.
    pub request: LearnRequest,
    /// The corpus bytes.
    pub corpus: CorpusData,
    /// Whether the model tokenizer's bytes go along.
    pub tokenizer: bool,
    /// Whether the model's files go along (its tokenizer counts the corpus).
    pub model: bool,
}

/// What can happen to the panel.
#[derive(Debug, Clone, PartialEq)]
pub enum LearnMsg {
    /// Train pressed (`at`: the page clock, ms).
    Train { form: Form, at: f64 },
    /// `#learn-cancel` pressed.
    Cancel,
    /// The training worker is up.
    WorkerReady,
    /// A training worker's message.
    Worker { response: LearnResponse, at: f64 },
    /// The training worker died (a trap, out of memory).
    WorkerDied(String),
    /// A download button of the panel.
    Export(LearnExport),
}

/// What the DOM layer is asked to do for the panel.
#[derive(Debug, Clone, PartialEq)]
pub enum LearnEffect {
    /// `#learn-status`.
    Status(Status, String),
    /// `#learn-progress`, in [0, 1].
    Progress(f64),
    /// `#learn-cancel`.
    CancelEnabled(bool),
    /// Terminate the training worker (if any) and start a fresh one; it says when it is up.
    StartWorker,
    /// Terminate the training worker.
    StopWorker,
    /// Send a training to the worker.
    Post(Box<LearnJob>),
    /// The table, the finding and every chart.
    Render,
    /// Every chart (the runs so far).
    Draw,
    /// Offer a download.
    Download(LearnExport),
}

fn fx(effects: impl IntoIterator<Item = LearnEffect>) -> Vec<Effect> {
    effects.into_iter().map(Effect::Learn).collect()
}

fn failed(message: &str) -> Vec<Effect> {
    fx([LearnEffect::Status(Status::Error, format!("error: {message}"))])
}

impl Learning {
    /// What the charts show: the training's runs so far, or the last results'.
    pub fn shown(&self) -> LearnData {
        let training = self.running.is_some();
        let runs = match (&self.results, training) {
            (_, true) => self.live.clone(),
            (Some(e), false) => e.runs.clone(),
            (None, false) => Vec::new(),
        };
        LearnData { runs, experiment: self.results.clone(), training }
    }

    /// Whether a training is under way.
    pub fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// Ends the training under way (its worker is terminated) and forgets its runs.
    fn stop(&mut self) -> Vec<LearnEffect> {
        self.running = None;
        self.queued = None;
        self.live.clear();
        vec![LearnEffect::CancelEnabled(false), LearnEffect::StopWorker]
    }
}

/// Applies a message of the panel.
pub fn update(m: &mut Model, msg: LearnMsg) -> Vec<Effect> {
    let l = &mut m.learning;
    match msg {
        LearnMsg::Train { form, at } => train(m, &form, at),
        LearnMsg::Cancel => {
            let mut effects = vec![LearnEffect::CancelEnabled(false)];
            if l.running.is_some() {
                l.last_id += 1; // a late answer of the cancelled training is ignored
                effects = l.stop();
                effects.extend([
                    LearnEffect::Progress(0.0),
                    LearnEffect::Status(Status::Idle, "cancelled — the last results are kept".into()),
                    LearnEffect::Draw,
                ]);
            }
            fx(effects)
        }
        LearnMsg::WorkerReady => fx(l.queued.take().map(|job| LearnEffect::Post(Box::new(job)))),
        LearnMsg::Worker { response, at } => worker_said(l, response, at),
        LearnMsg::WorkerDied(message) if l.running.is_some() => {
            let mut effects = l.stop();
            effects.extend([
                LearnEffect::Draw,
                LearnEffect::Status(
                    Status::Error,
                    format!("error: the training failed ({message}); it may have run out of memory — try fewer signals, a smaller d or max_len. The last results are kept."),
                ),
            ]);
            fx(effects)
        }
        LearnMsg::WorkerDied(_) => fx([LearnEffect::StopWorker]),
        LearnMsg::Export(e) => fx(l.results.is_some().then_some(LearnEffect::Download(e))),
    }
}

/// Train pressed: the form's corpus and analysis options (as Run would read them) and the
/// panel's options go to a fresh training worker; a training under way is superseded.
fn train(m: &mut Model, form: &Form, at: f64) -> Vec<Effect> {
    let st = match form.page_state() {
        Ok(st) => st,
        Err(e) => return failed(&e),
    };
    let learn = match form.learn_params() {
        Ok(p) => p,
        Err(e) => return failed(&e),
    };
    let (source, corpus) = match corpus(m, form, &st) {
        Ok(c) => c,
        Err(e) => return failed(&e),
    };
    let (tokenizer, model) = (tokenizer_file(m, &st), model_file(m));
    m.shown.learn = learn.clone();
    let l = &mut m.learning;
    l.last_id += 1;
    let id = l.last_id;
    l.running = Some(id);
    l.live.clear();
    l.started = at;
    let corpus_request =
        Request { id, source, params: st.params, learned: None, tokenizer, model, reuse_geometry: false };
    let request = LearnRequest { id, corpus: corpus_request, learn };
    let (tokenizer, model) = (request.corpus.tokenizer.is_some(), request.corpus.model.is_some());
    l.queued = Some(LearnJob { request, corpus, tokenizer, model });
    let mut effects = fx([
        LearnEffect::StartWorker,
        LearnEffect::Progress(0.0),
        LearnEffect::CancelEnabled(true),
        LearnEffect::Status(Status::Running, "training: starting its worker".into()),
        LearnEffect::Draw,
    ]);
    effects.push(Effect::WriteUrl(m.link()));
    effects
}

fn worker_said(l: &mut Learning, response: LearnResponse, at: f64) -> Vec<Effect> {
    let current = l.running;
    match response {
        LearnResponse::Progress { id, fraction, text, runs } if Some(id) == current => {
            let drawn = !runs.is_empty();
            // A run posted again (with more records) replaces the one shown.
            for run in runs {
                match l.live.iter_mut().find(|r| (r.signal, r.seed) == (run.signal, run.seed)) {
                    Some(shown) => *shown = run,
                    None => l.live.push(run),
                }
            }
            let mut effects = vec![
                LearnEffect::Progress(fraction),
                LearnEffect::Status(Status::Running, format!("training: {text}")),
            ];
            effects.extend(drawn.then_some(LearnEffect::Draw));
            fx(effects)
        }
        LearnResponse::Done { id, experiment } if Some(id) == current => {
            let secs = (at - l.started) / 1000.0;
            let mut effects = l.stop();
            let p = &experiment.params;
            let runs = experiment.runs.len();
            let text = format!("trained in {secs:.1} s: {runs} runs of {} steps (the finding is below)", p.steps);
            l.results = Some(Rc::new(*experiment));
            effects.extend([LearnEffect::Progress(1.0), LearnEffect::Render, LearnEffect::Status(Status::Done, text)]);
            fx(effects)
        }
        LearnResponse::Error { id, message } if current.is_some() && (Some(id) == current || id == 0) => {
            let mut effects = l.stop();
            let text = format!("error: {message} — the last results are kept");
            effects.extend([LearnEffect::Draw, LearnEffect::Status(Status::Error, text)]);
            fx(effects)
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests;
