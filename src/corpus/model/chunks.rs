//! Word-local pipelines: a text's tokens as the tokens of its chunks, each distinct chunk
//! encoded once by the pipeline itself (a per-thread cache), then the post-processor's prefix
//! and suffix around them. Two pipelines are provably word-local; every other one is encoded
//! whole.
//!
//! - **BERT's** (`BertNormalizer`, `BertPreTokenizer`, `WordPiece`): the normaliser works
//!   character by character, a space stays a space and the pre-tokeniser splits there, so the
//!   chunks are the texts between spaces ([`Cut::Spaces`]).
//! - **GPT-2's byte-level BPE** (no normaliser, the `ByteLevel` pre-tokeniser with its regex,
//!   `BPE` without dropout; GPT-2, RoBERTa, BART, OPT …). The regex
//!   `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+` is matched
//!   left to right and BPE runs on each match alone. Take a space at byte i > 0 followed by a
//!   visible ASCII character (so by a non-space). No match that starts before i holds it: the
//!   letter, digit and symbol alternatives hold a space only as their first character, and a
//!   run of whitespace reaching i is followed by a non-space, so `\s+(?!\S)` gives it back.
//!   So a match starts at i. Matching has no look-behind, and its look-ahead and greedy runs
//!   stop at that space as they stop at the end of a text. So the text's matches are its
//!   chunks' matches, the chunks cut before each such space ([`Cut::ByteLevel`], the space
//!   kept with what follows). `add_prefix_space` acts on the first chunk as on the text, and
//!   the others already start with a space.
//!
//! Added tokens (`<mask>`, `<|endoftext|>`) are split off before the pipeline runs, and their
//! `lstrip`/`rstrip` take spaces from their neighbours, across a cut. A byte-level text that
//! holds an added token's text is therefore encoded whole. No pipeline with an added token
//! containing a space is word-local.

use rustc_hash::FxHashMap;
use serde_json::Value;
use std::cell::RefCell;

/// Chunks kept per thread before the cache starts afresh.
const CACHE_CAP: usize = 1 << 20;

/// Chunk → token ids.
type ChunkIds = FxHashMap<Box<str>, Box<[u32]>>;

thread_local! {
    /// The chunks of the tokenizer whose digest is the first field.
    static CHUNKS: RefCell<(u64, ChunkIds)> = RefCell::new((0, ChunkIds::default()));
}

/// Where a word-local pipeline's text is cut into chunks (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    /// BERT's: at every space, the spaces dropped.
    Spaces,
    /// GPT-2's byte-level BPE: before every space followed by a visible ASCII character.
    ByteLevel,
}

/// Which cut, if any, the file's pipeline allows (module docs); `model` is the model type
/// found (the file may leave it out).
pub fn cut_of(json: &Value, model: &str) -> Option<Cut> {
    let kind = |key: &str| json.get(key).and_then(|v| v.get("type")).and_then(Value::as_str);
    let spaced = json
        .get("added_tokens")
        .and_then(Value::as_array)
        .is_some_and(|a| a.iter().any(|t| t.get("content").and_then(Value::as_str).is_some_and(|c| c.contains(' '))));
    let field = |key: &str, name: &str| json.get(key).and_then(|v| v.get(name));
    let regex = field("pre_tokenizer", "use_regex").and_then(Value::as_bool).unwrap_or(true);
    let dropout = field("model", "dropout").is_some_and(|d| !d.is_null());
    let no_normaliser = json.get("normalizer").is_none_or(Value::is_null);
    if spaced {
        None
    } else if kind("normalizer") == Some("BertNormalizer")
        && kind("pre_tokenizer") == Some("BertPreTokenizer")
        && kind("model") == Some("WordPiece")
    {
        Some(Cut::Spaces)
    } else if no_normaliser && kind("pre_tokenizer") == Some("ByteLevel") && regex && model == "BPE" && !dropout {
        Some(Cut::ByteLevel)
    } else {
        None
    }
}

/// How a word-local pipeline's texts are encoded by chunks.
#[derive(Debug, Clone, PartialEq)]
pub struct Chunking {
    cut: Cut,
    /// The special tokens the post-processor puts before and after a text's tokens.
    prefix: Vec<u32>,
    suffix: Vec<u32>,
    /// Texts of added tokens: a byte-level text holding one is encoded whole.
    guards: Vec<String>,
}

