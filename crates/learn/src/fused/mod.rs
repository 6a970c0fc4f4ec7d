//! **The fused trainer** of the learning experiment (docs/MATH.md §16), after llm.c: one
//! forward and one backward pass written for this model, every weight, gradient, moment,
//! activation and scratch buffer allocated once when the run starts ([`layout::Sizes`],
//! [`layout::memory_bytes`]), the matrix products through `gemm`'s blocked SIMD kernels
//! ([`matmul`]), and layer norm, GELU, attention (pad mask, RoPE, ALiBi) and the
//! softmax-cross-entropy over the chosen positions fused into single passes
//! ([`kernels`], [`attention`], [`output`]). AdamW updates the trainable tensors in place.
//!
//! It computes what the candle model ([`super::net`]) computes, which stays as its test
//! oracle: from the same initial weights and batches, every loss of the first 20 steps agrees
//! to 10⁻⁵ and every gradient of the first step to 10⁻⁴ relative (docs/MATH.md §16,
//! "Implementations").

mod acts;
mod attention;
mod backward;
pub mod clock;
mod kernels;
pub mod layout;
pub mod matmul;
mod output;

use super::data::Batch;
use super::init::Init;
use super::net::Shape;
use super::Signal;
use acts::Acts;
use clock::{Clock, Stage};
use layout::{Layout, Sizes};
use posgeo::error::{PosgeoError, Result};

/// One layer's share of each per-layer buffer.
#[derive(Debug, Clone, Copy)]
struct Slot {
    wide: usize,
    ffn: usize,
    probs: usize,
    rows: usize,
}

/// A model and its optimiser state, trained in place.
pub struct Fused {
    shape: Shape,
    signal: Signal,
    layout: Layout,
    /// One layer's slot sizes (B·n·d, B·n·4d, B·H·n², B·n), as usize.
    slot: Slot,
    batch: usize,
    /// Weights, gradients and AdamW's two moments, each in [`Layout`]'s order.
    w: Vec<f32>,
    g: Vec<f32>,
    m: Vec<f32>,
    v: Vec<f32>,
    /// AdamW steps taken.
    t: usize,
    a: Acts,
    /// Time per stage, when a clock is set.
    clock: Clock,
}

/// The loss of a batch and its accuracy's numerator.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scored {
    /// Σ of the chosen positions' cross-entropies.
    pub loss_sum: f64,
    /// Chosen positions.
    pub count: usize,
    /// Chosen positions whose largest logit is the target.
    pub correct: usize,
}

impl Scored {
    /// The mean cross-entropy (0 without chosen positions).
    pub fn mean(&self) -> f64 {
        self.loss_sum / self.count.max(1) as f64
    }
}

impl Fused {
    /// A trainer for batches of up to `batch` sequences of up to `shape.n` positions, holding
    /// `init`'s tensors ([`super::init::tensors`]).
    pub fn new(shape: Shape, signal: Signal, init: &[Init], batch: usize) -> Result<Fused> {
        if shape.heads == 0 || shape.d % shape.heads != 0 || (shape.d / shape.heads) % 2 != 0 {
            return Err(PosgeoError::Learn(format!("d = {} does not split into {} even heads", shape.d, shape.heads)));
        }
        layout::check_memory(shape, batch, signal)?;
        let layout = Layout::new(shape, init)?;
        let sizes = Sizes::new(shape, batch);
        let slot = Slot {
            wide: sizes.wide as usize,
            ffn: sizes.ffn as usize,
            probs: sizes.probs as usize,
            rows: sizes.rows as usize,
        };
        let mut w = Vec::with_capacity(layout.len);
        for i in init {
            w.extend_from_slice(&i.data);
        }
        let len = layout.len;
        Ok(Fused {
            shape,
            signal,
            layout,
            slot,
            batch,
            w,
            g: vec![0.0; len],
            m: vec![0.0; len],
            v: vec![0.0; len],
            t: 0,
            a: Acts::new(shape, sizes),
            clock: Clock::default(),
        })
    }

    fn check(&self, batch: &Batch) -> Result<()> {
        if batch.size > self.batch || batch.len > self.shape.n || batch.input.len() != batch.size * batch.len {
            return Err(PosgeoError::Learn(format!(
                "a batch of {}×{} does not fit a trainer for {}×{}",
                batch.size, batch.len, self.batch, self.shape.n
            )));
        }
        if let Some(&id) = batch.input.iter().chain(&batch.target).find(|&&id| id as usize >= self.shape.vocab) {
            return Err(PosgeoError::Learn(format!("token id {id} is outside the vocabulary of {}", self.shape.vocab)));
        }
        Ok(())
    }

