//! **Learned position tables** for the `learned` encoding (SPEC §5 in `docs/MATH.md`): the
//! rows p_0, p_1, … of a model's position-embedding matrix, read from
//!
//! * text or CSV: one row per line, numbers separated by commas or white space;
//! * **NumPy `.npy`** (`np.save`), recognised by its magic bytes: a 2-D float64 or float32
//!   array, C or Fortran order (read with the `npyz` crate);
//! * **safetensors** (Hugging Face checkpoints, e.g. GPT-2's `wpe.weight`), recognised by its
//!   header (an 8-byte little-endian length, then a JSON object): a 2-D tensor of dtype F64,
//!   F32, F16 or BF16, chosen by name, or else the only 2-D tensor, or else the one 2-D tensor
//!   whose name mentions "pos" or is GPT-2's `wpe`.
//!
//! Values are widened to f64; rows beyond the corpus's n are ignored later by
//! [`crate::encodings::learned`], which also checks shape and finiteness.

use crate::error::{PosgeoError, Result};
use safetensors::{Dtype, SafeTensors};

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
    /// Anything else is read as text or CSV.
    Text,
}

/// Tells the format from the first bytes of a file of `total_len` bytes.
pub fn format_of(head: &[u8], total_len: usize) -> TableFormat {
    if head.starts_with(b"\x93NUMPY") {
        return TableFormat::Npy;
    }
    match head.first_chunk::<8>().map(|len| u64::from_le_bytes(*len)) {
        Some(n) if n >= 2 && n <= total_len.saturating_sub(8) as u64 && head.get(8) == Some(&b'{') => {
            TableFormat::Safetensors { header_len: n as usize }
        }
        _ => TableFormat::Text,
    }
}

