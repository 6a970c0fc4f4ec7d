//! The fused trainer against the candle model, its oracle (docs/MATH.md §16,
//! "Implementations"): from the same initial weights and batches, every gradient of the first
//! step to 10⁻⁴ relative and every loss of the first 20 steps to 10⁻⁵, for every signal.

use super::super::data::Batches;
use super::super::init::tensors;
use super::super::net::Candle;
use super::super::tests::{corpus, small};
use super::super::train::{run_with, Model};
use super::super::{Context, LearnParams, Signal};
use super::Fused;

/// A context over a small synthetic corpus with every signal; `rate` is the mask rate.
fn context(rate: f64, batch: usize) -> Context {
    let (analysis, seqs) = corpus(160, 14);
    let p = LearnParams { mask_rate: rate, batch, d_model: 16, heads: 2, layers: 2, ..small(&Signal::ALL, 20) };
    Context::new(&seqs, &analysis, &p).expect("context")
}

/// max |Δ| / max |g| over a tensor.
fn relative(a: &[f32], b: &[f32]) -> f64 {
    assert_eq!(a.len(), b.len());
    let diff = a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0f32, f32::max);
    let scale = b.iter().map(|y| y.abs()).fold(0f32, f32::max);
    (diff / scale.max(1e-30)) as f64
}

/// Every trainable tensor's gradient at the first step, for every signal, including a batch
/// whose chosen positions span several output chunks.
#[test]
fn the_first_steps_gradients_match_candles_for_every_signal() {
    for (rate, batch) in [(0.15, 6), (0.95, 32)] {
        let ctx = context(rate, batch);
        let shape = ctx.shape();
        let first = Batches::new(&ctx.data, batch, rate, 1).next().expect("a batch");
        if rate > 0.5 {
            assert!(first.chosen_count() > super::layout::CHUNK, "the batch spans output chunks");
        }
        for signal in Signal::ALL {
            let init = tensors(shape, signal, 1, ctx.table(signal, 1).expect("table"));
            let oracle = Candle::build(shape, signal, &init, batch).expect("candle");
            let out = oracle.net.forward(&first, false).expect("forward");
            let want_loss = out.loss.to_scalar::<f32>().expect("loss") as f64;
            let grads = out.loss.backward().expect("backward");
            let mut fused = Fused::new(shape, signal, &init, batch).expect("fused");
            let loss = fused.gradient(&first).expect("gradient");
            assert!((loss - want_loss).abs() < 1e-5, "{signal:?}: loss {loss} vs {want_loss}");
            let got = fused.gradients();
            let trainable = oracle.net.params.iter().filter(|p| p.trainable).count();
            assert_eq!(got.len(), trainable, "{signal:?}: every trainable tensor has a gradient");
            for (name, g) in got {
                let param = oracle.net.params.iter().find(|p| p.name == name).expect("same names");
                let want = grads.get(&param.var).expect("candle's gradient");
                let want = want.flatten_all().and_then(|t| t.to_vec1::<f32>()).expect("values");
                let r = relative(&g, &want);
                assert!(r < 1e-4, "{signal:?} {name}: relative error {r:e}");
            }
        }
    }
}

/// Twenty AdamW steps of both, every loss and the held-out loss and accuracy at each record.
#[test]
fn twenty_steps_of_losses_match_candles_for_every_signal() {
    let ctx = context(0.15, 6);
    for signal in Signal::ALL {
        let fused = run_with::<Fused>(&ctx, signal, 1, None, &mut |_| true).expect("fused");
        let oracle = run_with::<Candle>(&ctx, signal, 1, None, &mut |_| true).expect("candle");
        assert_eq!(fused.train_loss.len(), 20);
        assert_eq!(oracle.train_loss.len(), 20);
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
