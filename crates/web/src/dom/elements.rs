//! Every element the page uses, looked up once at start. A missing element is one start-up
//! error that names it (index.html and this file disagree), never a panic later.

use crate::app::{Slot, SourceKind};
use crate::view::charts::ChartKind;
use crate::view::export::{Export, ImageFormat};
use crate::view::table::Column;
use wasm_bindgen::JsCast;
use web_sys::{
    Document, Element, HtmlCanvasElement, HtmlElement, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement,
};

/// A model's per-layer controls and table, shown only when the results have a model.
#[derive(Clone)]
pub struct LayerEls {
    /// What the layers chart shows.
    pub measure: HtmlSelectElement,
    /// The layer map's ℓ.
    pub slider: HtmlInputElement,
    /// ℓ in words beside the slider (`#layer-slider-value`).
    pub slider_value: Element,
    /// `#layers-table tbody`.
    pub table_body: Element,
    /// Everything marked `data-model-only` (hidden without a model).
    pub model_only: Vec<Element>,
}

/// One chart's elements.
pub struct ChartEls {
    /// Which chart.
    pub kind: ChartKind,
    /// `#chart-<name>`.
    pub canvas: HtmlCanvasElement,
    /// `#readout-<name>`.
    pub readout: Element,
}

/// A file input with its info line.
pub struct FileEls {
    /// The `<input type=file>`.
    pub input: HtmlInputElement,
    /// Its status line.
    pub info: Element,
}

/// The Theorem 1 demonstration's elements.
pub struct DemoEls {
    pub text: HtmlInputElement,
    pub signal: HtmlSelectElement,
    pub buttons: Vec<(crate::app::theorem::Reorder, Element)>,
    pub order: Element,
    pub result: Element,
}

/// The page's elements.
pub struct Elements {
    pub status: Element,
    pub error: HtmlElement,
    pub progress: Element,
    pub estimate: Element,
    pub run: Element,
    pub cancel: Element,
    pub share: Element,
    pub sources: Vec<(SourceKind, HtmlInputElement)>,
    pub synth_box: Element,
    pub options_box: Element,
    pub corpus_input: HtmlTextAreaElement,
    pub drop_zone: Element,
    pub corpus_file: FileEls,
    pub file_format: HtmlSelectElement,
    pub file_column: HtmlSelectElement,
    pub file_field: HtmlInputElement,
    pub file_lossy: HtmlInputElement,
    pub learned_file: FileEls,
    pub learned_tensor: HtmlSelectElement,
    pub learned_clear: Element,
    pub learned_shipped: Element,
    pub tokenizer_file: FileEls,
    pub tokenizer_clear: Element,
    pub tokenizer_shipped: Element,
    pub model_file: FileEls,
    pub model_clear: Element,
    /// The shipped models' buttons (`#model-minilm`, `#model-smollm2`).
    pub model_shipped: Vec<(posgeo::demos::preset::ShippedModel, Element)>,
    pub model_progress: Element,
    pub preset: Element,
    pub flip_mode: Element,
    pub verdict: Element,
    /// The corpus inputs' group (`#group-corpus`, opened when the source needs it).
    pub corpus_group: Element,
    /// The model's group (`#group-model`).
    pub model_group: Element,
    /// The top bar's "a model…" button (`#topbar-model`).
    pub topbar_model: web_sys::HtmlElement,
    /// The paper's findings checked on this corpus (`#claims`, one `li[data-claim]` each).
    pub claims: Element,
    pub summary: Element,
    pub table_body: Element,
    pub sort_heads: Vec<(Column, Element)>,
    pub shepard_select: HtmlSelectElement,
    pub map_overlay: HtmlSelectElement,
    pub layers_raw: HtmlInputElement,
    /// The per-layer controls and table (`#layers-measure`, `#layer-slider`, `#layers-table`).
    pub layers: LayerEls,
    /// The headline stress chart's raw-σ toggle (`#stress-raw`).
    pub stress_raw: HtmlInputElement,
    pub map_3d: HtmlInputElement,
    pub map_yaw: HtmlInputElement,
    pub map_pitch: HtmlInputElement,
    pub charts: Vec<ChartEls>,
    pub chart_buttons: Vec<(Export, Element)>,
    pub export_buttons: Vec<(Export, Element)>,
    pub position_tokens: Element,
    pub demo: DemoEls,
    pub lecture: super::lecture::LectureEls,
    /// The Learn panel (`#learn`).
    pub learn: super::learn::LearnEls,
}

