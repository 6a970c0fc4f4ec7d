//! The layout rules the compiler does not check: no Rust file over 400 lines (functions over
//! 80 lines are clippy's `too_many_lines`, set in Cargo.toml and clippy.toml), and the two
//! rules inside a crate — the pipeline does not use its summary, and the page's view does not
//! use the page's model — and that JavaScript objects are read by property name in one module.
//! The rules between layers are the crates' dependencies (Cargo.toml), checked here against the
//! layers' order: the core depends on no other member, models and learning on the core alone,
//! charts on the core and learning, the
//! page, the command line, the Python bindings and the benchmarks on the layers below them — so
//! the crate graph has no circle. The docs are held to the code too: README and
//! docs/ARCHITECTURE.md name only paths that exist, and README's counts of the lecture's steps
//! and of the commands are the code's.

use std::path::{Path, PathBuf};

const MAX_FILE_LINES: usize = 400;
const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable directory").flatten() {
        let p = entry.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The workspace's members from the bottom layer up: each may depend only on members before it.
const LAYERS: [(&str, &str); 8] = [
    ("core", "posgeo"),
    ("model", "posgeo-model"),
    ("learn", "posgeo-learn"),
    ("charts", "posgeo-charts"),
    ("web", "posgeo-web"),
    ("cli", "posgeo-cli"),
    ("python", "posgeo-python"),
    ("bench", "posgeo-bench"),
];

/// The members a crate's Cargo.toml names (dependencies of any kind and target).
fn members_used(dir: &str) -> Vec<&'static str> {
    let toml = std::fs::read_to_string(format!("{ROOT}/crates/{dir}/Cargo.toml")).expect("Cargo.toml");
    let names: Vec<&str> =
        toml.lines().map(|l| l.split(['=', '.', ' ']).next().unwrap_or("").trim()).filter(|k| !k.is_empty()).collect();
    LAYERS.iter().map(|l| l.1).filter(|m| names.contains(m)).collect()
}

#[test]
fn each_crate_depends_only_on_the_layers_below_it() {
    let dirs: Vec<String> = std::fs::read_dir(format!("{ROOT}/crates"))
        .expect("crates/")
        .flatten()
        .filter(|e| e.path().join("Cargo.toml").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(dirs.len(), LAYERS.len(), "every member has its layer: {dirs:?}");
    for (k, (dir, _)) in LAYERS.iter().enumerate() {
        let below: Vec<&str> = LAYERS[..k].iter().map(|l| l.1).collect();
        for used in members_used(dir) {
            assert!(below.contains(&used), "crates/{dir} depends on {used}, which is not below it");
        }
    }
    assert!(members_used("core").is_empty(), "the core depends on no other member");
    assert_eq!(members_used("model"), ["posgeo"]);
    assert_eq!(members_used("learn"), ["posgeo"]);
}

#[test]
fn no_rust_file_is_over_400_lines() {
    let root = Path::new(ROOT);
    let mut files = Vec::new();
    for dir in ["crates", "bench"] {
        if root.join(dir).is_dir() {
            rust_files(&root.join(dir), &mut files);
        }
    }
    assert!(files.len() > 20, "found the sources");
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let n = std::fs::read_to_string(f).ok()?.lines().count();
            (n > MAX_FILE_LINES).then(|| format!("{} ({n} lines)", f.display()))
        })
        .collect();
    assert!(long.is_empty(), "over {MAX_FILE_LINES} lines: {long:?}");
}

/// Files under `dir` whose code (comments and inline test modules dropped) names one of
/// `forbidden`.
fn importing(dir: &str, forbidden: &[&str]) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(&Path::new(ROOT).join(dir), &mut files);
    files
        .into_iter()
        .filter(|f| {
            let text = std::fs::read_to_string(f).unwrap_or_default();
            let text = text.split("#[cfg(test)]\nmod tests {").next().unwrap_or_default();
            let code: String = text.lines().filter(|l| !l.trim_start().starts_with("//")).collect();
            forbidden.iter().any(|m| code.contains(m))
        })
        .map(|f| f.display().to_string())
        .collect()
}

#[test]
fn the_pipeline_does_not_use_its_summary_nor_the_view_the_page_model() {
    let analysis = importing("crates/core/src/analysis", &["crate::report"]);
    assert!(analysis.is_empty(), "analysis imports report: {analysis:?}");
    let view = importing("crates/web/src/view", &["crate::app", "super::app"]);
    assert!(view.is_empty(), "the view imports the page model: {view:?}");
}

