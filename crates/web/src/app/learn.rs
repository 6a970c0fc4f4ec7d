//! The **Learn panel's logic** (docs/MATH.md §16): Train, its progress and results, cancel,
//! errors and downloads, as messages to [`Learning`] answered with effects.
//!
//! A training runs in Web Workers of its own, started fresh for each training and ended
//! when it is done: cancelling (or a new Train) terminates them — the page's cancel
//! mechanism — without touching the analysis worker, whose kept geometry the live parameters
//! use. With several (signal, seed) runs and several cores the runs are spread over up to
//! [`MAX_WORKERS`] workers ([`shares`]: a signal per worker where possible); each prepares
//! the same context and posts its runs as they learn, the page merges them, and once every
//! worker is done the first one summarises them all ([`crate::protocol::learn::summarise`]) —
//! the experiment one worker gives. The last finished experiment stays on screen through
//! cancels and errors; while a training runs, the charts follow its runs as they learn.

use super::run::{corpus, tokenizer_file};
use super::slots::model_file;
use super::{CorpusData, Effect, Form, Model, Status};
use crate::protocol::learn::{LearnRequest, LearnResponse, Summarise};
use crate::protocol::Request;
pub use crate::view::learn::{LearnChart, LearnData, LearnExport};
use estimate::Plan;
use posgeo_learn::{Experiment, LearnParams, Run, Signal};
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
    /// The jobs waiting for their workers to start (worker k's is `queued[k]`).
    queued: Vec<Option<LearnJob>>,
    /// The training's workers: how far each is, and its runs once it is done.
    parts: Vec<Part>,
    started: f64,
    /// The training under way, as planned (its speed is measured from it).
    plan: Option<Plan>,
    /// The speed (FLOP/s a worker) the last finished training measured.
    pub speed: Option<f64>,
}

/// One worker's part of a training.
#[derive(Debug, Default, Clone)]
struct Part {
    fraction: f64,
    trained: Option<Vec<Run>>,
}

/// The most training workers a page starts.
pub const MAX_WORKERS: usize = 4;

/// The (signal, seed) runs of `p` spread over min(runs, `cores`, [`MAX_WORKERS`]) workers:
/// whole signals (every seed) in turn when there are as many signals as workers, else runs
/// in turn. Each list keeps `posgeo train`'s order.
pub fn shares(p: &LearnParams, cores: usize) -> Vec<Vec<(Signal, u64)>> {
    let seeds = p.seed_list();
    let jobs: Vec<(Signal, u64)> = p.signals.iter().flat_map(|&s| seeds.iter().map(move |&k| (s, k))).collect();
    let n = jobs.len().min(cores).clamp(1, MAX_WORKERS);
    let mut out = vec![Vec::new(); n];
    for (k, job) in jobs.into_iter().enumerate() {
        let signal = p.signals.iter().position(|&s| s == job.0).unwrap_or(0);
        out[if p.signals.len() >= n { signal % n } else { k % n }].push(job);
    }
    out.retain(|v| !v.is_empty());
    out
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
    /// Train pressed (`at`: the page clock, ms; `cores`: `navigator.hardwareConcurrency`).
    Train { form: Form, at: f64, cores: usize },
    /// The lecture preset pressed (the panel's button, lecture step 13's): its options in the
    /// form ([`posgeo_learn::preset::lecture`]), then Train.
    Preset { form: Form, at: f64, cores: usize },
    /// `#learn-cancel` pressed.
    Cancel,
    /// Training worker k is up.
    WorkerReady(usize),
    /// Training worker k's message.
    Worker { worker: usize, response: LearnResponse, at: f64 },
    /// The training worker died (a trap, out of memory).
    WorkerDied(String),
    /// A download button of the panel.
    Export(LearnExport),
    /// The panel's options changed (or the corpus did): the time estimate is redone.
    Options { form: Form, cores: usize },
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
    /// Terminate the training workers (if any) and start this many fresh ones; each says when
    /// it is up.
    StartWorkers(usize),
    /// Terminate the training workers.
    StopWorkers,
    /// Send a training (or a part of one) to worker k.
    Post(usize, Box<LearnJob>),
    /// Send every worker's runs to worker k, which answers the experiment.
    Summarise(usize, Box<Summarise>),
    /// The table, the finding and every chart.
    Render,
    /// Every chart (the runs so far).
    Draw,
    /// Offer a download.
    Download(LearnExport),
    /// `#learn-estimate`.
    Estimate(String),
    /// Read the form and send [`LearnMsg::Options`] (the estimate is redone).
    Reestimate,
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

    /// How many workers the training under way (or the last one) uses.
    pub fn workers(&self) -> usize {
        self.parts.len().max(1)
    }

    /// Ends the training under way (its workers are terminated) and forgets its runs.
    fn stop(&mut self) -> Vec<LearnEffect> {
        self.running = None;
        self.queued.clear();
        self.live.clear();
        vec![LearnEffect::CancelEnabled(false), LearnEffect::StopWorkers]
    }

    /// Runs posted by a worker: each replaces the one shown (a run posted again has more
    /// records) or joins them.
    fn merge(&mut self, runs: impl IntoIterator<Item = Run>) {
        for run in runs {
            match self.live.iter_mut().find(|r| (r.signal, r.seed) == (run.signal, run.seed)) {
                Some(shown) => *shown = run,
                None => self.live.push(run),
            }
        }
    }
}

