//! A model's `config.json` (docs/MATH.md §14): the fields the BERT forward pass reads, each checked,
//! and a refusal naming what the file says for anything the pass does not run.
//!
//! | field | use | default |
//! | --- | --- | --- |
//! | `model_type` | must be `"bert"` | — (required) |
//! | `hidden_size` H, `num_attention_heads` (H divisible by it), `num_hidden_layers` L, `intermediate_size` | shapes | — (required) |
//! | `vocab_size`, `max_position_embeddings`, `type_vocab_size` | the embedding tables' rows | —, —, 2 |
//! | `layer_norm_eps` | every LayerNorm | 1e-12 |
//! | `hidden_act` | `"gelu"` (Hugging Face's exact erf GELU; `"gelu_python"` is the same function) | `"gelu"` |
//! | `position_embedding_type` | `"absolute"` (written as null it is refused: Hugging Face then adds none) | `"absolute"` |
//! | `pad_token_id` | the padding of mode `pad` | 0 |
//! | `is_decoder` | must not be true (a decoder's causal mask is not run) | false |

use posgeo::error::{PosgeoError, Result};
use serde::{Deserialize, Serialize};

/// The checked configuration of a BERT-family encoder.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BertConfig {
    /// `model_type` (always "bert" once checked).
    pub model_type: String,
    /// H.
    pub hidden_size: usize,
    /// L.
    pub num_hidden_layers: usize,
    /// Attention heads per layer.
    pub num_attention_heads: usize,
    /// The feed-forward width.
    pub intermediate_size: usize,
    /// Rows of the word-embedding table.
    pub vocab_size: usize,
    /// Rows of the position-embedding table (the longest input).
    pub max_position_embeddings: usize,
    /// Rows of the token-type table.
    pub type_vocab_size: usize,
    /// ε of every LayerNorm.
    pub layer_norm_eps: f64,
    /// The padding token id (mode `pad`).
    pub pad_token_id: u32,
}

/// The raw fields, before the checks.
#[derive(Deserialize)]
struct Raw {
    model_type: Option<String>,
    hidden_size: Option<usize>,
    num_hidden_layers: Option<usize>,
    num_attention_heads: Option<usize>,
    intermediate_size: Option<usize>,
    vocab_size: Option<usize>,
    max_position_embeddings: Option<usize>,
    type_vocab_size: Option<usize>,
    layer_norm_eps: Option<f64>,
    hidden_act: Option<serde_json::Value>,
    /// `None` when absent; `Some(Null)` when written as null (Hugging Face then adds no
    /// position embeddings, so it is refused, not read as the default).
    #[serde(default, deserialize_with = "present")]
    position_embedding_type: Option<serde_json::Value>,
    pad_token_id: Option<serde_json::Value>,
    is_decoder: Option<bool>,
}

/// A field that is present, whatever its value (null included).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Option<serde_json::Value>, D::Error> {
    serde_json::Value::deserialize(d).map(Some)
}

fn bad(m: impl Into<String>) -> PosgeoError {
    PosgeoError::BadModel(format!("config.json: {}", m.into()))
}

/// A required size field, at least 1.
fn size(v: Option<usize>, name: &str) -> Result<usize> {
    match v {
        None => Err(bad(format!("{name} is missing"))),
        Some(0) => Err(bad(format!("{name} is 0"))),
        Some(v) if v > 1 << 24 => Err(bad(format!("{name} = {v} is implausibly large"))),
        Some(v) => Ok(v),
    }
}

impl BertConfig {
    /// Reads and checks `config.json`.
    pub fn from_json(bytes: &[u8]) -> Result<BertConfig> {
        let raw: Raw =
            serde_json::from_slice(bytes).map_err(|e| bad(format!("not a JSON object of a model's settings ({e})")))?;
        let model_type = raw.model_type.ok_or_else(|| bad("model_type is missing"))?;
        if model_type != "bert" {
            return Err(bad(format!(
                "model_type is {model_type:?}; posgeo runs BERT-family encoders (model_type \"bert\": BERT, MiniLM and the sentence-transformers built on them)"
            )));
        }
        let act = raw.hidden_act.unwrap_or_else(|| "gelu".into());
        if !matches!(act.as_str(), Some("gelu" | "gelu_python")) {
            return Err(bad(format!("hidden_act is {act}; the forward pass runs the exact (erf) GELU, \"gelu\"")));
        }
        let pos = raw.position_embedding_type.unwrap_or_else(|| "absolute".into());
        if pos.as_str() != Some("absolute") {
            return Err(bad(format!(
                "position_embedding_type is {pos}; the forward pass runs \"absolute\" position embeddings"
            )));
        }
        if raw.is_decoder == Some(true) {
            return Err(bad(
                "is_decoder is true; the forward pass runs an encoder's attention over the whole sequence, not a decoder's causal mask",
            ));
        }
        let pad_token_id = match raw.pad_token_id {
            None | Some(serde_json::Value::Null) => 0,
            Some(v) => {
                v.as_u64().and_then(|v| u32::try_from(v).ok()).ok_or_else(|| bad(format!("pad_token_id is {v}")))?
            }
        };
        let eps = raw.layer_norm_eps.unwrap_or(1e-12);
        if !(eps.is_finite() && eps >= 0.0) {
            return Err(bad(format!("layer_norm_eps is {eps}")));
        }
        let c = BertConfig {
            model_type,
            hidden_size: size(raw.hidden_size, "hidden_size")?,
            num_hidden_layers: size(raw.num_hidden_layers, "num_hidden_layers")?,
            num_attention_heads: size(raw.num_attention_heads, "num_attention_heads")?,
            intermediate_size: size(raw.intermediate_size, "intermediate_size")?,
            vocab_size: size(raw.vocab_size, "vocab_size")?,
            max_position_embeddings: size(raw.max_position_embeddings, "max_position_embeddings")?,
            type_vocab_size: size(raw.type_vocab_size.or(Some(2)), "type_vocab_size")?,
            layer_norm_eps: eps,
            pad_token_id,
        };
        if c.hidden_size % c.num_attention_heads != 0 {
            return Err(bad(format!(
                "hidden_size = {} is not a multiple of num_attention_heads = {}",
                c.hidden_size, c.num_attention_heads
            )));
        }
        if c.num_hidden_layers > 1024 {
            return Err(bad(format!("num_hidden_layers = {} is implausibly large", c.num_hidden_layers)));
        }
        if c.pad_token_id as usize >= c.vocab_size {
            return Err(bad(format!(
                "pad_token_id = {} is outside the vocabulary of {}",
                c.pad_token_id, c.vocab_size
            )));
        }
        Ok(c)
    }

