//! Messages between the page and its Web Worker, and the worker's job as a pure function
//! ([`run`]) so that it is tested natively as well as in the browser.
//!
//! Page → worker: a JS object `{ request: <postcard bytes of [`Request`]>, bytes: Uint8Array,
//! learned_bytes: Uint8Array, tokenizer_bytes: Uint8Array }` (`bytes` holds the pasted text
//! or the uploaded file, gzip or not; `learned_bytes` a learned position table and
//! `tokenizer_bytes` a model's `tokenizer.json`, when the request names them; the request's
//! bytes are written and read by [`wire`]). Worker → page: JSON strings of [`Response`] (JSON
//! because its payload's [`Report`] is the schema `posgeo analyze --json` prints, whose
//! flattened and skipped fields postcard cannot carry). The worker posts `Ready` once its wasm has
//! started; a run posts `Progress` and `Estimate` messages, then `Done` or `Error`.
//! `Done` travels as `{ json, header, matrix, coords, shepard }`: the payload's bulky
//! numbers are moved out of the JSON by [`Payload::take_bulk`] into transferred typed arrays
//! (Float64Array, Float64Array, Float32Array; `header` is [`BulkHeader`] as JSON), and put
//! back by [`Payload::restore_bulk`] — no megabytes of JSON to parse on the
//! page's thread.
//! Cancelling = terminating the worker; the page then starts a fresh one.

use posgeo::analysis::{AnalysisParams, Stage};
use posgeo::corpus::{Corpus, InputFormat};
use posgeo::demos::synth::{generate, SynthParams};
use posgeo::error::Result;
use posgeo::points::Points;
use posgeo::report::Report;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The public-domain corpus shipped with the app: the Book of Genesis, King James Version
/// (1611), one verse per line, from Debian's `bible-kjv-text` package.
pub const GENESIS: &str = include_str!("../../../../www/corpora/kjv-genesis.txt");
/// The shipped proteins: FASTA, one record a protein (www/corpora/NOTICE names their source
/// and license; docs/MATH.md §17 the options that suit them).
pub const PROTEINS: &str = include_str!("../../../../www/corpora/proteins.faa");

/// Uploads at least this large (bytes) are counted by several helper workers (uncompressed
/// text or JSON Lines; see `web::helpers`), which the page has started as soon as such a
/// file is chosen ([`counted_by_helpers`]).
pub const PARALLEL_FROM: f64 = 16e6;

/// Whether a corpus file of this name and size will be counted by helper workers, as far as
/// its name tells: large enough, and plain text or JSON Lines, not compressed, not a
/// Parquet counts table (the worker checks the file's first bytes too, when the run begins).
pub fn counted_by_helpers(name: &str, size: f64) -> bool {
    let lower = name.to_lowercase();
    let kind = posgeo::corpus::FileKind::from_file_name(&lower);
    size >= PARALLEL_FROM
        && matches!(kind, posgeo::corpus::FileKind::Text | posgeo::corpus::FileKind::Jsonl)
        && !lower.ends_with(".gz")
        && !lower.ends_with(".parquet")
}

/// Where the corpus comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// The synthetic generator.
    Synthetic(SynthParams),
    /// The shipped Genesis text.
    Genesis,
    /// The shipped proteins (FASTA, [`PROTEINS`]).
    Proteins,
    /// The bytes sent along (pasted text or an uploaded file).
    Bytes {
        /// File name, for messages (empty for pasted text).
        name: String,
        /// How to parse them.
        format: InputFormat,
        /// Skip invalid UTF-8 lines instead of failing.
        lossy: bool,
    },
}

/// A run request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// Run id; responses carry it so the page ignores superseded runs.
    pub id: u32,
    /// Corpus source.
    pub source: Source,
    /// Analysis options.
    pub params: AnalysisParams,
    /// A learned position table sent along (its bytes travel as `learned_bytes`).
    #[serde(default)]
    pub learned: Option<LearnedTable>,
    /// A model's `tokenizer.json` sent along (its name; the bytes travel as
    /// `tokenizer_bytes`), used when `params.tokenizer` is `model`.
    #[serde(default)]
    pub tokenizer: Option<String>,
    /// A model whose layers are compared too (docs/MATH.md §14): its name; its files travel as
    /// `model_bytes`, a bundle of config.json, model.safetensors and tokenizer.json.
    #[serde(default)]
    pub model: Option<String>,
    /// Live parameters: reuse the corpus geometry the worker kept from its last run and only
    /// compute the encodings again (no bytes travel; see [`Session`]).
    #[serde(default)]
    pub reuse_geometry: bool,
}

