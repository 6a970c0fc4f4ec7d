//! Event listeners: each browser event becomes one [`Msg`] (or, for hover, a read-out).

use super::files::{choose, choose_bundle, refill_columns};
use super::render::hover;
use super::runtime::{dispatch, els};
use super::{controls, now, on};
use crate::app::{Msg, Slot};
use wasm_bindgen::JsCast;
use web_sys::{DragEvent, Event, EventTarget, MouseEvent};

fn target(e: &impl AsRef<EventTarget>) -> &EventTarget {
    e.as_ref()
}

/// Installs every listener.
pub fn wire() {
    let Some(els) = els() else { return };
    on(target(&els.run), "click", |_: Event| dispatch(Msg::Run { form: controls::read_form(), at: now() }));
    on(target(&els.cancel), "click", |_: Event| dispatch(Msg::Cancel));
    for slot in [Slot::Corpus, Slot::Learned, Slot::Tokenizer, Slot::Model] {
        let input = els.file(slot).input.clone();
        on(target(&els.file(slot).input), "change", move |_: Event| {
            let files: Vec<web_sys::File> =
                input.files().map(|l| (0..l.length()).filter_map(|k| l.get(k)).collect()).unwrap_or_default();
            match files.len() {
                0 => {}
                // A model's files always travel as one bundle, even one file alone.
                1 if slot != Slot::Model => files.into_iter().for_each(|f| choose(slot, f)),
                _ => choose_bundle(slot, files),
            }
        });
    }
    on(target(&els.learned_clear), "click", |_: Event| dispatch(Msg::Cleared(Slot::Learned)));
    on(target(&els.tokenizer_clear), "click", |_: Event| dispatch(Msg::Cleared(Slot::Tokenizer)));
    on(target(&els.learned_shipped), "click", |_: Event| dispatch(Msg::UseShipped(Slot::Learned)));
    on(target(&els.tokenizer_shipped), "click", |_: Event| dispatch(Msg::UseShipped(Slot::Tokenizer)));
    on(target(&els.model_clear), "click", |_: Event| dispatch(Msg::Cleared(Slot::Model)));
    for (which, button) in &els.model_shipped {
        let which = *which;
        on(target(button), "click", move |_: Event| dispatch(Msg::UseShippedModel(which)));
    }
    on(target(&els.preset), "click", |_: Event| dispatch(Msg::Preset { form: controls::read_form(), at: now() }));
    on(target(&els.flip_mode), "click", |_: Event| dispatch(Msg::FlipMode { form: controls::read_form(), at: now() }));
    wire_drop(&els.drop_zone);
    for (source, radio) in &els.sources {
        let (source, e) = (*source, els.clone());
        on(target(radio), "change", move |_: Event| {
            controls::open_source_group(&e, source);
            if source == crate::app::SourceKind::Proteins {
                dispatch(Msg::Proteins { form: controls::read_form(), at: now() });
            }
        });
    }
    // The top bar's "a model…" opens the model group and goes to it.
    let (group, model_input) = (els.model_group.clone(), els.model_shipped.first().map(|(_, b)| b.clone()));
    on(target(&els.topbar_model), "click", move |_: Event| {
        group.set_attribute("open", "").ok();
        group.scroll_into_view();
        if let Some(b) = model_input.as_ref().and_then(|b| b.dyn_ref::<web_sys::HtmlElement>()) {
            b.focus().ok();
        }
    });
    let paste = els.sources.iter().find(|(s, _)| *s == crate::app::SourceKind::Paste).map(|(_, r)| r.clone());
    on(target(&els.corpus_input), "input", move |_: Event| {
        if let Some(r) = &paste {
            r.set_checked(true);
        }
    });
    on(target(&els.file_format), "change", |_: Event| refill_columns());
    let select = els.shepard_select.clone();
    on(target(&els.shepard_select), "change", move |_: Event| dispatch(Msg::ShepardPicked(select.value())));
    let raw = els.layers_raw.clone();
    on(target(&els.layers_raw), "change", move |_: Event| dispatch(Msg::LayersRaw(raw.checked())));
    wire_layers(&els.layers);
    let raw = els.stress_raw.clone();
    on(target(&els.stress_raw), "change", move |_: Event| dispatch(Msg::StressRaw(raw.checked())));
    let overlay = els.map_overlay.clone();
    on(target(&els.map_overlay), "change", move |_: Event| dispatch(Msg::OverlayPicked(overlay.value())));
    for (column, th) in &els.sort_heads {
        let column = *column;
        on(target(th), "click", move |_: Event| dispatch(Msg::Sort(column)));
    }
    wire_map();
    wire_live();
    wire_demo(&els.demo);
    super::learn::wire(&els.learn);
    super::lecture::wire();
    for c in &els.charts {
        let kind = c.kind;
        on(target(&c.canvas), "mousemove", move |e: MouseEvent| hover(kind, &e));
    }
    for (export, b) in els.chart_buttons.iter().chain(&els.export_buttons) {
        let export = *export;
        on(target(b), "click", move |_: Event| dispatch(Msg::Export(export)));
    }
}

