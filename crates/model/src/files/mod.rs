//! **A model's files** (docs/MATH.md §14–§14b): which files make a model, and how each format is
//! read into the named f32 tensors the passes take.
//!
//! * one `.gguf` file ([`gguf`]): config, tokenizer ([`gguf_tokenizer`]) and weights in one;
//! * a Hugging Face folder: `config.json`, the weights as `model.safetensors`, as the shards
//!   `model.safetensors.index.json` lists, or as `pytorch_model.bin` ([`pickle`], data only),
//!   and the tokenizer as `tokenizer.json` or, for BERT, `vocab.txt` ([`vocab`]).
//!
//! The same choice serves a folder on disk (only the files it needs are read) and the page's
//! upload of several files.

pub mod gguf;
pub mod gguf_tokenizer;
pub mod pickle;
pub mod vocab;

use posgeo::error::{PosgeoError, Result};

/// The base name of a path-like member name.
pub fn base(name: &str) -> &str {
    name.rsplit(['/', '\\']).next().unwrap_or(name)
}

/// The format a set of files is read as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Layout {
    /// A GGUF file (its name).
    Gguf(String),
    /// config.json and these weight files.
    Folder(Vec<String>),
}

/// The files a model needs among `names` (base names), or a message naming what is missing.
pub fn choose(names: &[&str], index_json: Option<&[u8]>) -> Result<Layout> {
    let has = |n: &str| names.contains(&n);
    if !has("config.json") {
        if let Some(g) = names.iter().find(|n| n.ends_with(".gguf")) {
            return Ok(Layout::Gguf(g.to_string()));
        }
    }
    let listing = || names.join(", ");
    if !has("config.json") {
        return Err(PosgeoError::BadModel(format!(
            "the model's files need a config.json or one .gguf file (given: {}); a model folder holds config.json, the weights (model.safetensors, its shards, or pytorch_model.bin) and tokenizer.json",
            listing()
        )));
    }
    if has("model.safetensors") {
        return Ok(Layout::Folder(vec!["model.safetensors".into()]));
    }
    if let Some(index) = index_json {
        let v: serde_json::Value = serde_json::from_slice(index)
            .map_err(|e| PosgeoError::BadModel(format!("model.safetensors.index.json is not JSON ({e})")))?;
        let mut shards: Vec<String> = v
            .get("weight_map")
            .and_then(|m| m.as_object())
            .ok_or_else(|| PosgeoError::BadModel("model.safetensors.index.json has no weight_map".into()))?
            .values()
            .filter_map(|f| f.as_str().map(str::to_string))
            .collect();
        shards.sort();
        shards.dedup();
        let missing: Vec<&str> = shards.iter().map(String::as_str).filter(|s| !has(s)).collect();
        if !missing.is_empty() {
            return Err(PosgeoError::BadModel(format!(
                "model.safetensors.index.json lists shard(s) that are not among the files: {}",
                missing.join(", ")
            )));
        }
        return Ok(Layout::Folder(shards));
    }
    let mut safetensors: Vec<String> =
        names.iter().filter(|n| n.ends_with(".safetensors")).map(|n| n.to_string()).collect();
    if !safetensors.is_empty() {
        safetensors.sort();
        return Ok(Layout::Folder(safetensors));
    }
    if has("pytorch_model.bin") {
        return Ok(Layout::Folder(vec!["pytorch_model.bin".into()]));
    }
    Err(PosgeoError::BadModel(format!(
        "the model's files hold no weights: model.safetensors, its shards with model.safetensors.index.json, or pytorch_model.bin (given: {})",
        listing()
    )))
}

/// The names of the tokenizer's files a folder may hold, in the order they are preferred.
pub const TOKENIZER_FILES: [&str; 4] = ["tokenizer.json", "tokenizer.json.gz", "vocab.txt", "tokenizer_config.json"];
