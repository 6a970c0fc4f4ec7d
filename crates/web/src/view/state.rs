//! What the page shows besides the results themselves (the page model's view part, read by
//! every chart, read-out and export).

use super::charts::MapView;
use super::table::Sort;
use super::theorem;

/// Everything the page shows besides the results themselves.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct View {
    /// Encoding of the Shepard diagram (`None`: sinusoidal).
    pub shepard: Option<String>,
    /// The PMDS map's view.
    pub map: MapView,
    /// The stress table's order.
    pub sort: Sort,
    /// The Theorem 1 demonstration.
    pub demo: theorem::Demo,
    /// The lecture view's step (1-based), when it is open.
    pub lecture: Option<usize>,
    /// The encoding overlaid on the PMDS map after Procrustes alignment (None: no overlay).
    pub overlay: Option<String>,
    /// The layers chart shows raw σ instead of σ*.
    pub layers_raw: bool,
    /// The headline stress chart shows raw σ instead of σ*.
    pub stress_raw: bool,
    /// What the layers chart shows (`#layers-measure`).
    pub layers_measure: posgeo_charts::LayerMeasure,
    /// The layer the layer map shows (`#layer-slider`; None: the last).
    pub layer_map: Option<usize>,
    /// The last results on English (Genesis) and on the shipped proteins, for the lecture
    /// step that sets them side by side.
    pub corpora: Corpora,
}

/// The last results of the two shipped corpora of different kinds.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Corpora {
    /// Genesis (KJV).
    pub english: Option<std::rc::Rc<crate::protocol::Payload>>,
    /// The shipped proteins.
    pub proteins: Option<std::rc::Rc<crate::protocol::Payload>>,
}
