//! Decoders and other formats (docs/MATH.md §14b) against an independent float64 numpy forward
//! pass, `tests/reference/decoder_ref.py`, itself checked first on published behaviour
//! (SmolLM2 continues "The capital of France is" with " Paris"): every layer row's numbers and
//! every layer's positional share, effective dimension and principal coordinates agree, for the
//! shipped SmolLM2-135M-Instruct (Q4_1 GGUF, written into www/models/ by `scripts/smollm2.py`)
//! and for small random llama, qwen2 and gpt2 models the tests write (`tiny_decoder.py`: odd
//! sizes; F32, F16, BF16; sharded safetensors, pytorch_model.bin; GGUF in F32 and quantized).
//! The same model read from its folder and from its GGUF gives the same numbers; each GGUF
//! tokenizer equals the original it was written from; bad models are
//! refused with messages naming the defect.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used)] // tests may unwrap: a failure is the test failing

mod common;
use common::*;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn smollm2() -> PathBuf {
    let f = Path::new(ROOT).join("www/models/SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf");
    assert!(f.is_file(), "run `python3 scripts/smollm2.py` (scripts/setup.sh does)");
    f
}

fn posgeo(model: &Path, corpus: &str, args: &[&str]) -> Value {
    json_of(
        Command::new(env!("CARGO_BIN_EXE_posgeo")).args(["analyze", corpus, "--json", "--model"]).arg(model).args(args),
    )
}

fn posgeo_fails(model: &Path, corpus: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_posgeo"))
        .args(["analyze", corpus, "--json", "--layer-sequences", "8", "--model"])
        .arg(model)
        .output()
        .unwrap();
    assert!(!out.status.success(), "{} should be refused", model.display());
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A small random decoder (folder, and GGUF when `gguf` names one) in a fresh folder.
fn tiny(tag: &str, args: &[&str]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("posgeo-dec-{tag}-{}", std::process::id()));
    let out =
        python().arg(Path::new(ROOT).join("tests/reference/tiny_decoder.py")).arg(&dir).args(args).output().unwrap();
    assert!(out.status.success(), "tiny_decoder.py: {}", String::from_utf8_lossy(&out.stderr));
    dir
}

/// Our report against the reference's JSON, through a counting comparison ([`Tally`]): the
/// layer rows (the same set, every field of each; raw stress and scale to 1e-4 at least), and
/// the per-layer measures (one per layer; principal coordinates relative to the layer's largest
/// one, the first axis only, as ties between eigenvalues would swap the others). Returns how
/// many values were compared.
fn agree(ours: &Value, theirs: &Value, tol: f64, what: &str) -> usize {
    let mut t = Tally::default();
    let layers = &ours["layers"];
    for key in ["positions", "sequences_used", "cut", "num_layers", "hidden_size", "skip"] {
        t.value(&format!("{what}: layers.{key}"), &layers[key], &theirs[key], 0.0);
    }
    t.value(&format!("{what}: n"), &ours["n"], &theirs["n"], 0.0);
    let refs = theirs["encodings"].as_object().unwrap();
    let rows: Vec<&String> = ours["encodings"].as_object().unwrap().keys().filter(|k| k.starts_with("layer")).collect();
    assert_eq!(rows, refs.keys().collect::<Vec<_>>(), "{what}: the same layer rows");
    for (name, e) in refs {
        let mine = &ours["encodings"][name];
        assert_eq!(mine.as_object().map(|m| m.len()), e.as_object().map(|m| m.len()), "{what}: {name}'s fields");
        for (field, v) in e.as_object().unwrap() {
            let tol = if field == "raw_stress" || field == "scale" { tol.max(1e-4) } else { tol };
            t.value(&format!("{what}: {name}.{field}"), &mine[field], v, tol);
        }
    }
    let (mine, refs) = (layers["measures"].as_array().unwrap(), theirs["measures"].as_array().unwrap());
    assert_eq!(mine.len(), refs.len(), "{what}: one measure per layer");
    for (a, b) in mine.iter().zip(refs) {
        let l = &b["layer"];
        t.value(&format!("{what}: layer {l}"), &a["layer"], l, 0.0);
        for key in ["positional_share", "effective_dimension"] {
            t.value(&format!("{what}: layer {l} {key}"), &a[key], &b[key], tol);
        }
        let first =
            |m: &Value| -> Vec<Value> { m["principal"].as_array().unwrap().iter().map(|r| r[0].clone()).collect() };
        let (pa, pb) = (first(a), first(b));
        let scale = pb.iter().fold(1e-12f64, |m, v| m.max(v.as_f64().map_or(0.0, f64::abs)));
        // Relative to the largest coordinate: both scaled, then compared to 1e-3.
        let scaled = |v: &[Value]| {
            Value::Array(v.iter().map(|x| x.as_f64().map_or(Value::Null, |x| (x / scale).into())).collect())
        };
        t.value(&format!("{what}: layer {l} first principal coordinates"), &scaled(&pa), &scaled(&pb), 1e-3);
    }
    let rows = theirs["encodings"].as_object().unwrap().len();
    assert!(t.compared >= 8 * rows + 2 * mine.len(), "{what}: only {} values compared", t.compared);
    t.compared
}

