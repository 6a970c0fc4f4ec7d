//! Counts tables: CSV/TSV (gzip too) and Parquet, told from the bytes. Never a panic; a table
//! that reads analyses or says why not, in both modes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use posgeo::counts::{looks_like_table, read_table_bytes, Mode, PositionalCounts, TableParams};

fuzz_target!(|data: &[u8]| {
    let _ = looks_like_table(data);
    match read_table_bytes(data) {
        Ok(t) => {
            for mode in [Mode::Condition, Mode::Pad] {
                let p = TableParams { mode, max_len: 64, min_support: 1, top_k: Some(3) };
                let _ = PositionalCounts::from_table(&t, &p);
            }
            let _ = t.counted_mode();
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
});
