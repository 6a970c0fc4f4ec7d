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
//!   visible ASCII character, a letter or a digit (so by a non-space: no White_Space
//!   character is any of these). No match that starts before i holds it: the
//!   letter, digit and symbol alternatives hold a space only as their first character, and a
//!   run of whitespace reaching i is followed by a non-space, so `\s+(?!\S)` gives it back.
//!   So a match starts at i. Matching has no look-behind, and its look-ahead and greedy runs
//!   stop at that space as they stop at the end of a text. So the text's matches are its
//!   chunks' matches, the chunks cut before each such space ([`Cut::ByteLevel`], the space
//!   kept with what follows). `add_prefix_space` acts on the first chunk as on the text, and
//!   the others already start with a space.
//!
//! - **Metaspace pipelines** (Unigram after NFKC-like or SentencePiece normalisers and
//!   `Metaspace`: T5, XLM-R, mBART …): cut before a space between two visible ASCII
//!   characters ([`Cut::Metaspace`]; [`super::metaspace`] says which files and why).
//!
//! A chunk the tokenizer fails on fails the text, which then yields no token, as whole. Chunks
//! of at most 64 bytes are kept, up to 32 MB per thread.
//!
//! Added tokens (`<mask>`, `<|endoftext|>`) are split off before the pipeline runs, and their
//! `lstrip`/`rstrip` take spaces from their neighbours, across a cut. A byte-level or
//! Metaspace text that holds an added token's text is therefore encoded whole. No pipeline with an added token
//! containing a space is word-local.

use rustc_hash::FxHashMap;
use serde_json::Value;
use std::cell::RefCell;

/// Bytes of chunks (and their ids) a thread's cache holds before it starts afresh.
const CACHE_BYTES: usize = 32 << 20;
/// Longer chunks are encoded each time, not kept (a line of a language without spaces is
/// one chunk).
const CACHE_CHUNK_BYTES: usize = 64;

/// Chunk → token ids, for the tokenizer whose file has `digest`, and the bytes they take.
#[derive(Default)]
struct Cache {
    digest: u64,
    ids: FxHashMap<Box<str>, Box<[u32]>>,
    bytes: usize,
}

thread_local! {
    static CHUNKS: RefCell<Cache> = RefCell::new(Cache::default());
}

/// Where a word-local pipeline's text is cut into chunks (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    /// BERT's: at every space, the spaces dropped.
    Spaces,
    /// GPT-2's byte-level BPE: before every space that a visible ASCII character, a letter or
    /// a digit follows.
    ByteLevel,
    /// Metaspace's: before every space between two visible ASCII characters.
    Metaspace,
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
    } else if super::metaspace::allows(json, model) {
        Some(Cut::Metaspace)
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
        (cut != Cut::Metaspace || super::metaspace::normaliser_keeps_the_cut(t)).then_some(())?;
        let guards = match cut {
            Cut::Spaces => Vec::new(),
            Cut::ByteLevel | Cut::Metaspace => {
                t.get_added_tokens_decoder().into_values().map(|a| a.content).filter(|c| !c.is_empty()).collect()
            }
        };
        Some(Chunking { cut, prefix, suffix, guards })
    }

    /// Whether `seq` must be encoded whole (it holds an added token's text).
    pub fn whole(&self, seq: &str) -> bool {
        self.guards.iter().any(|g| memchr::memmem::find(seq.as_bytes(), g.as_bytes()).is_some())
    }

    /// The first `limit` token ids of `seq` (not [`Self::whole`]): the prefix when `special`,
    /// each chunk's (from this thread's cache for the tokenizer whose file has `digest`, else
    /// encoded by `t`), the suffix when `special`. None when `t` fails on a chunk: it fails on
    /// the whole text then, which yields no token.
    pub fn ids(&self, t: &tokenizers::Tokenizer, digest: u64, seq: &str, special: bool, limit: usize) -> Vec<u32> {
        let mut out = Vec::new();
        let push = |ids: &[u32], out: &mut Vec<u32>| out.extend(ids.iter().take(limit.saturating_sub(out.len())));
        if special {
            push(&self.prefix, &mut out);
        }
        let mut failed = false;
        CHUNKS.with(|c| {
            let mut c = c.borrow_mut();
            if c.digest != digest || c.bytes > CACHE_BYTES {
                *c = Cache { digest, ..Cache::default() };
            }
            let mut chunk = |chunk: &str| {
                if out.len() >= limit {
                    return false;
                }
                if let Some(ids) = c.ids.get(chunk) {
                    push(ids, &mut out);
                    return true;
                }
                let Ok(e) = t.encode_fast(chunk, false) else {
                    failed = true;
                    return false;
                };
                push(e.get_ids(), &mut out);
                if chunk.len() <= CACHE_CHUNK_BYTES {
                    c.bytes += chunk.len() + 4 * e.get_ids().len() + 48;
                    c.ids.insert(chunk.into(), e.get_ids().into());
                }
                true
            };
            match self.cut {
                Cut::Spaces => _ = seq.split(' ').filter(|w| !w.is_empty()).all(&mut chunk),
                Cut::ByteLevel => _ = byte_level_chunks(seq).all(&mut chunk),
                Cut::Metaspace => _ = super::metaspace::chunks(seq).all(&mut chunk),
            }
        });
        if failed {
            return Vec::new();
        }
        if special {
            push(&self.suffix, &mut out);
        }
        out
    }
}