/// Reads a table from bytes (format recognised from the content); `tensor` names the
/// safetensors tensor to use.
pub fn read_table(bytes: &[u8], tensor: Option<&str>) -> Result<Table> {
    match format_of(bytes, bytes.len()) {
        TableFormat::Npy => read_npy(bytes),
        TableFormat::Safetensors { .. } => read_safetensors(bytes, tensor),
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

/// Bytes before the data of an `.npy` file: magic, version, header length, header.
fn npy_header_end(bytes: &[u8]) -> Option<usize> {
    match bytes.get(6)? {
        1 => Some(10 + usize::from(u16::from_le_bytes([*bytes.get(8)?, *bytes.get(9)?]))),
        _ => {
            let len = u32::from_le_bytes([*bytes.get(8)?, *bytes.get(9)?, *bytes.get(10)?, *bytes.get(11)?]);
            Some(12 + len as usize)
        }
    }
}

/// The dtype and shape an `.npy` header declares, read from its text before any parser
/// sees them (a shape whose product overflows must be a message, not a crash).
fn npy_declared(bytes: &[u8]) -> Result<(String, Vec<u64>)> {
    let end =
        npy_header_end(bytes).filter(|&e| e <= bytes.len()).ok_or_else(|| bad(".npy: the header is cut short"))?;
    let header = std::str::from_utf8(&bytes[10.min(end)..end]).map_err(|_| bad(".npy: the header is not text"))?;
    let after = |key: &str| header.split_once(key).map(|(_, rest)| rest.trim_start_matches([':', ' ']));
    let descr = after("'descr'").and_then(|r| r.split(['\'', '"']).nth(1)).unwrap_or("?").to_string();
    let shape = after("'shape'")
        .and_then(|r| r.strip_prefix('('))
        .and_then(|r| r.split_once(')'))
        .ok_or_else(|| bad(".npy: the header declares no shape"))?
        .0;
    let dims = shape
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| {
            d.trim_end_matches('L').parse::<u64>().map_err(|_| bad(format!(".npy: shape entry {d:?} is not a size")))
        })
        .collect::<Result<Vec<u64>>>()?;
    Ok((descr, dims))
}

/// A 2-D float64/float32 `.npy` array. Its declared shape × dtype is checked against the
/// file's size (and the memory budget) before anything is read.
fn read_npy(bytes: &[u8]) -> Result<Table> {
    let (descr, shape) = npy_declared(bytes)?;
    let &[rows, cols] = shape.as_slice() else {
        return Err(bad(format!(".npy array of shape {shape:?}, not rows × columns")));
    };
    let width = match descr.trim_start_matches(['<', '|', '=']) {
        "f8" => 8,
        "f4" => 4,
        _ => return Err(bad(format!(".npy dtype {descr}: float64 or float32 expected"))),
    };
    let data = bytes.len().saturating_sub(npy_header_end(bytes).unwrap_or(bytes.len())) as u64;
    let Some(need) = crate::limits::product(&[rows, cols, width]) else {
        return Err(bad(format!(".npy header declares shape {rows}×{cols}, more values than any file can hold")));
    };
    if need > data {
        return Err(bad(format!(
            ".npy header declares {rows}×{cols} {} values ({}), but the file holds {} of data",
            if width == 8 { "float64" } else { "float32" },
            crate::limits::human(need),
            crate::limits::human(data)
        )));
    }
    crate::limits::check("the .npy table", need.saturating_mul(8 / width))?;
    let open = || npyz::NpyFile::new(bytes).map_err(|e| bad(format!(".npy: {e}")));
    let order = open()?.order();
    let (rows, cols) = (rows as usize, cols as usize);
    let values: Vec<f64> = match width {
        8 => open()?.into_vec::<f64>().map_err(|e| bad(format!(".npy: {e}")))?,
        _ => open()?.into_vec::<f32>().map_err(|e| bad(format!(".npy: {e}")))?.into_iter().map(f64::from).collect(),
    };
    if cols == 0 || values.len() != rows * cols {
        return Err(bad(format!(".npy: {} values for shape {rows}×{cols}", values.len())));
    }
    Ok(match order {
        npyz::Order::C => values.chunks(cols).map(<[f64]>::to_vec).collect(),
        npyz::Order::Fortran => (0..rows).map(|i| (0..cols).map(|j| values[j * rows + i]).collect()).collect(),
    })
}

/// The 2-D tensors named in a safetensors JSON header (the bytes after its 8-byte length),
/// with their shapes, sorted by name; `None` if the header is not such JSON.
pub fn header_matrices(header: &[u8]) -> Option<Vec<(String, [usize; 2])>> {
    /// One header entry; `__metadata__` (a map of strings) has no shape.
    #[derive(serde::Deserialize)]
    struct Entry {
        #[serde(default)]
        shape: Option<Vec<usize>>,
    }
    let entries: std::collections::BTreeMap<String, Entry> = serde_json::from_slice(header).ok()?;
    Some(
        entries
            .into_iter()
            .filter_map(|(name, e)| match e.shape.as_deref() {
                Some(&[r, c]) => Some((name, [r, c])),
                _ => None,
            })
            .collect(),
    )
}

/// The 2-D tensors of a whole safetensors file (see [`header_matrices`]).
pub fn safetensors_matrices(bytes: &[u8]) -> Option<Vec<(String, [usize; 2])>> {
    match format_of(bytes, bytes.len()) {
        TableFormat::Safetensors { header_len } => header_matrices(&bytes[8..8 + header_len]),
        _ => None,
    }
}

/// Which matrix to use when none is named: the only one, or else the only one named like a
/// position embedding ("pos" in its name, or GPT-2's `wpe`).
pub fn pick_positional(matrices: &[(String, [usize; 2])]) -> Option<usize> {
    if matrices.len() == 1 {
        return Some(0);
    }
    let positional = |n: &str| n.to_lowercase().contains("pos") || n.ends_with("wpe.weight") || n == "wpe";
    let mut hits = matrices.iter().enumerate().filter(|(_, (n, _))| positional(n)).map(|(k, _)| k);
    match (hits.next(), hits.next()) {
        (Some(k), None) => Some(k),
        _ => None,
    }
}

/// What a safetensors validation error means for the user.
fn safetensors_error(e: safetensors::SafeTensorError, len: usize) -> PosgeoError {
    use safetensors::SafeTensorError as E;
    let size = crate::limits::human(len as u64);
    bad(match e {
        E::InvalidOffset(name) => format!(
            "safetensors: tensor {name:?}'s data offsets overlap another tensor's, leave a gap, or run past the file ({size})"
        ),
        E::MetadataIncompleteBuffer => format!("safetensors: the tensors' data runs past the end of the file ({size}); it is truncated"),
        E::TensorInvalidInfo => "safetensors: a tensor's shape × dtype does not match its data offsets".to_string(),
        E::InvalidHeaderDeserialization(m) => format!("safetensors: the JSON header is not valid ({m})"),
        E::HeaderTooLarge => "safetensors: the header is larger than the format allows (100 MB)".to_string(),
        other => format!("safetensors: {other}"),
    })
}

fn read_safetensors(bytes: &[u8], tensor: Option<&str>) -> Result<Table> {
    let st = SafeTensors::deserialize(bytes).map_err(|e| safetensors_error(e, bytes.len()))?;
    let matrices = safetensors_matrices(bytes).unwrap_or_default();
    let listing = || matrices.iter().map(|(n, [r, c])| format!("{n} ({r}×{c})")).collect::<Vec<_>>().join(", ");
    let name = match tensor.filter(|t| !t.is_empty()) {
        Some(t) => t.to_string(),
        None if matrices.is_empty() => return Err(bad("the safetensors file holds no 2-D tensor")),
        None => match pick_positional(&matrices) {
            Some(k) => matrices[k].0.clone(),
            None => return Err(bad(format!("several 2-D tensors; name the one to use: {}", listing()))),
        },
    };
    let view = st.tensor(&name).map_err(|_| bad(format!("no tensor {name:?}; the 2-D tensors are: {}", listing())))?;
    let &[rows, cols] = view.shape() else {
        return Err(bad(format!("tensor {name:?} has shape {:?}, not rows × columns", view.shape())));
    };
    let data = view.data();
    let values: Vec<f64> = match view.dtype() {
        Dtype::F64 => data.chunks_exact(8).map(|b| f64::from_le_bytes(b.try_into().unwrap_or([0; 8]))).collect(),
        Dtype::F32 => data.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64).collect(),
        Dtype::F16 => data.chunks_exact(2).map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f64()).collect(),
        Dtype::BF16 => data.chunks_exact(2).map(|b| half::bf16::from_le_bytes([b[0], b[1]]).to_f64()).collect(),
        other => return Err(bad(format!("tensor {name:?} has dtype {other:?}; F64, F32, F16 or BF16 expected"))),
    };
    if values.len() != rows * cols || cols == 0 {
        return Err(bad(format!("tensor {name:?}: {} values for shape {rows}×{cols}", values.len())));
    }
    Ok(values.chunks(cols).map(<[f64]>::to_vec).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use safetensors::tensor::TensorView;

    fn file(tensors: &[(&str, Dtype, Vec<usize>, Vec<u8>)]) -> Vec<u8> {
        let views: Vec<(String, TensorView)> =
            tensors.iter().map(|(n, d, s, b)| (n.to_string(), TensorView::new(*d, s.clone(), b).unwrap())).collect();
        safetensors::serialize(views, None).unwrap()
    }

    #[test]
    fn text_and_csv_rows() {
        assert_eq!(read_table(b"1, 2 3\n\n4\t5,6\n", None).unwrap(), vec![vec![1.0, 2.0, 3.0], vec![4.0, 5.0, 6.0]]);
        assert!(read_table(b"1 x\n", None).unwrap_err().to_string().contains("line 1"));
        assert!(read_table(b"\n \n", None).is_err());
    }

    /// A version-1 `.npy` file as `np.save` writes it.
    fn npy(descr: &str, fortran: bool, shape: &str, data: &[u8]) -> Vec<u8> {
        let mut header = format!(
            "{{'descr': '{descr}', 'fortran_order': {}, 'shape': {shape}, }}",
            if fortran { "True" } else { "False" }
        );
        while (10 + header.len() + 1) % 64 != 0 {
            header.push(' ');
        }
        header.push('\n');
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(data);
        out
    }

    #[test]
    fn npy_float64_float32_c_and_fortran() {
        let want = vec![vec![0.5, -1.25, 3.0], vec![0.0, 2.5, -0.75]];
        let c: Vec<f64> = want.concat();
        let f: Vec<f64> = (0..3).flat_map(|j| [want[0][j], want[1][j]]).collect();
        let b64 = |v: &[f64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let b32 = |v: &[f64]| v.iter().flat_map(|&x| (x as f32).to_le_bytes()).collect::<Vec<u8>>();
        assert_eq!(read_table(&npy("<f8", false, "(2, 3)", &b64(&c)), None).unwrap(), want);
        assert_eq!(read_table(&npy("<f8", true, "(2, 3)", &b64(&f)), None).unwrap(), want);
        assert_eq!(read_table(&npy("<f4", false, "(2, 3)", &b32(&c)), None).unwrap(), want);
        let e = read_table(&npy("<f8", false, "(6,)", &b64(&c)), None).unwrap_err().to_string();
        assert!(e.contains("not rows × columns"), "{e}");
        let e = read_table(&npy("<i8", false, "(2, 3)", &b64(&c)), None).unwrap_err().to_string();
        assert!(e.contains("<i8"), "{e}");
    }

    #[test]
    fn safetensors_in_every_float_width() {
        let vals = [0.5f64, -1.25, 3.0, 0.0, 2.5, -0.75];
        let f64s: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
        let f32s: Vec<u8> = vals.iter().flat_map(|&v| (v as f32).to_le_bytes()).collect();
        let f16s: Vec<u8> = vals.iter().flat_map(|&v| half::f16::from_f64(v).to_le_bytes()).collect();
        let bf16s: Vec<u8> = vals.iter().flat_map(|&v| half::bf16::from_f64(v).to_le_bytes()).collect();
        let want = vec![vec![0.5, -1.25, 3.0], vec![0.0, 2.5, -0.75]];
        for (dtype, bytes) in [(Dtype::F64, f64s), (Dtype::F32, f32s), (Dtype::F16, f16s), (Dtype::BF16, bf16s)] {
            let f = file(&[("wpe.weight", dtype, vec![2, 3], bytes)]);
            assert_eq!(read_table(&f, None).unwrap(), want, "{dtype:?}");
        }
    }

    #[test]
    fn safetensors_tensor_choice() {
        let two: Vec<u8> = [1.0f32, 2.0].iter().flat_map(|v| v.to_le_bytes()).collect();
        let four: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0].iter().flat_map(|v| v.to_le_bytes()).collect();
        let f = file(&[
            ("h.0.attn.bias", Dtype::F32, vec![2], two.clone()),
            ("wte.weight", Dtype::F32, vec![1, 2], two.clone()),
            ("transformer.wpe.weight", Dtype::F32, vec![2, 2], four.clone()),
        ]);
        // The positional one is found by its name; any 2-D one can be named.
        assert_eq!(read_table(&f, None).unwrap(), vec![vec![1.0, 2.0], vec![3.0, 4.0]]);
        assert_eq!(read_table(&f, Some("wte.weight")).unwrap(), vec![vec![1.0, 2.0]]);
        assert_eq!(safetensors_matrices(&f).unwrap().len(), 2);
        assert_eq!(pick_positional(&safetensors_matrices(&f).unwrap()), Some(0));
        let header = br#"{"__metadata__":{"format":"pt"},"b":{"dtype":"F32","shape":[3],"data_offsets":[0,12]},"a":{"dtype":"F32","shape":[2,5],"data_offsets":[12,52]}}"#;
        assert_eq!(header_matrices(header), Some(vec![("a".to_string(), [2, 5])]));
        assert_eq!(header_matrices(b"not json"), None);
        let e = read_table(&f, Some("h.0.attn.bias")).unwrap_err().to_string();
        assert!(e.contains("not rows × columns"), "{e}");
        let e = read_table(&f, Some("nope")).unwrap_err().to_string();
        assert!(e.contains("transformer.wpe.weight (2×2)"), "{e}");
        // Two candidates and no name: the message lists them.
        let g = file(&[("a", Dtype::F32, vec![1, 2], two.clone()), ("b", Dtype::F32, vec![2, 2], four)]);
        assert!(read_table(&g, None).unwrap_err().to_string().contains("a (1×2), b (2×2)"));
        let ints = file(&[("pos", Dtype::I32, vec![1, 2], two)]);
        assert!(read_table(&ints, None).unwrap_err().to_string().contains("I32"));
    }
}