/// Applies a message of the panel.
pub fn update(m: &mut Model, msg: LearnMsg) -> Vec<Effect> {
    let l = &mut m.learning;
    match msg {
        LearnMsg::Train { form, at, cores } => train(m, &form, at, cores),
        LearnMsg::Preset { mut form, at, cores } => {
            let mut shown = Vec::new();
            if let Ok(mut p) = form.learn_params() {
                posgeo_learn::preset::lecture(&mut p);
                for o in posgeo_learn::options::LEARN {
                    form.values.insert(o.control, o.text(&p));
                }
                shown.push(Effect::ShowForm(Box::new(form.clone()), m.view.map));
            }
            shown.extend(train(m, &form, at, cores));
            shown
        }
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
        LearnMsg::WorkerReady(k) => {
            fx(l.queued.get_mut(k).and_then(Option::take).map(|job| LearnEffect::Post(k, Box::new(job))))
        }
        LearnMsg::Worker { worker, response, at } => worker_said(l, worker, response, at),
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
        LearnMsg::WorkerDied(_) => fx([LearnEffect::StopWorkers]),
        LearnMsg::Export(e) => fx(l.results.is_some().then_some(LearnEffect::Download(e))),
        LearnMsg::Options { form, cores } => fx([LearnEffect::Estimate(estimate::text(m, &form, cores))]),
    }
}

/// Train pressed: the form's corpus and analysis options (as Run would read them) and the
/// panel's options go to fresh training workers (their runs spread over them, [`shares`]);
/// a training under way is superseded.
fn train(m: &mut Model, form: &Form, at: f64, cores: usize) -> Vec<Effect> {
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
    let plan = Plan::new(m, &learn, st.params.max_len, cores);
    let guess = estimate::describe(&plan, m.learning.speed);
    let l = &mut m.learning;
    l.last_id += 1;
    let id = l.last_id;
    l.running = Some(id);
    l.live.clear();
    l.started = at;
    l.plan = Some(plan);
    let corpus_request =
        Request { id, source, params: st.params, learned: None, tokenizer, model, reuse_geometry: false };
    let mut parts = shares(&learn, cores);
    if parts.len() == 1 {
        parts[0].clear(); // one worker trains every run and summarises them itself
    }
    let request = LearnRequest { id, corpus: corpus_request, learn, jobs: Vec::new(), diverge: None };
    let (tokenizer, model) = (request.corpus.tokenizer.is_some(), request.corpus.model.is_some());
    l.queued = parts
        .iter()
        .map(|jobs| {
            let request = LearnRequest { jobs: jobs.clone(), ..request.clone() };
            Some(LearnJob { request, corpus: corpus.clone(), tokenizer, model })
        })
        .collect();
    l.parts = vec![Part::default(); parts.len()];
    let started = match parts.len() {
        1 => "training: starting its worker".to_string(),
        k => format!("training: starting {k} workers"),
    };
    let mut effects = fx([
        LearnEffect::StartWorkers(parts.len()),
        LearnEffect::Progress(0.0),
        LearnEffect::CancelEnabled(true),
        LearnEffect::Status(Status::Running, started),
        LearnEffect::Estimate(guess),
        LearnEffect::Draw,
    ]);
    effects.push(Effect::WriteUrl(m.link()));
    effects
}

