//! The eigen-step in a helper worker of its own (wasm32 only). From [`FROM_N`] positions
//! the worker that runs the job sends D (transferred) to a helper, which computes the
//! spectrum of B ([`Spectrum::of_distances_keeping`] with the run's
//! [`posgeo::analysis::spectrum_keeps`]: the same function of the same numbers as in the
//! worker) and sends back the eigenvalues and the eigenvectors kept; the helper is then ended.
//! B and the eigensolver's work arrays (four n×n matrices, 540 MB at n = 4096: B is built
//! from the message's rows of D, which is never copied whole into the helper's wasm memory)
//! thus leave the tab's memory with the helper, instead of staying in the worker's wasm memory,
//! which never shrinks. Meanwhile another helper measures the encodings that do not read the
//! spectrum ([`super::measure::spectrum_free`]), on the core the eigen-step leaves idle. If the
//! helper fails, the worker computes the spectrum itself; if the
//! eigensolver failed there, the run fails as it would have in the worker. The helper is not
//! returned to the pool: SMACOF and the measures start a fresh one if they need it.

use super::helpers::{helpers, next_message};
use posgeo::analysis::{spectrum_keeps, AnalysisParams};
use posgeo::error::{PosgeoError, Result};
use posgeo::mds::{double_centre_rows, Spectrum};
use posgeo::metric::DistanceMatrix;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, Worker};

/// From this many positions a helper computes the spectrum (below it the eigen-step's
/// matrices are small, 170 MB at n = 2048, and starting a helper is not worth it).
pub const FROM_N: usize = 2048;

/// A spectrum being computed by a helper worker ([`start`]).
pub struct Started {
    worker: Worker,
    reply: wasm_bindgen_futures::JsFuture,
    n: usize,
}

/// Sends D, for a run under `params`, to a helper worker that computes its spectrum; `None`
/// below [`FROM_N`] or when no helper could take it (the caller then computes it).
pub async fn start(d: &DistanceMatrix, params: &AnalysisParams) -> Option<Started> {
    let n = d.n();
    if n < FROM_N {
        return None;
    }
    let params = serde_json::to_string(params).ok()?;
    let worker = helpers(1).await?.pop()?;
    let arr = js_sys::Float64Array::from(d.as_slice());
    let msg = js_sys::Object::new();
    js_sys::Reflect::set(&msg, &"spectrum_of".into(), &arr).ok();
    js_sys::Reflect::set(&msg, &"params".into(), &JsValue::from_str(&params)).ok();
    let reply = next_message(&worker);
    if worker.post_message_with_transfer(&msg, &js_sys::Array::of1(&arr.buffer())).is_err() {
        worker.terminate();
        return None;
    }
    Some(Started { worker, reply, n })
}

impl Started {
    /// The helper's spectrum, the helper then ended; `Ok(None)` when it could not compute it
    /// (the caller then does), the eigensolver's error when it failed there (it would fail
    /// in the worker too).
    pub async fn finish(self) -> Result<Option<Spectrum>> {
        let data = self.reply.await.ok();
        self.worker.terminate(); // its memory goes with it
        match data {
            Some(data) if js_sys::Reflect::get(&data, &"eigen_failed".into()).is_ok_and(|v| v.is_truthy()) => {
                Err(PosgeoError::Eigen)
            }
            Some(data) => Ok(decode(&data, self.n)),
            None => Ok(None),
        }
    }
}

/// A helper's answer: `{ eigenvalues, eigenvectors }` of n points (the vectors kept).
fn decode(data: &JsValue, n: usize) -> Option<Spectrum> {
    // (`null` when the helper died: no arrays, so `None`.)
    let f64s = |key: &str| {
        js_sys::Reflect::get(data, &key.into()).ok()?.dyn_into::<js_sys::Float64Array>().ok().map(|a| a.to_vec())
    };
    Spectrum::from_parts(f64s("eigenvalues")?, f64s("eigenvectors")?).filter(|s| s.n() == n)
}

/// The helper's side: the spectrum of the D it was sent, keeping the eigenvectors a run under
/// the `params` sent reads, answered as `{ eigenvalues, eigenvectors }` (transferred) or
/// `{ error }` (with `eigen_failed` when the eigensolver failed). B is built from the
/// message's rows of D, never copied whole into this memory. Returns false when the message
/// is not one.
pub fn serve(scope: &DedicatedWorkerGlobalScope, data: &JsValue) -> bool {
    let Some(arr) =
        js_sys::Reflect::get(data, &"spectrum_of".into()).ok().and_then(|v| v.dyn_into::<js_sys::Float64Array>().ok())
    else {
        return false;
    };
    let len = arr.length() as usize;
    let n = (len as f64).sqrt().round() as usize;
    let msg = js_sys::Object::new();
    let params = js_sys::Reflect::get(data, &"params".into()).ok().and_then(|v| v.as_string());
    let params: Option<AnalysisParams> = params.and_then(|p| serde_json::from_str(&p).ok());
    let spectrum = match params {
        Some(params) if n * n == len && n > 0 => {
            // B straight from the message's rows: no copy of D in this memory.
            let b = double_centre_rows(n, |i, row| arr.subarray((i * n) as u32, ((i + 1) * n) as u32).copy_to(row));
            let keep = |values: &[f64]| spectrum_keeps(&params, values);
            Spectrum::of_double_centred_keeping(b, keep).map_err(|e| (e.to_string(), true))
        }
        Some(_) => Err(("D is not square".to_string(), false)),
        None => Err(("no parameters with D".to_string(), false)),
    };
    match spectrum {
        Ok(s) => {
            let values = js_sys::Float64Array::from(&s.eigenvalues[..]);
            let vectors = js_sys::Float64Array::from(s.vectors());
            drop(s);
            js_sys::Reflect::set(&msg, &"eigenvalues".into(), &values).ok();
            js_sys::Reflect::set(&msg, &"eigenvectors".into(), &vectors).ok();
            scope.post_message_with_transfer(&msg, &js_sys::Array::of2(&values.buffer(), &vectors.buffer())).ok();
        }
        Err((e, eigen_failed)) => {
            js_sys::Reflect::set(&msg, &"error".into(), &JsValue::from_str(&e)).ok();
            js_sys::Reflect::set(&msg, &"eigen_failed".into(), &JsValue::from_bool(eigen_failed)).ok();
            scope.post_message(&msg).ok();
        }
    }
    true
}
