//! # posgeo-model — a model's layers
//!
//! **A model's layers** (docs/MATH.md §14–§14b): what a trained encoder or decoder does with
//! position, layer by layer; the layer above the numeric core (`posgeo`), whose analysis
//! measures the layers' configurations.
//!
//! [`files`] reads a model — a Hugging Face folder (config.json; safetensors, sharded or not,
//! or pytorch_model.bin; tokenizer.json or vocab.txt) or one GGUF file — into checked f32
//! [`weights`]. [`bert`] runs Hugging Face's `BertModel`, [`decoder`] the Llama family's
//! and GPT-2's passes under the causal mask, each keeping every hidden state; [`centroids`]
//! turns the states of the first S sequences into one configuration per layer — the
//! positional centroid `layer:ℓ` and the content-removed centroid `layer-residual:ℓ` — over
//! the positions 0..n_L, which [`layers`] hands to the analysis to measure like every other
//! encoding (`posgeo::analysis::layers`), and [`measures`] gives each layer's positional share,
//! effective dimension and principal coordinates.
//!
//! The sequences run in batches of similar length ([`batches`]), padded on the right under
//! the mask to the batch's longest; the per-position and per-token sums of the batches add,
//! so the page spreads them over its helper workers and merges their [`LayerSums`].

pub mod bert;
pub mod centroids;
pub mod config;
pub mod decoder;
pub mod files;
pub mod layers;
pub mod measures;
pub mod random;
pub mod weights;

/// Fixtures the tests of this crate and of the crates above it share (feature `test-support`).
#[cfg(any(test, feature = "test-support"))]
#[doc(hidden)]
pub mod test_support;

pub use bert::{Batch, Bert, HiddenStates};
pub use centroids::{LayerSums, Plan};
pub use config::BertConfig;
pub use decoder::{Decoder, DecoderConfig};

use files::Layout;
use posgeo::error::{PosgeoError, Result};

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
    tokenizer_among(&posgeo::learned_tables::bundle_members(bytes).ok()?)
}

/// The tokenizer among a bundle's members (name, bytes): a tokenizer.json as it is.
fn tokenizer_among(members: &[(String, &[u8])]) -> Option<NamedBytes> {
    let find = |suffix: &str| members.iter().find(|(n, _)| n.ends_with(suffix));
    find("tokenizer.json").or_else(|| find("tokenizer.json.gz")).map(|(n, b)| (n.clone(), b.to_vec()))
}

/// What every pass has: the shapes the plan and the report need.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelInfo {
    /// `bert`, `llama`, `mistral`, `qwen2`, `gpt2`.
    pub model_type: String,
    /// L.
    pub num_hidden_layers: usize,
    /// H.
    pub hidden_size: usize,
    /// Rows of the token embedding.
    pub vocab_size: usize,
    /// The longest sequence the model reads.
    pub max_position_embeddings: usize,
    /// The padding of mode `pad`.
    pub pad_token_id: u32,
    /// Attention heads (the memory estimate).
    pub num_attention_heads: usize,
    /// Feed-forward width (the memory estimate).
    pub intermediate_size: usize,
    /// Whether the pass reads with a causal mask.
    pub causal: bool,
}

/// The pass a model runs.
pub enum Net {
    /// A BERT-family encoder.
    Bert(Bert),
    /// A decoder (Llama family, GPT-2).
    Decoder(Decoder),
}

/// A loaded model: its shapes, its pass, and what came with it.
pub struct Model {
    /// The checked shapes.
    pub config: ModelInfo,
    /// The forward pass.
    pub net: Net,
    /// The checkpoint's dtype(s) as stored (F32, F16, BF16, Q4_1+Q8_0+F32, …).
    pub dtype: String,
    /// The tensor-name prefix found (`bert.`, `model.`, `transformer.` or none).
    pub prefix: String,
    /// The learned position-embedding table (BERT, GPT-2), named by its tensor, as read.
    pub positions: Option<(String, posgeo::learned_tables::Table)>,
    /// The tokenizer.json that came with the files (written from a GGUF's metadata or a
    /// vocab.txt when that is what they hold), with its name.
    pub tokenizer: Option<NamedBytes>,
    /// The weights' format: `safetensors`, `pytorch_model.bin` or `GGUF`.
    pub format: String,
}

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let c = &self.config;
        write!(f, "Model({}, {} layers, H = {}, {})", c.model_type, c.num_hidden_layers, c.hidden_size, self.dtype)
    }
}

