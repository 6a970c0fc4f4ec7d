//! The running (position, type) pair counts c_i(w) of one reader (SPEC §2): the cells of a
//! [`CountsTable`](super::table::CountsTable), sorted by the key `position << 32 | type id`.
//!
//! Two stores, one result. Type ids are given in order of first occurrence, so the low ids
//! are the frequent types (a corpus's most common words occur early). Ids below
//! [`PairCounts::dense_ids`] are counted in a flat table, one row of `max_len` counters per
//! type: one increment per token, and the rows of the common types stay in cache. The other
//! ids' keys are buffered, sorted and run-length merged, in memory proportional to their
//! distinct pairs. The cells are the same whichever store counted a pair: the flat table is
//! spilled into the sorted cells, adding counts of equal keys ([`merge_sorted`]).

/// Keys buffered before a sort-and-merge into the sorted cells.
const CHUNK: usize = 1 << 22;

/// Counters in the flat table (4 MB of u32): `max_len` per densely counted type.
const DENSE_CELLS: usize = 1 << 20;

/// Merges two runs sorted by key with distinct keys each, adding the counts of equal keys.
pub(super) fn merge_sorted(old: Vec<(u64, u64)>, runs: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    if old.is_empty() {
        return runs;
    }
    if runs.is_empty() {
        return old;
    }
    let mut out = Vec::with_capacity(old.len() + runs.len());
    merge_into(&old, &runs, &mut out);
    out
}

/// Calls `f` with the index of every bit set in `seen`, in increasing order, clearing them:
/// the types a position's counters saw, read back in id order.
#[inline]
pub(super) fn drain_set_bits(seen: &mut [u64], mut f: impl FnMut(usize)) {
    for (word, bits) in seen.iter_mut().enumerate() {
        let mut b = std::mem::take(bits);
        while b != 0 {
            f(word * 64 + b.trailing_zeros() as usize);
            b &= b - 1;
        }
    }
}

/// Pushes the merge of two runs sorted by key (distinct keys within each) to `out`, adding
/// the counts of equal keys (saturating).
pub(super) fn merge_into(a: &[(u64, u64)], b: &[(u64, u64)], out: &mut Vec<(u64, u64)>) {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].0.cmp(&b[j].0) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push((a[i].0, a[i].1.saturating_add(b[j].1)));
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
}

/// One reader's (position, type) counts: a flat table for the first ids, sorted runs for
/// the rest.
pub(super) struct PairCounts {
    /// The first position counted.
    base: usize,
    /// Positions per flat row (from `base`).
    positions: usize,
    /// Ids below this are counted in `dense`.
    dense_ids: u32,
    /// `dense[id * positions + pos]`, for the ids seen so far below `dense_ids`.
    dense: Vec<u32>,
    /// Tokens counted into `dense` since it was last spilled; a spill comes before any
    /// counter could pass `spill_at`.
    dense_tokens: u64,
    spill_at: u64,
    /// Distinct keys with their counts, sorted.
    pub(super) merged: Vec<(u64, u64)>,
    buffer: Vec<u64>,
}

impl PairCounts {
    /// Counts for positions below `positions`.
    pub(super) fn new(positions: usize) -> Self {
        Self::for_positions(0..positions)
    }

    /// Counts for the positions of `range` only.
    pub(super) fn for_positions(range: std::ops::Range<usize>) -> Self {
        let dense_ids = (DENSE_CELLS / range.len().max(1)).min(u32::MAX as usize) as u32;
        Self::with_dense(range, dense_ids, u32::MAX as u64)
    }

    fn with_dense(range: std::ops::Range<usize>, dense_ids: u32, spill_at: u64) -> Self {
        PairCounts {
            base: range.start,
            positions: range.len().max(1),
            dense_ids,
            dense: Vec::new(),
            dense_tokens: 0,
            spill_at,
            merged: Vec::new(),
            buffer: Vec::new(),
        }
    }

    /// Makes room for the type ids below `types` (ids come in order 0, 1, 2, …).
    pub(super) fn announce(&mut self, types: usize) {
        let rows = types.min(self.dense_ids as usize);
        if rows * self.positions > self.dense.len() {
            self.dense.resize(rows * self.positions, 0);
        }
    }

    /// Counts one token of type `id` (below the types announced) at `pos` (in the range).
    #[inline]
    pub(super) fn push(&mut self, pos: usize, id: u32) {
        if id < self.dense_ids {
            self.dense[id as usize * self.positions + (pos - self.base)] += 1;
            self.dense_tokens += 1;
            if self.dense_tokens >= self.spill_at {
                self.spill();
            }
        } else {
            self.buffer.push((pos as u64) << 32 | id as u64);
            if self.buffer.len() >= CHUNK {
                self.flush();
            }
        }
    }

