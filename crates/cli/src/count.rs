//! `posgeo count` (a corpus → its counts table) and `posgeo merge` (tables of consecutive
//! parts of a corpus → the table of the whole).

use crate::cli::AnalysisOptions;
use crate::input::{self, progress_bar, InputArgs};
use clap::Args;
use posgeo::counts::{write_csv, CountsTable, Mode, TableFormat};
use posgeo::error::Frontend;

#[derive(Args)]
pub struct CountArgs {
    #[command(flatten)]
    input: InputArgs,
    /// The table to write (`-`: standard output); a name ending in `.gz` is gzip-compressed.
    #[arg(short, long)]
    output: String,
    /// Only the tokenizer options, --mode (pad adds `<pad>` rows) and --max-len apply.
    #[command(flatten)]
    options: AnalysisOptions,
    /// A model's Hugging Face tokenizer.json: count the tokens the model sees.
    #[arg(long)]
    tokenizer_file: Option<String>,
}

#[derive(Args)]
pub struct MergeArgs {
    /// Tables of consecutive parts of one corpus, in corpus order (CSV/TSV, gzip, Parquet, or
    /// directories of part files). Counts add; first occurrences keep this order.
    #[arg(required = true)]
    tables: Vec<String>,
    /// The table to write (`-`: standard output); a name ending in `.gz` is gzip-compressed.
    #[arg(short, long)]
    output: String,
}

/// Writes a table as CSV (gzip for `.gz` names) to a file or standard output.
fn write_table(table: &CountsTable, mode: Mode, path: &str) -> Result<(), String> {
    let err = |e: posgeo::PosgeoError| e.message_for(Frontend::Cli);
    let mut sink: Box<dyn std::io::Write> = if path == "-" {
        Box::new(std::io::stdout().lock())
    } else {
        Box::new(std::fs::File::create(path).map_err(|e| format!("cannot write {path}: {e}"))?)
    };
    let buffered = std::io::BufWriter::with_capacity(1 << 20, &mut sink);
    match TableFormat::from_name(path) {
        TableFormat::Csv => {
            let mut w = buffered;
            write_csv(table, mode, &mut w).map_err(err)?;
        }
        TableFormat::CsvGz => {
            let mut gz = flate2::write::GzEncoder::new(buffered, flate2::Compression::default());
            write_csv(table, mode, &mut gz).map_err(err)?;
            gz.finish().map_err(|e| format!("cannot write {path}: {e}"))?;
        }
    }
    Ok(())
}

pub fn run_count(c: CountArgs) -> Result<(), String> {
    let params = input::with_model_tokenizer(c.options.0.clone()?, c.tokenizer_file.as_deref())?;
    params.validate().map_err(|e| e.message_for(Frontend::Cli))?;
    let bar = progress_bar()?;
    let streamed = c.input.count(&params, 0, &bar, 1.0)?;
    bar.finish_and_clear();
    write_table(&streamed.table, params.mode, &c.output)
}

pub fn run_merge(m: MergeArgs) -> Result<(), String> {
    let mut all: Option<CountsTable> = None;
    for path in &m.tables {
        let t = input::read_counts(path)?;
        match all.as_mut() {
            Some(a) => a.append(t),
            None => all = Some(t),
        }
    }
    let all = all.ok_or("no table given")?;
    write_table(&all, Mode::Condition, &m.output)
}
