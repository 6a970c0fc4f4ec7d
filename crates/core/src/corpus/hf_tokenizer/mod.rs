//! A model's own tokenizer (docs/MATH.md §1): a Hugging Face `tokenizer.json` — WordPiece (BERT),
//! byte-level BPE (GPT-2, RoBERTa, Llama 3) or Unigram/SentencePiece (T5, XLM-R) — applied
//! by the `tokenizers` crate, the field's reference implementation, exactly as the Python
//! package applies it: its normaliser (which decides case), pre-tokeniser, model and, unless
//! the user turns them off, its post-processor's special tokens (`[CLS] … [SEP]`,
//! `<s> … </s>`). A sequence's tokens are the encoding's token strings (`##ing`, `Ġthe`,
//! `▁the`). Truncation and padding written in the file are switched off: positions are
//! capped by `max_len` and padding is the counting mode's business (docs/MATH.md §2).
//!
//! The file is checked before the crate reads it, so that a file that is not a tokenizer, or
//! one with a model type posgeo does not offer, gets a message naming what was found.
//!
//! **Word-local pipelines** (BERT's WordPiece, GPT-2's byte-level BPE, Unigram after
//! `Metaspace` and NFKC-like or SentencePiece normalisers) are encoded chunk by chunk, each
//! distinct chunk once ([`chunks`], which states why the tokens are the whole text's); other
//! pipelines (e.g. Llama's, normalisers that act across spaces, BPE with dropout) are encoded
//! whole.
//!
//! The crate is given the file's numbers as the Python package reads them (`json_numbers`):
//! a Unigram segmentation tie (`. ...` against `... .`) is decided by a score's last bit.

mod chunks;
mod metaspace;

use crate::error::{PosgeoError, Result};
use chunks::{Chunking, Cut};
use std::sync::Arc;

/// Content tokens a prefix must hold beyond the positions counted (see
/// `ModelTokenizer::first_tokens`).
const PREFIX_MARGIN: usize = 16;
/// First guess of a prefix's length in bytes per token wanted.
const PREFIX_BYTES_PER_TOKEN: usize = 4;

/// The byte index of the first whitespace character at or after byte `from`, when it leaves
/// a non-empty prefix; `None` when the text is no longer than that (encode all of it).
fn whitespace_cut(seq: &str, from: usize) -> Option<usize> {
    if from >= seq.len() {
        return None;
    }
    let start = (from..seq.len()).find(|&i| seq.is_char_boundary(i))?;
    seq[start..].find(char::is_whitespace).map(|i| start + i).filter(|&i| i > 0)
}

/// The model types posgeo offers (the `"type"` of the file's `"model"` object).
pub const SUPPORTED: [&str; 3] = ["WordPiece", "BPE", "Unigram"];

/// A loaded `tokenizer.json`.
#[derive(Clone)]
pub struct ModelTokenizer {
    inner: Arc<tokenizers::Tokenizer>,
    /// Token string of every id (encoding without offsets gives ids only).
    strings: Arc<Vec<String>>,
    /// File name (for messages and reports).
    pub name: String,
    /// `WordPiece`, `BPE` or `Unigram`.
    pub model_type: String,
    /// Vocabulary size, added tokens included.
    pub vocab_size: usize,
    /// FNV-1a hash of the file's bytes: two tokenizers are the same when their files are.
    pub digest: u64,
    /// How a word-local pipeline's texts are encoded by chunks ([`chunks`]).
    chunking: Option<Arc<Chunking>>,
    /// A vocabulary of residues ([`residue_vocabulary`]): a sequence is read one residue a
    /// word, as protein models such as ProtBERT were trained.
    pub residues: bool,
}

/// Whether a WordPiece vocabulary is one of residues (ProtBERT's `vocab.txt`): no `##` pieces,
/// every token that is not a bracketed special (`[PAD]`, `<mask>`) one character, and at least
/// four of those.
fn residue_vocabulary(model_type: &str, strings: &[String]) -> bool {
    let special = |t: &str| (t.starts_with('[') && t.ends_with(']')) || (t.starts_with('<') && t.ends_with('>'));
    let ordinary: Vec<&String> = strings.iter().filter(|t| !t.is_empty() && !special(t)).collect();
    model_type == "WordPiece" && ordinary.len() >= 4 && ordinary.iter().all(|t| t.chars().count() == 1)
}

