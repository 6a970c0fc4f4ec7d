//! A model's layers (docs/MATH.md §14) against an independent float64 numpy forward pass,
//! `tests/reference/bert_ref.py`, itself checked first against published numbers (the
//! sentence-transformers semantic-search example of all-MiniLM-L6-v2): every layer's hidden
//! states, and every layer row's numbers in the CLI's JSON, agree to 1e-4, in both modes, for
//! all-MiniLM-L6-v2 (written into www/models/ by `scripts/minilm.py --weights`, which the setup
//! runs) and for small random BERTs the tests make (odd sizes, `bert.` prefix, F16, BF16).
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used)] // tests may unwrap: a failure is the test failing

mod common;
use common::*;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const TOL: f64 = 1e-4;

fn minilm() -> PathBuf {
    let dir = Path::new(ROOT).join("www/models/all-MiniLM-L6-v2");
    assert!(
        dir.join("model.safetensors").is_file(),
        "run `python3 scripts/minilm.py --weights` (scripts/setup.sh does)"
    );
    dir
}

fn reference(model: &Path, corpus: &str, args: &[&str]) -> Value {
    json_of(python().arg(Path::new(ROOT).join("tests/reference/bert_ref.py")).arg(model).arg(corpus).args(args))
}

/// A small random BERT in a fresh folder.
fn tiny(tag: &str, args: &[&str]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("posgeo-tiny-{tag}-{}", std::process::id()));
    let out = python().arg(Path::new(ROOT).join("tests/reference/tiny_bert.py")).arg(&dir).args(args).output().unwrap();
    assert!(out.status.success(), "tiny_bert.py: {}", String::from_utf8_lossy(&out.stderr));
    dir
}

fn close(what: &str, a: f64, b: f64) {
    assert!((a - b).abs() <= TOL, "{what}: posgeo {a} vs reference {b}");
}