/// Live parameters: the encoding-only controls (declared so in `posgeo::options`) update the
/// results while they move.
fn wire_live() {
    use posgeo::options::{Affects, ANALYSIS};
    let Some(built) = super::runtime::with(|rt| rt.controls.clone()) else { return };
    for o in ANALYSIS.iter().filter(|o| o.affects == Affects::Encodings) {
        if let Some((_, el)) = built.iter().find(|(id, _)| *id == o.control) {
            on(target(el), "input", |_: Event| dispatch(Msg::Live { form: controls::read_form(), at: now() }));
        }
    }
}

/// The Theorem 1 demonstration: sentence, signal, reordering buttons.
fn wire_demo(demo: &super::elements::DemoEls) {
    let text = demo.text.clone();
    on(target(&demo.text), "input", move |_: Event| dispatch(Msg::DemoText(text.value())));
    let signal = demo.signal.clone();
    on(target(&demo.signal), "change", move |_: Event| {
        if let Some(s) = posgeo::demos::theorem::Signal::parse(&signal.value()) {
            dispatch(Msg::DemoSignal(s));
        }
    });
    for (how, b) in &demo.buttons {
        let how = *how;
        on(target(b), "click", move |_: Event| dispatch(Msg::DemoReorder(how)));
    }
}

fn wire_drop(zone: &web_sys::Element) {
    let z = zone.clone();
    on(target(zone), "dragover", move |e: DragEvent| {
        e.prevent_default();
        z.class_list().add_1("over").ok();
    });
    let z = zone.clone();
    on(target(zone), "dragleave", move |_: DragEvent| {
        z.class_list().remove_1("over").ok();
    });
    let z = zone.clone();
    on(target(zone), "drop", move |e: DragEvent| {
        e.prevent_default();
        z.class_list().remove_1("over").ok();
        let files: Vec<web_sys::File> = e
            .data_transfer()
            .and_then(|d| d.files())
            .map(|l| (0..l.length()).filter_map(|k| l.get(k)).collect())
            .unwrap_or_default();
        let names: Vec<String> = files.iter().map(web_sys::File::name).collect();
        match Slot::of_dropped(&names) {
            Slot::Model => choose_bundle(Slot::Model, files),
            slot => files.into_iter().take(1).for_each(|f| choose(slot, f)),
        }
    });
}

/// The 3-D map: its switch and sliders redraw while they move and write the link once let
/// go; dragging the map turns it.
fn wire_map() {
    let Some(els) = els() else { return };
    for input in [&els.map_3d, &els.map_yaw, &els.map_pitch] {
        let e2 = els.clone();
        on(target(input), "input", move |_: Event| dispatch(Msg::MapMoved(controls::read_map(&e2))));
        on(target(input), "change", |_: Event| dispatch(Msg::MapSettled));
    }
    let Some(map) = els.chart(crate::view::charts::ChartKind::Map) else { return };
    let canvas: &EventTarget = map.canvas.unchecked_ref();
    on(canvas, "mousedown", |e: MouseEvent| dispatch(Msg::DragStart { x: e.offset_x(), y: e.offset_y() }));
    on(canvas, "mousemove", |e: MouseEvent| dispatch(Msg::DragMove { x: e.offset_x(), y: e.offset_y() }));
    for end in ["mouseup", "mouseleave"] {
        on(canvas, end, |_: MouseEvent| dispatch(Msg::DragEnd));
    }
}

/// The layers chart's measure and the layer map's slider.
fn wire_layers(layers: &super::elements::LayerEls) {
    let measure = layers.measure.clone();
    on(target(&measure.clone()), "change", move |_: Event| {
        if let Some(m) = posgeo_charts::LayerMeasure::parse(&measure.value()) {
            dispatch(Msg::LayersMeasure(m));
        }
    });
    let (slider, shown) = (layers.slider.clone(), layers.slider_value.clone());
    on(target(&slider.clone()), "input", move |_: Event| {
        if let Ok(l) = slider.value().parse::<usize>() {
            shown.set_text_content(Some(&format!("layer {l}")));
            dispatch(Msg::LayerMap(l));
        }
    });
}
