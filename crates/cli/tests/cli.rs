//! The command line as a user runs it: good inputs in every format, and bad inputs that
//! must each give their own message and a non-zero exit code — never a panic.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used)] // tests may unwrap: a failure is the test failing

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn posgeo(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_posgeo"))
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("posgeo starts");
    child.stdin.take().unwrap().write_all(stdin).ok();
    child.wait_with_output().expect("posgeo ends")
}

fn json(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

fn fails_with(args: &[&str], stdin: &[u8], needle: &str) {
    let out = posgeo(args, stdin);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{args:?} should fail");
    assert!(err.contains(needle), "{args:?}: {err:?} lacks {needle:?}");
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
}

fn corpus() -> String {
    (0..30).map(|k| format!("w{} x{} y{} z{}\n", k % 3, k % 5, k % 2, k % 7)).collect()
}

fn tmp(name: &str, bytes: &[u8]) -> String {
    let dir = std::env::temp_dir().join(format!("posgeo-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_string_lossy().into_owned()
}

#[test]
fn json_has_the_documented_keys() {
    let v = json(&posgeo(&["analyze", "-", "--json", "--matrix"], corpus().as_bytes()));
    for key in [
        "sequences",
        "n",
        "vocab_size",
        "support",
        "eigenvalues",
        "effective_rank",
        "energy_rank",
        "negative_mass",
        "corpus_monotonicity_violation_rate",
        "encodings",
        "hellinger",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["sequences"], 30);
    assert_eq!(v["n"], 4);
    let names = ["nope", "sinusoidal", "rope", "alibi", "random", "pmds", "pmds_r", "smacof"];
    for name in names {
        let e = &v["encodings"][name];
        for key in
            ["raw_stress", "scaled_stress", "scale", "spearman", "monotonicity_violation_rate", "dim", "parameters"]
        {
            assert!(e.get(key).is_some(), "{name} lacks {key}");
        }
    }
    assert_eq!(v["encodings"]["nope"]["raw_stress"], 1.0);
    assert_eq!(v["hellinger"].as_array().unwrap().len(), 4);
    let eig: Vec<f64> = v["eigenvalues"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
    assert!(eig.windows(2).all(|w| w[0] >= w[1]));
}

#[test]
fn every_input_format_gives_the_same_numbers() {
    let text = corpus();
    let base = json(&posgeo(&["analyze", "--json"], text.as_bytes()));
    let csv: String = std::iter::once("id,text\n".to_string())
        .chain(text.lines().enumerate().map(|(k, l)| format!("{k},\"{l}\"\n")))
        .collect();
    let tsv: String = text.lines().map(|l| format!("x\t{l}\n")).collect();
    let jsonl: String = text.lines().map(|l| format!("{{\"body\": {l:?}}}\n")).collect();
    let from_csv = json(&posgeo(&["analyze", &tmp("c.csv", csv.as_bytes()), "--column", "text", "--json"], b""));
    let from_tsv =
        json(&posgeo(&["analyze", "--format", "tsv", "--no-header", "--column", "1", "--json"], tsv.as_bytes()));
    let from_jsonl = json(&posgeo(&["analyze", &tmp("c.jsonl", jsonl.as_bytes()), "--field", "body", "--json"], b""));
    for other in [from_csv, from_tsv, from_jsonl] {
        assert_eq!(other["encodings"], base["encodings"]);
        assert_eq!(other["eigenvalues"], base["eigenvalues"]);
    }
}

#[test]
fn readable_table_without_json() {
    let out = posgeo(&["analyze"], corpus().as_bytes());
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    for needle in ["sequences", "pmds_r", "sinusoidal", "scaled"] {
        assert!(s.contains(needle), "{s}");
    }
}

#[test]
fn synth_is_reproducible_and_analyzable() {
    let a = posgeo(&["synth", "--sequences", "50", "--positions", "12", "--seed", "3"], b"");
    let b = posgeo(&["synth", "--sequences", "50", "--positions", "12", "--seed", "3"], b"");
    assert!(a.status.success());
    assert_eq!(a.stdout, b.stdout);
    assert_eq!(a.stdout.split(|&c| c == b'\n').filter(|l| !l.is_empty()).count(), 50);
    let v = json(&posgeo(&["analyze", "--json"], &a.stdout));
    assert_eq!(v["n"], 12);
}

#[test]
fn lossy_skips_invalid_lines_and_counts_them() {
    let mut bytes = corpus().into_bytes();
    bytes.extend_from_slice(b"\xff\xfe broken\n");
    fails_with(&["analyze"], &bytes, "line 31: the input is not valid UTF-8");
    let v = json(&posgeo(&["analyze", "--lossy", "--json"], &bytes));
    assert_eq!(v["skipped_lines"], 1);
    assert_eq!(v["sequences"], 30);
}

#[test]
fn bad_inputs_each_get_their_message() {
    fails_with(&["analyze"], b"", "the input is empty");
    fails_with(&["analyze"], b"\n \n", "the input is empty");
    fails_with(&["analyze", "/nonexistent/corpus.txt"], b"", "cannot read /nonexistent/corpus.txt");
    fails_with(&["analyze", "--format", "csv", "--column", "body"], b"id,text\n1,a b\n", "column \"body\" not found");
    fails_with(&["analyze", "--format", "jsonl"], b"{\"text\": \"a b\"}\n{\"txt\": 1}\n", "line 2");
    fails_with(&["analyze"], b"a\nb\nc\nd\ne\nf\n", "at least 2 are needed");
    fails_with(&["analyze", "--head-dim", "3"], corpus().as_bytes(), "head_dim");
    fails_with(&["analyze", "--alpha=-1"], corpus().as_bytes(), "alpha");
    fails_with(&["analyze", "--max-len", "1"], corpus().as_bytes(), "max_len");
    fails_with(&["analyze"], b"same same\nsame same\nsame same\nsame same\nsame same\n", "all distances are 0");
    fails_with(&["analyze", "--learned", &tmp("l.txt", b"1 2\n3 4\n")], corpus().as_bytes(), "the table has 2 rows");
}

#[test]
fn learned_table_is_compared() {
    let table: String = (0..4).map(|i| format!("{}, {}\n", i as f64 * 0.1, (i as f64).sin())).collect();
    let v = json(&posgeo(&["analyze", "--json", "--learned", &tmp("t.csv", table.as_bytes())], corpus().as_bytes()));
    assert_eq!(v["encodings"]["learned"]["dim"], 2);
    assert_eq!(v["encodings"]["learned"]["parameters"], 8);
    // The same table as a safetensors checkpoint (F64, next to another 2-D tensor) gives the
    // same numbers once the tensor is named.
    let values: Vec<f64> = (0..4).flat_map(|i| [i as f64 * 0.1, (i as f64).sin()]).collect();
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let other = vec![0u8; 8 * 6];
    let views = [
        ("wte.weight", safetensors::tensor::TensorView::new(safetensors::Dtype::F64, vec![3, 2], &other).unwrap()),
        ("wpe.weight", safetensors::tensor::TensorView::new(safetensors::Dtype::F64, vec![4, 2], &bytes).unwrap()),
    ];
    let file = tmp("model.safetensors", &safetensors::serialize(views, None).unwrap());
    let w = json(&posgeo(&["analyze", "--json", "--learned", &file, "--tensor", "wpe.weight"], corpus().as_bytes()));
    assert_eq!(w["encodings"]["learned"], v["encodings"]["learned"]);
    fails_with(&["analyze", "--learned", &file, "--tensor", "bias"], corpus().as_bytes(), "no tensor \"bias\"");
}

#[test]
fn several_learned_tables_are_each_their_own_row() {
    let rows = |f: fn(f64) -> f64| -> Vec<f64> { (0..4).flat_map(|i| [i as f64 * 0.1, f(i as f64)]).collect() };
    let (a, b) = (rows(f64::sin), rows(f64::cos));
    let text = |v: &[f64]| -> String { v.chunks(2).map(|r| format!("{}, {}\n", r[0], r[1])).collect() };
    let (fa, fb) = (tmp("a.csv", text(&a).as_bytes()), tmp("b.csv", text(&b).as_bytes()));
    let single = |f: &str| json(&posgeo(&["analyze", "--json", "--learned", f], corpus().as_bytes()));
    let (one_a, one_b) = (single(&fa), single(&fb));
    // Two files: rows learned:a.csv and learned:b.csv, each equal to its table alone.
    let both = json(&posgeo(&["analyze", "--json", "--learned", &fa, "--learned", &fb], corpus().as_bytes()));
    assert_eq!(both["encodings"]["learned:a.csv"], one_a["encodings"]["learned"]);
    assert_eq!(both["encodings"]["learned:b.csv"], one_b["encodings"]["learned"]);
    assert!(both["encodings"].get("learned").is_none());
    let order: Vec<&str> = both["encoding_order"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert_eq!(&order[order.len() - 2..], ["learned:a.csv", "learned:b.csv"]);
    // Two tensors of one checkpoint.
    let bytes = |v: &[f64]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let (ba, bb) = (bytes(&a), bytes(&b));
    let views = [
        ("first.weight", safetensors::tensor::TensorView::new(safetensors::Dtype::F64, vec![4, 2], &ba).unwrap()),
        ("second.weight", safetensors::tensor::TensorView::new(safetensors::Dtype::F64, vec![4, 2], &bb).unwrap()),
    ];
    let file = tmp("two.safetensors", &safetensors::serialize(views, None).unwrap());
    let args = ["analyze", "--json", "--learned", &file, "--tensor", "first.weight", "--tensor", "second.weight"];
    let two = json(&posgeo(&args, corpus().as_bytes()));
    assert_eq!(two["encodings"]["learned:first.weight"], one_a["encodings"]["learned"]);
    assert_eq!(two["encodings"]["learned:second.weight"], one_b["encodings"]["learned"]);
    // The text output names them too; a mismatch of files and tensors is a message.
    let out = posgeo(&["analyze", "--learned", &fa, "--learned", &fb], corpus().as_bytes());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("learned:a.csv") && text.contains("learned tables: a.csv"), "{text}");
    fails_with(
        &["analyze", "--learned", &fa, "--learned", &fb, "--tensor", "x", "--tensor", "y", "--tensor", "z"],
        corpus().as_bytes(),
        "3 --tensor for 2 --learned",
    );
}

#[test]
fn counts_tables_count_merge_and_analyse_and_bad_tables_say_why() {
    let text = corpus();
    let table = tmp("t.csv", b"");
    let out = posgeo(&["count", "-", "-o", &table, "--mode", "pad"], text.as_bytes());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let csv = std::fs::read_to_string(&table).unwrap();
    assert!(csv.starts_with("position,token,count,first\n"), "{csv}");
    let direct = json(&posgeo(&["analyze", "-", "--json", "--mode", "pad"], text.as_bytes()));
    let mut from_table = json(&posgeo(&["analyze", "--counts", &table, "--json"], b""));
    assert_eq!(from_table["params"]["mode"], "pad", "the table's own mode applies");
    assert_eq!(from_table["counts_table"], "t.csv");
    from_table.as_object_mut().unwrap().remove("counts_table");
    assert_eq!(from_table, direct);
    let text_out = posgeo(&["analyze", "--counts", &table, "--mode", "condition"], b"");
    assert!(String::from_utf8_lossy(&text_out.stdout).contains("counts table: t.csv"));
    let condition = tmp("c.csv", b"");
    let ragged = format!("{text}one\ntwo words\n");
    assert!(posgeo(&["count", "-", "-o", &condition], ragged.as_bytes()).status.success());
    let v = json(&posgeo(&["analyze", "--counts", &condition, "--json"], b""));
    assert!(v["sequences"].is_null(), "condition mode cannot know the sequences");
    fails_with(
        &["analyze", "--counts", &condition, "--mode", "pad"],
        b"",
        "pad mode needs a table counted in pad mode",
    );
    fails_with(&["analyze", "--counts", &tmp("bad.csv", b"pos,tok,n\n0,a,1\n")], b"", "column \"position\" not found");
    fails_with(
        &["analyze", "--counts", &tmp("neg.csv", b"position,token,count\n0,a,-1\n")],
        b"",
        "line 2: count \"-1\"",
    );
    fails_with(&["analyze", "--counts", "/nonexistent/t.csv"], b"", "cannot read /nonexistent/t.csv");
    let empty_dir = std::env::temp_dir().join(format!("posgeo-cli-empty-{}", std::process::id()));
    std::fs::create_dir_all(&empty_dir).unwrap();
    fails_with(&["analyze", "--counts", empty_dir.to_str().unwrap()], b"", "holds no table files");
    fails_with(&["merge", "/nonexistent/a.csv", &table, "-o", "-"], b"", "cannot read /nonexistent/a.csv");
}

/// `--claims`: ten findings after the table, and in the JSON each with the report's own
/// numbers (every value names a field of the same report).
#[test]
fn claims_list_the_papers_findings_with_the_reports_numbers() {
    let c = corpus();
    let text = String::from_utf8(posgeo(&["analyze", "--claims"], c.as_bytes()).stdout).unwrap();
    let tail = text.split("The paper's findings on this corpus:\n").nth(1).expect("the claims follow the table");
    assert_eq!(tail.lines().count(), 10, "{tail}");
    let r = json(&posgeo(&["analyze", "--json", "--claims"], c.as_bytes()));
    let claims = r["claims"].as_array().unwrap();
    let keys: Vec<&str> = claims.iter().map(|c| c["key"].as_str().unwrap()).collect();
    assert_eq!(
        keys,
        [
            "full_rank_pmds",
            "alibi_short",
            "sinusoidal_rope",
            "random_high",
            "low_rank",
            "monotone",
            "layer_departs",
            "sinusoids_close",
            "sinusoids_beat_random",
            "sinusoids_follow_order"
        ]
    );
    let mut checked = 0;
    for claim in claims {
        for (field, v) in claim["values"].as_object().unwrap() {
            let Some((name, metric)) = field.split_once('.') else { panic!("{field}") };
            if let Some(row) = r["encodings"].get(name) {
                assert_eq!(&row[metric], v, "{field}");
                checked += 1;
            }
        }
    }
    assert!(checked >= 8, "{checked} values checked");
    assert!(claims[6]["holds"].is_null(), "no model: not applicable");
    // Without --claims the JSON has no claims.
    assert!(json(&posgeo(&["analyze", "--json"], c.as_bytes())).get("claims").is_none());
}

/// Under an address-space cap of about 2.9 GB (`ulimit -v 3000000`, as on shared clusters)
/// an analysis with n = 512 positions — whose matrix products run on two threads — ends as
/// it does without the cap. The products' packing buffers used to take 2 × the reported L3
/// cache per thread: about 1 GB a thread on a VM that reports its host's 480 MiB L3, and the
/// run aborted with "memory allocation of 1006632960 bytes failed".
#[test]
#[cfg(target_os = "linux")]
fn an_address_space_cap_does_not_abort_the_analysis() {
    let synth = ["synth", "--sequences", "300", "--positions", "512", "--vocab", "400", "--seed", "5"];
    let text = posgeo(&synth, b"");
    assert!(text.status.success());
    let file = tmp("capped.txt", &text.stdout);
    let capped = Command::new("sh")
        .args(["-c", "ulimit -v 3000000 && exec \"$0\" analyze \"$1\" --json", env!("CARGO_BIN_EXE_posgeo"), &file])
        .env("RUST_BACKTRACE", "0")
        .env("RAYON_NUM_THREADS", "2")
        .output()
        .expect("sh starts");
    let mut free = Command::new(env!("CARGO_BIN_EXE_posgeo"));
    let free = json(&free.args(["analyze", &file, "--json"]).env("RAYON_NUM_THREADS", "2").output().unwrap());
    let capped = json(&capped);
    assert_eq!(capped["n"], 512);
    assert_eq!(capped["eigenvalues"], free["eigenvalues"]);
    assert_eq!(capped["effective_rank"], free["effective_rank"]);
}

/// Under an address-space cap the memory budget is half the cap: a corpus whose n would not
/// fit is refused at once, with the estimate, the cap named, and the largest max_len that
/// fits (before, the run went on until the eigensolver failed to allocate).
#[test]
#[cfg(target_os = "linux")]
fn an_address_space_cap_sets_the_budget() {
    let text = posgeo(&["synth", "--sequences", "6", "--positions", "20000", "--vocab", "50", "--seed", "2"], b"");
    let file = tmp("long.txt", &text.stdout);
    let capped = Command::new("sh")
        .args([
            "-c",
            "ulimit -v 3000000 && exec \"$0\" analyze \"$1\" --max-len 12000",
            env!("CARGO_BIN_EXE_posgeo"),
            &file,
        ])
        .output()
        .expect("sh starts");
    let err = String::from_utf8_lossy(&capped.stderr);
    assert!(!capped.status.success());
    assert!(err.contains("n = 12000 positions") && err.contains("half the address-space limit"), "{err}");
    let fits: usize = err.split("max_len to at most ").nth(1).and_then(|t| t.split(' ').next()?.parse().ok()).unwrap();
    // Half of 3,000,000 KiB at d = 768: 8·(6n² + 4·n·768) bytes ≤ 1,536,000,000.
    assert!((5000..6000).contains(&fits), "{fits}");
    // Without this cap (16 GiB, or half of any limit the tests run under) it is refused too.
    let free = posgeo(&["analyze", &file, "--max-len", "20000"], b"");
    let err = String::from_utf8_lossy(&free.stderr);
    assert!(err.contains("n = 20000 positions") && err.contains(": set max_len to at most"), "{err}");
}

/// README names the CLI's commands as `posgeo --help` lists them, and counts them.
#[test]
fn the_readme_lists_every_command() {
    let out = Command::new(env!("CARGO_BIN_EXE_posgeo")).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        // A command's line starts two spaces in; a wrapped description is indented further.
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    assert!(readme.contains(&format!("with {} commands:", commands.len())), "README should count {commands:?}");
    for c in &commands {
        assert!(readme.contains(&format!("| `posgeo {c}")), "README's command table lacks {c}");
    }
}