    /// Sorts and merges the buffered keys into the sorted cells.
    pub(super) fn flush(&mut self) {
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

    /// Moves the flat table's counts into the sorted cells (and zeroes it). The table is read
    /// twice in memory order: once to count each position's cells, once to write each cell to
    /// its place (ids ascend within a position, as the keys do).
    fn spill(&mut self) {
        if self.dense.is_empty() {
            return;
        }
        let p = self.positions;
        let mut next = vec![0usize; p];
        for row in self.dense.chunks_exact(p) {
            for (n, &c) in next.iter_mut().zip(row) {
                *n += usize::from(c > 0);
            }
        }
        let mut total = 0;
        for n in next.iter_mut() {
            (*n, total) = (total, total + *n);
        }
        let mut runs = vec![(0u64, 0u64); total];
        for (id, row) in self.dense.chunks_exact_mut(p).enumerate() {
            for (pos, c) in row.iter_mut().enumerate().filter(|(_, c)| **c > 0) {
                let key = ((self.base + pos) as u64) << 32 | id as u64;
                runs[next[pos]] = (key, u64::from(std::mem::take(c)));
                next[pos] += 1;
            }
        }
        self.dense_tokens = 0;
        self.merged = merge_sorted(std::mem::take(&mut self.merged), runs);
    }

    /// Every count in the sorted cells: the buffer flushed and the flat table spilled.
    pub(super) fn settle(&mut self) {
        self.flush();
        self.spill();
    }

    /// Bytes held: the cells (16 each), the buffered keys (8) and the flat table (4).
    pub(super) fn memory_bytes(&self) -> u64 {
        self.merged.len() as u64 * 16 + self.buffer.len() as u64 * 8 + self.dense.len() as u64 * 4
    }

    /// The sorted cells.
    pub(super) fn into_cells(mut self) -> Vec<(u64, u64)> {
        self.settle();
        self.merged
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// Pseudo-random (position, id) tokens, ids in first-occurrence order.
    fn tokens(seed: u64, count: usize, positions: usize, types: u32) -> Vec<(usize, u32)> {
        let mut x = seed;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut seen = 0u32;
        (0..count)
            .map(|_| {
                let id = ((next() % u64::from(types)) as u32).min(seen);
                seen = seen.max(id + 1);
                ((next() % positions as u64) as usize, id)
            })
            .collect()
    }

    #[test]
    fn both_stores_give_the_direct_count_whatever_the_split_and_spills() {
        for (seed, positions, types) in [(1, 7, 40), (2, 1, 5), (3, 30, 500), (4, 12, 3)] {
            let toks = tokens(seed, 3000, positions, types);
            let mut direct: BTreeMap<u64, u64> = BTreeMap::new();
            for &(p, id) in &toks {
                *direct.entry((p as u64) << 32 | id as u64).or_default() += 1;
            }
            let direct: Vec<(u64, u64)> = direct.into_iter().collect();
            for (dense_ids, spill_at) in [(0, u64::MAX), (4, 97), (types / 2, 1), (u32::MAX, 1000), (u32::MAX, 3)] {
                let mut pairs = PairCounts::with_dense(0..positions, dense_ids, spill_at);
                for &(p, id) in &toks {
                    pairs.announce(id as usize + 1);
                    pairs.push(p, id);
                }
                assert_eq!(pairs.into_cells(), direct, "seed {seed}, dense below {dense_ids}, spill at {spill_at}");
                // Position ranges counted apart give the whole, concatenated.
                let cut = positions / 3;
                let mut halves = [
                    PairCounts::with_dense(0..cut, dense_ids, spill_at),
                    PairCounts::with_dense(cut..positions, dense_ids / 2, spill_at),
                ];
                for &(p, id) in &toks {
                    let h = &mut halves[usize::from(p >= cut)];
                    h.announce(id as usize + 1);
                    h.push(p, id);
                }
                let [a, b] = halves;
                assert_eq!([a.into_cells(), b.into_cells()].concat(), direct, "cut at {cut}");
            }
        }
    }

    #[test]
    fn the_flat_table_is_bounded_and_counted_in_memory() {
        let mut pairs = PairCounts::new(512);
        assert_eq!(pairs.dense_ids, 2048);
        pairs.announce(3000);
        assert_eq!(pairs.memory_bytes(), (DENSE_CELLS * 4) as u64, "4 MB, whatever the types");
        pairs.push(3, 2999);
        pairs.push(3, 0);
        pairs.settle();
        assert_eq!(pairs.merged, [(3 << 32, 1), (3 << 32 | 2999, 1)]);
        assert_eq!(PairCounts::new(1 << 21).dense_ids, 0, "positions beyond the table: all sorted");
    }
}
