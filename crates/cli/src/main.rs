//! `posgeo` — the command line over the numeric core (native only).
//!
//! * `posgeo analyze [FILE|-]`: stress of every encoding against the corpus geometry
//!   (`--counts TABLE`: from a counts table instead of the text).
//! * `posgeo count [FILE|-] -o TABLE`: the corpus's counts table (docs/MATH.md §2b).
//! * `posgeo merge A B … -o TABLE`: tables of consecutive parts of a corpus, added.
//! * `posgeo synth`: writes the built-in synthetic corpus.
//! * `posgeo train [FILE|-]`: the learning experiment (docs/MATH.md §16).
//!
//! Text is read as a stream and counted batch by batch on every core, so memory grows with
//! the counts and not with the text.

#[cfg(target_arch = "wasm32")]
fn main() {}

/// mimalloc: freed blocks are reused instead of returned to the system and faulted in again.
#[cfg(not(target_arch = "wasm32"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    cli::main()
}

#[cfg(not(target_arch = "wasm32"))]
mod analyze;
#[cfg(not(target_arch = "wasm32"))]
mod count;
#[cfg(not(target_arch = "wasm32"))]
mod input;
#[cfg(not(target_arch = "wasm32"))]
mod model;
#[cfg(not(target_arch = "wasm32"))]
mod table_args;
#[cfg(not(target_arch = "wasm32"))]
mod train;

#[cfg(not(target_arch = "wasm32"))]
mod cli {
    use super::table_args;
    use clap::{ArgMatches, Args, Command as ClapCommand, FromArgMatches, Parser, Subcommand};
    use posgeo::analysis::AnalysisParams;
    use posgeo::demos::synth::{generate, SynthParams};
    use posgeo::options::{ANALYSIS, SYNTH};
    use posgeo_learn::options::LEARN;
    use posgeo_learn::LearnParams;
    use std::io::Write;
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
        Analyze(Box<super::analyze::AnalyzeArgs>),
        /// Count a corpus into a counts table (position, token, count, first) — CSV, `.gz` for gzip.
        Count(Box<super::count::CountArgs>),
        /// Add the counts tables of consecutive parts of a corpus (in the order given).
        Merge(super::count::MergeArgs),
        /// Write the synthetic corpus (one sequence per line) to standard output.
        Synth(SynthArgs),
        /// Train a small transformer per position signal (masked tokens) and relate its held-out loss to stress.
        Train(Box<super::train::TrainArgs>),
    }

    /// Options declared in a table of `posgeo::options`, parsed into their params struct
    /// (the error, if any, is reported when the command runs, like every other error).
    macro_rules! table_options {
        ($name:ident, $params:ty, $table:expr) => {
            pub struct $name(pub Result<$params, String>);
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
    table_options!(LearnOptions, LearnParams, LEARN);

    #[derive(Args)]
    struct SynthArgs {
        #[command(flatten)]
        options: SynthOptions,
    }

    pub fn main() -> ExitCode {
        let cli = Cli::parse();
        posgeo::limits::fit_threads_to_cap();
        let result = match cli.command {
            Command::Analyze(a) => super::analyze::run(*a),
            Command::Count(c) => super::count::run_count(*c),
            Command::Merge(m) => super::count::run_merge(m),
            Command::Synth(s) => run_synth(s),
            Command::Train(t) => super::train::run(*t),
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
}
