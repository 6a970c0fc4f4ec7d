//! The synthetic corpus's option table (docs/MATH.md §8): one entry per option; see the parent
//! module for what is derived.

use super::{at_least, int, real, u, Affects, Domain, OptSpec, Value, POSITIVE};
use crate::demos::synth::SynthParams;

type S = SynthParams;
const SYN: Affects = Affects::Corpus;

/// The synthetic corpus's options (the `synth` subcommand and the page's generator).
pub static SYNTH: &[OptSpec<SynthParams>] = &[
    OptSpec {
        name: "vocab",
        flag: "vocab",
        url: "V",
        control: "synth-V",
        label: "V",
        help: "vocabulary size",
        affects: SYN,
        domain: Domain::Int { min: 1, max: Some(1_000_000), even: false },
        get: |s: &S| u(s.vocab),
        set: |s: &mut S, v| s.vocab = int(v),
    },
    OptSpec {
        name: "positions",
        flag: "positions",
        url: "n",
        control: "synth-n",
        label: "n",
        help: "tokens per sequence",
        affects: SYN,
        domain: Domain::Int { min: 2, max: Some(100_000), even: false },
        get: |s: &S| u(s.positions),
        set: |s: &mut S, v| s.positions = int(v),
    },
    OptSpec {
        name: "regimes",
        flag: "regimes",
        url: "K",
        control: "synth-K",
        label: "K",
        help: "latent regimes",
        affects: SYN,
        domain: Domain::Int { min: 1, max: Some(1000), even: false },
        get: |s: &S| u(s.regimes),
        set: |s: &mut S, v| s.regimes = int(v),
    },
    OptSpec {
        name: "beta",
        flag: "beta",
        url: "beta",
        control: "synth-beta",
        label: "β",
        help: "Dirichlet concentration of each regime",
        affects: SYN,
        domain: POSITIVE,
        get: |s: &S| Value::Real(s.beta),
        set: |s: &mut S, v| s.beta = real(v),
    },
    OptSpec {
        name: "width",
        flag: "width",
        url: "s",
        control: "synth-s",
        label: "s",
        help: "width of each regime's bump over positions",
        affects: SYN,
        domain: POSITIVE,
        get: |s: &S| Value::Real(s.width),
        set: |s: &mut S, v| s.width = real(v),
    },
    OptSpec {
        name: "sequences",
        flag: "sequences",
        url: "seqs",
        control: "synth-seqs",
        label: "sequences",
        help: "number of sequences",
        affects: SYN,
        domain: at_least(1),
        get: |s: &S| u(s.sequences),
        set: |s: &mut S, v| s.sequences = int(v),
    },
    OptSpec {
        name: "seed",
        flag: "seed",
        url: "synth_seed",
        control: "synth-seed",
        label: "seed",
        help: "seed of the generator",
        affects: SYN,
        domain: at_least(0),
        get: |s: &S| Value::Int(s.seed),
        set: |s: &mut S, v| s.seed = if let Value::Int(x) = v { x } else { 0 },
    },
];
