//! Helpers shared by the unit tests.

/// A reader that hands out at most `step` bytes per call, as slices of a file or a network
/// stream might.
pub struct Trickle<'a> {
    /// What is left to read.
    pub data: &'a [u8],
    /// Bytes per call at most.
    pub step: usize,
}

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let k = buf.len().min(self.step).min(self.data.len());
        buf[..k].copy_from_slice(&self.data[..k]);
        self.data = &self.data[k..];
        Ok(k)
    }
}

/// A small random BERT for the unit tests, as the bundle the page sends ([`crate::tables::bundle`]):
/// config.json (H = 8, 2 heads, 2 layers, intermediate 12, 64 positions), model.safetensors with
/// the `bert.` prefix (F32, seeded N(0, 0.3²) weights, LayerNorm weights near 1), and the shipped
/// all-MiniLM-L6-v2 tokenizer.json.gz (so the vocabulary has its 30,522 ids).
pub fn tiny_bert_bundle(seed: u64) -> Vec<u8> {
    use rand::SeedableRng;
    use rand_distr::{Distribution, Normal};
    let config = serde_json::json!({
        "model_type": "bert", "hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2,
        "intermediate_size": 12, "vocab_size": 30522, "max_position_embeddings": 64, "type_vocab_size": 2,
        "layer_norm_eps": 1e-12, "hidden_act": "gelu", "position_embedding_type": "absolute", "pad_token_id": 0
    });
    let c = crate::model::BertConfig::from_json(config.to_string().as_bytes()).expect("a valid config");
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let normal = Normal::new(0.0, 0.3).expect("σ > 0");
    let tensors: Vec<(String, Vec<usize>, Vec<u8>)> = c
        .tensors()
        .into_iter()
        .map(|(name, shape)| {
            let count: usize = shape.iter().product();
            let norm_weight = name.ends_with("LayerNorm.weight");
            let bytes = (0..count)
                .flat_map(|_| {
                    let v: f64 = normal.sample(&mut rng);
                    let v = if norm_weight { 1.0 + 0.1 * v } else { v };
                    (v as f32).to_le_bytes()
                })
                .collect();
            (format!("bert.{name}"), shape, bytes)
        })
        .collect();
    let views: Vec<(String, safetensors::tensor::TensorView<'_>)> = tensors
        .iter()
        .map(|(n, s, b)| {
            (n.clone(), safetensors::tensor::TensorView::new(safetensors::Dtype::F32, s.clone(), b).expect("view"))
        })
        .collect();
    let st = safetensors::serialize(views, None).expect("serialises");
    let tokenizer = include_bytes!("../www/models/all-MiniLM-L6-v2/tokenizer.json.gz");
    let config = config.to_string();
    crate::tables::bundle(&[
        ("config.json", config.as_bytes()),
        ("model.safetensors", &st),
        ("tokenizer.json.gz", tokenizer),
    ])
}
