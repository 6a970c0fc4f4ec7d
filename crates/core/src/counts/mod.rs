//! Stage 2 — **positional distributions** μ_i (`docs/MATH.md` §2; the paper's
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
pub use stream::{count_batches, count_stream, Streamed, BATCH_BYTES};
pub use table::{looks_like_table, read_table_bytes, write_csv, CountsTable, TableFormat, TextTally};

mod interner;
mod pairs;
#[cfg(not(target_arch = "wasm32"))]
mod parallel;
mod positions;
mod reader;
mod stream;
mod table;
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
    /// Number of sequences in the corpus (`None` when counted from a table that cannot
    /// tell: mode `condition`, where sequences without tokens leave no row).
    pub sequences: Option<usize>,
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

/// The options that apply to a counts table (everything but the tokenizer).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TableParams {
    /// `condition` or `pad`.
    pub mode: Mode,
    /// Cap on positions.
    pub max_len: usize,
    /// Minimum N_i for a position to be kept.
    pub min_support: usize,
    /// Keep only the k most frequent types.
    pub top_k: Option<usize>,
}

impl CountParams {
    /// The options that apply once the text is counted.
    pub fn table(&self) -> TableParams {
        TableParams { mode: self.mode, max_len: self.max_len, min_support: self.min_support, top_k: self.top_k }
    }
}

impl TableParams {
    /// Checks the ranges of the options.
    pub fn validate(&self) -> Result<()> {
        if self.max_len < 2 {
            return Err(PosgeoError::option("max_len", "must be at least 2"));
        }
        if self.min_support == 0 {
            return Err(PosgeoError::option("min_support", "must be at least 1"));
        }
        if self.top_k == Some(0) {
            return Err(PosgeoError::option("top_k", "must be at least 1"));
        }
        Ok(())
    }

    /// The error of mode `pad` on a file's table whose N_i varies (no `<pad>` rows).
    fn check_pad(&self, table: &CountsTable, support: &[u64]) -> Result<()> {
        let Some(at) = support.windows(2).position(|w| w[0] != w[1]) else { return Ok(()) };
        if self.mode != Mode::Pad || table.text.is_some() {
            return Ok(());
        }
        Err(PosgeoError::option(
            "mode",
            format!(
                "pad mode needs a table counted in pad mode (<pad> rows, the same N_i at every position), \
                 but N_{at} = {} and N_{} = {}: count with --mode pad",
                support[at],
                at + 1,
                support[at + 1]
            ),
        ))
    }
}

/// Counts sequences into a table (natively on every core; see `tally`).
pub fn count_table<S: AsRef<str> + Sync>(
    seqs: &[S],
    tokenizer: &Tokenizer,
    max_len: usize,
    progress: &mut dyn FnMut(f64),
) -> CountsTable {
    tally::count_sequences(seqs, tokenizer, max_len, progress)
}

impl PositionalCounts {
    /// Counts a corpus. `progress` receives the fraction of sequences read.
    pub fn count(corpus: &Corpus, params: &CountParams, progress: &mut dyn FnMut(f64)) -> Result<Self> {
        params.table().validate()?;
        let mut table = count_table(&corpus.sequences, &params.tokenizer, params.max_len, progress);
        if let Some(t) = table.text.as_mut() {
            t.skipped_lines = corpus.skipped_lines as u64;
        }
        progress(1.0);
        Self::from_table(&table, &params.table())
    }

