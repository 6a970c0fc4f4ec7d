//! Sorted cells (docs/MATH.md §2): the (position, type) counts c_i(w) of a
//! [`CountsTable`](super::table::CountsTable), sorted by the key `position << 32 | type id`,
//! merged ([`merge_sorted`], [`merge_into`]: counts of equal keys added), and a position's
//! counters read back in id order through a bitmap of the types seen ([`drain_set_bits`]).

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

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// Two runs of distinct sorted keys merge into the direct count of both, whichever is
    /// empty, and with equal keys added.
    #[test]
    fn merging_adds_equal_keys_and_keeps_the_order() {
        let run = |step: u64, len: u64| -> Vec<(u64, u64)> { (0..len).map(|k| (k * step, k + 1)).collect() };
        for (a, b) in
            [(run(3, 40), run(5, 30)), (run(2, 0), run(7, 9)), (run(1, 12), run(1, 0)), (run(4, 5), run(4, 5))]
        {
            let mut direct: BTreeMap<u64, u64> = BTreeMap::new();
            for &(k, c) in a.iter().chain(&b) {
                *direct.entry(k).or_default() += c;
            }
            let direct: Vec<(u64, u64)> = direct.into_iter().collect();
            assert_eq!(merge_sorted(a.clone(), b.clone()), direct);
        }
    }

    #[test]
    fn set_bits_are_drained_in_increasing_order() {
        let mut seen = vec![0u64; 3];
        for id in [130usize, 0, 63, 64, 129, 5] {
            seen[id / 64] |= 1 << (id % 64);
        }
        let mut ids = Vec::new();
        drain_set_bits(&mut seen, |id| ids.push(id));
        assert_eq!(ids, [0, 5, 63, 64, 129, 130]);
        assert!(seen.iter().all(|&w| w == 0), "cleared");
    }
}
