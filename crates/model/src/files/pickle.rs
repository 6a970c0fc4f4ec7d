//! A **`pytorch_model.bin`** read as data only (docs/MATH.md §14b): PyTorch's zip format, whose
//! `data.pkl` pickles an ordered dict of name → tensor and whose `data/<key>` members hold the
//! storages' bytes.
//!
//! A pickle is a program; posgeo never runs one. Every opcode of `data.pkl` is walked first,
//! and the file is refused unless each global it names is one of
//! `collections.OrderedDict`, `torch._utils._rebuild_tensor_v2`, `torch._utils._rebuild_parameter`
//! or a `torch.*Storage` class, and unless every opcode is one of the plain data opcodes that
//! `torch.save` writes. Only then does candle's pickle reader (an interpreter that builds a
//! tree of values and calls nothing) read it, and the tensors' shapes, strides, offsets and
//! storages come from that tree. A tensor is the elements of its storage from its offset
//! along its strides, so tied names (one storage), views into a larger storage and
//! transposes read as `torch.save` wrote them.

use crate::weights::{widen, TensorSource};
use candle_core::pickle::{Object, Stack};
use posgeo::error::{PosgeoError, Result};
use std::cell::RefCell;
use std::collections::HashMap;
use std::io::{Cursor, Read};

fn bad(m: impl std::fmt::Display) -> PosgeoError {
    PosgeoError::BadModel(format!("pytorch_model.bin: {m}"))
}

/// The globals a state dict may name.
fn allowed(module: &str, name: &str) -> bool {
    matches!(
        (module, name),
        ("collections", "OrderedDict")
            | ("torch._utils", "_rebuild_tensor_v2")
            | ("torch._utils", "_rebuild_parameter")
    ) || (module == "torch" && name.ends_with("Storage") && name.chars().all(|c| c.is_ascii_alphanumeric()))
}

/// Walks the opcodes without running them: refuses any opcode outside plain data and any global
/// outside [`allowed`].
pub fn check_pickle(p: &[u8]) -> Result<()> {
    let mut at = 0usize;
    let take = |at: &mut usize, n: usize| -> Result<&[u8]> {
        let s = p.get(*at..*at + n).ok_or_else(|| bad("data.pkl ends in the middle of an opcode: it is truncated"))?;
        *at += n;
        Ok(s)
    };
    let u32_at = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize;
    loop {
        let op = *take(&mut at, 1)?.first().unwrap_or(&0);
        match op {
            b'.' => return Ok(()),
            0x80 | b'K' | b'h' | b'q' => {
                take(&mut at, 1)?;
            }
            b'M' => {
                take(&mut at, 2)?;
            }
            b'J' | b'j' | b'r' => {
                take(&mut at, 4)?;
            }
            b'G' => {
                take(&mut at, 8)?;
            }
            0x8a => {
                let n = take(&mut at, 1)?[0] as usize;
                take(&mut at, n)?;
            }
            b'X' => {
                let n = u32_at(take(&mut at, 4)?);
                take(&mut at, n)?;
            }
            b'c' => {
                let line = |at: &mut usize| -> Result<String> {
                    let end = p[*at..].iter().position(|&b| b == b'\n').ok_or_else(|| bad("a global's name is not terminated"))?;
                    let s = String::from_utf8_lossy(&p[*at..*at + end]).into_owned();
                    *at += end + 1;
                    Ok(s)
                };
                let (module, name) = (line(&mut at)?, line(&mut at)?);
                if !allowed(&module, &name) {
                    return Err(bad(format!(
                        "its pickle names {module}.{name}, which is not a tensor, a storage or an ordered dict; posgeo reads checkpoints as data only and never runs a pickle (save the weights as safetensors)"
                    )));
                }
            }
            b'Q' | b't' | 0x85 | 0x86 | 0x87 | 0x88 | 0x89 | b'a' | b'e' | b's' | b'u' | b'N' | b'b' | b'}' | b'd'
            | b'(' | b'R' | b')' | b']' | 0x81 => {}
            other => {
                return Err(bad(format!(
                    "its pickle uses opcode 0x{other:02x} at byte {}, which a state dict of tensors does not need; posgeo never runs a pickle",
                    at - 1
                )))
            }
        }
    }
}

/// One tensor of the checkpoint: where its bytes are.
struct Entry {
    member: String,
    dtype: candle_core::DType,
    shape: Vec<usize>,
    /// The first element's place in the storage, in bytes (candle's layout keeps PyTorch's
    /// storage offset times the element size).
    start: usize,
    /// Elements between neighbours along each dimension (a transpose's are not row-major).
    stride: Vec<usize>,
}

