//! **The backward pass** (docs/MATH.md §16), block by block in reverse from ∂LN_f(x) that
//! [`Fused::output`] leaves: the final layer norm, then per block the feed-forward layer
//! (∂b₂, ∂W₂ = GELUᵀ·∂x, ∂u = ∂x·W₂ᵀ ∘ GELU′, ∂b₁, ∂W₁ = LN₂ᵀ·∂u, the second layer norm) and
//! the attention (∂W_o = Oᵀ·∂x, ∂O = ∂x·W_oᵀ, the heads, RoPE's inverse rotation,
//! ∂W_{q,k,v} = LN₁ᵀ·∂{q,k,v}, the first layer norm), each residual adding its branch's
//! gradient to the stream's; last the token embedding (and a trainable table) by row.

use super::clock::Stage;
use super::kernels::{self, add_column_sums, LnBackward};
use super::matmul::{mm, View};
use super::{attention, Fused};
use crate::data::Batch;
use crate::Signal;

impl Fused {
    /// Accumulates every gradient of `batch` (after [`Fused::output`] with training).
    pub(super) fn backward(&mut self, batch: &Batch) {
        let (t, d) = (batch.len, self.shape.d);
        let (bt, wide) = (batch.size * t, batch.size * t * d);
        let last = self.shape.layers * self.slot.wide;
        let (s, w, a) = (self.layout.lnf, &self.w, &mut self.a);
        a.dx[..wide].fill(0.0);
        let grads = self.g[s..s + 2 * d].split_at_mut(d);
        let xs = &a.xs[last..last + wide];
        kernels::wide(LnBackward {
            dy: &a.dtmp[..wide],
            x: xs,
            stats: &a.statsf[..2 * bt],
            gamma: &w[s..s + d],
            dx: &mut a.dx[..wide],
            grads,
            xhat: &mut a.dyc,
            d,
        });
        self.clock.tick(Stage::Norms);
        for l in (0..self.shape.layers).rev() {
            self.block_backward(l, batch);
        }
        // ∂p_i, summed over the batch: into the table's gradient (a trainable `pos`), or into
        // `dtable` for `lowrank`, whose factors then get ∂A = ∂P·B and ∂B = ∂Pᵀ·A.
        let (n, r) = (self.shape.n, self.shape.rank);
        let table_grad = match (self.layout.pos, self.layout.factors) {
            (Some(pos), _) if self.signal.trainable() => Some(&mut self.g[pos..pos + n * d]),
            (None, Some(_)) => {
                self.a.dtable.fill(0.0);
                Some(&mut self.a.dtable[..])
            }
            _ => None,
        };
        let tok = self.layout.tok;
        if let Some(dp) = table_grad {
            for (k, row) in self.a.dx[..wide].chunks_exact(d).enumerate() {
                let at = (k % t) * d;
                dp[at..at + d].iter_mut().zip(row).for_each(|(g, x)| *g += x);
            }
        }
        for (k, row) in self.a.dx[..wide].chunks_exact(d).enumerate() {
            let at = tok + batch.input[k] as usize * d;
            self.g[at..at + d].iter_mut().zip(row).for_each(|(g, x)| *g += x);
        }
        if let Some((fa, fb)) = self.layout.factors {
            let (dp, w) = (&self.a.dtable, &self.w);
            mm(&mut self.g, View::rm(fa, n, r), dp, View::rm(0, n, d), w, View::rm(fb, d, r), true, 1.0);
            mm(&mut self.g, View::rm(fb, d, r), dp, View::rm(0, n, d).t(), w, View::rm(fa, n, r), true, 1.0);
        }
        self.clock.tick(Stage::Other);
    }