fn worker_said(l: &mut Learning, worker: usize, response: LearnResponse, at: f64) -> Vec<Effect> {
    let current = l.running;
    match response {
        LearnResponse::Progress { id, fraction, text, runs } if Some(id) == current => {
            let drawn = !runs.is_empty();
            l.merge(runs);
            let fraction = l.progress(worker, fraction);
            let mut text = match l.parts.len() {
                0 | 1 => format!("training: {text}"),
                k => format!("training on {k} workers: {text}"),
            };
            if let Some(left) = l.left(fraction, at) {
                text = format!("{text} — {left}");
            }
            let mut effects = vec![LearnEffect::Progress(fraction), LearnEffect::Status(Status::Running, text)];
            effects.extend(drawn.then_some(LearnEffect::Draw));
            fx(effects)
        }
        LearnResponse::Trained { id, runs } if Some(id) == current => trained(l, worker, id, runs),
        LearnResponse::Done { id, experiment } if Some(id) == current => {
            let secs = (at - l.started) / 1000.0;
            let mut effects = l.stop();
            let p = &experiment.params;
            let runs = experiment.runs.len();
            let on = match l.workers() {
                1 => String::new(),
                k => format!(" on {k} workers"),
            };
            let text = format!("trained in {secs:.1} s{on}: {runs} runs of {} steps (the finding is below)", p.steps);
            l.results = Some(Rc::new(*experiment));
            if let Some(plan) = l.plan.take() {
                l.speed = Some(plan.speed(secs));
            }
            effects.extend([
                LearnEffect::Progress(1.0),
                LearnEffect::Render,
                LearnEffect::Status(Status::Done, text),
                LearnEffect::Reestimate,
            ]);
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

impl Learning {
    /// Worker k is `fraction` of its way: the share of the whole training done.
    fn progress(&mut self, worker: usize, fraction: f64) -> f64 {
        if let Some(p) = self.parts.get_mut(worker) {
            p.fraction = fraction;
        }
        match self.parts.len() {
            0 | 1 => fraction,
            k => self.parts.iter().map(|p| p.fraction).sum::<f64>() / k as f64,
        }
    }
}

/// Worker k has trained its runs: kept; once every worker has, the first one is sent them
/// all to summarise.
fn trained(l: &mut Learning, worker: usize, id: u32, runs: Vec<Run>) -> Vec<Effect> {
    l.merge(runs.iter().cloned());
    if let Some(p) = l.parts.get_mut(worker) {
        p.fraction = 1.0;
        p.trained = Some(runs);
    }
    let done = l.parts.iter().filter(|p| p.trained.is_some()).count();
    let k = l.parts.len();
    if done < k {
        let text = format!("training on {k} workers: {done} of {k} done");
        return fx([LearnEffect::Progress(l.progress(worker, 1.0)), LearnEffect::Status(Status::Running, text)]);
    }
    let runs = l.parts.iter_mut().flat_map(|p| p.trained.take().unwrap_or_default()).collect();
    let text = format!("training on {k} workers: every run is trained; the finding");
    fx([
        LearnEffect::Summarise(0, Box::new(Summarise { id, runs })),
        LearnEffect::Status(Status::Running, text),
        LearnEffect::Draw,
    ])
}

mod estimate;
#[cfg(test)]
mod tests;
