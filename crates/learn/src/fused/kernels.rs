//! **The fused element-wise stages** of the trainer (docs/MATH.md §16), each one pass over
//! its rows with no allocation:
//! - layer norm y = (x − μ)·r·γ + β, r = 1/√(σ² + 10⁻⁵) (biased variance), keeping μ and r
//!   for the backward pass x̄ = (x − μ)·r, g = ∂y·γ:
//!   ∂x = r·(g − mean(g) − x̄·mean(g·x̄)), ∂γ += ∂y·x̄, ∂β += ∂y;
//! - GELU(u) = u·Φ(u) with Φ(u) = ½(1 + erf(u/√2)), keeping GELU′(u) = Φ(u) + u·φ(u) so that the
//!   backward pass is one product; erf by Abramowitz and Stegun 7.1.26 (|error| < 1.5·10⁻⁷),
//!   whose e^(−u²/2) is φ's too;
//! - RoPE's rotation of the pairs (x₂ₖ, x₂ₖ₊₁) of each head by i·θ_k, and its transpose;
//! - AdamW as PyTorch (and candle-nn) define it, term by term in the same f32 order;
//! - e^x without a library call ([`exp`]), so that the loops over it vectorise.

/// Runs `op` compiled for the widest vector extension the CPU has (pulp's run-time dispatch:
/// AVX2 and FMA on x86-64 when present; in wasm simd128 is on for the whole build), so the
/// element-wise loops inlined into its `with_simd` run eight lanes wide. Each kernel is an
/// `#[inline(always)]` function behind a small [`pulp::WithSimd`] struct (a closure would not
/// be inlined into the dispatched function, and would run four lanes wide). No number changes:
/// nothing is fused or reordered (Rust never contracts a·b + c into an FMA by itself).
#[inline(always)]
pub fn wide<Op: pulp::WithSimd>(op: Op) -> Op::Output {
    pulp::Arch::new().dispatch(op)
}

/// Declares a [`pulp::WithSimd`] struct `$op` whose fields are the arguments of the
/// `#[inline(always)]` kernel `$kernel`, called with them in order.
macro_rules! simd_op {
    ($op:ident<$a:lifetime> { $($field:ident : $ty:ty),* $(,)? } => $kernel:path) => {
        pub(super) struct $op<$a> {
            $(pub(super) $field: $ty),*
        }
        impl pulp::WithSimd for $op<'_> {
            type Output = ();
            #[inline(always)]
            fn with_simd<S: pulp::Simd>(self, _: S) {
                $kernel($(self.$field),*)
            }
        }
    };
}
pub(super) use simd_op;

simd_op!(LnForward<'a> { x: &'a [f32], y: &'a mut [f32], stats: &'a mut [f32], gamma: &'a [f32], beta: &'a [f32], d: usize } => ln_forward);
simd_op!(LnBackward<'a> { dy: &'a [f32], x: &'a [f32], stats: &'a [f32], gamma: &'a [f32], dx: &'a mut [f32], grads: (&'a mut [f32], &'a mut [f32]), xhat: &'a mut [f32], d: usize } => ln_backward);
simd_op!(Gelu<'a> { u: &'a mut [f32], du: &'a mut [f32], bias: &'a [f32] } => gelu_forward);
simd_op!(AdamUpdate<'a> { adam: &'a Adam, w: &'a mut [f32], g: &'a [f32], m: &'a mut [f32], v: &'a mut [f32] } => Adam::update_all);

const LOG2E: f32 = std::f32::consts::LOG2_E;
const LN2_HI: f32 = 0.693_359_4;
const LN2_LO: f32 = -2.121_944_4e-4;

/// e^x in f32 for x ≤ 88 (the trainer takes it of x ≤ 0 only; larger x give e^88), relative
/// error about 2·10⁻⁷, 0 below −87.3 where e^x underflows anyway: x =
/// n·ln 2 + r with n rounded to nearest (the 1.5·2²³ trick, no libm call), ln 2 split in two
/// (Cody and Waite) so r is exact to f32, e^r by its Taylor polynomial to r⁶ on |r| ≤ ln 2/2,
/// and 2ⁿ written into the exponent bits. The cap at 88 is a comparison, not `f32::min`,
/// whose NaN rule wasm's SIMD lacks (there it ran a lane at a time); NaN gives NaN.
#[inline(always)]
pub fn exp(x: f32) -> f32 {
    const ROUND: f32 = 12_582_912.0;
    if x < -87.3 {
        return 0.0;
    }
    let x = if x > 88.0 { 88.0 } else { x };
    let y = x * LOG2E + ROUND;
    let n = y - ROUND;
    let r = (x - n * LN2_HI) - n * LN2_LO;
    let p = 1.0 + r * (1.0 + r * (0.5 + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0))))));
    // n sits in y's low mantissa bits: 2ⁿ's exponent by integer arithmetic, which vectorises
    // (a float-to-int cast saturates, and compiles to one scalar conversion per lane).
    p * f32::from_bits(y.to_bits().wrapping_sub(ROUND.to_bits()).wrapping_add(127) << 23)
}