/// JavaScript objects are read and written by property name in one module, `web::js`, whose
/// `Key`s spell every message property once: no other file calls `js_sys::Reflect`.
#[test]
fn only_the_js_module_reads_javascript_objects_by_name() {
    let outside: Vec<String> = importing("crates", &["Reflect"])
        .into_iter()
        .filter(|f| !["crates/web/src/js.rs", "crates/bench/tests/layout.rs"].iter().any(|m| f.ends_with(m)))
        .collect();
    assert!(outside.is_empty(), "js_sys::Reflect outside crates/web/src/js.rs: {outside:?}");
    let js = std::fs::read_to_string(Path::new(ROOT).join("crates/web/src/js.rs")).expect("crates/web/src/js.rs");
    assert!(js.contains("Reflect::get") && js.contains("pub enum Key"), "the one module does the crossing");
}

/// The repository speaks to its users, who never see the tracker: no file names an issue by
/// number (the word followed by digits, with or without `#`). Every tracked text file is read (`git ls-files`).
#[test]
fn no_tracked_file_names_an_issue_number() {
    let out = std::process::Command::new("git").args(["ls-files"]).current_dir(ROOT).output();
    let Some(out) = out.ok().filter(|o| o.status.success()) else { return }; // not a git checkout
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(listed.lines().count() > 50, "git lists the files");
    let named: Vec<String> = listed
        .lines()
        .filter_map(|f| {
            let text = std::fs::read_to_string(Path::new(ROOT).join(f)).ok()?;
            let lower = text.to_lowercase();
            let hit = lower.match_indices("issue").any(|(i, _)| {
                let rest = lower[i + 5..].trim_start_matches([' ', '#']);
                rest.len() < lower.len() - i - 5 && rest.starts_with(|c: char| c.is_ascii_digit())
            });
            hit.then(|| f.to_string())
        })
        .collect();
    assert!(named.is_empty(), "files naming an issue by number: {named:?}");
}

/// README describes the product in at most 300 lines; details live in docs/.
#[test]
fn the_readme_is_at_most_300_lines() {
    let n = std::fs::read_to_string(Path::new(ROOT).join("README.md")).expect("README.md").lines().count();
    assert!(n <= 300, "README.md has {n} lines");
}

/// The tokens between backticks in `text` that name a file or folder of the repository.
fn named_paths(text: &str) -> Vec<String> {
    const ROOTS: [&str; 9] = ["crates/", "tests/", "scripts/", "bench/", "docs/", "www/", "fuzz/", ".ci/", "vendor/"];
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|t| ROOTS.iter().any(|r| t.starts_with(r)))
        .filter(|t| !t.contains(['*', '<', '{', ' ', '…', '$']))
        .map(|t| t.trim_end_matches('/').to_string())
        .collect()
}

/// README and docs/ARCHITECTURE.md name only paths that exist, and the README's counts of the
/// lecture's steps and the command line's commands are the code's.
#[test]
fn the_docs_name_what_exists_and_count_what_the_code_has() {
    let mut missing = Vec::new();
    let mut named = 0;
    for doc in ["README.md", "docs/ARCHITECTURE.md"] {
        let text = std::fs::read_to_string(Path::new(ROOT).join(doc)).expect("doc");
        for p in named_paths(&text) {
            named += 1;
            if !Path::new(ROOT).join(&p).exists() {
                missing.push(format!("{doc}: {p}"));
            }
        }
    }
    assert!(named > 50, "only {named} paths found: the scan is broken");
    assert!(missing.is_empty(), "named but absent: {missing:?}");
    let source = |p: &str| std::fs::read_to_string(Path::new(ROOT).join(p)).expect("source");
    let lecture = source("crates/web/src/view/lecture/mod.rs");
    let steps = lecture.split("pub const STEPS: [Step; ").nth(1).and_then(|s| s.split(']').next()).expect("STEPS");
    let cli = source("crates/cli/src/main.rs");
    let enum_body = cli.split("enum Command {").nth(1).and_then(|s| s.split("\n    }").next()).expect("Command");
    let commands = enum_body.lines().filter(|l| l.trim_start().starts_with(char::is_uppercase)).count();
    let readme = source("README.md");
    assert!(readme.contains(&format!("; {steps} steps tell the paper's argument")), "README's lecture steps: {steps}");
    assert!(readme.contains(&format!("with {commands} commands:")), "README's commands: {commands}");
}
