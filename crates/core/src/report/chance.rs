//! **The verdict, held against chance** (docs/MATH.md §17): which fixed encoding fits this
//! corpus, said only when it clears the band of random tables ([`crate::measures::band`]).
//!
//! * The fixed encodings are `sinusoidal`, `rope` and `alibi` (PMDS is the optimum, `random`
//!   is the band).
//! * **Best by stress**: the fixed encoding of lowest σ*, named only when its σ* is below the
//!   band's minimum (it fits better than random tables) and the runner-up's σ* exceeds it by
//!   more than the band's width (max − min). Otherwise the sentence says which encodings tie
//!   with random tables.
//! * **Best by order**: the fixed encoding of highest Spearman ρ, named only when ρ is above the
//!   band's maximum (it follows the corpus's order better than random tables) **(choice: the
//!   same bar as by stress)**.
//!
//! Without a band (a report read from an older file) the fixed encodings are ranked by σ*
//! alone. The three claims of biological sequences (`sinusoids_close`,
//! `sinusoids_beat_random`, `sinusoids_follow_order`) read the same numbers.

use super::claims::{na, Draft};
use super::text::fmt_number;
use super::Report;
use crate::measures::band::RandomBand;
use serde::{Deserialize, Serialize};

/// The fixed (parameter-free) encodings the verdict ranks.
pub const FIXED: [&str; 3] = ["sinusoidal", "rope", "alibi"];

/// The report's `verdict`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Verdict {
    /// The fixed encoding that fits best by σ*, when it clears the band.
    pub best_by_stress: Option<String>,
    /// The fixed encoding that follows the corpus's order best, when it clears the band.
    pub best_by_order: Option<String>,
    /// The verdict in words.
    pub sentence: String,
}

fn num(v: f64) -> String {
    fmt_number(Some(v))
}

/// "a", "a and b", "a, b and c".
fn listed(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

impl Report {
    /// The verdict on this report's numbers (module docs).
    pub fn judge(&self) -> Verdict {
        let mut fixed: Vec<(&str, f64)> =
            FIXED.iter().filter_map(|&n| self.encodings.get(n).map(|e| (n, e.scaled_stress))).collect();
        fixed.sort_by(|a, b| a.1.total_cmp(&b.1));
        if fixed.is_empty() {
            return Verdict::default();
        }
        let (best_by_stress, mut sentence) = match &self.random_band {
            Some(band) => by_stress(&fixed, band),
            None => unbanded(&fixed),
        };
        let (best_by_order, order) = self.by_order();
        sentence.push_str(&order);
        sentence.push_str(&self.learned_suffix());
        Verdict { best_by_stress, best_by_order, sentence }
    }

    /// The fixed encoding of highest ρ when it clears the band, and the sentence's clause.
    fn by_order(&self) -> (Option<String>, String) {
        // The first in FIXED's order among equals (the sinusoids' and ALiBi's ρ tie exactly:
        // both distances grow with |i − j| alone).
        let top = FIXED.iter().filter_map(|&n| self.encodings.get(n).and_then(|e| e.spearman).map(|s| (n, s))).fold(
            None,
            |best: Option<(&str, f64)>, c| match best {
                Some(b) if b.1 >= c.1 => Some(b),
                _ => Some(c),
            },
        );
        let Some((name, rho)) = top else { return (None, String::new()) };
        let ceiling = self.random_band.as_ref().and_then(|b| b.spearman).map(|s| s.max);
        match ceiling {
            Some(c) if rho <= c => (
                None,
                format!(
                    "; by order, none follows it better than random tables (best: {name}, Spearman {} against up to {} for random tables)",
                    num(rho),
                    num(c)
                ),
            ),
            _ => (Some(name.to_string()), format!("; by order, {name} follows it best (Spearman {})", num(rho))),
        }
    }

    /// "; the learned table …" when learned tables were compared.
    fn learned_suffix(&self) -> String {
        let learned: Vec<String> = self
            .encoding_order
            .iter()
            .filter(|n| n.starts_with("learned"))
            .filter_map(|n| self.encodings.get(n).map(|e| (n, e.scaled_stress)))
            .map(|(n, s)| match n.strip_prefix("learned:") {
                Some(name) => format!("{name} {}", num(s)),
                None => num(s),
            })
            .collect();
        match learned.len() {
            0 => String::new(),
            1 if self.encodings.contains_key("learned") => format!("; the learned table {}", learned[0]),
            _ => format!("; learned tables: {}", learned.join(", ")),
        }
    }
}

/// "ties" or "tie".
fn tie(names: &[&str]) -> &'static str {
    if names.len() == 1 {
        "ties"
    } else {
        "tie"
    }
}

