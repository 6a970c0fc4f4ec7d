//! Bad model folders (docs/MATH.md §14) get a message naming the defect: an unsupported config, a
//! config and weights that disagree (a wrong shape, missing tensors), a tokenizer whose ids
//! exceed the model's vocabulary, a truncated checkpoint, and a model too large for the memory
//! budget (refused before its weights are read).
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used)] // tests may unwrap: a failure is the test failing

mod common;
use common::*;

use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh tiny model folder to spoil.
fn tiny(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("posgeo-bad-{tag}-{}", std::process::id()));
    let out = python().arg(Path::new(ROOT).join("tests/reference/tiny_bert.py")).arg(&dir).output().unwrap();
    assert!(out.status.success(), "tiny_bert.py: {}", String::from_utf8_lossy(&out.stderr));
    dir
}

fn edit_config(dir: &Path, f: impl FnOnce(&mut serde_json::Value)) {
    let p = dir.join("config.json");
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
    f(&mut v);
    std::fs::write(p, v.to_string()).unwrap();
}

/// `posgeo analyze` with the model fails, and its message says `says`.
fn refused(dir: &Path, extra: &[&str], says: &str) {
    let out = Command::new(env!("CARGO_BIN_EXE_posgeo"))
        .arg("analyze")
        .arg(Path::new(ROOT).join("tests/data/reference_corpus.txt"))
        .arg("--model")
        .arg(dir)
        .args(extra)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{dir:?} {extra:?} was accepted");
    assert!(err.contains(says), "expected {says:?} in: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn unsupported_configs_are_named() {
    let dir = tiny("config");
    edit_config(&dir, |c| c["model_type"] = "t5".into());
    refused(&dir, &[], "the architecture \"t5\" is not supported");
    edit_config(&dir, |c| {
        c["model_type"] = "bert".into();
        c["hidden_act"] = "relu".into();
    });
    refused(&dir, &[], "hidden_act is \"relu\"");
    edit_config(&dir, |c| {
        c["hidden_act"] = "gelu".into();
        c["position_embedding_type"] = "relative_key".into();
    });
    refused(&dir, &[], "position_embedding_type is \"relative_key\"");
}

#[test]
fn config_and_weights_that_disagree_are_named() {
    let dir = tiny("shape");
    edit_config(&dir, |c| c["intermediate_size"] = 36.into());
    refused(&dir, &[], "intermediate.dense.bias has shape [37] but the config implies [36]");
    edit_config(&dir, |c| {
        c["intermediate_size"] = 37.into();
        c["num_hidden_layers"] = 4.into();
    });
    refused(&dir, &[], "32 tensor(s) the config needs are missing: encoder.layer.2.");
}

#[test]
fn a_tokenizer_beyond_the_vocabulary_is_named() {
    let dir = tiny("vocab");
    let minilm = Path::new(ROOT).join("www/models/all-MiniLM-L6-v2/tokenizer.json.gz");
    refused(&dir, &["--tokenizer-file", minilm.to_str().unwrap()], "outside the model's vocabulary of");
}

#[test]
fn a_truncated_checkpoint_is_named() {
    let dir = tiny("truncated");
    let p = dir.join("model.safetensors");
    let bytes = std::fs::read(&p).unwrap();
    std::fs::write(&p, &bytes[..bytes.len() / 2]).unwrap();
    refused(&dir, &[], "truncated");
}

#[test]
fn a_model_beyond_the_budget_is_refused_before_loading() {
    let dir = tiny("huge");
    edit_config(&dir, |c| {
        c["vocab_size"] = 16_000_000.into();
        c["hidden_size"] = 4096.into();
        c["num_attention_heads"] = 32.into();
    });
    refused(&dir, &[], "more than the memory budget");
}
