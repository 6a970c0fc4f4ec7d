//! A GGUF file's **tokenizer**, written as the Hugging Face `tokenizer.json` that the same
//! vocabulary gives (docs/MATH.md §14b), so that the corpus is counted by the `tokenizers` crate
//! exactly as for a model folder.
//!
//! * `tokenizer.ggml.model = "gpt2"` (byte-level BPE): the tokens and `merges` as a BPE model;
//!   the pre-tokenizer of `tokenizer.ggml.pre` — `gpt2`/`default`: GPT-2's byte-level regex;
//!   `smollm`: single digits, then GPT-2's regex; `llama-bpe`/`llama3`, `qwen2`/`deepseek-llm`…:
//!   llama.cpp's regex of that name (Qwen2 adds NFC), then the byte mapping.
//! * `tokenizer.ggml.model = "llama"` (SentencePiece BPE): "▁" prepended and spaces replaced
//!   by "▁", a BPE model with byte fallback whose merges are the pairs of pieces that join into
//!   a piece, ranked by that piece's score (as Hugging Face converts a SentencePiece model).
//! * Control tokens (`token_type` 3) are special added tokens, so they are matched whole.
//! * The begin token is added when `tokenizer.ggml.add_bos_token` is true (and the end token
//!   when `add_eos_token` is).

use candle_core::quantized::gguf_file::Value;
use posgeo::error::{PosgeoError, Result};
use serde_json::{json, Value as Json};
use std::collections::HashMap;

fn bad(m: impl std::fmt::Display) -> PosgeoError {
    PosgeoError::BadModel(format!("GGUF tokenizer: {m}"))
}

const LLAMA3_REGEX: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";
const QWEN2_REGEX: &str =
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";

fn strings<'a>(meta: &'a HashMap<String, Value>, key: &str) -> Result<Vec<&'a str>> {
    match meta.get(key) {
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(s.as_str()),
                _ => Err(bad(format!("{key} holds a value that is not a string"))),
            })
            .collect(),
        Some(_) => Err(bad(format!("{key} is not an array"))),
        None => Err(bad(format!("{key} is missing"))),
    }
}

