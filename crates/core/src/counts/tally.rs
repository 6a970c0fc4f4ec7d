//! Counting's inner loop: one reader's tallies over a run of sequences — what the
//! [`Reader`] notes (types, record lows, lengths) and the (position, type) cells, counted
//! position by position from the token ids ([`super::positions`]) — turned into a
//! [`CountsTable`] that later runs are appended to. Natively, corpora large enough are
//! counted on every core ([`super::parallel`], whose threads use the same [`Reader`]).

use super::pairs::merge_sorted;
use super::positions::{self, Tokens};
use super::reader::Reader;
use super::table::CountsTable;
use crate::corpus::tokenize::Tokenizer;

/// Tokens read at most before their cells are counted ([`Tallies`]): 8 M ids, 32 MB (as much
/// again while they are grouped by position), unless the cells counted so far are larger.
const FLUSH_TOKENS: usize = 1 << 23;

/// One reader's tallies over a contiguous run of sequences, numbered from 0: the sequences'
/// token ids are kept as they are read, and counted position by position
/// ([`super::positions`]) into the sorted cells before they would pass [`FLUSH_TOKENS`] (or
/// half the cells counted so far, so that merging the cells costs in all a few times their
/// size), and at the end.
pub(super) struct Tallies<'t> {
    tokenizer: &'t Tokenizer,
    max_len: usize,
    reader: Reader,
    /// The sequences read since the last count.
    tokens: Tokens,
    /// The cells counted so far, sorted by key.
    cells: Vec<(u64, u64)>,
    /// Tokens (and sequences) read at most before they are counted ([`FLUSH_TOKENS`]; fewer
    /// in tests).
    flush_at: usize,
}

impl<'t> Tallies<'t> {
    pub(super) fn new(tokenizer: &'t Tokenizer, max_len: usize) -> Self {
        let (reader, tokens) = (Reader::new(max_len), Tokens::default());
        Tallies { tokenizer, max_len, reader, tokens, cells: Vec::new(), flush_at: FLUSH_TOKENS }
    }

    /// Reads the next sequences; `progress` receives the fraction of them read.
    pub(super) fn read<S: AsRef<str>>(&mut self, seqs: &[S], progress: &mut dyn FnMut(f64)) {
        let total = seqs.len().max(1);
        let tokenizer = self.tokenizer;
        for (k, seq) in seqs.iter().enumerate() {
            let seq = seq.as_ref();
            if self.count_before(seq.len()) {
                self.settle();
            }
            self.reader.read_sequence(tokenizer, seq, self.max_len, &mut self.tokens);
            if k % 4096 == 4095 {
                progress(k as f64 / total as f64);
            }
        }
    }

    /// Whether the tokens read so far are to be counted before a sequence of `bytes` is read:
    /// a sequence adds at most max_len tokens, and (bar a few markers) at most one per byte,
    /// so counted before the ids could pass the limit, their buffer does not grow past it.
    fn count_before(&self, bytes: usize) -> bool {
        let limit = self.flush_at.max(self.cells.len() / 2);
        let most = self.max_len.min(bytes.saturating_add(8));
        self.tokens.ids.len().saturating_add(most) > limit || self.tokens.ends.len() >= limit
    }

    /// Counts the tokens read so far into the cells.
    pub(super) fn settle(&mut self) {
        if self.tokens.ends.is_empty() {
            return;
        }
        let counted = positions::count_all(&self.tokens, self.reader.interner.len(), self.max_len);
        self.cells = merge_sorted(std::mem::take(&mut self.cells), counted);
        self.tokens.clear();
    }

    /// Approximate bytes held: the reader's, the cells (16 bytes each) and the token buffers.
    fn memory_bytes(&self) -> u64 {
        self.reader.memory_bytes() + self.cells.len() as u64 * 16 + self.tokens.memory_bytes()
    }

    /// When the tallies hold more than `budget` bytes: (distinct (position, type) pairs,
    /// bytes), once the tokens not yet counted are counted and their buffers freed (so the
    /// figures are exact, and tallies this brings back under budget go on).
    pub(super) fn over(&mut self, budget: u64) -> Option<(usize, u64)> {
        if self.memory_bytes() <= budget {
            return None;
        }
        self.settle();
        self.tokens = Tokens::default();
        let used = self.memory_bytes();
        (used > budget).then_some((self.cells.len(), used))
    }

    /// The table of what was read.
    pub(super) fn into_table(mut self) -> CountsTable {
        self.settle();
        let Reader { interner, firsts, text, .. } = self.reader;
        CountsTable { types: interner.into_types(), cells: self.cells, firsts, text: Some(text) }
    }
}

/// Counts sequences into a table: natively on every core when there are enough of them
/// ([`super::parallel`]: the same table a single reader produces, byte for byte); in wasm
/// on the calling thread.
pub(super) fn count_sequences<S: AsRef<str> + Sync>(
    seqs: &[S],
    tokenizer: &Tokenizer,
    max_len: usize,
    progress: &mut dyn FnMut(f64),
) -> CountsTable {
    #[cfg(not(target_arch = "wasm32"))]
    if let Some(table) = super::parallel::count(seqs, tokenizer, max_len, progress) {
        return table;
    }
    let mut t = Tallies::new(tokenizer, max_len);
    t.read(seqs, progress);
    t.into_table()
}

#[cfg(test)]
mod tests {
    use crate::corpus::hf_tokenizer::ModelTokenizer;
    use crate::corpus::tokenize::{Tokenizer, TokenizerKind};

