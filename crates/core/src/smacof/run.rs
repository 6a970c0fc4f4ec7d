//! SMACOF's **stopping rule** as a state machine, apart from how an iteration is computed:
//! the driver asks for σ of a configuration ([`SmacofRun::to_evaluate`]), is told it
//! ([`SmacofRun::evaluated`]), and says whether it wants the Guttman step from it
//! ([`SmacofRun::stepped`]). [`super::smacof`] computes both by blocks of rows
//! ([`super::rows`]) on the calling machine's cores; the page sends the same blocks to its
//! helper workers; [`super::smacof_one_worker`] computes them as whole matrices. Either way
//! the rule of the module docs is applied here, once.

use super::{SmacofFit, SmacofStop};
use crate::points::Points;

/// What a driver computes next ([`SmacofRun::round`]): σ of `x` unless `evaluates` is false,
/// and the Guttman step from `x` when `step`.
#[derive(Debug, Clone, Copy)]
pub struct Round<'a> {
    pub x: &'a Points,
    pub step: bool,
    pub evaluates: bool,
}

/// A SMACOF run in progress (see the module docs).
#[derive(Debug, Clone)]
pub struct SmacofRun {
    /// Σ D² over the pairs, the normaliser of σ.
    tt: f64,
    max_iter: usize,
    tol: f64,
    /// The configuration to evaluate next (X_0 = the start, then each step's result).
    candidate: Option<Points>,
    /// The best configuration so far and its raw stress numerator Σ_{i<j}(δ_ij − D_ij)².
    accepted: Option<(Points, f64)>,
    /// Candidates evaluated after the start (SMACOF's iterations).
    iterations: usize,
    /// Set once the run has stopped.
    stop: Option<SmacofStop>,
}

impl SmacofRun {
    /// A run from `start` against a target with Σ_{i<j} D_ij² = `tt`. A configuration with
    /// no dimensions or fewer than two points has nothing to iterate.
    pub fn new(start: Points, tt: f64, max_iter: usize, tol: f64) -> Self {
        let trivial = start.dim == 0 || start.n < 2;
        let mut run = SmacofRun { tt, max_iter, tol, candidate: None, accepted: None, iterations: 0, stop: None };
        if trivial {
            run.accepted = Some((start, 0.0));
            run.stop = Some(SmacofStop::Tolerance);
        } else {
            run.candidate = Some(start);
        }
        run
    }

    /// The configuration whose σ is wanted next (`None`: stopped, or a step is awaited).
    pub fn to_evaluate(&self) -> Option<&Points> {
        self.candidate.as_ref().filter(|_| self.stop.is_none())
    }

    /// Whether a step taken from the configuration being evaluated could still be used (a
    /// caller that computes the step together with σ may skip it otherwise).
    pub fn may_step(&self) -> bool {
        let next = if self.accepted.is_some() { self.iterations + 1 } else { 0 };
        next < self.max_iter
    }

    /// Takes σ's numerator for [`Self::to_evaluate`]'s configuration and applies the rule.
    /// Returns `true` when the run goes on: the Guttman step from that configuration is then
    /// wanted ([`Self::step_from`], [`Self::stepped`]).
    pub fn evaluated(&mut self, stress: f64) -> bool {
        let Some(candidate) = self.candidate.take() else { return false };
        let floor = 1e-24 * self.tt;
        match self.accepted.take() {
            None => self.accepted = Some((candidate, stress)),
            Some((best, before)) => {
                self.iterations += 1;
                if stress >= before {
                    // Round-off: the configuration before the step is kept.
                    self.accepted = Some((best, before));
                    self.stop = Some(SmacofStop::NoDecrease);
                    return false;
                }
                self.accepted = Some((candidate, stress));
                if before / self.tt - stress / self.tt < self.tol {
                    self.stop = Some(SmacofStop::Tolerance);
                    return false;
                }
            }
        }
        if stress <= floor {
            self.stop = Some(SmacofStop::Tolerance);
        } else if self.iterations >= self.max_iter {
            self.stop = Some(SmacofStop::Cap);
        }
        self.stop.is_none()
    }

    /// The configuration the wanted step starts from (the one just evaluated).
    pub fn step_from(&self) -> Option<&Points> {
        self.accepted.as_ref().map(|(x, _)| x).filter(|_| self.stop.is_none() && self.candidate.is_none())
    }

    /// Takes the step's result, the next configuration to evaluate.
    pub fn stepped(&mut self, next: Points) {
        if self.stop.is_none() {
            self.candidate = Some(next);
        }
    }

    /// A round computed together (σ of [`Self::to_evaluate`]'s configuration and the step
    /// from it, `None` if not taken): [`Self::evaluated`], then [`Self::stepped`] if the run
    /// goes on. Returns whether it goes on (false too when a wanted step is missing).
    pub fn advance(&mut self, stress: f64, next: Option<Points>) -> bool {
        let going = self.evaluated(stress);
        match next.filter(|_| going) {
            Some(next) => {
                self.stepped(next);
                true
            }
            None => false,
        }
    }

    /// The next round of a driver that computes σ and the step together ([`super::smacof`],
    /// the page's helpers): the start evaluated alone (a start already exact costs no step),
    /// then the step from it alone, then σ of each candidate with the step from it; `None`
    /// once stopped.
    pub fn round(&self) -> Option<Round<'_>> {
        match self.to_evaluate() {
            Some(x) => Some(Round { x, step: self.accepted.is_some() && self.may_step(), evaluates: true }),
            None => self.step_from().map(|x| Round { x, step: true, evaluates: false }),
        }
    }

    /// Takes the results of the [`Self::round`] that `evaluates` (or not: the step alone):
    /// σ's numerator and the step (`None` if not computed). Returns whether the run goes on.
    pub fn took(&mut self, evaluates: bool, stress: f64, next: Option<Points>) -> bool {
        if !evaluates {
            let Some(next) = next else { return false };
            self.stepped(next);
            true
        } else if self.accepted.is_none() {
            self.evaluated(stress)
        } else {
            self.advance(stress, next)
        }
    }

    /// Iterations done, as a fraction of the cap.
    pub fn progress(&self) -> f64 {
        self.iterations as f64 / self.max_iter.max(1) as f64
    }

    /// The fit: the kept configuration, the iterations and why it stopped (a run abandoned
    /// before it stopped reports the cap).
    pub fn finish(self) -> SmacofFit {
        let stop = self.stop.unwrap_or(SmacofStop::Cap);
        let points = match (self.accepted, self.candidate) {
            (Some((x, _)), _) | (None, Some(x)) => x,
            (None, None) => Points::default(),
        };
        SmacofFit { points, iterations: self.iterations, stop }
    }
}