/// The element with this id, of this type; the error names it.
pub(super) fn by_id<T: JsCast>(doc: &Document, id: &str) -> Result<T, String> {
    let e = doc.get_element_by_id(id).ok_or_else(|| format!("#{id}"))?;
    e.dyn_into::<T>().map_err(|_| format!("#{id} (an element of another kind)"))
}

fn all(doc: &Document, selector: &str) -> Vec<Element> {
    let Ok(list) = doc.query_selector_all(selector) else { return Vec::new() };
    (0..list.length()).filter_map(|k| list.item(k)?.dyn_into::<Element>().ok()).collect()
}

fn demo_elements(d: &Document) -> Result<DemoEls, String> {
    use crate::app::theorem::Reorder;
    let buttons = [
        (Reorder::Reverse, "theorem-reverse"),
        (Reorder::Rotate, "theorem-rotate"),
        (Reorder::SwapFirstTwo, "theorem-swap"),
        (Reorder::Original, "theorem-original"),
    ];
    Ok(DemoEls {
        text: by_id(d, "theorem-text")?,
        signal: by_id(d, "theorem-signal")?,
        buttons: buttons.iter().map(|&(r, id)| Ok((r, by_id(d, id)?))).collect::<Result<_, String>>()?,
        order: by_id(d, "theorem-order")?,
        result: by_id(d, "theorem-result")?,
    })
}

/// The stress table's sortable column heads, each with its column.
fn sort_heads(d: &Document) -> Result<Vec<(Column, Element)>, String> {
    let mut heads = Vec::new();
    for th in all(d, "#stress-table th[data-sort]") {
        let key = th.get_attribute("data-sort").unwrap_or_default();
        heads.push((Column::parse(&key).ok_or(format!("a table column {key:?} the page does not know"))?, th));
    }
    Ok(heads)
}

/// The charts' download buttons, each with what it exports.
fn chart_buttons(d: &Document) -> Result<Vec<(Export, Element)>, String> {
    let mut buttons = Vec::new();
    for b in all(d, "button[data-chart]") {
        let (chart, kind) = (b.get_attribute("data-chart").unwrap_or_default(), b.get_attribute("data-kind"));
        let chart = ChartKind::parse(&chart).ok_or(format!("a download button for an unknown chart {chart:?}"))?;
        let format = if kind.as_deref() == Some("svg") { ImageFormat::Svg } else { ImageFormat::Png };
        buttons.push((Export::Chart(chart, format), b));
    }
    Ok(buttons)
}

