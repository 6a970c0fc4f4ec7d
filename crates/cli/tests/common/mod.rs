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
