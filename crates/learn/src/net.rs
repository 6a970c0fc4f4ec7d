//! The **transformer encoder of the learning experiment** (docs/MATH.md §16), in f32 over
//! candle's tensors with its autodiff: token embedding E (tied to the output), an optional
//! additive position table p, L pre-LN blocks
//! x ← x + W_o·MHA(LN₁(x)), x ← x + W₂·GELU_erf(W₁·LN₂(x) + b₁) + b₂,
//! a final LN and logits LN_f(x)·Eᵀ + b_out. RoPE rotates q and k per head on pairs
//! (x₂ₖ, x₂ₖ₊₁); ALiBi adds −m_h·|i − j| to the scores; pads are never attended to.
//! Layer norm, softmax and the rotation are written from candle's differentiable
//! primitives (its fused kernels have no backward pass).

use super::data::{Batch, PAD};
use super::Signal;
use candle_core::{DType, Device, Tensor, Var, D};
use posgeo::error::{PosgeoError, Result};

/// candle's errors, in the user's terms.
pub(super) fn fail(e: candle_core::Error) -> PosgeoError {
    PosgeoError::Learn(format!("the model failed: {}", posgeo::error::candle_message(&e)))
}

/// The model's sizes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shape {
    /// |V|.
    pub vocab: usize,
    /// n (rows of the position table).
    pub n: usize,
    /// d.
    pub d: usize,
    /// L.
    pub layers: usize,
    /// H.
    pub heads: usize,
    /// r of a low-rank table P = A·Bᵀ (`lowrank`; unused by the other signals).
    pub rank: usize,
}

/// One named parameter, trainable or fixed.
pub struct Param {
    /// Its name in the dump (`blocks.0.wq`, …).
    pub name: String,
    /// The tensor (a `Var` so that trainable ones get gradients).
    pub var: Var,
    /// Whether AdamW updates it.
    pub trainable: bool,
}

/// The network: every parameter, in the dump's order.
pub struct Net {
    /// The sizes.
    pub shape: Shape,
    /// The position signal.
    pub signal: Signal,
    /// Every parameter.
    pub params: Vec<Param>,
}

/// What a forward pass gives: the mean cross-entropy and, per chosen position, whether the
/// largest logit is the target.
pub struct Outcome {
    /// Mean loss over the chosen positions (a scalar tensor, differentiable).
    pub loss: Tensor,
    /// Chosen positions.
    pub count: usize,
    /// Chosen positions predicted right (only when asked).
    pub correct: usize,
    /// The cross-entropy at each chosen position, in row-major order.
    pub each: Tensor,
}

impl Net {
    /// A fresh network for `seed` ([`super::init::tensors`]); `table` is the position table
    /// of additive signals (n×d, row-major; drawn N(0, 0.02²) for `learned`).
    pub fn new(shape: Shape, signal: Signal, seed: u64, table: Option<Vec<f32>>) -> Result<Net> {
        Net::from_init(shape, signal, super::init::tensors(shape, signal, seed, table))
    }

