//! What an analysis returns: [`PyReport`] (the `--json` report, D, the PMDS configuration, the
//! verdict and the charts as SVG, drawn by [`posgeo_charts`]).

use super::errors::input;
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray2};
use plotters::prelude::*;
use posgeo::analysis::Analysis;
use posgeo::metric::DistanceMatrix;
use posgeo::points::Points;
use posgeo::report::Report;
use posgeo_charts::{self as charts, LayerCurves};
use pyo3::prelude::*;

/// A finished analysis (`posgeo._core.Report`; the package wraps it as `posgeo.Report`).
#[pyclass(name = "Report", module = "posgeo._core", frozen)]
pub struct PyReport {
    report: Report,
    distances: DistanceMatrix,
    pmds: Points,
}

/// An n×k array of `rows` × `cols` values.
pub fn array(py: Python<'_>, rows: usize, cols: usize, values: Vec<f64>) -> PyResult<Bound<'_, PyArray2<f64>>> {
    let a = Array2::from_shape_vec((rows, cols), values).map_err(|e| input(e.to_string()))?;
    Ok(a.into_pyarray(py))
}

/// A configuration as an array.
pub fn points_array<'py>(py: Python<'py>, p: &Points) -> PyResult<Bound<'py, PyArray2<f64>>> {
    array(py, p.n, p.dim, p.rows().flatten().copied().collect())
}

impl PyReport {
    pub fn new(analysis: Analysis) -> Self {
        let report = analysis.report(false);
        let pmds = analysis.compared.iter().find(|c| c.name == "pmds").map(|c| c.encoding.points.clone());
        let pmds = pmds.unwrap_or_else(|| analysis.spectrum.coordinates(1));
        PyReport { report, distances: analysis.distances, pmds }
    }
}

#[pymethods]
impl PyReport {
    /// The report as `posgeo analyze --json` writes it.
    fn json(&self) -> PyResult<String> {
        serde_json::to_string(&self.report).map_err(|e| input(e.to_string()))
    }

    /// D (n×n).
    fn distances<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let n = self.distances.n();
        array(py, n, n, self.distances.as_slice().to_vec())
    }

    /// The PMDS configuration (the `pmds` row: n × min(d, r_τ)).
    fn pmds<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        points_array(py, &self.pmds)
    }

    /// The paper's findings checked on this report, as JSON (`posgeo analyze --json --claims`).
    fn claims_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.report.claims()).map_err(|e| input(e.to_string()))
    }

    /// The one-line verdict (the CLI's and the page's).
    fn verdict(&self) -> String {
        self.report.verdict()
    }

    /// The summary lines (the CLI's).
    fn summary(&self) -> Vec<String> {
        self.report.summary_lines()
    }

    /// The stress table as the CLI prints it.
    fn stress_text(&self) -> String {
        self.report.stress_text()
    }

    /// A chart as an SVG document: `stress`, `rank`, `map`, `monotonicity` or `layers`.
    #[pyo3(signature = (kind, width=640, height=400))]
    fn svg(&self, kind: &str, width: u32, height: u32) -> PyResult<String> {
        let r = &self.report;
        let mut s = String::new();
        {
            let root = SVGBackend::with_string(&mut s, (width, height)).into_drawing_area();
            let drawn = match kind {
                "stress" => charts::stress_bars(&root, r, false),
                "stress-raw" => charts::stress_bars(&root, r, true),
                "rank" => charts::rank_curve(&root, r),
                "map" => charts::pmds_map(&root, &r.pmds_coordinates, None),
                "monotonicity" => charts::monotonicity(&root, r),
                "layers" => charts::layer_stress(&root, LayerCurves::of(r, false).as_ref()),
                other => {
                    return Err(input(format!("chart {other:?} is not one of stress, rank, map, monotonicity, layers")))
                }
            };
            drawn.map_err(input)?;
            root.present().map_err(|e| input(format!("drawing failed: {e:?}")))?;
        }
        Ok(s)
    }
}
