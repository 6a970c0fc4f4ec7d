//! **The Python package** (`import posgeo`; feature `python`, built by maturin from
//! `pyproject.toml` into the extension `posgeo._core`). A front-end like the command line and
//! the page: it turns Python values into the core's types and back, and computes nothing of its
//! own. The Pythonic API (keyword arguments, `Report`, notebooks) is `python/posgeo/`, over
//! these functions:
//!
//! * [`options::option_table`] — the option tables ([`posgeo::options::ANALYSIS`],
//!   [`posgeo_learn::options::LEARN`]): names, defaults and help for the keyword arguments;
//! * [`run::analyze`] / [`run::count`] — a corpus (a path, or an iterator of strings streamed
//!   in batches as the CLI streams a file) → [`report::PyReport`] / [`run::PyCounts`];
//! * [`measures::stress`] — docs/MATH.md §6–§7's measures of any configuration against any D;
//! * [`measures::positional_centroids`] — docs/MATH.md §14's centroids of hidden states computed
//!   anywhere (🤗 transformers' `output_hidden_states`);
//! * [`learn::train`] — docs/MATH.md §16's learning experiment (`posgeo train --json`) on a
//!   corpus; its options are keywords too ([`posgeo_learn::options::LEARN`]).
//!
//! Errors become the package's exceptions ([`errors`]) with the CLI's messages; nothing panics
//! across the boundary.

use pyo3::prelude::*;

mod errors;
mod learn;
mod measures;
mod options;
mod report;
mod run;
mod source;

/// The extension module `posgeo._core`.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    posgeo::limits::fit_threads_to_cap();
    m.add_function(wrap_pyfunction!(options::option_table, m)?)?;
    m.add_function(wrap_pyfunction!(run::analyze, m)?)?;
    m.add_function(wrap_pyfunction!(run::count, m)?)?;
    m.add_function(wrap_pyfunction!(measures::stress, m)?)?;
    m.add_function(wrap_pyfunction!(measures::positional_centroids, m)?)?;
    m.add_function(wrap_pyfunction!(learn::train, m)?)?;
    m.add_class::<report::PyReport>()?;
    m.add_class::<run::PyCounts>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
