//! CSV/TSV input: one sequence per record from a chosen column (the `csv` crate), after a
//! scan that names the line of a quote that never closes.

use super::{decode, Corpus};
use crate::error::{PosgeoError, Result};

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

pub(super) fn read_csv(
    bytes: &[u8],
    delimiter: u8,
    column: Option<&str>,
    has_header: bool,
    lossy: bool,
) -> Result<Corpus> {
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
    use crate::corpus::InputFormat;

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