/// An uploaded learned position table (text/CSV or safetensors, see [`posgeo::learned_tables`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LearnedTable {
    /// File name, for messages.
    pub name: String,
    /// The tensors to use, each its own table (`learned:<tensor>` when several; empty: the
    /// one [`posgeo::learned_tables::read_table`] picks).
    #[serde(default)]
    pub tensors: Vec<String>,
}

/// Worker → page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Response {
    /// The worker is up.
    Ready,
    /// Stage progress.
    Progress {
        /// Run id.
        id: u32,
        /// Stage.
        stage: Stage,
        /// Fraction of the stage done.
        fraction: f64,
    },
    /// Size of the job, known once the corpus is read.
    Estimate {
        /// Run id.
        id: u32,
        /// Sequences read.
        sequences: usize,
        /// Upper bound on positions (min(max_len, longest sequence)).
        max_positions: usize,
        /// Approximate peak memory of the numeric stages, bytes.
        memory_bytes: u64,
        /// Web Workers that counted the corpus (several for a large text file).
        #[serde(default = "one")]
        workers: usize,
        /// Web Workers that measured the encodings (0: the worker alone). A run whose
        /// helpers measured posts its estimate again with this set.
        #[serde(default)]
        measured_by: usize,
        /// Web Workers that shared SMACOF's iterations (0: the worker alone); posted again
        /// like `measured_by`.
        #[serde(default)]
        smacof_by: usize,
        /// Whether a helper worker computed the spectrum (posted again like `measured_by`).
        #[serde(default)]
        spectrum_by_helper: bool,
        /// Encodings a helper measured while the spectrum was computed (by another helper or
        /// by the worker): those that do not read the spectrum.
        #[serde(default)]
        measured_meanwhile: usize,
        /// What failed in helper workers (the worker then did their jobs itself, so the
        /// results are the same); posted again like `measured_by`.
        #[serde(default)]
        helper_failures: Vec<String>,
    },
    /// The finished analysis.
    Done {
        /// Run id.
        id: u32,
        /// The results.
        payload: Box<Payload>,
    },
    /// A failed run: the message for the user.
    Error {
        /// Run id.
        id: u32,
        /// What went wrong.
        message: String,
    },
}

/// What the page draws: the report (with the distance matrix) plus Shepard samples.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Payload {
    /// The same report as `posgeo analyze --json --matrix`.
    pub report: Report,
    /// Per encoding, up to [`SHEPARD_SAMPLES`] pairs (D_ij, a*·δ_ij).
    pub shepard: BTreeMap<String, Vec<(f32, f32)>>,
    /// The `pmds` configuration X_d (all its coordinates), for the CSV export.
    pub coordinates: Points,
    /// D and every encoding's a*·δ as block means, for the side-by-side geometry chart.
    #[serde(default)]
    pub heat: Heat,
    /// The first sequences as tokens ([`posgeo::analysis::Analysis::examples`]).
    #[serde(default)]
    pub examples: Vec<Vec<String>>,
    /// Per encoding, its positions after Procrustes alignment onto the PMDS coordinates
    /// (coordinates 1–2, the map's), for the map's overlay.
    #[serde(default)]
    pub overlay: BTreeMap<String, Vec<(f32, f32)>>,
}

/// Block means of D and of each encoding's a*·δ on a `side` × `side` grid (row-major),
/// small enough to travel in the JSON: `side` = min(n, [`HEAT_BLOCKS`]).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Heat {
    /// Blocks per side.
    pub side: usize,
    /// D.
    #[serde(with = "posgeo::measures::sketch::blanks_as_null")]
    pub corpus: Vec<f32>,
    /// a*·δ per encoding (a model's layer rows have blank blocks, NaN, past their n_L
    /// positions: `null` in the JSON).
    #[serde(with = "posgeo::measures::sketch::blanks_as_null::map")]
    pub encodings: BTreeMap<String, Vec<f32>>,
}

/// Blocks per side of [`Heat`].
pub use posgeo::measures::sketch::HEAT_BLOCKS;

/// The bulky numbers of a [`Payload`], moved out of its JSON (see the module docs). The
/// matrix's key is the report's `metric` and the coordinates have `report.n` rows, so only
/// the Shepard layout needs a header.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Bulk {
    /// What the Shepard array holds.
    pub header: BulkHeader,
    /// The distance matrix, row-major n×n (empty when the report carries none; the worker
    /// sends its rows in a typed array of their own, see `web::worker`).
    pub matrix: Vec<f64>,
    /// The PMDS coordinates, row-major, n rows.
    pub coords: Vec<f64>,
    /// Shepard pairs (D, a*·δ) of every encoding in `header.shepard`'s order, flattened.
    pub shepard: Vec<f32>,
}

