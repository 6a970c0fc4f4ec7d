//! The worker's input stage: the request's corpus → its counts table. An uploaded file is
//! read as a stream (a counts table is recognised by its first bytes and read as one); pasted
//! text, Genesis and the synthetic corpus are counted from memory.

use super::{corpus_of, Files, Request, Response, Source};
use posgeo::analysis::{AnalysisParams, Progress, Stage, EXAMPLE_SEQUENCES};
use posgeo::corpus::{ReadCounter, SequenceStream};
use posgeo::counts::{count_stream, looks_like_table, read_table_bytes, CountsTable, Mode};
use posgeo::error::{PosgeoError, Result};
use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Bytes of a file read to recognise a counts table.
const HEAD_BYTES: u64 = 1 << 16;

/// What was counted: the table, the first sequences' tokens, and the table file's name when
/// the upload was a counts table.
pub(super) struct Counted {
    /// Workers that counted (1 unless several counted parts of the file).
    pub(super) workers: usize,
    pub(super) table: CountsTable,
    pub(super) examples: Vec<Vec<String>>,
    pub(super) table_name: Option<String>,
    /// The first sequences as text: [`kept`] of them (a model reads them; docs/MATH.md §14).
    pub(super) first: Vec<String>,
}

/// Sequences kept as text while counting: the examples', or the model's when a model runs.
pub fn kept(req: &Request) -> usize {
    if req.model.is_some() {
        EXAMPLE_SEQUENCES.max(req.params.layer_sequences)
    } else {
        EXAMPLE_SEQUENCES
    }
}

fn io(e: std::io::Error) -> PosgeoError {
    PosgeoError::Unreadable(format!("the file could not be read ({e})"))
}

/// The counts of the request's corpus under `params` (a counts table counted in pad mode
/// switches `params` to pad mode: its `<pad>` rows are padding, not tokens).
pub(super) fn count(
    req: &Request,
    files: Files<'_>,
    params: &mut AnalysisParams,
    progress: &mut dyn FnMut(Progress) -> bool,
) -> Result<Counted> {
    if let Some((s, workers)) = files.precounted {
        return Ok(Counted {
            workers,
            examples: params.examples(&s.first),
            table: s.table,
            table_name: None,
            first: s.first,
        });
    }
    let name = match &req.source {
        Source::Bytes { name, .. } => Some(name.clone()),
        _ => None,
    };
    let as_table = |table: CountsTable, params: &mut AnalysisParams| {
        if table.counted_mode() == Mode::Pad {
            params.mode = Mode::Pad;
        }
        Ok(Counted { workers: 1, table, examples: Vec::new(), table_name: name.clone(), first: Vec::new() })
    };
    if let (Source::Bytes { format, lossy, .. }, Some(reader)) = (&req.source, files.corpus_stream) {
        let read = Arc::new(AtomicU64::new(0));
        let mut reader = ReadCounter { inner: reader, read: read.clone() };
        let mut head = Vec::new();
        (&mut reader).take(HEAD_BYTES).read_to_end(&mut head).map_err(io)?;
        if looks_like_table(&head) {
            reader.read_to_end(&mut head).map_err(io)?;
            return as_table(read_table_bytes(&head)?, params);
        }
        let size = files.corpus_size.max(1) as f64;
        let mut stream = SequenceStream::new(std::io::Cursor::new(head).chain(reader), format, *lossy)?;
        let tokenizer = params.tokenizer();
        let s = count_stream(&mut stream, &tokenizer, params.max_len, kept(req), &mut || {
            progress(Progress {
                stage: Stage::Counting,
                fraction: (read.load(Ordering::Relaxed) as f64 / size).min(1.0),
            })
        })?;
        return Ok(Counted {
            workers: 1,
            examples: params.examples(&s.first),
            table: s.table,
            table_name: None,
            first: s.first,
        });
    }
    if matches!(req.source, Source::Bytes { .. }) && looks_like_table(files.corpus) {
        return as_table(read_table_bytes(files.corpus)?, params);
    }
    let corpus = corpus_of(&req.source, files.corpus)?;
    let table = posgeo::analysis::count_corpus(&corpus, params, progress)?;
    let first = corpus.sequences.iter().take(kept(req)).cloned().collect();
    Ok(Counted { workers: 1, examples: params.examples(&corpus.sequences), table, table_name: None, first })
}

/// The size of the job, once counted: sequences (N_0 for a table that cannot tell),
/// positions at most, and the numeric stages' memory.
pub(super) fn estimate(id: u32, c: &Counted, params: &AnalysisParams) -> Response {
    let t = &c.table;
    let sequences = t.text.as_ref().map_or_else(|| t.support(1, None).first().copied().unwrap_or(0), |x| x.sequences);
    let max_positions = params.max_len.min(t.longest(params.mode).max(1));
    Response::Estimate {
        id,
        sequences: sequences as usize,
        max_positions,
        memory_bytes: posgeo::limits::working_memory(max_positions, params.encodings.d),
        workers: c.workers,
        measured_by: 0,
        smacof_by: 0,
        spectrum_by_helper: false,
        measured_meanwhile: 0,
        helper_failures: Vec::new(),
    }
}
