//! The **web shell**: everything between the numeric core and the browser. Thin by design:
//! [`protocol`] (page ↔ worker messages and the worker's job as a pure function) and
//! [`url`] (the URL query) are plain Rust, tested natively; `page` (DOM, files, drawing)
//! and `worker` (the Web Worker's message loop) exist only on wasm32.

pub mod protocol;
pub mod url;

#[cfg(target_arch = "wasm32")]
mod dom;
#[cfg(target_arch = "wasm32")]
pub mod page;
#[cfg(target_arch = "wasm32")]
pub mod worker;
