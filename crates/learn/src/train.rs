//! **One training run** (docs/MATH.md §16): a signal and a seed, AdamW as PyTorch defines it
//! (decoupled weight decay 0.01 on the 2-D tensors only), linear warm-up over the first
//! ⌊steps/10⌋ steps, and the
//! records: training loss, held-out loss and accuracy, and for trainable tables σ*,
//! Spearman, monotonicity and separation against D with the table's Procrustes-aligned map.

use super::data::{Batch, Batches};
use super::fused::Fused;
use super::init::Init;
use super::net::Shape;
use super::{Context, Signal};
use posgeo::error::{PosgeoError, Result};
use posgeo::points::Points;
use serde::{Deserialize, Serialize};

/// The measures of a position table against D at one record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableMeasures {
    /// σ* of the table (§6).
    pub scaled_stress: f64,
    /// Spearman's ρ between the table's distances and D.
    pub spearman: Option<f64>,
    /// The monotonicity violation rate of the table's distances (§7).
    pub monotonicity: Option<f64>,
    /// min_{i≠j}‖p_i − p_j‖ / median_{i≠j}‖p_i − p_j‖.
    pub separation: f64,
    /// The table aligned onto the PMDS map (Procrustes), two coordinates per position.
    pub map: Vec<[f64; 2]>,
}

/// What is recorded at one step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Updates done.
    pub step: usize,
    /// The mean batch loss since the previous record (none at step 0).
    pub train_loss: Option<f64>,
    /// The held-out loss.
    pub held_loss: f64,
    /// The held-out accuracy.
    pub held_accuracy: f64,
    /// Trainable tables only.
    pub table: Option<TableMeasures>,
}

/// One run's outcome; `error` says why it stopped early (its records so far are kept).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// The signal.
    pub signal: Signal,
    /// The run seed.
    pub seed: u64,
    /// The records, in step order.
    pub records: Vec<Record>,
    /// Every step's batch loss.
    pub train_loss: Vec<f64>,
    /// Every step's learning rate.
    pub lr: Vec<f64>,
    /// Why the run stopped before its last step.
    pub error: Option<String>,
    /// The final position table (n×d, row-major) of a trainable signal (`learned`,
    /// `learned_pmds`, `lowrank`'s A·Bᵀ); none for the others, whose tables do not change.
    #[serde(default, with = "widened")]
    pub table: Option<Vec<f32>>,
}