    /// One AdamW step at learning rate `lr` on `batch`; returns the batch's loss before the
    /// update. A non-finite loss updates nothing.
    pub fn step(&mut self, batch: &Batch, lr: f64) -> Result<f64> {
        let loss = self.gradient(batch)?;
        if !loss.is_finite() {
            return Ok(loss);
        }
        self.t += 1;
        self.clock.start();
        for seg in self.layout.segments.iter().filter(|s| s.trainable) {
            let decay = if seg.dims.len() == 2 { 0.01 } else { 0.0 };
            let r = seg.off..seg.off + seg.len;
            kernels::Adam::new(self.t, lr, decay).update(
                &mut self.w[r.clone()],
                &self.g[r.clone()],
                &mut self.m[r.clone()],
                &mut self.v[r],
            );
        }
        self.clock.tick(Stage::AdamW);
        Ok(loss)
    }

    /// The mean loss of `batch`, with every trainable tensor's gradient left in the gradient
    /// buffer (see [`Fused::gradients`]).
    pub fn gradient(&mut self, batch: &Batch) -> Result<f64> {
        self.check(batch)?;
        self.g.fill(0.0);
        self.forward(batch);
        let scored = self.output(batch, true);
        self.clock.tick(Stage::Output);
        let loss = scored.mean();
        if loss.is_finite() {
            self.backward(batch);
        }
        Ok(loss)
    }

    /// Times every stage from now on with `now` (seconds from any origin).
    pub fn time_stages(&mut self, now: fn() -> f64) {
        self.clock.set(now);
    }

    /// Seconds spent in each stage since [`Fused::time_stages`], in [`clock::STAGES`]' order.
    pub fn stage_seconds(&self) -> [f64; 7] {
        self.clock.seconds
    }

    /// Each trainable tensor's gradient from the last [`Fused::gradient`], by name.
    pub fn gradients(&self) -> Vec<(String, Vec<f32>)> {
        let segs = self.layout.segments.iter().filter(|s| s.trainable);
        segs.map(|s| (s.name.clone(), self.g[s.off..s.off + s.len].to_vec())).collect()
    }

    /// The loss and accuracy's numerator of `batch` (no gradients).
    pub fn score(&mut self, batch: &Batch) -> Result<Scored> {
        self.check(batch)?;
        self.forward(batch);
        let scored = self.output(batch, false);
        self.clock.tick(Stage::Output);
        Ok(scored)
    }

    /// The held-out loss and accuracy over `held`.
    pub fn evaluate(&mut self, held: &[Batch]) -> Result<(f64, f64)> {
        let (mut sum, mut count, mut correct) = (0.0, 0usize, 0usize);
        for b in held {
            let s = self.score(b)?;
            sum += s.loss_sum;
            count += s.count;
            correct += s.correct;
        }
        Ok((sum / count.max(1) as f64, correct as f64 / count.max(1) as f64))
    }

    /// The position table (n×d, row-major) of an additive signal (`lowrank`'s A·Bᵀ).
    pub fn table(&self) -> Option<Vec<f32>> {
        let (n, d) = (self.shape.n, self.shape.d);
        if let Some(off) = self.layout.pos {
            return Some(self.w[off..off + n * d].to_vec());
        }
        let mut table = vec![0.0; n * d];
        self.low_rank_table(&mut table)?;
        Some(table)
    }

    /// `lowrank`'s P = A·Bᵀ into `table` (n×d); `None` for the other signals.
    fn low_rank_table(&self, table: &mut [f32]) -> Option<()> {
        let ((a, b), (n, d, r)) = (self.layout.factors?, (self.shape.n, self.shape.d, self.shape.rank));
        matmul::mm(
            table,
            matmul::View::rm(0, n, d),
            &self.w,
            matmul::View::rm(a, n, r),
            &self.w,
            matmul::View::rm(b, d, r).t(),
            false,
            1.0,
        );
        Some(())
    }

    /// The current value of every tensor, by name (the dump's order).
    pub fn tensors(&self) -> Vec<(String, Vec<f32>)> {
        self.layout.segments.iter().map(|s| (s.name.clone(), self.w[s.off..s.off + s.len].to_vec())).collect()
    }

    /// The forward pass up to the final layer norm, activations kept.
    fn forward(&mut self, batch: &Batch) {
        self.clock.start();
        let (t, d) = (batch.len, self.shape.d);
        let wide = batch.size * t * d;
        let mut table = std::mem::take(&mut self.a.table);
        let low_rank = self.low_rank_table(&mut table).is_some();
        self.a.table = table;
        let pos: Option<&[f32]> = match self.layout.pos {
            Some(off) => Some(&self.w[off..off + self.shape.n * d]),
            None => low_rank.then_some(&self.a.table[..]),
        };
        let x = &mut self.a.xs[..wide];
        for (r, row) in x.chunks_exact_mut(d).enumerate() {
            let id = batch.input[r] as usize;
            row.copy_from_slice(&self.w[self.layout.tok + id * d..self.layout.tok + (id + 1) * d]);
            if let Some(pos) = pos {
                let p = (r % t) * d;
                row.iter_mut().zip(&pos[p..p + d]).for_each(|(x, p)| *x += p);
            }
        }
        self.clock.tick(Stage::Other);
        for l in 0..self.shape.layers {
            self.block_forward(l, batch);
        }
        let (s, last) = (self.layout.lnf, self.shape.layers * self.slot.wide);
        kernels::wide(kernels::LnForward {
            x: &self.a.xs[last..last + wide],
            y: &mut self.a.lnf[..wide],
            stats: &mut self.a.statsf[..2 * batch.size * t],
            gamma: &self.w[s..s + d],
            beta: &self.w[s + d..s + 2 * d],
            d,
        });
        self.clock.tick(Stage::Norms);
    }

