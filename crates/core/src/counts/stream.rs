//! Counting a [`SequenceStream`] batch by batch into a running count (natively each batch
//! on every core, its table appended; in wasm one reader's tallies across batches), so memory
//! grows with the counts, not with the text, and the table is the one counting the whole
//! text at once gives.

use super::table::CountsTable;
use super::tally::{count_sequences, Tallies};
use crate::corpus::tokenize::Tokenizer;
use crate::corpus::SequenceStream;
use crate::error::{PosgeoError, Result};

/// Text per batch: natively enough to keep every core busy, in a browser tab a few MB.
#[cfg(not(target_arch = "wasm32"))]
pub const BATCH_BYTES: usize = 64 << 20;
/// Text per batch: natively enough to keep every core busy, in a browser tab a few MB.
#[cfg(target_arch = "wasm32")]
pub const BATCH_BYTES: usize = 4 << 20;

/// The refusal of a count that holds `cells` distinct (position, type) pairs in `used` bytes.
fn too_large((cells, used): (usize, u64), sequences: u64, budget: u64) -> PosgeoError {
    PosgeoError::TooLarge(format!(
        "after {sequences} sequences the counts hold {} distinct (position, token) pairs ({}), more than the {} \
         they may take here (half the memory budget of {}): lower max_len, or count the corpus with `posgeo count` \
         on a machine with more memory",
        cells,
        crate::limits::human(used),
        crate::limits::human(budget),
        crate::limits::budget_text(2 * budget)
    ))
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
    // A FASTA record (a genome) is held only as far as the tokenizer reads it.
    stream.keep_per_record(tokenizer.prefix_bytes(max_len));
    let sequences = std::cell::Cell::new(0u64);
    let skipped = std::cell::Cell::new(0u64);
    let mut next = || {
        let batch = stream.next_batch(BATCH_BYTES)?;
        sequences.set(stream.sequences);
        skipped.set(stream.skipped_lines as u64);
        Ok(batch)
    };
    let mut streamed = count_batches(&mut next, tokenizer, max_len, keep, after_batch, &mut || sequences.get())?;
    if let Some(t) = streamed.table.text.as_mut() {
        t.skipped_lines = skipped.get();
    }
    Ok(streamed)
}

/// Counts the batches `next` gives (each a run of sequences; `None` ends), as
/// [`count_stream`] does a file's: the same table as counting them all at once. `read` says
/// how many sequences were read so far (for the size message).
pub fn count_batches(
    next: &mut dyn FnMut() -> Result<Option<Vec<String>>>,
    tokenizer: &Tokenizer,
    max_len: usize,
    keep: usize,
    after_batch: &mut dyn FnMut() -> bool,
    read: &mut dyn FnMut() -> u64,
) -> Result<Streamed> {
    let mut tally = StreamTally::new(tokenizer, max_len);
    let mut first = Vec::new();
    while let Some(batch) = next()? {
        tally.add(&batch);
        // The first sequences are moved out once counted, not copied (a sequence may be a
        // line of gigabytes).
        if first.len() < keep {
            first.extend(batch.into_iter().take(keep - first.len()));
        } else {
            drop(batch);
        }
        // Half the memory budget: the rest is for the batch being read and the analysis.
        let budget = crate::limits::budget() / 2;
        if let Some(size) = tally.over(budget) {
            return Err(too_large(size, read(), budget));
        }
        if !after_batch() {
            return Err(PosgeoError::Cancelled);
        }
    }
    let table = tally.finish().ok_or(PosgeoError::EmptyInput)?;
    Ok(Streamed { table, first })
}

