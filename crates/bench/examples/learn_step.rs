//! The fused trainer's speed at one shape (default: the experiment's B = 32, n = 64, d = 64,
//! L = 2, H = 4, |V| = 2,003, as `tools`' PyTorch peer trains it), against the candle graph in
//! the same run, one thread each: training tokens per second, GFLOP/s and the fraction of a
//! core's f32 peak (`PEAK` GFLOP/s, 78 by default: two 256-bit FMA units at about 4.9 GHz).
//! The batches are the peer's: ids uniform over the vocabulary's non-special types, each
//! position chosen with probability 0.15.
//! `cargo run --release -p posgeo-bench --example learn_step` (env STEPS, V, B, N, D, L, H,
//! SIGNAL, CANDLE=0 to skip the oracle)
#![allow(clippy::print_stdout)]

use posgeo_learn::data::Batch;
use posgeo_learn::fused::clock::{stage_flops, STAGES};
use posgeo_learn::fused::Fused;
use posgeo_learn::net::Shape;
use posgeo_learn::oracle::Candle;
use posgeo_learn::train::Model;
use posgeo_learn::{init, Signal};
use std::time::Instant;

fn env(key: &str, default: usize) -> usize {
    std::env::var(key).ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

/// The peer's batches: ids in 3..V, every position real, 15 % chosen.
fn batches(count: usize, b: usize, n: usize, v: usize) -> Vec<Batch> {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..count)
        .map(|_| {
            let input: Vec<u32> = (0..b * n).map(|_| 3 + (next() % (v as u64 - 3)) as u32).collect();
            let chosen: Vec<u8> = (0..b * n).map(|_| u8::from(next() % 10_000 < 1_500)).collect();
            Batch { target: input.clone(), input, chosen, size: b, len: n }
        })
        .collect()
}

fn time<M: Model>(model: &mut M, data: &[Batch], steps: usize) -> f64 {
    for b in data.iter().take(3) {
        model.step(b, 1e-3).expect("warm-up");
    }
    let t = Instant::now();
    for k in 0..steps {
        model.step(&data[k % data.len()], 1e-3).expect("step");
    }
    t.elapsed().as_secs_f64()
}

fn now() -> f64 {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_secs_f64()
}

fn main() {
    let shape = Shape {
        vocab: env("V", 2003),
        n: env("N", 64),
        d: env("D", 64),
        layers: env("L", 2),
        heads: env("H", 4),
        rank: env("R", 8),
    };
    let (b, steps) = (env("B", 32), env("STEPS", 100));
    let signal = std::env::var("SIGNAL").ok().and_then(|s| Signal::parse(&s)).unwrap_or(Signal::Learned);
    let peak = env("PEAK", 78) as f64;
    let data = batches(20, b, shape.n, shape.vocab);
    let chosen = data.iter().map(Batch::chosen_count).sum::<usize>() as f64 / data.len() as f64;
    let per_stage = stage_flops(shape, b, shape.n, chosen.round() as usize);
    let flops: f64 = per_stage.iter().sum();
    let init = init::tensors(shape, signal, 1, None);
    let tokens = (steps * b * shape.n) as f64;
    let mut fused = Fused::new(shape, signal, &init, b).expect("fused");
    let t_fused = time(&mut fused, &data, steps);
    println!(
        "fused  {:?} B={b} n={} d={} L={} H={} |V|={}: {steps} steps in {t_fused:.2} s, {:.0} tokens/s, {:.1} GFLOP/s ({:.0} % of {peak} GFLOP/s), {:.2} GFLOP a step",
        signal,
        shape.n,
        shape.d,
        shape.layers,
        shape.heads,
        shape.vocab,
        tokens / t_fused,
        flops * steps as f64 / t_fused / 1e9,
        100.0 * flops * steps as f64 / t_fused / 1e9 / peak,
        flops / 1e9,
    );
    // The stages, on a second trainer with a clock (the ticks cost about 1 %).
    let mut timed = Fused::new(shape, signal, &init, b).expect("fused");
    timed.step(&data[0], 1e-3).expect("warm-up");
    timed.time_stages(now);
    for k in 0..steps {
        timed.step(&data[k % data.len()], 1e-3).expect("step");
    }
    let seconds = timed.stage_seconds();
    let total: f64 = seconds.iter().sum();
    for (k, (_, name)) in STAGES.iter().enumerate() {
        let rate = per_stage[k] * steps as f64 / seconds[k] / 1e9;
        let share = if per_stage[k] > 0.0 {
            format!(", {rate:.1} GFLOP/s ({:.0} % of peak)", 100.0 * rate / peak)
        } else {
            String::new()
        };
        println!("  {name:<13} {:5.1} % of the time{share}", 100.0 * seconds[k] / total);
    }
    if env("CANDLE", 1) == 1 {
        let mut candle = Candle::build(shape, signal, &init, b).expect("candle");
        let t_candle = time(&mut candle, &data, steps);
        println!(
            "candle {steps} steps in {t_candle:.2} s, {:.0} tokens/s; fused/candle = {:.2}x",
            tokens / t_candle,
            t_candle / t_fused
        );
    }
}
