//! A decoder's settings (docs/MATH.md §14b): read from a Hugging Face `config.json` or from a
//! GGUF file's metadata ([`crate::files::gguf`]), each checked, and a refusal naming
//! what the file says for anything the pass does not run.
//!
//! | family | `model_type` | config.json fields read |
//! | --- | --- | --- |
//! | [`Family::Llama`] | `llama`, `mistral` | `hidden_size`, `num_hidden_layers`, `num_attention_heads`, `num_key_value_heads` (= heads), `head_dim` (= H/heads), `intermediate_size`, `vocab_size`, `max_position_embeddings`, `rope_theta` (10000), `rms_norm_eps` (1e-6), `rope_scaling` (none, `linear`, `llama3`), `hidden_act` `silu` |
//! | [`Family::Qwen2`] | `qwen2` | the same; q, k and v carry biases |
//! | [`Family::Gpt2`] | `gpt2` | `n_embd`, `n_layer`, `n_head`, `n_inner` (4·H), `vocab_size`, `n_positions`, `layer_norm_epsilon` (1e-5), `activation_function` `gelu_new` |
//!
//! `pad_token_id` (else 0) pads mode `pad`, as for BERT.

use posgeo::error::{PosgeoError, Result};
use serde::{Deserialize, Serialize};

/// The architectures the decoder pass runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Family {
    /// Llama, SmolLM, Mistral: RMSNorm, rotary positions, grouped-query attention, SwiGLU.
    Llama,
    /// Qwen2: Llama with biases on q, k and v.
    Qwen2,
    /// GPT-2: learned absolute positions, pre-LayerNorm, tanh GELU.
    Gpt2,
}

/// How rotary frequencies are rescaled for long contexts (`rope_scaling`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum RopeScaling {
    /// Every frequency divided by the factor (positions divided by it).
    Linear(f64),
    /// Llama 3's: low frequencies divided by `factor`, high ones kept, a smooth blend between.
    Llama3 { factor: f64, low_freq_factor: f64, high_freq_factor: f64, original_max_position_embeddings: f64 },
    /// A divisor per frequency (a GGUF's `rope_freqs.weight`).
    Divisors(Vec<f64>),
}

/// A decoder's checked settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DecoderConfig {
    /// The model type as the file names it (`llama`, `mistral`, `qwen2`, `gpt2`).
    pub model_type: String,
    /// The architecture.
    pub family: Family,
    /// H.
    pub hidden_size: usize,
    /// L.
    pub num_hidden_layers: usize,
    /// Query heads.
    pub num_attention_heads: usize,
    /// Key/value heads (grouped-query attention; GPT-2: the query heads).
    pub num_key_value_heads: usize,
    /// Each head's width.
    pub head_dim: usize,
    /// The feed-forward width.
    pub intermediate_size: usize,
    /// Rows of the token embedding.
    pub vocab_size: usize,
    /// The longest sequence the model reads.
    pub max_position_embeddings: usize,
    /// Rotary base (Llama family).
    pub rope_theta: f64,
    /// Rotary rescaling, when any.
    pub rope_scaling: Option<RopeScaling>,
    /// RMSNorm's or LayerNorm's ε.
    pub norm_eps: f64,
    /// The padding of mode `pad`.
    pub pad_token_id: u32,
}

fn bad(m: impl Into<String>) -> PosgeoError {
    PosgeoError::BadModel(format!("config.json: {}", m.into()))
}

/// A positive size at most 2²⁴.
pub(crate) fn size(v: Option<u64>, name: &str) -> Result<usize> {
    match v {
        None => Err(bad(format!("{name} is missing"))),
        Some(0) => Err(bad(format!("{name} is 0"))),
        Some(v) if v > 1 << 24 => Err(bad(format!("{name} = {v} is implausibly large"))),
        Some(v) => Ok(v as usize),
    }
}

/// The family of a model type, or a refusal naming it.
pub fn family_of(model_type: &str) -> Result<Family> {
    match model_type {
        "llama" | "mistral" => Ok(Family::Llama),
        "qwen2" => Ok(Family::Qwen2),
        "gpt2" => Ok(Family::Gpt2),
        other => Err(PosgeoError::BadModel(format!(
            "the architecture {other:?} is not supported: posgeo runs bert, llama (Llama, SmolLM, Mistral), qwen2 and gpt2"
        ))),
    }
}

