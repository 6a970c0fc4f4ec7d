//! **Counts tables** (docs/MATH.md §2b): everything after counting
//! depends on the corpus only through c_i(w), and counts of disjoint parts of a corpus add.
//!
//! A table is the sparse matrix c_i(w) as rows (`position`, `token`, `count`), plus an
//! optional column `first`: a key that increases with input order (posgeo writes the 0-based
//! index of the first sequence with this token at this position). `first` is what lets a
//! table reproduce the corpus's *first occurrence* order — the vocabulary order, hence the
//! order of every sum, and `top_k`'s tie-break — exactly. It is needed only on a type's
//! *record lows* (the (sequence, position) occurrences at a position lower than any earlier
//! one); posgeo writes it there and leaves it empty elsewhere. Without it, types are ordered
//! by their lowest position, then by the token's UTF-8 bytes.
//!
//! Adding tables: [`CountsTable::append`] adds the table of the text that *follows*
//! (its `first` keys are shifted past this table's), [`CountsTable::union`] adds another file
//! of the *same* table (a Spark/DuckDB output split into parts: keys kept).

use super::{Mode, PAD};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

mod add;
mod io;
pub(crate) use io::MAX_COUNT;
pub use io::{looks_like_table, read_table_bytes, write_csv, TableFormat};

/// What only a count of the text knows (absent from tables read from files): the number of
/// sequences, their lengths (for `<pad>`) and the lines skipped as invalid UTF-8.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TextTally {
    /// Sequences read.
    pub sequences: u64,
    /// `lengths[l]`: sequences of (truncated) length l.
    pub lengths: Vec<u64>,
    /// Record lows of the lengths: (sequence, length), lengths strictly decreasing — where
    /// `<pad>` first occurs at each position.
    pub short: Vec<(u64, u32)>,
    /// Lines skipped as invalid UTF-8 (`lossy`).
    pub skipped_lines: u64,
}

impl TextTally {
    /// Records the next sequence's length.
    pub(super) fn record_length(&mut self, l: usize) {
        if self.short.last().is_none_or(|&(_, m)| (l as u32) < m) {
            self.short.push((self.sequences, l as u32));
        }
        if self.lengths.len() <= l {
            self.lengths.resize(l + 1, 0);
        }
        self.lengths[l] += 1;
        self.sequences += 1;
    }

    pub(super) fn append(&mut self, other: TextTally) {
        let offset = self.sequences;
        let shifted = other.short.into_iter().map(|(s, l)| (s + offset, l));
        self.short = record_lows(self.short.drain(..).chain(shifted).collect());
        if self.lengths.len() < other.lengths.len() {
            self.lengths.resize(other.lengths.len(), 0);
        }
        for (a, b) in self.lengths.iter_mut().zip(other.lengths) {
            *a += b;
        }
        self.sequences += other.sequences;
        self.skipped_lines += other.skipped_lines;
    }
}

/// The occurrences (key, position) that are record lows: sorted by key, keeping each one
/// whose position is lower than every earlier one's.
pub(crate) fn record_lows(mut v: Vec<(u64, u32)>) -> Vec<(u64, u32)> {
    v.sort_unstable();
    let mut low = u32::MAX;
    v.retain(|&(_, p)| {
        let keep = p < low;
        low = low.min(p);
        keep
    });
    v
}

/// The record lows of `mine` followed by `lows` (sequences shifted by `offset`). When every
/// one of `lows` comes after all of `mine` (a table appended after another), the result is
/// `mine` and then those of `lows` below `mine`'s lowest position: no sort, no new buffer.
pub(super) fn join_lows(mut mine: Vec<(u64, u32)>, mut lows: Vec<(u64, u32)>, offset: u64) -> Vec<(u64, u32)> {
    // Record lows' positions fall strictly: `mine`'s lowest is its last.
    match (mine.last().copied(), lows.first()) {
        (_, None) => mine,
        (None, Some(_)) => {
            lows.iter_mut().for_each(|l| l.0 += offset);
            lows
        }
        (Some((s, low)), Some(&(t, _))) if s < t + offset => {
            mine.extend(lows.into_iter().filter(|&(_, p)| p < low).map(|(s, p)| (s + offset, p)));
            mine
        }
        _ => record_lows(mine.into_iter().chain(lows.into_iter().map(|(s, p)| (s + offset, p))).collect()),
    }
}

