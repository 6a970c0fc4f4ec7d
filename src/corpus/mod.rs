//! Stage 1 — **corpus input**: bytes → a list of sequences (SPEC §1 of the project docs,
//! `docs/MATH.md`).
//!
//! * Plain text: one sequence per non-empty line; a trailing `\r` is dropped. A line is
//!   "non-empty" when it holds at least one character after the `\r` is dropped.
//! * CSV/TSV: one sequence per record, from a column chosen by header name or by 0-based
//!   index; quoting is handled by the `csv` crate.
//! * JSON Lines: one sequence per line, from a named string field.
//! * Gzip-compressed input (magic bytes `1f 8b`) is decompressed first, whatever the format.
//!
//! Invalid UTF-8 is an error naming the line, unless `lossy` is set: then such lines are
//! skipped and counted in [`Corpus::skipped_lines`].

pub mod tokenize;

use crate::error::{PosgeoError, Result};
use serde::{Deserialize, Serialize};
use std::io::Read;

/// How the sequences are laid out in the input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(tag = "kind", rename_all = "lowercase")]
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
}

impl FileKind {
    /// Every kind, in the pickers' order.
    pub const ALL: [FileKind; 4] = [FileKind::Text, FileKind::Csv, FileKind::Tsv, FileKind::Jsonl];

