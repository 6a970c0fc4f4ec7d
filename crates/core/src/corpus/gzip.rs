//! Gzip input, decompressed within the memory budget ([`crate::limits`]).

use crate::error::{PosgeoError, Result};
use std::io::Read;

/// True when the bytes start with the gzip magic number.
pub fn is_gzip(bytes: &[u8]) -> bool {
    bytes.len() >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b
}

/// The first `max` bytes (about) a gzip stream's start decompresses to — as much as a
/// truncated head allows (for recognising a file from its first bytes).
pub fn gunzip_head(head: &[u8], max: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut dec = flate2::read::MultiGzDecoder::new(head);
    let mut chunk = [0u8; 8192];
    while out.len() < max {
        match dec.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(k) => out.extend_from_slice(&chunk[..k]),
        }
    }
    out
}

/// Decompresses, never past the memory budget ([`crate::limits`]): running out of room is
/// a message about size, a damaged stream a message about the stream.
pub fn gunzip(bytes: &[u8]) -> Result<Vec<u8>> {
    gunzip_within(bytes, crate::limits::budget())
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
                crate::limits::budget_text(budget)
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
                return Err(PosgeoError::Unreadable(format!(
                    "the gzip stream is damaged after {} of output ({e})",
                    crate::limits::human(start as u64)
                )))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::{Corpus, InputFormat};

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
}
