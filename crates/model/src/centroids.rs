//! docs/MATH.md §14's **positional centroids** of a model's layers, from sums that one pass over the
//! batches accumulates (and that add across batches, so helpers can share the pass):
//!
//! * K_i — the sequences counted at position i (condition: those longer than i; pad: all S);
//!   n_L — the largest m ≤ n, not past the cut, with K_i ≥ min_support for every i < m;
//! * `layer:ℓ` — c^ℓ_i = (1/K_i) Σ_s h^ℓ_{s,i}, i < n_L;
//! * `layer-residual:ℓ` — r^ℓ_i = c^ℓ_i − Σ_w (k_i(w)/K_i) m^ℓ(w), with k_i(w) the count of
//!   id w at position i and m^ℓ(w) the mean of h^ℓ over every occurrence of w at positions
//!   < n_L (pad positions included in mode `pad`). Σ_w k_i(w) m^ℓ(w) is the sum of m^ℓ(w_{s,i})
//!   over the occurrences at i, so per-position and per-token sums are all the pass keeps.
//!
//! Sums are f64; the hidden states are f32.

use posgeo::counts::Mode;
use posgeo::points::Points;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// The sequences the model reads, as counted, and what the pass measures over.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// Token ids, each sequence cut at `cut`.
    pub sequences: Vec<Vec<u32>>,
    /// min(max_len, max_position_embeddings).
    pub cut: usize,
    /// K_i for i < n_L.
    pub support: Vec<usize>,
    /// n_L.
    pub positions: usize,
    /// Counting mode.
    pub mode: Mode,
    /// The padding id of mode `pad`.
    pub pad_id: u32,
}

impl Plan {
    /// The plan for `sequences` (already the first S with tokens, as counted) against a corpus
    /// of n positions.
    pub fn new(sequences: Vec<Vec<u32>>, cut: usize, n: usize, min_support: usize, mode: Mode, pad_id: u32) -> Plan {
        let sequences: Vec<Vec<u32>> = sequences
            .into_iter()
            .map(|mut s| {
                s.truncate(cut);
                s
            })
            .collect();
        let limit = n.min(cut);
        let k = |i: usize| match mode {
            Mode::Pad => sequences.len(),
            Mode::Condition => sequences.iter().filter(|s| s.len() > i).count(),
        };
        let mut support = Vec::new();
        while support.len() < limit {
            let ki = k(support.len());
            if ki < min_support.max(1) {
                break;
            }
            support.push(ki);
        }
        let positions = support.len();
        Plan { sequences, cut, support, positions, mode, pad_id }
    }

    /// The length every sequence of a batch is run at: its own (condition, padded under the
    /// mask to the batch's longest), or in mode `pad` at least n_L (positions past n_L are
    /// padding no real token attends to, so they are left out without changing a number).
    pub fn run_length(&self, seq: &[u32]) -> usize {
        match self.mode {
            Mode::Condition => seq.len(),
            Mode::Pad => seq.len().max(self.positions),
        }
    }

    /// The id at position i of sequence `seq` as counted (`None` where it is not counted).
    fn counted(&self, seq: &[u32], i: usize) -> Option<u32> {
        match (seq.get(i), self.mode) {
            (Some(&id), _) => Some(id),
            (None, Mode::Pad) => Some(self.pad_id),
            (None, Mode::Condition) => None,
        }
    }
}

/// The sums of one or more batches (they add: [`LayerSums::merge`]).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct LayerSums {
    /// L + 1.
    pub layers: usize,
    /// H.
    pub hidden: usize,
    /// n_L.
    pub positions: usize,
    /// Σ_s h^ℓ_{s,i}: layer-major, then position, then the H components.
    pub by_position: Vec<f64>,
    /// Σ_s ‖h^ℓ_{s,i}‖²: layer-major, then position (the positional share's total).
    #[serde(default)]
    pub sq_by_position: Vec<f64>,
    /// Token id → (occurrences at positions < n_L, Σ h^ℓ over them, layer-major then H).
    pub by_token: FxHashMap<u32, (u64, Vec<f64>)>,
}

impl LayerSums {
    /// Empty sums for L + 1 layers of width H over n_L positions.
    pub fn new(layers: usize, hidden: usize, positions: usize) -> LayerSums {
        LayerSums {
            layers,
            hidden,
            positions,
            by_position: vec![0.0; layers * positions * hidden],
            sq_by_position: vec![0.0; layers * positions],
            by_token: FxHashMap::default(),
        }
    }

    /// Adds one sequence's hidden states: `states[ℓ]` holds its rows (at least n_L of them in
    /// mode `pad`, its own length otherwise), each H wide, starting at `offset` floats.
    pub fn add(&mut self, plan: &Plan, seq: &[u32], states: &[Vec<f32>], offset: usize) {
        let (h, p, width) = (self.hidden, self.positions, self.layers * self.hidden);
        for i in 0..p {
            let Some(id) = plan.counted(seq, i) else { break };
            let entry = self.by_token.entry(id).or_insert_with(|| (0, vec![0.0; width]));
            entry.0 += 1;
            for (l, layer) in states.iter().enumerate() {
                let row = &layer[offset + i * h..offset + (i + 1) * h];
                let pos = &mut self.by_position[(l * p + i) * h..(l * p + i + 1) * h];
                let tok = &mut entry.1[l * h..(l + 1) * h];
                let mut sq = 0.0;
                for ((a, b), &v) in pos.iter_mut().zip(tok.iter_mut()).zip(row) {
                    let v = f64::from(v);
                    *a += v;
                    *b += v;
                    sq += v * v;
                }
                self.sq_by_position[l * p + i] += sq;
            }
        }
    }

