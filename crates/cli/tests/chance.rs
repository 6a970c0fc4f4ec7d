//! The chance rule (docs/MATH.md §17) against an independent computation: the band of
//! `posgeo analyze --json` (computed apart, with its own loop) equals the min, median and max
//! that numpy takes of the `random` rows of K runs with seeds 1..K, and the verdict and the
//! three claims follow the rule as `tests/reference/chance_ref.py` reads it — on the shipped
//! proteins (where no fixed encoding beats chance) and on Genesis.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used)] // tests may unwrap: a failure is the test failing

use serde_json::{json, Value};
use std::io::Write;
use std::process::{Command, Stdio};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

fn analyze(corpus: &str, args: &[&str], seed: u64) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_posgeo"))
        .args(["analyze", &format!("{ROOT}/{corpus}"), "--json", "--claims", "--d", "64", "--smacof-iter", "1"])
        .args(["--seed", &seed.to_string()])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn reference(input: &Value) -> Value {
    let venv = std::path::Path::new(ROOT).join(".venv/bin/python");
    let python = if venv.is_file() { venv.into_os_string() } else { "python3".into() };
    let mut child = Command::new(python)
        .arg(format!("{ROOT}/tests/reference/chance_ref.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input.to_string().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    serde_json::from_slice(&out.stdout).unwrap()
}

fn check(corpus: &str, args: &[&str]) -> Value {
    let report = analyze(corpus, args, 0);
    let k = report["random_band"]["k"].as_u64().unwrap();
    assert_eq!(k, 32);
    let tables: Vec<Value> = (1..=k)
        .map(|seed| {
            let r = &analyze(corpus, args, seed)["encodings"]["random"];
            json!({"scaled_stress": r["scaled_stress"], "spearman": r["spearman"]})
        })
        .collect();
    let want = reference(&json!({"report": report, "tables": tables}));
    let mut compared = 0;
    for what in ["scaled_stress", "spearman"] {
        for stat in ["min", "median", "max"] {
            let (a, b) = (&report["random_band"][what][stat], &want["random_band"][what][stat]);
            let (a, b) = (a.as_f64().unwrap(), b.as_f64().unwrap());
            assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "{corpus}: {what}.{stat}: posgeo {a}, numpy {b}");
            compared += 1;
        }
    }
    assert_eq!(compared, 6);
    for key in ["best_by_stress", "best_by_order"] {
        assert_eq!(report["verdict"][key], want[key], "{corpus}: {key}: {}", report["verdict"]["sentence"]);
    }
    let claims = report["claims"].as_array().unwrap();
    for key in ["sinusoids_close", "sinusoids_beat_random", "sinusoids_follow_order"] {
        let claim = claims.iter().find(|c| c["key"] == key).unwrap_or_else(|| panic!("{key} missing"));
        assert_eq!(claim["holds"], want["claims"][key], "{corpus}: {key}: {}", claim["reason"]);
    }
    report
}

#[test]
fn the_chance_rule_agrees_with_numpy_on_proteins_and_on_english() {
    let proteins = check("www/corpora/proteins.faa", &["--tokenizer", "chars", "--max-len", "256"]);
    // On the proteins no fixed encoding clears the band, and the sentence says so.
    assert_eq!(proteins["verdict"]["best_by_stress"], Value::Null, "{}", proteins["verdict"]["sentence"]);
    let sentence = proteins["verdict"]["sentence"].as_str().unwrap();
    assert!(sentence.starts_with("No fixed encoding fits this corpus better than random tables"), "{sentence}");
    check("www/corpora/kjv-genesis.txt", &["--max-len", "64"]);
}