    /// The size of one attention head.
    pub fn head_dim(&self) -> usize {
        self.hidden_size / self.num_attention_heads
    }

    /// Every tensor the forward pass reads, with its shape (names without a `bert.` prefix).
    pub fn tensors(&self) -> Vec<(String, Vec<usize>)> {
        let (h, i) = (self.hidden_size, self.intermediate_size);
        let mut t = vec![
            ("embeddings.word_embeddings.weight".to_string(), vec![self.vocab_size, h]),
            ("embeddings.position_embeddings.weight".to_string(), vec![self.max_position_embeddings, h]),
            ("embeddings.token_type_embeddings.weight".to_string(), vec![self.type_vocab_size, h]),
            ("embeddings.LayerNorm.weight".to_string(), vec![h]),
            ("embeddings.LayerNorm.bias".to_string(), vec![h]),
        ];
        for l in 0..self.num_hidden_layers {
            let p = format!("encoder.layer.{l}.");
            for (name, shape) in [
                ("attention.self.query", vec![h, h]),
                ("attention.self.key", vec![h, h]),
                ("attention.self.value", vec![h, h]),
                ("attention.output.dense", vec![h, h]),
                ("intermediate.dense", vec![i, h]),
                ("output.dense", vec![h, i]),
            ] {
                t.push((format!("{p}{name}.bias"), vec![shape[0]]));
                t.push((format!("{p}{name}.weight"), shape));
            }
            for ln in ["attention.output.LayerNorm", "output.LayerNorm"] {
                t.push((format!("{p}{ln}.weight"), vec![h]));
                t.push((format!("{p}{ln}.bias"), vec![h]));
            }
        }
        t
    }

    /// The f32 parameters of the forward pass.
    pub fn parameter_count(&self) -> u64 {
        self.tensors().iter().map(|(_, s)| s.iter().product::<usize>() as u64).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINILM: &str = r#"{"model_type": "bert", "hidden_size": 384, "num_hidden_layers": 6,
        "num_attention_heads": 12, "intermediate_size": 1536, "vocab_size": 30522,
        "max_position_embeddings": 512, "type_vocab_size": 2, "layer_norm_eps": 1e-12,
        "hidden_act": "gelu", "position_embedding_type": "absolute", "pad_token_id": 0}"#;

    #[test]
    fn minilm_reads_and_counts_its_parameters() {
        let c = BertConfig::from_json(MINILM.as_bytes()).expect("reads");
        assert_eq!((c.hidden_size, c.num_hidden_layers, c.head_dim()), (384, 6, 32));
        // all-MiniLM-L6-v2 without its pooler: 22,565,376 parameters (the checkpoint's
        // 90,868,376 bytes hold them as f32 with the pooler's 147,840 and a header).
        assert_eq!(c.parameter_count(), 22_565_376);
        assert_eq!(c.tensors().len(), 5 + 6 * 16);
    }

    #[test]
    fn unsupported_settings_are_named() {
        for (from, to, says) in [
            ("\"bert\"", "\"gpt2\"", "model_type is \"gpt2\""),
            ("\"gelu\"", "\"relu\"", "hidden_act is \"relu\""),
            ("\"absolute\"", "\"relative_key\"", "position_embedding_type is \"relative_key\""),
            ("\"absolute\"", "null", "position_embedding_type is null"),
            ("\"pad_token_id\": 0", "\"pad_token_id\": 0, \"is_decoder\": true", "is_decoder is true"),
            ("\"num_attention_heads\": 12", "\"num_attention_heads\": 7", "not a multiple"),
        ] {
            let e = BertConfig::from_json(MINILM.replace(from, to).as_bytes()).expect_err(to);
            assert!(e.to_string().contains(says), "{e}");
        }
        // Absent, the position embeddings are absolute; an encoder may say it is no decoder.
        let absent = MINILM.replace(", \"position_embedding_type\": \"absolute\"", "");
        assert!(absent != MINILM && BertConfig::from_json(absent.as_bytes()).is_ok());
        let encoder = MINILM.replace("\"pad_token_id\": 0", "\"pad_token_id\": 0, \"is_decoder\": false");
        assert!(encoder != MINILM && BertConfig::from_json(encoder.as_bytes()).is_ok());
        let e = BertConfig::from_json(MINILM.replace("\"hidden_size\": 384,", "").as_bytes()).expect_err("missing");
        assert!(e.to_string().contains("hidden_size is missing"), "{e}");
    }
}
