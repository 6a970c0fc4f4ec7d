//! **Metaspace pipelines by chunks** (Unigram, as T5 and XLM-R tokenizers trained by the
//! `tokenizers` library are): which files allow it, and where their texts are cut
//! ([`super::chunks::Cut::Metaspace`]).
//!
//! The pipeline: a normaliser made of NFC/NFD/NFKC/NFKD, `Lowercase`, `StripAccents`,
//! SentencePiece's `Precompiled` charsmap (files converted from SentencePiece models, as the
//! published T5 and XLM-R ones) and `Replace`s whose pattern is only spaces (a literal, or a
//! regex such as ` {2,}`), or holds no space and is replaced by a text that is not empty and
//! holds none (so that no step makes a space, or brings two together, next to a cut); then the `Metaspace` pre-tokeniser splitting at its replacement (alone, or after
//! `WhitespaceSplit`); then Unigram on each piece alone. Cut the text before each space at
//! byte i > 0 that a visible ASCII character precedes and follows, the space kept with what
//! follows. Then:
//!
//! - every normaliser step acts on each character, or each run of combining characters after
//!   a starter (`Precompiled` on each extended grapheme cluster, or each of its characters),
//!   and a visible ASCII character next to a space is a starter that nothing composes with
//!   and a grapheme boundary on either side of the space: no step's work crosses the cut. A `Replace` match holding no space cannot
//!   cross it (it would hold the space), nor can one of spaces only (it would hold the ASCII
//!   character before). So the normalised text is its chunks' normalised texts, joined; and
//!   the file is read only if its normaliser leaves the space alone and turns every visible
//!   ASCII character into visible ASCII characters (checked on the tokenizer itself);
//! - added tokens matched in the normalised text (`normalized`) may not take the spaces after
//!   them (`rstrip`: the space of a cut), nor hold a space once normalised; the others are
//!   matched in the text itself, which is encoded whole when it holds one;
//! - `Metaspace` replaces spaces by its replacement and splits before each; a chunk after the
//!   first starts with a space, so no scheme prepends anything to it, and the first chunk
//!   starts where the text does. `WhitespaceSplit` splits at the same spaces. So the pieces
//!   Unigram sees are the whole text's, and its tokens the chunks' tokens.

use serde_json::Value;

/// Whether the file's normaliser, pre-tokeniser and model are the Metaspace pipeline above
/// (`model` is the model type found).
pub fn allows(json: &Value, model: &str) -> bool {
    let dropout = json.get("model").and_then(|m| m.get("dropout")).is_some_and(|d| !d.is_null());
    model == "Unigram" && !dropout && normaliser(json.get("normalizer")) && pre_tokeniser(json.get("pre_tokenizer"))
}

/// A normaliser made of the steps the module docs name (none at all included).
fn normaliser(n: Option<&Value>) -> bool {
    let Some(n) = n.filter(|n| !n.is_null()) else { return true };
    match n.get("type").and_then(Value::as_str) {
        Some("NFC" | "NFD" | "NFKC" | "NFKD" | "Lowercase" | "StripAccents" | "Precompiled") => true,
        Some("Replace") => {
            n.get("pattern").is_some_and(|p| replace_pattern(p, n.get("content").and_then(Value::as_str)))
        }
        Some("Sequence") => {
            n.get("normalizers").and_then(Value::as_array).is_some_and(|a| a.iter().all(|s| normaliser(Some(s))))
        }
        _ => false,
    }
}

/// A `Replace` pattern that cannot cross a cut: a literal of spaces only or without a space,
/// or a regex of one or more spaces (` `, ` +`, ` {n,}`, ` {n,m}` with n ≥ 1).
fn replace_pattern(p: &Value, content: Option<&str>) -> bool {
    if let Some(s) = p.get("String").and_then(Value::as_str) {
        let spaces = |s: &str| s.chars().any(char::is_whitespace);
        let content = content.unwrap_or_default();
        return !s.is_empty()
            && (s.bytes().all(|b| b == b' ') || !(spaces(s) || content.is_empty() || spaces(content)));
    }
    let Some(r) = p.get("Regex").and_then(Value::as_str) else { return false };
    let rest = r.trim_start_matches(' ');
    let spaces = r.len() - rest.len();
    let counted = |q: &str| {
        let mut parts = q.splitn(2, ',');
        let low = parts.next().and_then(|l| l.parse::<usize>().ok());
        let high_ok = parts.next().is_some_and(|h| h.is_empty() || h.parse::<usize>().is_ok());
        low.is_some_and(|l| l >= 1 || spaces > 1) && high_ok
    };
    spaces >= 1
        && (rest.is_empty()
            || rest == "+"
            || rest.strip_prefix('{').and_then(|q| q.strip_suffix('}')).is_some_and(counted))
}