/// Σ of `x` over eight running sums (so the loop vectorises), added pairwise at the end.
#[inline(always)]
pub fn sum(x: &[f32]) -> f32 {
    let mut acc = [0.0f32; 8];
    let chunks = x.chunks_exact(8);
    let tail = chunks.remainder().iter().sum::<f32>();
    for c in chunks {
        for k in 0..8 {
            acc[k] += c[k];
        }
    }
    ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7])) + tail
}

/// Σ a_i·b_i over eight running sums.
#[inline(always)]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail = ca.remainder().iter().zip(cb.remainder()).map(|(x, y)| x * y).sum::<f32>();
    for (x, y) in ca.zip(cb) {
        for k in 0..8 {
            acc[k] += x[k] * y[k];
        }
    }
    ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7])) + tail
}

/// The largest value of `x` (−∞ for none; NaN never wins, as in `f32::max`).
#[inline(always)]
pub fn max(x: &[f32]) -> f32 {
    let mut acc = [f32::NEG_INFINITY; 8];
    let chunks = x.chunks_exact(8);
    let tail = chunks.remainder().iter().copied().fold(f32::NEG_INFINITY, f32::max);
    for c in chunks {
        for k in 0..8 {
            acc[k] = if c[k] > acc[k] { c[k] } else { acc[k] };
        }
    }
    acc.iter().copied().fold(tail, f32::max)
}

/// The layer norm's ε.
pub const LN_EPS: f32 = 1e-5;

/// Layer norm of each `d`-row of `x` into `y`; `stats` gets (μ, r) per row.
#[inline(always)]
pub fn ln_forward(x: &[f32], y: &mut [f32], stats: &mut [f32], gamma: &[f32], beta: &[f32], d: usize) {
    for ((xr, yr), st) in x.chunks_exact(d).zip(y.chunks_exact_mut(d)).zip(stats.chunks_exact_mut(2)) {
        let mean = sum(xr) / d as f32;
        for (y, x) in yr.iter_mut().zip(xr) {
            *y = x - mean;
        }
        let r = 1.0 / (dot(yr, yr) / d as f32 + LN_EPS).sqrt();
        for ((y, g), b) in yr.iter_mut().zip(gamma).zip(beta) {
            *y = *y * r * g + b;
        }
        st[0] = mean;
        st[1] = r;
    }
}

/// The layer norm's backward pass: `dx += ∂x` for the rows of `dy`; ∂γ and ∂β accumulate into
/// `dgamma` and `dbeta`. `xhat` is scratch for two rows (2d).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn ln_backward(
    dy: &[f32],
    x: &[f32],
    stats: &[f32],
    gamma: &[f32],
    dx: &mut [f32],
    (dgamma, dbeta): (&mut [f32], &mut [f32]),
    xhat: &mut [f32],
    d: usize,
) {
    let (xhat, g) = xhat[..2 * d].split_at_mut(d);
    let rows = dy.chunks_exact(d).zip(x.chunks_exact(d)).zip(stats.chunks_exact(2)).zip(dx.chunks_exact_mut(d));
    for (((dyr, xr), st), dxr) in rows {
        let (mean, r) = (st[0], st[1]);
        for k in 0..d {
            xhat[k] = (xr[k] - mean) * r;
            g[k] = dyr[k] * gamma[k];
            dgamma[k] += dyr[k] * xhat[k];
            dbeta[k] += dyr[k];
        }
        let (mg, mgx) = (sum(g) / d as f32, dot(g, xhat) / d as f32);
        for k in 0..d {
            dxr[k] += r * (g[k] - mg - xhat[k] * mgx);
        }
    }
}

const A1: f32 = 0.254_829_6;
const A2: f32 = -0.284_496_74;
const A3: f32 = 1.421_413_8;
const A4: f32 = -1.453_152;
const A5: f32 = 1.061_405_4;
const P: f32 = 0.327_591_1;
const INV_SQRT_2PI: f32 = 0.398_942_3;

