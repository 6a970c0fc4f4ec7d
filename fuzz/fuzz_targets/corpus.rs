//! Corpus input: text (FASTA when it starts with `>`), CSV, TSV, JSON Lines and FASTA (each
//! maybe gzip), then counting with every tokenizer but a model's. The first byte picks the
//! format and `lossy`; the rest is the file. Never a panic, and every error
//! has a message.
#![no_main]

use libfuzzer_sys::fuzz_target;
use posgeo::corpus::tokenize::{Tokenizer, TokenizerKind};
use posgeo::counts::{CountParams, Mode, PositionalCounts};
use posgeo::{Corpus, InputFormat};

fuzz_target!(|data: &[u8]| {
    let Some((&sel, bytes)) = data.split_first() else { return };
    let column = if sel & 8 == 0 { Some("text".to_string()) } else { Some("0".to_string()) };
    let format = match sel % 5 {
        0 => InputFormat::Text,
        1 => InputFormat::Csv { delimiter: b',', column, has_header: sel & 16 == 0 },
        2 => InputFormat::Csv { delimiter: b'\t', column, has_header: sel & 16 == 0 },
        3 => InputFormat::Jsonl { field: "text".into() },
        _ => InputFormat::Fasta,
    };
    // Gzip-wrapped half the time, so the decoder sees real streams too.
    let gz;
    let input = if sel & 32 != 0 {
        use std::io::Write;
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(bytes).ok();
        gz = enc.finish().unwrap_or_default();
        &gz[..]
    } else {
        bytes
    };
    match Corpus::read(input, &format, sel & 4 != 0) {
        Ok(corpus) => {
            let kinds = [TokenizerKind::Words, TokenizerKind::Whitespace, TokenizerKind::Chars, TokenizerKind::Kmer];
            let kind = kinds[usize::from(sel >> 6) % 4];
            let params = CountParams {
                tokenizer: Tokenizer {
                    kind,
                    lowercase: sel & 1 == 0,
                    bos: sel & 2 != 0,
                    model: None,
                    special_tokens: true,
                    kmer: 1 + usize::from(sel >> 4) % 3,
                },
                mode: if sel & 64 == 0 { Mode::Condition } else { Mode::Pad },
                max_len: 32,
                min_support: 1,
                top_k: (sel & 128 != 0).then_some(3),
            };
            if let Ok(c) = PositionalCounts::count(&corpus, &params, &mut |_| {}) {
                assert!(c.n >= 2 && c.rows.len() == c.n);
            }
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
});