fn rope_scaling(v: Option<&serde_json::Value>) -> Result<Option<RopeScaling>> {
    let Some(v) = v.filter(|v| !v.is_null()) else { return Ok(None) };
    let kind = v.get("rope_type").or_else(|| v.get("type")).and_then(|t| t.as_str()).unwrap_or("");
    let num = |k: &str| v.get(k).and_then(serde_json::Value::as_f64).filter(|x| x.is_finite() && *x > 0.0);
    let factor = num("factor").ok_or_else(|| bad(format!("rope_scaling has no positive factor: {v}")))?;
    match kind {
        "linear" => Ok(Some(RopeScaling::Linear(factor))),
        "default" => Ok(None),
        "llama3" => Ok(Some(RopeScaling::Llama3 {
            factor,
            low_freq_factor: num("low_freq_factor").unwrap_or(1.0),
            high_freq_factor: num("high_freq_factor").unwrap_or(4.0),
            original_max_position_embeddings: num("original_max_position_embeddings").unwrap_or(8192.0),
        })),
        other => {
            Err(bad(format!("rope_scaling of type {other:?} is not supported (none, \"linear\" and \"llama3\" are)")))
        }
    }
}

impl DecoderConfig {
    /// Reads a decoder's config.json.
    pub fn from_json(bytes: &[u8]) -> Result<DecoderConfig> {
        let v: serde_json::Value =
            serde_json::from_slice(bytes).map_err(|e| bad(format!("not a JSON object of a model's settings ({e})")))?;
        let model_type =
            v.get("model_type").and_then(|t| t.as_str()).ok_or_else(|| bad("model_type is missing"))?.to_string();
        let family = family_of(&model_type)?;
        let u = |k: &str| v.get(k).and_then(serde_json::Value::as_u64);
        let f = |k: &str| v.get(k).and_then(serde_json::Value::as_f64);
        let pad_token_id = match v.get("pad_token_id") {
            None | Some(serde_json::Value::Null) => 0,
            Some(p) => {
                p.as_u64().and_then(|p| u32::try_from(p).ok()).ok_or_else(|| bad(format!("pad_token_id is {p}")))?
            }
        };
        let c = if family == Family::Gpt2 {
            let act = v.get("activation_function").and_then(|a| a.as_str()).unwrap_or("gelu_new");
            if !matches!(act, "gelu_new" | "gelu_pytorch_tanh") {
                return Err(bad(format!(
                    "activation_function is {act:?}; GPT-2's pass runs the tanh GELU (\"gelu_new\")"
                )));
            }
            let h = size(u("n_embd"), "n_embd")?;
            let heads = size(u("n_head"), "n_head")?;
            DecoderConfig {
                model_type,
                family,
                hidden_size: h,
                num_hidden_layers: size(u("n_layer"), "n_layer")?,
                num_attention_heads: heads,
                num_key_value_heads: heads,
                head_dim: h / heads,
                intermediate_size: size(u("n_inner").or(Some(4 * h as u64)), "n_inner")?,
                vocab_size: size(u("vocab_size"), "vocab_size")?,
                max_position_embeddings: size(u("n_positions").or(u("n_ctx")), "n_positions")?,
                rope_theta: 0.0,
                rope_scaling: None,
                norm_eps: f("layer_norm_epsilon").unwrap_or(1e-5),
                pad_token_id,
            }
        } else {
            let act = v.get("hidden_act").and_then(|a| a.as_str()).unwrap_or("silu");
            if act != "silu" {
                return Err(bad(format!(
                    "hidden_act is {act:?}; the Llama family's feed-forward runs SwiGLU (\"silu\")"
                )));
            }
            let h = size(u("hidden_size"), "hidden_size")?;
            let heads = size(u("num_attention_heads"), "num_attention_heads")?;
            DecoderConfig {
                model_type,
                family,
                hidden_size: h,
                num_hidden_layers: size(u("num_hidden_layers"), "num_hidden_layers")?,
                num_attention_heads: heads,
                num_key_value_heads: size(u("num_key_value_heads").or(Some(heads as u64)), "num_key_value_heads")?,
                head_dim: size(u("head_dim").or(Some((h / heads) as u64)), "head_dim")?,
                intermediate_size: size(u("intermediate_size"), "intermediate_size")?,
                vocab_size: size(u("vocab_size"), "vocab_size")?,
                max_position_embeddings: size(u("max_position_embeddings"), "max_position_embeddings")?,
                rope_theta: f("rope_theta").unwrap_or(10_000.0),
                rope_scaling: rope_scaling(v.get("rope_scaling"))?,
                norm_eps: f("rms_norm_eps").unwrap_or(1e-6),
                pad_token_id,
            }
        };
        c.checked()
    }

