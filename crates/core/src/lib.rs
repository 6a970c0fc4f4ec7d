//! # posgeo — the geometry of positional encodings
//!
//! After Cirrincione, "On the Geometry of Positional Encodings in Transformers"
//! (arXiv 2604.05217). For every position i of a corpus, the distribution μ_i of the tokens
//! found there; the Hellinger distances between those distributions; classical MDS of that
//! matrix as the information-optimal encoding (PMDS); and the stress of every encoding
//! against the corpus geometry. Every formula is written out in `docs/MATH.md`.
//!
//! ## This crate: the numeric core
//! No web dependency; native and wasm32. One module per pipeline stage: [`corpus`] (input,
//! [`corpus::tokenize`]) → [`counts`] → [`metric`] → [`mds`] → [`encodings`] → [`measures::stress`] /
//! [`measures::monotonicity`]; [`analysis`] chains them and [`report`] summarises them (the JSON schema
//! and the text both front-ends show); [`points`] is the one configuration type; [`options`]
//! declares every option once; [`demos::synth`] makes the built-in corpus; [`learned_tables`] reads learned
//! position tables; a model's layers are measured by [`analysis::layers`] (docs/MATH.md
//! §14–§14b; encodings given from outside in [`analysis::extra`]);
//! [`error`] holds the one error type.
//!
//! The layers above it are the workspace's other crates (docs/ARCHITECTURE.md):
//! `posgeo-model` (reading models and running their layers, §14), `posgeo-learn` (the learning
//! experiment, §16), `posgeo-charts` (drawing), `posgeo-web`
//! (the page), `posgeo-cli` (the command line) and `posgeo-python` (the Python package's
//! extension module).

pub mod analysis;
pub mod corpus;
pub mod counts;
pub mod demos;
pub mod encodings;
pub mod error;
pub mod learned_tables;
pub mod limits;
pub mod mds;
pub mod measures;
pub mod metric;
pub mod options;
pub mod par;
pub mod points;
pub mod report;
pub mod smacof;

/// Fixtures the tests of this crate and of the crates above it share (feature `test-support`).
#[cfg(any(test, feature = "test-support"))]
#[doc(hidden)]
pub mod test_support;

pub use analysis::{analyze, Analysis, AnalysisParams, Progress, Stage};
pub use corpus::{Corpus, InputFormat};
pub use counts::PositionalCounts;
pub use error::{PosgeoError, Result};
pub use mds::Spectrum;
pub use measures::stress::StressReport;
pub use metric::{DistanceMatrix, Metric};
pub use report::Report;