fn numbers(meta: &HashMap<String, Value>, key: &str) -> Vec<f64> {
    match meta.get(key) {
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| match v {
                Value::F32(x) => f64::from(*x),
                Value::F64(x) => *x,
                Value::I32(x) => f64::from(*x),
                Value::U32(x) => f64::from(*x),
                Value::I8(x) => f64::from(*x),
                Value::U8(x) => f64::from(*x),
                _ => 0.0,
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn flag(meta: &HashMap<String, Value>, key: &str) -> Option<bool> {
    match meta.get(key) {
        Some(Value::Bool(b)) => Some(*b),
        _ => None,
    }
}

fn id(meta: &HashMap<String, Value>, key: &str) -> Option<u32> {
    match meta.get(key) {
        Some(Value::U32(x)) => Some(*x),
        Some(Value::I32(x)) => u32::try_from(*x).ok(),
        Some(Value::U64(x)) => u32::try_from(*x).ok(),
        _ => None,
    }
}

/// The `tokenizer.json` of a GGUF file's metadata.
pub fn tokenizer_json(meta: &HashMap<String, Value>) -> Result<String> {
    let kind = match meta.get("tokenizer.ggml.model") {
        Some(Value::String(s)) => s.clone(),
        _ => return Err(bad("tokenizer.ggml.model is missing: the file carries no tokenizer (give --tokenizer-file)")),
    };
    let tokens = strings(meta, "tokenizer.ggml.tokens")?;
    let types = numbers(meta, "tokenizer.ggml.token_type");
    let vocab: serde_json::Map<String, Json> =
        tokens.iter().enumerate().map(|(i, t)| (t.to_string(), json!(i))).collect();
    if vocab.len() != tokens.len() {
        return Err(bad("tokenizer.ggml.tokens holds the same token twice"));
    }
    let added: Vec<Json> = tokens
        .iter()
        .enumerate()
        .filter(|(i, _)| types.get(*i).is_some_and(|&t| t == 3.0 || t == 4.0))
        .map(|(i, t)| {
            let special = types.get(i).is_some_and(|&t| t == 3.0);
            json!({"id": i, "content": t, "single_word": false, "lstrip": false, "rstrip": false, "normalized": !special, "special": special})
        })
        .collect();
    let (normalizer, pre_tokenizer, model, decoder) = match kind.as_str() {
        "gpt2" => byte_level(meta, vocab)?,
        "llama" => sentencepiece(meta, vocab, &tokens, &types)?,
        other => {
            return Err(bad(format!(
                "tokenizer.ggml.model {other:?} is not supported (gpt2 and llama are); give --tokenizer-file"
            )))
        }
    };
    let special = |key: &str, add: bool| -> Result<Option<(String, u32)>> {
        if !add {
            return Ok(None);
        }
        let i = id(meta, key).ok_or_else(|| bad(format!("{key} is missing but the file asks for the token")))?;
        let t = tokens.get(i as usize).ok_or_else(|| bad(format!("{key} = {i} is past the vocabulary")))?;
        Ok(Some((t.to_string(), i)))
    };
    let bos =
        special("tokenizer.ggml.bos_token_id", flag(meta, "tokenizer.ggml.add_bos_token").unwrap_or(kind == "llama"))?;
    let eos = special("tokenizer.ggml.eos_token_id", flag(meta, "tokenizer.ggml.add_eos_token").unwrap_or(false))?;
    let post = template(bos, eos);
    Ok(json!({
        "version": "1.0", "truncation": null, "padding": null, "added_tokens": added,
        "normalizer": normalizer, "pre_tokenizer": pre_tokenizer, "post_processor": post,
        "decoder": decoder, "model": model,
    })
    .to_string())
}

type Parts = (Json, Json, Json, Json);

fn byte_level(meta: &HashMap<String, Value>, vocab: serde_json::Map<String, Json>) -> Result<Parts> {
    let merges: Vec<Json> = strings(meta, "tokenizer.ggml.merges")?
        .iter()
        .map(|m| {
            let (a, b) = m.split_once(' ').ok_or_else(|| bad(format!("merge {m:?} is not two tokens")))?;
            Ok(json!([a, b]))
        })
        .collect::<Result<_>>()?;
    let pre = match meta.get("tokenizer.ggml.pre") {
        Some(Value::String(s)) => s.clone(),
        _ => "default".into(),
    };
    let byte_level =
        |regex: bool| json!({"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": regex});
    let split = |pattern: &str| {
        json!({"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": false},
            byte_level(false)]})
    };
    let (normalizer, pre_tokenizer) = match pre.as_str() {
        "gpt2" | "default" | "gpt-2" => (Json::Null, byte_level(true)),
        "smollm" => (
            Json::Null,
            json!({"type": "Sequence", "pretokenizers": [{"type": "Digits", "individual_digits": true}, byte_level(true)]}),
        ),
        "llama-bpe" | "llama3" | "llama-v3" | "smaug-bpe" => (Json::Null, split(LLAMA3_REGEX)),
        "qwen2" | "deepseek-r1-qwen" => (json!({"type": "NFC"}), split(QWEN2_REGEX)),
        other => {
            return Err(bad(format!(
                "pre-tokenizer {other:?} is not supported (gpt2, default, smollm, llama-bpe, qwen2 are); give --tokenizer-file"
            )))
        }
    };
    // Llama 3's tokenizer takes a word that is one token whole before merging (llama.cpp and
    // Hugging Face's file agree).
    let ignore_merges = matches!(pre.as_str(), "llama-bpe" | "llama3" | "llama-v3");
    let model = json!({"type": "BPE", "dropout": null, "unk_token": null, "continuing_subword_prefix": null,
        "end_of_word_suffix": null, "fuse_unk": false, "byte_fallback": false, "ignore_merges": ignore_merges,
        "vocab": vocab, "merges": merges});
    let decoder = json!({"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true});
    Ok((normalizer, pre_tokenizer, model, decoder))
}

/// Hugging Face's conversion of a SentencePiece BPE: each piece's splits into two pieces,
/// ranked by the joined piece's score (highest first), ties in the order of the pieces.
fn sentencepiece(
    meta: &HashMap<String, Value>,
    vocab: serde_json::Map<String, Json>,
    tokens: &[&str],
    types: &[f64],
) -> Result<Parts> {
    let scores = numbers(meta, "tokenizer.ggml.scores");
    if scores.len() != tokens.len() {
        return Err(bad("tokenizer.ggml.scores is missing or not one score per token"));
    }
    let index: HashMap<&str, usize> = tokens.iter().enumerate().map(|(i, t)| (*t, i)).collect();
    let mut merges: Vec<(f64, usize, usize, usize)> = Vec::new();
    for (k, piece) in tokens.iter().enumerate() {
        let mut local: Vec<(usize, usize)> = piece
            .char_indices()
            .skip(1)
            .filter_map(|(at, _)| Some((*index.get(&piece[..at])?, *index.get(&piece[at..])?)))
            .collect();
        local.sort_unstable();
        merges.extend(local.into_iter().map(|(l, r)| (scores[k], k, l, r)));
    }
    // A stable sort on the score alone, highest first, as Hugging Face's converter does.
    merges.sort_by(|a, b| b.0.total_cmp(&a.0));
    let merges: Vec<Json> = merges.iter().map(|&(_, _, l, r)| json!([tokens[l], tokens[r]])).collect();
    let unk = types.iter().position(|&t| t == 2.0).map(|i| tokens[i].to_string());
    let normalizer = json!({"type": "Sequence", "normalizers": [
        {"type": "Prepend", "prepend": "\u{2581}"},
        {"type": "Replace", "pattern": {"String": " "}, "content": "\u{2581}"}]});
    let model = json!({"type": "BPE", "dropout": null, "unk_token": unk, "continuing_subword_prefix": null,
        "end_of_word_suffix": null, "fuse_unk": true, "byte_fallback": true, "ignore_merges": false,
        "vocab": vocab, "merges": merges});
    let decoder = json!({"type": "Sequence", "decoders": [
        {"type": "Replace", "pattern": {"String": "\u{2581}"}, "content": " "},
        {"type": "ByteFallback"}, {"type": "Fuse"},
        {"type": "Strip", "content": " ", "start": 1, "stop": 0}]});
    Ok((normalizer, Json::Null, model, decoder))
}

/// `<bos> $A <eos>` as the post-processor, with whichever of the two is added.
fn template(bos: Option<(String, u32)>, eos: Option<(String, u32)>) -> Json {
    if bos.is_none() && eos.is_none() {
        return Json::Null;
    }
    let piece = |t: &str| json!({"SpecialToken": {"id": t, "type_id": 0}});
    let mut single = Vec::new();
    let mut specials = serde_json::Map::new();
    if let Some((t, i)) = &bos {
        single.push(piece(t));
        specials.insert(t.clone(), json!({"id": t, "ids": [i], "tokens": [t]}));
    }
    single.push(json!({"Sequence": {"id": "A", "type_id": 0}}));
    if let Some((t, i)) = &eos {
        single.push(piece(t));
        specials.insert(t.clone(), json!({"id": t, "ids": [i], "tokens": [t]}));
    }
    let mut pair = single.clone();
    pair.push(json!({"Sequence": {"id": "B", "type_id": 1}}));
    json!({"type": "TemplateProcessing", "single": single, "pair": pair, "special_tokens": specials})
}