impl std::fmt::Debug for ModelTokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ModelTokenizer({}, {}, {} types)", self.name, self.model_type, self.vocab_size)
    }
}

impl PartialEq for ModelTokenizer {
    fn eq(&self, other: &Self) -> bool {
        self.digest == other.digest
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

fn bad(name: &str, message: impl std::fmt::Display) -> PosgeoError {
    PosgeoError::BadTokenizer(format!("{name}: {message}"))
}

/// What the file's JSON says its model is, before the crate reads it, and where a word-local
/// pipeline's texts may be cut.
fn model_type(name: &str, bytes: &[u8]) -> Result<(String, Option<Cut>)> {
    let json: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| {
        let head = String::from_utf8_lossy(&bytes[..bytes.len().min(24)]).into_owned();
        bad(name, format!("not a tokenizer.json: it is not JSON ({e}); it starts with {head:?}"))
    })?;
    let Some(model) = json.get("model") else {
        let keys: Vec<String> = json.as_object().map(|o| o.keys().take(8).cloned().collect()).unwrap_or_default();
        return Err(bad(
            name,
            format!("not a tokenizer.json: no \"model\" object (the JSON has {})", describe_keys(&keys)),
        ));
    };
    if let Err(e) = precompiled_readable(json.get("normalizer")) {
        // (The crate panics on such a file instead of saying so.)
        let e: String = e.to_string().chars().take(160).collect();
        return Err(bad(name, format!("its SentencePiece (Precompiled) normaliser cannot be read: {e}")));
    }
    // Files written by older versions may leave the type out: the crate then guesses it from
    // the model's fields, as the Python package does.
    let found = match model.get("type").and_then(|t| t.as_str()) {
        Some(t) => t.to_string(),
        None if model.get("vocab").is_some_and(|v| v.is_array()) => "Unigram".into(),
        None if model.get("merges").is_some() => "BPE".into(),
        None if model.get("continuing_subword_prefix").is_some() => "WordPiece".into(),
        None => return Err(bad(name, "not a tokenizer.json: its \"model\" has no \"type\"")),
    };
    if !SUPPORTED.contains(&found.as_str()) {
        return Err(bad(
            name,
            format!("model type {found:?} is not supported (posgeo reads {})", SUPPORTED.join(", ")),
        ));
    }
    let cut = chunks::cut_of(&json, &found);
    Ok((found, cut))
}

/// Every `Precompiled` normaliser in `n` (alone or in a sequence) read as the crate reads it.
fn precompiled_readable(n: Option<&serde_json::Value>) -> std::result::Result<(), serde_json::Error> {
    let Some(n) = n else { return Ok(()) };
    match n.get("type").and_then(serde_json::Value::as_str) {
        // (As the crate reads it: from text, the charsmap borrowed.)
        Some("Precompiled") => serde_json::from_str::<tokenizers::normalizers::Precompiled>(&n.to_string()).map(|_| ()),
        Some("Sequence") => n
            .get("normalizers")
            .and_then(serde_json::Value::as_array)
            .map_or(Ok(()), |a| a.iter().try_for_each(|s| precompiled_readable(Some(s)))),
        _ => Ok(()),
    }
}

fn describe_keys(keys: &[String]) -> String {
    if keys.is_empty() {
        "no keys".into()
    } else {
        format!("keys {}", keys.join(", "))
    }
}

impl ModelTokenizer {
    /// Reads a `tokenizer.json` (`name` is used in messages).
    pub fn from_bytes(name: &str, bytes: &[u8]) -> Result<Self> {
        if super::is_gzip(bytes) {
            let plain = super::gunzip_within_budget(bytes)?;
            if super::is_gzip(&plain) {
                return Err(bad(name, "a gzip file inside a gzip file: decompress it first"));
            }
            return Self::from_bytes(name, &plain);
        }
        crate::limits::check(&format!("the tokenizer {name}"), bytes.len() as u64 * 8)?;
        let (model_type, cut) = model_type(name, bytes)?;
        let mut inner = tokenizers::Tokenizer::from_bytes(super::json_numbers::as_the_package_reads(bytes))
            .map_err(|e| bad(name, format!("a {model_type} tokenizer.json the tokenizers library cannot read: {e}")))?;
        inner.with_padding(None);
        inner.with_truncation(None).map_err(|e| bad(name, e))?;
        let vocab = inner.get_vocab(true);
        let top = vocab.values().copied().max().map_or(0, |m| m as usize + 1);
        crate::limits::check(&format!("the vocabulary of {name}"), top as u64 * 32)?;
        let mut strings = vec![String::new(); top];
        for (token, id) in vocab {
            strings[id as usize] = token;
        }
        let chunking = cut.and_then(|cut| Chunking::of(&inner, cut)).map(Arc::new);
        let residues = residue_vocabulary(&model_type, &strings);
        Ok(ModelTokenizer {
            residues,
            inner: Arc::new(inner),
            strings: Arc::new(strings),
            name: name.to_string(),
            model_type,
            vocab_size: top,
            digest: fnv1a(bytes),
            chunking,
        })
    }

