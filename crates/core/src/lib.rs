//! # posgeo — the geometry of positional encodings
//!
//! After Cirrincione, "On the Geometry of Positional Encodings in Transformers"
//! (arXiv 2604.05217). For every position i of a corpus, the distribution μ_i of the tokens
//! found there; the Hellinger distances between those distributions; classical MDS of that
//! matrix as the information-optimal encoding (PMDS); and the stress of every encoding
//! against the corpus geometry. Every formula is written out in `docs/MATH.md`.
//!
//! ## Layers
//! * **Numeric core** (no web dependency; native and wasm32), one module per pipeline
//!   stage: [`corpus`] (input, [`corpus::tokenize`]) → [`counts`] → [`metric`] → [`mds`] →
//!   [`encodings`] → [`stress`] / [`monotonicity`]; [`analysis`] chains them and [`report`]
//!   summarises them (the JSON schema and the text both front-ends show); [`points`] is the one
//!   configuration type; [`options`] declares every option once; [`synth`] makes the built-in
//!   corpus; [`tables`] reads learned position tables; [`model`] runs a BERT-family encoder
//!   and turns its layers into configurations (docs/MATH.md §14, measured by
//!   [`analysis::layers`]; encodings given from outside in [`analysis::extra`]); [`error`]
//!   holds the one error type.
//! * **Drawing** ([`charts`]): every chart, generic over plotters' backends.
//! * **Web shell** ([`web`]): `protocol`, `url`, `app` (the page's model and `update`) and
//!   `view` are plain Rust, tested natively; `dom` and `worker` exist only on wasm32.
//! * **Command line** (`crates/cli/src/`, native only).
//! * **Python** ([`python`], feature `python`, native only): the extension module of the
//!   `posgeo` Python package (`python/posgeo/`), built by maturin.

pub mod analysis;
pub mod corpus;
pub mod counts;
pub mod encodings;
pub mod error;
pub mod learn;
pub mod limits;
pub mod mds;
pub mod metric;
pub mod model;
pub mod monotonicity;
pub mod options;
pub mod par;
pub mod points;
pub mod preset;
pub mod procrustes;
pub mod rank_curve;
pub mod report;
pub mod sketch;
pub mod smacof;
pub mod stress;
pub mod synth;
pub mod tables;
pub mod theorem;
pub mod three_points;

/// Fixtures the tests of this crate and of the crates above it share (feature `test-support`).
#[cfg(any(test, feature = "test-support"))]
#[doc(hidden)]
pub mod test_support;

pub use analysis::{analyze, Analysis, AnalysisParams, Progress, Stage};
pub use corpus::{Corpus, InputFormat};
pub use counts::PositionalCounts;
pub use error::{PosgeoError, Result};
pub use mds::Spectrum;
pub use metric::{DistanceMatrix, Metric};
pub use report::Report;
pub use stress::StressReport;
