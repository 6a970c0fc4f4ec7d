//! Stage 1 — **corpus input**: bytes → a list of sequences (`docs/MATH.md` §1).
//!
//! * Plain text: one sequence per non-empty line; a trailing `\r` is dropped. A line is
//!   "non-empty" when it holds at least one character after the `\r` is dropped.
//! * CSV/TSV: one sequence per record, from a column chosen by header name or by 0-based
//!   index; quoting is handled by the `csv` crate.
//! * JSON Lines: one sequence per line, from a named string field.
//! * FASTA: one sequence per record ([`fasta`]); plain text whose first non-blank character
//!   is `>` is read as FASTA.
//! * Gzip-compressed input (magic bytes `1f 8b`) is decompressed first, whatever the format.
//!
//! Invalid UTF-8 is an error naming the line, unless `lossy` is set: then such lines are
//! skipped and counted in [`Corpus::skipped_lines`].

mod csv;
pub mod fasta;
mod gzip;
pub mod hf_tokenizer;
mod json_numbers;
mod lines;
pub mod tokenize;

mod read_counter;
mod scan;
mod slice;
mod split;
mod stream;
mod words;

pub use self::csv::csv_headers;
pub use gzip::{gunzip as gunzip_within_budget, gunzip_head, is_gzip};
pub use read_counter::ReadCounter;
pub use slice::LineRange;
pub use stream::SequenceStream;

use crate::error::{PosgeoError, Result};
use serde::{Deserialize, Serialize};

/// How the sequences are laid out in the input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum InputFormat {
    /// One sequence per non-empty line.
    #[default]
    Text,
    /// Comma- or tab-separated values.
    Csv {
        /// Field delimiter (`b','` for CSV, `b'\t'` for TSV).
        delimiter: u8,
        /// Header name or 0-based index; `None` means "the only column".
        column: Option<String>,
        /// Whether the first record is a header row.
        has_header: bool,
    },
    /// JSON Lines with a string field.
    Jsonl {
        /// The field holding the sequence text.
        field: String,
    },
    /// FASTA records ([`fasta`]).
    Fasta,
}

/// The input formats as users name them (`--format`, the page's format picker).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FileKind {
    /// Plain text.
    #[default]
    Text,
    /// Comma-separated values.
    Csv,
    /// Tab-separated values.
    Tsv,
    /// JSON Lines.
    Jsonl,
    /// FASTA.
    Fasta,
}

impl FileKind {
    /// Every kind, in the pickers' order.
    pub const ALL: [FileKind; 5] = [FileKind::Text, FileKind::Csv, FileKind::Tsv, FileKind::Jsonl, FileKind::Fasta];

    /// The name on the command line and in the page.
    pub fn name(self) -> &'static str {
        match self {
            FileKind::Text => "text",
            FileKind::Csv => "csv",
            FileKind::Tsv => "tsv",
            FileKind::Jsonl => "jsonl",
            FileKind::Fasta => "fasta",
        }
    }

    /// Parses [`FileKind::name`].
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The kind a file name says (`.csv`, `.tsv`, `.jsonl`/`.ndjson`, `.fa`/`.fasta`/`.faa`/
    /// `.fna`, each maybe `.gz`; anything else is text, which is read as FASTA when it starts
    /// with `>`), case-insensitively.
    pub fn from_file_name(name: &str) -> Self {
        let lower = name.to_lowercase();
        let base = lower.strip_suffix(".gz").unwrap_or(&lower);
        if base.ends_with(".csv") {
            FileKind::Csv
        } else if base.ends_with(".tsv") {
            FileKind::Tsv
        } else if base.ends_with(".jsonl") || base.ends_with(".ndjson") {
            FileKind::Jsonl
        } else if [".fa", ".fasta", ".faa", ".fna"].iter().any(|e| base.ends_with(e)) {
            FileKind::Fasta
        } else {
            FileKind::Text
        }
    }

    /// The delimiter of the CSV kinds.
    pub fn delimiter(self) -> Option<u8> {
        match self {
            FileKind::Csv => Some(b','),
            FileKind::Tsv => Some(b'\t'),
            _ => None,
        }
    }

    /// The full input format, with the column (CSV/TSV) or field (JSON Lines) to read.
    pub fn input_format(self, column: Option<String>, has_header: bool, field: &str) -> InputFormat {
        match (self, self.delimiter()) {
            (FileKind::Jsonl, _) => InputFormat::Jsonl { field: field.to_string() },
            (FileKind::Fasta, _) => InputFormat::Fasta,
            (_, Some(delimiter)) => InputFormat::Csv { delimiter, column, has_header },
            _ => InputFormat::Text,
        }
    }
}