/// `posgeo analyze CORPUS --model DIR --json ARGS` against the reference with the same ARGS.
fn check_rows(model: &Path, corpus: &str, args: &[&str]) {
    let ours = json_of(
        Command::new(env!("CARGO_BIN_EXE_posgeo")).args(["analyze", corpus, "--json", "--model"]).arg(model).args(args),
    );
    let theirs = reference(model, corpus, args);
    let layers = &ours["layers"];
    for key in ["positions", "sequences_used", "cut", "num_layers", "hidden_size"] {
        assert_eq!(layers[key], theirs[key], "layers.{key} ({args:?})");
    }
    assert_eq!(ours["n"], theirs["n"], "n");
    let rows = theirs["encodings"].as_object().unwrap();
    assert_eq!(rows.len(), 2 * (theirs["num_layers"].as_u64().unwrap() as usize + 1));
    for (name, e) in rows {
        let mine = &ours["encodings"][name];
        assert!(mine.is_object(), "{name} is missing from the report");
        for (field, v) in e.as_object().unwrap() {
            match (v.as_f64(), mine[field].as_f64()) {
                (Some(b), Some(a)) => close(&format!("{name}.{field} {args:?}"), a, b),
                _ => assert_eq!(&mine[field], v, "{name}.{field}"),
            }
        }
    }
    // Every row sits in the report's order after the encodings the model is given.
    let order: Vec<&str> = ours["encoding_order"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert_eq!(order.last().copied(), Some(format!("layer-residual:{}", theirs["num_layers"]).as_str()));
}

#[test]
fn the_reference_reproduces_the_published_similarities() {
    let out = python()
        .arg(Path::new(ROOT).join("tests/reference/bert_ref.py"))
        .arg(minilm())
        .arg("--check-published")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn minilm_rows_agree_with_the_reference_in_both_modes() {
    let genesis = corpus("www/corpora/kjv-genesis.txt");
    check_rows(&minilm(), &genesis, &["--layer-sequences", "48", "--max-len", "40"]);
    check_rows(&minilm(), &genesis, &["--layer-sequences", "40", "--max-len", "24", "--mode", "pad"]);
}

#[test]
fn small_random_berts_agree_with_the_reference() {
    let text = corpus("tests/data/reference_corpus.txt");
    let f32_prefixed = tiny("f32", &["--seed", "3", "--prefix"]);
    check_rows(&f32_prefixed, &text, &["--min-support", "3"]);
    check_rows(&f32_prefixed, &text, &["--mode", "pad", "--max-len", "30"]);
    let f16 = tiny("f16", &["--seed", "4", "--dtype", "F16"]);
    check_rows(&f16, &text, &["--mode", "pad", "--no-special-tokens", "--min-support", "2"]);
    let bf16 = tiny("bf16", &["--seed", "5", "--dtype", "BF16", "--prefix"]);
    check_rows(&bf16, &text, &["--layer-sequences", "20", "--min-support", "4"]);
}

/// A protein BERT as ProtBERT ships (a `vocab.txt` of residues, case kept) and a FASTA corpus
/// go through the layer pass together: each record read one residue a word, as the float64
/// reference reads it.
#[test]
fn a_protein_bert_reads_fasta_through_its_layers() {
    let dir = tiny("protein", &["--seed", "6", "--protein"]);
    assert!(dir.join("vocab.txt").is_file() && !dir.join("tokenizer.json").exists());
    let proteins = std::fs::read_to_string(Path::new(ROOT).join("www/corpora/proteins.faa")).unwrap();
    let fasta = std::env::temp_dir().join(format!("posgeo-proteins-{}.faa", std::process::id()));
    let records: Vec<&str> = proteins.split_inclusive('\n').collect();
    let head: String = records.iter().take_while(|l| !l.starts_with(">sp|Q6GZT5")).copied().collect();
    std::fs::write(&fasta, &head).unwrap();
    check_rows(&dir, fasta.to_str().unwrap(), &["--min-support", "3", "--max-len", "30", "--layer-sequences", "24"]);
}

/// The forward pass's hidden states, sequence by sequence, against the reference's.
fn check_hidden(model_dir: &Path, corpus: &str, sequences: usize) {
    let theirs = reference(model_dir, corpus, &["--dump-hidden", &sequences.to_string()]);
    let model = posgeo_model::Model::from_dir(model_dir).unwrap();
    let bytes = std::fs::read(model_dir.join("tokenizer.json")).unwrap();
    let tokenizer = posgeo::corpus::hf_tokenizer::ModelTokenizer::from_bytes("tokenizer.json", &bytes).unwrap();
    let text = std::fs::read_to_string(corpus).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.is_empty()).take(sequences).collect();
    // All the sequences in one batch, padded under the mask: the real tokens' states are the
    // reference's, which reads each sequence alone.
    let ids: Vec<Vec<u32>> = lines.iter().map(|l| tokenizer.ids(l, true, 512)).collect();
    let t = ids.iter().map(Vec::len).max().unwrap();
    let batch = posgeo_model::Batch {
        ids: ids.iter().flat_map(|s| s.iter().copied().chain(std::iter::repeat(0)).take(t)).collect(),
        mask: ids.iter().flat_map(|s| (0..t).map(move |i| u8::from(i < s.len()))).collect(),
        sequences: ids.len(),
        length: t,
    };
    let states = model.hidden_states(&batch).unwrap();
    let h = model.config.hidden_size;
    let mut worst = 0.0f64;
    for (s, seq) in theirs["hidden"].as_array().unwrap().iter().enumerate() {
        for (l, layer) in seq.as_array().unwrap().iter().enumerate() {
            for (i, row) in layer.as_array().unwrap().iter().enumerate() {
                for (k, v) in row.as_array().unwrap().iter().enumerate() {
                    let ours = states[l][(s * t + i) * h + k] as f64;
                    let diff = (ours - v.as_f64().unwrap()).abs();
                    worst = worst.max(diff);
                    assert!(diff <= TOL, "h^{l}[{s},{i},{k}]: {ours} vs {v}");
                }
            }
        }
    }
    assert!(worst > 0.0, "the comparison compared something");
}

#[test]
fn hidden_states_agree_with_the_reference() {
    check_hidden(&minilm(), &corpus("tests/data/reference_corpus.txt"), 3);
    check_hidden(&tiny("hidden", &["--seed", "9", "--prefix"]), &corpus("tests/data/reference_corpus.txt"), 5);
}

/// The shipped position table (`position_embeddings.npy.gz`, written by the same script as the
/// whole model) is the model's own `embeddings.position_embeddings.weight`, value for value.
#[test]
fn the_shipped_position_table_is_the_models() {
    let dir = minilm();
    let shipped =
        posgeo::learned_tables::read_table(&std::fs::read(dir.join("position_embeddings.npy.gz")).unwrap(), None)
            .unwrap();
    let (_, table) = posgeo_model::Model::from_dir(&dir).unwrap().position_table().unwrap();
    assert_eq!((shipped.len(), shipped[0].len()), (512, 384));
    assert_eq!(shipped, table);
}
