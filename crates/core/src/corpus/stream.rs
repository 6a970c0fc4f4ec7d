//! Streaming input: a reader (a file, standard input, a browser `Blob`) → batches of
//! sequences, decompressing gzip on the way, so memory grows with one batch and not with the
//! text. [`Corpus::read`](super::Corpus::read) is this stream collected.
//!
//! The rules are those of the module above (text lines, CSV/TSV records, JSON Lines
//! fields; invalid UTF-8 an error naming the line unless `lossy`).

use super::csv::{column_index, QuoteScan};
use super::fasta::Fasta;
use super::lines::{next_line_sequence, LineKind, LineState, LINE_CHUNK};
use super::scan::Scan;
use super::{decode, is_gzip, InputFormat};
use crate::error::{PosgeoError, Result};
use std::io::{BufRead, BufReader, Read};

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

impl<'r> SequenceStream<'r> {
    /// A stream over `reader` (gzip detected from its first bytes).
    pub fn new(reader: impl Read + 'r, format: &InputFormat, lossy: bool) -> Result<Self> {
        let mut buffered = BufReader::with_capacity(1 << 16, reader);
        let head =
            buffered.fill_buf().map_err(|e| PosgeoError::Unreadable(format!("the input could not be read ({e})")))?;
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
            Source::Lines { reader, kind, line, buf } => {
                let state = LineState { lossy, keep: self.keep, deciding_done: &mut self.done_deciding };
                next_line_sequence(reader, kind, line, buf, skipped, state)
            }
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
