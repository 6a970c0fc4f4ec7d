//! `analyze` and `count`: the CLI's `posgeo analyze` and `posgeo count` on a Python corpus, with
//! the same steps (tokenizer file, model folder, learned tables, layers) and a progress
//! callback `progress(stage, fraction)` (the package shows it with tqdm); Ctrl-C stops a run.
//! What `count` returns, [`PyCounts`] (a counts table: saved, loaded, merged and analysed as
//! `posgeo count`, `merge` and `analyze --counts` do), is here too: its analysis is this
//! module's.

use super::errors::{input, to_py};
use super::options::params_from;
use super::report::PyReport;
use super::source::{count_source, Layout};
use numpy::PyReadonlyArray2;
use posgeo::analysis::{analyze_table, AnalysisParams, Progress, Stage, EXAMPLE_SEQUENCES};
use posgeo::corpus::hf_tokenizer::ModelTokenizer;
use posgeo::corpus::tokenize::TokenizerKind;
use posgeo::counts::{write_csv, CountsTable, Mode, TableFormat};
use posgeo::learned_tables::Table;
use posgeo::points::Points;
use posgeo_model::Model;
use pyo3::exceptions::PyFileNotFoundError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::{Path, PathBuf};

/// Reports progress to the caller's callback and watches for Ctrl-C; the first error is kept
/// (and raised once the core has stopped).
pub struct Reporter<'py> {
    py: Python<'py>,
    callback: Option<Bound<'py, PyAny>>,
    /// The error that stopped the run.
    pub failed: Option<PyErr>,
}

impl<'py> Reporter<'py> {
    pub fn new(py: Python<'py>, callback: Option<Bound<'py, PyAny>>) -> Self {
        Reporter { py, callback: callback.filter(|c| !c.is_none()), failed: None }
    }

    /// Tells `stage` at `fraction` (None: unknown); `Err` on Ctrl-C or a failing callback.
    pub fn tell(&self, stage: &str, fraction: Option<f64>) -> PyResult<()> {
        self.py.check_signals()?;
        if let Some(c) = &self.callback {
            c.call1((stage, fraction))?;
        }
        Ok(())
    }

    /// [`Reporter::tell`] as the core's progress answer (`false` stops it).
    pub fn answer(&mut self, p: Progress) -> bool {
        match self.tell(p.stage.label(), Some(p.overall())) {
            Ok(()) => true,
            Err(e) => {
                self.failed.get_or_insert(e);
                false
            }
        }
    }

    /// The run's result, or the error that stopped it.
    pub fn finish<T>(&mut self, r: posgeo::error::Result<T>) -> PyResult<T> {
        match self.failed.take() {
            Some(e) => Err(e),
            None => r.map_err(to_py),
        }
    }
}

/// Reads a file the caller named (a missing one is `FileNotFoundError`).
pub fn read_file(path: &Path, what: &str) -> PyResult<Vec<u8>> {
    std::fs::read(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => {
            PyFileNotFoundError::new_err(format!("{what} {}: no such file", path.display()))
        }
        _ => input(format!("{what} {}: {e}", path.display())),
    })
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or(path.display().to_string(), |n| n.to_string_lossy().into_owned())
}

/// `tokenizer_file=`: the model tokenizer counts the corpus.
pub fn with_tokenizer(params: &mut AnalysisParams, file: Option<&Path>) -> PyResult<()> {
    let Some(path) = file else { return Ok(()) };
    match params.tokenizer {
        TokenizerKind::Words | TokenizerKind::Model => params.tokenizer = TokenizerKind::Model,
        other => {
            return Err(input(format!(
                "tokenizer_file counts the model's tokens: leave out tokenizer={:?}",
                other.name()
            )))
        }
    }
    let bytes = read_file(path, "tokenizer_file")?;
    params.model = Some(ModelTokenizer::from_bytes(&file_name(path), &bytes).map_err(to_py)?);
    Ok(())
}

/// The learned tables: each (name, array or path); a file holding several tables gives each.
fn learned_tables(learned: Vec<(String, Bound<'_, PyAny>)>) -> PyResult<Vec<(String, Table)>> {
    let mut out = Vec::new();
    for (name, v) in learned {
        if let Ok(a) = v.extract::<PyReadonlyArray2<'_, f64>>() {
            let a = a.as_array();
            out.push((name, a.rows().into_iter().map(|r| r.to_vec()).collect()));
            continue;
        }
        let path: PathBuf = v.extract()?;
        let bytes = read_file(&path, "learned table")?;
        let tables = posgeo::learned_tables::read_named(&bytes, &file_name(&path), &[]).map_err(to_py)?;
        match <[_; 1]>::try_from(tables) {
            Ok([(_, t)]) if !name.is_empty() => out.push((name, t)),
            Ok(one) => out.extend(one),
            Err(many) => out.extend(many),
        }
    }
    Ok(out)
}

