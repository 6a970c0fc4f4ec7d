//! The **BERT forward pass** of docs/MATH.md §14 (Hugging Face's `BertModel`, in f32), keeping every
//! hidden state h⁰ … h^L, over candle's tensors and its `Embedding`, `Linear` and `LayerNorm`
//! layers. For a batch of B sequences padded to T tokens under a mask m ∈ {0, 1}^{B×T}:
//!
//! * h⁰ = LayerNorm(E_word\[ids\] + E_pos\[0..T\] + E_type\[0\]);
//! * per layer, with heads of size d_h = H / heads and the additive mask
//!   M = (1 − m)·(most negative f32) on the keys:
//!   A = softmax(Q Kᵀ / √d_h + M) V per head (Q, K, V = x W_{q,k,v}ᵀ + b),
//!   a = LayerNorm(A W_oᵀ + b_o + x), f = GELU_erf(a W_iᵀ + b_i),
//!   h^{ℓ+1} = LayerNorm(f W_2ᵀ + b_2 + a).
//!
//! Positions beyond a sequence's length are computed (as in any padded batch) but never
//! attended to, so a real token's states do not depend on the padding.

use super::config::BertConfig;
use super::weights::Weights;
use candle_core::{DType, Device, Module, Tensor};
use candle_nn::{Embedding, LayerNorm, Linear};
use posgeo::error::{PosgeoError, Result};

/// candle's errors, in the user's terms.
fn fail(e: candle_core::Error) -> PosgeoError {
    PosgeoError::BadModel(format!("the forward pass failed: {}", posgeo::error::candle_message(&e)))
}

/// One encoder layer.
struct Layer {
    query: Linear,
    key: Linear,
    value: Linear,
    output: Linear,
    attention_norm: LayerNorm,
    intermediate: Linear,
    down: Linear,
    output_norm: LayerNorm,
}

/// A loaded BERT-family encoder.
pub struct Bert {
    config: BertConfig,
    word: Embedding,
    position: Embedding,
    token_type: Embedding,
    embedding_norm: LayerNorm,
    layers: Vec<Layer>,
    device: Device,
}

/// A batch of sequences padded to one length: ids and mask are B×T, row-major.
#[derive(Debug, Clone, PartialEq)]
pub struct Batch {
    /// Token ids (padding included).
    pub ids: Vec<u32>,
    /// 1 for a token the model attends to, 0 for padding.
    pub mask: Vec<u8>,
    /// B.
    pub sequences: usize,
    /// T.
    pub length: usize,
}

/// Checks a batch's shape, its length against the model's positions and its ids against the
/// vocabulary.
pub(crate) fn check_batch(batch: &Batch, max_positions: usize, vocab: usize) -> Result<()> {
    let (b, t) = (batch.sequences, batch.length);
    if batch.ids.len() != b * t || batch.mask.len() != b * t || b == 0 || t == 0 {
        return Err(PosgeoError::BadModel("a batch's ids and mask must both be B×T".into()));
    }
    if t > max_positions {
        return Err(PosgeoError::BadModel(format!(
            "a sequence of {t} tokens is longer than the model's {max_positions} positions"
        )));
    }
    if let Some(id) = batch.ids.iter().find(|&&id| id as usize >= vocab) {
        return Err(PosgeoError::BadModel(format!(
            "token id {id} is outside the model's vocabulary of {vocab} (is the tokenizer the model's own?)"
        )));
    }
    Ok(())
}

/// The hidden states of a batch: `states[ℓ]` is B×T×H, row-major, for ℓ = 0 … L.
pub type HiddenStates = Vec<Vec<f32>>;

