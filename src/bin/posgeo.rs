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
mod cli {
    use clap::{Args, Parser, Subcommand, ValueEnum};
    use posgeo::analysis::{analyze, AnalysisParams, Report};
    use posgeo::corpus::tokenize::TokenizerKind;
    use posgeo::counts::Mode;
    use posgeo::encodings::EncodingParams;
    use posgeo::synth::{generate, SynthParams};
    use posgeo::{Corpus, InputFormat, Metric, PosgeoError};
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

    #[derive(Clone, Copy, ValueEnum)]
    enum Format {
        Text,
        Csv,
        Tsv,
        Jsonl,
    }

    #[derive(Clone, Copy, ValueEnum)]
    enum Tok {
        Whitespace,
        Words,
        Chars,
    }

    #[derive(Clone, Copy, ValueEnum)]
    enum ModeArg {
        Condition,
        Pad,
    }

    #[derive(Clone, Copy, ValueEnum)]
    enum MetricArg {
        Hellinger,
        FisherRao,
        TotalVariation,
        JensenShannon,
    }

    #[derive(Args)]
    struct AnalyzeArgs {
        /// Corpus file (`-` or nothing: standard input). Gzip is detected.
        file: Option<String>,
        /// Input format (default: from the extension, else text).
        #[arg(long, value_enum)]
        format: Option<Format>,
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
        /// Tokenizer.
        #[arg(long, value_enum, default_value = "words")]
        tokenizer: Tok,
        /// Keep case (lowercasing is on by default for whitespace and words).
        #[arg(long, conflicts_with = "lowercase")]
        no_lowercase: bool,
        /// Lowercase tokens (default on for whitespace and words, off for chars).
        #[arg(long)]
        lowercase: bool,
        /// Prefix every sequence with <bos>.
        #[arg(long)]
        bos: bool,
        /// condition: position i counts sequences longer than i; pad: shorter ones give <pad>.
        #[arg(long, value_enum, default_value = "condition")]
        mode: ModeArg,
        /// Cap on positions.
        #[arg(long, default_value_t = 512)]
        max_len: usize,
        /// Minimum sequences per position.
        #[arg(long, default_value_t = 5)]
        min_support: usize,
        /// Additive smoothing α.
        #[arg(long, default_value_t = 0.0)]
        alpha: f64,
        /// Keep the k most frequent types; merge the rest into <other>.
        #[arg(long)]
        top_k: Option<usize>,
        /// Corpus metric.
        #[arg(long, value_enum, default_value = "hellinger")]
        metric: MetricArg,
        /// Model dimension d (sinusoidal, random, pmds, smacof).
        #[arg(long, default_value_t = 768)]
        d: usize,
        /// Frequency base of sinusoidal and RoPE.
        #[arg(long, default_value_t = 10000.0)]
        base: f64,
        /// RoPE head dimension.
        #[arg(long, default_value_t = 64)]
        head_dim: usize,
        /// ALiBi slope m.
        #[arg(long, default_value_t = 0.5)]
        slope: f64,
        /// Standard deviation of the random table.
        #[arg(long, default_value_t = 0.02)]
        sigma: f64,
        /// Seed of the random table.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Rank r of pmds_r (default: the energy rank r_E).
        #[arg(long)]
        rank: Option<usize>,
        /// Iteration cap of the SMACOF refinement (each costs two n×n×d products).
        #[arg(long, default_value_t = 500)]
        smacof_iter: usize,
        /// τ of the effective rank r_τ.
        #[arg(long, default_value_t = 1e-8)]
        tau: f64,
        /// Energy fraction E of the energy rank r_E.
        #[arg(long, default_value_t = 0.99)]
        energy: f64,
        /// A learned position table to compare: text/CSV of numbers (one row per position) or
        /// a .safetensors checkpoint.
        #[arg(long)]
        learned: Option<String>,
        /// The safetensors tensor to use with --learned (default: the only 2-D tensor, or the
        /// one named like a position embedding, e.g. `wpe.weight`).
        #[arg(long, requires = "learned")]
        tensor: Option<String>,
        /// Print one JSON object instead of tables.
        #[arg(long)]
        json: bool,
        /// With --json, add the n×n distance matrix.
        #[arg(long)]
        matrix: bool,
    }

    #[derive(Args)]
    struct SynthArgs {
        /// Vocabulary size V.
        #[arg(long, default_value_t = SynthParams::default().vocab)]
        vocab: usize,
        /// Positions n (tokens per sequence).
        #[arg(long, default_value_t = SynthParams::default().positions)]
        positions: usize,
        /// Latent regimes K.
        #[arg(long, default_value_t = SynthParams::default().regimes)]
        regimes: usize,
        /// Dirichlet concentration β.
        #[arg(long, default_value_t = SynthParams::default().beta)]
        beta: f64,
        /// Width s of the regimes' Gaussian bumps.
        #[arg(long, default_value_t = SynthParams::default().width)]
        width: f64,
        /// Number of sequences.
        #[arg(long, default_value_t = SynthParams::default().sequences)]
        sequences: usize,
        /// Seed.
        #[arg(long, default_value_t = SynthParams::default().seed)]
        seed: u64,
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
        let p = SynthParams {
            vocab: s.vocab,
            positions: s.positions,
            regimes: s.regimes,
            beta: s.beta,
            width: s.width,
            sequences: s.sequences,
            seed: s.seed,
        };
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

