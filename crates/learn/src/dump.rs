//! **A run's dump for replay** (docs/MATH.md §16): `init.safetensors` (the initial weights,
//! F32), `batches.safetensors` (I64 `input` and `target`, U8 `chosen`, steps×B×n),
//! `held.safetensors` (the held-out sequences the same way, H×n, with their masks),
//! `final.safetensors` (every weight after the last step) and `run.json` (the options, the
//! vocabulary in id order, the special ids, n, the signal, each step's learning rate and
//! training loss, and each record's step, held-out loss and accuracy). An independent
//! implementation that starts from these weights and batches must reproduce every loss, the
//! held-out loss and accuracy at each record, and the final weights.

use super::data::{MASK, PAD, SPECIALS, UNK};
use super::train::{Run, Trace};
use super::Context;
use posgeo::error::{PosgeoError, Result};
use safetensors::tensor::{Dtype, TensorView};

fn bad(e: impl std::fmt::Display) -> PosgeoError {
    PosgeoError::Learn(format!("cannot write the dump: {e}"))
}

fn serialize(tensors: Vec<(String, Dtype, Vec<usize>, Vec<u8>)>) -> Result<Vec<u8>> {
    let views = tensors
        .iter()
        .map(|(name, dtype, shape, bytes)| {
            Ok((name.clone(), TensorView::new(*dtype, shape.clone(), bytes).map_err(bad)?))
        })
        .collect::<Result<Vec<_>>>()?;
    safetensors::serialize(views, None).map_err(bad)
}

/// The five files of a run, as (file name, bytes).
pub fn files(ctx: &Context, run: &Run, trace: &Trace) -> Result<Vec<(&'static str, Vec<u8>)>> {
    let shape = |name: &str| trace.init.iter().find(|i| i.0 == name).map(|i| i.1.clone());
    let last = trace
        .last
        .iter()
        .map(|(name, data)| {
            let dims = shape(name).ok_or_else(|| bad(format!("{name} has no initial tensor")))?;
            Ok((name.clone(), Dtype::F32, dims, data.iter().flat_map(|v| v.to_le_bytes()).collect()))
        })
        .collect::<Result<Vec<_>>>()?;
    let init = trace
        .init
        .iter()
        .map(|(name, shape, data)| {
            (name.clone(), Dtype::F32, shape.clone(), data.iter().flat_map(|v| v.to_le_bytes()).collect())
        })
        .collect();
    let (steps, size, n) = (trace.batches.len(), trace.batches.first().map_or(0, |b| b.size), ctx.data.n);
    let ids = |f: fn(&super::data::Batch) -> &Vec<u32>| -> Vec<u8> {
        trace.batches.iter().flat_map(|b| f(b).iter().flat_map(|&v| (v as i64).to_le_bytes())).collect()
    };
    let chosen: Vec<u8> = trace.batches.iter().flat_map(|b| b.chosen.iter().copied()).collect();
    let batches = vec![
        ("input".to_string(), Dtype::I64, vec![steps, size, n], ids(|b| &b.input)),
        ("target".to_string(), Dtype::I64, vec![steps, size, n], ids(|b| &b.target)),
        ("chosen".to_string(), Dtype::U8, vec![steps, size, n], chosen),
    ];
    // The held-out sequences, padded to n, one after another (their masks drawn once).
    let held: Vec<super::data::Batch> = ctx.held.iter().map(|b| b.padded_to(n)).collect();
    let rows = held.iter().map(|b| b.size).sum::<usize>();
    let held_ids = |f: fn(&super::data::Batch) -> &Vec<u32>| -> Vec<u8> {
        held.iter().flat_map(|b| f(b).iter().flat_map(|&v| (v as i64).to_le_bytes())).collect()
    };
    let held = vec![
        ("input".to_string(), Dtype::I64, vec![rows, n], held_ids(|b| &b.input)),
        ("target".to_string(), Dtype::I64, vec![rows, n], held_ids(|b| &b.target)),
        ("chosen".to_string(), Dtype::U8, vec![rows, n], held.iter().flat_map(|b| b.chosen.clone()).collect()),
    ];
    let records: Vec<_> = run
        .records
        .iter()
        .map(|r| serde_json::json!({ "step": r.step, "held_loss": r.held_loss, "held_accuracy": r.held_accuracy }))
        .collect();
    let json = serde_json::json!({
        "signal": run.signal.name(),
        "seed": run.seed,
        "options": ctx.params,
        "n": n,
        "vocabulary": ctx.data.vocab.tokens(),
        "special_ids": { SPECIALS[0].trim_matches(['<', '>']): PAD, SPECIALS[1].trim_matches(['<', '>']): UNK, SPECIALS[2].trim_matches(['<', '>']): MASK },
        "lr_per_step": run.lr,
        "train_loss": run.train_loss,
        "records": records,
        "error": run.error,
    });
    Ok(vec![
        ("init.safetensors", serialize(init)?),
        ("batches.safetensors", serialize(batches)?),
        ("final.safetensors", serialize(last)?),
        ("held.safetensors", serialize(held)?),
        ("run.json", serde_json::to_vec_pretty(&json).map_err(bad)?),
    ])
}