impl Elements {
    /// Looks every element up; the error names the first one missing.
    pub fn find() -> Result<Self, String> {
        let doc = super::document().ok_or("no document")?;
        let d = &doc;
        // First: the lecture's steps carry download buttons collected below.
        let lecture = super::lecture::build(d)?;
        let sources =
            SourceKind::ALL.iter().map(|&s| Ok((s, by_id(d, s.control())?))).collect::<Result<_, String>>()?;
        let charts = ChartKind::ALL
            .iter()
            .map(|&kind| {
                let canvas = by_id(d, &format!("chart-{}", kind.name()))?;
                Ok(ChartEls { kind, canvas, readout: by_id(d, &format!("readout-{}", kind.name()))? })
            })
            .collect::<Result<_, String>>()?;
        let (sort_heads, chart_buttons) = (sort_heads(d)?, chart_buttons(d)?);
        let export_buttons =
            Export::BUTTONS.iter().map(|&(e, id)| Ok((e, by_id(d, id)?))).collect::<Result<_, String>>()?;
        Ok(Elements {
            status: by_id(d, "status")?,
            error: by_id(d, "error")?,
            progress: by_id(d, "progress")?,
            estimate: by_id(d, "estimate")?,
            run: by_id(d, "run-button")?,
            cancel: by_id(d, "cancel-button")?,
            share: by_id(d, "share-link")?,
            sources,
            synth_box: by_id(d, "synth-options")?,
            options_box: by_id(d, "analysis-options")?,
            corpus_input: by_id(d, "corpus-input")?,
            drop_zone: by_id(d, "drop-zone")?,
            corpus_file: FileEls { input: by_id(d, "file-input")?, info: by_id(d, "file-info")? },
            file_format: by_id(d, "file-format")?,
            file_column: by_id(d, "file-column")?,
            file_field: by_id(d, "file-field")?,
            file_lossy: by_id(d, "file-lossy")?,
            learned_file: FileEls { input: by_id(d, "learned-input")?, info: by_id(d, "learned-info")? },
            learned_tensor: by_id(d, "learned-tensor")?,
            learned_clear: by_id(d, "learned-clear")?,
            learned_shipped: by_id(d, "learned-minilm")?,
            tokenizer_file: FileEls { input: by_id(d, "tokenizer-input")?, info: by_id(d, "tokenizer-info")? },
            tokenizer_clear: by_id(d, "tokenizer-clear")?,
            tokenizer_shipped: by_id(d, "tokenizer-minilm")?,
            model_file: FileEls { input: by_id(d, "model-input")?, info: by_id(d, "model-info")? },
            model_clear: by_id(d, "model-clear")?,
            model_shipped: vec![
                (posgeo::demos::preset::ShippedModel::MiniLm, by_id(d, "model-minilm")?),
                (posgeo::demos::preset::ShippedModel::SmolLm2, by_id(d, "model-smollm2")?),
            ],
            model_progress: by_id(d, "model-progress")?,
            preset: by_id(d, "preset-paper")?,
            flip_mode: by_id(d, "flip-mode")?,
            verdict: by_id(d, "verdict")?,
            corpus_group: by_id(d, "group-corpus")?,
            model_group: by_id(d, "group-model")?,
            topbar_model: by_id(d, "topbar-model")?,
            claims: by_id(d, "claims")?,
            summary: by_id(d, "summary")?,
            table_body: doc.query_selector("#stress-table tbody").ok().flatten().ok_or("#stress-table tbody")?,
            sort_heads,
            shepard_select: by_id(d, "shepard-select")?,
            map_overlay: by_id(d, "map-overlay")?,
            layers_raw: by_id(d, "layers-raw")?,
            layers: LayerEls {
                measure: by_id(d, "layers-measure")?,
                slider: by_id(d, "layer-slider")?,
                slider_value: by_id(d, "layer-slider-value")?,
                table_body: doc.query_selector("#layers-table tbody").ok().flatten().ok_or("#layers-table tbody")?,
                model_only: all(d, "[data-model-only]"),
            },
            stress_raw: by_id(d, "stress-raw")?,
            map_3d: by_id(d, "map-3d")?,
            map_yaw: by_id(d, "map-yaw")?,
            map_pitch: by_id(d, "map-pitch")?,
            charts,
            chart_buttons,
            export_buttons,
            position_tokens: by_id(d, "position-tokens")?,
            demo: demo_elements(d)?,
            lecture,
            learn: super::learn::LearnEls::find(d)?,
        })
    }

    /// A chart's elements.
    pub fn chart(&self, kind: ChartKind) -> Option<&ChartEls> {
        self.charts.iter().find(|c| c.kind == kind)
    }

    /// A file input's elements.
    pub fn file(&self, slot: Slot) -> &FileEls {
        match slot {
            Slot::Corpus => &self.corpus_file,
            Slot::Learned => &self.learned_file,
            Slot::Tokenizer => &self.tokenizer_file,
            Slot::Model => &self.model_file,
        }
    }
}
