//! Learned position tables: text/CSV, `.npy`, safetensors (format told from the bytes). Never
//! a panic; a table that reads has rows of one width.
#![no_main]

use libfuzzer_sys::fuzz_target;
use posgeo::learned_tables::{format_of, read_table, safetensors_matrices};

fuzz_target!(|data: &[u8]| {
    let _ = format_of(data, data.len());
    let _ = safetensors_matrices(data);
    for tensor in [None, Some("wpe.weight")] {
        match read_table(data, tensor) {
            Ok(rows) => assert!(!rows.is_empty()),
            Err(e) => assert!(!e.to_string().is_empty()),
        }
    }
});
