//! The Learn panel on the page (docs/MATH.md §16): its elements, the effects of
//! [`crate::app::learn`] (status, progress, the results table with full-precision
//! `data-value`s, the finding, the charts, downloads) and its listeners. The training worker
//! is [`super::learn_bridge`]'s.

use super::elements::by_id;
use super::render::{nominal, MeasuredCanvas};
use super::{download as offer, download_url, make, now, on, runtime};
use crate::app::learn::{LearnChart, LearnData, LearnEffect, LearnExport, LearnMsg};
use crate::app::Msg;
use crate::view::export::ImageFormat;
use crate::view::learn::{draw_on, finding, rows, LearnRow};
use plotters::prelude::IntoDrawingArea;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element, Event, EventTarget, HtmlCanvasElement};

/// The panel's elements.
pub struct LearnEls {
    /// `#learn-options`, where the option controls are built.
    pub options: Element,
    /// `#learn-preset`: the lecture preset, then Train.
    pub preset: Element,
    /// `#learn-run`.
    pub run: Element,
    /// `#learn-cancel`.
    pub cancel: Element,
    /// `#learn-status`.
    pub status: Element,
    /// `#learn-estimate`: the time estimate of the options.
    pub estimate: Element,
    /// `#learn-progress`.
    pub progress: Element,
    /// `#learn-table tbody`.
    pub table_body: Element,
    /// `#learn-finding`.
    pub finding: Element,
    /// `#learn-claims`: the paper's training claims on this experiment.
    pub claims: Element,
    /// `#chart-learn-*`.
    pub charts: Vec<(LearnChart, HtmlCanvasElement)>,
    /// The download buttons (`button[data-learn-chart]`, `#export-learn-csv`,
    /// `#export-learn-tables`).
    pub buttons: Vec<(LearnExport, Element)>,
}

impl LearnEls {
    /// Looks the panel's elements up; the error names the first one missing.
    pub fn find(d: &Document) -> Result<Self, String> {
        let charts = LearnChart::ALL
            .iter()
            .map(|&k| {
                let canvas: HtmlCanvasElement = by_id(d, &format!("chart-{}", k.name()))?;
                canvas.set_attribute("aria-label", k.description()).ok();
                Ok((k, canvas))
            })
            .collect::<Result<Vec<_>, String>>()?;
        let mut buttons = vec![
            (LearnExport::Csv, by_id(d, "export-learn-csv")?),
            (LearnExport::Tables, by_id(d, "export-learn-tables")?),
        ];
        let found = d.query_selector_all("button[data-learn-chart]").map_err(|_| "button[data-learn-chart]")?;
        for b in (0..found.length()).filter_map(|k| found.item(k)?.dyn_into::<Element>().ok()) {
            let name = b.get_attribute("data-learn-chart").unwrap_or_default();
            let chart = LearnChart::parse(&name).ok_or(format!("a download button for an unknown chart {name:?}"))?;
            let format = if b.get_attribute("data-kind").as_deref() == Some("svg") {
                ImageFormat::Svg
            } else {
                ImageFormat::Png
            };
            buttons.push((LearnExport::Chart(chart, format), b));
        }
        Ok(LearnEls {
            options: by_id(d, "learn-options")?,
            run: by_id(d, "learn-run")?,
            preset: by_id(d, "learn-preset")?,
            cancel: by_id(d, "learn-cancel")?,
            status: by_id(d, "learn-status")?,
            estimate: by_id(d, "learn-estimate")?,
            progress: by_id(d, "learn-progress")?,
            table_body: d.query_selector("#learn-table tbody").ok().flatten().ok_or("#learn-table tbody")?,
            finding: by_id(d, "learn-finding")?,
            claims: by_id(d, "learn-claims")?,
            charts,
            buttons,
        })
    }
}

fn dispatch(msg: LearnMsg) {
    runtime::dispatch(Msg::Learn(msg));
}

/// Sends the form's options for a new time estimate.
pub fn reestimate() {
    dispatch(LearnMsg::Options { form: super::controls::read_form(), cores: super::learn_bridge::cores() });
}

/// What the charts show now.
fn shown() -> Option<LearnData> {
    runtime::with(|rt| rt.model.learning.shown())
}

/// Carries out one effect of the panel.
pub fn perform(effect: LearnEffect) {
    let Some(els) = runtime::els() else { return };
    let l = &els.learn;
    match effect {
        LearnEffect::Status(s, text) => {
            l.status.set_attribute("data-state", s.as_str()).ok();
            l.status.set_text_content(Some(&text));
        }
        LearnEffect::Progress(v) => {
            l.progress.set_attribute("value", &format!("{v:.3}")).ok();
        }
        LearnEffect::CancelEnabled(true) => {
            l.cancel.remove_attribute("disabled").ok();
        }
        LearnEffect::CancelEnabled(false) => {
            l.cancel.set_attribute("disabled", "").ok();
        }
        LearnEffect::StartWorkers(count) => {
            l.status.set_attribute("data-workers", &count.to_string()).ok();
            super::learn_bridge::start(count);
        }
        LearnEffect::StopWorkers => super::learn_bridge::stop(),
        LearnEffect::Post(k, job) => super::learn_bridge::post(k, &job),
        LearnEffect::Summarise(k, runs) => super::learn_bridge::summarise(k, &runs),
        LearnEffect::Render => {
            render(l);
            draw(l);
            // The lecture's training steps read the last results.
            if runtime::with(|rt| rt.model.view.lecture.is_some()) == Some(true) {
                super::lecture::render();
            }
        }
        LearnEffect::Draw => {
            draw(l);
            // Lecture step 13 draws the tables as they learn.
            super::lecture::draw_learn_charts();
        }
        LearnEffect::Download(e) => download(l, e),
        LearnEffect::Estimate(text) => l.estimate.set_text_content(Some(&text)),
        LearnEffect::Reestimate => reestimate(),
    }
}

