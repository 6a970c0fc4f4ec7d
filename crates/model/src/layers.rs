//! **A model's layers as encodings** (docs/MATH.md §14): the sequences the model reads and
//! its plan, the forward pass, and each layer's centroids handed to the core's analysis
//! ([`posgeo::analysis::layers::add_layer_rows`]), which measures them like every other
//! encoding.

use crate::{LayerSums, Model, Plan};
use posgeo::analysis::layers::{add_layer_rows, LayersInfo};
use posgeo::analysis::{Analysis, AnalysisParams};
use posgeo::corpus::hf_tokenizer::ModelTokenizer;
use posgeo::error::{PosgeoError, Result};

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

/// The layer rows of `sums` measured against the analysis's geometry, appended to its
/// encodings, with the report's [`LayersInfo`].
pub fn add_layers(analysis: &mut Analysis, model: &Model, plan: &Plan, sums: &LayerSums) -> Result<()> {
    let (centroids, residuals) = sums.finish(plan);
    let skip = analysis.params.layer_skip.min(plan.positions.saturating_sub(2));
    let per_layer = crate::measures::layer_measures(sums, plan, &centroids, skip);
    let info = LayersInfo {
        model_type: model.config.model_type.clone(),
        num_layers: model.config.num_hidden_layers,
        hidden_size: model.config.hidden_size,
        sequences_used: plan.sequences.len(),
        positions: plan.positions,
        cut: plan.cut,
        skip,
        measures: per_layer,
    };
    add_layer_rows(analysis, centroids.into_iter().zip(residuals).collect(), info)
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
        .filter(|_| params.tokenizer == posgeo::corpus::tokenize::TokenizerKind::Model)
        .ok_or_else(|| PosgeoError::BadModel("a model's layers need its own tokenizer (tokenizer = model)".into()))?;
    if params.bos {
        return Err(PosgeoError::BadModel(
            "the <bos> marker is not a token of the model: turn it off (the model's tokenizer adds its own [CLS])"
                .into(),
        ));
    }
    let plan = plan(seqs, &params, tokenizer, model, analysis.counts.n)?;
    let batches = crate::batches(&plan);
    let sums = crate::run(model, &plan, &batches, progress)?;
    add_layers(analysis, model, &plan, &sums)
}
