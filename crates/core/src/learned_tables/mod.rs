//! **Learned position tables** for the `learned` encoding (`docs/MATH.md` §5): the
//! rows p_0, p_1, … of a model's position-embedding matrix, read from
//!
//! * text or CSV: one row per line, numbers separated by commas or white space;
//! * **NumPy `.npy`** (`np.save`), recognised by its magic bytes: a 2-D float64 or float32
//!   array, C or Fortran order, either byte order (its header read by a linear scan);
//! * **NumPy `.npz`** archives (`np.savez`, a zip of `.npy` members), recognised by the zip
//!   magic bytes: one member, chosen as below;
//! * **safetensors** (Hugging Face checkpoints, e.g. GPT-2's `wpe.weight`), recognised by its
//!   header (an 8-byte little-endian length, then a JSON object): a 2-D tensor of dtype F64,
//!   F32, F16 or BF16.
//!
//! In an archive or a checkpoint the table is the tensor named (`--tensor`), or else found by
//! [`pick_positional`]: the only floating-point 2-D tensor, or else the one named like a
//! position table (`position_embeddings`, `wpe`, `pos_emb`, …), or else the one whose name
//! mentions "pos". Integer buffers such as BERT's `embeddings.position_ids` are never
//! candidates. When the choice is still open, the message lists only the candidates.
//!
//! [`npy`](mod@npy) and [`safetensors`](mod@safetensors) write tables in the first two formats.
//!
//! Values are widened to f64; rows beyond the corpus's n are ignored later by
//! [`crate::encodings::learned`], which also checks shape and finiteness.

use crate::error::{PosgeoError, Result};

mod npy;
pub mod st;
mod write;

pub use st::{header_matrices, safetensors_matrices};
pub use write::{npy, safetensors, NamedTable};

/// A table as rows of equal length.
pub type Table = Vec<Vec<f64>>;

/// What a table file holds, told from its first bytes (9 suffice) and its length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableFormat {
    /// NumPy `.npy` (magic bytes `\x93NUMPY`).
    Npy,
    /// safetensors: an 8-byte little-endian length that fits the file, then a JSON header
    /// (`{…`) of that length.
    Safetensors {
        /// Bytes of the JSON header (which starts at offset 8).
        header_len: usize,
    },
    /// NumPy `.npz`: a zip archive (magic bytes `PK\x03\x04`).
    Npz,
    /// Anything else is read as text or CSV.
    Text,
}

/// Tells the format from the first bytes of a file of `total_len` bytes.
pub fn format_of(head: &[u8], total_len: usize) -> TableFormat {
    if head.starts_with(b"\x93NUMPY") {
        return TableFormat::Npy;
    }
    if head.starts_with(b"PK\x03\x04") {
        return TableFormat::Npz;
    }
    match head.first_chunk::<8>().map(|len| u64::from_le_bytes(*len)) {
        Some(n) if n >= 2 && n <= total_len.saturating_sub(8) as u64 && head.get(8) == Some(&b'{') => {
            TableFormat::Safetensors { header_len: n as usize }
        }
        _ => TableFormat::Text,
    }
}

/// The tables of one file: each tensor named in `tensors` (safetensors, .npz), named after
/// it; with none, the one [`read_table`] picks, named after the file. Messages name the file.
pub fn read_named(bytes: &[u8], file: &str, tensors: &[String]) -> Result<Vec<(String, Table)>> {
    if bytes.starts_with(BUNDLE_MAGIC) {
        let mut out = Vec::new();
        for (name, member) in bundle_members(bytes)? {
            out.extend(read_named(member, &name, &[])?);
        }
        return Ok(out);
    }
    let named = |e: PosgeoError| match e {
        PosgeoError::BadMatrix(m) => PosgeoError::BadMatrix(format!("{file}: {m}")),
        other => other,
    };
    if tensors.is_empty() {
        return Ok(vec![(file.to_string(), read_table(bytes, None).map_err(named)?)]);
    }
    tensors.iter().map(|t| Ok((t.clone(), read_table(bytes, Some(t)).map_err(named)?))).collect()
}

/// The first bytes of a **bundle**: several table files sent as one (the page's upload of
/// several files): after the magic, per file a little-endian u32 name length, the UTF-8 name,
/// a u64 data length and the file's bytes. Each file is read as a table of its own (named by
/// the file, its tensor picked as without `--tensor`).
pub const BUNDLE_MAGIC: &[u8; 8] = b"POSGEOTB";

/// The (name, bytes) of a bundle's files.
pub fn bundle_members(bytes: &[u8]) -> Result<Vec<(String, &[u8])>> {
    let mut rest = &bytes[BUNDLE_MAGIC.len().min(bytes.len())..];
    let mut out = Vec::new();
    let cut = |rest: &mut &'_ [u8], k: usize| -> Result<Vec<u8>> {
        if rest.len() < k {
            return Err(bad("a bundle of tables ends in the middle of a file"));
        }
        let (head, tail) = rest.split_at(k);
        *rest = tail;
        Ok(head.to_vec())
    };
    while !rest.is_empty() {
        let len = u32::from_le_bytes(cut(&mut rest, 4)?.try_into().unwrap_or([0; 4])) as usize;
        let name = String::from_utf8_lossy(&cut(&mut rest, len)?).into_owned();
        let size = u64::from_le_bytes(cut(&mut rest, 8)?.try_into().unwrap_or([0; 8]));
        if size > rest.len() as u64 {
            return Err(bad(format!("{name}: a bundle of tables declares {size} bytes but holds {}", rest.len())));
        }
        let (data, tail) = rest.split_at(size as usize);
        out.push((name, data));
        rest = tail;
    }
    Ok(out)
}