impl Chunking {
    /// The chunking of `t`, whose file allows `cut`: `None` when the post-processor's special
    /// tokens do not surround a probe word as they surround an empty text.
    pub fn of(t: &tokenizers::Tokenizer, cut: Cut) -> Option<Self> {
        let ids = |s: &str, special: bool| t.encode_fast(s, special).ok().map(|e| e.get_ids().to_vec());
        let (with, without) = (ids("a", true)?, ids("a", false)?);
        let at = (0..=with.len().checked_sub(without.len())?).find(|&i| with[i..i + without.len()] == without[..])?;
        let (prefix, suffix) = (with[..at].to_vec(), with[at + without.len()..].to_vec());
        (ids("", true)? == [&prefix[..], &suffix[..]].concat()).then_some(())?;
        let guards = match cut {
            Cut::Spaces => Vec::new(),
            Cut::ByteLevel => {
                t.get_added_tokens_decoder().into_values().map(|a| a.content).filter(|c| !c.is_empty()).collect()
            }
        };
        Some(Chunking { cut, prefix, suffix, guards })
    }

    /// Whether `seq` must be encoded whole (it holds an added token's text).
    pub fn whole(&self, seq: &str) -> bool {
        self.guards.iter().any(|g| memchr::memmem::find(seq.as_bytes(), g.as_bytes()).is_some())
    }

    /// Calls `f` with the first `limit` token ids of `seq` (not [`Self::whole`]): the prefix
    /// when `special`, each chunk's (from the cache of the tokenizer whose file has `digest`,
    /// or encoded by `t`), the suffix when `special`.
    pub fn for_each(
        &self,
        t: &tokenizers::Tokenizer,
        digest: u64,
        seq: &str,
        special: bool,
        limit: usize,
        f: &mut dyn FnMut(u32),
    ) {
        let mut left = limit;
        let mut emit = |ids: &[u32], left: &mut usize| {
            for &id in ids.iter().take(*left) {
                f(id);
            }
            *left -= ids.len().min(*left);
        };
        if special {
            emit(&self.prefix, &mut left);
        }
        CHUNKS.with(|c| {
            let mut c = c.borrow_mut();
            if c.0 != digest || c.1.len() > CACHE_CAP {
                *c = (digest, ChunkIds::default());
            }
            let mut chunk = |chunk: &str| {
                if let Some(ids) = c.1.get(chunk) {
                    emit(ids, &mut left);
                } else {
                    let ids: Box<[u32]> = t.encode_fast(chunk, false).map(|e| e.get_ids().into()).unwrap_or_default();
                    emit(&ids, &mut left);
                    c.1.insert(chunk.into(), ids);
                }
                left > 0
            };
            match self.cut {
                Cut::Spaces => _ = seq.split(' ').filter(|w| !w.is_empty()).all(&mut chunk),
                Cut::ByteLevel => _ = byte_level_chunks(seq).all(&mut chunk),
            }
        });
        if special {
            emit(&self.suffix, &mut left);
        }
    }
}

