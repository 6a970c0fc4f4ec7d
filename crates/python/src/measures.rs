//! docs/MATH.md §6–§7 and §14 on arrays computed anywhere:
//!
//! * [`stress`] — the measures of a configuration (n×k points, or an n×n distance matrix δ)
//!   against a corpus metric D: σ, σ*, a*, Spearman ρ, monotonicity and the Procrustes
//!   residual (onto the given PMDS coordinates, else the first min(r_τ, 16) of D's own classical
//!   MDS — what the pipeline aligns onto at its defaults);
//! * [`positional_centroids`] — docs/MATH.md §14's `layer:ℓ` and `layer-residual:ℓ` of hidden states
//!   (L+1 arrays S×T×H), with the sequences given by `input_ids` and a right-padded
//!   `attention_mask` (mode `condition`: each sequence's own tokens; `pad`: every position with
//!   its id).

use super::errors::{input, to_py};
use super::report::points_array;
use numpy::{PyArray2, PyReadonlyArray2, PyReadonlyArray3, PyUntypedArrayMethods};
use posgeo::counts::Mode;
use posgeo::mds::Spectrum;
use posgeo::metric::DistanceMatrix;
use posgeo::points::Points;
use posgeo_model::centroids::{LayerSums, Plan};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// An array's values, refused when one is not finite.
fn finite(what: &str, a: &PyReadonlyArray2<'_, f64>) -> PyResult<Vec<f64>> {
    let a = a.as_array();
    let cols = a.ncols();
    let mut out = Vec::with_capacity(a.len());
    for (k, v) in a.iter().enumerate() {
        if !v.is_finite() {
            return Err(input(format!(
                "{what}: row {}, column {} is not finite ({v})",
                k / cols.max(1),
                k % cols.max(1)
            )));
        }
        out.push(*v);
    }
    Ok(out)
}

/// D from an array: square, symmetric, zero diagonal, non-negative.
fn metric(d: &PyReadonlyArray2<'_, f64>) -> PyResult<DistanceMatrix> {
    let [n, m] = [d.shape()[0], d.shape()[1]];
    if n != m || n < 2 {
        return Err(input(format!("D: a square distance matrix of at least 2×2 expected, got {n}×{m}")));
    }
    let dm = DistanceMatrix::from_row_major(n, finite("D", d)?);
    check_distances("D", &dm)?;
    Ok(dm)
}

fn check_distances(what: &str, d: &DistanceMatrix) -> PyResult<()> {
    let n = d.n();
    let scale = d.max().max(1.0);
    for i in 0..n {
        for j in 0..n {
            let (a, b) = (d.get(i, j), d.get(j, i));
            if (i == j && a != 0.0) || a < 0.0 || (a - b).abs() > 1e-9 * scale {
                return Err(input(format!(
                    "{what}: not a distance matrix at ({i}, {j}): {a} (symmetric, ≥ 0, zero diagonal)"
                )));
            }
        }
    }
    Ok(())
}

/// Whether a square array reads as distances rather than points.
fn looks_like_distances(v: &[f64], n: usize) -> bool {
    (0..n).all(|i| v[i * n + i] == 0.0)
        && (0..n).all(|i| (0..n).all(|j| v[i * n + j] >= 0.0 && v[i * n + j] == v[j * n + i]))
}

/// σ, σ*, a*, ρ, monotonicity and Procrustes of `config` against `d` (module docs);
/// `is_distances` None decides from the array (square, symmetric, ≥ 0, zero diagonal).
#[pyfunction]
#[pyo3(signature = (config, d, pmds=None, is_distances=None))]
pub fn stress<'py>(
    py: Python<'py>,
    config: PyReadonlyArray2<'py, f64>,
    d: PyReadonlyArray2<'py, f64>,
    pmds: Option<PyReadonlyArray2<'py, f64>>,
    is_distances: Option<bool>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = metric(&d)?;
    let n = d.n();
    let [rows, cols] = [config.shape()[0], config.shape()[1]];
    let values = finite("config", &config)?;
    let square = rows == cols;
    let as_distances = is_distances.unwrap_or(square && looks_like_distances(&values, rows));
    if rows < n || (as_distances && rows != n) {
        return Err(input(format!(
            "config: {rows}×{cols} for D of {n} positions: it needs at least {n} rows (or compare D[:{rows}, :{rows}])"
        )));
    }
    let (delta, points) = if as_distances {
        let delta = DistanceMatrix::from_row_major(n, values);
        check_distances("config", &delta)?;
        (delta, None)
    } else {
        let p = Points::from_fn(n, cols, |i, k| values[i * cols + k]);
        (p.distances(), Some(p))
    };
    let s = posgeo::measures::stress::stress(&delta, &d).map_err(to_py)?;
    let procrustes = match points {
        Some(p) => Some(posgeo::measures::procrustes::align(&procrustes_target(&d, pmds)?, &p).residual),
        None => None,
    };
    let out = PyDict::new(py);
    out.set_item("raw_stress", s.raw_stress)?;
    out.set_item("scaled_stress", s.scaled_stress)?;
    out.set_item("scale", s.scale)?;
    out.set_item("spearman", s.spearman)?;
    out.set_item("monotonicity_violation_rate", s.monotonicity_violation_rate)?;
    out.set_item("procrustes_residual", procrustes)?;
    Ok(out)
}

