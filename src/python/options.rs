//! Keyword arguments ↔ the one option table ([`crate::options::ANALYSIS`]): each option is a
//! keyword of the same name, parsed and checked by the table (so its messages are the CLI's).

use crate::analysis::AnalysisParams;
use crate::options::{Domain, ANALYSIS};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyString};

/// Every option: (name, default as text, help, kind, choices), in table order.
#[pyfunction]
pub fn option_table() -> Vec<(String, String, String, String, Vec<String>)> {
    let defaults = AnalysisParams::default();
    ANALYSIS
        .iter()
        .map(|o| {
            let (kind, choices) = match o.domain {
                Domain::Int { .. } => ("int", Vec::new()),
                Domain::OptInt { .. } => ("int or None", Vec::new()),
                Domain::Real { .. } => ("float", Vec::new()),
                Domain::Choice(c) => ("str", c.iter().map(|c| c.value.to_string()).collect()),
                Domain::Switch => ("bool", Vec::new()),
                Domain::Tristate => ("bool or None", Vec::new()),
                Domain::Set(c) => ("str (comma-separated)", c.iter().map(|c| c.value.to_string()).collect()),
            };
            (o.name.to_string(), o.text(&defaults), o.help.to_string(), kind.to_string(), choices)
        })
        .collect()
}

/// A keyword's value as the table's text ("" is unset).
fn text_of(name: &str, v: &Bound<'_, PyAny>) -> PyResult<String> {
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
    } else {
        let ty = v.get_type().name()?.to_string();
        Err(PyTypeError::new_err(format!("option {name}: expected a number, a str, a bool or None, got {ty}")))
    }
}

/// The params of `options` (option name → value) over the defaults.
pub fn params_from(options: Option<&Bound<'_, PyDict>>) -> PyResult<AnalysisParams> {
    let mut p = AnalysisParams::default();
    let Some(options) = options else { return Ok(p) };
    for (k, v) in options.iter() {
        let name: String = k.extract()?;
        let Some(spec) = ANALYSIS.iter().find(|o| o.name == name) else {
            let names: Vec<&str> = ANALYSIS.iter().map(|o| o.name).collect();
            return Err(PyTypeError::new_err(format!(
                "unexpected keyword argument {name:?}; the options are {}",
                names.join(", ")
            )));
        };
        spec.apply(&mut p, &text_of(&name, &v)?).map_err(super::errors::to_py)?;
    }
    Ok(p)
}
