//! Decompressed bytes on their way to a parser ([`super::SequenceStream`]): counted, checked
//! for content, followed through CSV quoting, and a damaged gzip stream turned into a message.

use super::csv::QuoteScan;
use crate::error::PosgeoError;
use std::io::Read;

/// Decompressed bytes on their way to the parser: counts them, notes whether any is not
/// whitespace, follows CSV quoting, and turns a damaged gzip stream into a message.
pub(super) struct Scan<'r> {
    pub(super) inner: Box<dyn Read + 'r>,
    pub(super) gzip: bool,
    pub(super) out: u64,
    pub(super) content: bool,
    pub(super) quotes: Option<QuoteScan>,
    pub(super) error: Option<PosgeoError>,
}

impl Read for Scan<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let k = match self.inner.read(buf) {
            Ok(k) => k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => return Err(e),
            Err(e) => {
                let what = if self.gzip { "the gzip stream is damaged" } else { "the input could not be read" };
                self.error = Some(PosgeoError::Unreadable(format!(
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

/// The message of a read that failed: the one the scan noted, or the error itself.
pub(super) fn io_error(scan: &mut Scan<'_>, e: std::io::Error) -> PosgeoError {
    scan.error.take().unwrap_or_else(|| PosgeoError::Unreadable(format!("the input could not be read ({e})")))
}