/// A corpus: its sequences (untokenized) and what was skipped while reading it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Corpus {
    /// One entry per sequence, in input order.
    pub sequences: Vec<String>,
    /// Lines skipped because they were not valid UTF-8 (only with `lossy`).
    pub skipped_lines: usize,
}

impl Corpus {
    /// A corpus from sequences already in memory.
    pub fn from_sequences<I: IntoIterator<Item = S>, S: Into<String>>(seqs: I) -> Self {
        Corpus { sequences: seqs.into_iter().map(Into::into).collect(), skipped_lines: 0 }
    }

    /// Plain text already decoded: one sequence per non-empty line.
    pub fn from_text(text: &str) -> Self {
        Corpus::from_sequences(text.split('\n').map(strip_cr).filter(|l| !l.is_empty()))
    }

    /// Reads a corpus from raw bytes (gzip is detected and decompressed): the
    /// [`SequenceStream`] collected, within the memory budget.
    pub fn read(bytes: &[u8], format: &InputFormat, lossy: bool) -> Result<Self> {
        let mut stream = SequenceStream::new(bytes, format, lossy)?;
        let mut corpus = Corpus::default();
        let mut size = 0u64;
        while let Some(batch) = stream.next_batch(1 << 22)? {
            size += batch.iter().map(|s| s.len() as u64 + 24).sum::<u64>();
            crate::limits::check("the corpus held in memory", size)?;
            corpus.sequences.extend(batch);
        }
        corpus.skipped_lines = stream.skipped_lines;
        Ok(corpus)
    }
}

fn strip_cr(line: &str) -> &str {
    line.strip_suffix('\r').unwrap_or(line)
}

/// Decodes one line, or returns `None` (lossy) / an error naming the line.
fn decode<'a>(line_no: usize, raw: &'a [u8], lossy: bool, skipped: &mut usize) -> Result<Option<&'a str>> {
    match std::str::from_utf8(raw) {
        Ok(s) => Ok(Some(strip_cr(s))),
        Err(_) if lossy => {
            *skipped += 1;
            Ok(None)
        }
        Err(_) => Err(PosgeoError::InvalidUtf8 { line: line_no }),
    }
}

/// The sequence of one JSON Lines line (`None` for a blank line or an empty text).
fn jsonl_sequence(no: usize, line: &str, field: &str) -> Result<Option<String>> {
    // A byte-order mark (files saved by Windows tools start with one) is not JSON: skipped,
    // on any line, so that a file cut into parts reads the same.
    let line = line.strip_prefix('\u{feff}').unwrap_or(line);
    if line.trim().is_empty() {
        return Ok(None);
    }
    let value: serde_json::Value = serde_json::from_str(line)
        .map_err(|e| PosgeoError::BadRecord { line: no, message: format!("not valid JSON ({e})") })?;
    match value.get(field) {
        Some(serde_json::Value::String(s)) => Ok(Some(s.clone()).filter(|s| !s.is_empty())),
        Some(other) => Err(PosgeoError::BadRecord {
            line: no,
            message: format!("field {field:?} is not a string but {}", json_kind(other)),
        }),
        None => Err(PosgeoError::BadRecord { line: no, message: format!("the record has no field {field:?}") }),
    }
}

