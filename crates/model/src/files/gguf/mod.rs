//! A **GGUF file** (llama.cpp's format) as a model (docs/MATH.md §14b): its metadata is the
//! config, its tokenizer is written from its metadata ([`super::gguf_tokenizer`]), and its
//! tensors — F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0 and the K-quants — are dequantized
//! to f32 as ggml defines each type (candle's `quantized` module reads and dequantizes them).
//!
//! Tensors are renamed to the Hugging Face names the passes read, in Hugging Face's layout:
//! * `llama`: GGUF stores the q and k rows of each head permuted for rotation of adjacent
//!   pairs (x₂ₖ, x₂ₖ₊₁) — llama.cpp's converter maps row h·d_h + j·d_h/2 + i to
//!   h·d_h + 2i + j — and they are put back, so that the rotate-half pass reads the same
//!   model as from a Hugging Face folder. `qwen2` is stored unpermuted (llama.cpp rotates
//!   its halves, "NEOX" style).
//! * `gpt2`: the matrices are stored (out, in) and are transposed back to Conv1D's (in, out).
//!
//! Before any tensor is read, every tensor's byte range is checked to lie inside the file
//! and not to overlap another's, so a truncated file or lying metadata is named as such.

use crate::decoder::config::{family_of, size, DecoderConfig, Family, RopeScaling};
use crate::weights::TensorSource;
use candle_core::quantized::gguf_file::{Content, TensorInfo, Value};
use candle_core::Device;
use posgeo::error::{PosgeoError, Result};
use std::collections::HashMap;
mod padded;
use padded::Padded;
use std::io::Cursor;

fn bad(m: impl std::fmt::Display) -> PosgeoError {
    PosgeoError::BadModel(format!("GGUF: {m}"))
}

/// How a tensor's stored rows become Hugging Face's.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Layout {
    AsStored,
    /// Undo llama.cpp's q/k permutation for this many heads.
    Unpermute(usize),
    Transpose,
}

/// A GGUF file, read and checked.
pub struct GgufFile<'a> {
    bytes: &'a [u8],
    content: Content,
    /// Hugging Face name → (GGUF name, layout).
    names: HashMap<String, (String, Layout)>,
    /// The decoder's settings from the metadata.
    pub config: DecoderConfig,
}

/// Reads a metadata value as an unsigned integer.
fn as_u64(v: &Value) -> Option<u64> {
    match v {
        Value::U8(x) => Some(u64::from(*x)),
        Value::U16(x) => Some(u64::from(*x)),
        Value::U32(x) => Some(u64::from(*x)),
        Value::U64(x) => Some(*x),
        Value::I8(x) => u64::try_from(*x).ok(),
        Value::I16(x) => u64::try_from(*x).ok(),
        Value::I32(x) => u64::try_from(*x).ok(),
        Value::I64(x) => u64::try_from(*x).ok(),
        _ => None,
    }
}

fn as_f64(v: &Value) -> Option<f64> {
    match v {
        Value::F32(x) => Some(f64::from(*x)),
        Value::F64(x) => Some(*x),
        other => as_u64(other).map(|x| x as f64),
    }
}

/// ggml's name of a tensor type id (llama.cpp's `ggml_type`).
fn ggml_type_name(id: u32) -> &'static str {
    const NAMES: [&str; 40] = [
        "F32",
        "F16",
        "Q4_0",
        "Q4_1",
        "Q4_2 (removed)",
        "Q4_3 (removed)",
        "Q5_0",
        "Q5_1",
        "Q8_0",
        "Q8_1",
        "Q2_K",
        "Q3_K",
        "Q4_K",
        "Q5_K",
        "Q6_K",
        "Q8_K",
        "IQ2_XXS",
        "IQ2_XS",
        "IQ3_XXS",
        "IQ1_S",
        "IQ4_NL",
        "IQ3_S",
        "IQ2_S",
        "IQ4_XS",
        "I8",
        "I16",
        "I32",
        "I64",
        "F64",
        "IQ1_M",
        "BF16",
        "Q4_0_4_4 (removed)",
        "Q4_0_4_8 (removed)",
        "Q4_0_8_8 (removed)",
        "TQ1_0",
        "TQ2_0",
        "IQ4_NL_4_4 (removed)",
        "IQ4_NL_4_8 (removed)",
        "IQ4_NL_8_8 (removed)",
        "MXFP4",
    ];
    NAMES.get(id as usize).copied().unwrap_or("unknown")
}

