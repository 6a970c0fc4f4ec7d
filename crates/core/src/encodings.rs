//! Stage 5 — **the encodings compared** (`docs/MATH.md` §5). Each gives n position
//! vectors p_0 … p_{n−1}; their Euclidean distances δ_ij = ‖p_i − p_j‖₂ are what the stress
//! stage compares with the corpus metric D.
//!
//! | name | p_i | parameters |
//! | --- | --- | --- |
//! | `nope` | the same vector for every i (δ ≡ 0) | 0 |
//! | `sinusoidal` | P\[i,2k\] = sin(i·ω_k), P\[i,2k+1\] = cos(i·ω_k), ω_k = base^(−2k/d) | 0 (fixed) |
//! | `rope` | (cos iθ_k, sin iθ_k), k < h/2, θ_k = base^(−2k/h) | 0 (fixed) |
//! | `alibi` | m·i (one dimension; δ_ij = m·\|i−j\|) | 0 (fixed slope) |
//! | `random` | P\[i,k\] ~ N(0, σ²), ChaCha8 seeded | n·d |
//! | `pmds` | X_d of classical MDS, d capped at r_τ | n·d |
//! | `pmds_r` | X_r, r = r_E by default: the factorised low-rank form | r·(n+d) |
//! | `smacof` | metric MDS from X_d (Guttman transform) minimising raw stress | n·d |
//! | `learned` | rows 0..n−1 of a supplied matrix | n·d |
//!
//! "Parameters" counts the numbers a model would have to learn or store for the table:
//! fixed formulas cost none; a table costs n·d with d the model dimension; the low-rank
//! form costs r(n+d) (the paper's low-rank result).
//!
//! `smacof` is built by [`crate::smacof`] (its iteration and stopping rule are documented there).

use crate::error::{PosgeoError, Result};
use crate::mds::Spectrum;
use crate::metric::DistanceMatrix;
pub use crate::points::Points;
use rand::SeedableRng;
use rand_distr::{Distribution, Normal};
use serde::{Deserialize, Serialize};

/// Which encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum EncodingKind {
    /// No positional signal.
    Nope,
    /// Vaswani et al.'s sinusoids.
    Sinusoidal,
    /// Rotary embedding of one head.
    Rope,
    /// ALiBi's linear bias as a 1-D configuration.
    Alibi,
    /// A random Gaussian table (a learned table at initialisation).
    Random,
    /// Classical MDS of the corpus metric.
    Pmds,
    /// Low-rank classical MDS.
    PmdsR,
    /// Metric MDS (SMACOF) refinement.
    Smacof,
    /// A user-supplied table.
    Learned,
    /// A model layer's centroid or residual (docs/MATH.md §14; [`crate::analysis::layers`]).
    Layer,
}

impl EncodingKind {
    /// The built-in encodings, in report order.
    pub const BUILT_IN: [EncodingKind; 8] =
        [Self::Nope, Self::Sinusoidal, Self::Rope, Self::Alibi, Self::Random, Self::Pmds, Self::PmdsR, Self::Smacof];

    /// Whether this encoding's configuration is the same under parameters `a` and `b`: only
    /// the parameters it reads matter (the module table), so live updates rebuild only the
    /// encodings a change touches. A learned table is the caller's to compare.
    pub fn same_config(self, a: &EncodingParams, b: &EncodingParams) -> bool {
        match self {
            Self::Nope | Self::Learned | Self::Layer => true,
            Self::Sinusoidal => a.d == b.d && a.base == b.base,
            Self::Rope => a.head_dim == b.head_dim && a.base == b.base,
            Self::Alibi => a.slope == b.slope,
            Self::Random => a.d == b.d && a.sigma == b.sigma && a.seed == b.seed,
            Self::Pmds => a.d == b.d,
            Self::PmdsR => a.rank == b.rank && a.d == b.d,
            Self::Smacof => a.d == b.d && a.smacof_max_iter == b.smacof_max_iter,
        }
    }

    /// The report name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Nope => "nope",
            Self::Sinusoidal => "sinusoidal",
            Self::Rope => "rope",
            Self::Alibi => "alibi",
            Self::Random => "random",
            Self::Pmds => "pmds",
            Self::PmdsR => "pmds_r",
            Self::Smacof => "smacof",
            Self::Learned => "learned",
            Self::Layer => "layer",
        }
    }
}

/// Parameters of the encodings (docs/MATH.md §5's defaults via [`Default`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EncodingParams {
    /// Model dimension d (sinusoidal, random, pmds, smacof).
    pub d: usize,
    /// Frequency base (sinusoidal, rope).
    pub base: f64,
    /// RoPE head dimension h.
    pub head_dim: usize,
    /// ALiBi slope m.
    pub slope: f64,
    /// Standard deviation of `random`.
    pub sigma: f64,
    /// Seed of `random`.
    pub seed: u64,
    /// Rank of `pmds_r` (None → r_E).
    pub rank: Option<usize>,
    /// Iteration cap of `smacof` (500).
    pub smacof_max_iter: usize,
}

