//! Line-based sources of a [`super::SequenceStream`]: plain text (a sequence a line), JSON Lines
//! and FASTA (records over several lines, [`super::fasta`]); a text file whose first non-blank
//! line starts with `>` is read as FASTA. A line is read whole, within the memory budget.

use super::fasta::{looks_like_fasta, Fasta};
use super::scan::{io_error, Scan};
use super::{decode, jsonl_sequence};
use crate::error::{PosgeoError, Result};
use std::io::{BufRead, BufReader};

/// How a line-based source reads its lines.
pub(super) enum LineKind {
    /// Not known yet: plain text unless the first non-blank line starts with `>` (FASTA).
    /// Holds the blank lines before it (sequences, if the text is plain).
    Undecided(Vec<String>),
    /// Plain text.
    Text,
    /// JSON Lines with this field.
    Jsonl(String),
    /// FASTA records.
    Fasta(Fasta),
}

/// The chunks lines are read in (a line usually lies whole in one, and is copied once).
pub(super) const LINE_CHUNK: usize = 1 << 16;

/// The longest line (a sequence) read: a quarter of the memory budget (4 GiB natively
/// without an address-space limit, 384 MiB in the page).
fn line_limit() -> u64 {
    crate::limits::budget() / 4
}

/// Reads line `line` (up to and including its newline) into `buf`, in the reader's chunks,
/// growing `buf` with `try_reserve`: a line longer than `limit`, or one the allocator cannot
/// hold, is an error naming the line instead of an abort. Returns the bytes read (0 at the end).
fn read_line(reader: &mut BufReader<Scan<'_>>, buf: &mut Vec<u8>, line: usize, limit: u64) -> Result<usize> {
    let too_long = |what: String| {
        PosgeoError::TooLarge(format!(
            "line {line} is longer than {what}; a line is held whole in memory: keep one sequence a line (split the text into lines)"
        ))
    };
    loop {
        let chunk = match reader.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io_error(reader.get_mut(), e)),
        };
        if chunk.is_empty() {
            return Ok(buf.len());
        }
        let (take, done) = match memchr::memchr(b'\n', chunk) {
            Some(k) => (k + 1, true),
            None => (chunk.len(), false),
        };
        if (buf.len() + take - usize::from(done)) as u64 > limit {
            return Err(too_long(crate::limits::human(limit)));
        }
        if !grow(buf, take, limit) {
            return Err(too_long(format!("the memory left ({} read)", crate::limits::human(buf.len() as u64))));
        }
        buf.extend_from_slice(&chunk[..take]);
        reader.consume(take);
        if done {
            return Ok(buf.len());
        }
    }
}

/// A text line's sequence, the line's own buffer turned into the string (no copy: a line may
/// be most of the memory there is); its newline and a carriage return before it dropped.
/// Invalid UTF-8 as [`decode`] treats it.
fn owned_text(buf: &mut Vec<u8>, line: usize, lossy: bool, skipped: &mut usize) -> Result<Option<String>> {
    if buf.last() == Some(&b'\n') {
        buf.pop();
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    // A long line's buffer grew by doubling: give back the slack it would carry along.
    if buf.capacity() - buf.len() > (1 << 20) {
        buf.shrink_to_fit();
    }
    match String::from_utf8(std::mem::take(buf)) {
        Ok(text) => Ok(Some(text)),
        Err(e) => {
            *buf = e.into_bytes();
            Ok(decode(line, buf, lossy, skipped)?.map(str::to_string))
        }
    }
}

/// Makes room for `more` bytes in `buf`: doubling (capped at `limit` bytes), or, when that
/// cannot be had, exactly what is needed. False when not even that can.
fn grow(buf: &mut Vec<u8>, more: usize, limit: u64) -> bool {
    let need = buf.len() + more;
    if buf.capacity() >= need {
        return true;
    }
    let doubled = (2 * buf.capacity()).min(usize::try_from(limit).unwrap_or(usize::MAX)).max(need);
    buf.try_reserve_exact(doubled - buf.len()).is_ok() || buf.try_reserve_exact(more).is_ok()
}

/// What a line-based source reads besides its lines: the caller's options and the undecided
/// text's state.
pub(super) struct LineState<'a> {
    pub(super) lossy: bool,
    pub(super) keep: usize,
    pub(super) deciding_done: &'a mut bool,
}

