//! What the command line's integration tests share: the repository's root, its files, the test
//! venv's Python, and a command's one JSON object.
#![allow(dead_code)] // each test file uses some of these
#![allow(clippy::unwrap_used)] // tests may unwrap: a failure is the test failing

use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// The repository's root.
pub const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// A file of the repository, as a string path.
pub fn corpus(name: &str) -> String {
    Path::new(ROOT).join(name).to_string_lossy().into_owned()
}

/// The test venv's Python (numpy, tokenizers, gguf), else the machine's.
pub fn python() -> Command {
    let venv = Path::new(ROOT).join(".venv/bin/python");
    Command::new(if venv.is_file() { venv.into_os_string() } else { "python3".into() })
}

/// Runs `cmd`, which must succeed, and reads its one JSON object.
pub fn json_of(cmd: &mut Command) -> Value {
    let out = cmd.output().expect("command runs");
    assert!(out.status.success(), "{cmd:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

/// A comparison that counts: every value of the reference must be matched by ours (a missing,
/// extra, null-against-number or NaN value fails; a null matches only a null, both being
/// "undefined"), numbers agree to |a − b| ≤ tol·max(1, |b|), other values exactly, and arrays
/// must have equal lengths. `compared` says how many values were compared, so a test can
/// assert that it compared what it meant to.
#[derive(Debug, Default)]
pub struct Tally {
    /// Values compared so far.
    pub compared: usize,
}

impl Tally {
    /// Ours against the reference's value at `what`, recursively through objects and arrays.
    pub fn value(&mut self, what: &str, ours: &Value, theirs: &Value, tol: f64) {
        match (ours, theirs) {
            (Value::Object(a), Value::Object(b)) => {
                let (mut ka, mut kb): (Vec<&String>, Vec<&String>) = (a.keys().collect(), b.keys().collect());
                ka.sort();
                kb.sort();
                assert_eq!(ka, kb, "{what}: the same fields");
                for (k, v) in b {
                    self.value(&format!("{what}.{k}"), &a[k], v, tol);
                }
            }
            (Value::Array(a), Value::Array(b)) => {
                assert_eq!(a.len(), b.len(), "{what}: the same length");
                for (i, (x, y)) in a.iter().zip(b).enumerate() {
                    self.value(&format!("{what}[{i}]"), x, y, tol);
                }
            }
            (Value::Number(_), Value::Number(_)) => self.number(what, ours.as_f64(), theirs.as_f64(), tol),
            _ => {
                assert_eq!(ours, theirs, "{what}");
                self.compared += 1;
            }
        }
    }

    /// Two numbers (`None`: missing or null), each finite, agreeing to `tol`.
    pub fn number(&mut self, what: &str, ours: Option<f64>, theirs: Option<f64>, tol: f64) {
        let (Some(a), Some(b)) = (ours, theirs) else {
            panic!("{what}: posgeo {ours:?} vs reference {theirs:?} (a missing or null value)");
        };
        assert!(a.is_finite() && b.is_finite(), "{what}: posgeo {a} vs reference {b}");
        assert!((a - b).abs() <= tol * b.abs().max(1.0), "{what}: posgeo {a} vs reference {b}");
        self.compared += 1;
    }
}