fn reference(model: &Path, corpus: &str, args: &[&str]) -> Value {
    json_of(python().arg(Path::new(ROOT).join("tests/reference/decoder_ref.py")).arg(model).arg(corpus).args(args))
}

#[test]
fn the_reference_continues_smollm2_with_paris() {
    let out = python()
        .arg(Path::new(ROOT).join("tests/reference/decoder_ref.py"))
        .arg(smollm2())
        .arg("--check-paris")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn smollm2_rows_and_measures_agree_with_the_reference() {
    let genesis = corpus("www/corpora/kjv-genesis.txt");
    let args = ["--layer-sequences", "12", "--max-len", "20", "--min-support", "2", "--layer-skip", "1"];
    let theirs = reference(
        &smollm2(),
        &genesis,
        &["--layer-sequences", "12", "--max-len", "20", "--min-support", "2", "--skip", "1"],
    );
    // 30 layers: docs/MATH.md §14b allows 1e-3 on σ* past 20 layers.
    agree(&posgeo(&smollm2(), &genesis, &args), &theirs, 1e-3, "SmolLM2");
}

#[test]
fn tiny_decoders_agree_with_the_reference_in_every_format() {
    let text = corpus("tests/data/reference_corpus.txt");
    let cases: [(&str, &[&str], &[&str]); 5] = [
        ("llama-f32", &["--arch", "llama", "--seed", "3"], &["--min-support", "3"]),
        (
            "qwen2-bf16-shards",
            &["--arch", "qwen2", "--seed", "4", "--dtype", "BF16", "--shards", "3"],
            &["--mode", "pad", "--max-len", "30"],
        ),
        (
            "gpt2-f16-bin",
            &["--arch", "gpt2", "--seed", "5", "--dtype", "F16", "--format", "bin"],
            &["--min-support", "3", "--layer-skip", "2"],
        ),
        ("llama-bos", &["--arch", "llama", "--seed", "6", "--add-bos"], &["--mode", "pad", "--layer-sequences", "20"]),
        (
            "gpt2-f32",
            &["--arch", "gpt2", "--seed", "8"],
            &["--mode", "pad", "--no-special-tokens", "--min-support", "2"],
        ),
    ];
    for (tag, make, args) in cases {
        let dir = tiny(tag, make);
        let theirs_args: Vec<&str> = args.iter().map(|a| if *a == "--layer-skip" { "--skip" } else { a }).collect();
        agree(&posgeo(&dir, &text, args), &reference(&dir, &text, &theirs_args), 1e-4, tag);
    }
}

#[test]
fn a_model_gives_the_same_numbers_from_its_folder_and_its_gguf() {
    let text = corpus("tests/data/reference_corpus.txt");
    for arch in ["llama", "qwen2", "gpt2"] {
        let gguf = std::env::temp_dir().join(format!("posgeo-dec-{arch}-{}.gguf", std::process::id()));
        let dir = tiny(&format!("{arch}-pair"), &["--arch", arch, "--seed", "11", "--gguf", gguf.to_str().unwrap()]);
        let args = ["--min-support", "3"];
        let (folder, file) = (posgeo(&dir, &text, &args), posgeo(&gguf, &text, &args));
        assert_eq!(folder["n"], file["n"], "{arch}: the GGUF tokenizer counts as the folder's tokenizer.json");
        let mut t = Tally::default();
        t.value(&format!("{arch}: the GGUF's rows"), &file["encodings"], &folder["encodings"], 1e-5);
        assert!(t.compared >= 8 * folder["encodings"].as_object().unwrap().len(), "{arch}: {} values", t.compared);
        agree(&posgeo(&gguf, &text, &args), &reference(&gguf, &text, &args), 1e-4, &format!("{arch} GGUF"));
    }
}

#[test]
fn quantized_ggufs_agree_with_the_reference_dequantization() {
    let text = corpus("tests/data/reference_corpus.txt");
    for (k, qtype) in
        ["Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K"].iter().enumerate()
    {
        let arch = ["llama", "qwen2", "gpt2"][k % 3];
        let gguf = std::env::temp_dir().join(format!("posgeo-dec-{qtype}-{}.gguf", std::process::id()));
        tiny(
            &format!("{qtype}-q"),
            &["--arch", arch, "--seed", "13", "--gguf", gguf.to_str().unwrap(), "--qtype", qtype],
        );
        let args = ["--min-support", "3", "--layer-sequences", "24"];
        agree(&posgeo(&gguf, &text, &args), &reference(&gguf, &text, &args), 1e-4, &format!("{arch} {qtype}"));
    }
}

/// Lines of the reference corpus, and one of digits, runs of spaces, a tab, accents, Chinese and
/// an end token's text.
fn tokenizer_lines() -> Vec<String> {
    let text = std::fs::read_to_string(corpus("tests/data/reference_corpus.txt")).unwrap();
    text.lines()
        .filter(|l| !l.is_empty())
        .take(40)
        .chain(["Digits 12345 and   spaces\n\t¿Qué? 你好 <|endoftext|>", "It's THEY'RE we'LL ÀÉ 1234567 x\r\n\ny"])
        .map(str::to_string)
        .collect()
}

/// `file`'s GGUF tokenizer gives, line by line, the ids in `theirs["ids"]`; the lines compared.
fn same_ids(file: &Path, lines: &[String], theirs: &Value) -> usize {
    let bytes = std::fs::read(file).unwrap();
    let meta = posgeo_model::files::gguf::GgufFile::new(&bytes).unwrap();
    let json = posgeo_model::files::gguf_tokenizer::tokenizer_json(meta.metadata()).unwrap();
    let ours = posgeo::corpus::hf_tokenizer::ModelTokenizer::from_bytes("GGUF tokenizer", json.as_bytes()).unwrap();
    let expected = theirs["ids"].as_array().unwrap();
    assert_eq!(expected.len(), lines.len(), "{}: one id list per line", file.display());
    for (line, want) in lines.iter().zip(expected) {
        let want: Vec<u32> = want.as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as u32).collect();
        assert_eq!(ours.ids(line, true, 4096), want, "{}: {line:?}", file.display());
    }
    lines.len()
}

