//! Adding two tables' cells (`CountsTable::append` and `union`): the cells c_i(w) of this
//! table and another's, whose type ids are first mapped into this table's vocabulary, added
//! where they meet (counts of disjoint parts of a corpus add), sorted by the key
//! `position << 32 | type id`.
//!
//! Both runs are sorted by position, so they are added one position at a time. At a position
//! where the two hold many cells for the vocabulary's size, the cells are added in one counter
//! per type with one bit per type set on the way, and read back in id order through the set
//! bits (as a position is counted, `counts::positions`); elsewhere the other table's cells,
//! reordered by the new ids, are sorted and merged. Nothing is copied before it is added.

use super::super::pairs::{drain_set_bits, merge_into};

/// Where the two runs hold fewer cells than 1/64 of the types at a position, they are sorted
/// and merged instead of counted in one counter per type.
const DENSE_FROM: usize = 64;

/// `mine` (sorted by key, distinct keys) and `theirs` (sorted by key, distinct keys, whose ids
/// `remap` maps into a vocabulary of `types` types) added, sorted by key. Counts saturate.
pub(super) fn add_cells(mine: Vec<(u64, u64)>, theirs: &[(u64, u64)], remap: &[u64], types: usize) -> Vec<(u64, u64)> {
    if theirs.is_empty() {
        return mine;
    }
    let mut out = Vec::with_capacity(mine.len() + theirs.len());
    let mut dense = Dense::default();
    let mut sparse: Vec<(u64, u64)> = Vec::new();
    let (mut a, mut b) = (&mine[..], theirs);
    while !a.is_empty() || !b.is_empty() {
        let position = match (a.first(), b.first()) {
            (Some(x), Some(y)) => (x.0 >> 32).min(y.0 >> 32),
            (Some(x), None) => x.0 >> 32,
            (None, Some(y)) => y.0 >> 32,
            (None, None) => break,
        };
        let (here_a, rest_a) = a.split_at(a.partition_point(|c| c.0 >> 32 == position));
        let (here_b, rest_b) = b.split_at(b.partition_point(|c| c.0 >> 32 == position));
        (a, b) = (rest_a, rest_b);
        let key = position << 32;
        let mapped = here_b.iter().map(|&(k, c)| (key | remap[k as u32 as usize], c));
        if here_b.is_empty() {
            out.extend_from_slice(here_a);
        } else if types <= DENSE_FROM * (here_a.len() + here_b.len()) {
            dense.add(key, here_a.iter().copied().chain(mapped), types, &mut out);
        } else {
            sparse.clear();
            sparse.extend(mapped);
            sparse.sort_unstable();
            // (A vocabulary's ids map to distinct ids; equal keys are added all the same.)
            sparse.dedup_by(|later, kept| {
                let same = later.0 == kept.0;
                if same {
                    kept.1 = kept.1.saturating_add(later.1);
                }
                same
            });
            merge_into(here_a, &sparse, &mut out);
        }
    }
    out
}

/// One counter and one bit per type, reused from position to position.
#[derive(Default)]
struct Dense {
    counters: Vec<u64>,
    seen: Vec<u64>,
}

impl Dense {
    /// Adds `cells` (all of one position, whose key bits are `key`) and pushes their sums to
    /// `out` in id order; leaves every counter and bit at zero.
    fn add(&mut self, key: u64, cells: impl Iterator<Item = (u64, u64)>, types: usize, out: &mut Vec<(u64, u64)>) {
        self.counters.resize(types, 0);
        self.seen.resize(types.div_ceil(64), 0);
        for (k, c) in cells {
            let id = k as u32 as usize;
            self.counters[id] = self.counters[id].saturating_add(c);
            self.seen[id / 64] |= 1 << (id % 64);
        }
        let counters = &mut self.counters;
        drain_set_bits(&mut self.seen, |id| out.push((key | id as u64, std::mem::take(&mut counters[id]))));
    }
}

#[cfg(test)]
mod tests {
    use super::add_cells;
    use std::collections::BTreeMap;

    /// Sorted cells with distinct keys: up to `len` random (position < 6, id < `ids`) keys
    /// with counts 1..5, from the xorshift state `x`.
    fn cells(x: &mut u64, len: usize, ids: usize) -> Vec<(u64, u64)> {
        let mut m = BTreeMap::new();
        for _ in 0..len {
            let r = next(x);
            m.insert(((r % 6) << 32) | ((r >> 8) % ids as u64), 1 + (r >> 40) % 4);
        }
        m.into_iter().collect()
    }

    fn next(x: &mut u64) -> u64 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x
    }

    /// The sum, cell by cell, of the two tables' counts (an independent map), whichever way
    /// each position is added: vocabularies from a few types (every position dense) to many
    /// (every position sorted), the other table's ids permuted into them, into a larger
    /// vocabulary, or (as no vocabulary does) two of them onto one.
    #[test]
    fn the_cells_added_are_the_sums_by_key() {
        let mut x = 0x9e37_79b9_7f4a_7c15;
        for case in 0..3000 {
            let types = [1 + case % 7, 8 + case % 190, 5_000 + case][case % 3];
            let (mine, theirs) = (cells(&mut x, case % 61, types), cells(&mut x, case % 53, types));
            let shift = next(&mut x) as usize;
            let remap: Vec<u64> = match case % 4 {
                0 => (0..types as u64).rev().collect(),
                1 => (0..types).map(|i| ((i + shift) % types) as u64).collect(),
                2 => (0..types).map(|i| (i / 2) as u64).collect(),
                _ => (0..types).map(|i| (i * 3 + 1) as u64).collect(),
            };
            let total = remap.iter().max().map_or(types, |&m| types.max(m as usize + 1));
            let mut want = BTreeMap::new();
            for &(k, c) in &mine {
                *want.entry(k).or_insert(0u64) += c;
            }
            for &(k, c) in &theirs {
                *want.entry(((k >> 32) << 32) | remap[k as u32 as usize]).or_insert(0u64) += c;
            }
            let want: Vec<(u64, u64)> = want.into_iter().collect();
            assert_eq!(add_cells(mine, &theirs, &remap, total), want, "case {case}");
        }
    }

    #[test]
    fn counts_saturate_instead_of_wrapping() {
        let big = vec![(5u64, u64::MAX - 1)];
        for types in [6, 100_000] {
            assert_eq!(add_cells(big.clone(), &[(5, 3)], &[0, 1, 2, 3, 4, 5], types), [(5, u64::MAX)]);
            let two = [(3, u64::MAX - 1), (4, 5)];
            assert_eq!(add_cells(Vec::new(), &two, &[0, 1, 2, 3, 3], types), [(3, u64::MAX)], "onto one id");
        }
    }
}
