//! **The measures** every encoding gets against the corpus geometry (docs/MATH.md §6–§7):
//! [`stress`] (the paper's Eq. 4, raw and scale-free, and the Shepard sketch's samples in
//! [`sketch`]), [`monotonicity`] (sequence order), [`procrustes`] (alignment onto PMDS) and
//! [`rank_curve`] (σ* of PMDS truncated to each rank); [`band`] is what K random tables score
//! (the chance an encoding must beat).

pub mod band;
pub mod monotonicity;
pub mod procrustes;
pub mod rank_curve;
pub mod ranks;
pub mod sketch;
pub mod stress;
