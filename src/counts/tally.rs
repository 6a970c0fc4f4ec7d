//! Counting's inner loop: one reader's tallies over a run of sequences — the token interner,
//! the (position, type) pair counts, each type's record lows and the length histogram —
//! turned into a [`CountsTable`] that later runs are appended to.

use super::table::{CountsTable, TextTally};
use crate::corpus::tokenize::Tokenizer;
use rustc_hash::FxHashMap;

/// Tokens buffered before a sort-and-merge into the running (position, type) counts.
const CHUNK: usize = 1 << 22;

/// Merges two runs sorted by key with distinct keys each, adding the counts of equal keys.
pub(super) fn merge_sorted(old: Vec<(u64, u64)>, runs: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    if old.is_empty() {
        return runs;
    }
    if runs.is_empty() {
        return old;
    }
    let mut out = Vec::with_capacity(old.len() + runs.len());
    let (mut a, mut b) = (0, 0);
    while a < old.len() && b < runs.len() {
        match old[a].0.cmp(&runs[b].0) {
            std::cmp::Ordering::Less => {
                out.push(old[a]);
                a += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(runs[b]);
                b += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push((old[a].0, old[a].1.saturating_add(runs[b].1)));
                a += 1;
                b += 1;
            }
        }
    }
    out.extend_from_slice(&old[a..]);
    out.extend_from_slice(&runs[b..]);
    out
}

/// Sorted, run-length counts of (position << 32 | type id) keys: memory proportional to the
/// distinct (position, type) pairs plus one chunk of keys.
#[derive(Default)]
struct PairCounts {
    merged: Vec<(u64, u64)>,
    buffer: Vec<u64>,
}

impl PairCounts {
    fn push(&mut self, pos: usize, id: u32) {
        self.buffer.push((pos as u64) << 32 | id as u64);
        if self.buffer.len() >= CHUNK {
            self.flush();
        }
    }

    fn flush(&mut self) {
        self.buffer.sort_unstable();
        let mut runs: Vec<(u64, u64)> = Vec::new();
        for &k in &self.buffer {
            match runs.last_mut() {
                Some((key, c)) if *key == k => *c += 1,
                _ => runs.push((k, 1)),
            }
        }
        self.buffer.clear();
        self.merged = merge_sorted(std::mem::take(&mut self.merged), runs);
    }
}

/// One reader's tallies over a contiguous run of sequences, numbered from 0.
pub(super) struct Tallies<'t> {
    tokenizer: &'t Tokenizer,
    max_len: usize,
    /// Keys up to 24 bytes live inline in the table: one cache line per lookup.
    interner: FxHashMap<compact_str::CompactString, u32>,
    types: Vec<String>,
    /// Per type, its record lows (sequence, position): strictly decreasing positions.
    firsts: Vec<Vec<(u64, u32)>>,
    /// The last position pushed to `firsts[id]` (flat, so the common case is one load).
    lowest: Vec<u32>,
    pairs: PairCounts,
    text: TextTally,
}

impl<'t> Tallies<'t> {
    pub(super) fn new(tokenizer: &'t Tokenizer, max_len: usize) -> Self {
        Tallies {
            tokenizer,
            max_len,
            interner: FxHashMap::default(),
            types: Vec::new(),
            firsts: Vec::new(),
            lowest: Vec::new(),
            pairs: PairCounts::default(),
            text: TextTally { lengths: vec![0; max_len + 1], ..TextTally::default() },
        }
    }

    fn id(&mut self, tok: &str) -> u32 {
        match self.interner.get(tok) {
            Some(&id) => id,
            None => {
                let id = self.types.len() as u32;
                self.interner.insert(tok.into(), id);
                self.types.push(tok.to_string());
                self.firsts.push(Vec::new());
                self.lowest.push(u32::MAX);
                id
            }
        }
    }

