//! The lecture view on the page (`web::view::lecture` decides what each step says): its
//! steps built at start from `lecture::STEPS`, one shown at a time, the current step filled
//! and its charts drawn on its own canvases, and its controls (corpus, encoding, rank).

use super::elements::by_id;
use super::render::draw_into;
use super::runtime::{self, dispatch};
use super::{controls, make, now, on};
use crate::app::{Msg, SourceKind};
use crate::view::charts::ChartKind;
use crate::view::learn::LearnChart;
use crate::view::lecture::{content, parse_hash, Block, SCATTER_STEP, STEPS, TRAIN_STEP};
use wasm_bindgen::JsCast;
use web_sys::{Document, Element, Event, HtmlCanvasElement, HtmlElement, HtmlInputElement, HtmlSelectElement};

/// One step's elements.
pub struct StepEls {
    /// `[data-lecture-step="N"]`.
    pub section: HtmlElement,
    /// Its text and tables.
    pub body: Element,
    /// Its canvases.
    pub canvases: Vec<(ChartKind, HtmlCanvasElement)>,
    /// The Learn panel's charts it draws (the scatter of step [`SCATTER_STEP`], the map and
    /// the tables' curves of step [`TRAIN_STEP`]), hidden until there is something to draw.
    pub learn: Vec<(LearnChart, Element, HtmlCanvasElement)>,
}

/// The lecture view's elements.
pub struct LectureEls {
    /// `#lecture`.
    pub root: HtmlElement,
    /// "step N of M".
    pub position: Element,
    /// Status and errors while lecturing (the dashboard's are hidden).
    pub status: Element,
    /// The corpus picker.
    pub corpus: HtmlSelectElement,
    /// The encoding picker of the geometry step.
    pub encoding: HtmlSelectElement,
    /// The rank slider of the low-rank step.
    pub rank: HtmlInputElement,
    /// Previous / next buttons.
    pub prev: Element,
    /// Next.
    pub next: Element,
    /// Every step.
    pub steps: Vec<StepEls>,
}

fn cast<T: JsCast>(e: Element, what: &str) -> Result<T, String> {
    e.dyn_into::<T>().map_err(|_| format!("a {what} that could not be created"))
}

/// Builds the steps into `#lecture-steps` (before the page collects its download buttons,
/// so each step's buttons work like the dashboard's).
pub fn build(d: &Document) -> Result<LectureEls, String> {
    let container: Element = by_id(d, "lecture-steps")?;
    let mut steps = Vec::new();
    for (k, step) in STEPS.iter().enumerate() {
        let n = k + 1;
        let section: HtmlElement = cast(make("section", "").ok_or("a step")?, "step")?;
        section.set_attribute("data-lecture-step", &n.to_string()).ok();
        section.set_hidden(true);
        let heading = make("h2", step.title).ok_or("a heading")?;
        section.append_child(&heading).ok();
        let body = make("div", "").ok_or("a step body")?;
        body.set_class_name("lecture-body");
        section.append_child(&body).ok();
        let extra = match n {
            6 => Some(by_id::<Element>(d, "lecture-encoding-box")?),
            8 => Some(by_id::<Element>(d, "lecture-rank-box")?),
            n if n == TRAIN_STEP.0 => Some(train_button()?),
            _ => None,
        };
        if let Some(e) = extra {
            section.append_child(&e).ok();
        }
        let charts = make("div", "").ok_or("a chart row")?;
        charts.set_class_name("lecture-charts");
        let mut canvases = Vec::new();
        for c in step.charts {
            let figure = make("figure", "").ok_or("a figure")?;
            let canvas: HtmlCanvasElement = cast(make("canvas", "").ok_or("a canvas")?, "canvas")?;
            canvas.set_width(c.size.0);
            canvas.set_height(c.size.1);
            canvas.set_attribute("data-chart-kind", c.kind.name()).ok();
            canvas.set_attribute("role", "img").ok();
            canvas.set_attribute("aria-label", c.kind.description()).ok();
            // Side by side, each figure's share of the width follows its canvas's.
            figure.set_attribute("style", &format!("flex-grow: {}", c.size.0)).ok();
            figure.append_child(&canvas).ok();
            let dl = make("div", "").ok_or("buttons")?;
            dl.set_class_name("dl");
            for kind in ["png", "svg"] {
                let b = make("button", &format!("{} {}", c.kind.name(), kind.to_uppercase())).ok_or("a button")?;
                b.set_attribute("type", "button").ok();
                b.set_attribute("data-chart", c.kind.name()).ok();
                b.set_attribute("data-kind", kind).ok();
                dl.append_child(&b).ok();
            }
            figure.append_child(&dl).ok();
            charts.append_child(&figure).ok();
            canvases.push((c.kind, canvas));
        }
        let mut learn = Vec::new();
        if n == SCATTER_STEP.0 {
            learn.push(learn_figure(&charts, LearnChart::Scatter, (SCATTER_STEP.1, SCATTER_STEP.2))?);
        }
        if n == TRAIN_STEP.0 {
            for kind in TRAIN_STEP.1 {
                learn.push(learn_figure(&charts, kind, (TRAIN_STEP.2, TRAIN_STEP.3))?);
            }
        }
        section.append_child(&charts).ok();
        container.append_child(&section).ok();
        steps.push(StepEls { section, body, canvases, learn });
    }
    Ok(LectureEls {
        root: by_id(d, "lecture")?,
        position: by_id(d, "lecture-position")?,
        status: by_id(d, "lecture-status")?,
        corpus: by_id(d, "lecture-corpus")?,
        encoding: by_id(d, "lecture-encoding")?,
        rank: by_id(d, "lecture-rank")?,
        prev: by_id(d, "lecture-prev")?,
        next: by_id(d, "lecture-next")?,
        steps,
    })
}

