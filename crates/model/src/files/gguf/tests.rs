use super::*;

#[test]
fn unpermute_inverts_llama_cpp_permutation() {
    // llama.cpp: w.reshape(heads, 2, d/2, cols).swapaxes(1, 2): GGUF row h·d + 2i + j holds
    // HF row h·d + j·d/2 + i.
    let (heads, d, cols) = (3, 6, 2);
    let rows = heads * d;
    let hf: Vec<f32> = (0..rows * cols).map(|v| v as f32).collect();
    let mut gguf = vec![0f32; hf.len()];
    for h in 0..heads {
        for i in 0..d / 2 {
            for j in 0..2 {
                let (to, from) = (h * d + 2 * i + j, h * d + j * d / 2 + i);
                gguf[to * cols..(to + 1) * cols].copy_from_slice(&hf[from * cols..(from + 1) * cols]);
            }
        }
    }
    assert_ne!(gguf, hf);
    assert_eq!(unpermute(&gguf, rows, cols, heads), hf);
}

/// A GGUF file of one 32-value F32 tensor `t` (candle's writer), and where its type id is.
fn one_tensor() -> (Vec<u8>, usize) {
    let q = candle_core::quantized::QTensor::quantize(
        &candle_core::Tensor::zeros(32, candle_core::DType::F32, &Device::Cpu).expect("zeros"),
        candle_core::quantized::GgmlDType::F32,
    )
    .expect("tensor");
    let mut out = Cursor::new(Vec::new());
    candle_core::quantized::gguf_file::write(&mut out, &[], &[("t", &q)]).expect("written");
    let bytes = out.into_inner();
    // Header (4 + 4 + 8 + 8), the name (8 + 1), the dimension count (4) and the one dimension
    // (8): the type id follows.
    (bytes, 4 + 4 + 8 + 8 + 9 + 4 + 8)
}

#[test]
fn an_unsupported_quantization_type_is_named() {
    let (mut bytes, at) = one_tensor();
    assert_eq!(&bytes[at..at + 4], &0u32.to_le_bytes(), "F32's id where the type is");
    bytes[at..at + 4].copy_from_slice(&16u32.to_le_bytes());
    let e = GgufFile::new(&bytes).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(e.contains("ggml type 16 (IQ2_XXS)") && e.contains("does not dequantize"), "{e}");
}

#[test]
fn a_tensor_past_the_end_or_overlapping_another_is_named() {
    let (bytes, _) = one_tensor();
    let content = Content::read(&mut Cursor::new(&bytes)).expect("reads");
    assert!(check_ranges(&content, bytes.len() as u64).is_ok());
    let e = check_ranges(&content, bytes.len() as u64 - 8).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(e.contains("tensor t") && e.contains("truncated or its metadata lies"), "{e}");
}

#[test]
fn not_gguf_and_truncated_files_are_named() {
    let e = GgufFile::new(b"PK\x03\x04 not gguf").err().map(|e| e.to_string()).unwrap_or_default();
    assert!(e.contains("not a GGUF file"), "{e}");
    let e = GgufFile::new(b"GGUF\x03\x00\x00\x00\x01").err().map(|e| e.to_string()).unwrap_or_default();
    assert!(e.contains("GGUF"), "{e}");
}

/// A GGUF of one tensor with this metadata (candle's writer).
fn with_metadata(meta: &[(&str, Value)]) -> Vec<u8> {
    let q = candle_core::quantized::QTensor::quantize(
        &candle_core::Tensor::zeros(32, candle_core::DType::F32, &Device::Cpu).expect("zeros"),
        candle_core::quantized::GgmlDType::F32,
    )
    .expect("tensor");
    let refs: Vec<(&str, &Value)> = meta.iter().map(|(k, v)| (*k, v)).collect();
    let mut out = Cursor::new(Vec::new());
    candle_core::quantized::gguf_file::write(&mut out, &refs, &[("t", &q)]).expect("written");
    out.into_inner()
}

fn config_error(meta: &[(&str, Value)]) -> String {
    let bytes = with_metadata(meta);
    let content = Content::read(&mut Cursor::new(&bytes)).expect("reads");
    config_of(&content).err().map(|e| e.to_string()).unwrap_or_default()
}

/// Missing keys are named, each by its full key; a scaling it does not run is named too.
#[test]
fn missing_keys_and_unknown_scalings_are_named() {
    let arch = || ("general.architecture", Value::String("llama".into()));
    assert!(config_error(&[]).contains("general.architecture is missing"));
    let e = config_error(&[arch()]);
    assert!(e.contains("llama.embedding_length is missing"), "{e}");
    let sized = |extra: Vec<(&'static str, Value)>| {
        let mut m =
            vec![arch(), ("llama.embedding_length", Value::U32(8)), ("llama.attention.head_count", Value::U32(2))];
        m.extend(extra);
        config_error(&m)
    };
    let e = sized(vec![("llama.rope.scaling.type", Value::String("yarn".into()))]);
    assert!(e.contains("llama.rope.scaling.type \"yarn\" is not supported (none and linear are)"), "{e}");
    let e = sized(vec![("llama.rope.dimension_count", Value::U32(2))]);
    assert!(e.contains("rotates part of each head of 4; partial rotary is not supported"), "{e}");
    let e = sized(vec![]);
    assert!(e.contains("llama.block_count is missing"), "{e}");
}

/// A metadata key whose length field lies is refused as such, never allocated: past the end of
/// the file (1 MiB in a file of a few hundred bytes), or past any plausible size (2⁴⁰).
#[test]
fn a_key_length_that_lies_is_named() {
    let bytes = with_metadata(&[("general.architecture", Value::String("llama".into()))]);
    // Magic, version, tensor count and metadata count (4 + 4 + 8 + 8): the first key's length.
    assert_eq!(&bytes[24..32], &20u64.to_le_bytes(), "general.architecture's length");
    let lying = |len: u64| {
        let mut b = bytes.clone();
        b[24..32].copy_from_slice(&len.to_le_bytes());
        GgufFile::new(&b).err().map(|e| e.to_string()).unwrap_or_default()
    };
    let e = lying(1 << 20);
    assert!(e.contains("the header runs past the end of the file"), "{e}");
    let e = lying(1 << 40);
    assert!(e.contains("the header cannot be read") && e.contains("string length 1099511627776 exceeds"), "{e}");
}