/// `seq` cut before each space at a byte i > 0 that a visible ASCII character follows
/// ([`Cut::ByteLevel`]); no chunk is empty.
pub fn byte_level_chunks(seq: &str) -> impl Iterator<Item = &str> {
    let b = seq.as_bytes();
    let mut cuts =
        memchr::memchr_iter(b' ', b).filter(move |&i| i > 0 && b.get(i + 1).is_some_and(u8::is_ascii_graphic));
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
    use super::super::ModelTokenizer;
    use super::*;

    /// A RoBERTa-style tokenizer.json: byte-level BPE over GPT-2's 256 byte characters and a
    /// few merges, `<s> … </s>`, and `<mask>` taking the spaces on either side.
    fn roberta(prefix_space: bool) -> String {
        let printable = |b: u32| (33..=126).contains(&b) || (161..=172).contains(&b) || (174..=255).contains(&b);
        let mut extra = 0;
        let chars: Vec<char> = (0..256u32)
            .map(|b| {
                char::from_u32(if printable(b) {
                    b
                } else {
                    extra += 1;
                    255 + extra
                })
                .unwrap_or('?')
            })
            .collect();
        let mut vocab: Vec<String> = ["<s>", "<pad>", "</s>", "<mask>"].iter().map(|s| s.to_string()).collect();
        vocab.extend(chars.iter().map(|c| c.to_string()));
        let merges = [("Ġ", "t"), ("h", "e"), ("Ġt", "he"), ("'", "s"), ("Ġ", "Ġ"), ("1", "2"), ("Ã", "©")];
        vocab.extend(merges.iter().map(|(a, b)| format!("{a}{b}")));
        let vocab: Vec<String> =
            vocab.iter().enumerate().map(|(i, t)| format!("{}:{i}", serde_json::json!(t))).collect();
        let merges: Vec<String> =
            merges.iter().map(|(a, b)| serde_json::json!(format!("{a} {b}")).to_string()).collect();
        let added = |id: u32, s: &str, strip: bool| {
            format!(
                r#"{{"id":{id},"content":"{s}","single_word":false,"lstrip":{strip},"rstrip":{strip},"normalized":false,"special":true}}"#
            )
        };
        format!(
            r#"{{"version":"1.0","truncation":null,"padding":null,"added_tokens":[{},{},{}],"normalizer":null,
            "pre_tokenizer":{{"type":"ByteLevel","add_prefix_space":{prefix_space},"trim_offsets":true,"use_regex":true}},
            "post_processor":{{"type":"RobertaProcessing","sep":["</s>",2],"cls":["<s>",0],"trim_offsets":true,"add_prefix_space":{prefix_space}}},
            "decoder":null,"model":{{"type":"BPE","dropout":null,"unk_token":null,"continuing_subword_prefix":null,
            "end_of_word_suffix":null,"fuse_unk":false,"byte_fallback":false,"ignore_merges":false,
            "vocab":{{{}}},"merges":[{}]}}}}"#,
            added(0, "<s>", false),
            added(2, "</s>", false),
            added(3, "<mask>", true),
            vocab.join(","),
            merges.join(",")
        )
    }

    #[test]
    fn byte_level_chunks_cut_before_a_space_that_a_visible_ascii_character_follows() {
        fn cut(s: &str) -> Vec<&str> {
            byte_level_chunks(s).collect()
        }
        assert_eq!(cut("the cat's  hat"), ["the", " cat's ", " hat"]);
        assert_eq!(cut(" a\t b  \u{a0}c "), [" a\t", " b  \u{a0}c "]);
        assert!(cut("").is_empty());
        assert_eq!(cut("   "), ["   "]);
    }

    #[test]
    fn byte_level_bpe_by_chunks_gives_the_whole_texts_tokens() {
        // Against the pipeline run on the whole text, on texts built from pieces where the
        // regex and the cut could disagree: runs of mixed whitespace, contractions, digits,
        // non-ASCII letters and spaces, and the added token that strips spaces.
        let pieces = [
            " ", " ", "  ", "\t", "\u{a0}", "\u{3000}", "the", "The", "'s", "'", "s", "12", "é", ".", "!?", "東京",
            "<mask>", "<s>", "\n",
        ];
        for prefix_space in [false, true] {
            let t = ModelTokenizer::from_bytes("r.json", roberta(prefix_space).as_bytes()).unwrap();
            assert!(t.encodes_chunks());
            let mut state = 0x2545_f491_4f6c_dd1du64;
            for k in 0..3000 {
                let len = k % 12;
                let s: String = (0..len)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        pieces[(state % pieces.len() as u64) as usize]
                    })
                    .collect();
                for special in [true, false] {
                    let whole = t.inner.encode_fast(s.as_str(), special).unwrap().get_ids().to_vec();
                    assert_eq!(t.ids(&s, special, usize::MAX), whole, "{s:?} special {special} prefix {prefix_space}");
                    assert_eq!(t.ids(&s, special, 3), whole[..3.min(whole.len())], "{s:?}");
                }
            }
        }
    }

    #[test]
    fn only_provably_word_local_pipelines_are_cut() {
        let file = roberta(false);
        let read = |s: &str| ModelTokenizer::from_bytes("r.json", s.as_bytes()).unwrap().encodes_chunks();
        assert!(read(&file));
        assert!(!read(&file.replace(r#""normalizer":null"#, r#""normalizer":{"type":"Lowercase"}"#)));
        assert!(!read(&file.replace(r#""use_regex":true"#, r#""use_regex":false"#)));
        assert!(!read(&file.replace(r#""dropout":null"#, r#""dropout":0.1"#)));
        assert!(!read(&file.replace(r#""content":"<mask>""#, r#""content":"<ma sk>""#)));
    }
}
