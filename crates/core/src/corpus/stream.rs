//! Streaming input: a reader (a file, standard input, a browser `Blob`) → batches of
//! sequences, decompressing gzip on the way, so memory grows with one batch and not with the
//! text. [`Corpus::read`](super::Corpus::read) is this stream collected.
//!
//! The rules are those of the module above (text lines, CSV/TSV records, JSON Lines
//! fields; invalid UTF-8 an error naming the line unless `lossy`).

use super::csv::{column_index, QuoteScan};
use super::fasta::{looks_like_fasta, Fasta};
use super::{decode, is_gzip, jsonl_sequence, InputFormat};
use crate::error::{PosgeoError, Result};
use std::io::{BufRead, BufReader, Read};

/// Decompressed bytes on their way to the parser: counts them, notes whether any is not
/// whitespace, follows CSV quoting, and turns a damaged gzip stream into a message.
struct Scan<'r> {
    inner: Box<dyn Read + 'r>,
    gzip: bool,
    out: u64,
    content: bool,
    quotes: Option<QuoteScan>,
    error: Option<PosgeoError>,
}

impl Read for Scan<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let k = match self.inner.read(buf) {
            Ok(k) => k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => return Err(e),
            Err(e) => {
                let what = if self.gzip { "the gzip stream is damaged" } else { "the input could not be read" };
                self.error = Some(PosgeoError::NoSequences(format!(
                    "{what} after {} of output ({e})",
                    crate::limits::human(self.out)
                )));
                return Err(e);
            }
        };
        let bytes = &buf[..k];
        self.out += k as u64;
        self.content = self.content || bytes.iter().any(|b| !b.is_ascii_whitespace());
        if let Some(q) = self.quotes.as_mut() {
            q.feed(bytes);
        }
        Ok(k)
    }
}

/// How a line-based source reads its lines.
enum LineKind {
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

enum Source<'r> {
    Lines { reader: BufReader<Scan<'r>>, kind: LineKind, line: usize, buf: Vec<u8> },
    Csv { reader: csv::Reader<Scan<'r>>, column: Option<String>, has_header: bool, index: Option<usize> },
}

/// Sequences read batch by batch.
pub struct SequenceStream<'r> {
    source: Source<'r>,
    lossy: bool,
    /// Lines skipped as invalid UTF-8 so far.
    pub skipped_lines: usize,
    /// Sequences returned so far.
    pub sequences: u64,
    done: bool,
    /// Bytes held of each FASTA record ([`SequenceStream::keep_per_record`]).
    keep: usize,
    /// Plain text was decided on: the lines held while undecided go out first.
    done_deciding: bool,
}

/// The chunks lines are read in (a line usually lies whole in one, and is copied once).
const LINE_CHUNK: usize = 1 << 16;

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

fn io_error(scan: &mut Scan<'_>, e: std::io::Error) -> PosgeoError {
    scan.error.take().unwrap_or_else(|| PosgeoError::NoSequences(format!("the input could not be read ({e})")))
}

impl<'r> SequenceStream<'r> {
    /// A stream over `reader` (gzip detected from its first bytes).
    pub fn new(reader: impl Read + 'r, format: &InputFormat, lossy: bool) -> Result<Self> {
        let mut buffered = BufReader::with_capacity(1 << 16, reader);
        let head =
            buffered.fill_buf().map_err(|e| PosgeoError::NoSequences(format!("the input could not be read ({e})")))?;
        let gzip = is_gzip(head);
        let inner: Box<dyn Read + 'r> =
            if gzip { Box::new(flate2::read::MultiGzDecoder::new(buffered)) } else { Box::new(buffered) };
        let quotes = match format {
            InputFormat::Csv { delimiter, .. } => Some(QuoteScan::new(*delimiter)),
            _ => None,
        };
        let scan = Scan { inner, gzip, out: 0, content: false, quotes, error: None };
        let lines = |kind, scan| Source::Lines {
            reader: BufReader::with_capacity(LINE_CHUNK, scan),
            kind,
            line: 0,
            buf: Vec::new(),
        };
        let source = match format {
            InputFormat::Text => lines(LineKind::Undecided(Vec::new()), scan),
            InputFormat::Fasta => lines(LineKind::Fasta(Fasta::new(usize::MAX)), scan),
            InputFormat::Jsonl { field } => lines(LineKind::Jsonl(field.clone()), scan),
            InputFormat::Csv { delimiter, column, has_header } => Source::Csv {
                reader: csv::ReaderBuilder::new()
                    .delimiter(*delimiter)
                    .has_headers(false)
                    .flexible(true)
                    .from_reader(scan),
                column: column.clone(),
                has_header: *has_header,
                index: None,
            },
        };
        Ok(SequenceStream {
            source,
            lossy,
            skipped_lines: 0,
            sequences: 0,
            done: false,
            keep: usize::MAX,
            done_deciding: false,
        })
    }

