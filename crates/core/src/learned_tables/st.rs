//! safetensors checkpoints: the header's 2-D tensors, validation errors in the user's terms,
//! and one tensor widened to f64 rows.

use super::{bad, choose, Candidate, Table, TableFormat};
use crate::error::{PosgeoError, Result};
use safetensors::{Dtype, SafeTensors};

/// The 2-D tensors named in a safetensors JSON header (the bytes after its 8-byte length),
/// with their shapes, sorted by name; `None` if the header is not such JSON.
pub fn header_matrices(header: &[u8]) -> Option<Vec<Candidate>> {
    /// One header entry; `__metadata__` (a map of strings) has no shape.
    #[derive(serde::Deserialize)]
    struct Entry {
        #[serde(default)]
        shape: Option<Vec<usize>>,
        #[serde(default)]
        dtype: Option<String>,
    }
    let entries: std::collections::BTreeMap<String, Entry> = serde_json::from_slice(header).ok()?;
    Some(
        entries
            .into_iter()
            .filter_map(|(name, e)| match e.shape.as_deref() {
                Some(&[r, c]) => {
                    let float = matches!(e.dtype.as_deref(), Some("F64" | "F32" | "F16" | "BF16"));
                    Some(Candidate { name, shape: [r, c], float })
                }
                _ => None,
            })
            .collect(),
    )
}

/// The 2-D tensors of a whole safetensors file (see [`header_matrices`]).
pub fn safetensors_matrices(bytes: &[u8]) -> Option<Vec<Candidate>> {
    match super::format_of(bytes, bytes.len()) {
        TableFormat::Safetensors { header_len } => header_matrices(&bytes[8..8 + header_len]),
        _ => None,
    }
}

/// What a safetensors validation error means for the user.
pub fn safetensors_error(e: safetensors::SafeTensorError, len: usize) -> PosgeoError {
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

pub(super) fn read_safetensors(bytes: &[u8], tensor: Option<&str>) -> Result<Table> {
    let st = SafeTensors::deserialize(bytes).map_err(|e| safetensors_error(e, bytes.len()))?;
    let mut matrices: Vec<Candidate> = st
        .tensors()
        .into_iter()
        .filter_map(|(name, view)| match *view.shape() {
            [r, c] => {
                let float = matches!(view.dtype(), Dtype::F64 | Dtype::F32 | Dtype::F16 | Dtype::BF16);
                Some(Candidate { name, shape: [r, c], float })
            }
            _ => None,
        })
        .collect();
    matrices.sort_by(|a, b| a.name.cmp(&b.name));
    let name = choose(&matrices, tensor, "safetensors file")?;
    let view = st
        .tensor(&name)
        .map_err(|_| bad(format!("no tensor {name:?}; the 2-D tensors are: {}", super::float_listing(&matrices))))?;
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
    if rows == 0 || cols == 0 {
        return Err(bad(format!("tensor {name:?} of shape {rows}×{cols} holds no values")));
    }
    if values.len() != rows * cols {
        return Err(bad(format!("tensor {name:?}: {} values for shape {rows}×{cols}", values.len())));
    }
    Ok(values.chunks(cols).map(<[f64]>::to_vec).collect())
}
