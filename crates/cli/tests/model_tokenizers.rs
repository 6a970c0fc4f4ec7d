//! Model tokenizers against the reference implementation: the Python `tokenizers` package
//! from PyPI (`tests/tokenizers/oracle.py`, run with the project's `.venv`, which
//! `scripts/setup.sh` creates). For WordPiece (the shipped all-MiniLM-L6-v2 tokenizer),
//! byte-level BPE (RoBERTa- and GPT-2-style) and Unigram/Metaspace (one trained by the
//! package, one converted from a SentencePiece model with its `Precompiled` normaliser, as
//! T5's and XLM-R's are), on over 3,000 lines
//! (Genesis and generated lines with accents, CJK, emoji, digits, odd spacing, contractions,
//! added tokens and characters a normaliser removes or maps — controls, format characters,
//! odd whitespace): every line's tokens (ids named by the vocabulary) equal Python's,
//! with and without special tokens, and the positional counts c_i(w) equal counts computed
//! in Python from Python's tokens, in condition and pad mode. Unigram segmentation ties
//! (`. ...` against `... .`) split as the package splits them when it reads the
//! file. Also: `posgeo analyze --tokenizer-file` reports the same counts, and bad tokenizer
//! files get their messages.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used)] // tests may unwrap: a failure is the test failing

use posgeo::corpus::hf_tokenizer::ModelTokenizer;
use posgeo::corpus::tokenize::{Tokenizer, TokenizerKind};
use posgeo::corpus::{Corpus, InputFormat};
use posgeo::counts::{CountParams, Mode, PositionalCounts};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const MAX_LEN: usize = 48;
const MIN_SUPPORT: usize = 5;
const TYPES: [&str; 5] = ["wordpiece", "bpe", "gpt2", "unigram", "t5"];

/// The oracle's output directory (run once per test binary).
fn oracle() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
        let python = std::env::var_os("POSGEO_PYTHON").map_or_else(|| root.join(".venv/bin/python"), PathBuf::from);
        assert!(
            python.exists(),
            "{} is missing: run `bash scripts/setup.sh` (it creates .venv with the Python tokenizers package)",
            python.display()
        );
        let out = std::env::temp_dir().join(format!("posgeo-tokenizers-{}", std::process::id()));
        let status = Command::new(&python)
            .arg(root.join("tests/tokenizers/oracle.py"))
            .arg(&out)
            .args(["--max-len", &MAX_LEN.to_string(), "--min-support", &MIN_SUPPORT.to_string()])
            .status()
            .unwrap();
        assert!(status.success(), "the oracle failed");
        out
    })
}

fn corpus() -> Corpus {
    Corpus::read(&std::fs::read(oracle().join("corpus.txt")).unwrap(), &InputFormat::Text, false).unwrap()
}

fn load(name: &str) -> ModelTokenizer {
    let path = oracle().join(format!("{name}.json"));
    ModelTokenizer::from_bytes(&format!("{name}.json"), &std::fs::read(path).unwrap()).unwrap()
}

fn tokenizer(name: &str, special: bool) -> Tokenizer {
    Tokenizer {
        kind: TokenizerKind::Model,
        lowercase: false,
        bos: false,
        model: Some(load(name)),
        special_tokens: special,
        kmer: 1,
    }
}

#[test]
fn tokens_equal_the_python_package_line_by_line() {
    let c = corpus();
    assert!(c.sequences.len() >= 3000, "{} lines", c.sequences.len());
    // Every pipeline here is word-local, encoded chunk by chunk with a cache: WordPiece (BERT's
    // pipeline), byte-level BPE and Unigram after NFKC and Metaspace.
    for name in TYPES {
        assert!(load(name).encodes_chunks(), "{name}");
    }
    for name in TYPES {
        let expected = std::fs::read_to_string(oracle().join(format!("{name}.tokens.jsonl"))).unwrap();
        let expected: Vec<Value> = expected.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(expected.len(), c.sequences.len(), "{name}: the oracle read other lines");
        for (key, special) in [("special", true), ("plain", false)] {
            let t = tokenizer(name, special);
            let mut wrong = Vec::new();
            for (k, (line, want)) in c.sequences.iter().zip(&expected).enumerate() {
                let want: Vec<String> = serde_json::from_value(want[key].clone()).unwrap();
                let got = t.tokens(line, usize::MAX);
                if got != want {
                    wrong.push(format!("line {}: {line:?}\n  posgeo {got:?}\n  python {want:?}", k + 1));
                }
            }
            assert!(
                wrong.is_empty(),
                "{name} ({key}): {} lines differ, e.g.\n{}",
                wrong.len(),
                wrong[..3.min(wrong.len())].join("\n")
            );
        }
    }
}

