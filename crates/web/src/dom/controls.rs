//! The option controls: built at start from the option tables (`posgeo::options`), so the
//! form has exactly the declared options with their labels, help, ranges and choices; read
//! into a [`Form`] when Run is pressed; set from a [`Form`] when a link opens the page.

use super::elements::Elements;
use super::{make, runtime};
use crate::app::{FileOptions, Form, SourceKind};
use crate::view::charts::MapView;
use posgeo::options::{Domain, Group, OptSpec, ANALYSIS, SYNTH};
use posgeo_learn::options::LEARN;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlInputElement, HtmlSelectElement};

fn option_el(value: &str, label: &str) -> Option<Element> {
    let o = make("option", label)?;
    o.set_attribute("value", value).ok()?;
    Some(o)
}

/// The control of one option (not yet in the page).
fn control<T>(o: &OptSpec<T>) -> Option<Element> {
    let el = match o.domain {
        Domain::Choice(choices) => {
            let s = make("select", "")?;
            for c in choices {
                let o = option_el(c.value, c.label)?;
                s.append_child(&o).ok()?;
            }
            s
        }
        Domain::Tristate => {
            let s = make("select", "")?;
            for (v, l) in [("", "default"), ("true", "on"), ("false", "off")] {
                let o = option_el(v, l)?;
                s.append_child(&o).ok()?;
            }
            s
        }
        Domain::Switch => {
            let i = make("input", "")?;
            i.set_attribute("type", "checkbox").ok()?;
            i
        }
        Domain::Int { min, .. } | Domain::OptInt { min, .. } => {
            let even = matches!(o.domain, Domain::Int { even: true, .. });
            let i = make("input", "")?;
            i.set_attribute("type", "number").ok()?;
            i.set_attribute("min", &min.to_string()).ok()?;
            if even {
                i.set_attribute("step", "2").ok()?;
            }
            if let Domain::OptInt { empty, .. } = o.domain {
                i.set_attribute("placeholder", empty).ok()?;
            }
            i
        }
        Domain::Set(choices) => {
            // A checkbox per choice, read and set as the comma-separated names ([`text_of`]).
            let group = make("div", "")?;
            group.set_attribute("role", "group").ok()?;
            group.set_attribute("data-set", "").ok()?;
            group.set_class_name("set");
            for c in choices {
                let (label, check) = (make("label", "")?, make("input", "")?);
                check.set_attribute("type", "checkbox").ok()?;
                check.set_attribute("value", c.value).ok()?;
                check.set_id(&format!("{}-{}", o.control, c.value));
                label.append_child(&check).ok()?;
                label.append_with_str_1(&format!(" {}", c.label)).ok()?;
                group.append_child(&label).ok()?;
            }
            group
        }
        Domain::Real { lo, hi, .. } => {
            let i = make("input", "")?;
            i.set_attribute("type", "number").ok()?;
            i.set_attribute("step", "any").ok()?;
            i.set_attribute("min", &lo.to_string()).ok()?;
            if let Some((h, _)) = hi {
                i.set_attribute("max", &h.to_string()).ok()?;
            }
            i
        }
    };
    el.set_id(o.control);
    el.set_attribute("title", o.help).ok()?;
    Some(el)
}

/// Builds one table's label + control pairs into `container` (or the one `place` names for
/// an option); returns (control id, element).
fn build_table<T>(
    container: &Element,
    table: &[OptSpec<T>],
    place: impl Fn(&OptSpec<T>) -> Option<Element>,
) -> Vec<(&'static str, Element)> {
    let mut out = Vec::new();
    for o in table {
        let container = place(o).unwrap_or_else(|| container.clone());
        let (Some(label), Some(help), Some(c)) =
            (make("label", &format!("{} ", o.label)), make("span", o.help), control(o))
        else {
            continue;
        };
        help.set_class_name("help");
        if matches!(o.domain, Domain::Set(_)) {
            // A group of checkboxes is named by its label, not labelled `for` it.
            label.set_id(&format!("{}-label", o.control));
            c.set_attribute("aria-labelledby", &format!("{}-label", o.control)).ok();
        } else {
            label.set_attribute("for", o.control).ok();
        }
        label.append_child(&help).ok();
        container.append_child(&label).ok();
        container.append_child(&c).ok();
        out.push((o.control, c));
    }
    out
}

/// Builds every option control (synthetic corpus, then analysis, each analysis option in
/// its group's container `#options-<group>`, [`Group`]; then the Learn panel's, in
/// `#learn-options`).
pub fn build(els: &Elements) -> Vec<(&'static str, Element)> {
    let mut all = build_table(&els.synth_box, SYNTH, |_| None);
    let document = web_sys::window().and_then(|w| w.document());
    let group_box = |o: &OptSpec<posgeo::analysis::AnalysisParams>| {
        document.as_ref()?.get_element_by_id(&format!("options-{}", Group::of(o).key()))
    };
    all.extend(build_table(&els.options_box, ANALYSIS, group_box));
    all.extend(build_table(&els.learn.options, LEARN, |_| None));
    all
}