impl Bert {
    /// Builds the layers from checked weights (they move into candle's tensors, no copy).
    pub fn new(config: &BertConfig, mut weights: Weights) -> Result<Bert> {
        let device = Device::Cpu;
        let mut tensor = |name: &str| -> Result<Tensor> {
            let t = weights.take(name)?;
            Tensor::from_vec(t.data, t.shape.as_slice(), &device).map_err(fail)
        };
        let h = config.hidden_size;
        let eps = config.layer_norm_eps;
        let mut norm = |p: &str| -> Result<LayerNorm> {
            Ok(LayerNorm::new(tensor(&format!("{p}.weight"))?, tensor(&format!("{p}.bias"))?, eps))
        };
        let embedding_norm = norm("embeddings.LayerNorm")?;
        let mut layer_norms = Vec::with_capacity(config.num_hidden_layers);
        for l in 0..config.num_hidden_layers {
            let p = format!("encoder.layer.{l}.");
            layer_norms
                .push((norm(&format!("{p}attention.output.LayerNorm"))?, norm(&format!("{p}output.LayerNorm"))?));
        }
        let mut linear = |p: &str| -> Result<Linear> {
            Ok(Linear::new(tensor(&format!("{p}.weight"))?, Some(tensor(&format!("{p}.bias"))?)))
        };
        let mut layers = Vec::with_capacity(config.num_hidden_layers);
        for (l, (attention_norm, output_norm)) in layer_norms.into_iter().enumerate() {
            let p = format!("encoder.layer.{l}.");
            layers.push(Layer {
                query: linear(&format!("{p}attention.self.query"))?,
                key: linear(&format!("{p}attention.self.key"))?,
                value: linear(&format!("{p}attention.self.value"))?,
                output: linear(&format!("{p}attention.output.dense"))?,
                attention_norm,
                intermediate: linear(&format!("{p}intermediate.dense"))?,
                down: linear(&format!("{p}output.dense"))?,
                output_norm,
            });
        }
        let mut tensor = |name: &str| -> Result<Tensor> {
            let t = weights.take(name)?;
            Tensor::from_vec(t.data, t.shape.as_slice(), &device).map_err(fail)
        };
        Ok(Bert {
            word: Embedding::new(tensor("embeddings.word_embeddings.weight")?, h),
            position: Embedding::new(tensor("embeddings.position_embeddings.weight")?, h),
            token_type: Embedding::new(tensor("embeddings.token_type_embeddings.weight")?, h),
            embedding_norm,
            layers,
            config: config.clone(),
            device: device.clone(),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &BertConfig {
        &self.config
    }

    /// h⁰ … h^L of a batch (module docs).
    pub fn hidden_states(&self, batch: &Batch) -> Result<HiddenStates> {
        check_batch(batch, self.config.max_position_embeddings, self.config.vocab_size)?;
        self.run(batch).map_err(fail)
    }

    fn run(&self, batch: &Batch) -> candle_core::Result<HiddenStates> {
        let (b, t) = (batch.sequences, batch.length);
        let dev = &self.device;
        let ids = Tensor::from_vec(batch.ids.clone(), (b, t), dev)?;
        let positions = Tensor::arange(0u32, t as u32, dev)?;
        let types = Tensor::zeros((1, 1), DType::U32, dev)?;
        let x = self
            .word
            .forward(&ids)?
            .broadcast_add(&self.position.forward(&positions)?)?
            .broadcast_add(&self.token_type.forward(&types)?)?;
        let mut x = self.embedding_norm.forward(&x)?;
        let additive: Vec<f32> = batch.mask.iter().map(|&m| if m == 0 { f32::MIN } else { 0.0 }).collect();
        let mask = Tensor::from_vec(additive, (b, 1, 1, t), dev)?;
        let mut states = Vec::with_capacity(self.layers.len() + 1);
        states.push(x.flatten_all()?.to_vec1::<f32>()?);
        for layer in &self.layers {
            x = self.layer(layer, &x, &mask)?;
            states.push(x.flatten_all()?.to_vec1::<f32>()?);
        }
        Ok(states)
    }

    fn layer(&self, l: &Layer, x: &Tensor, mask: &Tensor) -> candle_core::Result<Tensor> {
        let (b, t, h) = x.dims3()?;
        let heads = self.config.num_attention_heads;
        let dh = h / heads;
        let split = |y: Tensor| y.reshape((b, t, heads, dh))?.transpose(1, 2)?.contiguous();
        let q = split(l.query.forward(x)?)?;
        let k = split(l.key.forward(x)?)?;
        let v = split(l.value.forward(x)?)?;
        let scores = (q.matmul(&k.t()?.contiguous()?)? / (dh as f64).sqrt())?.broadcast_add(mask)?;
        let probs = candle_nn::ops::softmax_last_dim(&scores)?;
        let context = probs.matmul(&v)?.transpose(1, 2)?.contiguous()?.reshape((b, t, h))?;
        let a = l.attention_norm.forward(&(l.output.forward(&context)? + x)?)?;
        let f = l.intermediate.forward(&a)?.gelu_erf()?;
        l.output_norm.forward(&(l.down.forward(&f)? + &a)?)
    }
}
