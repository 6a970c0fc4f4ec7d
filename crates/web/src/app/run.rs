//! The run's life cycle: start, run (or wait for a file), supersede, cancel, finish or fail;
//! and the two file inputs.

use super::slots::{model_file, use_shipped};
use super::{CorpusData, Effect, FileSlot, Form, Job, Model, Slot, SourceKind, Status};
use crate::protocol::{LearnedTable, Request, Response, Source};
use crate::url::{Builtin, PageState};
use crate::view::charts::MapView;
use posgeo::analysis::Progress;
use posgeo::corpus::tokenize::TokenizerKind;
use posgeo::corpus::InputFormat;
use std::rc::Rc;

/// The loaded learned table, with the tensor the form picks.
fn learned_table(m: &Model, form: &Form) -> Option<LearnedTable> {
    match &m.learned_file {
        FileSlot::Loaded(name) => Some(LearnedTable {
            name: name.clone(),
            tensors: form.learned_tensors.iter().filter(|t| !t.is_empty()).cloned().collect(),
        }),
        _ => None,
    }
}

/// The loaded tokenizer file, when the form's tokenizer is `model`.
pub(super) fn tokenizer_file(m: &Model, st: &PageState) -> Option<String> {
    match &m.tokenizer_file {
        FileSlot::Loaded(name) if st.params.tokenizer == TokenizerKind::Model => Some(name.clone()),
        _ => None,
    }
}

/// A fresh worker: it is not ready yet and keeps no geometry.
fn restart_worker(m: &mut Model) -> Effect {
    m.worker_ready = false;
    m.geometry_kept = false;
    m.worker_started = true;
    Effect::RestartWorker
}

/// An encoding-only control moved: the worker recomputes the encodings on the geometry it
/// kept (no recount, no new distances). Ignored unless the last results came from a worker
/// that still holds them and only encoding options differ; one update runs at a time and
/// the latest waiting one follows it.
pub(super) fn live(m: &mut Model, form: Form, at: f64) -> Vec<Effect> {
    if m.results.is_none() || !m.geometry_kept || (m.running.is_some() && !m.live) {
        return Vec::new();
    }
    let Ok(st) = form.page_state() else { return Vec::new() };
    let same_corpus = st.synth == m.shown.synth && st.corpus == m.shown.corpus;
    if !same_corpus || !st.params.same_geometry(&m.shown.params) || st.params == m.shown.params {
        return Vec::new();
    }
    if m.running.is_some() {
        m.live_pending = Some((form, at));
        return Vec::new();
    }
    let learned = learned_table(m, &form);
    if learned != m.run_learned || tokenizer_file(m, &st) != m.run_tokenizer || model_file(m) != m.run_model {
        return Vec::new(); // another learned table or tokenizer: the kept one would be stale; wait for Run
    }
    m.last_id += 1;
    let id = m.last_id;
    m.running = Some(id);
    m.live = true;
    m.started = at;
    m.shown.params = st.params.clone();
    let source = Source::Synthetic(st.synth.clone()); // unused: the kept geometry is reused
    let request =
        Request { id, source, params: st.params, learned, reuse_geometry: true, tokenizer: None, model: None };
    let job = Job { request, corpus: CorpusData::None, learned: false, tokenizer: false, model: false };
    let mut fx = vec![Effect::Error(None), Effect::Status(Status::Running, "updating the encodings".into())];
    if m.worker_ready {
        fx.push(Effect::Post(Box::new(job)));
    } else {
        m.queued.push(job); // after the run whose geometry it reuses
        fx.extend(first_worker(m));
    }
    fx
}

/// An error shown under the controls (the results on screen stay).
pub(super) fn failed(message: String) -> Vec<Effect> {
    vec![Effect::Status(Status::Error, format!("error: {message}")), Effect::Error(Some(message))]
}

