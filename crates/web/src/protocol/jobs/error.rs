//! **Why a helper job failed**, as one type: what a helper answers as [`super::Answer::Failed`]
//! and what the worker notes in the run's estimate are this enum's words, chosen in one place
//! ([`std::fmt::Display`]). No code decides by a message's text; it matches these variants.

/// What is wrong with an item that travels beside a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flaw {
    /// The message holds no such item.
    Absent,
    /// The item is not of this kind (f64s, u32s, bytes, a file).
    NotA(&'static str),
    /// The item holds fewer numbers than the job reads.
    Short,
}

/// Why a helper job failed.
#[derive(Debug, Clone, PartialEq)]
pub enum JobError {
    /// A message could not be written (`writing`) or read: postcard's reason.
    Wire {
        /// Writing rather than reading.
        writing: bool,
        /// postcard's reason.
        why: String,
    },
    /// Item `item` beside the job is flawed.
    Beside {
        /// Its place after the job.
        item: usize,
        /// What is wrong.
        flaw: Flaw,
    },
    /// The job's parts disagree with each other (which ones, in words).
    Mismatch(String),
    /// The numeric core refused the job's data (its message).
    Core(String),
    /// The browser refused (a post, a slice of the file, no synchronous file reader).
    Browser(String),
    /// A helper answered with this failure (its own message, already in these words).
    Helper(String),
}

impl std::fmt::Display for JobError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JobError::Wire { writing: true, why } => write!(f, "a helper message could not be written: {why}"),
            JobError::Wire { writing: false, why } => write!(f, "a helper message could not be read: {why}"),
            JobError::Beside { item, flaw: Flaw::Absent } => write!(f, "no array {item} beside the job"),
            JobError::Beside { item, flaw: Flaw::NotA(what) } => write!(f, "item {item} beside the job is not {what}"),
            JobError::Beside { item, flaw: Flaw::Short } => write!(f, "item {item} beside the job is too short"),
            JobError::Mismatch(m) | JobError::Core(m) | JobError::Helper(m) | JobError::Browser(m) => f.write_str(m),
        }
    }
}

impl From<posgeo::error::PosgeoError> for JobError {
    fn from(e: posgeo::error::PosgeoError) -> Self {
        JobError::Core(e.to_string())
    }
}

impl JobError {
    /// A mismatch between the job's parts, in words.
    pub fn mismatch(words: impl Into<String>) -> Self {
        JobError::Mismatch(words.into())
    }
}
