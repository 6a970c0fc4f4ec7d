//! **Layers are encodings** (docs/MATH.md §14): each layer ℓ of a model gives two configurations of
//! the positions 0..n_L — `layer:ℓ` (the positional centroid) and `layer-residual:ℓ` (the
//! content-removed centroid, computed by `posgeo-model`) — measured like every other encoding
//! (σ, σ*, a*, Spearman, monotonicity, Procrustes) against D restricted to those positions,
//! and against the PMDS coordinates of the whole D restricted to the same rows for Procrustes
//! **(choice: the corpus geometry stays that of all n positions; only the rows compared
//! shrink)**. They depend on the corpus geometry only, so live updates keep them.

use super::{Analysis, Compared};
use crate::encodings::{Encoding, EncodingKind};
use crate::error::Result;
use crate::metric::DistanceMatrix;
use crate::points::Points;
use serde::{Deserialize, Serialize};

/// What the report says of the layer rows (the JSON's `"layers"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LayersInfo {
    /// config.json's `model_type`.
    pub model_type: String,
    /// L (the rows are ℓ = 0 … L).
    pub num_layers: usize,
    /// H.
    pub hidden_size: usize,
    /// The sequences the model read.
    pub sequences_used: usize,
    /// n_L, the positions the rows are measured over.
    pub positions: usize,
    /// The cut, min(max_len, max_position_embeddings).
    pub cut: usize,
    /// The first positions the per-layer measures leave out (`layer_skip`).
    #[serde(default)]
    pub skip: usize,
    /// Each layer's positional share, effective dimension and principal coordinates
    /// (docs/MATH.md §14b).
    #[serde(default)]
    pub measures: Vec<LayerMeasures>,
}

/// One layer's measures (docs/MATH.md §14b).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LayerMeasures {
    /// ℓ.
    pub layer: usize,
    /// The fraction of the states' variance that position explains.
    pub positional_share: f64,
    /// exp of the entropy of the centroids' normalised PCA spectrum.
    pub effective_dimension: f64,
    /// The kept positions' first (up to) three principal coordinates.
    pub principal: Vec<Vec<f64>>,
}

/// The report key of layer ℓ's centroid or residual.
pub fn layer_key(layer: usize, residual: bool) -> String {
    if residual {
        format!("layer-residual:{layer}")
    } else {
        format!("layer:{layer}")
    }
}

/// D and the Procrustes target restricted to the first `m` positions.
pub fn restricted(analysis: &Analysis, m: usize) -> (DistanceMatrix, Points) {
    let d = &analysis.distances;
    let pmds_dim = analysis.params.encodings.d.min(analysis.effective_rank).max(1);
    let x = analysis.spectrum.coordinates(pmds_dim.min(crate::measures::procrustes::PROCRUSTES_DIMS));
    if m == d.n() {
        return (d.clone(), x);
    }
    (DistanceMatrix::from_fn(m, |i, j| d.get(i, j)), Points::from_fn(m, x.dim, |i, k| x.row(i)[k]))
}

/// The layer rows — each layer's (centroid, content-removed centroid), over the first
/// `info.positions` positions — measured against the analysis's geometry and appended to its
/// encodings (replacing any earlier layer rows), with the report's [`LayersInfo`].
pub fn add_layer_rows(analysis: &mut Analysis, layers: Vec<(Points, Points)>, info: LayersInfo) -> Result<()> {
    let mut rows: Vec<(String, Encoding)> = Vec::with_capacity(2 * layers.len());
    for (l, (c, r)) in layers.into_iter().enumerate() {
        for (residual, points) in [(false, c), (true, r)] {
            let encoding = Encoding { kind: EncodingKind::Layer, points, parameters: 0, iterations: 0, stop: None };
            rows.push((layer_key(l, residual), encoding));
        }
    }
    let (d, x) = restricted(analysis, info.positions);
    let encodings: Vec<Encoding> = rows.iter().map(|(_, e)| e.clone()).collect();
    let measures = super::measure_encodings(&d, &x, analysis.counts.n, &encodings)?;
    analysis.compared.retain(|c| c.encoding.kind != EncodingKind::Layer);
    for ((name, encoding), (sketch, stress, procrustes)) in rows.into_iter().zip(measures) {
        analysis.compared.push(Compared { name, encoding, sketch, stress, procrustes });
    }
    analysis.layers = Some(info);
    Ok(())
}