    /// Whether chunks are encoded once each (a word-local pipeline, [`chunks`]).
    pub fn encodes_chunks(&self) -> bool {
        self.chunking.is_some()
    }

    /// The chunking that applies to `seq`, if any.
    fn chunked(&self, seq: &str) -> Option<&Chunking> {
        self.chunking.as_deref().filter(|c| !c.whole(seq))
    }

    /// The ids of the first `limit` tokens of `seq` (named by [`Self::token`]): what a model
    /// reads (docs/MATH.md §14); special tokens as the tokenizer's post-processor adds them when
    /// `special` is on. A sequence the tokenizer cannot encode yields no token (it counts like
    /// an empty line).
    pub fn ids(&self, seq: &str, special: bool, limit: usize) -> Vec<u32> {
        if self.residues && !seq.contains(char::is_whitespace) {
            // One residue a word (ProtBERT's "M K V …"): only the first `limit` can be read.
            let spaced: Vec<String> = seq.chars().take(limit).map(String::from).collect();
            return self.ids(&spaced.join(" "), special, limit);
        }
        match self.chunked(seq) {
            Some(c) => c.ids(&self.inner, self.digest, seq, special, limit),
            None => self
                .first_tokens(seq, special, limit)
                .map_or_else(Vec::new, |e| e.get_ids()[..limit.min(e.len())].to_vec()),
        }
    }

    /// The vocabulary's name for token id `id` ("" when it has none).
    pub fn token(&self, id: u32) -> &str {
        self.strings.get(id as usize).map_or("", String::as_str)
    }

    /// An encoding whose first `limit` tokens are those of the whole sequence's, without
    /// encoding all of a long document: a prefix ending just before a whitespace character
    /// is encoded, and accepted once it holds [`PREFIX_MARGIN`] content tokens more than
    /// `limit` (else a prefix twice as long, up to the whole text). Pre-tokenisers split at
    /// whitespace, so the tokens before the cut are the whole text's; the margin keeps any
    /// effect at the cut (and the closing special tokens) past the positions counted.
    fn first_tokens(&self, seq: &str, special: bool, limit: usize) -> Option<tokenizers::Encoding> {
        let mut want = limit.saturating_add(PREFIX_MARGIN).saturating_mul(PREFIX_BYTES_PER_TOKEN);
        loop {
            let Some(cut) = whitespace_cut(seq, want) else { return self.inner.encode_fast(seq, special).ok() };
            let enc = self.inner.encode_fast(&seq[..cut], special).ok()?;
            let content = enc.get_special_tokens_mask().iter().filter(|&&m| m == 0).count();
            if content >= limit.saturating_add(PREFIX_MARGIN) {
                return Some(enc);
            }
            want = cut.saturating_mul(2);
        }
    }

