//! Counting the cells c_i(w) (docs/MATH.md §2) position by position, from token ids already read:
//! one pass groups the tokens by position, a second counts each position's tokens. The
//! one-thread count ([`super::tally`], the browser's) and the every-core count
//! ([`super::parallel`], one range of positions per thread) both count this way.
//!
//! Grouping is one counting sort: position i holds one token of each sequence longer than
//! i. Each position's tokens are then counted in one counter per type, with one bit per type
//! set on the way; the set bits, read a 64-bit word at a time, give the types seen in id
//! order, so reading back costs the types seen rather than every type. Where a position holds
//! fewer than 1/64 as many tokens as there are types they are sorted and run-length counted
//! instead. No key is sorted twice. The cells come out sorted by the key
//! `position << 32 | type id`, as a [`CountsTable`](super::table::CountsTable) holds them.

/// The token ids of a run of sequences, one after another (`ends[s]`: one past sequence
/// s's last token).
#[derive(Default)]
pub(super) struct Tokens {
    pub(super) ids: Vec<u32>,
    pub(super) ends: Vec<usize>,
}

impl Tokens {
    /// The number of sequences of each length 0..=L, where L is the longest length capped at
    /// `max_len` (lengths above it are counted at `max_len`; the readers never store more
    /// tokens than that).
    pub(super) fn lengths(&self, max_len: usize) -> Vec<u64> {
        let longest = self.lengths_iter().max().unwrap_or(0).min(max_len);
        let mut lengths = vec![0u64; longest + 1];
        for len in self.lengths_iter() {
            lengths[len.min(max_len)] += 1;
        }
        lengths
    }

    fn lengths_iter(&self) -> impl Iterator<Item = usize> + '_ {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        self.ends.iter().zip(starts).map(|(&end, start)| end - start)
    }

    /// Bytes held by the two vectors.
    pub(super) fn memory_bytes(&self) -> u64 {
        (self.ids.capacity() * 4 + self.ends.capacity() * std::mem::size_of::<usize>()) as u64
    }

    pub(super) fn clear(&mut self) {
        self.ids.clear();
        self.ends.clear();
    }
}

/// The tokens at each position below `max_len` (`lengths[l]`: sequences of length l):
/// position i holds one token of each sequence longer than i.
pub(super) fn tokens_at(lengths: &[u64], max_len: usize) -> Vec<u64> {
    let mut longer: u64 = lengths.iter().sum();
    (0..max_len)
        .map(|i| {
            longer -= lengths.get(i).copied().unwrap_or(0);
            longer
        })
        .collect()
}

/// Every cell of `tokens`, whose ids are below `types`, at positions below `max_len` (only
/// the positions some sequence reaches are visited).
pub(super) fn count_all(tokens: &Tokens, types: usize, max_len: usize) -> Vec<(u64, u64)> {
    let lengths = tokens.lengths(max_len);
    let positions = lengths.len() - 1;
    let at = tokens_at(&lengths, positions);
    count_range(&[tokens], &[Vec::new()], &at, types, 0..positions)
}

/// The cells of the positions in `range`, over every part of `parts` (`at[i]`: the tokens
/// at position i, every part's; `remaps[p]`: part p's ids' global ids, or empty where they
/// are the global ones; `types`: the global ids' bound).
pub(super) fn count_range(
    parts: &[&Tokens],
    remaps: &[Vec<u32>],
    at: &[u64],
    types: usize,
    range: std::ops::Range<usize>,
) -> Vec<(u64, u64)> {
    let cells = range.len().saturating_mul(types);
    if types > 0 && cells <= DENSE_CELLS && cells as u64 <= 4 * at[range.clone()].iter().sum::<u64>() {
        return count_dense(parts, remaps, types, range);
    }
    let grouped = group_by_position(parts, remaps, &at[range.clone()], range.start);
    // A position holds at most one token per sequence, and the callers count fewer than
    // 2^32 tokens at once (one reader at most 2^23 tokens, or half its cells, between
    // counts; every core fewer than 2^32 sequences), so u32 counters do not overflow. They
    // are made at the first position that uses them.
    let mut counters: Vec<u32> = Vec::new();
    let mut seen: Vec<u64> = Vec::new();
    let (mut cells, mut sorted) = (Vec::new(), Vec::new());
    for (k, w) in grouped.starts.windows(2).enumerate() {
        let tokens = &grouped.ids[w[0]..w[1]];
        let key = ((range.start + k) as u64) << 32;
        if types <= 64 * tokens.len() {
            counters.resize(types, 0);
            seen.resize(types.div_ceil(64), 0);
            for &id in tokens {
                let id = id as usize;
                counters[id] += 1;
                seen[id / 64] |= 1 << (id % 64);
            }
            super::pairs::drain_set_bits(&mut seen, |id| {
                cells.push((key | id as u64, u64::from(std::mem::take(&mut counters[id]))));
            });
        } else {
            sorted.clear();
            sorted.extend_from_slice(tokens);
            sorted.sort_unstable();
            for run in sorted.chunk_by(|a, b| a == b) {
                cells.push((key | u64::from(run[0]), run.len() as u64));
            }
        }
    }
    cells
}