    /// Holds at most `bytes` of each FASTA record (from the first; a record is cut there, so a
    /// whole genome needs no memory of its size): callers that count only the first
    /// positions of each sequence set it ([`super::fasta`]). Other formats are not cut.
    pub fn keep_per_record(&mut self, bytes: usize) {
        self.keep = bytes;
        if let Source::Lines { kind: LineKind::Fasta(f), .. } = &mut self.source {
            f.keep(bytes);
        }
    }

    /// The next sequences, about `bytes` of text (at least one sequence), or `None` at the end.
    pub fn next_batch(&mut self, bytes: usize) -> Result<Option<Vec<String>>> {
        if self.done {
            return Ok(None);
        }
        let mut out = Vec::new();
        let mut size = 0usize;
        while size < bytes.max(1) {
            let Some(seq) = self.next_sequence()? else {
                self.done = true;
                self.finish()?;
                break;
            };
            size += seq.len() + 1;
            self.sequences += 1;
            out.push(seq);
        }
        Ok(if out.is_empty() { None } else { Some(out) })
    }

    /// The checks at the end of the input: something was there, quotes closed, a sequence read.
    fn finish(&mut self) -> Result<()> {
        let scan = match &mut self.source {
            Source::Lines { reader, .. } => reader.get_mut(),
            Source::Csv { reader, .. } => reader.get_mut(),
        };
        if !scan.content {
            return Err(PosgeoError::EmptyInput);
        }
        if let Some(line) = scan.quotes.as_ref().and_then(QuoteScan::unclosed) {
            return Err(PosgeoError::UnclosedQuote { line });
        }
        if self.sequences == 0 {
            let why = if self.skipped_lines > 0 {
                format!("all {} line(s) were skipped as invalid UTF-8", self.skipped_lines)
            } else {
                "every record is empty".to_string()
            };
            return Err(PosgeoError::NoSequences(why));
        }
        Ok(())
    }

    fn next_sequence(&mut self) -> Result<Option<String>> {
        let lossy = self.lossy;
        let skipped = &mut self.skipped_lines;
        match &mut self.source {
            Source::Lines { reader, kind, line, buf } => loop {
                if let LineKind::Undecided(held) = kind {
                    if self.done_deciding {
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
                            self.done_deciding = true;
                            continue;
                        }
                        _ => return Ok(None),
                    }
                }
                let raw = buf.strip_suffix(b"\n").unwrap_or(buf);
                let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
                if let LineKind::Undecided(held) = kind {
                    if looks_like_fasta(raw) {
                        *kind = LineKind::Fasta(Fasta::new(self.keep));
                    } else if !raw.is_empty() && raw.iter().all(u8::is_ascii_whitespace) {
                        // A blank line: a sequence of plain text, or nothing in FASTA.
                        held.extend(owned_text(buf, *line, lossy, skipped)?);
                        continue;
                    } else if !raw.is_empty() {
                        // Plain text: the blank lines held come first, then this line.
                        held.reverse();
                        self.done_deciding = true;
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
            },
            Source::Csv { reader, column, has_header, index } => loop {
                let mut rec = csv::ByteRecord::new();
                match reader.read_byte_record(&mut rec) {
                    Ok(false) => return Ok(None),
                    Ok(true) => {}
                    Err(e) => {
                        let scan = reader.get_mut();
                        return Err(scan.error.take().unwrap_or_else(|| PosgeoError::Csv(e.to_string())));
                    }
                }
                let col = match *index {
                    Some(c) => c,
                    None => {
                        let c = column_index(&rec, column.as_deref(), *has_header)?;
                        *index = Some(c);
                        if *has_header {
                            continue;
                        }
                        c
                    }
                };
                let line = rec.position().map(|p| p.line() as usize).unwrap_or(0);
                if let Some(text) = decode(line, rec.get(col).unwrap_or(b""), lossy, skipped)? {
                    if !text.is_empty() {
                        return Ok(Some(text.to_string()));
                    }
                }
            },
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
