//! **The paper's claims, checked on this corpus**: each finding of the paper with this
//! corpus's numbers (read from the [`Report`], nothing recomputed), whether it holds here and a
//! one-line reason. The page's claims panel, `posgeo analyze --claims` and the Python
//! package's `Report.claims` all show these. The rules (docs/MATH.md §15):
//!
//! 1. `full_rank_pmds` — full-rank PMDS has essentially zero stress: σ(pmds) ≤ 10⁻⁶ when PMDS
//!    keeps all r_τ coordinates (not applicable when d < r_τ cuts it).
//! 2. `alibi_short` — ALiBi fits better than sinusoidal and RoPE: σ*(alibi) below both.
//! 3. `sinusoidal_rope` — sinusoidal and RoPE have nearly the same stress: their σ* differ by
//!    at most 10 % of the larger.
//! 4. `random_high` — a random table has very high stress: σ*(random) above every other
//!    encoding's but `nope`'s (which carries no positions at all).
//! 5. `low_rank` — low rank suffices: the smallest r of the rank curve (every r ≤ 64, then its
//!    geometric grid) whose X_r has σ* ≤ 1 % of sinusoidal's σ* exists, and r(n + d) < n·d;
//!    its parameter saving is 1 − r(n + d)/(n·d).
//! 6. `monotone` — MDS and pretrained tables are more monotone than random ones: the
//!    violation rate of `pmds` and of every learned table below `random`'s.
//! 7. `layer_departs` — with a model, the layer whose centroid departs most from the corpus
//!    geometry (largest σ*) is an early one, 0 < ℓ ≤ L/2 (BERT-base: layer 3 of 12); not
//!    applicable without a model.
//! 8. `sinusoids_close` — the sinusoids come close to the optimal map here: σ*(sinusoidal) ≤ 0.1
//!    (the paper: so on smooth language, not on biological sequences).
//! 9. `sinusoids_beat_random` — σ*(sinusoidal) below the random band's minimum.
//! 10. `sinusoids_follow_order` — Spearman(sinusoidal) above the random band's maximum.
//!
//! Rules 8–10 and the band are in [`super::chance`] (docs/MATH.md §17).

use super::text::fmt_number;
use super::Report;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One finding, checked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    /// Stable key (`data-claim` on the page).
    pub key: String,
    /// The finding, as the paper states it.
    pub finding: String,
    /// What the paper reports.
    pub paper: String,
    /// Whether it holds here (`None`: not applicable to this run, or undetermined: a training
    /// verdict within the spread over seeds or chance, docs/MATH.md §16).
    pub holds: Option<bool>,
    /// This corpus's numbers, in one line.
    pub reason: String,
    /// The numbers used, by report field (`alibi.scaled_stress`, `low_rank.r`, …).
    pub values: BTreeMap<String, f64>,
    /// The lecture step that explains it.
    pub step: usize,
}

/// σ* of an encoding.
fn scaled(r: &Report, name: &str) -> Option<f64> {
    r.encodings.get(name).map(|e| e.scaled_stress)
}

fn num(v: f64) -> String {
    fmt_number(Some(v))
}

pub(super) struct Draft {
    pub(super) holds: Option<bool>,
    pub(super) reason: String,
    pub(super) values: Vec<(String, f64)>,
}

pub(super) fn na(reason: impl Into<String>) -> Draft {
    Draft { holds: None, reason: reason.into(), values: Vec::new() }
}

fn full_rank_pmds(r: &Report) -> Draft {
    let Some(p) = r.encodings.get("pmds") else { return na("no pmds row") };
    let values = vec![("pmds.raw_stress".into(), p.raw_stress)];
    if p.dim < r.effective_rank {
        let why = format!("PMDS is cut to d = {} < r_τ = {}, so it is not full rank", p.dim, r.effective_rank);
        return Draft { values, ..na(why) };
    }
    let holds = p.raw_stress <= 1e-6;
    let reason = format!("σ(pmds) = {} at rank {} (negative mass {})", num(p.raw_stress), p.dim, num(r.negative_mass));
    Draft { holds: Some(holds), reason, values }
}