/// GELU in place over `u` + `bias` (added to each row of `u`, rows as long as `bias`), with
/// GELU′ into `du`.
#[inline(always)]
pub fn gelu_forward(u: &mut [f32], du: &mut [f32], bias: &[f32]) {
    for (ur, dr) in u.chunks_exact_mut(bias.len()).zip(du.chunks_exact_mut(bias.len())) {
        for ((x, dx), b) in ur.iter_mut().zip(dr.iter_mut()).zip(bias) {
            let v = *b + *x;
            let z = v.abs() * std::f32::consts::FRAC_1_SQRT_2;
            let t = 1.0 / (1.0 + P * z);
            let e = exp(-0.5 * v * v);
            let tail = t * (A1 + t * (A2 + t * (A3 + t * (A4 + t * A5)))) * e;
            let erf = (1.0 - tail).copysign(v);
            let phi_cdf = 0.5 * (1.0 + erf);
            *x = v * phi_cdf;
            *dx = phi_cdf + v * e * INV_SQRT_2PI;
        }
    }
}

/// cos and sin of i·θ_k, θ_k = 10000^(−2k/d_h), for i < n and k < d_h/2 (row-major).
pub fn rope_tables(n: usize, dh: usize) -> (Vec<f32>, Vec<f32>) {
    let half = dh / 2;
    let (mut cos, mut sin) = (Vec::with_capacity(n * half), Vec::with_capacity(n * half));
    for i in 0..n {
        for k in 0..half {
            let angle = i as f64 * 10000f64.powf(-2.0 * k as f64 / dh as f64);
            cos.push(angle.cos() as f32);
            sin.push(angle.sin() as f32);
        }
    }
    (cos, sin)
}

/// Rotates every head of every `d`-row of `x` (rows of `t` positions each) by its position's
/// angles; `inverse` applies the transpose (the backward pass).
pub fn rope(x: &mut [f32], t: usize, d: usize, dh: usize, (cos, sin): (&[f32], &[f32]), inverse: bool) {
    let half = dh / 2;
    let sign = if inverse { -1.0 } else { 1.0 };
    for (r, row) in x.chunks_exact_mut(d).enumerate() {
        let i = r % t;
        let (c, s) = (&cos[i * half..(i + 1) * half], &sin[i * half..(i + 1) * half]);
        for head in row.chunks_exact_mut(dh) {
            for (k, pair) in head.chunks_exact_mut(2).enumerate() {
                let (x0, x1, sk) = (pair[0], pair[1], sign * s[k]);
                pair[0] = x0 * c[k] - x1 * sk;
                pair[1] = x0 * sk + x1 * c[k];
            }
        }
    }
}

/// Adds each column's sum of the `cols`-rows of `x` to `out`.
pub fn add_column_sums(x: &[f32], out: &mut [f32], cols: usize) {
    for row in x.chunks_exact(cols) {
        for (o, v) in out.iter_mut().zip(row) {
            *o += v;
        }
    }
}

/// One AdamW step's constants (step `t` ≥ 1, learning rate `lr`, decoupled decay `decay`).
#[derive(Debug, Clone, Copy)]
pub struct Adam {
    beta1: f32,
    one_minus_beta1: f32,
    beta2: f32,
    one_minus_beta2: f32,
    scale_m: f32,
    scale_v: f32,
    eps: f32,
    lr: f32,
    keep: f32,
}

impl Adam {
    /// The constants of step `t` (β = 0.9, 0.999, ε = 10⁻⁸), computed in f64 as candle-nn does.
    pub fn new(t: usize, lr: f64, decay: f64) -> Adam {
        let (b1, b2) = (0.9f64, 0.999f64);
        Adam {
            beta1: b1 as f32,
            one_minus_beta1: (1.0 - b1) as f32,
            beta2: b2 as f32,
            one_minus_beta2: (1.0 - b2) as f32,
            scale_m: (1.0 / (1.0 - b1.powi(t as i32))) as f32,
            scale_v: (1.0 / (1.0 - b2.powi(t as i32))) as f32,
            eps: 1e-8,
            lr: lr as f32,
            keep: (1.0 - lr * decay) as f32,
        }
    }

    /// Updates the parameters `w` from their gradients `g` and moments `m`, `v`.
    pub fn update(&self, w: &mut [f32], g: &[f32], m: &mut [f32], v: &mut [f32]) {
        wide(AdamUpdate { adam: self, w, g, m, v });
    }

