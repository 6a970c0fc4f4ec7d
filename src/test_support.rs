//! Helpers shared by the unit tests.

/// A reader that hands out at most `step` bytes per call, as slices of a file or a network
/// stream might.
pub struct Trickle<'a> {
    /// What is left to read.
    pub data: &'a [u8],
    /// Bytes per call at most.
    pub step: usize,
}

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let k = buf.len().min(self.step).min(self.data.len());
        buf[..k].copy_from_slice(&self.data[..k]);
        self.data = &self.data[k..];
        Ok(k)
    }
}