/// Peak bytes of the pass: the f32 weights beside the file's bytes, and one batch's
/// activations (every layer's states, the attention scores and mask, the feed-forward width).
pub fn memory_estimate(info: &ModelInfo, parameters: u64, file_bytes: u64) -> u64 {
    let (h, i, l) = (info.hidden_size as u64, info.intermediate_size as u64, info.num_hidden_layers as u64);
    let heads = info.num_attention_heads as u64;
    let t = BATCH_TOKENS as u64;
    let longest = (info.max_position_embeddings as u64).min(t);
    let activations = 4 * t * (h * (l + 1 + 8) + 3 * i) + 4 * (3 * heads + 1) * t * longest;
    file_bytes.saturating_add(4 * parameters).saturating_add(activations)
}

fn bert_info(c: &BertConfig) -> ModelInfo {
    ModelInfo {
        model_type: c.model_type.clone(),
        num_hidden_layers: c.num_hidden_layers,
        hidden_size: c.hidden_size,
        vocab_size: c.vocab_size,
        max_position_embeddings: c.max_position_embeddings,
        pad_token_id: c.pad_token_id,
        num_attention_heads: c.num_attention_heads,
        intermediate_size: c.intermediate_size,
        causal: false,
    }
}

fn decoder_info(c: &DecoderConfig) -> ModelInfo {
    ModelInfo {
        model_type: c.model_type.clone(),
        num_hidden_layers: c.num_hidden_layers,
        hidden_size: c.hidden_size,
        vocab_size: c.vocab_size,
        max_position_embeddings: c.max_position_embeddings,
        pad_token_id: c.pad_token_id,
        num_attention_heads: c.num_attention_heads,
        intermediate_size: c.intermediate_size,
        causal: true,
    }
}

/// Refuses a model whose pass would not fit the memory budget, before its weights are read.
fn check_memory(info: &ModelInfo, parameters: u64, file_bytes: u64) -> Result<()> {
    posgeo::limits::check(
        &format!(
            "running the model ({}, {} layers, H = {})",
            info.model_type, info.num_hidden_layers, info.hidden_size
        ),
        memory_estimate(info, parameters, file_bytes),
    )
}

fn table_of(t: &weights::Tensor32) -> posgeo::learned_tables::Table {
    let cols = t.shape.get(1).copied().unwrap_or(1).max(1);
    t.data.chunks(cols).map(|r| r.iter().map(|&v| f64::from(v)).collect()).collect()
}

impl Model {
    /// Reads a model from its files (base name, bytes) as [`files::choose`] picks them.
    pub fn from_files(members: &[(String, &[u8])]) -> Result<Model> {
        let find = |name: &str| members.iter().find(|(n, _)| files::base(n) == name).map(|(_, b)| *b);
        let names: Vec<&str> = members.iter().map(|(n, _)| files::base(n)).collect();
        match files::choose(&names, find("model.safetensors.index.json"))? {
            Layout::Gguf(name) => Model::from_gguf(find(&name).unwrap_or_default(), tokenizer_among(members)),
            Layout::Folder(weights) => {
                let config = find("config.json").unwrap_or_default();
                let tokenizer = match tokenizer_among(members) {
                    Some(t) => Some(t),
                    None => match find("vocab.txt") {
                        Some(v) => Some((
                            "vocab.txt".to_string(),
                            files::vocab::tokenizer_json(v, find("tokenizer_config.json"))?.into_bytes(),
                        )),
                        None => None,
                    },
                };
                let weights: Vec<(String, &[u8])> =
                    weights.iter().map(|w| (w.clone(), find(w).unwrap_or_default())).collect();
                Model::from_folder(config, &weights, tokenizer)
            }
        }
    }

