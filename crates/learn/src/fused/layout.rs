//! **Where each parameter lives** in the fused trainer's one flat buffer (weights, gradients
//! and both AdamW moments share it), in the dump's order, and the buffer sizes from which the
//! trainer's memory follows (docs/MATH.md §16, "Memory").

use super::super::init::Init;
use super::super::net::Shape;
use super::super::Signal;
use posgeo::error::{PosgeoError, Result};

/// One block's parameter offsets.
#[derive(Debug, Clone, Copy)]
pub struct BlockAt {
    /// The first layer norm's weight (its bias follows).
    pub ln1: usize,
    pub wq: usize,
    pub wk: usize,
    pub wv: usize,
    pub wo: usize,
    /// The second layer norm's weight (its bias follows).
    pub ln2: usize,
    pub w1: usize,
    pub b1: usize,
    pub w2: usize,
    pub b2: usize,
}

/// One named tensor of the flat buffer.
#[derive(Debug, Clone)]
pub struct Segment {
    /// Its name in the dump.
    pub name: String,
    /// Its dimensions.
    pub dims: Vec<usize>,
    /// Its first element.
    pub off: usize,
    /// Its length.
    pub len: usize,
    /// Updated by AdamW.
    pub trainable: bool,
}

/// Every parameter's place.
#[derive(Debug, Clone)]
pub struct Layout {
    pub tok: usize,
    pub pos: Option<usize>,
    /// `lowrank`'s A (n×r) and B (d×r).
    pub factors: Option<(usize, usize)>,
    pub blocks: Vec<BlockAt>,
    /// The final layer norm's weight (its bias follows).
    pub lnf: usize,
    pub out_b: usize,
    /// Every tensor, in order.
    pub segments: Vec<Segment>,
    /// The number of parameters.
    pub len: usize,
}

