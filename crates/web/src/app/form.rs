//! What the page's form holds at the moment the user presses Run, as plain data (the DOM
//! layer reads it; everything here is native-testable), and how it becomes a [`PageState`]
//! and a corpus [`crate::protocol::Source`].

use crate::url::{Builtin, PageState};
use posgeo::corpus::{FileKind, InputFormat};
use posgeo::options::{Domain, OptSpec, ANALYSIS, SYNTH};
use posgeo_learn::options::LEARN;
use posgeo_learn::LearnParams;
use std::collections::BTreeMap;

/// The corpus radio buttons (`#src-<name>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SourceKind {
    /// The synthetic generator.
    #[default]
    Synthetic,
    /// The shipped Genesis text.
    Genesis,
    /// The shipped proteins.
    Proteins,
    /// The paste box.
    Paste,
    /// The uploaded file.
    File,
}

impl SourceKind {
    /// Every source, in the form's order.
    pub const ALL: [SourceKind; 5] =
        [SourceKind::Synthetic, SourceKind::Genesis, SourceKind::Proteins, SourceKind::Paste, SourceKind::File];

    /// The radio button's id.
    pub fn control(self) -> &'static str {
        match self {
            SourceKind::Synthetic => "src-synthetic",
            SourceKind::Genesis => "src-genesis",
            SourceKind::Proteins => "src-proteins",
            SourceKind::Paste => "src-paste",
            SourceKind::File => "src-file",
        }
    }
}

/// How to read an uploaded corpus file (the file controls).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FileOptions {
    /// `auto` or a [`FileKind`] name.
    pub format: String,
    /// CSV/TSV column (empty: the only one).
    pub column: String,
    /// JSON Lines field.
    pub field: String,
    /// Skip invalid UTF-8 lines.
    pub lossy: bool,
}

impl FileOptions {
    /// The kind: the picker's choice, or else the file name's.
    pub fn kind(&self, file_name: &str) -> FileKind {
        FileKind::parse(&self.format).unwrap_or_else(|| FileKind::from_file_name(file_name))
    }

    /// The input format for a file of this name.
    pub fn input_format(&self, file_name: &str) -> InputFormat {
        let column = Some(self.column.clone()).filter(|c| !c.is_empty());
        self.kind(file_name).input_format(column, true, &self.field)
    }
}

/// A snapshot of the form.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Form {
    /// Which corpus.
    pub source: SourceKind,
    /// Every option control's text, by control id (checkboxes: "true"/"false").
    pub values: BTreeMap<&'static str, String>,
    /// The paste box.
    pub paste: String,
    /// The file controls.
    pub file: FileOptions,
    /// The learned table's tensor picker: the tensors chosen (several: several tables).
    pub learned_tensors: Vec<String>,
}

/// Reads one table's controls into `target`; the first bad value is the error, in the
/// words the page has always used ("d: \"\" is not a valid number").
fn read_options<T>(
    table: &[OptSpec<T>],
    values: &BTreeMap<&'static str, String>,
    target: &mut T,
) -> Result<(), String> {
    for o in table {
        let Some(v) = values.get(o.control) else { continue };
        let numeric = matches!(o.domain, Domain::Int { .. } | Domain::Real { .. })
            || (matches!(o.domain, Domain::OptInt { .. }) && !v.trim().is_empty());
        if numeric && v.trim().parse::<f64>().is_err() {
            return Err(format!("{}: {v:?} is not a valid number", o.label));
        }
        o.apply(target, v).map_err(|e| e.to_string())?;
    }
    Ok(())
}

impl Form {
    /// The form with every control at the values of `state` (what the DOM layer shows).
    pub fn from_state(state: &PageState) -> Self {
        let mut values = BTreeMap::new();
        for o in SYNTH {
            values.insert(o.control, o.text(&state.synth));
        }
        for o in ANALYSIS {
            values.insert(o.control, o.text(&state.params));
        }
        for o in LEARN {
            values.insert(o.control, o.text(&state.learn));
        }
        let source = match state.corpus {
            Builtin::Synthetic => SourceKind::Synthetic,
            Builtin::Genesis => SourceKind::Genesis,
            Builtin::Proteins => SourceKind::Proteins,
        };
        Form {
            source,
            values,
            file: FileOptions { format: "auto".into(), field: "text".into(), ..Default::default() },
            ..Default::default()
        }
    }

    /// The options the form describes (a bad value is a message naming it); the Learn
    /// panel's are read apart ([`Form::learn_params`]), so that they never stop a run.
    pub fn page_state(&self) -> Result<PageState, String> {
        let mut st = PageState {
            corpus: match self.source {
                SourceKind::Genesis => Builtin::Genesis,
                SourceKind::Proteins => Builtin::Proteins,
                _ => Builtin::Synthetic,
            },
            ..Default::default()
        };
        read_options(SYNTH, &self.values, &mut st.synth)?;
        read_options(ANALYSIS, &self.values, &mut st.params)?;
        Ok(st)
    }

    /// The Learn panel's options (a bad value is a message naming it); their ranges and
    /// relations are checked too ([`LearnParams::validate`]).
    pub fn learn_params(&self) -> Result<LearnParams, String> {
        let mut p = LearnParams::default();
        read_options(LEARN, &self.values, &mut p)?;
        p.validate().map_err(|e| e.message_for(posgeo::error::Frontend::Page))?;
        Ok(p)
    }
}
