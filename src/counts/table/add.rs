//! Adding two tables' cells (`CountsTable::append` and `union`): the cells c_i(w) of this
//! table and another's, whose type ids are first mapped into this table's vocabulary, added
//! where they meet (counts of disjoint parts of a corpus add), sorted by the key
//! `position << 32 | type id`.
//!
//! Both runs are sorted by position, so they are added one position at a time. At a position
//! where the two hold many cells for the vocabulary's size, the cells are added in one counter
//! per type with one bit per type set on the way, and read back in id order through the set
//! bits (as a position is counted, `counts::parallel`); elsewhere the other table's cells,
//! reordered by the new ids, are sorted and merged. Nothing is copied before it is added.

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
        for (word, bits) in self.seen.iter_mut().enumerate() {
            let mut b = std::mem::take(bits);
            while b != 0 {
                let id = word * 64 + b.trailing_zeros() as usize;
                b &= b - 1;
                out.push((key | id as u64, std::mem::take(&mut self.counters[id])));
            }
        }
    }
}

/// Pushes the merge of two runs sorted by key (distinct keys within each) to `out`, adding
/// the counts of equal keys.
fn merge_into(a: &[(u64, u64)], b: &[(u64, u64)], out: &mut Vec<(u64, u64)>) {
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

#[cfg(test)]
mod tests {
    use super::add_cells;
    use proptest::prelude::*;

    /// Sorted cells with distinct keys from (position, id, count) triples.
    fn cells(raw: &[(u8, u16, u64)], ids: usize) -> Vec<(u64, u64)> {
        let mut m = std::collections::BTreeMap::new();
        for &(p, id, c) in raw {
            m.insert(u64::from(p) << 32 | (id as usize % ids) as u64, c);
        }
        m.into_iter().collect()
    }

    proptest! {
        /// The sum, cell by cell, of the two tables' counts (an independent map), whichever
        /// way each position is added: vocabularies from a few types (every position dense)
        /// to many (every position sorted), the other table's ids permuted into them.
        #[test]
        fn the_cells_added_are_the_sums_by_key(
            mine in proptest::collection::vec((0u8..6, any::<u16>(), 1u64..5), 0..60),
            theirs in proptest::collection::vec((0u8..6, any::<u16>(), 1u64..5), 0..60),
            types in prop_oneof![1usize..8, 8usize..200, 5_000usize..20_000],
            shift in any::<usize>(),
        ) {
            let (mine, theirs) = (cells(&mine, types), cells(&theirs, types));
            // A permutation of the ids: the other table's own order of first occurrence.
            let remap: Vec<u64> = (0..types).map(|i| ((i * 7 + shift) % types) as u64).collect();
            let remap: Vec<u64> = if types % 7 == 0 { (0..types as u64).rev().collect() } else { remap };
            let mut want = std::collections::BTreeMap::new();
            for &(k, c) in &mine {
                *want.entry(k).or_insert(0u64) += c;
            }
            for &(k, c) in &theirs {
                *want.entry((k >> 32) << 32 | remap[k as u32 as usize]).or_insert(0u64) += c;
            }
            let want: Vec<(u64, u64)> = want.into_iter().collect();
            prop_assert_eq!(add_cells(mine, &theirs, &remap, types), want);
        }
    }

    #[test]
    fn counts_saturate_instead_of_wrapping() {
        let big = vec![(5u64, u64::MAX - 1)];
        for types in [6, 100_000] {
            assert_eq!(add_cells(big.clone(), &[(5, 3)], &[0, 1, 2, 3, 4, 5], types), [(5, u64::MAX)]);
        }
    }
}