/// f32 values written as the f64 numbers they are exactly, so that a run serialised directly
/// and one serialised through `serde_json::Value` (the CLI's `--json` with its claims) print
/// the same digits.
mod widened {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(v: &Option<Vec<f32>>, s: S) -> Result<S::Ok, S::Error> {
        v.as_ref().map(|t| t.iter().map(|&x| f64::from(x)).collect::<Vec<f64>>()).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<f32>>, D::Error> {
        Ok(Option::<Vec<f64>>::deserialize(d)?.map(|t| t.into_iter().map(|x| x as f32).collect()))
    }
}

/// What a dump of a run needs besides its [`Run`]: the initial weights and every batch.
#[derive(Default)]
pub struct Trace {
    /// (name, shape, data) of every initial tensor, in order.
    pub init: Vec<(String, Vec<usize>, Vec<f32>)>,
    /// The training batches, in step order.
    pub batches: Vec<Batch>,
    /// (name, data) of every tensor after the last step, in the initial tensors' order.
    pub last: Vec<(String, Vec<f32>)>,
}

/// The learning rate of step `t` (0-based): lr·(t + 1)/w for t < w = ⌊steps/10⌋, lr after.
pub fn learning_rate(lr: f64, t: usize, steps: usize) -> f64 {
    let w = steps / 10;
    if t < w {
        lr * (t + 1) as f64 / w as f64
    } else {
        lr
    }
}

/// What the training loop needs of a model: the fused trainer ([`Fused`]) in the app, the
/// candle graph ([`super::oracle::Candle`]) as the tests' oracle.
pub trait Model: Sized {
    /// The model holding `init`'s tensors, for batches of up to `batch` sequences.
    fn build(shape: Shape, signal: Signal, init: &[Init], batch: usize) -> Result<Self>;
    /// One AdamW step at `lr`; the batch's loss before it (a non-finite loss updates nothing).
    fn step(&mut self, batch: &Batch, lr: f64) -> Result<f64>;
    /// The held-out loss and accuracy.
    fn evaluate(&mut self, held: &[Batch]) -> Result<(f64, f64)>;
    /// The position table (n×d, row-major) of an additive signal.
    fn table(&self) -> Result<Option<Vec<f32>>>;
    /// Every tensor's current value, by name (a dump's final weights; none by default).
    fn tensors(&self) -> Vec<(String, Vec<f32>)> {
        Vec::new()
    }
}

impl Model for Fused {
    fn build(shape: Shape, signal: Signal, init: &[Init], batch: usize) -> Result<Self> {
        Fused::new(shape, signal, init, batch)
    }
    fn step(&mut self, batch: &Batch, lr: f64) -> Result<f64> {
        Fused::step(self, batch, lr)
    }
    fn evaluate(&mut self, held: &[Batch]) -> Result<(f64, f64)> {
        Fused::evaluate(self, held)
    }
    fn tensors(&self) -> Vec<(String, Vec<f32>)> {
        Fused::tensors(self)
    }
    fn table(&self) -> Result<Option<Vec<f32>>> {
        Ok(Fused::table(self))
    }
}

/// The measures of an n×d table against the context's D.
pub fn measure_table(ctx: &Context, table: &[f32]) -> TableMeasures {
    let (n, d) = (ctx.data.n, table.len() / ctx.data.n.max(1));
    let points = Points::from_fn(n, d, |i, k| table[i * d + k] as f64);
    let delta = points.distances();
    let report = posgeo::measures::stress::stress_against(&delta, &ctx.target);
    let mut upper: Vec<f64> = delta.upper_values().collect();
    upper.sort_unstable_by(f64::total_cmp);
    let m = upper.len();
    let median = if m % 2 == 1 { upper[m / 2] } else { 0.5 * (upper[m / 2 - 1] + upper[m / 2]) };
    let separation = if median > 0.0 { upper[0] / median } else { 0.0 };
    let aligned = posgeo::measures::procrustes::align(&ctx.map_target, &points).aligned;
    let map = (0..n).map(|i| [aligned.row(i)[0], aligned.row(i).get(1).copied().unwrap_or(0.0)]).collect();
    TableMeasures {
        scaled_stress: report.scaled_stress,
        spearman: report.spearman,
        monotonicity: report.monotonicity_violation_rate,
        separation,
        map,
    }
}

/// What [`run`] tells its caller as it goes.
#[derive(Debug, Clone, Copy)]
pub enum Tick<'a> {
    /// Step t (0-based) is about to be taken; answering false cancels.
    Step(usize),
    /// A record was just taken: the run so far (for live curves).
    Recorded(&'a Run),
}

/// Trains `signal` with `seed`; `trace` (for a dump) receives the initial weights and the
/// batches. `progress` hears each step before it is taken (false cancels:
/// [`PosgeoError::Cancelled`] in `error`) and the run so far after each record.
pub fn run(
    ctx: &Context,
    signal: Signal,
    seed: u64,
    trace: Option<&mut Trace>,
    progress: &mut dyn FnMut(Tick<'_>) -> bool,
) -> Result<Run> {
    run_with::<Fused>(ctx, signal, seed, trace, progress)
}

/// [`run`] on any implementation of the model.
pub fn run_with<M: Model>(
    ctx: &Context,
    signal: Signal,
    seed: u64,
    mut trace: Option<&mut Trace>,
    progress: &mut dyn FnMut(Tick<'_>) -> bool,
) -> Result<Run> {
    let p = &ctx.params;
    let shape = ctx.shape();
    let init = super::init::tensors(shape, signal, seed, ctx.table(signal, seed)?);
    let mut net = M::build(shape, signal, &init, p.batch)?;
    if let Some(t) = trace.as_deref_mut() {
        t.init = init.into_iter().map(|i| (i.name, i.dims, i.data)).collect();
    }
    let mut run =
        Run { signal, seed, records: Vec::new(), train_loss: Vec::new(), lr: Vec::new(), error: None, table: None };
    let trainable = signal.trainable();
    let record = |net: &mut M, step: usize, train_loss: Option<f64>| -> Result<Record> {
        let (held_loss, held_accuracy) = net.evaluate(&ctx.held)?;
        let table = match (trainable, net.table()?) {
            (true, Some(t)) => Some(measure_table(ctx, &t)),
            _ => None,
        };
        Ok(Record { step, train_loss, held_loss, held_accuracy, table })
    };
    run.records.push(record(&mut net, 0, None)?);
    progress(Tick::Recorded(&run));
    let mut since = Vec::new();
    for (t, batch) in Batches::new(&ctx.data, p.batch, p.mask_rate, seed).take(p.steps).enumerate() {
        if !progress(Tick::Step(t)) {
            run.error = Some(PosgeoError::Cancelled.to_string());
            break;
        }
        let lr = learning_rate(p.lr, t, p.steps);
        let loss = net.step(&batch, lr)?;
        if let Some(tr) = trace.as_deref_mut() {
            tr.batches.push(batch.padded_to(ctx.data.n));
        }
        run.lr.push(lr);
        run.train_loss.push(loss);
        if !loss.is_finite() {
            run.error = Some(format!(
                "{} (seed {seed}) diverged at step {t}: the training loss is {loss}; lower the learning rate",
                signal.name()
            ));
            break;
        }
        since.push(loss);
        let done = t + 1;
        if done % p.every == 0 || done == p.steps {
            let mean = since.iter().sum::<f64>() / since.len() as f64;
            since.clear();
            run.records.push(record(&mut net, done, Some(mean))?);
            progress(Tick::Recorded(&run));
        }
    }
    if trainable {
        run.table = net.table()?;
    }
    if let Some(t) = trace {
        t.last = net.tensors();
    }
    Ok(run)
}