/// `extra_encodings`: each (name, n′×k array).
fn extra_points(extra: Vec<(String, PyReadonlyArray2<'_, f64>)>) -> Vec<(String, Points)> {
    extra
        .into_iter()
        .map(|(name, a)| {
            let a = a.as_array();
            (name, Points::from_fn(a.nrows(), a.ncols(), |i, k| a[[i, k]]))
        })
        .collect()
}

/// The params of a call: options, then the tokenizer file (a model folder's by default).
fn call_params(options: Option<&Bound<'_, PyDict>>, tokenizer_file: Option<&Path>) -> PyResult<AnalysisParams> {
    let mut params = params_from(options)?;
    with_tokenizer(&mut params, tokenizer_file)?;
    params.validate().map_err(to_py)?;
    Ok(params)
}

/// The whole pipeline on a corpus (see the module docs); `model` is a model folder or a `.gguf`
/// file whose layers become rows (docs/MATH.md §14–§14b).
#[pyfunction]
#[pyo3(signature = (source, options, layout, learned, model, tokenizer_file, extra, progress))]
#[allow(clippy::too_many_arguments)] // the keyword arguments of `posgeo.analyze`
pub fn analyze(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    options: Option<&Bound<'_, PyDict>>,
    layout: Layout,
    learned: Vec<(String, Bound<'_, PyAny>)>,
    model: Option<PathBuf>,
    tokenizer_file: Option<PathBuf>,
    extra: Vec<(String, PyReadonlyArray2<'_, f64>)>,
    progress: Option<Bound<'_, PyAny>>,
) -> PyResult<PyReport> {
    let model = match &model {
        Some(path) if !path.exists() => {
            return Err(PyFileNotFoundError::new_err(format!("model {}: no such folder or file", path.display())))
        }
        Some(path) => Some((Model::from_dir(path).map_err(to_py)?, ())),
        None => None,
    };
    let mut params = params_from(options)?;
    match (&tokenizer_file, model.as_ref().and_then(|(m, _)| m.tokenizer.as_ref())) {
        (None, Some((name, bytes))) => {
            if !matches!(params.tokenizer, TokenizerKind::Words | TokenizerKind::Model) {
                return Err(input(format!(
                    "a model counts its own tokens: leave out tokenizer={:?}",
                    params.tokenizer.name()
                )));
            }
            params.tokenizer = TokenizerKind::Model;
            params.model = Some(ModelTokenizer::from_bytes(name, bytes).map_err(to_py)?);
        }
        (file, _) => with_tokenizer(&mut params, file.as_deref())?,
    }
    params.validate().map_err(to_py)?;
    let mut learned = learned_tables(learned)?;
    if let (true, Some((m, _))) = (learned.is_empty(), &model) {
        learned.extend(m.position_table());
    }
    let mut reporter = Reporter::new(py, progress);
    let keep = if model.is_some() { EXAMPLE_SEQUENCES.max(params.layer_sequences) } else { EXAMPLE_SEQUENCES };
    let counting = |f: Option<f64>| f.map(|fraction| Progress { stage: Stage::Counting, fraction }.overall());
    let streamed = count_source(source, &layout, &params, keep, &mut |f| reporter.tell("counting", counting(f)))?;
    let examples = params.examples(&streamed.first);
    let analysis = analyze_table(&streamed.table, examples, &params, &learned, &mut |p| reporter.answer(p));
    let mut analysis = reporter.finish(analysis)?;
    if let Some((m, _)) = &model {
        let mut stopped = None;
        let run = posgeo_model::layers::run_layers(&mut analysis, &streamed.first, m, &mut |f| {
            let told = reporter.tell("model layers", Some(f));
            told.map_err(|e| stopped = Some(e)).is_ok()
        });
        if let Some(e) = stopped {
            return Err(e);
        }
        reporter.finish(run)?;
    }
    posgeo::analysis::extra::add_extra(&mut analysis, extra_points(extra)).map_err(to_py)?;
    Ok(PyReport::new(analysis))
}

/// The counts table of a corpus (`posgeo count`): only the tokenizer options, `mode` and
/// `max_len` apply.
#[pyfunction]
#[pyo3(signature = (source, options, layout, tokenizer_file, progress))]
pub fn count(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    options: Option<&Bound<'_, PyDict>>,
    layout: Layout,
    tokenizer_file: Option<PathBuf>,
    progress: Option<Bound<'_, PyAny>>,
) -> PyResult<PyCounts> {
    let params = call_params(options, tokenizer_file.as_deref())?;
    let reporter = Reporter::new(py, progress);
    let streamed = count_source(source, &layout, &params, 0, &mut |f| reporter.tell("counting", f))?;
    Ok(PyCounts::new(streamed.table, params.mode))
}

/// A counts table's analysis (`posgeo analyze --counts`): its `mode` (as counted, or as read
/// from the file) unless the options give one.
pub fn analyze_counts(
    py: Python<'_>,
    (table, mode): (&CountsTable, posgeo::counts::Mode),
    options: Option<&Bound<'_, PyDict>>,
    learned: Vec<(String, Bound<'_, PyAny>)>,
    extra: Vec<(String, PyReadonlyArray2<'_, f64>)>,
    progress: Option<Bound<'_, PyAny>>,
) -> PyResult<PyReport> {
    let mut params = call_params(options, None)?;
    if !options.is_some_and(|o| o.contains("mode").unwrap_or(false)) {
        params.mode = mode;
    }
    let learned = learned_tables(learned)?;
    let mut reporter = Reporter::new(py, progress);
    let analysis = analyze_table(table, Vec::new(), &params, &learned, &mut |p| reporter.answer(p));
    let mut analysis = reporter.finish(analysis)?;
    posgeo::analysis::extra::add_extra(&mut analysis, extra_points(extra)).map_err(to_py)?;
    Ok(PyReport::new(analysis))
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
        let bytes = read_file(&path, "counts table")?;
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
        analyze_counts(py, (&self.table, self.mode), options, learned, extra, progress)
    }
}
