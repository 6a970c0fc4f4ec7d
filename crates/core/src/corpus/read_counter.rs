//! A reader that counts the bytes it passes on, for progress on a file of known size (the CLI's
//! and the page's progress bars while a corpus streams).

use std::io::Read;

/// A reader that adds the bytes it passes on to a shared count (for progress on a file of
/// known size).
pub struct ReadCounter<R> {
    /// The reader counted.
    pub inner: R,
    /// Bytes read so far.
    pub read: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl<R: Read> Read for ReadCounter<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let k = self.inner.read(buf)?;
        self.read.fetch_add(k as u64, std::sync::atomic::Ordering::Relaxed);
        Ok(k)
    }
}
