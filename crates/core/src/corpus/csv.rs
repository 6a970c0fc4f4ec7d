//! CSV/TSV input: one sequence per record from a chosen column (the `csv` crate), after a
//! scan that names the line of a quote that never closes.

use crate::error::{PosgeoError, Result};

/// Follows RFC 4180 quoting over bytes fed in pieces, to name the line where a quoted
/// field opens and never closes (a quote opens a field only at its start; `""` inside is an
/// escaped quote).
#[derive(Debug, Clone)]
pub(super) struct QuoteScan {
    delimiter: u8,
    line: usize,
    at_start: bool,
    open_at: Option<usize>,
    /// Inside a quoted field, a quote was just seen: escaped (`""`) or closing.
    pending: bool,
}

impl QuoteScan {
    pub(super) fn new(delimiter: u8) -> Self {
        QuoteScan { delimiter, line: 1, at_start: true, open_at: None, pending: false }
    }

    pub(super) fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.pending {
                self.pending = false;
                if b == b'"' {
                    continue; // an escaped quote: the field stays open
                }
                self.open_at = None;
            }
            match self.open_at {
                Some(_) if b == b'"' => {
                    self.pending = true;
                    self.at_start = false;
                    continue;
                }
                None if b == b'"' && self.at_start => self.open_at = Some(self.line),
                _ => {}
            }
            if b == b'\n' {
                self.line += 1;
            }
            self.at_start = self.open_at.is_none() && (b == self.delimiter || b == b'\n' || b == b'\r');
        }
    }

    /// The line of a quoted field still open at the end of the input.
    pub(super) fn unclosed(&self) -> Option<usize> {
        if self.pending {
            None
        } else {
            self.open_at
        }
    }
}

#[cfg(test)]
fn unclosed_quote(bytes: &[u8], delimiter: u8) -> Option<usize> {
    let mut q = QuoteScan::new(delimiter);
    for piece in bytes.chunks(3) {
        q.feed(piece);
    }
    q.unclosed()
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

/// The column to read, from the first record (the header row, or the first data row).
pub(super) fn column_index(first: &csv::ByteRecord, column: Option<&str>, has_header: bool) -> Result<usize> {
    let names: Vec<String> = first.iter().map(|f| String::from_utf8_lossy(f).into_owned()).collect();
    let available = || {
        if has_header {
            names.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>().join(", ")
        } else {
            format!("0..{} (no header row)", names.len())
        }
    };
    match column {
        None if names.len() == 1 => Ok(0),
        None => Err(PosgeoError::MissingColumn { column: "(none chosen)".into(), available: available() }),
        Some(c) => {
            let by_name = if has_header { names.iter().position(|n| n == c) } else { None };
            match by_name.or_else(|| c.parse::<usize>().ok().filter(|&i| i < names.len())) {
                Some(i) => Ok(i),
                None => Err(PosgeoError::MissingColumn { column: c.into(), available: available() }),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::{Corpus, InputFormat};

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
}
