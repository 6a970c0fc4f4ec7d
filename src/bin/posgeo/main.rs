//! `posgeo` — the command line over the numeric core (native only).
//!
//! * `posgeo analyze [FILE|-]`: stress of every encoding against the corpus geometry.
//! * `posgeo synth`: writes the built-in synthetic corpus.

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    cli::main()
}

#[cfg(not(target_arch = "wasm32"))]
mod table_args;

#[cfg(not(target_arch = "wasm32"))]
mod cli {
    use super::table_args;
    use clap::{ArgMatches, Args, Command as ClapCommand, FromArgMatches, Parser, Subcommand};
    use posgeo::analysis::{analyze, AnalysisParams};
    use posgeo::corpus::model::ModelTokenizer;
    use posgeo::corpus::tokenize::TokenizerKind;
    use posgeo::corpus::FileKind;
    use posgeo::error::Frontend;
    use posgeo::options::{ANALYSIS, SYNTH};
    use posgeo::report::Report;
    use posgeo::synth::{generate, SynthParams};
    use posgeo::Corpus;
    use std::io::{Read, Write};
    use std::process::ExitCode;

    #[derive(Parser)]
    #[command(
        name = "posgeo",
        version,
        about = "The geometry of positional encodings: Hellinger distances between positional token distributions, classical MDS (PMDS) and the stress of every encoding."
    )]
    struct Cli {
        #[command(subcommand)]
        command: Command,
    }

    #[derive(Subcommand)]
    enum Command {
        /// Analyse a corpus: distances, MDS spectrum, stress of every encoding.
        Analyze(Box<AnalyzeArgs>),
        /// Write the synthetic corpus (one sequence per line) to standard output.
        Synth(SynthArgs),
    }

    /// Options declared in a table of `posgeo::options`, parsed into their params struct
    /// (the error, if any, is reported when the command runs, like every other error).
    macro_rules! table_options {
        ($name:ident, $params:ty, $table:expr) => {
            struct $name(Result<$params, String>);
            impl FromArgMatches for $name {
                fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
                    let mut p = <$params>::default();
                    Ok($name(table_args::apply($table, m, &mut p).map(|()| p)))
                }
                fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
                    *self = Self::from_arg_matches(m)?;
                    Ok(())
                }
            }
            impl Args for $name {
                fn augment_args(cmd: ClapCommand) -> ClapCommand {
                    table_args::augment(cmd, $table, &<$params>::default())
                }
                fn augment_args_for_update(cmd: ClapCommand) -> ClapCommand {
                    Self::augment_args(cmd)
                }
            }
        };
    }
    table_options!(AnalysisOptions, AnalysisParams, ANALYSIS);
    table_options!(SynthOptions, SynthParams, SYNTH);

    #[derive(Args)]
    struct AnalyzeArgs {
        /// Corpus file (`-` or nothing: standard input). Gzip is detected.
        file: Option<String>,
        /// Input format (default: from the extension, else text).
        #[arg(long, value_parser = FileKind::ALL.map(FileKind::name))]
        format: Option<String>,
        /// CSV/TSV column: header name or 0-based index.
        #[arg(long)]
        column: Option<String>,
        /// CSV/TSV without a header row.
        #[arg(long)]
        no_header: bool,
        /// JSON Lines field holding the text.
        #[arg(long, default_value = "text")]
        field: String,
        /// Skip lines that are not valid UTF-8 (counted in the summary) instead of failing.
        #[arg(long)]
        lossy: bool,
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
        /// Print one JSON object instead of tables.
        #[arg(long)]
        json: bool,
        /// With --json, add the n×n distance matrix.
        #[arg(long)]
        matrix: bool,
    }

    #[derive(Args)]
    struct SynthArgs {
        #[command(flatten)]
        options: SynthOptions,
    }

    pub fn main() -> ExitCode {
        let cli = Cli::parse();
        let result = match cli.command {
            Command::Analyze(a) => run_analyze(*a),
            Command::Synth(s) => run_synth(s),
        };
        match result {
            Ok(()) => ExitCode::SUCCESS,
            Err(msg) => {
                eprintln!("posgeo: error: {msg}");
                ExitCode::FAILURE
            }
        }
    }

    fn run_synth(s: SynthArgs) -> Result<(), String> {
        let p = s.options.0?;
        let lines = generate(&p).map_err(|e| e.to_string())?;
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        for l in lines {
            if writeln!(out, "{l}").is_err() {
                return Ok(()); // closed pipe: stop quietly
            }
        }
        out.flush().ok();
        Ok(())
    }

    fn read_input(path: Option<&str>) -> Result<Vec<u8>, String> {
        let mut bytes = Vec::new();
        match path {
            None | Some("-") => {
                std::io::stdin().read_to_end(&mut bytes).map_err(|e| format!("cannot read standard input: {e}"))?
            }
            Some(p) => {
                bytes = std::fs::read(p).map_err(|e| format!("cannot read {p}: {e}"))?;
                0
            }
        };
        Ok(bytes)
    }

    fn input_format(a: &AnalyzeArgs) -> posgeo::InputFormat {
        let kind = a.format.as_deref().and_then(FileKind::parse);
        let kind = kind.unwrap_or_else(|| FileKind::from_file_name(a.file.as_deref().unwrap_or("")));
        kind.input_format(a.column.clone(), !a.no_header, &a.field)
    }

    /// The tables of `--learned` and `--tensor`: every tensor of one file, or one tensor per
    /// file, or each file's own pick.
    fn read_tables(files: &[String], tensors: &[String]) -> Result<Vec<(String, posgeo::tables::Table)>, String> {
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
            let name =
                std::path::Path::new(path).file_name().map_or(path.clone(), |n| n.to_string_lossy().into_owned());
            out.extend(posgeo::tables::read_named(&bytes, &name, wanted).map_err(|e| e.to_string())?);
        }
        Ok(out)
    }

    /// `--tokenizer-file`: loads the tokenizer and selects it.
    fn with_model_tokenizer(mut params: AnalysisParams, file: Option<&str>) -> Result<AnalysisParams, String> {
        let Some(path) = file else { return Ok(params) };
        match params.tokenizer {
            TokenizerKind::Words | TokenizerKind::Model => params.tokenizer = TokenizerKind::Model,
            other => {
                return Err(format!(
                    "--tokenizer-file counts the model's tokens: leave out --tokenizer {}",
                    other.name()
                ))
            }
        }
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        let name = std::path::Path::new(path).file_name().map_or(path.into(), |n| n.to_string_lossy().into_owned());
        params.model = Some(ModelTokenizer::from_bytes(&name, &bytes).map_err(|e| e.message_for(Frontend::Cli))?);
        Ok(params)
    }

    /// The shipped all-MiniLM-L6-v2 files (`www/models/`, see `scripts/minilm.py`).
    const MINILM_TOKENIZER: &[u8] = include_bytes!("../../../www/models/all-MiniLM-L6-v2/tokenizer.json.gz");
    const MINILM_TABLE: &[u8] = include_bytes!("../../../www/models/all-MiniLM-L6-v2/position_embeddings.npy.gz");

    /// `--preset paper`: the options, and the shipped tokenizer and table unless given.
    fn with_preset(
        a: &AnalyzeArgs,
        mut params: AnalysisParams,
    ) -> Result<(AnalysisParams, Vec<(String, posgeo::tables::Table)>), String> {
        let learned = read_tables(&a.learned, &a.tensor)?;
        if a.preset.as_deref() != Some("paper") {
            return Ok((with_model_tokenizer(params, a.tokenizer_file.as_deref())?, learned));
        }
        posgeo::preset::paper(&mut params);
        let params = match a.tokenizer_file.as_deref() {
            Some(file) => with_model_tokenizer(params, Some(file))?,
            None => {
                let name = format!("{} tokenizer.json", posgeo::preset::MODEL_NAME);
                let model = ModelTokenizer::from_bytes(&name, MINILM_TOKENIZER).map_err(|e| e.to_string())?;
                AnalysisParams { model: Some(model), ..params }
            }
        };
        if !learned.is_empty() {
            return Ok((params, learned));
        }
        let name = format!("{} position_embeddings", posgeo::preset::MODEL_NAME);
        Ok((params, vec![(name, posgeo::tables::read_table(MINILM_TABLE, None).map_err(|e| e.to_string())?)]))
    }

    fn run_analyze(a: AnalyzeArgs) -> Result<(), String> {
        let (params, learned) = with_preset(&a, a.options.0.clone()?)?;
        let bytes = read_input(a.file.as_deref())?;
        let err = |e: posgeo::PosgeoError| e.message_for(Frontend::Cli);
        let corpus = Corpus::read(&bytes, &input_format(&a), a.lossy).map_err(err)?;
        drop(bytes);
        let bar = indicatif::ProgressBar::with_draw_target(Some(100), indicatif::ProgressDrawTarget::stderr());
        bar.set_style(
            indicatif::ProgressStyle::with_template("{msg:>10} [{bar:30}] {percent:>3}%")
                .map_err(|e| e.to_string())?
                .progress_chars("=> "),
        );
        let analysis = analyze(&corpus, &params, &learned, &mut |p| {
            bar.set_message(p.stage.label());
            bar.set_position((p.overall() * 100.0) as u64);
            true
        })
        .map_err(err)?;
        bar.finish_and_clear();
        let report = analysis.report(a.matrix);
        let mut out = std::io::stdout().lock();
        if a.json {
            serde_json::to_writer(&mut out, &report).map_err(|e| e.to_string())?;
            writeln!(out).ok();
        } else {
            write!(out, "{}", render_text(&report)).ok();
        }
        Ok(())
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
}