pub(super) fn start(m: &mut Model, state: PageState) -> Vec<Effect> {
    m.view.shepard = state.shepard.clone();
    m.view.map = match state.map3d {
        Some((yaw, pitch)) => MapView { three_d: true, yaw, pitch },
        None => MapView::default(),
    };
    let form = Form::from_state(&state);
    m.shown = state;
    vec![Effect::ShowForm(Box::new(form), m.view.map), Effect::ShowDemo(m.view.demo.show())]
}

/// The corpus the form names, or why there is none (a file still being read never gets here:
/// [`run`] waits for it first).
pub(super) fn corpus(m: &Model, form: &Form, st: &PageState) -> Result<(Source, CorpusData), String> {
    let lossy = form.file.lossy;
    match form.source {
        SourceKind::Synthetic => Ok((Source::Synthetic(st.synth.clone()), CorpusData::None)),
        SourceKind::Genesis => Ok((Source::Genesis, CorpusData::None)),
        SourceKind::Proteins => Ok((Source::Proteins, CorpusData::None)),
        SourceKind::Paste if form.paste.trim().is_empty() => {
            Err("the paste box is empty: paste one sequence per line, or choose a built-in corpus".into())
        }
        SourceKind::Paste => Ok((
            Source::Bytes { name: String::new(), format: InputFormat::Text, lossy },
            CorpusData::Text(form.paste.clone()),
        )),
        SourceKind::File => match &m.corpus_file {
            FileSlot::Empty => Err("no file chosen: pick a file with the button or drop one on the box".into()),
            FileSlot::Reading(name) => Err(format!("{name} is still being read")),
            FileSlot::Loaded(name) => Ok((
                Source::Bytes { name: name.clone(), format: form.file.input_format(name), lossy },
                CorpusData::File,
            )),
        },
    }
}

pub(crate) fn run(m: &mut Model, form: Form, at: f64) -> Vec<Effect> {
    m.waiting = None;
    let mut fx = vec![Effect::Error(None)];
    let st = match form.page_state() {
        Ok(st) => st,
        Err(e) => return [fx, failed(e)].concat(),
    };
    let reading = match (&m.corpus_file, &m.learned_file, &m.tokenizer_file, &m.model_file) {
        (FileSlot::Reading(name), _, _, _) if form.source == SourceKind::File => Some(name.clone()),
        (_, FileSlot::Reading(name), _, _)
        | (_, _, FileSlot::Reading(name), _)
        | (_, _, _, FileSlot::Reading(name)) => Some(name.clone()),
        _ => None,
    };
    if let Some(name) = reading {
        m.waiting = Some((form, at));
        fx.push(Effect::Status(Status::Running, format!("waiting for {name} to be read; the run starts then")));
        return fx;
    }
    let (source, corpus) = match corpus(m, &form, &st) {
        Ok(c) => c,
        Err(e) => return [fx, failed(e)].concat(),
    };
    let learned = learned_table(m, &form);
    m.last_id += 1;
    let id = m.last_id;
    m.live = false;
    m.live_pending = None;
    if m.running.replace(id).is_some() {
        // A new run supersedes the old one: its worker is stopped mid-computation.
        fx.push(restart_worker(m));
    }
    m.started = at;
    // The Learn panel's options are the last training's (Train sets them).
    m.shown = PageState { learn: std::mem::take(&mut m.shown.learn), ..st.clone() };
    m.run_learned = learned.clone();
    let tokenizer = tokenizer_file(m, &st);
    m.run_tokenizer = tokenizer.clone();
    let model = model_file(m);
    m.run_model = model.clone();
    let request = Request { id, source, params: st.params, learned, reuse_geometry: false, tokenizer, model };
    let job = Job {
        learned: request.learned.is_some(),
        tokenizer: request.tokenizer.is_some(),
        model: request.model.is_some(),
        request,
        corpus,
    };
    fx.extend([
        Effect::Progress(0.0),
        Effect::Estimate(String::new()),
        Effect::Status(Status::Running, "running: starting".into()),
        Effect::CancelEnabled(true),
        Effect::WriteUrl(m.link()),
    ]);
    // The default run's results ship with the page: shown at once; the worker still runs
    // the request (its answer, for a run no longer current, is ignored) to keep the geometry.
    let shipped = crate::protocol::shipped::answer(&job.request);
    if m.worker_ready {
        fx.push(Effect::Post(Box::new(job)));
    } else {
        m.queued = vec![job]; // a new run supersedes whatever waits
    }
    match shipped {
        Some(payload) => fx.extend(worker_said(m, Response::Done { id, payload: Box::new(payload) }, at)),
        None if !m.worker_started => fx.push(restart_worker(m)),
        None => {}
    }
    fx
}