/// `Metaspace` splitting at its replacement, alone or after `WhitespaceSplit`.
fn pre_tokeniser(p: Option<&Value>) -> bool {
    let Some(p) = p else { return false };
    let metaspace = |m: &Value| {
        m.get("type").and_then(Value::as_str) == Some("Metaspace")
            && m.get("split").and_then(Value::as_bool).unwrap_or(true)
    };
    match p.get("type").and_then(Value::as_str) {
        Some("Metaspace") => metaspace(p),
        Some("Sequence") => match p.get("pretokenizers").and_then(Value::as_array).map(Vec::as_slice) {
            Some([m]) => metaspace(m),
            Some([w, m]) => w.get("type").and_then(Value::as_str) == Some("WhitespaceSplit") && metaspace(m),
            _ => false,
        },
        _ => false,
    }
}

/// Whether the tokenizer's normaliser leaves the space alone and turns each visible ASCII
/// character into visible ASCII characters, and its added tokens matched in the normalised
/// text neither take the spaces after them nor hold a space once normalised (module docs).
pub fn normaliser_keeps_the_cut(t: &tokenizers::Tokenizer) -> bool {
    use tokenizers::{NormalizedString, Normalizer};
    let Some(n) = t.get_normalizer() else { return true };
    let normal = |s: &str| {
        let mut s = NormalizedString::from(s);
        n.normalize(&mut s).ok().map(|()| s.get().to_string())
    };
    let added = t
        .get_added_tokens_decoder()
        .into_values()
        .filter(|a| a.normalized)
        .all(|a| !a.rstrip && normal(&a.content).is_some_and(|c| !c.chars().any(char::is_whitespace)));
    let ascii = |b: u8| {
        normal(&char::from(b).to_string()).is_some_and(|s| !s.is_empty() && s.bytes().all(|c| c.is_ascii_graphic()))
    };
    added && normal(" ").as_deref() == Some(" ") && (b'!'..=b'~').all(ascii)
}

/// `seq` cut before each space at a byte i > 0 between two visible ASCII characters; no chunk
/// is empty.
pub fn chunks(seq: &str) -> impl Iterator<Item = &str> {
    let visible = |i: usize| seq.as_bytes().get(i).is_some_and(u8::is_ascii_graphic);
    super::cut_before_spaces(seq, move |i| visible(i - 1) && visible(i + 1))
}

#[cfg(test)]
mod tests {
    use super::super::ModelTokenizer;
    use serde_json::json;

    /// A T5/XLM-R-style tokenizer.json: Unigram over a few pieces, `normalizer` and
    /// `pre_tokenizer` as given, `</s>` after a text, `<mask>` taking the spaces around it.
    fn unigram(normalizer: serde_json::Value, pre_tokenizer: serde_json::Value) -> String {
        unigram_with(normalizer, pre_tokenizer, (true, true, false))
    }

