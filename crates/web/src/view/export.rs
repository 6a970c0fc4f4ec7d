//! The downloads: the report, the stress table, the distance matrix, the PMDS coordinates,
//! and every chart as PNG (from its canvas) or SVG (drawn again, natively testable).

use super::charts::{self, ChartKind};
use crate::protocol::Payload;
use crate::view::View;
use posgeo::report::csv_rows;

/// Image formats of a chart download.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageFormat {
    /// The canvas's pixels.
    Png,
    /// Drawn again as vectors.
    Svg,
}

/// Every download the page offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Export {
    /// The report as JSON (`posgeo analyze --json --matrix`'s schema).
    Report,
    /// The stress table as CSV.
    StressTable,
    /// The distance matrix as CSV.
    Matrix,
    /// The PMDS coordinates as CSV.
    Coordinates,
    /// The layers chart's numbers as CSV.
    Layers,
    /// A chart.
    Chart(ChartKind, ImageFormat),
}

/// A file to download.
#[derive(Debug, Clone, PartialEq)]
pub struct Download {
    /// Suggested file name.
    pub name: String,
    /// MIME type.
    pub mime: &'static str,
    /// Contents.
    pub bytes: Vec<u8>,
}

impl Export {
    /// The data exports, with their button ids.
    pub const BUTTONS: [(Export, &'static str); 5] = [
        (Export::Report, "export-json"),
        (Export::StressTable, "export-table"),
        (Export::Matrix, "export-matrix"),
        (Export::Coordinates, "export-coords"),
        (Export::Layers, "export-layers"),
    ];

    /// The suggested file name.
    pub fn file_name(self, p: &Payload) -> String {
        match self {
            Export::Report => "posgeo-report.json".into(),
            Export::StressTable => "posgeo-stress.csv".into(),
            Export::Matrix => format!("posgeo-{}.csv", p.report.metric),
            Export::Coordinates => "posgeo-pmds-coordinates.csv".into(),
            Export::Layers => "posgeo-layers.csv".into(),
            Export::Chart(kind, ImageFormat::Png) => format!("posgeo-{}.png", kind.name()),
            Export::Chart(kind, ImageFormat::Svg) => format!("posgeo-{}.svg", kind.name()),
        }
    }

    /// The file, except a PNG (which is the canvas's own picture). `size` is the chart's.
    pub fn file(self, p: &Payload, view: &View, size: (u32, u32)) -> Option<Result<Download, String>> {
        let r = &p.report;
        let (mime, bytes) = match self {
            Export::Report => ("application/json", serde_json::to_string_pretty(r).unwrap_or_default().into_bytes()),
            Export::StressTable => ("text/csv", r.stress_csv().into_bytes()),
            Export::Matrix => {
                let m = r.matrix.values().next().map(Vec::as_slice).unwrap_or(&[]);
                ("text/csv", csv_rows(m.iter().map(Vec::as_slice)).into_bytes())
            }
            Export::Coordinates => ("text/csv", csv_rows(p.coordinates.rows()).into_bytes()),
            Export::Layers => match posgeo_charts::LayerCurves::of(r, view.layers_raw) {
                Some(c) => ("text/csv", c.csv().into_bytes()),
                None => return Some(Err("no model's layers in these results: choose a model and run".into())),
            },
            Export::Chart(_, ImageFormat::Png) => return None,
            Export::Chart(kind, ImageFormat::Svg) => match charts::svg(kind, p, view, size) {
                Ok(s) => ("image/svg+xml", s.into_bytes()),
                Err(e) => return Some(Err(e)),
            },
        };
        Some(Ok(Download { name: self.file_name(p), mime, bytes }))
    }
}