fn json_kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_from_file_name() {
        for (name, kind) in [
            ("a.csv", FileKind::Csv),
            ("A.CSV.GZ", FileKind::Csv),
            ("x.tsv", FileKind::Tsv),
            ("d.jsonl.gz", FileKind::Jsonl),
            ("d.ndjson", FileKind::Jsonl),
            ("uniprot.FASTA.gz", FileKind::Fasta),
            ("p.faa", FileKind::Fasta),
            ("g.fna", FileKind::Fasta),
            ("x.fa", FileKind::Fasta),
            ("notes.txt", FileKind::Text),
            ("", FileKind::Text),
            ("csv", FileKind::Text),
        ] {
            assert_eq!(FileKind::from_file_name(name), kind, "{name}");
        }
        for k in FileKind::ALL {
            assert_eq!(FileKind::parse(k.name()), Some(k));
        }
        let f = FileKind::Tsv.input_format(Some("text".into()), true, "x");
        assert_eq!(f, InputFormat::Csv { delimiter: b'\t', column: Some("text".into()), has_header: true });
    }

    #[test]
    fn fasta_is_read_by_name_or_by_its_first_character() {
        use std::io::Write;
        let text = b"\n>a desc\nMKV\nLL*\n>b\nGG\n";
        for format in [InputFormat::Fasta, InputFormat::Text] {
            assert_eq!(Corpus::read(text, &format, false).unwrap().sequences, vec!["MKVLL", "GG"]);
        }
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(text).unwrap();
        assert_eq!(
            Corpus::read(&enc.finish().unwrap(), &InputFormat::Text, false).unwrap().sequences,
            vec!["MKVLL", "GG"]
        );
        // Plain text keeps its blank lines as sequences and '>' after the first line as text.
        let c = Corpus::read(b"  \nplain > text\n>not a header\n", &InputFormat::Text, false).unwrap();
        assert_eq!(c.sequences, vec!["  ", "plain > text", ">not a header"]);
        let e = Corpus::read(b">header only\n", &InputFormat::Text, false).unwrap_err();
        assert!(matches!(e, PosgeoError::BadRecord { line: 1, .. }), "{e}");
        // A record is cut at what is kept of it.
        let mut s = SequenceStream::new(&b">g\nACGT\nACGT\n>h\nT\n"[..], &InputFormat::Fasta, false).unwrap();
        s.keep_per_record(6);
        assert_eq!(s.next_batch(1 << 20).unwrap().unwrap(), vec!["ACGTAC", "T"]);
    }

    #[test]
    fn text_lines_drop_cr_and_blank_lines() {
        let c = Corpus::read(b"a b\r\n\n c\r\n", &InputFormat::Text, false).unwrap();
        assert_eq!(c.sequences, vec!["a b", " c"]);
    }

    #[test]
    fn invalid_utf8_names_line_or_is_skipped() {
        let bytes = b"ok\n\xff\xfe bad\nfine\n";
        let err = Corpus::read(bytes, &InputFormat::Text, false).unwrap_err();
        assert_eq!(err, PosgeoError::InvalidUtf8 { line: 2 });
        let c = Corpus::read(bytes, &InputFormat::Text, true).unwrap();
        assert_eq!(c.sequences, vec!["ok", "fine"]);
        assert_eq!(c.skipped_lines, 1);
    }

    #[test]
    fn csv_by_name_index_and_quotes() {
        let data = b"id,text\n1,\"hello, world\"\n2,\"say \"\"hi\"\"\"\n";
        let f = |c: &str| InputFormat::Csv { delimiter: b',', column: Some(c.into()), has_header: true };
        let c = Corpus::read(data, &f("text"), false).unwrap();
        assert_eq!(c.sequences, vec!["hello, world", "say \"hi\""]);
        // A byte-order mark before the header is not part of its first name.
        let marked = [&b"\xef\xbb\xbf"[..], &data[..]].concat();
        assert_eq!(Corpus::read(&marked, &f("id"), false).unwrap().sequences, vec!["1", "2"]);
        assert_eq!(Corpus::read(data, &f("1"), false).unwrap(), c);
        let err = Corpus::read(data, &f("body"), false).unwrap_err();
        assert!(matches!(err, PosgeoError::MissingColumn { .. }), "{err}");
    }

    #[test]
    fn jsonl_field_errors_name_the_line() {
        let f = InputFormat::Jsonl { field: "text".into() };
        let c = Corpus::read(b"{\"text\":\"a b\"}\n\n{\"text\":\"c\"}\n", &f, false).unwrap();
        assert_eq!(c.sequences, vec!["a b", "c"]);
        let e = Corpus::read(b"{\"text\":\"a\"}\n{\"body\":1}\n", &f, false).unwrap_err();
        assert!(matches!(e, PosgeoError::BadRecord { line: 2, .. }), "{e}");
        let e = Corpus::read(b"{\"text\":\"a\"}\nnot json\n", &f, false).unwrap_err();
        assert!(matches!(e, PosgeoError::BadRecord { line: 2, .. }), "{e}");
        // A byte-order mark before the first record is skipped.
        let c = Corpus::read(b"\xef\xbb\xbf{\"text\":\"a b\"}\n{\"text\":\"c\"}\n", &f, false).unwrap();
        assert_eq!(c.sequences, vec!["a b", "c"]);
    }

    #[test]
    fn gzip_is_transparent_and_empty_is_an_error() {
        use std::io::Write;
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(b"x y\nz\n").unwrap();
        let gz = enc.finish().unwrap();
        let c = Corpus::read(&gz, &InputFormat::Text, false).unwrap();
        assert_eq!(c.sequences, vec!["x y", "z"]);
        assert_eq!(Corpus::read(b" \n\n", &InputFormat::Text, false), Err(PosgeoError::EmptyInput));
    }
}
