//! Counting's inner loop: one reader's tallies over a run of sequences — the token interner,
//! each type's record lows and the length histogram ([`Reader`]), and the (position, type)
//! pair counts — turned into a [`CountsTable`] that later runs are appended to. Natively,
//! corpora large enough are counted on every core ([`super::parallel`]).

use super::interner::Interner;
use super::pairs::PairCounts;
use super::table::{CountsTable, TextTally};
use crate::corpus::tokenize::Tokenizer;

/// What reading a run of sequences (numbered from 0) tells apart from the pair counts: the
/// types in order of first occurrence, their record lows and the lengths.
pub(super) struct Reader {
    pub(super) interner: Interner,
    /// Per type, its record lows (sequence, position): strictly decreasing positions.
    pub(super) firsts: Vec<Vec<(u64, u32)>>,
    /// The last position pushed to `firsts[id]` (flat, so the common case is one load).
    lowest: Vec<u32>,
    pub(super) text: TextTally,
}

impl Reader {
    pub(super) fn new(max_len: usize) -> Self {
        Reader {
            interner: Interner::default(),
            firsts: Vec::new(),
            lowest: Vec::new(),
            text: TextTally { lengths: vec![0; max_len + 1], ..TextTally::default() },
        }
    }

    /// The id of the token `tok` at `pos` of the sequence being read (and whether its type is
    /// new), its record low noted.
    #[inline]
    pub(super) fn token(&mut self, tok: &str, pos: usize) -> (u32, bool) {
        let types = self.interner.len();
        let id = self.add_type(tok);
        let i = id as usize;
        if (pos as u32) < self.lowest[i] {
            self.lowest[i] = pos as u32;
            self.firsts[i].push((self.text.sequences, pos as u32));
        }
        (id, i == types)
    }

    /// The id of the type `tok`, added (with no record lows yet) if it is new.
    #[inline]
    pub(super) fn add_type(&mut self, tok: &str) -> u32 {
        let (id, new) = self.interner.intern(tok);
        if new {
            self.firsts.push(Vec::new());
            self.lowest.push(u32::MAX);
        }
        id
    }

    /// Approximate bytes held: the record lows (as [`CountsTable::memory_bytes`] counts
    /// them, and the lowest positions) and the interner.
    pub(super) fn memory_bytes(&self) -> u64 {
        super::table::memory_of(0, &self.firsts, &[]) + self.lowest.len() as u64 * 4 + self.interner.memory_bytes()
    }
}

/// One reader's tallies over a contiguous run of sequences, numbered from 0.
pub(super) struct Tallies<'t> {
    tokenizer: &'t Tokenizer,
    max_len: usize,
    reader: Reader,
    pairs: PairCounts,
}

impl<'t> Tallies<'t> {
    pub(super) fn new(tokenizer: &'t Tokenizer, max_len: usize) -> Self {
        Tallies { tokenizer, max_len, reader: Reader::new(max_len), pairs: PairCounts::new(max_len) }
    }

    /// Reads the next sequences; `progress` receives the fraction of them read.
    pub(super) fn read<S: AsRef<str>>(&mut self, seqs: &[S], progress: &mut dyn FnMut(f64)) {
        let total = seqs.len().max(1);
        let tokenizer = self.tokenizer;
        for (k, seq) in seqs.iter().enumerate() {
            let mut pos = 0usize;
            tokenizer.for_each_token(seq.as_ref(), self.max_len, |tok| {
                let (id, new) = self.reader.token(tok, pos);
                if new {
                    self.pairs.announce(id as usize + 1);
                }
                self.pairs.push(pos, id);
                pos += 1;
            });
            self.reader.text.record_length(pos);
            if k % 4096 == 4095 {
                progress(k as f64 / total as f64);
            }
        }
    }

    /// Approximate bytes held: the reader's, and the pair counts' cells, buffer and flat
    /// table.
    fn memory_bytes(&self) -> u64 {
        self.reader.memory_bytes() + self.pairs.memory_bytes()
    }

    /// The table of what was read.
    pub(super) fn into_table(self) -> CountsTable {
        let Reader { interner, firsts, text, .. } = self.reader;
        CountsTable { types: interner.into_types(), cells: self.pairs.into_cells(), firsts, text: Some(text) }
    }
}

/// Counts sequences into a table: natively on every core when there are enough of them
/// ([`super::parallel`]: the same table a single reader produces, byte for byte); in wasm
/// on the calling thread.
pub(super) fn count_sequences<S: AsRef<str> + Sync>(
    seqs: &[S],
    tokenizer: &Tokenizer,
    max_len: usize,
    progress: &mut dyn FnMut(f64),
) -> CountsTable {
    #[cfg(not(target_arch = "wasm32"))]
    if let Some(table) = super::parallel::count(seqs, tokenizer, max_len, progress) {
        return table;
    }
    let mut t = Tallies::new(tokenizer, max_len);
    t.read(seqs, progress);
    t.into_table()
}

/// A stream's running count, batch after batch. Natively each batch is counted on every core
/// and its table appended (batches are large, so appends are few); in wasm (one thread, small
/// batches) one reader's tallies go on across batches, because appending every batch's table
/// would sort and merge the whole running table again every few MB. Both give the table a
/// single reader of the whole text gives, byte for byte.
pub(super) enum StreamTally<'t> {
    /// One reader across batches.
    OneReader { tallies: Box<Tallies<'t>>, batches: usize },
    /// Each batch's table appended.
    Appended { table: Option<CountsTable>, tokenizer: &'t Tokenizer, max_len: usize },
}

impl<'t> StreamTally<'t> {
    /// The running count this target uses.
    pub(super) fn new(tokenizer: &'t Tokenizer, max_len: usize) -> Self {
        if cfg!(target_arch = "wasm32") {
            Self::one_reader(tokenizer, max_len)
        } else {
            StreamTally::Appended { table: None, tokenizer, max_len }
        }
    }

    /// One reader's tallies across batches.
    pub(super) fn one_reader(tokenizer: &'t Tokenizer, max_len: usize) -> Self {
        StreamTally::OneReader { tallies: Box::new(Tallies::new(tokenizer, max_len)), batches: 0 }
    }

    /// Counts the next batch of sequences.
    pub(super) fn add(&mut self, batch: &[String]) {
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
    /// bytes). One reader's keys not yet merged are merged first, so the figures are exact
    /// and a count the merge brings back under budget goes on.
    pub(super) fn over(&mut self, budget: u64) -> Option<(usize, u64)> {
        match self {
            StreamTally::OneReader { tallies, .. } => {
                if tallies.memory_bytes() <= budget {
                    return None;
                }
                tallies.pairs.settle();
                let used = tallies.memory_bytes();
                (used > budget).then_some((tallies.pairs.merged.len(), used))
            }
            StreamTally::Appended { table, .. } => {
                let (cells, used) = table.as_ref().map_or((0, 0), |t| (t.cells.len(), t.memory_bytes()));
                (used > budget).then_some((cells, used))
            }
        }
    }

    /// The table, or `None` when no batch came.
    pub(super) fn finish(self) -> Option<CountsTable> {
        match self {
            StreamTally::OneReader { batches: 0, .. } => None,
            StreamTally::OneReader { tallies, .. } => Some(tallies.into_table()),
            StreamTally::Appended { table, .. } => table,
        }
    }
}