impl Default for EncodingParams {
    fn default() -> Self {
        EncodingParams {
            d: 768,
            base: 10000.0,
            head_dim: 64,
            slope: 0.5,
            sigma: 0.02,
            seed: 0,
            rank: None,
            smacof_max_iter: 500,
        }
    }
}

/// One encoding's configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Encoding {
    /// Which encoding.
    pub kind: EncodingKind,
    /// The positions.
    pub points: Points,
    /// Numbers to learn or store (see the module table).
    pub parameters: u64,
    /// SMACOF iterations run (0 for the others).
    pub iterations: usize,
    /// Why SMACOF stopped (`smacof` only).
    #[serde(default)]
    pub stop: Option<crate::smacof::SmacofStop>,
}

impl Encoding {
    /// δ_ij = ‖p_i − p_j‖₂ for every pair. Sinusoidal and RoPE tables of even width are
    /// shift-invariant — each (sin, cos) column pair contributes
    /// (sin iω − sin jω)² + (cos iω − cos jω)² = 2 − 2·cos((i − j)ω) — so their δ is read
    /// off n lags; every other configuration goes through [`Points::distances`].
    pub fn distances(&self) -> DistanceMatrix {
        let trig = matches!(self.kind, EncodingKind::Sinusoidal | EncodingKind::Rope);
        if trig && self.points.dim % 2 == 0 {
            self.points.distances_by_lag()
        } else {
            self.points.distances()
        }
    }
}

/// Interleaved trigonometric table: columns 2k and 2k+1 hold (f(i·ω_k), g(i·ω_k)) with
/// ω_k = base^(−2k/dim), (f, g) = (sin, cos) or (cos, sin).
fn trig_table(n: usize, dim: usize, base: f64, sin_first: bool) -> Points {
    // ω_k = base^(−2k/d), once per column pair (not once per entry).
    let omega: Vec<f64> = (0..dim.div_ceil(2)).map(|k| base.powf(-2.0 * k as f64 / dim as f64)).collect();
    Points::from_fn(n, dim, |i, c| {
        let a = i as f64 * omega[c / 2];
        if (c % 2 == 0) == sin_first {
            a.sin()
        } else {
            a.cos()
        }
    })
}

/// Sinusoidal table, n×d: P\[i,2k\] = sin(i·ω_k), P\[i,2k+1\] = cos(i·ω_k).
pub fn sinusoidal(n: usize, d: usize, base: f64) -> Points {
    trig_table(n, d, base, true)
}

/// RoPE configuration of one head: (cos iθ_k, sin iθ_k), k < h/2.
pub fn rope(n: usize, h: usize, base: f64) -> Points {
    trig_table(n, h, base, false)
}

/// ALiBi as p_i = m·i.
pub fn alibi(n: usize, m: f64) -> Points {
    Points::from_fn(n, 1, |i, _| m * i as f64)
}

/// Gaussian table N(0, σ²), ChaCha8Rng seeded with `seed` (reproducible on every platform).
pub fn random(n: usize, d: usize, sigma: f64, seed: u64) -> Result<Points> {
    let normal = Normal::new(0.0, sigma).map_err(|e| PosgeoError::option("sigma", e.to_string()))?;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    Ok(Points { n, dim: d, data: (0..n * d).map(|_| normal.sample(&mut rng)).collect() })
}

/// What the corpus-derived encodings (`pmds`, `pmds_r`, `smacof`) are built from.
#[derive(Debug, Clone, Copy)]
pub struct CorpusGeometry<'a> {
    /// The corpus metric D.
    pub distances: &'a DistanceMatrix,
    /// Classical MDS of D.
    pub spectrum: &'a Spectrum,
    /// Dimension of `pmds` and `smacof` (d capped at r_τ).
    pub pmds_dim: usize,
    /// Rank of `pmds_r`.
    pub rank: usize,
}

/// Builds a built-in encoding for n positions; `progress` follows SMACOF's iterations.
pub fn build(
    kind: EncodingKind,
    n: usize,
    params: &EncodingParams,
    geometry: CorpusGeometry,
    progress: &mut dyn FnMut(f64),
) -> Result<Encoding> {
    if let Some(built) = build_free(kind, n, params) {
        return built;
    }
    let CorpusGeometry { distances: target, spectrum, pmds_dim, rank } = geometry;
    let table = (n * params.d) as u64;
    let (points, parameters) = match kind {
        EncodingKind::Pmds => (spectrum.coordinates(pmds_dim), table),
        EncodingKind::PmdsR => (spectrum.coordinates(rank), (rank * (n + params.d)) as u64),
        EncodingKind::Smacof => {
            let start = spectrum.coordinates(pmds_dim);
            let fit =
                crate::smacof::smacof(&start, target, params.smacof_max_iter, crate::smacof::SMACOF_TOL, progress);
            let (iterations, stop) = (fit.iterations, Some(fit.stop));
            return Ok(Encoding { kind, points: fit.points, parameters: table, iterations, stop });
        }
        EncodingKind::Learned | EncodingKind::Layer => {
            return Err(PosgeoError::BadMatrix(format!("`{}` is built from a supplied matrix", kind.name())))
        }
        _ => return Err(PosgeoError::BadEncoding(format!("`{}` was not built", kind.name()))),
    };
    Ok(Encoding { kind, points, parameters, iterations: 0, stop: None })
}

