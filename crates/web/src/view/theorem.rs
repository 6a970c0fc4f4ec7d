//! The Theorem 1 demonstration's state: a sentence, a positional signal and a permutation of
//! its tokens; what the page shows is computed by `posgeo::demos::theorem` (a seeded layer).

use posgeo::demos::theorem::{check, Layer, Signal};

/// Seed of the demonstration layer.
pub const LAYER_SEED: u64 = 0;

/// How the tokens are reordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reorder {
    /// Back to the typed order.
    Original,
    /// Reverse the current order.
    Reverse,
    /// Move the first token to the end.
    Rotate,
    /// Swap the first two tokens.
    SwapFirstTwo,
}

/// The demonstration's state.
#[derive(Debug, Clone, PartialEq)]
pub struct Demo {
    /// The typed sentence.
    pub text: String,
    /// The positional signal.
    pub signal: Signal,
    /// `perm[i]`: which typed token stands at position i.
    pub perm: Vec<usize>,
}

impl Default for Demo {
    fn default() -> Self {
        Demo { text: "dog bites man".into(), signal: Signal::None, perm: vec![0, 1, 2] }
    }
}

/// What the page shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    /// The permuted sentence.
    pub order: String,
    /// max |y(πx)_i − y(x)_π(i)|.
    pub equivariance_error: f64,
    /// max |pool(πx) − pool(x)|.
    pub readout_change: f64,
    /// One sentence saying what the numbers mean.
    pub text: String,
}

impl Demo {
    /// The tokens as typed (whitespace-separated).
    pub fn tokens(&self) -> Vec<&str> {
        self.text.split_whitespace().collect()
    }

    /// Applies a reordering (the typed order when the sentence changed length).
    pub fn reorder(&mut self, how: Reorder) {
        let n = self.tokens().len();
        if self.perm.len() != n || how == Reorder::Original {
            self.perm = (0..n).collect();
        }
        match how {
            Reorder::Original => {}
            Reorder::Reverse => self.perm.reverse(),
            Reorder::Rotate if n > 1 => self.perm.rotate_left(1),
            Reorder::SwapFirstTwo if n > 1 => self.perm.swap(0, 1),
            _ => {}
        }
    }

    /// Runs the layer on both orders.
    pub fn show(&self) -> Shown {
        let tokens = self.tokens();
        let perm: Vec<usize> =
            if self.perm.len() == tokens.len() { self.perm.clone() } else { (0..tokens.len()).collect() };
        let c = check(&Layer::seeded(LAYER_SEED), &tokens, &perm, self.signal);
        let order: Vec<&str> = perm.iter().filter_map(|&p| tokens.get(p).copied()).collect();
        let blind = c.readout_change < 1e-12;
        let text = format!(
            "outputs moved with their tokens up to {:.1e}; the mean readout changed by {:.1e}: {}",
            c.equivariance_error,
            c.readout_change,
            if blind {
                "the layer cannot tell the two orders apart"
            } else {
                "the positional signal lets the layer tell the orders apart"
            }
        );
        Shown {
            order: order.join(" "),
            equivariance_error: c.equivariance_error,
            readout_change: c.readout_change,
            text,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_demo_reorders_and_reports() {
        let mut d = Demo::default();
        d.reorder(Reorder::Reverse);
        let s = d.show();
        assert_eq!(s.order, "man bites dog");
        assert!(s.equivariance_error < 1e-12 && s.readout_change < 1e-12 && s.text.contains("cannot tell"));
        d.signal = Signal::Sinusoidal;
        let s = d.show();
        assert!(s.readout_change > 1e-6 && s.text.contains("tell the orders apart"), "{s:?}");
        d.text = "a b c d".into();
        d.reorder(Reorder::Rotate);
        assert_eq!(d.show().order, "b c d a");
        d.reorder(Reorder::SwapFirstTwo);
        assert_eq!(d.show().order, "c b d a");
        d.reorder(Reorder::Original);
        assert_eq!(d.show().order, "a b c d");
    }
}