/// Step [`TRAIN_STEP`]'s Train button: the lecture preset, trained in place.
fn train_button() -> Result<Element, String> {
    let b = make("button", "Train the lecture preset here").ok_or("a button")?;
    b.set_attribute("type", "button").ok();
    b.set_attribute("id", "lecture-train").ok();
    on(&b.clone().into(), "click", |_: Event| {
        let cores = super::learn_bridge::cores();
        let form = controls::read_form();
        dispatch(Msg::Learn(crate::app::learn::LearnMsg::Preset { form, at: now(), cores }));
    });
    Ok(b)
}

/// A Learn panel chart in a step: a canvas and its downloads (`data-learn-chart` buttons,
/// which the Learn panel wires as its own), hidden until there is something to draw.
fn learn_figure(
    charts: &Element,
    kind: LearnChart,
    (w, h): (u32, u32),
) -> Result<(LearnChart, Element, HtmlCanvasElement), String> {
    let figure = make("figure", "").ok_or("a figure")?;
    let canvas: HtmlCanvasElement = cast(make("canvas", "").ok_or("a canvas")?, "canvas")?;
    canvas.set_width(w);
    canvas.set_height(h);
    canvas.set_attribute("data-chart-kind", kind.name()).ok();
    canvas.set_attribute("role", "img").ok();
    canvas.set_attribute("aria-label", kind.description()).ok();
    figure.append_child(&canvas).ok();
    let dl = make("div", "").ok_or("buttons")?;
    dl.set_class_name("dl");
    for format in ["png", "svg"] {
        let b = make("button", &format!("{} {}", kind.name(), format.to_uppercase())).ok_or("a button")?;
        b.set_attribute("type", "button").ok();
        b.set_attribute("data-learn-chart", kind.name()).ok();
        b.set_attribute("data-kind", format).ok();
        dl.append_child(&b).ok();
    }
    figure.append_child(&dl).ok();
    figure.set_attribute("style", &format!("flex-grow: {w}; display: none")).ok();
    charts.append_child(&figure).ok();
    Ok((kind, figure, canvas))
}

