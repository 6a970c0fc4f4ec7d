//! Sequences → tokens (docs/MATH.md §1).
//!
//! * `whitespace`: the tokens of `str::split_whitespace` (found by [`super::split`]).
//! * `words` (default): Unicode word boundaries, UAX #29 (`unicode_words`; ASCII text by
//!   [`super::words`], which gives the same words).
//! * `chars`: every Unicode scalar value, spaces included.
//! * `kmer`: non-overlapping runs of k Unicode scalar values (k ≥ 1, option `kmer`: codons at
//!   k = 3); a tail shorter than k is dropped. At k = 1 it is `chars`.
//!
//! `lowercase` (default on for `whitespace` and `words`, off for `chars` and `kmer`) applies
//! `str::to_lowercase` to each token. The optional begin marker prefixes every sequence
//! with [`BOS`]. Only the first `limit` tokens of a sequence are produced, so a long
//! document costs only what is used.
//!
//! * `model`: a model's own Hugging Face `tokenizer.json` ([`super::hf_tokenizer`]); special tokens
//!   as its post-processor adds them unless `special_tokens` is off; `lowercase` does not
//!   apply (the tokenizer's normaliser decides case).
//!
//! Nothing else in the pipeline depends on the tokenizer.

use serde::{Deserialize, Serialize};
use unicode_segmentation::UnicodeSegmentation;

/// The begin-of-sequence marker token.
pub const BOS: &str = "<bos>";

/// Which tokenizer splits a sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum TokenizerKind {
    /// `str::split_whitespace`.
    Whitespace,
    /// UAX #29 words.
    #[default]
    Words,
    /// Unicode scalar values.
    Chars,
    /// Non-overlapping k-mers of Unicode scalar values.
    Kmer,
    /// A model's `tokenizer.json`.
    Model,
}

impl TokenizerKind {
    /// The name in URLs, reports and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Whitespace => "whitespace",
            Self::Words => "words",
            Self::Chars => "chars",
            Self::Kmer => "kmer",
            Self::Model => "model",
        }
    }

    /// The lowercase switch's default (docs/MATH.md §1).
    pub fn lowercase_by_default(self) -> bool {
        !matches!(self, TokenizerKind::Chars | TokenizerKind::Kmer | TokenizerKind::Model)
    }

    /// Parses a CLI/URL name.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "whitespace" => Some(Self::Whitespace),
            "words" => Some(Self::Words),
            "chars" => Some(Self::Chars),
            "kmer" => Some(Self::Kmer),
            "model" => Some(Self::Model),
            _ => None,
        }
    }
}

/// A configured tokenizer.
#[derive(Debug, Clone, PartialEq)]
pub struct Tokenizer {
    /// Splitting rule.
    pub kind: TokenizerKind,
    /// Lowercase each token.
    pub lowercase: bool,
    /// Prefix every sequence with [`BOS`].
    pub bos: bool,
    /// The model tokenizer (`kind` = `Model`; without one, no tokens).
    pub model: Option<super::hf_tokenizer::ModelTokenizer>,
    /// Model tokenizers: add the post-processor's special tokens.
    pub special_tokens: bool,
    /// k of `kmer` (ignored by the other kinds; 0 counts as 1).
    pub kmer: usize,
}

impl Tokenizer {
    /// About how many tokens a sequence of `bytes` bytes gives (the room counting reserves):
    /// one a byte for `chars` (exact for ASCII residues), one per k bytes for `kmer`, and one
    /// per 4 bytes otherwise (natural text has about 5 with its separator).
    pub fn token_guess(&self, bytes: usize) -> usize {
        let marker = usize::from(self.bos);
        marker
            + match self.kind {
                TokenizerKind::Chars => bytes,
                TokenizerKind::Kmer => bytes / self.kmer.max(1),
                _ => bytes / 4 + 1,
            }
    }

    /// Calls `f` with each of the first `limit` tokens of `seq` (the marker included).
    pub fn for_each_token(&self, seq: &str, limit: usize, mut f: impl FnMut(&str)) {
        self.for_each_keyed_token(seq, limit, |tok, _| f(tok));
    }

    /// [`Self::for_each_token`], each token with a key it is a function of — its id in the
    /// model tokenizer that gave it, a character's scalar value for `chars` (`None` for every
    /// other token) —, so a count may look the key up instead of the text. One tokenizer's
    /// keys are never mixed with another's.
    pub fn for_each_keyed_token(&self, seq: &str, limit: usize, mut f: impl FnMut(&str, Option<u32>)) {
        let mut left = limit;
        if left == 0 {
            return;
        }
        if self.bos {
            f(BOS, None);
            left -= 1;
        }
        let mut buf = String::new();
        let f = &mut f;
        let mut text = |tok: &str| f(tok, None);
        // Each kind's loop calls `emit` inlined, so `f` is inlined into it.
        match self.kind {
            TokenizerKind::Whitespace => {
                super::split::for_each_whitespace_token(seq, left, |tok, cased| {
                    self.emit_cased(tok, cased, &mut buf, &mut text)
                });
            }
            TokenizerKind::Words if seq.is_ascii() => super::words::for_each_ascii_word(seq, left, |tok, cased| {
                self.emit_cased(tok, cased, &mut buf, &mut text)
            }),
            TokenizerKind::Words => seq.unicode_words().take(left).for_each(|tok| self.emit(tok, &mut buf, &mut text)),
            TokenizerKind::Model => {
                if let Some(m) = &self.model {
                    for id in m.ids(seq, self.special_tokens, left) {
                        self.emit(m.token(id), &mut buf, &mut |tok: &str| f(tok, Some(id)));
                    }
                }
            }
            TokenizerKind::Chars => {
                // A character's token is a function of its scalar value: that is its key.
                let mut tmp = [0u8; 4];
                for c in seq.chars().take(left) {
                    self.emit(c.encode_utf8(&mut tmp), &mut buf, &mut |tok: &str| f(tok, Some(c as u32)));
                }
            }
            TokenizerKind::Kmer => {
                for_each_kmer(seq, self.kmer.max(1), left, |tok| self.emit(tok, &mut buf, &mut text))
            }
        }
    }

