//! Counting on every core (native only). The sequences are cut into rounds of about
//! [`ROUND_TOKENS`] tokens a thread (so the id buffers are reused, not grown with the corpus),
//! each round into contiguous parts, one per thread, and counted in passes so that no thread's
//! cells are ever merged with another's within a round:
//!
//! 1. **Read.** Each thread tokenizes its part: the token ids (its own interner, in order
//!    of first occurrence), each type's record lows and the lengths.
//! 2. **Join.** The parts' vocabularies are joined in order into the rounds' so far — each
//!    part's new types in its own order: the ids one reader of the whole text gives. Record
//!    lows and lengths are joined as [`CountsTable::append`] joins them.
//! 3. **Count.** Each thread counts the (position, type) cells c_i(w) of one range of
//!    positions, over every part of the round, as [`super::positions`] counts them; the ranges
//!    hold about equal numbers of tokens. Cells are sorted by position first, so the round's
//!    cells are the ranges' cells one after another; the rounds' cells are merged, counts of
//!    equal keys added.
//!
//! The result is the table one reader gives, byte for byte (tested in `counts`).

use super::pairs::merge_sorted;
use super::positions::{count_range, tokens_at, Tokens};
use super::reader::Reader;
use super::table::{join_lows, CountsTable};
use crate::corpus::tokenize::Tokenizer;

/// Corpora with at least this many sequences per thread are split between threads.
const PER_READER: usize = 4096;

/// One part read: its types and lows (in `reader`), and its token ids.
struct Part {
    reader: Reader,
    tokens: Tokens,
}

/// Reads `seqs` into `tokens` (cleared first: a buffer of an earlier round).
fn read_part<S: AsRef<str>>(seqs: &[S], tokenizer: &Tokenizer, max_len: usize, mut tokens: Tokens) -> Part {
    tokens.clear();
    // Room for the ids at once, guessed from the tokenizer and at most max_len a sequence (a
    // vector that grows copies itself and touches twice its pages); it grows past it if needed.
    let guess: usize = seqs.iter().map(|s| tokenizer.token_guess(s.as_ref().len()).min(max_len)).sum();
    tokens.ids.reserve(guess);
    tokens.ends.reserve(seqs.len());
    let mut part = Part { reader: Reader::new(max_len), tokens };
    for seq in seqs {
        part.reader.read_sequence(tokenizer, seq.as_ref(), max_len, &mut part.tokens);
    }
    part
}

/// Joins the parts' readers, in order, into `global` (the first part becomes it when it is
/// `None`); returns, per part, its ids' global ids (empty where they are the global ones).
fn join(global: &mut Option<Reader>, parts: &mut [Part], max_len: usize) -> Vec<Vec<u32>> {
    let mut remaps = Vec::with_capacity(parts.len());
    for part in parts.iter_mut() {
        let Some(first) = global.as_mut() else {
            *global = Some(std::mem::replace(&mut part.reader, Reader::new(max_len)));
            remaps.push(Vec::new());
            continue;
        };
        let offset = first.text.sequences;
        let local = std::mem::take(&mut part.reader.interner);
        let remap: Vec<u32> = (0..local.len()).map(|id| first.add_type(local.get(id))).collect();
        for (id, lows) in std::mem::take(&mut part.reader.firsts).into_iter().enumerate() {
            let g = remap[id] as usize;
            first.firsts[g] = join_lows(std::mem::take(&mut first.firsts[g]), lows, offset);
        }
        first.text.append(std::mem::take(&mut part.reader.text));
        remaps.push(remap);
    }
    remaps
}

/// Consecutive runs of `seqs`, each of about `tokens` tokens (guessed) or one sequence.
fn rounds<'s, S: AsRef<str>>(seqs: &'s [S], tokenizer: &Tokenizer, max_len: usize, tokens: usize) -> Vec<&'s [S]> {
    let mut out = Vec::new();
    let (mut start, mut guess) = (0, 0);
    for (k, seq) in seqs.iter().enumerate() {
        guess += tokenizer.token_guess(seq.as_ref().len()).min(max_len);
        if guess >= tokens {
            out.push(&seqs[start..=k]);
            (start, guess) = (k + 1, 0);
        }
    }
    if start < seqs.len() {
        out.push(&seqs[start..]);
    }
    out
}

/// `threads` ranges of the positions with about equal numbers of tokens (`at[i]`: the
/// tokens at position i), in order, covering every position.
fn ranges(at: &[u64], threads: usize) -> Vec<std::ops::Range<usize>> {
    let total: u64 = at.iter().sum();
    let mut out = Vec::with_capacity(threads);
    let (mut start, mut seen) = (0, 0u64);
    for (i, &a) in at.iter().enumerate() {
        seen += a;
        let goal = total.div_ceil(threads as u64) * (out.len() as u64 + 1);
        if seen >= goal && out.len() + 1 < threads {
            out.push(start..i + 1);
            start = i + 1;
        }
    }
    out.push(start..at.len());
    out
}

