//! The analysis option table, and the options table of docs/MATH.md. One entry per option; see the
//! parent module for what is derived.

use super::SYNTH;
use super::{
    at_least, choice_of, int, opt_int, ou, real, u, Affects, Domain, OptSpec, Value, METRICS, MODES, NON_NEGATIVE,
    POSITIVE, TOKENIZERS,
};
use crate::analysis::AnalysisParams;
use crate::corpus::tokenize::TokenizerKind;
use crate::counts::Mode;
use crate::demos::synth::SynthParams;
use crate::metric::Metric;

type A = AnalysisParams;
use Affects::{Encodings as ENC, Geometry as GEO};

/// Every analysis option, in the form's order.
pub static ANALYSIS: &[OptSpec<AnalysisParams>] = &[
    OptSpec {
        name: "tokenizer",
        flag: "tokenizer",
        url: "tokenizer",
        control: "opt-tokenizer",
        label: "tokenizer",
        help: "words: Unicode word boundaries; whitespace: split on spaces; chars: every character; kmer: runs of k characters; model: a Hugging Face tokenizer.json",
        affects: GEO,
        domain: Domain::Choice(TOKENIZERS),
        get: |p: &A| Value::Choice(p.tokenizer.name()),
        set: |p: &mut A, v| p.tokenizer = TokenizerKind::parse(choice_of(v)).unwrap_or_default(),
    },
    OptSpec {
        name: "lowercase",
        flag: "lowercase",
        url: "lowercase",
        control: "opt-lowercase",
        label: "lowercase",
        help: "lowercase tokens (default: on for words/whitespace, off for chars)",
        affects: GEO,
        domain: Domain::Tristate,
        get: |p: &A| Value::OptBool(p.lowercase),
        set: |p: &mut A, v| p.lowercase = if let Value::OptBool(b) = v { b } else { None },
    },
    OptSpec {
        name: "bos",
        flag: "bos",
        url: "bos",
        control: "opt-bos",
        label: "<bos> marker",
        help: "prefix every sequence with <bos>",
        affects: GEO,
        domain: Domain::Switch,
        get: |p: &A| Value::Bool(p.bos),
        set: |p: &mut A, v| p.bos = v == Value::Bool(true),
    },
    OptSpec {
        name: "kmer",
        flag: "kmer",
        url: "kmer",
        control: "opt-kmer",
        label: "k (kmer)",
        help: "kmer tokenizer: residues per token (3: codons); a tail shorter than k is dropped",
        affects: GEO,
        domain: Domain::Int { min: 1, max: Some(64), even: false },
        get: |p: &A| u(p.kmer),
        set: |p: &mut A, v| p.kmer = int(v),
    },
    OptSpec {
        name: "no_special_tokens",
        flag: "no-special-tokens",
        url: "no_special_tokens",
        control: "opt-no_special_tokens",
        label: "no special tokens",
        help: "model tokenizers: leave out the tokens the model adds ([CLS], [SEP], <s>, </s>)",
        affects: GEO,
        domain: Domain::Switch,
        get: |p: &A| Value::Bool(!p.special_tokens),
        set: |p: &mut A, v| p.special_tokens = v != Value::Bool(true),
    },
    OptSpec {
        name: "mode",
        flag: "mode",
        url: "mode",
        control: "opt-mode",
        label: "mode",
        help: "condition: position i counts sequences longer than i; pad: shorter ones contribute <pad>",
        affects: GEO,
        domain: Domain::Choice(MODES),
        get: |p: &A| Value::Choice(p.mode.name()),
        set: |p: &mut A, v| p.mode = Mode::parse(choice_of(v)).unwrap_or_default(),
    },
    OptSpec {
        name: "max_len",
        flag: "max-len",
        url: "max_len",
        control: "opt-max_len",
        label: "max_len",
        help: "cap on positions",
        affects: GEO,
        domain: at_least(2),
        get: |p: &A| u(p.max_len),
        set: |p: &mut A, v| p.max_len = int(v),
    },
    OptSpec {
        name: "min_support",
        flag: "min-support",
        url: "min_support",
        control: "opt-min_support",
        label: "min_support",
        help: "positions need this many sequences",
        affects: GEO,
        domain: at_least(1),
        get: |p: &A| u(p.min_support),
        set: |p: &mut A, v| p.min_support = int(v),
    },
    OptSpec {
        name: "alpha",
        flag: "alpha",
        url: "alpha",
        control: "opt-alpha",
        label: "α",
        help: "additive smoothing of μ_i",
        affects: GEO,
        domain: NON_NEGATIVE,
        get: |p: &A| Value::Real(p.alpha),
        set: |p: &mut A, v| p.alpha = real(v),
    },
    OptSpec {
        name: "top_k",
        flag: "top-k",
        url: "top_k",
        control: "opt-top_k",
        label: "top_k",
        help: "keep the k most frequent types, merge the rest into <other>",
        affects: GEO,
        domain: Domain::OptInt { min: 1, empty: "all" },
        get: |p: &A| ou(p.top_k),
        set: |p: &mut A, v| p.top_k = opt_int(v),
    },
    OptSpec {
        name: "metric",
        flag: "metric",
        url: "metric",
        control: "opt-metric",
        label: "metric",
        help: "distance between positional distributions",
        affects: GEO,
        domain: Domain::Choice(METRICS),
        get: |p: &A| Value::Choice(p.metric.name()),
        set: |p: &mut A, v| p.metric = Metric::parse(choice_of(v)).unwrap_or_default(),
    },
    OptSpec {
        name: "tau",
        flag: "tau",
        url: "tau",
        control: "opt-tau",
        label: "τ",
        help: "effective rank r_τ counts λ_k > τ·λ_1",
        affects: GEO,
        domain: Domain::Real { lo: 0.0, lo_open: false, hi: Some((1.0, true)) },
        get: |p: &A| Value::Real(p.tau),
        set: |p: &mut A, v| p.tau = real(v),
    },
    OptSpec {
        name: "energy",
        flag: "energy",
        url: "energy",
        control: "opt-energy",
        label: "E",
        help: "energy rank r_E reaches this share of Σλ⁺",
        affects: GEO,
        domain: Domain::Real { lo: 0.0, lo_open: true, hi: Some((1.0, false)) },
        get: |p: &A| Value::Real(p.energy),
        set: |p: &mut A, v| p.energy = real(v),
    },
    OptSpec {
        name: "layer_sequences",
        flag: "layer-sequences",
        url: "layer_sequences",
        control: "opt-layer_sequences",
        label: "model: sequences read",
        help: "with a model: the first S sequences it reads for its layers' centroids (docs/MATH.md §14)",
        affects: GEO,
        domain: at_least(1),
        get: |p: &A| u(p.layer_sequences),
        set: |p: &mut A, v| p.layer_sequences = int(v),
    },
    OptSpec {
        name: "layer_skip",
        flag: "layer-skip",
        url: "layer_skip",
        control: "opt-layer_skip",
        label: "model: skip first positions",
        help: "with a model: the first k positions its per-layer measures (positional share, effective dimension, principal coordinates) leave out (docs/MATH.md §14b)",
        affects: GEO,
        domain: at_least(0),
        get: |p: &A| u(p.layer_skip),
        set: |p: &mut A, v| p.layer_skip = int(v),
    },
    OptSpec {
        name: "d",
        flag: "d",
        url: "d",
        control: "opt-d",
        label: "d",
        help: "model dimension (sinusoidal, random, PMDS, SMACOF)",
        affects: ENC,
        domain: at_least(1),
        get: |p: &A| u(p.encodings.d),
        set: |p: &mut A, v| p.encodings.d = int(v),
    },
    OptSpec {
        name: "base",
        flag: "base",
        url: "base",
        control: "opt-base",
        label: "base",
        help: "frequency base of sinusoidal and RoPE",
        affects: ENC,
        domain: POSITIVE,
        get: |p: &A| Value::Real(p.encodings.base),
        set: |p: &mut A, v| p.encodings.base = real(v),
    },
    OptSpec {
        name: "head_dim",
        flag: "head-dim",
        url: "head_dim",
        control: "opt-head_dim",
        label: "head_dim",
        help: "RoPE head dimension (even)",
        affects: ENC,
        domain: Domain::Int { min: 2, max: None, even: true },
        get: |p: &A| u(p.encodings.head_dim),
        set: |p: &mut A, v| p.encodings.head_dim = int(v),
    },
    OptSpec {
        name: "slope",
        flag: "slope",
        url: "slope",
        control: "opt-slope",
        label: "slope",
        help: "ALiBi slope m",
        affects: ENC,
        domain: POSITIVE,
        get: |p: &A| Value::Real(p.encodings.slope),
        set: |p: &mut A, v| p.encodings.slope = real(v),
    },
    OptSpec {
        name: "sigma",
        flag: "sigma",
        url: "sigma",
        control: "opt-sigma",
        label: "σ",
        help: "standard deviation of the random table",
        affects: ENC,
        domain: POSITIVE,
        get: |p: &A| Value::Real(p.encodings.sigma),
        set: |p: &mut A, v| p.encodings.sigma = real(v),
    },
    OptSpec {
        name: "seed",
        flag: "seed",
        url: "seed",
        control: "opt-seed",
        label: "seed",
        help: "seed of the random table",
        affects: ENC,
        domain: at_least(0),
        get: |p: &A| Value::Int(p.encodings.seed),
        set: |p: &mut A, v| p.encodings.seed = if let Value::Int(x) = v { x } else { 0 },
    },
    OptSpec {
        name: "smacof_iter",
        flag: "smacof-iter",
        url: "smacof_iter",
        control: "opt-smacof_iter",
        label: "SMACOF iterations",
        help: "cap on the metric-MDS refinement (each costs two n×n×d products)",
        affects: ENC,
        domain: at_least(0),
        get: |p: &A| u(p.encodings.smacof_max_iter),
        set: |p: &mut A, v| p.encodings.smacof_max_iter = int(v),
    },
    OptSpec {
        name: "rank",
        flag: "rank",
        url: "rank",
        control: "opt-rank",
        label: "rank r",
        help: "rank of low-rank PMDS",
        affects: ENC,
        domain: Domain::OptInt { min: 1, empty: "r_E" },
        get: |p: &A| ou(p.encodings.rank),
        set: |p: &mut A, v| p.encodings.rank = opt_int(v),
    },
];

