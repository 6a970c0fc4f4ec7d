//! The layout rules of the project, checked: no Rust file over 400 lines (functions over 80
//! lines are clippy's `too_many_lines`, set in Cargo.toml and clippy.toml).

use std::path::{Path, PathBuf};

const MAX_FILE_LINES: usize = 400;

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

#[test]
fn no_rust_file_is_over_400_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["src", "tests", "bench"] {
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

/// The code lines (comments and inline test modules dropped) of every Rust file under `dir`.
fn code_of(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    rust_files(dir, &mut files);
    files
        .into_iter()
        .map(|f| {
            let text = std::fs::read_to_string(&f).unwrap_or_default();
            let text = text.split("#[cfg(test)]\nmod tests {").next().unwrap_or_default();
            let code: String =
                text.lines().filter(|l| !l.trim_start().starts_with("//")).map(|l| format!("{l}\n")).collect();
            (f, code)
        })
        .collect()
}

/// Files under `dir` (but not under any of `except`) that name one of `forbidden`.
fn importing(dir: &str, except: &[&str], forbidden: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    code_of(&root.join(dir))
        .into_iter()
        .filter(|(f, _)| !except.iter().any(|e| f.starts_with(root.join(e))))
        .filter(|(_, code)| forbidden.iter().any(|m| code.contains(m)))
        .map(|(f, _)| f.display().to_string())
        .collect()
}

#[test]
fn layers_import_downward_only() {
    // The numeric core never uses the drawing or web layers.
    let core = importing(
        "src",
        &["src/charts", "src/web", "src/bin", "src/python"],
        &["crate::charts", "crate::web", "posgeo::web", "crate::python"],
    );
    assert!(core.is_empty(), "the core imports charts, web or the Python bindings: {core:?}");
    // The Python bindings are a front-end: nothing else uses them, and they never use the web shell.
    let python = importing("src/python", &[], &["crate::web"]);
    assert!(python.is_empty(), "the Python bindings import the web shell: {python:?}");
    // The drawing layer never uses the web shell.
    let charts = importing("src/charts", &[], &["crate::web"]);
    assert!(charts.is_empty(), "charts import the web shell: {charts:?}");
    // The pipeline does not use its summary, nor the view the page model.
    let analysis = importing("src/analysis", &[], &["crate::report"]);
    assert!(analysis.is_empty(), "analysis imports report: {analysis:?}");
    let view = importing("src/web/view", &[], &["crate::web::app", "super::app"]);
    assert!(view.is_empty(), "the view imports the page model: {view:?}");
}
