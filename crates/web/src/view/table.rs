//! The stress table: its sortable columns and its rows, full-precision values included (the
//! `data-value` the page's tests and automation read). SMACOF's σ and σ* are known only to
//! about its stopping tolerance (docs/MATH.md §5), so their digits below
//! [`posgeo::smacof::SMACOF_SIGNIFICANT`] are marked as not significant ([`Cell::greyed`]).

use posgeo::report::{fmt_number, Report};

/// The table's columns (`th[data-sort]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    /// Encoding name.
    Name,
    /// Dimension.
    Dim,
    /// Parameters.
    Parameters,
    /// σ.
    RawStress,
    /// σ*.
    ScaledStress,
    /// a*.
    Scale,
    /// Spearman ρ.
    Spearman,
    /// Monotonicity violation rate.
    Monotonicity,
    /// Procrustes residual against PMDS.
    Procrustes,
}

impl Column {
    /// Every column, in table order.
    pub const ALL: [Column; 9] = [
        Column::Name,
        Column::Dim,
        Column::Parameters,
        Column::RawStress,
        Column::ScaledStress,
        Column::Scale,
        Column::Spearman,
        Column::Monotonicity,
        Column::Procrustes,
    ];

    /// The `data-sort` key of its header (the report's field name; `name` for the encoding).
    pub fn key(self) -> &'static str {
        match self {
            Column::Name => "name",
            Column::Dim => "dim",
            Column::Parameters => "parameters",
            Column::RawStress => "raw_stress",
            Column::ScaledStress => "scaled_stress",
            Column::Scale => "scale",
            Column::Spearman => "spearman",
            Column::Monotonicity => "monotonicity_violation_rate",
            Column::Procrustes => "procrustes_residual",
        }
    }

    /// Parses [`Column::key`].
    pub fn parse(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.key() == key)
    }
}

/// The table's order: a column (None: the report's order) and its direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sort {
    /// Sorted by.
    pub column: Option<Column>,
    /// Ascending.
    pub ascending: bool,
}

impl Default for Sort {
    fn default() -> Self {
        Sort { column: None, ascending: true }
    }
}

impl Sort {
    /// After a click on `column`: ascending first, then flipping.
    pub fn toggled(self, column: Column) -> Sort {
        let ascending = if self.column == Some(column) { !self.ascending } else { true };
        Sort { column: Some(column), ascending }
    }
}

/// One row as shown.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// Encoding name.
    pub name: String,
    /// Dimension and parameters, as text.
    pub dim: String,
    /// Parameters to learn or store.
    pub parameters: String,
    /// The metric cells.
    pub cells: Vec<Cell>,
    /// The encoding's colour in every chart (CSS, from [`posgeo_charts::palette`]).
    pub color: String,
}

/// One metric cell: its text is `text`, then `greyed` (digits that are not significant),
/// then `tail` (an exponent).
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// The report's field name (`data-metric`).
    pub metric: &'static str,
    /// The significant part of the number shown.
    pub text: String,
    /// Digits shown but not significant (empty for most cells).
    pub greyed: String,
    /// What follows them (an exponent such as `e-6`).
    pub tail: String,
    /// The full-precision value (`data-value`), or "null".
    pub value: String,
}

/// Splits a number formatted by [`fmt_number`] at the place value `floor`: the digits of
/// place value ≥ `floor`, those below it, and the exponent. `5.775e-6` at 1e-5 is
/// ("", "5.775", "e-6"); `2.345e-4` is ("2.3", "45", "e-4"); `0.0123` stays whole.
pub fn split_significant(text: &str, floor: f64) -> (String, String, String) {
    let (mantissa, tail) = match text.find('e') {
        Some(k) => (&text[..k], &text[k..]),
        None => (text, ""),
    };
    let exp: i32 = tail.get(1..).and_then(|e| e.parse().ok()).unwrap_or(0);
    let int_digits = mantissa.split('.').next().map_or(0, |h| h.chars().filter(char::is_ascii_digit).count()) as i32;
    let last_place = floor.log10().floor() as i32;
    let mut place = exp + int_digits - 1;
    let mut cut = mantissa.len();
    for (k, ch) in mantissa.char_indices() {
        if ch.is_ascii_digit() {
            if place < last_place {
                cut = k;
                break;
            }
            place -= 1;
        }
    }
    // A leading sign or a point stays with the digits it belongs to.
    let head = &mantissa[..cut];
    let head = if head.chars().all(|c| !c.is_ascii_digit()) { "" } else { head.trim_end_matches('.') };
    let greyed = &mantissa[head.len()..];
    (head.to_string(), greyed.to_string(), tail.to_string())
}