/// The layout of [`Bulk::shepard`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct BulkHeader {
    /// Encoding names with their number of Shepard pairs.
    pub shepard: Vec<(String, usize)>,
}

impl Payload {
    /// Moves the distance matrix's rows out of the report (none when it carries none).
    pub fn take_matrix(&mut self) -> Vec<Vec<f64>> {
        std::mem::take(&mut self.report.matrix).into_values().next().unwrap_or_default()
    }

    /// Moves the matrix, the coordinates and the Shepard samples out into flat arrays.
    pub fn take_bulk(&mut self) -> Bulk {
        let matrix = self.take_matrix().concat();
        let coords = std::mem::take(&mut self.coordinates).data;
        let mut header = BulkHeader::default();
        let mut shepard = Vec::new();
        for (name, pts) in std::mem::take(&mut self.shepard) {
            header.shepard.push((name, pts.len()));
            shepard.extend(pts.iter().flat_map(|&(d, e)| [d, e]));
        }
        Bulk { header, matrix, coords, shepard }
    }

    /// Puts back what [`Payload::take_bulk`] took (arrays of the wrong size are treated as
    /// missing).
    pub fn restore_bulk(&mut self, bulk: Bulk) {
        let Bulk { header, matrix, coords, shepard } = bulk;
        let n = self.report.n;
        if n > 0 && matrix.len() == n * n {
            self.report.matrix.insert(self.report.metric.clone(), matrix.chunks(n).map(<[f64]>::to_vec).collect());
        }
        if n > 0 && !coords.is_empty() && coords.len() % n == 0 {
            self.coordinates = Points { n, dim: coords.len() / n, data: coords };
        }
        let mut rest = &shepard[..];
        for (name, count) in header.shepard {
            if rest.len() < 2 * count {
                break;
            }
            let (mine, tail) = rest.split_at(2 * count);
            self.shepard.insert(name, mine.chunks(2).map(|p| (p[0], p[1])).collect());
            rest = tail;
        }
    }
}

fn one() -> usize {
    1
}

/// Pairs sampled for each Shepard diagram.
pub use posgeo::measures::sketch::SHEPARD_SAMPLES;

/// The corpus a request names.
pub fn corpus_of(source: &Source, bytes: &[u8]) -> Result<Corpus> {
    match source {
        Source::Synthetic(p) => Ok(Corpus::from_sequences(generate(p)?)),
        Source::Genesis => Ok(Corpus::from_text(GENESIS)),
        Source::Proteins => Corpus::read(PROTEINS.as_bytes(), &InputFormat::Fasta, false),
        Source::Bytes { format, lossy, .. } => Corpus::read(bytes, format, *lossy),
    }
}

/// The bytes that travel with a request.
#[derive(Default)]
pub struct Files<'a> {
    /// The pasted text (or an uploaded file's bytes when it is not streamed).
    pub corpus: &'a [u8],
    /// The uploaded corpus file, read as a stream (in the browser, slices of the `File`).
    pub corpus_stream: Option<Box<dyn std::io::Read + 'a>>,
    /// The streamed file's size in bytes (for progress).
    pub corpus_size: u64,
    /// The corpus already counted (by several workers, each a part of the file) and how many
    /// workers counted it.
    pub precounted: Option<(posgeo::counts::Streamed, usize)>,
    /// The learned table the request names.
    pub learned: &'a [u8],
    /// The `tokenizer.json` the request names.
    pub tokenizer: &'a [u8],
    /// The model's files (a bundle) the request names.
    pub model: &'a [u8],
}

/// Runs a request to completion; `post` receives every message except the final one.
/// `learned` holds the bytes of the table the request names (ignored when it names none).
pub fn run(req: &Request, bytes: &[u8], learned: &[u8], post: &mut dyn FnMut(Response)) -> Result<Payload> {
    Session::default().run(req, Files { corpus: bytes, learned, ..Files::default() }, post)
}

mod failure;
mod input;
mod wire;
pub use failure::{Task, WorkerError};
pub use wire::{decode_request, encode_request, Unreadable};
pub mod jobs;
pub use input::kept;
pub mod learn;
mod payload;
mod session;
pub use session::{counting_tokenizer, Begun, Layers, Pending, Session, Unbuilt};
pub mod shipped;
use payload::payload_of;
pub use posgeo::measures::sketch::block_means;

#[cfg(test)]
mod tests;