    /// Adds another share's sums.
    pub fn merge(&mut self, other: LayerSums) {
        for (a, b) in self.by_position.iter_mut().zip(&other.by_position) {
            *a += b;
        }
        for (a, b) in self.sq_by_position.iter_mut().zip(&other.sq_by_position) {
            *a += b;
        }
        for (id, (count, sums)) in other.by_token {
            let e = self.by_token.entry(id).or_insert_with(|| (0, vec![0.0; sums.len()]));
            e.0 += count;
            for (a, b) in e.1.iter_mut().zip(&sums) {
                *a += b;
            }
        }
    }

    /// The centroids and residuals of every layer (module docs), each n_L × H.
    pub fn finish(&self, plan: &Plan) -> (Vec<Points>, Vec<Points>) {
        let (h, p) = (self.hidden, self.positions);
        let means: FxHashMap<u32, Vec<f64>> = self
            .by_token
            .iter()
            .map(|(&id, (count, sums))| (id, sums.iter().map(|v| v / *count as f64).collect()))
            .collect();
        // Σ_w k_i(w) m^ℓ(w), from the occurrences at each position.
        let mut content = vec![0.0; self.layers * p * h];
        for seq in &plan.sequences {
            for i in 0..p {
                let Some(m) = plan.counted(seq, i).and_then(|id| means.get(&id)) else { break };
                for l in 0..self.layers {
                    let dst = &mut content[(l * p + i) * h..(l * p + i + 1) * h];
                    for (a, b) in dst.iter_mut().zip(&m[l * h..(l + 1) * h]) {
                        *a += b;
                    }
                }
            }
        }
        let mut centroids = Vec::with_capacity(self.layers);
        let mut residuals = Vec::with_capacity(self.layers);
        for l in 0..self.layers {
            let at = |v: &[f64], i: usize, k: usize| v[(l * p + i) * h + k] / plan.support[i] as f64;
            centroids.push(Points::from_fn(p, h, |i, k| at(&self.by_position, i, k)));
            residuals.push(Points::from_fn(p, h, |i, k| at(&self.by_position, i, k) - at(&content, i, k)));
        }
        (centroids, residuals)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hidden states that are a function of (token, position) only: h = e_w + q_i.
    fn states(seq: &[u32], len: usize, h: usize) -> Vec<Vec<f32>> {
        let row = |i: usize| -> Vec<f32> {
            let w = seq.get(i).copied().unwrap_or(0) as f32;
            (0..h).map(|k| w * (k as f32 + 1.0) + (i * i) as f32 * 0.5).collect()
        };
        vec![(0..len).flat_map(row).collect()]
    }

    #[test]
    fn support_and_positions_follow_the_mode() {
        let seqs = vec![vec![1, 2, 3], vec![1, 2], vec![4]];
        let c = Plan::new(seqs.clone(), 8, 10, 2, Mode::Condition, 0);
        assert_eq!((c.support.clone(), c.positions), (vec![3, 2], 2));
        let p = Plan::new(seqs.clone(), 2, 10, 2, Mode::Pad, 0);
        assert_eq!((p.support.clone(), p.positions), (vec![3, 3], 2), "the cut caps n_L");
        let q = Plan::new(seqs, 8, 1, 1, Mode::Pad, 0);
        assert_eq!(q.positions, 1, "n caps n_L");
    }

    #[test]
    fn a_purely_additive_model_leaves_only_the_position_in_the_residual() {
        // h = e_w + q_i: the centroid is q_i plus the mean of e_w at i; the residual removes
        // that mean up to the token means' own position content, which is the same for every
        // position when each token occurs at one position only.
        let seqs = vec![vec![1, 2, 3], vec![4, 5, 6], vec![7, 8, 9]];
        let plan = Plan::new(seqs.clone(), 8, 3, 1, Mode::Condition, 0);
        let mut sums = LayerSums::new(1, 2, plan.positions);
        for s in &seqs {
            sums.add(&plan, s, &states(s, s.len(), 2), 0);
        }
        let (c, r) = sums.finish(&plan);
        // Token w occurs only at one position: m(w) = h itself, so every residual is 0.
        assert!(r[0].data.iter().all(|v| v.abs() < 1e-12), "{:?}", r[0].data);
        // Centroid at 0, component 0: mean of e_1, e_4, e_7 = 4.
        assert!((c[0].data[0] - 4.0).abs() < 1e-12);
    }

    #[test]
    fn sums_of_shares_equal_the_sums_of_all() {
        let seqs = vec![vec![1, 2, 3], vec![2, 1], vec![3, 3, 3, 1]];
        let plan = Plan::new(seqs.clone(), 8, 4, 1, Mode::Pad, 0);
        let mut all = LayerSums::new(1, 3, plan.positions);
        let mut a = all.clone();
        let mut b = all.clone();
        for (k, s) in seqs.iter().enumerate() {
            let st = states(s, plan.run_length(s), 3);
            all.add(&plan, s, &st, 0);
            if k == 0 { &mut a } else { &mut b }.add(&plan, s, &st, 0);
        }
        a.merge(b);
        let (ca, ra) = a.finish(&plan);
        let (cb, rb) = all.finish(&plan);
        for (x, y) in ca.iter().chain(&ra).zip(cb.iter().chain(&rb)) {
            for (u, v) in x.data.iter().zip(&y.data) {
                assert!((u - v).abs() < 1e-12);
            }
        }
        // In pad mode, the padding id 0 is a token too: it occurs past each short sequence.
        assert_eq!(all.by_token.get(&0).map(|e| e.0), Some(3));
    }
}
