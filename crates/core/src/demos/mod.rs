//! **The demonstrations** beside the pipeline: [`synth`] (the built-in synthetic corpus,
//! docs/MATH.md §8), [`theorem`] (Theorem 1 live, §11), [`three_points`] (the lecture's
//! three-point example, §13) and [`preset`] (the paper's setting and the shipped models, §12).

pub mod preset;
pub mod synth;
pub mod theorem;
pub mod three_points;
