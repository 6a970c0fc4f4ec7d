//! Shareable page state: every option lives in the URL's query string, so a link reopens
//! the same view. Only the built-in corpora (synthetic, Genesis) go into a link; pasted or
//! uploaded data never does. Only values that differ from the defaults are written, and
//! unknown or invalid values are ignored (the default is kept).

use crate::analysis::AnalysisParams;
use crate::corpus::tokenize::TokenizerKind;
use crate::counts::Mode;
use crate::metric::Metric;
use crate::synth::SynthParams;

/// Which built-in corpus a link names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Builtin {
    /// The synthetic generator (default).
    #[default]
    Synthetic,
    /// Genesis (KJV).
    Genesis,
}

/// Everything a link carries.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PageState {
    /// Built-in corpus.
    pub corpus: Builtin,
    /// Generator parameters.
    pub synth: SynthParams,
    /// Analysis options.
    pub params: AnalysisParams,
    /// Encoding shown in the Shepard diagram.
    pub shepard: Option<String>,
    /// The PMDS map in 3-D, seen from (turn, tilt) in degrees; `None` for the 2-D map.
    pub map3d: Option<(i32, i32)>,
}

fn opt_usize(v: Option<usize>) -> String {
    v.map_or(String::new(), |x| x.to_string())
}

impl PageState {
    /// Query pairs (key, value), defaults omitted.
    pub fn to_pairs(&self) -> Vec<(String, String)> {
        let def = PageState::default();
        let mut out: Vec<(String, String)> = Vec::new();
        let mut put = |k: &str, v: String, d: String| {
            if v != d {
                out.push((k.to_string(), v));
            }
        };
        let corpus = |b: Builtin| match b {
            Builtin::Synthetic => "synthetic".to_string(),
            Builtin::Genesis => "genesis".to_string(),
        };
        put("corpus", corpus(self.corpus), corpus(def.corpus));
        let (s, ds) = (&self.synth, &def.synth);
        put("V", s.vocab.to_string(), ds.vocab.to_string());
        put("n", s.positions.to_string(), ds.positions.to_string());
        put("K", s.regimes.to_string(), ds.regimes.to_string());
        put("beta", s.beta.to_string(), ds.beta.to_string());
        put("s", s.width.to_string(), ds.width.to_string());
        put("seqs", s.sequences.to_string(), ds.sequences.to_string());
        put("synth_seed", s.seed.to_string(), ds.seed.to_string());
        let (p, dp) = (&self.params, &def.params);
        let tok = |t: TokenizerKind| format!("{t:?}").to_lowercase();
        put("tokenizer", tok(p.tokenizer), tok(dp.tokenizer));
        let lc = |v: Option<bool>| v.map_or(String::new(), |b| b.to_string());
        put("lowercase", lc(p.lowercase), lc(dp.lowercase));
        put("bos", p.bos.to_string(), dp.bos.to_string());
        let mode = |m: Mode| format!("{m:?}").to_lowercase();
        put("mode", mode(p.mode), mode(dp.mode));
        put("max_len", p.max_len.to_string(), dp.max_len.to_string());
        put("min_support", p.min_support.to_string(), dp.min_support.to_string());
        put("alpha", p.alpha.to_string(), dp.alpha.to_string());
        put("top_k", opt_usize(p.top_k), opt_usize(dp.top_k));
        put("metric", p.metric.name().to_string(), dp.metric.name().to_string());
        put("tau", p.tau.to_string(), dp.tau.to_string());
        put("energy", p.energy.to_string(), dp.energy.to_string());
        let (e, de) = (&p.encodings, &dp.encodings);
        put("d", e.d.to_string(), de.d.to_string());
        put("base", e.base.to_string(), de.base.to_string());
        put("head_dim", e.head_dim.to_string(), de.head_dim.to_string());
        put("slope", e.slope.to_string(), de.slope.to_string());
        put("sigma", e.sigma.to_string(), de.sigma.to_string());
        put("seed", e.seed.to_string(), de.seed.to_string());
        put("rank", opt_usize(e.rank), opt_usize(de.rank));
        put("smacof_iter", e.smacof_max_iter.to_string(), de.smacof_max_iter.to_string());
        put("shepard", self.shepard.clone().unwrap_or_default(), String::new());
        put("map3d", self.map3d.map_or(String::new(), |(y, p)| format!("{y},{p}")), String::new());
        out
    }

