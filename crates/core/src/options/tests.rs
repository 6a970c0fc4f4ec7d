use super::*;
use crate::analysis::AnalysisParams;
use crate::corpus::tokenize::TokenizerKind;
use crate::counts::Mode;
use crate::demos::synth::SynthParams;
use crate::metric::Metric;

fn texts<T>(table: &[OptSpec<T>], t: &T) -> Vec<String> {
    table.iter().map(|o| o.text(t)).collect()
}

#[test]
fn every_default_is_accepted_and_round_trips_through_text() {
    let a = AnalysisParams::default();
    check_all(ANALYSIS, &a).unwrap();
    let mut b = AnalysisParams { max_len: 3, top_k: Some(9), ..Default::default() };
    for o in ANALYSIS {
        o.apply(&mut b, &o.text(&a)).unwrap();
    }
    assert_eq!(b, a);
    let s = SynthParams::default();
    check_all(SYNTH, &s).unwrap();
    let mut t = SynthParams { seed: 4, beta: 2.0, ..Default::default() };
    for o in SYNTH {
        o.apply(&mut t, &o.text(&s)).unwrap();
    }
    assert_eq!(t, s);
}

#[test]
fn names_keys_flags_and_controls_are_unique() {
    type Field = fn(&OptSpec<AnalysisParams>) -> &'static str;
    let fields: [Field; 4] = [|o| o.name, |o| o.url, |o| o.flag, |o| o.control];
    for field in fields {
        let mut all: Vec<&str> = ANALYSIS.iter().map(field).collect();
        all.sort_unstable();
        let before = all.len();
        all.dedup();
        assert_eq!(all.len(), before);
    }
    let mut urls: Vec<&str> = ANALYSIS.iter().map(|o| o.url).chain(SYNTH.iter().map(|o| o.url)).collect();
    urls.sort_unstable();
    let before = urls.len();
    urls.dedup();
    assert_eq!(urls.len(), before, "a URL key is used twice");
}

#[test]
fn every_choice_names_a_variant_that_names_it_back() {
    for c in TOKENIZERS {
        assert_eq!(TokenizerKind::parse(c.value).map(TokenizerKind::name), Some(c.value));
    }
    for c in MODES {
        assert_eq!(Mode::parse(c.value).map(Mode::name), Some(c.value));
    }
    for c in METRICS {
        assert_eq!(Metric::parse(c.value).map(Metric::name), Some(c.value));
        assert_eq!(Metric::parse(c.cli).map(Metric::name), Some(c.value));
    }
}

#[test]
fn ranges_reject_with_the_rule_and_accept_the_edges() {
    let mut p = AnalysisParams::default();
    let find = |n: &str| ANALYSIS.iter().find(|o| o.name == n).unwrap();
    let err = find("head_dim").apply(&mut p, "3").unwrap_err().to_string();
    assert_eq!(err, "invalid option head_dim: must be an even number ≥ 2");
    assert!(find("tau").apply(&mut p, "1").unwrap_err().to_string().contains("[0, 1)"));
    find("tau").apply(&mut p, "0").unwrap();
    assert!(find("energy").apply(&mut p, "0").is_err());
    find("energy").apply(&mut p, "1").unwrap();
    assert!(find("alpha").apply(&mut p, "-1").is_err());
    assert!(find("alpha").apply(&mut p, "inf").is_err());
    assert!(find("max_len").apply(&mut p, "1").unwrap_err().to_string().contains("max_len"));
    assert!(find("d").apply(&mut p, "x").unwrap_err().to_string().contains("not a whole number"));
    find("top_k").apply(&mut p, "").unwrap();
    assert_eq!(p.top_k, None);
    assert!(find("top_k").apply(&mut p, "0").is_err());
    find("metric").apply(&mut p, "fisher-rao").unwrap();
    assert_eq!(p.metric, Metric::FisherRao);
    assert!(find("metric").apply(&mut p, "cosine").unwrap_err().to_string().contains("hellinger"));
    find("lowercase").apply(&mut p, "false").unwrap();
    assert_eq!(p.lowercase, Some(false));
    assert_ne!(texts(ANALYSIS, &p), texts(ANALYSIS, &AnalysisParams::default()));
}

#[test]
fn affects_split_geometry_from_encodings() {
    let enc: Vec<&str> = ANALYSIS.iter().filter(|o| o.affects == Affects::Encodings).map(|o| o.name).collect();
    assert_eq!(enc, ["d", "base", "head_dim", "slope", "sigma", "seed", "smacof_iter", "rank"]);
    // Changing an encodings-only option never changes what counting sees.
    let a = AnalysisParams::default();
    for o in ANALYSIS.iter().filter(|o| o.affects == Affects::Encodings) {
        let mut b = a.clone();
        o.apply(&mut b, "4").unwrap();
        assert_eq!(
            (b.tokenizer(), b.mode, b.max_len, b.min_support),
            (a.tokenizer(), a.mode, a.max_len, a.min_support)
        );
        assert_eq!((b.alpha, b.metric, b.top_k, b.tau, b.energy), (a.alpha, a.metric, a.top_k, a.tau, a.energy));
    }
}

/// The core's part of docs/MATH.md's options table (`posgeo-learn` checks the whole).
#[test]
fn the_docs_table_is_the_generated_one() {
    let docs = include_str!("../../../../docs/MATH.md");
    let table = markdown_table();
    assert!(docs.contains(&table), "docs/MATH.md's options table is out of date; replace it with:\n\n{table}");
}

/// The page's groups: the encoding-only (live) options together, and the table's order is
/// the groups' order (so the form lists them as the table declares them).
#[test]
fn every_option_has_a_group_in_table_order() {
    let groups: Vec<Group> = ANALYSIS.iter().map(Group::of).collect();
    for (o, g) in ANALYSIS.iter().zip(&groups) {
        assert_eq!(*g == Group::Encodings, o.affects == Affects::Encodings, "{}", o.name);
    }
    let rank = |g: &Group| Group::ALL.iter().position(|x| x == g).unwrap();
    assert!(groups.windows(2).all(|w| rank(&w[0]) <= rank(&w[1])), "{groups:?}");
    assert_eq!(Group::of(&ANALYSIS[0]), Group::Tokens);
    assert!(groups.contains(&Group::Geometry) && groups.contains(&Group::Model));
}
