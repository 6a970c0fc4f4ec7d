//! A model's `model.safetensors` (docs/MATH.md §14): every tensor [`BertConfig::tensors`] names, found
//! with or without a `bert.` prefix, checked against the shape the config implies, and widened
//! to f32 (F32, F16 and BF16 are read; the pass computes in f32). The file's own structure is
//! checked first by the `safetensors` crate (the checks of learned tables: offsets, lengths,
//! header), so a truncated or lying file gets the same messages as a table would.

use super::config::BertConfig;
use crate::error::{PosgeoError, Result};
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
fn widen(dtype: Dtype, bytes: &[u8]) -> Option<Vec<f32>> {
    let pairs = || bytes.chunks_exact(2).map(|b| u16::from_le_bytes([b[0], b[1]]));
    Some(match dtype {
        Dtype::F32 => bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect(),
        Dtype::F16 => pairs().map(|b| half::f16::from_bits(b).to_f32()).collect(),
        Dtype::BF16 => pairs().map(|b| half::bf16::from_bits(b).to_f32()).collect(),
        _ => return None,
    })
}

impl Weights {
    /// Reads the tensors `config` needs from a safetensors file's bytes.
    pub fn from_safetensors(bytes: &[u8], config: &BertConfig) -> Result<Weights> {
        let st = SafeTensors::deserialize(bytes).map_err(|e| {
            match crate::tables::st::safetensors_error(e, bytes.len()) {
                PosgeoError::BadMatrix(m) => PosgeoError::BadModel(m),
                other => other,
            }
        })?;
        let names: std::collections::HashSet<String> = st.names().into_iter().map(str::to_string).collect();
        let wanted = config.tensors();
        let first = &wanted[0].0;
        let prefix = if !names.contains(first) && names.contains(&format!("bert.{first}")) { "bert." } else { "" };
        let missing: Vec<&str> =
            wanted.iter().map(|(n, _)| n.as_str()).filter(|n| !names.contains(&format!("{prefix}{n}"))).collect();
        if !missing.is_empty() {
            let shown: Vec<String> = missing.iter().take(5).map(|n| format!("{prefix}{n}")).collect();
            let more = if missing.len() > 5 { format!(" and {} more", missing.len() - 5) } else { String::new() };
            return Err(bad(format!(
                "{} tensor(s) the config needs are missing: {}{more} (is this the checkpoint of that config.json?)",
                missing.len(),
                shown.join(", ")
            )));
        }
        let mut tensors = HashMap::with_capacity(wanted.len());
        let mut dtype = String::new();
        for (name, shape) in wanted {
            let full = format!("{prefix}{name}");
            let view = st.tensor(&full).map_err(|e| bad(format!("{full}: {e}")))?;
            if view.shape() != shape.as_slice() {
                return Err(bad(format!(
                    "{full} has shape {:?} but config.json implies {shape:?} (config.json and the weights disagree)",
                    view.shape()
                )));
            }
            let data = widen(view.dtype(), view.data())
                .ok_or_else(|| bad(format!("{full} is {:?}; the weights must be F32, F16 or BF16", view.dtype())))?;
            if data.iter().any(|v| !v.is_finite()) {
                return Err(bad(format!("{full} holds a NaN or infinite value")));
            }
            dtype = format!("{:?}", view.dtype());
            tensors.insert(name, Tensor32 { shape, data });
        }
        Ok(Weights { tensors, prefix: prefix.to_string(), dtype })
    }

    /// The tensor `name` (without prefix); present once [`Weights::from_safetensors`] succeeded.
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