/// A built-in encoding that does not read the corpus geometry (`nope`, `sinusoidal`, `rope`,
/// `alibi`, `random`: what a caller can build and measure while the spectrum is computed);
/// `None` for the others.
pub fn build_free(kind: EncodingKind, n: usize, params: &EncodingParams) -> Option<Result<Encoding>> {
    let table = (n * params.d) as u64;
    let (points, parameters) = match kind {
        EncodingKind::Nope => (Points { n, dim: 0, data: Vec::new() }, 0),
        EncodingKind::Sinusoidal => (sinusoidal(n, params.d, params.base), 0),
        EncodingKind::Rope => (rope(n, params.head_dim, params.base), 0),
        EncodingKind::Alibi => (alibi(n, params.slope), 0),
        EncodingKind::Random => match random(n, params.d, params.sigma, params.seed) {
            Ok(points) => (points, table),
            Err(e) => return Some(Err(e)),
        },
        _ => return None,
    };
    Some(Ok(Encoding { kind, points, parameters, iterations: 0, stop: None }))
}

/// The `learned` encoding: rows 0..n−1 of a supplied table (row-major `rows × cols`).
pub fn learned(n: usize, table: &[Vec<f64>]) -> Result<Encoding> {
    if table.len() < n {
        return Err(PosgeoError::BadMatrix(format!(
            "the table has {} rows but the corpus has n = {n} positions",
            table.len()
        )));
    }
    let dim = table[0].len();
    if dim == 0 || table[..n].iter().any(|r| r.len() != dim) {
        return Err(PosgeoError::BadMatrix("rows must all have the same, non-zero length".into()));
    }
    if table[..n].iter().flatten().any(|v| !v.is_finite()) {
        return Err(PosgeoError::BadMatrix("the table holds a NaN or infinite value".into()));
    }
    let points = Points::from_rows(&table[..n]);
    Ok(Encoding { kind: EncodingKind::Learned, points, parameters: (n * dim) as u64, iterations: 0, stop: None })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sinusoidal_rows_have_norm_sqrt_half_d() {
        let p = sinusoidal(10, 16, 10000.0);
        for i in 0..10 {
            let norm2: f64 = p.row(i).iter().map(|v| v * v).sum();
            assert!((norm2 - 8.0).abs() < 1e-12);
        }
        assert_eq!(p.row(0)[0], 0.0);
        assert_eq!(p.row(0)[1], 1.0);
    }

    #[test]
    fn gram_distances_match_direct_ones() {
        let p = random(20, 7, 1.0, 3).unwrap();
        let d = p.distances();
        for i in 0..20 {
            for j in 0..20 {
                let direct: f64 = p.row(i).iter().zip(p.row(j)).map(|(a, b)| (a - b).powi(2)).sum::<f64>().sqrt();
                assert!((d.get(i, j) - direct).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn trig_tables_read_by_lag_match_every_pair() {
        // Even widths take the lag shortcut; an odd width (not shift-invariant) must not.
        for (kind, dim) in [(EncodingKind::Sinusoidal, 16), (EncodingKind::Rope, 8), (EncodingKind::Sinusoidal, 7)] {
            let points = trig_table(40, dim, 10000.0, kind == EncodingKind::Sinusoidal);
            let e = Encoding { kind, points, parameters: 0, iterations: 0, stop: None };
            let d = e.distances();
            for i in 0..40 {
                for j in 0..40 {
                    let direct = e.points.direct(i, j);
                    assert!((d.get(i, j) - direct).abs() < 1e-12, "{kind:?} d={dim} ({i},{j})");
                }
            }
        }
    }

    #[test]
    fn trig_tables_are_their_formula_entry_by_entry() {
        // P[i,2k] = sin(i·ω_k), P[i,2k+1] = cos(i·ω_k) with ω_k = base^(−2k/d), bit for bit.
        for (dim, sin_first) in [(16, true), (7, true), (8, false), (1, false)] {
            let p = trig_table(33, dim, 500.0, sin_first);
            for i in 0..33 {
                for c in 0..dim {
                    let a = i as f64 * 500f64.powf(-2.0 * (c / 2) as f64 / dim as f64);
                    let want = if (c % 2 == 0) == sin_first { a.sin() } else { a.cos() };
                    assert_eq!(p.row(i)[c].to_bits(), want.to_bits(), "d = {dim}, ({i}, {c})");
                }
            }
        }
    }

    #[test]
    fn random_is_seeded() {
        assert_eq!(random(3, 4, 0.02, 7).unwrap(), random(3, 4, 0.02, 7).unwrap());
        assert_ne!(random(3, 4, 0.02, 7).unwrap(), random(3, 4, 0.02, 8).unwrap());
    }
}
