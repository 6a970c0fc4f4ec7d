//! Fixtures the tests of this crate and of the crates above it share (feature `test-support`).

use crate::{Context, LearnParams};

/// The learning experiment's context over [`posgeo::test_support::learn_corpus`] with `params`.
pub fn learn_context(sequences: usize, positions: usize, params: &LearnParams) -> Context {
    let (analysis, seqs) = posgeo::test_support::learn_corpus(sequences, positions);
    Context::new(&seqs, &analysis, params).expect("context")
}