    /// Block `l`: x ← x + W_o·MHA(LN₁(x)), x ← x + W₂·GELU(W₁·LN₂(x) + b₁) + b₂.
    fn block_forward(&mut self, l: usize, batch: &Batch) {
        use matmul::{mm, View};
        let (b, t, d, f) = (batch.size, batch.len, self.shape.d, 4 * self.shape.d);
        let (bt, at, w, a) = (b * t, self.layout.blocks[l], &self.w, &mut self.a);
        let (sw, sf, ss, sp) = (l * self.slot.wide, l * self.slot.ffn, l * 2 * self.slot.rows, l * self.slot.probs);
        let (wide, ffn) = (sw..sw + bt * d, sf..sf + bt * f);
        let (rows, dd) = (View::rm(0, bt, d), |off| View::rm(off, d, d));
        let ln1 = (&w[at.ln1..at.ln1 + d], &w[at.ln1 + d..at.ln1 + 2 * d]);
        kernels::wide(kernels::LnForward {
            x: &a.xs[wide.clone()],
            y: &mut a.ln1[wide.clone()],
            stats: &mut a.stats1[ss..ss + 2 * bt],
            gamma: ln1.0,
            beta: ln1.1,
            d,
        });
        self.clock.tick(Stage::Norms);
        mm(&mut a.q[wide.clone()], rows, &a.ln1[wide.clone()], rows, w, dd(at.wq), false, 1.0);
        mm(&mut a.k[wide.clone()], rows, &a.ln1[wide.clone()], rows, w, dd(at.wk), false, 1.0);
        mm(&mut a.v[wide.clone()], rows, &a.ln1[wide.clone()], rows, w, dd(at.wv), false, 1.0);
        self.clock.tick(Stage::Products);
        if self.signal == Signal::Rope {
            let dh = d / self.shape.heads;
            kernels::rope(&mut a.q[wide.clone()], t, d, dh, (&a.cos, &a.sin), false);
            kernels::rope(&mut a.k[wide.clone()], t, d, dh, (&a.cos, &a.sin), false);
        }
        let heads = attention::Heads { batch: b, t, d, heads: self.shape.heads };
        let alibi: &[f32] = if self.signal == Signal::Alibi { &a.alibi } else { &[] };
        let qkv = (&a.q[wide.clone()], &a.k[wide.clone()], &a.v[wide.clone()]);
        attention::forward(heads, qkv, &batch.input, alibi, &mut a.dp, &mut a.probs[sp..], &mut a.o[wide.clone()]);
        self.clock.tick(Stage::Attention);
        a.mid[wide.clone()].copy_from_slice(&a.xs[wide.clone()]);
        mm(&mut a.mid[wide.clone()], rows, &a.o[wide.clone()], rows, w, dd(at.wo), true, 1.0);
        self.clock.tick(Stage::Products);
        let ln2 = (&w[at.ln2..at.ln2 + d], &w[at.ln2 + d..at.ln2 + 2 * d]);
        kernels::wide(kernels::LnForward {
            x: &a.mid[wide.clone()],
            y: &mut a.ln2[wide.clone()],
            stats: &mut a.stats2[ss..ss + 2 * bt],
            gamma: ln2.0,
            beta: ln2.1,
            d,
        });
        self.clock.tick(Stage::Norms);
        mm(
            &mut a.gelu[ffn.clone()],
            View::rm(0, bt, f),
            &a.ln2[wide.clone()],
            rows,
            w,
            View::rm(at.w1, d, f),
            false,
            1.0,
        );
        self.clock.tick(Stage::Products);
        let (u, du, bias) = (&mut a.gelu[ffn.clone()], &mut a.dgelu[ffn.clone()], &w[at.b1..at.b1 + f]);
        kernels::wide(kernels::Gelu { u, du, bias });
        self.clock.tick(Stage::Gelu);
        let next = (l + 1) * self.slot.wide..(l + 1) * self.slot.wide + bt * d;
        for (row, m) in a.xs[next.clone()].chunks_exact_mut(d).zip(a.mid[wide.clone()].chunks_exact(d)) {
            for k in 0..d {
                row[k] = m[k] + w[at.b2 + k];
            }
        }
        mm(&mut a.xs[next], rows, &a.gelu[ffn], View::rm(0, bt, f), w, View::rm(at.w2, f, d), true, 1.0);
        self.clock.tick(Stage::Products);
    }
}

#[cfg(test)]
mod tests;
