//! **FASTA** (docs/MATH.md §1 and §17): the format of protein and DNA data sets. A record is a
//! header line starting with `>` and the sequence lines after it, joined until the next
//! header; whitespace and `*` (a stop codon's mark) are dropped, case is kept as given. Each
//! record is one sequence.
//!
//! A file whose first non-blank character is `>` is read as FASTA whatever its name
//! ([`looks_like_fasta`]). Refused, with the line: a sequence line before any header, a record
//! without residues (a header-only file is one), and binary bytes (control characters other
//! than tab, or invalid UTF-8).
//!
//! A record is read line by line, and only its first `keep` bytes are held
//! ([`super::SequenceStream::keep_per_record`]): a whole genome in one record never needs
//! memory of its size, since positions beyond `max_len` are never counted.

use crate::error::{PosgeoError, Result};

/// Whether `head` (a file's first bytes, decompressed) reads as FASTA: its first non-blank
/// character is `>`.
pub fn looks_like_fasta(head: &[u8]) -> bool {
    head.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'>')
}

/// The record being read.
struct Record {
    /// Its header's line.
    line: usize,
    /// Its residues so far (at most `keep` bytes of them).
    residues: String,
    /// Whether any residue was read (kept or not).
    any: bool,
}

/// Records assembled from lines.
pub(super) struct Fasta {
    record: Option<Record>,
    keep: usize,
}

impl Fasta {
    /// Records whose first `keep` bytes are held.
    pub(super) fn new(keep: usize) -> Self {
        Fasta { record: None, keep }
    }

    /// Holds at most `keep` bytes of each record from now on.
    pub(super) fn keep(&mut self, keep: usize) {
        self.keep = keep;
    }

    /// Reads line `no` (its newline and a `\r` before it dropped); returns the record a
    /// header ends.
    pub(super) fn line(&mut self, no: usize, raw: &[u8]) -> Result<Option<String>> {
        let text = checked(no, raw)?;
        if text.starts_with('>') {
            let done = self.record.replace(Record { line: no, residues: String::new(), any: false });
            return done.map(finished).transpose();
        }
        if text.trim().is_empty() {
            return Ok(None);
        }
        let Some(record) = self.record.as_mut() else {
            return Err(PosgeoError::BadRecord {
                line: no,
                message: "a sequence line before any header (a FASTA record starts with a line beginning with '>')"
                    .into(),
            });
        };
        let room = self.keep.saturating_sub(record.residues.len());
        if text.bytes().all(|b| b > b' ' && b != b'*' && b < 0x80) {
            // The usual line: ASCII residues alone, taken whole (or as far as the room).
            record.any = true;
            record.residues.push_str(&text[..text.len().min(room)]);
            return Ok(None);
        }
        for c in text.chars().filter(|c| !c.is_whitespace() && *c != '*') {
            record.any = true;
            if record.residues.len() + c.len_utf8() <= self.keep {
                record.residues.push(c);
            }
        }
        Ok(None)
    }

    /// The last record, at the end of the input.
    pub(super) fn finish(&mut self) -> Result<Option<String>> {
        self.record.take().map(finished).transpose()
    }
}

/// A record's sequence, or the refusal of an empty one.
fn finished(r: Record) -> Result<String> {
    match r.any {
        true => Ok(r.residues),
        false => Err(PosgeoError::BadRecord {
            line: r.line,
            message: "this FASTA record has no residues (a header with no sequence after it)".into(),
        }),
    }
}

/// The line as text, or the refusal of binary bytes.
fn checked(no: usize, raw: &[u8]) -> Result<&str> {
    let binary = |what: String| PosgeoError::BadRecord {
        line: no,
        message: format!("{what}: this is not a FASTA text file (is it compressed with something other than gzip?)"),
    };
    if let Some(b) = raw.iter().find(|&&b| (b < 0x20 && b != b'\t') || b == 0x7f) {
        return Err(binary(format!("binary byte 0x{b:02x}")));
    }
    std::str::from_utf8(raw).map_err(|_| binary("bytes that are not UTF-8".into()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn read(text: &[u8], keep: usize) -> Result<Vec<String>> {
        let mut f = Fasta::new(keep);
        let mut out = Vec::new();
        for (k, line) in text.split(|&b| b == b'\n').enumerate() {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            out.extend(f.line(k + 1, line)?);
        }
        out.extend(f.finish()?);
        Ok(out)
    }

    #[test]
    fn records_join_their_lines_and_drop_whitespace_and_stops() {
        let text = b"\n>sp|P1 first\nMKV LL\r\nAA*\n\n>second\nmkt\n>third\n*G*\n";
        assert_eq!(read(text, 1 << 20).unwrap(), ["MKVLLAA", "mkt", "G"]);
        assert!(looks_like_fasta(b"  \n>x\nA") && !looks_like_fasta(b"A>x") && !looks_like_fasta(b""));
    }

    #[test]
    fn only_the_first_bytes_of_a_record_are_held() {
        let text = b">genome\nACGTACGT\nACGTACGT\n>next\nTT\n";
        assert_eq!(read(text, 5).unwrap(), ["ACGTA", "TT"]);
    }

    #[test]
    fn refusals_name_their_line() {
        let cases: [(&[u8], usize, &str); 5] = [
            (b"MKV\n>x\nA\n", 1, "before any header"),
            (b">only a header\n", 1, "no residues"),
            (b">a\nMK\n>b\n\n>c\nL\n", 3, "no residues"),
            (b">a\nMK\x00V\n", 2, "binary byte 0x00"),
            (b">a\nM\n\xff\xfeK\n", 3, "not UTF-8"),
        ];
        for (text, line, what) in cases {
            match read(text, 1 << 20) {
                Err(PosgeoError::BadRecord { line: l, message }) => {
                    assert_eq!(l, line, "{message}");
                    assert!(message.contains(what), "{message}");
                }
                other => panic!("{:?}: {other:?}", String::from_utf8_lossy(text)),
            }
        }
    }
}
