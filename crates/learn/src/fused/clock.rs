//! **Where a training step's time goes**, stage by stage (docs/PERFORMANCE.md, "Learning"),
//! when the caller hands the trainer a clock (natively `Instant`, in the browser
//! `performance.now()`): the dense products (q, k, v, o and the feed-forward layer, forward and
//! backward), the attention (scores, softmax, P·v, RoPE and their backward), the layer norms,
//! GELU, the output layer with its loss, AdamW, and the rest (embedding, copies). Each stage's
//! floating-point work follows from the model's sizes ([`stage_flops`]), so each one's share of
//! the machine's peak can be read.

use crate::net::Shape;

/// A stage of the step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// q, k, v, o and W₁, W₂: forward, input and weight gradients.
    Products,
    /// Scores, bias, softmax, P·v, RoPE, and their backward.
    Attention,
    /// The layer norms, forward and backward.
    Norms,
    /// GELU and its derivative.
    Gelu,
    /// Logits at the chosen positions, the cross-entropy and their gradients.
    Output,
    /// The optimiser.
    AdamW,
    /// The embedding, its gradient, and copies.
    Other,
}

/// Every stage with its name, in report order.
pub const STAGES: [(Stage, &str); 7] = [
    (Stage::Products, "products"),
    (Stage::Attention, "attention"),
    (Stage::Norms, "layer norms"),
    (Stage::Gelu, "GELU"),
    (Stage::Output, "output layer"),
    (Stage::AdamW, "AdamW"),
    (Stage::Other, "other"),
];

/// Seconds per stage, accumulated while a clock is set.
#[derive(Debug, Clone, Copy, Default)]
pub struct Clock {
    now: Option<fn() -> f64>,
    last: f64,
    /// Seconds spent in each stage, in [`STAGES`]' order.
    pub seconds: [f64; 7],
}

impl Clock {
    /// Starts timing with `now` (seconds from any origin).
    pub fn set(&mut self, now: fn() -> f64) {
        self.now = Some(now);
        self.last = now();
    }

    /// Marks the start of a step's work (time since the last tick is not counted).
    #[inline]
    pub fn start(&mut self) {
        if let Some(now) = self.now {
            self.last = now();
        }
    }

    /// Charges the time since the last tick to `stage`.
    #[inline]
    pub fn tick(&mut self, stage: Stage) {
        if let Some(now) = self.now {
            let t = now();
            self.seconds[stage as usize] += t - self.last;
            self.last = t;
        }
    }
}

/// Floating-point operations (a multiply-add is two) of one training step per stage, in
/// [`STAGES`]' order, for B sequences of T positions with C chosen: per layer the products
/// 24·B·T·d² forward and twice that backward, the attention 4·B·T²·d and twice that; the output
/// layer 2·C·|V|·d and twice that. The other stages are counted as memory-bound (0).
pub fn stage_flops(shape: Shape, b: usize, t: usize, chosen: usize) -> [f64; 7] {
    let (b, t, d, l) = (b as f64, t as f64, shape.d as f64, shape.layers as f64);
    let (v, c) = (shape.vocab as f64, chosen as f64);
    [3.0 * l * 24.0 * b * t * d * d, 3.0 * l * 4.0 * b * t * t * d, 0.0, 0.0, 6.0 * c * v * d, 0.0, 0.0]
}
