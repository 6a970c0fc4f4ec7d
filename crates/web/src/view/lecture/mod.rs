//! The **lecture view**: the paper's argument in [`STEPS`] steps, on the corpus of the last
//! run, one step on screen at a time (`#lecture` opens step 1, `#lecture/N` step N). Keys:
//! ArrowRight, PageDown and Space forward; ArrowLeft and PageUp back (clickers send PageDown
//! and PageUp); Home and End; Escape back to the dashboard.
//!
//! The steps: (1) the tokens at each position; (2) μ_i (docs/MATH.md §2); (3) the distance matrix,
//! the paper's Eq. 3; (4) double centring and the spectrum, Algorithm 1; (5) the PMDS map;
//! (6) an encoding's δ beside D; (7) stress, Eq. 4, and the Shepard diagram; (8) low rank,
//! r(n+d) parameters; (9) monotonicity; (10) what MDS does not optimise
//! ([`posgeo::demos::three_points`]) and SMACOF; (11) inside the model: stress across its layers
//! (docs/MATH.md §14), when the run had one; (12) what the model does with position layer by
//! layer, its positional share and effective dimension (`depth.rs`); (13) training separates
//! positions, Theorem 4, and (14) does lower stress mean lower loss?, both from the Learn
//! panel's last training (`training.rs`, docs/MATH.md §16); (15) language and biology side by
//! side, the sinusoids against chance on Genesis and on the proteins (`biology.rs`, docs/MATH.md
//! §17). Every number in a step's text comes
//! from the payload or that experiment; this module only words it (native-tested; `web::dom::lecture` puts it on the page).

pub mod biology;
mod depth;
mod training;

use super::charts::ChartKind;
use crate::protocol::Payload;
use crate::view::View;
use posgeo::report::{fmt_number, Report};
use posgeo_learn::Experiment;

/// One chart of a step, with its canvas size in pixels (small, so that the canvas is shown
/// enlarged and chart text reads from the back row).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepChart {
    /// Which chart.
    pub kind: ChartKind,
    /// Canvas width and height.
    pub size: (u32, u32),
}

/// A step: its heading and its charts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// The heading.
    pub title: &'static str,
    /// Charts, side by side.
    pub charts: &'static [StepChart],
}

const fn chart(kind: ChartKind, w: u32, h: u32) -> StepChart {
    StepChart { kind, size: (w, h) }
}

/// Every step, in order (step N is `STEPS[N − 1]`).
pub const STEPS: [Step; 15] = [
    Step { title: "1. The tokens at each position", charts: &[] },
    Step { title: "2. μᵢ: which tokens stand at position i", charts: &[chart(ChartKind::Support, 400, 210)] },
    Step {
        title: "3. How far apart two positions are: the distance matrix D",
        charts: &[chart(ChartKind::Heatmap, 330, 260)],
    },
    Step { title: "4. Double centring and the spectrum", charts: &[chart(ChartKind::Spectrum, 420, 220)] },
    Step { title: "5. PMDS: the positions laid out by classical MDS", charts: &[chart(ChartKind::Map, 400, 240)] },
    Step { title: "6. Each encoding's geometry beside the corpus's", charts: &[chart(ChartKind::Geometry, 440, 220)] },
    Step {
        title: "7. Stress: one number for how faithful an encoding is",
        charts: &[chart(ChartKind::Stress, 380, 290), chart(ChartKind::Shepard, 330, 290)],
    },
    Step { title: "8. Low rank: r(n + d) parameters instead of n·d", charts: &[chart(ChartKind::Rank, 420, 220)] },
    Step {
        title: "9. Monotonicity: does distance grow with |i − j|?",
        charts: &[chart(ChartKind::Monotonicity, 420, 220)],
    },
    Step { title: "10. What classical MDS does not optimise", charts: &[] },
    Step { title: "11. Inside the model: the geometry of every layer", charts: &[chart(ChartKind::Layers, 440, 240)] },
    Step {
        title: "12. What the model does with position, layer by layer",
        charts: &[chart(ChartKind::LayerMap, 400, 240)],
    },
    Step { title: "13. Training separates positions", charts: &[] },
    Step { title: "14. Does lower stress mean lower loss?", charts: &[] },
    Step {
        title: "15. Language and biology: where the sinusoids stop fitting",
        charts: &[
            chart(ChartKind::Heatmap, 260, 120),
            chart(ChartKind::Stress, 260, 120),
            chart(ChartKind::Map, 260, 120),
            chart(ChartKind::Heatmap, 260, 120),
            chart(ChartKind::Stress, 260, 120),
            chart(ChartKind::Map, 260, 120),
        ],
    },
];