fn fixed_three(r: &Report) -> Option<(f64, f64, f64)> {
    Some((scaled(r, "alibi")?, scaled(r, "sinusoidal")?, scaled(r, "rope")?))
}

fn alibi_short(r: &Report) -> Draft {
    let Some((a, s, o)) = fixed_three(r) else { return na("alibi, sinusoidal or rope is missing") };
    let holds = a < s && a < o;
    let reason = format!("σ*: alibi {}, sinusoidal {}, rope {}", num(a), num(s), num(o));
    let values = vec![
        ("alibi.scaled_stress".into(), a),
        ("sinusoidal.scaled_stress".into(), s),
        ("rope.scaled_stress".into(), o),
    ];
    Draft { holds: Some(holds), reason, values }
}

fn sinusoidal_rope(r: &Report) -> Draft {
    let (Some(s), Some(o)) = (scaled(r, "sinusoidal"), scaled(r, "rope")) else {
        return na("sinusoidal or rope is missing");
    };
    let gap = (s - o).abs() / s.max(o).max(f64::MIN_POSITIVE);
    let reason = format!("σ*: sinusoidal {}, rope {} ({:.1} % apart)", num(s), num(o), 100.0 * gap);
    let values = vec![("sinusoidal.scaled_stress".into(), s), ("rope.scaled_stress".into(), o)];
    Draft { holds: Some(gap <= 0.10), reason, values }
}

fn random_high(r: &Report) -> Draft {
    let Some(x) = scaled(r, "random") else { return na("no random row") };
    let others = r.encoding_order.iter().filter(|n| !matches!(n.as_str(), "random" | "nope"));
    let top = others.filter_map(|n| scaled(r, n).map(|v| (n, v))).max_by(|a, b| a.1.total_cmp(&b.1));
    let Some((name, v)) = top else { return na("no other encoding to compare") };
    let holds = x > v;
    let reason = if holds {
        format!("σ*(random) = {} is the highest; next is {name} at {}", num(x), num(v))
    } else {
        format!("σ*(random) = {}, but {name} is higher at {}", num(x), num(v))
    };
    let values = vec![("random.scaled_stress".into(), x), (format!("{name}.scaled_stress"), v)];
    Draft { holds: Some(holds), reason, values }
}

fn low_rank(r: &Report) -> Draft {
    let Some(s) = scaled(r, "sinusoidal") else { return na("no sinusoidal row") };
    let (n, d) = (r.n as f64, r.params.encodings.d as f64);
    let mut values = vec![("sinusoidal.scaled_stress".into(), s)];
    let Some(p) = r.rank_curve.iter().find(|p| p.scaled_stress <= 0.01 * s) else {
        let last = r.rank_curve.last().map_or(0, |p| p.rank);
        return Draft {
            holds: Some(false),
            reason: format!("no X_r with r ≤ {last} cuts σ* by 99 % against sinusoidal {}", num(s)),
            values,
        };
    };
    let saving = 1.0 - p.parameters as f64 / (n * d);
    values.extend([("low_rank.r".into(), p.rank as f64), ("low_rank.scaled_stress".into(), p.scaled_stress)]);
    values.push(("low_rank.saving".into(), saving));
    let (amount, word) = if saving >= 0.0 { (saving, "fewer") } else { (-saving, "more") };
    let reason = format!(
        "r = {} cuts σ* from {} (sinusoidal) to {}, with {:.1} % {word} parameters than an n×d table",
        p.rank,
        num(s),
        num(p.scaled_stress),
        100.0 * amount
    );
    Draft { holds: Some(saving > 0.0), reason, values }
}

fn monotone(r: &Report) -> Draft {
    let rate = |n: &str| r.encodings.get(n).and_then(|e| e.monotonicity_violation_rate);
    let Some(x) = rate("random") else { return na("no random row, or n < 3") };
    let tables: Vec<&String> = r.encoding_order.iter().filter(|n| *n == "pmds" || n.starts_with("learned")).collect();
    let rates: Vec<(String, f64)> = tables.iter().filter_map(|n| rate(n).map(|v| (n.to_string(), v))).collect();
    if rates.is_empty() {
        return na("no pmds or learned row");
    }
    let holds = rates.iter().all(|(_, v)| *v < x);
    let listed: Vec<String> = rates.iter().map(|(n, v)| format!("{n} {}", num(*v))).collect();
    let reason = format!("violation rate: random {}; {}", num(x), listed.join(", "));
    let mut values = vec![("random.monotonicity_violation_rate".to_string(), x)];
    values.extend(rates.into_iter().map(|(n, v)| (format!("{n}.monotonicity_violation_rate"), v)));
    Draft { holds: Some(holds), reason, values }
}

