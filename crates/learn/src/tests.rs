//! The experiment's properties: Theorem 1 without a position signal, bit-identical reruns,
//! the reported σ* of a learned table against `stress` on it, the schedule, and bad input.

use super::data::Batch;
use super::net::{Net, Shape};
use super::*;
use posgeo::analysis::Analysis;

/// A small synthetic corpus, its analysis and its whitespace tokens.
fn corpus(sequences: usize, positions: usize) -> (Analysis, Vec<Vec<String>>) {
    posgeo::test_support::learn_corpus(sequences, positions)
}

pub(super) fn small(signals: &[Signal], steps: usize) -> LearnParams {
    LearnParams {
        signals: signals.to_vec(),
        steps,
        d_model: 8,
        heads: 2,
        layers: 1,
        batch: 6,
        every: 2,
        ..Default::default()
    }
}

/// Each chosen position's loss, as f32s.
fn losses(net: &Net, b: &Batch) -> Vec<f32> {
    net.forward(b, false).unwrap().each.to_vec1::<f32>().unwrap()
}

/// Theorem 1: without a position signal, permuting a sequence's tokens permutes the
/// outputs; with a signal it does not.
#[test]
fn without_a_signal_a_permuted_sequence_permutes_the_outputs() {
    let shape = Shape { vocab: 9, n: 5, d: 8, layers: 2, heads: 2, rank: 2 };
    let seq = [3u32, 4, 5, 6, 7];
    let perm = [2usize, 0, 4, 1, 3];
    let batch = |order: &[usize]| Batch {
        input: order.iter().map(|&i| seq[i]).collect(),
        target: order.iter().map(|&i| seq[(i + 1) % 5]).collect(),
        chosen: vec![1; 5],
        size: 1,
        len: 5,
    };
    let (plain, permuted) = (batch(&[0, 1, 2, 3, 4]), batch(&perm));
    let nope = Net::new(shape, Signal::Nope, 7, None).unwrap();
    let (a, b) = (losses(&nope, &plain), losses(&nope, &permuted));
    for (k, &i) in perm.iter().enumerate() {
        assert!((b[k] - a[i]).abs() < 1e-5, "position {k}: {} vs {}", b[k], a[i]);
    }
    for signal in [Signal::Learned, Signal::Rope, Signal::Alibi] {
        let net = Net::new(shape, signal, 7, None).unwrap();
        let (a, b) = (losses(&net, &plain), losses(&net, &permuted));
        let moved = perm.iter().enumerate().map(|(k, &i)| (b[k] - a[i]).abs()).fold(0f32, f32::max);
        assert!(moved > 1e-6, "{signal:?} sees positions");
    }
}

/// Two runs with the same seed give the same bits; another seed does not.
#[test]
fn a_seed_fixes_every_bit() {
    let (analysis, seqs) = corpus(120, 12);
    let ctx = Context::new(&seqs, &analysis, &small(&[Signal::Learned], 6)).unwrap();
    let one = train::run(&ctx, Signal::Learned, 1, None, &mut |_| true).unwrap();
    let two = train::run(&ctx, Signal::Learned, 1, None, &mut |_| true).unwrap();
    assert_eq!(one, two);
    assert_eq!(one.table, two.table);
    // The final table travels with the run (the page's and the CLI's exports), bit for bit.
    assert_eq!(one.table.as_ref().map(Vec::len), Some(ctx.data.n * ctx.params.d_model));
    let back: train::Run = serde_json::from_str(&serde_json::to_string(&one).unwrap()).unwrap();
    assert_eq!(back, one);
    let fixed = train::run(&ctx, Signal::Pmds, 1, None, &mut |_| true).unwrap();
    assert_eq!(fixed.table, None, "a fixed table is not carried");
    let other = train::run(&ctx, Signal::Learned, 2, None, &mut |_| true).unwrap();
    assert_ne!(one.train_loss, other.train_loss);
    assert_eq!(one.records.iter().map(|r| r.step).collect::<Vec<_>>(), [0, 2, 4, 6]);
}