/// Approximate bytes of `cells` (position, type) counts, the first keys and the token
/// strings ([`CountsTable::memory_bytes`], and the running tallies' estimate).
pub(crate) fn memory_of(cells: usize, firsts: &[Vec<(u64, u32)>], types: &[String]) -> u64 {
    let firsts: u64 = firsts.iter().map(|f| 24 + f.len() as u64 * 16).sum();
    let types: u64 = types.iter().map(|t| 24 + t.len() as u64).sum();
    cells as u64 * 16 + firsts + types
}

/// A counts table in memory.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CountsTable {
    /// Token types, indexed by id.
    pub types: Vec<String>,
    /// (position << 32 | type id, count), sorted by key, every count > 0.
    pub cells: Vec<(u64, u64)>,
    /// Per type: its record lows (first key, position), as [`record_lows`] leaves them.
    pub firsts: Vec<Vec<(u64, u32)>>,
    /// Present when the table was counted from text in this run.
    pub text: Option<TextTally>,
}

/// `<pad>` as mode `pad` adds it to a text tally: its type id (a literal `<pad>` token's, or
/// one past the types), its count per position, and its record lows.
pub struct Pads {
    pub(crate) id: u32,
    pub(crate) counts: Vec<u64>,
    pub(crate) firsts: Vec<(u64, u32)>,
}

impl CountsTable {
    /// An empty table of a count of text (no sequence yet).
    pub fn empty_text(max_len: usize) -> Self {
        CountsTable {
            text: Some(TextTally { lengths: vec![0; max_len + 1], ..TextTally::default() }),
            ..Self::default()
        }
    }

    /// A binary form, to pass a table between Web Workers: the length of the rest (8 bytes),
    /// the types, first keys and text tally (postcard), then the cells as little-endian words
    /// (read and written at the speed of a copy: they are most of a table).
    pub fn to_bytes(&self) -> Vec<u8> {
        let rest = postcard::to_allocvec(&(&self.types, &self.firsts, &self.text)).unwrap_or_default();
        let head = 8 + rest.len();
        let mut out = vec![0u8; head + 16 * self.cells.len()];
        out[..8].copy_from_slice(&(rest.len() as u64).to_le_bytes());
        out[8..head].copy_from_slice(&rest);
        // One fixed-size store per word (no length check per cell).
        for (cell, &(key, count)) in out[head..].chunks_exact_mut(16).zip(&self.cells) {
            cell[..8].copy_from_slice(&key.to_le_bytes());
            cell[8..].copy_from_slice(&count.to_le_bytes());
        }
        out
    }