/// The results table and the finding, from the last finished experiment.
fn render(l: &LearnEls) {
    let Some(Some(e)) = runtime::with(|rt| rt.model.learning.results.clone()) else { return };
    l.table_body.set_text_content(None);
    for row in rows(&e) {
        let Some(tr) = make("tr", "") else { continue };
        tr.set_attribute("data-signal", &row.signal).ok();
        tr.set_attribute("style", &format!("--encoding-color: {}", row.color)).ok();
        if let (Some(td), Some(swatch)) = (make("td", &row.signal), make("span", "")) {
            swatch.set_class_name("swatch");
            swatch.set_attribute("aria-hidden", "true").ok();
            td.prepend_with_node_1(&swatch).ok();
            tr.append_child(&td).ok();
        }
        for cell in &row.cells {
            if let Some(td) = make("td", &cell.text) {
                td.set_attribute("data-metric", cell.metric).ok();
                td.set_attribute("data-value", &cell.value).ok();
                tr.append_child(&td).ok();
            }
        }
        if let Some(td) = make("td", &row.seeds) {
            tr.append_child(&td).ok();
        }
        if let Some(td) = table_cell(&row) {
            tr.append_child(&td).ok();
        }
        l.table_body.append_child(&tr).ok();
    }
    let (text, rho) = finding(&e);
    l.finding.set_text_content(Some(&text));
    l.finding.set_attribute("data-rho", &rho).ok();
    super::render::claim_items(&l.claims, &posgeo_learn::claims::claims(&e));
}

/// A row's download cell: a `.npy` button per seed with a final table (`data-learn-npy`,
/// `data-seed`; one listener on the table body handles them), else a dash.
fn table_cell(row: &LearnRow) -> Option<Element> {
    let td = make("td", if row.tables.is_empty() { "—" } else { "" })?;
    for &seed in &row.tables {
        let label = if row.tables.len() > 1 { format!(".npy (seed {seed})") } else { ".npy".to_string() };
        let b = make("button", &label)?;
        b.set_attribute("type", "button").ok();
        b.set_attribute("data-learn-npy", &row.signal).ok();
        b.set_attribute("data-seed", &seed.to_string()).ok();
        b.set_attribute("aria-label", &format!("download the final {} table of seed {seed} as .npy", row.signal)).ok();
        td.append_child(&b).ok();
    }
    Some(td)
}

/// The export a click in the results table asks for, if it hit a `.npy` button.
fn table_export(e: &Event) -> Option<LearnExport> {
    let hit: Element = e.target()?.dyn_into().ok()?;
    let b = hit.closest("button[data-learn-npy]").ok()??;
    let signal = posgeo_learn::Signal::parse(&b.get_attribute("data-learn-npy")?)?;
    Some(LearnExport::Table(signal, b.get_attribute("data-seed")?.parse().ok()?))
}

/// Every chart of the panel, from what the page model shows.
fn draw(l: &LearnEls) {
    let Some(d) = shown() else { return };
    super::theme::apply();
    for (kind, canvas) in &l.charts {
        if let Some(backend) = MeasuredCanvas::new(canvas) {
            let root = backend.into_drawing_area();
            if let Err(e) = draw_on(*kind, &root, &d) {
                canvas.set_attribute("data-error", &e).ok();
            }
            root.present().ok();
        }
    }
}

/// Offers a download: a chart's canvas as PNG, or the file the view makes.
fn download(l: &LearnEls, export: LearnExport) {
    let Some(d) = shown() else { return };
    let canvas = match export {
        LearnExport::Chart(kind, _) => l.charts.iter().find(|(k, _)| *k == kind).map(|(_, c)| c.clone()),
        LearnExport::Csv | LearnExport::Table(..) | LearnExport::Tables => None,
    };
    let size = canvas.as_ref().map_or((640, 400), nominal);
    match export.file(&d, size) {
        None => {
            if let Some(url) = canvas.and_then(|c| c.to_data_url().ok()) {
                download_url(&export.file_name(), &url);
            }
        }
        Some(Ok(file)) => offer(&file.name, file.mime, &file.bytes),
        Some(Err(e)) => perform(LearnEffect::Status(crate::app::Status::Error, format!("error: {e}"))),
    }
}

/// The panel's listeners: Train (the whole form: the corpus and analysis options too),
/// Cancel, the downloads (the rows' `.npy` buttons through the table body).
pub fn wire(l: &LearnEls) {
    let target = |e: &Element| -> EventTarget { e.clone().into() };
    on(&target(&l.run), "click", |_: Event| {
        let cores = super::learn_bridge::cores();
        dispatch(LearnMsg::Train { form: super::controls::read_form(), at: now(), cores });
    });
    on(&target(&l.preset), "click", |_: Event| {
        let cores = super::learn_bridge::cores();
        dispatch(LearnMsg::Preset { form: super::controls::read_form(), at: now(), cores });
    });
    on(&target(&l.cancel), "click", |_: Event| dispatch(LearnMsg::Cancel));
    for kind in ["input", "change"] {
        on(&target(&l.options), kind, |_: Event| reestimate());
    }
    on(&target(&l.table_body), "click", |e: Event| {
        if let Some(export) = table_export(&e) {
            dispatch(LearnMsg::Export(export));
        }
    });
    for (export, b) in &l.buttons {
        let export = *export;
        on(&target(b), "click", move |_: Event| dispatch(LearnMsg::Export(export)));
    }
}
