//! **The output layer and its loss, fused** (docs/MATH.md §16): at the chosen positions only,
//! CHUNK rows at a time, logits z = LN_f(x)·Eᵀ + b (E tied to the token embedding), the
//! cross-entropy log Σ_j e^(z_j) − z_target, and when training ∂z = (softmax(z) − e_target)/C
//! over the batch's C chosen positions, whose products ∂E += ∂zᵀ·y, ∂b += Σ ∂z and
//! ∂y = ∂z·E are taken before the next chunk overwrites the logits.

use super::kernels::simd_op;
use super::layout::CHUNK;
use super::matmul::{mm, View};
use super::{Fused, Scored};
use crate::data::Batch;

impl Fused {
    /// The loss at the chosen positions of `batch` (after [`Fused::forward`]); with `train`,
    /// the output layer's gradients accumulate and ∂LN_f(x) is left in `dtmp` (zero at the
    /// positions not chosen).
    pub(super) fn output(&mut self, batch: &Batch, train: bool) -> Scored {
        let (d, v, tok, ob) = (self.shape.d, self.shape.vocab, self.layout.tok, self.layout.out_b);
        let (w, g, a) = (&self.w, &mut self.g, &mut self.a);
        a.rows.clear();
        a.rows.extend(batch.chosen.iter().enumerate().filter(|(_, &c)| c == 1).map(|(r, _)| r));
        let count = a.rows.len();
        if train {
            a.dtmp[..batch.size * batch.len * d].fill(0.0);
        }
        let inv = 1.0 / count.max(1) as f32;
        let mut scored = Scored { loss_sum: 0.0, count, correct: 0 };
        for start in (0..count).step_by(CHUNK) {
            let chunk = &a.rows[start..(start + CHUNK).min(count)];
            let c = chunk.len();
            for (i, &r) in chunk.iter().enumerate() {
                a.yc[i * d..(i + 1) * d].copy_from_slice(&a.lnf[r * d..(r + 1) * d]);
                a.logits[i * v..(i + 1) * v].copy_from_slice(&w[ob..ob + v]);
            }
            mm(&mut a.logits, View::rm(0, c, v), &a.yc, View::rm(0, c, d), w, View::rm(tok, v, d).t(), true, 1.0);
            let logits = &mut a.logits[..c * v];
            let scale = train.then_some(inv);
            super::kernels::wide(Losses { logits, v, rows: chunk, target: &batch.target, scale, scored: &mut scored });
            if train {
                let dz = View::rm(0, c, v);
                super::kernels::add_column_sums(&a.logits[..c * v], &mut g[ob..ob + v], v);
                mm(g, View::rm(tok, v, d), &a.logits, dz.t(), &a.yc, View::rm(0, c, d), true, 1.0);
                mm(&mut a.dyc, View::rm(0, c, d), &a.logits, dz, w, View::rm(tok, v, d), false, 1.0);
                for (i, &r) in chunk.iter().enumerate() {
                    a.dtmp[r * d..(r + 1) * d].copy_from_slice(&a.dyc[i * d..(i + 1) * d]);
                }
            }
        }
        scored
    }
}

simd_op!(Losses<'a> { logits: &'a mut [f32], v: usize, rows: &'a [usize], target: &'a [u32], scale: Option<f32>, scored: &'a mut Scored } => losses);

/// The cross-entropy of each `v`-row of `logits` (the chosen positions `rows`), added to
/// `scored`; with `scale`, each row becomes its gradient (see [`cross_entropy`]).
#[inline(always)]
fn losses(logits: &mut [f32], v: usize, rows: &[usize], target: &[u32], scale: Option<f32>, scored: &mut Scored) {
    for (row, &r) in logits.chunks_exact_mut(v).zip(rows) {
        let (loss, hit) = cross_entropy(row, target[r] as usize, scale);
        scored.loss_sum += loss;
        scored.correct += usize::from(hit);
    }
}

/// The cross-entropy of `row` (logits) at `target`, and whether the first largest logit is
/// the target; with `scale`, `row` becomes (softmax − e_target)·scale.
#[inline(always)]
fn cross_entropy(row: &mut [f32], target: usize, scale: Option<f32>) -> (f64, bool) {
    let max = super::kernels::max(row);
    let best = row.iter().position(|&z| z == max);
    let picked = row[target];
    for z in row.iter_mut() {
        *z = super::kernels::exp(*z - max);
    }
    let sum = super::kernels::sum(row);
    let loss = (sum.ln() + max - picked) as f64;
    if let Some(s) = scale {
        let k = s / sum;
        for z in row.iter_mut() {
            *z *= k;
        }
        row[target] -= s;
    }
    (loss, best == Some(target))
}
