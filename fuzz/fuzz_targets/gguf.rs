//! GGUF files, as users download them: the header, the metadata, the tensor table, each
//! tensor dequantized, the tokenizer the metadata carries and the whole model built from the
//! file. Never a panic; every refusal has a message.
#![no_main]

use libfuzzer_sys::fuzz_target;
use posgeo_model::files::gguf::GgufFile;
use posgeo_model::files::gguf_tokenizer::tokenizer_json;
use posgeo_model::weights::TensorSource;

const NAMES: [&str; 6] =
    ["token_embd.weight", "blk.0.attn_q.weight", "blk.0.attn_k.weight", "output_norm.weight", "position_embd.weight", "rope_freqs.weight"];

fuzz_target!(|data: &[u8]| {
    if let Ok(file) = GgufFile::new(data) {
        let _ = file.dequantized_bytes();
        let _ = file.rope_divisors();
        if let Err(e) = tokenizer_json(file.metadata()) {
            assert!(!e.to_string().is_empty());
        }
        for name in NAMES {
            if file.contains(name) {
                let _ = file.describe(name);
                if let Ok(values) = file.read(name) {
                    let (shape, _) = file.describe(name).expect("a tensor it holds is described");
                    assert_eq!(values.len(), shape.iter().product::<usize>(), "{name}");
                }
            }
        }
    }
    if let Err(e) = posgeo_model::Model::from_files(&[("model.gguf".to_string(), data)]) {
        assert!(!e.to_string().is_empty());
    }
});