    /// Reads [`CountsTable::to_bytes`].
    pub fn from_bytes(bytes: &[u8]) -> crate::error::Result<Self> {
        let bad = |e: &dyn std::fmt::Display| {
            crate::error::PosgeoError::BadTable(format!("a worker's counts could not be read ({e})"))
        };
        let (len, bytes) = bytes.split_first_chunk::<8>().ok_or_else(|| bad(&"too short"))?;
        let len = usize::try_from(u64::from_le_bytes(*len)).ok().filter(|&l| l <= bytes.len());
        let (rest, cells) = bytes.split_at(len.ok_or_else(|| bad(&"a wrong length"))?);
        if cells.len() % 16 != 0 {
            return Err(bad(&"cut short"));
        }
        type Rest = (Vec<String>, Vec<Vec<(u64, u32)>>, Option<TextTally>);
        let ((types, firsts, text), left) = postcard::take_from_bytes::<Rest>(rest).map_err(|e| bad(&e))?;
        // Read and checked in one pass. What adding tables relies on: keys strictly
        // increasing, ids within the types.
        let (mut cells_read, mut last, mut ok) = (Vec::with_capacity(cells.len() / 16), None, true);
        for c in cells.chunks_exact(16) {
            let (key, count) = c.split_at(8);
            let key = u64::from_le_bytes(key.try_into().unwrap_or([0; 8]));
            ok &= last.is_none_or(|l| l < key) && ((key as u32 as usize) < types.len());
            last = Some(key);
            cells_read.push((key, u64::from_le_bytes(count.try_into().unwrap_or([0; 8]))));
        }
        let cells = cells_read;
        if !left.is_empty() || !ok || firsts.len() != types.len() {
            return Err(bad(&"inconsistent"));
        }
        Ok(CountsTable { types, cells, firsts, text })
    }

    /// Approximate bytes the table holds (cells, first keys, token strings).
    pub fn memory_bytes(&self) -> u64 {
        memory_of(self.cells.len(), &self.firsts, &self.types)
    }

    /// One past the largest position in the table.
    pub fn positions(&self) -> usize {
        self.cells.last().map_or(0, |&(k, _)| (k >> 32) as usize + 1)
    }

    /// The largest `first` key, if any.
    fn max_first(&self) -> Option<u64> {
        self.firsts.iter().flat_map(|f| f.iter().map(|&(s, _)| s)).max()
    }

    /// Adds the table of the text that follows this one's (keys of `first` shifted past
    /// this table's, so first occurrences keep the order of the concatenated text).
    pub fn append(&mut self, mut other: CountsTable) {
        let offset = match (&self.text, &other.text) {
            (Some(t), Some(_)) => t.sequences,
            _ => self.max_first().map_or(0, |m| m + 1),
        };
        let text = match (self.text.take(), other.text.take()) {
            (Some(mut a), Some(b)) => {
                a.append(b);
                Some(a)
            }
            _ => None,
        };
        // Nothing counted yet and no shift (a text of blank lines has sequences but no
        // types, and shifts what follows): `other` as it is, without remapping its cells.
        if self.types.is_empty() && self.cells.is_empty() && offset == 0 {
            *self = CountsTable { text, ..other };
        } else {
            self.combine(other, offset);
            self.text = text;
        }
    }

    /// Adds another part of the same table (keys of `first` kept as they are).
    pub fn union(&mut self, other: CountsTable) {
        self.combine(other, 0);
        self.text = None;
    }

    fn combine(&mut self, other: CountsTable, offset: u64) {
        let mut remap: Vec<u64> = {
            let index: FxHashMap<&str, u32> =
                self.types.iter().enumerate().map(|(i, t)| (t.as_str(), i as u32)).collect();
            other.types.iter().map(|t| index.get(t.as_str()).map_or(u64::MAX, |&g| g as u64)).collect()
        };
        for (local, name) in other.types.into_iter().enumerate() {
            if remap[local] == u64::MAX {
                remap[local] = self.types.len() as u64;
                self.types.push(name);
                self.firsts.push(Vec::new());
            }
        }
        for (local, lows) in other.firsts.into_iter().enumerate() {
            let g = remap[local] as usize;
            let mine = std::mem::take(&mut self.firsts[g]);
            self.firsts[g] = join_lows(mine, lows, offset);
        }
        self.cells = add::add_cells(std::mem::take(&mut self.cells), &other.cells, &remap, self.types.len());
    }