    /// [`unigram`] with `<mask>`'s `lstrip`, `rstrip` and `normalized` as given.
    fn unigram_with(
        normalizer: serde_json::Value,
        pre_tokenizer: serde_json::Value,
        mask: (bool, bool, bool),
    ) -> String {
        let mut vocab = vec![json!(["<unk>", 0.0]), json!(["</s>", 0.0]), json!(["<mask>", 0.0])];
        let pieces =
            ["▁", "▁the", "the", "▁a", "a", "t", "h", "e", "s", "'", ".", "...", "▁.", "é", "e\u{301}", "東", "京"];
        for (k, p) in pieces.iter().enumerate() {
            vocab.push(json!([p, -1.0 - (k as f64 * 0.37) % 3.0]));
        }
        let added = |id: u32, s: &str, (lstrip, rstrip, normalized): (bool, bool, bool)| json!({"id": id, "content": s, "single_word": false, "lstrip": lstrip, "rstrip": rstrip, "normalized": normalized, "special": true});
        let plain = (false, false, false);
        json!({
            "version": "1.0", "truncation": null, "padding": null,
            "added_tokens": [added(0, "<unk>", plain), added(1, "</s>", plain), added(2, "<mask>", mask)],
            "normalizer": normalizer, "pre_tokenizer": pre_tokenizer,
            "post_processor": {"type": "TemplateProcessing", "single": [{"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}],
                "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
                "special_tokens": {"</s>": {"id": "</s>", "ids": [1], "tokens": ["</s>"]}}},
            "decoder": null,
            "model": {"type": "Unigram", "unk_id": 0, "vocab": vocab, "byte_fallback": false}
        })
        .to_string()
    }

    fn metaspace(scheme: &str) -> serde_json::Value {
        json!({"type": "Metaspace", "replacement": "▁", "prepend_scheme": scheme, "split": true})
    }

    fn nfkc_spaces() -> serde_json::Value {
        json!({"type": "Sequence", "normalizers": [{"type": "NFKC"}, {"type": "Lowercase"},
            {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}]})
    }

    #[test]
    fn metaspace_unigram_by_chunks_gives_the_whole_texts_tokens() {
        // Pieces where a cut could go wrong: runs of spaces (joined by the normaliser), spaces
        // NFKC makes (no-break, ideographic, ¨'s), combining marks, added tokens, capitals.
        let pieces = [
            " ", " ", "  ", "   ", "\t", "\u{a0}", "\u{3000}", "¨", "\u{301}", "the", "The", "THE", "a", "'s", ".",
            "...", "é", "e", "東京", "ΣΑΣ", "<mask>", "<MASK>", "</s>", "\n", "ﬁ", "x",
        ];
        let whitespace_split =
            |scheme| json!({"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, metaspace(scheme)]});
        let files = [
            unigram(nfkc_spaces(), metaspace("always")),
            unigram(nfkc_spaces(), metaspace("first")),
            unigram(json!(null), metaspace("never")),
            unigram(json!({"type": "Replace", "pattern": {"String": "  "}, "content": " "}), metaspace("always")),
            unigram(nfkc_spaces(), whitespace_split("always")),
            unigram(nfkc_spaces(), whitespace_split("first")),
            // `<mask>` matched in the lowercased text, taking the space before it.
            unigram_with(nfkc_spaces(), metaspace("first"), (true, false, true)),
            unigram_with(nfkc_spaces(), metaspace("always"), (true, false, true)),
        ];
        for (f, file) in files.iter().enumerate() {
            let t = ModelTokenizer::from_bytes("u.json", file.as_bytes()).unwrap();
            assert!(t.encodes_chunks(), "file {f}");
            let mut state = 0x9e37_79b9_7f4a_7c15u64 ^ f as u64;
            for k in 0..1500 {
                let s = super::super::chunks::check::text(&mut state, &pieces, k % 14);
                super::super::chunks::check::same_ids(&t, &s, &[2], &format!("file {f}"));
            }
        }
    }

    #[test]
    fn only_metaspace_pipelines_that_keep_the_cut_are_cut() {
        let read = |n: serde_json::Value, p: serde_json::Value| {
            ModelTokenizer::from_bytes("u.json", unigram(n, p).as_bytes()).unwrap().encodes_chunks()
        };
        let replace = |pattern: serde_json::Value| json!({"type": "Replace", "pattern": pattern, "content": " "});
        assert!(read(nfkc_spaces(), metaspace("always")));
        assert!(read(replace(json!({"Regex": " +"})), metaspace("always")));
        let quotes = json!({"type": "Replace", "pattern": {"String": "``"}, "content": "\""});
        assert!(read(quotes, metaspace("always")));
        // Normalisers that act across spaces, or that change the characters around a cut.
        for n in [
            replace(json!({"String": "a b"})),
            replace(json!({"Regex": " {0,}"})),
            replace(json!({"Regex": "\\s+"})),
            replace(json!({"String": "a"})), // "a" → " ": a space next to the cut
            replace(json!({"String": "\n"})),
            // "a <br> b" → "a  b" → "a b" whole, but " <br>" → " " alone.
            json!({"type": "Sequence", "normalizers": [
                {"type": "Replace", "pattern": {"String": "<br>"}, "content": ""}, replace(json!({"Regex": " {2,}"}))]}),
            json!({"type": "Strip", "strip_left": true, "strip_right": true}),
            json!({"type": "Prepend", "prepend": "▁"}),
            json!({"type": "Sequence", "normalizers": [{"type": "NFKC"}, {"type": "Strip", "strip_left": true, "strip_right": true}]}),
        ] {
            assert!(
                !ModelTokenizer::from_bytes("u.json", unigram(n.clone(), metaspace("always")).as_bytes())
                    .is_ok_and(|t| t.encodes_chunks()),
                "{n}"
            );
        }
        // An added token matched in the normalised text that takes the space after it (that of
        // a cut: "a <MASK> b").
        let lower = json!({"type": "Lowercase"});
        let tok = |mask| {
            ModelTokenizer::from_bytes("u.json", unigram_with(lower.clone(), metaspace("first"), mask).as_bytes())
        };
        assert!(!tok((false, true, true)).unwrap().encodes_chunks());
        assert!(
            tok((true, false, true)).unwrap().encodes_chunks() && tok((true, true, false)).unwrap().encodes_chunks()
        );
        // A charsmap the crate cannot read is a message (the crate itself would panic).
        let bad = json!({"type": "Sequence", "normalizers": [{"type": "Precompiled", "precompiled_charsmap": "AAAA"}]});
        let e = ModelTokenizer::from_bytes("u.json", unigram(bad, metaspace("always")).as_bytes()).err().unwrap();
        assert!(e.to_string().contains("u.json: its SentencePiece (Precompiled) normaliser cannot be read"), "{e}");
        // Metaspace that does not split, or after another pre-tokeniser.
        let unsplit = json!({"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": false});
        assert!(!read(json!(null), unsplit));
        let after = json!({"type": "Sequence", "pretokenizers": [{"type": "Punctuation", "behavior": "Isolated"}, metaspace("always")]});
        assert!(!read(json!(null), after));
        assert!(!read(json!(null), json!({"type": "WhitespaceSplit"})));
    }
}
