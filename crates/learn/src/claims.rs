//! **The paper's training claims, checked on this corpus's experiment** (docs/MATH.md §15 and
//! §16), in the shape of the report's claims ([`posgeo::report::Claim`]): read from the
//! [`Experiment`], nothing recomputed. The thresholds are the project's readings:
//!
//! 8. `training_separates` — Theorem 4: at a minimiser distinct positions get distinct
//!    vectors. Holds when every trainable table that finished ends with separation
//!    min‖p_i − p_j‖ / median‖p_i − p_j‖ ≥ 0.01.
//! 9. `learned_monotone` — the monotonicity conjecture: learned distances follow the corpus
//!    order. Holds when the `learned` table's final violation rate is below its rate at
//!    step 0 (noise).
//! 10. `stress_predicts_loss` — an encoding closer to the corpus geometry trains a better
//!     model: Spearman's ρ(held-out loss, σ*) ≥ 0.5 over the signals; undetermined (`null`)
//!     when the finding is ([`super::significance`]: p > 0.05, or the seeds disagree in sign).
//! 11. `position_helps` — Theorem 1's consequence: without a position signal the model cannot
//!     tell orders apart, so `learned` and `sinusoidal` each train below `nope` in held-out
//!     loss. Holds when both differences clear the spread over seeds
//!     ([`super::significance::below`]), fails when either is above `nope` by that margin,
//!     undetermined otherwise.
//! 12. `lowrank_suffices` — the paper's low-rank result, trained: a table P = A·Bᵀ of rank
//!     r = r_E (r(n + d) parameters) trains as well as a full learned table (n·d): its held-out
//!     loss is at most `learned`'s plus the larger of their ranges over seeds (plus 1 % of
//!     `learned`'s loss with one seed).

use super::{Experiment, Signal};
use posgeo::report::Claim;
use std::collections::BTreeMap;

/// The lecture step on training (13, "Training separates positions": Theorem 4, live).
pub const STEP_SEPARATION: usize = 13;
/// The lecture step on stress against loss (14, "Does lower stress mean lower loss?").
pub const STEP_LOSS: usize = 14;

fn claim(
    key: &str,
    finding: &str,
    paper: &str,
    holds: Option<bool>,
    reason: String,
    values: Vec<(String, f64)>,
    step: usize,
) -> Claim {
    Claim {
        key: key.into(),
        finding: finding.into(),
        paper: paper.into(),
        holds,
        reason,
        values: values.into_iter().filter(|(_, v)| v.is_finite()).collect::<BTreeMap<_, _>>(),
        step,
    }
}

/// The five training claims of `e`.
pub fn claims(e: &Experiment) -> Vec<Claim> {
    vec![helps(e), separates(e), monotone(e), predicts(e), low_rank(e)]
}

fn low_rank(e: &Experiment) -> Claim {
    let finding = "A rank-r table trains as well as a full learned table";
    let paper = "the optimal encoding has low effective rank: r(n + d) parameters instead of n·d";
    let get = |s: Signal| e.signals.iter().find(|x| x.signal == s);
    let (Some(full), Some(low)) = (get(Signal::Learned), get(Signal::LowRank)) else {
        let reason = "learned and lowrank must both finish".into();
        return claim("lowrank_suffices", finding, paper, None, reason, vec![], STEP_SEPARATION);
    };
    let range = |s: &super::SignalSummary| s.held_loss_range[1] - s.held_loss_range[0];
    let margin = if e.finding.seeds <= 1 { 0.01 * full.held_loss } else { range(full).max(range(low)) };
    let (n, d, r) = (e.n as f64, e.params.d_model as f64, e.lowrank_rank as f64);
    let holds =
        (low.held_loss.is_finite() && full.held_loss.is_finite()).then_some(low.held_loss <= full.held_loss + margin);
    let reason = format!(
        "held-out loss: rank {} table {:.4} with {} parameters, learned {:.4} with {}; margin {margin:.4}",
        e.lowrank_rank,
        low.held_loss,
        r * (n + d),
        full.held_loss,
        n * d
    );
    let values = vec![
        ("lowrank.held_loss".into(), low.held_loss),
        ("learned.held_loss".into(), full.held_loss),
        ("lowrank.rank".into(), r),
        ("lowrank.parameters".into(), r * (n + d)),
        ("learned.parameters".into(), n * d),
    ];
    claim("lowrank_suffices", finding, paper, holds, reason, values, STEP_SEPARATION)
}

