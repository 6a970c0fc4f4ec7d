//! The objects a call returns: [`PyReport`] (an analysis: the `--json` report, D, the PMDS
//! configuration, the verdict and the charts as SVG, drawn by [`posgeo_charts`]) and
//! [`PyCounts`] (a counts table: saved, loaded, merged and analysed as `posgeo count`,
//! `merge` and `analyze --counts` do).

use super::errors::{input, to_py};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray2, PyReadonlyArray2};
use plotters::prelude::*;
use posgeo::analysis::Analysis;
use posgeo::counts::{write_csv, CountsTable, Mode, TableFormat};
use posgeo::metric::DistanceMatrix;
use posgeo::points::Points;
use posgeo::report::Report;
use posgeo_charts::{self as charts, LayerCurves};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;

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

/// A counts table (`posgeo._core.Counts`; the package wraps it as `posgeo.Counts`).
#[pyclass(name = "Counts", module = "posgeo._core", frozen)]
pub struct PyCounts {
    table: CountsTable,
    mode: Mode,
}

impl PyCounts {
    pub fn new(table: CountsTable, mode: Mode) -> Self {
        PyCounts { table, mode }
    }
}

#[pymethods]
impl PyCounts {
    /// Reads a table `posgeo count`, DuckDB or Spark wrote (CSV/TSV, gzip, Parquet).
    #[staticmethod]
    fn load(path: PathBuf) -> PyResult<PyCounts> {
        let bytes = super::run::read_file(&path, "counts table")?;
        let table = posgeo::counts::read_table_bytes(&bytes).map_err(to_py)?;
        let mode = table.counted_mode();
        Ok(PyCounts { table, mode })
    }

    /// The table of consecutive parts of one corpus, in order (`posgeo merge`).
    #[staticmethod]
    fn merge(parts: Vec<PyRef<'_, PyCounts>>) -> PyResult<PyCounts> {
        let mut all: Option<CountsTable> = None;
        for p in &parts {
            match all.as_mut() {
                Some(a) => a.append(p.table.clone()),
                None => all = Some(p.table.clone()),
            }
        }
        let table = all.ok_or_else(|| input("merge: no table given"))?;
        let mode = table.counted_mode();
        Ok(PyCounts { table, mode })
    }

    /// Writes the table as CSV (gzip when the name ends in `.gz`), as `posgeo count -o` does.
    fn save(&self, path: PathBuf) -> PyResult<()> {
        let shown = path.display().to_string();
        let file = std::fs::File::create(&path).map_err(|e| input(format!("cannot write {shown}: {e}")))?;
        let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
        match TableFormat::from_name(&shown) {
            TableFormat::Csv => write_csv(&self.table, self.mode, &mut out).map_err(to_py),
            TableFormat::CsvGz => {
                let mut gz = flate2::write::GzEncoder::new(out, flate2::Compression::default());
                write_csv(&self.table, self.mode, &mut gz).map_err(to_py)?;
                gz.finish().map(|_| ()).map_err(|e| input(format!("cannot write {shown}: {e}")))
            }
        }
    }

    /// Positions with counts.
    #[getter]
    fn positions(&self) -> usize {
        self.table.positions()
    }

    /// The counting mode (`condition` or `pad`).
    #[getter]
    fn mode(&self) -> &'static str {
        self.mode.name()
    }

    /// The table's analysis (`posgeo analyze --counts`).
    #[pyo3(signature = (options, learned, extra, progress))]
    fn analyze(
        &self,
        py: Python<'_>,
        options: Option<&Bound<'_, PyDict>>,
        learned: Vec<(String, Bound<'_, PyAny>)>,
        extra: Vec<(String, PyReadonlyArray2<'_, f64>)>,
        progress: Option<Bound<'_, PyAny>>,
    ) -> PyResult<PyReport> {
        super::run::analyze_counts(py, (&self.table, self.mode), options, learned, extra, progress)
    }
}
