//! **A model's layers** (docs/MATH.md §14): what a trained encoder does with position, layer by layer.
//!
//! A model is `config.json` ([`config`]), `model.safetensors` ([`weights`]) and the
//! tokenizer.json that counts the corpus. [`forward`] runs Hugging Face's `BertModel` in f32
//! and keeps every hidden state; [`centroids`] turns the states of the first S sequences into
//! one configuration per layer — the positional centroid `layer:ℓ` and the content-removed
//! centroid `layer-residual:ℓ` — over the positions 0..n_L, which the analysis then measures
//! like every other encoding (`crate::analysis::layers`).
//!
//! The sequences run in batches of similar length ([`batches`]), padded under the attention
//! mask to the batch's longest; the per-position and per-token sums of the batches add, so the
//! page spreads them over its helper workers and merges their [`LayerSums`].

pub mod centroids;
pub mod config;
pub mod forward;
pub mod random;
pub mod weights;

pub use centroids::{LayerSums, Plan};
pub use config::BertConfig;
pub use forward::{Batch, Bert};

use crate::error::{PosgeoError, Result};

/// Tokens (B × T) per batch at most.
pub const BATCH_TOKENS: usize = 2048;
/// Sequences per batch at most.
pub const BATCH_SEQUENCES: usize = 32;

/// A file's name and bytes.
pub type NamedBytes = (String, Vec<u8>);

/// The `tokenizer.json` (or `.json.gz`) of a bundle of a model folder's files, with its name,
/// without reading the model ([`Model::from_bundle`] returns it too); `None` when the bundle
/// holds none or cannot be read.
pub fn bundle_tokenizer(bytes: &[u8]) -> Option<NamedBytes> {
    tokenizer_among(&crate::tables::bundle_members(bytes).ok()?)
}

/// The tokenizer among a bundle's members (name, bytes).
fn tokenizer_among(members: &[(String, &[u8])]) -> Option<NamedBytes> {
    let find = |suffix: &str| members.iter().find(|(n, _)| n.ends_with(suffix));
    find("tokenizer.json").or_else(|| find("tokenizer.json.gz")).map(|(n, b)| (n.clone(), b.to_vec()))
}

/// A loaded model: its configuration and the forward pass.
pub struct Model {
    /// The checked config.json.
    pub config: BertConfig,
    /// The forward pass.
    pub bert: Bert,
    /// The checkpoint's dtype (F32, F16, BF16).
    pub dtype: String,
    /// The tensor-name prefix found (`bert.` or none).
    pub prefix: String,
    /// The learned position-embedding table (max_position_embeddings × H), as read.
    pub positions: crate::tables::Table,
}

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Model({} layers, H = {}, {})", self.config.num_hidden_layers, self.config.hidden_size, self.dtype)
    }
}

/// Peak bytes of the pass: the f32 weights beside the file's bytes, and one batch's
/// activations (every layer's states, the attention scores, the feed-forward width).
pub fn memory_estimate(config: &BertConfig, file_bytes: u64) -> u64 {
    let (h, i, l) = (config.hidden_size as u64, config.intermediate_size as u64, config.num_hidden_layers as u64);
    let heads = config.num_attention_heads as u64;
    let t = BATCH_TOKENS as u64;
    let longest = (config.max_position_embeddings as u64).min(t);
    let weights = 4 * config.parameter_count();
    let activations = 4 * t * (h * (l + 1 + 8) + 2 * i) + 4 * 3 * heads * t * longest;
    file_bytes.saturating_add(weights).saturating_add(activations)
}

impl Model {
    /// Reads and checks a model's config.json and model.safetensors.
    pub fn from_bytes(config_json: &[u8], safetensors: &[u8]) -> Result<Model> {
        let config = BertConfig::from_json(config_json)?;
        crate::limits::check(
            &format!("running the model ({} layers, H = {})", config.num_hidden_layers, config.hidden_size),
            memory_estimate(&config, safetensors.len() as u64),
        )?;
        let weights = weights::Weights::from_safetensors(safetensors, &config)?;
        let (dtype, prefix) = (weights.dtype.clone(), weights.prefix.clone());
        let table = weights.get("embeddings.position_embeddings.weight")?;
        let positions =
            table.data.chunks(config.hidden_size).map(|r| r.iter().map(|&v| f64::from(v)).collect()).collect();
        let bert = Bert::new(&config, weights)?;
        Ok(Model { config, bert, dtype, prefix, positions })
    }

    /// Its position table as a learned table, named by its tensor.
    pub fn position_table(&self) -> (String, crate::tables::Table) {
        (format!("{}embeddings.position_embeddings.weight", self.prefix), self.positions.clone())
    }

