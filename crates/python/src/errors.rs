//! The core's errors as the package's exceptions (`python/posgeo/errors.py`): bad input is a
//! `posgeo.InputError` (a `ValueError`), a size refusal a `posgeo.TooLargeError` (a
//! `MemoryError`), a cancel `KeyboardInterrupt`; the message is the CLI's, with the hint naming
//! the keyword argument instead of the flag.

use posgeo::error::{Frontend, PosgeoError};
use pyo3::exceptions::{PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;

/// The exception class of `posgeo.errors` named `class` with `message`.
fn raise(py: Python<'_>, class: &str, message: String) -> PyErr {
    let class = py.import("posgeo.errors").and_then(|m| m.getattr(class));
    match class {
        Ok(c) => PyErr::from_type(c.cast_into().unwrap_or_else(|_| py.get_type::<PyValueError>()), message),
        Err(_) => PyValueError::new_err(message),
    }
}

/// The exception for a core error.
pub fn to_py(e: PosgeoError) -> PyErr {
    Python::attach(|py| {
        let message = e.message_for(Frontend::Python);
        match e {
            PosgeoError::Cancelled => PyKeyboardInterrupt::new_err(message),
            PosgeoError::TooLarge(_) => raise(py, "TooLargeError", message),
            PosgeoError::Eigen | PosgeoError::NoGeometry => raise(py, "Error", message),
            _ => raise(py, "InputError", message),
        }
    })
}

/// A message about the caller's arguments (`posgeo.InputError`).
pub fn input(message: impl Into<String>) -> PyErr {
    Python::attach(|py| raise(py, "InputError", message.into()))
}
