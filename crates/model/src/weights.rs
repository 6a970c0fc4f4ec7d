//! A model's `model.safetensors` (docs/MATH.md §14): every tensor [`BertConfig::tensors`] names, found
//! with or without a `bert.` prefix, checked against the shape the config implies, and widened
//! to f32 (F32, F16 and BF16 are read; the pass computes in f32). The file's own structure is
//! checked first by the `safetensors` crate (the checks of learned tables: offsets, lengths,
//! header), so a truncated or lying file gets the same messages as a table would.

use super::config::BertConfig;
use posgeo::error::{PosgeoError, Result};
use safetensors::{Dtype, SafeTensors};
use std::collections::HashMap;

/// One tensor: its shape and values.
#[derive(Debug, Clone, PartialEq)]
pub struct Tensor32 {
    /// Dimensions.
    pub shape: Vec<usize>,
    /// Values, row-major.
    pub data: Vec<f32>,
}

/// Every tensor of the forward pass, keyed by its name without the prefix.
#[derive(Debug, Clone, PartialEq)]
pub struct Weights {
    /// The tensors.
    pub tensors: HashMap<String, Tensor32>,
    /// `"bert."` when the checkpoint's names carry it, else empty.
    pub prefix: String,
    /// The dtype the checkpoint stores them in (F32, F16, BF16).
    pub dtype: String,
}

fn bad(m: impl Into<String>) -> PosgeoError {
    PosgeoError::BadModel(format!("model.safetensors: {}", m.into()))
}

/// Widens one tensor's little-endian bytes to f32.
pub(crate) fn widen(dtype: Dtype, bytes: &[u8]) -> Option<Vec<f32>> {
    let pairs = || bytes.chunks_exact(2).map(|b| u16::from_le_bytes([b[0], b[1]]));
    Some(match dtype {
        Dtype::F32 => bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect(),
        Dtype::F16 => pairs().map(|b| half::f16::from_bits(b).to_f32()).collect(),
        Dtype::BF16 => pairs().map(|b| half::bf16::from_bits(b).to_f32()).collect(),
        _ => return None,
    })
}

/// Where a checkpoint's tensors come from: safetensors files (one or sharded),
/// `pytorch_model.bin` ([`super::files::pickle`]) or a GGUF file ([`super::files::gguf`]),
/// each named and shaped as a Hugging Face checkpoint names them.
pub trait TensorSource {
    /// The file's name, for messages.
    fn label(&self) -> String;
    /// Whether it holds tensor `name`.
    fn contains(&self, name: &str) -> bool;
    /// Its shape and stored dtype.
    fn describe(&self, name: &str) -> Option<(Vec<usize>, String)>;
    /// Its values widened (or dequantized) to f32, row-major.
    fn read(&self, name: &str) -> Result<Vec<f32>>;
}

/// One or more safetensors files (a sharded checkpoint's shards, or one file).
pub struct SafetensorsFiles<'a> {
    files: Vec<(String, SafeTensors<'a>)>,
}