/// The σ* reported for a learned table is `stress` on that table against D.
#[test]
fn a_learned_tables_reported_stress_is_stress_on_the_table() {
    let (analysis, seqs) = corpus(120, 12);
    let ctx = Context::new(&seqs, &analysis, &small(&[Signal::LearnedPmds], 4)).unwrap();
    let run = train::run(&ctx, Signal::LearnedPmds, 1, None, &mut |_| true).unwrap();
    let table = run.table.clone().unwrap();
    let (n, d) = (analysis.counts.n, 8);
    let points = posgeo::points::Points::from_fn(n, d, |i, k| table[i * d + k] as f64);
    let direct = posgeo::measures::stress::stress(&points.distances(), &analysis.distances).unwrap();
    let reported = run.records.last().unwrap().table.clone().unwrap();
    assert_eq!(reported.scaled_stress, direct.scaled_stress);
    assert_eq!(reported.spearman, direct.spearman);
    // Separation by brute force.
    let dist = points.distances();
    let mut all: Vec<f64> = (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))).map(|(i, j)| dist.get(i, j)).collect();
    all.sort_by(f64::total_cmp);
    let median =
        if all.len() % 2 == 1 { all[all.len() / 2] } else { (all[all.len() / 2 - 1] + all[all.len() / 2]) / 2.0 };
    assert!((reported.separation - all[0] / median).abs() < 1e-12);
}

#[test]
fn the_learning_rate_warms_up_linearly_over_a_tenth_of_the_steps() {
    let lr: Vec<f64> = (0..25).map(|t| train::learning_rate(1.0, t, 25)).collect();
    assert_eq!(&lr[..3], [0.5, 1.0, 1.0]);
    assert_eq!(train::learning_rate(2.0, 0, 9), 2.0);
}

#[test]
fn bad_input_gets_a_clear_message() {
    let (analysis, seqs) = corpus(120, 12);
    let msg = |p: LearnParams, s: &[Vec<String>]| Context::new(s, &analysis, &p).err().unwrap().to_string();
    assert!(msg(small(&[Signal::Nope], 0), &seqs).contains("steps"));
    assert!(msg(small(&[Signal::Nope], 3), &seqs[..9]).contains("at least 10"));
    assert!(msg(LearnParams { d_model: 10, heads: 2, ..small(&[Signal::Rope], 3) }, &seqs).contains("even width"));
    assert!(msg(LearnParams { signals: vec![], ..small(&[], 3) }, &seqs).contains("signals"));
}

/// A run whose loss becomes NaN stops with a message naming the step; its records so far
/// are kept (step 0 and the record after step 2), and the summary leaves it out while a
/// run that finished stays in.
#[test]
fn a_diverging_run_says_so_and_keeps_its_records() {
    let (analysis, seqs) = corpus(120, 12);
    let ctx = Context::new(&seqs, &analysis, &small(&[Signal::Learned, Signal::Nope], 6)).unwrap();
    let bad = train::run_with::<super::fault::DivergesAfter<3>>(&ctx, Signal::Learned, 1, None, &mut |_| true).unwrap();
    assert!(bad.error.as_deref().unwrap_or("").contains("diverged at step 3"), "{:?}", bad.error);
    assert_eq!(bad.records.iter().map(|r| r.step).collect::<Vec<_>>(), [0, 2]);
    assert_eq!(bad.train_loss.len(), 4);
    assert!(bad.train_loss[..3].iter().all(|l| l.is_finite()) && bad.train_loss[3].is_nan());
    let good = train::run(&ctx, Signal::Nope, 1, None, &mut |_| true).unwrap();
    assert_eq!(good.error, None);
    let e = summarise(&ctx, vec![bad, good]).unwrap();
    assert_eq!(e.signals.iter().map(|s| s.signal).collect::<Vec<_>>(), [Signal::Nope]);
    // A learning rate far too large diverges the real trainer too, with the same message.
    let p = LearnParams { lr: 1e30, ..small(&[Signal::Learned], 6) };
    let ctx = Context::new(&seqs, &analysis, &p).unwrap();
    let runs: Vec<Run> = run_all(&ctx, false, &|_| true).into_iter().map(|(r, _)| r).collect();
    assert!(runs[0].error.as_deref().unwrap_or("").contains("diverged at step"), "{:?}", runs[0].error);
}

/// Cancelling keeps what was recorded.
#[test]
fn cancelling_keeps_the_records_so_far() {
    let (analysis, seqs) = corpus(120, 12);
    let ctx = Context::new(&seqs, &analysis, &small(&[Signal::Learned], 10)).unwrap();
    let run =
        train::run(&ctx, Signal::Learned, 1, None, &mut |t| !matches!(t, train::Tick::Step(s) if s >= 5)).unwrap();
    assert_eq!(run.train_loss.len(), 5);
    assert_eq!(run.error.as_deref(), Some("cancelled"));
    assert_eq!(run.records.last().unwrap().step, 4);
}

