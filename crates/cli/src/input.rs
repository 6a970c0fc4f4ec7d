//! What the commands read: a corpus as a stream (counted batch by batch on every core, with a
//! progress bar on standard error), counts tables (a file, or a directory of part files as
//! Spark and DuckDB write them), and a model's tokenizer.

use clap::Args;
use posgeo::analysis::AnalysisParams;
use posgeo::corpus::hf_tokenizer::ModelTokenizer;
use posgeo::corpus::tokenize::TokenizerKind;
use posgeo::corpus::{FileKind, ReadCounter, SequenceStream};
use posgeo::counts::{count_stream, CountsTable, Streamed};
use posgeo::error::Frontend;
use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Where the corpus is and how it is laid out.
#[derive(Args, Clone)]
pub struct InputArgs {
    /// Corpus file (`-` or nothing: standard input). Gzip is detected.
    pub file: Option<String>,
    /// Input format (default: from the extension, else text).
    #[arg(long, value_parser = FileKind::ALL.map(FileKind::name))]
    pub format: Option<String>,
    /// CSV/TSV column: header name or 0-based index.
    #[arg(long)]
    pub column: Option<String>,
    /// CSV/TSV without a header row.
    #[arg(long)]
    pub no_header: bool,
    /// JSON Lines field holding the text.
    #[arg(long, default_value = "text")]
    pub field: String,
    /// Skip lines that are not valid UTF-8 (counted in the summary) instead of failing.
    #[arg(long)]
    pub lossy: bool,
}

/// A progress bar on standard error: "counting [=====>    ]  40%".
pub fn progress_bar() -> Result<indicatif::ProgressBar, String> {
    let bar = indicatif::ProgressBar::with_draw_target(Some(100), indicatif::ProgressDrawTarget::stderr());
    bar.set_style(
        indicatif::ProgressStyle::with_template("{msg:>10} [{bar:30}] {percent:>3}%")
            .map_err(|e| e.to_string())?
            .progress_chars("=> "),
    );
    Ok(bar)
}

impl InputArgs {
    fn format(&self) -> posgeo::InputFormat {
        let kind = self.format.as_deref().and_then(FileKind::parse);
        let kind = kind.unwrap_or_else(|| FileKind::from_file_name(self.file.as_deref().unwrap_or("")));
        kind.input_format(self.column.clone(), !self.no_header, &self.field)
    }

    /// Streams the corpus and counts it (`keep`: first sequences kept for examples).
    /// `bar` shows the share of the file read (`share` of the bar's length).
    pub fn count(
        &self,
        params: &AnalysisParams,
        keep: usize,
        bar: &indicatif::ProgressBar,
        share: f64,
    ) -> Result<Streamed, String> {
        let read = Arc::new(AtomicU64::new(0));
        let (source, size): (Box<dyn Read>, u64) = match self.file.as_deref() {
            None | Some("-") => (Box::new(std::io::stdin().lock()), 0),
            Some(p) => {
                let f = std::fs::File::open(p).map_err(|e| format!("cannot read {p}: {e}"))?;
                let size = f.metadata().map_or(0, |m| m.len());
                (Box::new(f), size)
            }
        };
        let err = |e: posgeo::PosgeoError| e.message_for(Frontend::Cli);
        let mut stream =
            SequenceStream::new(ReadCounter { inner: source, read: read.clone() }, &self.format(), self.lossy)
                .map_err(err)?;
        bar.set_message("counting");
        let tokenizer = params.tokenizer();
        count_stream(&mut stream, &tokenizer, params.max_len, keep, &mut || {
            if size > 0 {
                bar.set_position((share * 100.0 * read.load(Ordering::Relaxed) as f64 / size as f64) as u64);
            }
            true
        })
        .map_err(err)
    }
}

/// Reads a counts table: a file (CSV, TSV, gzip, Parquet), or a directory of part files
/// (`part-*`, `*.csv`, `*.parquet`, … as Spark and DuckDB write them; `_SUCCESS` and `.crc`
/// files skipped), whose rows are added as parts of one table.
pub fn read_counts(path: &str) -> Result<CountsTable, String> {
    let read_one = |p: &std::path::Path| -> Result<CountsTable, String> {
        let bytes = std::fs::read(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
        posgeo::counts::read_table_bytes(&bytes)
            .map_err(|e| format!("{}: {}", p.display(), e.message_for(Frontend::Cli)))
    };
    let path = std::path::Path::new(path);
    if !path.is_dir() {
        return read_one(path);
    }
    let mut parts: Vec<std::path::PathBuf> = std::fs::read_dir(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().map_or(String::new(), |n| n.to_string_lossy().into_owned());
            p.is_file() && !name.starts_with('_') && !name.starts_with('.') && !name.ends_with(".crc")
        })
        .collect();
    parts.sort();
    let mut table: Option<CountsTable> = None;
    for p in &parts {
        let t = read_one(p)?;
        match table.as_mut() {
            Some(all) => all.union(t),
            None => table = Some(t),
        }
    }
    table.ok_or_else(|| format!("{}: the directory holds no table files", path.display()))
}

/// `--tokenizer-file`: loads the tokenizer and selects it.
/// The model's own tokenizer.json (bytes) as the tokenizer.
pub fn with_model_tokenizer_bytes(
    mut params: AnalysisParams,
    name: &str,
    bytes: &[u8],
) -> Result<AnalysisParams, String> {
    match params.tokenizer {
        TokenizerKind::Words | TokenizerKind::Model => params.tokenizer = TokenizerKind::Model,
        other => return Err(format!("--model counts the model's tokens: leave out --tokenizer {}", other.name())),
    }
    params.model = Some(ModelTokenizer::from_bytes(name, bytes).map_err(|e| e.message_for(Frontend::Cli))?);
    Ok(params)
}

pub fn with_model_tokenizer(mut params: AnalysisParams, file: Option<&str>) -> Result<AnalysisParams, String> {
    let Some(path) = file else { return Ok(params) };
    match params.tokenizer {
        TokenizerKind::Words | TokenizerKind::Model => params.tokenizer = TokenizerKind::Model,
        other => {
            return Err(format!("--tokenizer-file counts the model's tokens: leave out --tokenizer {}", other.name()))
        }
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let name = std::path::Path::new(path).file_name().map_or(path.into(), |n| n.to_string_lossy().into_owned());
    params.model = Some(ModelTokenizer::from_bytes(&name, &bytes).map_err(|e| e.message_for(Frontend::Cli))?);
    Ok(params)
}
