//! The fused trainer against the candle model, its oracle (docs/MATH.md §16,
//! "Implementations"): from the same initial weights and batches, every gradient of the first
//! step to 10⁻⁴ relative and every loss of the first 20 steps to 10⁻⁵, for every signal; the
//! held-out loss and accuracy at each record too.

use super::super::oracle::{compare, relative, Candle};
use super::super::tests::small;
use super::super::train::run_with;
use super::super::{Context, LearnParams, Signal};
use super::Fused;

/// A context over a small synthetic corpus with every signal; `rate` is the mask rate.
fn context(rate: f64, batch: usize) -> Context {
    let p = LearnParams { mask_rate: rate, batch, d_model: 16, heads: 2, layers: 2, ..small(&Signal::ALL, 20) };
    crate::test_support::learn_context(160, 14, &p)
}

/// Gradients and twenty losses for every signal, also with batches whose chosen positions
/// span several output chunks.
#[test]
fn the_fused_trainer_follows_candle_for_every_signal() {
    for (rate, batch) in [(0.15, 6), (0.95, 32)] {
        let ctx = context(rate, batch);
        for signal in Signal::ALL {
            let a = compare(&ctx, signal, 1, 20).expect("compare");
            assert!(a.worst_gradient.1 < 1e-4, "{signal:?}: {:?}", a.worst_gradient);
            assert!(a.worst_loss < 1e-5, "{signal:?}: losses {}", a.worst_loss);
            assert_eq!(a.steps, 20);
            // E, LN_f's two, b_out, twelve a block, and a trainable table (lowrank: A and B).
            let table = match signal {
                Signal::LowRank => 2,
                s => usize::from(s.trainable()),
            };
            assert_eq!(a.gradients, 4 + 12 * 2 + table, "{signal:?}");
        }
    }
}

/// The comparison can fail: a trainer started from other weights is far from the oracle.
#[test]
fn the_comparison_sees_a_wrong_gradient() {
    let a = [1.0f32, 2.0, 3.0];
    assert_eq!(relative(&a, &a), 0.0);
    assert!(relative(&[1.0, 2.0, 3.1], &a) > 0.03);
    assert_eq!(relative(&[f32::NAN, 2.0, 3.0], &a), f64::INFINITY);
    assert_eq!(relative(&a[..2], &a), f64::INFINITY);
}

/// Whole runs of both: every loss and the held-out loss and accuracy at each record.
#[test]
fn whole_runs_match_candles_records() {
    let ctx = context(0.15, 6);
    for signal in [Signal::Learned, Signal::Rope, Signal::Alibi, Signal::Sinusoidal, Signal::LowRank] {
        let fused = run_with::<Fused>(&ctx, signal, 1, None, &mut |_| true).expect("fused");
        let oracle = run_with::<Candle>(&ctx, signal, 1, None, &mut |_| true).expect("candle");
        assert_eq!((fused.train_loss.len(), oracle.train_loss.len()), (20, 20));
        for (t, (a, b)) in fused.train_loss.iter().zip(&oracle.train_loss).enumerate() {
            assert!((a - b).abs() < 1e-5, "{signal:?} step {t}: {a} vs {b}");
        }
        assert_eq!(fused.records.len(), oracle.records.len());
        for (a, b) in fused.records.iter().zip(&oracle.records) {
            assert!((a.held_loss - b.held_loss).abs() < 1e-5, "{signal:?} held-out loss at {}", a.step);
            assert!((a.held_accuracy - b.held_accuracy).abs() < 1e-9, "{signal:?} accuracy at {}", a.step);
        }
        if let (Some(a), Some(b)) = (&fused.table, &oracle.table) {
            assert!(relative(a, b) < 1e-3, "{signal:?}: the learned tables agree");
        }
    }
}
