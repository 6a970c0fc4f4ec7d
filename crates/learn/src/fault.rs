//! **A diverging run on purpose**: [`DivergesAfter`], the fused trainer whose training loss
//! turns NaN after K steps, as a learning rate far too large makes it do, but at a step known
//! in advance. The tests of [`crate::train::run`] use it, and the page trains with it when an
//! end-to-end test asks for that fault, to show that a diverged run keeps its records up to
//! the failure while the others finish.

use super::data::Batch;
use super::fused::Fused;
use super::init::Init;
use super::net::Shape;
use super::train::Model;
use super::Signal;
use posgeo::error::Result;

/// The fused trainer, whose steps after the K-th return a NaN loss (and update nothing).
pub struct DivergesAfter<const K: usize> {
    inner: Fused,
    taken: usize,
}

impl<const K: usize> Model for DivergesAfter<K> {
    fn build(shape: Shape, signal: Signal, init: &[Init], batch: usize) -> Result<Self> {
        Ok(DivergesAfter { inner: Fused::new(shape, signal, init, batch)?, taken: 0 })
    }
    fn step(&mut self, batch: &Batch, lr: f64) -> Result<f64> {
        self.taken += 1;
        if self.taken > K {
            return Ok(f64::NAN);
        }
        self.inner.step(batch, lr)
    }
    fn evaluate(&mut self, held: &[Batch]) -> Result<(f64, f64)> {
        self.inner.evaluate(held)
    }
    fn table(&self) -> Result<Option<Vec<f32>>> {
        Ok(self.inner.table())
    }
}