/// Each GGUF tokenizer against the original it was written from, run by that original's own
/// library: byte-level BPE (small llama, qwen2 and gpt2 models, their `tokenizer.json` through
/// Hugging Face's `tokenizers`, with GPT-2's pre-tokenizer and with Llama 3's and Qwen2's) and
/// SentencePiece BPE (a model trained by `sentencepiece`, its
/// vocabulary written as llama.cpp's converter writes it, encoded by `SentencePieceProcessor`;
/// tests/reference/spm_gguf.py).
#[test]
fn the_gguf_tokenizers_equal_the_originals_they_were_written_from() {
    let lines = tokenizer_lines();
    let listed = serde_json::to_string(&lines).unwrap();
    let pid = std::process::id();
    let mut cases = Vec::new();
    let kinds = [("llama", "gpt2", true), ("qwen2", "gpt2", false), ("gpt2", "gpt2", false)];
    for (arch, pre, bos) in kinds.into_iter().chain([("llama", "llama-bpe", true), ("qwen2", "qwen2", false)]) {
        let gguf = std::env::temp_dir().join(format!("posgeo-dec-orig-{arch}-{pre}-{pid}.gguf"));
        let mut args = vec!["--arch", arch, "--pre", pre, "--seed", "4", "--gguf", gguf.to_str().unwrap()];
        args.extend(bos.then_some("--add-bos"));
        let dir = tiny(&format!("orig-{arch}-{pre}"), &args);
        let encode = "import json, sys\nfrom tokenizers import Tokenizer\nt = Tokenizer.from_file(sys.argv[1])\n\
                      print(json.dumps({'ids': [t.encode(l).ids for l in json.loads(sys.argv[2])]}))";
        let theirs = json_of(python().arg("-c").arg(encode).arg(dir.join("tokenizer.json")).arg(&listed));
        cases.push((gguf, theirs));
    }
    let spm = std::env::temp_dir().join(format!("posgeo-dec-spm-{pid}"));
    let script = Path::new(ROOT).join("tests/reference/spm_gguf.py");
    let out = python().arg(&script).arg("train").arg(&spm).output().unwrap();
    assert!(out.status.success(), "spm_gguf.py: {}", String::from_utf8_lossy(&out.stderr));
    let theirs = json_of(python().arg(&script).arg("encode").arg(spm.join("tokenizer.model")).arg(&listed));
    cases.push((spm.join("tokenizer.gguf"), theirs));
    let compared: usize = cases.iter().map(|(file, theirs)| same_ids(file, &lines, theirs)).sum();
    assert_eq!(compared, 6 * lines.len());
}

