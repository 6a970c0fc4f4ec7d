//! A model's per-layer controls and table: shown only when the results have a model; the
//! slider runs over ℓ = 0 … L, the table has one `tr[data-layer]` per layer
//! ([`crate::view::layers`]).

use super::super::{make, runtime};
use crate::view::layers;

/// Shows or hides the per-layer controls and fills the layers table.
pub fn render() {
    let Some((els, p, view)) = runtime::shown() else { return };
    let r = &p.report;
    let l = &els.layers;
    let last = layers::last_layer(r);
    for e in &l.model_only {
        match last {
            Some(_) => e.remove_attribute("hidden").ok(),
            None => e.set_attribute("hidden", "").ok(),
        };
    }
    l.measure.set_value(view.layers_measure.name());
    let shown = view.map_layer(r);
    l.slider.set_max(&last.unwrap_or(0).to_string());
    l.slider.set_value(&shown.to_string());
    l.slider_value.set_text_content(Some(&format!("layer {shown}")));
    l.table_body.set_text_content(None);
    for row in layers::rows(r) {
        let Some(tr) = make("tr", "") else { continue };
        tr.set_attribute("data-layer", &row.layer.to_string()).ok();
        if let Some(th) = make("th", &row.layer.to_string()) {
            th.set_attribute("scope", "row").ok();
            tr.append_child(&th).ok();
        }
        for c in &row.cells {
            let Some(td) = make("td", &c.text) else { continue };
            td.set_attribute("data-metric", c.metric).ok();
            td.set_attribute("data-value", &c.value).ok();
            tr.append_child(&td).ok();
        }
        l.table_body.append_child(&tr).ok();
    }
}