    fn input_format(a: &AnalyzeArgs) -> InputFormat {
        let name = a.file.as_deref().unwrap_or("").trim_end_matches(".gz");
        let fmt = a.format.unwrap_or(if name.ends_with(".csv") {
            Format::Csv
        } else if name.ends_with(".tsv") {
            Format::Tsv
        } else if name.ends_with(".jsonl") || name.ends_with(".ndjson") {
            Format::Jsonl
        } else {
            Format::Text
        });
        let csv = |delimiter| InputFormat::Csv { delimiter, column: a.column.clone(), has_header: !a.no_header };
        match fmt {
            Format::Text => InputFormat::Text,
            Format::Csv => csv(b','),
            Format::Tsv => csv(b'\t'),
            Format::Jsonl => InputFormat::Jsonl { field: a.field.clone() },
        }
    }

    fn params(a: &AnalyzeArgs) -> AnalysisParams {
        AnalysisParams {
            tokenizer: match a.tokenizer {
                Tok::Whitespace => TokenizerKind::Whitespace,
                Tok::Words => TokenizerKind::Words,
                Tok::Chars => TokenizerKind::Chars,
            },
            lowercase: if a.no_lowercase {
                Some(false)
            } else if a.lowercase {
                Some(true)
            } else {
                None
            },
            bos: a.bos,
            mode: match a.mode {
                ModeArg::Condition => Mode::Condition,
                ModeArg::Pad => Mode::Pad,
            },
            max_len: a.max_len,
            min_support: a.min_support,
            alpha: a.alpha,
            top_k: a.top_k,
            metric: match a.metric {
                MetricArg::Hellinger => Metric::Hellinger,
                MetricArg::FisherRao => Metric::FisherRao,
                MetricArg::TotalVariation => Metric::TotalVariation,
                MetricArg::JensenShannon => Metric::JensenShannon,
            },
            tau: a.tau,
            energy: a.energy,
            encodings: EncodingParams {
                d: a.d,
                base: a.base,
                head_dim: a.head_dim,
                slope: a.slope,
                sigma: a.sigma,
                seed: a.seed,
                rank: a.rank,
                smacof_max_iter: a.smacof_iter,
            },
        }
    }

    /// A numeric table: one row per line, numbers separated by commas, tabs or spaces.
    fn read_table(path: &str, tensor: Option<&str>) -> Result<Vec<Vec<f64>>, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        posgeo::tables::read_table(&bytes, tensor).map_err(|e| format!("{path}: {e}"))
    }

    fn run_analyze(a: AnalyzeArgs) -> Result<(), String> {
        let bytes = read_input(a.file.as_deref())?;
        let err = |e: PosgeoError| e.to_string();
        let corpus = Corpus::read(&bytes, &input_format(&a), a.lossy).map_err(err)?;
        drop(bytes);
        let learned = a.learned.as_deref().map(|p| read_table(p, a.tensor.as_deref())).transpose()?;
        let params = params(&a);
        let bar = indicatif::ProgressBar::with_draw_target(Some(100), indicatif::ProgressDrawTarget::stderr());
        bar.set_style(
            indicatif::ProgressStyle::with_template("{msg:>10} [{bar:30}] {percent:>3}%")
                .map_err(|e| e.to_string())?
                .progress_chars("=> "),
        );
        let analysis = analyze(&corpus, &params, learned.as_deref(), &mut |p| {
            bar.set_message(p.stage.label());
            bar.set_position((p.fraction * 100.0) as u64);
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

    fn opt(v: Option<f64>) -> String {
        v.map_or("—".to_string(), |x| format!("{x:.4}"))
    }

    fn render_text(r: &Report) -> String {
        let mut s = String::new();
        use std::fmt::Write as _;
        let _ = writeln!(s, "corpus: {} sequences, {} tokens counted, |V| = {}", r.sequences, r.tokens, r.vocab_size);
        if r.skipped_lines > 0 {
            let _ = writeln!(s, "skipped: {} line(s) of invalid UTF-8", r.skipped_lines);
        }
        let _ = writeln!(
            s,
            "positions: n = {} (support N_0 = {}, N_{} = {})",
            r.n,
            r.support[0],
            r.n - 1,
            r.support[r.n - 1]
        );
        if let Some(why) = &r.dropped_reason {
            let _ = writeln!(s, "dropped: {why}");
        }
        let _ = writeln!(
            s,
            "metric: {}; spectrum: r_tau = {}, r_E = {}, negative mass = {:.3e}; corpus monotonicity violations = {}",
            r.metric,
            r.effective_rank,
            r.energy_rank,
            r.negative_mass,
            opt(r.corpus_monotonicity_violation_rate)
        );
        let _ = writeln!(s);
        let _ = writeln!(
            s,
            "{:<11} {:>5} {:>11} {:>10} {:>10} {:>10} {:>9} {:>12}",
            "encoding", "dim", "parameters", "raw σ", "scaled σ*", "scale a*", "spearman", "monotonicity"
        );
        for name in &r.encoding_order {
            let e = &r.encodings[name];
            let _ = writeln!(
                s,
                "{:<11} {:>5} {:>11} {:>10.6} {:>10.6} {:>10.4} {:>9} {:>12}",
                name,
                e.dim,
                e.parameters,
                e.raw_stress,
                e.scaled_stress,
                e.scale,
                opt(e.spearman),
                opt(e.monotonicity_violation_rate)
            );
        }
        s
    }
}
