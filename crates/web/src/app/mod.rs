//! The page's logic as an owned [`Model`] driven by [`Msg`]s through one pure function,
//! [`update`], which answers with [`Effect`]s for the DOM layer (`web::dom`) to perform — in
//! the manner of yew's examples, without a framework. Nothing here touches the DOM, so every
//! rule of the page (run, supersede, cancel, errors that keep the last results, a file still
//! being read, the link) is tested natively (`app/tests.rs`).

mod effect;
pub mod form;
pub mod learn;
mod run;
mod slots;

pub use super::view::state::View;
pub use super::view::theorem;
pub use effect::Effect;

pub use form::{FileOptions, Form, SourceKind};
pub use slots::shipped_model_name;

use super::protocol::{Payload, Request, Response};
use super::url::PageState;
use super::view::charts::{ChartKind, MapView};
use super::view::export::Export;
use super::view::lecture;
use super::view::table::Column;
use std::rc::Rc;

/// Files above this size are refused before reading (the tab would run out of memory).
pub const MAX_FILE_BYTES: f64 = 1024.0 * 1024.0 * 1024.0;
/// Degrees the 3-D map turns per pixel dragged.
pub const DRAG_DEGREES_PER_PIXEL: f64 = 0.5;

/// Which file input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// The corpus upload (`#file-input`, or a file dropped on `#drop-zone`).
    Corpus,
    /// The learned position table (`#learned-input`).
    Learned,
    /// A model's tokenizer.json (`#tokenizer-input`).
    Tokenizer,
    /// A model folder's files, sent as one bundle (`#model-input`, or dropped together on
    /// `#drop-zone`): its layers (docs/MATH.md §14).
    Model,
}

impl Slot {
    /// The shipped file of this slot (all-MiniLM-L6-v2's), as a URL relative to the page,
    /// with the name the page shows; the corpus has none, and the whole models are
    /// [`posgeo::demos::preset::ShippedModel`]s.
    pub fn shipped(self) -> Option<(String, String)> {
        use posgeo::demos::preset::{MODEL_DIR, MODEL_NAME, TABLE_FILE, TOKENIZER_FILE};
        let file = match self {
            Slot::Corpus | Slot::Model => return None,
            Slot::Learned => TABLE_FILE,
            Slot::Tokenizer => TOKENIZER_FILE,
        };
        Some((format!("{MODEL_DIR}/{file}"), format!("{MODEL_NAME} {}", file.trim_end_matches(".gz"))))
    }
}

/// A file input's state; the bytes themselves stay in the DOM layer.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum FileSlot {
    /// Nothing chosen.
    #[default]
    Empty,
    /// Chosen, being read.
    Reading(String),
    /// Read; its name.
    Loaded(String),
}

/// `#status`'s `data-state`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Nothing running (after a cancel).
    Idle,
    /// A run (or its drawing) is under way.
    Running,
    /// The last run is on screen.
    Done,
    /// The last run failed (earlier results stay).
    Error,
}

impl Status {
    /// The attribute value.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Idle => "idle",
            Status::Running => "running",
            Status::Done => "done",
            Status::Error => "error",
        }
    }
}

/// Where a job's corpus bytes come from (the DOM layer attaches them).
#[derive(Debug, Clone, PartialEq)]
pub enum CorpusData {
    /// No bytes (a built-in corpus).
    None,
    /// The pasted text.
    Text(String),
    /// The loaded corpus file.
    File,
}

/// A request for the worker, with what travels beside it.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    /// The request.
    pub request: Request,
    /// The corpus bytes.
    pub corpus: CorpusData,
    /// Whether the learned table's bytes go along.
    pub learned: bool,
    /// Whether the tokenizer's bytes go along.
    pub tokenizer: bool,
    /// Whether the model's files go along.
    pub model: bool,
}