/// The bytes a tensor's data takes.
fn byte_size(info: &TensorInfo) -> Option<u64> {
    let elems = info.shape.elem_count() as u64;
    let block = info.ggml_dtype.block_size() as u64;
    (elems % block == 0).then(|| elems / block * info.ggml_dtype.type_size() as u64)
}

impl<'a> GgufFile<'a> {
    /// Reads and checks the header, the tensors' ranges and the config.
    pub fn new(bytes: &'a [u8]) -> Result<GgufFile<'a>> {
        if bytes.len() < 4 || &bytes[..4] != b"GGUF" {
            return Err(bad("not a GGUF file (it does not start with \"GGUF\")"));
        }
        let content = Content::read(&mut Cursor::new(bytes)).map_err(|e| {
            // candle's message, without the backtrace it carries when RUST_BACKTRACE is set.
            let e = e.to_string().lines().next().unwrap_or_default().to_string();
            if let Some(id) = e.strip_prefix("unknown dtype for tensor ").and_then(|n| n.trim().parse::<u32>().ok()) {
                bad(format!(
                    "a tensor is stored as ggml type {id} ({}), which posgeo does not dequantize (it reads F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q8_1 and the K-quants Q2_K … Q8_K)",
                    ggml_type_name(id)
                ))
            } else if Content::read(&mut Padded { bytes, at: 0 }).is_ok() {
                // The header reads once the file goes on: it runs past the end.
                bad(format!("the header runs past the end of the file ({} bytes): it is truncated ({e})", bytes.len()))
            } else {
                bad(format!("the header cannot be read: {e}"))
            }
        })?;
        check_ranges(&content, bytes.len() as u64)?;
        let config = config_of(&content)?;
        let names = names_of(&config, &content);
        Ok(GgufFile { bytes, content, names, config })
    }

    /// The metadata.
    pub fn metadata(&self) -> &HashMap<String, Value> {
        &self.content.metadata
    }

    /// The f32 bytes every tensor takes once dequantized.
    pub fn dequantized_bytes(&self) -> u64 {
        self.content.tensor_infos.values().map(|i| 4 * i.shape.elem_count() as u64).sum()
    }

    fn dequantize(&self, gguf_name: &str) -> Result<Vec<f32>> {
        let cpu = Device::Cpu;
        // candle's message, without the backtrace it carries when RUST_BACKTRACE is set.
        let first = |e: candle_core::Error| e.to_string().lines().next().unwrap_or_default().to_string();
        let q = self
            .content
            .tensor(&mut Cursor::new(self.bytes), gguf_name, &cpu)
            .map_err(|e| bad(format!("{gguf_name}: {}", first(e))))?;
        let t = q.dequantize(&cpu).and_then(|t| t.flatten_all()).and_then(|t| t.to_vec1::<f32>());
        t.map_err(|e| bad(format!("{gguf_name} cannot be dequantized: {}", first(e))))
    }
}

/// Every tensor's data must lie inside the file, without overlapping another's.
fn check_ranges(content: &Content, file: u64) -> Result<()> {
    let mut ranges: Vec<(u64, u64, &str)> = Vec::with_capacity(content.tensor_infos.len());
    for (name, info) in &content.tensor_infos {
        let size = byte_size(info).ok_or_else(|| {
            bad(format!(
                "tensor {name}'s {} values are not whole blocks of {:?}",
                info.shape.elem_count(),
                info.ggml_dtype
            ))
        })?;
        let start = content.tensor_data_offset.saturating_add(info.offset);
        let end = start.saturating_add(size);
        if end > file {
            return Err(bad(format!(
                "tensor {name} ({:?}, shape {:?}) needs bytes {start}..{end} but the file has {file}: the file is truncated or its metadata lies about offsets or sizes",
                info.ggml_dtype,
                info.shape.dims()
            )));
        }
        ranges.push((start, end, name));
    }
    ranges.sort_unstable();
    for w in ranges.windows(2) {
        if w[1].0 < w[0].1 {
            return Err(bad(format!(
                "the metadata lies: tensors {} and {} overlap (bytes {}..{} and {}..{})",
                w[0].2, w[1].2, w[0].0, w[0].1, w[1].0, w[1].1
            )));
        }
    }
    Ok(())
}

/// The decoder's settings from `general.architecture` and its `{arch}.…` keys.
fn config_of(content: &Content) -> Result<DecoderConfig> {
    let meta = &content.metadata;
    let arch = match meta.get("general.architecture") {
        Some(Value::String(a)) => a.clone(),
        _ => return Err(bad("general.architecture is missing")),
    };
    let family = family_of(&arch).map_err(|e| bad(e.to_string().replace("BadModel", "")))?;
    let key = |k: &str| meta.get(&format!("{arch}.{k}"));
    let u = |k: &str| key(k).and_then(as_u64);
    let f = |k: &str| key(k).and_then(as_f64);
    let token_rows = content.tensor_infos.get("token_embd.weight").map(|i| i.shape.dims()[0] as u64);
    let vocab = token_rows.or_else(|| match meta.get("tokenizer.ggml.tokens") {
        Some(Value::Array(a)) => Some(a.len() as u64),
        _ => None,
    });
    let h = size(u("embedding_length"), &format!("{arch}.embedding_length"))?;
    let heads = size(u("attention.head_count"), &format!("{arch}.attention.head_count"))?;
    let head_dim = size(u("attention.key_length").or(Some((h / heads) as u64)), "head_dim")?;
    if family != Family::Gpt2 {
        if let Some(rot) = u("rope.dimension_count").filter(|&r| r as usize != head_dim) {
            return Err(bad(format!("{arch}.rope.dimension_count = {rot} rotates part of each head of {head_dim}; partial rotary is not supported")));
        }
    }
    let mut rope_scaling = match meta.get(&format!("{arch}.rope.scaling.type")) {
        Some(Value::String(t)) if t == "linear" => {
            f("rope.scaling.factor").filter(|x| *x > 0.0).map(RopeScaling::Linear)
        }
        Some(Value::String(t)) if t == "none" => None,
        Some(Value::String(t)) => {
            return Err(bad(format!("{arch}.rope.scaling.type {t:?} is not supported (none and linear are)")))
        }
        _ => None,
    };
    if content.tensor_infos.contains_key("rope_freqs.weight") {
        rope_scaling = Some(RopeScaling::Divisors(Vec::new())); // filled when the weights are read
    }
    let pad = meta.get("tokenizer.ggml.padding_token_id").and_then(as_u64).unwrap_or(0);
    DecoderConfig {
        model_type: arch.clone(),
        family,
        hidden_size: h,
        num_hidden_layers: size(u("block_count"), &format!("{arch}.block_count"))?,
        num_attention_heads: heads,
        num_key_value_heads: size(u("attention.head_count_kv").or(Some(heads as u64)), "head_count_kv")?,
        head_dim,
        intermediate_size: size(u("feed_forward_length"), &format!("{arch}.feed_forward_length"))?,
        vocab_size: size(vocab, "the vocabulary size (token_embd.weight's rows)")?,
        max_position_embeddings: size(u("context_length"), &format!("{arch}.context_length"))?,
        rope_theta: f("rope.freq_base").unwrap_or(10_000.0),
        rope_scaling,
        norm_eps: f("attention.layer_norm_rms_epsilon").or_else(|| f("attention.layer_norm_epsilon")).unwrap_or(1e-5),
        pad_token_id: u32::try_from(pad).map_err(|_| bad(format!("padding_token_id {pad}")))?,
    }
    .checked()
    .map_err(|e| bad(e.to_string().trim_start_matches("config.json: ")))
}

/// Hugging Face name → (GGUF name, layout) for every tensor the pass reads.
fn names_of(c: &DecoderConfig, content: &Content) -> HashMap<String, (String, Layout)> {
    let mut m = HashMap::new();
    let mut put = |hf: String, gguf: String, layout: Layout| {
        m.insert(hf, (gguf, layout));
    };
    let permuted =
        content.metadata.get("general.architecture").is_some_and(|a| matches!(a, Value::String(s) if s == "llama"));
    if c.family == Family::Gpt2 {
        put("wte.weight".into(), "token_embd.weight".into(), Layout::AsStored);
        put("wpe.weight".into(), "position_embd.weight".into(), Layout::AsStored);
    } else {
        put("embed_tokens.weight".into(), "token_embd.weight".into(), Layout::AsStored);
    }
    for l in 0..c.num_hidden_layers {
        let (blk, hf) =
            (format!("blk.{l}."), if c.family == Family::Gpt2 { format!("h.{l}.") } else { format!("layers.{l}.") });
        let pairs: &[(&str, &str)] = if c.family == Family::Gpt2 {
            &[
                ("attn_norm", "ln_1"),
                ("attn_qkv", "attn.c_attn"),
                ("attn_output", "attn.c_proj"),
                ("ffn_norm", "ln_2"),
                ("ffn_up", "mlp.c_fc"),
                ("ffn_down", "mlp.c_proj"),
            ]
        } else {
            &[
                ("attn_norm", "input_layernorm"),
                ("attn_q", "self_attn.q_proj"),
                ("attn_k", "self_attn.k_proj"),
                ("attn_v", "self_attn.v_proj"),
                ("attn_output", "self_attn.o_proj"),
                ("ffn_norm", "post_attention_layernorm"),
                ("ffn_gate", "mlp.gate_proj"),
                ("ffn_up", "mlp.up_proj"),
                ("ffn_down", "mlp.down_proj"),
            ]
        };
        for (g, h) in pairs {
            for part in ["weight", "bias"] {
                let layout = match (*g, part) {
                    ("attn_q", _) if permuted => Layout::Unpermute(c.num_attention_heads),
                    ("attn_k", _) if permuted => Layout::Unpermute(c.num_key_value_heads),
                    (_, "weight") if c.family == Family::Gpt2 && !g.ends_with("norm") => Layout::Transpose,
                    _ => Layout::AsStored,
                };
                put(format!("{hf}{h}.{part}"), format!("{blk}{g}.{part}"), layout);
            }
        }
    }
    m
}

impl GgufFile<'_> {
    /// The per-frequency divisors of `rope_freqs.weight`, when the file has them.
    pub fn rope_divisors(&self) -> Result<Option<Vec<f64>>> {
        if !self.content.tensor_infos.contains_key("rope_freqs.weight") {
            return Ok(None);
        }
        Ok(Some(self.dequantize("rope_freqs.weight")?.into_iter().map(f64::from).collect()))
    }
}