    /// Passes `tok` to `f`, lowercased (in `buf`) when the switch is on and it needs it.
    #[inline(always)]
    fn emit(&self, tok: &str, buf: &mut String, f: &mut impl FnMut(&str)) {
        let cased = self.lowercase && tok.bytes().any(|b| b.is_ascii_uppercase() || !b.is_ascii());
        self.emit_cased(tok, cased, buf, f);
    }

    /// [`Self::emit`] told whether `tok` holds an ASCII capital or a non-ASCII character.
    #[inline(always)]
    fn emit_cased(&self, tok: &str, cased: bool, buf: &mut String, f: &mut impl FnMut(&str)) {
        if self.lowercase && cased {
            buf.clear();
            if tok.is_ascii() {
                // The same as `to_lowercase` for ASCII, without a new string per token.
                buf.push_str(tok);
                buf.make_ascii_lowercase();
            } else {
                buf.push_str(&tok.to_lowercase());
            }
            f(buf);
        } else {
            f(tok);
        }
    }

    /// An upper bound on the bytes of a sequence that its first `limit` tokens can read
    /// (`usize::MAX` where a token's length is not bounded: words, models).
    pub fn prefix_bytes(&self, limit: usize) -> usize {
        match self.kind {
            TokenizerKind::Chars => limit.saturating_mul(4),
            TokenizerKind::Kmer => limit.saturating_mul(self.kmer.max(1)).saturating_mul(4),
            TokenizerKind::Model if self.model.as_ref().is_some_and(|m| m.residues) => limit.saturating_mul(4),
            _ => usize::MAX,
        }
    }

    /// The first `limit` tokens of `seq`, owned (convenience for tests and small inputs).
    pub fn tokens(&self, seq: &str, limit: usize) -> Vec<String> {
        let mut out = Vec::new();
        self.for_each_token(seq, limit, |t| out.push(t.to_string()));
        out
    }
}

/// Calls `f` with each of the first `limit` non-overlapping runs of `k` scalar values of `seq`
/// (a tail shorter than `k` dropped).
fn for_each_kmer(seq: &str, k: usize, limit: usize, mut f: impl FnMut(&str)) {
    let (mut start, mut held, mut left) = (0, 0, limit);
    for (at, c) in seq.char_indices() {
        if left == 0 {
            return;
        }
        held += 1;
        if held == k {
            let end = at + c.len_utf8();
            f(&seq[start..end]);
            (start, held, left) = (end, 0, left - 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tk(kind: TokenizerKind, lowercase: bool, bos: bool) -> Tokenizer {
        Tokenizer { kind, lowercase, bos, model: None, special_tokens: true, kmer: 1 }
    }

    #[test]
    fn kmers_are_non_overlapping_and_drop_a_short_tail() {
        let k = |k: usize| Tokenizer { kmer: k, ..tk(TokenizerKind::Kmer, false, false) };
        assert_eq!(k(3).tokens("ATGGCCTA", 100), ["ATG", "GCC"]);
        assert_eq!(k(3).tokens("ATGGCCTA", 1), ["ATG"]);
        assert_eq!(k(2).tokens("éaβ", 100), ["éa"]);
        assert!(k(4).tokens("ATG", 100).is_empty());
        // At k = 1 it is `chars`, on any text, with and without the marker and a limit.
        let text = "MKV LLA*é\u{10348}x";
        for (bos, limit) in [(false, 100), (true, 100), (false, 3), (true, 2)] {
            let one = Tokenizer { kmer: 1, ..tk(TokenizerKind::Kmer, false, bos) };
            assert_eq!(one.tokens(text, limit), tk(TokenizerKind::Chars, false, bos).tokens(text, limit));
        }
    }

    #[test]
    fn words_follow_uax29_and_lowercase() {
        let t = tk(TokenizerKind::Words, true, false);
        assert_eq!(t.tokens("The cat's hat, isn't it?", 100), ["the", "cat's", "hat", "isn't", "it"]);
    }

    #[test]
    fn whitespace_keeps_punctuation() {
        let t = tk(TokenizerKind::Whitespace, false, true);
        assert_eq!(t.tokens("A  b,\tC", 100), ["<bos>", "A", "b,", "C"]);
        assert_eq!(t.tokens("A  b,\tC", 2), ["<bos>", "A"]);
    }

    #[test]
    fn lowercase_is_str_to_lowercase_for_every_token() {
        // ASCII tokens take a path of their own; non-ASCII ones (final sigma included) the
        // standard library's.
        let text = "The CAT's Hat, ÉCOLE ΟΔΟΣ Straße mIxEd 42 ÅngStröm İstanbul";
        let t = tk(TokenizerKind::Whitespace, true, false);
        let want: Vec<String> = text.split_whitespace().map(str::to_lowercase).collect();
        assert_eq!(t.tokens(text, 100), want);
        assert_eq!(t.tokens(text, 100)[..3], ["the", "cat's", "hat,"]);
    }

    #[test]
    fn chars_include_spaces_and_unicode() {
        let t = tk(TokenizerKind::Chars, false, false);
        assert_eq!(t.tokens("é a", 100), ["é", " ", "a"]);
        let t = tk(TokenizerKind::Chars, true, false);
        assert_eq!(t.tokens("ÉA", 100), ["é", "a"]);
    }
}
