//! The vocabulary V of the kept positions: types in order of first occurrence, or the
//! `top_k` most frequent (ties by first occurrence) with the rest merged into `<other>`;
//! and the count rows renumbered to it.

use super::OTHER;

/// The vocabulary and the map from reader ids to its ids. `first[id]` is the type's first
/// occurrence (sequence, position) among the kept positions; `name` names a reader id.
pub(super) fn vocabulary(
    raw_rows: &[Vec<(u32, u64)>],
    first: &[(u32, u32)],
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
pub(super) fn renumber(raw_rows: Vec<Vec<(u32, u64)>>, remap: &[u32]) -> (Vec<Vec<(u32, u64)>>, u64) {
    let mut tokens = 0;
    let rows = raw_rows
        .into_iter()
        .map(|raw| {
            let mut row: Vec<(u32, u64)> = raw.into_iter().map(|(id, c)| (remap[id as usize], c)).collect();
            row.sort_unstable_by_key(|&(id, _)| id);
            row.dedup_by(|b, a| {
                if a.0 == b.0 {
                    a.1 += b.1;
                    true
                } else {
                    false
                }
            });
            tokens += row.iter().map(|&(_, c)| c).sum::<u64>();
            row
        })
        .collect();
    (rows, tokens)
}
