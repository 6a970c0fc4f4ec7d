//! **Writing position tables**: an n×d float32 table as a NumPy `.npy` file (format 1.0,
//! little-endian, C order: what `np.save` writes for a `float32` array) and a set of named
//! tables as one safetensors file (F32). Both are formats [`super::read_table`] reads back, so
//! a table learned in the learning experiment (docs/MATH.md §16) can be measured again as the
//! `learned` encoding (§5).

use crate::error::{PosgeoError, Result};
use safetensors::tensor::{Dtype, TensorView};
use std::collections::HashMap;

/// A named rows×cols table in row-major order.
#[derive(Debug, Clone, Copy)]
pub struct NamedTable<'a> {
    /// The tensor's name.
    pub name: &'a str,
    /// Rows (positions).
    pub rows: usize,
    /// Columns (the model width).
    pub cols: usize,
    /// rows·cols values, row by row.
    pub data: &'a [f32],
}

fn check(t: &NamedTable<'_>) -> Result<()> {
    if t.rows.checked_mul(t.cols) != Some(t.data.len()) {
        return Err(PosgeoError::BadTable(format!(
            "{}: {} values do not make a {}×{} table",
            t.name,
            t.data.len(),
            t.rows,
            t.cols
        )));
    }
    Ok(())
}

fn le_bytes(data: &[f32]) -> Vec<u8> {
    data.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// The `.npy` file of one table: magic, version 1.0, the header dictionary padded with spaces
/// so that the data starts at a multiple of 64 bytes, then the values.
pub fn npy(t: &NamedTable<'_>) -> Result<Vec<u8>> {
    check(t)?;
    let mut header = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': ({}, {}), }}", t.rows, t.cols);
    let unpadded = 10 + header.len() + 1;
    header.push_str(&" ".repeat((64 - unpadded % 64) % 64));
    header.push('\n');
    let len = u16::try_from(header.len()).map_err(|_| PosgeoError::BadTable("the .npy header is too long".into()))?;
    let mut out = Vec::with_capacity(10 + header.len() + 4 * t.data.len());
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(&le_bytes(t.data));
    Ok(out)
}

/// One safetensors file holding every table (F32, shape [rows, cols]) under its name, with
/// `metadata` in its header.
pub fn safetensors(tables: &[NamedTable<'_>], metadata: HashMap<String, String>) -> Result<Vec<u8>> {
    let bytes = tables.iter().map(|t| check(t).map(|()| le_bytes(t.data))).collect::<Result<Vec<_>>>()?;
    let bad =
        |e: safetensors::SafeTensorError| PosgeoError::BadTable(format!("cannot write the safetensors file: {e}"));
    let views = tables
        .iter()
        .zip(&bytes)
        .map(|(t, b)| Ok((t.name.to_string(), TensorView::new(Dtype::F32, vec![t.rows, t.cols], b).map_err(bad)?)))
        .collect::<Result<Vec<_>>>()?;
    safetensors::serialize(views, Some(metadata)).map_err(bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(rows: usize, cols: usize) -> Vec<f32> {
        (0..rows * cols).map(|k| (k as f32 * 0.37).sin() * 3.0 - 0.5 / (k as f32 + 1.0)).collect()
    }

    /// The reader that reads users' files reads what is written, value for value.
    #[test]
    fn written_npy_and_safetensors_read_back_exactly() {
        for (rows, cols) in [(1, 1), (7, 3), (64, 64), (130, 5)] {
            let data = table(rows, cols);
            let t = NamedTable { name: "learned.seed1", rows, cols, data: &data };
            let file = npy(&t).unwrap();
            assert_eq!((file.len() - 4 * data.len()) % 64, 0, "the data starts on a 64-byte boundary");
            let back = super::super::read_table(&file, None).unwrap();
            let want: Vec<Vec<f64>> = data.chunks(cols).map(|r| r.iter().map(|&v| v as f64).collect()).collect();
            assert_eq!(back, want);
            let other = table(rows + 1, cols);
            let both = [t, NamedTable { name: "learned_pmds.seed1", rows: rows + 1, cols, data: &other }];
            let file = safetensors(&both, HashMap::new()).unwrap();
            assert_eq!(super::super::read_table(&file, Some("learned.seed1")).unwrap(), want);
            assert_eq!(super::super::read_table(&file, Some("learned_pmds.seed1")).unwrap().len(), rows + 1);
        }
    }

    #[test]
    fn a_wrong_length_is_a_message() {
        let t = NamedTable { name: "x", rows: 3, cols: 3, data: &[0.0; 8] };
        assert!(npy(&t).unwrap_err().to_string().contains("8 values do not make a 3×3 table"));
        assert!(safetensors(&[t], HashMap::new()).is_err());
    }
}