    /// The counts a table gives under `params`: positions below `max_len`, `<pad>` (mode
    /// `pad`), min_support, the vocabulary in first-occurrence order and `top_k`.
    pub fn from_table(table: &CountsTable, params: &TableParams) -> Result<Self> {
        params.validate()?;
        let pads = table.pads(params.mode);
        let cap = table.longest(params.mode).min(params.max_len);
        let support_all = table.support(cap, pads.as_ref());
        params.check_pad(table, &support_all)?;
        if let Some(i) = support_all.iter().position(|&s| s > table::MAX_COUNT) {
            return Err(PosgeoError::BadTable(format!(
                "position {i} counts {} tokens, beyond 2^53, the largest count posgeo computes with exactly",
                support_all[i]
            )));
        }
        let n = support_all.iter().take_while(|&&s| s >= params.min_support as u64).count();
        if n < 2 {
            return Err(PosgeoError::TooFewPositions { n, min_support: params.min_support, max_len: params.max_len });
        }
        let raw_rows = table.rows(n, pads.as_ref());
        let extra_pad = pads.as_ref().is_some_and(|p| p.id as usize == table.types.len());
        let n_types = table.types.len() + usize::from(extra_pad);
        let name = |id: u32| table.types.get(id as usize).map_or(PAD, |s| s.as_str());
        let lows = |id: u32| match &pads {
            Some(p) if p.id == id => &p.firsts[..],
            _ => table.firsts.get(id as usize).map_or(&[][..], |f| &f[..]),
        };
        let order = vocabulary::first_occurrence_order(&raw_rows, n_types, lows, name);
        let (vocab, remap) = vocabulary::vocabulary(&raw_rows, &order, params.top_k, |id| name(id).to_string());
        let (rows, tokens) = vocabulary::renumber(raw_rows, &remap);
        let sequences = match (&table.text, params.mode) {
            (Some(t), _) => Some(t.sequences as usize),
            (None, Mode::Pad) => Some(support_all[0] as usize),
            (None, Mode::Condition) => None,
        };
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

    /// The `k` most frequent tokens at position i, with their counts (ties by token id): the
    /// first k of the row picked out, then only they sorted (the keys are distinct).
    pub fn top_tokens(&self, i: usize, k: usize) -> Vec<(String, u64)> {
        let key = |&(id, c): &(u32, u64)| (std::cmp::Reverse(c), id);
        let mut row = self.rows[i].clone();
        if k < row.len() {
            row.select_nth_unstable_by_key(k, key);
            row.truncate(k);
        }
        row.sort_unstable_by_key(key);
        row.into_iter().map(|(id, c)| (self.vocab[id as usize].clone(), c)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(mode: Mode, min_support: usize, top_k: Option<usize>) -> CountParams {
        CountParams { tokenizer: crate::test_support::whitespace(), mode, max_len: 512, min_support, top_k }
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
    fn several_readers_count_exactly_what_one_does() {
        // Enough sequences for every reader thread; varied lengths and a shared vocabulary.
        let lines: Vec<String> = (0..30_000)
            .map(|k| {
                (0..(3 + k % 9)).map(|i| format!("t{}", (k * 7 + i * 13) % (50 + i))).collect::<Vec<_>>().join(" ")
            })
            .collect();
        several_readers_agree(Corpus::from_sequences(lines));
        // A vocabulary far larger than any position's tokens (each position's tokens are then
        // sorted rather than counted in one counter per type), with a few common types.
        let lines: Vec<String> = (0..20_000u64)
            .map(|k| {
                (0..(2 + k % 12))
                    .map(|i| match (k * 31 + i * 17) % 5 {
                        0 => format!("c{}", i % 3),
                        _ => format!("r{}", (k * 2_654_435_761 + i * 40_503) % 200_003),
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        several_readers_agree(Corpus::from_sequences(lines));
    }

    fn several_readers_agree(corpus: Corpus) {
        for (mode, top_k) in [(Mode::Condition, None), (Mode::Pad, Some(20))] {
            let p = params(mode, 5, top_k);
            let all = count_table(&corpus.sequences, &p.tokenizer, p.max_len, &mut |_| {});
            let mut one = tally::Tallies::new(&p.tokenizer, p.max_len);
            one.read(&corpus.sequences, &mut |_| {});
            let single = one.into_table();
            assert_eq!(all, single);
            #[cfg(not(target_arch = "wasm32"))]
            for (threads, round) in [(2, parallel::ROUND_TOKENS), (3, parallel::ROUND_TOKENS), (5, 5_000), (2, 200)] {
                let shared =
                    parallel::count_with(&corpus.sequences, &p.tokenizer, p.max_len, threads, round, &mut |_| {});
                assert_eq!(shared.as_ref(), Some(&single), "{threads} threads, rounds of {round} tokens");
            }
            #[cfg(not(target_arch = "wasm32"))]
            assert!(parallel::count_with(&[] as &[String], &p.tokenizer, p.max_len, 2, 1, &mut |_| {}).is_none());
            // Appending the tables of consecutive parts gives the table of the whole.
            let (a, b) = corpus.sequences.split_at(12_345);
            let mut parts = count_table(a, &p.tokenizer, p.max_len, &mut |_| {});
            parts.append(count_table(b, &p.tokenizer, p.max_len, &mut |_| {}));
            assert_eq!(parts, single);
            let both = PositionalCounts::from_table(&all, &p.table()).unwrap();
            assert_eq!(both, PositionalCounts::from_table(&single, &p.table()).unwrap());
        }
    }

    #[test]
    fn top_tokens_are_the_whole_rows_sort_by_count_then_id() {
        // Counts with many ties (ids 0..37 at varied counts), every k from none to past the row.
        let lines: Vec<String> = (0..400).map(|k| format!("t{} t{}", k % 37, (k * k) % 11)).collect();
        let c = PositionalCounts::count(&Corpus::from_sequences(lines), &params(Mode::Condition, 1, None), &mut |_| {})
            .unwrap();
        for i in 0..c.n {
            let mut all = c.rows[i].clone();
            all.sort_by_key(|&(id, n)| (std::cmp::Reverse(n), id));
            for k in 0..all.len() + 2 {
                let want: Vec<(String, u64)> =
                    all.iter().take(k).map(|&(id, n)| (c.vocab[id as usize].clone(), n)).collect();
                assert_eq!(c.top_tokens(i, k), want, "position {i}, k = {k}");
            }
        }
    }

    #[test]
    fn too_few_positions_is_an_error() {
        let c = Corpus::from_text("a\nb\n");
        let e = PositionalCounts::count(&c, &params(Mode::Condition, 1, None), &mut |_| {}).unwrap_err();
        assert!(matches!(e, PosgeoError::TooFewPositions { n: 1, .. }));
    }
}