impl<'a> SafetensorsFiles<'a> {
    /// Checks each file's structure (offsets, lengths, header).
    pub fn new(files: &[(String, &'a [u8])]) -> Result<SafetensorsFiles<'a>> {
        let mut out = Vec::with_capacity(files.len());
        for (name, bytes) in files {
            let st =
                SafeTensors::deserialize(bytes).map_err(|e| {
                    match posgeo::learned_tables::st::safetensors_error(e, bytes.len()) {
                        PosgeoError::BadMatrix(m) | PosgeoError::BadModel(m) => {
                            PosgeoError::BadModel(format!("{name}: {m}"))
                        }
                        other => other,
                    }
                })?;
            out.push((name.clone(), st));
        }
        Ok(SafetensorsFiles { files: out })
    }

    fn find(&self, name: &str) -> Option<(&str, safetensors::tensor::TensorView<'_>)> {
        self.files.iter().find_map(|(f, st)| st.tensor(name).ok().map(|v| (f.as_str(), v)))
    }
}

impl TensorSource for SafetensorsFiles<'_> {
    fn label(&self) -> String {
        match self.files.as_slice() {
            [(one, _)] => one.clone(),
            many => format!("the {} safetensors shards", many.len()),
        }
    }
    fn contains(&self, name: &str) -> bool {
        self.find(name).is_some()
    }
    fn describe(&self, name: &str) -> Option<(Vec<usize>, String)> {
        self.find(name).map(|(_, v)| (v.shape().to_vec(), format!("{:?}", v.dtype())))
    }
    fn read(&self, name: &str) -> Result<Vec<f32>> {
        let (file, view) = self.find(name).ok_or_else(|| PosgeoError::BadModel(format!("{name} is missing")))?;
        widen(view.dtype(), view.data()).ok_or_else(|| {
            PosgeoError::BadModel(format!("{file}: {name} is {:?}; the weights must be F32, F16 or BF16", view.dtype()))
        })
    }
}

impl Weights {
    /// Reads the tensors `config` needs from a safetensors file's bytes.
    pub fn from_safetensors(bytes: &[u8], config: &BertConfig) -> Result<Weights> {
        let files = SafetensorsFiles::new(&[("model.safetensors".to_string(), bytes)])?;
        Weights::select(&files, &config.tensors(), &["", "bert."])
    }

    /// The `wanted` tensors (name without prefix, shape) of a source, found under the first of
    /// `prefixes` that holds the first of them, each checked against its shape and for
    /// non-finite values.
    pub fn select(source: &dyn TensorSource, wanted: &[(String, Vec<usize>)], prefixes: &[&str]) -> Result<Weights> {
        let label = source.label();
        let bad = |m: String| PosgeoError::BadModel(format!("{label}: {m}"));
        let first = wanted.first().map(|w| w.0.as_str()).unwrap_or("");
        let prefix = prefixes.iter().copied().find(|p| source.contains(&format!("{p}{first}"))).unwrap_or("");
        let missing: Vec<String> =
            wanted.iter().map(|(n, _)| format!("{prefix}{n}")).filter(|n| !source.contains(n)).collect();
        if !missing.is_empty() {
            let shown: Vec<&str> = missing.iter().take(5).map(String::as_str).collect();
            let more = if missing.len() > 5 { format!(" and {} more", missing.len() - 5) } else { String::new() };
            return Err(bad(format!(
                "{} tensor(s) the config needs are missing: {}{more} (is this the checkpoint of that config?)",
                missing.len(),
                shown.join(", ")
            )));
        }
        let mut tensors = HashMap::with_capacity(wanted.len());
        let mut dtypes: Vec<String> = Vec::new();
        for (name, shape) in wanted {
            let full = format!("{prefix}{name}");
            let (found, dtype) = source.describe(&full).ok_or_else(|| bad(format!("{full} is missing")))?;
            if &found != shape {
                return Err(bad(format!(
                    "{full} has shape {found:?} but the config implies {shape:?} (the config and the weights disagree)"
                )));
            }
            let data = source.read(&full)?;
            if data.len() != shape.iter().product::<usize>() {
                return Err(bad(format!("{full} holds {} values for shape {shape:?}", data.len())));
            }
            if data.iter().any(|v| !v.is_finite()) {
                return Err(bad(format!("{full} holds a NaN or infinite value")));
            }
            if !dtypes.contains(&dtype) {
                dtypes.push(dtype);
            }
            tensors.insert(name.clone(), Tensor32 { shape: shape.clone(), data });
        }
        Ok(Weights { tensors, prefix: prefix.to_string(), dtype: dtypes.join("+") })
    }

    /// The tensor `name` (without prefix); present once [`Weights::select`] succeeded.
    pub fn get(&self, name: &str) -> Result<&Tensor32> {
        self.tensors.get(name).ok_or_else(|| bad(format!("{}{name} is missing", self.prefix)))
    }

    /// Takes the tensor `name` out (the forward pass owns its weights without a copy).
    pub fn take(&mut self, name: &str) -> Result<Tensor32> {
        self.tensors.remove(name).ok_or_else(|| bad(format!("{}{name} is missing", self.prefix)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_precision_widens_exactly() {
        let v = [1.5f32, -0.25, 3.0e-3];
        let f16: Vec<u8> = v.iter().flat_map(|&x| half::f16::from_f32(x).to_bits().to_le_bytes()).collect();
        let bf16: Vec<u8> = v.iter().flat_map(|&x| half::bf16::from_f32(x).to_bits().to_le_bytes()).collect();
        let a = widen(Dtype::F16, &f16).expect("f16");
        let b = widen(Dtype::BF16, &bf16).expect("bf16");
        for k in 0..3 {
            assert_eq!(a[k], half::f16::from_f32(v[k]).to_f32());
            assert_eq!(b[k], half::bf16::from_f32(v[k]).to_f32());
        }
        assert_eq!(widen(Dtype::I64, &[0; 8]), None);
    }
}
