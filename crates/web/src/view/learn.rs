//! The **Learn panel** as plain Rust (docs/MATH.md §16): its charts and how each is drawn on
//! any plotters backend, the results table's rows (full-precision `data-value`s, as the
//! stress table's), the finding, and the downloads (the curves as CSV, every chart as PNG or
//! SVG). The page model says what to show ([`LearnData`]); the DOM layer writes it.

use super::export::{Download, ImageFormat};
use plotters::coord::Shift;
use plotters::prelude::*;
use posgeo::learned_tables::{self, NamedTable};
use posgeo::report::fmt_number;
use posgeo_charts::{self as charts, Frame};
use posgeo_learn::{Experiment, Record, Run, Signal};
use std::rc::Rc;

/// What the panel's charts show.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LearnData {
    /// The runs drawn: the training's so far while one runs, else the last results'.
    pub runs: Vec<Run>,
    /// The last finished experiment (the table, the scatter, the CSV); kept through a
    /// cancel or an error.
    pub experiment: Option<Rc<Experiment>>,
    /// A training is under way.
    pub training: bool,
}

/// The panel's charts, in page order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LearnChart {
    /// Held-out loss against step.
    Loss,
    /// Held-out loss against σ*.
    Scatter,
    /// The trainable tables' σ* and separation against step.
    Tables,
    /// The trainable tables aligned onto the PMDS map.
    Map,
}

impl LearnChart {
    /// Every chart, in page order.
    pub const ALL: [LearnChart; 4] = [LearnChart::Loss, LearnChart::Scatter, LearnChart::Tables, LearnChart::Map];

    /// The name in element ids (`chart-<name>`), buttons (`data-learn-chart`) and files.
    pub fn name(self) -> &'static str {
        match self {
            LearnChart::Loss => "learn-loss",
            LearnChart::Scatter => "learn-scatter",
            LearnChart::Tables => "learn-tables",
            LearnChart::Map => "learn-map",
        }
    }

    /// The canvas's text alternative.
    pub fn description(self) -> &'static str {
        match self {
            LearnChart::Loss => "Line chart: the held-out loss of every trained model against the training step, one colour per position signal",
            LearnChart::Scatter => "Scatter plot: each position signal's final held-out loss against its stress σ*",
            LearnChart::Tables => "Line chart: σ* and the separation of the trainable position tables against the training step",
            LearnChart::Map => "Scatter plot: the trainable position tables aligned onto the PMDS map, at the start and at the end of training",
        }
    }

    /// Parses [`LearnChart::name`].
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// Draws one chart of the panel.
pub fn draw_on<DB: DrawingBackend>(
    kind: LearnChart,
    root: &DrawingArea<DB, Shift>,
    d: &LearnData,
) -> Result<Frame, String> {
    let idle = "not trained yet: choose the signals and options, then press Train";
    let note = if d.training { "training: each signal's curves appear when it finishes" } else { idle };
    match kind {
        LearnChart::Loss => charts::learn_loss(root, &d.runs, note),
        LearnChart::Scatter => {
            let note = if d.training { "the signals' points appear when the training finishes" } else { idle };
            charts::learn_scatter(root, d.experiment.as_deref().filter(|_| !d.training), note)
        }
        LearnChart::Tables | LearnChart::Map if !d.training && !d.runs.iter().any(|r| r.signal.trainable()) => {
            let none = if d.runs.is_empty() {
                idle
            } else {
                "no trainable table among the signals: add learned, learned_pmds or lowrank"
            };
            charts::learn_map(root, &[], none)
        }
        LearnChart::Tables => charts::learn_tables(root, &d.runs, note),
        LearnChart::Map => charts::learn_map(root, &d.runs, note),
    }
}

/// A chart as an SVG document of `size` pixels.
pub fn svg(kind: LearnChart, d: &LearnData, size: (u32, u32)) -> Result<String, String> {
    let mut s = String::new();
    {
        let root = SVGBackend::with_string(&mut s, size).into_drawing_area();
        draw_on(kind, &root, d)?;
        root.present().map_err(|e| format!("drawing failed: {e:?}"))?;
    }
    Ok(s)
}