/// The ranking by σ* alone (no band).
fn unbanded(fixed: &[(&str, f64)]) -> (Option<String>, String) {
    let (best, s) = fixed[0];
    let rest: Vec<String> = fixed[1..].iter().map(|(n, v)| format!("{n} {}", num(*v))).collect();
    let line =
        format!("On this corpus {best} fits best among the fixed encodings (σ* = {}); {}", num(s), rest.join(", "));
    (Some(best.to_string()), line)
}

/// The clause by σ*, against the band; `fixed` sorted by σ*, not empty.
fn by_stress(fixed: &[(&str, f64)], band: &RandomBand) -> (Option<String>, String) {
    let b = band.scaled_stress;
    let range = format!("random tables {}–{}", num(b.min), num(b.max));
    let (best, s) = fixed[0];
    let beats: Vec<&str> = fixed.iter().filter(|f| f.1 < b.min).map(|f| f.0).collect();
    let ties: Vec<&str> = fixed.iter().filter(|f| f.1 >= b.min).map(|f| f.0).collect();
    let clear = s < b.min && fixed.get(1).is_none_or(|r| r.1 - s > b.width());
    let all: Vec<String> = fixed.iter().map(|(n, v)| format!("{n} {}", num(*v))).collect();
    if clear {
        let rest = all[1..].join(", ");
        let line =
            format!("On this corpus {best} fits best among the fixed encodings (σ* = {}; {range}); {rest}", num(s));
        return (Some(best.to_string()), line);
    }
    let why = "random tables are nearly equidistant, and σ* rewards that where the corpus's distances level off after the first positions";
    let line = if beats.is_empty() {
        format!(
            "No fixed encoding fits this corpus better than random tables: {} {} with them (σ* {}; {range}; {why})",
            listed(&ties),
            tie(&ties),
            all.join(", ")
        )
    } else {
        format!(
            "{} fit this corpus better than random tables, but too close to one another to name one (σ* {}; the band spans {}); {}",
            listed(&beats),
            all.join(", "),
            num(b.width()),
            match ties.is_empty() {
                true => range.clone(),
                false => format!("{} {} with random tables ({range})", listed(&ties), tie(&ties)),
            }
        )
    };
    (None, line)
}

fn band_values(b: &RandomBand, what: &str) -> Vec<(String, f64)> {
    let (spread, key) = match what {
        "spearman" => match b.spearman {
            Some(s) => (s, "spearman"),
            None => return Vec::new(),
        },
        _ => (b.scaled_stress, "scaled_stress"),
    };
    vec![
        (format!("random_band.{key}.min"), spread.min),
        (format!("random_band.{key}.median"), spread.median),
        (format!("random_band.{key}.max"), spread.max),
    ]
}

/// "σ*(sinusoidal) = 0.0678; 32 random tables 0.0638–0.0664 (median 0.0653)".
fn against_band(what: &str, v: f64, k: usize, s: crate::measures::band::Spread) -> String {
    format!("{what} = {}; {k} random tables {}–{} (median {})", num(v), num(s.min), num(s.max), num(s.median))
}

/// `sinusoids_close`: σ*(sinusoidal) ≤ 0.1.
pub(super) fn sinusoids_close(r: &Report) -> Draft {
    let Some(s) = r.encodings.get("sinusoidal").map(|e| e.scaled_stress) else { return na("no sinusoidal row") };
    let holds = s <= 0.1;
    let reason = format!("σ*(sinusoidal) = {} ({} 0.1)", num(s), if holds { "≤" } else { ">" });
    Draft { holds: Some(holds), reason, values: vec![("sinusoidal.scaled_stress".into(), s)] }
}

/// `sinusoids_beat_random`: σ*(sinusoidal) below the band's minimum.
pub(super) fn sinusoids_beat_random(r: &Report) -> Draft {
    let Some(s) = r.encodings.get("sinusoidal").map(|e| e.scaled_stress) else { return na("no sinusoidal row") };
    let Some(band) = &r.random_band else { return na("no random band in this report") };
    let b = band.scaled_stress;
    let holds = s < b.min;
    let reason = against_band("σ*(sinusoidal)", s, band.k, b);
    let mut values = vec![("sinusoidal.scaled_stress".into(), s)];
    values.extend(band_values(band, "scaled_stress"));
    Draft { holds: Some(holds), reason, values }
}

/// `sinusoids_follow_order`: ρ(sinusoidal) above the band's maximum.
pub(super) fn sinusoids_follow_order(r: &Report) -> Draft {
    let Some(band) = &r.random_band else { return na("no random band in this report") };
    let (Some(rho), Some(b)) = (r.encodings.get("sinusoidal").and_then(|e| e.spearman), band.spearman) else {
        return na("Spearman is undefined here (n < 3 or a constant geometry)");
    };
    let holds = rho > b.max;
    let reason = against_band("Spearman(sinusoidal)", rho, band.k, b);
    let mut values = vec![("sinusoidal.spearman".into(), rho)];
    values.extend(band_values(band, "spearman"));
    Draft { holds: Some(holds), reason, values }
}
