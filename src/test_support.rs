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

/// A small random BERT bundle ([`crate::model::random::random_bert`]) with the shipped
/// all-MiniLM-L6-v2 tokenizer (so the vocabulary has its 30,522 ids).
pub fn tiny_bert_bundle(seed: u64) -> Vec<u8> {
    let tokenizer = include_bytes!("../www/models/all-MiniLM-L6-v2/tokenizer.json.gz");
    crate::model::random::random_bert(seed, ("tokenizer.json.gz", tokenizer))
}