    /// Checks the shapes agree with one another.
    pub fn checked(self) -> Result<DecoderConfig> {
        let c = self;
        if c.num_attention_heads % c.num_key_value_heads != 0 {
            return Err(bad(format!(
                "{} attention heads are not a multiple of {} key/value heads",
                c.num_attention_heads, c.num_key_value_heads
            )));
        }
        if c.family == Family::Gpt2 && c.hidden_size % c.num_attention_heads != 0 {
            return Err(bad(format!(
                "n_embd = {} is not a multiple of n_head = {}",
                c.hidden_size, c.num_attention_heads
            )));
        }
        if c.family != Family::Gpt2 && (c.head_dim % 2 != 0 || !(c.rope_theta.is_finite() && c.rope_theta > 1.0)) {
            return Err(bad(format!(
                "rotary positions need an even head_dim and rope_theta > 1 (head_dim {}, rope_theta {})",
                c.head_dim, c.rope_theta
            )));
        }
        if !(c.norm_eps.is_finite() && c.norm_eps >= 0.0) {
            return Err(bad(format!("the norm's epsilon is {}", c.norm_eps)));
        }
        if c.num_hidden_layers > 1024 {
            return Err(bad(format!("{} layers is implausibly many", c.num_hidden_layers)));
        }
        if c.pad_token_id as usize >= c.vocab_size {
            return Err(bad(format!(
                "pad_token_id = {} is outside the vocabulary of {}",
                c.pad_token_id, c.vocab_size
            )));
        }
        Ok(c)
    }

    /// Every tensor the pass reads, named and shaped as a Hugging Face checkpoint stores it
    /// (without `model.`/`transformer.` prefix; GPT-2's matrices are Conv1D, (in, out)).
    pub fn tensors(&self) -> Vec<(String, Vec<usize>)> {
        let (h, i, v) = (self.hidden_size, self.intermediate_size, self.vocab_size);
        let mut t = Vec::new();
        if self.family == Family::Gpt2 {
            t.push(("wte.weight".to_string(), vec![v, h]));
            t.push(("wpe.weight".to_string(), vec![self.max_position_embeddings, h]));
            for l in 0..self.num_hidden_layers {
                for (name, shape) in [
                    ("attn.c_attn", vec![h, 3 * h]),
                    ("attn.c_proj", vec![h, h]),
                    ("mlp.c_fc", vec![h, i]),
                    ("mlp.c_proj", vec![i, h]),
                ] {
                    t.push((format!("h.{l}.{name}.bias"), vec![shape[1]]));
                    t.push((format!("h.{l}.{name}.weight"), shape));
                }
                for ln in ["ln_1", "ln_2"] {
                    t.push((format!("h.{l}.{ln}.weight"), vec![h]));
                    t.push((format!("h.{l}.{ln}.bias"), vec![h]));
                }
            }
            return t;
        }
        let (q, kv) = (self.num_attention_heads * self.head_dim, self.num_key_value_heads * self.head_dim);
        t.push(("embed_tokens.weight".to_string(), vec![v, h]));
        for l in 0..self.num_hidden_layers {
            let p = format!("layers.{l}.");
            for (name, shape) in [
                ("self_attn.q_proj", vec![q, h]),
                ("self_attn.k_proj", vec![kv, h]),
                ("self_attn.v_proj", vec![kv, h]),
                ("self_attn.o_proj", vec![h, q]),
                ("mlp.gate_proj", vec![i, h]),
                ("mlp.up_proj", vec![i, h]),
                ("mlp.down_proj", vec![h, i]),
            ] {
                if self.family == Family::Qwen2
                    && name.ends_with("_proj")
                    && name.starts_with("self_attn")
                    && name != "self_attn.o_proj"
                {
                    t.push((format!("{p}{name}.bias"), vec![shape[0]]));
                }
                t.push((format!("{p}{name}.weight"), shape));
            }
            t.push((format!("{p}input_layernorm.weight"), vec![h]));
            t.push((format!("{p}post_attention_layernorm.weight"), vec![h]));
        }
        t
    }

    /// The f32 parameters of the pass.
    pub fn parameter_count(&self) -> u64 {
        self.tensors().iter().map(|(_, s)| s.iter().product::<usize>() as u64).sum()
    }

