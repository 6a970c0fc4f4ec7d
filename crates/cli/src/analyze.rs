//! `posgeo analyze`: the whole pipeline on a corpus (streamed and counted on every core) or
//! on a counts table (`--counts`), printed as tables or as one JSON object.

use crate::cli::AnalysisOptions;
use crate::input::{self, progress_bar, InputArgs};
use clap::Args;
use posgeo::analysis::{analyze_table, AnalysisParams, EXAMPLE_SEQUENCES};
use posgeo::corpus::hf_tokenizer::ModelTokenizer;
use posgeo::error::Frontend;
use posgeo::report::Report;
use std::io::Write;

#[derive(Args)]
pub struct AnalyzeArgs {
    #[command(flatten)]
    input: InputArgs,
    /// Analyse a counts table (CSV/TSV, gzip, Parquet, or a directory of part files) instead
    /// of a corpus: the numbers are those of the corpus it was counted from. Its mode (pad
    /// when it has `<pad>` rows and the same N_i everywhere) applies unless --mode is given.
    #[arg(long, conflicts_with = "file")]
    counts: Option<String>,
    #[command(flatten)]
    options: AnalysisOptions,
    /// A model's Hugging Face tokenizer.json (WordPiece, byte-level BPE, Unigram): count the
    /// tokens the model sees, special tokens included unless --no-special-tokens. Implies
    /// --tokenizer model.
    #[arg(long)]
    tokenizer_file: Option<String>,
    /// `paper`: the paper's setting — all-MiniLM-L6-v2's WordPiece tokenizer with special
    /// tokens, --mode pad, --max-len 64, and its learned position table (both shipped inside
    /// posgeo). It overrides those three options; --tokenizer-file or --learned replace
    /// the shipped files.
    #[arg(long, value_parser = ["paper"])]
    preset: Option<String>,
    /// A learned position table to compare: text/CSV of numbers (one row per position), a
    /// NumPy .npy or .npz file, or a .safetensors checkpoint (gzip too). Repeat it to compare
    /// several tables: each is its own row, `learned:<name>` (one table stays `learned`).
    #[arg(long)]
    learned: Vec<String>,
    /// The tensor (safetensors) or array (.npz) to use with --learned (default: the only
    /// floating-point 2-D one, or the one named like a position table, e.g.
    /// `embeddings.position_embeddings.weight` or `wpe.weight`; integer buffers never).
    /// Repeat it to take several tensors of one checkpoint, or give one per --learned.
    #[arg(long, requires = "learned")]
    tensor: Vec<String>,
    /// A model: a folder (config.json; model.safetensors, its shards or pytorch_model.bin;
    /// tokenizer.json or vocab.txt) of a BERT, Llama/Mistral, Qwen2 or GPT-2 model, or one
    /// .gguf file. Its layers become rows `layer:ℓ` (positional centroid) and
    /// `layer-residual:ℓ` (content removed), measured over the first --layer-sequences
    /// sequences, with each layer's positional share, effective dimension and principal
    /// coordinates (docs/MATH.md §14–§14b). Its tokenizer counts the corpus unless
    /// --tokenizer-file is given, and its position table (BERT, GPT-2) is compared as
    /// `learned` unless --learned is given.
    #[arg(long)]
    model: Option<std::path::PathBuf>,
    /// Print one JSON object instead of tables.
    #[arg(long)]
    json: bool,
    /// With --json, add the n×n distance matrix.
    #[arg(long)]
    matrix: bool,
    /// Check the paper's findings on this corpus: after the table, each finding, whether it
    /// holds here and why (with --json: a "claims" array).
    #[arg(long)]
    claims: bool,
}

/// Whether `--mode` is on the command line (a table's own mode applies otherwise).
fn mode_given() -> bool {
    std::env::args().any(|a| a == "--mode" || a.starts_with("--mode="))
}