    /// Reads a model from a bundle of its folder's files ([`crate::tables::bundle`]: the page's
    /// upload of several files), found by name: `config.json`, `model.safetensors`, and the
    /// `tokenizer.json` (or `.json.gz`) when present, returned with its name.
    pub fn from_bundle(bytes: &[u8]) -> Result<(Model, Option<NamedBytes>)> {
        let members = crate::tables::bundle_members(bytes).map_err(|e| PosgeoError::BadModel(e.to_string()))?;
        let find = |suffix: &str| members.iter().find(|(n, _)| n.ends_with(suffix));
        let names: Vec<&str> = members.iter().map(|(n, _)| n.as_str()).collect();
        let need = |suffix: &str| {
            find(suffix).map(|(_, b)| *b).ok_or_else(|| {
                PosgeoError::BadModel(format!(
                    "the model's files need a {suffix} (given: {}); a model folder holds config.json, model.safetensors and tokenizer.json",
                    names.join(", ")
                ))
            })
        };
        let model = Model::from_bytes(need("config.json")?, need(".safetensors")?)?;
        Ok((model, tokenizer_among(&members)))
    }

    /// Reads a model folder: `config.json` and `model.safetensors` (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn from_dir(dir: &std::path::Path) -> Result<Model> {
        let read = |name: &str| {
            std::fs::read(dir.join(name))
                .map_err(|e| PosgeoError::BadModel(format!("{}: {e}", dir.join(name).display())))
        };
        Model::from_bytes(&read("config.json")?, &read("model.safetensors")?)
    }
}

/// The batches of a plan: sequence indices in order of run length, cut into groups of at
/// most [`BATCH_SEQUENCES`] sequences and [`BATCH_TOKENS`] padded tokens.
pub fn batches(plan: &Plan) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..plan.sequences.len()).filter(|&k| !plan.sequences[k].is_empty()).collect();
    order.sort_by_key(|&k| plan.run_length(&plan.sequences[k]));
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut current: Vec<usize> = Vec::new();
    for k in order {
        let len = plan.run_length(&plan.sequences[k]);
        if !current.is_empty() && ((current.len() + 1) * len > BATCH_TOKENS || current.len() >= BATCH_SEQUENCES) {
            out.push(std::mem::take(&mut current));
        }
        current.push(k);
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// The padded batch of sequences `indices`.
fn batch_of(plan: &Plan, indices: &[usize]) -> Batch {
    let length = indices.iter().map(|&k| plan.run_length(&plan.sequences[k])).max().unwrap_or(1).max(1);
    let mut ids = Vec::with_capacity(indices.len() * length);
    let mut mask = Vec::with_capacity(indices.len() * length);
    for &k in indices {
        let s = &plan.sequences[k];
        ids.extend(s.iter().copied().chain(std::iter::repeat(plan.pad_id)).take(length));
        mask.extend((0..length).map(|i| u8::from(i < s.len())));
    }
    Batch { ids, mask, sequences: indices.len(), length }
}

/// Runs `batches` of the plan and adds their states into sums. `progress` gets the fraction
/// of these batches done; `false` cancels.
pub fn run(
    model: &Model,
    plan: &Plan,
    batches: &[Vec<usize>],
    progress: &mut dyn FnMut(f64) -> bool,
) -> Result<LayerSums> {
    let c = &model.config;
    let mut sums = LayerSums::new(c.num_hidden_layers + 1, c.hidden_size, plan.positions);
    for (b, indices) in batches.iter().enumerate() {
        if !progress(b as f64 / batches.len().max(1) as f64) {
            return Err(PosgeoError::Cancelled);
        }
        let batch = batch_of(plan, indices);
        let states = model.bert.hidden_states(&batch)?;
        for (row, &k) in indices.iter().enumerate() {
            sums.add(plan, &plan.sequences[k], &states, row * batch.length * c.hidden_size);
        }
    }
    if !progress(1.0) {
        return Err(PosgeoError::Cancelled);
    }
    Ok(sums)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counts::Mode;

    #[test]
    fn batches_cover_every_sequence_once_within_the_limits() {
        let seqs: Vec<Vec<u32>> = (0..100).map(|k| vec![1; 1 + (k * 37) % 200]).collect();
        let plan = Plan::new(seqs, 512, 512, 5, Mode::Condition, 0);
        let b = batches(&plan);
        let mut seen: Vec<usize> = b.iter().flatten().copied().collect();
        seen.sort_unstable();
        assert_eq!(seen, (0..100).collect::<Vec<_>>());
        for batch in &b {
            let longest = batch.iter().map(|&k| plan.sequences[k].len()).max().unwrap_or(0);
            assert!(batch.len() <= BATCH_SEQUENCES && (batch.len() * longest <= BATCH_TOKENS || batch.len() == 1));
        }
    }
}