/// The page's state.
#[derive(Debug, Default)]
pub struct Model {
    /// What the charts show besides the numbers.
    pub view: View,
    /// The last results (kept through errors and cancels).
    pub results: Option<Rc<Payload>>,
    /// The options of the last run started (what a link reproduces).
    pub shown: PageState,
    /// The corpus file input.
    pub corpus_file: FileSlot,
    /// The learned table input.
    pub learned_file: FileSlot,
    /// The model tokenizer input.
    pub tokenizer_file: FileSlot,
    /// The model folder input (its layers).
    pub model_file: FileSlot,
    /// The Learn panel (docs/MATH.md §16).
    pub learning: learn::Learning,
    running: Option<u32>,
    started: f64,
    last_id: u32,
    worker_ready: bool,
    /// A file for the helper workers was chosen before the worker was ready: it is asked
    /// to start them once it is.
    warm_pending: bool,
    queued: Vec<Job>,
    waiting: Option<(Form, f64)>,
    drag: Option<(i32, i32)>,
    /// The worker holds the geometry of the results shown (live updates can reuse it).
    geometry_kept: bool,
    /// A worker was asked for (the first is, once a run needs one or the shipped first
    /// results are drawn, so that it does not compete with that drawing).
    worker_started: bool,
    /// The run under way is a live update.
    live: bool,
    /// The latest live update waiting for the one under way.
    live_pending: Option<(Form, f64)>,
    /// The learned table of the last full run (a live update reuses it, so it must not change).
    run_learned: Option<crate::protocol::LearnedTable>,
    /// The tokenizer file of the last full run (likewise).
    run_tokenizer: Option<String>,
    /// The model of the last full run (likewise).
    run_model: Option<String>,
}

/// What can happen to the page.
#[derive(Debug, Clone, PartialEq)]
pub enum Msg {
    /// The page opened with this link state.
    Start(Box<PageState>),
    /// Run pressed (`at`: the page clock, ms).
    Run { form: Form, at: f64 },
    /// An encoding-only control moved (live parameters).
    Live { form: Form, at: f64 },
    /// Cancel pressed.
    Cancel,
    /// The worker says it is up.
    WorkerReady,
    /// A worker message (`at`: when it arrived).
    Worker { response: Response, at: f64 },
    /// The worker died (a trap, out of memory).
    WorkerDied(String),
    /// Every chart of run `id` is drawn.
    Rendered { id: u32, at: f64 },
    /// A file was chosen (size in bytes).
    FileChosen { slot: Slot, name: String, size: f64 },
    /// A chosen file is read; `detail` describes it ("safetensors, 2 matrices").
    FileLoaded { slot: Slot, name: String, size: f64, detail: String },
    /// A chosen file could not be read.
    FileUnreadable { slot: Slot, name: String },
    /// "remove table" / "remove tokenizer".
    Cleared(Slot),
    /// A "shipped" button: load all-MiniLM-L6-v2's file into this slot.
    UseShipped(Slot),
    /// A shipped model's button: fetch its files into [`Slot::Model`].
    UseShippedModel(posgeo::demos::preset::ShippedModel),
    /// The paper's setting: the form with the preset applied, the shipped tokenizer and
    /// table loaded, then a run.
    Preset { form: Form, at: f64 },
    /// The shipped proteins were picked: their options in the form, then a run.
    Proteins { form: Form, at: f64 },
    /// Flip the counting mode (pad ↔ condition) and run.
    FlipMode { form: Form, at: f64 },
    /// A column header clicked.
    Sort(Column),
    /// The Shepard picker changed.
    ShepardPicked(String),
    /// The map's overlay picker changed ("" for none).
    OverlayPicked(String),
    /// The layers chart's raw-σ toggle.
    LayersRaw(bool),
    /// The layers chart's measure (`#layers-measure`).
    LayersMeasure(posgeo_charts::LayerMeasure),
    /// The layer map's layer (`#layer-slider`).
    LayerMap(usize),
    /// The headline stress chart's raw-σ toggle.
    StressRaw(bool),
    /// The display changed (size, or light/dark): the table and every chart again.
    Restyle,
    /// The map's switch or sliders moved.
    MapMoved(MapView),
    /// The map's switch or sliders were let go.
    MapSettled,
    /// Mouse down on the map.
    DragStart { x: i32, y: i32 },
    /// Mouse moved on the map.
    DragMove { x: i32, y: i32 },
    /// Mouse up or out.
    DragEnd,
    /// An export button.
    Export(Export),
    /// The Theorem 1 sentence was edited.
    DemoText(String),
    /// The Theorem 1 signal was picked.
    DemoSignal(posgeo::demos::theorem::Signal),
    /// A Theorem 1 reordering button.
    DemoReorder(theorem::Reorder),
    /// The location hash changed (or the page opened with one): `Some(step)` opens the
    /// lecture view at that step, `None` closes it.
    Lecture(Option<usize>),
    /// A key pressed while the lecture view is open (`KeyboardEvent.key`).
    LectureKey(String),
    /// Something for the Learn panel.
    Learn(learn::LearnMsg),
}