impl TensorSource for GgufFile<'_> {
    fn label(&self) -> String {
        "GGUF".into()
    }
    fn contains(&self, name: &str) -> bool {
        self.names.get(name).is_some_and(|(g, _)| self.content.tensor_infos.contains_key(g))
    }
    fn describe(&self, name: &str) -> Option<(Vec<usize>, String)> {
        let (g, layout) = self.names.get(name)?;
        let info = self.content.tensor_infos.get(g)?;
        let mut shape = info.shape.dims().to_vec();
        if *layout == Layout::Transpose {
            shape.reverse();
        }
        Some((shape, format!("{:?}", info.ggml_dtype)))
    }
    fn read(&self, name: &str) -> Result<Vec<f32>> {
        let (g, layout) = self.names.get(name).ok_or_else(|| bad(format!("no tensor for {name}")))?;
        let data = self.dequantize(g)?;
        let dims = self.content.tensor_infos.get(g).map(|i| i.shape.dims().to_vec()).unwrap_or_default();
        let cols: usize = dims.iter().skip(1).product::<usize>().max(1);
        Ok(match *layout {
            Layout::AsStored => data,
            Layout::Transpose => {
                let rows = dims.first().copied().unwrap_or(0);
                (0..cols).flat_map(|c| (0..rows).map(move |r| (r, c))).map(|(r, c)| data[r * cols + c]).collect()
            }
            Layout::Unpermute(heads) => {
                let rows = dims.first().copied().unwrap_or(0);
                unpermute(&data, rows, cols, heads)
            }
        })
    }
}

/// llama.cpp's q/k row order back to Hugging Face's: HF row h·d + j·d/2 + i is GGUF row
/// h·d + 2i + j (d = rows / heads, i < d/2, j ∈ {0, 1}).
pub fn unpermute(data: &[f32], rows: usize, cols: usize, heads: usize) -> Vec<f32> {
    let d = rows / heads.max(1);
    let half = d / 2;
    let mut out = vec![0f32; data.len()];
    for h in 0..heads {
        for j in 0..2 {
            for i in 0..half {
                let (hf, gg) = (h * d + j * half + i, h * d + 2 * i + j);
                out[hf * cols..(hf + 1) * cols].copy_from_slice(&data[gg * cols..(gg + 1) * cols]);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
