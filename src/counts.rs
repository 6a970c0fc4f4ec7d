//! Stage 2 — **positional distributions** μ_i (SPEC §2 in `docs/MATH.md`; the paper's
//! positional measure, §3).
//!
//! * `max_len` caps the positions considered. In `pad` mode positions are further capped at
//!   the longest (truncated) sequence — beyond it every position would be pure `<pad>`.
//! * Mode `condition`: position i counts only sequences of length > i. Mode `pad`: a
//!   sequence shorter than i+1 contributes `<pad>` at position i.
//! * c_i(w) = number of sequences whose token at position i is w; N_i = Σ_w c_i(w).
//! * n = the largest m ≤ cap with N_i ≥ `min_support` for every i < m.
//! * Vocabulary V = every type seen at positions 0..n−1, ordered by first occurrence
//!   (sequence by sequence, position by position). `top_k` keeps the k most frequent types
//!   (frequency over positions < n, ties broken by first occurrence) and merges the rest
//!   into `<other>`.
//! * μ_i(w) = (c_i(w) + α) / (N_i + α·|V|), α ≥ 0 (applied by [`PositionalCounts::prob`]).
//!
//! Storage is one sparse row per position: memory is proportional to the number of
//! distinct (position, token) pairs, never n × |V|.

use crate::corpus::tokenize::Tokenizer;
use crate::corpus::Corpus;
use crate::error::{PosgeoError, Result};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// The padding token of mode `pad`.
pub const PAD: &str = "<pad>";
/// The merged token of `top_k`.
pub const OTHER: &str = "<other>";

/// How sequences shorter than a position are treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Position i counts only sequences of length > i.
    #[default]
    Condition,
    /// Shorter sequences contribute `<pad>`.
    Pad,
}

impl Mode {
    /// Parses a CLI/URL name.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "condition" => Some(Self::Condition),
            "pad" => Some(Self::Pad),
            _ => None,
        }
    }
}

/// Options of the counting stage.
#[derive(Debug, Clone, PartialEq)]
pub struct CountParams {
    /// Tokenizer applied to every sequence.
    pub tokenizer: Tokenizer,
    /// `condition` or `pad`.
    pub mode: Mode,
    /// Cap on positions.
    pub max_len: usize,
    /// Minimum N_i for a position to be kept.
    pub min_support: usize,
    /// Keep only the k most frequent types.
    pub top_k: Option<usize>,
}

/// Token counts per position: the sparse matrix c_i(w), i < n.
#[derive(Debug, Clone, PartialEq)]
pub struct PositionalCounts {
    /// Number of sequences in the corpus.
    pub sequences: usize,
    /// Number of positions kept.
    pub n: usize,
    /// Token types, indexed by token id.
    pub vocab: Vec<String>,
    /// For each position i < n: (token id, c_i(w)) sorted by token id, c > 0.
    pub rows: Vec<Vec<(u32, u64)>>,
    /// N_i for every position below the cap (kept and dropped), to show where and why
    /// positions were dropped.
    pub support_all: Vec<u64>,
    /// Total tokens counted at kept positions.
    pub tokens: u64,
}

/// Per-(position, type) tallies while reading: count and first sequence index.
type Tally = FxHashMap<u32, (u64, u32)>;

impl PositionalCounts {
    /// Counts a corpus. `progress` receives the fraction of sequences read.
    pub fn count(corpus: &Corpus, params: &CountParams, progress: &mut dyn FnMut(f64)) -> Result<Self> {
        if params.max_len < 2 {
            return Err(PosgeoError::option("max_len", "must be at least 2"));
        }
        if params.min_support == 0 {
            return Err(PosgeoError::option("min_support", "must be at least 1"));
        }
        if params.top_k == Some(0) {
            return Err(PosgeoError::option("top_k", "must be at least 1"));
        }
        let mut interner: FxHashMap<String, u32> = FxHashMap::default();
        let mut types: Vec<String> = Vec::new();
        let mut tallies: Vec<Tally> = Vec::new();
        let mut lengths: Vec<u32> = Vec::with_capacity(corpus.sequences.len());
        let total = corpus.sequences.len().max(1);
        for (s, seq) in corpus.sequences.iter().enumerate() {
            let mut pos = 0usize;
            params.tokenizer.for_each_token(seq, params.max_len, |tok| {
                let id = match interner.get(tok) {
                    Some(&id) => id,
                    None => {
                        let id = types.len() as u32;
                        interner.insert(tok.to_string(), id);
                        types.push(tok.to_string());
                        id
                    }
                };
                if tallies.len() <= pos {
                    tallies.push(Tally::default());
                }
                tallies[pos].entry(id).or_insert((0, s as u32)).0 += 1;
                pos += 1;
            });
            lengths.push(pos as u32);
            if s % 4096 == 4095 {
                progress(s as f64 / total as f64);
            }
        }
        progress(1.0);
        Self::from_tallies(types, tallies, &lengths, params)
    }