    /// Reads query pairs; anything unknown or unparsable keeps its default.
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut st = PageState::default();
        fn set<T: std::str::FromStr>(slot: &mut T, v: &str) {
            if let Ok(x) = v.parse() {
                *slot = x;
            }
        }
        fn set_opt(slot: &mut Option<usize>, v: &str) {
            *slot = v.parse().ok().filter(|&x| x > 0);
        }
        for (k, v) in pairs {
            let (s, p) = (&mut st.synth, &mut st.params);
            match k {
                "corpus" => st.corpus = if v == "genesis" { Builtin::Genesis } else { Builtin::Synthetic },
                "V" => set(&mut s.vocab, v),
                "n" => set(&mut s.positions, v),
                "K" => set(&mut s.regimes, v),
                "beta" => set(&mut s.beta, v),
                "s" => set(&mut s.width, v),
                "seqs" => set(&mut s.sequences, v),
                "synth_seed" => set(&mut s.seed, v),
                "tokenizer" => {
                    if let Some(t) = TokenizerKind::parse(v) {
                        p.tokenizer = t
                    }
                }
                "lowercase" => p.lowercase = v.parse().ok(),
                "bos" => set(&mut p.bos, v),
                "mode" => {
                    if let Some(m) = Mode::parse(v) {
                        p.mode = m
                    }
                }
                "max_len" => set(&mut p.max_len, v),
                "min_support" => set(&mut p.min_support, v),
                "alpha" => set(&mut p.alpha, v),
                "top_k" => set_opt(&mut p.top_k, v),
                "metric" => {
                    if let Some(m) = Metric::parse(v) {
                        p.metric = m
                    }
                }
                "tau" => set(&mut p.tau, v),
                "energy" => set(&mut p.energy, v),
                "d" => set(&mut p.encodings.d, v),
                "base" => set(&mut p.encodings.base, v),
                "head_dim" => set(&mut p.encodings.head_dim, v),
                "slope" => set(&mut p.encodings.slope, v),
                "sigma" => set(&mut p.encodings.sigma, v),
                "seed" => set(&mut p.encodings.seed, v),
                "rank" => set_opt(&mut p.encodings.rank, v),
                "smacof_iter" => set(&mut p.encodings.smacof_max_iter, v),
                "shepard" => st.shepard = Some(v.to_string()).filter(|s| !s.is_empty()),
                "map3d" => {
                    let mut parts = v.split(',').map(|x| x.trim().parse::<i32>());
                    if let (Some(Ok(yaw)), Some(Ok(pitch)), None) = (parts.next(), parts.next(), parts.next()) {
                        st.map3d = Some((yaw.clamp(-180, 180), pitch.clamp(-90, 90)));
                    }
                }
                _ => {}
            }
        }
        st
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_make_an_empty_query_and_everything_round_trips() {
        assert!(PageState::default().to_pairs().is_empty());
        let mut st = PageState {
            corpus: Builtin::Genesis,
            shepard: Some("rope".into()),
            map3d: Some((-45, 10)),
            ..Default::default()
        };
        st.synth.beta = 0.7;
        st.synth.seed = 9;
        st.params.tokenizer = TokenizerKind::Chars;
        st.params.lowercase = Some(true);
        st.params.mode = Mode::Pad;
        st.params.alpha = 0.25;
        st.params.top_k = Some(100);
        st.params.metric = Metric::JensenShannon;
        st.params.encodings.rank = Some(3);
        st.params.encodings.base = 500.0;
        st.params.encodings.smacof_max_iter = 20;
        let pairs = st.to_pairs();
        let back = PageState::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        assert_eq!(back, st);
    }

    #[test]
    fn junk_is_ignored() {
        let st =
            PageState::from_pairs([("d", "abc"), ("metric", "nope"), ("zzz", "1"), ("top_k", "0"), ("map3d", "1,x")]);
        assert_eq!(st, PageState::default());
    }
}
