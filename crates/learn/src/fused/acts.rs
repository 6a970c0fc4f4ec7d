//! **The trainer's activations and scratch**, allocated once for batches of up to B sequences
//! of n positions ([`Sizes`]; their total is [`super::layout::memory_bytes`]): what the forward
//! pass keeps for the backward pass, and what the backward pass and the output layer work in.

use super::attention;
use super::kernels;
use super::layout::{Sizes, CHUNK};
use crate::net::Shape;

/// Every activation and scratch buffer (sizes in [`Sizes::activations`]).
#[derive(Default)]
pub(super) struct Acts {
    /// The stream entering each block, and leaving the last: (L + 1) slots of B·n·d.
    pub(super) xs: Vec<f32>,
    /// The stream after each block's attention.
    pub(super) mid: Vec<f32>,
    pub(super) ln1: Vec<f32>,
    pub(super) ln2: Vec<f32>,
    /// (μ, r) of each row of each layer norm.
    pub(super) stats1: Vec<f32>,
    pub(super) stats2: Vec<f32>,
    pub(super) q: Vec<f32>,
    pub(super) k: Vec<f32>,
    pub(super) v: Vec<f32>,
    /// The heads' outputs, side by side.
    pub(super) o: Vec<f32>,
    pub(super) probs: Vec<f32>,
    /// GELU(u) and GELU′(u) of the feed-forward layer.
    pub(super) gelu: Vec<f32>,
    pub(super) dgelu: Vec<f32>,
    pub(super) lnf: Vec<f32>,
    pub(super) statsf: Vec<f32>,
    pub(super) dx: Vec<f32>,
    pub(super) dtmp: Vec<f32>,
    pub(super) dq: Vec<f32>,
    pub(super) dk: Vec<f32>,
    pub(super) dv: Vec<f32>,
    pub(super) dout: Vec<f32>,
    pub(super) du: Vec<f32>,
    pub(super) dp: Vec<f32>,
    pub(super) logits: Vec<f32>,
    pub(super) yc: Vec<f32>,
    pub(super) dyc: Vec<f32>,
    pub(super) rows: Vec<usize>,
    pub(super) cos: Vec<f32>,
    pub(super) sin: Vec<f32>,
    pub(super) alibi: Vec<f32>,
    /// `lowrank`'s table A·Bᵀ (n×d) for this step, and its gradient.
    pub(super) table: Vec<f32>,
    pub(super) dtable: Vec<f32>,
}

impl Acts {
    /// The buffers of `s` (checked against the budget first: each size fits a usize).
    pub(super) fn new(shape: Shape, s: Sizes) -> Acts {
        let (l, d, dh) = (shape.layers, shape.d, shape.d / shape.heads);
        let z = |len: u64| vec![0.0f32; len as usize];
        let (l, d) = (l as u64, d as u64);
        let (cos, sin) = kernels::rope_tables(shape.n, dh);
        Acts {
            xs: z((l + 1) * s.wide),
            mid: z(l * s.wide),
            ln1: z(l * s.wide),
            ln2: z(l * s.wide),
            stats1: z(l * 2 * s.rows),
            stats2: z(l * 2 * s.rows),
            q: z(l * s.wide),
            k: z(l * s.wide),
            v: z(l * s.wide),
            o: z(l * s.wide),
            probs: z(l * s.probs),
            gelu: z(l * s.ffn),
            dgelu: z(l * s.ffn),
            lnf: z(s.wide),
            statsf: z(2 * s.rows),
            dx: z(s.wide),
            dtmp: z(s.wide),
            dq: z(s.wide),
            dk: z(s.wide),
            dv: z(s.wide),
            dout: z(s.wide),
            du: z(s.ffn),
            dp: z((shape.n * shape.n).max(2 * shape.n) as u64),
            logits: z((CHUNK * shape.vocab) as u64),
            yc: z(CHUNK as u64 * d),
            dyc: z(CHUNK as u64 * d),
            rows: Vec::with_capacity(s.rows as usize),
            cos,
            sin,
            alibi: attention::alibi_table(shape.heads, shape.n),
            table: z((shape.n * shape.d) as u64),
            dtable: z((shape.n * shape.d) as u64),
        }
    }
}
