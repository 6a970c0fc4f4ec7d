//! NumPy files: `.npy` (its header read by a linear scan; its declared dtype and shape checked
//! against the file and the memory budget before the data is read) and `.npz` archives of them
//! (zip, deflate or stored).

use super::{bad, choose, Candidate, Table};
use crate::error::Result;
use std::io::Read;

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

/// What an `.npy` header declares.
struct NpyHeader {
    descr: String,
    shape: Vec<u64>,
    fortran: bool,
}

/// Reads the header's dictionary with a linear scan, before any data is touched: a shape
/// whose product overflows is a message, not a crash, and a general Python-literal parser
/// took minutes on a pathological header the fuzzer made. Headers over
/// [`MAX_NPY_HEADER`] bytes are refused.
fn npy_header(bytes: &[u8]) -> Result<NpyHeader> {
    let end =
        npy_header_end(bytes).filter(|&e| e <= bytes.len()).ok_or_else(|| bad(".npy: the header is cut short"))?;
    if end > MAX_NPY_HEADER {
        return Err(bad(format!(
            ".npy: a header of {} is not a NumPy header (they are a few hundred bytes)",
            crate::limits::human(end as u64)
        )));
    }
    let header = std::str::from_utf8(&bytes[10.min(end)..end]).map_err(|_| bad(".npy: the header is not text"))?;
    let fortran =
        header.split_once("'fortran_order'").is_some_and(|(_, r)| r.trim_start_matches([':', ' ']).starts_with("True"));
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
    Ok(NpyHeader { descr, shape: dims, fortran })
}

/// Headers longer than this are refused (NumPy writes a few hundred bytes).
const MAX_NPY_HEADER: usize = 1 << 16;

/// A 2-D float64/float32 `.npy` array. Its declared shape × dtype is checked against the
/// file's size (and the memory budget) before anything is read.
pub(super) fn read_npy(bytes: &[u8]) -> Result<Table> {
    let NpyHeader { descr, shape, fortran } = npy_header(bytes)?;
    let &[rows, cols] = shape.as_slice() else {
        return Err(bad(format!(".npy array of shape {shape:?}, not rows × columns")));
    };
    let big_endian = descr.starts_with('>');
    let width = match descr.trim_start_matches(['<', '>', '|', '=']) {
        "f8" => 8,
        "f4" => 4,
        _ => return Err(bad(format!(".npy dtype {descr}: float64 or float32 expected"))),
    };
    let start = npy_header_end(bytes).unwrap_or(bytes.len()).min(bytes.len());
    let data = (bytes.len() - start) as u64;
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
    let (rows, cols) = (rows as usize, cols as usize);
    if rows == 0 || cols == 0 {
        return Err(bad(format!(".npy array of shape {rows}×{cols} holds no values")));
    }
    let values = decode_floats(&bytes[start..start + need as usize], width, big_endian);
    Ok(if fortran {
        (0..rows).map(|i| (0..cols).map(|j| values[j * rows + i]).collect()).collect()
    } else {
        values.chunks(cols).map(<[f64]>::to_vec).collect()
    })
}

/// f64 or f32 values (by `width` in bytes), widened to f64, in either byte order.
fn decode_floats(raw: &[u8], width: u64, big_endian: bool) -> Vec<f64> {
    match (width, big_endian) {
        (8, false) => raw.chunks_exact(8).map(|b| f64::from_le_bytes(b.try_into().unwrap_or([0; 8]))).collect(),
        (8, true) => raw.chunks_exact(8).map(|b| f64::from_be_bytes(b.try_into().unwrap_or([0; 8]))).collect(),
        (_, false) => raw.chunks_exact(4).map(|b| f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))).collect(),
        (_, true) => raw.chunks_exact(4).map(|b| f64::from(f32::from_be_bytes([b[0], b[1], b[2], b[3]]))).collect(),
    }
}

/// Bytes of a member read to learn its header (a header is at most a few kB in practice).
const NPY_HEAD: u64 = 1 << 16;

/// A 2-D float member of an `.npz` archive, chosen as [`choose`] says.
pub(super) fn read_npz(bytes: &[u8], tensor: Option<&str>) -> Result<Table> {
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|e| bad(format!(".npz: not a readable zip archive ({e})")))?;
    let mut members = Vec::new();
    for k in 0..zip.len() {
        let mut f = zip.by_index(k).map_err(|e| bad(format!(".npz: member {k}: {e}")))?;
        let Some(name) = f.name().strip_suffix(".npy").map(str::to_string) else { continue };
        let mut head = Vec::new();
        (&mut f).take(NPY_HEAD).read_to_end(&mut head).map_err(|e| bad(format!(".npz: {name}: {e}")))?;
        if let Ok(NpyHeader { descr, shape, .. }) = npy_header(&head) {
            if let [r, c] = shape[..] {
                let float = matches!(descr.trim_start_matches(['<', '|', '=']), "f8" | "f4");
                let shape = [usize::try_from(r).unwrap_or(usize::MAX), usize::try_from(c).unwrap_or(usize::MAX)];
                members.push((k, Candidate { name, shape, float }));
            }
        }
    }
    let all: Vec<Candidate> = members.iter().map(|(_, c)| c.clone()).collect();
    let name = choose(&all, tensor, ".npz archive")?;
    let Some(&(index, _)) = members.iter().find(|(_, c)| c.name == name) else {
        return Err(bad(format!(".npz: no 2-D array {name:?}; the 2-D arrays are: {}", super::float_listing(&all))));
    };
    let f = zip.by_index(index).map_err(|e| bad(format!(".npz: {name}: {e}")))?;
    let size = f.size();
    crate::limits::check(&format!("the .npz member {name:?}"), size)?;
    let mut member = Vec::new();
    crate::limits::reserve(&mut member, usize::try_from(size).unwrap_or(usize::MAX), ".npz member")?;
    f.take(size).read_to_end(&mut member).map_err(|e| bad(format!(".npz: {name}: {e}")))?;
    read_npy(&member).map_err(|e| match e {
        crate::PosgeoError::BadMatrix(m) => bad(format!("{name}: {m}")),
        other => other,
    })
}