#[test]
fn the_gguf_tokenizer_equals_hugging_faces_from_the_same_vocabulary() {
    let gguf = std::env::temp_dir().join(format!("posgeo-dec-tok-{}.gguf", std::process::id()));
    tiny("tok", &["--arch", "llama", "--seed", "2", "--gguf", gguf.to_str().unwrap(), "--add-bos"]);
    for file in [gguf.clone(), smollm2()] {
        let bytes = std::fs::read(&file).unwrap();
        let meta = posgeo_model::files::gguf::GgufFile::new(&bytes).unwrap();
        let json = posgeo_model::files::gguf_tokenizer::tokenizer_json(meta.metadata()).unwrap();
        let ours = posgeo::corpus::hf_tokenizer::ModelTokenizer::from_bytes("GGUF tokenizer", json.as_bytes()).unwrap();
        let text = std::fs::read_to_string(corpus("tests/data/reference_corpus.txt")).unwrap();
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| !l.is_empty())
            .take(40)
            .chain(["Digits 12345 and   spaces\n\t¿Qué? 你好 <|endoftext|>"])
            .collect();
        let theirs = json_of(
            python()
                .arg(Path::new(ROOT).join("tests/reference/decoder_ref.py"))
                .arg(&file)
                .arg("--tokenize")
                .arg(serde_json::to_string(&lines).unwrap()),
        );
        for (k, line) in lines.iter().enumerate() {
            let expected: Vec<u32> =
                theirs["ids"][k].as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as u32).collect();
            assert_eq!(ours.ids(line, true, 4096), expected, "{}: {line:?}", file.display());
        }
    }
}

#[test]
fn bad_models_are_refused_with_a_message_naming_the_defect() {
    let text = corpus("tests/data/reference_corpus.txt");
    let tmp = std::env::temp_dir();
    // A pickle that would run a command.
    let evil = tiny("evil", &["--arch", "gpt2", "--seed", "1", "--format", "bin", "--evil"]);
    let e = posgeo_fails(&evil, &text);
    assert!(e.contains("posix.system") && e.contains("never runs a pickle"), "{e}");
    // A truncated GGUF, and one whose metadata puts a tensor past the end.
    let bytes = std::fs::read(smollm2()).unwrap();
    let cut = tmp.join(format!("posgeo-cut-{}.gguf", std::process::id()));
    std::fs::write(&cut, &bytes[..bytes.len() / 3]).unwrap();
    let e = posgeo_fails(&cut, &text);
    assert!(e.contains("truncated"), "{e}");
    let header = tmp.join(format!("posgeo-header-{}.gguf", std::process::id()));
    std::fs::write(&header, &bytes[..4096]).unwrap();
    let e = posgeo_fails(&header, &text);
    assert!(e.contains("the header runs past the end of the file") && e.contains("declares 272 tensors"), "{e}");
    // An architecture it does not run, and a config that disagrees with its weights.
    let dir = tiny("disagree", &["--arch", "llama", "--seed", "1"]);
    let config = std::fs::read_to_string(dir.join("config.json")).unwrap();
    std::fs::write(dir.join("config.json"), config.replace("\"llama\"", "\"falcon\"")).unwrap();
    assert!(posgeo_fails(&dir, &text).contains("\"falcon\" is not supported"));
    std::fs::write(dir.join("config.json"), config.replace("\"intermediate_size\": 50", "\"intermediate_size\": 52"))
        .unwrap();
    let e = posgeo_fails(&dir, &text);
    assert!(e.contains("disagree") && e.contains("mlp"), "{e}");
    // Token ids past the vocabulary (another model's tokenizer), and a model too large for the
    // memory budget.
    std::fs::write(dir.join("config.json"), &config).unwrap();
    let minilm_tokenizer = Path::new(ROOT).join("www/models/all-MiniLM-L6-v2/tokenizer.json.gz");
    let out = Command::new(env!("CARGO_BIN_EXE_posgeo"))
        .args(["analyze", &text, "--json", "--layer-sequences", "8", "--tokenizer-file"])
        .arg(&minilm_tokenizer)
        .arg("--model")
        .arg(&dir)
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && e.contains("outside the model's vocabulary"), "{e}");
    let huge = config
        .replace("\"num_hidden_layers\": 3", "\"num_hidden_layers\": 900")
        .replace("\"intermediate_size\": 50", "\"intermediate_size\": 4000000");
    std::fs::write(dir.join("config.json"), huge).unwrap();
    let e = posgeo_fails(&dir, &text);
    assert!(e.contains("running the model (llama, 900 layers") && e.contains("more than the memory budget"), "{e}");
}