/// The next sequence of a line-based source (text, JSON Lines, FASTA; see [`LineKind`]).
pub(super) fn next_line_sequence(
    reader: &mut BufReader<Scan<'_>>,
    kind: &mut LineKind,
    line: &mut usize,
    buf: &mut Vec<u8>,
    skipped: &mut usize,
    state: LineState<'_>,
) -> Result<Option<String>> {
    let LineState { lossy, keep, deciding_done } = state;
    loop {
        if let LineKind::Undecided(held) = kind {
            if *deciding_done {
                match held.pop() {
                    Some(blank) => return Ok(Some(blank)),
                    None => *kind = LineKind::Text,
                }
                continue;
            }
        }
        buf.clear();
        *line += 1;
        if read_line(reader, buf, *line, line_limit())? == 0 {
            match kind {
                LineKind::Fasta(f) => return f.finish(),
                LineKind::Undecided(held) if !held.is_empty() => {
                    held.reverse();
                    *deciding_done = true;
                    continue;
                }
                _ => return Ok(None),
            }
        }
        let raw = buf.strip_suffix(b"\n").unwrap_or(buf);
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if let LineKind::Undecided(held) = kind {
            if looks_like_fasta(raw) {
                *kind = LineKind::Fasta(Fasta::new(keep));
            } else if !raw.is_empty() && raw.iter().all(u8::is_ascii_whitespace) {
                // A blank line: a sequence of plain text, or nothing in FASTA.
                held.extend(owned_text(buf, *line, lossy, skipped)?);
                continue;
            } else if !raw.is_empty() {
                // Plain text: the blank lines held come first, then this line.
                held.reverse();
                *deciding_done = true;
            }
        }
        let seq = match kind {
            LineKind::Fasta(f) => f.line(*line, raw)?,
            LineKind::Jsonl(field) => {
                let Some(text) = decode(*line, raw, lossy, skipped)? else { continue };
                jsonl_sequence(*line, text, field)?
            }
            LineKind::Text | LineKind::Undecided(_) => {
                let Some(text) = owned_text(buf, *line, lossy, skipped)? else { continue };
                Some(text).filter(|t| !t.is_empty())
            }
        };
        if let Some(s) = seq {
            if let LineKind::Undecided(held) = kind {
                // Emitted after the blank lines before it.
                held.insert(0, s);
                continue;
            }
            return Ok(Some(s));
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn lines(text: &[u8], limit: u64) -> Vec<Result<Vec<u8>>> {
        let scan = Scan { inner: Box::new(text), gzip: false, out: 0, content: false, quotes: None, error: None };
        // A small buffer: lines arrive in several chunks.
        let mut reader = BufReader::with_capacity(4, scan);
        let mut out = Vec::new();
        for line in 1.. {
            let mut buf = Vec::new();
            match read_line(&mut reader, &mut buf, line, limit) {
                Ok(0) => break,
                Ok(_) => out.push(Ok(buf)),
                Err(e) => {
                    out.push(Err(e));
                    break;
                }
            }
        }
        out
    }

    #[test]
    fn lines_arrive_whole_across_chunks_and_a_line_past_the_limit_is_named() {
        let got: Vec<Vec<u8>> = lines(b"one two\nthree\n\nfour", 100).into_iter().map(|l| l.unwrap()).collect();
        assert_eq!(got, vec![b"one two\n".to_vec(), b"three\n".to_vec(), b"\n".to_vec(), b"four".to_vec()]);
        let got = lines(b"short\nthis line is far too long\nnever read\n", 12);
        assert_eq!(got[0].as_ref().unwrap(), b"short\n");
        let e = got[1].as_ref().unwrap_err().to_string();
        assert!(e.contains("line 2 is longer than 12 bytes") && e.contains("split the text into lines"), "{e}");
        assert_eq!(got.len(), 2);
    }
}
