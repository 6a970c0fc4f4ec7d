//! **Layers are encodings** (docs/MATH.md §14): each layer ℓ of a model gives two configurations of
//! the positions 0..n_L — `layer:ℓ` (the positional centroid) and `layer-residual:ℓ` (the
//! content-removed centroid, [`crate::model::centroids`]) — measured like every other encoding
//! (σ, σ*, a*, Spearman, monotonicity, Procrustes) against D restricted to those positions,
//! and against the PMDS coordinates of the whole D restricted to the same rows for Procrustes
//! **(choice: the corpus geometry stays that of all n positions; only the rows compared
//! shrink)**. They depend on the corpus geometry only, so live updates keep them.

use super::{Analysis, AnalysisParams, Compared};
use crate::corpus::hf_tokenizer::ModelTokenizer;
use crate::encodings::{Encoding, EncodingKind};
use crate::error::{PosgeoError, Result};
use crate::metric::DistanceMatrix;
use crate::model::{LayerSums, Model, Plan};
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
    pub measures: Vec<crate::model::measures::LayerMeasures>,
}

/// The report key of layer ℓ's centroid or residual.
pub fn layer_key(layer: usize, residual: bool) -> String {
    if residual {
        format!("layer-residual:{layer}")
    } else {
        format!("layer:{layer}")
    }
}

/// The sequences a model reads (docs/MATH.md §14): the first `layer_sequences` of the corpus that
/// have tokens, as the model's tokenizer counts them, and the plan over them for a corpus of
/// `n` positions.
pub fn plan<S: AsRef<str>>(
    seqs: &[S],
    params: &AnalysisParams,
    tokenizer: &ModelTokenizer,
    model: &Model,
    n: usize,
) -> Result<Plan> {
    let c = &model.config;
    if params.bos {
        return Err(PosgeoError::BadModel(
            "the <bos> marker is not a token of the model: turn it off (the model's tokenizer adds its own begin token, [CLS] or <s>, when it has one)"
                .into(),
        ));
    }
    let cut = params.max_len.min(c.max_position_embeddings);
    let mut sequences = Vec::with_capacity(params.layer_sequences.min(seqs.len()));
    for s in seqs {
        if sequences.len() >= params.layer_sequences {
            break;
        }
        let ids = tokenizer.ids(s.as_ref(), params.special_tokens, cut);
        if ids.is_empty() {
            continue;
        }
        if let Some(&id) = ids.iter().find(|&&id| id as usize >= c.vocab_size) {
            return Err(PosgeoError::BadModel(format!(
                "the tokenizer gives token id {id} ({:?}), outside the model's vocabulary of {} (config.json's vocab_size): is the tokenizer the model's own?",
                tokenizer.token(id),
                c.vocab_size
            )));
        }
        sequences.push(ids);
    }
    let plan = Plan::new(sequences, cut, n, params.min_support, params.mode, c.pad_token_id);
    if plan.positions < 2 {
        return Err(PosgeoError::BadModel(format!(
            "the model's {} sequence(s) leave {} position(s) with at least min_support = {} of them; at least 2 are needed (raise layer_sequences or lower min_support)",
            plan.sequences.len(),
            plan.positions,
            params.min_support
        )));
    }
    Ok(plan)
}

/// D and the Procrustes target restricted to the first `m` positions.
pub(super) fn restricted(analysis: &Analysis, m: usize) -> (DistanceMatrix, Points) {
    let d = &analysis.distances;
    let pmds_dim = analysis.params.encodings.d.min(analysis.effective_rank).max(1);
    let x = analysis.spectrum.coordinates(pmds_dim.min(crate::measures::procrustes::PROCRUSTES_DIMS));
    if m == d.n() {
        return (d.clone(), x);
    }
    (DistanceMatrix::from_fn(m, |i, j| d.get(i, j)), Points::from_fn(m, x.dim, |i, k| x.row(i)[k]))
}

/// The layer rows of `sums` measured against the analysis's geometry, appended to its
/// encodings, with the report's [`LayersInfo`].
pub fn add_layers(analysis: &mut Analysis, model: &Model, plan: &Plan, sums: &LayerSums) -> Result<()> {
    let (centroids, residuals) = sums.finish(plan);
    let skip = analysis.params.layer_skip.min(plan.positions.saturating_sub(2));
    let per_layer = crate::model::measures::layer_measures(sums, plan, &centroids, skip);
    let mut rows: Vec<(String, Encoding)> = Vec::with_capacity(2 * centroids.len());
    for (l, (c, r)) in centroids.into_iter().zip(residuals).enumerate() {
        for (residual, points) in [(false, c), (true, r)] {
            let encoding = Encoding { kind: EncodingKind::Layer, points, parameters: 0, iterations: 0, stop: None };
            rows.push((layer_key(l, residual), encoding));
        }
    }
    let (d, x) = restricted(analysis, plan.positions);
    let encodings: Vec<Encoding> = rows.iter().map(|(_, e)| e.clone()).collect();
    let measures = super::measure_encodings(&d, &x, analysis.counts.n, &encodings)?;
    analysis.compared.retain(|c| c.encoding.kind != EncodingKind::Layer);
    for ((name, encoding), (sketch, stress, procrustes)) in rows.into_iter().zip(measures) {
        analysis.compared.push(Compared { name, encoding, sketch, stress, procrustes });
    }
    analysis.layers = Some(LayersInfo {
        model_type: model.config.model_type.clone(),
        num_layers: model.config.num_hidden_layers,
        hidden_size: model.config.hidden_size,
        sequences_used: plan.sequences.len(),
        positions: plan.positions,
        cut: plan.cut,
        skip,
        measures: per_layer,
    });
    Ok(())
}

/// The whole layer analysis natively: plan, forward pass and rows. `progress` gets the
/// fraction of the batches done; `false` cancels.
pub fn run_layers<S: AsRef<str>>(
    analysis: &mut Analysis,
    seqs: &[S],
    model: &Model,
    progress: &mut dyn FnMut(f64) -> bool,
) -> Result<()> {
    let params = analysis.params.clone();
    let tokenizer = params
        .model
        .as_ref()
        .filter(|_| params.tokenizer == crate::corpus::tokenize::TokenizerKind::Model)
        .ok_or_else(|| PosgeoError::BadModel("a model's layers need its own tokenizer (tokenizer = model)".into()))?;
    if params.bos {
        return Err(PosgeoError::BadModel(
            "the <bos> marker is not a token of the model: turn it off (the model's tokenizer adds its own [CLS])"
                .into(),
        ));
    }
    let plan = plan(seqs, &params, tokenizer, model, analysis.counts.n)?;
    let batches = crate::model::batches(&plan);
    let sums = crate::model::run(model, &plan, &batches, progress)?;
    add_layers(analysis, model, &plan, &sums)
}