/// What Procrustes aligns onto: the first min(k, 16) columns of `pmds`, else of D's own PMDS.
fn procrustes_target(d: &DistanceMatrix, pmds: Option<PyReadonlyArray2<'_, f64>>) -> PyResult<Points> {
    let n = d.n();
    let Some(x) = pmds else {
        let spectrum = Spectrum::of_distances(d).map_err(to_py)?;
        let k = spectrum.effective_rank(posgeo::AnalysisParams::default().tau).max(1);
        return Ok(spectrum.coordinates(k.min(posgeo::measures::procrustes::PROCRUSTES_DIMS)));
    };
    let [rows, cols] = [x.shape()[0], x.shape()[1]];
    if rows < n || cols == 0 {
        return Err(input(format!("pmds: {rows}×{cols} for D of {n} positions")));
    }
    let values = finite("pmds", &x)?;
    let k = cols.min(posgeo::measures::procrustes::PROCRUSTES_DIMS);
    Ok(Points::from_fn(n, k, |i, c| values[i * cols + c]))
}

/// The sequences as counted: right-padded rows of ids under the mask (all T in mode `pad`).
fn sequences(ids: &PyReadonlyArray2<'_, i64>, mask: &PyReadonlyArray2<'_, i64>, mode: Mode) -> PyResult<Vec<Vec<u32>>> {
    let (ids, mask) = (ids.as_array(), mask.as_array());
    if ids.shape() != mask.shape() {
        return Err(input(format!("input_ids is {:?} but attention_mask is {:?}", ids.shape(), mask.shape())));
    }
    let mut out = Vec::with_capacity(ids.nrows());
    for (s, (row, m)) in ids.rows().into_iter().zip(mask.rows()).enumerate() {
        let len = m.iter().take_while(|&&v| v != 0).count();
        if m.iter().skip(len).any(|&v| v != 0) {
            return Err(input(format!("attention_mask row {s} is not right-padded (1…1 then 0…0)")));
        }
        let keep = if mode == Mode::Pad { row.len() } else { len };
        let seq: Result<Vec<u32>, _> = row.iter().take(keep).map(|&v| u32::try_from(v)).collect();
        out.push(seq.map_err(|_| input(format!("input_ids row {s} holds an id outside 0..2³²")))?);
    }
    Ok(out)
}

/// docs/MATH.md §14's centroids and residuals of `hidden` (one S×T×H float32 array per layer).
#[pyfunction]
#[pyo3(signature = (hidden, input_ids, attention_mask, mode, n, min_support))]
#[allow(clippy::type_complexity)] // (n_L, centroids, residuals), one array per layer
pub fn positional_centroids<'py>(
    py: Python<'py>,
    hidden: Vec<PyReadonlyArray3<'py, f32>>,
    input_ids: PyReadonlyArray2<'py, i64>,
    attention_mask: PyReadonlyArray2<'py, i64>,
    mode: &str,
    n: Option<usize>,
    min_support: usize,
) -> PyResult<(usize, Vec<Bound<'py, PyArray2<f64>>>, Vec<Bound<'py, PyArray2<f64>>>)> {
    let mode = Mode::parse(mode).ok_or_else(|| input(format!("mode {mode:?} is not one of condition, pad")))?;
    let seqs = sequences(&input_ids, &attention_mask, mode)?;
    let [s, t] = [input_ids.shape()[0], input_ids.shape()[1]];
    let h = hidden.first().map_or(0, |a| a.shape()[2]);
    if hidden.is_empty() || hidden.iter().any(|a| a.shape() != [s, t, h]) || h == 0 {
        let shapes: Vec<Vec<usize>> = hidden.iter().map(|a| a.shape().to_vec()).collect();
        return Err(input(format!("hidden_states: one ({s}, {t}, H) array per layer expected, got shapes {shapes:?}")));
    }
    let plan = Plan::new(seqs, t, n.unwrap_or(t), min_support, mode, 0);
    if plan.positions < 2 {
        return Err(input(format!(
            "fewer than 2 positions have at least min_support = {min_support} sequences (of {s})"
        )));
    }
    let layers: Vec<numpy::ndarray::ArrayView3<'_, f32>> = hidden.iter().map(|a| a.as_array()).collect();
    if let Some(bad) = layers.iter().flat_map(|a| a.iter()).position(|v| !v.is_finite()) {
        return Err(input(format!("hidden_states: value {bad} (flat, layer-major) is not finite")));
    }
    let mut sums = LayerSums::new(layers.len(), h, plan.positions);
    for (k, seq) in plan.sequences.iter().enumerate() {
        let states: Vec<Vec<f32>> =
            layers.iter().map(|a| a.index_axis(numpy::ndarray::Axis(0), k).iter().copied().collect()).collect();
        sums.add(&plan, seq, &states, 0);
    }
    let (centroids, residuals) = sums.finish(&plan);
    let arrays = |ps: Vec<Points>| ps.iter().map(|p| points_array(py, p)).collect::<PyResult<Vec<_>>>();
    Ok((plan.positions, arrays(centroids)?, arrays(residuals)?))
}