/// Each sequence's tokens at the positions of `range` (the first at `range.start`; sequences
/// too short are skipped), with its part's remap.
fn in_range<'a>(
    parts: &'a [&Tokens],
    remaps: &'a [Vec<u32>],
    range: &'a std::ops::Range<usize>,
) -> impl Iterator<Item = (&'a [u32], &'a [u32])> + 'a {
    parts.iter().zip(remaps).flat_map(move |(part, remap)| {
        let starts = std::iter::once(0).chain(part.ends.iter().copied());
        part.ends.iter().zip(starts).filter_map(move |(&end, start)| {
            let seq = &part.ids[start..end];
            Some((seq.get(range.start..seq.len().min(range.end))?, remap.as_slice()))
        })
    })
}

/// A part's id as a global id (`remap` empty: the part's ids are the global ones).
#[inline(always)]
fn global(remap: &[u32], id: u32) -> u32 {
    if remap.is_empty() {
        id
    } else {
        remap[id as usize]
    }
}

/// The most (position, type) counters [`count_dense`] holds at once (16 MB).
const DENSE_CELLS: usize = 1 << 22;

/// [`count_range`] with one counter per (position, type) of the range, filled straight from
/// the sequences (no grouping copy of the ids) and read back in key order: for a range whose
/// counters are few beside its tokens, as with residues, bases or a small vocabulary.
fn count_dense(parts: &[&Tokens], remaps: &[Vec<u32>], types: usize, range: std::ops::Range<usize>) -> Vec<(u64, u64)> {
    let mut counters = vec![0u32; range.len() * types];
    for (tokens, remap) in in_range(parts, remaps, &range) {
        for (row, &id) in counters.chunks_exact_mut(types).zip(tokens) {
            row[global(remap, id) as usize] += 1;
        }
    }
    let mut cells = Vec::new();
    for (k, row) in counters.chunks_exact(types).enumerate() {
        let key = ((range.start + k) as u64) << 32;
        cells.extend(row.iter().enumerate().filter(|c| *c.1 > 0).map(|(id, &c)| (key | id as u64, u64::from(c))));
    }
    cells
}

/// The tokens of the positions in `range`, position after position (global ids).
struct Grouped {
    /// Position `range.start + k`'s tokens are `ids[starts[k]..starts[k + 1]]`.
    starts: Vec<usize>,
    ids: Vec<u32>,
}

/// Groups the tokens of the positions `from..from + at.len()` (`at[k]`: the tokens at
/// position `from + k`).
fn group_by_position(parts: &[&Tokens], remaps: &[Vec<u32>], at: &[u64], from: usize) -> Grouped {
    let range = from..from + at.len();
    let mut starts = vec![0; at.len() + 1];
    for (k, &a) in at.iter().enumerate() {
        starts[k + 1] = starts[k] + a as usize;
    }
    let mut next = starts.clone();
    let mut ids = vec![0u32; starts[range.len()]];
    for (tokens, remap) in in_range(parts, remaps, &range) {
        for (&id, slot) in tokens.iter().zip(&mut next) {
            ids[*slot] = global(remap, id);
            *slot += 1;
        }
    }
    debug_assert_eq!(next[..range.len()], starts[1..], "every position's tokens counted by the lengths");
    Grouped { starts, ids }
}

#[cfg(test)]
mod tests {
    use super::{count_all, Tokens};

    /// The cells of a few sequences, against a count of (position, id) keys in a map; with
    /// few types (counters) and with many (sorting).
    #[test]
    fn cells_are_the_direct_count_sorted_by_key() {
        for types in [5u32, 5000, 50_000] {
            let mut tokens = Tokens::default();
            let mut direct = std::collections::BTreeMap::new();
            for s in 0..300u32 {
                let len = (s * 7 % 11) as usize;
                for p in 0..len {
                    let id = (s * 31 + p as u32 * 17) % types;
                    tokens.ids.push(id);
                    *direct.entry((p as u64) << 32 | u64::from(id)).or_insert(0u64) += 1;
                }
                tokens.ends.push(tokens.ids.len());
            }
            let want: Vec<(u64, u64)> = direct.into_iter().collect();
            assert_eq!(count_all(&tokens, types as usize, 10), want, "{types} types");
        }
    }
}
