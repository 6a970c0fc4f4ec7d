//! The page's runtime: the owned [`Model`], [`dispatch`] (message → `update` → effects), and
//! [`perform`], which carries each [`Effect`] out on the page.

use super::elements::Elements;
use super::{bridge, controls, files, render};
use crate::app::{update, Effect, Model, Msg, Slot};
use crate::view::charts::{ChartKind, Drawn};
use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;
use web_sys::{Element, Worker};

/// A file input's browser-side state: the file chosen and its bytes once read.
#[derive(Default)]
pub struct FileData {
    /// Chosen, not yet read.
    pub pending: Option<web_sys::File>,
    /// Read (for the corpus: only its first bytes, for the column picker; the worker streams
    /// the file itself).
    pub bytes: Option<js_sys::Uint8Array>,
    /// The corpus file, sent to the worker as it is (the worker reads it in slices).
    pub file: Option<web_sys::File>,
}

/// Everything the page holds.
pub struct Runtime {
    /// The page's elements.
    pub els: Rc<Elements>,
    /// The option controls (built at start), by id.
    pub controls: Vec<(&'static str, Element)>,
    /// The page's logic state.
    pub model: Model,
    /// The worker, when one runs.
    pub worker: Option<Worker>,
    /// The Learn panel's training workers, while a training runs.
    pub learn_workers: Vec<Worker>,
    /// The corpus upload.
    pub corpus: FileData,
    /// The learned table upload.
    pub learned: FileData,
    /// The model tokenizer upload.
    pub tokenizer: FileData,
    /// The model folder upload (a bundle of its files).
    pub model_files: FileData,
    /// What each chart's last drawing left for hover.
    pub drawn: HashMap<ChartKind, Drawn>,
}

impl Runtime {
    /// A file slot's data.
    pub fn file(&mut self, slot: Slot) -> &mut FileData {
        match slot {
            Slot::Corpus => &mut self.corpus,
            Slot::Learned => &mut self.learned,
            Slot::Tokenizer => &mut self.tokenizer,
            Slot::Model => &mut self.model_files,
        }
    }
}

thread_local! {
    static RT: RefCell<Option<Runtime>> = const { RefCell::new(None) };
}

/// Builds the controls and installs the runtime.
pub fn install(els: Elements) {
    let controls = controls::build(&els);
    let rt = Runtime {
        els: Rc::new(els),
        controls,
        model: Model::default(),
        worker: None,
        learn_workers: Vec::new(),
        corpus: FileData::default(),
        learned: FileData::default(),
        tokenizer: FileData::default(),
        model_files: FileData::default(),
        drawn: HashMap::new(),
    };
    RT.with(|r| *r.borrow_mut() = Some(rt));
}

/// Runs `f` on the runtime (None before start). Never nest: effects are performed outside.
pub fn with<R>(f: impl FnOnce(&mut Runtime) -> R) -> Option<R> {
    RT.with(|r| r.try_borrow_mut().ok().and_then(|mut rt| rt.as_mut().map(f)))
}

/// The elements, the results on screen and the view, when there are results.
pub fn shown() -> Option<(Rc<Elements>, Rc<crate::protocol::Payload>, crate::app::View)> {
    with(|rt| rt.model.results.clone().map(|p| (rt.els.clone(), p, rt.model.view.clone()))).flatten()
}

/// The page's elements.
pub fn els() -> Option<Rc<Elements>> {
    with(|rt| rt.els.clone())
}

/// A start-up failure: the page cannot work (index.html lacks an element). Said on the page.
pub fn fatal(missing: &str) {
    let msg = format!("posgeo cannot start: the page is missing {missing}");
    if let Some(body) = super::document().and_then(|d| d.body()) {
        if let Some(p) = super::make("p", &msg) {
            p.set_id("fatal");
            body.prepend_with_node_1(&p).ok();
        }
    }
}

thread_local! {
    /// Messages dispatched while the runtime was borrowed (an event fired from inside another's
    /// handling), applied in order once it is free.
    static QUEUED: RefCell<VecDeque<Msg>> = const { RefCell::new(VecDeque::new()) };
}

/// Applies a message and performs what it asks for. A message that arrives while another is
/// being applied (the runtime is borrowed) is queued, never dropped, and applied right after.
pub fn dispatch(msg: Msg) {
    if RT.with(|r| r.try_borrow_mut().is_err()) {
        let first = QUEUED.with(|q| {
            let mut q = q.borrow_mut();
            q.push_back(msg);
            q.len() == 1
        });
        if first {
            // Applied by the dispatch under way when it ends, else by this task.
            super::later(drain);
        }
        return;
    }
    if let Some(effects) = with(|rt| update(&mut rt.model, msg)) {
        for e in effects {
            perform(e);
        }
    }
    drain();
}

/// Applies the queued messages, in order.
fn drain() {
    while let Some(next) = QUEUED.with(|q| q.borrow_mut().pop_front()) {
        dispatch(next);
    }
}

/// How many messages wait for the runtime (a test reads it).
pub fn queued() -> usize {
    QUEUED.with(|q| q.borrow().len())
}

fn set_status(els: &Elements, state: &str, text: &str) {
    els.status.set_attribute("data-state", state).ok();
    els.status.set_text_content(Some(text));
    super::lecture::status(state, text);
}

/// Carries out one effect.
pub fn perform(effect: Effect) {
    let Some(els) = els() else { return };
    match effect {
        Effect::ShowForm(form, map) => {
            with(|rt| controls::show_form(rt, &form, map));
        }
        Effect::Status(s, text) => set_status(&els, s.as_str(), &text),
        Effect::Error(message) => {
            els.error.set_text_content(message.as_deref());
            els.error.set_hidden(message.is_none());
            if let Some(m) = &message {
                super::lecture::status("error", m);
            }
        }
        Effect::Progress(v) => {
            els.progress.set_attribute("value", &format!("{v:.3}")).ok();
        }
        Effect::Estimate(text) => els.estimate.set_text_content(Some(&text)),
        Effect::CancelEnabled(on) => {
            if on {
                els.cancel.remove_attribute("disabled").ok();
            } else {
                els.cancel.set_attribute("disabled", "").ok();
            }
        }
        Effect::FileInfo(slot, text) => els.file(slot).info.set_text_content(Some(&text)),
        Effect::ReadFile(slot) => files::read(slot),
        Effect::Clear(slot) => files::clear(&els, slot),
        Effect::FetchShipped(slot) => files::fetch_shipped(slot),
        Effect::FetchModel(which) => super::download::fetch_model(which),
        Effect::SetControl(id, value) => {
            with(|rt| controls::set_control(rt, id, &value));
        }
        Effect::SelectSource(source) => {
            with(|rt| controls::select_source(rt, source));
        }
        Effect::Post(job) => bridge::post(&job),
        Effect::RestartWorker => bridge::restart(),
        Effect::WarmHelpers => bridge::warm(),
        Effect::WriteUrl(query) => {
            if let Some(h) = web_sys::window().and_then(|w| w.history().ok()) {
                h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&query)).ok();
            }
            els.share.set_attribute("href", &query).ok();
        }
        Effect::RenderResults(id) => render::results(id),
        Effect::RenderTable => render::table(),
        Effect::Draw(kind) => {
            render::draw(kind);
            super::lecture::redraw(kind);
        }
        Effect::ShowLecture(step) => super::lecture::show(step),
        Effect::ShowMap(map) => {
            with(|rt| controls::show_map(rt, map));
        }
        Effect::Download(export) => render::download(export),
        Effect::ShowDemo(shown) => {
            els.demo.order.set_text_content(Some(&shown.order));
            let r = &els.demo.result;
            r.set_text_content(Some(&shown.text));
            r.set_attribute("data-equivariance-error", &format!("{:?}", shown.equivariance_error)).ok();
            r.set_attribute("data-readout-change", &format!("{:?}", shown.readout_change)).ok();
        }
        Effect::Learn(e) => super::learn::perform(e),
    }
}
