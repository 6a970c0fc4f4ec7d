//! A small **random BERT** (tests and demos): config.json with H = 8, 2 heads, 2 layers,
//! intermediate 12, 64 positions and the vocabulary of 30,522 ids, and model.safetensors with
//! seeded N(0, 0.3²) F32 weights (LayerNorm weights near 1) under the `bert.` prefix, bundled
//! with the tokenizer given ([`posgeo::learned_tables::bundle`], as the page sends a model's files).

use rand::SeedableRng;
use rand_distr::{Distribution, Normal};

/// The bundle of a random BERT seeded with `seed`, with `tokenizer` (name, bytes).
pub fn random_bert(seed: u64, tokenizer: (&str, &[u8])) -> Vec<u8> {
    let config = serde_json::json!({
        "model_type": "bert", "hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2,
        "intermediate_size": 12, "vocab_size": 30522, "max_position_embeddings": 64, "type_vocab_size": 2,
        "layer_norm_eps": 1e-12, "hidden_act": "gelu", "position_embedding_type": "absolute", "pad_token_id": 0
    })
    .to_string();
    let Ok(c) = super::BertConfig::from_json(config.as_bytes()) else { return Vec::new() };
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let Ok(normal) = Normal::new(0.0, 0.3) else { return Vec::new() };
    let tensors: Vec<(String, Vec<usize>, Vec<u8>)> = c
        .tensors()
        .into_iter()
        .map(|(name, shape)| {
            let count: usize = shape.iter().product();
            let norm = name.ends_with("LayerNorm.weight");
            let bytes = (0..count)
                .flat_map(|_| {
                    let v: f64 = normal.sample(&mut rng);
                    (if norm { 1.0 + 0.1 * v } else { v } as f32).to_le_bytes()
                })
                .collect();
            (format!("bert.{name}"), shape, bytes)
        })
        .collect();
    let views = tensors.iter().filter_map(|(n, s, b)| {
        safetensors::tensor::TensorView::new(safetensors::Dtype::F32, s.clone(), b).ok().map(|v| (n.clone(), v))
    });
    let Ok(st) = safetensors::serialize(views, None) else { return Vec::new() };
    posgeo::learned_tables::bundle(&[("config.json", config.as_bytes()), ("model.safetensors", &st), tokenizer])
}
