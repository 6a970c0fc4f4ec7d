//! **Encodings given from outside** (the Python package's `extra_encodings`: a table held in
//! memory, or the positional centroids of hidden states another framework computed, docs/MATH.md §14).
//! Each is an n′×k configuration measured exactly as every other encoding (docs/MATH.md §6–§7:
//! δ, σ, σ*, a*, Spearman ρ, monotonicity, Procrustes): against D and the PMDS coordinates
//! restricted to its first min(n′, n) positions, as the layer rows are (rows past n are
//! dropped, as a learned table's are).

use super::{Analysis, Compared};
use crate::encodings::{Encoding, EncodingKind};
use crate::error::{PosgeoError, Result};
use crate::points::Points;

/// Measures each `(name, configuration)` and appends it to the analysis's encodings under
/// `name` (which must be new). Refused: fewer than 2 rows, a non-finite value, a taken name.
pub fn add_extra(analysis: &mut Analysis, extra: Vec<(String, Points)>) -> Result<()> {
    let n = analysis.distances.n();
    for (name, points) in extra {
        if name.is_empty() || analysis.compared.iter().any(|c| c.name == name) {
            return Err(PosgeoError::BadEncoding(format!(
                "{name:?}: the report already has a row of that name (or it is empty)"
            )));
        }
        if points.n < 2 || points.dim == 0 {
            return Err(PosgeoError::BadEncoding(format!(
                "{name:?}: {}×{} holds fewer than 2 positions",
                points.n, points.dim
            )));
        }
        if let Some(bad) = points.rows().flatten().position(|v| !v.is_finite()) {
            let (i, k) = (bad / points.dim, bad % points.dim);
            return Err(PosgeoError::BadEncoding(format!("{name:?}: row {i}, column {k} is not finite")));
        }
        let m = points.n.min(n);
        let points = if points.n > m { Points::from_fn(m, points.dim, |i, k| points.row(i)[k]) } else { points };
        let (d, x) = super::layers::restricted(analysis, m);
        let parameters = (m * points.dim) as u64;
        let encoding = Encoding { kind: EncodingKind::Learned, points, parameters, iterations: 0, stop: None };
        let mut measured = super::measure_encodings(&d, &x, n, std::slice::from_ref(&encoding))?;
        let Some((sketch, stress, procrustes)) = measured.pop() else { continue };
        analysis.compared.push(Compared { name, encoding, sketch, stress, procrustes });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::demos::synth::{generate, SynthParams};
    use crate::{analyze, AnalysisParams, Corpus};

    #[test]
    fn an_extra_copy_of_a_row_measures_the_same() {
        let seqs = generate(&SynthParams { sequences: 200, positions: 16, ..Default::default() }).unwrap();
        let mut p = AnalysisParams::default();
        p.encodings.d = 8;
        let mut a = analyze(&Corpus::from_sequences(seqs), &p, &[], &mut |_| true).unwrap();
        let sin = a.compared.iter().find(|c| c.name == "sinusoidal").map(|c| c.encoding.points.clone());
        let sin = sin.expect("a sinusoidal row");
        add_extra(&mut a, vec![("mine".into(), sin)]).expect("measured");
        let row = |name: &str| a.compared.iter().find(|c| c.name == name).map(|c| c.stress.clone()).unwrap();
        let (mine, sin) = (row("mine"), row("sinusoidal"));
        // The same configuration (its δ computed from the points, not from lags): the same numbers.
        for (x, y) in
            [(mine.raw_stress, sin.raw_stress), (mine.scale, sin.scale), (mine.scaled_stress, sin.scaled_stress)]
        {
            assert!((x - y).abs() <= 1e-12 * y.abs().max(1.0), "{x} vs {y}");
        }
        assert_eq!(mine.spearman, sin.spearman);
        // A taken name and a NaN are refused.
        let p = Points::from_fn(4, 2, |i, k| (i + k) as f64);
        assert!(add_extra(&mut a, vec![("mine".into(), p.clone())]).is_err());
        let nan = Points::from_fn(4, 2, |i, _| if i == 2 { f64::NAN } else { 1.0 });
        let e = add_extra(&mut a, vec![("nan".into(), nan)]).unwrap_err().to_string();
        assert!(e.contains("row 2, column 0 is not finite"), "{e}");
        // Fewer rows than n: measured over those positions.
        add_extra(&mut a, vec![("short".into(), p)]).expect("measured");
        assert!(a.compared.iter().any(|c| c.name == "short" && c.encoding.points.n == 4));
    }
}
