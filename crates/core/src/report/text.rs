//! The text both front-ends show for a [`Report`]: number formatting, the summary lines,
//! the verdict and the stress table (text and CSV).

use super::Report;

/// A number as both front-ends show it: four decimals, or three significant digits in
/// scientific notation below 10⁻³ and from 10⁴ on; "—" when undefined.
pub fn fmt_number(v: Option<f64>) -> String {
    v.map_or("—".into(), |x| {
        if x != 0.0 && (x.abs() < 1e-3 || x.abs() >= 1e4) {
            format!("{x:.3e}")
        } else {
            format!("{x:.4}")
        }
    })
}

/// The columns of the stress table, in order (names as in the JSON report).
pub const STRESS_COLUMNS: [&str; 9] = [
    "encoding",
    "dim",
    "parameters",
    "raw_stress",
    "scaled_stress",
    "scale",
    "spearman",
    "monotonicity_violation_rate",
    "procrustes_residual",
];

/// The random band in one line: "32 random tables: σ* 0.0244–0.0509 (median …), Spearman …".
pub fn band_line(b: &crate::measures::band::RandomBand) -> String {
    let range = |s: crate::measures::band::Spread| {
        format!("{}–{} (median {})", fmt_number(Some(s.min)), fmt_number(Some(s.max)), fmt_number(Some(s.median)))
    };
    let rho = b.spearman.map_or("undefined".to_string(), range);
    format!("chance: {} random tables score σ* {}, Spearman {}", b.k, range(b.scaled_stress), rho)
}

impl Report {
    /// "1200 sequences", or what a counts table can say instead.
    pub fn sequences_text(&self) -> String {
        match self.sequences {
            Some(s) => format!("{s} sequences"),
            None => format!(
                "sequences unknown from a counts table ({} with a token at position 0)",
                self.support_all.first().copied().unwrap_or(0)
            ),
        }
    }

    /// The corpus summary, one line each (the page's summary and the CLI's header).
    pub fn summary_lines(&self) -> Vec<String> {
        let mut lines = vec![
            format!(
                "{}, {} tokens counted at kept positions, vocabulary |V| = {}",
                self.sequences_text(),
                self.tokens,
                self.vocab_size
            ),
            format!(
                "n = {} positions kept (support from {} down to {})",
                self.n,
                self.support.first().copied().unwrap_or(0),
                self.support.last().copied().unwrap_or(0)
            ),
            self.dropped_reason.clone().unwrap_or_else(|| "no position dropped".into()),
            format!(
                "metric: {}; effective rank r_τ = {}, energy rank r_E = {}, negative mass {}",
                self.metric,
                self.effective_rank,
                self.energy_rank,
                fmt_number(Some(self.negative_mass))
            ),
            format!(
                "monotonicity violation rate of the corpus metric itself: {}",
                fmt_number(self.corpus_monotonicity_violation_rate)
            ),
        ];
        if let Some(t) = &self.tokenizer_file {
            lines.insert(0, format!("tokenizer: {t}"));
        }
        if let Some(t) = &self.counts_table {
            lines.insert(0, format!("counts table: {t} (the text itself was not read)"));
        }
        if let Some(b) = &self.random_band {
            lines.push(band_line(b));
        }
        if let Some(e) = self.encodings.get("smacof") {
            lines.extend(smacof_line(e, self.params.encodings.smacof_max_iter));
        }
        if self.skipped_lines > 0 {
            lines.push(format!("{} line(s) of invalid UTF-8 skipped", self.skipped_lines));
        }
        lines
    }

    /// One line that answers "which encoding fits this corpus?" ([`Report::judge`]'s
    /// sentence, on the numbers as they are now).
    pub fn verdict(&self) -> String {
        self.judge().sentence
    }

    /// One encoding's numeric cells, in [`STRESS_COLUMNS`] order after `encoding`, `dim`
    /// and `parameters` (`None` where undefined).
    pub fn stress_cells(&self, name: &str) -> Option<[(&'static str, Option<f64>); 6]> {
        let e = self.encodings.get(name)?;
        Some([
            ("raw_stress", Some(e.raw_stress)),
            ("scaled_stress", Some(e.scaled_stress)),
            ("scale", Some(e.scale)),
            ("spearman", e.spearman),
            ("monotonicity_violation_rate", e.monotonicity_violation_rate),
            ("procrustes_residual", e.procrustes_residual),
        ])
    }

    /// The stress table as CSV (full precision; empty cells where undefined).
    pub fn stress_csv(&self) -> String {
        let mut s = STRESS_COLUMNS.join(",") + "\n";
        for name in &self.encoding_order {
            let (Some(e), Some(cells)) = (self.encodings.get(name), self.stress_cells(name)) else { continue };
            let nums: Vec<String> = cells.iter().map(|(_, v)| v.map_or(String::new(), |x| format!("{x:?}"))).collect();
            s.push_str(&format!("{name},{},{},{}\n", e.dim, e.parameters, nums.join(",")));
        }
        s
    }

    /// The stress table as aligned text (the CLI's output).
    pub fn stress_text(&self) -> String {
        let mut s = format!(
            "{:<11} {:>5} {:>11} {:>10} {:>10} {:>10} {:>9} {:>12} {:>10}\n",
            "encoding", "dim", "parameters", "raw σ", "scaled σ*", "scale a*", "spearman", "monotonicity", "procrustes"
        );
        for name in &self.encoding_order {
            let Some(e) = self.encodings.get(name) else { continue };
            s.push_str(&format!(
                "{:<11} {:>5} {:>11} {:>10.6} {:>10.6} {:>10.4} {:>9} {:>12} {:>10}\n",
                name,
                e.dim,
                e.parameters,
                e.raw_stress,
                e.scaled_stress,
                e.scale,
                fmt_number(e.spearman),
                fmt_number(e.monotonicity_violation_rate),
                fmt_number(e.procrustes_residual)
            ));
        }
        s
    }
}

/// Rows of numbers as CSV, full precision (`{:?}` round-trips every f64).
pub fn csv_rows<'a>(rows: impl IntoIterator<Item = &'a [f64]>) -> String {
    let mut s = String::new();
    for r in rows {
        let cells: Vec<String> = r.iter().map(|v| format!("{v:?}")).collect();
        s.push_str(&cells.join(","));
        s.push('\n');
    }
    s
}

/// The summary's line on SMACOF: its iterations and why it stopped.
fn smacof_line(e: &crate::report::EncodingReport, cap: usize) -> Option<String> {
    let it = e.iterations?;
    let s = if it == 1 { "" } else { "s" };
    Some(match e.stopped {
        Some(crate::smacof::SmacofStop::Cap) | None if it >= cap => {
            format!("SMACOF stopped at its cap of {cap} iterations (raise smacof_iter for more)")
        }
        Some(stop) => {
            format!("SMACOF ran {it} iteration{s} and stopped because {} (its σ is significant to 1e-5)", stop.text())
        }
        None => format!("SMACOF ran {it} iteration{s}"),
    })
}
