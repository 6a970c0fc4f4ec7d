//! The model layer's own tests (reading a model, its plan and batches).

use super::*;
use posgeo::counts::Mode;

#[test]
fn batches_cover_every_sequence_once_within_the_limits() {
    let seqs: Vec<Vec<u32>> = (0..100).map(|k| vec![1; 1 + (k * 37) % 200]).collect();
    let plan = Plan::new(seqs, 512, 512, 5, Mode::Condition, 0);
    let b = batches(&plan);
    let mut seen: Vec<usize> = b.iter().flatten().copied().collect();
    seen.sort_unstable();
    assert_eq!(seen, (0..100).collect::<Vec<_>>());
    for batch in &b {
        let longest = batch.iter().map(|&k| plan.sequences[k].len()).max().unwrap_or(0);
        assert!(batch.len() <= BATCH_SEQUENCES && (batch.len() * longest <= BATCH_TOKENS || batch.len() == 1));
    }
}