/// Every chart of run `id` is drawn: done, if it is the last run and nothing runs. After the
/// shipped first results the worker starts now (its queued run keeps the geometry).
pub(super) fn rendered(m: &mut Model, id: u32, at: f64) -> Vec<Effect> {
    let mut fx: Vec<Effect> = first_worker(m).into_iter().collect();
    if m.running.is_none() && id == m.last_id {
        fx.push(Effect::Status(Status::Done, format!("done in {:.2} s", (at - m.started) / 1000.0)));
    }
    fx
}

/// Starts the first worker if none was asked for yet (the jobs queued so far keep their
/// order, so the geometry the page shows is rebuilt before a live update uses it).
fn first_worker(m: &mut Model) -> Option<Effect> {
    (!std::mem::replace(&mut m.worker_started, true)).then_some(Effect::RestartWorker)
}

pub(super) fn cancel(m: &mut Model) -> Vec<Effect> {
    let waiting = m.waiting.take().is_some();
    let mut fx = Vec::new();
    m.live_pending = None;
    if m.running.take().is_some() {
        m.last_id += 1;
        m.queued.clear();
        fx.push(restart_worker(m));
    }
    if !fx.is_empty() || waiting {
        fx.extend([
            Effect::Progress(0.0),
            Effect::Status(Status::Idle, "cancelled — the previous results are kept".into()),
        ]);
    }
    fx.push(Effect::CancelEnabled(false));
    fx
}

pub(super) fn worker_died(m: &mut Model, message: &str) -> Vec<Effect> {
    m.queued.clear();
    m.live_pending = None;
    let mut fx = vec![restart_worker(m)];
    if m.running.take().is_some() {
        fx.push(Effect::CancelEnabled(false));
        fx.extend(failed(format!(
            "the computation failed ({message}); it may have run out of memory — try a smaller max_len or top_k. Earlier results are kept."
        )));
    }
    fx
}

/// The shipped proteins in one click: the options that suit them
/// ([`posgeo::demos::preset::proteins`]) in the form, then a run.
pub(super) fn proteins(m: &mut Model, mut form: Form, at: f64) -> Vec<Effect> {
    form.source = SourceKind::Proteins;
    let Ok(mut st) = form.page_state() else { return run(m, form, at) };
    posgeo::demos::preset::proteins(&mut st.params);
    for o in posgeo::options::ANALYSIS {
        form.values.insert(o.control, o.text(&st.params));
    }
    let mut fx = vec![Effect::ShowForm(Box::new(form.clone()), m.view.map)];
    fx.extend(run(m, form, at));
    fx
}

/// The paper's setting: the preset's options in the form (Genesis instead of the synthetic
/// corpus, whose tokens are not English), the shipped tokenizer and table, then a run once
/// both have arrived.
pub(super) fn preset(m: &mut Model, mut form: Form, at: f64) -> Vec<Effect> {
    let Ok(mut st) = form.page_state() else { return run(m, form, at) };
    posgeo::demos::preset::paper(&mut st.params);
    for o in posgeo::options::ANALYSIS {
        form.values.insert(o.control, o.text(&st.params));
    }
    if form.source == SourceKind::Synthetic {
        form.source = SourceKind::Genesis;
    }
    form.learned_tensors.clear();
    let mut fx = vec![Effect::ShowForm(Box::new(form.clone()), m.view.map)];
    fx.extend(use_shipped(m, Slot::Tokenizer));
    fx.extend(use_shipped(m, Slot::Learned));
    fx.extend(super::slots::use_shipped_model(m, posgeo::demos::preset::ShippedModel::MiniLm));
    fx.extend(run(m, form, at));
    fx
}