/// `learn_positions` cuts the sequences and restricts D: the fixed tables' σ* is measured
/// against D's first n_t rows and columns, and PMDS comes from that restricted D (its full-rank
/// table has σ* 0 there, not on the whole D).
#[test]
fn training_positions_restrict_the_geometry() {
    let (analysis, seqs) = corpus(120, 12);
    let p = LearnParams { positions: 7, ..small(&[Signal::Sinusoidal, Signal::Pmds], 2) };
    let ctx = Context::new(&seqs, &analysis, &p).unwrap();
    assert_eq!(ctx.data.n, 7);
    assert!(ctx.data.train.iter().chain(&ctx.data.held).all(|s| s.len() <= 7));
    let sub = posgeo::metric::DistanceMatrix::from_fn(7, |i, j| analysis.distances.get(i, j));
    let table = ctx.table(Signal::Sinusoidal, 1).unwrap().unwrap();
    let points = posgeo::points::Points::from_fn(7, 8, |i, k| table[i * 8 + k] as f64);
    let direct = posgeo::measures::stress::stress(&points.distances(), &sub).unwrap().scaled_stress;
    assert_eq!(ctx.fixed_stress(Signal::Sinusoidal, 1).unwrap(), Some(direct));
    let pmds = ctx.fixed_stress(Signal::Pmds, 1).unwrap().unwrap();
    assert!(pmds < 1e-6, "PMDS of the restricted D fits it: {pmds}");
    let whole = Context::new(&seqs, &analysis, &small(&[Signal::Pmds], 2)).unwrap();
    assert_eq!(whole.data.n, analysis.counts.n);
}

/// `lowrank`: r defaults to the training positions' energy rank, its reported σ* is `stress`
/// of A·Bᵀ, at r = min(n, d) its factors can hold any table, and a larger r is refused.
#[test]
fn the_low_rank_table_is_a_times_b_transposed() {
    let (analysis, seqs) = corpus(120, 12);
    let ctx = Context::new(&seqs, &analysis, &small(&[Signal::LowRank], 4)).unwrap();
    assert_eq!(ctx.lowrank_rank, analysis.energy_rank.clamp(1, 8));
    let run = train::run(&ctx, Signal::LowRank, 1, None, &mut |_| true).unwrap();
    let table = run.table.clone().unwrap();
    let (n, d) = (ctx.data.n, 8);
    let points = posgeo::points::Points::from_fn(n, d, |i, k| table[i * d + k] as f64);
    let direct = posgeo::measures::stress::stress(&points.distances(), &analysis.distances).unwrap();
    assert_eq!(run.records.last().unwrap().table.as_ref().unwrap().scaled_stress, direct.scaled_stress);
    // Its initial A·Bᵀ has entries of standard deviation about 0.02.
    let shape = ctx.shape();
    let init = super::init::tensors(shape, Signal::LowRank, 1, None);
    let get = |name: &str| init.iter().find(|t| t.name == name).unwrap();
    let (a, b, r) = (get("pos_a"), get("pos_b"), shape.rank);
    assert_eq!((a.dims.clone(), b.dims.clone()), (vec![n, r], vec![d, r]));
    let p0: Vec<f64> = (0..n * d)
        .map(|k| (0..r).map(|c| a.data[(k / d) * r + c] as f64 * b.data[(k % d) * r + c] as f64).sum())
        .collect();
    let sd = (p0.iter().map(|v| v * v).sum::<f64>() / p0.len() as f64).sqrt();
    assert!((0.012..0.028).contains(&sd), "A·Bᵀ starts with standard deviation {sd}");
    // At r = min(n, d) = d: A = any table T (n×d), B = I gives A·Bᵀ = T.
    let p = LearnParams { rank: Some(8), ..small(&[Signal::LowRank], 2) };
    let full = Context::new(&seqs, &analysis, &p).unwrap();
    let shape = full.shape();
    let mut init = super::init::tensors(shape, Signal::LowRank, 1, None);
    let want: Vec<f32> = (0..n * d).map(|k| (k as f32 * 0.37).sin()).collect();
    let eye: Vec<f32> = (0..d * d).map(|k| if k / d == k % d { 1.0 } else { 0.0 }).collect();
    for t in init.iter_mut() {
        match t.name.as_str() {
            "pos_a" => t.data = want.clone(),
            "pos_b" => t.data = eye.clone(),
            _ => {}
        }
    }
    let fused = super::fused::Fused::new(shape, Signal::LowRank, &init, 6).unwrap();
    assert_eq!(fused.table().unwrap(), want);
    let too_big = LearnParams { rank: Some(9), ..small(&[Signal::LowRank], 2) };
    let msg = Context::new(&seqs, &analysis, &too_big).err().unwrap().to_string();
    assert!(msg.contains("learn_rank") && msg.contains("at most min(n, d)"), "{msg}");
}
