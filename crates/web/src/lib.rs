//! The **web shell**: everything between the numeric core and the browser, in three layers.
//!
//! * Plain Rust, tested natively: [`protocol`] (page ↔ worker messages and the worker's job as
//!   a pure function), [`url`] (the link's query), [`app`] (the page's model, messages and
//!   `update`, answering with effects) and [`view`] (charts, hover read-outs, the table and the
//!   exports, over the worker's payload).
//! * wasm32 only: `dom` performs the effects on the page (typed element handles, the form
//!   controls built from the option tables, the worker bridge, files, drawing on canvases) and
//!   `worker` is the Web Worker's message loop; its helper workers have three modules, one an
//!   idea: [`protocol::jobs`] what they are asked and answer, `courier` how a job and its
//!   answer travel (watched, with a silence limit), and `pool` who they are (started, pooled,
//!   ended; and the parts of a large upload they count); `mds` has one compute the spectrum, `smacof` has them share SMACOF's iterations, `measure` has them measure
//!   the encodings, and `layers` run a model's batches; `learn` is the training worker's side
//!   of the Learn panel (a worker of its own, docs/MATH.md §16).

pub mod app;
pub mod protocol;
pub mod url;
pub mod view;

#[cfg(target_arch = "wasm32")]
pub mod courier;
#[cfg(target_arch = "wasm32")]
pub mod dom;
#[cfg(target_arch = "wasm32")]
pub mod js;
#[cfg(target_arch = "wasm32")]
pub mod learn;
#[cfg(target_arch = "wasm32")]
pub mod mds;
#[cfg(target_arch = "wasm32")]
pub mod measure;
#[cfg(target_arch = "wasm32")]
pub mod model_pass;
#[cfg(target_arch = "wasm32")]
pub mod pool;
#[cfg(target_arch = "wasm32")]
pub mod smacof;
#[cfg(target_arch = "wasm32")]
pub mod worker;