    /// A model tokenizer's tokens, counted by their ids ([`super::Reader::by_key`]), give the
    /// table their texts give as whitespace tokens: with the case kept, and lowercased (where
    /// two ids, "Dog" and "dog", are one type).
    #[test]
    fn a_model_tokenizers_tokens_are_counted_by_id_as_by_their_text() {
        let json = crate::test_support::WORDPIECE
            .replace(r#""lowercase":true"#, r#""lowercase":false"#)
            .replace(r#""!":8}"#, r###""!":8,"Dog":9,"##s":10}"###);
        let model = ModelTokenizer::from_bytes("t.json", json.as_bytes()).unwrap();
        let words = ["the", "dog", "Dog", "Dogs", "bites", "man", "zebra!", "The"];
        let lines: Vec<String> = (0..9_000u64)
            .map(|k| (0..(1 + k % 7)).map(|i| words[((k * 13 + i * 5) % 8) as usize]).collect::<Vec<_>>().join(" "))
            .collect();
        for lowercase in [false, true] {
            // (The begin marker, never a model id, in one of the two runs: in the texts.)
            let t = |kind, model, bos| Tokenizer { kind, lowercase, bos, model, special_tokens: true, kmer: 1 };
            let by_id = t(TokenizerKind::Model, Some(model.clone()), lowercase);
            let texts: Vec<String> = lines.iter().map(|l| by_id.tokens(l, usize::MAX).join(" ")).collect();
            let by_text = t(TokenizerKind::Whitespace, None, false);
            assert!(texts[3].contains("Dog") || texts[3].contains("dog"), "{:?}", texts[3]);
            let want = super::count_sequences(&texts, &by_text, 6, &mut |_| {});
            #[cfg(not(target_arch = "wasm32"))]
            for threads in [2, 3] {
                let shared = crate::counts::parallel::count_with(&lines, &by_id, 6, threads, 64, &mut |_| {});
                assert_eq!(shared.as_ref(), Some(&want), "{threads} threads, {lowercase}");
            }
            let mut one = super::Tallies::new(&by_id, 6);
            one.read(&lines, &mut |_| {});
            assert_eq!(one.into_table(), want, "one reader, {lowercase}");
        }
    }

    /// The ids are counted before their buffer would pass the limit, and not before: short
    /// sequences under a huge max_len do not each make a go of their own.
    #[test]
    fn tokens_are_counted_before_the_limit_not_sooner() {
        let t = crate::test_support::whitespace();
        let mut tallies = super::Tallies::new(&t, 1 << 24);
        tallies.read(&["a b c"; 10], &mut |_| {});
        assert!(!tallies.count_before(5), "30 ids and a 5-byte line, far below 2^23");
        assert!(tallies.count_before(super::FLUSH_TOKENS), "a line that could pass the limit");
        tallies.max_len = 4;
        assert!(!tallies.count_before(super::FLUSH_TOKENS), "at most 4 more tokens");
        tallies.flush_at = 33;
        assert!(tallies.count_before(super::FLUSH_TOKENS), "30 + 4 > 33");
        tallies.flush_at = 10;
        tallies.max_len = 1;
        assert!(tallies.count_before(0), "10 sequences read, as many as the limit");
    }

    /// One reader's tokens counted into its cells in goes of a few tokens (types first seen
    /// in later goes, lines longer than the cap, lines of whitespace only, goes of empty
    /// sequences, its buffers dropped between batches as a budget check does) give the
    /// table of one go at the end, and cells equal to a direct count of (position, token).
    #[test]
    fn tokens_counted_in_several_goes_give_the_table_of_one() {
        let t = crate::test_support::whitespace();
        let lines: Vec<String> = (0..600u64)
            .map(|k| match k % 10 {
                0 | 1 => " \t ".to_string(),
                3 | 6 => (0..(k % 9)).map(|j| format!("u{k}x{j}")).collect::<Vec<_>>().join(" "),
                _ => (0..(k * 7 % 15))
                    .map(|j| format!("t{}", (k * k + j * 13) % (5 + k / 10)))
                    .collect::<Vec<_>>()
                    .join(" "),
            })
            .collect();
        for max_len in [1, 2, 9] {
            let mut direct = std::collections::BTreeMap::new();
            for line in &lines {
                for (p, tok) in t.tokens(line, max_len).into_iter().enumerate() {
                    *direct.entry((p, tok)).or_insert(0u64) += 1;
                }
            }
            let mut whole = super::Tallies::new(&t, max_len);
            whole.flush_at = usize::MAX;
            whole.read(&lines, &mut |_| {});
            let want = whole.into_table();
            let cells: std::collections::BTreeMap<(usize, String), u64> = want
                .cells
                .iter()
                .map(|&(k, c)| (((k >> 32) as usize, want.types[k as u32 as usize].clone()), c))
                .collect();
            assert_eq!(cells, direct, "max_len {max_len}: the cells are the direct count");
            for flush_at in [1, 3, 50] {
                let mut goes = super::Tallies::new(&t, max_len);
                goes.flush_at = flush_at;
                for (b, batch) in lines.chunks(33).enumerate() {
                    goes.read(batch, &mut |_| {});
                    if b % 4 == 3 {
                        goes.settle();
                        goes.tokens = super::Tokens::default();
                    }
                }
                assert_eq!(goes.into_table(), want, "max_len {max_len}, counted every {flush_at} tokens");
            }
        }
    }
}