    fn from_folder(config_json: &[u8], weights: &[(String, &[u8])], tokenizer: Option<NamedBytes>) -> Result<Model> {
        let v: serde_json::Value = serde_json::from_slice(config_json).map_err(|e| {
            PosgeoError::BadModel(format!("config.json: not a JSON object of a model's settings ({e})"))
        })?;
        let file_bytes: u64 = weights.iter().map(|(_, b)| b.len() as u64).sum();
        let pickle = weights.first().is_some_and(|(n, _)| n.ends_with(".bin"));
        let source: Box<dyn weights::TensorSource + '_> = if pickle {
            Box::new(files::pickle::PickleFile::new(weights[0].1)?)
        } else {
            Box::new(weights::SafetensorsFiles::new(weights)?)
        };
        let format = if pickle { "pytorch_model.bin" } else { "safetensors" }.to_string();
        if v.get("model_type").and_then(|t| t.as_str()) == Some("bert") {
            let c = BertConfig::from_json(config_json)?;
            let info = bert_info(&c);
            check_memory(&info, c.parameter_count(), file_bytes)?;
            let w = weights::Weights::select(source.as_ref(), &c.tensors(), &["", "bert."])?;
            let positions = Some((
                format!("{}embeddings.position_embeddings.weight", w.prefix),
                table_of(w.get("embeddings.position_embeddings.weight")?),
            ));
            let (dtype, prefix) = (w.dtype.clone(), w.prefix.clone());
            return Ok(Model {
                config: info,
                net: Net::Bert(Bert::new(&c, w)?),
                dtype,
                prefix,
                positions,
                tokenizer,
                format,
            });
        }
        let c = DecoderConfig::from_json(config_json)?;
        Model::decoder(c, source.as_ref(), &["model.", "", "transformer."], file_bytes, tokenizer, format)
    }

    fn decoder(
        c: DecoderConfig,
        source: &dyn weights::TensorSource,
        prefixes: &[&str],
        file_bytes: u64,
        tokenizer: Option<NamedBytes>,
        format: String,
    ) -> Result<Model> {
        let info = decoder_info(&c);
        check_memory(&info, c.parameter_count(), file_bytes)?;
        let w = weights::Weights::select(source, &c.tensors(), prefixes)?;
        let positions = match w.get("wpe.weight") {
            Ok(t) => Some((format!("{}wpe.weight", w.prefix), table_of(t))),
            Err(_) => None,
        };
        let (dtype, prefix) = (w.dtype.clone(), w.prefix.clone());
        Ok(Model { config: info, net: Net::Decoder(Decoder::new(&c, w)?), dtype, prefix, positions, tokenizer, format })
    }

    /// Reads a GGUF file; its tokenizer is written from its metadata unless one is given.
    pub fn from_gguf(bytes: &[u8], tokenizer: Option<NamedBytes>) -> Result<Model> {
        let file = files::gguf::GgufFile::new(bytes)?;
        let tokenizer = match tokenizer {
            Some(t) => Some(t),
            None => Some((
                "GGUF tokenizer".to_string(),
                files::gguf_tokenizer::tokenizer_json(file.metadata())?.into_bytes(),
            )),
        };
        let mut c = file.config.clone();
        if let Some(div) = file.rope_divisors()? {
            c.rope_scaling = Some(decoder::config::RopeScaling::Divisors(div));
        }
        posgeo::limits::check(
            "dequantizing the GGUF file's tensors",
            file.dequantized_bytes().saturating_add(bytes.len() as u64),
        )?;
        Model::decoder(c, &file, &[""], bytes.len() as u64, tokenizer, "GGUF".into())
    }

    /// Reads a model from a bundle of its files ([`posgeo::learned_tables::bundle`]: the page's upload
    /// of several files), found by name, with the tokenizer that came with them.
    pub fn from_bundle(bytes: &[u8]) -> Result<(Model, Option<NamedBytes>)> {
        let members =
            posgeo::learned_tables::bundle_members(bytes).map_err(|e| PosgeoError::BadModel(e.to_string()))?;
        let model = Model::from_files(&members)?;
        let tokenizer = model.tokenizer.clone();
        Ok((model, tokenizer))
    }

    /// Reads a model folder, or one `.gguf` file (native only); only the files the model needs
    /// are read.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn from_dir(path: &std::path::Path) -> Result<Model> {
        let read =
            |p: &std::path::Path| std::fs::read(p).map_err(|e| PosgeoError::BadModel(format!("{}: {e}", p.display())));
        if path.is_file() {
            return Model::from_gguf(&read(path)?, None);
        }
        let listing = std::fs::read_dir(path).map_err(|e| PosgeoError::BadModel(format!("{}: {e}", path.display())))?;
        let names: Vec<String> =
            listing.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let index = path.join("model.safetensors.index.json");
        let index = if index.is_file() { Some(read(&index)?) } else { None };
        let mut wanted: Vec<String> = match files::choose(&refs, index.as_deref())? {
            Layout::Gguf(g) => vec![g],
            Layout::Folder(w) => std::iter::once("config.json".to_string()).chain(w).collect(),
        };
        wanted.extend(files::TOKENIZER_FILES.iter().filter(|t| refs.contains(t)).map(|t| t.to_string()));
        let mut bytes = Vec::with_capacity(wanted.len());
        for name in wanted {
            let b = read(&path.join(&name))?;
            bytes.push((name, b));
        }
        let members: Vec<(String, &[u8])> = bytes.iter().map(|(n, b)| (n.clone(), b.as_slice())).collect();
        Model::from_files(&members)
    }

    /// Its position table as a learned table, named by its tensor (BERT's and GPT-2's).
    pub fn position_table(&self) -> Option<(String, posgeo::learned_tables::Table)> {
        self.positions.clone()
    }

    /// h⁰ … h^L of a batch.
    pub fn hidden_states(&self, batch: &Batch) -> Result<HiddenStates> {
        match &self.net {
            Net::Bert(b) => b.hidden_states(batch),
            Net::Decoder(d) => d.hidden_states(batch),
        }
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
        let states = model.hidden_states(&batch)?;
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
mod tests;
