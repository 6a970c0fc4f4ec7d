//! Counting a [`SequenceStream`] batch by batch: each batch is counted (natively on every
//! core) and its table appended to the running one, so memory grows with the counts, not
//! with the text, and the table is the one counting the whole text at once gives.

use super::table::CountsTable;
use super::tally::count_sequences;
use crate::corpus::tokenize::Tokenizer;
use crate::corpus::SequenceStream;
use crate::error::{PosgeoError, Result};

/// Text per batch: natively enough to keep every core busy, in a browser tab a few MB.
#[cfg(not(target_arch = "wasm32"))]
pub const BATCH_BYTES: usize = 32 << 20;
/// Text per batch: natively enough to keep every core busy, in a browser tab a few MB.
#[cfg(target_arch = "wasm32")]
pub const BATCH_BYTES: usize = 4 << 20;

/// What a streamed count returns: the table and the first sequences (for examples).
pub struct Streamed {
    /// The counts.
    pub table: CountsTable,
    /// The first `keep` sequences of the text.
    pub first: Vec<String>,
}

/// Counts every sequence of `stream`. `after_batch` is called after each batch; `false`
/// cancels ([`PosgeoError::Cancelled`]).
pub fn count_stream(
    stream: &mut SequenceStream<'_>,
    tokenizer: &Tokenizer,
    max_len: usize,
    keep: usize,
    after_batch: &mut dyn FnMut() -> bool,
) -> Result<Streamed> {
    let mut table: Option<CountsTable> = None;
    let mut first = Vec::new();
    while let Some(batch) = stream.next_batch(BATCH_BYTES)? {
        if first.len() < keep {
            first.extend(batch.iter().take(keep - first.len()).cloned());
        }
        let part = count_sequences(&batch, tokenizer, max_len, &mut |_| {});
        drop(batch);
        match table.as_mut() {
            Some(t) => t.append(part),
            None => table = Some(part),
        }
        if !after_batch() {
            return Err(PosgeoError::Cancelled);
        }
    }
    let mut table = table.ok_or(PosgeoError::EmptyInput)?;
    if let Some(t) = table.text.as_mut() {
        t.skipped_lines = stream.skipped_lines as u64;
    }
    Ok(Streamed { table, first })
}