/// `seq` cut before each space at a byte i > 0 that a visible ASCII character, a letter or a
/// digit follows (never whitespace: see the module docs) ([`Cut::ByteLevel`]); no chunk is
/// empty.
pub fn byte_level_chunks(seq: &str) -> impl Iterator<Item = &str> {
    // (Byte i is a space, so i + 1 starts a character.)
    let visible = move |i: usize| {
        seq.get(i + 1..).and_then(|s| s.chars().next()).is_some_and(|c| c.is_ascii_graphic() || c.is_alphanumeric())
    };
    super::cut_before_spaces(seq, visible)
}

/// What the chunking tests share: random texts, and the check that chunks give the whole
/// text's ids.
#[cfg(test)]
pub(super) mod check {
    use super::super::ModelTokenizer;

    /// `len` pieces drawn by xorshift from `state`, joined.
    pub fn text(state: &mut u64, pieces: &[&str], len: usize) -> String {
        (0..len)
            .map(|_| {
                *state ^= *state << 13;
                *state ^= *state >> 7;
                *state ^= *state << 17;
                pieces[(*state % pieces.len() as u64) as usize]
            })
            .collect()
    }

    /// `t`'s ids of `s` by chunks equal the pipeline's on the whole text, with and without
    /// special tokens, whole and cut at `limits`.
    pub fn same_ids(t: &ModelTokenizer, s: &str, limits: &[usize], what: &str) {
        for special in [true, false] {
            let whole = t.inner.encode_fast(s, special).unwrap().get_ids().to_vec();
            assert_eq!(t.ids(s, special, usize::MAX), whole, "{what}: {s:?} special {special}");
            for &limit in limits {
                assert_eq!(t.ids(s, special, limit), whole[..limit.min(whole.len())], "{what}: {s:?} limit {limit}");
            }
        }
    }
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
        assert_eq!(cut("привет  мир 東京 -"), ["привет ", " мир", " 東京", " -"]);
        assert_eq!(cut(" a\t b  \u{a0}c "), [" a\t", " b  \u{a0}c "]);
        assert!(cut("").is_empty());
        assert_eq!(cut("   "), ["   "]);
    }

    #[test]
    fn byte_level_bpe_by_chunks_gives_the_whole_texts_tokens() {
        // Against the pipeline run on the whole text, on texts built from pieces where the
        // regex and the cut could disagree: runs of mixed whitespace, contractions, digits,
        // non-ASCII letters and spaces, and the added token that strips spaces.
        let long = "ы".repeat(40); // a chunk longer than the cache keeps
        let pieces = [
            " ", " ", "  ", "\t", "\u{a0}", "\u{3000}", "the", "The", "'s", "'", "s", "12", "é", ".", "!?", "東京",
            "мир", "Ⅻ", "<mask>", "<s>", "\n", &long,
        ];
        for prefix_space in [false, true] {
            let t = ModelTokenizer::from_bytes("r.json", roberta(prefix_space).as_bytes()).unwrap();
            assert!(t.encodes_chunks());
            let mut state = 0x2545_f491_4f6c_dd1du64;
            for k in 0..3000 {
                let s = super::check::text(&mut state, &pieces, k % 12);
                super::check::same_ids(&t, &s, &[0, 1, 3], &format!("prefix {prefix_space}"));
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
        for part in [r#""normalizer":null,"#, r#""model":{"type":"BPE","#] {
            assert!(file.contains(part), "{part}");
        }
        // No normaliser key at all is no normaliser; a model without its type is read as BPE.
        assert!(read(&file.replace(r#""normalizer":null,"#, "")));
        assert!(read(&file.replace(r#""model":{"type":"BPE","#, r#""model":{"#)));
        // The byte-level step inside a sequence of pre-tokenisers (Llama 3's) is not cut.
        let pre = r#"{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":true}"#;
        assert!(file.contains(pre));
        assert!(!read(&file.replace(pre, &format!(r#"{{"type":"Sequence","pretokenizers":[{pre}]}}"#))));
    }
}
