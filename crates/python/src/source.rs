//! The corpus of a call: a path (read as a stream, gzip detected, its format from the name or
//! `format=`), or an iterator of strings (one sequence each), pulled in batches of about
//! [`posgeo::counts::BATCH_BYTES`] so that memory grows with the counts, not with the text —
//! the same table as the CLI counting a file with one sequence per line.

use super::errors::{input, to_py};
use posgeo::analysis::AnalysisParams;
use posgeo::corpus::{FileKind, ReadCounter, SequenceStream};
use posgeo::counts::{count_batches, count_stream, Streamed, BATCH_BYTES};
use posgeo::error::PosgeoError;
use pyo3::exceptions::{PyFileNotFoundError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use std::cell::{Cell, RefCell};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// How a file is laid out (the CLI's `--format`, `--column`, `--no-header`, `--field`, `--lossy`).
#[derive(Debug, Clone, FromPyObject)]
#[pyo3(from_item_all)]
pub struct Layout {
    /// `text`, `csv`, `tsv`, `jsonl` (None: from the file name).
    pub format: Option<String>,
    /// CSV/TSV column: header name or 0-based index.
    pub column: Option<String>,
    /// CSV/TSV with a header row.
    pub header: bool,
    /// JSON Lines field.
    pub field: String,
    /// Skip lines that are not valid UTF-8.
    pub lossy: bool,
}

/// Progress of the counting stage: called with the fraction done (None when unknown); an
/// `Err` stops the count and is raised.
pub type Tick<'a> = dyn FnMut(Option<f64>) -> PyResult<()> + 'a;

/// A path given as `str` or `os.PathLike`.
fn as_path(source: &Bound<'_, PyAny>) -> Option<PathBuf> {
    if source.is_instance_of::<PyString>() || source.hasattr("__fspath__").unwrap_or(false) {
        source.extract::<PathBuf>().ok()
    } else {
        None
    }
}

/// Counts `source` under `params`, keeping the first `keep` sequences.
pub fn count_source(
    source: &Bound<'_, PyAny>,
    layout: &Layout,
    params: &AnalysisParams,
    keep: usize,
    tick: &mut Tick<'_>,
) -> PyResult<Streamed> {
    match as_path(source) {
        Some(path) => count_file(&path, layout, params, keep, tick),
        None => count_iter(source, params, keep, tick),
    }
}

fn count_file(
    path: &std::path::Path,
    layout: &Layout,
    params: &AnalysisParams,
    keep: usize,
    tick: &mut Tick<'_>,
) -> PyResult<Streamed> {
    let shown = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => PyFileNotFoundError::new_err(format!("{shown}: no such file")),
        _ => input(format!("cannot read {shown}: {e}")),
    })?;
    let size = file.metadata().map_or(0, |m| m.len());
    let kind = match layout.format.as_deref() {
        Some(f) => FileKind::parse(f).ok_or_else(|| {
            let all: Vec<&str> = FileKind::ALL.iter().map(|k| k.name()).collect();
            input(format!("format {f:?} is not one of {}", all.join(", ")))
        })?,
        None => FileKind::from_file_name(&shown),
    };
    let format = kind.input_format(layout.column.clone(), layout.header, &layout.field);
    let read = Arc::new(AtomicU64::new(0));
    let reader = ReadCounter { inner: file, read: read.clone() };
    let mut stream = SequenceStream::new(reader, &format, layout.lossy).map_err(to_py)?;
    let mut failed = None;
    let counted = count_stream(&mut stream, &params.tokenizer(), params.max_len, keep, &mut || {
        let fraction = (size > 0).then(|| read.load(Ordering::Relaxed) as f64 / size as f64);
        tick(fraction).map_err(|e| failed = Some(e)).is_ok()
    });
    match (counted, failed) {
        (_, Some(e)) => Err(e),
        (r, None) => r.map_err(to_py),
    }
}

/// One item of a corpus iterator as a sequence.
fn item(v: &Bound<'_, PyAny>, index: u64) -> PyResult<String> {
    if let Ok(s) = v.cast::<PyString>() {
        return s.extract::<String>();
    }
    if let Ok(b) = v.cast::<PyBytes>() {
        return String::from_utf8(b.as_bytes().to_vec())
            .map_err(|_| input(format!("corpus item {index}: bytes that are not valid UTF-8")));
    }
    let ty = v.get_type().name()?.to_string();
    Err(PyTypeError::new_err(format!("corpus item {index}: expected str, got {ty}")))
}

fn count_iter(
    source: &Bound<'_, PyAny>,
    params: &AnalysisParams,
    keep: usize,
    tick: &mut Tick<'_>,
) -> PyResult<Streamed> {
    let iter = source.try_iter().map_err(|_| {
        let ty = source.get_type().name().map_or("?".into(), |n| n.to_string());
        PyTypeError::new_err(format!("corpus: expected a path, a list of str or an iterable of str, got {ty}"))
    })?;
    let failed: RefCell<Option<PyErr>> = RefCell::new(None);
    let read = Cell::new(0u64);
    let mut next = || -> Result<Option<Vec<String>>, PosgeoError> {
        let (mut batch, mut size) = (Vec::new(), 0usize);
        for v in iter.clone() {
            match v.and_then(|v| item(&v, read.get())) {
                Ok(s) => {
                    size += s.len() + 1;
                    read.set(read.get() + 1);
                    batch.push(s);
                }
                Err(e) => {
                    *failed.borrow_mut() = Some(e);
                    return Err(PosgeoError::Cancelled);
                }
            }
            if size >= BATCH_BYTES {
                break;
            }
        }
        Ok((!batch.is_empty()).then_some(batch))
    };
    let mut after = || match tick(None) {
        Ok(()) => true,
        Err(e) => {
            *failed.borrow_mut() = Some(e);
            false
        }
    };
    let counted = count_batches(&mut next, &params.tokenizer(), params.max_len, keep, &mut after, &mut || read.get());
    if let Some(e) = failed.into_inner() {
        return Err(e);
    }
    let counted = counted.map_err(to_py)?;
    tick(Some(1.0))?;
    Ok(counted)
}