/// Opens the corpus group when the chosen source needs its inputs (pasted text, a file);
/// never closes a group the user opened.
pub fn open_source_group(els: &Elements, source: SourceKind) {
    if matches!(source, SourceKind::Paste | SourceKind::File) {
        els.corpus_group.set_attribute("open", "").ok();
    }
}

/// The checkboxes of a set control (`div[data-set]`).
fn set_boxes(e: &Element) -> Vec<HtmlInputElement> {
    let Ok(list) = e.query_selector_all("input[type=checkbox]") else { return Vec::new() };
    (0..list.length()).filter_map(|k| list.item(k)?.dyn_into::<HtmlInputElement>().ok()).collect()
}

/// The text of an input or select (checkboxes: "true"/"false"; a set: the names checked,
/// comma-separated).
fn text_of(e: &Element) -> String {
    if e.has_attribute("data-set") {
        let on: Vec<String> = set_boxes(e).iter().filter(|b| b.checked()).map(HtmlInputElement::value).collect();
        on.join(",")
    } else if let Some(i) = e.dyn_ref::<HtmlInputElement>() {
        if i.type_() == "checkbox" {
            i.checked().to_string()
        } else {
            i.value()
        }
    } else if let Some(s) = e.dyn_ref::<HtmlSelectElement>() {
        s.value()
    } else {
        String::new()
    }
}

fn set_text_of(e: &Element, v: &str) {
    if e.has_attribute("data-set") {
        let names: Vec<&str> = v.split(',').map(str::trim).collect();
        for b in set_boxes(e) {
            b.set_checked(v == "all" || names.contains(&b.value().as_str()));
        }
    } else if let Some(i) = e.dyn_ref::<HtmlInputElement>() {
        if i.type_() == "checkbox" {
            i.set_checked(v == "true");
        } else {
            i.set_value(v);
        }
    } else if let Some(s) = e.dyn_ref::<HtmlSelectElement>() {
        s.set_value(v);
    }
}

/// The values of a (multiple) select's chosen options.
fn selected(select: &HtmlSelectElement) -> Vec<String> {
    let options = select.selected_options();
    (0..options.length()).filter_map(|k| options.item(k)).filter_map(|o| o.get_attribute("value")).collect()
}

/// The form as it stands.
pub fn read_form() -> Form {
    runtime::with(|rt| {
        let els = &rt.els;
        let source = els.sources.iter().find(|(_, r)| r.checked()).map_or(SourceKind::Synthetic, |(s, _)| *s);
        Form {
            source,
            values: rt.controls.iter().map(|(id, e)| (*id, text_of(e))).collect(),
            paste: els.corpus_input.value(),
            file: FileOptions {
                format: els.file_format.value(),
                column: els.file_column.value(),
                field: els.file_field.value(),
                lossy: els.file_lossy.checked(),
            },
            learned_tensors: selected(&els.learned_tensor),
        }
    })
    .unwrap_or_default()
}

/// Puts the controls at the form's values and the map's controls at `map`.
pub fn show_form(rt: &runtime::Runtime, form: &Form, map: MapView) {
    for (id, e) in &rt.controls {
        if let Some(v) = form.values.get(id) {
            set_text_of(e, v);
        }
    }
    select_source(rt, form.source);
    show_map(rt, map);
}

/// Sets one option control.
pub fn set_control(rt: &runtime::Runtime, id: &str, value: &str) {
    if let Some((_, e)) = rt.controls.iter().find(|(c, _)| *c == id) {
        set_text_of(e, value);
    }
}

/// Checks one corpus radio button.
pub fn select_source(rt: &runtime::Runtime, source: SourceKind) {
    for (s, radio) in &rt.els.sources {
        radio.set_checked(*s == source);
    }
    open_source_group(&rt.els, source);
}

/// Sets the map's switch and sliders.
pub fn show_map(rt: &runtime::Runtime, map: MapView) {
    rt.els.map_3d.set_checked(map.three_d);
    rt.els.map_yaw.set_value(&map.yaw.to_string());
    rt.els.map_pitch.set_value(&map.pitch.to_string());
}

/// The map's view as its controls say.
pub fn read_map(els: &Elements) -> MapView {
    let deg = |i: &HtmlInputElement| i.value().parse::<f64>().map_or(0, |v| v.round() as i32);
    MapView { three_d: els.map_3d.checked(), yaw: deg(&els.map_yaw), pitch: deg(&els.map_pitch) }
}