fn layer_departs(r: &Report) -> Draft {
    let Some(layers) = &r.layers else {
        return na("no model was run (choose one under “Inside the model”, or --model)");
    };
    let curve = (0..=layers.num_layers)
        .filter_map(|l| scaled(r, &crate::analysis::layers::layer_key(l, false)).map(|v| (l, v)));
    let Some((worst, v)) = curve.max_by(|a, b| a.1.total_cmp(&b.1)) else { return na("no layer rows") };
    let holds = worst > 0 && 2 * worst <= layers.num_layers;
    let reason = format!("layer {worst} of {} departs most: σ* = {}", layers.num_layers, num(v));
    let values = vec![("layer_departs.layer".into(), worst as f64), (format!("layer:{worst}.scaled_stress"), v)];
    Draft { holds: Some(holds), reason, values }
}

/// The lecture step that sets language and biology side by side (the sinusoids against chance).
pub const STEP_BIOLOGY: usize = 15;

/// (key, finding, what the paper reports, lecture step, rule).
type Rule = (&'static str, &'static str, &'static str, usize, fn(&Report) -> Draft);

const RULES: [Rule; 10] = [
    ("full_rank_pmds", "Full-rank PMDS has essentially zero stress", "σ ≈ 0 at full rank", 5, full_rank_pmds),
    ("alibi_short", "ALiBi fits short-sentence corpora better than sinusoidal and RoPE", "SST-2: ALiBi σ* 0.563, the lowest of the three", 7, alibi_short),
    ("sinusoidal_rope", "Sinusoidal and RoPE have nearly the same stress", "nearly identical on every corpus", 7, sinusoidal_rope),
    ("random_high", "A random table has very high stress", "the highest stress of the encodings", 7, random_high),
    ("low_rank", "Low rank suffices", "synthetic corpus: r = 3 cuts stress by 99.8 % against sinusoidal, with 88 % fewer parameters than an n×d table", 8, low_rank),
    ("monotone", "MDS and pretrained tables are more monotone than random ones", "lower violation rates than random", 9, monotone),
    ("layer_departs", "One early layer departs most from the corpus geometry", "BERT-base: layer 3 of 12", 11, layer_departs),
    ("sinusoids_close", "The sinusoids come close to the optimal map here", "close on smooth natural language, not on biological sequences", STEP_BIOLOGY, super::chance::sinusoids_close),
    ("sinusoids_beat_random", "The sinusoids fit better than random tables", "a fixed encoding should beat chance", STEP_BIOLOGY, super::chance::sinusoids_beat_random),
    ("sinusoids_follow_order", "The sinusoids follow the corpus's order better than random tables", "sinusoids encode order by construction", STEP_BIOLOGY, super::chance::sinusoids_follow_order),
];

impl Report {
    /// The paper's findings checked on this report (module docs), in the paper's order.
    pub fn claims(&self) -> Vec<Claim> {
        RULES
            .iter()
            .map(|&(key, finding, paper, step, rule)| {
                let d = rule(self);
                Claim {
                    key: key.into(),
                    finding: finding.into(),
                    paper: paper.into(),
                    holds: d.holds,
                    reason: d.reason,
                    values: d.values.into_iter().collect(),
                    step,
                }
            })
            .collect()
    }

    /// The claims as the CLI prints them (`--claims`): one line each, "holds", "does not
    /// hold" or "n/a", then the finding and this corpus's numbers.
    pub fn claims_text(&self) -> String {
        let mut s = String::from("The paper's findings on this corpus:\n");
        for c in self.claims() {
            let mark = match c.holds {
                Some(true) => "holds        ",
                Some(false) => "does not hold",
                None => "n/a          ",
            };
            s.push_str(&format!("  {mark}  {}: {} (paper: {})\n", c.finding, c.reason, c.paper));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn holds(r: &Report, key: &str) -> Option<bool> {
        r.claims().into_iter().find(|c| c.key == key).unwrap().holds
    }

    fn set(r: &mut Report, name: &str, f: impl FnOnce(&mut super::super::EncodingReport)) {
        f(r.encodings.get_mut(name).unwrap());
    }

    #[test]
    fn each_rule_follows_its_numbers() {
        let mut r = crate::test_support::report();
        assert_eq!(r.claims().len(), 10);
        for (a, s, o, want) in [(0.1, 0.2, 0.21, true), (0.3, 0.2, 0.21, false), (0.205, 0.2, 0.21, false)] {
            set(&mut r, "alibi", |e| e.scaled_stress = a);
            set(&mut r, "sinusoidal", |e| e.scaled_stress = s);
            set(&mut r, "rope", |e| e.scaled_stress = o);
            assert_eq!(holds(&r, "alibi_short"), Some(want), "{a} {s} {o}");
        }
        // 0.2 and 0.21 are 4.8 % apart: nearly the same; 0.2 and 0.3 are not.
        assert_eq!(holds(&r, "sinusoidal_rope"), Some(true));
        set(&mut r, "rope", |e| e.scaled_stress = 0.3);
        assert_eq!(holds(&r, "sinusoidal_rope"), Some(false));
        set(&mut r, "random", |e| e.scaled_stress = 0.9);
        assert_eq!(holds(&r, "random_high"), Some(true));
        set(&mut r, "random", |e| e.scaled_stress = 0.25);
        assert_eq!(holds(&r, "random_high"), Some(false));
        let c = r.claims().into_iter().find(|c| c.key == "random_high").unwrap();
        assert!(c.reason.contains("but rope is higher at 0.3000"), "{}", c.reason);
        set(&mut r, "random", |e| e.monotonicity_violation_rate = Some(0.5));
        set(&mut r, "pmds", |e| e.monotonicity_violation_rate = Some(0.1));
        assert_eq!(holds(&r, "monotone"), Some(true));
        set(&mut r, "pmds", |e| e.monotonicity_violation_rate = Some(0.6));
        assert_eq!(holds(&r, "monotone"), Some(false));
        // No model: not applicable.
        assert_eq!(holds(&r, "layer_departs"), None);
    }

    #[test]
    fn low_rank_takes_the_smallest_rank_under_one_percent() {
        let mut r = crate::test_support::report();
        let s = r.encodings["sinusoidal"].scaled_stress;
        let (n, d) = (r.n as f64, r.params.encodings.d as f64);
        for (k, p) in r.rank_curve.iter_mut().enumerate() {
            p.scaled_stress = if k < 2 { s } else { 0.005 * s };
        }
        let c = r.claims().into_iter().find(|c| c.key == "low_rank").unwrap();
        assert_eq!(c.values["low_rank.r"], 3.0);
        assert!((c.values["low_rank.saving"] - (1.0 - 3.0 * (n + d) / (n * d))).abs() < 1e-12);
        assert_eq!(c.holds, Some(c.values["low_rank.saving"] > 0.0));
        for p in &mut r.rank_curve {
            p.scaled_stress = s;
        }
        assert_eq!(holds(&r, "low_rank"), Some(false));
    }

    #[test]
    fn full_rank_pmds_is_checked_only_at_full_rank() {
        let mut r = crate::test_support::report();
        // This corpus has r_τ > d = 16: PMDS is cut, the claim does not apply.
        assert!(r.encodings["pmds"].dim < r.effective_rank);
        assert_eq!(holds(&r, "full_rank_pmds"), None);
        let rank = r.effective_rank;
        set(&mut r, "pmds", |e| (e.dim, e.raw_stress) = (rank, 1e-20));
        assert_eq!(holds(&r, "full_rank_pmds"), Some(true));
        set(&mut r, "pmds", |e| e.raw_stress = 1e-3);
        assert_eq!(holds(&r, "full_rank_pmds"), Some(false));
        set(&mut r, "pmds", |e| e.dim = 1);
        assert_eq!(holds(&r, "full_rank_pmds"), None);
        assert!(r.claims_text().contains("n/a"));
    }
}