/// Draws a Learn panel chart into its step: the scatter once there is an experiment, the
/// others once a training has records (while it runs too, so the tables move).
fn draw_learn((kind, figure, canvas): &(LearnChart, Element, HtmlCanvasElement)) {
    use plotters::prelude::IntoDrawingArea;
    let Some(d) = runtime::with(|rt| rt.model.learning.shown()) else { return };
    // Hidden by its style: the lecture's figures are laid out as flex items, whatever `hidden` says.
    let w = canvas.width();
    let empty = match kind {
        LearnChart::Scatter => d.experiment.is_none(),
        _ => d.runs.iter().all(|r| r.records.iter().all(|x| x.table.is_none())),
    };
    if empty {
        figure.set_attribute("style", &format!("flex-grow: {w}; display: none")).ok();
        return;
    }
    figure.set_attribute("style", &format!("flex-grow: {w}")).ok();
    if let Some(backend) = super::render::MeasuredCanvas::new(canvas) {
        let root = backend.into_drawing_area();
        if let Err(e) = crate::view::learn::draw_on(*kind, &root, &d) {
            canvas.set_attribute("data-error", &e).ok();
        }
        root.present().ok();
    }
}

/// Redraws the open step's Learn panel charts (as a training's records arrive).
pub fn draw_learn_charts() {
    let open = runtime::with(|rt| rt.model.view.lecture).flatten();
    let Some(els) = runtime::els() else { return };
    if let Some(step) = open.and_then(|n| els.lecture.steps.get(n - 1)) {
        step.learn.iter().for_each(draw_learn);
    }
}

/// Opens the lecture at `step` or, with `None`, goes back to the dashboard.
pub fn show(step: Option<usize>) {
    let Some(els) = runtime::els() else { return };
    let l = &els.lecture;
    if let Some(body) = super::document().and_then(|d| d.body()) {
        body.class_list().toggle_with_force("lecturing", step.is_some()).ok();
    }
    l.root.set_hidden(step.is_none());
    for (k, s) in l.steps.iter().enumerate() {
        s.section.set_hidden(step != Some(k + 1));
    }
    if let Some((s, _)) = els.sources.iter().find(|(_, radio)| radio.checked()) {
        l.corpus.set_value(s.control().trim_start_matches("src-"));
    }
    if let Some(n) = step {
        l.position.set_text_content(Some(&format!("step {n} of {}", STEPS.len())));
        render();
    }
}

/// Fills the open step from the results on screen and draws its charts.
pub fn render() {
    let Some((els, p, view)) = runtime::shown() else { return };
    let Some(n) = view.lecture else { return };
    let Some(step) = els.lecture.steps.get(n - 1) else { return };
    step.body.set_text_content(None);
    let learned = runtime::with(|rt| rt.model.learning.results.clone()).flatten();
    for block in content(n, &p, &view, learned.as_deref()) {
        if let Some(e) = block_element(&block) {
            step.body.append_child(&e).ok();
        }
    }
    let l = &els.lecture;
    l.encoding.set_text_content(None);
    for name in &p.report.encoding_order {
        if let Some(o) = make("option", name) {
            o.set_attribute("value", name).ok();
            l.encoding.append_child(&o).ok();
        }
    }
    l.encoding.set_value(view.shepard_for(&p));
    let r = &p.report;
    l.rank.set_max(&r.effective_rank.max(1).to_string());
    if let Some(e) = r.encodings.get("pmds_r") {
        l.rank.set_value(&e.dim.to_string());
    }
    if n == posgeo::report::STEP_BIOLOGY {
        // Two corpora side by side: each canvas draws its corpus's last run, or nothing yet.
        for (k, (kind, canvas)) in step.canvases.iter().enumerate() {
            let figure = canvas.parent_element();
            let shown = crate::view::lecture::biology::payload_of(&view.corpora, k);
            if let Some(f) = &figure {
                f.toggle_attribute_with_force("data-empty", shown.is_none()).ok();
            }
            if let Some(q) = shown {
                draw_into(*kind, canvas, q, &view).ok();
            }
        }
    } else {
        for (kind, canvas) in &step.canvases {
            draw_into(*kind, canvas, &p, &view).ok();
        }
    }
    step.learn.iter().for_each(draw_learn);
}

/// Redraws `kind` if the open step shows it.
pub fn redraw(kind: ChartKind) {
    let open = runtime::with(|rt| rt.model.view.lecture).flatten();
    let Some(els) = runtime::els() else { return };
    if let Some(step) = open.and_then(|n| els.lecture.steps.get(n - 1)) {
        if step.canvases.iter().any(|(k, _)| *k == kind) {
            render();
        }
    }
}