    /// Reads the next sequences; `progress` receives the fraction of them read.
    pub(super) fn read<S: AsRef<str>>(&mut self, seqs: &[S], progress: &mut dyn FnMut(f64)) {
        let total = seqs.len().max(1);
        let tokenizer = self.tokenizer;
        for (k, seq) in seqs.iter().enumerate() {
            let s = self.text.sequences;
            let mut pos = 0usize;
            tokenizer.for_each_token(seq.as_ref(), self.max_len, |tok| {
                let id = self.id(tok) as usize;
                if (pos as u32) < self.lowest[id] {
                    self.lowest[id] = pos as u32;
                    self.firsts[id].push((s, pos as u32));
                }
                self.pairs.push(pos, id as u32);
                pos += 1;
            });
            self.text.record_length(pos);
            if k % 4096 == 4095 {
                progress(k as f64 / total as f64);
            }
        }
    }

    /// Approximate bytes held: as [`CountsTable::memory_bytes`] counts a table, plus the
    /// interner's copy of the token strings and the buffered keys (8 bytes each).
    fn memory_bytes(&self) -> u64 {
        let interner: u64 = self.types.iter().map(|t| 24 + t.len() as u64).sum();
        super::table::memory_of(self.pairs.merged.len(), &self.firsts, &self.types)
            + self.pairs.buffer.len() as u64 * 8
            + interner
    }

    /// The table of what was read.
    pub(super) fn into_table(mut self) -> CountsTable {
        self.pairs.flush();
        CountsTable { types: self.types, cells: self.pairs.merged, firsts: self.firsts, text: Some(self.text) }
    }
}

/// Corpora with at least this many sequences per reader are split between threads.
#[cfg(not(target_arch = "wasm32"))]
const PER_READER: usize = 4096;

/// Counts sequences into a table: natively on every core (each thread reads a contiguous
/// part, and the parts' tables are appended in order, so the result is the same table a
/// single reader produces, byte for byte); in wasm on the calling thread.
pub(super) fn count_sequences<S: AsRef<str> + Sync>(
    seqs: &[S],
    tokenizer: &Tokenizer,
    max_len: usize,
    progress: &mut dyn FnMut(f64),
) -> CountsTable {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
        let readers = threads.min(seqs.len() / PER_READER).max(1);
        if readers > 1 {
            return count_in_threads(seqs, tokenizer, max_len, readers, progress);
        }
    }
    let mut t = Tallies::new(tokenizer, max_len);
    t.read(seqs, progress);
    t.into_table()
}

#[cfg(not(target_arch = "wasm32"))]
fn count_in_threads<S: AsRef<str> + Sync>(
    seqs: &[S],
    tokenizer: &Tokenizer,
    max_len: usize,
    readers: usize,
    progress: &mut dyn FnMut(f64),
) -> CountsTable {
    let part = seqs.len().div_ceil(readers);
    let mut parts = seqs.chunks(part);
    let first = parts.next().unwrap_or(&[]);
    let (mut table, rest) = std::thread::scope(|scope| {
        let handles: Vec<_> = parts
            .map(|p| {
                scope.spawn(move || {
                    let mut t = Tallies::new(tokenizer, max_len);
                    t.read(p, &mut |_| {});
                    t.into_table()
                })
            })
            .collect();
        let mut t = Tallies::new(tokenizer, max_len);
        t.read(first, progress);
        // A reader thread cannot fail but by panicking; its part is then read here.
        let rest: Vec<CountsTable> = handles
            .into_iter()
            .zip(seqs.chunks(part).skip(1))
            .map(|(h, p)| {
                h.join().unwrap_or_else(|_| {
                    let mut t = Tallies::new(tokenizer, max_len);
                    t.read(p, &mut |_| {});
                    t.into_table()
                })
            })
            .collect();
        (t.into_table(), rest)
    });
    for t in rest {
        table.append(t);
    }
    progress(1.0);
    table
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
                tallies.pairs.flush();
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
