//! The option table of the learning experiment (docs/MATH.md §16): `posgeo train`'s flags,
//! the page's "Learn" controls (`learn-<key>`), the Python keyword arguments and the range
//! checks of [`crate::LearnParams::validate`].

use crate::{LearnParams, Signal};
use posgeo::options::{at_least, choice, int, opt_int, ou, real, set_bits, u, Affects, Choice, Domain, OptSpec, Value};

type L = LearnParams;
const LEARN_OPT: Affects = Affects::Learning;

/// The position signals (values of `signals`), in [`Signal::ALL`]'s order.
pub const SIGNALS: &[Choice] = &[
    choice("nope", "nope", "no position"),
    choice("sinusoidal", "sinusoidal", "sinusoidal (fixed)"),
    choice("random", "random", "random (fixed)"),
    choice("pmds", "pmds", "PMDS (fixed)"),
    choice("pmds_r", "pmds-r", "low-rank PMDS (fixed)"),
    choice("learned", "learned", "learned (from noise)"),
    choice("learned_pmds", "learned-pmds", "learned (from PMDS)"),
    choice("rope", "rope", "RoPE"),
    choice("alibi", "alibi", "ALiBi"),
    choice("lowrank", "lowrank", "low-rank learned (A·Bᵀ)"),
];

fn signal_bits(p: &L) -> Value {
    let bits = Signal::ALL.iter().enumerate().filter(|(_, s)| p.signals.contains(s)).fold(0u64, |b, (k, _)| b | 1 << k);
    Value::Set(SIGNALS, bits)
}

fn set_signals(p: &mut L, v: Value) {
    let bits = set_bits(v);
    p.signals = Signal::ALL.iter().enumerate().filter(|(k, _)| bits >> k & 1 == 1).map(|(_, s)| *s).collect();
}

macro_rules! whole {
    ($name:literal, $flag:literal, $label:literal, $help:literal, $domain:expr, $field:ident) => {
        OptSpec {
            name: $name,
            flag: $flag,
            url: concat!("learn_", $name),
            control: concat!("learn-", $name),
            label: $label,
            help: $help,
            affects: LEARN_OPT,
            domain: $domain,
            get: |p: &L| u(p.$field),
            set: |p: &mut L, v| p.$field = int(v),
        }
    };
}

/// Every option of the learning experiment, in the panel's order.
pub static LEARN: &[OptSpec<LearnParams>] = &[
    OptSpec {
        name: "signals",
        flag: "signals",
        url: "learn_signals",
        control: "learn-signals",
        label: "signals",
        help: "the position signals, one model each (comma-separated, or all)",
        affects: LEARN_OPT,
        domain: Domain::Set(SIGNALS),
        get: signal_bits,
        set: set_signals,
    },
    whole!(
        "steps",
        "steps",
        "steps",
        "optimiser steps per model",
        Domain::Int { min: 1, max: Some(1_000_000), even: false },
        steps
    ),
    whole!(
        "seeds",
        "seeds",
        "seeds",
        "run seeds 1..S per signal",
        Domain::Int { min: 1, max: Some(100), even: false },
        seeds
    ),
    whole!(
        "d_model",
        "d-model",
        "d",
        "model width (a multiple of 2·heads)",
        Domain::Int { min: 2, max: Some(4096), even: true },
        d_model
    ),
    whole!(
        "layers",
        "layers",
        "layers",
        "transformer blocks",
        Domain::Int { min: 1, max: Some(48), even: false },
        layers
    ),
    whole!("heads", "heads", "heads", "attention heads", Domain::Int { min: 1, max: Some(64), even: false }, heads),
    whole!(
        "vocab",
        "vocab",
        "vocabulary",
        "the most frequent token types kept (the rest are <unk>)",
        at_least(1),
        vocab
    ),
    OptSpec {
        name: "mask_rate",
        flag: "mask-rate",
        url: "learn_mask_rate",
        control: "learn-mask_rate",
        label: "mask rate",
        help: "probability that a position is masked and predicted",
        affects: LEARN_OPT,
        domain: Domain::Real { lo: 0.0, lo_open: true, hi: Some((1.0, false)) },
        get: |p: &L| Value::Real(p.mask_rate),
        set: |p: &mut L, v| p.mask_rate = real(v),
    },
    OptSpec {
        name: "lr",
        flag: "lr",
        url: "learn_lr",
        control: "learn-lr",
        label: "learning rate",
        help: "AdamW's peak learning rate (linear warm-up over the first 10 % of steps)",
        affects: LEARN_OPT,
        domain: Domain::Real { lo: 0.0, lo_open: true, hi: None },
        get: |p: &L| Value::Real(p.lr),
        set: |p: &mut L, v| p.lr = real(v),
    },
    whole!(
        "batch",
        "batch",
        "batch",
        "sequences per step",
        Domain::Int { min: 1, max: Some(4096), even: false },
        batch
    ),
    whole!("every", "every", "record every", "record the curves every this many steps", at_least(1), every),
    OptSpec {
        name: "learn_positions",
        flag: "positions",
        url: "learn_positions",
        control: "learn-positions",
        label: "training positions",
        help: "train on the first n positions of each sequence (D and PMDS restricted to them)",
        affects: LEARN_OPT,
        domain: Domain::Int { min: 2, max: Some(1_000_000), even: false },
        get: |p: &L| u(p.positions),
        set: |p: &mut L, v| p.positions = int(v),
    },
    OptSpec {
        name: "learn_held",
        flag: "held",
        url: "learn_held",
        control: "learn-held",
        label: "held-out share",
        help: "the share of the sequences held out for the held-out loss and accuracy",
        affects: LEARN_OPT,
        domain: Domain::Real { lo: 0.0, lo_open: true, hi: Some((0.9, false)) },
        get: |p: &L| Value::Real(p.held),
        set: |p: &mut L, v| p.held = real(v),
    },
    OptSpec {
        name: "learn_rank",
        flag: "learn-rank",
        url: "learn_rank",
        control: "learn-rank",
        label: "low-rank r",
        help: "rank r of the lowrank signal's table A·Bᵀ (at most min(n, d))",
        affects: LEARN_OPT,
        domain: Domain::OptInt { min: 1, empty: "r_E" },
        get: |p: &L| ou(p.rank),
        set: |p: &mut L, v| p.rank = opt_int(v),
    },
];

/// The whole defaults table of docs/MATH.md: the core's ([`posgeo::options::markdown_table`])
/// and this crate's rows.
pub fn markdown_table() -> String {
    posgeo::options::markdown_table() + &posgeo::options::markdown_rows(LEARN, &LearnParams::default(), "train ")
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_docs_table_is_the_generated_one() {
        let docs = include_str!("../../../docs/MATH.md");
        let table = super::markdown_table();
        assert!(docs.contains(&table), "docs/MATH.md's options table is out of date; replace it with:\n\n{table}");
    }
}