fn block_element(block: &Block) -> Option<Element> {
    match block {
        Block::Text(t) => make("p", t),
        Block::Grid(head, rows) => {
            let table = make("table", "")?;
            let tr = make("tr", "")?;
            for h in head {
                let th = make("th", h)?;
                tr.append_child(&th).ok();
            }
            table.append_child(&tr).ok();
            for row in rows {
                let tr = make("tr", "")?;
                for cell in row {
                    let td = make("td", cell)?;
                    tr.append_child(&td).ok();
                }
                table.append_child(&tr).ok();
            }
            Some(table)
        }
    }
}

/// Keys, the hash, the bar's buttons and the step controls.
pub fn wire() {
    let Some(els) = runtime::els() else { return };
    let Some(window) = web_sys::window() else { return };
    on(window.as_ref(), "hashchange", |_: Event| dispatch(Msg::Lecture(current_hash())));
    if let Some(doc) = super::document() {
        on(doc.as_ref(), "keydown", |e: web_sys::KeyboardEvent| {
            let open = runtime::with(|rt| rt.model.view.lecture.is_some()).unwrap_or(false);
            let key = e.key();
            // Arrows and Space belong to a focused field; clickers' PageUp/PageDown always turn.
            let in_field = e
                .target()
                .and_then(|t| t.dyn_into::<Element>().ok())
                .is_some_and(|t| matches!(t.tag_name().as_str(), "INPUT" | "SELECT" | "TEXTAREA" | "BUTTON"));
            let clicker = matches!(key.as_str(), "PageUp" | "PageDown" | "Escape");
            let turns = clicker || crate::view::lecture::after_key(1, &key).is_some();
            if open && turns && (clicker || !in_field) {
                e.prevent_default();
                dispatch(Msg::LectureKey(key));
            }
        });
    }
    let l = &els.lecture;
    on(l.prev.as_ref(), "click", |_: Event| dispatch(Msg::LectureKey("ArrowLeft".into())));
    on(l.next.as_ref(), "click", |_: Event| dispatch(Msg::LectureKey("ArrowRight".into())));
    let pick = l.encoding.clone();
    on(l.encoding.as_ref(), "change", move |_: Event| dispatch(Msg::ShepardPicked(pick.value())));
    let corpus = l.corpus.clone();
    on(l.corpus.as_ref(), "change", move |_: Event| switch_corpus(&corpus.value()));
    let rank = l.rank.clone();
    on(l.rank.as_ref(), "input", move |_: Event| set_rank(&rank.value()));
}

/// The lecture step in the page's current hash.
pub fn current_hash() -> Option<usize> {
    parse_hash(&web_sys::window()?.location().hash().ok()?)
}

/// The lecture's corpus picker: selects that source on the dashboard's form and runs.
fn switch_corpus(value: &str) {
    let Some(els) = runtime::els() else { return };
    let wanted = SourceKind::ALL.into_iter().find(|s| s.control() == format!("src-{value}"));
    if let Some((_, radio)) = els.sources.iter().find(|(s, _)| Some(*s) == wanted) {
        radio.set_checked(true);
    }
    match wanted {
        Some(SourceKind::Proteins) => dispatch(Msg::Proteins { form: controls::read_form(), at: now() }),
        _ => dispatch(Msg::Run { form: controls::read_form(), at: now() }),
    }
}

/// The rank slider: sets the rank option and updates live.
fn set_rank(value: &str) {
    let id = posgeo::options::ANALYSIS.iter().find(|o| o.name == "rank").map(|o| o.control);
    let control = runtime::with(|rt| rt.controls.iter().find(|(c, _)| Some(*c) == id).map(|(_, e)| e.clone()));
    if let Some(input) = control.flatten().and_then(|e| e.dyn_into::<HtmlInputElement>().ok()) {
        input.set_value(value);
    }
    dispatch(Msg::Live { form: controls::read_form(), at: now() });
}

/// Mirrors the status line (and errors) into the lecture's bar.
pub fn status(state: &str, text: &str) {
    let Some(els) = runtime::els() else { return };
    els.lecture.status.set_attribute("data-state", state).ok();
    els.lecture.status.set_text_content(Some(text));
}
