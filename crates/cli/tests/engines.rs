//! Counts tables from the engines users have (docs/SCALE.md): DuckDB (PyPI `duckdb`) running
//! `scripts/engines/counts.sql`, and Spark in local mode (PyPI `pyspark`, the machine's Java)
//! running `scripts/engines/spark_counts.py`, on text, JSON Lines and Parquet corpora — and
//! posgeo's own `count` and `merge`. Each time `posgeo analyze --counts TABLE` must equal
//! `posgeo analyze CORPUS --tokenizer whitespace` exactly: every number of the JSON report,
//! bit for bit; only the fields that need the raw text may differ.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used)] // tests may unwrap: a failure is the test failing

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn python() -> PathBuf {
    let p = std::env::var_os("POSGEO_PYTHON").map_or_else(|| root().join(".venv/bin/python"), PathBuf::from);
    assert!(
        p.exists(),
        "{} is missing: run `bash scripts/setup.sh` (it creates .venv with duckdb and pyspark)",
        p.display()
    );
    p
}

/// A folder of this test thread's own: tests run in parallel, and two engines writing the same
/// file conflict (DuckDB locks it).
fn dir() -> PathBuf {
    let thread = format!("{:?}", std::thread::current().id()).replace(|c: char| !c.is_ascii_alphanumeric(), "");
    let d = std::env::temp_dir().join(format!("posgeo-engines-{}-{thread}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(cmd: &mut Command) -> Vec<u8> {
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{cmd:?}\n{}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

fn posgeo(args: &[&str]) -> serde_json::Value {
    serde_json::from_slice(&run(Command::new(env!("CARGO_BIN_EXE_posgeo")).args(args))).unwrap()
}

/// The corpus: mixed case, punctuation, quotes and commas inside tokens, Unicode whitespace
/// (NBSP, ideographic space, tabs), CJK, emoji, CRLF line ends, blank and whitespace-only
/// lines, a literal `<pad>`, long and short lines.
fn corpus_lines() -> Vec<String> {
    let words = [
        "The",
        "cat",
        "sat",
        "on",
        "the",
        "MAT",
        "\"quoted\",",
        "it's",
        "naïve",
        "Café",
        "东京",
        "🙂",
        "a,b",
        "x\"y",
        "<pad>",
        "déjà-vu",
        "Über",
        "STRASSE",
        "l'été",
        "42",
        "3.14",
        "end.",
    ];
    let seps = [" ", "  ", "\t", "\u{a0}", "\u{3000}", " \u{2003}"];
    (0..900usize)
        .map(|k| {
            if k % 97 == 13 {
                return String::new(); // a blank line: no sequence
            }
            if k % 89 == 7 {
                return " \t ".to_string(); // whitespace only: a sequence without tokens
            }
            let len = 1 + (k * 7 + k / 3) % 23;
            let mut s = String::new();
            for i in 0..len {
                if i > 0 {
                    s.push_str(seps[(k + i) % seps.len()]);
                }
                s.push_str(words[(k * 3 + i * i + i * k / 5) % words.len()]);
            }
            if k % 5 == 0 {
                s.push('\r'); // CRLF: the \r is dropped
            }
            s
        })
        .collect()
}

struct Corpora {
    text: String,
    jsonl: String,
    parquet: String,
}

fn corpora(d: &Path) -> Corpora {
    let lines = corpus_lines();
    let text = d.join("corpus.txt");
    std::fs::write(&text, lines.join("\n") + "\n").unwrap();
    // JSON Lines and Parquet hold the same sequences (a record per non-empty line).
    let records: Vec<String> = lines.iter().map(|l| l.strip_suffix('\r').unwrap_or(l).to_string()).collect();
    let jsonl = d.join("corpus.jsonl");
    let body: String = records.iter().map(|r| format!("{}\n", serde_json::json!({ "id": 1, "body": r }))).collect();
    std::fs::write(&jsonl, body).unwrap();
    let parquet = d.join("corpus.parquet");
    let script = format!(
        "import duckdb; duckdb.sql(\"COPY (SELECT body FROM read_json('{}', format='newline_delimited')) TO '{}' (FORMAT parquet)\")",
        jsonl.display(),
        parquet.display()
    );
    run(Command::new(python()).arg("-c").arg(script));
    let s = |p: PathBuf| p.to_string_lossy().into_owned();
    Corpora { text: s(text), jsonl: s(jsonl), parquet: s(parquet) }
}

/// The report of the corpus itself.
fn direct(corpus: &str, extra: &[&str], mode: &str) -> serde_json::Value {
    let mut args = vec!["analyze", corpus, "--tokenizer", "whitespace", "--mode", mode, "--json", "--matrix"];
    args.extend(extra);
    args.extend(["--min-support", "3", "--top-k", "12", "--max-len", "20"]);
    posgeo(&args)
}

/// The report of a table, checked against the direct one: equal but for the raw-text fields.
fn check_table(table: &str, mode: &str, want: &serde_json::Value, what: &str) {
    let mut got = posgeo(&[
        "analyze",
        "--counts",
        table,
        "--tokenizer",
        "whitespace",
        "--mode",
        mode,
        "--json",
        "--matrix",
        "--min-support",
        "3",
        "--top-k",
        "12",
        "--max-len",
        "20",
    ]);
    let obj = got.as_object_mut().unwrap();
    assert!(obj.remove("counts_table").is_some(), "{what}: the report names the table");
    let sequences = obj.insert("sequences".into(), want["sequences"].clone()).unwrap();
    match mode {
        "pad" => assert_eq!(sequences, want["sequences"], "{what}: pad mode knows the sequences"),
        _ => assert!(sequences.is_null(), "{what}: condition mode cannot know the sequences"),
    }
    assert_eq!(&got, want, "{what}: analyze --counts differs from the direct analysis");
}

#[test]
fn duckdb_tables_analyse_exactly_like_the_corpus() {
    let d = dir();
    let c = corpora(&d);
    let script = root().join("scripts/engines/duckdb_counts.py");
    for (corpus, fmt, field_args) in [
        (&c.text, "text", vec![]),
        (&c.jsonl, "jsonl", vec!["--field", "body"]),
        (&c.parquet, "parquet", vec!["--field", "body"]),
    ] {
        // posgeo reads Parquet corpora only as tables; the JSON Lines file holds the same text.
        let (direct_corpus, direct_args) =
            if fmt == "text" { (&c.text, vec![]) } else { (&c.jsonl, vec!["--field", "body"]) };
        for mode in ["condition", "pad"] {
            let want = direct(direct_corpus, &direct_args, mode);
            for ext in ["csv", "csv.gz", "parquet"] {
                let out = d.join(format!("duck-{fmt}-{mode}.{ext}"));
                run(Command::new(python())
                    .arg(&script)
                    .args([corpus.as_str(), out.to_str().unwrap(), "--format", fmt, "--mode", mode, "--max-len", "20"])
                    .args(&field_args));
                check_table(out.to_str().unwrap(), mode, &want, &format!("duckdb {fmt} {mode} {ext}"));
            }
        }
    }
    // A Parquet table that lies (cut short, or its middle overwritten): a message, no panic.
    let whole = std::fs::read(d.join("duck-text-pad.parquet")).unwrap();
    let mut scrambled = whole.clone();
    let mid = scrambled.len() / 2;
    scrambled[mid - 40..mid + 40].iter_mut().for_each(|b| *b = b.wrapping_mul(31).wrapping_add(7));
    for (name, bytes) in [("cut.parquet", whole[..whole.len() / 2].to_vec()), ("scrambled.parquet", scrambled)] {
        let p = d.join(name);
        std::fs::write(&p, bytes).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_posgeo"))
            .args(["analyze", "--counts", p.to_str().unwrap()])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() || name == "scrambled.parquet", "{name} should fail");
        assert!(!err.contains("panicked"), "{name}: {err}");
        if !out.status.success() {
            assert!(err.contains("counts table"), "{name}: {err}");
        }
    }
}

#[test]
fn spark_tables_analyse_exactly_like_the_corpus() {
    let d = dir();
    let c = corpora(&d);
    let job = root().join("scripts/engines/spark_counts.py");
    let jobs = [
        (&c.text, "text", "condition", "csv"),
        (&c.jsonl, "jsonl", "pad", "csv"),
        (&c.parquet, "parquet", "condition", "parquet"),
    ];
    // One Spark session for the three jobs ("--" between them): one JVM start.
    let mut cmd = Command::new(python());
    cmd.arg(&job);
    for (k, (corpus, fmt, mode, out_fmt)) in jobs.iter().enumerate() {
        if k > 0 {
            cmd.arg("--");
        }
        let out = d.join(format!("spark-{fmt}-{mode}"));
        cmd.args([corpus.as_str(), out.to_str().unwrap(), "--format", fmt, "--mode", mode, "--max-len", "20"]).args([
            "--master",
            "local[2]",
            "--output-format",
            out_fmt,
        ]);
        if *fmt != "text" {
            cmd.args(["--field", "body"]);
        }
    }
    run(&mut cmd);
    for (_, fmt, mode, out_fmt) in jobs {
        let args: Vec<&str> = if fmt == "text" { vec![] } else { vec!["--field", "body"] };
        let direct_corpus = if fmt == "text" { &c.text } else { &c.jsonl };
        let want = direct(direct_corpus, &args, mode);
        let out = d.join(format!("spark-{fmt}-{mode}"));
        check_table(out.to_str().unwrap(), mode, &want, &format!("spark {fmt} {mode} {out_fmt}"));
    }
}

#[test]
fn posgeo_count_and_merge_analyse_exactly_like_the_corpus() {
    let d = dir();
    let lines = corpus_lines();
    let text = |name: &str, ls: &[String]| {
        let p = d.join(name);
        std::fs::write(&p, ls.join("\n") + "\n").unwrap();
        p.to_string_lossy().into_owned()
    };
    let whole = text("whole.txt", &lines);
    let (a, b) = lines.split_at(377);
    let (a, b) = (text("a.txt", a), text("b.txt", b));
    for mode in ["condition", "pad"] {
        let want = direct(&whole, &[], mode);
        let count = |corpus: &str, out: &str| {
            let out = d.join(out).to_string_lossy().into_owned();
            let args = ["count", corpus, "--tokenizer", "whitespace", "--mode", mode, "--max-len", "20", "-o", &out];
            run(Command::new(env!("CARGO_BIN_EXE_posgeo")).args(args));
            out
        };
        check_table(&count(&whole, &format!("whole-{mode}.csv")), mode, &want, "posgeo count");
        let (ta, tb) = (count(&a, &format!("a-{mode}.csv.gz")), count(&b, &format!("b-{mode}.csv")));
        let merged = d.join(format!("merged-{mode}.csv")).to_string_lossy().into_owned();
        run(Command::new(env!("CARGO_BIN_EXE_posgeo")).args(["merge", &ta, &tb, "-o", &merged]));
        check_table(&merged, mode, &want, "posgeo merge");
        // Without --mode the table's own mode applies.
        let got = posgeo(&["analyze", "--counts", &merged, "--tokenizer", "whitespace", "--json", "--max-len", "20"]);
        assert_eq!(got["params"]["mode"], mode);
    }
}