    /// Block `l`'s backward pass: `dx` holds ∂ of the stream leaving it, and then of the
    /// stream entering it.
    fn block_backward(&mut self, l: usize, batch: &Batch) {
        let (b, t, d, f) = (batch.size, batch.len, self.shape.d, 4 * self.shape.d);
        let (bt, at, w, g, a) = (b * t, self.layout.blocks[l], &self.w, &mut self.g, &mut self.a);
        let (sw, sf, ss, sp) = (l * self.slot.wide, l * self.slot.ffn, l * 2 * self.slot.rows, l * self.slot.probs);
        let (wide, ffn, n_wide) = (sw..sw + bt * d, sf..sf + bt * f, bt * d);
        let (rows, rows_f, dd) = (View::rm(0, bt, d), View::rm(0, bt, f), |off| View::rm(off, d, d));
        // The feed-forward branch.
        add_column_sums(&a.dx[..n_wide], &mut g[at.b2..at.b2 + d], d);
        mm(g, View::rm(at.w2, f, d), &a.gelu[ffn.clone()], rows_f.t(), &a.dx, rows, true, 1.0);
        mm(&mut a.du, rows_f, &a.dx, rows, w, View::rm(at.w2, f, d).t(), false, 1.0);
        self.clock.tick(Stage::Products);
        a.du[..bt * f].iter_mut().zip(&a.dgelu[ffn]).for_each(|(x, y)| *x *= y);
        self.clock.tick(Stage::Gelu);
        add_column_sums(&a.du[..bt * f], &mut g[at.b1..at.b1 + f], f);
        mm(g, View::rm(at.w1, d, f), &a.ln2[wide.clone()], rows.t(), &a.du, rows_f, true, 1.0);
        mm(&mut a.dtmp, rows, &a.du, rows_f, w, View::rm(at.w1, d, f).t(), false, 1.0);
        self.clock.tick(Stage::Products);
        let grads = g[at.ln2..at.ln2 + 2 * d].split_at_mut(d);
        let (x, st) = (&a.mid[wide.clone()], &a.stats2[ss..ss + 2 * bt]);
        kernels::wide(LnBackward {
            dy: &a.dtmp[..n_wide],
            x,
            stats: st,
            gamma: &w[at.ln2..at.ln2 + d],
            dx: &mut a.dx[..n_wide],
            grads,
            xhat: &mut a.dyc,
            d,
        });
        self.clock.tick(Stage::Norms);
        // The attention branch.
        mm(g, dd(at.wo), &a.o[wide.clone()], rows.t(), &a.dx, rows, true, 1.0);
        mm(&mut a.dout, rows, &a.dx, rows, w, dd(at.wo).t(), false, 1.0);
        self.clock.tick(Stage::Products);
        let heads = attention::Heads { batch: b, t, d, heads: self.shape.heads };
        let (q, k, v) = (&a.q[wide.clone()], &a.k[wide.clone()], &a.v[wide.clone()]);
        let grads = (&mut a.dq[..n_wide], &mut a.dk[..n_wide], &mut a.dv[..n_wide]);
        attention::backward(heads, q, k, v, &a.probs[sp..], &a.dout[..n_wide], &mut a.dp, grads);
        if self.signal == Signal::Rope {
            let dh = d / self.shape.heads;
            kernels::rope(&mut a.dq[..n_wide], t, d, dh, (&a.cos, &a.sin), true);
            kernels::rope(&mut a.dk[..n_wide], t, d, dh, (&a.cos, &a.sin), true);
        }
        self.clock.tick(Stage::Attention);
        let ln1 = &a.ln1[wide.clone()];
        mm(g, dd(at.wq), ln1, rows.t(), &a.dq, rows, true, 1.0);
        mm(g, dd(at.wk), ln1, rows.t(), &a.dk, rows, true, 1.0);
        mm(g, dd(at.wv), ln1, rows.t(), &a.dv, rows, true, 1.0);
        mm(&mut a.dtmp, rows, &a.dq, rows, w, dd(at.wq).t(), false, 1.0);
        mm(&mut a.dtmp, rows, &a.dk, rows, w, dd(at.wk).t(), true, 1.0);
        mm(&mut a.dtmp, rows, &a.dv, rows, w, dd(at.wv).t(), true, 1.0);
        self.clock.tick(Stage::Products);
        let grads = g[at.ln1..at.ln1 + 2 * d].split_at_mut(d);
        let (x, st) = (&a.xs[wide], &a.stats1[ss..ss + 2 * bt]);
        kernels::wide(LnBackward {
            dy: &a.dtmp[..n_wide],
            x,
            stats: st,
            gamma: &w[at.ln1..at.ln1 + d],
            dx: &mut a.dx[..n_wide],
            grads,
            xhat: &mut a.dyc,
            d,
        });
        self.clock.tick(Stage::Norms);
    }
}
