//! Puts results on the page: the summary, the stress table, the Shepard picker, every chart
//! (a few per task, so the page never blocks for long), hover read-outs and downloads. What
//! to show comes from `web::view`; this module only writes it into the elements.

mod canvas;
mod layers;
mod measured;

pub use canvas::{draw, draw_into, hover};
pub use measured::{nominal, MeasuredCanvas};

use super::{download as offer, download_url, later, make, now, runtime};
use crate::app::{Effect, Msg};
use crate::view::charts::ChartKind;
use crate::view::export::{Export, ImageFormat};
use crate::view::table;

/// Everything for the results of run `id`; [`Msg::Rendered`] once the last chart is drawn.
pub fn results(id: u32) {
    let Some((els, p, view)) = runtime::shown() else { return };
    let r = &p.report;
    els.verdict.set_text_content(Some(&r.verdict()));
    els.summary.set_text_content(None);
    for line in r.summary_lines() {
        if let Some(e) = make("p", &line) {
            els.summary.append_child(&e).ok();
        }
    }
    let sel = &els.shepard_select;
    sel.set_text_content(None);
    for name in &r.encoding_order {
        if let Some(o) = make("option", name) {
            o.set_attribute("value", name).ok();
            sel.append_child(&o).ok();
        }
    }
    sel.set_value(view.shepard_for(&p));
    let over = &els.map_overlay;
    over.set_text_content(None);
    for (value, label) in std::iter::once(("", "none")).chain(r.encoding_order.iter().map(|n| (n.as_str(), n.as_str())))
    {
        if let Some(o) = make("option", label) {
            o.set_attribute("value", value).ok();
            over.append_child(&o).ok();
        }
    }
    over.set_value(view.overlay.as_deref().filter(|n| r.encodings.contains_key(*n)).unwrap_or(""));
    table();
    layers::render();
    claim_items(&els.claims, &r.claims());
    super::lecture::render();
    remember_shown();
    later(move || draw_from(0, id));
}

/// Keeps the displayed size of every dashboard chart (read in one layout).
pub fn remember_shown() {
    let Some(Some(canvases)) = runtime::with(|rt| {
        Some(ChartKind::ALL.iter().filter_map(|&k| rt.els.chart(k).map(|c| c.canvas.clone())).collect::<Vec<_>>())
    }) else {
        return;
    };
    measured::remember_shown(&canvases);
}

/// A claims list (the dashboard's `#claims`, the Learn panel's `#learn-claims`): per finding
/// an `li` with `data-claim`, `data-holds` (`true`, `false`, `na`) and `data-values` (the
/// numbers used, by report field, as JSON), its verdict, the finding, this corpus's numbers,
/// the paper's and a link to its lecture step (when the lecture has it).
pub fn claim_items(list: &web_sys::Element, claims: &[posgeo::report::Claim]) {
    list.set_text_content(None);
    for c in claims {
        let (holds, mark) = match c.holds {
            Some(true) => ("true", "✓ holds"),
            Some(false) => ("false", "✗ does not hold"),
            None => ("na", "– not determined here"),
        };
        let Some(li) = make("li", "") else { continue };
        li.set_attribute("data-claim", &c.key).ok();
        li.set_attribute("data-holds", holds).ok();
        li.set_attribute("data-values", &serde_json::to_string(&c.values).unwrap_or_default()).ok();
        let parts = [
            ("span", "claim-mark", mark.to_string()),
            ("strong", "claim-finding", c.finding.clone()),
            ("span", "claim-reason", c.reason.clone()),
            ("span", "claim-paper", format!("paper: {}", c.paper)),
        ];
        for (tag, class, text) in parts {
            if let Some(e) = make(tag, &text) {
                e.set_attribute("class", class).ok();
                li.append_child(&e).ok();
            }
        }
        let in_lecture = (1..=crate::view::lecture::STEPS.len()).contains(&c.step);
        if let Some(a) = make("a", &format!("lecture step {}", c.step)).filter(|_| in_lecture) {
            a.set_attribute("href", &crate::view::lecture::hash(c.step)).ok();
            li.append_child(&a).ok();
        }
        list.append_child(&li).ok();
    }
}

/// A task goes on drawing charts while it has run for less than this (ms): one chart per
/// task would let the browser lay out and paint the page between every two charts (each
/// time about 25 ms on a small machine), while a whole dashboard in one task would block
/// it for too long (the Long Tasks API counts tasks over 50 ms as long; none should pass
/// 100 ms).
const TASK_BUDGET_MS: f64 = 45.0;

/// Draws the charts from the k-th on while this task is within [`TASK_BUDGET_MS`], then
/// the rest in later tasks. The first task begins after the one that wrote the results'
/// text, so the summary and table show first.
fn draw_from(k: usize, id: u32) {
    let (start, mut k) = (now(), k);
    while let Some(&kind) = ChartKind::ALL.get(k) {
        if now() - start >= TASK_BUDGET_MS {
            return later(move || draw_from(k, id));
        }
        draw(kind);
        k += 1;
    }
    runtime::dispatch(Msg::Rendered { id, at: now() });
}

/// The stress table in the model's order.
pub fn table() {
    let Some((els, p, view)) = runtime::shown() else { return };
    super::theme::apply();
    let sort = view.sort;
    let body = &els.table_body;
    body.set_text_content(None);
    for row in table::rows(&p.report, sort) {
        let Some(tr) = make("tr", "") else { continue };
        tr.set_attribute("data-encoding", &row.name).ok();
        tr.set_attribute("style", &format!("--encoding-color: {}", row.color)).ok();
        for (k, text) in [&row.name, &row.dim, &row.parameters].into_iter().enumerate() {
            let Some(td) = make("td", text) else { continue };
            // The name cell starts with the encoding's colour, as in every chart.
            if let (0, Some(swatch)) = (k, make("span", "")) {
                swatch.set_class_name("swatch");
                swatch.set_attribute("aria-hidden", "true").ok();
                td.prepend_with_node_1(&swatch).ok();
            }
            tr.append_child(&td).ok();
        }
        for cell in &row.cells {
            let Some(td) = make("td", &cell.text) else { continue };
            td.set_attribute("data-metric", cell.metric).ok();
            td.set_attribute("data-value", &cell.value).ok();
            if !cell.greyed.is_empty() {
                if let Some(span) = make("span", &cell.greyed) {
                    span.set_class_name("insignificant");
                    td.append_child(&span).ok();
                }
                td.append_with_str_1(&cell.tail).ok();
                td.set_attribute(
                    "title",
                    "SMACOF stops within about 1e-6 of its minimum: digits below 1e-5 are not significant",
                )
                .ok();
            }
            tr.append_child(&td).ok();
        }
        body.append_child(&tr).ok();
    }
}

/// Offers a download.
pub fn download(export: Export) {
    let Some((els, p, view)) = runtime::shown() else { return };
    let canvas = match export {
        Export::Chart(kind, _) => els.chart(kind).map(|c| c.canvas.clone()),
        _ => None,
    };
    let size = canvas.as_ref().map_or((640, 400), measured::nominal);
    match (export, export.file(&p, &view, size)) {
        (Export::Chart(_, ImageFormat::Png), _) => {
            if let Some(url) = canvas.and_then(|c| c.to_data_url().ok()) {
                download_url(&export.file_name(&p), &url);
            }
        }
        (_, Some(Ok(file))) => offer(&file.name, file.mime, &file.bytes),
        (_, Some(Err(e))) => runtime::perform(Effect::Error(Some(e))),
        (_, None) => {}
    }
}