    /// One line describing it: "tokenizer.json (WordPiece, 30522 types)".
    pub fn describe(&self) -> String {
        format!("{} ({}, {} types)", self.name, self.model_type, self.vocab_size)
    }
}

/// `seq` cut before each space at a byte i > 0 for which `cut(i)` holds, the space kept with
/// what follows; no chunk is empty. Both [`chunks`] and [`metaspace`] cut this way.
fn cut_before_spaces(seq: &str, cut: impl Fn(usize) -> bool) -> impl Iterator<Item = &str> {
    let b = seq.as_bytes();
    let mut cuts = memchr::memchr_iter(b' ', b).filter(move |&i| i > 0 && cut(i));
    let mut start = 0;
    std::iter::from_fn(move || {
        (start < b.len()).then(|| {
            let end = cuts.next().unwrap_or(b.len());
            let chunk = &seq[start..end];
            start = end;
            chunk
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::WORDPIECE;

    fn tokens(t: &ModelTokenizer, s: &str, special: bool) -> Vec<String> {
        first_tokens(t, s, special, usize::MAX)
    }

    fn first_tokens(t: &ModelTokenizer, s: &str, special: bool, limit: usize) -> Vec<String> {
        t.ids(s, special, limit).into_iter().map(|id| t.token(id).to_string()).collect()
    }

    #[test]
    fn wordpiece_with_special_tokens_no_truncation_and_its_own_case() {
        let t = ModelTokenizer::from_bytes("t.json", WORDPIECE.as_bytes()).unwrap();
        assert_eq!(t.model_type, "WordPiece");
        assert_eq!(tokens(&t, "The dog bites MAN!", true), ["[CLS]", "the", "dog", "bit", "##es", "man", "!", "[SEP]"]);
        assert_eq!(tokens(&t, "The dog bites zebra", false), ["the", "dog", "bit", "##es", "[UNK]"]);
        assert!(tokens(&t, "   ", false).is_empty());
        assert_eq!(first_tokens(&t, "the dog the dog", true, 2), ["[CLS]", "the"]);
    }

    #[test]
    fn a_word_local_pipeline_encodes_chunks_and_gives_the_whole_texts_tokens() {
        let t = ModelTokenizer::from_bytes("t.json", WORDPIECE.as_bytes()).unwrap();
        assert!(t.encodes_chunks());
        let whole = |s: &str, special: bool| {
            let enc = t.inner.encode_fast(s, special).unwrap();
            enc.get_ids().iter().map(|&id| t.strings[id as usize].clone()).collect::<Vec<_>>()
        };
        for s in ["The dog bites MAN!", "  the\tdog  bites\u{a0}man ", "", "   ", "[CLS] the [SEP]dog", "dog!the,man"] {
            for special in [true, false] {
                assert_eq!(tokens(&t, s, special), whole(s, special), "{s:?} {special}");
            }
        }
        let other = WORDPIECE.replace(r#"{"type":"BertPreTokenizer"}"#, r#"{"type":"Whitespace"}"#);
        assert!(!ModelTokenizer::from_bytes("w.json", other.as_bytes()).unwrap().encodes_chunks());
    }

    #[test]
    fn files_that_are_not_tokenizers_are_named() {
        let e = ModelTokenizer::from_bytes("x.json", b"\x89PNG\r\n").unwrap_err().to_string();
        assert!(e.contains("x.json") && e.contains("not JSON") && e.contains("PNG"), "{e}");
        let e = ModelTokenizer::from_bytes("c.json", br#"{"architectures":["BertModel"],"hidden_size":384}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no \"model\" object") && e.contains("architectures"), "{e}");
        let wl = WORDPIECE.replace(r#""type":"WordPiece""#, r#""type":"WordLevel""#);
        let e = ModelTokenizer::from_bytes("w.json", wl.as_bytes()).unwrap_err().to_string();
        assert!(e.contains("\"WordLevel\" is not supported"), "{e}");
        let broken = WORDPIECE.replace(r#""unk_token":"[UNK]","#, r#""unk_token":7,"#);
        let e = ModelTokenizer::from_bytes("b.json", broken.as_bytes()).unwrap_err().to_string();
        assert!(e.contains("b.json") && e.contains("cannot read"), "{e}");
    }
}