#[test]
fn unigram_ties_split_as_the_python_package_splits_them() {
    let cases = std::fs::read_to_string(oracle().join("unigram-ties.jsonl")).unwrap();
    let cases: Vec<Value> = cases.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(cases.len(), 200);
    // The reported case: the same pieces in either order, and the package puts `...` first.
    assert_eq!(cases[0]["texts"][0], "baseball....");
    assert_eq!(cases[0]["tokens"][0], serde_json::json!(["▁baseball", "...", "."]));
    let mut wrong = Vec::new();
    for (k, case) in cases.iter().enumerate() {
        let file = case["tokenizer"].as_str().unwrap();
        let t = Tokenizer {
            kind: TokenizerKind::Model,
            lowercase: false,
            bos: false,
            model: Some(ModelTokenizer::from_bytes("ties.json", file.as_bytes()).unwrap()),
            special_tokens: false,
            kmer: 1,
        };
        let texts: Vec<String> = serde_json::from_value(case["texts"].clone()).unwrap();
        let want: Vec<Vec<String>> = serde_json::from_value(case["tokens"].clone()).unwrap();
        for (text, want) in texts.iter().zip(&want) {
            let got = t.tokens(text, usize::MAX);
            if got != *want {
                wrong.push(format!("case {k}: {text:?}\n  posgeo {got:?}\n  python {want:?}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{} texts differ, e.g.\n{}", wrong.len(), wrong[..3.min(wrong.len())].join("\n"));
}

/// {position: {token: count}} of posgeo's counts.
fn ours(c: &PositionalCounts) -> Vec<BTreeMap<String, u64>> {
    c.rows.iter().map(|row| row.iter().map(|&(id, n)| (c.vocab[id as usize].clone(), n)).collect()).collect()
}

fn theirs(v: &Value) -> Vec<BTreeMap<String, u64>> {
    serde_json::from_value(v["rows"].clone()).unwrap()
}

#[test]
fn counts_equal_counts_of_the_python_tokens_in_both_modes() {
    let c = corpus();
    for name in TYPES {
        let expected: Value =
            serde_json::from_str(&std::fs::read_to_string(oracle().join(format!("{name}.counts.json"))).unwrap())
                .unwrap();
        for (mode, mname) in [(Mode::Condition, "condition"), (Mode::Pad, "pad")] {
            for (special, kind) in [(true, "special"), (false, "plain")] {
                let params = CountParams {
                    tokenizer: tokenizer(name, special),
                    mode,
                    max_len: MAX_LEN,
                    min_support: MIN_SUPPORT,
                    top_k: None,
                };
                let counts = PositionalCounts::count(&c, &params, &mut |_| {}).unwrap();
                let want = &expected[format!("{mname}/{kind}")];
                assert_eq!(counts.n as u64, want["n"].as_u64().unwrap(), "{name} {mname} {kind}: n");
                let support: Vec<u64> = serde_json::from_value(want["support"].clone()).unwrap();
                assert_eq!(counts.support_all, support, "{name} {mname} {kind}: N_i");
                assert_eq!(ours(&counts), theirs(want), "{name} {mname} {kind}: c_i(w)");
            }
        }
    }
}

#[test]
fn the_cli_counts_the_model_tokens() {
    let dir = oracle();
    let out = Command::new(env!("CARGO_BIN_EXE_posgeo"))
        .arg("analyze")
        .arg(dir.join("corpus.txt"))
        .arg("--tokenizer-file")
        .arg(dir.join("wordpiece.json"))
        .args(["--mode", "pad", "--max-len", &MAX_LEN.to_string(), "--d", "16", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("wordpiece.counts.json")).unwrap()).unwrap();
    let want = &expected["pad/special"];
    assert_eq!(report["n"], want["n"]);
    // The top tokens of position 0 and 1: [CLS] everywhere, then the first word pieces.
    let rows = theirs(want);
    for i in [0usize, 1, 7] {
        let mut top: Vec<(String, u64)> = rows[i].iter().map(|(t, &c)| (t.clone(), c)).collect();
        top.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let got: Vec<(String, u64)> = serde_json::from_value(report["top_tokens"][i].clone()).unwrap();
        assert_eq!(got[0], top[0], "position {i}");
    }
    assert!(report["tokenizer_file"].as_str().unwrap().starts_with("wordpiece.json (WordPiece, 30522 types)"));
    assert_eq!(report["top_tokens"][0][0][0], "[CLS]");
}

#[test]
fn bad_tokenizer_files_are_refused_with_what_was_found() {
    let dir = std::env::temp_dir().join(format!("posgeo-badtok-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let corpus = dir.join("c.txt");
    std::fs::write(&corpus, "a b c\nb c d\n".repeat(10)).unwrap();
    let cases: [(&str, &[u8], &str); 3] = [
        ("config.json", br#"{"architectures": ["BertModel"]}"#, "no \"model\" object"),
        ("wl.json", br#"{"model": {"type": "WordLevel", "vocab": {}}}"#, "\"WordLevel\" is not supported"),
        ("model.safetensors", b"\x08\x00\x00\x00\x00\x00\x00\x00{}      ", "not JSON"),
    ];
    for (name, bytes, message) in cases {
        let file = dir.join(name);
        std::fs::write(&file, bytes).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_posgeo"))
            .arg("analyze")
            .arg(&corpus)
            .arg("--tokenizer-file")
            .arg(&file)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(name) && err.contains(message), "{name}: {err}");
    }
    // The model tokenizer without a file.
    let out = Command::new(env!("CARGO_BIN_EXE_posgeo"))
        .arg("analyze")
        .arg(&corpus)
        .args(["--tokenizer", "model"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("--tokenizer-file"), "{err}");
}