    fn from_tallies(
        types: Vec<String>,
        mut tallies: Vec<Tally>,
        lengths: &[u32],
        params: &CountParams,
    ) -> Result<Self> {
        let sequences = lengths.len();
        let longest = tallies.len();
        let cap = longest.min(params.max_len);
        // N_i in condition mode: sequences longer than i (suffix sums of a length histogram).
        let mut longer_than = vec![0u64; cap + 1];
        for &l in lengths {
            longer_than[(l as usize).min(cap)] += 1;
        }
        for i in (0..cap).rev() {
            longer_than[i] += longer_than[i + 1];
        }
        let support_all: Vec<u64> = (0..cap)
            .map(|i| match params.mode {
                Mode::Condition => longer_than[i + 1],
                Mode::Pad => sequences as u64,
            })
            .collect();
        let n = support_all.iter().take_while(|&&s| s >= params.min_support as u64).count();
        if n < 2 {
            return Err(PosgeoError::TooFewPositions { n, min_support: params.min_support, max_len: params.max_len });
        }
        tallies.truncate(n);

        // `<pad>` at position i: sequences of length ≤ i; first such sequence for tie-breaks.
        let pad_id = types.len() as u32;
        let mut pad_first: Option<(u32, u32)> = None; // (sequence, position)
        if params.mode == Mode::Pad {
            for (s, &l) in lengths.iter().enumerate() {
                if (l as usize) < n {
                    pad_first = Some((s as u32, l));
                    break;
                }
            }
            for (i, tally) in tallies.iter_mut().enumerate() {
                let pads = sequences as u64 - longer_than[i + 1];
                if pads > 0 {
                    // Its first occurrence is `pad_first`, applied below.
                    tally.insert(pad_id, (pads, 0));
                }
            }
        }

        // Frequencies and first occurrences over positions < n.
        let n_types = types.len() + 1;
        let mut freq = vec![0u64; n_types];
        let mut first = vec![(u32::MAX, u32::MAX); n_types];
        for (i, tally) in tallies.iter().enumerate() {
            for (&id, &(c, s)) in tally {
                freq[id as usize] += c;
                let key = if id == pad_id { pad_first.unwrap_or((s, i as u32)) } else { (s, i as u32) };
                first[id as usize] = first[id as usize].min(key);
            }
        }
        let mut seen: Vec<u32> = (0..n_types as u32).filter(|&id| freq[id as usize] > 0).collect();
        seen.sort_by_key(|&id| first[id as usize]);
        let name = |id: u32| -> String {
            if id == pad_id {
                PAD.to_string()
            } else {
                types[id as usize].clone()
            }
        };

        // New ids: first-occurrence order, or top_k by frequency with `<other>` last.
        let mut remap = vec![u32::MAX; n_types];
        let mut vocab: Vec<String> = Vec::new();
        let keep: Vec<u32> = match params.top_k {
            Some(k) if k < seen.len() => {
                let mut by_freq = seen.clone();
                by_freq.sort_by_key(|&id| (std::cmp::Reverse(freq[id as usize]), first[id as usize]));
                let mut kept: Vec<u32> = by_freq[..k].to_vec();
                kept.sort_by_key(|&id| first[id as usize]);
                kept
            }
            _ => seen.clone(),
        };
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

        let mut tokens = 0;
        let rows: Vec<Vec<(u32, u64)>> = tallies
            .into_iter()
            .map(|tally| {
                let mut row: Vec<(u32, u64)> = tally.into_iter().map(|(id, (c, _))| (remap[id as usize], c)).collect();
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
        Ok(PositionalCounts { sequences, n, vocab, rows, support_all, tokens })
    }

    /// N_i for the kept positions.
    pub fn support(&self) -> &[u64] {
        &self.support_all[..self.n]
    }

    /// μ_i(w) with smoothing α, for a token id.
    pub fn prob(&self, i: usize, w: u32, alpha: f64) -> f64 {
        let c = self.rows[i].binary_search_by_key(&w, |&(id, _)| id).map(|k| self.rows[i][k].1).unwrap_or(0);
        (c as f64 + alpha) / (self.support()[i] as f64 + alpha * self.vocab.len() as f64)
    }

    /// The `k` most frequent tokens at position i, with their counts (ties by token id).
    pub fn top_tokens(&self, i: usize, k: usize) -> Vec<(String, u64)> {
        let mut row = self.rows[i].clone();
        row.sort_by_key(|&(id, c)| (std::cmp::Reverse(c), id));
        row.into_iter().take(k).map(|(id, c)| (self.vocab[id as usize].clone(), c)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::tokenize::TokenizerKind;

    fn params(mode: Mode, min_support: usize, top_k: Option<usize>) -> CountParams {
        CountParams {
            tokenizer: Tokenizer { kind: TokenizerKind::Whitespace, lowercase: true, bos: false },
            mode,
            max_len: 512,
            min_support,
            top_k,
        }
    }

    #[test]
    fn condition_mode_counts_and_support() {
        let c = Corpus::from_text("a b c\na b\nb\n");
        let pc = PositionalCounts::count(&c, &params(Mode::Condition, 1, None), &mut |_| {}).unwrap();
        assert_eq!(pc.n, 3);
        assert_eq!(pc.vocab, ["a", "b", "c"]);
        assert_eq!(pc.support(), [3, 2, 1]);
        assert_eq!(pc.rows[0], vec![(0, 2), (1, 1)]);
        assert_eq!(pc.rows[2], vec![(2, 1)]);
        let pc2 = PositionalCounts::count(&c, &params(Mode::Condition, 2, None), &mut |_| {}).unwrap();
        assert_eq!(pc2.n, 2);
        assert_eq!(pc2.support_all, vec![3, 2, 1]);
        assert_eq!(pc2.vocab, ["a", "b"]);
    }

    #[test]
    fn pad_mode_adds_pad_tokens() {
        let c = Corpus::from_text("a b c\na b\nb\n");
        let pc = PositionalCounts::count(&c, &params(Mode::Pad, 1, None), &mut |_| {}).unwrap();
        assert_eq!(pc.n, 3);
        assert_eq!(pc.support(), [3, 3, 3]);
        // `<pad>` first occurs at (sequence 1, position 2), after "c" at (0, 2).
        assert_eq!(pc.vocab, ["a", "b", "c", "<pad>"]);
        assert_eq!(pc.rows[1], vec![(1, 2), (3, 1)]);
        assert_eq!(pc.rows[2], vec![(2, 1), (3, 2)]);
    }

    #[test]
    fn top_k_merges_rare_types_into_other() {
        let c = Corpus::from_text("x y z\nx y w\nx q w\n");
        let pc = PositionalCounts::count(&c, &params(Mode::Condition, 1, Some(2)), &mut |_| {}).unwrap();
        // frequencies: x3 y2 w2 z1 q1 — y beats w on first occurrence.
        assert_eq!(pc.vocab, ["x", "y", "<other>"]);
        assert_eq!(pc.rows[1], vec![(1, 2), (2, 1)]);
        assert_eq!(pc.rows[2], vec![(2, 3)]);
    }

    #[test]
    fn too_few_positions_is_an_error() {
        let c = Corpus::from_text("a\nb\n");
        let e = PositionalCounts::count(&c, &params(Mode::Condition, 1, None), &mut |_| {}).unwrap_err();
        assert!(matches!(e, PosgeoError::TooFewPositions { n: 1, .. }));
    }
}