/// The defaults table of docs/MATH.md up to the learning experiment's rows, generated from
/// [`ANALYSIS`] and [`SYNTH`]; `posgeo-learn` adds its own ([`markdown_rows`] of its table),
/// and a test there checks the whole table against the docs.
pub fn markdown_table() -> String {
    let mut s = String::from(
        "| option | CLI flag | URL key | default | accepted | affects | meaning |\n| --- | --- | --- | --- | --- | --- | --- |\n",
    );
    s.push_str(&markdown_rows(ANALYSIS, &AnalysisParams::default(), ""));
    s.push_str(&markdown_rows(SYNTH, &SynthParams::default(), "synth "));
    s
}

/// The docs table's rows of an option table with its defaults (`prefix`: the subcommand of
/// its flags, as `"train "`).
pub fn markdown_rows<T>(table: &[OptSpec<T>], defaults: &T, prefix: &str) -> String {
    let mut s = String::new();
    for o in table {
        let default = match (o.domain, o.text(defaults)) {
            (Domain::OptInt { empty, .. }, t) if t.is_empty() => empty.to_string(),
            (Domain::Tristate, t) if t.is_empty() => "by tokenizer".to_string(),
            (_, t) => t,
        };
        let flag = match o.domain {
            Domain::Tristate => format!("`--{0}` / `--no-{0}`", o.flag),
            Domain::Switch => format!("`--{}`", o.flag),
            _ => format!("`{prefix}--{} …`", o.flag),
        };
        let affects = match o.affects {
            Affects::Geometry => "geometry",
            Affects::Encodings => "encodings only",
            Affects::Corpus => "synthetic corpus",
            Affects::Learning => "learning",
        };
        s.push_str(&format!(
            "| `{}` | {flag} | `{}` | `{default}` | {} | {affects} | {} |\n",
            o.name,
            o.url,
            o.domain.rule().replace('|', "\\|"),
            o.help.replace('|', "\\|").replace('<', "&lt;").replace('>', "&gt;")
        ));
    }
    s
}
