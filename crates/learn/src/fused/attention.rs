//! **Multi-head attention, fused** (docs/MATH.md §16): per sequence and head, scores
//! S = q·kᵀ/√d_h plus the bias (ALiBi's −m_h·|i − j| and −10⁹ on pad keys, added in that
//! order as the candle model does), a row softmax P kept for the backward pass, and O = P·v
//! written into the head's columns of the output. Backward: ∂v = Pᵀ·∂O, ∂P = ∂O·vᵀ,
//! ∂S = P ∘ (∂P − rowsum(∂P ∘ P)), ∂q = ∂S·k/√d_h, ∂k = ∂Sᵀ·q/√d_h.

use super::super::data::PAD;
use super::kernels::{self, simd_op};
use super::matmul::{mm, View};

/// The attention's sizes for one batch.
#[derive(Debug, Clone, Copy)]
pub struct Heads {
    /// B.
    pub batch: usize,
    /// T.
    pub t: usize,
    /// d.
    pub d: usize,
    /// H.
    pub heads: usize,
}

impl Heads {
    fn dh(&self) -> usize {
        self.d / self.heads
    }

    /// Head `h` of sequence `b` in a B·T×d buffer.
    fn slice(&self, b: usize, h: usize) -> View {
        View::strided(b * self.t * self.d + h * self.dh(), self.t, self.dh(), self.d)
    }

    /// Its T×T block of the probabilities.
    fn probs(&self, b: usize, h: usize) -> View {
        View::rm((b * self.heads + h) * self.t * self.t, self.t, self.t)
    }

    fn scale(&self) -> f32 {
        1.0 / (self.dh() as f32).sqrt()
    }
}

/// P and O from q, k, v (B·T×d each); `input` tells the pads; `alibi` holds −m_h·δ for each
/// head h and distance δ (`heads` rows of at least T, empty without ALiBi); `bias` is scratch
/// for two rows of biases (2T).
pub fn forward(
    s: Heads,
    (q, k, v): (&[f32], &[f32], &[f32]),
    input: &[u32],
    alibi: &[f32],
    bias: &mut [f32],
    probs: &mut [f32],
    o: &mut [f32],
) {
    let t = s.t;
    let stride = alibi.len() / s.heads;
    let (pads, bias) = bias[..2 * t].split_at_mut(t);
    for b in 0..s.batch {
        for (x, &id) in pads.iter_mut().zip(&input[b * t..(b + 1) * t]) {
            *x = if id == PAD { -1e9 } else { 0.0 };
        }
        for h in 0..s.heads {
            let pv = s.probs(b, h);
            mm(probs, pv, q, s.slice(b, h), k, s.slice(b, h).t(), false, s.scale());
            let block = &mut probs[pv.off..pv.off + t * t];
            let alibi = &alibi[h * stride..(h + 1) * stride];
            kernels::wide(BiasSoftmax { block, pads, bias, alibi });
            mm(o, s.slice(b, h), probs, pv, v, s.slice(b, h), false, 1.0);
        }
    }
}

simd_op!(BiasSoftmax<'a> { block: &'a mut [f32], pads: &'a [f32], bias: &'a mut [f32], alibi: &'a [f32] } => bias_softmax);
simd_op!(SoftmaxBackward<'a> { probs: &'a [f32], dp: &'a mut [f32], t: usize } => softmax_backward);

/// Adds each row's bias (ALiBi's −m_h·|i − j| from `alibi`, one head's row by distance or
/// empty, plus the pads' −10⁹, added in that order) to the T×T `block` of scores and turns
/// each row into its softmax; `bias` is scratch for a row.
#[inline(always)]
fn bias_softmax(block: &mut [f32], pads: &[f32], bias: &mut [f32], alibi: &[f32]) {
    let t = pads.len();
    for (i, row) in block.chunks_exact_mut(t).enumerate() {
        if alibi.is_empty() {
            row.iter_mut().zip(pads.iter()).for_each(|(x, p)| *x += p);
        } else {
            for (j, x) in bias.iter_mut().enumerate() {
                *x = alibi[i.abs_diff(j)] + pads[j];
            }
            row.iter_mut().zip(bias.iter()).for_each(|(x, b)| *x += b);
        }
        softmax(row);
    }
}

/// softmax in place: the exponentials in one loop (it vectorises), their sum in another.
#[inline(always)]
fn softmax(row: &mut [f32]) {
    let max = kernels::max(row);
    for x in row.iter_mut() {
        *x = kernels::exp(*x - max);
    }
    let inv = 1.0 / kernels::sum(row);
    for x in row.iter_mut() {
        *x *= inv;
    }
}

/// ∂q, ∂k, ∂v (overwritten) from ∂O; `dp` is T×T scratch.
#[allow(clippy::too_many_arguments)]
pub fn backward(
    s: Heads,
    q: &[f32],
    k: &[f32],
    v: &[f32],
    probs: &[f32],
    dout: &[f32],
    dp: &mut [f32],
    (dq, dk, dv): (&mut [f32], &mut [f32], &mut [f32]),
) {
    let t = s.t;
    let square = View::rm(0, t, t);
    for b in 0..s.batch {
        for h in 0..s.heads {
            let (pv, hv) = (s.probs(b, h), s.slice(b, h));
            mm(dv, hv, probs, pv.t(), dout, hv, false, 1.0);
            mm(dp, square, dout, hv, v, hv.t(), false, 1.0);
            let block = &probs[pv.off..pv.off + t * t];
            kernels::wide(SoftmaxBackward { probs: block, dp: &mut dp[..t * t], t });
            mm(dq, hv, dp, square, k, hv, false, s.scale());
            mm(dk, hv, dp, square.t(), q, hv, false, s.scale());
        }
    }
}

/// ∂S = P ∘ (∂P − rowsum(∂P ∘ P)) in place of ∂P, row by row.
#[inline(always)]
fn softmax_backward(probs: &[f32], dp: &mut [f32], t: usize) {
    for (p, g) in probs.chunks_exact(t).zip(dp.chunks_exact_mut(t)) {
        let dot = kernels::dot(p, g);
        for (gj, pj) in g.iter_mut().zip(p) {
            *gj = pj * (*gj - dot);
        }
    }
}

/// ALiBi's table for `heads` heads and distances below `t` (`heads` rows of `t`): −m_h·δ, m_h = 2^(−8(h+1)/H), each
/// computed in f64 and rounded once (as the candle model does).
pub fn alibi_table(heads: usize, t: usize) -> Vec<f32> {
    let mut table = Vec::with_capacity(heads * t);
    for h in 0..heads {
        let m = super::super::net::alibi_slope(h, heads);
        table.extend((0..t).map(|delta| -(m * delta as f64) as f32));
    }
    table
}
