//! Steps 11 and 12: **inside the model** — stress across its layers (docs/MATH.md §14), and
//! **what the model does with position, layer by layer** (docs/MATH.md §14b): how much
//! of the hidden states' variance position explains at each depth (the positional share) and
//! in how many directions the positional centroids spread (the effective dimension). Every
//! number comes from this run's report; nothing here is a claim about models in general.

use super::{num, Block};
use posgeo::analysis::layers::LayerMeasures;
use posgeo::report::Report;

/// The step's body.
pub fn content(r: &Report) -> Vec<Block> {
    let Some(l) = r.layers.as_ref().filter(|l| !l.measures.is_empty()) else {
        return vec![Block::Text(
            "An encoder (BERT) sees the whole sequence and is given position; a decoder (Llama, SmolLM, \
             Qwen2, GPT-2) reads left to right, and with rotary encodings it is never given a position \
             vector at all. Choose a model under “Inside the model” (SmolLM2-135M-Instruct is a shipped \
             decoder) and run: this step then reports, layer by layer, how much of the hidden states' \
             variance position explains and in how many directions the positions spread."
                .into(),
        )];
    };
    let kind = if l.model_type == "bert" { "encoder" } else { "decoder" };
    let m = &l.measures;
    let peak = |f: fn(&LayerMeasures) -> f64| {
        m.iter().filter(|x| f(x).is_finite()).max_by(|a, b| f(a).total_cmp(&f(b))).map(|x| (x.layer, f(x)))
    };
    let share = |x: &LayerMeasures| x.positional_share;
    let dim = |x: &LayerMeasures| x.effective_dimension;
    let (first, last) = (&m[0], &m[m.len() - 1]);
    let mut out = vec![Block::Text(format!(
        "This {kind} ({}, {} layers, hidden size {}) read {} sequences; at positions {}…{} of its pass, the \
         positional share is the fraction of the hidden states' variance that the position explains, and the \
         effective dimension counts the directions in which the positions' mean states spread (exp of the \
         entropy of their PCA spectrum).",
        l.model_type,
        l.num_layers,
        l.hidden_size,
        l.sequences_used,
        l.skip,
        l.positions.saturating_sub(1)
    ))];
    if let Some((at, v)) = peak(share) {
        out.push(Block::Text(format!(
            "On this corpus the positional share peaks at layer {at} ({}); it is {} at layer {} (the embeddings) \
             and {} at the last layer, {}.",
            num(v),
            num(first.positional_share),
            first.layer,
            num(last.positional_share),
            last.layer
        )));
    }
    if let Some((at, v)) = peak(dim) {
        let trend = match last.effective_dimension.total_cmp(&first.effective_dimension) {
            std::cmp::Ordering::Greater => "grows",
            std::cmp::Ordering::Less => "shrinks",
            std::cmp::Ordering::Equal => "ends where it starts",
        };
        out.push(Block::Text(format!(
            "The effective dimension {trend} with depth: {} at layer {}, {} at the last layer, highest at layer \
             {at} ({}). The map shows the last layer's positions on their first two principal axes.",
            num(first.effective_dimension),
            first.layer,
            num(last.effective_dimension),
            num(v)
        )));
    }
    let rows = m.iter().map(|x| vec![x.layer.to_string(), num(x.positional_share), num(x.effective_dimension)]);
    out.push(Block::Grid(
        vec!["layer".into(), "positional share".into(), "effective dimension".into()],
        rows.collect(),
    ));
    out
}

/// Step 11's body: stress across the model's layers.
pub(super) fn inside_model(r: &Report) -> Vec<Block> {
    let (Some(l), Some(c)) = (&r.layers, posgeo_charts::LayerCurves::of(r, false)) else {
        return vec![Block::Text(
            "A trained model mixes position into every layer. Choose a model under “Inside the model” (or \
             the paper's setting) and run: each layer's mean hidden state per position then becomes an \
             encoding, measured like the others."
                .into(),
        )];
    };
    let mut out = vec![Block::Text(format!(
        "The model ({} layers, hidden size {}) read the first {} sequences. At each position i, layer ℓ's \
         mean hidden state is an encoding, layer:ℓ; layer-residual:ℓ removes from it the part explained by \
         which tokens stand at i. Both are measured over {} positions against D.",
        l.num_layers, l.hidden_size, l.sequences_used, l.positions
    ))];
    if let Some((worst, v)) = c.worst() {
        let best =
            c.centroid.iter().copied().enumerate().filter(|(_, v)| v.is_finite()).min_by(|a, b| a.1.total_cmp(&b.1));
        let best = best.map_or(String::new(), |(b, bv)| format!(", and layer {b} stays closest (σ* = {})", num(bv)));
        out.push(Block::Text(format!(
            "Layer {worst} departs most from the corpus geometry (σ* = {}){best}. The paper finds an early layer \
             departing most in BERT-base (layer 3).",
            num(v)
        )));
    }
    let rows = c
        .centroid
        .iter()
        .zip(&c.residual)
        .enumerate()
        .map(|(k, (a, b))| vec![k.to_string(), num(*a), num(*b)])
        .collect();
    out.push(Block::Grid(vec!["layer".into(), "σ* centroid".into(), "σ* residual".into()], rows));
    out
}