/// The ranges' cells one after another, in the first range's vector: grown in place (a large
/// allocation is remapped, not copied), so only the later ranges' cells are copied.
fn join_cells(ranges: Vec<Vec<(u64, u64)>>) -> Vec<(u64, u64)> {
    let mut ranges = ranges.into_iter();
    let mut all = ranges.next().unwrap_or_default();
    let rest: Vec<_> = ranges.collect();
    all.reserve_exact(rest.iter().map(Vec::len).sum());
    rest.iter().for_each(|r| all.extend_from_slice(r));
    all
}

/// Tokens each thread reads between counts: its id buffer stays about this size (16 MB)
/// however large the corpus, so memory it has touched once is reused.
pub(super) const ROUND_TOKENS: usize = 1 << 22;

/// Counts `seqs` on every core, or `None` when they are too few to share (or a thread
/// panicked: the caller then counts on its own thread).
pub(super) fn count<S: AsRef<str> + Sync>(
    seqs: &[S],
    tokenizer: &Tokenizer,
    max_len: usize,
    progress: &mut dyn FnMut(f64),
) -> Option<CountsTable> {
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    count_with(seqs, tokenizer, max_len, threads.min(seqs.len() / PER_READER), ROUND_TOKENS, progress)
}

/// [`count`] with `threads` threads (at least 2, or `None`), in rounds of about `round`
/// tokens a thread: each round's parts are read side by side, joined into the vocabulary of
/// the rounds before them, and counted; the rounds' cells are merged.
pub(super) fn count_with<S: AsRef<str> + Sync>(
    seqs: &[S],
    tokenizer: &Tokenizer,
    max_len: usize,
    threads: usize,
    round: usize,
    progress: &mut dyn FnMut(f64),
) -> Option<CountsTable> {
    // (u32 counters: see `count_range`.)
    if threads < 2 || seqs.is_empty() || u32::try_from(seqs.len()).is_err() {
        return None;
    }
    let (mut global, mut cells) = (None, Vec::new());
    let mut buffers: Vec<Tokens> = (0..threads).map(|_| Tokens::default()).collect();
    let (done, total) = (&mut 0usize, seqs.len() as f64);
    for run in rounds(seqs, tokenizer, max_len, round.saturating_mul(threads).max(1)) {
        let size = run.len().div_ceil(threads);
        let mut parts = std::thread::scope(|scope| {
            let handles: Vec<_> = run
                .chunks(size)
                .zip(buffers.drain(..))
                .map(|(p, tokens)| scope.spawn(move || read_part(p, tokenizer, max_len, tokens)))
                .collect();
            // Every thread is joined before any failure counts (a panicked one gives `None`).
            let joined: Vec<_> = handles.into_iter().map(|h| h.join()).collect();
            joined.into_iter().collect::<Result<Vec<Part>, _>>()
        })
        .ok()?;
        let mut lengths = vec![0u64; max_len + 1];
        for part in &parts {
            part.reader.text.lengths.iter().zip(&mut lengths).for_each(|(a, b)| *b += a);
        }
        let remaps = join(&mut global, &mut parts, max_len);
        let types = global.as_ref()?.interner.len();
        let at = tokens_at(&lengths, max_len);
        let tokens: Vec<&Tokens> = parts.iter().map(|p| &p.tokens).collect();
        let counted = std::thread::scope(|scope| {
            let (tokens, remaps, at) = (&tokens[..], &remaps, &at[..]);
            let handles: Vec<_> = ranges(at, threads)
                .into_iter()
                .map(|r| scope.spawn(move || count_range(tokens, remaps, at, types, r)))
                .collect();
            let joined: Vec<_> = handles.into_iter().map(|h| h.join()).collect();
            joined.into_iter().collect::<Result<Vec<_>, _>>()
        })
        .ok()?;
        cells = merge_sorted(cells, join_cells(counted));
        buffers.extend(parts.into_iter().map(|p| p.tokens));
        buffers.resize_with(threads, Tokens::default);
        *done += run.len();
        progress(*done as f64 / total);
    }
    let Reader { interner, firsts, text, .. } = global?;
    Some(CountsTable { types: interner.into_types(), cells, firsts, text: Some(text) })
}

#[cfg(test)]
mod tests {
    use super::{ranges, tokens_at};

    #[test]
    fn ranges_cover_every_position_once_with_balanced_tokens() {
        // 100 sequences of each length 0..=20: position i has 100·(20 − i) tokens.
        let lengths = vec![100u64; 21];
        for threads in 1..6 {
            let r = ranges(&tokens_at(&lengths, 24), threads);
            assert_eq!(r.len(), threads);
            assert_eq!(r[0].start, 0);
            assert_eq!(r.last().map(|r| r.end), Some(24));
            assert!(r.windows(2).all(|w| w[0].end == w[1].start && w[0].start < w[0].end), "{r:?}");
        }
        let r = ranges(&tokens_at(&lengths, 24), 2);
        assert_eq!(r[0], 0..6, "positions 0..6 hold 10,500 of the 21,000 tokens");
    }
}
