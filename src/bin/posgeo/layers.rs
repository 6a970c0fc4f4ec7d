//! `posgeo analyze --model DIR`: a model folder's layers as encodings (docs/MATH.md §14). The folder's
//! tokenizer.json counts the corpus unless `--tokenizer-file` is given, and its position table
//! is compared as `learned` unless `--learned` is given.

use posgeo::analysis::Analysis;
use posgeo::model::Model;
use posgeo::tables::Table;
use std::path::Path;

/// A model folder, loaded.
pub struct OpenModel {
    /// The forward pass.
    pub model: Model,
    /// Its position-embedding table (`learned` unless `--learned` is given).
    pub position_table: Vec<(String, Table)>,
}

/// Loads `dir`, and makes its tokenizer.json the tokenizer unless one is given.
pub fn open(dir: &Path, tokenizer_file: &mut Option<String>) -> Result<OpenModel, String> {
    if !dir.is_dir() {
        return Err(format!(
            "--model {}: not a folder (it must hold config.json, model.safetensors and tokenizer.json)",
            dir.display()
        ));
    }
    if tokenizer_file.is_none() {
        let t = dir.join("tokenizer.json");
        if !t.is_file() {
            return Err(format!(
                "--model {}: no tokenizer.json in the folder (or give --tokenizer-file)",
                dir.display()
            ));
        }
        *tokenizer_file = Some(t.to_string_lossy().into_owned());
    }
    let model = Model::from_dir(dir).map_err(|e| e.to_string())?;
    let position_table = vec![model.position_table()];
    Ok(OpenModel { model, position_table })
}

/// Runs the layers over the first sequences and adds their rows, with a progress bar.
pub fn run(
    analysis: &mut Analysis,
    first: &[String],
    model: &Model,
    bar: &indicatif::ProgressBar,
) -> Result<(), posgeo::PosgeoError> {
    bar.set_message("model layers");
    posgeo::analysis::layers::run_layers(analysis, first, model, &mut |f| {
        bar.set_position((f * 100.0) as u64);
        true
    })
}