pub fn run(a: AnalyzeArgs) -> Result<(), String> {
    let err = |e: posgeo::PosgeoError| e.message_for(Frontend::Cli);
    if a.model.is_some() && a.counts.is_some() {
        return Err("--model reads the text itself: give the corpus, not --counts".into());
    }
    let model = match &a.model {
        Some(path) => Some(crate::model::open(path, a.tokenizer_file.as_deref())?),
        None => None,
    };
    let (mut params, mut learned) = with_preset(&a, a.options.0.clone()?)?;
    if let Some(m) = &model {
        if a.learned.is_empty() {
            learned = m.position_table.clone();
        }
        if let (None, Some((name, bytes))) = (&a.tokenizer_file, &m.model.tokenizer) {
            params = input::with_model_tokenizer_bytes(params, name, bytes)?;
        }
    }
    params.validate().map_err(err)?;
    let bar = progress_bar()?;
    let mut first: Vec<String> = Vec::new();
    let (table, examples, name) = match &a.counts {
        Some(path) => {
            let table = input::read_counts(path)?;
            if !mode_given() {
                params.mode = table.counted_mode();
            }
            let name = std::path::Path::new(path).file_name().map_or(path.clone(), |n| n.to_string_lossy().into());
            (table, Vec::new(), Some(name))
        }
        None => {
            let keep = if model.is_some() { EXAMPLE_SEQUENCES.max(params.layer_sequences) } else { EXAMPLE_SEQUENCES };
            let s = a.input.count(&params, keep, &bar, 1.0 / 6.0)?;
            let examples = params.examples(&s.first);
            first = s.first;
            (s.table, examples, None)
        }
    };
    let mut analysis = analyze_table(&table, examples, &params, &learned, &mut |p| {
        bar.set_message(p.stage.label());
        bar.set_position((p.overall() * 100.0) as u64);
        true
    })
    .map_err(err)?;
    analysis.counts_table = name;
    if let Some(m) = &model {
        crate::model::run(&mut analysis, &first, &m.model, &bar).map_err(err)?;
    }
    bar.finish_and_clear();
    let report = analysis.report(a.matrix);
    let mut out = std::io::stdout().lock();
    if a.json {
        let mut value = serde_json::to_value(&report).map_err(|e| e.to_string())?;
        if let (true, Some(map)) = (a.claims, value.as_object_mut()) {
            map.insert("claims".into(), serde_json::to_value(report.claims()).map_err(|e| e.to_string())?);
        }
        serde_json::to_writer(&mut out, &value).map_err(|e| e.to_string())?;
        writeln!(out).ok();
    } else {
        write!(out, "{}", render_text(&report)).ok();
        if a.claims {
            write!(out, "\n{}", report.claims_text()).ok();
        }
    }
    Ok(())
}

/// The tables of `--learned` and `--tensor`: every tensor of one file, or one tensor per
/// file, or each file's own pick.
fn read_tables(files: &[String], tensors: &[String]) -> Result<Vec<(String, posgeo::learned_tables::Table)>, String> {
    let per_file: Vec<&[String]> = match (files.len(), tensors.len()) {
        (_, 0) => vec![&[]; files.len()],
        (1, _) => vec![tensors],
        (f, t) if f == t => tensors.chunks(1).collect(),
        (f, t) => {
            return Err(format!("{t} --tensor for {f} --learned: give one per file, or several for a single file"))
        }
    };
    let mut out = Vec::new();
    for (path, wanted) in files.iter().zip(per_file) {
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        let name = std::path::Path::new(path).file_name().map_or(path.clone(), |n| n.to_string_lossy().into_owned());
        out.extend(posgeo::learned_tables::read_named(&bytes, &name, wanted).map_err(|e| e.to_string())?);
    }
    Ok(out)
}

/// The shipped all-MiniLM-L6-v2 files (`www/models/`, see `scripts/minilm.py`).
const MINILM_TOKENIZER: &[u8] = include_bytes!("../../../www/models/all-MiniLM-L6-v2/tokenizer.json.gz");
const MINILM_TABLE: &[u8] = include_bytes!("../../../www/models/all-MiniLM-L6-v2/position_embeddings.npy.gz");

/// `--preset paper`: the options, and the shipped tokenizer and table unless given.
fn with_preset(
    a: &AnalyzeArgs,
    mut params: AnalysisParams,
) -> Result<(AnalysisParams, Vec<(String, posgeo::learned_tables::Table)>), String> {
    let learned = read_tables(&a.learned, &a.tensor)?;
    if a.preset.as_deref() != Some("paper") {
        return Ok((input::with_model_tokenizer(params, a.tokenizer_file.as_deref())?, learned));
    }
    posgeo::demos::preset::paper(&mut params);
    let params = match a.tokenizer_file.as_deref() {
        Some(file) => input::with_model_tokenizer(params, Some(file))?,
        None => {
            let name = format!("{} tokenizer.json", posgeo::demos::preset::MODEL_NAME);
            let model = ModelTokenizer::from_bytes(&name, MINILM_TOKENIZER).map_err(|e| e.to_string())?;
            AnalysisParams { model: Some(model), ..params }
        }
    };
    if !learned.is_empty() {
        return Ok((params, learned));
    }
    let name = format!("{} position_embeddings", posgeo::demos::preset::MODEL_NAME);
    Ok((params, vec![(name, posgeo::learned_tables::read_table(MINILM_TABLE, None).map_err(|e| e.to_string())?)]))
}

/// The readable output: the corpus summary (the page's), then the stress table.
fn render_text(r: &Report) -> String {
    let mut s: String = r.summary_lines().iter().map(|l| format!("{l}\n")).collect();
    s.push('\n');
    s.push_str(&r.stress_text());
    s.push('\n');
    s.push_str(&r.verdict());
    s.push('\n');
    s
}
