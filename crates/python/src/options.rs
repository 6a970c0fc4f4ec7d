//! Keyword arguments ↔ the option tables ([`posgeo::options::ANALYSIS`], and
//! [`posgeo_learn::options::LEARN`] for `train`): each option is a keyword of the same name, parsed
//! and checked by its table (so its messages are the CLI's).

use posgeo::analysis::AnalysisParams;
use posgeo::options::{Domain, OptSpec, ANALYSIS};
use posgeo_learn::options::LEARN;
use posgeo_learn::LearnParams;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

/// One option: (name, default as text, help, kind, choices).
type OptionRow = (String, String, String, String, Vec<String>);

/// Every option of `table`, in table order.
fn rows<T>(table: &[OptSpec<T>], defaults: &T) -> Vec<OptionRow> {
    table
        .iter()
        .map(|o| {
            let (kind, choices) = match o.domain {
                Domain::Int { .. } => ("int", Vec::new()),
                Domain::OptInt { .. } => ("int or None", Vec::new()),
                Domain::Real { .. } => ("float", Vec::new()),
                Domain::Choice(c) => ("str", c.iter().map(|c| c.value.to_string()).collect()),
                Domain::Switch => ("bool", Vec::new()),
                Domain::Tristate => ("bool or None", Vec::new()),
                Domain::Set(c) => {
                    ("str (comma-separated) or list of str", c.iter().map(|c| c.value.to_string()).collect())
                }
            };
            (o.name.to_string(), o.text(defaults), o.help.to_string(), kind.to_string(), choices)
        })
        .collect()
}

/// Every option of a table — `"analysis"` (the default) or `"learn"` (the experiment's):
/// (name, default as text, help, kind, choices), in table order.
#[pyfunction]
#[pyo3(signature = (table = "analysis"))]
pub fn option_table(table: &str) -> PyResult<Vec<OptionRow>> {
    match table {
        "analysis" => Ok(rows(ANALYSIS, &AnalysisParams::default())),
        "learn" => Ok(rows(LEARN, &LearnParams::default())),
        other => Err(PyTypeError::new_err(format!("option table {other:?} is not one of analysis, learn"))),
    }
}

/// A keyword's value as the table's text ("" is unset); a set-valued option also takes a list
/// or tuple of str (joined with commas).
fn text_of(name: &str, domain: &Domain, v: &Bound<'_, PyAny>) -> PyResult<String> {
    if v.is_none() {
        Ok(String::new())
    } else if v.is_instance_of::<PyBool>() {
        Ok(v.extract::<bool>()?.to_string())
    } else if v.is_instance_of::<PyInt>() {
        Ok(v.str()?.to_string())
    } else if v.is_instance_of::<PyFloat>() {
        Ok(v.extract::<f64>()?.to_string())
    } else if v.is_instance_of::<PyString>() {
        v.extract::<String>()
    } else if matches!(domain, Domain::Set(_)) && (v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>()) {
        let mut parts = Vec::new();
        for item in v.try_iter()? {
            let item = item?;
            if !item.is_instance_of::<PyString>() {
                let ty = item.get_type().name()?.to_string();
                return Err(PyTypeError::new_err(format!(
                    "option {name}: expected a list of str, got an item of {ty}"
                )));
            }
            parts.push(item.extract::<String>()?);
        }
        Ok(parts.join(","))
    } else {
        let ty = v.get_type().name()?.to_string();
        let expected = match domain {
            Domain::Set(_) => "a str or a list of str",
            _ => "a number, a str, a bool or None",
        };
        Err(PyTypeError::new_err(format!("option {name}: expected {expected}, got {ty}")))
    }
}

/// Writes keyword `name` into `p` when `table` declares it (`None`: not one of its options).
fn apply<T>(table: &[OptSpec<T>], p: &mut T, name: &str, v: &Bound<'_, PyAny>) -> Option<PyResult<()>> {
    let spec = table.iter().find(|o| o.name == name)?;
    Some(text_of(name, &spec.domain, v).and_then(|t| spec.apply(p, &t).map_err(super::errors::to_py)))
}

/// Runs `write` on every keyword of `options`; one it does not know (`None`) is a `TypeError`
/// listing `names`.
fn each(
    options: Option<&Bound<'_, PyDict>>,
    names: &[&str],
    mut write: impl FnMut(&str, &Bound<'_, PyAny>) -> Option<PyResult<()>>,
) -> PyResult<()> {
    let Some(options) = options else { return Ok(()) };
    for (k, v) in options.iter() {
        let name: String = k.extract()?;
        match write(&name, &v) {
            Some(r) => r?,
            None => {
                return Err(PyTypeError::new_err(format!(
                    "unexpected keyword argument {name:?}; the options are {}",
                    names.join(", ")
                )))
            }
        }
    }
    Ok(())
}

/// The params of `options` (option name → value) over the defaults.
pub fn params_from(options: Option<&Bound<'_, PyDict>>) -> PyResult<AnalysisParams> {
    let mut p = AnalysisParams::default();
    let names: Vec<&str> = ANALYSIS.iter().map(|o| o.name).collect();
    each(options, &names, |name, v| apply(ANALYSIS, &mut p, name, v))?;
    Ok(p)
}

/// The analysis and experiment params of `options` (each keyword an option of
/// [`ANALYSIS`] or of [`LEARN`]) over the defaults; unchecked.
pub fn learn_params_from(options: Option<&Bound<'_, PyDict>>) -> PyResult<(AnalysisParams, LearnParams)> {
    let (mut a, mut l) = (AnalysisParams::default(), LearnParams::default());
    let names: Vec<&str> = ANALYSIS.iter().map(|o| o.name).chain(LEARN.iter().map(|o| o.name)).collect();
    each(options, &names, |name, v| apply(ANALYSIS, &mut a, name, v).or_else(|| apply(LEARN, &mut l, name, v)))?;
    Ok((a, l))
}
