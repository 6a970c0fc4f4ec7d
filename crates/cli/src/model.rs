//! `posgeo analyze --model PATH`: the layers of a model folder or `.gguf` file as encodings
//! (docs/MATH.md §14–§14b). The model's own tokenizer counts the corpus unless `--tokenizer-file`
//! is given, and its position table (BERT, GPT-2) is compared as `learned` unless `--learned` is
//! given.

use posgeo::analysis::Analysis;
use posgeo::learned_tables::Table;
use posgeo_model::Model;
use std::path::Path;

/// A model folder, loaded.
pub struct OpenModel {
    /// The forward pass.
    pub model: Model,
    /// Its position-embedding table (`learned` unless `--learned` is given).
    pub position_table: Vec<(String, Table)>,
}

/// Loads a model folder or a `.gguf` file. Its own tokenizer (tokenizer.json, vocab.txt, or the
/// GGUF's) counts the corpus unless `--tokenizer-file` is given.
pub fn open(path: &Path, tokenizer_file: Option<&str>) -> Result<OpenModel, String> {
    let gguf = path.is_file() && path.extension().is_some_and(|e| e == "gguf");
    if !(path.is_dir() || gguf) {
        return Err(format!(
            "--model {}: not a folder nor a .gguf file (a folder holds config.json, the weights and tokenizer.json)",
            path.display()
        ));
    }
    let model = Model::from_dir(path).map_err(|e| e.to_string())?;
    if tokenizer_file.is_none() && model.tokenizer.is_none() {
        return Err(format!(
            "--model {}: no tokenizer.json (nor vocab.txt) comes with the model; give --tokenizer-file",
            path.display()
        ));
    }
    let position_table = model.position_table().into_iter().collect();
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
    posgeo_model::layers::run_layers(analysis, first, model, &mut |f| {
        bar.set_position((f * 100.0) as u64);
        true
    })
}
