//! Shareable page state: every option lives in the URL's query string, so a link reopens
//! the same view. Only the built-in corpora (synthetic, Genesis) go into a link; pasted or
//! uploaded data never does. Only values that differ from the defaults are written, and
//! unknown or invalid values are ignored (the default is kept). The keys of the options come
//! from their declarations ([`posgeo::options`]).

use posgeo::analysis::AnalysisParams;
use posgeo::demos::synth::SynthParams;
use posgeo::options::{ANALYSIS, SYNTH};
use posgeo_learn::options::LEARN;
use posgeo_learn::LearnParams;

/// Which built-in corpus a link names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Builtin {
    /// The synthetic generator (default).
    #[default]
    Synthetic,
    /// Genesis (KJV).
    Genesis,
    /// The shipped proteins (FASTA).
    Proteins,
}

impl Builtin {
    /// The name in links.
    pub fn name(self) -> &'static str {
        match self {
            Builtin::Synthetic => "synthetic",
            Builtin::Genesis => "genesis",
            Builtin::Proteins => "proteins",
        }
    }
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
    /// The Learn panel's options (docs/MATH.md §16).
    pub learn: LearnParams,
}

impl PageState {
    /// Query pairs (key, value), defaults omitted, in the option tables' order.
    pub fn to_pairs(&self) -> Vec<(String, String)> {
        let def = PageState::default();
        let mut out: Vec<(String, String)> = Vec::new();
        if self.corpus != def.corpus {
            out.push(("corpus".into(), self.corpus.name().into()));
        }
        for o in SYNTH {
            push_changed(&mut out, o.url, o.text(&self.synth), o.text(&def.synth));
        }
        for o in ANALYSIS {
            push_changed(&mut out, o.url, o.text(&self.params), o.text(&def.params));
        }
        for o in LEARN {
            push_changed(&mut out, o.url, o.text(&self.learn), o.text(&def.learn));
        }
        push_changed(&mut out, "shepard", self.shepard.clone().unwrap_or_default(), String::new());
        let map3d = self.map3d.map_or(String::new(), |(y, p)| format!("{y},{p}"));
        push_changed(&mut out, "map3d", map3d, String::new());
        out
    }

    /// Reads query pairs; anything unknown, unparsable or out of range keeps its default.
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut st = PageState::default();
        for (k, v) in pairs {
            if let Some(o) = SYNTH.iter().find(|o| o.url == k) {
                o.apply(&mut st.synth, v).ok();
            } else if let Some(o) = ANALYSIS.iter().find(|o| o.url == k) {
                o.apply(&mut st.params, v).ok();
            } else if let Some(o) = LEARN.iter().find(|o| o.url == k) {
                o.apply(&mut st.learn, v).ok();
            } else {
                match k {
                    "corpus" => {
                        st.corpus = match v {
                            "genesis" => Builtin::Genesis,
                            "proteins" => Builtin::Proteins,
                            _ => Builtin::Synthetic,
                        }
                    }
                    "shepard" => st.shepard = Some(v.to_string()).filter(|s| !s.is_empty()),
                    "map3d" => st.map3d = parse_map3d(v).or(st.map3d),
                    _ => {}
                }
            }
        }
        st
    }
}

fn push_changed(out: &mut Vec<(String, String)>, key: &str, value: String, default: String) {
    if value != default {
        out.push((key.to_string(), value));
    }
}

/// `"yaw,pitch"` in degrees, clamped to the sliders' ranges.
fn parse_map3d(v: &str) -> Option<(i32, i32)> {
    let mut parts = v.split(',').map(|x| x.trim().parse::<i32>());
    match (parts.next(), parts.next(), parts.next()) {
        (Some(Ok(yaw)), Some(Ok(pitch)), None) => Some((yaw.clamp(-180, 180), pitch.clamp(-90, 90))),
        _ => None,
    }
}

/// `application/x-www-form-urlencoded`, as `URLSearchParams` writes it.
pub fn form_encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'*' | b'-' | b'.' | b'_' => out.push(b as char),
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use posgeo::corpus::tokenize::TokenizerKind;
    use posgeo::counts::Mode;
    use posgeo::metric::Metric;

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
    fn the_learn_options_round_trip_and_junk_keeps_their_defaults() {
        use posgeo_learn::Signal;
        let mut st = PageState::default();
        st.learn.signals = vec![Signal::Nope, Signal::Rope];
        st.learn.steps = 20;
        st.learn.lr = 1e-4;
        let pairs = st.to_pairs();
        assert!(pairs.contains(&("learn_signals".into(), "nope,rope".into())), "{pairs:?}");
        let back = PageState::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        assert_eq!(back, st);
        let junk = PageState::from_pairs([("learn_signals", "nope,bogus"), ("learn_steps", "0"), ("learn_lr", "-1")]);
        assert_eq!(junk.learn, LearnParams::default());
    }

    #[test]
    fn junk_is_ignored() {
        let st =
            PageState::from_pairs([("d", "abc"), ("metric", "nope"), ("zzz", "1"), ("top_k", "0"), ("map3d", "1,x")]);
        assert_eq!(st, PageState::default());
    }

    /// A link in the oldest format the page wrote (before the option tables existed, every key
    /// set) restores exactly the view it described.
    #[test]
    fn a_link_in_the_oldest_format_restores_the_same_view() {
        let link = "corpus=genesis&V=300&n=48&K=3&beta=0.7&s=5.5&seqs=900&synth_seed=9&tokenizer=chars\
                    &lowercase=true&bos=true&mode=pad&max_len=40&min_support=3&alpha=0.25&top_k=100\
                    &metric=jensen_shannon&tau=0.001&energy=0.9&d=32&base=500&head_dim=16&slope=0.25\
                    &sigma=0.5&seed=7&rank=3&smacof_iter=20&shepard=rope&map3d=-45,10";
        let pairs: Vec<(&str, &str)> = link.split('&').filter_map(|kv| kv.split_once('=')).collect();
        let st = PageState::from_pairs(pairs.iter().copied());
        let s = &st.synth;
        assert_eq!(
            (s.vocab, s.positions, s.regimes, s.beta, s.width, s.sequences, s.seed),
            (300, 48, 3, 0.7, 5.5, 900, 9)
        );
        let p = &st.params;
        assert_eq!((p.tokenizer, p.lowercase, p.bos, p.mode), (TokenizerKind::Chars, Some(true), true, Mode::Pad));
        assert_eq!((p.max_len, p.min_support, p.alpha, p.top_k), (40, 3, 0.25, Some(100)));
        assert_eq!((p.metric, p.tau, p.energy), (Metric::JensenShannon, 0.001, 0.9));
        let e = &p.encodings;
        assert_eq!((e.d, e.base, e.head_dim, e.slope, e.sigma, e.seed), (32, 500.0, 16, 0.25, 0.5, 7));
        assert_eq!((e.rank, e.smacof_max_iter), (Some(3), 20));
        assert_eq!((st.corpus, st.shepard.as_deref(), st.map3d), (Builtin::Genesis, Some("rope"), Some((-45, 10))));
        // And the page writes the same link back (same keys, same values).
        let mut back: Vec<(String, String)> = st.to_pairs();
        let mut want: Vec<(String, String)> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        back.sort();
        want.sort();
        assert_eq!(back, want);
    }
}