/// The whole page logic: applies `msg` to `m` and says what to show.
pub fn update(m: &mut Model, msg: Msg) -> Vec<Effect> {
    match msg {
        Msg::Start(state) => run::start(m, *state),
        Msg::Run { form, at } => run::run(m, form, at),
        Msg::Live { form, at } => run::live(m, form, at),
        Msg::Cancel => run::cancel(m),
        Msg::WorkerReady => {
            m.worker_ready = true;
            let warm = std::mem::take(&mut m.warm_pending).then_some(Effect::WarmHelpers);
            warm.into_iter().chain(m.queued.drain(..).map(|j| Effect::Post(Box::new(j)))).collect()
        }
        Msg::Worker { response, at } => run::worker_said(m, response, at),
        Msg::WorkerDied(message) => run::worker_died(m, &message),
        Msg::Rendered { id, at } => run::rendered(m, id, at),
        Msg::FileChosen { slot, name, size } => slots::file_chosen(m, slot, name, size),
        Msg::FileLoaded { slot, name, size, detail } => slots::file_loaded(m, slot, name, size, &detail),
        Msg::FileUnreadable { slot, name } => slots::file_unreadable(m, slot, &name),
        Msg::Cleared(slot) => slots::cleared(m, slot),
        Msg::UseShipped(slot) => slots::use_shipped(m, slot),
        Msg::UseShippedModel(which) => slots::use_shipped_model(m, which),
        Msg::Preset { form, at } => run::preset(m, form, at),
        Msg::Proteins { form, at } => run::proteins(m, form, at),
        Msg::FlipMode { form, at } => run::flip_mode(m, form, at),
        Msg::Sort(column) => {
            m.view.sort = m.view.sort.toggled(column);
            vec![Effect::RenderTable]
        }
        Msg::ShepardPicked(name) => {
            m.view.shepard = Some(name);
            vec![Effect::Draw(ChartKind::Shepard), Effect::Draw(ChartKind::Geometry), Effect::WriteUrl(m.link())]
        }
        Msg::OverlayPicked(name) => redraw(m, ChartKind::Map, |v| v.overlay = Some(name).filter(|n| !n.is_empty())),
        Msg::LayersRaw(raw) => redraw(m, ChartKind::Layers, |v| v.layers_raw = raw),
        Msg::LayersMeasure(measure) => redraw(m, ChartKind::Layers, |v| v.layers_measure = measure),
        Msg::LayerMap(layer) => redraw(m, ChartKind::LayerMap, |v| v.layer_map = Some(layer)),
        Msg::Restyle => {
            let draws = crate::view::charts::ChartKind::ALL.iter().map(|&k| Effect::Draw(k));
            let dashboard = std::iter::once(Effect::RenderTable).chain(draws).filter(|_| m.results.is_some());
            dashboard.chain([Effect::Learn(learn::LearnEffect::Draw)]).collect()
        }
        Msg::StressRaw(raw) => redraw(m, ChartKind::Stress, |v| v.stress_raw = raw),
        Msg::MapMoved(view) => redraw(m, ChartKind::Map, |v| v.map = view),
        Msg::MapSettled => vec![Effect::WriteUrl(m.link())],
        Msg::DragStart { x, y } => {
            m.drag = m.view.map.three_d.then_some((x, y));
            Vec::new()
        }
        Msg::DragMove { x, y } => drag(m, x, y),
        Msg::DragEnd => m.drag.take().map(|_| Effect::WriteUrl(m.link())).into_iter().collect(),
        Msg::Export(e) => m.results.is_some().then_some(Effect::Download(e)).into_iter().collect(),
        Msg::DemoText(text) => {
            m.view.demo.text = text;
            m.view.demo.reorder(theorem::Reorder::Original);
            vec![Effect::ShowDemo(m.view.demo.show())]
        }
        Msg::DemoSignal(signal) => {
            m.view.demo.signal = signal;
            vec![Effect::ShowDemo(m.view.demo.show())]
        }
        Msg::DemoReorder(how) => {
            m.view.demo.reorder(how);
            vec![Effect::ShowDemo(m.view.demo.show())]
        }
        Msg::Lecture(step) => {
            m.view.lecture = step;
            vec![Effect::ShowLecture(step)]
        }
        Msg::LectureKey(key) => lecture_key(m, &key),
        Msg::Learn(msg) => learn::update(m, msg),
    }
}

