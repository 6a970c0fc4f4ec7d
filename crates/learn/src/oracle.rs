//! **The candle model as the fused trainer's oracle** (docs/MATH.md §16, "Implementations"):
//! candle-nn's AdamW over [`super::net`]'s graph and autodiff, and the comparison the tests run
//! natively and in wasm: from the same initial weights and batches, every trainable tensor's
//! gradient at the first step (max |Δ| / max |g| per tensor) and the loss of each of the
//! first steps.

use super::data::{Batch, Batches};
use super::fused::Fused;
use super::init::Init;
use super::net::{fail, Net, Shape};
use super::train::{learning_rate, Model};
use super::{Context, Signal};
use candle_core::Var;
use posgeo::error::{PosgeoError, Result};

/// The candle graph with candle-nn's AdamW (one instance for the 2-D tensors with decoupled
/// weight decay 0.01, one without for the rest).
pub struct Candle {
    /// The network.
    pub net: Net,
    decayed: candle_nn::AdamW,
    plain: candle_nn::AdamW,
}

impl Model for Candle {
    fn build(shape: Shape, signal: Signal, init: &[Init], _batch: usize) -> Result<Self> {
        use candle_nn::{AdamW, Optimizer, ParamsAdamW};
        let net = Net::from_init(shape, signal, init.to_vec())?;
        let pick = |matrices: bool| -> Vec<Var> {
            let chosen = net.params.iter().filter(|p| p.trainable && (p.var.rank() == 2) == matrices);
            chosen.map(|p| p.var.clone()).collect()
        };
        let params = |weight_decay| ParamsAdamW { lr: 0.0, beta1: 0.9, beta2: 0.999, eps: 1e-8, weight_decay };
        let decayed = AdamW::new(pick(true), params(0.01)).map_err(fail)?;
        let plain = AdamW::new(pick(false), params(0.0)).map_err(fail)?;
        Ok(Candle { net, decayed, plain })
    }

    fn step(&mut self, batch: &Batch, lr: f64) -> Result<f64> {
        use candle_nn::Optimizer;
        let out = self.net.forward(batch, false)?;
        let loss = out.loss.to_scalar::<f32>().map_err(fail)? as f64;
        if !loss.is_finite() {
            return Ok(loss);
        }
        self.decayed.set_learning_rate(lr);
        self.plain.set_learning_rate(lr);
        let grads = out.loss.backward().map_err(fail)?;
        self.decayed.step(&grads).map_err(fail)?;
        self.plain.step(&grads).map_err(fail)?;
        Ok(loss)
    }

    fn evaluate(&mut self, held: &[Batch]) -> Result<(f64, f64)> {
        let (mut sum, mut count, mut correct) = (0.0, 0usize, 0usize);
        for b in held {
            let o = self.net.forward(b, true)?;
            sum += o.loss.to_scalar::<f32>().map_err(fail)? as f64 * o.count as f64;
            count += o.count;
            correct += o.correct;
        }
        Ok((sum / count.max(1) as f64, correct as f64 / count.max(1) as f64))
    }

    fn table(&self) -> Result<Option<Vec<f32>>> {
        self.net.table()
    }
}

/// How closely the fused trainer follows the oracle on one signal.
#[derive(Debug, Clone, PartialEq)]
pub struct Agreement {
    /// The signal.
    pub signal: Signal,
    /// Trainable tensors whose first-step gradients were compared (all of them).
    pub gradients: usize,
    /// The largest max |Δ| / max |g| among them, and its tensor (∞ for a NaN).
    pub worst_gradient: (String, f64),
    /// Steps whose losses were compared.
    pub steps: usize,
    /// The largest |Δ| among those losses (∞ for a NaN).
    pub worst_loss: f64,
}

/// max |a − b| / max |b|, ∞ when it is not a number.
pub fn relative(a: &[f32], b: &[f32]) -> f64 {
    let diff =
        a.iter()
            .zip(b)
            .map(|(x, y)| (x - y).abs())
            .fold(0f32, |m, x| if x.is_nan() { f32::INFINITY } else { m.max(x) });
    let scale = b.iter().map(|y| y.abs()).fold(0f32, f32::max);
    let r = f64::from(diff) / f64::from(scale).max(1e-30);
    if r.is_nan() || a.len() != b.len() {
        f64::INFINITY
    } else {
        r
    }
}

/// Trains `signal` with `seed` for `steps` steps on `ctx`'s batches with both
/// implementations, from the same initial weights, and measures how far apart they are.
pub fn compare(ctx: &Context, signal: Signal, seed: u64, steps: usize) -> Result<Agreement> {
    let (shape, p) = (ctx.shape(), &ctx.params);
    let init = super::init::tensors(shape, signal, seed, ctx.table(signal, seed)?);
    let mut oracle = Candle::build(shape, signal, &init, p.batch)?;
    let mut fused = Fused::new(shape, signal, &init, p.batch)?;
    let batches: Vec<Batch> = Batches::new(&ctx.data, p.batch, p.mask_rate, seed).take(steps.max(1)).collect();
    let out = oracle.net.forward(&batches[0], false)?;
    let grads = out.loss.backward().map_err(fail)?;
    fused.gradient(&batches[0])?;
    let got = fused.gradients();
    let trainable = oracle.net.params.iter().filter(|q| q.trainable).count();
    if got.len() != trainable {
        return Err(PosgeoError::Learn(format!("{} gradients for {trainable} trainable tensors", got.len())));
    }
    let mut worst_gradient = (String::new(), 0.0);
    for (name, g) in got {
        let param = oracle.net.params.iter().find(|q| q.name == name);
        let want = param
            .and_then(|q| grads.get(&q.var))
            .ok_or_else(|| PosgeoError::Learn(format!("no gradient of {name}")))?;
        let r = relative(&g, &want.flatten_all().and_then(|t| t.to_vec1::<f32>()).map_err(fail)?);
        if worst_gradient.0.is_empty() || r > worst_gradient.1 {
            worst_gradient = (name, r);
        }
    }
    let mut worst_loss = 0f64;
    for (t, b) in batches.iter().enumerate() {
        let lr = learning_rate(p.lr, t, p.steps);
        let diff = (fused.step(b, lr)? - oracle.step(b, lr)?).abs();
        worst_loss = if diff.is_nan() { f64::INFINITY } else { worst_loss.max(diff) };
    }
    Ok(Agreement { signal, gradients: trainable, worst_gradient, steps: batches.len(), worst_loss })
}