/// Whether a cell's digits below [`posgeo::smacof::SMACOF_SIGNIFICANT`] are not significant.
fn approximate(name: &str, metric: &str) -> bool {
    name == "smacof" && matches!(metric, "raw_stress" | "scaled_stress")
}

fn value(r: &Report, name: &str, c: Column) -> f64 {
    let Some(e) = r.encodings.get(name) else { return f64::NEG_INFINITY };
    match c {
        Column::Name => 0.0,
        Column::Dim => e.dim as f64,
        Column::Parameters => e.parameters as f64,
        Column::RawStress => e.raw_stress,
        Column::ScaledStress => e.scaled_stress,
        Column::Scale => e.scale,
        Column::Spearman => e.spearman.unwrap_or(f64::NEG_INFINITY),
        Column::Monotonicity => e.monotonicity_violation_rate.unwrap_or(f64::NEG_INFINITY),
        Column::Procrustes => e.procrustes_residual.unwrap_or(f64::NEG_INFINITY),
    }
}

/// The rows in `sort` order.
pub fn rows(r: &Report, sort: Sort) -> Vec<Row> {
    let mut names = r.encoding_order.clone();
    match sort.column {
        None => {}
        Some(Column::Name) => names.sort(),
        Some(c) => names.sort_by(|a, b| value(r, a, c).total_cmp(&value(r, b, c))),
    }
    if !sort.ascending {
        names.reverse();
    }
    names
        .into_iter()
        .filter_map(|name| {
            let e = r.encodings.get(&name)?;
            let cells = r
                .stress_cells(&name)?
                .iter()
                .map(|&(metric, v)| {
                    let shown = fmt_number(v);
                    let (text, greyed, tail) = if approximate(&name, metric) && v.is_some() {
                        split_significant(&shown, posgeo::smacof::SMACOF_SIGNIFICANT)
                    } else {
                        (shown, String::new(), String::new())
                    };
                    let value = v.map_or("null".to_string(), |x| format!("{x:?}"));
                    Cell { metric, text, greyed, tail, value }
                })
                .collect();
            let color = posgeo_charts::palette::css_of(&name);
            Some(Row { dim: e.dim.to_string(), parameters: e.parameters.to_string(), name, cells, color })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each row carries its encoding's colour from the one palette (the charts' own; their
    /// test is in `charts::tests`), distinct per encoding.
    #[test]
    fn every_row_takes_its_encodings_colour_from_the_palette() {
        let r = posgeo::test_support::report();
        let rows = rows(&r, Sort::default());
        assert_eq!(rows.len(), r.encoding_order.len());
        for row in &rows {
            assert_eq!(row.color, posgeo_charts::palette::css_of(&row.name));
            assert!(row.color.starts_with('#') && row.color.len() == 7);
        }
        let distinct: std::collections::BTreeSet<&str> = rows.iter().map(|r| r.color.as_str()).collect();
        assert_eq!(distinct.len(), rows.len());
    }

    /// Every sortable header of the page names a column, and every column has its header.
    #[test]
    fn the_page_headers_are_the_columns() {
        let html = include_str!("../../../../www/index.html");
        let keys: Vec<&str> = html.split("data-sort=\"").skip(1).filter_map(|s| s.split('"').next()).collect();
        assert_eq!(keys, Column::ALL.map(Column::key));
    }

    #[test]
    fn digits_below_the_floor_are_split_off() {
        let split = |t: &str| split_significant(t, 1e-5);
        assert_eq!(split("5.775e-6"), ("".into(), "5.775".into(), "e-6".into()));
        assert_eq!(split("2.345e-4"), ("2.3".into(), "45".into(), "e-4".into()));
        assert_eq!(split("1.000e-5"), ("1".into(), ".000".into(), "e-5".into()));
        assert_eq!(split("0.0123"), ("0.0123".into(), "".into(), "".into()));
        assert_eq!(split("0.0000"), ("0.0000".into(), "".into(), "".into()));
        // Joined again, the parts are the text shown.
        for t in ["5.775e-6", "2.345e-4", "-3.210e-3", "0.5000"] {
            let (a, b, c) = split(t);
            assert_eq!(format!("{a}{b}{c}"), t);
        }
    }
}
