//! Steps 13 and 14: **what training does with position** (docs/MATH.md §16), from the Learn
//! panel's last finished training — (13) Theorem 4, how the trainable tables' separation and
//! σ* move from step 0 to the last step; (14) the finding, Spearman's ρ between held-out loss
//! and σ* over the signals, beside the scatter. Every number comes from that experiment;
//! nothing here is a claim about training in general.

use super::{num, Block};
use posgeo_learn::{Experiment, Run, TableMeasures};

/// What a step says when the Learn panel has not trained yet.
fn not_trained(what: &str) -> Vec<Block> {
    vec![Block::Text(format!(
        "No training yet. Press “Train the lecture preset here” in step 13 (four signals, 400 steps of 16 sequences: \
         the smallest run whose verdicts agree with the full run's), or in the dashboard's Learn panel \
         choose the signals and press Train: {what}"
    ))]
}

/// The corpus the training read, in words.
fn trained_on(e: &Experiment) -> String {
    format!(
        "The Learn panel's last training read {} training and {} held-out sequences (n = {} positions, {} token \
         types) and trained each signal {} steps, {} seed(s), width d = {}.",
        e.train_sequences, e.held_sequences, e.n, e.vocab, e.params.steps, e.params.seeds, e.params.d_model
    )
}

/// Mean of `f` over the runs' first (`last` false) or last records that measured a table.
fn mean(runs: &[&Run], last: bool, f: fn(&TableMeasures) -> f64) -> Option<f64> {
    let v: Vec<f64> = runs
        .iter()
        .filter_map(|r| if last { r.records.last() } else { r.records.first() })
        .filter_map(|x| x.table.as_ref().map(f))
        .collect();
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

fn moved(from: f64, to: f64) -> &'static str {
    match to.total_cmp(&from) {
        std::cmp::Ordering::Greater => "rose",
        std::cmp::Ordering::Less => "fell",
        std::cmp::Ordering::Equal => "stayed",
    }
}

/// Step 13: Theorem 4 on the last training's trainable tables.
pub fn separates(e: Option<&Experiment>) -> Vec<Block> {
    let what = "this step then reports how the learned table's separation and σ* move as it trains.";
    let Some(e) = e else { return not_trained(what) };
    let mut out = vec![
        Block::Text(
            "Theorem 4: at a minimiser of the loss, distinct positions get distinct vectors. The separation \
             min‖pᵢ − pⱼ‖ / median‖pᵢ − pⱼ‖ is 0 when two positions share a vector; σ* measures how far the \
             table's geometry is from the corpus's D."
                .into(),
        ),
        Block::Text(trained_on(e)),
    ];
    let mut rows = Vec::new();
    for &signal in e.params.signals.iter().filter(|s| s.trainable()) {
        let runs: Vec<&Run> = e.runs.iter().filter(|r| r.signal == signal && !r.records.is_empty()).collect();
        let step = runs.iter().filter_map(|r| r.records.last()).map(|x| x.step).max().unwrap_or(0);
        let sep = (mean(&runs, false, |t| t.separation), mean(&runs, true, |t| t.separation));
        let sigma = (mean(&runs, false, |t| t.scaled_stress), mean(&runs, true, |t| t.scaled_stress));
        let (Some(s0), Some(s1), Some(g0), Some(g1)) = (sep.0, sep.1, sigma.0, sigma.1) else { continue };
        out.push(Block::Text(format!(
            "{}: the separation {} from {} at step 0 to {} at step {step}; σ* {} from {} to {} (mean over {} seed(s)).",
            signal.name(),
            moved(s0, s1),
            num(s0),
            num(s1),
            moved(g0, g1),
            num(g0),
            num(g1),
            runs.len()
        )));
        rows.push(vec![signal.name().to_string(), num(s0), num(s1), num(g0), num(g1)]);
    }
    if rows.is_empty() {
        out.push(Block::Text(format!("That training had no trainable table: {what}")));
        return out;
    }
    let head = ["signal", "separation, step 0", "separation, end", "σ*, step 0", "σ*, end"];
    out.push(Block::Grid(head.iter().map(|h| (*h).to_string()).collect(), rows));
    out
}

/// Step 14: the finding on the last training, signal by signal.
pub fn finding(e: Option<&Experiment>) -> Vec<Block> {
    let what = "this step then reports Spearman's ρ between each signal's held-out loss and its σ*.";
    let Some(e) = e else { return not_trained(what) };
    let f = &e.finding;
    let mut out = vec![Block::Text(trained_on(e))];
    let mut points: Vec<_> =
        e.signals.iter().filter_map(|s| s.scaled_stress.map(|st| (st, s.held_loss, s.signal.name()))).collect();
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    let listed: Vec<String> =
        points.iter().map(|(st, loss, name)| format!("{name} σ* {}, loss {}", num(*st), num(*loss))).collect();
    if !listed.is_empty() {
        out.push(Block::Text(format!("From the lowest σ* to the highest: {}.", listed.join("; "))));
    }
    let rho = match f.rho {
        Some(r) => format!("Spearman's ρ between held-out loss and σ* over these {} signals is {}.", f.signals, num(r)),
        None => format!(
            "ρ cannot be computed from {} signal(s) with a σ* (it needs three or more, not all equal).",
            points.len()
        ),
    };
    let mut said = format!("{rho} {}", f.sentence);
    if let Some([a, b]) = f.rho_range.filter(|_| f.seeds > 1) {
        said += &format!(" Seed by seed, ρ runs from {} to {}.", num(a), num(b));
    }
    out.push(Block::Text(said));
    out
}
