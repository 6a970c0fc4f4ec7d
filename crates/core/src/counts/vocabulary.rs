//! The vocabulary V of the kept positions: types in order of first occurrence, or the
//! `top_k` most frequent (ties by first occurrence) with the rest merged into `<other>`;
//! and the count rows renumbered to it.

use super::OTHER;

/// Each type's rank in first-occurrence order among the kept positions (`u32::MAX` for
/// types not seen there). The key is the type's first record low (sequence, position) at a
/// kept position; a type without one (a table without `first` keys) comes after those that
/// have one, by its lowest kept position, then by its UTF-8 bytes.
pub(super) fn first_occurrence_order<'a>(
    raw_rows: &[Vec<(u32, u64)>],
    n_types: usize,
    lows: impl Fn(u32) -> &'a [(u64, u32)],
    name: impl Fn(u32) -> &'a str,
) -> Vec<u32> {
    let n = raw_rows.len() as u32;
    let mut lowest = vec![u32::MAX; n_types];
    for (pos, row) in raw_rows.iter().enumerate() {
        for &(id, _) in row {
            let l = &mut lowest[id as usize];
            *l = (*l).min(pos as u32);
        }
    }
    let mut seen: Vec<(u64, u32, u32)> = (0..n_types as u32)
        .filter(|&id| lowest[id as usize] < n)
        .map(|id| {
            let (s, p) = lows(id).iter().find(|&&(_, p)| p < n).copied().unwrap_or((u64::MAX, lowest[id as usize]));
            (s, p, id)
        })
        .collect();
    seen.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)).then_with(|| name(a.2).cmp(name(b.2))));
    let mut rank = vec![u32::MAX; n_types];
    for (r, &(_, _, id)) in seen.iter().enumerate() {
        rank[id as usize] = r as u32;
    }
    rank
}

/// The vocabulary and the map from reader ids to its ids. `first[id]` is the type's rank in
/// first-occurrence order ([`first_occurrence_order`]); `name` names a reader id.
pub(super) fn vocabulary(
    raw_rows: &[Vec<(u32, u64)>],
    first: &[u32],
    top_k: Option<usize>,
    name: impl Fn(u32) -> String,
) -> (Vec<String>, Vec<u32>) {
    let n_types = first.len();
    // Frequencies over the kept positions.
    let mut freq = vec![0u64; n_types];
    for row in raw_rows {
        for &(id, c) in row {
            freq[id as usize] += c;
        }
    }
    let mut seen: Vec<u32> = (0..n_types as u32).filter(|&id| freq[id as usize] > 0).collect();
    seen.sort_by_key(|&id| first[id as usize]);
    let keep: Vec<u32> = match top_k {
        Some(k) if k < seen.len() => {
            let mut by_freq = seen.clone();
            by_freq.sort_by_key(|&id| (std::cmp::Reverse(freq[id as usize]), first[id as usize]));
            let mut kept: Vec<u32> = by_freq[..k].to_vec();
            kept.sort_by_key(|&id| first[id as usize]);
            kept
        }
        _ => seen.clone(),
    };
    let mut remap = vec![u32::MAX; n_types];
    let mut vocab: Vec<String> = Vec::new();
    for &id in &keep {
        remap[id as usize] = vocab.len() as u32;
        vocab.push(name(id));
    }
    if keep.len() < seen.len() {
        let other = vocab.len() as u32;
        vocab.push(OTHER.to_string());
        for &id in &seen {
            if remap[id as usize] == u32::MAX {
                remap[id as usize] = other;
            }
        }
    }
    (vocab, remap)
}

/// The rows in vocabulary ids (sorted, merged types summed) and the tokens they count.
/// Each row on its own ([`crate::par`]: the rows side by side natively).
pub(super) fn renumber(mut rows: Vec<Vec<(u32, u64)>>, remap: &[u32]) -> (Vec<Vec<(u32, u64)>>, u64) {
    // Where every type seen keeps its id (a text's table with every counted position kept and
    // no type merged: ids are given in first-occurrence order), the rows are already
    // renumbered.
    let unchanged = remap.iter().enumerate().all(|(id, &to)| to == id as u32 || to == u32::MAX);
    if !unchanged {
        crate::par::for_each(rows.iter_mut().collect(), |row: &mut Vec<(u32, u64)>| {
            row.iter_mut().for_each(|cell| cell.0 = remap[cell.0 as usize]);
            row.sort_unstable_by_key(|&(id, _)| id);
            row.dedup_by(|b, a| {
                if a.0 == b.0 {
                    a.1 += b.1;
                    true
                } else {
                    false
                }
            });
        });
    }
    let tokens = rows.iter().flatten().map(|&(_, c)| c).sum();
    (rows, tokens)
}