    /// The name on the command line and in the page.
    pub fn name(self) -> &'static str {
        match self {
            FileKind::Text => "text",
            FileKind::Csv => "csv",
            FileKind::Tsv => "tsv",
            FileKind::Jsonl => "jsonl",
        }
    }

    /// Parses [`FileKind::name`].
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The kind a file name says (`.csv`, `.tsv`, `.jsonl`/`.ndjson`, each maybe `.gz`;
    /// anything else is text), case-insensitively.
    pub fn from_file_name(name: &str) -> Self {
        let lower = name.to_lowercase();
        let base = lower.strip_suffix(".gz").unwrap_or(&lower);
        if base.ends_with(".csv") {
            FileKind::Csv
        } else if base.ends_with(".tsv") {
            FileKind::Tsv
        } else if base.ends_with(".jsonl") || base.ends_with(".ndjson") {
            FileKind::Jsonl
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

    /// Reads a corpus from raw bytes (gzip is detected and decompressed).
    pub fn read(bytes: &[u8], format: &InputFormat, lossy: bool) -> Result<Self> {
        let decompressed;
        let bytes = if is_gzip(bytes) {
            decompressed = gunzip(bytes)?;
            &decompressed[..]
        } else {
            bytes
        };
        if bytes.iter().all(|b| b.is_ascii_whitespace()) {
            return Err(PosgeoError::EmptyInput);
        }
        let corpus = match format {
            InputFormat::Text => read_text(bytes, lossy)?,
            InputFormat::Csv { delimiter, column, has_header } => {
                read_csv(bytes, *delimiter, column.as_deref(), *has_header, lossy)?
            }
            InputFormat::Jsonl { field } => read_jsonl(bytes, field, lossy)?,
        };
        if corpus.sequences.is_empty() {
            let why = if corpus.skipped_lines > 0 {
                format!("all {} line(s) were skipped as invalid UTF-8", corpus.skipped_lines)
            } else {
                "every record is empty".to_string()
            };
            return Err(PosgeoError::NoSequences(why));
        }
        Ok(corpus)
    }
}

fn strip_cr(line: &str) -> &str {
    line.strip_suffix('\r').unwrap_or(line)
}

/// True when the bytes start with the gzip magic number.
pub fn is_gzip(bytes: &[u8]) -> bool {
    bytes.len() >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b
}

/// Decompresses, never past the memory budget ([`crate::limits`]): running out of room is
/// a message about size, a damaged stream a message about the stream.
fn gunzip(bytes: &[u8]) -> Result<Vec<u8>> {
    gunzip_within(bytes, crate::limits::MEMORY_BUDGET)
}

fn gunzip_within(bytes: &[u8], budget: u64) -> Result<Vec<u8>> {
    const CHUNK: usize = 1 << 20;
    let mut out = Vec::new();
    let mut dec = flate2::read::MultiGzDecoder::new(bytes);
    loop {
        if out.len() as u64 + CHUNK as u64 > budget.max(CHUNK as u64) {
            return Err(PosgeoError::TooLarge(format!(
                "the gzip stream ({} compressed) expands beyond the memory budget of {}",
                crate::limits::human(bytes.len() as u64),
                crate::limits::human(budget)
            )));
        }
        crate::limits::reserve(&mut out, CHUNK, "decompressing the gzip stream")?;
        let start = out.len();
        out.resize(start + CHUNK, 0);
        match dec.read(&mut out[start..]) {
            Ok(0) => {
                out.truncate(start);
                return Ok(out);
            }
            Ok(k) => out.truncate(start + k),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => out.truncate(start),
            Err(e) => {
                return Err(PosgeoError::NoSequences(format!(
                    "the gzip stream is damaged after {} of output ({e})",
                    crate::limits::human(start as u64)
                )))
            }
        }
    }
}

/// The line where a quoted CSV/TSV field opens and never closes, if one does (RFC 4180: a
/// quote opens a field only at its start; `""` inside is an escaped quote).
fn unclosed_quote(bytes: &[u8], delimiter: u8) -> Option<usize> {
    let (mut line, mut at_start, mut open_at) = (1usize, true, None);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match open_at {
            Some(_) if b == b'"' && bytes.get(i + 1) == Some(&b'"') => i += 1,
            Some(_) if b == b'"' => open_at = None,
            None if b == b'"' && at_start => open_at = Some(line),
            _ => {}
        }
        if b == b'\n' {
            line += 1;
        }
        at_start = open_at.is_none() && (b == delimiter || b == b'\n' || b == b'\r');
        i += 1;
    }
    open_at
}

/// Splits bytes into lines (without `\n`), numbering them from 1.
fn lines(bytes: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    let trimmed = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    trimmed.split(|&b| b == b'\n').enumerate().map(|(i, l)| (i + 1, l))
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

fn read_text(bytes: &[u8], lossy: bool) -> Result<Corpus> {
    let mut corpus = Corpus::default();
    for (no, raw) in lines(bytes) {
        if let Some(line) = decode(no, raw, lossy, &mut corpus.skipped_lines)? {
            if !line.is_empty() {
                corpus.sequences.push(line.to_string());
            }
        }
    }
    Ok(corpus)
}

fn read_jsonl(bytes: &[u8], field: &str, lossy: bool) -> Result<Corpus> {
    let mut corpus = Corpus::default();
    for (no, raw) in lines(bytes) {
        let Some(line) = decode(no, raw, lossy, &mut corpus.skipped_lines)? else { continue };
        if line.trim().is_empty() {
            continue;
        }
        let value: serde_json::Value = serde_json::from_str(line)
            .map_err(|e| PosgeoError::BadRecord { line: no, message: format!("not valid JSON ({e})") })?;
        let text = match value.get(field) {
            Some(serde_json::Value::String(s)) => s,
            Some(other) => {
                return Err(PosgeoError::BadRecord {
                    line: no,
                    message: format!("field {field:?} is not a string but {}", json_kind(other)),
                })
            }
            None => {
                return Err(PosgeoError::BadRecord { line: no, message: format!("the record has no field {field:?}") })
            }
        };
        if !text.is_empty() {
            corpus.sequences.push(text.clone());
        }
    }
    Ok(corpus)
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

/// The header names of a CSV/TSV file (first record), for a column picker.
pub fn csv_headers(bytes: &[u8], delimiter: u8) -> Result<Vec<String>> {
    let mut rdr = csv::ReaderBuilder::new().delimiter(delimiter).has_headers(false).flexible(true).from_reader(bytes);
    let mut rec = csv::ByteRecord::new();
    match rdr.read_byte_record(&mut rec) {
        Ok(true) => Ok(rec.iter().map(|f| String::from_utf8_lossy(f).into_owned()).collect()),
        Ok(false) => Err(PosgeoError::EmptyInput),
        Err(e) => Err(PosgeoError::Csv(e.to_string())),
    }
}

fn read_csv(bytes: &[u8], delimiter: u8, column: Option<&str>, has_header: bool, lossy: bool) -> Result<Corpus> {
    if let Some(line) = unclosed_quote(bytes, delimiter) {
        return Err(PosgeoError::UnclosedQuote { line });
    }
    let mut rdr = csv::ReaderBuilder::new().delimiter(delimiter).has_headers(false).flexible(true).from_reader(bytes);
    let mut records = rdr.byte_records();
    let mut corpus = Corpus::default();
    let first = match records.next() {
        Some(r) => r.map_err(|e| PosgeoError::Csv(e.to_string()))?,
        None => return Err(PosgeoError::EmptyInput),
    };
    let names: Vec<String> = first.iter().map(|f| String::from_utf8_lossy(f).into_owned()).collect();
    let available = || {
        if has_header {
            names.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>().join(", ")
        } else {
            format!("0..{} (no header row)", names.len())
        }
    };
    let index = match column {
        None if names.len() == 1 => 0,
        None => return Err(PosgeoError::MissingColumn { column: "(none chosen)".into(), available: available() }),
        Some(c) => {
            let by_name = if has_header { names.iter().position(|n| n == c) } else { None };
            match by_name.or_else(|| c.parse::<usize>().ok().filter(|&i| i < names.len())) {
                Some(i) => i,
                None => return Err(PosgeoError::MissingColumn { column: c.into(), available: available() }),
            }
        }
    };
    let push = |rec: &csv::ByteRecord, corpus: &mut Corpus| -> Result<()> {
        let line = rec.position().map(|p| p.line() as usize).unwrap_or(0);
        let raw = rec.get(index).unwrap_or(b"");
        if let Some(text) = decode(line, raw, lossy, &mut corpus.skipped_lines)? {
            if !text.is_empty() {
                corpus.sequences.push(text.to_string());
            }
        }
        Ok(())
    };
    if !has_header {
        push(&first, &mut corpus)?;
    }
    for rec in records {
        let rec = rec.map_err(|e| PosgeoError::Csv(e.to_string()))?;
        push(&rec, &mut corpus)?;
    }
    Ok(corpus)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unclosed_quote_names_the_line_it_opens_on() {
        assert_eq!(unclosed_quote(b"a,b\n1,\"x\"\"y\"\n2,\"z\n3,w\n", b','), Some(3));
        assert_eq!(unclosed_quote(b"a,b\n1,\"x\ny\"\n2,ab\"c\n", b','), None, "closed; a mid-field quote is literal");
        let csv = b"id,text\n1,ok\n2,\"never closed\n3,more\n4,rows\n";
        let fmt = InputFormat::Csv { delimiter: b',', column: Some("text".into()), has_header: true };
        let e = Corpus::read(csv, &fmt, false).unwrap_err();
        assert_eq!(e, PosgeoError::UnclosedQuote { line: 3 });
        assert!(e.to_string().starts_with("line 3: a quoted field opens here"));
    }

    #[test]
    fn a_damaged_gzip_stream_says_so() {
        let mut gz = Vec::new();
        {
            use std::io::Write;
            let mut enc = flate2::write::GzEncoder::new(&mut gz, flate2::Compression::default());
            enc.write_all(&b"one two three\n".repeat(1000)).unwrap();
        }
        let whole = gz.clone();
        gz.truncate(gz.len() / 2);
        let e = Corpus::read(&gz, &InputFormat::Text, false).unwrap_err().to_string();
        assert!(e.contains("gzip stream is damaged"), "{e}");
        // A stream that expands past the budget is a message about size, not "corrupt".
        let mut bomb = Vec::new();
        {
            use std::io::Write;
            let mut enc = flate2::write::GzEncoder::new(&mut bomb, flate2::Compression::best());
            enc.write_all(&vec![b'a'; 5 << 20]).unwrap();
        }
        let e = gunzip_within(&bomb, 3 << 20).unwrap_err().to_string();
        assert!(e.starts_with("too large: the gzip stream") && e.contains("expands beyond the memory budget"), "{e}");
        assert_eq!(gunzip_within(&whole, 3 << 20).unwrap().len(), 14_000);
    }

    #[test]
    fn kind_from_file_name() {
        for (name, kind) in [
            ("a.csv", FileKind::Csv),
            ("A.CSV.GZ", FileKind::Csv),
            ("x.tsv", FileKind::Tsv),
            ("d.jsonl.gz", FileKind::Jsonl),
            ("d.ndjson", FileKind::Jsonl),
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
