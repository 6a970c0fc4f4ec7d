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

/// Refuses a count whose table outgrows `budget` bytes (half the memory budget: the rest is
/// for the batch being read and the analysis), saying how far it got.
pub fn check_growth(table: &CountsTable, sequences: u64, budget: u64) -> Result<()> {
    let used = table.memory_bytes();
    if used <= budget {
        return Ok(());
    }
    Err(PosgeoError::TooLarge(format!(
        "after {sequences} sequences the counts hold {} distinct (position, token) pairs ({}), more than the {} \
         they may take here: lower max_len, or count the corpus with `posgeo count` on a machine with more memory",
        table.cells.len(),
        crate::limits::human(used),
        crate::limits::human(budget)
    )))
}

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
        if let Some(t) = &table {
            check_growth(t, stream.sequences, crate::limits::MEMORY_BUDGET / 2)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::tokenize::{Tokenizer, TokenizerKind};

    #[test]
    fn a_count_that_outgrows_its_budget_is_refused_with_how_far_it_got() {
        let t = Tokenizer {
            kind: TokenizerKind::Whitespace,
            lowercase: true,
            bos: false,
            model: None,
            special_tokens: true,
        };
        let seqs: Vec<String> = (0..200).map(|k| format!("w{k} x{k} y{k}")).collect();
        let table = count_sequences(&seqs, &t, 8, &mut |_| {});
        assert!(check_growth(&table, 200, table.memory_bytes()).is_ok());
        let e = check_growth(&table, 200, 1000).unwrap_err().to_string();
        assert!(e.starts_with("too large: after 200 sequences the counts hold 600 distinct"), "{e}");
    }
}
