//! The payload the page draws, built from an analysis: the report, Shepard samples, the PMDS
//! coordinates, block means for the geometry chart, the first sequences and the Procrustes
//! overlay.

use super::{Heat, Payload, HEAT_BLOCKS, SHEPARD_SAMPLES};
use crate::analysis::Analysis;

/// Block means of `scale`·m on a `side` × `side` grid; block b covers rows and columns
/// b·n/side .. (b+1)·n/side.
pub fn block_means(m: &crate::metric::DistanceMatrix, side: usize, scale: f64) -> Vec<f32> {
    let n = m.n();
    let edge = |b: usize| b * n / side.max(1);
    let mut out = Vec::with_capacity(side * side);
    for bi in 0..side {
        for bj in 0..side {
            let (rows, cols) = (edge(bi)..edge(bi + 1), edge(bj)..edge(bj + 1));
            let count = (rows.len() * cols.len()).max(1) as f64;
            let sum: f64 = rows.map(|i| m.row(i)[cols.clone()].iter().sum::<f64>()).sum();
            out.push((scale * sum / count) as f32);
        }
    }
    out
}

/// Block means of an encoding's `scale`·δ on the corpus's `side` × `side` grid of n positions:
/// a model's layer rows cover only the first n_L ≤ n positions, so blocks past them are NaN
/// (drawn blank) and blocks across the edge average what they cover.
fn block_means_of(delta: &crate::metric::DistanceMatrix, n: usize, side: usize, scale: f64) -> Vec<f32> {
    if delta.n() == n {
        return block_means(delta, side, scale);
    }
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

/// Up to [`SHEPARD_SAMPLES`] pairs (D_ij, a*·δ_ij) of an encoding: every `step`-th pair i < j
/// of the n positions that it covers (a model's layer rows cover the first n_L).
fn shepard_of(c: &crate::analysis::Compared, d: &crate::metric::DistanceMatrix, step: usize) -> Vec<(f32, f32)> {
    let (n, m, a) = (d.n(), c.delta.n(), c.stress.scale);
    if m == n {
        let (target, delta) = (d.upper(), c.delta.upper());
        return (0..target.len()).step_by(step).map(|k| (target[k] as f32, (a * delta[k]) as f32)).collect();
    }
    let pairs = (0..m).flat_map(|i| (i + 1..m).map(move |j| (i, j)));
    pairs.step_by(step).map(|(i, j)| (d.get(i, j) as f32, (a * c.delta.get(i, j)) as f32)).collect()
}

/// What the page draws, from an analysis.
pub(super) fn payload_of(analysis: &Analysis) -> Payload {
    let n = analysis.counts.n;
    let pairs = n * (n - 1) / 2;
    let step = pairs.div_ceil(SHEPARD_SAMPLES).max(1);
    let shepard =
        analysis.compared.iter().map(|c| (c.name.clone(), shepard_of(c, &analysis.distances, step))).collect();
    let coordinates = analysis
        .compared
        .iter()
        .find(|c| c.encoding.kind == crate::encodings::EncodingKind::Pmds)
        .map(|c| c.encoding.points.clone())
        .unwrap_or_default();
    let side = n.min(HEAT_BLOCKS);
    let heat = Heat {
        side,
        corpus: block_means(&analysis.distances, side, 1.0),
        encodings: analysis
            .compared
            .iter()
            .map(|c| (c.name.clone(), block_means_of(&c.delta, n, side, c.stress.scale)))
            .collect(),
    };
    let overlay = analysis
        .compared
        .iter()
        .map(|c| {
            let a = &c.procrustes.aligned;
            let at = |i: usize, k: usize| if k < a.dim { a.row(i)[k] as f32 } else { 0.0 };
            (c.name.clone(), (0..a.n).map(|i| (at(i, 0), at(i, 1))).collect())
        })
        .collect();
    Payload { report: analysis.report(true), shepard, coordinates, heat, examples: analysis.examples.clone(), overlay }
}