/// A `pytorch_model.bin`, checked and indexed.
pub struct PickleFile<'a> {
    zip: RefCell<zip::ZipArchive<Cursor<&'a [u8]>>>,
    entries: HashMap<String, Entry>,
}

impl<'a> PickleFile<'a> {
    /// Opens the zip, checks its pickle, and indexes the tensors.
    pub fn new(bytes: &'a [u8]) -> Result<PickleFile<'a>> {
        let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| {
            bad(format!("not a PyTorch zip checkpoint ({e}); files saved before PyTorch 1.6 (not zip) are not read"))
        })?;
        let pkl = (0..zip.len())
            .filter_map(|i| zip.by_index(i).ok().map(|f| f.name().to_string()))
            .find(|n| n.ends_with("data.pkl"))
            .ok_or_else(|| bad("no data.pkl in the zip"))?;
        let mut program = Vec::new();
        zip.by_name(&pkl).map_err(bad)?.read_to_end(&mut program).map_err(bad)?;
        check_pickle(&program)?;
        let mut stack = Stack::empty();
        stack
            .read_loop(&mut Cursor::new(&program))
            .map_err(|e| bad(format!("its pickle cannot be read: {}", posgeo::error::candle_message(&e))))?;
        let root = stack
            .finalize()
            .map_err(|e| bad(format!("its pickle cannot be read: {}", posgeo::error::candle_message(&e))))?;
        let Object::Dict(items) = root else {
            return Err(bad("its pickle is not a dict of tensors (a state dict)"));
        };
        let dir = std::path::PathBuf::from(pkl.trim_end_matches(".pkl"));
        let mut entries = HashMap::new();
        for (key, value) in items {
            let name = match &key {
                Object::Unicode(s) => s.clone(),
                _ => continue,
            };
            let Some(info) = value
                .into_tensor_info(key, &dir)
                .map_err(|e| bad(format!("{name}: {}", posgeo::error::candle_message(&e))))?
            else {
                continue;
            };
            let member = info.path.replace('\\', "/");
            let entry = Entry {
                member,
                dtype: info.dtype,
                shape: info.layout.dims().to_vec(),
                start: info.layout.start_offset(),
                stride: info.layout.stride().to_vec(),
            };
            entries.insert(name, entry);
        }
        Ok(PickleFile { zip: RefCell::new(zip), entries })
    }
}

impl TensorSource for PickleFile<'_> {
    fn label(&self) -> String {
        "pytorch_model.bin".into()
    }
    fn contains(&self, name: &str) -> bool {
        self.entries.contains_key(name)
    }
    fn describe(&self, name: &str) -> Option<(Vec<usize>, String)> {
        self.entries.get(name).map(|e| (e.shape.clone(), format!("{:?}", e.dtype)))
    }
    fn read(&self, name: &str) -> Result<Vec<f32>> {
        let e = self.entries.get(name).ok_or_else(|| bad(format!("{name} is missing")))?;
        let dtype = match e.dtype {
            candle_core::DType::F32 => safetensors::Dtype::F32,
            candle_core::DType::F16 => safetensors::Dtype::F16,
            candle_core::DType::BF16 => safetensors::Dtype::BF16,
            other => return Err(bad(format!("{name} is {other:?}; the weights must be F32, F16 or BF16"))),
        };
        let mut zip = self.zip.borrow_mut();
        let mut file =
            zip.by_name(&e.member).map_err(|err| bad(format!("{name}'s storage {} is missing ({err})", e.member)))?;
        let mut raw = Vec::new();
        file.read_to_end(&mut raw).map_err(|err| bad(format!("{name}: {err}")))?;
        let size = e.dtype.size_in_bytes();
        // The storage elements the tensor reaches: from its offset to its last element.
        let reach = e.shape.iter().zip(&e.stride).map(|(&n, &s)| n.saturating_sub(1) * s).sum::<usize>();
        let span = if e.shape.contains(&0) { 0 } else { reach + 1 };
        let bytes = raw.get(e.start..e.start + span * size).ok_or_else(|| {
            let (from, to) = (e.start, e.start + span * size);
            bad(format!("{name} needs bytes {from}..{to} of its storage, which has {}", raw.len()))
        })?;
        let storage = widen(dtype, bytes).ok_or_else(|| bad(format!("{name} cannot be widened")))?;
        Ok(gather(&storage, &e.shape, &e.stride))
    }
}

