//! The **decoder forward passes** of docs/MATH.md §14b, in f32 over candle's tensors, keeping every
//! hidden state h⁰ … h^L (each block's output, before the final norm). A batch of B sequences
//! padded on the right to T tokens is read under the causal mask and the key mask together:
//! position i attends to the real positions j ≤ i, so a real token's states do not depend on
//! the padding after it.
//!
//! **Llama family** ([`Family::Llama`], [`Family::Qwen2`]): h⁰ = E\[ids\]; per block, with
//! RMSNorm n(x) = x / √(mean(x²) + ε) · w,
//! * q, k, v = n(x) W_{q,k,v}ᵀ (+ b for Qwen2); q and k rotated by position t with the
//!   rotate-half pairs (x_k, x_{k+d_h/2}) at angle t·θ_k, θ_k = base^(−2k/d_h) (Hugging Face's
//!   layout; GGUF's adjacent-pair rows are put back in it when read);
//! * grouped-query attention: key/value head j serves query heads j·g … (j+1)·g − 1;
//!   A = softmax(q kᵀ / √d_h + M) v; x ← x + A W_oᵀ;
//! * x ← x + W_down (silu(n(x) W_gateᵀ) ⊙ n(x) W_upᵀ).
//!
//! **GPT-2** ([`Family::Gpt2`]): h⁰ = E\[ids\] + P\[0..T\]; per block x ← x + attn(LN₁(x)),
//! x ← x + W₂ GELU_tanh(W₁ LN₂(x)), the Conv1D weights transposed once when read.

pub mod config;

pub use config::{DecoderConfig, Family};

use super::bert::{Batch, HiddenStates};
use super::weights::Weights;
use candle_core::{Device, Module, Tensor, D};
use candle_nn::{Embedding, LayerNorm, Linear, RmsNorm};
use posgeo::error::{PosgeoError, Result};

fn fail(e: candle_core::Error) -> PosgeoError {
    PosgeoError::BadModel(format!("the forward pass failed: {}", posgeo::error::candle_message(&e)))
}

/// A block's norms: RMSNorm (Llama family) or LayerNorm (GPT-2).
enum Norm {
    Rms(RmsNorm),
    Layer(LayerNorm),
}

impl Norm {
    fn forward(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        match self {
            Norm::Rms(n) => n.forward(x),
            Norm::Layer(n) => n.forward(x),
        }
    }
}

/// One block.
struct Block {
    attention_norm: Norm,
    /// Llama: q, k, v; GPT-2: the fused q|k|v.
    projections: Vec<Linear>,
    output: Linear,
    mlp_norm: Norm,
    /// Llama: gate, up, down; GPT-2: fc, proj.
    mlp: Vec<Linear>,
}

/// A loaded decoder.
pub struct Decoder {
    config: DecoderConfig,
    tokens: Embedding,
    positions: Option<Embedding>,
    blocks: Vec<Block>,
    device: Device,
}