    #[inline(always)]
    fn update_all(&self, w: &mut [f32], g: &[f32], m: &mut [f32], v: &mut [f32]) {
        for (((w, &g), m), v) in w.iter_mut().zip(g).zip(m.iter_mut()).zip(v.iter_mut()) {
            *m = *m * self.beta1 + g * self.one_minus_beta1;
            *v = *v * self.beta2 + g * g * self.one_minus_beta2;
            let m_hat = *m * self.scale_m;
            let v_hat = *v * self.scale_v;
            *w = *w * self.keep - m_hat / (v_hat.sqrt() + self.eps) * self.lr;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// erf(x) by its series, in f64.
    fn erf(x: f64) -> f64 {
        let (mut term, mut sum) = (x, x);
        for k in 1..80 {
            term *= -x * x / k as f64;
            sum += term / (2 * k + 1) as f64;
        }
        sum * 2.0 / std::f64::consts::PI.sqrt()
    }

    #[test]
    fn exp_is_accurate_to_a_few_ulps_and_underflows_to_zero() {
        for k in -8700..=8800 {
            let x = k as f32 * 0.01;
            let (got, want) = (exp(x) as f64, (x as f64).exp());
            assert!((got - want).abs() <= 4e-7 * want, "e^{x}: {got} vs {want}");
        }
        assert_eq!(exp(-1e9), 0.0);
        assert_eq!(exp(f32::NEG_INFINITY), 0.0);
    }

    #[test]
    fn gelu_and_its_derivative_match_erf() {
        // 11 rows of 11: u + bias covers −6..6 in steps of 0.1 (the bias is added to each row).
        let bias: Vec<f32> = (0..11).map(|j| j as f32 * 0.3 - 1.5).collect();
        let xs: Vec<f32> = (-60..=60).map(|i| i as f32 * 0.1).collect();
        let mut u: Vec<f32> = xs.iter().enumerate().map(|(k, x)| x - bias[k % 11]).collect();
        let mut du = vec![0.0; xs.len()];
        gelu_forward(&mut u, &mut du, &bias);
        let gelu = |x: f64| 0.5 * x * (1.0 + erf(x / 2f64.sqrt()));
        for (k, &x) in xs.iter().enumerate() {
            let x = x as f64;
            assert!((u[k] as f64 - gelu(x)).abs() < 1e-6, "GELU({x})");
            // GELU′ = Φ + x·φ.
            let slope =
                0.5 * (1.0 + erf(x / 2f64.sqrt())) + x * (-0.5 * x * x).exp() / (2.0 * std::f64::consts::PI).sqrt();
            assert!((du[k] as f64 - slope).abs() < 1e-6, "GELU'({x})");
        }
    }

    #[test]
    fn the_inverse_rotation_undoes_the_rotation_and_keeps_norms() {
        let (t, d, dh) = (5, 8, 4);
        let tables = rope_tables(t, dh);
        let x: Vec<f32> = (0..2 * t * d).map(|i| (i as f32 * 0.7).sin()).collect();
        let mut y = x.clone();
        rope(&mut y, t, d, dh, (&tables.0, &tables.1), false);
        let norm = |v: &[f32]| v.iter().map(|a| a * a).sum::<f32>();
        assert!((norm(&x) - norm(&y)).abs() < 1e-4);
        assert!(x.iter().zip(&y).any(|(a, b)| (a - b).abs() > 1e-3), "it rotates");
        rope(&mut y, t, d, dh, (&tables.0, &tables.1), true);
        assert!(x.iter().zip(&y).all(|(a, b)| (a - b).abs() < 1e-5));
    }

    /// The layer norm's backward pass against central differences of Σ c·LN(x).
    #[test]
    fn the_layer_norms_gradient_matches_finite_differences() {
        let d = 6;
        let x: Vec<f64> = (0..d).map(|i| (i as f64 * 1.3).sin() * 2.0).collect();
        let gamma: Vec<f32> = (0..d).map(|i| 1.0 + 0.1 * i as f32).collect();
        let beta = vec![0.3f32; d];
        let c: Vec<f32> = (0..d).map(|i| (i as f32 * 0.9).cos()).collect();
        let f = |x: &[f64]| -> f64 {
            let xf: Vec<f32> = x.iter().map(|&v| v as f32).collect();
            let (mut y, mut st) = (vec![0.0; d], vec![0.0; 2]);
            ln_forward(&xf, &mut y, &mut st, &gamma, &beta, d);
            y.iter().zip(&c).map(|(a, b)| (a * b) as f64).sum()
        };
        let xf: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let (mut y, mut st) = (vec![0.0; d], vec![0.0; 2]);
        ln_forward(&xf, &mut y, &mut st, &gamma, &beta, d);
        let (mut dx, mut dg, mut db, mut scratch) = (vec![0.0; d], vec![0.0; d], vec![0.0; d], vec![0.0; 2 * d]);
        ln_backward(&c, &xf, &st, &gamma, &mut dx, (&mut dg, &mut db), &mut scratch, d);
        for k in 0..d {
            let (mut up, mut down) = (x.clone(), x.clone());
            up[k] += 1e-3;
            down[k] -= 1e-3;
            let want = (f(&up) - f(&down)) / 2e-3;
            assert!((dx[k] as f64 - want).abs() < 2e-3, "∂x[{k}]: {} vs {want}", dx[k]);
        }
        assert_eq!(db, c);
    }
}