/// The step that shows the Learn panel's scatter (held-out loss against σ*), and its canvas
/// size: a chart of the Learn panel's, drawn from its last training.
pub const SCATTER_STEP: (usize, u32, u32) = (14, 420, 230);

/// The step that trains in place (its own Train button runs the lecture preset), the Learn
/// panel's charts it draws as the tables learn (the trainable tables' map against PMDS, their
/// separation and σ*), and their canvas size.
pub const TRAIN_STEP: (usize, [crate::view::learn::LearnChart; 2], u32, u32) =
    (13, [crate::view::learn::LearnChart::Map, crate::view::learn::LearnChart::Tables], 300, 190);

/// The step a location hash names: `#lecture` → 1, `#lecture/N` → N (clamped to the steps;
/// anything unreadable → 1); `None` when the hash is not the lecture's.
pub fn parse_hash(hash: &str) -> Option<usize> {
    let rest = hash.strip_prefix('#').unwrap_or(hash).strip_prefix("lecture")?;
    if rest.is_empty() {
        return Some(1);
    }
    let n = rest.strip_prefix('/')?.trim().parse::<usize>().unwrap_or(1);
    Some(n.clamp(1, STEPS.len()))
}

/// The hash of step `n`.
pub fn hash(n: usize) -> String {
    format!("#lecture/{n}")
}

/// Where a key takes the lecture from step `n` (`None`: the key is not the lecture's).
pub fn after_key(n: usize, key: &str) -> Option<usize> {
    let last = STEPS.len();
    match key {
        "ArrowRight" | "PageDown" | " " | "Spacebar" => Some((n + 1).min(last)),
        "ArrowLeft" | "PageUp" => Some(n.saturating_sub(1).max(1)),
        "Home" => Some(1),
        "End" => Some(last),
        _ => None,
    }
}

/// A piece of a step's body.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// A paragraph.
    Text(String),
    /// A table: header cells and rows.
    Grid(Vec<String>, Vec<Vec<String>>),
}

fn num(v: f64) -> String {
    fmt_number(Some(v))
}

fn sigma(r: &Report, name: &str) -> String {
    r.encodings.get(name).map_or("—".into(), |e| num(e.raw_stress))
}

fn scaled(r: &Report, name: &str) -> String {
    r.encodings.get(name).map_or("—".into(), |e| num(e.scaled_stress))
}

/// The body of step `n` (1-based) for the results `p` and the Learn panel's last training.
pub fn content(n: usize, p: &Payload, view: &View, learned: Option<&Experiment>) -> Vec<Block> {
    let r = &p.report;
    match n {
        1 => tokens(p),
        2 => distributions(r),
        3 => distances(r),
        4 => spectrum(r),
        5 => vec![
            Block::Text(
                "X = V·diag(√λ): every position at its MDS coordinates, here the first two, joined in \
                 sequence order. This configuration is the information-optimal encoding, PMDS."
                    .into(),
            ),
            Block::Text(format!(
                "PMDS in d = {} dimensions reproduces D with raw stress σ = {}: positions that hold \
                 similar tokens sit close together.",
                r.encodings.get("pmds").map_or(0, |e| e.dim),
                sigma(r, "pmds")
            )),
        ],
        6 => geometry(p, view),
        7 => stress(p, view),
        8 => low_rank(r),
        9 => monotonicity(r),
        10 => not_optimised(r),
        11 => depth::inside_model(r),
        12 => depth::content(r),
        13 => training::separates(learned),
        14 => training::finding(learned),
        _ => biology::content(&view.corpora),
    }
}

