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

use super::courier::{post_job, reply};
use super::pool::{failed, helpers};
use super::protocol::jobs::{Answer, Job};
use posgeo::analysis::AnalysisParams;
use posgeo::error::{PosgeoError, Result};
use posgeo::mds::Spectrum;
use posgeo::metric::DistanceMatrix;
use web_sys::Worker;

/// From this many positions a helper computes the spectrum (below it the eigen-step's
/// matrices are small, 170 MB at n = 2048, and starting a helper is not worth it).
pub const FROM_N: usize = 2048;

/// A spectrum being computed by a helper worker ([`start`]).
pub struct Started {
    worker: Worker,
    reply: super::courier::Pending,
    n: usize,
}

/// Sends D, for a run under `params`, to a helper worker that computes its spectrum; `None`
/// below [`FROM_N`] or when no helper could take it (the caller then computes it).
pub async fn start(d: &DistanceMatrix, params: &AnalysisParams) -> Option<Started> {
    let n = d.n();
    if n < FROM_N {
        return None;
    }
    let worker = helpers(1).await?.pop()?;
    let arr = js_sys::Float64Array::from(d.as_slice());
    let reply = super::courier::expect(&worker, super::courier::spectrum_silence_ms(n), None);
    let job = Job::Spectrum { n, params: params.clone() };
    if let Err(e) = post_job(&worker, &job, &[arr.clone().into()], &[arr.buffer().into()]) {
        failed(format!("the spectrum in a helper: {e}"));
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
        let answer = reply(self.reply).await;
        self.worker.terminate(); // its memory goes with it
        let problem = match answer {
            Answer::Spectrum { eigenvalues, eigenvectors } => {
                match Spectrum::from_parts(eigenvalues, eigenvectors).filter(|s| s.n() == self.n) {
                    Some(s) => return Ok(Some(s)),
                    None => "its eigenvectors are not those of D".to_string(),
                }
            }
            Answer::EigenFailed { .. } => return Err(PosgeoError::Eigen),
            Answer::Failed { message } => message,
            _ => "it gave another answer".to_string(),
        };
        failed(format!("the spectrum in a helper: {problem}"));
        Ok(None)
    }
}
