//! What the charts keep of an encoding's distances δ once it is measured: a sample of
//! Shepard pairs (D_ij, a*·δ_ij) and the block means of a*·δ on the corpus's grid.
//!
//! An analysis does not keep δ itself (an n×n matrix per encoding: 134 MB each at
//! n = 4096). Each encoding's δ is computed once, read by the stress measures (docs/MATH.md §6–§7)
//! and summarised here, then dropped; [`crate::encodings::Encoding::distances`] computes it
//! again from the configuration when a caller needs it whole.
//!
//! * Shepard: every `step`-th pair i < j (row order) of the positions the encoding covers,
//!   with step = ⌈(n(n−1)/2) / [`SHEPARD_SAMPLES`]⌉ for the corpus's n positions.
//! * Blocks: a `side` × `side` grid, side = min(n, [`HEAT_BLOCKS`]); block b covers positions
//!   ⌊b·n/side⌋ .. ⌊(b+1)·n/side⌋. A model's layer rows cover only the first n_L ≤ n
//!   positions: blocks past them are NaN (drawn blank) and blocks across the edge average
//!   what they cover. In JSON a blank block is `null` ([`blanks_as_null`]): JSON has no NaN.

use crate::metric::DistanceMatrix;
use serde::{Deserialize, Serialize};

/// Pairs sampled for each Shepard diagram.
pub const SHEPARD_SAMPLES: usize = 4000;

/// Blocks per side of the geometry chart.
pub const HEAT_BLOCKS: usize = 48;

/// An encoding's δ as the charts draw it (see the module docs).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Sketch {
    /// Up to [`SHEPARD_SAMPLES`] pairs (D_ij, a*·δ_ij).
    pub shepard: Vec<(f32, f32)>,
    /// a*·δ's block means, row-major `side` × `side` (NaN: a blank block).
    #[serde(with = "blanks_as_null")]
    pub blocks: Vec<f32>,
}

/// Block means with blank (NaN) blocks, (de)serialised with each blank as `null`: serde_json
/// writes a NaN as `null` but cannot read `null` back as a number, so a message holding one
/// would not be read at all. `#[serde(with = "blanks_as_null")]` on a `Vec<f32>`.
pub mod blanks_as_null {
    use serde::{Deserialize, Deserializer, Serializer};

    /// Each NaN as `None` (`null`).
    pub fn serialize<S: Serializer>(v: &[f32], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(v.iter().map(|x| (!x.is_nan()).then_some(*x)))
    }

    /// Each `null` as NaN.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f32>, D::Error> {
        Vec::deserialize(d).map(blanks)
    }

    /// The values read, each `None` (a `null`) as NaN.
    fn blanks(v: Vec<Option<f32>>) -> Vec<f32> {
        v.into_iter().map(|x| x.unwrap_or(f32::NAN)).collect()
    }

    /// [`super::blanks_as_null`] for each value of a map (`#[serde(with = "blanks_as_null::map")]`).
    pub mod map {
        use serde::{Deserialize, Deserializer, Serialize, Serializer};
        use std::collections::BTreeMap;

        /// One map value, serialised as [`super::serialize`] does.
        struct Blocks<'a>(&'a [f32]);

        impl Serialize for Blocks<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                super::serialize(self.0, s)
            }
        }

        /// Each value's NaNs as `null`.
        pub fn serialize<S: Serializer>(m: &BTreeMap<String, Vec<f32>>, s: S) -> Result<S::Ok, S::Error> {
            s.collect_map(m.iter().map(|(k, v)| (k, Blocks(v))))
        }

        /// Each value's `null`s as NaN.
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<String, Vec<f32>>, D::Error> {
            let m: BTreeMap<String, Vec<Option<f32>>> = BTreeMap::deserialize(d)?;
            Ok(m.into_iter().map(|(k, v)| (k, super::blanks(v))).collect())
        }
    }
}

impl PartialEq for Sketch {
    /// Bit for bit (the blank blocks are NaN, equal to themselves here).
    fn eq(&self, other: &Self) -> bool {
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        self.shepard == other.shepard && bits(&self.blocks) == bits(&other.blocks)
    }
}

/// Blocks per side for n positions.
pub fn side(n: usize) -> usize {
    n.min(HEAT_BLOCKS)
}