    /// `<pad>` of mode `pad` for a text tally (files hold their `<pad>` rows themselves), at
    /// every position below the count's `max_len`, so that the tables of parts add up.
    pub(crate) fn pads(&self, mode: Mode) -> Option<Pads> {
        let text = self.text.as_ref().filter(|_| mode == Mode::Pad)?;
        let end = text.lengths.len().saturating_sub(1).max(self.positions());
        let mut counts = vec![0u64; end];
        let mut shorter = 0u64;
        for (i, c) in counts.iter_mut().enumerate() {
            shorter += text.lengths.get(i).copied().unwrap_or(0);
            *c = shorter;
        }
        let literal = self.types.iter().position(|t| t == PAD);
        let id = literal.unwrap_or(self.types.len()) as u32;
        let mut firsts: Vec<(u64, u32)> = text.short.iter().copied().filter(|&(_, l)| (l as usize) < end).collect();
        if let Some(l) = literal {
            firsts = record_lows(firsts.into_iter().chain(self.firsts[l].iter().copied()).collect());
        }
        Some(Pads { id, counts, firsts })
    }

    /// One past the last position of the longest sequence: in mode `pad`, positions beyond it
    /// would be pure `<pad>`. A file's `<pad>` rows do not count (a literal `<pad>` token
    /// ending the longest sequence is the one case this cannot tell).
    pub fn longest(&self, mode: Mode) -> usize {
        if mode == Mode::Condition || self.text.is_some() {
            return self.positions();
        }
        let pad = self.types.iter().position(|t| t == PAD).map(|p| p as u32);
        self.cells.iter().rev().find(|&&(k, _)| Some(k as u32) != pad).map_or(0, |&(k, _)| (k >> 32) as usize + 1)
    }

    /// The rows (type id, count) of positions `0..end`, each sorted by id, with `pads` added.
    /// The cells are sorted by position, so each row is one run of them: the rows are made
    /// side by side ([`crate::par`]), each in one allocation.
    pub(crate) fn rows(&self, end: usize, pads: Option<&Pads>) -> Vec<Vec<(u32, u64)>> {
        let first = |pos: usize| self.cells.partition_point(|&(key, _)| key >> 32 < pos as u64);
        crate::par::map(end, |pos| {
            let cells = &self.cells[first(pos)..first(pos + 1)];
            let mut row = Vec::with_capacity(cells.len() + usize::from(pads.is_some()));
            row.extend(cells.iter().map(|&(key, c)| (key as u32, c)));
            let pad = pads.and_then(|p| Some((p.id, *p.counts.get(pos)?))).filter(|&(_, c)| c > 0);
            if let Some((id, c)) = pad {
                match row.binary_search_by_key(&id, |&(id, _)| id) {
                    Ok(k) => row[k].1 += c,
                    Err(k) => row.insert(k, (id, c)),
                }
            }
            row
        })
    }

    /// N_i for positions `0..end` (pads included).
    pub fn support(&self, end: usize, pads: Option<&Pads>) -> Vec<u64> {
        let mut s = vec![0u64; end];
        // A position's cells are one run (cells are sorted by position): summed in a register.
        for run in self.cells.chunk_by(|a, b| a.0 >> 32 == b.0 >> 32) {
            let pos = (run[0].0 >> 32) as usize;
            if pos >= end {
                break;
            }
            s[pos] = run.iter().fold(s[pos], |sum, &(_, c)| sum.saturating_add(c));
        }
        if let Some(p) = pads {
            for (a, b) in s.iter_mut().zip(&p.counts) {
                *a = a.saturating_add(*b);
            }
        }
        s
    }

    /// The mode a file's table was counted in, as far as it shows: `pad` when it has `<pad>`
    /// rows and every position has the same N_i.
    pub fn counted_mode(&self) -> Mode {
        let has_pad = self
            .types
            .iter()
            .position(|t| t == PAD)
            .is_some_and(|id| self.cells.iter().any(|&(k, _)| k as u32 == id as u32));
        let s = self.support(self.positions(), None);
        if has_pad && s.windows(2).all(|w| w[0] == w[1]) {
            Mode::Pad
        } else {
            Mode::Condition
        }
    }
}

#[cfg(test)]
mod tests;