impl Layout {
    /// The layout of `init`'s tensors (in their order) for a model of `shape`.
    pub fn new(shape: Shape, init: &[Init]) -> Result<Layout> {
        let mut segments = Vec::with_capacity(init.len());
        let mut off = 0;
        for i in init {
            let len = i.dims.iter().product::<usize>();
            if len != i.data.len() {
                return Err(PosgeoError::Learn(format!("{} has {} values for {:?}", i.name, i.data.len(), i.dims)));
            }
            segments.push(Segment { name: i.name.clone(), dims: i.dims.clone(), off, len, trainable: i.trainable });
            off += len;
        }
        let at = |name: &str| -> Result<usize> {
            segments
                .iter()
                .find(|s| s.name == name)
                .map(|s| s.off)
                .ok_or_else(|| PosgeoError::Learn(format!("no parameter {name}")))
        };
        // A layer norm's weight and bias sit side by side (their gradients are split there).
        let norm = |w: &str, b: &str| -> Result<usize> {
            let (w, b) = (at(w)?, at(b)?);
            if b == w + shape.d {
                Ok(w)
            } else {
                Err(PosgeoError::Learn(format!("the layer norm at {w} is not followed by its bias")))
            }
        };
        let blocks = (0..shape.layers)
            .map(|l| {
                let b = |s: &str| at(&format!("blocks.{l}.{s}"));
                Ok(BlockAt {
                    ln1: norm(&format!("blocks.{l}.ln1.weight"), &format!("blocks.{l}.ln1.bias"))?,
                    wq: b("wq")?,
                    wk: b("wk")?,
                    wv: b("wv")?,
                    wo: b("wo")?,
                    ln2: norm(&format!("blocks.{l}.ln2.weight"), &format!("blocks.{l}.ln2.bias"))?,
                    w1: b("w1")?,
                    b1: b("b1")?,
                    w2: b("w2")?,
                    b2: b("b2")?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Layout {
            tok: at("tok_emb")?,
            pos: at("pos").ok(),
            factors: at("pos_a").ok().zip(at("pos_b").ok()),
            blocks,
            lnf: norm("ln_f.weight", "ln_f.bias")?,
            out_b: at("out_bias")?,
            segments,
            len: off,
        })
    }
}

/// Rows of the output layer handled at once (its logits buffer is this many rows of |V|).
pub const CHUNK: usize = 256;

/// The sizes of every buffer of a trainer for batches of up to `batch` sequences of `n`
/// positions, in f32 values (u64, so that a size too large for wasm32's address space is
/// measured before anything is allocated).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sizes {
    /// B·n: the rows of every activation.
    pub rows: u64,
    /// One layer's B·n·d.
    pub wide: u64,
    /// One layer's B·n·4d.
    pub ffn: u64,
    /// One layer's B·H·n²: the attention probabilities.
    pub probs: u64,
}

impl Sizes {
    /// The sizes for `shape` and batches of `batch`.
    pub fn new(shape: Shape, batch: usize) -> Sizes {
        let [b, n, d, h] = [batch, shape.n, shape.d, shape.heads].map(|x| x as u64);
        let rows = b.saturating_mul(n);
        Sizes {
            rows,
            wide: rows.saturating_mul(d),
            ffn: rows.saturating_mul(4 * d),
            probs: b.saturating_mul(h).saturating_mul(n.saturating_mul(n)),
        }
    }

    /// Every activation and scratch value: per layer the stream, after attention, both
    /// layer-norm outputs, q, k, v, the heads' output (8·B·n·d), GELU and GELU′ (2·B·n·4d),
    /// the probabilities and 4 statistics a row; the final stream, its norm and statistics;
    /// six B·n·d and one B·n·4d gradient buffers, one n×n (at least 2n), the output layer's chunk (CHUNK·|V|
    /// logits, 2·CHUNK·d rows), the rotation tables (n·d_h), ALiBi's (H·n), and a position
    /// table and its gradient (2·n·d; `lowrank`'s A·Bᵀ).
    pub fn activations(&self, shape: Shape) -> u64 {
        let [l, n, d, h, v] = [shape.layers, shape.n, shape.d, shape.heads, shape.vocab].map(|x| x as u64);
        let per_layer =
            [8 * self.wide, 2 * self.ffn, self.probs, 4 * self.rows].iter().fold(0u64, |a, &x| a.saturating_add(x));
        let last = (2 * self.wide).saturating_add(2 * self.rows);
        let scratch = (6 * self.wide).saturating_add(self.ffn).saturating_add((n * n).max(2 * n));
        let output = CHUNK as u64 * (v + 2 * d);
        // RoPE's and ALiBi's tables, and a position table with its gradient (`lowrank`).
        let tables = n * (d / h.max(1)) + h * n + 2 * n * d;
        l.saturating_mul(per_layer).saturating_add(last).saturating_add(scratch).saturating_add(output + tables)
    }
}

/// The number of parameters of a model of `shape` for `signal`: a table adds n·d, `lowrank`'s
/// factors r(n + d).
pub fn parameter_count(shape: Shape, signal: Signal) -> u64 {
    let [v, n, d, l, r] = [shape.vocab, shape.n, shape.d, shape.layers, shape.rank].map(|x| x as u64);
    let block = 12 * d * d + 9 * d;
    let table = match signal {
        Signal::LowRank => r * (n + d),
        s if s.additive() => n * d,
        _ => 0,
    };
    v * d + table + l * block + 2 * d + v
}

/// The fused trainer's memory in bytes: 4 bytes for each of 4 values per parameter (weight,
/// gradient, two moments) and each activation and scratch value, plus the chosen rows'
/// indices (one machine word a row).
pub fn memory_bytes(shape: Shape, batch: usize, signal: Signal) -> u64 {
    let sizes = Sizes::new(shape, batch);
    let floats = (4 * parameter_count(shape, signal)).saturating_add(sizes.activations(shape));
    floats.saturating_mul(4).saturating_add(sizes.rows.saturating_mul(std::mem::size_of::<usize>() as u64))
}

/// Fails, before anything is allocated, when a trainer's buffers would exceed the memory
/// budget ([`posgeo::limits::budget`]), naming the options that shrink them.
pub fn check_memory(shape: Shape, batch: usize, signal: Signal) -> Result<()> {
    let (need, budget) = (memory_bytes(shape, batch, signal), posgeo::limits::budget());
    if need <= budget {
        return Ok(());
    }
    Err(PosgeoError::TooLarge(format!(
        "training needs {} for its buffers (batch {batch} × {} positions; the attention alone takes batch × {} heads × \
         positions² values a layer), more than the {} available here: lower `batch`, or `max_len` (the positions)",
        posgeo::limits::human(need),
        shape.n,
        shape.heads,
        posgeo::limits::human(budget),
    )))
}
