//! `posgeo train` (docs/MATH.md §16) as a user runs it: an independent JAX replay of its
//! dump, its finding recomputed from its own numbers, its fixed signals' σ* against
//! `posgeo analyze`, and bad input.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used)] // tests may unwrap: a failure is the test failing

use std::path::Path;
use std::process::{Command, Output};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

fn posgeo(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_posgeo")).args(args).env("RUST_BACKTRACE", "0").output().expect("posgeo runs")
}

fn json(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

/// A small synthetic corpus in a fresh folder.
fn corpus(dir: &Path) -> String {
    let out = posgeo(&["synth", "--positions", "12", "--vocab", "40", "--sequences", "300"]);
    assert!(out.status.success());
    let path = dir.join("corpus.txt");
    std::fs::write(&path, &out.stdout).unwrap();
    path.to_string_lossy().into_owned()
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("posgeo-learn-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const SMALL: [&str; 12] =
    ["--steps", "20", "--every", "10", "--d-model", "16", "--heads", "2", "--batch", "8", "--layers", "2"];

/// tests/reference/train_ref.py on a dump with these extra arguments: (success, stdout).
fn replay(dump: &Path, extra: &[&str]) -> (bool, String) {
    let venv = Path::new(ROOT).join(".venv/bin/python");
    let python = if venv.is_file() { venv.into_os_string() } else { "python3".into() };
    let out = Command::new(python)
        .arg(Path::new(ROOT).join("tests/reference/train_ref.py"))
        .arg(dump)
        .args(["--steps", "20", "--tol", "1e-4", "--wtol", "1e-4"])
        .args(extra)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    (out.status.success(), format!("{stdout}\n{}", String::from_utf8_lossy(&out.stderr)))
}

/// A replay line's (loss difference, steps compared, final weights' relative difference,
/// held-out loss difference, records compared).
fn replayed(line: &str) -> (f64, usize, f64, f64, usize) {
    let f: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(f.len(), 6, "{line}");
    (f[1].parse().unwrap(), f[2].parse().unwrap(), f[3].parse().unwrap(), f[4].parse().unwrap(), f[5].parse().unwrap())
}

/// An independent implementation (tests/reference/train_ref.py, JAX, float64) replays every
/// signal's dump from the same initial weights and batches: each of the 20 losses agrees to
/// 1e-4, the held-out loss at each record to 1e-4 and its accuracy to one position, and every
/// weight after the 20th step to 1e-4 of its tensor's largest. Negative
/// controls: the same reference without weight decay, with the warm-up a step late, or with
/// sinusoids of another base, fails — without decay the losses alone still agree to 1e-4, the
/// final weights do not.
#[test]
fn a_jax_replay_of_the_dump_gives_every_loss_and_the_final_weights() {
    let dir = scratch("replay");
    let corpus = corpus(&dir);
    let dump = dir.join("dump");
    let mut args = vec!["train", corpus.as_str(), "--dump", dump.to_str().unwrap()];
    args.extend(SMALL);
    let out = posgeo(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (ok, text) = replay(&dump, &[]);
    assert!(ok, "{text}");
    let lines: Vec<&str> = text.lines().take_while(|l| !l.is_empty()).collect();
    assert_eq!(lines.len(), 10, "one line per signal: {text}");
    for l in lines {
        let (diff, steps, weights, held, records) = replayed(l);
        assert!(diff < 1e-4 && weights < 1e-4 && held < 1e-4, "{l}");
        // Every one of the 20 steps was compared (a dump cut short would compare fewer), and
        // the held-out loss and accuracy at each of the records, steps 0, 10 and 20.
        assert_eq!((steps, records), (20, 3), "{l}");
    }
    // Scoring every real held-out position instead of the chosen ones gives another loss.
    let (ok, text) = replay(&dump, &["--signal", "learned", "--control", "held"]);
    assert!(!ok && replayed(text.lines().next().unwrap()).3 > 1e-4, "every position scored: {text}");
    let (ok, text) = replay(&dump, &["--signal", "learned", "--control", "no-decay"]);
    let (diff, _, weights, _, _) = replayed(text.lines().next().unwrap());
    assert!(!ok && diff < 1e-4 && weights > 1e-4, "without decay: {text}");
    let (ok, text) = replay(&dump, &["--signal", "learned", "--control", "warmup"]);
    assert!(!ok && replayed(text.lines().next().unwrap()).0 > 1e-4, "the warm-up a step late: {text}");
    // The fixed tables are checked against their definitions: the sinusoids of another base fail.
    let (ok, text) = replay(&dump, &["--signal", "sinusoidal", "--control", "table"]);
    assert!(!ok && text.contains("pos is not §5's sinusoidal table"), "{text}");
}

fn ranks(v: &[f64]) -> Vec<f64> {
    v.iter()
        .map(|x| {
            let below = v.iter().filter(|y| *y < x).count() as f64;
            let equal = v.iter().filter(|y| *y == x).count() as f64;
            below + (equal + 1.0) / 2.0
        })
        .collect()
}

fn pearson(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len() as f64;
    let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let cov: f64 = a.iter().zip(b).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let va: f64 = a.iter().map(|x| (x - ma).powi(2)).sum();
    let vb: f64 = b.iter().map(|y| (y - mb).powi(2)).sum();
    cov / (va * vb).sqrt()
}

/// The finding is Spearman's ρ of the reported per-signal numbers, and the fixed signals'
/// σ* are `posgeo analyze`'s for the same geometry.
#[test]
fn the_finding_and_the_fixed_stresses_follow_from_the_reported_numbers() {
    let dir = scratch("finding");
    let corpus = corpus(&dir);
    let mut args =
        vec!["train", corpus.as_str(), "--json", "--claims", "--signals", "nope,sinusoidal,pmds,learned,rope,alibi"];
    args.extend(SMALL);
    let e = json(&posgeo(&args));
    let signals = e["signals"].as_array().unwrap();
    assert_eq!(signals.len(), 6);
    let loss: Vec<f64> = signals.iter().map(|s| s["held_loss"].as_f64().unwrap()).collect();
    let stress: Vec<f64> = signals.iter().map(|s| s["scaled_stress"].as_f64().unwrap()).collect();
    let rho = pearson(&ranks(&loss), &ranks(&stress));
    assert!((e["finding"]["rho"].as_f64().unwrap() - rho).abs() < 1e-12);
    let of = |name: &str| signals.iter().find(|s| s["signal"] == name).unwrap()["scaled_stress"].as_f64().unwrap();
    let a = json(&posgeo(&["analyze", corpus.as_str(), "--json", "--d", "16", "--head-dim", "8"]));
    let enc = &a["encodings"];
    for (name, key) in [("sinusoidal", "sinusoidal"), ("rope", "rope"), ("alibi", "alibi")] {
        let expected = enc[key]["scaled_stress"].as_f64().unwrap();
        assert!((of(name) - expected).abs() < 1e-5, "{name}: {} vs {expected}", of(name));
    }
    assert_eq!(of("nope"), 1.0);
    // Every run recorded at steps 0, 10, 20; the learned table's curves are there.
    let learned = e["runs"].as_array().unwrap().iter().find(|r| r["signal"] == "learned").unwrap();
    let steps: Vec<u64> = learned["records"].as_array().unwrap().iter().map(|r| r["step"].as_u64().unwrap()).collect();
    assert_eq!(steps, [0, 10, 20]);
    assert!(learned["records"][2]["table"]["separation"].as_f64().unwrap() > 0.0);
    // The training claims follow from the reported numbers.
    let claim = |key: &str| e["claims"].as_array().unwrap().iter().find(|c| c["key"] == key).unwrap().clone();
    let l = signals.iter().find(|s| s["signal"] == "learned").unwrap();
    let sep = l["separation"].as_f64().unwrap();
    assert_eq!(claim("training_separates")["holds"], sep >= 0.01);
    let (end, start) = (l["monotonicity"].as_f64().unwrap(), l["initial_monotonicity"].as_f64().unwrap());
    assert_eq!(claim("learned_monotone")["holds"], end < start);
    // ρ's p-value by brute force over every ordering of the 6 signals' σ* (720), two-sided;
    // the verdict is undetermined above 0.05 (one seed: ρ's range is ρ itself).
    let mut orders: Vec<Vec<usize>> = vec![vec![]];
    for _ in 0..stress.len() {
        let mut longer = Vec::new();
        for o in &orders {
            for k in (0..stress.len()).filter(|k| !o.contains(k)) {
                longer.push([o.clone(), vec![k]].concat());
            }
        }
        orders = longer;
    }
    let hits = orders
        .iter()
        .filter(|o| {
            let permuted: Vec<f64> = o.iter().map(|&k| stress[k]).collect();
            pearson(&ranks(&loss), &ranks(&permuted)).abs() >= rho.abs() - 1e-9
        })
        .count();
    let p = hits as f64 / orders.len() as f64;
    assert_eq!(orders.len(), 720);
    assert!((e["finding"]["p_value"].as_f64().unwrap() - p).abs() < 1e-12, "p = {p}");
    let determined = p <= 0.05 && rho != 0.0;
    assert_eq!(e["finding"]["determined"], determined);
    let want = if determined { serde_json::json!(rho >= 0.5) } else { serde_json::Value::Null };
    assert_eq!(claim("stress_predicts_loss")["holds"], want);
    if !determined {
        assert!(e["finding"]["sentence"].as_str().unwrap().contains("undetermined"), "{}", e["finding"]["sentence"]);
    }
    // Position helps only when both differences clear 1 % of nope's loss (one seed).
    let held = |name: &str| signals.iter().find(|s| s["signal"] == name).unwrap()["held_loss"].as_f64().unwrap();
    let margin = 0.01 * held("nope");
    let (dl, ds) = (held("nope") - held("learned"), held("nope") - held("sinusoidal"));
    let helps = if dl < -margin || ds < -margin {
        serde_json::json!(false)
    } else if dl > margin && ds > margin {
        serde_json::json!(true)
    } else {
        serde_json::Value::Null
    };
    assert_eq!(claim("position_helps")["holds"], helps);
}

#[test]
fn bad_input_gets_a_message_and_a_failing_exit() {
    let dir = scratch("bad");
    let corpus = corpus(&dir);
    let tiny = dir.join("tiny.txt");
    std::fs::write(&tiny, "a b c d e f\n".repeat(6)).unwrap();
    for (args, needle) in [
        (vec!["train", corpus.as_str(), "--steps", "0"], "steps"),
        (vec!["train", corpus.as_str(), "--signals", "nope,warp"], "\"warp\" is not one of"),
        (vec!["train", tiny.to_str().unwrap(), "--min-support", "1"], "at least 10"),
        (vec!["train", corpus.as_str(), "--d-model", "10", "--heads", "2"], "even width"),
    ] {
        let out = posgeo(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// `--preset lecture` runs the preset's signals, steps, batch and record interval (the other
/// options as given), every verdict's numbers reported.
#[test]
fn the_lecture_preset_runs_its_options() {
    let dir = scratch("preset");
    let file = corpus(&dir);
    let e = json(&posgeo(&["train", &file, "--json", "--preset", "lecture", "--d-model", "16", "--heads", "2"]));
    let p = &e["params"];
    assert_eq!((p["steps"].as_u64(), p["batch"].as_u64(), p["every"].as_u64()), (Some(400), Some(16), Some(20)));
    assert_eq!(p["d_model"].as_u64(), Some(16), "options the preset does not set stay as given");
    let signals: Vec<&str> = e["signals"].as_array().unwrap().iter().map(|s| s["signal"].as_str().unwrap()).collect();
    assert_eq!(signals, ["nope", "sinusoidal", "pmds", "learned"], "in the report's order, as the page checks them");
    let learned = e["runs"].as_array().unwrap().iter().find(|r| r["signal"] == "learned").unwrap();
    assert_eq!(learned["records"].as_array().unwrap().len(), 400 / 20 + 1, "a record every 20 steps, and step 0");
    assert!(e["finding"]["rho"].is_number());
}
