//! The one error type of posgeo. Every failure a user can cause (bad file, bad option,
//! degenerate corpus) is a variant with a message that names the problem and, where there
//! is one, the line number. Nothing in the library panics on user data.

use thiserror::Error;

/// Every error the engine reports.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum PosgeoError {
    /// The input is not valid UTF-8 (1-based line number).
    #[error("line {line}: the input is not valid UTF-8")]
    InvalidUtf8 { line: usize },
    /// The input holds no bytes or only blank lines.
    #[error("the input is empty")]
    EmptyInput,
    /// The input holds lines but no usable sequence (all empty after parsing).
    #[error("the input has no usable sequence: {0}")]
    NoSequences(String),
    /// Reading the input failed (an I/O error, a damaged gzip stream): what was read is not
    /// the whole input. Said as [`PosgeoError::NoSequences`] is, but a reader of parts tells
    /// the two apart by the variant, never by the text.
    #[error("the input has no usable sequence: {0}")]
    Unreadable(String),
    /// A CSV/TSV column that does not exist.
    #[error("column {column:?} not found; the file's columns are: {available}")]
    MissingColumn { column: String, available: String },
    /// A JSON Lines record that cannot be used (1-based line number).
    #[error("line {line}: {message}")]
    BadRecord { line: usize, message: String },
    /// A CSV/TSV parse error.
    #[error("CSV/TSV parse error: {0}")]
    Csv(String),
    /// Options that leave fewer than 2 positions to compare.
    #[error("only {n} position(s) have at least min_support = {min_support} sequences (max_len = {max_len}); at least 2 are needed")]
    TooFewPositions { n: usize, min_support: usize, max_len: usize },
    /// Every position has the same distribution, so every distance is zero.
    #[error("every position has the same token distribution: all distances are 0, so stress (which divides by ΣD²) is undefined")]
    NoGeometry,
    /// An option value out of range.
    #[error("invalid option {name}: {message}")]
    InvalidOption { name: &'static str, message: String },
    /// A user-supplied matrix (learned encoding) of the wrong shape or content.
    #[error("learned encoding: {0}")]
    BadMatrix(String),
    /// An encoding given from outside (the Python package's `extra_encodings`) that cannot be
    /// measured: the message starts with its name.
    #[error("extra encoding {0}")]
    BadEncoding(String),
    /// A counts table that cannot be read (docs/MATH.md §2b).
    #[error("counts table: {0}")]
    BadTable(String),
    /// Something would not fit in memory (declared sizes checked before allocating).
    #[error("too large: {0}")]
    TooLarge(String),
    /// A CSV/TSV quoted field that never closes (1-based line where it opens).
    #[error("line {line}: a quoted field opens here and is never closed, so the rest of the file would be one field")]
    UnclosedQuote { line: usize },
    /// The `model` tokenizer was chosen without a tokenizer file.
    #[error("the model tokenizer needs a Hugging Face tokenizer.json")]
    NeedsTokenizerFile,
    /// A model tokenizer file that cannot be used (it names the file and what was found).
    #[error("tokenizer {0}")]
    BadTokenizer(String),
    /// A model folder (config.json, model.safetensors) that cannot be run (docs/MATH.md §14); the
    /// message names the file and what was found.
    #[error("model: {0}")]
    BadModel(String),
    /// The learning experiment cannot run or a run failed (docs/MATH.md §16).
    #[error("learning: {0}")]
    Learn(String),
    /// The eigensolver failed to converge.
    #[error("the eigensolver did not converge")]
    Eigen,
    /// The run was cancelled by the caller.
    #[error("cancelled")]
    Cancelled,
}

/// Who shows a message: the hint names that front-end's own switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frontend {
    /// `posgeo` on the command line (flags).
    Cli,
    /// The browser page (form controls).
    Page,
    /// The Python package (keyword arguments).
    Python,
}

impl PosgeoError {
    /// The message with what the user can do about it, in the words of `frontend`.
    pub fn message_for(&self, frontend: Frontend) -> String {
        let hint = match (self, frontend) {
            (Self::InvalidUtf8 { .. }, Frontend::Cli) => "use --lossy to skip such lines",
            (Self::InvalidUtf8 { .. }, Frontend::Page) => "tick “skip invalid UTF-8 lines” to skip such lines",
            (Self::TooFewPositions { .. }, Frontend::Cli) => "lower --min-support or supply more or longer sequences",
            (Self::TooFewPositions { .. }, Frontend::Page) => "lower min_support or supply more or longer sequences",
            (Self::NeedsTokenizerFile, Frontend::Cli) => "give one with --tokenizer-file FILE",
            (Self::NeedsTokenizerFile, Frontend::Page) => "upload a tokenizer.json or pick a shipped one",
            (Self::InvalidUtf8 { .. }, Frontend::Python) => "pass lossy=True to skip such lines",
            (Self::TooFewPositions { .. }, Frontend::Python) => "lower min_support or supply more or longer sequences",
            (Self::NeedsTokenizerFile, Frontend::Python) => "pass tokenizer_file=PATH",
            _ => return self.to_string(),
        };
        format!("{self} ({hint})")
    }
}

/// Result alias used across the crate.
pub type Result<T> = std::result::Result<T, PosgeoError>;

impl PosgeoError {
    /// Shorthand for [`PosgeoError::InvalidOption`].
    pub fn option(name: &'static str, message: impl Into<String>) -> Self {
        PosgeoError::InvalidOption { name, message: message.into() }
    }
}

/// A candle error's message without the backtrace candle appends when `RUST_BACKTRACE` is set
/// (users see the message, never a backtrace).
pub fn candle_message(e: &candle_core::Error) -> String {
    e.to_string().lines().next().unwrap_or_default().to_string()
}