/// A view setting changed: `kind` is drawn again.
fn redraw(m: &mut Model, kind: ChartKind, set: impl FnOnce(&mut View)) -> Vec<Effect> {
    set(&mut m.view);
    vec![Effect::Draw(kind)]
}

/// A key while the lecture is open: a step forward or back, or Escape to the dashboard.
fn lecture_key(m: &mut Model, key: &str) -> Vec<Effect> {
    let open = m.view.lecture;
    let next = match (open, key) {
        (Some(_), "Escape") => None,
        (Some(n), _) => match lecture::after_key(n, key) {
            Some(next) => Some(next),
            None => return Vec::new(),
        },
        (None, _) => return Vec::new(),
    };
    m.view.lecture = next;
    vec![Effect::ShowLecture(next), Effect::WriteUrl(m.link())]
}

fn drag(m: &mut Model, x: i32, y: i32) -> Vec<Effect> {
    let Some((x0, y0)) = m.drag else { return Vec::new() };
    m.drag = Some((x, y));
    let v = &mut m.view.map;
    let yaw = f64::from(v.yaw) + f64::from(x - x0) * DRAG_DEGREES_PER_PIXEL;
    let pitch = f64::from(v.pitch) + f64::from(y - y0) * DRAG_DEGREES_PER_PIXEL;
    v.yaw = ((yaw + 540.0).rem_euclid(360.0) - 180.0).round() as i32;
    v.pitch = pitch.clamp(-90.0, 90.0).round() as i32;
    vec![Effect::ShowMap(*v), Effect::Draw(ChartKind::Map)]
}

impl Model {
    /// The query string (`?…`) of what is on screen: the last run's options and the view.
    pub fn link(&self) -> String {
        let mut st = self.shown.clone();
        st.shepard = self.view.shepard.clone();
        st.map3d = self.view.map.three_d.then_some((self.view.map.yaw, self.view.map.pitch));
        let pairs: Vec<String> = st
            .to_pairs()
            .iter()
            .map(|(k, v)| format!("{}={}", super::url::form_encode(k), super::url::form_encode(v)))
            .collect();
        let hash = self.view.lecture.map(lecture::hash).unwrap_or_default();
        format!("?{}{hash}", pairs.join("&"))
    }

    /// Whether a run is under way.
    pub fn is_running(&self) -> bool {
        self.running.is_some()
    }
}

#[cfg(test)]
mod tests;