fn tokens(p: &Payload) -> Vec<Block> {
    let r = &p.report;
    let width = p.examples.iter().map(Vec::len).max().unwrap_or(0);
    let head = (0..width).map(|i| i.to_string()).collect();
    let rows = p.examples.iter().map(|s| (0..width).map(|i| s.get(i).cloned().unwrap_or_default()).collect()).collect();
    vec![
        Block::Text(
            "Without a positional signal a transformer sees a set: \"dog bites man\" = \"man bites dog\". \
             The corpus says what a position means. Its first sequences, token by token (column i is \
             position i):"
                .into(),
        ),
        Block::Grid(head, rows),
        Block::Text(format!(
            "{}, {} tokens counted; {} positions have at least {} sequences each (n = {}).",
            r.sequences_text(),
            r.tokens,
            r.n,
            r.params.min_support,
            r.n
        )),
    ]
}

/// Positions whose distributions step 2 shows: the first two, the middle, the last.
pub fn shown_positions(n: usize) -> Vec<usize> {
    let mut v: Vec<usize> = [0, 1, n / 2, n.saturating_sub(1)].into_iter().filter(|&i| i < n).collect();
    v.dedup();
    v
}

fn distributions(r: &Report) -> Vec<Block> {
    let mut rows = Vec::new();
    for i in shown_positions(r.n) {
        let total = r.support.get(i).copied().unwrap_or(0).max(1) as f64;
        let mut row = vec![format!("position {i}")];
        row.extend(
            r.top_tokens
                .get(i)
                .into_iter()
                .flatten()
                .take(4)
                .map(|(t, c)| format!("{t} {:.1}%", 100.0 * *c as f64 / total)),
        );
        rows.push(row);
    }
    vec![
        Block::Text(format!(
            "μᵢ(w) = cᵢ(w)/Nᵢ: the share of the Nᵢ sequences reaching position i whose token there is w \
             (mode {}, smoothing α = {}). The most frequent tokens at a few positions:",
            r.params.mode.name(),
            r.params.alpha
        )),
        Block::Grid(vec!["".into(), "1st".into(), "2nd".into(), "3rd".into(), "4th".into()], rows),
        Block::Text("Below: Nᵢ, the sequences counted at each position.".into()),
    ]
}

fn distances(r: &Report) -> Vec<Block> {
    let m = r.matrix.values().next();
    let max = m.map_or(0.0, |m| m.iter().flatten().copied().fold(0.0, f64::max));
    let adjacent = m.map_or(0.0, |m| {
        let k = m.len().saturating_sub(1).max(1);
        (0..m.len().saturating_sub(1)).map(|i| m[i][i + 1]).sum::<f64>() / k as f64
    });
    vec![
        Block::Text(format!(
            "Dᵢⱼ = ‖√μᵢ − √μⱼ‖₂, the Hellinger chord (the paper's Eq. 3): 0 for equal distributions, √2 \
             for distributions with no token in common. Metric here: {}.",
            r.metric
        )),
        Block::Text(format!(
            "On this corpus D reaches {}; neighbouring positions are {} apart on average.",
            num(max),
            num(adjacent)
        )),
    ]
}

fn spectrum(r: &Report) -> Vec<Block> {
    vec![
        Block::Text(
            "B = −½ J (D∘D) J, J = I − 11ᵀ/n, turns distances into inner products; its eigenvalues \
             λ₁ ≥ λ₂ ≥ … say how many dimensions the geometry needs (Algorithm 1)."
                .into(),
        ),
        Block::Text(format!(
            "Effective rank r_τ = {} (λₖ > τ·λ₁), energy rank r_E = {} ({}% of Σλ⁺), negative mass {} \
             (≈ 0 for the Hellinger chord: B is a Gram matrix).",
            r.effective_rank,
            r.energy_rank,
            r.params.energy * 100.0,
            num(r.negative_mass)
        )),
    ]
}

