//! Lecture step 15: **language and biology side by side** — the paper's claim that the
//! sinusoids fit smooth natural language but not biological sequences, shown on two real
//! corpora at once (docs/MATH.md §17): English (Genesis) above, the shipped proteins below; for
//! each, D, σ* of every encoding against the band of random tables, and the PMDS map. Each row
//! is the last run of that corpus (the page keeps both: `View::corpora`).

use super::{num, Block};
use crate::protocol::Payload;
use crate::view::Corpora;
use posgeo::report::Report;

/// Which payload each of the step's canvases draws: the first three English's, the rest the
/// proteins'.
pub fn payload_of(corpora: &Corpora, canvas: usize) -> Option<&Payload> {
    match canvas {
        0..=2 => corpora.english.as_deref(),
        _ => corpora.proteins.as_deref(),
    }
}

/// A corpus's numbers in words: the sinusoids' σ* and Spearman against the band's.
fn reading(name: &str, r: &Report) -> Option<String> {
    let sin = r.encodings.get("sinusoidal")?;
    let band = r.random_band.as_ref()?;
    let b = band.scaled_stress;
    let fit = if sin.scaled_stress < b.min { "beats" } else { "is no better than" };
    let order = match (sin.spearman, band.spearman) {
        (Some(rho), Some(o)) => format!(", Spearman {} (random ≤ {})", num(rho), num(o.max)),
        _ => String::new(),
    };
    Some(format!(
        "{name}: the sinusoids' σ* {} {fit} random tables' {}–{}{order}.",
        num(sin.scaled_stress),
        num(b.min),
        num(b.max)
    ))
}

/// The step's text.
pub fn content(corpora: &Corpora) -> Vec<Block> {
    let mut out = vec![Block::Text(
        "Sinusoids fit smooth language, not biology (the paper). Above English, below 400 proteins: \
         D, σ* against 32 random tables (shaded), PMDS."
            .into(),
    )];
    let rows: Vec<(&str, &Payload)> =
        [("English", corpora.english.as_deref()), ("Proteins", corpora.proteins.as_deref())]
            .into_iter()
            .filter_map(|(n, p)| p.map(|p| (n, p)))
            .collect();
    let words: Vec<String> = rows.iter().filter_map(|(n, p)| reading(n, &p.report)).collect();
    if !words.is_empty() {
        out.push(Block::Text(words.join(" ")));
    }
    for (name, have, pick) in
        [("English", corpora.english.is_some(), "Genesis"), ("the proteins", corpora.proteins.is_some(), "proteins")]
    {
        if !have {
            out.push(Block::Text(format!(
                "No run on {name} yet: choose {pick} in the corpus picker above (this step keeps the last run of each)."
            )));
        }
    }
    out
}
