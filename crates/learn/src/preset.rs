//! **The lecture preset** (docs/MATH.md §16, "The lecture preset"): the smallest run of the
//! learning experiment whose verdicts agree with the default run's — learned and sinusoidal
//! below `nope` in held-out loss, the learned table's final separation above zero and above its
//! initial one, its final monotonicity violation rate below its initial one, and the sign of ρ
//! — chosen by measurement on corpora of different kinds (`bench/lecture_preset.py`; the
//! table of that agreement is in docs/MATH.md). It records every [`LECTURE_EVERY`] steps (21
//! records a run), so a lecture sees the tables move without the held-out scoring of each
//! record costing more than a tenth of the run.

use super::{LearnParams, Signal};

/// The signals the preset trains: the reference without position, the fixed sinusoids, the
/// optimal PMDS table and the trainable table the verdicts read, in the report's order (ρ needs
/// three with σ*).
pub const LECTURE_SIGNALS: [Signal; 4] = [Signal::Nope, Signal::Sinusoidal, Signal::Pmds, Signal::Learned];
/// Steps of each run.
pub const LECTURE_STEPS: usize = 400;
/// Sequences per batch.
pub const LECTURE_BATCH: usize = 16;
/// Steps between records.
pub const LECTURE_EVERY: usize = 20;

/// The preset's names, as `--preset` and the page take them.
pub const PRESETS: [&str; 1] = ["lecture"];

/// Sets the preset's options (signals, steps, batch, `every`); the others are left as given.
pub fn lecture(p: &mut LearnParams) {
    p.signals = LECTURE_SIGNALS.to_vec();
    p.steps = LECTURE_STEPS;
    p.batch = LECTURE_BATCH;
    p.every = LECTURE_EVERY;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_preset_is_smaller_than_the_default_run_and_valid() {
        let mut p = LearnParams::default();
        let full = p.signals.len() * p.steps * p.batch;
        lecture(&mut p);
        assert!(p.validate().is_ok());
        assert!(p.signals.len() * p.steps * p.batch * 3 <= full, "at most a third of the default run's work");
        assert!(p.steps / p.every >= 20, "at least 20 records a run");
        assert!(p.signals.iter().filter(|s| s.additive()).count() >= 3, "ρ needs three signals with σ*");
    }
}