    /// The network holding `init`'s tensors.
    pub fn from_init(shape: Shape, signal: Signal, init: Vec<super::init::Init>) -> Result<Net> {
        let params = init
            .into_iter()
            .map(|i| {
                let t = Tensor::from_vec(i.data, i.dims, &Device::Cpu).map_err(fail)?;
                Ok(Param { name: i.name, var: Var::from_tensor(&t).map_err(fail)?, trainable: i.trainable })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Net { shape, signal, params })
    }

    /// The parameter called `name`.
    pub fn get(&self, name: &str) -> Result<&Tensor> {
        self.params
            .iter()
            .find(|p| p.name == name)
            .map(|p| p.var.as_tensor())
            .ok_or_else(|| PosgeoError::Learn(format!("no parameter {name}")))
    }

    /// The position table (n×d) of an additive signal: `pos`, or A·Bᵀ for `lowrank`.
    fn position_table(&self) -> candle_core::Result<Tensor> {
        let get = |name: &str| self.get(name).map_err(candle_core::Error::wrap);
        if self.signal == Signal::LowRank {
            get("pos_a")?.matmul(&get("pos_b")?.t()?)
        } else {
            Ok(get("pos")?.clone())
        }
    }

    /// The position table (n×d, row-major) of an additive signal.
    pub fn table(&self) -> Result<Option<Vec<f32>>> {
        if !self.signal.additive() {
            return Ok(None);
        }
        self.position_table().and_then(|t| t.flatten_all()?.to_vec1::<f32>()).map(Some).map_err(fail)
    }

    /// The loss of `batch` (and, with `count_correct`, its accuracy's numerator).
    pub fn forward(&self, batch: &Batch, count_correct: bool) -> Result<Outcome> {
        self.forward_inner(batch, count_correct).map_err(fail)
    }

    fn forward_inner(&self, batch: &Batch, count_correct: bool) -> candle_core::Result<Outcome> {
        let (b, t, d, h) = (batch.size, batch.len, self.shape.d, self.shape.heads);
        let dev = Device::Cpu;
        let emb = self.get("tok_emb").map_err(candle_core::Error::wrap)?;
        let ids = Tensor::from_slice(&batch.input, b * t, &dev)?;
        let mut x = emb.index_select(&ids, 0)?.reshape((b, t, d))?;
        if self.signal.additive() {
            let pos = self.position_table()?;
            x = x.broadcast_add(&pos.narrow(0, 0, t)?)?;
        }
        let bias = self.attention_bias(batch)?;
        let rot = if self.signal == Signal::Rope { Some(rotation(t, d / h)?) } else { None };
        for l in 0..self.shape.layers {
            let w = |s: &str| self.get(&format!("blocks.{l}.{s}")).map_err(candle_core::Error::wrap);
            let a = layer_norm(&x, w("ln1.weight")?, w("ln1.bias")?)?.reshape((b * t, d))?;
            let split = |m: &Tensor| -> candle_core::Result<Tensor> {
                let y = a.matmul(m)?.reshape((b, t, h, d / h))?.transpose(1, 2)?.contiguous()?;
                match &rot {
                    Some(r) => rotate(&y, r),
                    None => Ok(y),
                }
            };
            let (q, k) = (split(w("wq")?)?, split(w("wk")?)?);
            let v = a.matmul(w("wv")?)?.reshape((b, t, h, d / h))?.transpose(1, 2)?.contiguous()?;
            let scores = (q.matmul(&k.t()?)? / ((d / h) as f64).sqrt())?.broadcast_add(&bias)?;
            let attn = candle_nn::ops::softmax(&scores, D::Minus1)?.matmul(&v)?;
            let attn = attn.transpose(1, 2)?.contiguous()?.reshape((b * t, d))?;
            x = (x + attn.matmul(w("wo")?)?.reshape((b, t, d))?)?;
            let f = layer_norm(&x, w("ln2.weight")?, w("ln2.bias")?)?.reshape((b * t, d))?;
            let f = f.matmul(w("w1")?)?.broadcast_add(w("b1")?)?.gelu_erf()?;
            let f = f.matmul(w("w2")?)?.broadcast_add(w("b2")?)?;
            x = (x + f.reshape((b, t, d))?)?;
        }
        let g = |s: &str| self.get(s).map_err(candle_core::Error::wrap);
        let y = layer_norm(&x, g("ln_f.weight")?, g("ln_f.bias")?)?.reshape((b * t, d))?;
        let at: Vec<u32> = (0..b * t).filter(|&i| batch.chosen[i] == 1).map(|i| i as u32).collect();
        let targets: Vec<u32> = at.iter().map(|&i| batch.target[i as usize]).collect();
        let count = at.len();
        let y = y.index_select(&Tensor::from_vec(at, count, &dev)?, 0)?;
        let logits = y.matmul(&emb.t()?)?.broadcast_add(g("out_bias")?)?;
        let targets = Tensor::from_vec(targets, count, &dev)?;
        let picked = candle_nn::ops::log_softmax(&logits, D::Minus1)?.gather(&targets.unsqueeze(1)?, 1)?;
        let each = picked.squeeze(1)?.neg()?;
        let loss = each.mean(0)?;
        let correct = if count_correct {
            let hit = logits.argmax(D::Minus1)?.eq(&targets)?.to_dtype(DType::F32)?;
            hit.sum_all()?.to_scalar::<f32>()? as usize
        } else {
            0
        };
        Ok(Outcome { loss, count, correct, each })
    }

    /// The additive attention bias, B×H×T×T broadcastable: −10⁹ on pad keys, and ALiBi's
    /// −m_h·|i − j| for `alibi`.
    fn attention_bias(&self, batch: &Batch) -> candle_core::Result<Tensor> {
        let (b, t, h) = (batch.size, batch.len, self.shape.heads);
        let pads: Vec<f32> = batch.input.iter().map(|&id| if id == PAD { -1e9 } else { 0.0 }).collect();
        let pads = Tensor::from_vec(pads, (b, 1, 1, t), &Device::Cpu)?;
        if self.signal != Signal::Alibi {
            return Ok(pads);
        }
        let mut alibi = Vec::with_capacity(h * t * t);
        for head in 0..h {
            let m = alibi_slope(head, h);
            for i in 0..t {
                alibi.extend((0..t).map(|j| -(m * i.abs_diff(j) as f64) as f32));
            }
        }
        Tensor::from_vec(alibi, (1, h, t, t), &Device::Cpu)?.broadcast_add(&pads)
    }
}

/// ALiBi's slope of head `head` of `heads`: 2^(−8(h+1)/H).
pub fn alibi_slope(head: usize, heads: usize) -> f64 {
    2f64.powf(-8.0 * (head + 1) as f64 / heads as f64)
}

/// LN(x) = (x − mean)/√(var + 10⁻⁵)·γ + β over the last axis (biased variance).
fn layer_norm(x: &Tensor, gamma: &Tensor, beta: &Tensor) -> candle_core::Result<Tensor> {
    let centred = x.broadcast_sub(&x.mean_keepdim(D::Minus1)?)?;
    let var = centred.sqr()?.mean_keepdim(D::Minus1)?;
    centred.broadcast_div(&(var + 1e-5)?.sqrt()?)?.broadcast_mul(gamma)?.broadcast_add(beta)
}

/// cos and sin of i·θ_k, θ_k = 10000^(−2k/d_h), shaped 1×1×T×(d_h/2)×1.
fn rotation(t: usize, dh: usize) -> candle_core::Result<(Tensor, Tensor)> {
    let half = dh / 2;
    let angles: Vec<f64> =
        (0..t).flat_map(|i| (0..half).map(move |k| i as f64 * 10000f64.powf(-2.0 * k as f64 / dh as f64))).collect();
    let cos: Vec<f32> = angles.iter().map(|a| a.cos() as f32).collect();
    let sin: Vec<f32> = angles.iter().map(|a| a.sin() as f32).collect();
    let shape = (1, 1, t, half, 1);
    Ok((Tensor::from_vec(cos, shape, &Device::Cpu)?, Tensor::from_vec(sin, shape, &Device::Cpu)?))
}

/// Rotates B×H×T×d_h on pairs (x₂ₖ, x₂ₖ₊₁): (x₀cos − x₁sin, x₀sin + x₁cos).
fn rotate(y: &Tensor, (cos, sin): &(Tensor, Tensor)) -> candle_core::Result<Tensor> {
    let (b, h, t, dh) = y.dims4()?;
    let pairs = y.reshape((b, h, t, dh / 2, 2))?;
    let (x0, x1) = (pairs.narrow(4, 0, 1)?, pairs.narrow(4, 1, 1)?);
    let r0 = (x0.broadcast_mul(cos)? - x1.broadcast_mul(sin)?)?;
    let r1 = (x0.broadcast_mul(sin)? + x1.broadcast_mul(cos)?)?;
    Tensor::cat(&[r0, r1], 4)?.reshape((b, h, t, dh))
}
