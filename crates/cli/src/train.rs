//! `posgeo train`: the learning experiment (docs/MATH.md §16) on a corpus — one small
//! transformer per position signal and seed, trained by masked-token prediction; the
//! held-out loss beside each signal's stress, and the finding. `--dump DIR` writes what an
//! independent replay needs.

use crate::cli::{AnalysisOptions, LearnOptions};
use crate::input::{self, progress_bar, InputArgs};
use clap::Args;
use posgeo::error::Frontend;
use posgeo_learn::{self as learn, Experiment};
use std::io::Write;
use std::path::PathBuf;

#[derive(Args)]
pub struct TrainArgs {
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    options: AnalysisOptions,
    #[command(flatten)]
    learn: LearnOptions,
    /// A Hugging Face tokenizer.json: count and train on the model's tokens.
    #[arg(long)]
    tokenizer_file: Option<String>,
    /// Print the whole experiment (every record of every run) as one JSON object.
    #[arg(long)]
    json: bool,
    /// Write SIGNAL/init.safetensors, batches.safetensors, held.safetensors,
    /// final.safetensors and run.json for each signal's first seed (docs/MATH.md §16), for an
    /// independent replay.
    #[arg(long)]
    dump: Option<PathBuf>,
    /// Add the paper's training claims (separation, monotone learned tables, stress against
    /// loss), checked on this experiment.
    #[arg(long)]
    claims: bool,
    /// `lecture`: the smallest run whose verdicts agree with the default run's (docs/MATH.md
    /// §16) — four signals (nope, sinusoidal, learned, pmds), 400 steps, batch 16, a record
    /// every 20 steps. It overrides those four options.
    #[arg(long, value_parser = ["lecture"])]
    preset: Option<String>,
}

/// With several runs and several threads, the runs go side by side on rayon's threads and each
/// run's matrix products stay on its own thread: candle reads `RAYON_NUM_THREADS` at every
/// product, and its products split over threads while other runs hold them wait on each other
/// (two runs side by side took 2.9× one run's time; one thread each, about 1×). rayon's pool is
/// built first, with every thread. The numbers do not change: a product's threads split its
/// output, not its sums.
fn one_thread_per_run(ctx: &learn::Context) {
    if learn::jobs(ctx).len() > 1 && posgeo::par::threads() > 1 {
        std::env::set_var("RAYON_NUM_THREADS", "1");
    }
}

pub fn run(a: TrainArgs) -> Result<(), String> {
    let err = |e: posgeo::PosgeoError| e.message_for(Frontend::Cli);
    let params = input::with_model_tokenizer(a.options.0.clone()?, a.tokenizer_file.as_deref())?;
    let mut learn_params = a.learn.0.clone()?;
    if a.preset.as_deref() == Some("lecture") {
        learn::preset::lecture(&mut learn_params);
    }
    params.validate().map_err(err)?;
    learn_params.validate().map_err(err)?;
    let bar = progress_bar()?;
    let s = a.input.count(&params, usize::MAX, &bar, 0.2)?;
    bar.set_message("geometry");
    let ctx = learn::prepare(&s.table, &s.first, &params, &learn_params, &mut |_| true).map_err(err)?;
    bar.set_message("training");
    one_thread_per_run(&ctx);
    let results = learn::run_all(&ctx, a.dump.is_some(), &|f| {
        bar.set_position((20.0 + 80.0 * f) as u64);
        true
    });
    bar.finish_and_clear();
    if let Some(dir) = &a.dump {
        for (run, trace) in &results {
            let Some(trace) = trace else { continue };
            let sub = dir.join(run.signal.name());
            std::fs::create_dir_all(&sub).map_err(|e| format!("cannot create {}: {e}", sub.display()))?;
            for (name, bytes) in learn::dump::files(&ctx, run, trace).map_err(err)? {
                let path = sub.join(name);
                std::fs::write(&path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            }
        }
    }
    let experiment = learn::summarise(&ctx, results.into_iter().map(|(r, _)| r).collect()).map_err(err)?;
    let mut out = std::io::stdout().lock();
    let claims = learn::claims::claims(&experiment);
    if a.json {
        let mut value = serde_json::to_value(&experiment).map_err(|e| e.to_string())?;
        if let (true, Some(map)) = (a.claims, value.as_object_mut()) {
            map.insert("claims".into(), serde_json::to_value(&claims).map_err(|e| e.to_string())?);
        }
        serde_json::to_writer(&mut out, &value).map_err(|e| e.to_string())?;
        writeln!(out).ok();
    } else {
        write!(out, "{}", render(&experiment)).ok();
        if a.claims {
            for c in &claims {
                let verdict = match c.holds {
                    Some(true) => "holds",
                    Some(false) => "does not hold",
                    None => "not determined",
                };
                writeln!(out, "\n[{verdict}] {}\n  {}", c.finding, c.reason).ok();
            }
        }
    }
    Ok(())
}

fn num(v: Option<f64>) -> String {
    v.map_or("—".into(), |x| format!("{x:.4}"))
}

/// The readable summary: a row per signal, the runs that stopped early, the finding.
fn render(e: &Experiment) -> String {
    let mut s = format!(
        "Learning: {} positions, |V| = {}, {} training and {} held-out sequences, {} steps, seeds 1..{}\n\n",
        e.n, e.vocab, e.train_sequences, e.held_sequences, e.params.steps, e.params.seeds
    );
    s += &format!(
        "{:<14} {:>10} {:>16} {:>9} {:>8} {:>10} {:>12}\n",
        "signal", "held loss", "range", "accuracy", "σ*", "separation", "monotonicity"
    );
    for r in &e.signals {
        s += &format!(
            "{:<14} {:>10.4} {:>16} {:>9.4} {:>8} {:>10} {:>12}\n",
            r.signal.name(),
            r.held_loss,
            format!("{:.4}–{:.4}", r.held_loss_range[0], r.held_loss_range[1]),
            r.held_accuracy,
            num(r.scaled_stress),
            num(r.separation),
            num(r.monotonicity)
        );
    }
    for run in e.runs.iter().filter(|r| r.error.is_some()) {
        s += &format!("\n{} (seed {}): {}", run.signal.name(), run.seed, run.error.as_deref().unwrap_or(""));
    }
    let f = &e.finding;
    let range = f.rho_range.map_or(String::new(), |[a, b]| format!(", seed by seed {a:.2} to {b:.2}"));
    s += &format!(
        "\n\nFinding: Spearman ρ(held-out loss, σ*) = {} over {} signals{range}.\n{}\n",
        num(f.rho),
        f.signals,
        f.sentence
    );
    s
}