/// A bundle of files (the inverse of [`bundle_members`]).
pub fn bundle(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = BUNDLE_MAGIC.to_vec();
    for (name, data) in files {
        out.extend((name.len() as u32).to_le_bytes());
        out.extend(name.as_bytes());
        out.extend((data.len() as u64).to_le_bytes());
        out.extend(*data);
    }
    out
}

/// Reads a table from bytes (format recognised from the content); `tensor` names the
/// safetensors tensor to use.
pub fn read_table(bytes: &[u8], tensor: Option<&str>) -> Result<Table> {
    if crate::corpus::is_gzip(bytes) {
        // Any of the formats, gzip-compressed (the shipped position table is a .npy.gz).
        // One layer only (a gzip quine must not recurse).
        let plain = crate::corpus::gunzip_within_budget(bytes)?;
        if crate::corpus::is_gzip(&plain) {
            return Err(bad("a gzip file inside a gzip file: decompress it first"));
        }
        return read_table(&plain, tensor);
    }
    match format_of(bytes, bytes.len()) {
        TableFormat::Npy => npy::read_npy(bytes),
        TableFormat::Npz => npy::read_npz(bytes, tensor),
        TableFormat::Safetensors { .. } => st::read_safetensors(bytes, tensor),
        TableFormat::Text if looks_like_safetensors(bytes) => {
            let declared = bytes.first_chunk::<8>().map_or(0, |b| u64::from_le_bytes(*b));
            Err(bad(format!(
                "looks like a safetensors file (a JSON header at byte 8), but its header length field says {} and the file holds only {} after it",
                crate::limits::human(declared),
                crate::limits::human(bytes.len().saturating_sub(8) as u64)
            )))
        }
        TableFormat::Text => read_text(bytes),
    }
}

/// A JSON object at byte 8 after a length that is not text: safetensors, whatever the length says.
fn looks_like_safetensors(bytes: &[u8]) -> bool {
    let binary = |b: u8| (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')) || b >= 0x80;
    bytes.len() >= 10
        && bytes[8] == b'{'
        && matches!(bytes[9], b'"' | b' ' | b'}')
        && bytes[..8].iter().any(|&b| binary(b))
}

fn bad(message: impl Into<String>) -> PosgeoError {
    PosgeoError::BadMatrix(message.into())
}

/// Text or CSV: one row per non-empty line.
pub fn read_text(bytes: &[u8]) -> Result<Table> {
    let text = std::str::from_utf8(bytes).map_err(|_| bad("the table is neither text/CSV nor safetensors"))?;
    let mut rows = Vec::new();
    for (no, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let row = line
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|f| !f.is_empty())
            .map(str::parse::<f64>)
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| bad(format!("line {}: {e}", no + 1)))?;
        rows.push(row);
    }
    if rows.is_empty() {
        return Err(bad("the table is empty"));
    }
    Ok(rows)
}

/// A 2-D tensor of an archive or checkpoint, as a candidate for the position table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// Its name.
    pub name: String,
    /// Rows × columns.
    pub shape: [usize; 2],
    /// Whether it holds floating-point numbers (integer buffers never are tables).
    pub float: bool,
}

impl Candidate {
    /// "name (rows×cols)".
    pub fn label(&self) -> String {
        format!("{} ({}×{})", self.name, self.shape[0], self.shape[1])
    }
}

/// Named like a position table: `position_embeddings`, GPT-2's `wpe`, `pos_emb`, `pos_embed`.
fn named_like_a_position_table(name: &str) -> bool {
    let n = name.to_lowercase();
    let parts: Vec<&str> = n.split(['.', '/', ':']).collect();
    n.contains("position_embedding") || n.contains("pos_emb") || parts.contains(&"wpe")
}

/// The candidates still in the running, best rule first: the floating-point 2-D tensors
/// named like a position table, else those mentioning "pos", else every floating-point one.
pub fn candidates(all: &[Candidate]) -> Vec<usize> {
    let floats: Vec<usize> = (0..all.len()).filter(|&k| all[k].float).collect();
    let rules: [&dyn Fn(&str) -> bool; 2] = [&named_like_a_position_table, &|n: &str| n.to_lowercase().contains("pos")];
    for rule in rules {
        let hits: Vec<usize> = floats.iter().copied().filter(|&k| rule(&all[k].name)).collect();
        if !hits.is_empty() {
            return hits;
        }
    }
    floats
}

/// Which tensor to use when none is named: the only candidate left (see [`candidates`]).
pub fn pick_positional(all: &[Candidate]) -> Option<usize> {
    match candidates(all)[..] {
        [k] => Some(k),
        _ => None,
    }
}

/// The tensor to read: the one named, or the one [`pick_positional`] finds; the error lists
/// only the candidates.
fn choose(all: &[Candidate], tensor: Option<&str>, what: &str) -> Result<String> {
    let listing = |ks: &[usize]| ks.iter().map(|&k| all[k].label()).collect::<Vec<_>>().join(", ");
    if let Some(t) = tensor.filter(|t| !t.is_empty()) {
        return Ok(t.to_string());
    }
    let left = candidates(all);
    match left[..] {
        [] => Err(bad(format!("the {what} holds no floating-point 2-D tensor"))),
        [k] => Ok(all[k].name.clone()),
        _ => Err(bad(format!("several tensors could be the position table; name one: {}", listing(&left)))),
    }
}

/// "a (2×3), b (4×5)": the floating-point 2-D tensors, for "no tensor X" messages.
fn float_listing(all: &[Candidate]) -> String {
    all.iter().filter(|c| c.float).map(Candidate::label).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests;
