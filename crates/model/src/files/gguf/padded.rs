//! A GGUF file's bytes read as if the file went on (zeros), to tell a truncated header from
//! one that cannot be read, by reading it again rather than by its error's text.

/// A file's bytes followed by zeros up to [`Padded::LEN`], read without allocating them: a
/// header that reads from it but not from the bytes alone runs past the end of the file.
pub(super) struct Padded<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) at: u64,
}

impl Padded<'_> {
    /// 1 GiB: a header longer than that is no header.
    const LEN: u64 = 1 << 30;
}

impl std::io::Read for Padded<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let end = (self.at + buf.len() as u64).min(Self::LEN.max(self.bytes.len() as u64));
        let k = end.saturating_sub(self.at) as usize;
        let start = usize::try_from(self.at).unwrap_or(usize::MAX).min(self.bytes.len());
        let real = &self.bytes[start..(start + k).min(self.bytes.len())];
        buf[..real.len()].copy_from_slice(real);
        buf[real.len()..k].fill(0);
        self.at += k as u64;
        Ok(k)
    }
}

impl std::io::Seek for Padded<'_> {
    fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
        let len = Self::LEN.max(self.bytes.len() as u64);
        self.at = match to {
            std::io::SeekFrom::Start(p) => p,
            std::io::SeekFrom::End(d) => len.saturating_add_signed(d),
            std::io::SeekFrom::Current(d) => self.at.saturating_add_signed(d),
        };
        Ok(self.at)
    }
}