/// The elements of a tensor of `shape` laid out with `stride` in `storage` (its first element
/// at 0), in row-major order.
fn gather(storage: &[f32], shape: &[usize], stride: &[usize]) -> Vec<f32> {
    let count: usize = shape.iter().product();
    let row_major = shape.iter().rev().scan(1, |n, &dim| {
        let s = *n;
        *n *= dim;
        Some(s)
    });
    if stride.iter().rev().zip(row_major).all(|(a, b)| *a == b) {
        return storage[..count].to_vec();
    }
    let mut index = vec![0usize; shape.len()];
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        out.push(storage[index.iter().zip(stride).map(|(i, s)| i * s).sum::<usize>()]);
        for k in (0..shape.len()).rev() {
            index[k] += 1;
            if index[k] < shape[k] {
                break;
            }
            index[k] = 0;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `state.bin`, written by `torch.save` itself (tests/reference/torch_fixture.py): a tied
    /// name, a view at storage offset 8 into a shared storage, a transpose, float16 and
    /// bfloat16 — each read equal to the values PyTorch listed beside it.
    #[test]
    fn a_file_written_by_torch_save_reads_as_torch_lists_it() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/torch/");
        let bytes = std::fs::read(format!("{dir}state.bin")).unwrap();
        let want: serde_json::Value =
            serde_json::from_slice(&std::fs::read(format!("{dir}state.json")).unwrap()).unwrap();
        let file = PickleFile::new(&bytes).unwrap();
        let tensors = want.as_object().unwrap();
        assert_eq!(tensors.len(), 7);
        assert_eq!(tensors["view"]["offset"], 8);
        assert_eq!(tensors["wt"]["stride"], serde_json::json!([1, 3]));
        for (name, t) in tensors {
            let shape: Vec<usize> =
                t["shape"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as usize).collect();
            assert_eq!(file.describe(name).map(|d| d.0), Some(shape), "{name}");
            let values: Vec<f64> = t["values"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
            let got = file.read(name).unwrap();
            assert_eq!(got.len(), values.len(), "{name}");
            for (k, (g, w)) in got.iter().zip(&values).enumerate() {
                assert_eq!(*g as f64, *w, "{name}[{k}]");
            }
        }
    }

    #[test]
    fn the_walker_refuses_code_and_accepts_a_state_dict_header() {
        let evil = b"\x80\x02cposix\nsystem\nq\x00X\x02\x00\x00\x00lsq\x01\x85q\x02Rq\x03.";
        let e = check_pickle(evil).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.contains("posix.system") && e.contains("never runs"), "{e}");
        let ok = b"\x80\x02ccollections\nOrderedDict\nq\x00)Rq\x01.";
        assert!(check_pickle(ok).is_ok());
        let inst = b"\x80\x02(i__builtin__\neval\n.";
        let e = check_pickle(inst).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.contains("opcode 0x69 at byte 3"), "INST is not a data opcode: {e}");
        // STACK_GLOBAL (protocol 4) takes its names from the stack, where no walk can check them.
        let stacked = b"\x80\x02X\x05\x00\x00\x00posixX\x06\x00\x00\x00system\x93.";
        let e = check_pickle(stacked).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.contains("opcode 0x93 at byte 23"), "{e}");
        let e = check_pickle(b"\x80\x02X\xff\x00\x00\x00ab").err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.contains("ends in the middle of an opcode"), "{e}");
    }

    /// torch.save's file with one storage cut short, and bytes that are not a zip: each named.
    #[test]
    fn a_storage_cut_short_and_a_file_that_is_not_a_zip_are_named() {
        use std::io::Write;
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/torch/");
        let bytes = std::fs::read(format!("{dir}state.bin")).unwrap();
        let mut source = zip::ZipArchive::new(Cursor::new(&bytes[..])).unwrap();
        let mut out = zip::ZipWriter::new(Cursor::new(Vec::new()));
        for i in 0..source.len() {
            let mut f = source.by_index(i).unwrap();
            let mut data = Vec::new();
            f.read_to_end(&mut data).unwrap();
            let name = f.name().to_string();
            // `big`'s storage (10×4 f32, the one `view` shares) loses its last row.
            if name.ends_with("data/1") {
                data.truncate(36 * 4);
            }
            out.start_file(name, zip::write::SimpleFileOptions::default()).unwrap();
            out.write_all(&data).unwrap();
        }
        let cut = out.finish().unwrap().into_inner();
        let file = PickleFile::new(&cut).unwrap();
        let e = file.read("big").err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.contains("big needs bytes 0..160 of its storage, which has 144"), "{e}");
        assert!(file.read("view").is_ok(), "rows 2..5 are still there");
        let e = PickleFile::new(b"PK not a zip").err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.contains("not a PyTorch zip checkpoint"), "{e}");
    }
}