fn helps(e: &Experiment) -> Claim {
    let finding = "A position signal helps: learned and sinusoidal tables train below no position at all";
    let paper = "Theorem 1: without a positional signal the model is permutation equivariant";
    let get = |s: Signal| e.signals.iter().find(|x| x.signal == s);
    let (Some(nope), Some(learned), Some(sin)) = (get(Signal::Nope), get(Signal::Learned), get(Signal::Sinusoidal))
    else {
        let reason = "nope, learned and sinusoidal must all finish".into();
        return claim("position_helps", finding, paper, None, reason, vec![], STEP_SEPARATION);
    };
    let verdicts = [super::significance::below(learned, nope), super::significance::below(sin, nope)];
    let holds = if verdicts.contains(&Some(false)) {
        Some(false)
    } else if verdicts.iter().all(|v| *v == Some(true)) {
        Some(true)
    } else {
        None
    };
    let spread = if e.finding.seeds <= 1 { "1 % of nope's loss (one seed)" } else { "the spread over seeds" };
    let reason = format!(
        "held-out loss: nope {:.4}, learned {:.4}, sinusoidal {:.4}{}",
        nope.held_loss,
        learned.held_loss,
        sin.held_loss,
        if holds.is_none() { format!("; a difference within {spread} is undetermined") } else { String::new() }
    );
    let values = [nope, learned, sin].iter().map(|s| (format!("{}.held_loss", s.signal.name()), s.held_loss)).collect();
    claim("position_helps", finding, paper, holds, reason, values, STEP_SEPARATION)
}

fn separates(e: &Experiment) -> Claim {
    let finding = "Training separates positions: distinct positions end with distinct vectors (Theorem 4)";
    let paper = "at every global minimiser, p_i ≠ p_j for i ≠ j";
    let tables: Vec<_> = e.signals.iter().filter_map(|s| s.separation.map(|v| (s.signal, v))).collect();
    if tables.is_empty() {
        return claim(
            "training_separates",
            finding,
            paper,
            None,
            "no trainable table finished (learned, learned_pmds)".into(),
            vec![],
            STEP_SEPARATION,
        );
    }
    let holds = tables.iter().all(|(_, v)| *v >= 0.01);
    let reason = tables.iter().map(|(s, v)| format!("{}: separation {v:.3}", s.name())).collect::<Vec<_>>().join("; ");
    let values = tables.iter().map(|(s, v)| (format!("{}.separation", s.name()), *v)).collect();
    claim("training_separates", finding, paper, Some(holds), reason, values, STEP_SEPARATION)
}

fn monotone(e: &Experiment) -> Claim {
    let finding = "A learned table becomes monotone: its distances grow with |i − j| as training goes on";
    let paper = "monotonicity conjecture (proved in the NTK regime)";
    let learned = e.signals.iter().find(|s| s.signal == Signal::Learned);
    let Some((end, start)) = learned.and_then(|s| Some((s.monotonicity?, s.initial_monotonicity?))) else {
        return claim(
            "learned_monotone",
            finding,
            paper,
            None,
            "the learned signal did not finish".into(),
            vec![],
            STEP_SEPARATION,
        );
    };
    let reason = format!("violation rate {start:.4} at step 0, {end:.4} after training");
    let values = vec![("learned.monotonicity".into(), end), ("learned.initial_monotonicity".into(), start)];
    claim("learned_monotone", finding, paper, Some(end < start), reason, values, STEP_SEPARATION)
}

fn predicts(e: &Experiment) -> Claim {
    let finding = "Lower stress goes with lower held-out loss";
    let paper = "the paper reports stress, not task loss: this is the experiment it implies";
    let f = &e.finding;
    let Some(rho) = f.rho else {
        return claim("stress_predicts_loss", finding, paper, None, f.sentence.clone(), vec![], STEP_LOSS);
    };
    let p = f.p_value.unwrap_or(f64::NAN);
    let mut reason = format!("Spearman ρ(held-out loss, σ*) = {rho:.3}, p = {p:.3} over {} signals", f.signals);
    if !f.determined {
        reason.push_str(": undetermined (p > 0.05 or the seeds disagree in sign)");
    }
    let holds = f.determined.then_some(rho >= 0.5);
    let values = vec![("finding.rho".into(), rho), ("finding.p_value".into(), p)];
    claim("stress_predicts_loss", finding, paper, holds, reason, values, STEP_LOSS)
}