/// The table's metric cells, in column order (`td[data-metric]`).
pub const METRICS: [&str; 5] = ["held_loss", "held_accuracy", "scaled_stress", "separation", "monotonicity"];

/// One metric cell: its text and its full-precision value (`null` when undefined).
#[derive(Debug, Clone, PartialEq)]
pub struct LearnCell {
    /// `data-metric`.
    pub metric: &'static str,
    /// What is shown.
    pub text: String,
    /// `data-value`: the number as Rust prints it back exactly, or `null`.
    pub value: String,
}

/// One signal's row.
#[derive(Debug, Clone, PartialEq)]
pub struct LearnRow {
    /// The signal's name (`data-signal`).
    pub signal: String,
    /// Its colour in every chart (CSS).
    pub color: String,
    /// Seeds that ran every step, and the held-out loss's range over them when several.
    pub seeds: String,
    /// The metric cells.
    pub cells: Vec<LearnCell>,
    /// The seeds whose final table can be downloaded (trainable signals only).
    pub tables: Vec<u64>,
}

/// A number's `data-value`: shortest text that reads back to the same bits, or `null`.
pub fn value_text(v: Option<f64>) -> String {
    v.map_or("null".to_string(), |x| format!("{x:?}"))
}

/// The table's rows: one per signal that finished a run, in the experiment's order.
pub fn rows(e: &Experiment) -> Vec<LearnRow> {
    e.signals
        .iter()
        .map(|s| {
            let values = [Some(s.held_loss), Some(s.held_accuracy), s.scaled_stress, s.separation, s.monotonicity];
            let cells = METRICS
                .iter()
                .zip(values)
                .map(|(&metric, v)| LearnCell { metric, text: fmt_number(v), value: value_text(v) })
                .collect();
            let [lo, hi] = s.held_loss_range;
            let seeds = if s.seeds > 1 { format!("{} ({:.4}–{:.4})", s.seeds, lo, hi) } else { s.seeds.to_string() };
            let tables = e.runs.iter().filter(|r| r.signal == s.signal && r.table.is_some()).map(|r| r.seed).collect();
            LearnRow {
                tables,
                signal: s.signal.name().to_string(),
                color: charts::palette::css_of(s.signal.name()),
                seeds,
                cells,
            }
        })
        .collect()
}

/// The finding as shown: the sentence with ρ's seed-by-seed range and the runs that stopped
/// early, and ρ's `data-rho`.
pub fn finding(e: &Experiment) -> (String, String) {
    let f = &e.finding;
    let mut text = f.sentence.clone();
    if let Some([a, b]) = f.rho_range.filter(|_| f.seeds > 1) {
        text += &format!(" Seed by seed, ρ runs from {a:.2} to {b:.2}.");
    }
    for run in e.runs.iter().filter(|r| r.error.is_some()) {
        text += &format!(" {} (seed {}): {}.", run.signal.name(), run.seed, run.error.as_deref().unwrap_or(""));
    }
    (text, value_text(f.rho))
}

/// The CSV's columns.
pub const CSV_COLUMNS: [&str; 10] = [
    "signal",
    "seed",
    "step",
    "train_loss",
    "held_loss",
    "held_accuracy",
    "scaled_stress",
    "spearman",
    "monotonicity",
    "separation",
];

/// Every record of every run as CSV, full precision; an empty field where a value is not
/// recorded (no training loss at step 0; the table's measures of fixed signals).
pub fn csv(runs: &[Run]) -> String {
    let mut s = CSV_COLUMNS.join(",") + "\n";
    let num = |v: Option<f64>| v.map_or(String::new(), |x| format!("{x:?}"));
    for run in runs {
        for r in &run.records {
            let Record { step, train_loss, held_loss, held_accuracy, table } = r;
            let t = table.as_ref();
            let fields = [
                run.signal.name().to_string(),
                run.seed.to_string(),
                step.to_string(),
                num(*train_loss),
                num(Some(*held_loss)),
                num(Some(*held_accuracy)),
                num(t.map(|t| t.scaled_stress)),
                num(t.and_then(|t| t.spearman)),
                num(t.and_then(|t| t.monotonicity)),
                num(t.map(|t| t.separation)),
            ];
            s += &(fields.join(",") + "\n");
        }
    }
    s
}