impl Decoder {
    /// Builds the blocks from checked weights (named as [`DecoderConfig::tensors`] names them).
    pub fn new(config: &DecoderConfig, weights: Weights) -> Result<Decoder> {
        let c = config;
        let gpt2 = c.family == Family::Gpt2;
        let mut w = Take { weights, device: Device::Cpu, transpose: gpt2 };
        let mut blocks = Vec::with_capacity(c.num_hidden_layers);
        for l in 0..c.num_hidden_layers {
            blocks.push(if gpt2 {
                let p = format!("h.{l}.");
                Block {
                    attention_norm: w.layer_norm(&format!("{p}ln_1"), c.norm_eps)?,
                    projections: vec![w.linear(&format!("{p}attn.c_attn"), true)?],
                    output: w.linear(&format!("{p}attn.c_proj"), true)?,
                    mlp_norm: w.layer_norm(&format!("{p}ln_2"), c.norm_eps)?,
                    mlp: vec![w.linear(&format!("{p}mlp.c_fc"), true)?, w.linear(&format!("{p}mlp.c_proj"), true)?],
                }
            } else {
                let p = format!("layers.{l}.");
                let qwen = c.family == Family::Qwen2;
                Block {
                    attention_norm: Norm::Rms(RmsNorm::new(
                        w.tensor(&format!("{p}input_layernorm.weight"))?,
                        c.norm_eps,
                    )),
                    projections: vec![
                        w.linear(&format!("{p}self_attn.q_proj"), qwen)?,
                        w.linear(&format!("{p}self_attn.k_proj"), qwen)?,
                        w.linear(&format!("{p}self_attn.v_proj"), qwen)?,
                    ],
                    output: w.linear(&format!("{p}self_attn.o_proj"), false)?,
                    mlp_norm: Norm::Rms(RmsNorm::new(
                        w.tensor(&format!("{p}post_attention_layernorm.weight"))?,
                        c.norm_eps,
                    )),
                    mlp: vec![
                        w.linear(&format!("{p}mlp.gate_proj"), false)?,
                        w.linear(&format!("{p}mlp.up_proj"), false)?,
                        w.linear(&format!("{p}mlp.down_proj"), false)?,
                    ],
                }
            });
        }
        let h = c.hidden_size;
        let (tokens, positions) = if gpt2 {
            (Embedding::new(w.tensor("wte.weight")?, h), Some(Embedding::new(w.tensor("wpe.weight")?, h)))
        } else {
            (Embedding::new(w.tensor("embed_tokens.weight")?, h), None)
        };
        Ok(Decoder { config: c.clone(), tokens, positions, blocks, device: w.device })
    }

    /// The configuration.
    pub fn config(&self) -> &DecoderConfig {
        &self.config
    }

    /// h⁰ … h^L of a batch (module docs).
    pub fn hidden_states(&self, batch: &Batch) -> Result<HiddenStates> {
        super::bert::check_batch(batch, self.config.max_position_embeddings, self.config.vocab_size)?;
        self.run(batch).map_err(fail)
    }

    fn run(&self, batch: &Batch) -> candle_core::Result<HiddenStates> {
        let (b, t) = (batch.sequences, batch.length);
        let dev = &self.device;
        let ids = Tensor::from_vec(batch.ids.clone(), (b, t), dev)?;
        let mut x = self.tokens.forward(&ids)?;
        if let Some(p) = &self.positions {
            x = x.broadcast_add(&p.forward(&Tensor::arange(0u32, t as u32, dev)?)?)?;
        }
        let mut additive = vec![0f32; b * t * t];
        for s in 0..b {
            for i in 0..t {
                for j in 0..t {
                    if j > i || batch.mask[s * t + j] == 0 {
                        additive[(s * t + i) * t + j] = f32::MIN;
                    }
                }
            }
        }
        let mask = Tensor::from_vec(additive, (b, 1, t, t), dev)?;
        let rotary = if self.config.family == Family::Gpt2 { None } else { Some(self.rotary(t)?) };
        let mut states = Vec::with_capacity(self.blocks.len() + 1);
        states.push(x.flatten_all()?.to_vec1::<f32>()?);
        for block in &self.blocks {
            x = self.block(block, &x, &mask, rotary.as_ref())?;
            states.push(x.flatten_all()?.to_vec1::<f32>()?);
        }
        Ok(states)
    }

    /// cos and sin of t·θ_k, each T × d_h/2 (computed in f64, then rounded).
    fn rotary(&self, t: usize) -> candle_core::Result<(Tensor, Tensor)> {
        let inv = self.config.inverse_frequencies();
        let angle = |pos: usize, k: usize| pos as f64 * inv[k];
        let cos: Vec<f32> = (0..t).flat_map(|p| (0..inv.len()).map(move |k| angle(p, k).cos() as f32)).collect();
        let sin: Vec<f32> = (0..t).flat_map(|p| (0..inv.len()).map(move |k| angle(p, k).sin() as f32)).collect();
        Ok((Tensor::from_vec(cos, (t, inv.len()), &self.device)?, Tensor::from_vec(sin, (t, inv.len()), &self.device)?))
    }