/// pad ↔ condition, then a run.
pub(super) fn flip_mode(m: &mut Model, mut form: Form, at: f64) -> Vec<Effect> {
    if let Ok(mut st) = form.page_state() {
        st.params.mode = posgeo::demos::preset::flipped(st.params.mode);
        for o in posgeo::options::ANALYSIS.iter().filter(|o| o.name == "mode") {
            form.values.insert(o.control, o.text(&st.params));
        }
    }
    let mut fx = vec![Effect::ShowForm(Box::new(form.clone()), m.view.map)];
    fx.extend(run(m, form, at));
    fx
}

pub(super) fn worker_said(m: &mut Model, response: Response, at: f64) -> Vec<Effect> {
    let current = m.running;
    match response {
        Response::Ready => super::update(m, super::Msg::WorkerReady),
        Response::Progress { id, stage, fraction } if Some(id) == current => {
            let p = Progress { stage, fraction };
            vec![Effect::Progress(p.overall()), Effect::Status(Status::Running, format!("running: {}", p.text()))]
        }
        Response::Estimate {
            id,
            sequences,
            max_positions,
            memory_bytes,
            workers,
            measured_by,
            smacof_by,
            spectrum_by_helper,
            measured_meanwhile,
            helper_failures,
        } if Some(id) == current => {
            let mut by = if workers > 1 { format!(", counted by {workers} workers") } else { String::new() };
            if spectrum_by_helper {
                by += ", spectrum computed by a helper worker";
                if measured_meanwhile > 0 {
                    by += &format!(" while another measured {measured_meanwhile} encodings");
                }
            } else if measured_meanwhile > 0 {
                by += &format!(
                    ", {measured_meanwhile} encodings measured by a helper worker while the spectrum was computed"
                );
            }
            if smacof_by > 0 {
                by += &format!(", SMACOF fitted by {smacof_by} workers");
            }
            if measured_by > 0 {
                by += &format!(", encodings measured by {measured_by} workers");
            }
            if !helper_failures.is_empty() {
                by += &format!("; done here after helper workers failed: {}", helper_failures.join("; "));
            }
            vec![Effect::Estimate(format!(
                "{sequences} sequences, up to {max_positions} positions, about {:.0} MB of working memory{by}",
                memory_bytes as f64 / 1e6
            ))]
        }
        Response::Done { id, payload } if Some(id) == current => {
            m.running = None;
            m.live = false;
            m.geometry_kept = true;
            let results = Rc::new(*payload);
            match m.shown.corpus {
                Builtin::Genesis => m.view.corpora.english = Some(results.clone()),
                Builtin::Proteins => m.view.corpora.proteins = Some(results.clone()),
                Builtin::Synthetic => {}
            }
            m.results = Some(results);
            let secs = (at - m.started) / 1000.0;
            let mut fx = vec![
                Effect::Progress(1.0),
                Effect::CancelEnabled(false),
                Effect::Status(Status::Running, format!("computed in {secs:.2} s; drawing")),
                Effect::RenderResults(id),
                Effect::WriteUrl(m.link()),
                // The Learn panel's estimate reads the corpus's n and |V|.
                Effect::Learn(super::learn::LearnEffect::Reestimate),
            ];
            if let Some((form, at)) = m.live_pending.take() {
                fx.extend(live(m, form, at));
            }
            fx
        }
        Response::Error { id, message } if Some(id) == current || id == 0 => {
            m.running = None;
            m.live = false;
            m.live_pending = None;
            let mut fx = vec![Effect::CancelEnabled(false)];
            fx.extend(failed(message));
            fx
        }
        _ => Vec::new(),
    }
}
