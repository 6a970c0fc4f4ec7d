//! A BERT folder's **`vocab.txt`** (one WordPiece token per line, the line number its id) as the
//! `tokenizer.json` Hugging Face's `BertTokenizerFast` builds from it (docs/MATH.md §14b):
//! `BertNormalizer` (lowercasing as `tokenizer_config.json`'s `do_lower_case` says, default
//! true), `BertPreTokenizer`, WordPiece with `##` continuations and `[UNK]`, and
//! `[CLS] $A [SEP]` as the post-processor.

use posgeo::error::{PosgeoError, Result};
use serde_json::json;

/// The tokenizer.json of `vocab.txt`, with `tokenizer_config.json` when there is one.
pub fn tokenizer_json(vocab_txt: &[u8], tokenizer_config: Option<&[u8]>) -> Result<String> {
    let text =
        std::str::from_utf8(vocab_txt).map_err(|e| PosgeoError::BadModel(format!("vocab.txt is not UTF-8 ({e})")))?;
    let tokens: Vec<&str> = text.lines().map(|l| l.trim_end_matches('\r')).collect();
    let lowercase = tokenizer_config
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(b).ok())
        .and_then(|v| v.get("do_lower_case").and_then(serde_json::Value::as_bool))
        .unwrap_or(true);
    let mut vocab = serde_json::Map::new();
    for (i, t) in tokens.iter().enumerate() {
        vocab.entry(t.to_string()).or_insert(json!(i));
    }
    let id =
        |t: &str| -> Result<usize> {
            vocab.get(t).and_then(serde_json::Value::as_u64).map(|v| v as usize).ok_or_else(|| {
                PosgeoError::BadModel(format!("vocab.txt has no {t} token, which a BERT tokenizer needs"))
            })
        };
    let (cls, sep) = (id("[CLS]")?, id("[SEP]")?);
    id("[UNK]")?;
    let added: Vec<serde_json::Value> = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
        .iter()
        .filter_map(|t| vocab.get(*t).map(|i| json!({"id": i, "content": t, "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true})))
        .collect();
    let piece = |t: &str, ty: u32| json!({"SpecialToken": {"id": t, "type_id": ty}});
    Ok(json!({
        "version": "1.0", "truncation": null, "padding": null, "added_tokens": added,
        "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": null, "lowercase": lowercase},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {"type": "TemplateProcessing",
            "single": [piece("[CLS]", 0), {"Sequence": {"id": "A", "type_id": 0}}, piece("[SEP]", 0)],
            "pair": [piece("[CLS]", 0), {"Sequence": {"id": "A", "type_id": 0}}, piece("[SEP]", 0), {"Sequence": {"id": "B", "type_id": 1}}, piece("[SEP]", 1)],
            "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [cls], "tokens": ["[CLS]"]}, "[SEP]": {"id": "[SEP]", "ids": [sep], "tokens": ["[SEP]"]}}},
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100, "vocab": vocab},
    })
    .to_string())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use posgeo::corpus::hf_tokenizer::ModelTokenizer;

    fn tokens(t: &ModelTokenizer, s: &str, limit: usize) -> Vec<String> {
        t.ids(s, true, limit).into_iter().map(|id| t.token(id).to_string()).collect()
    }

    /// ProtBERT's kind of `vocab.txt` (residues, no `##` pieces, case kept): a FASTA record is
    /// read one residue a word, as if spaced out, and only as far as the limit.
    #[test]
    fn a_vocabulary_of_residues_reads_a_sequence_one_residue_a_word() {
        let vocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nL\nA\nG\nV\nK\nM\n";
        let json = super::tokenizer_json(vocab.as_bytes(), Some(br#"{"do_lower_case": false}"#)).unwrap();
        let t = ModelTokenizer::from_bytes("vocab.txt", json.as_bytes()).unwrap();
        assert!(t.residues);
        assert_eq!(tokens(&t, "MKVLAG", 100), ["[CLS]", "M", "K", "V", "L", "A", "G", "[SEP]"]);
        assert_eq!(tokens(&t, "MKVLAG", 100), tokens(&t, "M K V L A G", 100));
        assert_eq!(tokens(&t, "MKVLAG", 3), ["[CLS]", "M", "K"]);
        assert_eq!(tokens(&t, "MKWV", 100), ["[CLS]", "M", "K", "[UNK]", "V", "[SEP]"]);
        // A word vocabulary is not one of residues.
        let words = ModelTokenizer::from_bytes("t.json", posgeo::test_support::WORDPIECE.as_bytes()).unwrap();
        assert!(!words.residues);
    }
}
