//! `train`: the CLI's `posgeo train` (docs/MATH.md §16) on a Python corpus — count keeping
//! every sequence, D and its spectrum (no SMACOF), one small transformer per position signal
//! and seed, the summary and its finding — returned as the `--json` text. Progress goes to
//! the caller's callback `progress(stage, fraction)` (counting 0–20 %, training 20–100 %, as
//! the CLI's bar); Ctrl-C (or a failing callback) cancels the runs still going and is raised.

use super::errors::to_py;
use super::options::learn_params_from;
use super::run::{with_tokenizer, Reporter};
use super::source::{count_source, Layout};
use posgeo_learn::{self as learn, Context, Run};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::Duration;

/// The share of the bar the counting takes (the CLI's).
const COUNTING: f64 = 0.2;

/// Tells `stage` at `fraction`; `false` (the error kept in the reporter) on Ctrl-C or a
/// failing callback.
fn keep_going(reporter: &mut Reporter<'_>, stage: &str, fraction: Option<f64>) -> bool {
    match reporter.tell(stage, fraction) {
        Ok(()) => true,
        Err(e) => {
            reporter.failed.get_or_insert(e);
            false
        }
    }
}

/// [`learn::run_all`] on a thread of its own while this one, without the GIL between its
/// reports, tells the progress and watches for Ctrl-C (which stops the runs still going).
fn run_all(py: Python<'_>, ctx: &Context, reporter: &mut Reporter<'_>) -> PyResult<Vec<Run>> {
    let done = AtomicU64::new(0f64.to_bits());
    let (stop, finished) = (AtomicBool::new(false), AtomicBool::new(false));
    let caller = std::thread::current();
    std::thread::scope(|s| {
        let worker = s.spawn(|| {
            let runs = learn::run_all(ctx, false, &|f| {
                done.store(f.to_bits(), Relaxed);
                !stop.load(Relaxed)
            });
            finished.store(true, Relaxed);
            caller.unpark();
            runs
        });
        while !finished.load(Relaxed) && !worker.is_finished() {
            let fraction = COUNTING + (1.0 - COUNTING) * f64::from_bits(done.load(Relaxed));
            if !stop.load(Relaxed) && !keep_going(reporter, "training", Some(fraction)) {
                stop.store(true, Relaxed);
            }
            py.detach(|| std::thread::park_timeout(Duration::from_millis(100)));
        }
        let runs = worker.join().map_err(|_| PyRuntimeError::new_err("posgeo: a training thread panicked"))?;
        Ok(runs.into_iter().map(|(run, _)| run).collect())
    })
}

/// The learning experiment on a corpus (see the module docs): the `posgeo train --json` text.
/// `options` holds analysis and experiment options alike.
#[pyfunction]
#[pyo3(signature = (source, options, layout, tokenizer_file, progress, preset=None))]
pub fn train(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    options: Option<&Bound<'_, PyDict>>,
    layout: Layout,
    tokenizer_file: Option<PathBuf>,
    progress: Option<Bound<'_, PyAny>>,
    preset: Option<&str>,
) -> PyResult<String> {
    let (mut params, mut learn_params) = learn_params_from(options)?;
    match preset {
        None => {}
        Some("lecture") => learn::preset::lecture(&mut learn_params),
        Some(other) => {
            let known = learn::preset::PRESETS.join(", ");
            return Err(to_py(posgeo::PosgeoError::option(
                "preset",
                format!("unknown preset `{other}`; presets: {known}"),
            )));
        }
    }
    with_tokenizer(&mut params, tokenizer_file.as_deref())?;
    params.validate().map_err(to_py)?;
    learn_params.validate().map_err(to_py)?;
    let mut reporter = Reporter::new(py, progress);
    let counting = |f: Option<f64>| f.map(|f| COUNTING * f);
    let streamed = count_source(source, &layout, &params, usize::MAX, &mut |f| reporter.tell("counting", counting(f)))?;
    let ctx = learn::prepare(&streamed.table, &streamed.first, &params, &learn_params, &mut |_| {
        keep_going(&mut reporter, "geometry", Some(COUNTING))
    });
    drop(streamed);
    let ctx = reporter.finish(ctx)?;
    let runs = run_all(py, &ctx, &mut reporter);
    if let Some(e) = reporter.failed.take() {
        return Err(e);
    }
    let experiment = learn::summarise(&ctx, runs?).map_err(to_py)?;
    reporter.tell("training", Some(1.0))?;
    serde_json::to_string(&experiment).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}
