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
use serde::{Deserialize, Serialize};
use tally::{PairCounts, Tallies};

mod tally;
mod vocabulary;

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
    /// The name in URLs, reports and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Condition => "condition",
            Self::Pad => "pad",
        }
    }

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

/// N_i for every position below the cap (`support_all`), and the number of sequences longer
/// than i for i ≤ cap (suffix sums of a length histogram).
fn support(lengths: &[u32], params: &CountParams) -> (Vec<u64>, Vec<u64>) {
    let longest = lengths.iter().copied().max().unwrap_or(0) as usize;
    let cap = longest.min(params.max_len);
    let mut longer_than = vec![0u64; cap + 1];
    for &l in lengths {
        longer_than[(l as usize).min(cap)] += 1;
    }
    for i in (0..cap).rev() {
        longer_than[i] += longer_than[i + 1];
    }
    let support_all = (0..cap)
        .map(|i| match params.mode {
            Mode::Condition => longer_than[i + 1],
            Mode::Pad => lengths.len() as u64,
        })
        .collect();
    (support_all, longer_than)
}

/// Corpora with at least this many sequences are read by two threads (native builds).
#[cfg(not(target_arch = "wasm32"))]
const PARALLEL_FROM: usize = 8192;

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
        let seqs = &corpus.sequences;
        let mut tallies = Tallies::default();
        #[cfg(not(target_arch = "wasm32"))]
        if seqs.len() >= PARALLEL_FROM {
            // Two readers over the two halves; the second's tallies are appended to the first's.
            let half = seqs.len() / 2;
            let second = std::thread::scope(|scope| {
                let handle = scope.spawn(|| {
                    let mut t = Tallies::default();
                    t.read(&seqs[half..], half, params, &mut |_| {});
                    t
                });
                tallies.read(&seqs[..half], 0, params, progress);
                handle.join()
            });
            match second {
                Ok(t) => tallies.absorb(t),
                Err(_) => return Err(PosgeoError::option("corpus", "a counting thread failed")),
            }
            progress(1.0);
            return Self::assemble(tallies.types, tallies.firsts, tallies.pairs, &tallies.lengths, params);
        }
        tallies.read(seqs, 0, params, progress);
        progress(1.0);
        Self::assemble(tallies.types, tallies.firsts, tallies.pairs, &tallies.lengths, params)
    }

    fn assemble(
        types: Vec<String>,
        firsts: Vec<Vec<(u32, u32)>>,
        pairs: PairCounts,
        lengths: &[u32],
        params: &CountParams,
    ) -> Result<Self> {
        let sequences = lengths.len();
        let (support_all, longer_than) = support(lengths, params);
        let n = support_all.iter().take_while(|&&s| s >= params.min_support as u64).count();
        if n < 2 {
            return Err(PosgeoError::TooFewPositions { n, min_support: params.min_support, max_len: params.max_len });
        }
        let mut raw_rows = pairs.rows(n);
        // First occurrence (sequence, position) of each type among positions < n.
        let pad_id = types.len() as u32;
        let mut first: Vec<(u32, u32)> = firsts
            .iter()
            .map(|f| f.iter().find(|&&(_, p)| (p as usize) < n).copied().unwrap_or((u32::MAX, u32::MAX)))
            .collect();
        first.push((u32::MAX, u32::MAX));
        // `<pad>` at position i: sequences of length ≤ i; it first occurs in the first
        // sequence shorter than n, right after its last token.
        if params.mode == Mode::Pad {
            if let Some((s, &l)) = lengths.iter().enumerate().find(|&(_, &l)| (l as usize) < n) {
                first[pad_id as usize] = (s as u32, l);
            }
            for (i, row) in raw_rows.iter_mut().enumerate() {
                let pads = sequences as u64 - longer_than[i + 1];
                if pads > 0 {
                    row.push((pad_id, pads));
                }
            }
        }
        let name = |id: u32| if id == pad_id { PAD.to_string() } else { types[id as usize].clone() };
        let (vocab, remap) = vocabulary::vocabulary(&raw_rows, &first, params.top_k, name);
        let (rows, tokens) = vocabulary::renumber(raw_rows, &remap);
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
            tokenizer: Tokenizer {
                kind: TokenizerKind::Whitespace,
                lowercase: true,
                bos: false,
                model: None,
                special_tokens: true,
            },
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
    fn two_readers_count_exactly_what_one_does() {
        // Enough sequences for the two-thread path; varied lengths and a shared vocabulary.
        let lines: Vec<String> = (0..10_000)
            .map(|k| {
                (0..(3 + k % 9)).map(|i| format!("t{}", (k * 7 + i * 13) % (50 + i))).collect::<Vec<_>>().join(" ")
            })
            .collect();
        let corpus = Corpus::from_sequences(lines);
        for (mode, top_k) in [(Mode::Condition, None), (Mode::Pad, Some(20))] {
            let p = params(mode, 5, top_k);
            let both = PositionalCounts::count(&corpus, &p, &mut |_| {}).unwrap();
            let mut one = Tallies::default();
            one.read(&corpus.sequences, 0, &p, &mut |_| {});
            let single = PositionalCounts::assemble(one.types, one.firsts, one.pairs, &one.lengths, &p).unwrap();
            assert_eq!(both, single);
        }
    }

    #[test]
    fn too_few_positions_is_an_error() {
        let c = Corpus::from_text("a\nb\n");
        let e = PositionalCounts::count(&c, &params(Mode::Condition, 1, None), &mut |_| {}).unwrap_err();
        assert!(matches!(e, PosgeoError::TooFewPositions { n: 1, .. }));
    }
}
