//! The payload the page draws, built from an analysis: the report, Shepard samples, the PMDS
//! coordinates, block means for the geometry chart (the samples and blocks of each encoding
//! are its [`posgeo::measures::sketch::Sketch`]), the first sequences and the Procrustes overlay.

use super::{Heat, Payload};
use posgeo::analysis::Analysis;
use posgeo::measures::sketch;

/// What the page draws, from an analysis.
pub(super) fn payload_of(analysis: &Analysis) -> Payload {
    let n = analysis.counts.n;
    let shepard = analysis.compared.iter().map(|c| (c.name.clone(), c.sketch.shepard.clone())).collect();
    let coordinates = analysis
        .compared
        .iter()
        .find(|c| c.encoding.kind == posgeo::encodings::EncodingKind::Pmds)
        .map(|c| c.encoding.points.clone())
        .unwrap_or_default();
    let side = sketch::side(n);
    let heat = Heat {
        side,
        corpus: sketch::block_means(&analysis.distances, side, 1.0),
        encodings: analysis.compared.iter().map(|c| (c.name.clone(), c.sketch.blocks.clone())).collect(),
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