/// The panel's downloads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LearnExport {
    /// Every record as CSV (`#export-learn-csv`).
    Csv,
    /// A chart.
    Chart(LearnChart, ImageFormat),
    /// A trainable signal's final table of one seed as `.npy` (a row's download).
    Table(Signal, u64),
    /// Every final trainable table in one safetensors file (`#export-learn-tables`).
    Tables,
}

impl LearnExport {
    /// The suggested file name.
    pub fn file_name(self) -> String {
        match self {
            LearnExport::Csv => "posgeo-learn.csv".into(),
            LearnExport::Chart(k, ImageFormat::Png) => format!("posgeo-{}.png", k.name()),
            LearnExport::Chart(k, ImageFormat::Svg) => format!("posgeo-{}.svg", k.name()),
            LearnExport::Table(signal, seed) => format!("posgeo-{}-seed{seed}.npy", signal.name()),
            LearnExport::Tables => "posgeo-learned-tables.safetensors".into(),
        }
    }

    /// The file, except a PNG (the canvas's own picture); `size` is the chart's.
    pub fn file(self, d: &LearnData, size: (u32, u32)) -> Option<Result<Download, String>> {
        let (mime, bytes) = match self {
            LearnExport::Csv => match &d.experiment {
                Some(e) => ("text/csv", csv(&e.runs).into_bytes()),
                None => return Some(Err("nothing trained yet: press Train first".into())),
            },
            LearnExport::Table(..) | LearnExport::Tables => match &d.experiment {
                Some(e) => match tables_file(self, e) {
                    Ok(bytes) => ("application/octet-stream", bytes),
                    Err(e) => return Some(Err(e)),
                },
                None => return Some(Err("nothing trained yet: press Train first".into())),
            },
            LearnExport::Chart(_, ImageFormat::Png) => return None,
            LearnExport::Chart(kind, ImageFormat::Svg) => match svg(kind, d, size) {
                Ok(s) => ("image/svg+xml", s.into_bytes()),
                Err(e) => return Some(Err(e)),
            },
        };
        Some(Ok(Download { name: self.file_name(), mime, bytes }))
    }
}

/// The `.npy` of one run's final table, or the safetensors file of every run's (tensors named
/// `SIGNAL.seedSEED`, n×d F32), for the reader of learned tables to measure again.
fn tables_file(export: LearnExport, e: &Experiment) -> Result<Vec<u8>, String> {
    let named: Vec<(String, &[f32])> = e
        .runs
        .iter()
        .filter(|r| match export {
            LearnExport::Table(signal, seed) => r.signal == signal && r.seed == seed,
            _ => true,
        })
        .filter_map(|r| Some((format!("{}.seed{}", r.signal.name(), r.seed), r.table.as_deref()?)))
        .collect();
    if named.is_empty() {
        return Err("no learned table to export: add learned, learned_pmds or lowrank to the signals and train".into());
    }
    let (n, d) = (e.n, e.params.d_model);
    let tables: Vec<NamedTable<'_>> =
        named.iter().map(|(name, data)| NamedTable { name, rows: n, cols: d, data }).collect();
    let done = match export {
        LearnExport::Table(..) => learned_tables::npy(&tables[0]),
        _ => {
            let meta =
                [("format", "posgeo learned position tables".to_string()), ("steps", e.params.steps.to_string())];
            learned_tables::safetensors(&tables, meta.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
        }
    };
    done.map_err(|e| e.to_string())
}

#[cfg(test)]
pub(crate) mod tests;