/// A stream's running count, batch after batch. Natively each batch is counted on every core
/// and its table appended (batches are large, so appends are few); in wasm (one thread, small
/// batches) one reader's tallies go on across batches, because appending every batch's table
/// would add the whole running table again every few MB (the reader merges its cells only
/// every 8 M tokens, or half its cells). Both give the table a single reader of the whole
/// text gives, byte for byte.
enum StreamTally<'t> {
    /// One reader across batches.
    OneReader { tallies: Box<Tallies<'t>>, batches: usize },
    /// Each batch's table appended.
    Appended { table: Option<CountsTable>, tokenizer: &'t Tokenizer, max_len: usize },
}

impl<'t> StreamTally<'t> {
    /// The running count this target uses.
    fn new(tokenizer: &'t Tokenizer, max_len: usize) -> Self {
        if cfg!(target_arch = "wasm32") {
            Self::one_reader(tokenizer, max_len)
        } else {
            StreamTally::Appended { table: None, tokenizer, max_len }
        }
    }

    /// One reader's tallies across batches.
    fn one_reader(tokenizer: &'t Tokenizer, max_len: usize) -> Self {
        StreamTally::OneReader { tallies: Box::new(Tallies::new(tokenizer, max_len)), batches: 0 }
    }

    /// Counts the next batch of sequences.
    fn add(&mut self, batch: &[String]) {
        match self {
            StreamTally::OneReader { tallies, batches } => {
                *batches += 1;
                tallies.read(batch, &mut |_| {});
            }
            StreamTally::Appended { table, tokenizer, max_len } => {
                let part = count_sequences(batch, tokenizer, *max_len, &mut |_| {});
                match table.as_mut() {
                    Some(t) => t.append(part),
                    None => *table = Some(part),
                }
            }
        }
    }

    /// When the count holds more than `budget` bytes: (distinct (position, type) pairs,
    /// bytes), exact (one reader's as [`Tallies::over`] gives them).
    fn over(&mut self, budget: u64) -> Option<(usize, u64)> {
        match self {
            StreamTally::OneReader { tallies, .. } => tallies.over(budget),
            StreamTally::Appended { table, .. } => {
                let (cells, used) = table.as_ref().map_or((0, 0), |t| (t.cells.len(), t.memory_bytes()));
                (used > budget).then_some((cells, used))
            }
        }
    }

    /// The table, or `None` when no batch came.
    fn finish(self) -> Option<CountsTable> {
        match self {
            StreamTally::OneReader { batches: 0, .. } => None,
            StreamTally::OneReader { tallies, .. } => Some(tallies.into_table()),
            StreamTally::Appended { table, .. } => table,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::whitespace;

    #[test]
    fn a_count_that_outgrows_its_budget_is_refused_with_how_far_it_got() {
        let t = whitespace();
        let seqs: Vec<String> = (0..200).map(|k| format!("w{k} x{k} y{k}")).collect();
        for mut tally in [StreamTally::new(&t, 8), StreamTally::one_reader(&t, 8)] {
            tally.add(&seqs);
            assert_eq!(tally.over(1 << 20), None, "well within a MB");
            let size = tally.over(1000).expect("over 1000 bytes");
            assert_eq!(size.0, 600, "exact, the tokens read counted first");
            assert_eq!(tally.over(size.1), None, "at its budget");
            let e = too_large(size, 200, 1000).to_string();
            assert!(e.starts_with("too large: after 200 sequences the counts hold 600 distinct"), "{e}");
        }
    }

    #[test]
    fn batches_counted_either_way_give_the_table_of_the_whole_text() {
        // Tokens recur across batches, at lower positions later (record lows), with lengths
        // past max_len: the running tallies and the appended tables match one whole count.
        let t = whitespace();
        let seqs: Vec<String> = (0..300)
            .map(|k| (0..(k * 7 % 13)).map(|j| format!("t{}", (k * 31 + j * 17) % 23)).collect::<Vec<_>>().join(" "))
            .collect();
        let whole = super::super::tally::count_sequences(&seqs, &t, 10, &mut |_| {});
        for mut tally in [StreamTally::new(&t, 10), StreamTally::one_reader(&t, 10)] {
            for batch in seqs.chunks(37) {
                tally.add(batch);
            }
            assert_eq!(tally.finish().as_ref(), Some(&whole));
        }
        assert!(StreamTally::one_reader(&t, 10).finish().is_none(), "no batch, no table");
    }
}