    /// The rotary inverse frequencies θ_k = base^(−2k/d_h), k < d_h/2, after any rescaling.
    pub fn inverse_frequencies(&self) -> Vec<f64> {
        let d = self.head_dim;
        let base: Vec<f64> = (0..d / 2).map(|k| self.rope_theta.powf(-((2 * k) as f64) / d as f64)).collect();
        match &self.rope_scaling {
            None => base,
            Some(RopeScaling::Linear(f)) => base.iter().map(|t| t / f).collect(),
            Some(RopeScaling::Divisors(div)) => {
                base.iter().zip(div.iter().chain(std::iter::repeat(&1.0))).map(|(t, d)| t / d).collect()
            }
            Some(RopeScaling::Llama3 {
                factor,
                low_freq_factor,
                high_freq_factor,
                original_max_position_embeddings: old,
            }) => base
                .iter()
                .map(|&t| {
                    let wavelength = 2.0 * std::f64::consts::PI / t;
                    if wavelength < old / high_freq_factor {
                        t
                    } else if wavelength > old / low_freq_factor {
                        t / factor
                    } else {
                        let smooth = (old / wavelength - low_freq_factor) / (high_freq_factor - low_freq_factor);
                        (1.0 - smooth) * t / factor + smooth * t
                    }
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMOL: &str = r#"{"model_type": "llama", "hidden_size": 576, "num_hidden_layers": 30,
        "num_attention_heads": 9, "num_key_value_heads": 3, "intermediate_size": 1536, "vocab_size": 49152,
        "max_position_embeddings": 8192, "rope_theta": 100000, "rms_norm_eps": 1e-5, "hidden_act": "silu",
        "tie_word_embeddings": true, "pad_token_id": 2}"#;

    #[test]
    fn smollm2_reads_and_counts_its_parameters() {
        let c = DecoderConfig::from_json(SMOL.as_bytes()).expect("reads");
        assert_eq!((c.family, c.head_dim, c.num_key_value_heads, c.pad_token_id), (Family::Llama, 64, 3, 2));
        // SmolLM2-135M: 134,515,008 parameters with the final norm's 576, which the pass skips.
        assert_eq!(c.parameter_count(), 134_515_008 - 576);
        let inv = c.inverse_frequencies();
        assert_eq!(inv.len(), 32);
        assert!((inv[1] - 100_000f64.powf(-2.0 / 64.0)).abs() < 1e-15);
    }

    #[test]
    fn unsupported_settings_are_named() {
        for (from, to, says) in [
            ("\"llama\"", "\"falcon\"", "\"falcon\" is not supported"),
            ("\"silu\"", "\"gelu\"", "hidden_act is \"gelu\""),
            ("\"num_key_value_heads\": 3", "\"num_key_value_heads\": 4", "not a multiple of 4"),
            (
                "\"pad_token_id\": 2",
                "\"pad_token_id\": 2, \"rope_scaling\": {\"type\": \"yarn\", \"factor\": 4}",
                "\"yarn\"",
            ),
        ] {
            let e = DecoderConfig::from_json(SMOL.replace(from, to).as_bytes()).expect_err(to);
            assert!(e.to_string().contains(says), "{e}");
        }
    }

    /// Every scaling against its definition, frequency by frequency: `linear` divides all by
    /// the factor; `llama3` (transformers' `_compute_llama3_parameters`) keeps wavelengths below
    /// old/high, divides those above old/low by the factor, and blends the band between; a
    /// GGUF's `rope_freqs` divides each by its own divisor (1 past the list's end).
    #[test]
    fn every_rope_scaling_follows_its_definition() {
        let with = |scaling: &str| {
            let s = SMOL.replace("\"pad_token_id\": 2", &format!("\"pad_token_id\": 2, \"rope_scaling\": {scaling}"));
            DecoderConfig::from_json(s.as_bytes()).expect("reads")
        };
        let plain = DecoderConfig { rope_scaling: None, ..with("null") }.inverse_frequencies();
        let linear = with(r#"{"type": "linear", "factor": 2.5}"#).inverse_frequencies();
        assert!(plain.iter().zip(&linear).all(|(p, l)| (l - p / 2.5).abs() <= 1e-18));
        let llama3 = with(
            r#"{"rope_type": "llama3", "factor": 8, "low_freq_factor": 1, "high_freq_factor": 4, "original_max_position_embeddings": 8192}"#,
        );
        let mut bands = [0; 3];
        for (t, got) in plain.iter().zip(llama3.inverse_frequencies()) {
            let wavelength = 2.0 * std::f64::consts::PI / t;
            let (band, want) = if wavelength < 8192.0 / 4.0 {
                (0, *t)
            } else if wavelength > 8192.0 {
                (2, t / 8.0)
            } else {
                let smooth = (8192.0 / wavelength - 1.0) / 3.0;
                (1, (1.0 - smooth) * t / 8.0 + smooth * t)
            };
            bands[band] += 1;
            assert!((got - want).abs() <= 1e-15 * t, "wavelength {wavelength}: {got} against {want}");
        }
        assert!(bands.iter().all(|&b| b > 0), "every band visited: {bands:?}");
        let divided = DecoderConfig { rope_scaling: Some(RopeScaling::Divisors(vec![1.0, 4.0])), ..with("null") };
        let d = divided.inverse_frequencies();
        assert_eq!((d[0], d[1], d[2]), (plain[0], plain[1] / 4.0, plain[2]));
    }
}