fn geometry(p: &Payload, view: &View) -> Vec<Block> {
    let r = &p.report;
    let name = view.shepard_for(p);
    let e = r.encodings.get(name);
    vec![
        Block::Text(format!(
            "Left: the corpus's D. Right: the distances δ of {name}, rescaled by its best scale a* = {}, \
             on the same colour scale. Where the right repeats the left, the encoding has the corpus's \
             geometry. Pick another encoding below.",
            e.map_or("—".into(), |e| num(e.scale))
        )),
        Block::Text(format!("{name}: scale-optimal stress σ* = {}.", scaled(r, name))),
    ]
}

fn stress(p: &Payload, view: &View) -> Vec<Block> {
    let r = &p.report;
    vec![
        Block::Text(
            "σ = Σ(δᵢⱼ − Dᵢⱼ)² / ΣDᵢⱼ² (Eq. 4); σ* takes the best scale a ≥ 0 of δ, which fixed \
             encodings lack."
                .into(),
        ),
        Block::Text(r.verdict()),
        Block::Text(format!(
            "Right: the Shepard diagram of {}, a*·δᵢⱼ against Dᵢⱼ; a perfect encoding lies on the diagonal.",
            view.shepard_for(p)
        )),
    ]
}

fn low_rank(r: &Report) -> Vec<Block> {
    let d = r.params.encodings.d;
    let (rank, sig) = r.encodings.get("pmds_r").map_or((0, "—".into()), |e| (e.dim, num(e.raw_stress)));
    let (full, low) = (r.n * d, rank * (r.n + d));
    vec![
        Block::Text(format!(
            "When the spectrum falls fast, a few coordinates carry the geometry. PMDS of rank r = {rank} \
             is a factorised table of r(n + d) = {low} parameters instead of n·d = {full} ({:.1}%), with \
             σ = {sig}.",
            100.0 * low as f64 / full.max(1) as f64
        )),
        Block::Text("Move the slider: the table and the chart follow (the corpus is not recounted).".into()),
    ]
}

fn monotonicity(r: &Report) -> Vec<Block> {
    let rate = |n: &str| r.encodings.get(n).map_or("—".into(), |e| fmt_number(e.monotonicity_violation_rate));
    vec![
        Block::Text(
            "A violation is a triple with |i − j| < |i − k| but δᵢⱼ > δᵢₖ: a nearer position that looks \
             farther. ALiBi has none by construction; sinusoids and RoPE oscillate."
                .into(),
        ),
        Block::Text(format!(
            "Violation rates: the corpus's own D {}; sinusoidal {}, RoPE {}, ALiBi {}, PMDS {}.",
            fmt_number(r.corpus_monotonicity_violation_rate),
            rate("sinusoidal"),
            rate("rope"),
            rate("alibi"),
            rate("pmds")
        )),
    ]
}

fn not_optimised(r: &Report) -> Vec<Block> {
    let mut out = vec![Block::Text(
        "Classical MDS minimises the error of the Gram matrix B, not the stress σ. The smallest case: \
         three points at mutual distance 1, placed on a line."
            .into(),
    )];
    match posgeo::demos::three_points::three_points() {
        Ok(t) => {
            let pos = |v: &[f64]| v.iter().map(|x| format!("{x:+.3}")).collect::<Vec<_>>().join(", ");
            out.push(Block::Grid(
                vec!["".into(), "positions".into(), "σ".into()],
                vec![
                    vec!["classical MDS (rank 1)".into(), pos(&t.mds), format!("{:.4} = 1/6", t.mds_stress)],
                    vec![
                        format!(
                            "SMACOF ({} step{})",
                            t.smacof_iterations,
                            if t.smacof_iterations == 1 { "" } else { "s" }
                        ),
                        pos(&t.smacof),
                        format!("{:.4} = 1/9", t.smacof_stress),
                    ],
                ],
            ));
        }
        Err(e) => out.push(Block::Text(e.to_string())),
    }
    out.push(Block::Text(format!(
        "SMACOF minimises σ directly (Guttman transforms from the PMDS start). On this corpus: PMDS σ = {}, \
         SMACOF σ = {}.",
        sigma(r, "pmds"),
        sigma(r, "smacof")
    )));
    out
}

#[cfg(test)]
mod tests;
