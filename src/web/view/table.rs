//! The stress table: its sortable columns and its rows, full-precision values included (the
//! `data-value` the page's tests and automation read).

use crate::report::{fmt_number, Report};

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
    /// (metric key, text shown, full-precision `data-value` or "null").
    pub cells: Vec<(&'static str, String, String)>,
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
                .map(|&(key, v)| (key, fmt_number(v), v.map_or("null".to_string(), |x| format!("{x:?}"))))
                .collect();
            Some(Row { dim: e.dim.to_string(), parameters: e.parameters.to_string(), name, cells })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every sortable header of the page names a column, and every column has its header.
    #[test]
    fn the_page_headers_are_the_columns() {
        let html = include_str!("../../../www/index.html");
        let keys: Vec<&str> = html.split("data-sort=\"").skip(1).filter_map(|s| s.split('"').next()).collect();
        assert_eq!(keys, Column::ALL.map(Column::key));
    }
}
