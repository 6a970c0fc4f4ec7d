//! Fixtures the tests of this crate and of the crates above it share (feature `test-support`).

/// A small random BERT bundle ([`crate::random::random_bert`]) with the shipped
/// all-MiniLM-L6-v2 tokenizer (so the vocabulary has its 30,522 ids).
pub fn tiny_bert_bundle(seed: u64) -> Vec<u8> {
    let tokenizer = include_bytes!("../../../www/models/all-MiniLM-L6-v2/tokenizer.json.gz");
    crate::random::random_bert(seed, ("tokenizer.json.gz", tokenizer))
}
