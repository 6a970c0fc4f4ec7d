//! Counting's inner loop: the token interner and the (position, type) pair counts of one
//! reader over a run of sequences, and how two readers' tallies are joined.

use super::CountParams;
use rustc_hash::FxHashMap;

/// Tokens buffered before a sort-and-merge into the running (position, type) counts.
const CHUNK: usize = 1 << 22;

/// Sorted, run-length counts of (position << 32 | type id) keys: memory proportional to the
/// distinct (position, type) pairs plus one chunk of keys.
#[derive(Default)]
pub(super) struct PairCounts {
    merged: Vec<(u64, u64)>,
    buffer: Vec<u64>,
}

impl PairCounts {
    pub(super) fn push(&mut self, pos: usize, id: u32) {
        self.buffer.push((pos as u64) << 32 | id as u64);
        if self.buffer.len() >= CHUNK {
            self.flush();
        }
    }

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
        self.merge(runs);
    }

    /// Merges sorted runs with distinct keys into the running counts.
    pub(super) fn merge(&mut self, runs: Vec<(u64, u64)>) {
        if self.merged.is_empty() {
            self.merged = runs;
            return;
        }
        let old = std::mem::take(&mut self.merged);
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
                    out.push((old[a].0, old[a].1 + runs[b].1));
                    a += 1;
                    b += 1;
                }
            }
        }
        out.extend_from_slice(&old[a..]);
        out.extend_from_slice(&runs[b..]);
        self.merged = out;
    }

    /// Rows (type id, count) for positions 0..n, each sorted by id.
    pub(super) fn rows(mut self, n: usize) -> Vec<Vec<(u32, u64)>> {
        self.flush();
        let mut rows = vec![Vec::new(); n];
        for (key, c) in self.merged {
            let pos = (key >> 32) as usize;
            if pos >= n {
                break;
            }
            rows[pos].push((key as u32, c));
        }
        rows
    }
}

/// One reader's tallies over a contiguous run of sequences.
#[derive(Default)]
pub(super) struct Tallies {
    /// Keys up to 24 bytes live inline in the table: one cache line per lookup.
    interner: FxHashMap<compact_str::CompactString, u32>,
    pub(super) types: Vec<String>,
    /// Per type, its occurrences (sequence, position) with strictly decreasing positions:
    /// the first occurrence among positions < n is the first entry with position < n.
    pub(super) firsts: Vec<Vec<(u32, u32)>>,
    /// The last position pushed to `firsts[id]` (flat, so the common case is one load).
    lowest: Vec<u32>,
    pub(super) pairs: PairCounts,
    pub(super) lengths: Vec<u32>,
}

impl Tallies {
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

    /// Reads sequences numbered from `offset`.
    pub(super) fn read(&mut self, seqs: &[String], offset: usize, params: &CountParams, progress: &mut dyn FnMut(f64)) {
        let total = seqs.len().max(1);
        for (k, seq) in seqs.iter().enumerate() {
            let s = (offset + k) as u32;
            let mut pos = 0usize;
            params.tokenizer.for_each_token(seq, params.max_len, |tok| {
                let id = self.id(tok) as usize;
                if (pos as u32) < self.lowest[id] {
                    self.lowest[id] = pos as u32;
                    self.firsts[id].push((s, pos as u32));
                }
                self.pairs.push(pos, id as u32);
                pos += 1;
            });
            self.lengths.push(pos as u32);
            if k % 4096 == 4095 {
                progress(k as f64 / total as f64);
            }
        }
    }

    /// Appends the tallies of the sequences that follow this reader's.
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    pub(super) fn absorb(&mut self, mut other: Tallies) {
        other.pairs.flush();
        let mut remap = Vec::with_capacity(other.types.len());
        for (local, name) in other.types.iter().enumerate() {
            let g = self.id(name) as usize;
            // Later sequences' occurrences come after ours: "first entry with position < n"
            // still finds the earliest one.
            let later = std::mem::take(&mut other.firsts[local]);
            self.firsts[g].extend(later);
            self.lowest[g] = self.lowest[g].min(other.lowest[local]);
            remap.push(g as u64);
        }
        let mut runs: Vec<(u64, u64)> =
            other.pairs.merged.iter().map(|&(k, c)| ((k >> 32) << 32 | remap[k as u32 as usize], c)).collect();
        runs.sort_unstable();
        self.pairs.flush();
        self.pairs.merge(runs);
        self.lengths.extend(other.lengths);
    }
}