    fn block(
        &self,
        l: &Block,
        x: &Tensor,
        mask: &Tensor,
        rotary: Option<&(Tensor, Tensor)>,
    ) -> candle_core::Result<Tensor> {
        let c = &self.config;
        let (b, t, _) = x.dims3()?;
        let (heads, kv, dh) = (c.num_attention_heads, c.num_key_value_heads, c.head_dim);
        let n = l.attention_norm.forward(x)?;
        let split = |y: Tensor, h: usize| y.reshape((b, t, h, dh))?.transpose(1, 2)?.contiguous();
        let (mut q, mut k, v) = if let [qkv] = l.projections.as_slice() {
            let y = qkv.forward(&n)?;
            let w = heads * dh;
            (
                split(y.narrow(D::Minus1, 0, w)?, heads)?,
                split(y.narrow(D::Minus1, w, w)?, heads)?,
                split(y.narrow(D::Minus1, 2 * w, w)?, heads)?,
            )
        } else {
            (
                split(l.projections[0].forward(&n)?, heads)?,
                split(l.projections[1].forward(&n)?, kv)?,
                split(l.projections[2].forward(&n)?, kv)?,
            )
        };
        if let Some((cos, sin)) = rotary {
            q = candle_nn::rotary_emb::rope(&q, cos, sin)?;
            k = candle_nn::rotary_emb::rope(&k, cos, sin)?;
        }
        let group = heads / kv;
        let repeat = |y: Tensor| -> candle_core::Result<Tensor> {
            if group == 1 {
                return Ok(y);
            }
            y.unsqueeze(2)?.expand((b, kv, group, t, dh))?.reshape((b, heads, t, dh))
        };
        let (k, v) = (repeat(k)?, repeat(v)?);
        let scores = (q.matmul(&k.t()?.contiguous()?)? / (dh as f64).sqrt())?.broadcast_add(mask)?;
        let probs = candle_nn::ops::softmax_last_dim(&scores)?;
        let context = probs.matmul(&v)?.transpose(1, 2)?.contiguous()?.reshape((b, t, heads * dh))?;
        let x = (x + l.output.forward(&context)?)?;
        let n = l.mlp_norm.forward(&x)?;
        let f = if let [fc, proj] = l.mlp.as_slice() {
            proj.forward(&fc.forward(&n)?.gelu()?)?
        } else {
            let gate = candle_nn::ops::silu(&l.mlp[0].forward(&n)?)?;
            l.mlp[2].forward(&(gate * l.mlp[1].forward(&n)?)?)?
        };
        x + f
    }
}

/// Takes checked weights into candle's tensors (no copy), transposing GPT-2's Conv1D matrices.
struct Take {
    weights: Weights,
    device: Device,
    transpose: bool,
}

impl Take {
    fn tensor(&mut self, name: &str) -> Result<Tensor> {
        let w = self.weights.take(name)?;
        Tensor::from_vec(w.data, w.shape.as_slice(), &self.device).map_err(fail)
    }

    fn linear(&mut self, p: &str, bias: bool) -> Result<Linear> {
        let mut w = self.tensor(&format!("{p}.weight"))?;
        if self.transpose {
            w = w.t().and_then(|t| t.contiguous()).map_err(fail)?;
        }
        let b = if bias { Some(self.tensor(&format!("{p}.bias"))?) } else { None };
        Ok(Linear::new(w, b))
    }

    fn layer_norm(&mut self, p: &str, eps: f64) -> Result<Norm> {
        Ok(Norm::Layer(LayerNorm::new(self.tensor(&format!("{p}.weight"))?, self.tensor(&format!("{p}.bias"))?, eps)))
    }
}
