//! Counting on every core (native only). The sequences are cut into contiguous parts, one
//! per thread, and counted in two passes, so that no thread's cells are ever merged with
//! another's:
//!
//! 1. **Read.** Each thread tokenizes its part: the token ids (its own interner, in order
//!    of first occurrence), each type's record lows and the lengths.
//! 2. **Join.** The parts' vocabularies are joined in order — part 0's types, then each later
//!    part's new types in its own order: the ids one reader of the whole text gives. Record
//!    lows and lengths are joined as [`CountsTable::append`] joins them.
//! 3. **Count.** Each thread counts the (position, type) cells c_i(w) of one range of
//!    positions, over every part, as [`super::positions`] counts them; the ranges hold about
//!    equal numbers of tokens. Cells are sorted by position first, so the table's cells are
//!    the ranges' cells one after another.
//!
//! The result is the table one reader gives, byte for byte (tested in `counts`).

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

fn read_part<S: AsRef<str>>(seqs: &[S], tokenizer: &Tokenizer, max_len: usize, progress: &mut dyn FnMut(f64)) -> Part {
    // Room for the ids at once, guessed at one per 4 bytes of text (natural text has about 5
    // with its separator) and at most max_len a sequence; the vector grows past it if needed.
    let guess: usize = seqs.iter().map(|s| (s.as_ref().len() / 4 + 1).min(max_len)).sum();
    let tokens = Tokens { ids: Vec::with_capacity(guess), ends: Vec::with_capacity(seqs.len()) };
    let mut part = Part { reader: Reader::new(max_len), tokens };
    let total = seqs.len().max(1);
    for (k, seq) in seqs.iter().enumerate() {
        part.reader.read_sequence(tokenizer, seq.as_ref(), max_len, &mut part.tokens);
        if k % 4096 == 4095 {
            progress(k as f64 / total as f64);
        }
    }
    part
}

/// Joins the later parts' readers into the first's (step 2); returns, per part, its ids'
/// global ids (empty for the first part, whose ids are the global ones).
fn join(first: &mut Reader, rest: &mut [Part]) -> Vec<Vec<u32>> {
    let mut remaps = vec![Vec::new()];
    for part in rest.iter_mut() {
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

/// Counts `seqs` on every core, or `None` when they are too few to share (or a thread
/// panicked: the caller then counts on its own thread).
pub(super) fn count<S: AsRef<str> + Sync>(
    seqs: &[S],
    tokenizer: &Tokenizer,
    max_len: usize,
    progress: &mut dyn FnMut(f64),
) -> Option<CountsTable> {
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    count_with(seqs, tokenizer, max_len, threads.min(seqs.len() / PER_READER), progress)
}

/// [`count`] with `threads` threads (at least 2, or `None`).
pub(super) fn count_with<S: AsRef<str> + Sync>(
    seqs: &[S],
    tokenizer: &Tokenizer,
    max_len: usize,
    threads: usize,
    progress: &mut dyn FnMut(f64),
) -> Option<CountsTable> {
    // (u32 counters: see `count_range`.)
    if threads < 2 || seqs.is_empty() || u32::try_from(seqs.len()).is_err() {
        return None;
    }
    let size = seqs.len().div_ceil(threads);
    let mut parts = std::thread::scope(|scope| {
        let handles: Vec<_> = seqs
            .chunks(size)
            .skip(1)
            .map(|p| scope.spawn(move || read_part(p, tokenizer, max_len, &mut |_| {})))
            .collect();
        let first = read_part(&seqs[..size.min(seqs.len())], tokenizer, max_len, progress);
        // Every thread is joined before any failure counts (a panicked one gives `None`).
        let rest: Vec<_> = handles.into_iter().map(|h| h.join()).collect();
        std::iter::once(Ok(first)).chain(rest).collect::<Result<Vec<Part>, _>>()
    })
    .ok()?;
    let (first, rest) = parts.split_first_mut()?;
    let remaps = join(&mut first.reader, rest);
    let types = first.reader.interner.len();
    let at = tokens_at(&first.reader.text.lengths, max_len);
    let ranges = ranges(&at, threads);
    let tokens: Vec<&Tokens> = parts.iter().map(|p| &p.tokens).collect();
    let cells = std::thread::scope(|scope| {
        let (tokens, remaps, at) = (&tokens[..], &remaps, &at[..]);
        let handles: Vec<_> =
            ranges.into_iter().map(|r| scope.spawn(move || count_range(tokens, remaps, at, types, r))).collect();
        let joined: Vec<_> = handles.into_iter().map(|h| h.join()).collect();
        joined.into_iter().collect::<Result<Vec<_>, _>>()
    })
    .ok()?;
    let cells = join_cells(cells);
    drop(tokens);
    let Part { reader, .. } = parts.into_iter().next()?;
    let Reader { interner, firsts, text, .. } = reader;
    progress(1.0);
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
