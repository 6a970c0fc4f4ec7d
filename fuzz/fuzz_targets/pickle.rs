//! PyTorch `.bin` files (a zip holding a pickle and its storages), as users download them: the
//! unpickler's opcode check, the tensor table, each tensor read, and a BERT folder built around
//! the file. A pickle that names anything but tensors is refused, never run. Never a panic;
//! every refusal has a message.
#![no_main]

use libfuzzer_sys::fuzz_target;
use posgeo_model::files::pickle::{check_pickle, PickleFile};
use posgeo_model::weights::TensorSource;

const NAMES: [&str; 3] =
    ["embeddings.word_embeddings.weight", "embeddings.position_embeddings.weight", "model.embed_tokens.weight"];
const CONFIG: &[u8] = br#"{"model_type": "bert", "hidden_size": 4, "num_hidden_layers": 1, "num_attention_heads": 1,
  "intermediate_size": 4, "max_position_embeddings": 8, "type_vocab_size": 1, "vocab_size": 6,
  "hidden_act": "gelu", "layer_norm_eps": 1e-12}"#;
const VOCAB: &[u8] = b"[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\na\n";

fuzz_target!(|data: &[u8]| {
    let _ = check_pickle(data);
    if let Ok(file) = PickleFile::new(data) {
        for name in NAMES {
            if file.contains(name) {
                if let Ok(values) = file.read(name) {
                    let (shape, _) = file.describe(name).expect("a tensor it holds is described");
                    assert_eq!(values.len(), shape.iter().product::<usize>(), "{name}");
                }
            }
        }
    }
    let folder = [
        ("config.json".to_string(), CONFIG),
        ("pytorch_model.bin".to_string(), data),
        ("vocab.txt".to_string(), VOCAB),
    ];
    if let Err(e) = posgeo_model::Model::from_files(&folder) {
        assert!(!e.to_string().is_empty());
    }
});
