//! What the page shows, as plain Rust over the worker's [`crate::protocol::Payload`]:
//! which charts exist and how each is drawn on any plotters backend ([`charts`]), the hover
//! read-outs ([`hover`]), the stress table's rows and order ([`table`]) and the exported
//! files ([`export`]). Native-testable; the DOM layer only puts the results on the page.
//!
//! **Adding a chart**: a [`charts::ChartKind`] variant (its match arms in `charts.rs` and
//! `hover.rs` are exhaustive, so the compiler lists what to write), a drawing function in
//! `crates/charts/src/`, and its `<canvas id="chart-<name>">` figure in `www/index.html`.

pub mod charts;
pub mod export;
pub mod hover;
pub mod layers;
pub mod learn;
pub mod lecture;
pub mod state;
pub mod table;
pub mod theorem;

pub use state::{Corpora, View};