/// The Shepard sampling step for n positions.
pub fn shepard_step(n: usize) -> usize {
    (n * n.saturating_sub(1) / 2).div_ceil(SHEPARD_SAMPLES).max(1)
}

impl Sketch {
    /// The sketch of `delta` (m×m, m ≤ n) scaled by `scale`, against the target's values
    /// `d_upper` over the same pairs i < j < m (row order), on the grid of the corpus's n
    /// positions.
    pub fn of(delta: &DistanceMatrix, d_upper: &[f64], n: usize, scale: f64) -> Sketch {
        let m = delta.n();
        let pairs = (0..m).flat_map(|i| (i + 1..m).map(move |j| (i, j)));
        let shepard = pairs
            .zip(d_upper)
            .step_by(shepard_step(n))
            .map(|((i, j), &t)| (t as f32, (scale * delta.get(i, j)) as f32))
            .collect();
        Sketch { shepard, blocks: block_means_within(delta, n, side(n), scale) }
    }
}

/// Block means of `scale`·m on a `side` × `side` grid of its own n positions.
pub fn block_means(m: &DistanceMatrix, side: usize, scale: f64) -> Vec<f32> {
    block_means_within(m, m.n(), side, scale)
}

/// Block means of `scale`·m (m×m) on the `side` × `side` grid of n ≥ m positions.
fn block_means_within(delta: &DistanceMatrix, n: usize, side: usize, scale: f64) -> Vec<f32> {
    let m = delta.n();
    let edge = |b: usize| (b * n / side.max(1)).min(m);
    let mut out = Vec::with_capacity(side * side);
    for bi in 0..side {
        for bj in 0..side {
            let (rows, cols) = (edge(bi)..edge(bi + 1), edge(bj)..edge(bj + 1));
            if rows.is_empty() || cols.is_empty() {
                out.push(f32::NAN);
                continue;
            }
            let count = (rows.len() * cols.len()) as f64;
            let sum: f64 = rows.map(|i| delta.row(i)[cols.clone()].iter().sum::<f64>()).sum();
            out.push((scale * sum / count) as f32);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_average_their_cells_and_blank_what_is_not_covered() {
        let n = 10;
        let d = DistanceMatrix::from_fn(n, |i, j| (j - i) as f64);
        // Full coverage: 5 blocks of 2 positions; block (0, 1) holds |i − j| for i ∈ {0,1}, j ∈ {2,3}.
        let b = block_means(&d, 5, 2.0);
        assert_eq!(b.len(), 25);
        assert_eq!(b[1], 2.0 * (2.0 + 3.0 + 1.0 + 2.0) / 4.0);
        assert_eq!(b[0], 2.0 * (0.0 + 1.0 + 1.0 + 0.0) / 4.0);
        // An encoding over the first 5 positions of 10 (side 10: a block per position): the
        // blocks past position 5 are blank.
        let short = DistanceMatrix::from_fn(5, |i, j| (j - i) as f64);
        let s = Sketch::of(&short, &short.upper(), n, 1.0);
        assert_eq!(s.blocks.len(), 100);
        assert_eq!((s.blocks[3 * 10 + 1], s.blocks[4 * 10 + 4]), (2.0, 0.0));
        assert!(s.blocks[5 * 10 + 5].is_nan() && s.blocks[2 * 10 + 7].is_nan());
        // Its Shepard pairs are its own 10 pairs (step 1 for 45 pairs of 10 positions).
        assert_eq!(s.shepard.len(), 10);
        assert_eq!(s, s.clone());
        // In JSON the blank blocks are null, and read back as NaN: the same sketch.
        let json = serde_json::to_string(&s).unwrap();
        assert!(json.contains("null"), "{json}");
        assert_eq!(serde_json::from_str::<Sketch>(&json).unwrap(), s);
    }

    #[test]
    fn shepard_samples_every_step_th_pair() {
        let n = 200; // 19,900 pairs: step 5
        let d = DistanceMatrix::from_fn(n, |i, j| (i + j) as f64);
        let delta = DistanceMatrix::from_fn(n, |i, j| (j - i) as f64);
        let s = Sketch::of(&delta, &d.upper(), n, 0.5);
        assert_eq!(shepard_step(n), 5);
        assert_eq!(s.shepard.len(), 19_900usize.div_ceil(5));
        // Pair 5 in row order is (0, 6).
        assert_eq!(s.shepard[1], (6.0, 3.0));
    }
}
