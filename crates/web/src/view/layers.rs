//! A model's per-layer numbers as the page shows them: the layers table (`#layers-table`, one
//! `tr[data-layer]` per ℓ, each cell's full-precision number in `data-value`, as the stress
//! table has them) and the layer map's slider (ℓ = 0 … L, the last by default).

use posgeo::analysis::layers::layer_key;
use posgeo::report::{fmt_number, Report};

/// One cell: the metric (`data-metric`), its text and its full-precision value (`data-value`).
#[derive(Debug, Clone, PartialEq)]
pub struct LayerCell {
    /// `scaled_stress`, `residual_scaled_stress`, `positional_share`, `effective_dimension`.
    pub metric: &'static str,
    /// As shown.
    pub text: String,
    /// Rust's shortest round-trip form (`NaN` for a missing number).
    pub value: String,
}

/// One layer's row.
#[derive(Debug, Clone, PartialEq)]
pub struct LayerRow {
    /// ℓ.
    pub layer: usize,
    /// Its cells, in [`COLUMNS`] order.
    pub cells: Vec<LayerCell>,
}

/// The table's columns: (metric, header).
pub const COLUMNS: [(&str, &str); 4] = [
    ("scaled_stress", "σ* of layer:ℓ"),
    ("residual_scaled_stress", "σ* of layer-residual:ℓ"),
    ("positional_share", "positional share"),
    ("effective_dimension", "effective dimension"),
];

fn cell(metric: &'static str, v: Option<f64>) -> LayerCell {
    let v = v.unwrap_or(f64::NAN);
    LayerCell { metric, text: fmt_number(Some(v)), value: format!("{v:?}") }
}

/// The layers table's rows, ℓ = 0 … L (empty without a model).
pub fn rows(r: &Report) -> Vec<LayerRow> {
    let Some(layers) = r.layers.as_ref() else { return Vec::new() };
    let stress = |l: usize, residual: bool| r.encodings.get(&layer_key(l, residual)).map(|e| e.scaled_stress);
    (0..=layers.num_layers)
        .map(|l| {
            let m = layers.measures.iter().find(|m| m.layer == l);
            let cells = vec![
                cell(COLUMNS[0].0, stress(l, false)),
                cell(COLUMNS[1].0, stress(l, true)),
                cell(COLUMNS[2].0, m.map(|m| m.positional_share)),
                cell(COLUMNS[3].0, m.map(|m| m.effective_dimension)),
            ];
            LayerRow { layer: l, cells }
        })
        .collect()
}

/// The layer slider's last value, L (None without a model: the layer controls are hidden).
pub fn last_layer(r: &Report) -> Option<usize> {
    r.layers.as_ref().map(|l| l.num_layers)
}

#[cfg(test)]
mod tests {
    use super::*;
    use posgeo::analysis::layers::LayerMeasures;

    #[test]
    fn every_layer_has_a_row_with_its_numbers_at_full_precision() {
        let mut r = posgeo::test_support::report();
        assert!(rows(&r).is_empty() && last_layer(&r).is_none(), "no model, no rows");
        let measures = (0..=2)
            .map(|l| LayerMeasures {
                layer: l,
                positional_share: 0.1 + l as f64 / 3.0,
                effective_dimension: 1.5 * (l + 1) as f64,
                principal: vec![vec![1.0, 2.0], vec![-1.0, 0.5]],
            })
            .collect();
        r.layers = Some(posgeo::analysis::LayersInfo {
            skip: 1,
            measures,
            model_type: "llama".into(),
            num_layers: 2,
            hidden_size: 8,
            sequences_used: 10,
            positions: 3,
            cut: 64,
        });
        let mut e = r.encodings["sinusoidal"].clone();
        e.scaled_stress = 0.123_456_789_012_345_67;
        r.encodings.insert("layer:1".into(), e);
        let rows = rows(&r);
        assert_eq!(rows.len(), 3);
        assert_eq!(last_layer(&r), Some(2));
        let metrics: Vec<&str> = rows[1].cells.iter().map(|c| c.metric).collect();
        assert_eq!(metrics, COLUMNS.map(|c| c.0));
        assert_eq!(rows[1].cells[0].value.parse::<f64>().unwrap(), 0.123_456_789_012_345_67);
        assert_eq!(rows[2].cells[2].value.parse::<f64>().unwrap(), 0.1 + 2.0 / 3.0);
        assert_eq!(rows[2].cells[3].value, "4.5");
        assert_eq!(rows[0].cells[1].value, "NaN", "a missing row is NaN, not 0");
        // The map's points are positions skip.. and the view's layer is capped at L.
        let pts = posgeo_charts::layer_points(&r, 2).unwrap();
        assert_eq!(pts.iter().map(|p| p.0).collect::<Vec<_>>(), [1, 2]);
        let view = crate::view::View { layer_map: Some(7), ..Default::default() };
        assert_eq!(view.map_layer(&r), 2);
        assert_eq!(crate::view::View::default().map_layer(&r), 2, "the last layer by default");
        let share = posgeo_charts::LayerMeasure::PositionalShare.values(&r).unwrap();
        assert_eq!(share.len(), 3);
        let mut svg = String::new();
        {
            use plotters::prelude::*;
            let root = SVGBackend::with_string(&mut svg, (640, 360)).into_drawing_area();
            posgeo_charts::layer_measure(&root, &r, posgeo_charts::LayerMeasure::EffectiveDimension).unwrap();
            posgeo_charts::layer_map(&root, &r, 2).unwrap();
            root.present().unwrap();
        }
        assert!(svg.contains("effective dimension") && svg.contains("layer 2"));
    }
}
